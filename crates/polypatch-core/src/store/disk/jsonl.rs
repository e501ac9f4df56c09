//! The journal's lines as JSON, written and read without serde: a library build without
//! its `serde` feature still commits to disk and recovers, and a journal is the same
//! bytes with the feature or without it.
//!
//! A line is written exactly as `serde_json` wrote the lines of earlier versions (the
//! enum tagged by its lowercase name, the fields in declaration order, the optional
//! hashes left out when absent, strings escaped as `serde_json` escapes them), and read
//! as `serde_json` read them: any JSON spacing and field order, unknown fields ignored, a
//! missing or `null` optional field absent; a duplicate field, a wrong type, a number out
//! of range or anything after the value makes the line one a commit does not write.

use std::fmt::Write as _;

/// One line of the journal, written before the step it announces: one JSON object a line
/// (`{"mkdir":{"dir":..}}`, `{"file":{..}}`, `{"swap":{..}}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Line {
    /// The directory (root-relative) is about to be created.
    Mkdir { dir: String },
    /// A target (root-relative), its temporary file and its backup (names in its
    /// directory), with the XXH3-128 hash (`journal::content_id`) of the content the commit
    /// writes (`new`), and the size and modification time (seconds, nanoseconds) of the
    /// file it replaces (`was`): recovery puts the backup back only over a file that still
    /// holds `new`, and only while the backup (the original itself, its hard link, or a
    /// copy given its time) still shows `was`; it removes a file the commit created only
    /// while it holds `new`. (Journals of earlier versions have no `new`: recovery then
    /// leaves every file whose content it cannot check. Those of the version before this
    /// one hold git blob ids in `new`, and `old`, the blob id of the original, in place of
    /// `was`.)
    File {
        path: String,
        temp: Option<String>,
        backup: Option<String>,
        new: Option<String>,
        old: Option<String>,
        was: Option<(u64, i64, i64)>,
    },
    /// The whole commit is one rename of `temp` over the existing file `path` (a commit
    /// that replaces one file and syncs nothing): the rename is the commit point, so no
    /// backup is kept. A temporary file still there means the commit did not happen;
    /// recovery removes it. Recovery never changes `path`. (A version that does not know
    /// this line reads no line of the journal and changes nothing.)
    Swap { path: String, temp: String },
}

/// `line` as one line of JSON (without the line break), appended to `out`.
pub(super) fn write(line: &Line, out: &mut Vec<u8>) {
    let mut s = String::with_capacity(160);
    match line {
        Line::Mkdir { dir } => {
            s.push_str("{\"mkdir\":{\"dir\":");
            string(&mut s, dir);
        }
        Line::File { path, temp, backup, new, old, was } => {
            s.push_str("{\"file\":{\"path\":");
            string(&mut s, path);
            s.push_str(",\"temp\":");
            optional(&mut s, temp.as_deref());
            s.push_str(",\"backup\":");
            optional(&mut s, backup.as_deref());
            if let Some(new) = new {
                s.push_str(",\"new\":");
                string(&mut s, new);
            }
            if let Some(old) = old {
                s.push_str(",\"old\":");
                string(&mut s, old);
            }
            if let Some((size, secs, nanos)) = was {
                let _ = write!(s, ",\"was\":[{size},{secs},{nanos}]");
            }
        }
        Line::Swap { path, temp } => {
            s.push_str("{\"swap\":{\"path\":");
            string(&mut s, path);
            s.push_str(",\"temp\":");
            string(&mut s, temp);
        }
    }
    s.push_str("}}");
    out.extend_from_slice(s.as_bytes());
}

fn optional(s: &mut String, value: Option<&str>) {
    match value {
        Some(value) => string(s, value),
        None => s.push_str("null"),
    }
}

/// A JSON string as `serde_json` writes it: `"` and `\` escaped, the control characters
/// as `\b \t \n \f \r` or `\u00xx`, everything else (non-ASCII included) as it is.
fn string(s: &mut String, value: &str) {
    s.push('"');
    for c in value.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\u{8}' => s.push_str("\\b"),
            '\u{c}' => s.push_str("\\f"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
}

/// A JSON value, as far as a journal line holds them.
#[derive(Debug)]
enum Value {
    Null,
    Bool,
    /// An integer (the only numbers a line holds); any other number is [`Value::Other`].
    Int(i128),
    Other,
    String(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

/// The line `text` holds, when it holds one a commit writes.
pub(super) fn read(text: &str) -> Option<Line> {
    let mut reader = Reader { bytes: text.as_bytes(), at: 0, depth: 0 };
    let value = reader.value()?;
    reader.space();
    if reader.at != reader.bytes.len() {
        return None;
    }
    let Value::Object(tagged) = value else { return None };
    let [(tag, body)] = <[_; 1]>::try_from(tagged).ok()?;
    let names: &[&str] = match tag.as_str() {
        "mkdir" => &["dir"],
        "file" => &["path", "temp", "backup", "new", "old", "was"],
        "swap" => &["path", "temp"],
        _ => return None,
    };
    let mut fields = match body {
        Value::Object(fields) => Fields(fields),
        // serde reads a struct from an array too: its fields in order, all those without a
        // default (the hashes have one) there.
        Value::Array(items) => {
            let needed = if tag == "file" { 3 } else { names.len() };
            if items.len() < needed || items.len() > names.len() {
                return None;
            }
            Fields(names.iter().map(|name| (*name).to_string()).zip(items).collect())
        }
        _ => return None,
    };
    // A field named twice refuses the line (one the line does not have is ignored, twice
    // or not).
    if names.iter().any(|name| fields.0.iter().filter(|(n, _)| n == name).count() > 1) {
        return None;
    }
    let line = match tag.as_str() {
        "mkdir" => Line::Mkdir { dir: fields.string("dir")? },
        "file" => Line::File {
            path: fields.string("path")?,
            temp: fields.optional("temp")?,
            backup: fields.optional("backup")?,
            new: fields.optional("new")?,
            old: fields.optional("old")?,
            was: match fields.take("was") {
                None | Some(Value::Null) => None,
                Some(Value::Array(items)) => {
                    let [Value::Int(size), Value::Int(secs), Value::Int(nanos)] = <[_; 3]>::try_from(items).ok()?
                    else {
                        return None;
                    };
                    Some((u64::try_from(size).ok()?, i64::try_from(secs).ok()?, i64::try_from(nanos).ok()?))
                }
                Some(_) => return None,
            },
        },
        _ => Line::Swap { path: fields.string("path")?, temp: fields.string("temp")? },
    };
    Some(line)
}

/// An object's fields by name.
struct Fields(Vec<(String, Value)>);

impl Fields {
    fn take(&mut self, name: &str) -> Option<Value> {
        let i = self.0.iter().position(|(n, _)| n == name)?;
        Some(self.0.swap_remove(i).1)
    }

    /// A field that must be there, a string.
    fn string(&mut self, name: &str) -> Option<String> {
        match self.take(name)? {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// A field that may be missing or `null`, or a string (`Some(None)`: absent; `None`:
    /// not a line a commit writes).
    #[allow(clippy::option_option, reason = "the outer None refuses the line, the inner one is the field's")]
    fn optional(&mut self, name: &str) -> Option<Option<String>> {
        match self.take(name) {
            None | Some(Value::Null) => Some(None),
            Some(Value::String(s)) => Some(Some(s)),
            Some(_) => None,
        }
    }
}

/// The most arrays and objects nested in one another a line is read with, `serde_json`'s
/// limit (a line a commit writes nests three); deeper is refused, not recursed into.
const MAX_DEPTH: usize = 128;

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    depth: usize,
}

impl Reader<'_> {
    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.space();
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let here = self.peek() == Some(byte);
        self.at += usize::from(here);
        here
    }

    fn word(&mut self, word: &str) -> bool {
        let here = self.bytes[self.at..].starts_with(word.as_bytes());
        self.at += if here { word.len() } else { 0 };
        here
    }

    fn value(&mut self) -> Option<Value> {
        match self.peek()? {
            b'{' | b'[' if self.depth == MAX_DEPTH => None,
            b'{' => {
                self.at += 1;
                self.depth += 1;
                let mut fields = Vec::new();
                if !self.eat(b'}') {
                    loop {
                        if self.peek()? != b'"' {
                            return None;
                        }
                        let name = self.string()?;
                        if !self.eat(b':') {
                            return None;
                        }
                        fields.push((name, self.value()?));
                        if self.eat(b'}') {
                            break;
                        }
                        if !self.eat(b',') {
                            return None;
                        }
                    }
                }
                self.depth -= 1;
                Some(Value::Object(fields))
            }
            b'[' => {
                self.at += 1;
                self.depth += 1;
                let mut items = Vec::new();
                if !self.eat(b']') {
                    loop {
                        items.push(self.value()?);
                        if self.eat(b']') {
                            break;
                        }
                        if !self.eat(b',') {
                            return None;
                        }
                    }
                }
                self.depth -= 1;
                Some(Value::Array(items))
            }
            b'"' => self.string().map(Value::String),
            b'n' => self.word("null").then_some(Value::Null),
            b't' => self.word("true").then_some(Value::Bool),
            b'f' => self.word("false").then_some(Value::Bool),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    /// A number as JSON writes it; an integer's value when it is one.
    fn number(&mut self) -> Option<Value> {
        let start = self.at;
        let digits = |r: &mut Self| {
            let from = r.at;
            while r.bytes.get(r.at).is_some_and(u8::is_ascii_digit) {
                r.at += 1;
            }
            r.at - from
        };
        self.at += usize::from(self.bytes[self.at] == b'-');
        let int_start = self.at;
        let n = digits(self);
        if n == 0 || (n > 1 && self.bytes[int_start] == b'0') {
            return None;
        }
        let mut integer = true;
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            integer = false;
            if digits(self) == 0 {
                return None;
            }
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.at) {
            self.at += 1;
            integer = false;
            if let Some(b'+' | b'-') = self.bytes.get(self.at) {
                self.at += 1;
            }
            if digits(self) == 0 {
                return None;
            }
        }
        if !integer {
            return Some(Value::Other);
        }
        // 40 digits overflow an i128; such a number is out of every field's range anyway.
        let text = std::str::from_utf8(&self.bytes[start..self.at]).ok()?;
        Some(text.parse().map_or(Value::Other, Value::Int))
    }

    /// A string, at its opening quote: its escapes undone; a control character not
    /// escaped, an unknown escape or a lone surrogate refuses it.
    fn string(&mut self) -> Option<String> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let run = self.bytes[self.at..].iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
            // The text is UTF-8 and the run ends before an ASCII byte: a whole number of
            // characters.
            out.push_str(std::str::from_utf8(&self.bytes[self.at..self.at + run]).ok()?);
            self.at += run;
            match self.bytes[self.at] {
                b'"' => {
                    self.at += 1;
                    return Some(out);
                }
                b'\\' => {
                    let escape = *self.bytes.get(self.at + 1)?;
                    self.at += 2;
                    out.push(match escape {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode()?,
                        _ => return None,
                    });
                }
                _ => return None,
            }
        }
    }

    /// The character of a `\u` escape (its four digits next), a surrogate pair read whole.
    fn unicode(&mut self) -> Option<char> {
        let first = self.hex4()?;
        if (0xD800..0xDC00).contains(&first) {
            if !self.word("\\u") {
                return None;
            }
            let second = self.hex4()?;
            if !(0xDC00..0xE000).contains(&second) {
                return None;
            }
            return char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00));
        }
        char::from_u32(first)
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.bytes.get(self.at..self.at + 4)?;
        self.at += 4;
        digits.iter().try_fold(0, |n, &b| Some(n * 16 + char::from(b).to_digit(16)?))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The journal line as earlier versions declared it and `serde_json` wrote and read it:
    /// the reference the codec is checked against.
    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Reference {
        Mkdir {
            dir: String,
        },
        File {
            path: String,
            temp: Option<String>,
            backup: Option<String>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            new: Option<String>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            old: Option<String>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            was: Option<(u64, i64, i64)>,
        },
        Swap {
            path: String,
            temp: String,
        },
    }

    fn reference(line: &Line) -> Reference {
        match line.clone() {
            Line::Mkdir { dir } => Reference::Mkdir { dir },
            Line::File { path, temp, backup, new, old, was } => Reference::File { path, temp, backup, new, old, was },
            Line::Swap { path, temp } => Reference::Swap { path, temp },
        }
    }

    fn written(line: &Line) -> String {
        let mut out = Vec::new();
        write(line, &mut out);
        String::from_utf8(out).unwrap()
    }

    /// Whether the codec reads `text` as `serde_json` read it into the reference.
    fn reads_alike(text: &str) -> Result<(), String> {
        let ours = read(text).map(|line| reference(&line));
        let theirs = serde_json::from_str::<Reference>(text).ok();
        if ours == theirs { Ok(()) } else { Err(format!("{text:?}: ours {ours:?}, serde_json {theirs:?}")) }
    }

    fn any_string() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z./_-]{0,12}",
            any::<String>(),
            proptest::collection::vec(
                prop_oneof![
                    Just('"'),
                    Just('\\'),
                    Just('\u{1}'),
                    Just('\u{7f}'),
                    Just('é'),
                    Just('😀'),
                    Just('\n'),
                    Just('/')
                ],
                0..8
            )
            .prop_map(|chars| chars.into_iter().collect()),
        ]
    }

    fn any_line() -> impl Strategy<Value = Line> {
        prop_oneof![
            any_string().prop_map(|dir| Line::Mkdir { dir }),
            (
                any_string(),
                proptest::option::of(any_string()),
                proptest::option::of(any_string()),
                proptest::option::of(any_string()),
                proptest::option::of(any_string()),
                proptest::option::of(any::<(u64, i64, i64)>()),
            )
                .prop_map(|(path, temp, backup, new, old, was)| Line::File {
                    path,
                    temp,
                    backup,
                    new,
                    old,
                    was
                }),
            (any_string(), any_string()).prop_map(|(path, temp)| Line::Swap { path, temp }),
        ]
    }

    proptest! {
        /// Every line is written byte for byte as serde_json wrote it, and read back.
        #[test]
        fn lines_are_written_as_serde_json_wrote_them(line in any_line()) {
            let text = written(&line);
            prop_assert_eq!(&text, &serde_json::to_string(&reference(&line)).unwrap());
            prop_assert_eq!(read(&text), Some(line));
        }

        /// A line cut anywhere, or any bytes at all, are read as serde_json read them.
        #[test]
        fn any_text_is_read_as_serde_json_read_it(line in any_line(), cut in any::<prop::sample::Index>(), noise in "[ -~]{0,40}") {
            let text = written(&line);
            let mut at = cut.index(text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            prop_assert_eq!(reads_alike(&text[..at]), Ok(()));
            prop_assert_eq!(reads_alike(&noise), Ok(()));
        }
    }

    #[test]
    fn lines_in_other_forms_are_read_as_serde_json_read_them() {
        let cases = [
            r#"{"mkdir":{"dir":"d"}}"#,
            r#" { "mkdir" : { "dir" : "d" } } "#,
            r#"{"mkdir":{"dir":"d","extra":[1,{"x":null},true,false,-2.5e3]}}"#,
            r#"{"mkdir":{"dir":"d","dir":"e"}}"#,
            r#"{"mkdir":{"dir":"d","x":1,"x":2}}"#,
            r#"{"mkdir":["d"]}"#,
            r#"{"mkdir":["d","e"]}"#,
            r#"{"mkdir":[]}"#,
            r#"{"file":["a",null,"b"]}"#,
            r#"{"file":["a",null]}"#,
            r#"{"file":["a",null,null,"n","o",[1,2,3]]}"#,
            r#"{"file":["a",null,null,"n","o",[1,2,3],7]}"#,
            r#"{"swap":["a","b"]}"#,
            r#"{"swap":["a","b","c"]}"#,
            r#"{"mkdir":{}}"#,
            r#"{"mkdir":{"dir":1}}"#,
            r#"{"mkdir":{"dir":"d"},"swap":{"path":"a","temp":"b"}}"#,
            r#"{"mkdir":{"dir":"d"}}x"#,
            r#"{"rmdir":{"dir":"d"}}"#,
            "{}",
            "[]",
            r#""mkdir""#,
            r#"{"file":{"path":"a"}}"#,
            r#"{"file":{"path":"a","temp":null,"backup":null,"new":null,"old":null,"was":null}}"#,
            r#"{"file":{"was":[1,-2,3],"backup":"b","temp":"t","path":"a"}}"#,
            r#"{"file":{"path":"a","temp":null,"backup":null,"was":[1,2]}}"#,
            r#"{"file":{"path":"a","temp":null,"backup":null,"was":[1,2,3,4]}}"#,
            r#"{"file":{"path":"a","temp":null,"backup":null,"was":[-1,2,3]}}"#,
            r#"{"file":{"path":"a","temp":null,"backup":null,"was":[1.0,2,3]}}"#,
            r#"{"file":{"path":"a","temp":null,"backup":null,"was":[18446744073709551615,-9223372036854775808,9223372036854775807]}}"#,
            r#"{"file":{"path":"a","temp":null,"backup":null,"was":[18446744073709551616,0,0]}}"#,
            r#"{"file":{"path":"a","temp":null,"backup":null,"was":[01,0,0]}}"#,
            r#"{"file":{"path":"a","temp":7,"backup":null}}"#,
            r#"{"swap":{"path":"a\u00e9\ud83d\ude00\n\/","temp":"b"}}"#,
            r#"{"swap":{"path":"a\ud83d","temp":"b"}}"#,
            r#"{"swap":{"path":"a\ude00","temp":"b"}}"#,
            r#"{"swap":{"path":"a\x","temp":"b"}}"#,
            "{\"swap\":{\"path\":\"a\tb\",\"temp\":\"b\"}}",
            r#"{"swap":{"path":"a","temp":"b"}"#,
            &format!("{}{}", "[".repeat(200), "]".repeat(200)),
        ];
        for text in cases {
            assert_eq!(reads_alike(text), Ok(()));
        }
    }
}

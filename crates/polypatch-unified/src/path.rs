//! Paths in diff headers: git's C-quoted paths, `/dev/null`, timestamps after a name, the
//! two names of a `diff --git` line, and strip levels (`-p N`).
//!
//! The grammars are written with nom; every function here works on one header line's text
//! after its keyword (`--- `, `rename from `, `diff --git `) and never panics.

use nom::branch::alt;
use nom::bytes::complete::{is_not, take_while_m_n};
use nom::character::complete::{char, one_of};
use nom::combinator::{map, map_res};
use nom::multi::fold_many0;
use nom::sequence::{delimited, preceded};
use nom::{IResult, Parser};

/// The name git and diff write for the missing side of a creation or deletion.
pub(crate) const DEV_NULL: &str = "/dev/null";

/// A name read from a header, before any strip level.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathName {
    /// `/dev/null`: the file does not exist on this side.
    DevNull,
    /// A path, unquoted, as the header wrote it (prefix such as `a/` included).
    Path(String),
}

impl PathName {
    /// The path, unless this is `/dev/null`.
    pub fn as_path(&self) -> Option<&str> {
        match self {
            PathName::DevNull => None,
            PathName::Path(p) => Some(p),
        }
    }

    fn from_string(name: String) -> Self {
        if name == DEV_NULL { PathName::DevNull } else { PathName::Path(name) }
    }
}

/// Why a name could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NameError {
    /// What is wrong, lowercase.
    pub message: String,
}

fn name_error(message: impl Into<String>) -> NameError {
    NameError { message: message.into() }
}

/// One escape of a C-quoted name: `\n`, `\t`, `\"`, `\\`, `\a`, `\b`, `\f`, `\r`, `\v` or
/// three octal digits (a byte).
fn escape(input: &str) -> IResult<&str, u8> {
    preceded(
        char('\\'),
        alt((
            map_res(take_while_m_n(3, 3, |c: char| c.is_digit(8)), |digits: &str| u8::from_str_radix(digits, 8)),
            map(one_of("abfnrtv\"\\"), |c| match c {
                'a' => 0x07,
                'b' => 0x08,
                'f' => 0x0c,
                'n' => b'\n',
                'r' => b'\r',
                't' => b'\t',
                'v' => 0x0b,
                other => other as u8,
            }),
        )),
    )
    .parse(input)
}

/// A run of characters that need no escape.
fn plain(input: &str) -> IResult<&str, &str> {
    is_not("\\\"").parse(input)
}

/// A C-quoted name (`"a/t\303\251st\tx"`): its bytes, unescaped.
fn quoted(input: &str) -> IResult<&str, Vec<u8>> {
    delimited(
        char('"'),
        fold_many0(
            alt((map(escape, |b| vec![b]), map(plain, |s: &str| s.as_bytes().to_vec()))),
            Vec::new,
            |mut acc, piece| {
                acc.extend_from_slice(&piece);
                acc
            },
        ),
        char('"'),
    )
    .parse(input)
}

/// Reads a quoted name at the start of `text`: the name and the text after the closing
/// quote.
pub(crate) fn parse_quoted(text: &str) -> Result<(String, &str), NameError> {
    let (rest, bytes) = quoted(text).map_err(|_| {
        name_error(
            "a quoted name must end with `\"` and use only the escapes \\a \\b \\f \\n \\r \\t \\v \\\" \\\\ and \\ooo",
        )
    })?;
    let name = String::from_utf8(bytes).map_err(|_| name_error("the quoted name is not UTF-8"))?;
    Ok((name, rest))
}

/// A name in a `---`/`+++` line (text after the marker) or an extended header (`rename
/// from X`): the name, and whether a timestamp after it is the Unix epoch (GNU `diff -N`
/// writes one for a file that does not exist on that side).
pub(crate) fn parse_name(text: &str) -> Result<(PathName, bool), NameError> {
    let text = text.trim_start_matches([' ', '\t']);
    if text.starts_with('"') {
        let (name, rest) = parse_quoted(text)?;
        if name.is_empty() {
            return Err(name_error("the name is empty"));
        }
        return Ok((PathName::from_string(name), is_epoch(rest.trim())));
    }
    let (name, stamp) = split_timestamp(text);
    let name = name.trim_end();
    if name.is_empty() {
        return Err(name_error("the name is missing"));
    }
    Ok((PathName::from_string(name.to_owned()), is_epoch(stamp)))
}

/// Splits `name<TAB>timestamp`, or `name  2024-01-01 10:00:00` (spaces before a date), into
/// the name and the timestamp.
fn split_timestamp(text: &str) -> (&str, &str) {
    if let Some((name, stamp)) = text.split_once('\t') {
        return (name, stamp.trim());
    }
    // Without a tab, a trailing ` YYYY-MM-DD …` is a timestamp, as in `diff -u` output
    // pasted through something that turned tabs into spaces.
    let bytes = text.as_bytes();
    for (i, _) in text.match_indices(' ') {
        let date = &bytes[i + 1..];
        if date.len() >= 10
            && date[..4].iter().all(u8::is_ascii_digit)
            && date[4] == b'-'
            && date[5..7].iter().all(u8::is_ascii_digit)
            && date[7] == b'-'
            && date[8..10].iter().all(u8::is_ascii_digit)
            && (date.len() == 10 || date[10] == b' ')
        {
            return (&text[..i], text[i + 1..].trim());
        }
    }
    (text, "")
}

/// Whether a timestamp is the Unix epoch, in any time zone: GNU `diff -N` and git's older
/// output date a missing file so.
fn is_epoch(stamp: &str) -> bool {
    stamp.starts_with("1970-01-01")
        || stamp.starts_with("1969-12-31")
        || (stamp.contains("Jan  1") && stamp.contains("1970"))
        || (stamp.contains("Dec 31") && stamp.contains("1969"))
}

/// The two names of a `diff --git` line (text after `diff --git `). Either may be quoted.
/// Unquoted names may contain spaces; then the split is chosen where both halves name the
/// same file (`a/X b/X`, or `X X` without prefixes). `None` when no split is certain; the
/// caller then takes the names from other headers.
pub(crate) fn parse_git_names(text: &str) -> Result<Option<(String, String)>, NameError> {
    let text = text.trim_end();
    if text.starts_with('"') {
        let (old, rest) = parse_quoted(text)?;
        let rest = rest.strip_prefix(' ').ok_or_else(|| name_error("expected a space after the first name"))?;
        let new = if rest.starts_with('"') {
            let (new, after) = parse_quoted(rest)?;
            if !after.trim().is_empty() {
                return Err(name_error("unexpected text after the second name"));
            }
            new
        } else {
            rest.to_owned()
        };
        return Ok(nonempty(old, new));
    }
    if let Some(at) = text.find(" \"") {
        let (new, after) = parse_quoted(&text[at + 1..])?;
        if after.trim().is_empty() {
            return Ok(nonempty(text[..at].to_owned(), new));
        }
    }
    let spaces: Vec<usize> = text.match_indices(' ').map(|(i, _)| i).collect();
    if let [only] = spaces.as_slice() {
        return Ok(nonempty(text[..*only].to_owned(), text[only + 1..].to_owned()));
    }
    let same = |a: &str, b: &str| a == b || (drop_first(a).is_some() && drop_first(a) == drop_first(b));
    let split = spaces.iter().find(|&&i| same(&text[..i], &text[i + 1..]));
    Ok(split.and_then(|&i| nonempty(text[..i].to_owned(), text[i + 1..].to_owned())))
}

fn nonempty(old: String, new: String) -> Option<(String, String)> {
    (!old.is_empty() && !new.is_empty()).then_some((old, new))
}

/// `name` without its first component (`a/x/y` → `x/y`), if it has more than one.
fn drop_first(name: &str) -> Option<&str> {
    let (_, rest) = name.split_once('/')?;
    let rest = rest.trim_start_matches('/');
    (!rest.is_empty()).then_some(rest)
}

/// `name` with `n` leading components removed, as `patch -p n` and `git apply -p n` do
/// (repeated slashes count as one). `None` when it has too few components.
pub(crate) fn strip(name: &str, n: usize) -> Option<&str> {
    let mut rest = name;
    for _ in 0..n {
        rest = drop_first(rest)?;
    }
    (!rest.is_empty()).then_some(rest)
}

/// Whether `old` and `new` carry git's default prefixes (`a/`, `b/`); `/dev/null`
/// (`None`) fits either, but at least one side must be a path.
pub(crate) fn has_ab_prefixes(old: Option<&str>, new: Option<&str>) -> bool {
    let fits = |name: Option<&str>, prefix: &str| name.is_none_or(|p| p.starts_with(prefix));
    (old.is_some() || new.is_some()) && fits(old, "a/") && fits(new, "b/")
}

/// Whether `old` and `new` differ only in their first component (`diff -ru old/ new/`);
/// never when either is `/dev/null` (`None`).
pub(crate) fn differ_in_first_component(old: Option<&str>, new: Option<&str>) -> bool {
    match (old, new) {
        (Some(a), Some(b)) => {
            a.split('/').next() != b.split('/').next() && drop_first(a).is_some() && drop_first(a) == drop_first(b)
        }
        _ => false,
    }
}

/// A file mode written in octal (`100644`).
pub(crate) fn parse_mode(text: &str) -> Option<u32> {
    let text = text.trim();
    let parsed: IResult<&str, u32> =
        map_res(take_while_m_n(1, 7, |c: char| c.is_digit(8)), |d: &str| u32::from_str_radix(d, 8)).parse(text);
    match parsed {
        Ok(("", mode)) => Some(mode),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_names_decode_escapes_and_octal_utf8() {
        let (name, rest) = parse_quoted(r#""a/t\303\251st\tx" rest"#).unwrap();
        assert_eq!(name, "a/tést\tx");
        assert_eq!(rest, " rest");
        let (name, _) = parse_quoted(r#""\a\b\f\n\r\t\v\"\\""#).unwrap();
        assert_eq!(name.as_bytes(), b"\x07\x08\x0c\n\r\t\x0b\"\\");
    }

    #[test]
    fn bad_quoted_names_are_errors() {
        assert!(parse_quoted(r#""a/x"#).is_err());
        assert!(parse_quoted(r#""a/\q""#).is_err());
        assert!(parse_quoted(r#""\377""#).is_err(), "not UTF-8");
    }

    #[test]
    fn names_drop_timestamps_and_recognise_dev_null() {
        assert_eq!(
            parse_name("a/x.rs\t2024-01-01 10:00:00.000000000 +0100").unwrap(),
            (PathName::Path("a/x.rs".into()), false)
        );
        assert_eq!(parse_name("/dev/null").unwrap(), (PathName::DevNull, false));
        assert_eq!(
            parse_name("old/x 1970-01-01 00:00:00.000000000 +0000").unwrap(),
            (PathName::Path("old/x".into()), true)
        );
        assert_eq!(parse_name("\"b/with space\"\t2024").unwrap().0, PathName::Path("b/with space".into()));
        assert_eq!(parse_name("b/x  ").unwrap().0, PathName::Path("b/x".into()));
        assert_eq!(parse_name("my file.txt").unwrap().0, PathName::Path("my file.txt".into()));
        assert!(parse_name("").is_err());
    }

    #[test]
    fn git_names_split_where_both_halves_agree() {
        let names = |t: &str| parse_git_names(t).unwrap();
        assert_eq!(names("a/x b/x"), Some(("a/x".into(), "b/x".into())));
        assert_eq!(names("a/my file b/my file"), Some(("a/my file".into(), "b/my file".into())));
        assert_eq!(names("my file my file"), Some(("my file".into(), "my file".into())));
        assert_eq!(names("a/one two b/three four"), None);
        assert_eq!(names(r#""a/t\303\251st" "b/t\303\251st""#), Some(("a/tést".into(), "b/tést".into())));
        assert_eq!(names(r#"a/x "b/y\tz""#), Some(("a/x".into(), "b/y\tz".into())));
        assert_eq!(names(r#""a/y\tz" b/x"#), Some(("a/y\tz".into(), "b/x".into())));
        assert!(parse_git_names(r#""a/x"#).is_err());
    }

    #[test]
    fn strip_drops_components() {
        assert_eq!(strip("a/b/c", 0), Some("a/b/c"));
        assert_eq!(strip("a/b/c", 1), Some("b/c"));
        assert_eq!(strip("a//b/c", 2), Some("c"));
        assert_eq!(strip("a/b", 2), None);
        assert_eq!(strip("x", 1), None);
    }

    #[test]
    fn prefixes() {
        assert!(has_ab_prefixes(Some("a/x"), Some("b/x")));
        assert!(has_ab_prefixes(PathName::DevNull.as_path(), Some("b/x")));
        assert!(!has_ab_prefixes(Some("x"), Some("b/x")));
        assert!(differ_in_first_component(Some("old/src/x"), Some("new/src/x")));
        assert!(!differ_in_first_component(Some("src/x"), Some("src/x")));
    }

    #[test]
    fn modes_are_octal() {
        assert_eq!(parse_mode("100644"), Some(0o100_644));
        assert_eq!(parse_mode("100755\r"), Some(0o100_755));
        assert_eq!(parse_mode("10064x"), None);
        assert_eq!(parse_mode("99"), None);
    }
}

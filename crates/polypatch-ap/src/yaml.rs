//! The YAML document as a tree of nodes with byte spans, read by serde-saphyr.
//!
//! The patch is read once, untyped, into [`Node`]s: every scalar, list and mapping keeps
//! the byte span of its text, so each rule of the format can be checked by hand
//! ([`crate::syntax`]) with a message that names the change, the modification and the
//! line. A YAML syntax error is therefore always the parser's own, at the line it names
//! (a typed deserialization would report a misindented key as a type error elsewhere).

use std::fmt;

use polypatch_core::{LineBreaks, PatchError, Span};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use crate::error::{INVALID_YAML, YAML_LIMIT, error};

/// A YAML node and where its text is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    pub value: Value,
    /// For scalars, the scalar's text (with quotes; a block scalar's lines); for lists and
    /// mappings, from the first item or key to the end of the last one.
    pub span: Span,
}

/// A YAML value. Plain scalars are typed as YAML 1.2 core (and serde-saphyr) types them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

impl Value {
    /// How a message names this kind of value.
    pub fn describe(&self) -> &'static str {
        match self {
            Value::Null => "nothing (null)",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a number",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }
}

/// Reads `text` as one YAML document.
pub(crate) fn read(text: &str) -> Result<Node, PatchError> {
    match serde_saphyr::from_str::<Spanned<Raw>>(text) {
        Ok(raw) => Ok(convert(text, raw)),
        Err(e) => Err(syntax_error(text, &e)),
    }
}

/// Which of the reader's safety limits a parser error reports, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limit {
    /// Anchors and aliases expand too far (a "billion laughs" document).
    Alias,
    /// Too many nodes, events, bytes or documents.
    Size,
    /// Lists and mappings nested too deeply.
    Nesting,
}

fn limit_breached(e: &serde_saphyr::Error) -> Option<Limit> {
    use serde_saphyr::Error;
    use serde_saphyr::budget::BudgetBreach;
    let mut e = e;
    // A limit reached while an alias was being expanded is the alias's doing.
    let mut in_alias = false;
    while let Error::WithSnippet { error, .. } | Error::AliasError { error, .. } = e {
        in_alias |= matches!(e, Error::AliasError { .. });
        e = error;
    }
    match e {
        Error::Budget { breach, .. } => Some(match breach {
            BudgetBreach::Aliases { .. } | BudgetBreach::Anchors { .. } | BudgetBreach::MergeKeys { .. } => {
                Limit::Alias
            }
            _ if in_alias => Limit::Alias,
            BudgetBreach::Depth { .. } => Limit::Nesting,
            _ => Limit::Size,
        }),
        Error::AliasReplayCounterOverflow { .. }
        | Error::AliasReplayLimitExceeded { .. }
        | Error::AliasExpansionLimitExceeded { .. }
        | Error::AliasReplayStackDepthExceeded { .. } => Some(Limit::Alias),
        // The scanner's own depth guard has no variant of its own, only this message.
        other if other.to_string().contains("recursion limit exceeded") => Some(Limit::Nesting),
        _ => None,
    }
}

/// A breached safety limit as ours: which limit, and what to write instead. No
/// indentation advice: the text may be well-formed, it is too big or too nested to read.
fn limit_error(text: &str, e: &serde_saphyr::Error, limit: Limit) -> PatchError {
    let (what, todo) = match limit {
        Limit::Alias => (
            "the patch exceeds the YAML alias limit: its anchors and aliases (`&name`, `*name`) expand to too much text",
            "write each snippet and content out in full, without anchors and aliases",
        ),
        Limit::Size => (
            "the patch exceeds the YAML size limit: it has too many nodes or too much text to read safely",
            "split it into several smaller patches, each changing fewer files",
        ),
        Limit::Nesting => (
            "the patch exceeds the YAML nesting limit: its lists or mappings are nested too deeply",
            "an ap patch needs only `changes`, each with `modifications`, each a mapping of strings; remove the \
             extra brackets or levels",
        ),
    };
    let span = e.location().map(|loc| {
        let start = offset_of(text, loc.line(), loc.column());
        Span::new(start, start)
    });
    let at = e.location().map_or(String::new(), |loc| format!(" (at line {})", loc.line()));
    error(YAML_LIMIT, format!("{what}{at}; {todo}"), span)
}

/// The parser's error as ours: its message without the location suffix, at its line.
fn syntax_error(text: &str, e: &serde_saphyr::Error) -> PatchError {
    if let Some(limit) = limit_breached(e) {
        return limit_error(text, e, limit);
    }
    let mut message = e.without_snippet().to_string();
    if let Some(at) = message.rfind(" at line ") {
        message.truncate(at);
    }
    if let Some(at) = message.find(", set DuplicateKeyPolicy") {
        message.truncate(at);
    }
    let message = message.trim().trim_end_matches('.');
    let (span, line) = match e.location() {
        Some(loc) => {
            let start = offset_of(text, loc.line(), loc.column());
            let end = text[start..].find(['\n', '\r']).map_or(text.len(), |n| start + n);
            (Some(Span::new(start, end.max(start))), Some(loc.line()))
        }
        None => (None, None),
    };
    let at = line.map_or(String::new(), |l| format!(" at line {l}"));
    error(
        INVALID_YAML,
        format!(
            "the patch is not valid YAML{at}: {message}; check this line's indentation against the lines before it: \
             sibling keys (`action`, `snippet`, `content` …) start in the same column, every line of a `|` block is \
             indented at least as much as its first line, and list items' `-` are aligned"
        ),
        span,
    )
}

/// The byte offset of a 1-based line and 1-based column (in characters) in `text`,
/// clamped to the text. Lines end as YAML ends them: `\n`, `\r\n` or a lone `\r`.
pub(crate) fn offset_of(text: &str, line: u64, column: u64) -> usize {
    let mut start = 0usize;
    for _ in 1..line {
        match next_line(text, start) {
            Some(next) => start = next,
            None => return text.len(),
        }
    }
    let rest = &text[start..];
    let line_end = rest.find(['\n', '\r']).unwrap_or(rest.len());
    let skip = usize::try_from(column.saturating_sub(1)).unwrap_or(usize::MAX);
    let within = rest[..line_end].char_indices().nth(skip).map_or(line_end, |(i, _)| i);
    start + within
}

/// The start of the line after the one starting at `start`, if there is one.
fn next_line(text: &str, start: usize) -> Option<usize> {
    let at = start + text[start..].find(['\n', '\r'])?;
    Some(if text[at..].starts_with("\r\n") { at + 2 } else { at + 1 })
}

/// The 1-based line of byte `offset` in `text` (a lone `\r` ends a line, as in YAML).
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    polypatch_core::locate_line(text, offset, LineBreaks::Any).0
}

/// The tree with byte spans; lists' and mappings' spans run to the end of their last
/// item, without trailing whitespace.
fn convert(text: &str, raw: Spanned<Raw>) -> Node {
    let start = byte_start(text, &raw);
    let own_end = raw.referenced.span().byte_len().map_or(start, |len| start.saturating_add(len as usize));
    let own_end = own_end.clamp(start, text.len());
    match raw.value.0 {
        RawValue::Seq(items) => {
            let items: Vec<Node> = items.into_iter().map(|i| convert(text, i)).collect();
            let end = items.iter().map(|n| n.span.end).max().unwrap_or(own_end).max(own_end);
            Node { value: Value::Seq(items), span: Span::new(start, flow_end(text, start, end, b'[', b']')) }
        }
        RawValue::Map(entries) => {
            let entries: Vec<(Node, Node)> =
                entries.into_iter().map(|(k, v)| (convert(text, k), convert(text, v))).collect();
            let end = entries.iter().map(|(k, v)| k.span.end.max(v.span.end)).max().unwrap_or(own_end).max(own_end);
            Node { value: Value::Map(entries), span: Span::new(start, flow_end(text, start, end, b'{', b'}')) }
        }
        scalar => {
            let end = trim_end(text, start, own_end);
            let value = match scalar {
                RawValue::Null => Value::Null,
                RawValue::Bool(b) => Value::Bool(b),
                RawValue::Int(i) => Value::Int(i),
                RawValue::Float(f) => Value::Float(f),
                RawValue::Str(s) => Value::Str(s),
                RawValue::Seq(_) | RawValue::Map(_) => unreachable!("handled above"),
            };
            Node { value, span: Span::new(start, end) }
        }
    }
}

fn byte_start(text: &str, raw: &Spanned<Raw>) -> usize {
    let loc = raw.referenced;
    match loc.span().byte_offset() {
        Some(o) => usize::try_from(o).unwrap_or(usize::MAX).min(text.len()),
        None => offset_of(text, loc.line(), loc.column()),
    }
}

/// For a flow collection (`[a, b]`, `{a: b}`) starting at `start`, `end` moved past its
/// closing bracket.
fn flow_end(text: &str, start: usize, end: usize, open: u8, close: u8) -> usize {
    let bytes = text.as_bytes();
    if bytes.get(start) != Some(&open) {
        return end;
    }
    let mut i = end.max(start + 1);
    while let Some(&b) = bytes.get(i) {
        match b {
            b' ' | b'\t' | b'\r' | b'\n' | b',' => i += 1,
            b if b == close => return i + 1,
            _ => break,
        }
    }
    end
}

/// `end` moved back over trailing whitespace, not before `start`.
fn trim_end(text: &str, start: usize, end: usize) -> usize {
    let Some(slice) = text.get(start..end) else { return end };
    start + slice.trim_end().len()
}

/// The node as serde-saphyr hands it over.
struct Raw(RawValue);

enum RawValue {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Seq(Vec<Spanned<Raw>>),
    Map(Vec<(Spanned<Raw>, Spanned<Raw>)>),
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(RawVisitor).map(Raw)
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = RawValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<RawValue, E> {
        Ok(RawValue::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<RawValue, E> {
        Ok(RawValue::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<RawValue, D::Error> {
        deserializer.deserialize_any(RawVisitor)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<RawValue, E> {
        Ok(RawValue::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawValue, E> {
        Ok(RawValue::Int(i128::from(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawValue, E> {
        Ok(RawValue::Int(i128::from(v)))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<RawValue, E> {
        Ok(RawValue::Int(v))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<RawValue, E> {
        Ok(RawValue::Int(i128::try_from(v).unwrap_or(i128::MAX)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<RawValue, E> {
        Ok(RawValue::Float(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<RawValue, E> {
        Ok(RawValue::Str(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<RawValue, E> {
        Ok(RawValue::Str(v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<RawValue, E> {
        Ok(RawValue::Str(String::from_utf8_lossy(v).into_owned()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawValue, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(RawValue::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawValue, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key()? {
            let value = map.next_value()?;
            entries.push((key, value));
        }
        Ok(RawValue::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{INVALID_YAML, YAML_LIMIT};

    fn slice<'t>(text: &'t str, node: &Node) -> &'t str {
        &text[node.span.start..node.span.end]
    }

    #[test]
    fn scalars_lists_and_mappings_keep_their_spans() {
        let text = "a:\n  - k: |\n      x\n      y\n\n    c: 2.0\n  - k: end\n";
        let root = read(text).unwrap();
        let Value::Map(entries) = &root.value else { panic!("a mapping") };
        let (key, list) = &entries[0];
        assert_eq!(slice(text, key), "a");
        let Value::Seq(items) = &list.value else { panic!("a list") };
        assert_eq!(slice(text, &items[0]), "k: |\n      x\n      y\n\n    c: 2.0");
        let Value::Map(first) = &items[0].value else { panic!("a mapping") };
        assert_eq!(first[0].1.value, Value::Str("x\ny\n".into()));
        assert_eq!(first[1].1.value, Value::Float(2.0));
        assert_eq!(slice(text, &first[1].1), "2.0");
        assert_eq!(slice(text, &items[1]), "k: end");
    }

    #[test]
    fn a_misindented_key_is_a_syntax_error_at_its_line() {
        let text = "a:\n  - k: |\n      x\n     c: |\n      y\n";
        let err = read(text).unwrap_err();
        assert_eq!(err.kind, INVALID_YAML);
        assert!(err.message.contains("at line 4"), "{}", err.message);
        assert_eq!(line_of(text, err.span.unwrap().start), 4);
    }

    #[test]
    fn lines_of_a_text_split_by_lone_carriage_returns() {
        // Old Mac line ends: YAML reads each `\r` as a line break, so must the line numbers.
        let text = "a:\r  - k: |\r      x\r     c: |\r      y\r";
        let err = read(text).unwrap_err();
        assert_eq!(err.kind, INVALID_YAML);
        let at = err.span.unwrap().start;
        assert_eq!(line_of(text, at), 4);
        assert_eq!(err.line_col(text).map(|(l, _)| l), Some(4));
        assert!(err.render(text).contains("line 4, column"), "{}", err.render(text));
        assert_eq!(offset_of("ab\rcd\r\nef", 3, 2), 8);
        assert_eq!(offset_of("ab\rcd\r\nef", 2, 9), 5);
    }

    #[test]
    fn a_breached_alias_or_nesting_limit_says_so_not_indentation() {
        let mut bomb = String::from("version: \"2.0\"\nx0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for i in 1..12 {
            let refs = vec![format!("*a{}", i - 1); 9].join(", ");
            std::fmt::Write::write_fmt(&mut bomb, format_args!("x{i}: &a{i} [{refs}]\n")).unwrap();
        }
        bomb.push_str("changes: []\n");
        let err = read(&bomb).unwrap_err();
        assert_eq!(err.kind, YAML_LIMIT, "{}", err.message);
        assert!(err.message.starts_with("the patch exceeds the YAML alias limit"), "{}", err.message);
        assert!(err.message.contains("without anchors and aliases"), "{}", err.message);
        assert!(!err.message.contains("indentation"), "{}", err.message);

        let deep = format!("version: \"2.0\"\nchanges: {}{}\n", "[".repeat(3000), "]".repeat(3000));
        let err = read(&deep).unwrap_err();
        assert_eq!(err.kind, YAML_LIMIT, "{}", err.message);
        assert!(err.message.contains("the patch exceeds the YAML nesting limit"), "{}", err.message);
        assert!(!err.message.contains("indentation"), "{}", err.message);
    }

    #[test]
    fn duplicate_keys_are_refused_without_the_parsers_advice() {
        let err = read("a: 1\na: 2\n").unwrap_err();
        assert!(err.message.contains("duplicate mapping key: a"), "{}", err.message);
        assert!(!err.message.contains("DuplicateKeyPolicy"), "{}", err.message);
    }

    #[test]
    fn offsets_of_lines_and_columns() {
        let text = "ab\ncdé f\n";
        assert_eq!(offset_of(text, 2, 5), text.find('f').unwrap());
        assert_eq!(offset_of(text, 9, 1), text.len());
        assert_eq!(offset_of(text, 1, 99), 2);
        assert_eq!(line_of(text, text.find('f').unwrap()), 2);
    }
}

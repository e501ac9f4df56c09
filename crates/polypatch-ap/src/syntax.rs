//! The 'ap' document: its YAML read into [`Patch`], every rule of the spec's §2 checked.

use std::fmt;
use std::ops::Range;

use polypatch_core::{LineText, Newline, PatchError, SharedText, Span};

use crate::error::{
    EMPTY_MODIFICATIONS, EMPTY_SNIPPET, INCOMPLETE_RANGE, INVALID_BLANK_LINES, INVALID_CREATE_FILE, INVALID_NEWLINE,
    INVALID_PATH, INVALID_ROOT, INVALID_TYPE, MISSING_ACTION, MISSING_CHANGES, MISSING_CONTENT, MISSING_FILE_PATH,
    MISSING_MODIFICATIONS, MISSING_SNIPPET, MISSING_VERSION, RANGE_WITH_INSERT, SNIPPET_AND_RANGE, UNEXPECTED_CONTENT,
    UNKNOWN_ACTION, UNKNOWN_KEY, UNSUPPORTED_VERSION, error, quote,
};
use crate::yaml::{self, Node, Value};
use polypatch_core::ErrorKind;

/// The versions of the format this crate reads.
pub const SUPPORTED_VERSIONS: &[&str] = &["2.0"];

/// The keys of the root mapping.
const ROOT_KEYS: &[&str] = &["version", "changes"];
/// The keys of a file change.
const CHANGE_KEYS: &[&str] = &["file_path", "modifications", "newline"];
/// The keys of a modification.
const MODIFICATION_KEYS: &[&str] = &[
    "action",
    "snippet",
    "start_snippet",
    "end_snippet",
    "anchor",
    "content",
    "include_leading_blank_lines",
    "include_trailing_blank_lines",
];

/// A parsed and checked 'ap' patch.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Patch {
    /// The file changes, in order.
    pub changes: Vec<Change>,
    /// What the parser accepted but the writer should fix (an unquoted `version: 2.0`).
    pub warnings: Vec<String>,
}

/// One item of `changes`: the modifications of one file.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Change {
    /// 1-based position in `changes`.
    pub index: usize,
    /// The path as written (checked: not empty, not absolute, no `..`).
    pub file_path: String,
    /// The line ending for `CREATE_FILE`.
    pub newline: Option<Newline>,
    /// The modifications, in order (never empty).
    pub modifications: Vec<Modification>,
    /// From the item's `-` to the end of its last value.
    pub span: Span,
}

/// One item of `modifications`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Modification {
    /// 1-based position in its change's `modifications`.
    pub index: usize,
    /// The operation.
    pub action: ActionKind,
    /// What to find (`None` only for `CREATE_FILE`).
    pub locator: Option<Locator>,
    /// The block that narrows the search (`None` for `CREATE_FILE`).
    pub anchor: Option<Text>,
    /// The new code (`None` only for `DELETE`).
    pub content: Option<Text>,
    /// `include_leading_blank_lines` (0 when absent).
    pub leading_blank_lines: usize,
    /// `include_trailing_blank_lines` (0 when absent).
    pub trailing_blank_lines: usize,
    /// From the item's `-` to the end of its last value.
    pub span: Span,
}

/// A modification's `action`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ActionKind {
    /// `REPLACE`
    Replace,
    /// `INSERT_AFTER`
    InsertAfter,
    /// `INSERT_BEFORE`
    InsertBefore,
    /// `DELETE`
    Delete,
    /// `CREATE_FILE`
    CreateFile,
}

impl ActionKind {
    /// Every action, as the format spells them.
    pub const ALL: [ActionKind; 5] = [
        ActionKind::Replace,
        ActionKind::InsertAfter,
        ActionKind::InsertBefore,
        ActionKind::Delete,
        ActionKind::CreateFile,
    ];

    /// The action as the format spells it.
    pub fn name(self) -> &'static str {
        match self {
            ActionKind::Replace => "REPLACE",
            ActionKind::InsertAfter => "INSERT_AFTER",
            ActionKind::InsertBefore => "INSERT_BEFORE",
            ActionKind::Delete => "DELETE",
            ActionKind::CreateFile => "CREATE_FILE",
        }
    }

    fn is_insert(self) -> bool {
        matches!(self, ActionKind::InsertAfter | ActionKind::InsertBefore)
    }
}

impl fmt::Display for ActionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a modification looks for.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Locator {
    /// `snippet`
    Snippet(Text),
    /// `start_snippet` … `end_snippet`, inclusive.
    Range {
        /// `start_snippet`
        start: Text,
        /// `end_snippet`
        end: Text,
    },
}

/// A string value of the patch and the span of its YAML text.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Text {
    /// The string as YAML gives it (a `|` block ends with `\n`).
    pub value: String,
    /// Where its YAML text is.
    pub span: Span,
}

impl Text {
    /// The lines of the string: split on `\n`, without the empty piece after a final
    /// `\n`, a `\r` at a line's end removed.
    pub fn lines(&self) -> Vec<String> {
        split_lines(&self.value)
    }

    /// [`Text::lines`] as the plan's lines: ranges of one shared copy of the string.
    pub(crate) fn line_texts(&self) -> Vec<LineText> {
        LineText::slices(&SharedText::new(self.value.clone()), line_ranges(&self.value))
    }
}

/// `text` split into lines as [`Text::lines`] does.
pub(crate) fn split_lines(text: &str) -> Vec<String> {
    line_ranges(text).map(|range| text[range].to_owned()).collect()
}

/// Where the lines of `text` are (see [`Text::lines`]), without their terminators.
fn line_ranges(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let mut at = 0;
    let pieces = (!text.is_empty()).then(|| body.split('\n')).into_iter().flatten();
    pieces.map(move |piece| {
        let start = at;
        at += piece.len() + 1;
        start..start + piece.strip_suffix('\r').unwrap_or(piece).len()
    })
}

/// Reads and checks an 'ap' patch.
pub fn parse(text: &str) -> Result<Patch, PatchError> {
    let unfenced = unfence(text);
    let root = yaml::read(&unfenced)?;
    Checker { text: &unfenced, warnings: Vec::new() }.patch(&root)
}

/// A markdown code fence around the whole document (```` ```yaml ```` … ```` ``` ````), as
/// models write it, turned into YAML comments of the same length so spans stay right.
fn unfence(text: &str) -> std::borrow::Cow<'_, str> {
    let is_fence = |line: &str| {
        let t = line.trim();
        t.starts_with("```") || t.starts_with("~~~")
    };
    let mut lines = text.split_inclusive('\n').scan(0usize, |at, line| {
        let start = *at;
        *at += line.len();
        Some((start, line))
    });
    let Some((open, first)) = lines.find(|(_, l)| !l.trim().is_empty()) else {
        return text.into();
    };
    // The last non-blank line, read from the end (not every line of a long patch), when
    // it is another line than the first.
    let mut back = text.split_inclusive('\n').rev().scan(text.len(), |at, line| {
        *at -= line.len();
        Some((*at, line))
    });
    let Some((close, last)) = back.find(|(_, l)| !l.trim().is_empty()).filter(|&(close, _)| close > open) else {
        return text.into();
    };
    if !is_fence(first) || !is_fence(last) || last.trim().len() != 3 {
        return text.into();
    }
    let mut bytes = text.as_bytes().to_vec();
    for (start, line) in [(open, first), (close, last)] {
        let lead = line.len() - line.trim_start().len();
        bytes[start + lead] = b'#';
    }
    String::from_utf8(bytes).map_or(text.into(), Into::into)
}

/// The text being checked and the warnings found so far.
struct Checker<'t> {
    text: &'t str,
    warnings: Vec<String>,
}

/// Where a message is: `change 2, modification 3 (line 14)`.
#[derive(Clone, Copy)]
struct Place {
    change: Option<usize>,
    modification: Option<usize>,
}

impl Place {
    const ROOT: Place = Place { change: None, modification: None };
}

impl Checker<'_> {
    fn line(&self, span: Span) -> usize {
        yaml::line_of(self.text, span.start)
    }

    /// `change C, modification M (line L): ` (or the parts that apply).
    fn prefix(&self, place: Place, span: Span) -> String {
        let line = self.line(span);
        match (place.change, place.modification) {
            (Some(c), Some(m)) => format!("change {c}, modification {m} (line {line}): "),
            (Some(c), None) => format!("change {c} (line {line}): "),
            _ => format!("line {line}: "),
        }
    }

    fn err(&self, kind: ErrorKind, place: Place, span: Span, message: impl fmt::Display) -> PatchError {
        error(kind, format!("{}{message}", self.prefix(place, span)), Some(span))
    }

    fn patch(mut self, root: &Node) -> Result<Patch, PatchError> {
        let Value::Map(entries) = &root.value else {
            let what = if matches!(root.value, Value::Null) { "empty" } else { root.value.describe() };
            return Err(error(
                INVALID_ROOT,
                format!(
                    "the patch is {}{what}, not a mapping: it must start with `version: \"2.0\"` and `changes:` \
                     at column 1",
                    if what == "empty" { "" } else { "YAML " }
                ),
                Some(root.span),
            ));
        };
        self.known_keys(entries, ROOT_KEYS, Place::ROOT, "the patch")?;
        let version = get(entries, "version");
        match version {
            None => {
                return Err(error(
                    MISSING_VERSION,
                    "the patch has no `version`: add `version: \"2.0\"` as its first line",
                    Some(Span::new(root.span.start, root.span.start)),
                ));
            }
            Some((_, v)) => self.version(v)?,
        }
        let changes = match get(entries, "changes") {
            Some((_, Node { value: Value::Seq(items), .. })) => items,
            Some((key, value)) => {
                return Err(self.err(
                    MISSING_CHANGES,
                    Place::ROOT,
                    key.span,
                    format_args!(
                        "`changes` is {}, not a list: write `changes:` followed by items `- file_path: …` \
                         (or `changes: []` for none)",
                        value.value.describe()
                    ),
                ));
            }
            None => {
                return Err(error(
                    MISSING_CHANGES,
                    "the patch has no `changes`: add `changes:` with a list of `- file_path: …` items \
                     (or `changes: []` for none)",
                    Some(Span::new(root.span.start, root.span.start)),
                ));
            }
        };
        let mut out = Vec::with_capacity(changes.len());
        for (i, item) in changes.iter().enumerate() {
            out.push(self.change(i + 1, item)?);
        }
        Ok(Patch { changes: out, warnings: self.warnings })
    }

    fn version(&mut self, node: &Node) -> Result<(), PatchError> {
        let supported = SUPPORTED_VERSIONS.iter().map(|v| format!("\"{v}\"")).collect::<Vec<_>>().join(", ");
        let source = self.source(node);
        match &node.value {
            Value::Str(s) if SUPPORTED_VERSIONS.contains(&s.as_str()) => Ok(()),
            Value::Float(_) if SUPPORTED_VERSIONS.contains(&source) => {
                let line = self.line(node.span);
                self.warnings.push(format!(
                    "line {line}: `version: {source}` is a number in YAML, not the string the format asks for: \
                     write `version: \"{source}\"`"
                ));
                Ok(())
            }
            Value::Null => Err(self.err(
                MISSING_VERSION,
                Place::ROOT,
                node.span,
                format_args!("`version` has no value: write `version: \"2.0\"` (supported versions: {supported})"),
            )),
            _ => Err(self.err(
                UNSUPPORTED_VERSION,
                Place::ROOT,
                node.span,
                format_args!(
                    "unsupported version {}: the supported versions are {supported}; write `version: \"2.0\"` \
                     and the patch in that version's format",
                    quote(source)
                ),
            )),
        }
    }

    /// The YAML text of a node (a plain scalar's text as written).
    fn source(&self, node: &Node) -> &str {
        self.text.get(node.span.start..node.span.end).unwrap_or("")
    }

    /// A key's name: a string, or a plain scalar's text (`y:` is a boolean in YAML 1.1).
    fn key_name<'n>(&'n self, key: &'n Node) -> &'n str {
        match &key.value {
            Value::Str(s) => s,
            _ => self.source(key),
        }
    }

    fn known_keys(&self, entries: &[(Node, Node)], known: &[&str], place: Place, what: &str) -> Result<(), PatchError> {
        for (key, _) in entries {
            let name = self.key_name(key);
            if known.contains(&name) {
                continue;
            }
            let hint = closest(name, known).map_or(String::new(), |k| format!("did you mean `{k}`? "));
            return Err(self.err(
                UNKNOWN_KEY,
                place,
                key.span,
                format_args!(
                    "unknown key {} in {what}: {hint}the keys of {what} are {}",
                    quote(name),
                    known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        Ok(())
    }

    /// A string value; `None` for null. Plain scalars that YAML types as numbers or
    /// booleans are taken as written (`content: 42`).
    fn string(&self, node: &Node, place: Place, key: &str) -> Result<Option<Text>, PatchError> {
        let value = match &node.value {
            Value::Null => return Ok(None),
            Value::Str(s) => s.clone(),
            Value::Bool(_) | Value::Int(_) | Value::Float(_) => self.source(node).to_string(),
            Value::Seq(_) | Value::Map(_) => {
                return Err(self.err(
                    INVALID_TYPE,
                    place,
                    node.span,
                    format_args!(
                        "`{key}` is {}, not a string: write `{key}: |` and the lines below it, indented",
                        node.value.describe()
                    ),
                ));
            }
        };
        Ok(Some(Text { value, span: node.span }))
    }

    fn change(&mut self, index: usize, item: &Node) -> Result<Change, PatchError> {
        let span = item_span(self.text, item.span);
        let place = Place { change: Some(index), modification: None };
        let Value::Map(entries) = &item.value else {
            return Err(self.err(
                INVALID_TYPE,
                place,
                span,
                format_args!(
                    "a change is {}, not a mapping: write `- file_path: …` with `modifications:` below it",
                    item.value.describe()
                ),
            ));
        };
        self.known_keys(entries, CHANGE_KEYS, place, "a change")?;
        let file_path = match get(entries, "file_path") {
            Some((key, value)) => match self.string(value, place, "file_path")? {
                Some(text) => {
                    check_path(&text.value).map_err(|why| {
                        self.err(
                            INVALID_PATH,
                            place,
                            text.span,
                            format_args!(
                                "`file_path` {} {why}: write the path relative to the patch file's folder, \
                                 inside it",
                                quote(&text.value)
                            ),
                        )
                    })?;
                    text.value
                }
                None => {
                    return Err(self.err(
                        MISSING_FILE_PATH,
                        place,
                        key.span,
                        "`file_path` has no value: write the path of the file, relative to the patch file's folder",
                    ));
                }
            },
            None => {
                return Err(self.err(
                    MISSING_FILE_PATH,
                    place,
                    span,
                    "the change has no `file_path`: start the item with `- file_path: path/to/file`",
                ));
            }
        };
        let newline = match get(entries, "newline") {
            None => None,
            Some((_, value)) => {
                let text = self.string(value, place, "newline").ok().flatten();
                let parsed = match text.as_ref().map(|t| t.value.as_str()) {
                    Some("LF") => Some(Newline::Lf),
                    Some("CRLF") => Some(Newline::CrLf),
                    Some("CR") => Some(Newline::Cr),
                    _ => None,
                };
                if parsed.is_none() {
                    return Err(self.err(
                        INVALID_NEWLINE,
                        place,
                        value.span,
                        format_args!(
                            "`newline` is {}: write `LF`, `CRLF` or `CR`",
                            text.map_or(value.value.describe().to_string(), |t| quote(&t.value))
                        ),
                    ));
                }
                parsed
            }
        };
        let items = match get(entries, "modifications") {
            Some((_, Node { value: Value::Seq(items), .. })) => items,
            Some((key, value)) => {
                return Err(self.err(
                    MISSING_MODIFICATIONS,
                    place,
                    key.span,
                    format_args!(
                        "`modifications` is {}, not a list: write `modifications:` followed by items \
                         `- action: …`, indented below it",
                        value.value.describe()
                    ),
                ));
            }
            None => {
                return Err(self.err(
                    MISSING_MODIFICATIONS,
                    place,
                    span,
                    "the change has no `modifications`: add `modifications:` with a list of `- action: …` items \
                     (check that it is indented like `file_path`)",
                ));
            }
        };
        if items.is_empty() {
            return Err(self.err(
                EMPTY_MODIFICATIONS,
                place,
                span,
                "`modifications` is empty: give at least one `- action: …` item, or drop the change",
            ));
        }
        let mut modifications = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            modifications.push(self.modification(index, i + 1, item)?);
        }
        if newline.is_some() && !modifications.iter().any(|m| m.action == ActionKind::CreateFile) {
            let line = self.line(span);
            self.warnings.push(format!(
                "change {index} (line {line}): `newline` only applies to CREATE_FILE and this change creates no \
                 file: it is ignored"
            ));
        }
        Ok(Change { index, file_path, newline, modifications, span })
    }

    fn modification(&self, change: usize, index: usize, item: &Node) -> Result<Modification, PatchError> {
        let span = item_span(self.text, item.span);
        let place = Place { change: Some(change), modification: Some(index) };
        let Value::Map(entries) = &item.value else {
            return Err(self.err(
                INVALID_TYPE,
                place,
                span,
                format_args!(
                    "a modification is {}, not a mapping: write `- action: …` with its keys below it, aligned \
                     with `action`",
                    item.value.describe()
                ),
            ));
        };
        self.known_keys(entries, MODIFICATION_KEYS, place, "a modification")?;
        let names = ActionKind::ALL.map(ActionKind::name).join(", ");
        let action = match get(entries, "action") {
            None => {
                return Err(self.err(
                    MISSING_ACTION,
                    place,
                    span,
                    format_args!("the modification has no `action`: add `action:` with one of {names}"),
                ));
            }
            Some((key, value)) => match self.string(value, place, "action") {
                Ok(Some(text)) => match ActionKind::ALL.into_iter().find(|a| a.name() == text.value) {
                    Some(action) => action,
                    None => {
                        return Err(self.err(
                            UNKNOWN_ACTION,
                            place,
                            text.span,
                            format_args!("unknown action {}: write one of {names}", quote(&text.value)),
                        ));
                    }
                },
                Ok(None) => {
                    return Err(self.err(
                        MISSING_ACTION,
                        place,
                        key.span,
                        format_args!("`action` has no value: write one of {names}"),
                    ));
                }
                Err(_) => {
                    return Err(self.err(
                        UNKNOWN_ACTION,
                        place,
                        value.span,
                        format_args!("`action` is {}: write one of {names}", value.value.describe()),
                    ));
                }
            },
        };

        let snippet = self.field(entries, "snippet", place)?;
        let start = self.field(entries, "start_snippet", place)?;
        let end = self.field(entries, "end_snippet", place)?;
        let anchor = self.field(entries, "anchor", place)?;
        let content = self.field(entries, "content", place)?;
        let leading = self.blank_lines(entries, "include_leading_blank_lines", place)?;
        let trailing = self.blank_lines(entries, "include_trailing_blank_lines", place)?;

        if action == ActionKind::CreateFile {
            let located = [
                ("snippet", snippet.as_ref().map(|f| f.0)),
                ("start_snippet", start.as_ref().map(|f| f.0)),
                ("end_snippet", end.as_ref().map(|f| f.0)),
                ("anchor", anchor.as_ref().map(|f| f.0)),
                ("include_leading_blank_lines", leading.map(|b| b.1)),
                ("include_trailing_blank_lines", trailing.map(|b| b.1)),
            ];
            if let Some((name, Some(key))) = located.into_iter().find(|(_, k)| k.is_some()) {
                return Err(self.err(
                    INVALID_CREATE_FILE,
                    place,
                    key.span,
                    format_args!(
                        "CREATE_FILE takes only `content` (and the change's `newline`), not `{name}`: drop \
                         `{name}`, or use REPLACE or an INSERT action to change an existing file"
                    ),
                ));
            }
            let content = self.content(action, content, place, span, None)?;
            return Ok(Modification {
                index,
                action,
                locator: None,
                anchor: None,
                content,
                leading_blank_lines: 0,
                trailing_blank_lines: 0,
                span,
            });
        }

        let locator = match (snippet, start, end) {
            (Some((key, _)), Some(_), _) | (Some((key, _)), None, Some(_)) => {
                return Err(self.err(
                    SNIPPET_AND_RANGE,
                    place,
                    key.span,
                    "`snippet` and `start_snippet`/`end_snippet` are mutually exclusive: keep `snippet` for a \
                     point change, or the pair for a range",
                ));
            }
            (Some((key, text)), None, None) => Locator::Snippet(self.locator_text(text, key, place, "snippet")?),
            (None, Some((key, _)), None) | (None, None, Some((key, _))) => {
                let (has, lacks) = if self.key_name(key) == "start_snippet" {
                    ("start_snippet", "end_snippet")
                } else {
                    ("end_snippet", "start_snippet")
                };
                return Err(self.err(
                    INCOMPLETE_RANGE,
                    place,
                    key.span,
                    format_args!(
                        "`{has}` without `{lacks}`: a range needs both (it runs from the start snippet to the \
                         first end snippet after it, inclusive), or use `snippet`"
                    ),
                ));
            }
            (None, Some((skey, stext)), Some((ekey, etext))) => {
                if action.is_insert() {
                    return Err(self.err(
                        RANGE_WITH_INSERT,
                        place,
                        skey.span,
                        format_args!(
                            "{action} takes a `snippet`, not `start_snippet`/`end_snippet` (ranges are for REPLACE \
                             and DELETE): give the line(s) to insert {} as `snippet`",
                            if action == ActionKind::InsertAfter { "after" } else { "before" }
                        ),
                    ));
                }
                Locator::Range {
                    start: self.locator_text(stext, skey, place, "start_snippet")?,
                    end: self.locator_text(etext, ekey, place, "end_snippet")?,
                }
            }
            (None, None, None) => {
                return Err(self.err(
                    MISSING_SNIPPET,
                    place,
                    span,
                    format_args!(
                        "{action} needs `snippet` (the line(s) to find), or `start_snippet` and `end_snippet` for \
                         a range"
                    ),
                ));
            }
        };
        let anchor = match anchor {
            None => None,
            Some((key, text)) => Some(self.locator_text(text, key, place, "anchor")?),
        };
        let swallowed = match &locator {
            Locator::Snippet(t) | Locator::Range { end: t, .. } => Some(t),
        };
        let content = self.content(action, content, place, span, swallowed)?;
        Ok(Modification {
            index,
            action,
            locator: Some(locator),
            anchor,
            content,
            leading_blank_lines: leading.map_or(0, |b| b.0),
            trailing_blank_lines: trailing.map_or(0, |b| b.0),
            span,
        })
    }

    /// An optional string key: its key node and its string (`None` for null).
    fn field<'n>(
        &self,
        entries: &'n [(Node, Node)],
        name: &str,
        place: Place,
    ) -> Result<Option<(&'n Node, Option<Text>)>, PatchError> {
        match get(entries, name) {
            None => Ok(None),
            Some((key, value)) => Ok(Some((key, self.string(value, place, name)?))),
        }
    }

    /// A snippet, range end or anchor: present and with a non-blank line.
    fn locator_text(&self, text: Option<Text>, key: &Node, place: Place, name: &str) -> Result<Text, PatchError> {
        match text {
            Some(t) if t.value.lines().any(|l| !l.trim().is_empty()) => Ok(t),
            other => Err(self.err(
                EMPTY_SNIPPET,
                place,
                other.map_or(key.span, |t| t.span),
                format_args!(
                    "`{name}` has no non-blank line, so it would match anywhere: give the whole line(s) to find, \
                     as `{name}: |` and the lines below it"
                ),
            )),
        }
    }

    /// The content rules: required for every action but DELETE, refused with DELETE.
    /// `swallowed`: the block before it, which may hold a misindented `content:` line.
    fn content(
        &self,
        action: ActionKind,
        content: Option<(&Node, Option<Text>)>,
        place: Place,
        span: Span,
        swallowed: Option<&Text>,
    ) -> Result<Option<Text>, PatchError> {
        match (action, content) {
            (ActionKind::Delete, Some((key, _))) => Err(self.err(
                UNEXPECTED_CONTENT,
                place,
                key.span,
                "DELETE takes no `content`: drop `content`, or use REPLACE to put new code in place of the snippet",
            )),
            (ActionKind::Delete, None) => Ok(None),
            (_, Some((_, Some(text)))) => Ok(Some(text)),
            (_, Some((key, None))) => Err(self.err(
                MISSING_CONTENT,
                place,
                key.span,
                format_args!(
                    "`content` has no value: write `content: |` and the new lines below it (`content: \"\"` for \
                     none{})",
                    if action == ActionKind::Replace { ", or use DELETE" } else { "" }
                ),
            )),
            (_, None) => {
                let hint = swallowed.filter(|t| t.value.lines().any(|l| l.trim_start().starts_with("content:")));
                let hint = if hint.is_some() {
                    "; a `content:` line is inside the block above it: indent `content:` exactly like `action:`"
                } else {
                    ""
                };
                Err(self.err(
                    MISSING_CONTENT,
                    place,
                    span,
                    format_args!("{action} needs `content`: add `content: |` and the new lines below it{hint}"),
                ))
            }
        }
    }

    /// An `include_*_blank_lines` value and its key.
    fn blank_lines<'n>(
        &self,
        entries: &'n [(Node, Node)],
        name: &str,
        place: Place,
    ) -> Result<Option<(usize, &'n Node)>, PatchError> {
        let Some((key, value)) = get(entries, name) else { return Ok(None) };
        match value.value {
            Value::Int(n) if n >= 0 => Ok(Some((usize::try_from(n).unwrap_or(usize::MAX), key))),
            _ => Err(self.err(
                INVALID_BLANK_LINES,
                place,
                value.span,
                format_args!(
                    "`{name}` is {}, not a non-negative integer: write the number of blank lines, like `{name}: 1`",
                    match &value.value {
                        Value::Int(_) | Value::Float(_) | Value::Bool(_) | Value::Str(_) => quote(self.source(value)),
                        other => other.describe().to_string(),
                    }
                ),
            )),
        }
    }
}

/// The first entry whose key is `name` (keys are unique: the YAML reader refuses
/// duplicates).
fn get<'n>(entries: &'n [(Node, Node)], name: &str) -> Option<(&'n Node, &'n Node)> {
    entries.iter().find(|(k, _)| matches!(&k.value, Value::Str(s) if s == name)).map(|(k, v)| (k, v))
}

/// A list item's span from its `-` (when it is on the same line).
fn item_span(text: &str, span: Span) -> Span {
    let head = text.get(..span.start).unwrap_or("");
    let before = head.trim_end_matches([' ', '\t']);
    if before.ends_with('-') { Span::new(before.len() - 1, span.end) } else { span }
}

/// Why a path is refused: empty, absolute, or with a `..` component.
fn check_path(path: &str) -> Result<(), &'static str> {
    if path.trim().is_empty() {
        return Err("is empty");
    }
    let bytes = path.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if path.starts_with(['/', '\\']) || drive {
        return Err("is absolute");
    }
    if path.split(['/', '\\']).any(|c| c == "..") {
        return Err("leaves the patch's folder with `..`");
    }
    if path.contains('\0') {
        return Err("contains a NUL byte");
    }
    Ok(())
}

/// The known key nearest to `name` (by edit distance, at most a third of its length).
fn closest<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    let name = name.to_lowercase();
    known
        .iter()
        .map(|k| (distance(&name, k), *k))
        .filter(|(d, k)| *d <= k.len().div_ceil(3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// The Levenshtein distance of two short strings, by characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != *cb)).min(row[j] + 1).min(above + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests;

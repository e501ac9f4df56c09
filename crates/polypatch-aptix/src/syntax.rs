//! Text → a checked bundle: the JSON found in the text (bare, or in a fenced block with
//! prose around it), parsed with `serde_json`, and every field checked against the specs.

use std::collections::HashMap;

use polypatch_core::{PatchError, Span};
use serde_json::{Map, Value};

use crate::error::{
    EMPTY_FIND, INVALID_FIELD, INVALID_JSON, INVALID_LIMIT, INVALID_OPERATION, INVALID_PATH, INVALID_ROOT,
    MISSING_FIELD, MODE, NO_BUNDLE, OPERATION_FIELDS, RAW_CONTROL_CHARACTER, TOO_DEEP, TOO_LARGE, TRAILING_COMMA,
    UNCLOSED_JSON, UNKNOWN_FIELD, error,
};
use polypatch_core::ErrorKind;

/// The largest bundle accepted, in bytes (64 MiB): a bigger one is refused before parsing.
pub const MAX_BUNDLE_BYTES: usize = 64 << 20;

/// A checked bundle.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Bundle {
    /// `root`, as written (`"."` when the bundle has none).
    pub root: String,
    /// The operations.
    pub body: Body,
    /// Where the JSON stands in the text.
    pub span: Span,
    /// Things accepted that the writer should fix (an unknown field, no `root`).
    pub warnings: Vec<String>,
}

/// The two shapes of a bundle; SYS-004 §2.2 allows exactly one.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Body {
    /// A file bundle: top-level `files`.
    Files(Vec<FileEntry>),
    /// A structured patch bundle: top-level `patches`.
    Patches(Vec<PatchEntry>),
}

/// One `files[]` entry.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FileEntry {
    /// Its index in `files`.
    pub index: usize,
    /// `path`, relative to the root.
    pub path: String,
    /// `operation`; `None`: create or replace (the file spec's default).
    pub operation: Option<Operation>,
    /// `content`.
    pub content: Option<String>,
    /// `patches`.
    pub patches: Vec<Find>,
    /// Where its `path` value stands in the text, when it can be found.
    pub span: Option<Span>,
}

/// A file operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Operation {
    /// Create a new file; an existing file with other content is refused.
    Create,
    /// Replace the content of an existing file.
    Replace,
    /// Delete the file.
    Delete,
    /// Literal find/replace edits.
    Patch,
    /// A unified diff in `content`.
    GitPatch,
}

impl Operation {
    /// The name as written in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Operation::Create => "create",
            Operation::Replace => "replace",
            Operation::Delete => "delete",
            Operation::Patch => "patch",
            Operation::GitPatch => "gitPatch",
        }
    }
}

/// One `{find, replace, limit}`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Find {
    /// The literal text to find.
    pub find: String,
    /// What it becomes.
    pub replace: String,
    /// Which occurrences.
    pub limit: Limit,
    /// The entry's name in reports: `patches[1]`, `patches[0].replacements[2]`.
    pub label: String,
}

/// `limit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Limit {
    /// The first occurrence (the default).
    #[default]
    Once,
    /// Every occurrence.
    All,
}

/// One top-level `patches[]` entry of a structured patch bundle, in either shape.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PatchEntry {
    /// Its index in `patches`.
    pub index: usize,
    /// `path`, relative to the root.
    pub path: String,
    /// The replacements: the nested shape's `replacements`, or the flat shape's one.
    pub replacements: Vec<Find>,
    /// Where its `path` value stands in the text, when it can be found.
    pub span: Option<Span>,
}

/// Finds the bundle's JSON in `text`: the whole text when it starts with `{`; else the
/// first fenced block (tagged `json`, `jsonc` or untagged) whose content starts with `{`;
/// else from the first line starting with `{` (in its first column) to the last line
/// starting with `}`.
pub fn extract(text: &str) -> Option<Span> {
    let bom = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
    let body = &text[bom..];
    let lead = body.len() - body.trim_start().len();
    if body.trim_start().starts_with('{') {
        return Some(Span::new(bom + lead, bom + body.trim_end().len()));
    }
    let lines = line_spans(text);
    let mut i = 0;
    while i < lines.len() {
        let line = &text[lines[i].start..lines[i].end];
        let trimmed = line.trim();
        let fence = if trimmed.starts_with("```") {
            "```"
        } else if trimmed.starts_with("~~~") {
            "~~~"
        } else {
            ""
        };
        if !fence.is_empty() {
            let tag = trimmed.trim_start_matches(fence).trim().to_ascii_lowercase();
            let close = (i + 1..lines.len()).find(|&j| text[lines[j].start..lines[j].end].trim() == fence);
            let end = close.map_or(text.len(), |j| lines[j].start);
            let start = lines.get(i + 1).map_or(text.len(), |l| l.start).min(end);
            let inner = &text[start..end];
            if matches!(tag.as_str(), "json" | "jsonc" | "json5" | "") && inner.trim_start().starts_with('{') {
                let lead = inner.len() - inner.trim_start().len();
                return Some(Span::new(start + lead, start + inner.trim_end().len()));
            }
            i = close.map_or(lines.len(), |j| j + 1);
            continue;
        }
        // Outside a fence, only a `{` at the start of a line opens the bundle (a diff's
        // context line ` {` does not).
        if line.starts_with('{') {
            let start = lines[i].start;
            let last =
                (i..lines.len()).rev().find(|&j| text[lines[j].start..lines[j].end].trim_start().starts_with('}'));
            let end = last.map_or(text.trim_end().len(), |j| {
                lines[j].start + text[lines[j].start..lines[j].end].trim_end().len()
            });
            return Some(Span::new(start, end.max(start)));
        }
        i += 1;
    }
    None
}

fn line_spans(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        out.push(Span::new(start, end));
        start = end + 1;
    }
    out
}

/// Parses and checks the bundle in `text`.
pub fn parse(text: &str) -> Result<Bundle, PatchError> {
    let Some(span) = extract(text) else {
        return Err(error(
            NO_BUNDLE,
            "no Aptix bundle: the text holds no JSON object; send `{\"root\": \".\", \"files\": [...]}` or \
             `{\"root\": \".\", \"patches\": [...]}`, alone or in a ```json block",
            None,
        ));
    };
    let json = &text[span.start..span.end];
    if json.len() > MAX_BUNDLE_BYTES {
        return Err(error(
            TOO_LARGE,
            format!(
                "the bundle is {} bytes, more than the {} accepted: split it into several bundles",
                json.len(),
                MAX_BUNDLE_BYTES
            ),
            // No place: the whole bundle is the problem, and a rendered error would print
            // the line the bundle starts on, all of a minified bundle (found by
            // scripts/bounds.py: 64 MiB printed for a refusal).
            None,
        ));
    }
    let value: Value = serde_json::from_str(json).map_err(|e| json_error(text, span, &e))?;
    let paths = path_values(text, span);
    Checker { span, paths, warnings: Vec::new(), at: None }.bundle(&value)
}

/// A `serde_json` error as the writer's mistake: what it is, where, and what to write.
fn json_error(text: &str, span: Span, e: &serde_json::Error) -> PatchError {
    let json = &text[span.start..span.end];
    let at = polypatch_core::offset_at(json, e.line(), e.column());
    let here = Some(Span::new(span.start + at, span.start + at));
    let full = e.to_string();
    let what = full.rsplit_once(" at line ").map_or(full.as_str(), |(m, _)| m);
    let place = format!("line {} column {} of the JSON", e.line(), e.column());
    if e.is_eof() {
        let open = open_brackets(json);
        return error(
            UNCLOSED_JSON,
            format!(
                "the JSON ends before it is complete ({what}){}: the reply was probably cut off; ask for the \
                 whole bundle again (or, if it was written whole, close every string, array and object)",
                if open > 0 { format!(", {open} bracket(s) still open") } else { String::new() }
            ),
            Some(Span::new(span.end, span.end)),
        );
    }
    if what.starts_with("control character") {
        // serde_json reports the place after the character it refused.
        let ch = json[..at].chars().next_back();
        let before = at - ch.map_or(0, char::len_utf8);
        let line = json[..before].matches('\n').count() + 1;
        let column = before - json[..before].rfind('\n').map_or(0, |i| i + 1) + 1;
        let place = format!("line {line} column {column} of the JSON");
        let here = Some(Span::new(span.start + before, span.start + before));
        let shown = match ch {
            Some('\n') => "a raw line break".to_owned(),
            Some('\t') => "a raw tab".to_owned(),
            Some(c) => format!("the raw control character U+{:04X}", u32::from(c)),
            None => "a raw control character".to_owned(),
        };
        return error(
            RAW_CONTROL_CHARACTER,
            format!(
                "{shown} inside a string at {place}: JSON strings cannot hold raw line breaks or tabs; \
                 write them as `\\n` and `\\t` (serialize the bundle with a JSON library)"
            ),
            here,
        );
    }
    if what.starts_with("trailing comma") {
        return error(
            TRAILING_COMMA,
            format!("a trailing comma at {place}: remove the comma before the closing `]` or `}}`"),
            here,
        );
    }
    if what.starts_with("recursion limit exceeded") {
        return error(TOO_DEEP, format!("the JSON nests deeper than 128 levels at {place}: a bundle needs 5"), here);
    }
    error(INVALID_JSON, format!("invalid JSON at {place}: {what}"), here)
}

/// How many `{` and `[` outside strings are not closed.
fn open_brackets(json: &str) -> usize {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for c in json.chars() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => depth += 1,
            '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    depth
}

struct Checker<'t> {
    span: Span,
    /// Every `"path"` value's first place in the JSON, by its text as written.
    paths: HashMap<&'t str, Span>,
    warnings: Vec<String>,
    /// The `path` value of the entry being checked, where its errors point.
    at: Option<Span>,
}

const TOP_FIELDS: &[&str] = &["root", "files", "patches"];
const FILE_FIELDS: &[&str] = &["path", "operation", "content", "patches"];
const NESTED_FIELDS: &[&str] = &["path", "replacements"];
const FLAT_FIELDS: &[&str] = &["path", "find", "replace", "limit"];
const FIND_FIELDS: &[&str] = &["find", "replace", "limit"];

impl Checker<'_> {
    fn err(&self, kind: ErrorKind, message: String) -> PatchError {
        error(kind, message, Some(self.at.unwrap_or(Span::new(self.span.start, self.span.start))))
    }

    fn bundle(mut self, value: &Value) -> Result<Bundle, PatchError> {
        let Value::Object(top) = value else {
            return Err(self.err(
                INVALID_FIELD,
                format!(
                    "the bundle must be a JSON object with `root` and `files` or `patches`, not {}",
                    type_name(value)
                ),
            ));
        };
        self.fields(top, TOP_FIELDS, "the bundle")?;
        let root = match top.get("root") {
            None => {
                self.warnings.push("the bundle has no `root`: `.` was used; write `\"root\": \".\"`".to_owned());
                ".".to_owned()
            }
            Some(Value::String(r)) => {
                check_root(r).map_err(|m| self.err(INVALID_ROOT, m))?;
                r.clone()
            }
            Some(other) => {
                return Err(self.err(INVALID_FIELD, format!("`root` must be a string, not {}", type_name(other))));
            }
        };
        let body = match (top.get("files"), top.get("patches")) {
            (Some(_), Some(_)) => {
                return Err(self.err(
                    MODE,
                    "the bundle has both `files` and `patches`: a bundle is one or the other (SYS-004 §2.2); put \
                     the find/replace edits in a `files[]` entry with `\"operation\": \"patch\"`, or send two bundles"
                        .to_owned(),
                ));
            }
            (None, None) => {
                return Err(self.err(
                    MODE,
                    "the bundle has neither `files` nor `patches`: add `\"files\": [...]` (a file bundle) or \
                     `\"patches\": [...]` (a structured patch bundle)"
                        .to_owned(),
                ));
            }
            (Some(files), None) => Body::Files(self.files(files)?),
            (None, Some(patches)) => Body::Patches(self.patch_entries(patches)?),
        };
        // An empty bundle would apply as a success that changed nothing: the edits the
        // writer meant are lost without a word.
        let empty = match &body {
            Body::Files(entries) => entries.is_empty().then_some("files"),
            Body::Patches(entries) => entries.is_empty().then_some("patches"),
        };
        if let Some(field) = empty {
            return Err(
                self.err(MODE, format!("the bundle's `{field}` is empty: it changes nothing; give at least one entry"))
            );
        }
        Ok(Bundle { root, body, span: self.span, warnings: self.warnings })
    }

    /// Refuses a field that looks like a typo of a known one; warns about any other.
    fn fields(&mut self, map: &Map<String, Value>, known: &[&str], what: &str) -> Result<(), PatchError> {
        for key in map.keys() {
            if known.contains(&key.as_str()) {
                continue;
            }
            if let Some(near) = known.iter().find(|k| near_miss(key, k)) {
                return Err(self.err(UNKNOWN_FIELD, format!("{what}: unknown field `{key}`: did you mean `{near}`?")));
            }
            self.warnings.push(format!("{what}: unknown field `{key}` was ignored (known: {})", known.join(", ")));
        }
        Ok(())
    }

    fn array<'v>(&self, value: &'v Value, what: &str) -> Result<&'v Vec<Value>, PatchError> {
        value
            .as_array()
            .ok_or_else(|| self.err(INVALID_FIELD, format!("{what} must be an array, not {}", type_name(value))))
    }

    fn files(&mut self, files: &Value) -> Result<Vec<FileEntry>, PatchError> {
        let mut out = Vec::new();
        for (index, item) in self.array(files, "`files`")?.iter().enumerate() {
            let Value::Object(map) = item else {
                return Err(self.err(
                    INVALID_FIELD,
                    format!("files[{index}] must be an object with `path` and `operation`, not {}", type_name(item)),
                ));
            };
            let path = self.path(map, &format!("files[{index}]"))?;
            // Where the entry's path is written: for messages now, and the entry's span.
            let span = self.find_span(&path);
            self.at = span;
            let name = format!("files[{index}] ({path})");
            self.fields(map, FILE_FIELDS, &name)?;
            let operation = match map.get("operation") {
                None | Some(Value::Null) => None,
                Some(Value::String(op)) => Some(match op.as_str() {
                    "create" => Operation::Create,
                    "replace" => Operation::Replace,
                    "delete" => Operation::Delete,
                    "patch" => Operation::Patch,
                    "gitPatch" => Operation::GitPatch,
                    other => {
                        let hint = ["create", "replace", "delete", "patch", "gitPatch"]
                            .into_iter()
                            .find(|k| k.eq_ignore_ascii_case(other) || near_miss(other, k))
                            .map_or(String::new(), |k| format!(" (did you mean `{k}`?)"));
                        return Err(self.err(
                            INVALID_OPERATION,
                            format!(
                                "{name}: operation \"{other}\" is not one of create, replace, delete, patch, gitPatch{hint}"
                            ),
                        ));
                    }
                }),
                Some(other) => {
                    return Err(self.err(
                        INVALID_FIELD,
                        format!("{name}: `operation` must be a string, not {}", type_name(other)),
                    ));
                }
            };
            let content = match map.get("content") {
                None | Some(Value::Null) => None,
                Some(Value::String(c)) => Some(c.clone()),
                Some(other) => {
                    return Err(self.err(
                        INVALID_FIELD,
                        format!(
                            "{name}: `content` must be one string (line breaks written as `\\n`), not {}",
                            type_name(other)
                        ),
                    ));
                }
            };
            let patches = match map.get("patches") {
                None | Some(Value::Null) => None,
                Some(list) => Some(self.finds(list, &name, "patches")?),
            };
            self.operation_fields(&name, operation, content.is_some(), patches.as_ref())?;
            out.push(FileEntry { index, path, operation, content, patches: patches.unwrap_or_default(), span });
        }
        Ok(out)
    }

    /// SYS-004 §3.3: which fields each operation must and must not have.
    fn operation_fields(
        &mut self,
        name: &str,
        operation: Option<Operation>,
        content: bool,
        patches: Option<&Vec<Find>>,
    ) -> Result<(), PatchError> {
        let refuse = |this: &Self, message: String| Err(this.err(OPERATION_FIELDS, format!("{name}: {message}")));
        let op = operation.map_or("(none: create or replace)", Operation::name);
        match operation {
            None | Some(Operation::Create | Operation::Replace) => {
                if patches.is_some() {
                    let fix = if operation.is_none() {
                        "add `\"operation\": \"patch\"`"
                    } else {
                        "use `\"operation\": \"patch\"`"
                    };
                    return refuse(
                        self,
                        format!("operation {op} must not have \"patches\": {fix} for find/replace edits"),
                    );
                }
                if !content {
                    return refuse(self, format!("operation {op} must have \"content\": the whole new file"));
                }
            }
            Some(Operation::Delete) => {
                if content || patches.is_some() {
                    let field = if content { "content" } else { "patches" };
                    return refuse(self, format!("operation \"delete\" must not have \"{field}\""));
                }
            }
            Some(Operation::Patch) => {
                match patches {
                    None => {
                        return refuse(
                            self,
                            "operation \"patch\" must have \"patches\": [{\"find\", \"replace\", \"limit\"}]"
                                .to_owned(),
                        );
                    }
                    Some(list) if list.is_empty() => {
                        return refuse(
                            self,
                            "operation \"patch\" has an empty \"patches\": give at least one find/replace".to_owned(),
                        );
                    }
                    Some(_) => {}
                }
                if content {
                    self.warnings.push(format!(
                        "{name}: operation \"patch\" should not have \"content\" (SYS-004 §3.3): it was ignored"
                    ));
                }
            }
            Some(Operation::GitPatch) => {
                if patches.is_some() {
                    return refuse(self, "operation \"gitPatch\" must not have \"patches\"".to_owned());
                }
                if !content {
                    return refuse(self, "operation \"gitPatch\" must have the unified diff in \"content\"".to_owned());
                }
            }
        }
        Ok(())
    }

    fn patch_entries(&mut self, patches: &Value) -> Result<Vec<PatchEntry>, PatchError> {
        let mut out = Vec::new();
        for (index, item) in self.array(patches, "`patches`")?.iter().enumerate() {
            let Value::Object(map) = item else {
                return Err(self.err(
                    INVALID_FIELD,
                    format!("patches[{index}] must be an object with `path`, not {}", type_name(item)),
                ));
            };
            let path = self.path(map, &format!("patches[{index}]"))?;
            // Where the entry's path is written: for messages now, and the entry's span.
            let span = self.find_span(&path);
            self.at = span;
            let name = format!("patches[{index}] ({path})");
            let replacements = if map.contains_key("replacements") {
                self.fields(map, NESTED_FIELDS, &name)?;
                if map.contains_key("find") {
                    return Err(self
                        .err(OPERATION_FIELDS, format!("{name}: has both `replacements` and `find`: use one shape")));
                }
                let list = self.finds(&map["replacements"], &name, &format!("patches[{index}].replacements"))?;
                if list.is_empty() {
                    return Err(self.err(
                        OPERATION_FIELDS,
                        format!("{name}: `replacements` is empty: give at least one find/replace"),
                    ));
                }
                list
            } else {
                self.fields(map, FLAT_FIELDS, &name)?;
                vec![self.find(map, &name, format!("patches[{index}]"))?]
            };
            out.push(PatchEntry { index, path, replacements, span });
        }
        Ok(out)
    }

    fn finds(&mut self, list: &Value, name: &str, label: &str) -> Result<Vec<Find>, PatchError> {
        let items = self.array(list, &format!("{name}: `{}`", label.rsplit('.').next().unwrap_or(label)))?;
        let mut out = Vec::new();
        for (j, item) in items.iter().enumerate() {
            let Value::Object(map) = item else {
                return Err(self.err(
                    INVALID_FIELD,
                    format!(
                        "{name}: {label}[{j}] must be an object with `find` and `replace`, not {}",
                        type_name(item)
                    ),
                ));
            };
            let what = format!("{name}: {label}[{j}]");
            self.fields(map, FIND_FIELDS, &what)?;
            out.push(self.find(map, name, format!("{label}[{j}]"))?);
        }
        Ok(out)
    }

    fn find(&self, map: &Map<String, Value>, name: &str, label: String) -> Result<Find, PatchError> {
        let text = |field: &str| -> Result<String, PatchError> {
            match map.get(field) {
                Some(Value::String(s)) => Ok(s.clone()),
                None | Some(Value::Null) => Err(self.err(
                    MISSING_FIELD,
                    format!("{name}: {label} has no `{field}`: each edit is {{\"find\": \"…\", \"replace\": \"…\"}}"),
                )),
                Some(other) => Err(self.err(
                    INVALID_FIELD,
                    format!("{name}: {label}: `{field}` must be a string, not {}", type_name(other)),
                )),
            }
        };
        let find = text("find")?;
        if find.is_empty() {
            return Err(self.err(
                EMPTY_FIND,
                format!("{name}: {label} has an empty `find`: copy the exact text to replace from the file"),
            ));
        }
        let replace = text("replace")?;
        let limit = match map.get("limit") {
            None | Some(Value::Null) => Limit::Once,
            Some(Value::String(l)) if l == "once" => Limit::Once,
            Some(Value::String(l)) if l == "all" => Limit::All,
            Some(other) => {
                let shown = other.as_str().map_or_else(|| other.to_string(), |s| format!("\"{s}\""));
                return Err(
                    self.err(INVALID_LIMIT, format!("{name}: {label}: limit {shown} is not \"once\" or \"all\""))
                );
            }
        };
        Ok(Find { find, replace, limit, label })
    }

    fn path(&self, map: &Map<String, Value>, name: &str) -> Result<String, PatchError> {
        match map.get("path") {
            Some(Value::String(p)) => {
                check_path(p).map_err(|m| self.err(INVALID_PATH, format!("{name} ({p}): {m}")))?;
                Ok(p.clone())
            }
            None | Some(Value::Null) => {
                Err(self.err(MISSING_FIELD, format!("{name} has no `path`: give the file's path relative to `root`")))
            }
            Some(other) => {
                Err(self.err(INVALID_FIELD, format!("{name}: `path` must be a string, not {}", type_name(other))))
            }
        }
    }

    /// The span of the first `"path"` value equal to `path` in the JSON text, if any.
    fn find_span(&self, path: &str) -> Option<Span> {
        let quoted = serde_json::to_string(path).ok()?;
        self.paths.get(quoted.as_str()).copied()
    }
}

/// Where each `"path"` key's string value is first written in the bundle (`span` in
/// `text`), keyed by the value's text as written, quotes and escapes included: a value
/// equals an entry's path when it is written as `serde_json` writes that path. One pass
/// over the text for the whole bundle; looking for each entry's path from the start
/// instead was quadratic in the number of entries (20,000 created files: 52 s).
fn path_values(text: &str, span: Span) -> HashMap<&str, Span> {
    let json = &text[span.start..span.end];
    let mut out = HashMap::new();
    let mut from = 0;
    while let Some(i) = json[from..].find("\"path\"") {
        let key_end = from + i + "\"path\"".len();
        let rest = json[key_end..].trim_start();
        if let Some(value) = rest.strip_prefix(':').map(str::trim_start)
            && let Some(len) = string_len(value)
        {
            let at = span.start + json.len() - value.len();
            out.entry(&value[..len]).or_insert(Span::new(at, at + len));
        }
        from = key_end;
    }
    out
}

/// The length of the JSON string literal `value` starts with (both quotes included), or
/// `None` when it does not start with one or the literal is not closed.
fn string_len(value: &str) -> Option<usize> {
    let bytes = value.as_bytes();
    if bytes.first() != Some(&b'"') {
        return None;
    }
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// SYS-004 §5.2: POSIX, relative, no `./` prefix, no `..`.
fn check_path(path: &str) -> Result<(), String> {
    let fix = || path.trim_start_matches("./").replace('\\', "/");
    if path.trim().is_empty() {
        return Err("the path is empty".to_owned());
    }
    if path.contains('\\') {
        return Err(format!("use `/` between folders: `{}`", fix()));
    }
    if path.starts_with('/') || path.as_bytes().get(1) == Some(&b':') {
        return Err("the path is absolute: write it relative to `root`".to_owned());
    }
    if path.starts_with("./") {
        return Err(format!("no `./` prefix: write `{}`", fix()));
    }
    if path.split('/').any(|c| c == "..") {
        return Err("`..` is not allowed: paths stay inside `root` (choose a `root` that holds every file)".to_owned());
    }
    if path.ends_with('/') {
        return Err("the path names a folder: give a file".to_owned());
    }
    Ok(())
}

/// `root`: `.`, `./src`, `src`; relative, no `..`, POSIX.
fn check_root(root: &str) -> Result<(), String> {
    if root.contains('\\') {
        return Err(format!("`root` \"{root}\": use `/` between folders"));
    }
    // A drive (`C:`) is looked for past any `./` (`./C:/Windows` is `C:/Windows` once the
    // root is normalized).
    let inner = root.split('/').find(|c| *c != "." && !c.is_empty()).unwrap_or_default();
    if root.starts_with('/') || inner.as_bytes().get(1) == Some(&b':') {
        return Err(format!(
            "`root` \"{root}\" is absolute: write it relative to the workspace, such as \".\" or \"./src\""
        ));
    }
    if root.split('/').any(|c| c == "..") {
        return Err(format!("`root` \"{root}\" uses `..`: the root stays inside the workspace"));
    }
    Ok(())
}

/// Whether `key` looks like a typo of `known` (one or two edits, or a case difference).
fn near_miss(key: &str, known: &str) -> bool {
    if key.eq_ignore_ascii_case(known) {
        return true;
    }
    let (a, b): (Vec<char>, Vec<char>) = (key.chars().collect(), known.chars().collect());
    if a.len().abs_diff(b.len()) > 2 || a.len() < 3 {
        return false;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut row = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            row[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(row[j] + 1);
        }
        prev = row;
    }
    prev[b.len()] <= 2
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{
        EMPTY_FIND, INVALID_FIELD, INVALID_JSON, INVALID_LIMIT, INVALID_OPERATION, INVALID_PATH, INVALID_ROOT,
        MISSING_FIELD, MODE, NO_BUNDLE, OPERATION_FIELDS, RAW_CONTROL_CHARACTER, TOO_DEEP, TRAILING_COMMA,
        UNCLOSED_JSON, UNKNOWN_FIELD,
    };

    fn err(text: &str) -> (ErrorKind, String) {
        let e = parse(text).unwrap_err();
        (e.kind, e.message)
    }

    #[test]
    fn extract_finds_bare_fenced_and_embedded_json() {
        let at = |t: &str| extract(t).map(|s| t[s.start..s.end].to_owned());
        assert_eq!(at("  {\"a\": 1}\n").as_deref(), Some("{\"a\": 1}"));
        let chat = "Here you go:\n\n```bash\necho {x}\n```\n\n```json\n{\n  \"root\": \".\"\n}\n```\nDone.\n";
        assert_eq!(at(chat).as_deref(), Some("{\n  \"root\": \".\"\n}"));
        assert_eq!(at("Sure:\n{\n \"a\": 1\n}\nThat's it.\n").as_deref(), Some("{\n \"a\": 1\n}"));
        assert_eq!(at("```json\n{\"cut\": \n").as_deref(), Some("{\"cut\":"));
        assert_eq!(at("no json here\n"), None);
        assert_eq!(at("\u{feff}{}").as_deref(), Some("{}"));
    }

    #[test]
    fn a_file_bundle_parses_every_operation() {
        let text = r#"{
  "root": "./src",
  "files": [
    {"path": "a.rs", "content": "fn a() {}\n"},
    {"path": "b.rs", "operation": "create", "content": "b"},
    {"path": "c.rs", "operation": "replace", "content": "c"},
    {"path": "d.rs", "operation": "delete"},
    {"path": "e.rs", "operation": "patch", "patches": [{"find": "x", "replace": "y", "limit": "all"}, {"find": "p", "replace": "q"}]},
    {"path": "f.rs", "operation": "gitPatch", "content": "--- a/f.rs\n+++ b/f.rs\n"}
  ]
}"#;
        let bundle = parse(text).unwrap();
        assert_eq!(bundle.root, "./src");
        let Body::Files(files) = &bundle.body else { panic!() };
        let ops: Vec<Option<Operation>> = files.iter().map(|f| f.operation).collect();
        assert_eq!(
            ops,
            [
                None,
                Some(Operation::Create),
                Some(Operation::Replace),
                Some(Operation::Delete),
                Some(Operation::Patch),
                Some(Operation::GitPatch)
            ]
        );
        assert_eq!(files[4].patches[0].limit, Limit::All);
        assert_eq!(files[4].patches[1].limit, Limit::Once);
        assert_eq!(files[4].patches[1].label, "patches[1]");
        let span = files[2].span.unwrap();
        assert_eq!(&text[span.start..span.end], "\"c.rs\"");
        assert!(bundle.warnings.is_empty());
    }

    /// Each entry's span is its path's first place in the JSON, found for all entries in
    /// one pass: a path written with escapes, the same path twice (both point at the
    /// first), a `"path"` inside a string value and a `"path"` key whose value is not a
    /// string do not confuse it.
    #[test]
    fn entry_spans_point_at_each_paths_first_place() {
        let text = r#"{"root": ".", "files": [
    {"path": "a \"q\"\t é.rs", "content": "{\"path\": \"b.rs\"}"},
    {"extra": {"path": 7}, "path"  :  "b.rs", "content": "\"path\": \"a.rs\""},
    {"path": "a \"q\"\t é.rs", "operation": "delete"},
    {"path": "c\u002ers", "content": "c"}
]}"#;
        let bundle = parse(text).unwrap();
        let Body::Files(files) = &bundle.body else { panic!() };
        let shown: Vec<Option<&str>> = files.iter().map(|f| f.span.map(|s| &text[s.start..s.end])).collect();
        assert_eq!(shown, [Some(r#""a \"q\"\t é.rs""#), Some(r#""b.rs""#), Some(r#""a \"q\"\t é.rs""#), None]);
        assert_eq!(files[0].span, files[2].span);
        assert_eq!(files[3].path, "c.rs");
        // Many entries: each points at its own path.
        let many: Vec<String> = (0..3000).map(|i| format!(r#"{{"path": "d/f{i}.rs", "content": "x"}}"#)).collect();
        let text = format!(r#"{{"root": ".", "files": [{}]}}"#, many.join(",\n"));
        let Body::Files(files) = parse(&text).unwrap().body else { panic!() };
        for (i, f) in files.iter().enumerate() {
            let s = f.span.unwrap();
            assert_eq!(&text[s.start..s.end], format!("\"d/f{i}.rs\""));
        }
    }

    #[test]
    fn a_patch_bundle_takes_both_shapes() {
        let text = r#"{"root": ".", "patches": [
            {"path": "a.cs", "replacements": [{"find": "Old", "replace": "New"}]},
            {"path": "b.cs", "find": "x", "replace": "y", "limit": "once"}
        ]}"#;
        let Body::Patches(p) = parse(text).unwrap().body else { panic!() };
        assert_eq!(p[0].replacements[0].label, "patches[0].replacements[0]");
        assert_eq!(p[1].replacements[0].label, "patches[1]");
        assert_eq!((p[1].replacements[0].find.as_str(), p[1].replacements[0].replace.as_str()), ("x", "y"));
    }

    #[test]
    fn operation_requirements_name_the_entry_and_the_field() {
        let cases = [
            (
                r#"{"root":".","files":[{"path":"a","content":"x"},{"path":"b","content":"y"},{"path":"src/a.rs","operation":"delete","content":"z"}]}"#,
                "files[2] (src/a.rs): operation \"delete\" must not have \"content\"",
            ),
            (
                r#"{"root":".","files":[{"path":"a","operation":"create"}]}"#,
                "files[0] (a): operation create must have \"content\": the whole new file",
            ),
            (
                r#"{"root":".","files":[{"path":"a","operation":"replace","content":"x","patches":[]}]}"#,
                "files[0] (a): operation replace must not have \"patches\": use `\"operation\": \"patch\"` for find/replace edits",
            ),
            (
                r#"{"root":".","files":[{"path":"a","operation":"patch"}]}"#,
                "files[0] (a): operation \"patch\" must have \"patches\": [{\"find\", \"replace\", \"limit\"}]",
            ),
            (
                r#"{"root":".","files":[{"path":"a","operation":"gitPatch"}]}"#,
                "files[0] (a): operation \"gitPatch\" must have the unified diff in \"content\"",
            ),
            (
                r#"{"root":".","files":[{"path":"a","operation":"gitPatch","content":"d","patches":[]}]}"#,
                "files[0] (a): operation \"gitPatch\" must not have \"patches\"",
            ),
        ];
        for (text, message) in cases {
            assert_eq!(err(text), (OPERATION_FIELDS, message.to_owned()), "{text}");
        }
        // The error points at the entry's path.
        let text = "{\n  \"root\": \".\",\n  \"files\": [\n    {\"path\": \"a.txt\", \"operation\": \"delete\", \"content\": \"x\"}\n  ]\n}\n";
        let e = parse(text).unwrap_err();
        assert_eq!(e.span.unwrap().line_col(text), (4, 14));
    }

    #[test]
    fn shape_path_and_field_errors() {
        let cases: &[(&str, ErrorKind, &str)] = &[
            ("prose only", NO_BUNDLE, "no Aptix bundle"),
            (r#"{"root":".","files":[],"patches":[]}"#, MODE, "the bundle has both"),
            (r#"{"root":"."}"#, MODE, "the bundle has neither"),
            // Found by the fuzzer (fuzz/regressions/aptix/empty-patches): an empty bundle
            // parsed and applied as a success that changed nothing.
            (r#"{"root":".","patches":[]}"#, MODE, "the bundle's `patches` is empty"),
            (r#"{"root":".","files":[ ]}"#, MODE, "the bundle's `files` is empty"),
            ("[1]", NO_BUNDLE, "no Aptix bundle"),
            (r#"{"root":"..","files":[]}"#, INVALID_ROOT, "`root` \"..\" uses `..`"),
            (r#"{"root":"/etc","files":[]}"#, INVALID_ROOT, "`root` \"/etc\" is absolute"),
            // Found by the fuzzer (fuzz/regressions/aptix/drive-after-dot-slash): a drive
            // after `./` passed the check and led every path (`C:/Windows/a.txt`).
            (r#"{"root":"./C:/Windows","files":[]}"#, INVALID_ROOT, "`root` \"./C:/Windows\" is absolute"),
            (r#"{"root":".//./c:","files":[]}"#, INVALID_ROOT, "`root` \".//./c:\" is absolute"),
            (
                r#"{"root":".","files":[{"path":"./a.rs","content":""}]}"#,
                INVALID_PATH,
                "files[0] (./a.rs): no `./` prefix: write `a.rs`",
            ),
            (
                r#"{"root":".","files":[{"path":"../a.rs","content":""}]}"#,
                INVALID_PATH,
                "files[0] (../a.rs): `..` is not allowed",
            ),
            (
                r#"{"root":".","files":[{"path":"src\\a.rs","content":""}]}"#,
                INVALID_PATH,
                "files[0] (src\\a.rs): use `/` between folders: `src/a.rs`",
            ),
            (
                r#"{"root":".","files":[{"path":"/a.rs","content":""}]}"#,
                INVALID_PATH,
                "files[0] (/a.rs): the path is absolute",
            ),
            (r#"{"root":".","files":[{"content":""}]}"#, MISSING_FIELD, "files[0] has no `path`"),
            (
                r#"{"root":".","files":[{"path":"a","contents":"x"}]}"#,
                UNKNOWN_FIELD,
                "files[0] (a): unknown field `contents`: did you mean `content`?",
            ),
            (
                r#"{"root":".","files":[{"path":"a","operation":"modify","patches":[]}]}"#,
                INVALID_OPERATION,
                "files[0] (a): operation \"modify\" is not one of",
            ),
            (
                r#"{"root":".","files":[{"path":"a","operation":"Delete"}]}"#,
                INVALID_OPERATION,
                "(did you mean `delete`?)",
            ),
            (
                r#"{"root":".","files":[{"path":"a","content":["x"]}]}"#,
                INVALID_FIELD,
                "files[0] (a): `content` must be one string",
            ),
            (
                r#"{"root":".","patches":[{"path":"a","find":"","replace":"y"}]}"#,
                EMPTY_FIND,
                "patches[0] (a): patches[0] has an empty `find`",
            ),
            (
                r#"{"root":".","patches":[{"path":"a","find":"x"}]}"#,
                MISSING_FIELD,
                "patches[0] (a): patches[0] has no `replace`",
            ),
            (
                r#"{"root":".","patches":[{"path":"a","find":"x","replace":"y","limit":"twice"}]}"#,
                INVALID_LIMIT,
                "limit \"twice\" is not",
            ),
            (r#"{"root":".","patches":[{"path":"a","replacements":[]}]}"#, OPERATION_FIELDS, "`replacements` is empty"),
        ];
        for (text, want_kind, want) in cases {
            let (k, m) = err(text);
            assert_eq!(k, *want_kind, "{text}: {m}");
            assert!(m.contains(want), "{text}: {m}");
        }
    }

    #[test]
    fn model_mistakes_in_json_are_named() {
        let raw = "{\n  \"root\": \".\",\n  \"files\": [{\"path\": \"a\", \"content\": \"line 1\nline 2\"}]\n}";
        let e = parse(raw).unwrap_err();
        assert_eq!(e.kind, RAW_CONTROL_CHARACTER);
        assert!(e.message.starts_with("a raw line break inside a string at line 3 column"), "{}", e.message);
        assert_eq!(e.span.unwrap().line_col(raw).0, 3);

        let comma = "{\n  \"root\": \".\",\n  \"files\": [\n    {\"path\": \"a\", \"content\": \"x\"},\n  ]\n}";
        let e = parse(comma).unwrap_err();
        assert_eq!(e.kind, TRAILING_COMMA);
        assert!(e.message.starts_with("a trailing comma at line 5 column 3"), "{}", e.message);

        let cut =
            "```json\n{\n  \"root\": \".\",\n  \"files\": [\n    {\"path\": \"a\", \"content\": \"x\"}\n  ]\n```\n";
        let e = parse(cut).unwrap_err();
        assert_eq!(e.kind, UNCLOSED_JSON);
        assert!(e.message.contains("1 bracket(s) still open"), "{}", e.message);
        // Issue 26, point 2: a bundle that ends early says the reply was probably cut off.
        assert!(e.message.contains("the reply was probably cut off; ask for the whole bundle again"), "{}", e.message);
        let mid = "{\"root\": \".\", \"files\": [{\"path\": \"a\", \"operation\": \"patch\", \"patches\": \
                   [{\"find\": \"x\", \"replace\": \"def database_backwards(self, app_l";
        let e = parse(mid).unwrap_err();
        assert_eq!(e.kind, UNCLOSED_JSON);
        assert!(e.message.contains("the reply was probably cut off"), "{}", e.message);

        let deep = format!("{{\"root\": {}1{}}}", "[".repeat(200), "]".repeat(200));
        assert_eq!(parse(&deep).unwrap_err().kind, TOO_DEEP);

        let e = parse("{\"root\": '.'}").unwrap_err();
        assert_eq!(e.kind, INVALID_JSON);
        assert!(e.message.starts_with("invalid JSON at line 1 column 10 of the JSON: expected value"), "{}", e.message);
    }

    #[test]
    fn missing_root_and_unknown_fields_are_warnings() {
        let bundle = parse(r#"{"files": [{"path": "a", "content": "x", "description": "why"}]}"#).unwrap();
        assert_eq!(bundle.root, ".");
        assert_eq!(bundle.warnings.len(), 2, "{:?}", bundle.warnings);
        assert!(bundle.warnings[1].contains("unknown field `description` was ignored"));
    }
}

//! Text → the tool calls it holds: the JSON found in the text (bare, or in a fenced block
//! with prose around it), parsed with `serde_json`, each call unwrapped from the way it
//! arrived and read as one of the shapes of the spec, with the span of every call and old
//! text in the text.

use polypatch_core::{PatchError, Span};
use serde_json::{Map, Value};

use crate::error::{
    DRY_RUN, EMPTY_OLD, INVALID_ARGUMENTS, INVALID_FIELD, INVALID_JSON, INVALID_PATH, MISSING_FIELD, NO_CALL, NO_EDIT,
    NOT_AN_EDIT, TOO_DEEP, TOO_LARGE, UNCLOSED_JSON, UNKNOWN_SHAPE, error,
};
use crate::json;

/// The largest JSON accepted, in bytes (64 MiB): a bigger one is refused before parsing.
pub const MAX_CALLS_BYTES: usize = 64 << 20;

/// The calls of a tool-call patch, in order: one transaction.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Calls {
    /// The edit calls (Anthropic `text` blocks and `OpenAI` `message`/`reasoning` items of
    /// an array are left out).
    pub calls: Vec<Call>,
    /// Where the JSON stands in the text.
    pub span: Span,
}

/// One tool call.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Call {
    /// 1-based position among the calls, as messages name it (`call 2`).
    pub number: usize,
    /// The call's id (`tool_use.id`, `call_id`, an `OpenAI` chat call's `id`), when wrapped.
    pub id: Option<String>,
    /// How the call arrived.
    pub wrapper: Wrapper,
    /// The tool's name, when wrapped.
    pub name: Option<String>,
    /// Whose tool the arguments are.
    pub shape: Shape,
    /// What it does.
    pub op: Op,
    /// The call in the text.
    pub span: Span,
}

/// How a call arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Wrapper {
    /// The bare arguments object.
    Bare,
    /// An Anthropic `tool_use` content block (`input`).
    ToolUse,
    /// An `OpenAI` function call (`arguments`, a JSON string): Responses `function_call` or
    /// Chat Completions `{"type": "function", "function": {...}}`.
    FunctionCall,
    /// An `OpenAI` Responses `apply_patch_call` item (`operation`).
    ApplyPatchCall,
}

/// Whose tool the arguments belong to (by tool name, else by keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Shape {
    /// Anthropic's text editor tool (`command`).
    TextEditor,
    /// Claude Code's Edit, `MultiEdit`, Write (`file_path`, `old_string`, `replace_all`).
    ClaudeCode,
    /// Gemini CLI's `replace` and `write_file` (`expected_replacements`, `allow_multiple`).
    Gemini,
    /// The MCP reference filesystem server's `edit_file`/`write_file` (`oldText`), also
    /// Cline's `write_to_file`.
    Mcp,
    /// Zed's `edit_file` (`old_text`).
    Zed,
    /// An `OpenAI` `apply_patch` operation (`create_file`, `update_file`, `delete_file`).
    ApplyPatch,
    /// Continue's `edit_existing_file` (`filepath`, `changes`: a lazy snippet).
    Continue,
    /// GitHub Copilot's `insert_edit_into_file` (`filePath`, `code`: a lazy snippet;
    /// `explanation`).
    Copilot,
}

/// What a call does.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Op {
    /// Replace literal texts, in order (`str_replace`, Edit, `MultiEdit`, `replace`,
    /// `edit_file`).
    Replace {
        /// The file.
        path: String,
        /// The replacements, at least one.
        edits: Vec<Replace>,
    },
    /// Create a file that must not exist with other content (Claude Code Edit and Gemini
    /// `replace` with an empty old string).
    Create {
        /// The file.
        path: String,
        /// Its content.
        content: String,
    },
    /// Insert lines after line `after` (0: at the top) (`insert`).
    Insert {
        /// The file.
        path: String,
        /// The line the text goes after.
        after: usize,
        /// The lines, joined with `\n` (one final line break removed).
        text: String,
        /// Where the text stands in the JSON.
        span: Span,
    },
    /// Write the whole file, created or replaced (`create`, Write, `write_file`,
    /// `create_file`).
    Write {
        /// The file.
        path: String,
        /// Its new content.
        content: String,
    },
    /// An `update_file` V4A diff.
    Update {
        /// The file.
        path: String,
        /// The diff, as sent.
        diff: String,
        /// Where the diff stands in the JSON.
        span: Span,
    },
    /// SEARCH/REPLACE blocks for one file (Cline's `replace_in_file`, Roo Code's
    /// `apply_diff`: `{"path", "diff"}`), read by the search-replace dialect.
    Blocks {
        /// The file.
        path: String,
        /// The blocks, as sent.
        diff: String,
        /// Where the blocks stand in the JSON.
        span: Span,
    },
    /// A lazy snippet for one file (Continue's `edit_existing_file` `changes`, Copilot's
    /// `insert_edit_into_file` `code`): the new code, `// ... existing code ...` markers
    /// standing for the unchanged runs, merged by the lazy dialect.
    Lazy {
        /// The file.
        path: String,
        /// The snippet, as sent.
        snippet: String,
        /// Where the snippet stands in the JSON.
        span: Span,
    },
    /// Delete the file (`delete_file`).
    Delete {
        /// The file.
        path: String,
    },
}

impl Op {
    /// The file the call changes.
    pub fn path(&self) -> &str {
        match self {
            Op::Replace { path, .. }
            | Op::Create { path, .. }
            | Op::Insert { path, .. }
            | Op::Write { path, .. }
            | Op::Update { path, .. }
            | Op::Blocks { path, .. }
            | Op::Lazy { path, .. }
            | Op::Delete { path } => path,
        }
    }
}

/// One literal replacement.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Replace {
    /// The text to find, literally (it may start and end inside a line).
    pub old: String,
    /// What it becomes.
    pub new: String,
    /// How many occurrences must be there.
    pub count: Count,
    /// The edit's name in reports: `old_str`, `edits[2]`.
    pub label: String,
    /// Where the old text stands in the JSON.
    pub span: Span,
}

/// How many occurrences of the old text an edit replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Count {
    /// Exactly one (the default everywhere).
    One,
    /// Every one, at least one (`replace_all`, `allow_multiple`).
    All,
    /// Exactly N, N ≥ 2 (`expected_replacements`).
    Exactly(usize),
}

/// Finds the JSON in `text`: the whole text when it starts with `{` or `[`; else the first
/// fenced block (tagged `json`, `jsonc`, `json5` or untagged) whose content starts with
/// one; else the first value that starts a line with `{` or `[`.
pub fn extract(text: &str) -> Option<Span> {
    let bom = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
    let body = &text[bom..];
    let opens = |s: &str| s.starts_with('{') || s.starts_with('[');
    if opens(body.trim_start()) {
        let lead = body.len() - body.trim_start().len();
        return Some(Span::new(bom + lead, bom + body.trim_end().len()));
    }
    let mut fence: Option<(&str, bool, usize)> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let trimmed = line.trim();
        if let Some((marker, json, inner)) = fence {
            if trimmed == marker {
                fence = None;
                let content = &text[inner..start];
                if json && opens(content.trim_start()) {
                    let lead = content.len() - content.trim_start().len();
                    return Some(Span::new(inner + lead, inner + content.trim_end().len()));
                }
            }
            continue;
        }
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        if let Some(marker) = marker {
            let tag = trimmed.trim_start_matches(marker).trim().to_ascii_lowercase();
            fence = Some((marker, matches!(tag.as_str(), "json" | "jsonc" | "json5" | ""), at));
            continue;
        }
        if opens(line) {
            // The first value from here: where serde_json says it ends.
            let mut values = serde_json::Deserializer::from_str(&text[start..]).into_iter::<serde_json::Value>();
            let end = match values.next() {
                Some(Ok(_)) => start + values.byte_offset(),
                _ => text.trim_end().len(),
            };
            return Some(Span::new(start, end.max(start)));
        }
    }
    // A fence left open (a reply cut off): its content, to say it is cut off.
    if let Some((_, true, inner)) = fence {
        let content = &text[inner.min(text.len())..];
        if opens(content.trim_start()) {
            let lead = content.len() - content.trim_start().len();
            return Some(Span::new(inner + lead, inner + content.trim_end().len()));
        }
    }
    None
}

/// Parses the tool calls in `text`.
pub fn parse(text: &str) -> Result<Calls, PatchError> {
    let Some(span) = extract(text) else {
        return Err(error(
            NO_CALL,
            "no tool call: the text holds no JSON object or array; send the tool call's JSON (its arguments, or the \
             whole `tool_use` / `function_call` / `apply_patch_call` item), alone or in a ```json block",
            None,
        ));
    };
    let json = &text[span.start..span.end];
    if json.len() > MAX_CALLS_BYTES {
        return Err(error(
            TOO_LARGE,
            format!(
                "the JSON is {} bytes, more than the {MAX_CALLS_BYTES} accepted: send the calls in several parts",
                json.len()
            ),
            None,
        ));
    }
    let value: Value = serde_json::from_str(json).map_err(|e| json_error(text, span, &e))?;
    let items: Vec<(&Value, Span)> = match &value {
        Value::Array(list) => list.iter().zip(json::elements(text, span)).collect(),
        _ => vec![(&value, span)],
    };
    let mut calls = Vec::new();
    for (value, at) in items {
        let Value::Object(map) = value else {
            return Err(error(
                INVALID_FIELD,
                format!(
                    "a tool call must be a JSON object, not {}: send the call's arguments object, or an array of them",
                    type_name(value)
                ),
                Some(at),
            ));
        };
        // An assistant message's other content: text and reasoning, no edit.
        if matches!(map.get("type").and_then(Value::as_str), Some("text" | "thinking" | "reasoning" | "message")) {
            continue;
        }
        calls.push(read_call(text, map, at, calls.len() + 1)?);
    }
    if calls.is_empty() {
        return Err(error(
            NO_EDIT,
            "no tool call in the JSON: it changes nothing; send at least one edit call",
            Some(span),
        ));
    }
    Ok(Calls { calls, span })
}

/// A `serde_json` error as the writer's mistake: what it is, where, and what to write.
fn json_error(text: &str, span: Span, e: &serde_json::Error) -> PatchError {
    let json = &text[span.start..span.end];
    let mut at = polypatch_core::offset_at(json, e.line(), e.column());
    let full = e.to_string();
    let what = full.rsplit_once(" at line ").map_or(full.as_str(), |(m, _)| m);
    let mut place = format!("line {} column {} of the JSON", e.line(), e.column());
    if what.starts_with("control character") {
        // serde_json reports the place after the character it refused: the character's own.
        at -= json[..at].chars().next_back().map_or(0, char::len_utf8);
        let line = json[..at].matches('\n').count() + 1;
        let column = at - json[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
        place = format!("line {line} column {column} of the JSON");
    }
    let here = Some(Span::new(span.start + at, span.start + at));
    if e.is_eof() {
        return error(
            UNCLOSED_JSON,
            format!(
                "the JSON ends before it is complete ({what}): the reply was probably cut off; send the whole call \
                 again"
            ),
            Some(Span::new(span.end, span.end)),
        );
    }
    if what.starts_with("recursion limit exceeded") {
        return error(TOO_DEEP, format!("the JSON nests deeper than 128 levels at {place}"), here);
    }
    let hint = if what.starts_with("control character") {
        ": JSON strings cannot hold raw line breaks or tabs; write them as `\\n` and `\\t`"
    } else if what.starts_with("trailing comma") {
        ": remove the comma before the closing `]` or `}`"
    } else {
        ""
    };
    error(INVALID_JSON, format!("invalid JSON at {place}: {what}{hint}"), here)
}

/// The arguments of a call, unwrapped: `(wrapper, id, name, arguments, where they stand,
/// whether their fields have spans of their own)`.
struct Unwrapped<'v> {
    wrapper: Wrapper,
    id: Option<String>,
    name: Option<String>,
    args: std::borrow::Cow<'v, Map<String, Value>>,
    /// The arguments object in the text, when it is JSON of the text (not a string).
    at: Span,
    /// Fields have spans of their own (the arguments are not a decoded string).
    inline: bool,
}

fn read_call(text: &str, map: &Map<String, Value>, span: Span, number: usize) -> Result<Call, PatchError> {
    let call = format!("call {number}");
    let un = unwrap(text, map, span, &call)?;
    let mut r = Reader { text, call, name: un.name.clone(), at: un.at, inline: un.inline, args: &un.args };
    let (shape, op) = r.read(un.wrapper)?;
    Ok(Call { number, id: un.id, wrapper: un.wrapper, name: un.name, shape, op, span })
}

fn unwrap<'v>(text: &str, map: &'v Map<String, Value>, span: Span, call: &str) -> Result<Unwrapped<'v>, PatchError> {
    let str_field = |m: &Map<String, Value>, k: &str| m.get(k).and_then(Value::as_str).map(str::to_owned);
    let kind = map.get("type").and_then(Value::as_str);
    let sub = |key: &str| json::member(text, span, key).unwrap_or(span);
    match kind {
        Some("tool_use") => {
            let Some(Value::Object(input)) = map.get("input") else {
                return Err(missing_or_type(map.get("input"), call, "tool_use", "input", "an object", span));
            };
            Ok(Unwrapped {
                wrapper: Wrapper::ToolUse,
                id: str_field(map, "id"),
                name: str_field(map, "name"),
                args: std::borrow::Cow::Borrowed(input),
                at: sub("input"),
                inline: true,
            })
        }
        Some("apply_patch_call") => {
            let Some(Value::Object(op)) = map.get("operation") else {
                return Err(missing_or_type(
                    map.get("operation"),
                    call,
                    "apply_patch_call",
                    "operation",
                    "an object",
                    span,
                ));
            };
            Ok(Unwrapped {
                wrapper: Wrapper::ApplyPatchCall,
                id: str_field(map, "call_id").or_else(|| str_field(map, "id")),
                name: Some("apply_patch".to_owned()),
                args: std::borrow::Cow::Borrowed(op),
                at: sub("operation"),
                inline: true,
            })
        }
        Some("function_call" | "function") => {
            // Responses: the fields on the item; Chat Completions: under `function`.
            let (holder, holder_span) = match map.get("function") {
                Some(Value::Object(f)) => (f, sub("function")),
                _ => (map, span),
            };
            let id = str_field(map, "call_id").or_else(|| str_field(map, "id"));
            let name = str_field(holder, "name");
            let at = json::member(text, holder_span, "arguments").unwrap_or(holder_span);
            let args = match holder.get("arguments") {
                Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
                    Ok(Value::Object(args)) => std::borrow::Cow::Owned(args),
                    Ok(other) => {
                        return Err(error(
                            INVALID_ARGUMENTS,
                            format!(
                                "{call}: `arguments` holds {}, not a JSON object: send the tool's arguments as a JSON \
                                 object in a string",
                                type_name(&other)
                            ),
                            Some(at),
                        ));
                    }
                    Err(e) => {
                        let what = e.to_string();
                        let what = what.rsplit_once(" at line ").map_or(what.as_str(), |(m, _)| m);
                        return Err(error(
                            INVALID_ARGUMENTS,
                            format!(
                                "{call}: `arguments` is not valid JSON ({what} at its line {} column {}): the \
                                 string must hold the arguments object, serialized",
                                e.line(),
                                e.column()
                            ),
                            Some(at),
                        ));
                    }
                },
                // Some clients hand the arguments over already decoded.
                Some(Value::Object(args)) => std::borrow::Cow::Borrowed(args),
                other => {
                    return Err(missing_or_type(other, call, "function call", "arguments", "a JSON string", at));
                }
            };
            let inline = matches!(holder.get("arguments"), Some(Value::Object(_)));
            Ok(Unwrapped { wrapper: Wrapper::FunctionCall, id, name, args, at, inline })
        }
        _ => Ok(Unwrapped {
            wrapper: Wrapper::Bare,
            id: None,
            name: None,
            args: std::borrow::Cow::Borrowed(map),
            at: span,
            inline: true,
        }),
    }
}

fn missing_or_type(got: Option<&Value>, call: &str, what: &str, field: &str, want: &str, span: Span) -> PatchError {
    match got {
        None => error(MISSING_FIELD, format!("{call}: a {what} needs `{field}` ({want})"), Some(span)),
        Some(v) => error(INVALID_FIELD, format!("{call}: `{field}` must be {want}, not {}", type_name(v)), Some(span)),
    }
}

/// Reads one call's arguments.
struct Reader<'a> {
    text: &'a str,
    /// `call 2`, or `call 2 (Edit)`, for messages.
    call: String,
    name: Option<String>,
    /// The arguments object in the text.
    at: Span,
    inline: bool,
    args: &'a Map<String, Value>,
}

impl Reader<'_> {
    /// Where `field` of the arguments stands (the arguments, when they are a string).
    fn span_of(&self, field: &str) -> Span {
        if self.inline { json::member(self.text, self.at, field).unwrap_or(self.at) } else { self.at }
    }

    fn err(&self, kind: polypatch_core::ErrorKind, message: impl std::fmt::Display, field: Option<&str>) -> PatchError {
        let span = field.map_or(self.at, |f| self.span_of(f));
        error(kind, format!("{}: {message}", self.who()), Some(span))
    }

    fn who(&self) -> String {
        match &self.name {
            Some(name) => format!("{} ({name})", self.call),
            None => self.call.clone(),
        }
    }

    fn has(&self, key: &str) -> bool {
        self.args.contains_key(key)
    }

    fn string(&self, key: &str) -> Result<String, PatchError> {
        match self.args.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            None => Err(self.err(MISSING_FIELD, format!("`{key}` is missing (a string)"), None)),
            Some(v) => {
                Err(self.err(INVALID_FIELD, format!("`{key}` must be a string, not {}", type_name(v)), Some(key)))
            }
        }
    }

    fn flag(&self, key: &str) -> Result<bool, PatchError> {
        match self.args.get(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => {
                Err(self.err(INVALID_FIELD, format!("`{key}` must be true or false, not {}", type_name(v)), Some(key)))
            }
        }
    }

    fn path(&self, key: &str) -> Result<String, PatchError> {
        let path = self.string(key)?;
        if path.trim().is_empty() || path.contains(['\n', '\r', '\0']) {
            return Err(self.err(
                INVALID_PATH,
                format!(
                    "`{key}` {path:?} is not a path: give the file's path, relative to the root or absolute inside it"
                ),
                Some(key),
            ));
        }
        Ok(path)
    }

    /// The shape (by tool name, else by keys) and what the call does.
    fn read(&mut self, wrapper: Wrapper) -> Result<(Shape, Op), PatchError> {
        let by_name = self.name.as_deref().and_then(shape_of_name);
        let shape = match (wrapper, by_name) {
            (Wrapper::ApplyPatchCall, _) => Shape::ApplyPatch,
            (_, Some(shape)) => shape,
            _ => self.shape_of_keys()?,
        };
        let op = match shape {
            Shape::TextEditor => self.text_editor()?,
            Shape::ClaudeCode | Shape::Gemini => self.edit_or_write(shape)?,
            Shape::Mcp | Shape::Zed => self.path_edits(shape)?,
            Shape::ApplyPatch => self.apply_patch()?,
            Shape::Continue | Shape::Copilot => self.lazy(shape)?,
        };
        Ok((shape, op))
    }

    fn shape_of_keys(&self) -> Result<Shape, PatchError> {
        if self.has("command") {
            return Ok(Shape::TextEditor);
        }
        if matches!(self.args.get("type").and_then(Value::as_str), Some("create_file" | "update_file" | "delete_file"))
        {
            return Ok(Shape::ApplyPatch);
        }
        if self.has("filepath") && self.has("changes") {
            return Ok(Shape::Continue);
        }
        if self.has("filePath") && self.has("code") {
            return Ok(Shape::Copilot);
        }
        if self.has("file_path") {
            let gemini = ["expected_replacements", "allow_multiple", "instruction"].iter().any(|k| self.has(k));
            return Ok(if gemini { Shape::Gemini } else { Shape::ClaudeCode });
        }
        if self.has("path") {
            let zed = match self.args.get("edits") {
                Some(Value::Array(list)) => {
                    list.iter().any(|e| e.get("old_text").is_some() || e.get("new_text").is_some())
                }
                _ => false,
            };
            return Ok(if zed { Shape::Zed } else { Shape::Mcp });
        }
        let keys: Vec<&str> = self.args.keys().map(String::as_str).take(8).collect();
        Err(self.err(
            UNKNOWN_SHAPE,
            format!(
                "no edit tool takes these arguments (keys: {}): send a text editor call (`command`, `path`), a Claude \
                 Code or Gemini call (`file_path`, `old_string`, `new_string` or `content`), an MCP or Zed call \
                 (`path`, `edits` or `content`), an apply_patch operation (`type`, `path`, `diff`) or a lazy \
                 snippet (`filepath` and `changes`, or `filePath` and `code`)",
                if keys.is_empty() { "none".to_owned() } else { keys.join(", ") }
            ),
            None,
        ))
    }

    /// Anthropic's text editor: `str_replace`, `insert`, `create`; `view` and `undo_edit`
    /// are not edits.
    fn text_editor(&self) -> Result<Op, PatchError> {
        let command = self.string("command")?;
        match command.as_str() {
            "str_replace" => {
                let path = self.path("path")?;
                let old = self.string("old_str")?;
                if old.is_empty() {
                    return Err(self.err(
                        EMPTY_OLD,
                        "`old_str` is empty: give the exact text to replace (to write a new file, use the `create` \
                         command)"
                            .to_owned(),
                        Some("old_str"),
                    ));
                }
                let new = if self.has("new_str") { self.string("new_str")? } else { String::new() };
                let span = self.span_of("old_str");
                Ok(Op::Replace {
                    path,
                    edits: vec![Replace { old, new, count: Count::One, label: "old_str".to_owned(), span }],
                })
            }
            "create" => Ok(Op::Write { path: self.path("path")?, content: self.string("file_text")? }),
            "insert" => {
                let path = self.path("path")?;
                let after = match self.args.get("insert_line") {
                    Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64().unwrap_or_default() as usize,
                    None => {
                        return Err(self.err(
                            MISSING_FIELD,
                            "`insert_line` is missing: the line the text goes after (0: at the top)".to_owned(),
                            None,
                        ));
                    }
                    Some(v) => {
                        return Err(self.err(
                            INVALID_FIELD,
                            format!("`insert_line` must be a line number (0 or more; 0: at the top), not {}", shown(v)),
                            Some("insert_line"),
                        ));
                    }
                };
                // Models also send the text as `new_str`.
                let key = if self.has("insert_text") || !self.has("new_str") { "insert_text" } else { "new_str" };
                let mut text = self.string(key)?;
                if text.ends_with('\n') {
                    text.pop();
                    if text.ends_with('\r') {
                        text.pop();
                    }
                }
                Ok(Op::Insert { path, after, text, span: self.span_of(key) })
            }
            "view" | "undo_edit" => Err(self.err(
                NOT_AN_EDIT,
                format!(
                    "the `{command}` command is not an edit, so it is not a patch: run it with the tool itself; send \
                     only `str_replace`, `insert` and `create` calls here"
                ),
                Some("command"),
            )),
            other => Err(self.err(
                INVALID_FIELD,
                format!("unknown command {other:?}: the text editor's edits are `str_replace`, `insert` and `create`"),
                Some("command"),
            )),
        }
    }

    /// Claude Code Edit / `MultiEdit` / Write and Gemini `replace` / `write_file`.
    fn edit_or_write(&self, shape: Shape) -> Result<Op, PatchError> {
        let key = if self.has("file_path") || !self.has("path") { "file_path" } else { "path" };
        let path = self.path(key)?;
        if self.has("edits") {
            let edits = self.edit_list("edits", "old_string", "new_string")?;
            return Ok(Op::Replace { path, edits });
        }
        if self.has("old_string") {
            let old = self.string("old_string")?;
            let new = self.string("new_string")?;
            if old.is_empty() {
                // Both tools create a new file this way.
                return Ok(Op::Create { path, content: new });
            }
            let count = self.count(self.args, None)?;
            let span = self.span_of("old_string");
            return Ok(Op::Replace {
                path,
                edits: vec![Replace { old, new, count, label: "old_string".to_owned(), span }],
            });
        }
        if self.has("content") {
            return Ok(Op::Write { path, content: self.string("content")? });
        }
        let what = if shape == Shape::Gemini { "Gemini CLI" } else { "Claude Code" };
        Err(self.err(
            MISSING_FIELD,
            format!(
                "a {what} call needs `old_string` and `new_string` (an edit), `edits` (several) or `content` (the \
                 whole file)"
            ),
            None,
        ))
    }

    /// MCP `edit_file` / `write_file`, Zed `edit_file`, Cline `write_to_file`.
    fn path_edits(&self, shape: Shape) -> Result<Op, PatchError> {
        let path = self.path("path")?;
        if self.flag("dryRun")? {
            return Err(self.err(
                DRY_RUN,
                "`dryRun` is true: a patch always applies; preview it with `polypatch check` (or the library's \
                 `compute`) instead, or send `\"dryRun\": false`"
                    .to_owned(),
                Some("dryRun"),
            ));
        }
        if self.has("edits") {
            let (old, new) = if shape == Shape::Zed { ("old_text", "new_text") } else { ("oldText", "newText") };
            return Ok(Op::Replace { path, edits: self.edit_list("edits", old, new)? });
        }
        if self.has("content") {
            return Ok(Op::Write { path, content: self.string("content")? });
        }
        if self.has("diff") {
            return Ok(Op::Blocks { path, diff: self.string("diff")?, span: self.span_of("diff") });
        }
        Err(self.err(
            MISSING_FIELD,
            "a `path` call needs `edits` (`[{\"oldText\": ..., \"newText\": ...}]`) or `content` (the whole file)"
                .to_owned(),
            None,
        ))
    }

    /// Continue's `edit_existing_file` (`filepath`, `changes`) and Copilot's
    /// `insert_edit_into_file` (`filePath`, `code`, and an `explanation` that is not
    /// needed): a lazy snippet for the path.
    fn lazy(&self, shape: Shape) -> Result<Op, PatchError> {
        let (path_key, snippet_key) =
            if shape == Shape::Continue { ("filepath", "changes") } else { ("filePath", "code") };
        let path = self.path(path_key)?;
        if self.has("explanation") {
            self.string("explanation")?;
        }
        let snippet = self.string(snippet_key)?;
        Ok(Op::Lazy { path, snippet, span: self.span_of(snippet_key) })
    }

    /// A list of `{old, new[, replace_all]}` objects.
    fn edit_list(&self, key: &str, old_key: &str, new_key: &str) -> Result<Vec<Replace>, PatchError> {
        let Some(Value::Array(list)) = self.args.get(key) else {
            return Err(self.err(
                INVALID_FIELD,
                format!("`{key}` must be an array of {{\"{old_key}\", \"{new_key}\"}} objects"),
                Some(key),
            ));
        };
        if list.is_empty() {
            return Err(self.err(
                NO_EDIT,
                format!("`{key}` is empty: it changes nothing; give at least one edit"),
                Some(key),
            ));
        }
        let list_span = self.span_of(key);
        let spans = if self.inline { json::elements(self.text, list_span) } else { Vec::new() };
        let mut out = Vec::new();
        for (i, item) in list.iter().enumerate() {
            let label = format!("{key}[{i}]");
            let at = spans.get(i).copied().unwrap_or(list_span);
            let field_err =
                |kind, message: String| error(kind, format!("{}: {label}: {message}", self.who()), Some(at));
            let Value::Object(map) = item else {
                return Err(field_err(INVALID_FIELD, format!("must be an object, not {}", type_name(item))));
            };
            let get = |k: &str| match map.get(k) {
                Some(Value::String(s)) => Ok(s.clone()),
                None => Err(field_err(MISSING_FIELD, format!("`{k}` is missing (a string)"))),
                Some(v) => Err(field_err(INVALID_FIELD, format!("`{k}` must be a string, not {}", type_name(v)))),
            };
            let old = get(old_key)?;
            if old.is_empty() {
                return Err(field_err(EMPTY_OLD, format!("`{old_key}` is empty: give the exact text to replace")));
            }
            let new = get(new_key)?;
            let count = self.count(map, Some((&label, at)))?;
            let span = if self.inline { json::member(self.text, at, old_key).unwrap_or(at) } else { at };
            out.push(Replace { old, new, count, label, span });
        }
        Ok(out)
    }

    /// `replace_all`, `allow_multiple`, `expected_replacements` of `map`.
    fn count(&self, map: &Map<String, Value>, item: Option<(&str, Span)>) -> Result<Count, PatchError> {
        let bad = |key: &str, message: String| {
            let (prefix, at) = match item {
                Some((label, at)) => (format!("{}: {label}", self.who()), at),
                None => (self.who(), self.span_of(key)),
            };
            error(INVALID_FIELD, format!("{prefix}: {message}"), Some(at))
        };
        let flag = |key: &str| match map.get(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(bad(key, format!("`{key}` must be true or false, not {}", type_name(v)))),
        };
        if let Some(v) = map.get("expected_replacements").filter(|v| !v.is_null()) {
            return match v.as_u64() {
                Some(0) | None => Err(bad(
                    "expected_replacements",
                    format!("`expected_replacements` must be a count of 1 or more, not {}", shown(v)),
                )),
                Some(1) => Ok(Count::One),
                Some(n) => Ok(Count::Exactly(usize::try_from(n).unwrap_or(usize::MAX))),
            };
        }
        Ok(if flag("replace_all")? || flag("allow_multiple")? { Count::All } else { Count::One })
    }

    /// An `OpenAI` `apply_patch` operation.
    fn apply_patch(&self) -> Result<Op, PatchError> {
        let kind = self.string("type")?;
        let path = self.path("path")?;
        match kind.as_str() {
            "delete_file" => Ok(Op::Delete { path }),
            "create_file" => {
                let diff = self.string("diff")?;
                Ok(Op::Write { path, content: self.create_content(&diff)? })
            }
            "update_file" => {
                let diff = self.string("diff")?;
                Ok(Op::Update { path, diff, span: self.span_of("diff") })
            }
            other => Err(self.err(
                INVALID_FIELD,
                format!("unknown operation type {other:?}: `create_file`, `update_file` or `delete_file`"),
                Some("type"),
            )),
        }
    }

    /// A `create_file` diff's content: the `+` lines joined with `\n` (a last lone `+`
    /// line gives the final newline).
    fn create_content(&self, diff: &str) -> Result<String, PatchError> {
        let body = diff.strip_suffix('\n').unwrap_or(diff);
        let body = body.strip_suffix('\r').unwrap_or(body);
        if body.is_empty() {
            return Ok(String::new());
        }
        let mut lines = Vec::new();
        for (i, line) in body.split('\n').enumerate() {
            let line = line.strip_suffix('\r').unwrap_or(line);
            let Some(content) = line.strip_prefix('+') else {
                return Err(self.err(
                    crate::error::INVALID_DIFF,
                    format!(
                        "line {} of the `create_file` diff, {:?}, does not start with `+`: every line of a new \
                         file's diff is `+` and the line",
                        i + 1,
                        clip(line)
                    ),
                    Some("diff"),
                ));
            };
            lines.push(content);
        }
        Ok(lines.join("\n"))
    }
}

/// The shape a tool name selects.
fn shape_of_name(name: &str) -> Option<Shape> {
    Some(match name {
        "str_replace_based_edit_tool" | "str_replace_editor" => Shape::TextEditor,
        n if n.starts_with("text_editor") => Shape::TextEditor,
        "Edit" | "MultiEdit" | "Write" => Shape::ClaudeCode,
        "replace" => Shape::Gemini,
        "apply_patch" => Shape::ApplyPatch,
        "edit_existing_file" => Shape::Continue,
        // The name the model calls, and the tool's id in VS Code.
        "insert_edit_into_file" | "copilot_insertEdit" => Shape::Copilot,
        // `edit_file` and `write_file` are several tools' names: the keys tell which.
        _ => return None,
    })
}

fn clip(line: &str) -> String {
    line.chars().take(60).collect()
}

fn shown(v: &Value) -> String {
    match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("{:?}", clip(s)),
        other => type_name(other).to_owned(),
    }
}

pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

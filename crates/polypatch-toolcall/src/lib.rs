//! JSON edit tool calls as a polypatch dialect (`tool-call`): the arguments of the
//! file-editing tools coding agents give models, read in every vendor's shape, applied by
//! polypatch's engine as one transaction, and answered in the caller's own result shape.
//!
//! ```
//! use polypatch_core::{apply, ApplyOptions, Dialect, MemoryFileSet};
//! use polypatch_toolcall::ToolCall;
//!
//! // An Anthropic tool_use block, as the Messages API returns it.
//! let call = r#"{"type": "tool_use", "id": "toolu_1", "name": "str_replace_based_edit_tool",
//!   "input": {"command": "str_replace", "path": "app.py",
//!             "old_str": "print('hi')", "new_str": "print('hello')"}}"#;
//! let plan = ToolCall.parse(call).unwrap();
//! let mut files = MemoryFileSet::new().with("app.py", "def main():\r\n\tprint('hi')\r\n");
//! apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
//! assert_eq!(files.get_str("app.py"), Some("def main():\r\n\tprint('hello')\r\n"));
//! ```
//!
//! # Input
//!
//! A JSON value: one call, or an array of calls (a turn's edits, applied all or nothing).
//! A call is the bare arguments object, or wrapped as it arrives: an Anthropic `tool_use`
//! block (`input`), an `OpenAI` function call (`arguments`, a JSON string; Responses
//! `function_call` or Chat Completions `{"type": "function", "function": {...}}`) or an
//! `OpenAI` `apply_patch_call` (`operation`). In an array, Anthropic `text`/`thinking`
//! blocks and `OpenAI` `message`/`reasoning` items are left out. The tool name, when there
//! is one, selects the shape; otherwise the keys do:
//!
//! | Tool | Arguments |
//! |---|---|
//! | Anthropic text editor | `command`: `str_replace` (`path`, `old_str`, `new_str`), `insert` (`insert_line`, `insert_text` or `new_str`), `create` (`file_text`); `view` and `undo_edit` are refused as not an edit |
//! | Claude Code Edit / `MultiEdit` / Write | `file_path` with `old_string`, `new_string`, `replace_all`; or `edits[]` of those; or `content` |
//! | Gemini CLI `replace` / `write_file` | `file_path`, `old_string`, `new_string`, `expected_replacements` (exactly N) or `allow_multiple`; or `content` |
//! | MCP filesystem `edit_file` / `write_file` | `path`, `edits[{oldText, newText}]` (`dryRun: true` is refused); or `content` |
//! | Zed `edit_file` | `path`, `edits[{old_text, new_text}]` |
//! | Cline `replace_in_file` / Roo Code `apply_diff` | `path`, `diff` (SEARCH/REPLACE blocks for that file) |
//! | `OpenAI` `apply_patch` | `{"type": "create_file" \| "update_file" \| "delete_file", "path", "diff"}` |
//! | Continue `edit_existing_file` | `filepath`, `changes` (a lazy snippet: `// ... existing code ...` for the unchanged runs) |
//! | Copilot `insert_edit_into_file` | `filePath`, `code` (a lazy snippet), `explanation` (not needed) |
//!
//! The JSON may be the whole text or sit in a fenced block (```` ```json ````) of a chat
//! reply. Errors name the call, the field and what to send instead, at the JSON's line and
//! column. Cline's `replace_in_file` and Roo Code's `apply_diff` (`{"path", "diff"}`, the
//! `diff` holding SEARCH/REPLACE blocks) are read by the search-replace dialect
//! (`polypatch_search_replace`) for that path: one engine, the same rules. Continue's
//! `edit_existing_file` and Copilot's `insert_edit_into_file` carry a lazy snippet (the new
//! code, a marker such as `// ... existing code ...` standing for each unchanged run), read
//! whole and merged by the lazy dialect (`polypatch_lazy`) for that path: a snippet
//! wrapped in a fence is read without it (but for a Markdown file), and one whose first
//! line names another file (`// filepath: …`) is refused.
//!
//! # Meaning
//!
//! See [`lower()`]. The old text is a literal substring of the file (it may start and end
//! inside a line), found exactly, else at a lenient tier that forgives whitespace,
//! indentation, line endings or look-alike characters (a CRLF file, tabs for spaces),
//! never by likeness alone. It must occur once, unless `replace_all`/`allow_multiple`
//! (every occurrence) or `expected_replacements: N` (exactly N, else refused naming the
//! count found). New text follows the file's line endings. Re-running the same calls is
//! already applied. An `update_file` diff is the AI-PATCH hunk grammar (`@@`,
//! `@@ <line>`, ` `/`-`/`+` lines, `*** End of File`), parsed and lowered by
//! [`polypatch_aipatch`]; several `@@ <line>` headers in a row keep the last as the anchor
//! and then need a unique match after it.
//!
//! # Output
//!
//! [`results()`] turns polypatch's report into one result per call in the caller's shape
//! (Anthropic `tool_result`, `OpenAI` `function_call_output` / `apply_patch_call_output`,
//! MCP text content with `isError`), ready to hand back to the model.

// docs.rs (`--cfg docsrs`, nightly) shows which feature each gated item needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod error;
mod json;
mod lower;
mod render;
mod results;
#[cfg(feature = "schema")]
mod schema;
pub mod syntax;

use polypatch_core::{Dialect, EditPlan, ErrorKind, FileDelta, PatchError, RenderError, RenderOptions, ReplyLines};

pub use error::KINDS;
pub use lower::lower;
pub use results::{ResultShape, error_results, results};
pub use syntax::{Call, Calls, Count, MAX_CALLS_BYTES, Op, Replace, Shape, Wrapper, extract, parse};

/// The tool-call dialect (`"tool-call"`).
#[derive(Debug, Clone, Copy, Default)]
pub struct ToolCall;

/// Keys and names only an edit tool call's JSON has, as they stand in the text: a quote
/// and the start of the key, so a call inside an `OpenAI` `arguments` string (`\"old_string\"`)
/// counts too.
const MARKERS: &[&str] = &[
    "\"old_str",
    "\"oldText",
    "\"old_text",
    "\"file_text",
    "\"insert_line",
    "\"apply_patch_call\"",
    "\"create_file\"",
    "\"update_file\"",
    "\"delete_file\"",
    "\"str_replace_based_edit_tool\"",
    "\"str_replace_editor\"",
    "\"edit_existing_file\"",
    "\"insert_edit_into_file\"",
];

/// Whether `json` holds a marker, a Write call's `file_path` and `content`, Continue's
/// `filepath` and `changes` or Copilot's `filePath` and `code`.
fn marked(json: &str) -> bool {
    let both = |a: &str, b: &str| json.contains(a) && json.contains(b);
    MARKERS.iter().any(|m| json.contains(m))
        || both("\"file_path", "\"content")
        || both("\"filepath", "\"changes")
        || both("\"filePath", "\"code")
}

impl Dialect for ToolCall {
    fn name(&self) -> &'static str {
        error::DIALECT
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["toolcall", "tool-use", "str-replace", "str_replace", "str_replace_based_edit_tool"]
    }

    fn summary(&self) -> &'static str {
        "JSON edit tool calls (Anthropic's `str_replace` editor, OpenAI functions, MCP), every vendor's shape"
    }

    fn error_kinds(&self) -> &'static [ErrorKind] {
        error::KINDS
    }

    /// 85 for a JSON value (the whole text, or in a ```` ```json ```` fence) holding a key
    /// or name only edit tool calls have (`old_str`, `old_string`, `oldText`, `old_text`,
    /// `file_text`, `insert_line`, `apply_patch_call`, `update_file`, the text editor's,
    /// Continue's or Copilot's lazy edit tool's name, `file_path` with `content`, `filepath`
    /// with `changes`, or `filePath` with `code`); 50 for one found elsewhere in the text;
    /// else 0.
    /// A call of another tool (`bash`), or `{"path", "content"}` alone, is not claimed:
    /// name the format to read those.
    fn sniff(&self, text: &str) -> u8 {
        if !marked(text) {
            return 0;
        }
        let Some(span) = extract(text) else { return 0 };
        if !marked(&text[span.start..span.end]) {
            return 0;
        }
        let bare = text.trim_start_matches('\u{feff}').trim_start().starts_with(['{', '[']);
        let fenced = text[..span.start]
            .lines()
            .last()
            .is_some_and(|l| l.trim_start().starts_with("```") || l.trim_start().starts_with("~~~"));
        if bare || fenced { 85 } else { 50 }
    }

    fn parse(&self, text: &str) -> Result<EditPlan, PatchError> {
        parse(text).and_then(|calls| lower(&calls)).map_err(|e| e.with_source(text))
    }

    /// A JSON object that starts a line, to the line of its closing brace
    /// ([`ReplyLines::json_end`]).
    fn bare_block(&self, lines: &ReplyLines<'_>, at: usize, to: usize, _failed: usize) -> Option<usize> {
        if lines.line(at).starts_with('{') { lines.json_end(at, to) } else { None }
    }

    fn fence_tags(&self) -> &'static [&'static str] {
        &["json"]
    }

    /// An array of calls: Claude Code `MultiEdit` calls whose old strings each occur once
    /// where they apply (in the plain form, Write calls with the whole content), Write calls
    /// for new files, `delete_file` operations for deleted ones. Binary content and modes
    /// are refused.
    fn render(&self, deltas: &[FileDelta], options: &RenderOptions) -> Result<String, RenderError> {
        render::render(deltas, options.plain)
    }

    fn prompt(&self) -> Option<&'static str> {
        Some(include_str!("../prompt.txt"))
    }

    /// A JSON Schema per tool shape, each ready to register as a tool's input schema
    /// (with the `schema` feature).
    #[cfg(feature = "schema")]
    fn schema(&self) -> Option<serde_json::Value> {
        Some(schema::schema())
    }
}

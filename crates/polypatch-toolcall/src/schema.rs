//! A JSON Schema per tool shape, each ready to register as a tool's input schema
//! (`input_schema` for Anthropic, `parameters` for `OpenAI` functions, `inputSchema` for
//! MCP), and the schema of a tool-call patch: one call's arguments, or an array of them.
//! Every object refuses fields it does not list. What a schema cannot say (an old text
//! that is not in the file, a path outside the root) the parser and the engine still check.

use serde_json::{Value, json};

/// The tools, by name: `(name, description, input schema)`.
pub(crate) fn tools() -> Vec<(&'static str, &'static str, Value)> {
    let s = |d: &str| json!({"type": "string", "description": d});
    let old = "Literal text of the file, copied exactly; it may start and end inside a line and must occur once";
    let path = "The file's path, relative to the project root";
    let lazy = "The new version of the code that changes, with a line or two of unchanged code around it; a \
                comment such as `// ... existing code ...` (in the file's comment syntax) stands for each run of \
                unchanged lines left out";
    let edit_item = |o: &str, n: &str| {
        json!({
            "type": "object",
            "properties": {o: s(old), n: s("The text that takes its place")},
            "required": [o, n],
            "additionalProperties": false
        })
    };
    vec![
        (
            "str_replace_based_edit_tool",
            "Anthropic's text editor tool: str_replace, insert (after line insert_line, 0: at the top) and create",
            json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "enum": ["str_replace", "insert", "create"]},
                    "path": s(path),
                    "old_str": s(old),
                    "new_str": s("str_replace: the new text (empty: delete); insert: the lines to insert"),
                    "insert_line": {"type": "integer", "minimum": 0, "description": "insert: the line the text goes after"},
                    "insert_text": s("insert: the lines to insert"),
                    "file_text": s("create: the whole file")
                },
                "required": ["command", "path"],
                "additionalProperties": false,
                "allOf": [
                    {"if": {"properties": {"command": {"const": "str_replace"}}}, "then": {"required": ["old_str"]}},
                    {"if": {"properties": {"command": {"const": "insert"}}}, "then": {"required": ["insert_line"]}},
                    {"if": {"properties": {"command": {"const": "create"}}}, "then": {"required": ["file_text"]}}
                ]
            }),
        ),
        (
            "Edit",
            "Claude Code's Edit: replace old_string (once, or every occurrence with replace_all) with new_string",
            json!({
                "type": "object",
                "properties": {
                    "file_path": s(path),
                    "old_string": s(old),
                    "new_string": s("The text that takes its place"),
                    "replace_all": {"type": "boolean", "default": false}
                },
                "required": ["file_path", "old_string", "new_string"],
                "additionalProperties": false
            }),
        ),
        (
            "MultiEdit",
            "Claude Code's MultiEdit: several edits of one file, applied in order",
            json!({
                "type": "object",
                "properties": {
                    "file_path": s(path),
                    "edits": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "properties": {
                                "old_string": s(old),
                                "new_string": s("The text that takes its place"),
                                "replace_all": {"type": "boolean", "default": false}
                            },
                            "required": ["old_string", "new_string"],
                            "additionalProperties": false
                        }
                    }
                },
                "required": ["file_path", "edits"],
                "additionalProperties": false
            }),
        ),
        (
            "Write",
            "Claude Code's Write and Gemini CLI's write_file: the whole file, created or replaced",
            json!({
                "type": "object",
                "properties": {"file_path": s(path), "content": s("The whole file")},
                "required": ["file_path", "content"],
                "additionalProperties": false
            }),
        ),
        (
            "replace",
            "Gemini CLI's replace: old_string occurs exactly expected_replacements times (default 1), all replaced",
            json!({
                "type": "object",
                "properties": {
                    "file_path": s(path),
                    "old_string": s(old),
                    "new_string": s("The text that takes its place"),
                    "expected_replacements": {"type": "integer", "minimum": 1},
                    "allow_multiple": {"type": "boolean"},
                    "instruction": s("What the edit is for")
                },
                "required": ["file_path", "old_string", "new_string"],
                "additionalProperties": false
            }),
        ),
        (
            "edit_file",
            "The MCP reference filesystem server's edit_file: edits of one file, applied in order",
            json!({
                "type": "object",
                "properties": {
                    "path": s(path),
                    "edits": {"type": "array", "minItems": 1, "items": edit_item("oldText", "newText")},
                    "dryRun": {"const": false}
                },
                "required": ["path", "edits"],
                "additionalProperties": false
            }),
        ),
        (
            "write_file",
            "The MCP reference filesystem server's write_file: the whole file, created or replaced",
            json!({
                "type": "object",
                "properties": {"path": s(path), "content": s("The whole file")},
                "required": ["path", "content"],
                "additionalProperties": false
            }),
        ),
        (
            "zed_edit_file",
            "Zed's edit_file: edits of one file, applied in order",
            json!({
                "type": "object",
                "properties": {
                    "path": s(path),
                    "edits": {"type": "array", "minItems": 1, "items": edit_item("old_text", "new_text")}
                },
                "required": ["path", "edits"],
                "additionalProperties": false
            }),
        ),
        (
            "replace_in_file",
            "Cline's replace_in_file (Roo Code's apply_diff): SEARCH/REPLACE blocks for one file",
            json!({
                "type": "object",
                "properties": {
                    "path": s(path),
                    "diff": s("One or more blocks: `<<<<<<< SEARCH` (or `------- SEARCH`), the exact lines to find, \
                               `=======`, the lines that replace them, `>>>>>>> REPLACE` (or `+++++++ REPLACE`)")
                },
                "required": ["path", "diff"],
                "additionalProperties": false
            }),
        ),
        (
            "edit_existing_file",
            "Continue's edit_existing_file: a lazy snippet of the file, merged where it fits one place only",
            json!({
                "type": "object",
                "properties": {
                    "filepath": s(path),
                    "changes": s(lazy)
                },
                "required": ["filepath", "changes"],
                "additionalProperties": false
            }),
        ),
        (
            "insert_edit_into_file",
            "GitHub Copilot's insert_edit_into_file: a lazy snippet of the file, merged where it fits one place only",
            json!({
                "type": "object",
                "properties": {
                    "explanation": s("A short explanation of the edit"),
                    "filePath": s(path),
                    "code": s(lazy)
                },
                "required": ["filePath", "code"],
                "additionalProperties": false
            }),
        ),
        (
            "apply_patch",
            "An OpenAI apply_patch operation: create_file (a diff of `+` lines), update_file (a V4A diff), delete_file",
            json!({
                "type": "object",
                "properties": {
                    "type": {"type": "string", "enum": ["create_file", "update_file", "delete_file"]},
                    "path": s(path),
                    "diff": s("create_file: every line `+`; update_file: `@@ <context line>` sections of ` `, `-` and `+` lines")
                },
                "required": ["type", "path"],
                "additionalProperties": false,
                "if": {"properties": {"type": {"enum": ["create_file", "update_file"]}}},
                "then": {"required": ["diff"]}
            }),
        ),
    ]
}

/// The schema of a tool-call patch: one call's bare arguments, or an array of them, every
/// tool's input schema under `$defs` by its name.
pub(crate) fn schema() -> Value {
    let tools = tools();
    let defs: serde_json::Map<String, Value> = tools
        .iter()
        .map(|(name, description, schema)| {
            let mut schema = schema.clone();
            schema["description"] = Value::from(*description);
            ((*name).to_owned(), schema)
        })
        .collect();
    let one: Vec<Value> = tools.iter().map(|(name, ..)| json!({"$ref": format!("#/$defs/{name}")})).collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "ToolCall",
        "description": "A tool-call patch: one edit tool call's arguments, or an array of them (one transaction). \
                        Each tool's input schema is under $defs by its name, ready to register as a tool definition.",
        "anyOf": [
            {"anyOf": one.clone()},
            {"type": "array", "minItems": 1, "items": {"anyOf": one}}
        ],
        "$defs": defs
    })
}

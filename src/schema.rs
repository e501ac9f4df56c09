//! JSON Schemas: of the report document, and of the structured dialects' input, for
//! models' structured outputs and tool calling.
//!
//! The dialect schemas are derived from the types below, which mirror the specs (the
//! parsers read the text with their own checks and do not use these types). Every object
//! refuses fields it does not list, and the rules that tie fields to an operation (an
//! Aptix `delete` has no `content`; an 'ap' `DELETE` has no `content`, a range needs both
//! snippets) are written as `if`/`then` rules. What a schema cannot say (a path that leaves
//! the root, a `find` that is not in the file) the parser and the engine still check.
//!
//! ```
//! let schema = polypatch::schema::format("aptix").unwrap();
//! assert_eq!(schema["title"], "AptixBundle");
//! assert!(polypatch::schema::format("klingon").is_none());
//! ```

#![allow(dead_code, reason = "the types exist to derive schemas; nothing builds them")]

use schemars::{JsonSchema, Schema, json_schema};
use serde_json::{Value, json};

use crate::ReportDocument;
use crate::document::closed_schema;

/// The JSON Schema of [`ReportDocument`], the document every JSON output is.
///
/// ```
/// let schema = polypatch::schema::report();
/// assert_eq!(schema["additionalProperties"], false);
/// assert!(schema["required"].as_array().unwrap().iter().any(|f| f == "version"));
/// ```
pub fn report() -> Value {
    ReportDocument::schema()
}

/// The dialects [`format()`] has a schema for: the ones written as JSON or YAML.
pub const FORMATS: &[&str] = &["aptix", "ap"];

/// The JSON Schema of the input of the dialect `name` (`aptix` or `ap`; see [`FORMATS`]).
/// An 'ap' patch is YAML: the schema describes the value the YAML reads as.
///
/// ```
/// let aptix = polypatch::schema::format("aptix").unwrap();
/// assert!(aptix.is_object());
/// assert!(polypatch::schema::format("unified").is_none()); // text, not JSON
/// ```
pub fn format(name: &str) -> Option<Value> {
    match name {
        "aptix" => Some(closed_schema(&schemars::schema_for!(AptixBundle))),
        "ap" => Some(closed_schema(&schemars::schema_for!(ApPatch))),
        _ => None,
    }
}

// ---- Aptix (APTIX_FILE_SPEC and SYS-004) ----

/// An Aptix bundle: a file bundle (top-level `files`) or a structured patch bundle
/// (top-level `patches`), never both (SYS-004 §2.2).
#[derive(JsonSchema)]
#[serde(untagged)]
enum AptixBundle {
    /// A file bundle.
    Files(FileBundle),
    /// A structured patch bundle.
    Patches(PatchBundle),
}

/// A file bundle: whole files, deletions, find/replace edits and git patches.
#[derive(JsonSchema)]
struct FileBundle {
    /// The workspace root the paths are relative to, usually `"."`.
    root: String,
    /// The file operations, applied as one transaction.
    #[schemars(length(min = 1))]
    files: Vec<FileEntry>,
}

/// One file operation (SYS-004 §3.2, §3.3).
#[derive(JsonSchema)]
#[schemars(transform = file_entry_rules)]
struct FileEntry {
    /// Relative to `root`, `/`-separated, no leading `./`, no `..`.
    #[schemars(length(min = 1))]
    path: String,
    /// What to do; absent: create or replace with `content`.
    operation: Option<Operation>,
    /// The whole new file (`create`, `replace`, no operation), or the unified diff
    /// (`gitPatch`). One JSON string, line breaks as `\n`.
    content: Option<String>,
    /// The find/replace edits of a `patch` operation, in order.
    patches: Option<Vec<Replacement>>,
}

/// An Aptix file operation.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
enum Operation {
    /// Create a new file.
    Create,
    /// Replace an existing file's content.
    Replace,
    /// Delete the file.
    Delete,
    /// Literal find/replace edits (`patches`).
    Patch,
    /// A unified diff (`content`).
    GitPatch,
}

/// SYS-004 §3.3: which fields each operation must and must not have.
fn file_entry_rules(schema: &mut Schema) {
    let op = |names: &[&str]| json!({ "properties": { "operation": { "enum": names } }, "required": ["operation"] });
    let rules = json!([
        // No operation: create or replace with content.
        { "if": { "not": { "required": ["operation"] } }, "then": { "required": ["content"], "not": { "required": ["patches"] } } },
        { "if": op(&["create", "replace", "gitPatch"]), "then": { "required": ["content"], "not": { "required": ["patches"] } } },
        { "if": op(&["delete"]), "then": { "not": { "anyOf": [ { "required": ["content"] }, { "required": ["patches"] } ] } } },
        { "if": op(&["patch"]), "then": { "required": ["patches"], "properties": { "patches": { "type": "array", "minItems": 1 } } } },
    ]);
    schema.insert("allOf".into(), rules);
}

/// One literal find/replace.
#[derive(JsonSchema)]
struct Replacement {
    /// The exact text to find, copied from the file.
    #[schemars(length(min = 1))]
    find: String,
    /// What replaces it.
    replace: String,
    /// Which occurrences: the first (`once`, the default) or every one (`all`).
    limit: Option<Limit>,
}

/// Which occurrences of `find` are replaced.
#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Limit {
    /// The first.
    Once,
    /// Every one.
    All,
}

/// A structured patch bundle: find/replace edits only.
#[derive(JsonSchema)]
struct PatchBundle {
    /// The workspace root the paths are relative to, usually `"."`.
    root: String,
    /// The edits, in order.
    #[schemars(length(min = 1))]
    patches: Vec<PatchEntry>,
}

/// One entry of a structured patch bundle: one edit (SYS-004 §4) or a file's list of
/// edits (the file spec §2.2).
#[derive(JsonSchema)]
#[serde(untagged)]
enum PatchEntry {
    /// `{path, find, replace, limit}`.
    Flat(FlatPatch),
    /// `{path, replacements: [...]}`.
    Nested(NestedPatch),
}

/// One find/replace in one file.
#[derive(JsonSchema)]
struct FlatPatch {
    /// The file, relative to `root`.
    #[schemars(length(min = 1))]
    path: String,
    /// The exact text to find, copied from the file.
    #[schemars(length(min = 1))]
    find: String,
    /// What replaces it.
    replace: String,
    /// Which occurrences: `once` (the default) or `all`.
    limit: Option<Limit>,
}

/// A file's find/replace edits.
#[derive(JsonSchema)]
struct NestedPatch {
    /// The file, relative to `root`.
    #[schemars(length(min = 1))]
    path: String,
    /// The edits, in order.
    #[schemars(length(min = 1))]
    replacements: Vec<Replacement>,
}

// ---- 'ap' YAML v2.0 ----

/// An 'ap' v2.0 patch (its spec §2.2).
#[derive(JsonSchema)]
struct ApPatch {
    /// The format version: the string `"2.0"`.
    #[schemars(schema_with = "ap_version")]
    version: String,
    /// One entry per file.
    changes: Vec<ApChange>,
}

fn ap_version(_: &mut schemars::SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "const": "2.0" })
}

/// The modifications of one file (§2.3).
#[derive(JsonSchema)]
struct ApChange {
    /// The file, relative to the patch file's folder; no `..`.
    #[schemars(length(min = 1))]
    file_path: String,
    /// The modifications, applied in order.
    #[schemars(length(min = 1))]
    modifications: Vec<ApModification>,
    /// The line ending of a file `CREATE_FILE` makes.
    newline: Option<ApNewline>,
}

/// The line ending of a created file.
#[derive(JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
enum ApNewline {
    /// `\n`
    Lf,
    /// `\r\n`
    Crlf,
    /// `\r`
    Cr,
}

/// One modification (§2.4): a point change (`snippet`) or a range (`start_snippet` …
/// `end_snippet`), optionally narrowed by an `anchor`.
#[derive(JsonSchema)]
#[schemars(transform = ap_modification_rules)]
struct ApModification {
    /// The operation.
    action: ApAction,
    /// The whole lines to find, for a point change.
    snippet: Option<String>,
    /// The first lines of a range (`REPLACE`, `DELETE`).
    start_snippet: Option<String>,
    /// The last lines of a range, the first such after `start_snippet`.
    end_snippet: Option<String>,
    /// The new code, without the file's indentation (not for `DELETE`).
    content: Option<String>,
    /// Unique lines before the target; the search starts after them.
    anchor: Option<String>,
    /// Up to this many blank lines before the target join it.
    include_leading_blank_lines: Option<u32>,
    /// Up to this many blank lines after the target join it.
    include_trailing_blank_lines: Option<u32>,
}

/// An 'ap' action.
#[derive(JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum ApAction {
    /// Replace the snippet or range with `content`.
    Replace,
    /// Insert `content` after the snippet.
    InsertAfter,
    /// Insert `content` before the snippet.
    InsertBefore,
    /// Remove the snippet or range.
    Delete,
    /// Create the file with `content`.
    CreateFile,
}

/// §2.4: `snippet` or the pair, which actions take which, and `content`.
fn ap_modification_rules(schema: &mut Schema) {
    let action = |names: &[&str]| json!({ "properties": { "action": { "enum": names } } });
    let locators = [
        "snippet",
        "start_snippet",
        "end_snippet",
        "anchor",
        "include_leading_blank_lines",
        "include_trailing_blank_lines",
    ];
    let no_locator: Vec<Value> = locators.iter().map(|k| json!({ "required": [k] })).collect();
    let rules = json!([
        { "if": action(&["REPLACE", "INSERT_AFTER", "INSERT_BEFORE", "CREATE_FILE"]), "then": { "required": ["content"] } },
        { "if": action(&["DELETE"]), "then": { "not": { "required": ["content"] } } },
        { "if": action(&["INSERT_AFTER", "INSERT_BEFORE"]), "then": { "required": ["snippet"] } },
        { "if": action(&["REPLACE", "DELETE"]), "then": { "oneOf": [
            { "required": ["snippet"], "not": { "anyOf": [ { "required": ["start_snippet"] }, { "required": ["end_snippet"] } ] } },
            { "required": ["start_snippet", "end_snippet"], "not": { "required": ["snippet"] } },
        ] } },
        { "if": action(&["CREATE_FILE"]), "then": { "not": { "anyOf": no_locator } } },
    ]);
    schema.insert("allOf".into(), rules);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_format_has_a_schema_and_others_none() {
        for name in FORMATS {
            let schema = format(name).unwrap();
            assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema", "{name}");
        }
        assert!(format("unified").is_none());
    }
}

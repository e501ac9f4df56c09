//! The JSON Schema of an Aptix bundle ([`Aptix::schema`](crate::Aptix)), derived from the
//! types below, which mirror the specs (the parser reads the text with its own checks and
//! does not use them). Every object refuses fields it does not list, and the rules that tie
//! fields to an operation (a `delete` has no `content`, a `patch` has `patches`) are
//! written as `if`/`then` rules. What a schema cannot say (a path that leaves the root, a
//! `find` that is not in the file) the parser and the engine still check.

#![allow(dead_code, reason = "the types exist to derive schemas; nothing builds them")]

use schemars::{JsonSchema, Schema};
use serde_json::json;

/// The schema of [`AptixBundle`], every object closed.
pub(crate) fn schema() -> serde_json::Value {
    polypatch_core::closed_schema(&schemars::schema_for!(AptixBundle))
}

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

//! The JSON Schema of an 'ap' patch ([`Ap::schema`](crate::Ap)): the value its YAML reads
//! as, derived from the types below, which mirror the spec (the parser reads the text with
//! its own checks and does not use them). Every object refuses fields it does not list,
//! and the rules that tie fields to an action (a `DELETE` has no `content`, a range needs
//! both snippets) are written as `if`/`then` rules.

#![allow(dead_code, reason = "the types exist to derive schemas; nothing builds them")]

use schemars::{JsonSchema, Schema, json_schema};
use serde_json::{Value, json};

/// The schema of [`ApPatch`], every object closed.
pub(crate) fn schema() -> Value {
    polypatch_core::closed_schema(&schemars::schema_for!(ApPatch))
}

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

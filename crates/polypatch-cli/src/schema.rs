//! `schema`: print a JSON Schema.

use anyhow::anyhow;

use crate::cli::SchemaArgs;
use crate::inout::{Exit, stderr, stdout};
use crate::output;

/// `--report`: the schema of the JSON report; `--format aptix|ap`: of that dialect's
/// patches. An unknown format is a usage error listing the known ones.
pub fn run(args: &SchemaArgs) -> Exit {
    let schema = match &args.format {
        None => polypatch::schema::report(),
        Some(name) => {
            let Some(schema) = polypatch::schema::format(name) else {
                let known = polypatch::schema::FORMATS.join(", ");
                stderr(&output::usage_text(&anyhow!("no schema for format `{name}`; formats with a schema: {known}")));
                return Exit::Invalid;
            };
            schema
        }
    };
    let text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    stdout(&format!("{text}\n"));
    Exit::Success
}

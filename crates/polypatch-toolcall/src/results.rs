//! polypatch's report, handed back as one result per call in the caller's own shape.

use std::fmt::Write as _;
use std::str::FromStr;

use polypatch_core::{ApplyReport, FileOperation, FileReport, PatchError, Status};
use serde_json::{Value, json};

use crate::syntax::{Calls, Wrapper};

/// Whose result shape the answers take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResultShape {
    /// `{"type": "tool_result", "tool_use_id", "content", "is_error"}` (Anthropic).
    Anthropic,
    /// `{"type": "function_call_output", "call_id", "output"}`, or for an
    /// `apply_patch_call` `{"type": "apply_patch_call_output", "call_id", "status",
    /// "output"}` (`OpenAI`).
    OpenAi,
    /// `{"content": [{"type": "text", "text"}], "isError"}` (an MCP tool's result).
    Mcp,
}

impl ResultShape {
    /// The names [`FromStr`] reads: `anthropic`, `openai`, `mcp`.
    pub const NAMES: &'static [&'static str] = &["anthropic", "openai", "mcp"];
}

impl FromStr for ResultShape {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "anthropic" => Ok(ResultShape::Anthropic),
            "openai" => Ok(ResultShape::OpenAi),
            "mcp" => Ok(ResultShape::Mcp),
            other => Err(format!("unknown result shape `{other}`: {}", ResultShape::NAMES.join(", "))),
        }
    }
}

/// One result per call of `calls`, in order, from the report of applying their plan
/// ([`lower`](crate::lower()): the report's `files[i]` is call `i + 1`). A call's text says
/// what changed (per edit, the lines and the tier when not exact), or, on failure,
/// polypatch's report for the model (what was not found, the closest candidate, the next
/// step). When any call failed, every call's result is an error that says nothing was
/// written (the calls are one transaction).
pub fn results(calls: &Calls, report: &ApplyReport, shape: ResultShape) -> Vec<Value> {
    let failed: Vec<usize> =
        report.files.iter().enumerate().filter(|(_, f)| !f.status.is_success()).map(|(i, _)| i + 1).collect();
    let written = report.committed && failed.is_empty();
    calls
        .calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let file = report.files.get(i);
            let (text, is_error) = match file {
                Some(file) if !file.status.is_success() => (failure_text(file, &failed), true),
                Some(_) if !failed.is_empty() => (
                    format!(
                        "Not applied: call {} failed, and this turn's calls apply all or nothing, so nothing was \
                         written. Send this call again together with the fixed one.",
                        failed[0]
                    ),
                    true,
                ),
                Some(file) => (success_text(file, written, report.dry_run), !written && !report.dry_run),
                None => ("Not applied: polypatch reported nothing for this call.".to_owned(), true),
            };
            result(shape, call.wrapper, call.id.as_deref(), &text, is_error)
        })
        .collect()
}

/// The results for calls that could not be read: the parse error for each call whose
/// wrapper and id can still be read from `text` (one result without an id when none can).
pub fn error_results(text: &str, error: &PatchError, shape: ResultShape) -> Vec<Value> {
    let message = format!("Not applied: the tool call could not be read: {}. Nothing was written.", error.message);
    let ids: Vec<(Wrapper, String)> = crate::syntax::extract(text)
        .and_then(|span| serde_json::from_str::<Value>(&text[span.start..span.end]).ok())
        .map_or_else(Vec::new, |value| match value {
            Value::Array(items) => items.into_iter().filter_map(|v| id_of(&v)).collect(),
            one => id_of(&one).into_iter().collect(),
        });
    if ids.is_empty() {
        return vec![result(shape, Wrapper::Bare, None, &message, true)];
    }
    ids.into_iter().map(|(wrapper, id)| result(shape, wrapper, Some(&id), &message, true)).collect()
}

/// A wrapped call's wrapper and id.
fn id_of(value: &Value) -> Option<(Wrapper, String)> {
    let get = |k: &str| value.get(k).and_then(Value::as_str).map(str::to_owned);
    match value.get("type").and_then(Value::as_str)? {
        "tool_use" => Some((Wrapper::ToolUse, get("id")?)),
        "apply_patch_call" => Some((Wrapper::ApplyPatchCall, get("call_id").or_else(|| get("id"))?)),
        "function_call" | "function" => Some((Wrapper::FunctionCall, get("call_id").or_else(|| get("id"))?)),
        _ => None,
    }
}

fn result(shape: ResultShape, wrapper: Wrapper, id: Option<&str>, text: &str, is_error: bool) -> Value {
    match shape {
        ResultShape::Anthropic => {
            json!({"type": "tool_result", "tool_use_id": id, "content": text, "is_error": is_error})
        }
        ResultShape::OpenAi if wrapper == Wrapper::ApplyPatchCall => json!({
            "type": "apply_patch_call_output",
            "call_id": id,
            "status": if is_error { "failed" } else { "completed" },
            "output": text,
        }),
        ResultShape::OpenAi => json!({"type": "function_call_output", "call_id": id, "output": text}),
        ResultShape::Mcp => json!({"content": [{"type": "text", "text": text}], "isError": is_error}),
    }
}

fn success_text(file: &FileReport, written: bool, dry_run: bool) -> String {
    let head = if written {
        "Applied"
    } else if dry_run {
        "Checked, not written (a dry run)"
    } else {
        "Not applied: the change was computed but writing it failed; nothing was written"
    };
    let what = match (file.operation, file.status) {
        (_, Status::AlreadyApplied) if file.edits.is_empty() => "already as asked, nothing changed".to_owned(),
        (FileOperation::Create, _) => "created".to_owned(),
        (FileOperation::Replace, _) => "whole content replaced".to_owned(),
        (FileOperation::Delete, _) => "deleted".to_owned(),
        _ => {
            let mut parts = Vec::new();
            for edit in &file.edits {
                let mut s = if edit.label.is_empty() { format!("edit {}", edit.index) } else { edit.label.clone() };
                match edit.status {
                    Status::AlreadyApplied => s.push_str(" already applied"),
                    _ => s.push_str(" replaced"),
                }
                if let Some(lines) = edit.lines {
                    let _ = write!(s, " at {lines}");
                }
                if let Some(tier) = edit.tier.filter(|t| *t != polypatch_core::Tier::Exact) {
                    let _ = write!(s, " (matched at the {tier} tier)");
                }
                for note in &edit.notes {
                    let _ = write!(s, "; note: {note}");
                }
                parts.push(s);
            }
            parts.join("; ")
        }
    };
    format!("{head}: {}: {what}.", file.path)
}

fn failure_text(file: &FileReport, failed: &[usize]) -> String {
    let mut text = format!("Failed: {}", file.path);
    if let Some(f) = &file.failure {
        let _ = write!(text, ": {f}");
    }
    for edit in &file.edits {
        if let Some(f) = &edit.failure {
            let label = if edit.label.is_empty() { format!("edit {}", edit.index) } else { edit.label.clone() };
            let _ = write!(text, "\n{label}: {f}");
        }
    }
    let others = if failed.len() > 1 { format!(" ({} calls failed)", failed.len()) } else { String::new() };
    let _ = write!(
        text,
        "\nNothing was written{others}: this turn's calls apply all or nothing. Fix this call and send every call of \
         the turn again."
    );
    text
}

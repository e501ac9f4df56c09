//! The changes written as an array of tool calls: Claude Code `MultiEdit` calls
//! (`file_path`, `edits[{old_string, new_string}]`) whose old strings each occur once in the
//! file as the edits before them left it, Write calls (`file_path`, `content`) for new files
//! and where no such edits exist, and `delete_file` operations. A rename is a delete of the
//! old path and a Write of the new one. Binary content and modes have no tool call: they
//! are refused.

use polypatch_core::render::hunks;
use polypatch_core::render::{FileDelta, refuse, text, texts};
use polypatch_core::{Operation, RenderError};

use crate::error::DIALECT;

pub(crate) fn render(deltas: &[FileDelta], plain: bool) -> Result<String, RenderError> {
    let mut calls = Vec::new();
    for delta in deltas {
        if delta.after.is_none() {
            // A deletion names the file only, whatever it holds.
            calls.push(format!("  {{\"type\": \"delete_file\", \"path\": {}}}", json(&delta.path)));
            continue;
        }
        let binary = [&delta.before, &delta.after].iter().any(|s| s.as_ref().is_some_and(|s| text(&s.bytes).is_none()));
        if binary {
            return Err(refuse(DIALECT, Operation::Binary, delta, "a tool call carries text only"));
        }
        if delta.mode_changes() {
            return Err(refuse(DIALECT, Operation::Mode, delta, "no edit tool sets a file's mode"));
        }
        if delta.renamed_to.is_some() {
            calls.push(format!("  {{\"type\": \"delete_file\", \"path\": {}}}", json(&delta.path)));
        }
        let path = delta.new_path();
        let (before, after) = texts(delta);
        let created = delta.before.is_none() || delta.renamed_to.is_some();
        let edits = if created || plain { None } else { edits(before, after) };
        calls.push(match edits {
            Some(edits) => format!("  {{\n    \"file_path\": {},\n    \"edits\": [\n{edits}\n    ]\n  }}", json(path)),
            None => format!("  {{\n    \"file_path\": {},\n    \"content\": {}\n  }}", json(path), json(after)),
        });
    }
    if calls.is_empty() {
        return Ok(String::new());
    }
    Ok(format!("[\n{}\n]\n", calls.join(",\n")))
}

fn json(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// One edit per hunk, each old string (whole lines with their terminators) occurring once
/// where it is applied. `None` when some hunk has none.
fn edits(before: &str, after: &str) -> Option<String> {
    let items: Vec<String> = hunks::unique_text_pairs(before, after)?
        .iter()
        .map(|(find, replace)| format!("      {{\"old_string\": {}, \"new_string\": {}}}", json(find), json(replace)))
        .collect();
    Some(items.join(",\n"))
}

#[cfg(test)]
mod tests {
    use polypatch_core::render::Side;
    use polypatch_core::{ApplyOptions, Dialect, MemoryFileSet, RenderOptions, apply};

    use crate::ToolCall;

    use super::*;

    fn side(bytes: &[u8]) -> Side {
        Side::new(bytes.to_vec(), None)
    }

    #[test]
    fn a_change_is_edits_that_occur_once_and_a_rename_a_delete_and_a_write() {
        let before = "a\nb\nc\nb\n";
        let after = "a\nB\nc\nb\n";
        let changed = FileDelta::new("f.txt", Some(side(before.as_bytes())), Some(side(after.as_bytes())));
        let moved = FileDelta::new("t.txt", Some(side(b"x\n")), Some(side(b"y\n"))).renamed_to("u.txt");
        let text = ToolCall.render(&[changed, moved], &RenderOptions::default()).unwrap();
        assert_eq!(
            text,
            "[\n  {\n    \"file_path\": \"f.txt\",\n    \"edits\": [\n      {\"old_string\": \"a\\nb\\nc\\n\", \
             \"new_string\": \"a\\nB\\nc\\n\"}\n    ]\n  },\n  {\"type\": \"delete_file\", \"path\": \"t.txt\"},\n  \
             {\n    \"file_path\": \"u.txt\",\n    \"content\": \"y\\n\"\n  }\n]\n"
        );
        let mut files = MemoryFileSet::new().with("f.txt", before).with("t.txt", "x\n");
        apply(&ToolCall.parse(&text).unwrap(), &mut files, &ApplyOptions::default().strict(true)).unwrap();
        assert_eq!(
            (files.get_str("f.txt"), files.get_str("t.txt"), files.get_str("u.txt")),
            (Some(after), None, Some("y\n"))
        );
        let binary = FileDelta::new("b.bin", None, Some(side(b"\x00\x01")));
        let err = ToolCall.render(&[binary], &RenderOptions::default()).unwrap_err();
        assert_eq!(err.operation(), Some(Operation::Binary));
    }
}

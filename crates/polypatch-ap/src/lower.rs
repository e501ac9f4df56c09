//! Lowering a checked [`Patch`] into polypatch's [`EditPlan`] (the table in the crate
//! docs).

use polypatch_core::{
    Action, Anchor, Content, Edit, EditPlan, FileEdit, FileOp, IfExists, Indent, Missing, Modify, Occurrence, Policy,
    PostProcess, Replacement, Scope, Target, Tier, TierSet,
};

use crate::error::DIALECT;
use crate::syntax::{ActionKind, Change, Locator, Modification, Patch, Text};

/// Lowers a patch: one file operation per change (a `CREATE_FILE` is its own operation,
/// and the modifications after it a following one on the same path), in order.
pub fn lower(patch: &Patch) -> EditPlan {
    let mut files = Vec::new();
    for change in &patch.changes {
        let mut pending = Vec::new();
        for m in &change.modifications {
            if m.action == ActionKind::CreateFile {
                flush(&mut files, change, &mut pending);
                let content = m.content.as_ref().map_or(String::new(), |t| t.value.clone());
                files.push(FileEdit {
                    path: change.file_path.clone(),
                    op: FileOp::Create {
                        content: Content::Text(content),
                        newline: change.newline,
                        if_exists: IfExists::ErrorUnlessIdentical,
                        mode: None,
                    },
                    span: Some(change.span),
                });
            } else {
                pending.push(edit(change, m));
            }
        }
        flush(&mut files, change, &mut pending);
    }
    EditPlan::new(DIALECT, files).with_warnings(patch.warnings.clone())
}

/// The located modifications gathered so far, as one modify operation.
fn flush(files: &mut Vec<FileEdit>, change: &Change, pending: &mut Vec<Edit>) {
    if pending.is_empty() {
        return;
    }
    files.push(FileEdit {
        path: change.file_path.clone(),
        op: FileOp::Modify(Modify {
            edits: std::mem::take(pending),
            post: PostProcess { strip_trailing_whitespace: true },
            ..Modify::default()
        }),
        span: Some(change.span),
    });
}

/// One located modification as an edit.
fn edit(change: &Change, m: &Modification) -> Edit {
    let content = m.content.as_ref().map(Text::lines).unwrap_or_default();
    let target = match &m.locator {
        Some(Locator::Snippet(s)) => Target::Lines(s.lines()),
        Some(Locator::Range { start, end }) => Target::Range { start: start.lines(), end: end.lines() },
        None => unreachable!("only CREATE_FILE has no locator, and it is lowered on its own"),
    };
    let action = match m.action {
        ActionKind::Replace => Action::Replace(Replacement::lines(content)),
        ActionKind::InsertAfter => Action::InsertAfter { lines: content },
        ActionKind::InsertBefore => Action::InsertBefore { lines: content },
        ActionKind::Delete | ActionKind::CreateFile => Action::Delete,
    };
    let delete = m.action == ActionKind::Delete;
    Edit {
        target,
        action,
        scope: Scope {
            anchor: m.anchor.as_ref().map(|a| Anchor { lines: a.lines(), unique: true }),
            ..Scope::default()
        },
        policy: Policy {
            // Whole lines only (§3.2): no prefix matching, even of a one-line anchor.
            // DELETE never fuzzily: a re-run would delete a sibling that resembles the
            // snippet. Look-alike characters folded are exact enough.
            tiers: if delete {
                TierSet::only(Tier::Trimmed).with(Tier::Unicode)
            } else {
                TierSet::range(Tier::Trimmed, Tier::Fuzzy).without(Tier::Prefix)
            },
            occurrence: if m.anchor.is_some() { Occurrence::FirstAfterAnchor } else { Occurrence::Unique },
            ignore_blank_lines: true,
            if_missing: if delete { Missing::AlreadyApplied } else { Missing::Error },
            // §3.3, whatever the snippet's indentation in the YAML: the content gets the
            // snippet's first line's file indentation, unless it already carries it.
            indent: Indent::ToTargetFirstLine,
            detect_already_applied: true,
            leading_blank_lines: m.leading_blank_lines,
            trailing_blank_lines: m.trailing_blank_lines,
            ..Policy::default()
        },
        label: format!("change {} modification {}", change.index, m.index),
        span: Some(m.span),
    }
}

#[cfg(test)]
mod tests;

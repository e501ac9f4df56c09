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
                files.push(
                    FileEdit::new(
                        change.file_path.clone(),
                        FileOp::Create {
                            content: Content::Text(content),
                            newline: change.newline,
                            if_exists: IfExists::ErrorUnlessIdentical,
                            mode: None,
                        },
                    )
                    .with_span(change.span),
                );
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
    files.push(
        FileEdit::new(
            change.file_path.clone(),
            FileOp::Modify({
                let mut modify = Modify::new(std::mem::take(pending));
                modify.post = PostProcess::strip_trailing_whitespace();
                modify
            }),
        )
        .with_span(change.span),
    );
}

/// One located modification as an edit.
fn edit(change: &Change, m: &Modification) -> Edit {
    let content = m.content.as_ref().map(Text::line_texts).unwrap_or_default();
    let target = match &m.locator {
        Some(Locator::Snippet(s)) => Target::Lines(s.line_texts()),
        Some(Locator::Range { start, end }) => Target::Range { start: start.line_texts(), end: end.line_texts() },
        None => unreachable!("only CREATE_FILE has no locator, and it is lowered on its own"),
    };
    let action = match m.action {
        ActionKind::Replace => Action::Replace(Replacement::lines(content)),
        ActionKind::InsertAfter => Action::InsertAfter { lines: content },
        ActionKind::InsertBefore => Action::InsertBefore { lines: content },
        ActionKind::Delete | ActionKind::CreateFile => Action::Delete,
    };
    let delete = m.action == ActionKind::Delete;
    // Whole lines only (§3.2): no prefix matching, even of a one-line anchor. DELETE never
    // fuzzily: a re-run would delete a sibling that resembles the snippet. Look-alike
    // characters folded are exact enough.
    let tiers = if delete {
        TierSet::only(Tier::Trimmed).with(Tier::Unicode)
    } else {
        TierSet::range(Tier::Trimmed, Tier::Fuzzy).without(Tier::Prefix)
    };
    let mut policy = Policy::default()
        .with_tiers(tiers)
        .with_occurrence(if m.anchor.is_some() { Occurrence::FirstAfterAnchor } else { Occurrence::Unique })
        .with_if_missing(if delete { Missing::AlreadyApplied } else { Missing::Error })
        // §3.3, whatever the snippet's indentation in the YAML: the content gets the
        // snippet's first line's file indentation, unless it already carries it.
        .with_indent(Indent::ToTargetFirstLine);
    policy.ignore_blank_lines = true;
    policy.detect_already_applied = true;
    policy.leading_blank_lines = m.leading_blank_lines;
    policy.trailing_blank_lines = m.trailing_blank_lines;
    Edit::new(target, action)
        .with_scope(match &m.anchor {
            Some(a) => Scope::default().with_anchor(Anchor::new(a.line_texts(), true)),
            None => Scope::default(),
        })
        .with_policy(policy)
        .with_label(format!("change {} modification {}", change.index, m.index))
        .with_span(m.span)
}

#[cfg(test)]
mod tests;

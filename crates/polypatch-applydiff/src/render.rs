//! `ApplyDiff` v3.0: a `>>> file:` block per hunk whose `--- from` lines occur once in the
//! file as the blocks before it left it, or one `mode=replace` block with the whole file.
//!
//! The format has no escape: a line that is exactly `<` or `<<<`, `--- from` or `--- to`, or
//! that starts with `>>> file:` cannot be written inside a block. A file whose hunks would
//! hold such a line is written whole (`mode=replace`) when its new content has none; else
//! the conversion is refused. Deleting and renaming files, modes and binary content are
//! not in the spec.

use std::fmt::Write as _;

use polypatch_core::render::hunks::{self, Hunk, body, split};
use polypatch_core::render::{FileDelta, Operation, RenderError, keeps_ends, refuse, text_only, texts, unmarked};

use crate::error::DIALECT;

pub(crate) fn render(deltas: &[FileDelta], context: usize) -> Result<String, RenderError> {
    let mut out = String::new();
    for delta in deltas {
        text_only(DIALECT, delta, false, false)?;
        let (before, after) = texts(delta);
        if delta.before.is_none() {
            no_marker(delta, after)?;
            block(&mut out, &delta.path, "", &[], &split(after));
            continue;
        }
        keeps_ends(DIALECT, delta, before, after)?;
        let (before, after) = (unmarked(before), unmarked(after));
        let old = split(before);
        let new = split(after);
        let accept = |hunks: &[Hunk], i: usize| hunks::old_side_unique(&old, &new, hunks, i);
        let planned = hunks::plan(&old, &new, context, accept).ok().filter(|planned| {
            planned.iter().all(|h| !old[h.old.clone()].iter().chain(&new[h.new.clone()]).any(|l| is_marker(body(l))))
        });
        if let Some(planned) = planned {
            for h in &planned {
                block(&mut out, &delta.path, "", &old[h.old.clone()], &new[h.new.clone()]);
            }
        } else {
            no_marker(delta, after)?;
            block(&mut out, &delta.path, " | mode=replace", &[], &new);
        }
    }
    Ok(out)
}

/// One block.
fn block(out: &mut String, path: &str, options: &str, from: &[&str], to: &[&str]) {
    let _ = writeln!(out, ">>> file: {path}{options}\n--- from");
    for line in from {
        let _ = writeln!(out, "{}", body(line));
    }
    out.push_str("--- to\n");
    for line in to {
        let _ = writeln!(out, "{}", body(line));
    }
    out.push_str("<\n");
}

/// Whether a line reads as one of the format's markers.
fn is_marker(line: &str) -> bool {
    matches!(line.trim_end(), "<" | "<<<" | "--- from" | "--- to") || line.trim_start().starts_with(">>> file:")
}

/// Refuses a content that holds a marker line.
fn no_marker(delta: &FileDelta, content: &str) -> Result<(), RenderError> {
    match split(content).iter().position(|l| is_marker(body(l))) {
        None => Ok(()),
        Some(n) => Err(refuse(
            DIALECT,
            Operation::MarkerLine,
            delta,
            &format!("its line {} reads as a marker of the format, which has no way to escape it", n + 1),
        )),
    }
}

#[cfg(test)]
mod tests {
    use polypatch_core::render::Side;
    use polypatch_core::{Dialect, RenderOptions};

    use super::*;
    use crate::ApplyDiff;

    fn side(text: &str) -> Side {
        Side::new(text.as_bytes().to_vec(), None)
    }

    #[test]
    fn a_file_is_written_whole_when_a_hunk_would_hold_a_marker_line() {
        let delta = FileDelta::new("m.txt", Some(side("<\nb\n")), Some(side("x\nb\n")));
        let text = ApplyDiff.render(&[delta], &RenderOptions::default()).unwrap();
        assert_eq!(text, ">>> file: m.txt | mode=replace\n--- from\n--- to\nx\nb\n<\n");
        // The new content itself holds the marker: nothing can carry it.
        let created = FileDelta::new("n.txt", None, Some(side("--- to\n")));
        let err = ApplyDiff.render(&[created], &RenderOptions::default()).unwrap_err();
        assert_eq!(err.operation(), Some(Operation::MarkerLine));
        assert_eq!(
            err.to_string(),
            "applydiff cannot express a line that is one of its markers (`n.txt`): its line 1 reads as a marker of \
             the format, which has no way to escape it"
        );
    }

    #[test]
    fn deleting_and_renaming_are_refused() {
        let deleted = FileDelta::new("gone.txt", Some(side("x\n")), None);
        let err = ApplyDiff.render(&[deleted], &RenderOptions::default()).unwrap_err();
        assert_eq!(err.operation(), Some(Operation::Delete));
        let moved = FileDelta::new("t.txt", Some(side("a\n")), Some(side("b\n"))).renamed_to("u.txt");
        let err = ApplyDiff.render(&[moved], &RenderOptions::default()).unwrap_err();
        assert_eq!(err.operation(), Some(Operation::Rename));
    }
}

//! AI-PATCH (`*** Begin Patch`): `Add File`, `Delete File`, `Update File` with `Move to`,
//! and hunks whose context makes each one's place certain.
//!
//! An update's first hunk must occur once in the file; each later one must occur first
//! after the hunk before it (the dialect's in-order search). Where it does not, a scope
//! line (`@@ <line>`) is written when a line above the hunk occurs once in the file and the
//! hunk occurs first after it; otherwise context is added. A hunk that ends the file is
//! closed with `*** End of File`, so that blank lines there stay context; elsewhere a hunk
//! never ends in a blank line (AI-PATCH reads such lines as separators).

use std::fmt::Write as _;

use polypatch_core::render::hunks::{self, Hunk, Mark, body, occurrences, split};
use polypatch_core::render::{FileDelta, Operation, RenderError, keeps_ends, refuse, text_only, texts, unmarked};

use crate::error::DIALECT;

/// `scopes`: whether `@@ <line>` scope lines may stand in for more context.
pub(crate) fn render(deltas: &[FileDelta], context: usize, scopes: bool) -> Result<String, RenderError> {
    let mut out = String::from("*** Begin Patch\n");
    for delta in deltas {
        text_only(DIALECT, delta, true, true)?;
        let (before, after) = texts(delta);
        match (&delta.before, &delta.after) {
            (None, _) => {
                let _ = writeln!(out, "*** Add File: {}", delta.path);
                for line in split(after) {
                    let _ = writeln!(out, "+{}", body(line));
                }
            }
            (Some(_), None) => {
                let _ = writeln!(out, "*** Delete File: {}", delta.path);
            }
            (Some(_), Some(_)) if before.is_empty() && after.is_empty() => {
                // An empty file moved: an update needs a hunk, and there is no line for one.
                let to = delta.new_path();
                let _ = writeln!(out, "*** Delete File: {}\n*** Add File: {to}", delta.path);
            }
            (Some(_), Some(_)) => {
                keeps_ends(DIALECT, delta, before, after)?;
                let _ = writeln!(out, "*** Update File: {}", delta.path);
                if let Some(to) = &delta.renamed_to {
                    let _ = writeln!(out, "*** Move to: {to}");
                }
                update(&mut out, delta, unmarked(before), unmarked(after), context, scopes)?;
            }
        }
    }
    out.push_str("*** End Patch\n");
    Ok(out)
}

/// The hunks of an update.
fn update(
    out: &mut String,
    delta: &FileDelta,
    before: &str,
    after: &str,
    context: usize,
    scopes: bool,
) -> Result<(), RenderError> {
    let old = split(before);
    let new = split(after);
    let bodies: Vec<&str> = old.iter().map(|l| body(l)).collect();
    let accept = |hunks: &[Hunk], i: usize| {
        let h = &hunks[i];
        if h.old.is_empty() {
            // Added lines only: they go at the end of the file, which is right for an
            // empty one.
            return old.is_empty();
        }
        let ends_file = h.old.end == old.len();
        if !ends_file && h.trail > 0 && bodies[h.old.end - 1].trim().is_empty() {
            return false;
        }
        located(&bodies, hunks, i) || (scopes && scope(&bodies, hunks, i).is_some())
    };
    let planned = if old == new {
        // A move without a change: one context-only hunk, so the update has a body.
        context_only(&old, &bodies)
    } else {
        hunks::plan(&old, &new, context, accept).ok()
    };
    let Some(planned) = planned else {
        return Err(refuse(
            DIALECT,
            Operation::Edit,
            delta,
            "no hunk of its lines occurs in one place only (the file repeats itself throughout)",
        ));
    };
    for (i, h) in planned.iter().enumerate() {
        match scope(&bodies, &planned, i).filter(|_| scopes && !located(&bodies, &planned, i)) {
            Some(k) => {
                let _ = writeln!(out, "@@ {}", bodies[k]);
            }
            None => out.push_str("@@\n"),
        }
        for (mark, line) in hunks::lines(&old, &new, h) {
            let sign = match mark {
                Mark::Keep => ' ',
                Mark::Remove => '-',
                Mark::Add => '+',
            };
            let _ = writeln!(out, "{sign}{}", body(line));
        }
        if h.old.end == old.len() && !old.is_empty() {
            out.push_str("*** End of File\n");
        }
    }
    Ok(())
}

/// The shortest run of first lines that occurs once, as a hunk of context only.
fn context_only(old: &[&str], bodies: &[&str]) -> Option<Vec<Hunk>> {
    (1..=old.len())
        .find(|&n| {
            let ends_file = n == old.len();
            (ends_file || !bodies[n - 1].trim().is_empty())
                && occurrences(bodies, &bodies[..n], |a, b| a == b).len() == 1
        })
        .map(|n| vec![Hunk { old: 0..n, new: 0..n, lead: n, trail: 0 }])
}

/// Whether a plain `@@` finds hunk `i`: the first hunk occurs once, a later one occurs first
/// after the hunk before it.
fn located(bodies: &[&str], hunks: &[Hunk], i: usize) -> bool {
    let h = &hunks[i];
    let places = occurrences(bodies, &bodies[h.old.clone()], |a, b| a == b);
    match i.checked_sub(1) {
        None => places.len() == 1,
        Some(prev) => places.iter().find(|&&p| p >= hunks[prev].old.end) == Some(&h.old.start),
    }
}

/// The nearest line above hunk `i` (after the hunk before it) that occurs once in the file,
/// after which the hunk occurs first: a scope line (`@@ <line>`) that places the hunk. Lines
/// that would read as another header (`@@ :N`, `@@ -a,b +c,d @@`) or are blank are not used.
fn scope(bodies: &[&str], hunks: &[Hunk], i: usize) -> Option<usize> {
    let h = &hunks[i];
    let from = i.checked_sub(1).map_or(0, |prev| hunks[prev].old.end);
    let block = &bodies[h.old.clone()];
    (from..h.old.start).rev().find(|&k| {
        let line = bodies[k];
        let usable = !line.trim().is_empty()
            && !line.starts_with([':', '-', '+', ' ', '\t'])
            && !line.contains("@@")
            && line.trim_end() == line;
        usable
            && bodies.iter().filter(|l| **l == line).count() == 1
            && occurrences(&bodies[k + 1..], block, |a, b| a == b).first().map(|p| p + k + 1) == Some(h.old.start)
    })
}

#[cfg(test)]
mod tests {
    use polypatch_core::render::Side;
    use polypatch_core::{ApplyOptions, Dialect, MemoryFileSet, RenderOptions, apply};

    use super::*;
    use crate::AiPatch;

    fn changed(path: &str, before: &str, after: &str) -> FileDelta {
        let side = |text: &str| Some(Side::new(text.as_bytes().to_vec(), None));
        FileDelta::new(path, side(before), side(after))
    }

    #[test]
    fn a_repeated_hunk_is_scoped_by_a_unique_line_above_it() {
        let block = "    if x {\n        return;\n    }\n";
        let before = format!("fn a() {{\n{block}}}\nfn b() {{\n{block}}}\n");
        let after = format!("fn a() {{\n{block}}}\nfn b() {{\n{}}}\n", block.replace("return;", "return 1;"));
        let text = AiPatch.render(&[changed("s.rs", &before, &after)], &RenderOptions::default().context(1)).unwrap();
        assert_eq!(
            text,
            "*** Begin Patch\n*** Update File: s.rs\n@@ fn b() {\n     if x {\n-        return;\n+        return 1;\n     }\n\
             *** End Patch\n"
        );
        let plan = AiPatch.parse(&text).unwrap();
        let mut files = MemoryFileSet::new().with("s.rs", before.as_str());
        apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
        assert_eq!(files.get_str("s.rs"), Some(after.as_str()));
        // The plain form has no scope line: more context instead.
        let plain = AiPatch
            .render(&[changed("s.rs", &before, &after)], &RenderOptions::default().context(1).plain(true))
            .unwrap();
        assert!(plain.contains("\n@@\n") && !plain.contains("@@ fn b"), "{plain}");
    }

    #[test]
    fn an_empty_file_moves_as_a_delete_and_an_add() {
        let delta = changed("e.txt", "", "").renamed_to("f.txt");
        let text = AiPatch.render(&[delta], &RenderOptions::default()).unwrap();
        assert_eq!(text, "*** Begin Patch\n*** Delete File: e.txt\n*** Add File: f.txt\n*** End Patch\n");
    }

    #[test]
    fn binary_content_and_modes_are_refused_with_the_file() {
        let binary = FileDelta::new("b.bin", None, Some(Side::new(b"\x00\x01".to_vec(), None)));
        let err = AiPatch.render(&[binary], &RenderOptions::default()).unwrap_err();
        assert_eq!((err.operation(), err.to_string().contains("`b.bin`")), (Some(Operation::Binary), true));
        let script = FileDelta::new("run.sh", None, Some(Side::new(b"#!/bin/sh\n".to_vec(), Some(0o755))));
        let err = AiPatch.render(&[script], &RenderOptions::default()).unwrap_err();
        assert_eq!(err.operation(), Some(Operation::Mode));
    }
}

//! The changes written as SEARCH/REPLACE blocks: a block per hunk whose SEARCH lines
//! occur once in the file as the blocks before it left it, each after its path line (the
//! bare form of Aider's "diff" layout, no fence: a file's own fence lines stay content).
//!
//! A new file is a block with an empty SEARCH; a file whose hunks cannot be made unique
//! is one block whose SEARCH is the whole file. A content line that reads as a marker is
//! written with a backslash before it (Roo Code's escape). The format cannot delete or
//! rename a file, set a mode, carry binary content, change a file's final newline or byte
//! order mark, create a file without a final newline or with CRLF lines, or hold a line
//! `...` standing alone (it stands for unchanged lines); such changes are refused.

use std::fmt::Write as _;

use polypatch_core::render::hunks::{self, Hunk, body, split};
use polypatch_core::render::{FileDelta, Operation, RenderError, keeps_ends, refuse, text_only, texts, unmarked};

use crate::error::DIALECT;
use crate::syntax::{is_divider, is_replace, is_search, path_of};

pub(crate) fn render(deltas: &[FileDelta], context: usize) -> Result<String, RenderError> {
    let mut out = String::new();
    for delta in deltas {
        text_only(DIALECT, delta, false, false)?;
        let path = path_line(delta)?;
        let (before, after) = texts(delta);
        if delta.before.is_none() {
            created(delta, after)?;
            let new = split(after);
            writable(delta, &[], &new)?;
            block(&mut out, &path, &[], &new);
            continue;
        }
        keeps_ends(DIALECT, delta, before, after)?;
        let (before, after) = (unmarked(before), unmarked(after));
        let old = split(before);
        let new = split(after);
        let accept = |hunks: &[Hunk], i: usize| {
            let h = &hunks[i];
            hunks::old_side_unique(&old, &new, hunks, i)
                && writable(delta, &old[h.old.clone()], &new[h.new.clone()]).is_ok()
        };
        if let Ok(planned) = hunks::plan(&old, &new, context, accept) {
            for h in &planned {
                block(&mut out, &path, &old[h.old.clone()], &new[h.new.clone()]);
            }
        } else {
            // The whole file: one place, found at once (an empty file's SEARCH is empty:
            // an append).
            writable(delta, &old, &new)?;
            block(&mut out, &path, &old, &new);
        }
    }
    Ok(out)
}

/// The path line of a delta's file: the path, or `./` before it when it has no `.` or `/`
/// (a path line must look like one).
fn path_line(delta: &FileDelta) -> Result<String, RenderError> {
    let path = if delta.path.contains(['.', '/']) { delta.path.clone() } else { format!("./{}", delta.path) };
    match path_of(&path) {
        Some((0, len)) if len == path.len() => Ok(path),
        _ => Err(refuse(
            DIALECT,
            Operation::Edit,
            delta,
            "its path holds a space or punctuation that a path line cannot carry",
        )),
    }
}

/// Refuses a new file the format cannot create as it is: empty, without a final newline,
/// or with CRLF lines or a byte order mark (a created file's lines end with `\n`).
fn created(delta: &FileDelta, after: &str) -> Result<(), RenderError> {
    if after.is_empty() {
        return Err(refuse(DIALECT, Operation::Edit, delta, "a block that creates a file needs lines to write"));
    }
    if !after.ends_with('\n') {
        return Err(refuse(DIALECT, Operation::FinalNewline, delta, "a created file's last line ends with a newline"));
    }
    if after.contains("\r\n") {
        return Err(refuse(DIALECT, Operation::LineEnding, delta, "a created file's lines end with `\\n`"));
    }
    if after.starts_with('\u{feff}') {
        return Err(refuse(DIALECT, Operation::ByteOrderMark, delta, "a created file has no byte order mark"));
    }
    Ok(())
}

/// Refuses sections the parser would read otherwise: a line `...` that stands for lines,
/// a SEARCH of blank lines only (an append), a first SEARCH line that reads as a
/// `:start_line:` hint, a line that is a backslash before a marker (the escape would eat
/// it).
fn writable(delta: &FileDelta, old: &[&str], new: &[&str]) -> Result<(), RenderError> {
    for section in [old, new] {
        let bodies: Vec<&str> = section.iter().map(|l| body(l)).collect();
        if let Some(j) =
            (0..bodies.len()).find(|&j| bodies[j].trim() == "..." && polypatch_core::elision::is_elision_at(&bodies, j))
        {
            return Err(refuse(
                DIALECT,
                Operation::MarkerLine,
                delta,
                &format!("a line `{}` stands for unchanged lines in this format", bodies[j]),
            ));
        }
        if bodies.iter().any(|l| l.strip_prefix('\\').is_some_and(is_marker)) {
            return Err(refuse(
                DIALECT,
                Operation::MarkerLine,
                delta,
                "a line that is a backslash before a marker reads as the marker escaped",
            ));
        }
    }
    if !old.is_empty() && old.iter().all(|l| body(l).trim().is_empty()) {
        return Err(refuse(
            DIALECT,
            Operation::Edit,
            delta,
            "a SEARCH of blank lines only reads as an empty one (an append), as in Aider",
        ));
    }
    if old.first().is_some_and(|l| {
        let t = body(l).trim();
        t.starts_with(":start_line:") || t.starts_with(":end_line:")
    }) {
        return Err(refuse(DIALECT, Operation::MarkerLine, delta, "a first line to find that reads as a line hint"));
    }
    Ok(())
}

/// Whether a line reads as a marker (or Roo Code's separator), which a section escapes.
fn is_marker(line: &str) -> bool {
    let dashes = line.trim_end().len() >= 5 && line.trim_end().bytes().all(|b| b == b'-');
    is_search(line) || is_divider(line) || is_replace(line) || dashes
}

/// One block after its path line.
fn block(out: &mut String, path: &str, search: &[&str], replace: &[&str]) {
    let _ = writeln!(out, "{path}\n<<<<<<< SEARCH");
    let line = |out: &mut String, l: &str| {
        let l = body(l);
        let escape = if is_marker(l) { "\\" } else { "" };
        let _ = writeln!(out, "{escape}{l}");
    };
    for l in search {
        line(out, l);
    }
    out.push_str("=======\n");
    for l in replace {
        line(out, l);
    }
    out.push_str(">>>>>>> REPLACE\n");
}

#[cfg(test)]
mod tests {
    use polypatch_core::render::Side;
    use polypatch_core::{Dialect, RenderOptions};

    use super::*;
    use crate::SearchReplace;

    fn side(text: &str) -> Side {
        Side::new(text.as_bytes().to_vec(), None)
    }

    fn render(deltas: &[FileDelta]) -> Result<String, RenderError> {
        SearchReplace.render(deltas, &RenderOptions::default().context(1))
    }

    #[test]
    fn a_hunk_per_block_markers_escaped_and_a_new_file() {
        let delta =
            FileDelta::new("Makefile", Some(side("a\nb\n=======\nc\nd\n")), Some(side("a\nb\n=======\nC\nd\n")));
        let created = FileDelta::new("n/new.txt", None, Some(side("x\n>>>>>>> REPLACE\n")));
        assert_eq!(
            render(&[delta, created]).unwrap(),
            "./Makefile\n<<<<<<< SEARCH\n\\=======\nc\nd\n=======\n\\=======\nC\nd\n>>>>>>> REPLACE\n\
             n/new.txt\n<<<<<<< SEARCH\n=======\nx\n\\>>>>>>> REPLACE\n>>>>>>> REPLACE\n"
        );
    }

    #[test]
    fn what_the_format_cannot_say_is_refused() {
        let cases = [
            (FileDelta::new("gone.txt", Some(side("x\n")), None), Operation::Delete),
            (FileDelta::new("t.txt", Some(side("a\n")), Some(side("b\n"))).renamed_to("u.txt"), Operation::Rename),
            (FileDelta::new("n.txt", None, Some(side("no newline"))), Operation::FinalNewline),
            (FileDelta::new("n.txt", None, Some(side("crlf\r\n"))), Operation::LineEnding),
            (FileDelta::new("n.txt", None, Some(side(""))), Operation::Edit),
            (FileDelta::new("my file.txt", Some(side("a\n")), Some(side("b\n"))), Operation::Edit),
            (FileDelta::new("e.txt", Some(side("a\nb\n")), Some(side("a\n...\nb\n"))), Operation::MarkerLine),
            (FileDelta::new("blank.txt", Some(side("\n\n")), Some(side("x\n"))), Operation::Edit),
        ];
        for (delta, operation) in cases {
            let err = render(std::slice::from_ref(&delta)).unwrap_err();
            assert_eq!(err.operation(), Some(operation), "{delta:?}: {err}");
        }
    }
}

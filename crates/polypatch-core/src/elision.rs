//! Elisions: the lines models write in place of code they leave out (`// ... existing code
//! ...`, `# ... rest of the function ...`, a lone `...`). Written into a file where the
//! edit removes lines, they delete the code they stand for.

use crate::fold::indent_width;
use crate::ir::{Action, Edit, Replacement, Target};
use crate::report::{Failure, FailureKind};

/// Words that say "the code that stands here is left out" next to an ellipsis.
const WORDS: &[&str] = &[
    "existing",
    "rest",
    "remaining",
    "unchanged",
    "omitted",
    "same",
    "previous",
    "other",
    "code",
    "as before",
    "here",
    "etc",
];

/// Comment leaders and closers stripped before looking at the words.
const COMMENT: &[&str] = &["<!--", "-->", "//", "/*", "*/", "#", "--", ";", "%", "'", "*"];

/// Whether `line` is an elision: an ellipsis alone, or inside a comment with one of the
/// words that say code was left out.
pub fn is_elision(line: &str) -> bool {
    let mut rest = line.trim();
    loop {
        let before = rest;
        for c in COMMENT {
            rest = rest.strip_prefix(c).unwrap_or(rest).trim_start();
            rest = rest.strip_suffix(c).unwrap_or(rest).trim_end();
        }
        if rest == before {
            break;
        }
    }
    let commented = rest.len() < line.trim().len();
    let has_dots = rest.contains("...") || rest.contains('…');
    if !has_dots {
        return false;
    }
    let words = rest.trim_matches(|c: char| c == '.' || c == '…' || c.is_whitespace());
    if words.is_empty() {
        // `...` or `// ...` alone. A bare `...` is also Python's Ellipsis statement, so it
        // counts only as a comment or when it is the whole line.
        return commented || line.trim() == rest;
    }
    if words.len() > 60 || !commented {
        return false;
    }
    let lower = words.to_lowercase();
    WORDS.iter().any(|w| lower.contains(w))
}

/// Whether line `index` of `lines` is an elision where it stands: [`is_elision`], except
/// Python's `...` as the only statement of a block (the line before it ends with `:` and
/// the `...` is indented deeper), which is code: a stub body.
pub fn is_elision_at<S: AsRef<str>>(lines: &[S], index: usize) -> bool {
    let line = lines[index].as_ref();
    if !is_elision(line) {
        return false;
    }
    if line.trim() == "..." {
        let before = lines[..index].iter().map(AsRef::as_ref).rev().find(|l| !l.trim().is_empty());
        if before.is_some_and(|b| b.trim_end().ends_with(':') && indent_width(line).0 > indent_width(b).0) {
            return false;
        }
    }
    true
}

/// What [`prepare`] made of a replacement whose new lines hold elisions.
pub(crate) struct Expanded {
    /// The replacement with each elision replaced by the old lines it stands for.
    pub replacement: Replacement,
    /// What was expanded, for the report.
    pub note: String,
}

/// Checks a replacement's new lines for elisions where the edit removes lines. An elision
/// that is the only new line between two kept lines, in place of removed lines, stands
/// for exactly those lines: they are kept (the model wrote `-` for code it meant to keep).
/// Any other elision in an edit that removes lines would delete what it stands for: the
/// edit is refused. `kept` is the alignment of new to old lines (`None` for a range,
/// whose removed lines are not known).
pub(crate) fn prepare(edit: &Edit, kept: Option<&[Option<usize>]>) -> Result<Option<Expanded>, Failure> {
    let Action::Replace(rep) = &edit.action else { return Ok(None) };
    let old: Vec<&String> = match &edit.target {
        Target::Lines(lines) => lines.iter().collect(),
        Target::Range { start, end } => start.iter().chain(end).collect(),
        _ => return Ok(None),
    };
    let in_old = |line: &str| old.iter().any(|o| o.trim() == line.trim());
    let added = |j: usize| kept.is_none_or(|k| k.get(j).copied().flatten().is_none());
    let marks: Vec<usize> =
        (0..rep.lines.len()).filter(|&j| added(j) && is_elision_at(&rep.lines, j) && !in_old(&rep.lines[j])).collect();
    let Some(&first) = marks.first() else { return Ok(None) };
    let refuse = |j: usize| {
        Failure::new(
            FailureKind::Elision,
            format!("line {} of the new text, `{}`, stands for code the edit would delete", j + 1, rep.lines[j].trim()),
            "write the lines it stands for out in full, or narrow the edit to the lines that change",
        )
    };
    let Some(kept) = kept else { return Err(refuse(first)) };
    if kept.iter().flatten().count() == old.len() {
        // Nothing is removed: the elision deletes nothing (a comment the model added).
        return Ok(None);
    }
    // Each elision must be the only new line between two kept lines that enclose removed
    // lines; then it stands for exactly those.
    let mut lines = Vec::with_capacity(rep.lines.len());
    let mut new_kept = Vec::with_capacity(rep.lines.len());
    let mut notes = Vec::new();
    for (j, text) in rep.lines.iter().enumerate() {
        if !marks.contains(&j) {
            lines.push(text.clone());
            new_kept.push(kept[j]);
            continue;
        }
        let before = j.checked_sub(1).and_then(|p| kept[p]);
        let after = kept.get(j + 1).copied().flatten();
        let (Some(b), Some(a)) = (before, after) else { return Err(refuse(j)) };
        if a <= b + 1 {
            return Err(refuse(j));
        }
        lines.extend(old[b + 1..a].iter().map(|l| (*l).clone()));
        new_kept.extend((b + 1..a).map(Some));
        notes.push(format!("`{}` stands for the {} line(s) it replaced: kept", text.trim(), a - b - 1));
    }
    let replacement = Replacement { lines, kept: Some(new_kept), text: None, line_ends: None };
    // Terminators given per new line no longer line up: the expanded lines are kept ones,
    // which keep the file's own.
    let replacement = match &rep.line_ends {
        Some(_) => Replacement { line_ends: None, ..replacement },
        None => replacement,
    };
    Ok(Some(Expanded { replacement, note: notes.join("; ") }))
}

/// Refuses a whole-file write over an existing file (`old`) whose new text holds an
/// elision the file does not already have: it would replace the code it stands for.
pub(crate) fn check_whole(old: &[u8], new: &[u8]) -> Result<(), Failure> {
    let (Ok(old), Ok(new)) = (std::str::from_utf8(old), std::str::from_utf8(new)) else { return Ok(()) };
    let new_lines: Vec<&str> = new.lines().collect();
    let found = (0..new_lines.len())
        .find(|&j| is_elision_at(&new_lines, j) && !old.lines().any(|o| o.trim() == new_lines[j].trim()));
    match found {
        Some(j) => Err(Failure::new(
            FailureKind::Elision,
            format!(
                "line {} of the new content, `{}`, stands for code that writing the whole file would delete",
                j + 1,
                new_lines[j].trim()
            ),
            "write the whole file out in full, or change it with an update that names only the lines that change",
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elisions_are_recognised() {
        for line in [
            "// ... existing code ...",
            "    # ... rest of the function ...",
            "/* ... */",
            "// …",
            "...",
            "    ...",
            "<!-- ... existing markup ... -->",
            "-- ... remaining columns unchanged ...",
            "// ...existing code...",
            "    // … other methods …",
        ] {
            assert!(is_elision(line), "{line:?}");
        }
        for line in [
            "print('...')",
            "let s = \"...\";",
            "args...",
            "// wait for it...",
            "fn f(xs: &[u8]) -> usize { xs.len() } // fast path ... maybe",
            "return ...;",
            "// the rest of the setup is unchanged",
            "x = 1",
        ] {
            assert!(!is_elision(line), "{line:?}");
        }
    }

    #[test]
    fn python_stub_body_is_code() {
        let stub = ["class A:", "    def f(self) -> int:", "        ..."];
        assert!(!is_elision_at(&stub, 2));
        // Not deeper than the line before: an elision.
        assert!(is_elision_at(&["def f():", "..."], 1));
        // The line before does not open a block.
        assert!(is_elision_at(&["    x = 1", "    ..."], 1));
        // Blank lines between the block's opening and the stub do not matter.
        assert!(!is_elision_at(&["if x:", "", "    ..."], 2));
    }
}

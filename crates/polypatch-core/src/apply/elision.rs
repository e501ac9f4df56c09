//! Elisions: the lines models write in place of code they leave out (`// ... existing code
//! ...`, `# ... rest of the function ...`, a lone `...`). Written into a file where the
//! edit removes lines, they delete the code they stand for.

use crate::apply::report::{Failure, FailureKind};
use crate::ir::plan::{Action, Edit, Replacement, Target};
use crate::locate::fold::indent_width;
use crate::text::lines::LineText;

/// Words that say "the code that stands here is left out" next to an ellipsis.
const STRONG: &[&str] = &[
    "existing",
    "rest",
    "remaining",
    "remainder",
    "unchanged",
    "omitted",
    "previous",
    "etc",
    "same",
    "code",
    "other",
    "others",
];

/// The other words an elision comment is made of (`rest of the function`, `other
/// methods unchanged`): a comment with any word outside both lists is a sentence.
const FILLER: &[&str] = &[
    "a",
    "all",
    "and",
    "are",
    "as",
    "before",
    "body",
    "branches",
    "cases",
    "class",
    "classes",
    "columns",
    "component",
    "components",
    "config",
    "configuration",
    "content",
    "contents",
    "declarations",
    "definitions",
    "dependencies",
    "elements",
    "entries",
    "exports",
    "fields",
    "file",
    "for",
    "function",
    "functions",
    "handlers",
    "here",
    "html",
    "implementation",
    "imports",
    "in",
    "is",
    "items",
    "keep",
    "kept",
    "keys",
    "lines",
    "logic",
    "markup",
    "members",
    "method",
    "methods",
    "more",
    "of",
    "on",
    "options",
    "properties",
    "props",
    "remain",
    "remains",
    "routes",
    "rows",
    "settings",
    "so",
    "statements",
    "stay",
    "stays",
    "styles",
    "tests",
    "the",
    "this",
    "unchanged",
    "values",
    "variants",
    "your",
];

/// Comment leaders, longest first, and the closers that may end a comment.
const LEADERS: &[&str] = &["<!--", "///", "//!", "//", "/*", "#", "--", ";", "%", "'", "*"];
const CLOSERS: &[&str] = &["-->", "*/"];

/// The leader and the text of a comment line (nested leaders, as in `/// // …`, and
/// closers removed); `None` for a line that is not a comment.
fn comment(line: &str) -> Option<(&'static str, &str)> {
    let t = line.trim();
    let leader = *LEADERS.iter().find(|l| t.starts_with(**l))?;
    let mut rest = t[leader.len()..].trim();
    loop {
        let before = rest;
        if let Some(l) = LEADERS.iter().find(|l| rest.starts_with(**l)) {
            rest = rest[l.len()..].trim_start();
        }
        if let Some(c) = CLOSERS.iter().find(|c| rest.ends_with(**c)) {
            rest = rest[..rest.len() - c.len()].trim_end();
        }
        if rest == before {
            return Some((leader, rest));
        }
    }
}

/// `...`, `....` or `…` (twice at most): an ellipsis and nothing else. Longer runs of
/// dots are decoration.
fn is_ellipsis(text: &str) -> bool {
    matches!(text, "..." | "...." | "…" | "……" | ". . .")
}

/// Whether `line` is an elision on its own: an ellipsis alone, or a comment that is an
/// ellipsis or holds one at its start or end next to a word that says code was left out
/// (`// ... existing code ...`, `# rest of the function ...`). See [`is_elision_at`] for
/// the lines around it.
pub fn is_elision(line: &str) -> bool {
    if is_ellipsis(line.trim()) {
        return true;
    }
    let Some((_, text)) = comment(line) else { return false };
    if is_ellipsis(text) {
        return true;
    }
    let dots = |t: &str| t.starts_with("...") || t.starts_with('…') || t.ends_with("...") || t.ends_with('…');
    if !dots(text) || text.len() > 80 {
        return false;
    }
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    words.len() <= 8
        && words.iter().any(|w| STRONG.contains(w))
        && words.iter().all(|w| STRONG.contains(w) || FILLER.contains(w))
}

/// Whether line `index` of `lines` is an elision where it stands, all of `lines` being
/// text written together (a patch's new side, a file's new content). Code that looks
/// like one is not: Python's `...` as a block's only statement (after a line ending with
/// `:`, or after the block's docstring), a variadic `...` in a parameter
/// list (after a `,` or `(`, or before a `)` or `]`), and an ellipsis comment inside a
/// block of comments written with it.
pub fn is_elision_at<S: AsRef<str>>(lines: &[S], index: usize) -> bool {
    elision_in(lines, index, &|_| true)
}

/// [`is_elision_at`] where only the lines `is_new` says are part of the written text:
/// an old comment beside the line does not make it documentation.
fn elision_in<S: AsRef<str>>(lines: &[S], index: usize, is_new: &dyn Fn(usize) -> bool) -> bool {
    let line = lines[index].as_ref();
    if !is_elision(line) {
        return false;
    }
    let non_blank = |k: &usize| !lines[*k].as_ref().trim().is_empty();
    let before = (0..index).rev().find(non_blank);
    let after = (index + 1..lines.len()).find(non_blank);
    let text = |k: usize| lines[k].as_ref();
    let depth = |l: &str| indent_width(l).0;
    if is_ellipsis(line.trim()) {
        let code = before.is_some_and(|b| {
            let b = text(b).trim_end();
            // After a line that opens a block: its body (a stub), or, not deeper, a
            // doctest's `Traceback (most recent call last):` continuation.
            b.ends_with(':')
                || ((b.ends_with("\"\"\"") || b.ends_with("'''")) && depth(line) == depth(b))
                || b.ends_with(',')
                || b.ends_with('(')
        }) || after.is_some_and(|a| text(a).trim_start().starts_with([')', ']']));
        return !code;
    }
    // A comment among comments the writer wrote with it is documentation (an example
    // that elides, a list that goes on).
    let leader = comment(line).map(|(l, _)| l);
    let in_block =
        [before, after].into_iter().flatten().any(|k| is_new(k) && comment(text(k)).map(|(l, _)| l) == leader);
    !in_block
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
    let old: Vec<&LineText> = match &edit.target {
        Target::Lines(lines) => lines.iter().collect(),
        Target::Range { start, end } => start.iter().chain(end).collect(),
        _ => return Ok(None),
    };
    let added = |j: usize| kept.is_none_or(|k| k.get(j).copied().flatten().is_none());
    let candidates: Vec<usize> =
        (0..rep.lines.len()).filter(|&j| added(j) && elision_in(&rep.lines, j, &added)).collect();
    if candidates.is_empty() {
        // Most edits: no added line looks like an elision, and the old lines need no set.
        return Ok(None);
    }
    let old_lines: std::collections::HashSet<&str> = old.iter().map(|o| o.trim()).collect();
    let in_old = |line: &str| old_lines.contains(line.trim());
    let marks: Vec<usize> = candidates.into_iter().filter(|&j| !in_old(&rep.lines[j])).collect();
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
    let mut is_mark = vec![false; rep.lines.len()];
    for &j in &marks {
        is_mark[j] = true;
    }
    let mut lines = Vec::with_capacity(rep.lines.len());
    let mut new_kept = Vec::with_capacity(rep.lines.len());
    let mut notes = Vec::new();
    for (j, text) in rep.lines.iter().enumerate() {
        if !is_mark[j] {
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
    let old_lines: std::collections::HashSet<&str> = old.lines().map(str::trim).collect();
    let in_old = |j: usize| old_lines.contains(new_lines[j].trim());
    let found = (0..new_lines.len())
        .find(|&j| is_elision(new_lines[j]) && !in_old(j) && elision_in(&new_lines, j, &|k| !in_old(k)));
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
            "# rest of the function ...",
            "// ... (unchanged)",
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
            "sortedPaths.push(...remainingPaths);",
            "/// ... where",
            "# could check Union contents here...",
            "// ... then finish off the remainder.",
            "// ..........",
            "// syscall table [...] with the exceptions listed below",
        ] {
            assert!(!is_elision(line), "{line:?}");
        }
    }

    #[test]
    fn code_around_an_ellipsis_makes_it_code() {
        // A C variadic parameter list.
        assert!(!is_elision_at(&["    flags: c_int,", "    ...", ") -> c_int;"], 1));
        assert!(!is_elision("    ...);"), "code after the ellipsis");
        // A Python stub after its docstring.
        assert!(!is_elision_at(&["def f():", "    \"\"\"Doc.\"\"\"", "    ..."], 2));
        // An elision between statements.
        assert!(is_elision_at(&["    x = 1", "    ...", "    return x"], 1));
    }

    #[test]
    fn a_comment_block_written_together_is_documentation() {
        let block = ["// Expect:", "//   [package]", "//   ...", "//   name = \"x\""];
        assert!(!is_elision_at(&block, 2));
        // Beside code, or beside an old comment the writer did not write, it stands for code.
        assert!(is_elision_at(&["fn f() {", "    // ...", "    g();"], 1));
        assert!(elision_in(&["// old comment", "// ... existing code ..."], 1, &|k| k == 1));
        assert!(!elision_in(&["// new comment", "// ... existing code ..."], 1, &|_| true));
    }

    #[test]
    fn python_stub_body_is_code() {
        let stub = ["class A:", "    def f(self) -> int:", "        ..."];
        assert!(!is_elision_at(&stub, 2));
        // A doctest's traceback continuation.
        assert!(!is_elision_at(&["    Traceback (most recent call last):", "    ..."], 1));
        // The line before does not open a block.
        assert!(is_elision_at(&["    x = 1", "    ..."], 1));
        // Blank lines between the block's opening and the stub do not matter.
        assert!(!is_elision_at(&["if x:", "", "    ..."], 2));
    }
}

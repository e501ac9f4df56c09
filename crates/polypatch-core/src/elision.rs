//! Elisions: the lines models write in place of code they leave out (`// ... existing code
//! ...`, `# ... rest of the function ...`, a lone `...`). Written into a file where the
//! edit removes lines, they delete the code they stand for.

use crate::ir::{Action, Edit, Target};
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
pub(crate) fn is_elision(line: &str) -> bool {
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

/// Refuses a replacement whose new lines hold an elision where it removes lines.
pub(crate) fn check(edit: &Edit, kept: Option<&[Option<usize>]>) -> Result<(), Failure> {
    let Action::Replace(rep) = &edit.action else { return Ok(()) };
    let old: Vec<&String> = match &edit.target {
        Target::Lines(lines) => lines.iter().collect(),
        Target::Range { start, end } => start.iter().chain(end).collect(),
        _ => return Ok(()),
    };
    let removes = match (&edit.target, kept) {
        (Target::Range { .. }, _) => true,
        (_, Some(kept)) => kept.iter().flatten().count() < old.len(),
        (_, None) => true,
    };
    if !removes {
        return Ok(());
    }
    let in_old = |line: &str| old.iter().any(|o| o.trim() == line.trim());
    let found = rep.lines.iter().enumerate().find(|(j, line)| {
        let added = kept.is_none_or(|k| k.get(*j).copied().flatten().is_none());
        added && is_elision(line) && !in_old(line)
    });
    match found {
        Some((j, line)) => Err(Failure::new(
            FailureKind::Elision,
            format!("line {} of the new text, `{}`, stands for code the edit would delete", j + 1, line.trim()),
            "write the lines it stands for out in full, or narrow the edit to the lines that change",
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
}

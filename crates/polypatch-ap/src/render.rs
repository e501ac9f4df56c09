//! 'ap' YAML v2.0: `CREATE_FILE` for new files, and for changed ones a `REPLACE` (or
//! `DELETE`) per hunk whose `snippet` holds the hunk's old lines.
//!
//! The spec locates a snippet by its non-blank lines compared without leading and trailing
//! whitespace (§3.2), and it must occur once: context is added until the normalized snippet
//! occurs once in the file as the modifications before it left it (§3.3, sequential). A
//! snippet starts and ends on a non-blank line. Its first line is a context line, written
//! again as the content's first line with the file's indentation, so the content is kept
//! as written (§3.3 re-indents content to the snippet's first line). Every value is a
//! literal block (§4.3) unless its text needs escapes ([`yaml_scalar`]).
//!
//! What ap cannot say: deleting or renaming a file, binary content, modes, and, because the
//! spec strips trailing whitespace from every line of a changed file (§3.5) and keeps a
//! file's ending, trailing whitespace and a change of the final newline.

use std::fmt::Write as _;

use polypatch_core::render::hunks::{self, Hunk, after_hunks, body, occurrences, split};
use polypatch_core::render::{FileDelta, Operation, RenderError, keeps_ends, refuse, text_only, texts, unmarked};

use crate::error::DIALECT;

mod scalar;

pub use scalar::yaml_scalar;

/// `ranges`: whether blocks of [`MIN_RANGE`] lines or more are written as ranges.
pub(crate) fn render(deltas: &[FileDelta], context: usize, ranges: bool) -> Result<String, RenderError> {
    let mut out = String::from("version: \"2.0\"\nchanges:\n");
    for delta in deltas {
        text_only(DIALECT, delta, false, false)?;
        let (before, after) = texts(delta);
        let _ = writeln!(out, "  - file_path: {}", quoted(&delta.path));
        if delta.before.is_none() {
            create(&mut out, after);
            continue;
        }
        keeps_ends(DIALECT, delta, before, after)?;
        let (before, after) = (unmarked(before), unmarked(after));
        if split(after).iter().any(|l| body(l).ends_with([' ', '\t'])) {
            return Err(refuse(
                DIALECT,
                Operation::TrailingWhitespace,
                delta,
                "the spec removes trailing spaces and tabs from every line of a file it changes (§3.5)",
            ));
        }
        out.push_str("    modifications:\n");
        modifications(&mut out, delta, before, after, context, ranges)?;
    }
    Ok(out)
}

/// A `CREATE_FILE` change: the content with `\n` and a `newline` key when the file uses
/// one terminator throughout; otherwise the exact text (escaped) and no key.
fn create(out: &mut String, after: &str) {
    let crlf = after.matches("\r\n").count();
    let lf = after.matches('\n').count();
    let lone_cr = after.matches('\r').count() - crlf;
    let (newline, content) = if crlf > 0 && crlf == lf && lone_cr == 0 {
        (Some("CRLF"), after.replace("\r\n", "\n"))
    } else if lf > 0 && crlf == 0 {
        (Some("LF"), after.to_owned())
    } else {
        (None, after.to_owned())
    };
    if let Some(newline) = newline {
        let _ = writeln!(out, "    newline: {newline}");
    }
    out.push_str("    modifications:\n      - action: CREATE_FILE\n        content: ");
    out.push_str(&yaml_scalar(&content, 10));
}

/// The located modifications of a changed file.
/// `ranges`: whether long blocks are written as `start_snippet`/`end_snippet` ranges.
fn modifications(
    out: &mut String,
    delta: &FileDelta,
    before: &str,
    after: &str,
    context: usize,
    ranges: bool,
) -> Result<(), RenderError> {
    let old = split(before);
    let new = split(after);
    if old.iter().all(|l| body(l).trim().is_empty()) {
        return Err(refuse(
            DIALECT,
            Operation::Edit,
            delta,
            "the file has no non-blank line for a snippet to find, and CREATE_FILE does not overwrite",
        ));
    }
    let blank = |l: &str| body(l).trim().is_empty();
    let accept = |hunks: &[Hunk], i: usize| {
        let h = &without_blank_context(&hunks[i], &old);
        let Some((first, last)) = old.get(h.old.start).zip(h.old.end.checked_sub(1).and_then(|e| old.get(e))) else {
            return false;
        };
        if h.old.is_empty() || blank(first) || blank(last) {
            return false;
        }
        // Content takes the snippet's first line's indentation unless its own first line
        // carries it already: a context line there, or the same indentation.
        let kept = h.lead > 0 || new.get(h.new.start).is_none_or(|n| indent(body(n)) == indent(body(first)));
        if !kept {
            return false;
        }
        let current = after_hunks(&old, &new, hunks, i);
        let snippet = normal(&old[h.old.clone()]);
        occurrences(&normal(&current), &snippet, |a, b| a == b).len() == 1
    };
    let Ok(planned) = hunks::plan(&old, &new, context, accept) else {
        return Err(refuse(
            DIALECT,
            Operation::Edit,
            delta,
            "no snippet of whole non-blank lines locates this change in one place under the spec's \
             whitespace-insensitive search, with the content's indentation kept",
        ));
    };
    for (i, h) in planned.iter().enumerate() {
        let h = &without_blank_context(h, &old);
        let block = &old[h.old.clone()];
        let content = joined(&new[h.new.clone()]);
        let action = if content.is_empty() { "DELETE" } else { "REPLACE" };
        let _ = writeln!(out, "      - action: {action}");
        let current = normal(&after_hunks(&old, &new, &planned, i));
        // Only a deletion: a replaced range is found again, smaller, on a re-run (its end
        // block recurs in the content), so it would not be idempotent (§3.1).
        match range(block, &current).filter(|_| ranges && content.is_empty()) {
            Some((start, end)) => {
                let (start, end) = (joined(&block[..start]), joined(&block[block.len() - end..]));
                let _ = write!(out, "        start_snippet: {}", yaml_scalar(&start, 10));
                let _ = write!(out, "        end_snippet: {}", yaml_scalar(&end, 10));
            }
            None => {
                let _ = write!(out, "        snippet: {}", yaml_scalar(&joined(block), 10));
            }
        }
        if !content.is_empty() {
            let _ = write!(out, "        content: {}", yaml_scalar(&content, 10));
        }
    }
    Ok(())
}

/// Lines as the spec's search sees them: trimmed, blank ones dropped (§3.2).
fn normal(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|l| body(l).trim().to_owned()).filter(|l| !l.is_empty()).collect()
}

/// The fewest lines at the start and at the end of `block` (a snippet that occurs once in
/// `current`, normalized) that locate it as a `start_snippet`/`end_snippet` range (§4.2):
/// the start occurs once, and the end's first occurrence after the start is the block's
/// end. `None` for a block under [`MIN_RANGE`] non-blank lines, or when the pair would
/// say no less than the whole block.
fn range(block: &[&str], current: &[String]) -> Option<(usize, usize)> {
    let norm = normal(block);
    if norm.len() < MIN_RANGE {
        return None;
    }
    let at = *occurrences(current, &norm, |a, b| a == b).first()?;
    let start = (1..norm.len()).find(|&k| occurrences(current, &norm[..k], |a, b| a == b).len() == 1)?;
    let end = (1..=norm.len() - start).find(|&j| {
        let from = at + start;
        occurrences(&current[from..], &norm[norm.len() - j..], |a, b| a == b).first() == Some(&(norm.len() - start - j))
    })?;
    if start + end >= norm.len() {
        return None;
    }
    // From normalized line counts to the block's own lines (blank ones included).
    let raw = |n: usize, lines: &mut dyn Iterator<Item = &&str>| {
        let mut seen = 0;
        lines
            .take_while(|l| {
                let more = seen < n;
                seen += usize::from(!body(l).trim().is_empty());
                more
            })
            .count()
    };
    Some((raw(start, &mut block.iter()), raw(end, &mut block.iter().rev())))
}

/// A block of at least this many non-blank lines is written as a range (§4.2: a range
/// change is three or more lines; a range of fewer would say as much as the block).
const MIN_RANGE: usize = 5;

/// A path as a double-quoted YAML string.
fn quoted(path: &str) -> String {
    serde_json::to_string(path).unwrap_or_default()
}

/// A line's leading whitespace.
fn indent(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// The hunk without the blank context lines at its edges: the spec's search ignores blank
/// lines, so a snippet neither starts nor ends with one.
fn without_blank_context(hunk: &Hunk, old: &[&str]) -> Hunk {
    let blank = |i: usize| body(old[i]).trim().is_empty();
    let mut h = hunk.clone();
    while h.lead > 0 && blank(h.old.start) {
        h.old.start += 1;
        h.new.start += 1;
        h.lead -= 1;
    }
    while h.trail > 0 && blank(h.old.end - 1) {
        h.old.end -= 1;
        h.new.end -= 1;
        h.trail -= 1;
    }
    h
}

/// Lines without their terminators, each ended by `\n`.
fn joined(lines: &[&str]) -> String {
    lines.iter().flat_map(|l| [body(l), "\n"]).collect()
}

#[cfg(test)]
mod tests {
    use polypatch_core::render::Side;
    use polypatch_core::{ApplyOptions, Content, Dialect, FileOp, MemoryFileSet, RenderOptions, apply};
    use proptest::prelude::*;

    use super::*;
    use crate::Ap;

    fn side(text: &str) -> Side {
        Side::new(text.as_bytes().to_vec(), None)
    }

    #[test]
    fn a_long_deletion_is_written_as_a_range() {
        let before =
            "import os\ndef old():\n    a = 1\n    b = 2\n\n    c = 3\n    return a\ndef keep():\n    return 0\n";
        let after = "import os\ndef keep():\n    return 0\n";
        let delta = FileDelta::new("m.py", Some(side(before)), Some(side(after)));
        let text = Ap.render(std::slice::from_ref(&delta), &RenderOptions::default().context(0)).unwrap();
        assert!(
            text.ends_with("      - action: DELETE\n        start_snippet: |\n          def old():\n        end_snippet: |2\n              return a\n"),
            "{text}"
        );
        let mut files = MemoryFileSet::new().with("m.py", before);
        apply(&Ap.parse(&text).unwrap(), &mut files, &ApplyOptions::default().strict(true)).unwrap();
        assert_eq!(files.get_str("m.py"), Some(after));
        // The plain form: single snippets, no range.
        let plain = Ap.render(&[delta], &RenderOptions::default().context(0).plain(true)).unwrap();
        assert!(plain.contains("        snippet: ") && !plain.contains("start_snippet"), "{plain}");
    }

    #[test]
    fn trailing_whitespace_and_deletion_are_refused() {
        let err = Ap.render(
            &[FileDelta::new("t.txt", Some(side("a \nb\n")), Some(side("a \nc\n")))],
            &RenderOptions::default(),
        );
        assert_eq!(err.unwrap_err().operation(), Some(Operation::TrailingWhitespace));
        let err = Ap.render(&[FileDelta::new("gone.txt", Some(side("x\n")), None)], &RenderOptions::default());
        assert_eq!(err.unwrap_err().operation(), Some(Operation::Delete));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Any string, as the YAML scalar of an ap `CREATE_FILE`, reads back as itself.
        #[test]
        fn yaml_scalars_read_back_exactly(value in "[ a-z#:'\"\t\r\n\\\\|>\u{e9}\u{feff}\u{7}-]{0,40}") {
            let doc = format!(
                "version: \"2.0\"\nchanges:\n  - file_path: \"f\"\n    modifications:\n      - action: CREATE_FILE\n        content: {}",
                yaml_scalar(&value, 10)
            );
            let plan = Ap.parse(&doc).map_err(|e| TestCaseError::fail(format!("{}\n{doc}", e.render(&doc))))?;
            let FileOp::Create { content: Content::Text(got), .. } = &plan.files[0].op else {
                return Err(TestCaseError::fail("not a create"));
            };
            prop_assert_eq!(got, &value, "{}", doc);
        }
    }
}

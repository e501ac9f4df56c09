//! The AI-PATCH dialect: the patch format of the Codex coding agent's `apply_patch` tool, lowered
//! into polypatch's [`EditPlan`].
//!
//! ```
//! use polypatch_aipatch::AiPatch;
//! use polypatch_core::{Action, Dialect, FileOp, Target};
//!
//! let patch = "\
//! *** Begin Patch
//! *** Update File: src/app.py
//! @@ def main():
//! -    print('hi')
//! +    print('hello')
//! *** Add File: NOTES.md
//! +# Notes
//! *** End Patch
//! ";
//! let plan = AiPatch.parse(patch).unwrap();
//! assert_eq!(plan.dialect, "ai-patch");
//!
//! let FileOp::Modify(modify) = &plan.files[0].op else { panic!("an update is a modify") };
//! let edit = &modify.edits[0];
//! assert_eq!(edit.label, "hunk 1");
//! assert_eq!(edit.target, Target::Lines(vec!["    print('hi')".into()]));
//! let Action::Replace(replacement) = &edit.action else { panic!("a hunk replaces") };
//! assert_eq!(replacement.lines, ["    print('hello')"]);
//! // The `@@ <line>` header scopes the hunk: it is searched after `def main():`.
//! assert_eq!(edit.scope.anchor.as_ref().unwrap().lines, ["def main():"]);
//! // Spans point back into the patch text.
//! assert_eq!(&patch[plan.files[0].span.unwrap().start..][..28], "*** Update File: src/app.py\n");
//!
//! assert!(matches!(&plan.files[1].op, FileOp::Create { .. }));
//! ```
//!
//! # The format
//!
//! ```text
//! *** Begin Patch
//! *** Add File: <path>          every following line starts with `+`
//! +content
//! *** Delete File: <path>       no body
//! *** Update File: <path>
//! *** Move to: <new path>       optional, directly after the update header
//! @@                            a hunk: searched after the previous hunk
//!  context line
//! -removed line
//! +added line
//! @@ :42                        a hunk expected near line 42 (1-based)
//!  …
//! *** End of File               optional: the hunk ends at the file's last line
//! *** End Patch
//! ```
//!
//! A patch holds any number of operations, applied in order as one transaction. In a
//! hunk, ` x` is a context line, `-x` a removed line, `+x` an added line and an empty
//! line a blank context line. The first hunk of an update may omit its `@@`. Paths are
//! passed through as written; the core resolves them against the root (an absolute path
//! is accepted only inside it).
//!
//! Accepted around and inside the patch, because models write it:
//!
//! - a shell heredoc (`apply_patch <<'EOF'` … `EOF`, also `<<EOF`, `<<"EOF"`) and markdown
//!   code fences around the patch, in either nesting, and blank lines before and after;
//! - CRLF patch text (a trailing `\r` is removed from every line) and a leading BOM;
//! - `*** Begin Patch`, `*** End Patch` and file headers padded with spaces or tabs;
//! - a unified-diff hunk header `@@ -a,b +c,d @@ …`: its old start `a` becomes the line
//!   hint (`a + 1` when it declares an empty old side, `-a,0`, which in a unified diff
//!   means "after line `a`"); the counts and any text after the second `@@` are ignored.
//!
//! # Codex extensions
//!
//! The AI-PATCH concept describes one `*** Add File` or `*** Update File` per patch, with
//! `@@` and `@@ :N` hunks. Codex's format adds, and this crate accepts:
//! `*** Delete File:`, `*** Move to:`, several files per patch, and the change-context
//! header `@@ <line>`: a line (usually a `class` or `def` line) the hunk comes after. It
//! lowers to an [`Anchor`](polypatch_core::Anchor) (first occurrence, not necessarily
//! unique); the hunk is searched from the line after it.
//!
//! # How hunks lower
//!
//! Each hunk is an [`Edit`](polypatch_core::Edit) labelled `hunk N` (N counts per file):
//! its context and removed lines are the target, its context and added lines the
//! replacement, and the context lines are marked as kept, so a lenient match never
//! rewrites them. Without a line hint the hunk is searched after the previous hunk of the
//! same file, first occurrence; the file's first hunk with a plain `@@` (no header, no
//! line number, nothing before it) must match one place. A hunk of added lines only (a
//! pure addition) goes
//!
//! - after the `@@ <line>` anchor line, when there is one;
//! - before line N, for `@@ :N` (or a unified header);
//! - at the end of the file otherwise (also when it ends with `*** End of File`), as Codex
//!   does.
//!
//! Blank lines that end a hunk (before the next `@@`, file header or `*** End Patch`) or
//! that come before an update's first hunk separate, they are not context: models put them
//! there to space blocks out, and a blank context line the file lacks would make the hunk
//! fail to match. Before `*** End of File` they stay context (they are the end of the
//! file). Inside a hunk a line starting with a space is always context, even when it reads
//! like a padded `***` header: the patch may be editing a file that contains such lines.
//!
//! # Where polypatch differs from Codex, on purpose
//!
//! - **All or nothing.** Codex writes each file as it goes, so a failure in a later file
//!   leaves the earlier ones changed (its scenario 015). polypatch locates every edit
//!   first and writes nothing unless all succeed: a half-applied patch is worse than a
//!   failed one, and the model can simply fix and resend the whole patch.
//! - **A truncated patch is rejected.** A missing `*** End Patch` is an error
//!   (`missing_end`) rather than best effort: a model output cut off mid-hunk must not
//!   apply its first half.
//! - **A missing final newline is preserved.** Codex ends every updated file with a
//!   newline (its scenario 014); polypatch keeps the file's own ending, as it keeps its
//!   line terminators, so an edit changes only the lines it names.
//! - **A pure addition after `@@ <line>` lands after that line.** Codex appends such a
//!   hunk at the end of the file, ignoring the context line; but the model wrote the
//!   context line precisely to say where the new lines go.
//! - **Lenient matching is reported.** Like Codex, polypatch tolerates whitespace and
//!   Unicode look-alike differences (and, with a clear winner, small typos); unlike
//!   Codex, it reports the tier that matched and its confidence with each edit, shifts
//!   added lines by a matched indentation difference, and refuses a lenient match that
//!   is not unique instead of taking the first: a wrong edit is worse than a failed one.
//! - **A first hunk whose block occurs twice is refused.** Codex takes the first
//!   occurrence; but a plain `@@` as a file's first hunk says nothing about which of two
//!   identical blocks is meant ("in order from the start of the file" names no place),
//!   and the other half of the time the first is the wrong one. Later hunks keep the
//!   in-order search from the previous hunk, and `@@ <line>` or `@@ :N` name the place.
//! - **"Already applied" is reported**, when the old lines are gone and the new ones stand
//!   (a re-run changes nothing); when both readings are plausible the hunk is refused
//!   with both places. Codex has no such notion.
//! - An `*** Update File` with no hunk is an error (`empty_update`) even with a
//!   `*** Move to:`, as in Codex (its scenario 008).
//!
//! # Errors
//!
//! A malformed patch is a [`PatchError`] whose `kind` is one of [`KINDS`] and
//! whose span points at the offending text: `missing_begin`, `missing_end`,
//! `content_after_end`, `empty_patch`, `invalid_header`, `missing_path`,
//! `invalid_add_line`, `invalid_delete_line`, `empty_update`, `invalid_line_hint`,
//! `invalid_hunk_header`, `invalid_hunk_line`, `empty_hunk`.

pub mod error;
mod lower;
mod render;
mod syntax;

use polypatch_core::{Dialect, EditPlan, ErrorKind, FileDelta, PatchError, RenderError, RenderOptions, ReplyLines};

pub use error::KINDS;
pub use lower::lower;
pub use syntax::{Hunk, HunkHeader, HunkLine, LineKind, Op, Patch, parse};

/// The AI-PATCH dialect (`"ai-patch"`).
#[derive(Debug, Clone, Copy, Default)]
pub struct AiPatch;

impl Dialect for AiPatch {
    fn name(&self) -> &'static str {
        error::DIALECT
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["aipatch", "codex", "apply-patch", "apply_patch"]
    }

    fn summary(&self) -> &'static str {
        "the `*** Begin Patch` envelope of OpenAI Codex's `apply_patch` tool"
    }

    fn error_kinds(&self) -> &'static [ErrorKind] {
        error::KINDS
    }

    /// 95 for a `*** Begin Patch` line, 60 for a file header line without one, else 0.
    fn sniff(&self, text: &str) -> u8 {
        // Every line that scores holds one of the markers: a text without them scores 0,
        // found in one pass over it for their common `*** ` (a long diff sniffed by every
        // dialect, whose markdown files may hold `***` rules), not line by line.
        let bytes = text.as_bytes();
        let marked = memchr::memmem::find_iter(bytes, "*** ")
            .any(|at| MARKERS.iter().any(|m| bytes[at..].starts_with(m.as_bytes())));
        if !marked {
            return 0;
        }
        sniff_lines(text)
    }

    fn parse(&self, text: &str) -> Result<EditPlan, PatchError> {
        Ok(lower(&parse(text).map_err(|e| e.with_source(text))?))
    }

    /// A `*** Begin Patch` line to its `*** End Patch` line (to `to` when it has none).
    fn bare_block(&self, lines: &ReplyLines<'_>, at: usize, to: usize, _failed: usize) -> Option<usize> {
        (lines.line(at).trim() == "*** Begin Patch")
            .then(|| (at + 1..to).find(|&j| lines.line(j).trim() == "*** End Patch").map_or(to, |j| j + 1))
    }

    fn fence_tags(&self) -> &'static [&'static str] {
        &["text", "patch"]
    }

    /// Hunks with `@@ <line>` scope lines where a line above places a hunk; in the plain
    /// form, context only.
    fn render(&self, deltas: &[FileDelta], options: &RenderOptions) -> Result<String, RenderError> {
        render::render(deltas, options.context, !options.plain)
    }

    fn prompt(&self) -> Option<&'static str> {
        Some(include_str!("../prompt.txt"))
    }
}

/// The lines that score start with one of these (trimmed): `*** Begin Patch`, then the
/// file headers.
const MARKERS: [&str; 4] = ["*** Begin Patch", "*** Update File:", "*** Add File:", "*** Delete File:"];

/// [`AiPatch::sniff`] line by line.
fn sniff_lines(text: &str) -> u8 {
    let mut score = 0;
    for line in text.lines() {
        let line = line.trim();
        if line == "*** Begin Patch" {
            return 95;
        }
        if MARKERS[1..].iter().any(|h| line.starts_with(h)) {
            score = 60;
        }
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quick test before the line-by-line sniff never changes a score: every text of
    /// three lines (LF or CRLF) made of markers, near misses and empty lines.
    #[test]
    fn sniff_quick_test_agrees_with_the_line_scan() {
        const PIECES: &[&str] = &[
            "*** Begin Patch",
            "  *** Begin Patch  ",
            "** Begin Patch",
            "*** Update File: a",
            "*** Add File:",
            "*** Delete File: x",
            "*** End Patch",
            "***",
            "+x",
            "",
            "\u{feff}*** Begin Patch",
            "text *** Add File: a",
            "**** Begin Patch",
            "*** Begin Patches",
            "*** Update File",
        ];
        for a in PIECES {
            for b in PIECES {
                for c in PIECES {
                    for sep in ["\n", "\r\n"] {
                        let text = [*a, b, c].join(sep);
                        assert_eq!(AiPatch.sniff(&text), sniff_lines(&text), "{text:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn sniff_scores_markers() {
        assert_eq!(AiPatch.sniff("*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n"), 95);
        assert_eq!(AiPatch.sniff("here you go:\n  *** Begin Patch  \r\n"), 95);
        assert_eq!(AiPatch.sniff("*** Update File: a.rs\n@@\n-x\n+y\n"), 60);
        assert_eq!(AiPatch.sniff("*** Add File: a.rs\n+x\n"), 60);
        assert_eq!(AiPatch.sniff("*** Delete File: a.rs\n"), 60);
        assert_eq!(AiPatch.sniff("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"), 0);
    }
}

//! The `ApplyDiff` v3.0 dialect: `>>> file:` blocks with `--- from` and `--- to` sections,
//! lowered into polypatch's [`EditPlan`].
//!
//! ```
//! use polypatch_applydiff::ApplyDiff;
//! use polypatch_core::{apply, ApplyOptions, Dialect, MemoryFileSet, Tier};
//!
//! let patch = "\
//! The fix:
//!
//! >>> file: src/app.py
//! --- from
//! def main():
//!     print('hi')
//! --- to
//! def main():
//!     print('hello')
//! <
//! ";
//! let plan = ApplyDiff.parse(patch).unwrap();
//! let mut files = MemoryFileSet::new().with("src/app.py", "def main():\n    print('hi')\n");
//! let report = apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
//! assert_eq!(files.get_str("src/app.py"), Some("def main():\n    print('hello')\n"));
//! let block = &report.files[0].edits[0];
//! assert_eq!((block.label.as_str(), block.tier), ("block 1", Some(Tier::Exact)));
//! ```
//!
//! # The format
//!
//! ```text
//! >>> file: <path> [| mode=patch|replace] [| fuzz=0.NN]
//! --- from
//! <context lines, plus lines to remove>
//! --- to
//! <context lines, plus lines to add>
//! <
//! ```
//!
//! A patch holds any number of blocks. Text between blocks (a model's prose) is ignored.
//! The closing line is `<` (or `<<<`, which the format's origin used). The options come
//! in any order; an unknown option, a repeated one, a `mode` other than `patch` and
//! `replace`, or a `fuzz` outside 0..=1 is refused. CRLF patch text and a leading BOM are
//! accepted. Paths are resolved by the core against the root, like every dialect's: a
//! path that leaves the root (`..`, an absolute path elsewhere) is refused.
//!
//! # How blocks apply
//!
//! See [`lower()`] for the mapping onto the core's plan. In short:
//!
//! - **`mode=patch`** (the default): the from lines are located anywhere in the file,
//!   stopping at the first tier that finds them. The spec's four tiers map onto the
//!   core's: *exact*; *whitespace-normalized* is `trailing_whitespace` and `trimmed`;
//!   *relative-indentation-preserving* is `indentation` (the from block matched at another
//!   indentation; each new line is shifted like the old line it aligns with, in that
//!   file line's own tabs or spaces); then the core's `blank_lines` and `unicode` tiers
//!   (a blank line dropped or added, curly quotes and dashes); last *Damerau–Levenshtein
//!   fuzzy*, accepted at a confidence of at least the block's `fuzz` (0.85 by default).
//!   Every report names the tier and confidence of each block.
//! - **The ambiguity guard** (§4): a from block must match one place. Two fuzzy
//!   candidates whose scores differ by less than 0.02 are an ambiguous match, and so is a
//!   from block that occurs twice exactly (or at any stricter tier): nothing is applied.
//! - **Empty `--- from`** creates the file from the `--- to` lines when it is missing;
//!   an existing file with other content is refused (one with the same content is
//!   already applied).
//! - **`mode=replace`**: `--- to` is the whole new file, created when missing. An existing
//!   file keeps its line terminator (CRLF stays CRLF) and its missing final newline. The
//!   elision guard refuses a replacement that would drop code behind a
//!   `// ... existing code ...` line. `--- from` must be empty in this mode.
//! - Several blocks for one file apply in order, each on the result of the one before;
//!   several files apply all or nothing, like every dialect.
//! - A block whose to lines already stand where its from lines would is reported
//!   already applied, and a re-run changes nothing.
//!
//! # Errors
//!
//! A malformed patch is the spec's "Patch Format Invalid": a [`PatchError`] whose `kind`
//! is one of [`KINDS`] (`no_blocks`, `missing_path`, `unknown_option`,
//! `repeated_option`, `invalid_mode`, `invalid_fuzz`, `missing_from`, `missing_to`,
//! `unclosed_block`, `stray_marker`, `replace_with_from`) and whose span points at the
//! offending text (its line and column: [`PatchError::line_col`]).
//!
//! # Talking back to the model
//!
//! The spec closes the loop with two texts, both built here from what the core reports:
//!
//! - [`feedback`](mod@feedback) (§5): after each apply, the status (`✅ Patch Applied`,
//!   `❌ Ambiguous match detected`, `❌ No match found`, `❌ Patch Format Invalid`) with the
//!   spec's message and `Action:` word for word, then what we know: the block, the
//!   candidates' line ranges, the closest region with its similarity and a diff, the tier
//!   and confidence of each applied block, the line and column of a format error.
//!   Failures the spec has no status for open with `❌ Patch not applied`; a dry run opens
//!   with `✅ Patch would apply (dry run)`, and the spec's `Health updated in [SESSION
//!   CONTEXT]` is said only when a session was updated ([`session_feedback`]).
//! - [`Session`] (§1, §3): across the applies of one conversation, patches and % changed
//!   per file, errors, ambiguous matches and the exchange count, rendered as the
//!   `[SESSION CONTEXT]` block, and the §3 threshold table's advice per file
//!   ([`Session::recommend`]: patch, patch with caution, the model decides, whole file,
//!   more context lines).
//!
//! ```
//! use polypatch_applydiff::{FileContents, Session};
//! use polypatch_core::ApplyReport;
//!
//! let mut session = Session::new(20);
//! // After each apply: the report, and the changed files' content before and after.
//! session.record(&ApplyReport::default(), &[]);
//! assert!(session.render("fix the parser").contains("Health: 0 errors, 0 ambiguous matches, exchange 1/20"));
//! let _ = FileContents::new("a.rs", Some("x\n"), Some("y\n"));
//! ```

mod bare;
pub mod error;
pub mod feedback;
mod lower;
mod render;
pub mod session;
pub mod syntax;

use polypatch_core::{Dialect, EditPlan, ErrorKind, FileDelta, PatchError, RenderError, RenderOptions, ReplyLines};

pub use error::KINDS;
pub use feedback::{FeedbackStatus, feedback, format_invalid, session_feedback};
pub use lower::{DEFAULT_FUZZ, lower};
pub use session::{
    DEFAULT_MAX_EXCHANGES, FileContents, FileHealth, FormatChoice, Recommendation, SESSION_VERSION, Session,
    SessionError,
};
pub use syntax::{Block, Mode, Patch, parse};

/// The `ApplyDiff` dialect (`"applydiff"`).
#[derive(Debug, Clone, Copy, Default)]
pub struct ApplyDiff;

impl Dialect for ApplyDiff {
    fn name(&self) -> &'static str {
        error::DIALECT
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["apply-diff"]
    }

    fn summary(&self) -> &'static str {
        "ApplyDiff v3.0: `>>> file:` blocks with `--- from` and `--- to` sections"
    }

    fn error_kinds(&self) -> &'static [ErrorKind] {
        error::KINDS
    }

    /// 92 for a `>>> file:` line followed by `--- from`, 40 for a `>>> file:` line alone,
    /// 30 for a `--- from` line and a later `--- to` line without a header, else 0.
    fn sniff(&self, text: &str) -> u8 {
        // A score needs a `>>> file:` line, or a `--- from` and a `--- to` line: a text
        // without those strings scores 0, found without reading it line by line.
        let markers = text.contains("--- from") && text.contains("--- to");
        if !markers && !text.contains(">>> file:") {
            return 0;
        }
        sniff_lines(text)
    }

    fn parse(&self, text: &str) -> Result<EditPlan, PatchError> {
        Ok(lower(&parse(text).map_err(|e| e.with_source(text))?))
    }

    /// A run of `>>> file:` blocks, each closed by its `<` (or `<<<`) line after `--- to`;
    /// blocks separated only by blank lines belong to one run.
    fn bare_block(&self, lines: &ReplyLines<'_>, at: usize, to: usize, _failed: usize) -> Option<usize> {
        bare::bare_block(lines, at, to)
    }

    fn fence_tags(&self) -> &'static [&'static str] {
        &["text", "applydiff"]
    }

    /// A block per hunk, or the whole file (`mode=replace`); no plainer form.
    fn render(&self, deltas: &[FileDelta], options: &RenderOptions) -> Result<String, RenderError> {
        render::render(deltas, options.context)
    }

    fn prompt(&self) -> Option<&'static str> {
        Some(include_str!("../prompt.txt"))
    }
}

/// [`ApplyDiff::sniff`] line by line.
fn sniff_lines(text: &str) -> u8 {
    let mut score = 0;
    let mut after_header = false;
    let mut from = false;
    for line in text.strip_prefix('\u{feff}').unwrap_or(text).lines() {
        if after_header && line.trim_end() == "--- from" {
            return 92;
        }
        if from && line.trim_end() == "--- to" && score == 0 {
            score = 30;
        }
        from |= line.trim_end() == "--- from";
        after_header = line.trim_start().starts_with(">>> file:");
        if after_header {
            score = 40;
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
            ">>> file: a",
            "  >>> file: b",
            ">> file:",
            "--- from",
            "--- from  ",
            "--- to",
            "--- too",
            "-- from",
            "x",
            "",
            "\u{feff}>>> file: a",
            "x >>> file: a --- from",
        ];
        for a in PIECES {
            for b in PIECES {
                for c in PIECES {
                    for sep in ["\n", "\r\n"] {
                        let text = [*a, b, c].join(sep);
                        assert_eq!(ApplyDiff.sniff(&text), sniff_lines(&text), "{text:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn sniff_scores_markers() {
        assert_eq!(ApplyDiff.sniff("prose\n>>> file: a.rs\n--- from\nx\n--- to\ny\n<\n"), 92);
        assert_eq!(ApplyDiff.sniff("  >>> file: a.rs | mode=replace\r\n--- from\r\n"), 92);
        assert_eq!(ApplyDiff.sniff(">>> file: a.rs\nx\n"), 40);
        assert_eq!(ApplyDiff.sniff("--- from\n+++ b\n"), 0);
        assert_eq!(ApplyDiff.sniff("Change:\n--- from\nx\n--- to\ny\n<\n"), 30);
        assert_eq!(ApplyDiff.sniff("*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n"), 0);
    }
}

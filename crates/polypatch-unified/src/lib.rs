//! Unified diffs for polypatch: git's `diff --git` output (extended headers, renames,
//! copies, modes, binary patches) and plain `diff -u` output, parsed with byte spans,
//! lowered into polypatch's [`EditPlan`], and generated from before/after contents.
//!
//! ```
//! use polypatch_core::{Action, Dialect, FileOp, Target};
//! use polypatch_unified::Unified;
//!
//! let diff = "\
//! diff --git a/src/app.py b/src/app.py
//! index 3b18e51..a2c4f0e 100644
//! --- a/src/app.py
//! +++ b/src/app.py
//! @@ -10,3 +10,3 @@ def main():
//!      name = 'world'
//! -    print('hi')
//! +    print('hello', name)
//!      return 0
//! ";
//! let plan = Unified.parse(diff).unwrap();
//! assert_eq!(plan.dialect, "unified");
//! assert_eq!(plan.files[0].path, "src/app.py"); // `a/` and `b/` are stripped
//!
//! let FileOp::Modify(modify) = &plan.files[0].op else { panic!("a change is a modify") };
//! let edit = &modify.edits[0];
//! assert_eq!(edit.label, "hunk 1");
//! // Context and removed lines locate the hunk; its line number is only a hint.
//! assert_eq!(edit.target, Target::Lines(vec!["    name = 'world'".into(), "    print('hi')".into(), "    return 0".into()]));
//! assert_eq!(edit.scope.line_hint, Some(10));
//! let Action::Replace(replacement) = &edit.action else { panic!("a hunk replaces") };
//! assert_eq!(replacement.lines[1], "    print('hello', name)");
//! // Context lines are kept as the file has them, even when matched leniently.
//! assert_eq!(replacement.kept, Some(vec![Some(0), None, Some(2)]));
//! // Spans point back into the diff text.
//! let span = edit.span.unwrap();
//! assert!(diff[span.start..span.end].starts_with("@@ -10,3 +10,3 @@"));
//! ```
//!
//! # What is read
//!
//! - **git diffs**: `diff --git a/x b/x`, the extended headers `old mode`/`new mode`,
//!   `new file mode`, `deleted file mode`, `similarity index`, `dissimilarity index`,
//!   `rename from`/`rename to`, `copy from`/`copy to` and `index <old>..<new> [mode]`;
//!   names C-quoted with escapes (`"a/t\303\251st\tx"`: octal bytes are UTF-8), `/dev/null`;
//!   mode-only and rename-only sections (no `---`/`+++`), several files per diff.
//! - **hunks**: `@@ -a,b +c,d @@ section`, then ` `/`-`/`+` lines; an empty line is an
//!   empty context line; `\ No newline at end of file` (any line starting with `\`) after a
//!   line of either side.
//! - **binary patches**: `GIT binary patch` with a `literal <size>` or `delta <size>` block
//!   (base85 lines, zlib) and an optional reverse block, with the `git-binary` feature (on
//!   by default); without it such a section is refused as [`error::UNSUPPORTED_BINARY`].
//! - **plain diffs**: `diff -u` and `diff -ruN` output, with timestamps after the names (a
//!   tab, or spaces before a date); `Index:` and `====` lines, a `diff -ruN x y` command
//!   line, mail headers, prose and markdown fences before, between and after file sections
//!   are skipped.
//!
//! # Leniency for model-written diffs
//!
//! - **Counts are checked, not trusted.** A hunk's body is read by its header's counts
//!   when the text it covers ends where a non-hunk line (a header, prose, the end) starts.
//!   Otherwise, the counts are wrong and the body is re-read without them: every line
//!   starting with ` `, `+`, `-` or `\`, and empty lines that more hunk lines follow; never
//!   a `diff --git` or `@@` line, nor a `--- x` line followed by `+++ y`.
//!   [`Hunk::recounted`] records it.
//! - **Line numbers are hints.** A hunk is located by its context and removed lines; its
//!   old start (shifted by the line count changes of the hunks before it) only chooses
//!   among equal candidates, nearest first. `@@ @@` and a bare `@@` hunk have no hint.
//! - **Leniency stops at content**: a hunk whose lines are not in the file fails with the
//!   closest candidate in the message, and nothing is written.
//!
//! # How a section lowers
//!
//! | section | [`FileOp`](polypatch_core::FileOp) |
//! |---|---|
//! | old side `/dev/null`, or `new file mode` | `Create` with the added lines' exact bytes (`\r\n` kept), the mode's permission bits; `if_exists: ErrorUnlessIdentical` |
//! | new side `/dev/null`, or `deleted file mode` | `Delete` expecting the removed lines (`Expect::Lines`) |
//! | anything else | `Modify`: one edit per hunk, `move_to` for a rename, `copy_from` for a copy, `mode` from `new mode`, `preimage`/`postimage` from the `index` ids |
//! | `GIT binary patch` | `Binary` (blob ids from `index`), a new file's literal as `Create` with bytes |
//!
//! Paths: with [`ParseOptions::strip`] `Some(n)`, `n` leading components are dropped from
//! every `diff --git`, `---` and `+++` name (`n - 1` from rename and copy names, which carry
//! no prefix), as `patch -p n` does. By default, `a/` and `b/` are dropped when both names
//! have them; a plain diff's names that differ only in their first component (`diff -ru
//! old/ new/`) lose it. The file edited is the new name, unless that is `/dev/null`.
//!
//! A hunk lowers to an [`Edit`](polypatch_core::Edit) labelled `hunk N` (N counts per
//! file): its context and removed lines are the target (a `\r` the patch line ended with
//! removed), its context and added lines the replacement, and the context lines are marked
//! as kept. Hunks are searched after the previous hunk of the same file. A hunk with a
//! `\ No newline` marker must end at the end of the file; the marker after the new side's
//! last line makes the result end without a newline, a marker only on the old side makes
//! it end with one. When any line of a section ends with `\r\n` in the patch, every added
//! line gets the terminator its patch line had; otherwise each added line ends like the
//! file line it replaces or stands next to, so an LF diff applied to a CRLF file keeps the
//! file CRLF, and one applied to the LF part of a mixed file writes LF, as git does. A
//! lone `\r` is text, as in git. A byte order mark the diff shows on line 1 is bytes of
//! that line, as in git. A file (or a diff) that is not UTF-8 is edited byte for byte:
//! the diff is read with [`polypatch_core::decode_lossless`], only the exact tier is
//! used, and the result is git's bytes.
//!
//! # Where polypatch differs from git apply
//!
//! - Counts are recounted and line numbers are hints (above); git rejects such diffs.
//! - A diff with LF lines applied to a CRLF file keeps the file's CRLF; git fails.
//! - A diff without the byte order mark its file has applies, the mark kept once at the
//!   start; git fails (its line 1 holds the mark).
//! - A pure addition away from the start of the file (`@@ -5,0 +6,2 @@`) is refused
//!   (`no_context`): without context, only the line number says where, and line numbers
//!   are hints here. Regenerate such diffs with context.
//! - Symbolic links and submodules are refused (`unsupported_symlink`,
//!   `unsupported_submodule`).
//! - In a plain diff, a side dated at the Unix epoch with an empty range (`diff -N`)
//!   creates or deletes the file, as GNU patch does.
//!
//! # Errors
//!
//! A malformed diff is a [`PatchError`] whose `kind` is one of [`KINDS`] and
//! whose span points at the offending text; [`PatchError::render`] shows its line and
//! column with a caret.

// docs.rs (`--cfg docsrs`, nightly) shows which feature each gated item needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod bare;
pub mod error;
mod lower;
mod path;
mod render;
mod syntax;

#[cfg(feature = "git-binary")]
#[cfg_attr(docsrs, doc(cfg(feature = "git-binary")))]
pub mod binary;
pub mod generate;

use polypatch_core::{
    Dialect, EditPlan, ErrorKind, FileDelta, ParseOptions, PatchError, RenderError, RenderOptions, ReplyLines,
};

pub use error::KINDS;

/// Whether this build reads and writes `GIT binary patch` data: the `git-binary` feature
/// (on by default), which brings zlib.
pub const GIT_BINARY: bool = cfg!(feature = "git-binary");
pub use lower::lower;
pub use path::PathName;
pub use syntax::{
    BinaryHunk, BinaryPatch, ExtendedHeader, FileName, FilePatch, GitLine, Header, Hunk, HunkLine, HunkRange,
    HunkRanges, LineKind, Patch, parse, parse_with_limit,
};

/// The unified diff dialect (`"unified"`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Unified;

impl Dialect for Unified {
    fn name(&self) -> &'static str {
        error::DIALECT
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["git", "diff", "patch", "udiff", "unidiff", "git-diff"]
    }

    fn summary(&self) -> &'static str {
        "unified diffs: `git diff` (renames, modes, binary patches) and `diff -u`"
    }

    fn error_kinds(&self) -> &'static [ErrorKind] {
        error::KINDS
    }

    /// 90 for a `diff --git` line; 80 for `---`, `+++` and `@@` lines; 50 for a
    /// `@@ -a,b +c,d @@` line alone; else 0.
    fn sniff(&self, text: &str) -> u8 {
        syntax::sniff(text)
    }

    fn parse(&self, text: &str) -> Result<EditPlan, PatchError> {
        self.parse_with(text, &ParseOptions::default())
    }

    fn parse_with(&self, text: &str, options: &ParseOptions) -> Result<EditPlan, PatchError> {
        lower::parse_and_lower(text, options).map_err(|e| e.with_source(text))
    }

    /// A raw diff: from a `diff --git` line, or a `--- ` line followed by a `+++ ` line, to
    /// the last line that belongs to it (prose after it is left out).
    fn bare_block(&self, lines: &ReplyLines<'_>, at: usize, to: usize, failed: usize) -> Option<usize> {
        bare::bare_block(lines, at, to, failed)
    }

    fn fence_tags(&self) -> &'static [&'static str] {
        &["diff", "patch"]
    }

    /// A git diff ([`generate`]), renames found by content as `git diff -M` finds them; no
    /// plainer form. A git diff says every byte and mode, so it never refuses, except
    /// content that is not text in a build without the `git-binary` feature
    /// ([`Operation::Binary`](polypatch_core::Operation::Binary)).
    fn render(&self, deltas: &[FileDelta], options: &RenderOptions) -> Result<String, RenderError> {
        #[cfg(not(feature = "git-binary"))]
        render::refuse_binary(deltas)?;
        Ok(render::render(deltas, options))
    }

    fn prompt(&self) -> Option<&'static str> {
        Some(include_str!("../prompt.txt"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::BAD_STRIP;

    /// The quick test before the line-by-line sniff, and its early stop, never change a
    /// score: every text of three and four lines (LF or CRLF) made of markers, near misses
    /// and empty lines.
    #[test]
    fn sniff_quick_test_agrees_with_the_line_scan() {
        const PIECES: &[&str] = &[
            "diff --git a/x b/x",
            "diff --git",
            "--- a/x",
            "+++ b/x",
            "@@ -1 +1 @@",
            "@@",
            "@@ @@",
            "@ -1 +1 @",
            " diff --git a b",
            "-a",
            "",
            "\u{feff}diff --git a/x b/x",
            "x @@ -1 +1 @@",
        ];
        for a in PIECES {
            for b in PIECES {
                for c in PIECES {
                    for sep in ["\n", "\r\n"] {
                        let text = [*a, b, c].join(sep);
                        assert_eq!(Unified.sniff(&text), syntax::sniff_lines(&text), "{text:?}");
                        // A fourth line after the three a score may be decided on.
                        for d in PIECES {
                            let text = [*a, b, c, d].join(sep);
                            assert_eq!(Unified.sniff(&text), syntax::sniff_lines(&text), "{text:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn sniff_scores_markers() {
        assert_eq!(Unified.sniff("From x\ndiff --git a/x b/x\n"), 90);
        assert_eq!(Unified.sniff("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"), 80);
        assert_eq!(Unified.sniff("@@ -1,2 +1,2 @@\n-a\n+b\n"), 50);
        assert_eq!(Unified.sniff("@@\n-a\n+b\n"), 0);
        assert_eq!(Unified.sniff("hello\n"), 0);
        // AI-PATCH text (sniffed 95 by its own dialect) scores lower here.
        let ai = "*** Begin Patch\n*** Update File: a\n@@ -1,2 +1,2 @@\n--- x\n+++ y\n*** End Patch\n";
        assert!(Unified.sniff(ai) <= 90);
    }

    #[test]
    fn parse_with_strips() {
        let diff = "--- x/y/z.txt\n+++ x/y/z.txt\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(Unified.parse(diff).unwrap().files[0].path, "x/y/z.txt");
        let plan = Unified.parse_with(diff, &ParseOptions::default().strip(2)).unwrap();
        assert_eq!(plan.files[0].path, "z.txt");
        let err = Unified.parse_with(diff, &ParseOptions::default().strip(3)).unwrap_err();
        assert_eq!((err.dialect.as_str(), err.kind.clone()), ("unified", BAD_STRIP));
    }

    /// A new file holding one NUL byte, as `git diff --binary` writes it.
    const BINARY_DIFF: &str = "diff --git a/b.bin b/b.bin\nnew file mode 100644\nindex 0000000..f76dd23\n\
                               GIT binary patch\nliteral 1\nIcmZPo000310RR91\n\nliteral 0\nHcmV?d00001\n\n";

    #[cfg(feature = "git-binary")]
    #[test]
    fn with_git_binary_a_binary_patch_is_read_and_written() {
        let plan = Unified.parse(BINARY_DIFF).unwrap();
        assert_eq!(plan.files[0].path, "b.bin");
        assert!(!KINDS.contains(&error::UNSUPPORTED_BINARY));
        let delta = FileDelta::new("b.bin", None, Some(polypatch_core::render::Side::new(vec![0], None)));
        let text = Unified.render(&[delta], &RenderOptions::default()).unwrap();
        assert!(text.contains("GIT binary patch\nliteral 1\n"), "{text}");
    }

    /// A build without zlib refuses a binary patch where it is read, with the feature to
    /// turn on, and refuses to write one; `generate` writes what `git diff` writes without
    /// `--binary`.
    #[cfg(not(feature = "git-binary"))]
    #[test]
    fn without_git_binary_a_binary_patch_is_refused_naming_the_feature() {
        use polypatch_core::Operation;
        let err = Unified.parse(BINARY_DIFF).unwrap_err();
        assert_eq!(err.kind, error::UNSUPPORTED_BINARY);
        assert_eq!(
            err.message,
            "the `GIT binary patch` of `b.bin` cannot be read: this build of polypatch lacks the `git-binary` \
             feature (the zlib its data is compressed with); build polypatch with that feature (on by default; the \
             polypatch command has it), or send the file whole"
        );
        let span = err.span.unwrap();
        assert_eq!(&BINARY_DIFF[span.start..span.end], "literal 1");
        assert!(KINDS.contains(&error::UNSUPPORTED_BINARY));

        let delta = FileDelta::new("b.bin", None, Some(polypatch_core::render::Side::new(vec![0], None)));
        let err = Unified.render(&[delta], &RenderOptions::default()).unwrap_err();
        assert_eq!(err.operation(), Some(Operation::Binary));
        assert_eq!(
            err.to_string(),
            "unified cannot express binary content (`b.bin`): it takes a `GIT binary patch`, and this build of \
             polypatch lacks the `git-binary` feature that writes one (zlib); build polypatch with that feature (on \
             by default; the polypatch command has it)"
        );

        let new = generate::Side::new("b.bin", b"\0");
        let text = generate::diff_file(None, Some(new), &generate::DiffOptions::default());
        assert!(text.ends_with("Binary files /dev/null and b/b.bin differ\n"), "{text}");
    }
}

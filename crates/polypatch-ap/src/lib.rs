//! The 'ap' (AI-friendly Patch) YAML v2.0 dialect, lowered into polypatch's [`EditPlan`].
//!
//! ```
//! use polypatch_ap::Ap;
//! use polypatch_core::{apply, ApplyOptions, Dialect, MemoryFileSet, Status};
//!
//! let patch = r#"
//! version: "2.0"
//! changes:
//!   - file_path: "src/calculator.py"
//!     modifications:
//!       - action: REPLACE
//!         anchor: |
//!           def add(a, b):
//!         snippet: |
//!           return a + b
//!         content: |
//!           if isinstance(a, list):
//!               return sum(a)
//!           return a + b
//! "#;
//! let plan = Ap.parse(patch).unwrap();
//! assert_eq!(plan.dialect, "ap");
//! assert_eq!(plan.files.len(), 1); // one modify operation, one edit
//!
//! let before = "def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n";
//! let mut files = MemoryFileSet::new().with("src/calculator.py", before);
//! apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
//! // The content is re-indented to the snippet's line, its own nesting kept.
//! assert_eq!(
//!     files.get_str("src/calculator.py"),
//!     Some("def add(a, b):\n    if isinstance(a, list):\n        return sum(a)\n    return a + b\n\ndef sub(a, b):\n    return a - b\n"),
//! );
//! // Applying it again changes nothing: the content (which holds the snippet) is in place.
//! let again = apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
//! assert_eq!(again.files[0].edits[0].status, Status::AlreadyApplied);
//! ```
//!
//! # The format
//!
//! ```yaml
//! # Summary: … (comments are free)
//! version: "2.0"                       # required, the string "2.0"
//! changes:                             # required list (may be empty)
//!   - file_path: src/app.py            # relative to the patch file's folder; no `..`
//!     newline: LF                      # optional: LF, CRLF or CR, for CREATE_FILE
//!     modifications:                   # required list, applied in order
//!       - action: REPLACE              # REPLACE, INSERT_AFTER, INSERT_BEFORE, DELETE, CREATE_FILE
//!         anchor: |                    # optional: unique block; the snippet is searched after it
//!           def main():
//!         snippet: |                   # the whole line(s) to find …
//!           print("hi")
//!         content: |                   # the new code (not for DELETE), written unindented
//!           print("hello")
//!       - action: DELETE
//!         start_snippet: |             # … or a range: start through the first end after it
//!           def old():
//!         end_snippet: |
//!           return None
//!         include_leading_blank_lines: 1   # widen by up to N blank lines before / after
//!         include_trailing_blank_lines: 0
//! ```
//!
//! Locating follows the spec's §3.2: blank lines are dropped from the snippet, every line
//! is compared with its leading and trailing whitespace removed, the file's blank lines
//! are skipped, and only whole lines match. With an `anchor` (which must occur exactly
//! once) the first occurrence of the snippet after the anchor's last line is used, at the
//! strictest tier that finds one, even a lone `}`; without one the snippet must occur
//! exactly once. A range's end is the first occurrence of `end_snippet` after the start.
//! Zero or several matches fail with the candidates' line numbers. The file indentation
//! of the located snippet's first line is prepended to every content line (§3.3). Every
//! file a modification changed loses its trailing whitespace (§3.5). The whole patch is
//! one transaction: nothing is written unless every modification succeeds (§3.0).
//!
//! # How a patch lowers
//!
//! | ap | [`EditPlan`] |
//! |---|---|
//! | the document | `dialect: "ap"`; `warnings`: an unquoted `version: 2.0`, an unused `newline` |
//! | a `changes` item | one [`FileEdit`](polypatch_core::FileEdit) on `file_path`, spanning the item; a path may appear in several changes, applied in sequence |
//! | `REPLACE`, `INSERT_*`, `DELETE` | [`FileOp::Modify`](polypatch_core::FileOp::Modify) with one [`Edit`](polypatch_core::Edit) per modification, `post.strip_trailing_whitespace`, a missing file an error |
//! | `CREATE_FILE` | [`FileOp::Create`](polypatch_core::FileOp::Create) { content as YAML gives it, `newline` (LF/CRLF/CR, or none: `\n`), `if_exists: ErrorUnlessIdentical` }; modifications after it in the same change form a following modify operation on the path |
//! | `snippet` | [`Target::Lines`](polypatch_core::Target::Lines): the string split on `\n`, the piece after the final `\n` dropped, a line-end `\r` removed |
//! | `start_snippet` + `end_snippet` | [`Target::Range`](polypatch_core::Target::Range) |
//! | `REPLACE` / `INSERT_AFTER` / `INSERT_BEFORE` / `DELETE` | `Action::Replace` (engine-aligned lines) / `InsertAfter` / `InsertBefore` / `Delete` |
//! | `anchor` | `Scope.anchor` with `unique: true` |
//! | tiers | trimmed (§3.2, with `ignore_blank_lines`), then Unicode look-alikes and fuzzy; never a line prefix; `DELETE`: trimmed and Unicode look-alikes, never fuzzy |
//! | uniqueness | `Occurrence::FirstAfterAnchor` with an anchor (the first occurrence after it at the strictest tier that finds one, however short the snippet), else `Occurrence::Unique` |
//! | not found | `DELETE`: `Missing::AlreadyApplied` (§3.1); others: an error |
//! | indentation | `Indent::ToTargetFirstLine` (§3.3): the file indentation of the snippet's first line prepended to every content line, the content's own indentation written in that line's characters; content whose first line already carries exactly that indentation is kept as written. How the snippet is indented in the YAML plays no part |
//! | `include_leading/trailing_blank_lines` | `Policy.leading_blank_lines` / `trailing_blank_lines` |
//! | idempotency | `detect_already_applied: true` (§3.1) |
//! | label, span | `"change C modification M"` (1-based); the modification item's span |
//!
//! # Beyond the spec, and where this crate chooses
//!
//! - **Lenient tiers.** When the spec's normalized search finds nothing, Unicode
//!   look-alikes (curly quotes, dashes, special spaces) and then small typos (fuzzy, with
//!   a clear winner only) are tried, and the report names the tier and confidence.
//!   `--strict` ([`ApplyOptions::strict`](polypatch_core::ApplyOptions::strict)) turns
//!   them off. "Already applied" is a finding, not a shortcut: a `REPLACE` whose snippet
//!   is found (at any tier) is applied there, unless the content stands in its place.
//!   `DELETE` uses the look-alike tier but never the fuzzy one: a fuzzy `DELETE` could
//!   remove a similar sibling (on a re-run, the one left). A `DELETE` whose snippet the
//!   spec's search misses is "already applied" (§3.1), unless lines within a typo of it
//!   remain in the file: then it is refused naming them, since "already applied" would be
//!   untrue and deleting by likeness unsafe. This departs from §3.1's letter (which
//!   skips it) in favour of never reporting an edit done that was not.
//! - **Absolute indentation.** Content whose first line already carries exactly the file
//!   indentation of the snippet's first line was written with its absolute indentation:
//!   it is kept as written instead of being indented twice. Nothing else counts: how the
//!   snippet is indented in the YAML (a `|2` block) says nothing about the content.
//! - **`REPLACE` whose content holds the snippet** (the spec's own example) is recognized
//!   as already applied when the whole content stands around the snippet.
//! - **The content already between the anchor and the snippet.** When a `REPLACE`'s
//!   content stands between its anchor and the first occurrence of its snippet after it,
//!   the file cannot tell a re-run (§3.1: the edit was applied at an earlier occurrence)
//!   from a first run (§3.2: the content was there already): both places are named and
//!   nothing is written, rather than losing the edit or applying it twice.
//! - **A re-run of an anchored `DELETE` whose snippet occurs again after the anchor**
//!   removes that later occurrence: §3.2's "first occurrence" holds, and nothing in the
//!   file shows that an earlier one was removed. Give a `DELETE` a snippet that occurs
//!   once after its anchor. (Without an anchor the snippet must be unique, and a re-run
//!   deletes nothing.)
//! - **§3.5 runs only on a file a modification changed.** A file whose modifications
//!   are all already applied (or skipped) is left as it is, trailing whitespace included:
//!   re-running a patch never changes a file.
//! - **An unquoted `version: 2.0`** (a YAML number) is accepted with a warning; other
//!   versions are refused with the list of supported ones ([`SUPPORTED_VERSIONS`]).
//! - **A markdown code fence** around the whole document (```` ```yaml ```` … ```` ``` ````)
//!   is ignored.
//! - **Plain scalars** that YAML types as numbers or booleans are taken as written where
//!   a string is expected (`content: 42`).
//! - **`newline` omitted** on `CREATE_FILE`: the content is written with `\n`, not the
//!   OS default the spec suggests, so a patch gives the same bytes on every machine.
//! - **`CREATE_FILE` of an existing file**: identical bytes (after the `newline`
//!   conversion) are "already applied", other content is an error (`file_exists`). Its
//!   content is written as given: trailing whitespace is removed only from files the
//!   other actions modify.
//! - **Refused at parse time, though the spec does not say**: an empty `modifications`
//!   list, a snippet or anchor with no non-blank line (it would match anywhere),
//!   `content` without a value (write `content: ""` for none), `CREATE_FILE` with a
//!   locating key, an absolute `file_path` (the spec forbids `..` only).
//! - `include_*_blank_lines` with an `INSERT_*` action widens the located block too: the
//!   content goes after (before) the included blank lines.
//! - `newline` on a change without `CREATE_FILE` is ignored, with a warning.
//!
//! # Errors
//!
//! A malformed patch is a [`PatchError`] whose `kind` is one of [`KINDS`], whose
//! message names the change and modification (1-based) and the YAML line and says what
//! to write instead, and whose span points at the offending key or item. YAML syntax
//! errors (`invalid_yaml`) are the parser's, at the line it names: the document is read
//! once, untyped, into a tree with spans, and every rule of the format is checked on that
//! tree, so a misindented key is never reported as a type error somewhere else.

// docs.rs (`--cfg docsrs`, nightly) shows which feature each gated item needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod error;
mod lower;
mod render;
#[cfg(feature = "schema")]
mod schema;
mod syntax;
mod yaml;

use polypatch_core::{Dialect, EditPlan, ErrorKind, FileDelta, PatchError, RenderError, RenderOptions};

pub use error::KINDS;
pub use lower::lower;
pub use render::yaml_scalar;
pub use syntax::{ActionKind, Change, Locator, Modification, Patch, SUPPORTED_VERSIONS, Text, parse};

/// The 'ap' YAML dialect (`"ap"`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Ap;

impl Dialect for Ap {
    fn name(&self) -> &'static str {
        error::DIALECT
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["ap-yaml"]
    }

    fn summary(&self) -> &'static str {
        "the 'ap' YAML v2.0 patch: snippets with anchors and ranges, no line numbers"
    }

    fn error_kinds(&self) -> &'static [ErrorKind] {
        error::KINDS
    }

    /// 90 for a `version:` and a `changes:` key at column 1; 70 for `changes:`,
    /// `file_path:` and `modifications:` anywhere; 30 for `version: "2.0"` at column 1
    /// alone; else 0.
    fn sniff(&self, text: &str) -> u8 {
        // Every flag needs its key in some line: a text with neither a line starting with
        // `version:` nor all three list keys scores 0, found without reading it line by
        // line (a release's diff holds `python-version:` and `version: 2` in its files).
        let lists = ["changes:", "file_path:", "modifications:"].iter().all(|key| text.contains(key));
        if !lists && !text.starts_with("version:") && !text.contains("\nversion:") {
            return 0;
        }
        sniff_lines(text)
    }

    fn parse(&self, text: &str) -> Result<EditPlan, PatchError> {
        Ok(lower(&parse(text).map_err(|e| e.with_source(text))?))
    }

    fn fence_tags(&self) -> &'static [&'static str] {
        &["yaml", "yml"]
    }

    /// The spec asks for the shortest unique snippet (§4.2): one line of context, which
    /// also keeps the content's indentation (§3.3), more only where needed, and long
    /// deletions as ranges. The plain form has single snippets with all the context asked
    /// for (blank lines added next to blank lines need it: the spec's search skips blank
    /// lines).
    fn render(&self, deltas: &[FileDelta], options: &RenderOptions) -> Result<String, RenderError> {
        if options.plain {
            render::render(deltas, options.context, false)
        } else {
            render::render(deltas, options.context.min(1), true)
        }
    }

    fn prompt(&self) -> Option<&'static str> {
        Some(include_str!("../prompt.txt"))
    }

    /// The schema of the value an 'ap' patch's YAML reads as (with the `schema` feature).
    #[cfg(feature = "schema")]
    fn schema(&self) -> Option<serde_json::Value> {
        Some(schema::schema())
    }
}

/// [`Ap::sniff`] line by line.
fn sniff_lines(text: &str) -> u8 {
    let (mut version, mut changes_at_root, mut changes, mut file_path, mut modifications) =
        (false, false, false, false, false);
    // This dialect's own version at the root, even without its `changes` list.
    let mut ap_version = false;
    for line in text.lines() {
        version |= line.starts_with("version:");
        let value = line.strip_prefix("version:").map(|v| v.trim().trim_matches(['"', '\'']));
        ap_version |= value == Some("2.0");
        changes_at_root |= line.starts_with("changes:");
        let t = line.trim_start().trim_start_matches("- ");
        changes |= t.starts_with("changes:");
        file_path |= t.starts_with("file_path:");
        modifications |= t.starts_with("modifications:");
    }
    if version && changes_at_root {
        90
    } else if changes && file_path && modifications {
        70
    } else if ap_version {
        30
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quick test before the line-by-line sniff never changes a score: every text of
    /// three lines (LF or CRLF) made of markers, near misses and empty lines.
    #[test]
    fn sniff_quick_test_agrees_with_the_line_scan() {
        const PIECES: &[&str] = &[
            "version: \"2.0\"",
            "version: 1",
            " version: 2.0",
            "changes:",
            "- changes:",
            "  - file_path: a",
            "    modifications:",
            "version",
            "changes file_path",
            "",
            "\u{feff}version: 2.0",
            "x: version: '2.0'",
            "python-version: 2.0",
            "\tversion: 2.0",
        ];
        for a in PIECES {
            for b in PIECES {
                for c in PIECES {
                    for sep in ["\n", "\r\n"] {
                        let text = [*a, b, c].join(sep);
                        assert_eq!(Ap.sniff(&text), sniff_lines(&text), "{text:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn sniff_scores_markers() {
        assert_eq!(Ap.sniff("# plan\nversion: \"2.0\"\nchanges:\n  - file_path: a\n"), 90);
        assert_eq!(Ap.sniff("changes:\n  - file_path: a\n    modifications:\n"), 70);
        assert_eq!(Ap.sniff("  version: 1\n  changes: []\n"), 0);
        assert_eq!(Ap.sniff("version: \"2.0\"\n"), 30);
        assert_eq!(Ap.sniff("version: '3'\nservices:\n"), 0);
        assert_eq!(Ap.sniff("*** Begin Patch\n*** End Patch\n"), 0);
        assert_eq!(Ap.sniff("diff --git a/x b/x\n"), 0);
    }
}

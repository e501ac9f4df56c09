//! The Aptix JSON dialect: file bundles (`files[]` with five operations) and structured
//! patch bundles (`patches[]`, nested or flat), lowered into polypatch's [`EditPlan`].
//!
//! ````
//! use polypatch_aptix::Aptix;
//! use polypatch_core::{apply, ApplyOptions, Dialect, MemoryFileSet};
//!
//! let reply = r#"Here is the change:
//!
//! ```json
//! {
//!   "root": ".",
//!   "patches": [
//!     {
//!       "path": "src/MyFile.cs",
//!       "replacements": [
//!         { "find": "public void OldMethod()", "replace": "public void NewMethod()" }
//!       ]
//!     }
//!   ]
//! }
//! ```
//! "#;
//! let plan = Aptix.parse(reply).unwrap();
//! let mut files = MemoryFileSet::new().with("src/MyFile.cs", "class A {\n    public void OldMethod() {}\n}\n");
//! apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
//! assert_eq!(files.get_str("src/MyFile.cs"), Some("class A {\n    public void NewMethod() {}\n}\n"));
//! ````
//!
//! # The two specifications, and where they differ
//!
//! The Aptix File Delivery Specification (the "file spec") and SYS-004 (the "contract")
//! describe the same bundles with small differences. This crate accepts both readings:
//!
//! - `operation` may be omitted (the file spec: create or replace); the contract requires it.
//! - `limit` may be omitted (the file spec: `once`); the contract requires it.
//! - A structured patch bundle's `patches[]` entries may be nested (`{path, replacements:
//!   [{find, replace, limit}]}`, the file spec) or flat (`{path, find, replace, limit}`,
//!   the contract), even mixed in one bundle.
//! - `root` should be present (both); a bundle without one uses `.` with a warning.
//! - A `find` that is not found: both specs allow skipping it; polypatch fails the
//!   whole bundle by default (a silent no-op is how edits get lost) and skips only when
//!   the caller asks (`ApplyOptions`, CLI `--skip-missing-find`).
//!
//! # Input
//!
//! The bundle may be the whole text, or sit in a fenced block (```` ```json ````, `jsonc`
//! or untagged) with prose around it, as a chat reply has it; other fences (a shell
//! snippet) are skipped. Without a fence, a `{` in the first column of a line starts it.
//! A bundle over [`MAX_BUNDLE_BYTES`] or nested deeper than 128 levels is refused.
//! Malformed JSON gets `serde_json`'s line and column, and the mistakes models make get a
//! message that says exactly that: a raw line break inside a string, a trailing comma, a
//! bundle cut off before its closing brace.
//!
//! # Checks (SYS-004 §3 and §5)
//!
//! Every message names the entry by its index and path and the field:
//! `files[2] (src/a.rs): operation "delete" must not have "content"`.
//!
//! - `files` and `patches` together, or neither, are refused (mode exclusivity), and so
//!   is an empty one (a bundle that changes nothing would apply as a success).
//! - `create` and `replace` need `content` and must not have `patches`; `delete` has
//!   neither; `patch` needs a non-empty `patches` (a `content` next to it is ignored with a
//!   warning: the contract says SHOULD NOT); `gitPatch` needs the diff in `content` and
//!   no `patches`.
//! - `path`: relative to `root`, POSIX separators, no `./` prefix, no `..`, not absolute.
//!   `root`: `.`, `./src` or another folder inside the workspace (no `..`, not absolute).
//!   The core then resolves every path against the apply's root, as for every dialect.
//! - A field that looks like a typo of a known one (`contents`) is refused with a
//!   suggestion; any other unknown field is ignored with a warning.
//!
//! # Semantics
//!
//! See [`lower()`]. `find` is a literal substring (it may start and end inside lines);
//! `limit: once` replaces the first occurrence, `all` every occurrence; the edits of one
//! file apply in order, each on the result of the one before. A `gitPatch` diff is applied
//! by the unified dialect inside the same transaction, and must name only its entry's
//! file. Several files apply all or nothing, as in every dialect.

// docs.rs (`--cfg docsrs`, nightly) shows which feature each gated item needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod error;
mod lower;
mod render;
#[cfg(feature = "schema")]
mod schema;
pub mod syntax;

use polypatch_core::{
    Dialect, EditPlan, ErrorKind, FileDelta, ParseOptions, PatchError, RenderError, RenderOptions, ReplyLines,
};

pub use error::KINDS;
pub use lower::{lower, lower_with};
pub use syntax::{Body, Bundle, FileEntry, Find, Limit, MAX_BUNDLE_BYTES, Operation, PatchEntry, extract, parse};

/// The Aptix dialect (`"aptix"`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Aptix;

impl Dialect for Aptix {
    fn name(&self) -> &'static str {
        error::DIALECT
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["aptix-json"]
    }

    fn summary(&self) -> &'static str {
        "Aptix JSON bundles: whole files and find/replace patches"
    }

    fn error_kinds(&self) -> &'static [ErrorKind] {
        error::KINDS
    }

    /// 85 for a JSON object (the whole text, or in a ```` ```json ```` fence) with a
    /// `"path"` or `"root"` key and a `"files"` or `"patches"` key; 50 for one found elsewhere in the
    /// text; else 0.
    fn sniff(&self, text: &str) -> u8 {
        // The keys must be in the bundle, so in the text: without them, no bundle to find.
        let keyed = text.contains("\"path\"") || text.contains("\"root\"");
        if !(keyed && (text.contains("\"files\"") || text.contains("\"patches\""))) {
            return 0;
        }
        sniff_bundle(text)
    }

    fn parse(&self, text: &str) -> Result<EditPlan, PatchError> {
        parse(text).and_then(|bundle| lower(&bundle)).map_err(|e| e.with_source(text))
    }

    /// [`Aptix::parse`] with the binary limits of `options` for `gitPatch` diffs.
    fn parse_with(&self, text: &str, options: &ParseOptions) -> Result<EditPlan, PatchError> {
        parse(text).and_then(|bundle| lower_with(&bundle, options)).map_err(|e| e.with_source(text))
    }

    /// A JSON object that starts a line, to the line of its closing brace
    /// ([`ReplyLines::json_end`]).
    fn bare_block(&self, lines: &ReplyLines<'_>, at: usize, to: usize, _failed: usize) -> Option<usize> {
        if lines.line(at).starts_with('{') { lines.json_end(at, to) } else { None }
    }

    fn fence_tags(&self) -> &'static [&'static str] {
        &["json"]
    }

    /// A file bundle: minimal `find`/`replace` pairs, `gitPatch` for binary content and
    /// modes; in the plain form, whole contents (`replace`). Aptix says every change, so it
    /// never refuses.
    fn render(&self, deltas: &[FileDelta], options: &RenderOptions) -> Result<String, RenderError> {
        let style = if options.plain { render::Style::Replace } else { render::Style::Patch };
        render::render(deltas, style)
    }

    fn prompt(&self) -> Option<&'static str> {
        Some(include_str!("../prompt.txt"))
    }

    /// The schema of a bundle, file bundle or structured patch bundle (with the `schema`
    /// feature).
    #[cfg(feature = "schema")]
    fn schema(&self) -> Option<serde_json::Value> {
        Some(schema::schema())
    }
}

/// [`Aptix::sniff`] without the quick test for the keys: extracts the bundle.
fn sniff_bundle(text: &str) -> u8 {
    let Some(span) = extract(text) else { return 0 };
    let json = &text[span.start..span.end];
    let keyed = json.contains("\"path\"") || json.contains("\"root\"");
    if !(keyed && (json.contains("\"files\"") || json.contains("\"patches\""))) {
        return 0;
    }
    let bare = text.trim_start_matches('\u{feff}').trim_start().starts_with('{');
    let fenced = text[..span.start]
        .lines()
        .last()
        .is_some_and(|l| l.trim_start().starts_with("```") || l.trim_start().starts_with("~~~"));
    if bare || fenced { 85 } else { 50 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quick test before the line-by-line sniff never changes a score: every text of
    /// three lines (LF or CRLF) made of markers, near misses and empty lines.
    #[test]
    fn sniff_quick_test_agrees_with_the_line_scan() {
        const PIECES: &[&str] = &[
            "{",
            "}",
            "\"path\": \"a\",",
            "\"root\": \".\",",
            "\"files\": []",
            "\"patches\": []",
            "```json",
            "```",
            "~~~",
            "x",
            "",
            "{\"path\": 1, \"files\": 2}",
            "path files",
        ];
        for a in PIECES {
            for b in PIECES {
                for c in PIECES {
                    for sep in ["\n", "\r\n"] {
                        let text = [*a, b, c].join(sep);
                        assert_eq!(Aptix.sniff(&text), sniff_bundle(&text), "{text:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn sniff_scores_bundles() {
        let bundle = "{\"root\": \".\", \"files\": [{\"path\": \"a\", \"content\": \"x\"}]}";
        assert_eq!(Aptix.sniff(bundle), 85);
        assert_eq!(Aptix.sniff(&format!("Here:\n```json\n{bundle}\n```\n")), 85);
        assert_eq!(Aptix.sniff(&format!("Here:\n{bundle}\nbye\n")), 50);
        assert_eq!(Aptix.sniff("{\"name\": \"x\"}"), 0);
        assert_eq!(Aptix.sniff("--- a/x.json\n+++ b/x.json\n@@ -1 +1 @@\n {\n-\"path\": 1, \"files\": 2\n+}\n"), 0);
    }
}

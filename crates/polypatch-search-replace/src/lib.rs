//! SEARCH/REPLACE edit blocks, the edit format of Aider ("diff" and "diff-fenced"), Cline
//! (`replace_in_file`) and Roo Code (`apply_diff`), lowered into polypatch's [`EditPlan`].
//!
//! ````
//! use polypatch_core::{apply, ApplyOptions, Dialect, MemoryFileSet, Tier};
//! use polypatch_search_replace::SearchReplace;
//!
//! let patch = "\
//! src/calc.py
//! ```python
//! <<<<<<< SEARCH
//! def add(a, b):
//!     return a - b
//! =======
//! def add(a, b):
//!     return a + b
//! >>>>>>> REPLACE
//! ```
//! ";
//! let plan = SearchReplace.parse(patch).unwrap();
//! let mut files = MemoryFileSet::new().with("src/calc.py", "def add(a, b):\r\n    return a - b\r\n");
//! let report = apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
//! assert_eq!(files.get_str("src/calc.py"), Some("def add(a, b):\r\n    return a + b\r\n"));
//! assert_eq!(report.files[0].edits[0].tier, Some(Tier::Exact));
//! ````
//!
//! # The format
//!
//! ```text
//! <<<<<<< SEARCH
//! <lines to find, copied from the current file>
//! =======
//! <lines that replace them>
//! >>>>>>> REPLACE
//! ```
//!
//! - Markers stand alone on their line, from its start (trailing whitespace allowed):
//!   5 or more `<`, `=` or `>` (models write 5 to 9). Cline's `------- SEARCH` and
//!   `+++++++ REPLACE` (3 or more `-` or `+`) are read too, in any combination.
//! - Roo Code's header lines: after `<<<<<<< SEARCH`, optional `:start_line:N` and
//!   `:end_line:M` lines, then an optional `-------` line (5 or more `-`; without a hint
//!   line, one that the REPLACE section opens with too is content: an underline). A
//!   content line written with a backslash before a marker (`\=======`) loses it.
//! - Which file: the path alone on the line before the opening fence around the blocks
//!   (Aider's "diff"), or on the line before `<<<<<<< SEARCH` (Aider's "diff-fenced", its
//!   path the fence's first line), without `**`, backticks or a trailing colon around it.
//!   A path line counts only when it looks like a path (no spaces, a `.` or `/`): prose
//!   such as `Here is the fix:` names nothing. The blocks after a block in the same fence
//!   (or outside fences) are for the same file until another path line; a block that no
//!   path line names is for the file the caller gives
//!   ([`ParseOptions::file`](polypatch_core::ParseOptions::file), the CLI's `--file
//!   PATH`: Cline's and Roo's tool calls pass the path beside the blocks), else refused
//!   ([`error::MISSING_PATH`]).
//! - Prose, other fences and anything else between blocks is ignored. CRLF patch text and
//!   a leading BOM are accepted.
//!
//! # How blocks apply
//!
//! See [`lower()`]. In short: the SEARCH lines must stand at one place of the file (after
//! the blocks before them; `:start_line:` only chooses among equal places, nearest
//! first); lines the block keeps may match loosely, lines it removes or changes only up to
//! whitespace, indentation and look-alike characters; the REPLACE lines take the file's
//! indentation, line endings, byte order mark and final newline. An empty SEARCH creates
//! a missing file or appends to an existing one (as its file's last block). Aider's `...` lines split a block into
//! pieces. A block already applied is reported so and changes nothing. Blocks for several
//! files in one patch apply all or nothing. A file cannot be deleted or renamed in this
//! format.

mod bare;
pub mod error;
mod lower;
mod render;
pub mod syntax;

use polypatch_core::{
    Dialect, EditPlan, ErrorKind, FileDelta, ParseOptions, PatchError, RenderError, RenderOptions, ReplyLines,
};

pub use error::KINDS;
pub use lower::lower;
pub use syntax::{Block, Patch, parse};

/// The SEARCH/REPLACE dialect (`"search-replace"`).
#[derive(Debug, Clone, Copy, Default)]
pub struct SearchReplace;

impl Dialect for SearchReplace {
    fn name(&self) -> &'static str {
        error::DIALECT
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["searchreplace", "aider", "cline", "roo", "roo-code", "editblock"]
    }

    fn summary(&self) -> &'static str {
        "SEARCH/REPLACE blocks of Aider, Cline (`replace_in_file`) and Roo Code (`apply_diff`)"
    }

    fn error_kinds(&self) -> &'static [ErrorKind] {
        error::KINDS
    }

    /// 95 for a SEARCH marker followed by a divider and a REPLACE marker, 60 for a SEARCH
    /// marker and a divider, 40 for a SEARCH marker alone, else 0.
    fn sniff(&self, text: &str) -> u8 {
        // Every marker that scores holds `SEARCH`: a text without it scores 0 unread.
        if !text.contains("SEARCH") {
            return 0;
        }
        let (mut search, mut divider) = (false, false);
        for line in text.lines() {
            let line = line.strip_prefix('\u{feff}').unwrap_or(line);
            if syntax::is_search(line) {
                search = true;
            } else if search && syntax::is_divider(line) {
                divider = true;
            } else if divider && syntax::is_replace(line) {
                return 95;
            }
        }
        match (search, divider) {
            (true, true) => 60,
            (true, false) => 40,
            _ => 0,
        }
    }

    fn parse(&self, text: &str) -> Result<EditPlan, PatchError> {
        self.parse_with(text, &ParseOptions::default())
    }

    /// Reads [`ParseOptions::file`]: the file of blocks that name none.
    fn parse_with(&self, text: &str, options: &ParseOptions) -> Result<EditPlan, PatchError> {
        parse(text).and_then(|patch| lower(&patch, options.file.as_deref())).map_err(|e| e.with_source(text))
    }

    /// A path line and the fence after it that holds blocks; or a run of blocks (each
    /// maybe after its path line) separated by blank lines.
    fn bare_block(&self, lines: &ReplyLines<'_>, at: usize, to: usize, _failed: usize) -> Option<usize> {
        bare::bare_block(lines, at, to)
    }

    fn fence_tags(&self) -> &'static [&'static str] {
        &["text"]
    }

    /// A block per hunk after its path line, a new file as an empty SEARCH, a file whose
    /// hunks cannot be made unique as one block of the whole file.
    fn render(&self, deltas: &[FileDelta], options: &RenderOptions) -> Result<String, RenderError> {
        render::render(deltas, options.context)
    }

    fn prompt(&self) -> Option<&'static str> {
        Some(include_str!("../prompt.txt"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniff_scores_markers() {
        assert_eq!(SearchReplace.sniff("a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n"), 95);
        assert_eq!(SearchReplace.sniff("------- SEARCH\r\nx\r\n=======\r\ny\r\n+++++++ REPLACE\r\n"), 95);
        assert_eq!(SearchReplace.sniff("<<<<<<< SEARCH\nx\n=======\ny\n"), 60);
        assert_eq!(SearchReplace.sniff("<<<<< SEARCH\nx\n"), 40);
        // Indented markers are a diff's context lines or a file's text, not blocks.
        assert_eq!(SearchReplace.sniff(" <<<<<<< SEARCH\n =======\n >>>>>>> REPLACE\n"), 0);
        assert_eq!(SearchReplace.sniff("SEARCH for this\n=======\n"), 0);
        assert_eq!(SearchReplace.sniff("<<<<<<< HEAD\na\n=======\nb\n>>>>>>> branch\n"), 0);
        assert_eq!(SearchReplace.sniff(""), 0);
    }
}

//! Lazy edit snippets (the edit format of Cursor, Continue's `edit_existing_file`,
//! Copilot's `insert_edit_into_file` and the "fast apply" services), merged into files
//! without a model, as polypatch's `lazy` dialect.
//!
//! A lazy edit is the new version of the part of a file that changes, with a marker such
//! as `// ... existing code ...` standing for each run of unchanged lines left out. The
//! merge here is deterministic and never a guess: where the snippet pins down one merge it
//! is applied, with every guard of the engine (one place for each piece, lines the merge
//! removes never matched by likeness, already-applied detection, all or nothing); where it
//! does not, it is refused, naming the unclear place and the line that would settle it.
//!
//! ````
//! use polypatch_core::{apply, ApplyOptions, Dialect, MemoryFileSet, ParseOptions, Status};
//! use polypatch_lazy::Lazy;
//!
//! let file = "import os\n\ndef add(a, b):\n    return a - b\n\ndef mul(a, b):\n    return a * b\n";
//! let reply = "\
//! Fixed the sign:
//!
//! ```python src/calc.py
//! ## ... existing code ...
//! def add(a, b):
//!     return a + b
//!
//! def mul(a, b):
//! ## ... existing code ...
//! ```
//! ";
//! let plan = Lazy.parse(reply).unwrap();
//! let mut files = MemoryFileSet::new().with("src/calc.py", file);
//! apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
//! assert_eq!(
//!     files.get_str("src/calc.py"),
//!     Some("import os\n\ndef add(a, b):\n    return a + b\n\ndef mul(a, b):\n    return a * b\n")
//! );
//! // Again: the merge changes nothing, and is reported already applied.
//! let report = apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
//! assert_eq!(report.files[0].status, Status::AlreadyApplied);
//!
//! // A bare snippet, for a file the caller names (the CLI's `--file PATH`): it ends with
//! // new lines after the file's last line, so they are appended.
//! let bare = "def mul(a, b):\n    return a * b\n\ndef neg(a):\n    return -a\n";
//! let plan = Lazy.parse_with(bare, &ParseOptions::default().file("src/calc.py")).unwrap();
//! apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
//! assert!(files.get_str("src/calc.py").unwrap().ends_with("    return a * b\n\ndef neg(a):\n    return -a\n"));
//! ````
//!
//! # Reading
//!
//! - The snippet: Morph's `<update>` … `</update>` (its `<code>` tag, the original the
//!   model saw, is not needed: the file is read); else every fenced block whose info
//!   string names a path (```` ```python src/app.py ````, ```` ```ts path=src/x.ts ````,
//!   Cursor's ```` ```12:15:src/x.ts ````) or that has a path alone on the line above it
//!   (`src/app.py`, `**src/app.py**`, `` `src/app.py`: ``); when no fence names a path,
//!   every fence that holds a marker (or every fence), for the file the caller names
//!   ([`ParseOptions::file`](polypatch_core::ParseOptions::file), the CLI's `--file
//!   PATH`); a text without fences is one bare snippet for that file.
//! - Markers: a line that is only a comment (`//`, `#`, `--`, `/* */`, `<!-- -->`, `;`)
//!   saying that code is left out (`... existing code ...`, `...rest of the code...`, `//
//!   ...`, `# … unchanged …`: the vocabulary of [`polypatch_core::elision`]), and a bare
//!   `...` line where that is not code (not Python's `...` statement after a line ending
//!   with `:`, nor a variadic `...`). A marker stands for zero or more unchanged lines.
//!
//! # Meaning
//!
//! The snippet is the new content of the file, each marker standing for a run of the
//! file's lines kept as they are. Lines of the file between two lines of the snippet
//! placed in it with no marker between them are deleted; snippet lines not in the file
//! are new. A snippet that does not start (end) with a marker starts (ends) at the file's
//! start (end) only when its first (last) line is the file's first (last) line; otherwise
//! a marker is assumed there and the report says so.
//!
//! # Placement (see [`Target::Sketch`](polypatch_core::Target::Sketch))
//!
//! Each segment (the lines between two markers) is placed after the one before it: its
//! first lines the file holds, and its last ones, each at one place, found by the engine
//! at the tiers that compare whole lines (exact, trailing whitespace, one indentation
//! shift, trimmed; never by likeness); the file lines between them are aligned with the
//! segment's. New lines take the file's indentation line by line (shifted with it when the
//! snippet was written at another indentation); the file's line endings, byte order mark
//! and final newline are kept. A file that is not UTF-8 is refused (`not_text`), as in the
//! other text dialects (only a unified diff is applied byte for byte). Refused as
//! ambiguous, with the line to add:
//!
//! - a segment whose first lines stand at several places however far they are grown;
//! - new lines right after a marker whose next line the file has at several places
//!   ("add the line above `newLine();` to the snippet");
//! - a new line next to a placed one that resembles the file's line there (a changed
//!   line, or a copy with a typo: unclear which);
//! - a segment whose last line stands at several places and whose nearest place would
//!   remove lines;
//! - a segment that would remove many more lines than it writes between a head and a tail
//!   of one line each (more than 2 more, in all and between some two lines it keeps: the
//!   tail may be a new line that happens to be in the file), or
//!   more than one line before a tail of punctuation alone (`}`, `};`) unless that tail
//!   closes a line the segment keeps or ends the file;
//! - a segment whose last lines stand at another indentation shift than its first ones
//!   (where the first ones stand only at a shift, the last ones are looked for again at
//!   that shift first, at the nearest of their places there after the first lines), and
//!   a snippet indented as a whole whose new line stands, unshifted, among the lines it
//!   removes;
//! - a new line that the file has right outside the segment's place (moved, or written
//!   twice), unless the file has it at several places (a line of a kind it repeats) and
//!   the segment's last lines stand at one place, or it is one of three or more new lines
//!   written between the segment's first and last lines placed, each at one place (an
//!   argument list, a body rewritten: written again like the lines around it);
//! - new lines written right above a line, below the file's blank line (one may have been
//!   left out between them and the line), unless they continue the line's run (each in
//!   its indentation and with its first word), are a sibling item of a list item with its
//!   own lines, or are a doc comment of the line (`///`, `#:`, one `/** */` block, in its
//!   indentation); new lines right below a list item, above the file's blank line, that do
//!   not continue the list (in Markdown they would join the item) or are not such a
//!   sibling, and new lines with a body there below any line (a function right below the
//!   `}` of the one before); and new lines written inside a run of the file's blank lines
//!   (other new lines right below a line, above the file's blank line, are written there:
//!   the other reading needs a blank line the snippet does not have);
//! - new lines at a segment's edge (next to a marker) that stand together elsewhere in
//!   the file (moved, or the place is theirs), or that resemble a file line up to 8 lines
//!   away (a changed line, or a context line copied with a typo), or whose outermost line
//!   is almost (similarity 0.85, 4 letters or digits) a file line up to 200 lines further,
//!   on either side, or resembles a line the segment removes;
//! - a snippet with no marker before (after) it whose first (last) line is punctuation
//!   alone (`"""`, `};`) and the file's first (last) line, placing the removal of more
//!   than one line;
//! - a head grown until it stood at one place when, at another place of its first line,
//!   a new edge line resembles a file line within the segment's reach; and a head found as
//!   written that stands at an indentation shift where more of the segment's lines stand
//!   (the snippet indented as a whole).
//!
//! A repeated first line is placed by the first later line of the segment that follows
//! one of its places only (before its next place); where lines are removed, that line says
//! 8 letters and digits, alone or with the lines the merge keeps right after it (two or
//! more). First lines of punctuation and short words only (`/// ]);`, `}`: fewer than 3
//! letters and digits) that stand at one place place the segment only with a later line
//! it keeps that says enough (8 letters and digits), the lines between them replaced by
//! about as many (removed ≤ written + 2).
//! A repeated last line whose line before it is new (a `};` below a changed line) stands
//! at its first place after the segment's last earlier line that stands at one place,
//! when that line stands no further below the first lines than the segment's lines
//! between them reach (give or take two); else at its first place after the first lines.
//! A first line that stands at several places, grown with the lines after it until the
//! run stands at one place, places lines removed after it only when no other place of
//! that line stands between the run and the next line the merge keeps (a place inside the
//! run itself, `//!` repeated within a doc comment, is none: there the run's other lines
//! would be new copies of the lines beside them); a last line grown backwards likewise
//! only when its run holds the first place of that line after the last line the merge
//! keeps before it (a `}` kept between two changes is no place for the segment's last).
//!
//! A segment between two markers that the file holds whole (a landmark such as the `}`
//! closing a function whose body a marker keeps) changes nothing: it stands at its first
//! place after the segment before it, unless its first or last line stands somewhere the
//! rest of it does not follow (there it would change the file: refused as unclear). The
//! snippet's last segment with no marker after it stands so only as the file's last lines.
//!
//! A segment that is already merged changes nothing and is reported already applied.

pub mod error;
mod lower;
pub mod syntax;

use polypatch_core::{Dialect, EditPlan, ErrorKind, ParseOptions, PatchError};

pub use error::KINDS;
pub use lower::lower;
pub use syntax::{Patch, Snippet, parse, parse_bare};

/// The lazy edit dialect (`"lazy"`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Lazy;

impl Dialect for Lazy {
    fn name(&self) -> &'static str {
        error::DIALECT
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["lazy-edit", "existing-code", "cursor", "morph", "fast-apply"]
    }

    fn summary(&self) -> &'static str {
        "lazy edit snippets: the new code with `// ... existing code ...` markers for unchanged runs (Cursor, Continue, Copilot, Morph), merged without a model"
    }

    fn error_kinds(&self) -> &'static [ErrorKind] {
        error::KINDS
    }

    /// 60 for a fenced block that holds a marker line (`// ... existing code ...`), 50 for
    /// Morph's `<update>` tag, else 0: a plain code block is not a patch.
    fn sniff(&self, text: &str) -> u8 {
        if text.contains("<update>") {
            return 50;
        }
        if !text.contains("...") && !text.contains('…') {
            return 0;
        }
        let mut fenced = false;
        let mut marker = false;
        for line in text.lines() {
            let t = line.trim_start();
            if t.starts_with("```") || t.starts_with("~~~") {
                fenced = true;
            } else if (t.starts_with("//")
                || t.starts_with('#')
                || t.starts_with("/*")
                || t.starts_with("<!--")
                || t.starts_with("--"))
                && polypatch_core::elision::is_elision(line)
            {
                marker = true;
            }
        }
        match (fenced, marker) {
            (true, true) => 60,
            (false, true) => 20,
            _ => 0,
        }
    }

    fn parse(&self, text: &str) -> Result<EditPlan, PatchError> {
        self.parse_with(text, &ParseOptions::default())
    }

    /// Reads [`ParseOptions::file`]: the file of snippets that name none.
    fn parse_with(&self, text: &str, options: &ParseOptions) -> Result<EditPlan, PatchError> {
        parse(text).and_then(|patch| lower(&patch, options.file.as_deref())).map_err(|e| e.with_source(text))
    }

    fn fence_tags(&self) -> &'static [&'static str] {
        &["text"]
    }

    fn prompt(&self) -> Option<&'static str> {
        Some(include_str!("../prompt.txt"))
    }
}

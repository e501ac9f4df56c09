//! Writing a change set back as patch text: what a dialect's
//! [`render`](crate::Dialect::render) is given ([`FileDelta`]s, [`RenderOptions`]), what it
//! refuses with ([`RenderError`], naming the [`Operation`] it cannot say), and the helpers
//! the built-in dialects share ([`text_only`], [`keeps_ends`], [`hunks`]).
//!
//! The facade's `convert` computes a patch against the files, turns the changes into one
//! [`FileDelta`] per file, asks the target dialect to render them, and checks the text by
//! applying it again at the exact tier. A renderer only writes: it need not prove its text
//! applies, but what it cannot say exactly it refuses up front with the operation and the
//! file, so that the user learns which dialect to use instead.
//!
//! ```
//! use polypatch_core::render::{FileDelta, Side, text_only};
//! use polypatch_core::Operation;
//!
//! let delta = FileDelta::new("old.txt", Some(Side::new(b"bye\n".to_vec(), None)), None);
//! let err = text_only("sed", &delta, false, false).unwrap_err();
//! assert_eq!(err.operation(), Some(Operation::Delete));
//! assert_eq!(
//!     err.to_string(),
//!     "sed cannot express deleting a file (`old.txt`): its spec has no operation that deletes a file"
//! );
//! ```

pub mod hunks;

use std::fmt;

use crate::dialect_name::DialectName;

/// One file's change, with the bytes and modes on both sides.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileDelta {
    /// The path before (for a creation: the new path).
    pub path: String,
    /// The content before, `None` for a creation.
    pub before: Option<Side>,
    /// The content after, `None` for a deletion.
    pub after: Option<Side>,
    /// The path after, for a rename.
    pub renamed_to: Option<String>,
}

/// One side of a [`FileDelta`]: a file's bytes and mode.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Side {
    /// The exact content.
    pub bytes: Vec<u8>,
    /// The file's mode, where the file set knows it (`0o755`, `0o100644`, …).
    pub mode: Option<u32>,
}

impl Side {
    /// A side with these bytes and mode.
    pub fn new(bytes: Vec<u8>, mode: Option<u32>) -> Self {
        Side { bytes, mode }
    }
}

impl FileDelta {
    /// A change of the file at `path`: `before: None` creates it, `after: None` deletes it.
    pub fn new(path: impl Into<String>, before: Option<Side>, after: Option<Side>) -> Self {
        FileDelta { path: path.into(), before, after, renamed_to: None }
    }

    /// Builder: the file moves to `to` (with `after` as its content there).
    #[must_use]
    pub fn renamed_to(mut self, to: impl Into<String>) -> Self {
        self.renamed_to = Some(to.into());
        self
    }

    /// Whether the executable bit differs between the sides (a new file: whether it is set).
    pub fn mode_changes(&self) -> bool {
        let exec = |side: &Option<Side>| side.as_ref().and_then(|s| s.mode).is_some_and(|m| m & 0o111 != 0);
        match (&self.before, &self.after) {
            (Some(_) | None, Some(_)) => exec(&self.before) != exec(&self.after),
            _ => false,
        }
    }

    /// The path the file has afterwards.
    pub fn new_path(&self) -> &str {
        self.renamed_to.as_deref().unwrap_or(&self.path)
    }
}

/// How a dialect writes the deltas.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RenderOptions {
    /// Lines of context asked for around each change, where the dialect has context; a
    /// dialect adds more where its rules need them to place a change in one place, and may
    /// write fewer where its spec asks for the shortest unique snippet. Default 3.
    pub context: usize,
    /// Asks for the dialect's plainest form: the facade renders once with `false`, and
    /// when that text does not give back the same bytes applied at the exact tier, once
    /// more with `true` (Aptix writes whole contents, AI-PATCH context only without scope
    /// lines, ap single snippets without ranges). A dialect without a plainer form ignores
    /// it: the second text is then the first, and the facade does not try it again.
    pub plain: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions { context: 3, plain: false }
    }
}

impl RenderOptions {
    /// Builder: lines of context around each change.
    #[must_use]
    pub fn context(mut self, lines: usize) -> Self {
        self.context = lines;
        self
    }

    /// Builder: the plainest form ([`RenderOptions::plain`]).
    #[must_use]
    pub fn plain(mut self, yes: bool) -> Self {
        self.plain = yes;
        self
    }
}

/// Something a dialect has no way to say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Operation {
    /// Deleting a file.
    Delete,
    /// Renaming (moving) a file.
    Rename,
    /// Setting a file's executable bit, or changing its mode.
    Mode,
    /// Content that is not UTF-8 text, or holds a NUL byte.
    Binary,
    /// A line terminator the dialect cannot write: a CRLF line in a new file, a line's
    /// terminator changed, or a mixture the dialect's rules do not keep.
    LineEnding,
    /// Adding or removing the final newline of a file.
    FinalNewline,
    /// A byte order mark added or removed.
    ByteOrderMark,
    /// Trailing spaces or tabs on a line of a changed file (`ap` removes them, §3.5).
    TrailingWhitespace,
    /// A line the dialect reserves as a marker (`ApplyDiff`: `<`, `--- to`, `>>> file:` …).
    MarkerLine,
    /// Text the dialect's locating rules cannot pin to one place (an empty file to edit
    /// in `ap`, a change whose indentation `ap` would rewrite, a file that repeats itself
    /// throughout), or that a re-run would apply again (lines added next to the same lines).
    Edit,
}

impl Operation {
    /// The stable snake-case name (as in JSON).
    pub fn name(self) -> &'static str {
        match self {
            Operation::Delete => "delete",
            Operation::Rename => "rename",
            Operation::Mode => "mode",
            Operation::Binary => "binary",
            Operation::LineEnding => "line_ending",
            Operation::FinalNewline => "final_newline",
            Operation::ByteOrderMark => "byte_order_mark",
            Operation::TrailingWhitespace => "trailing_whitespace",
            Operation::MarkerLine => "marker_line",
            Operation::Edit => "edit",
        }
    }

    /// What the operation is, in words (`"deleting a file"`), as error messages say it.
    pub fn describe(self) -> &'static str {
        match self {
            Operation::Delete => "deleting a file",
            Operation::Rename => "renaming a file",
            Operation::Mode => "a file mode (executable bit)",
            Operation::Binary => "binary content",
            Operation::LineEnding => "this line-ending change",
            Operation::FinalNewline => "adding or removing a final newline",
            Operation::ByteOrderMark => "adding or removing a byte order mark",
            Operation::TrailingWhitespace => "trailing whitespace",
            Operation::MarkerLine => "a line that is one of its markers",
            Operation::Edit => "this edit exactly",
        }
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a dialect wrote no text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// The dialect cannot express something the change does.
    #[error("{dialect} cannot express {} (`{path}`): {detail}", operation.describe())]
    Inexpressible {
        /// The dialect.
        dialect: DialectName,
        /// What it cannot say.
        operation: Operation,
        /// The file concerned.
        path: String,
        /// Why, and what to do instead.
        detail: String,
    },
    /// The dialect is read only: it has no renderer (the default of
    /// [`Dialect::render`](crate::Dialect::render)).
    #[error("{dialect} cannot be written, only read; convert to `unified`, which says every change")]
    NotWritable {
        /// The dialect.
        dialect: DialectName,
    },
}

impl RenderError {
    /// The operation, for [`RenderError::Inexpressible`].
    pub fn operation(&self) -> Option<Operation> {
        match self {
            RenderError::Inexpressible { operation, .. } => Some(*operation),
            RenderError::NotWritable { .. } => None,
        }
    }
}

/// Text, when the bytes are UTF-8 without NUL.
///
/// ```
/// use polypatch_core::render::text;
///
/// assert_eq!(text(b"a\n"), Some("a\n"));
/// assert_eq!(text(b"a\0"), None);
/// assert_eq!(text(b"\xff"), None);
/// ```
pub fn text(bytes: &[u8]) -> Option<&str> {
    if bytes.contains(&0) {
        return None;
    }
    std::str::from_utf8(bytes).ok()
}

/// What a text-only dialect refuses up front, for every delta: binary content and a file
/// mode; plus, where the dialect lacks them (`delete`, `rename` false), deletion and
/// renaming.
pub fn text_only(dialect: &'static str, delta: &FileDelta, delete: bool, rename: bool) -> Result<(), RenderError> {
    if delta.after.is_none() && !delete {
        return Err(refuse(dialect, Operation::Delete, delta, "its spec has no operation that deletes a file"));
    }
    // A deletion does not write the content it removes.
    let sides = if delta.after.is_some() { [&delta.before, &delta.after] } else { [&None, &None] };
    if sides.iter().any(|s| s.as_ref().is_some_and(|s| text(&s.bytes).is_none())) {
        return Err(refuse(
            dialect,
            Operation::Binary,
            delta,
            "it is a text format; a git diff carries binary content",
        ));
    }
    if delta.renamed_to.is_some() && !rename {
        return Err(refuse(
            dialect,
            Operation::Rename,
            delta,
            "its spec can create the new file but not delete the old one",
        ));
    }
    if delta.mode_changes() {
        return Err(refuse(dialect, Operation::Mode, delta, "its spec has no file modes; a git diff carries them"));
    }
    Ok(())
}

/// An inexpressible operation on a delta's file.
pub fn refuse(dialect: &'static str, operation: Operation, delta: &FileDelta, detail: &str) -> RenderError {
    RenderError::Inexpressible {
        dialect: DialectName::new(dialect),
        operation,
        path: delta.path.clone(),
        detail: detail.to_owned(),
    }
}

/// The text of both sides of a delta that [`text_only`] accepted (`""` for a missing side).
pub fn texts(delta: &FileDelta) -> (&str, &str) {
    fn side(s: Option<&Side>) -> &str {
        s.and_then(|s| text(&s.bytes)).unwrap_or("")
    }
    (side(delta.before.as_ref()), side(delta.after.as_ref()))
}

/// Refuses a change to a file's final newline or byte order mark, which a dialect that
/// keeps a file's own cannot make.
pub fn keeps_ends(dialect: &'static str, delta: &FileDelta, before: &str, after: &str) -> Result<(), RenderError> {
    if before.ends_with('\n') != after.ends_with('\n') && !before.is_empty() && !after.is_empty() {
        return Err(refuse(
            dialect,
            Operation::FinalNewline,
            delta,
            "an edit keeps the file's own final newline or its absence",
        ));
    }
    if before.starts_with('\u{feff}') != after.starts_with('\u{feff}') {
        return Err(refuse(dialect, Operation::ByteOrderMark, delta, "an edit keeps the file's own byte order mark"));
    }
    Ok(())
}

/// A text without its byte order mark: the engine reads a file's mark apart from its first
/// line, and a dialect that keeps it ([`keeps_ends`]) need not write it.
pub fn unmarked(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

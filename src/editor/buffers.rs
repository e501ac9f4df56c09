//! The typed entry point: an editor's buffers, a patch or a whole reply, the new texts.

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;

use super::BuffersOverRoot;
use super::lsp::{TextEdit, text_edits};
use crate::reply::ReplyReport;
use crate::{ApplyOptions, ParseOptions, ReplyError};
use polypatch_core::{Entry, FileSource, PathError, RelPath, Status};

/// An editor's open buffers (path → text), over a directory the files it does not hold
/// are read from, read-only. [`Buffers::apply`] applies a patch or a whole chat reply to
/// them and returns the new texts; nothing is ever written, not even under the root.
///
/// ```
/// use polypatch::ApplyOptions;
/// use polypatch::editor::Buffers;
///
/// let buffers = Buffers::new().with("a.txt", "one\n");
/// let outcome = buffers.apply("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n", &ApplyOptions::default())?;
/// assert_eq!(outcome.texts["a.txt"], "two\n");
/// # Ok::<(), polypatch::editor::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Buffers {
    files: BTreeMap<String, String>,
    root: Option<PathBuf>,
}

impl Buffers {
    /// No buffers and no root: every file the patch reads must be a buffer.
    pub fn new() -> Self {
        Buffers::default()
    }

    /// Builder: adds the buffer of `path` (relative to the root), holding `text`. A buffer
    /// wins over the file on disk.
    #[must_use]
    pub fn with(mut self, path: impl Into<String>, text: impl Into<String>) -> Self {
        self.insert(path, text);
        self
    }

    /// Adds (or replaces) the buffer of `path`.
    pub fn insert(&mut self, path: impl Into<String>, text: impl Into<String>) {
        self.files.insert(path.into(), text.into());
    }

    /// Builder: the directory the files without a buffer are read from (never written).
    #[must_use]
    pub fn root(mut self, root: impl Into<PathBuf>) -> Self {
        self.root = Some(root.into());
        self
    }

    /// Applies `text`, a patch in any dialect or a whole chat reply holding patch blocks
    /// (fenced or bare, of any dialects: see [`crate::reply`]), to the buffers, the blocks
    /// in order as one transaction. Nothing is written anywhere.
    pub fn apply(&self, text: &str, options: &ApplyOptions) -> Result<Outcome, Error> {
        self.apply_with(text, options, &ParseOptions::default())
    }

    /// [`Buffers::apply`] with parse options (a diff's strip level, the binary size limit).
    pub fn apply_with(&self, text: &str, options: &ApplyOptions, parse: &ParseOptions) -> Result<Outcome, Error> {
        // An editor's text is text: a character of U+10FF80..=U+10FFFF in the patch is that
        // character (its four bytes written), not the byte the engine's text stands for
        // with it (`decode_lossless`).
        let text = polypatch_core::decode_lossless(text.as_bytes());
        let text = text.as_ref();
        let source =
            BuffersOverRoot::new(self.files.iter().map(|(p, t)| (p.as_str(), t.as_str())), self.root.as_deref())
                .map_err(|err| match err {
                    super::OverlayError::Root(err) => Error::Root(err),
                    super::OverlayError::Buffer { path, source } => Error::Buffer { path, source },
                })?;
        let blocks = crate::reply::plan_reply(text, parse)?;
        let computed = crate::reply::compute_blocks(&blocks, &source, options)?;
        let mut report = computed.report;
        if !options.dry_run {
            // Delivered in `texts`: for buffers, that is what written means.
            report.committed = true;
            for block in &mut report.blocks {
                block.report.mark_committed();
                if block.status == Status::Located {
                    block.status = Status::Applied;
                }
            }
        }

        // Moves, chained over the blocks (a → b, then b → c: a → c).
        let mut moved: BTreeMap<String, String> = BTreeMap::new();
        for (_, file) in report.files() {
            let Some(to) = &file.moved_to else { continue };
            let from = moved.iter().find(|(_, target)| **target == file.path).map(|(from, _)| from.clone());
            let from = from.unwrap_or_else(|| file.path.clone());
            if from == *to {
                moved.remove(&from);
            } else {
                moved.insert(from, to.clone());
            }
        }
        let mut texts = BTreeMap::new();
        let mut deleted = Vec::new();
        let mut gone = Vec::new();
        for change in &computed.changes {
            let path = change.path.as_str();
            match change.kind.written() {
                Some((bytes, _)) => {
                    let new =
                        String::from_utf8(bytes.to_vec()).map_err(|_| Error::NotText { path: path.to_string() })?;
                    texts.insert(path.to_string(), new);
                }
                None => gone.push(path.to_string()),
            }
        }
        // A move whose target is gone again is a deletion of its source.
        moved.retain(|_, to| texts.contains_key(to));
        let mut before = BTreeMap::new();
        for path in gone {
            if !moved.contains_key(&path) && existed(&source, &path)? {
                deleted.push(path);
            }
        }
        let targets: BTreeMap<&String, &String> = moved.iter().map(|(from, to)| (to, from)).collect();
        let mut unchanged = Vec::new();
        for (path, new) in &texts {
            // A moved file's edits are against the text it was moved from: an editor renames
            // the document, then edits it.
            let base = targets.get(path).map_or(path.as_str(), |from| from.as_str());
            let old = old_text(&source, base)?;
            if base == path && old.as_deref() == Some(new.as_str()) {
                unchanged.push(path.clone());
            }
            before.insert(path.clone(), old.unwrap_or_default());
        }
        for path in unchanged {
            texts.remove(&path);
            before.remove(&path);
        }
        Ok(Outcome { texts, deleted, moved, report, before })
    }
}

/// The text `path` holds before the patch (its buffer, else its file under the root), or
/// `None` when there is no such file.
fn old_text(source: &BuffersOverRoot, path: &str) -> Result<Option<String>, Error> {
    let rel = source.resolve(path).map_err(|err| Error::Buffer { path: path.to_string(), source: err })?;
    let read = |rel: &RelPath| source.read(rel).map_err(|err| Error::Read { path: path.to_string(), source: err });
    match read(&rel)? {
        Entry::File { bytes, .. } => match String::from_utf8(bytes.to_vec()) {
            Ok(text) => Ok(Some(text)),
            Err(_) => Err(Error::NotText { path: path.to_string() }),
        },
        _ => Ok(None),
    }
}

/// Whether `path` is a file before the patch.
fn existed(source: &BuffersOverRoot, path: &str) -> Result<bool, Error> {
    let rel = source.resolve(path).map_err(|err| Error::Buffer { path: path.to_string(), source: err })?;
    let entry = source.read(&rel).map_err(|err| Error::Read { path: path.to_string(), source: err })?;
    Ok(matches!(entry, Entry::File { .. }))
}

/// What applying to [`Buffers`] gives: the new texts, what is deleted and moved, and the
/// report of every block.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Outcome {
    /// The new text of every file whose text changes or that is created (a moved file
    /// under its new path), by root-relative path. A file whose text stays the same (a
    /// mode change) is not in it.
    pub texts: BTreeMap<String, String>,
    /// The files that are deleted, in path order (a moved file's old path is in
    /// [`Outcome::moved`] instead).
    pub deleted: Vec<String>,
    /// The files moved: old path → new path, a file moved twice by the blocks of a reply
    /// under its first and its last path.
    pub moved: BTreeMap<String, String>,
    /// What each block did. Its status is `applied` (the texts are delivered), or `located`
    /// for a dry run.
    pub report: ReplyReport,
    /// The text each path of `texts` had before (for a moved file, the text at its old
    /// path; empty for a new file).
    before: BTreeMap<String, String>,
}

impl Outcome {
    /// The LSP edits that turn the text `path` had into its new text ([`text_edits`]), for
    /// an editor that applies them through its own undo stack; `None` when `path` is not
    /// in [`Outcome::texts`]. A moved file's edits are against the text of its old path
    /// (rename the document, then edit it); a new file's against the empty text.
    ///
    /// ```
    /// use polypatch::ApplyOptions;
    /// use polypatch::editor::{Buffers, Position, Range, TextEdit};
    ///
    /// let buffers = Buffers::new().with("a.txt", "a\r\nhi 👋 there\r\n");
    /// let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n a\n-hi 👋 there\n+hi 👋 you\n*** End Patch\n";
    /// let outcome = buffers.apply(patch, &ApplyOptions::default()).unwrap();
    /// let edit = TextEdit::new(Range::new(Position::new(1, 6), Position::new(1, 11)), "you");
    /// assert_eq!(outcome.text_edits("a.txt"), Some(vec![edit]));
    /// ```
    pub fn text_edits(&self, path: &str) -> Option<Vec<TextEdit>> {
        let new = self.texts.get(path)?;
        Some(text_edits(self.before.get(path).map_or("", String::as_str), new))
    }

    /// The text `path` of [`Outcome::texts`] had before the patch (for a moved file, its
    /// old path's; empty for a new file).
    pub fn before(&self, path: &str) -> Option<&str> {
        self.before.get(path).map(String::as_str)
    }
}

/// Why [`Buffers::apply`] gave no texts. Nothing was written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The text holds no patch, a block is malformed, or an edit could not be located: the
    /// reply's error, its report naming the block, file, edit and reason.
    #[error(transparent)]
    Reply(#[from] ReplyError),
    /// The root directory cannot be opened (the message names it).
    #[error(transparent)]
    Root(io::Error),
    /// A buffer's path is not a path under the root.
    #[error("the buffer `{path}`: {source}")]
    Buffer {
        /// The path as given.
        path: String,
        /// Why it is refused.
        source: PathError,
    },
    /// A file the patch changes could not be read from the root.
    #[error("cannot read `{path}` under the root: {source}")]
    Read {
        /// The file.
        path: String,
        /// The system's error.
        source: io::Error,
    },
    /// A file's old or new content is not UTF-8 text (a binary patch, a Latin-1 file under
    /// the root): buffers hold text.
    #[error(
        "the content of `{path}` is not UTF-8 text, and buffers hold text only; apply this patch to the files on disk instead"
    )]
    NotText {
        /// The file.
        path: String,
    },
}

impl Error {
    /// The reply's report when the patch could not be applied (which block, file and edit
    /// failed, and why).
    pub fn report(&self) -> Option<&ReplyReport> {
        match self {
            Error::Reply(ReplyError::NotApplied { report, .. }) => Some(report),
            _ => None,
        }
    }
}

#[cfg(all(test, feature = "ai-patch", feature = "unified"))]
mod tests;

//! An editor's unsaved buffers, patched in memory: [`Buffers`] for a Rust editor, and the
//! editor protocol (JSON in, JSON out) for any other. Neither touches the disk.
//!
//! # Buffers
//!
//! [`Buffers`] holds the open buffers (path → text) over an optional root that the files
//! without a buffer are read from, read-only. [`Buffers::apply`] takes a bare patch in any
//! dialect or a model's whole reply (every block in it, as one transaction) and returns an
//! [`Outcome`]: the new `texts` of the files that change, the `deleted` and `moved` paths,
//! the `report`; and, for an editor that applies through its own undo stack,
//! [`Outcome::text_edits`] in the Language Server Protocol's shape (0-based lines, UTF-16
//! characters). A failure is an [`Error`] whose message names the block, file, edit and
//! what to do next, and whose [`report`](Error::report) says what each block did.
//!
//! ```
//! use polypatch::{ApplyOptions, editor::{Buffers, Position, Range, TextEdit}};
//!
//! let reply = "Rename it:\n```diff\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-fn old() {}\n+fn new() {}\n```\n";
//! let buffers = Buffers::new().with("src/lib.rs", "fn old() {}\n"); // `.root(dir)`: the files not open
//! // An `Err` says which block, file and edit failed, why, and what to do: hand it to the model.
//! let outcome = buffers.apply(reply, &ApplyOptions::default())?;
//! assert_eq!(outcome.texts["src/lib.rs"], "fn new() {}\n");
//! let edit = TextEdit::new(Range::new(Position::new(0, 3), Position::new(0, 6)), "new");
//! assert_eq!(outcome.text_edits("src/lib.rs"), Some(vec![edit]));
//! # Ok::<(), polypatch::editor::Error>(())
//! ```
//!
//! # The protocol
//!
//! A [`Request`] carries the patch and the buffers (`path` → text). Files the patch needs
//! that the request lacks are read, read-only, from a root directory when one is given;
//! without one they are missing, and an edit of such a file fails naming it
//! (`file_missing`). The [`Response`] is the [`ReportDocument`] of the run plus `files`:
//! the new text of every file the patch changes, `null` for a file it deletes. `files` is
//! always present and empty unless the run succeeded.
//!
//! The protocol carries text: buffers are JSON strings, and a file whose new content would
//! not be UTF-8 (a binary patch, a Latin-1 file read from the root) fails the run with
//! `not_text` rather than having its bytes altered.
//!
//! ```
//! use polypatch::editor::{self, Request};
//!
//! let request = Request::new("*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch\n")
//!     .with_file("a.txt", "one\n");
//! let response = editor::handle(&request, None);
//! assert_eq!(response.files["a.txt"].as_deref(), Some("two\n"));
//! assert_eq!(response.document.status, polypatch::report::Outcome::Applied);
//! ```

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::document::ReportDocument;
use crate::{ApplyOptions, ApplyReport, DiskFileSet, MemoryFileSet, ParseOptions};
use polypatch_core::{Entry, Failure, FailureKind, FileSource, PathError, ReadHash, RelPath, StaleRead, Status};

mod buffers;
mod lsp;

pub use buffers::{Buffers, Error, Outcome};
pub use lsp::{Position, Range, TextEdit, text_edits};

/// What an editor sends: the patch, its format, the buffers, the options.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
#[allow(clippy::struct_excessive_bools, reason = "the apply's switches, each read in one place")]
pub struct Request {
    /// The patch text, in any dialect.
    pub patch: String,
    /// The dialect's name, or `auto` (the default) to detect it.
    #[serde(default = "auto")]
    pub format: String,
    /// The buffers: root-relative path → full text. They win over the files on disk.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// Accept exact matches only.
    #[serde(default)]
    pub strict: bool,
    /// Report a text replacement whose `find` is not in the file as skipped instead of
    /// failing (the Aptix specs' no-op).
    #[serde(default)]
    pub skip_missing_find: bool,
    /// Let the patch change git's repository directory (a path with a `.git` component),
    /// as `--allow-git-dir` does; refused by default.
    #[serde(default)]
    pub allow_git_dir: bool,
    /// Let a line the patch removes match the file's by likeness (the fuzzy tier), as
    /// `--allow-fuzzy-removals` does; refused by default.
    #[serde(default)]
    pub allow_fuzzy_removals: bool,
    /// Strip this many leading components from a diff's paths (default: `a/` and `b/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strip: Option<usize>,
    /// The stale-read guard: path → the hash (`sha256:…`) of the content the patch was
    /// written against; a file that no longer has it is refused (see
    /// [`ApplyOptions::read_hashes`]). A buffer's hash is of its text as given.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub read_hashes: BTreeMap<String, ReadHash>,
    /// What a file changed since it was read does: `refuse` (the default) or `exact`.
    #[serde(default)]
    pub stale_read: StaleRead,
}

fn auto() -> String {
    "auto".to_string()
}

impl Request {
    /// A request to apply `patch`, format detected, no buffers, default options.
    pub fn new(patch: impl Into<String>) -> Self {
        Request {
            patch: patch.into(),
            format: auto(),
            files: BTreeMap::new(),
            strict: false,
            skip_missing_find: false,
            allow_git_dir: false,
            allow_fuzzy_removals: false,
            strip: None,
            read_hashes: BTreeMap::new(),
            stale_read: StaleRead::default(),
        }
    }

    /// Builder: adds a buffer.
    #[must_use]
    pub fn with_file(mut self, path: impl Into<String>, text: impl Into<String>) -> Self {
        self.files.insert(path.into(), text.into());
        self
    }

    /// Builder: names the dialect (`auto` detects it).
    #[must_use]
    pub fn format(mut self, format: impl Into<String>) -> Self {
        self.format = format.into();
        self
    }

    /// Builder: exact matches only.
    #[must_use]
    pub fn strict(mut self, yes: bool) -> Self {
        self.strict = yes;
        self
    }
}

/// What the editor gets back: the run's document and the new buffers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Response {
    /// The run's document (`version`, `status`, `report` or `error`, `warnings`).
    #[serde(flatten)]
    pub document: ReportDocument,
    /// The new text of every file the patch changes or creates, `null` for a file it
    /// deletes (a move gives both). Files it does not change are left out. Empty unless
    /// the status is `applied` or `already_applied`.
    pub files: BTreeMap<String, Option<String>>,
}

impl Response {
    fn without_files(document: ReportDocument) -> Self {
        Response { document, files: BTreeMap::new() }
    }

    /// The response to a request that could not be read at all: status `usage_error`.
    pub fn usage(message: impl Into<String>) -> Self {
        Response::without_files(ReportDocument::usage(message))
    }

    /// The response as one line of JSON, without a trailing newline.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|err| ReportDocument::usage(err.to_string()).to_json())
    }
}

/// Parses a request from JSON and handles it. Text that is not a request gives a
/// `usage_error` response saying what is wrong.
///
/// ```
/// let request = r#"{"patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n", "files": {"a.txt": "one\n"}}"#;
/// let response = polypatch::editor::handle_json(request, None);
/// assert_eq!(response.files["a.txt"].as_deref(), Some("two\n"));
/// let json: serde_json::Value = serde_json::from_str(&response.to_json()).unwrap();
/// assert_eq!((json["version"].as_u64(), json["status"].as_str()), (Some(1), Some("applied")));
/// assert_eq!(polypatch::editor::handle_json("{", None).document.status, polypatch::report::Outcome::UsageError);
/// ```
pub fn handle_json(text: &str, root: Option<&Path>) -> Response {
    match serde_json::from_str::<Request>(text) {
        Ok(request) => handle(&request, root),
        Err(err) => Response::usage(format!("the request is not valid: {err}")),
    }
}

/// Applies the request's patch to its buffers (and, for files it lacks, to the files
/// under `root`, read-only) and answers with the new contents. Nothing is written.
///
/// ```
/// use polypatch::editor::{handle, Request};
///
/// let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** Delete File: b.txt\n*** End Patch\n";
/// let request = Request::new(patch).with_file("a.txt", "one\n").with_file("b.txt", "bye\n");
/// let response = handle(&request, None);
/// assert_eq!(response.files["a.txt"].as_deref(), Some("two\n"));
/// assert_eq!(response.files["b.txt"], None); // deleted
/// ```
pub fn handle(request: &Request, root: Option<&Path>) -> Response {
    let files = request.files.iter().map(|(path, text)| (path.as_str(), text.as_str()));
    let source = match BuffersOverRoot::new(files, root) {
        Ok(source) => source,
        // The error names the root and what failed.
        Err(OverlayError::Root(err)) => return Response::without_files(ReportDocument::usage(err.to_string())),
        Err(OverlayError::Buffer { path, source }) => {
            return Response::without_files(ReportDocument::usage(format!("the request's file `{path}`: {source}")));
        }
    };
    let format = match request.format.parse::<crate::Format>() {
        Ok(format) => format,
        Err(err) => return Response::without_files(ReportDocument::usage(err.to_string())),
    };
    let mut parse_options = ParseOptions::default();
    if let Some(n) = request.strip {
        parse_options = parse_options.strip(n);
    }
    // The request's patch is text: a character of U+10FF80..=U+10FFFF is that character,
    // not the byte the engine's text stands for with it.
    let patch = polypatch_core::decode_lossless(request.patch.as_bytes());
    let plan = match crate::parse_with(&patch, format, &parse_options) {
        Ok(plan) => plan,
        Err(err) => return Response::without_files(ReportDocument::malformed(&err, &patch)),
    };
    let mut options = ApplyOptions::default()
        .strict(request.strict)
        .skip_missing_text(request.skip_missing_find)
        .allow_git_dir(request.allow_git_dir)
        .allow_fuzzy_removals(request.allow_fuzzy_removals)
        .stale_read(request.stale_read);
    options.read_hashes.clone_from(&request.read_hashes);
    let computed = match crate::compute(&plan, &source, &options) {
        Ok(computed) => computed,
        Err(err) => {
            return Response::without_files(ReportDocument::failure(&err).with_warnings(&plan.warnings));
        }
    };
    let mut report = computed.report;
    let mut files = BTreeMap::new();
    let mut not_text = Vec::new();
    for change in &computed.changes {
        let path = change.path.as_str().to_string();
        match change.kind.written() {
            Some((bytes, _)) => match String::from_utf8(bytes.to_vec()) {
                Ok(text) => {
                    files.insert(path, Some(text));
                }
                Err(_) => not_text.push(path),
            },
            None => {
                files.insert(path, None);
            }
        }
    }
    if !not_text.is_empty() {
        refuse_not_text(&mut report, &not_text);
        return Response::without_files(ReportDocument::failed(&report).with_warnings(&plan.warnings));
    }
    // Delivered in `files`: in this protocol that is what written means.
    report.mark_committed();
    Response { document: ReportDocument::success(&report).with_warnings(&plan.warnings), files }
}

/// Marks the operations whose new content is not UTF-8 as failed.
fn refuse_not_text(report: &mut ApplyReport, paths: &[String]) {
    for file in &mut report.files {
        let target = file.moved_to.as_ref().unwrap_or(&file.path);
        if paths.contains(target) {
            file.status = Status::Failed;
            file.failure = Some(Failure::new(
                FailureKind::NotText,
                format!("the new content of `{target}` is not UTF-8 text, and the editor protocol carries text only"),
                "apply this patch to the files on disk instead",
            ));
        }
    }
}

/// The buffers over the files under the root (or over nothing).
struct BuffersOverRoot {
    buffers: MemoryFileSet,
    disk: Option<DiskFileSet>,
}

/// Why the buffers and the root cannot be read at all.
enum OverlayError {
    /// The root cannot be opened (the message names it).
    Root(io::Error),
    /// A buffer's path is not one under the root.
    Buffer { path: String, source: PathError },
}

impl BuffersOverRoot {
    fn new<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>, root: Option<&Path>) -> Result<Self, OverlayError> {
        let disk = match root {
            Some(root) => Some(DiskFileSet::new(root).map_err(OverlayError::Root)?),
            None => None,
        };
        let mut overlay = BuffersOverRoot { buffers: MemoryFileSet::new(), disk };
        for (path, text) in files {
            let rel =
                overlay.resolve(path).map_err(|source| OverlayError::Buffer { path: path.to_string(), source })?;
            overlay.buffers.insert(rel.as_str(), text.as_bytes());
        }
        Ok(overlay)
    }
}

impl FileSource for BuffersOverRoot {
    fn resolve(&self, path: &str) -> Result<RelPath, PathError> {
        match &self.disk {
            Some(disk) => disk.resolve(path),
            None => self.buffers.resolve(path),
        }
    }

    fn as_written(&self, path: &str) -> Result<RelPath, PathError> {
        match &self.disk {
            Some(disk) => disk.as_written(path),
            None => self.buffers.as_written(path),
        }
    }

    fn read(&self, path: &RelPath) -> io::Result<Entry> {
        match (self.buffers.read(path)?, &self.disk) {
            (Entry::Missing, Some(disk)) => disk.read(path),
            (entry, _) => Ok(entry),
        }
    }

    fn is_symlink(&self, path: &str) -> bool {
        self.disk.as_ref().is_some_and(|disk| disk.is_symlink(path))
    }
}

#[cfg(all(test, feature = "ai-patch"))]
mod tests;

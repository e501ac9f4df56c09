//! polypatch turns the edit blocks that language models (and people) write into exact,
//! safe changes to files.
//!
//! Each patch dialect parses into one [`EditPlan`]; one matching engine locates every
//! edit, reporting how strictly it matched ([`Tier`](report::Tier)) and refusing ambiguous places; one
//! transaction applies the whole plan or nothing.
//!
//! # Three common paths
//!
//! **One file's text in memory** ([`apply_str`]): any dialect, detected; the new text, or
//! an error that says what to do.
//!
//! ```
//! let patch = "--- a/greet.py\n+++ b/greet.py\n@@ -1,2 +1,2 @@\n def hi():\n-    print('hi')\n+    print('hello')\n";
//! match polypatch::apply_str(patch, "greet.py", "def hi():\n    print('hi')\n") {
//!     Ok(new) => assert_eq!(new, "def hi():\n    print('hello')\n"),
//!     // Malformed (with line and column), not applied (the report names the edit, the
//!     // reason and the closest place), or a patch for another file.
//!     Err(e) => panic!("{e}"),
//! }
//! ```
//!
//! **A model's whole reply, applied to a directory** ([`apply_text`] on a
//! [`DiskFileSet`]): every patch block in the reply, of any dialects, as one transaction,
//! all files or none.
//!
//! ```
//! use polypatch::{ApplyOptions, DiskFileSet, ReplyError};
//!
//! # let dir = tempfile::tempdir().unwrap();
//! # std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
//! let reply = "Here is the fix:\n\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n```\n";
//! let mut files = DiskFileSet::new(dir.path()).expect("the root can be opened");
//! match polypatch::apply_text(reply, &mut files, &ApplyOptions::default()) {
//!     Ok(report) => assert!(report.is_success()),
//!     // What to tell the model: the block, the file, the edit and the next step.
//!     Err(ReplyError::NotApplied { report, .. }) => {
//!         let first = report.first_failure().expect("a failed block");
//!         panic!("{}: {}", first.failure.message, first.failure.next_step);
//!     }
//!     Err(other) => panic!("{other}"),
//! }
//! assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "one\n2\n");
//! ```
//!
//! **An editor's unsaved buffers** ([`editor::Buffers`]): the buffers (and, for files not
//! open, a read-only root) in; the new texts, deletions, moves, the report and LSP edits
//! out; nothing is written.
//!
//! ```
//! use polypatch::{editor::Buffers, ApplyOptions};
//!
//! let buffers = Buffers::new().with("main.rs", "fn main() {\n    println!(\"hi\");\n}\n");
//! let patch = "*** Begin Patch\n*** Update File: main.rs\n@@\n-    println!(\"hi\");\n+    println!(\"hello\");\n*** End Patch\n";
//! let outcome = buffers.apply(patch, &ApplyOptions::default()).expect("it applies");
//! assert_eq!(outcome.texts["main.rs"], "fn main() {\n    println!(\"hello\");\n}\n");
//! let edits = outcome.text_edits("main.rs").unwrap(); // for the editor's undo stack
//! assert_eq!(edits.len(), 1);
//! ```
//!
//! The typed route underneath: [`parse`] a patch into an [`EditPlan`], then [`apply`] it to
//! a file set ([`MemoryFileSet`], [`DiskFileSet`], or your own [`FileStore`](fs::FileStore))
//! or [`compute`] the changes without writing.
//!
//! # Where things are
//!
//! The root holds what an embedder calls and names: the functions above, [`detect`],
//! [`extract()`] and [`prompt()`], the two file sets, the two option types, the reports of
//! a plan and the errors of each function. The rest sits in a module of its kind, the
//! root's items included:
//!
//! | module | what is in it |
//! |---|---|
//! | [`plan`] | the edit plan and its builders, for plans written by hand |
//! | [`fs`] | file sets, your own [`FileStore`](fs::FileStore), paths, the changes a plan writes |
//! | [`report`] | reports, statuses, tiers, failures, the versioned JSON document |
//! | [`options`] | parse and apply options, their choices and defaults |
//! | [`error`] | every error type, and [`ErrorKind`](error::ErrorKind) |
//! | [`reply`] | a chat reply's blocks planned, computed and applied step by step |
//! | [`extract`](mod@extract) | the patch blocks in a chat reply |
//! | [`convert`](mod@convert), [`editor`], [`schema`] | optional features (below) |
//! | [`aipatch`], [`unified`], [`ap`], [`applydiff`], [`aptix`], [`search_replace`], [`toolcall`] | each dialect's own syntax and error kinds |
//! | [`engine`] | the engine's building blocks, for dialect authors |
//!
//! Dialects are cargo features of the same name, all on by default: `ai-patch`,
//! `unified`, `ap`, `applydiff`, `aptix`, `search-replace`, `tool-call`.
//! A [`Dialects`] registry holds them and a user's own dialects (any type implementing
//! [`Dialect`]): its methods detect, extract, parse, apply a reply and convert with all of
//! them; the free functions use the built-in ones.
//!
//! [`prompt()`] gives the instructions to hand a model so that it writes a dialect well.
//!
//! # Stability
//!
//! The items at the top of this crate are its public API. Types that may grow are
//! `#[non_exhaustive]`: build them with their constructors and builders
//! ([`Edit::replace`](plan::Edit::replace), [`FileEdit::modify`](plan::FileEdit::modify),
//! [`EditPlan::new`]) and match their enums with a wildcard arm.
//! [`engine`] exposes the engine's lower-level building blocks (line splitting, binary
//! deltas, elision markers) for dialect authors; they may change in any minor release.
//!
//! # Cargo features
//!
//! All on by default. A build that needs less turns the defaults off and names what it
//! needs: `polypatch = { version = "0.1", default-features = false, features = ["unified"] }`
//! parses and applies unified diffs (in memory, from a chat reply, to your own
//! [`FileStore`](fs::FileStore)) and compiles none of the rest; `features = ["unified",
//! "disk"]` applies them to a directory too.
//!
//! | feature | what it adds | what it compiles in |
//! |---|---|---|
//! | `ai-patch`, `unified`, `ap`, `applydiff`, `aptix`, `search-replace`, `tool-call` | one dialect each ([`aipatch`], [`unified`], [`ap`], [`applydiff`], [`aptix`], [`search_replace`], [`toolcall`]) | its crate (`ap`: a YAML parser) |
//! | `git-binary` | `GIT binary patch` data in unified diffs and Aptix `gitPatch` entries, read and written | zlib (flate2) |
//! | `convert` | [`convert::convert()`] and [`Dialects::convert`]: a patch rewritten in another dialect | |
//! | `editor` | [`editor`]: an editor's buffers patched in memory, with LSP edits, and the editor protocol | |
//! | `schema` | [`schema`] and [`ReportDocument::schema`](report::ReportDocument::schema): JSON Schemas (turns on `serde`) | schemars and its derive |
//! | `disk` | [`DiskFileSet`] (with [`Durability`](fs::Durability) and [`Recovery`](fs::Recovery) in [`fs`]): a directory as a file set, its commit journaled, undone on failure and recovered after a crash; turned on by `editor` | serde and `serde_json` (the journal), xxhash-rust, rustix (Unix) |
//! | `text-target` | text edits applied ([`Target::Text`](plan::Target::Text), a substring: [`Edit::replace_text`](plan::Edit::replace_text)); turned on by `aptix` and `tool-call` | |
//! | `stale-read` | the stale-read guard: [`ReadHash::of`](fs::ReadHash::of) and the check of the hashes given for files ([`ApplyOptions::read_hash`](options::ApplyOptions::read_hash)); turned on by `editor` | sha2 |
//! | `serde` | the JSON report ([`ReportDocument::to_json`](report::ReportDocument::to_json), its `session`), serde's `Serialize` and `Deserialize` on the plan, the reports and the options, `Dialect::schema`; turned on by `ap`, `applydiff`, `aptix`, `tool-call`, `editor` and `schema` | serde, its derive and `serde_json` |
//!
//! Without `git-binary`, a binary patch is refused where it is read, as the unified
//! dialect's `unsupported_binary` error naming the feature, and converting binary content
//! to a diff is refused ([`convert::Operation::Binary`]). Without `serde`, parsing,
//! applying (in memory and to a directory, the commit's journal and its recovery included)
//! and every report's text are the same; the reports have no JSON and the types no serde
//! traits. Without `disk`, the in-memory API is the same ([`apply_str`], [`MemoryFileSet`],
//! [`apply`] and [`apply_text`] on any [`FileStore`](fs::FileStore)); only [`DiskFileSet`]
//! and its types are missing. Without `lazy` (which `tool-call` turns on), the engine has
//! no merge of lazy snippets: a hand-written plan with a
//! [`Target::Sketch`](plan::Target::Sketch) edit fails as an invalid plan naming the
//! feature, and every other edit applies the same. Without `text-target` (which `aptix` and
//! `tool-call` turn on), a hand-written plan with a [`Target::Text`](plan::Target::Text)
//! edit fails the same way. Without `stale-read`, a [`ReadHash`](fs::ReadHash) is still
//! parsed and carried, but a file given one (in the plan or the options) fails as an
//! invalid plan naming the feature, and nothing is written: a hash is never taken as
//! checked.

// docs.rs (`--cfg docsrs`, nightly) shows which feature each gated item needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod prompt;
pub use prompt::prompt;

use std::fmt;
use std::str::FromStr;

use polypatch_core::{ChangeKind, Computed, Entry, FileBytes, FileOperation, FileSource, PathError, RelPath};

/// The engine's lower-level building blocks, for dialect authors (not covered by the
/// stability promise of the items at the top of the crate). Named `engine`, not `core`:
/// `use polypatch::*;` must not shadow the language's `core` crate.
pub use polypatch_core as engine;

// The root: what an embedder calls and names. Everything else sits in the module of its
// kind below; the root's items are also in theirs.
pub use extract::extract;
#[cfg(feature = "disk")]
#[cfg_attr(docsrs, doc(cfg(feature = "disk")))]
pub use polypatch_core::DiskFileSet;
pub use polypatch_core::{
    ApplyError, ApplyOptions, ApplyReport, Dialect, EditPlan, MemoryFileSet, ParseOptions, PatchError, apply, compute,
};
pub use registry::Dialects;
pub use reply::{ReplyError, apply_text};

/// The edit plan: the one form every dialect lowers into, and the builders to write one
/// by hand ([`Edit::replace`](plan::Edit::replace), [`FileEdit::modify`](plan::FileEdit::modify),
/// [`EditPlan::new`](plan::EditPlan::new)).
///
/// ```
/// use polypatch::plan::{Edit, EditPlan, FileEdit};
/// use polypatch::{ApplyOptions, MemoryFileSet};
///
/// let plan = EditPlan::new("mine", vec![FileEdit::modify("a.txt", vec![Edit::replace(["two"], ["2"])])]);
/// let mut files = MemoryFileSet::new().with("a.txt", "one\ntwo\n");
/// polypatch::apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
/// assert_eq!(files.get_str("a.txt"), Some("one\n2\n"));
/// ```
pub mod plan {
    pub use polypatch_core::{
        AMBIGUITY_MARGIN, Action, Anchor, BinaryData, BinaryEdit, Content, DialectName, Edit, EditPlan, Expect,
        FileEdit, FileOp, IfExists, IfMissing, Indent, LineText, Missing, Modify, Newline, Occurrence, Policy,
        PostProcess, Replacement, Scope, Span, Target, TierSet,
    };
}

/// The files a plan reads and writes: in memory ([`MemoryFileSet`]), a directory on disk
/// ([`DiskFileSet`]), a read-through layer ([`Overlay`](fs::Overlay)) or your own
/// ([`FileStore`](fs::FileStore)); the changes a computed plan writes, paths inside a
/// root, and the errors of both.
pub mod fs {
    pub use polypatch_core::{
        Change, ChangeKind, CommitError, Entry, FileBytes, FileSource, FileStore, MemoryFileSet, Overlay, PathError,
        PathErrorKind, ReadHash, RelPath, decode_lossless, is_git_dir_name,
    };
    #[cfg(feature = "disk")]
    #[cfg_attr(docsrs, doc(cfg(feature = "disk")))]
    pub use polypatch_core::{DiskFileSet, Durability, Recovery};
}

/// What applying did: the report of a plan (per file, per edit: status, place, tier,
/// failure with its closest candidate and next step) and its versioned JSON document.
pub mod report {
    #[cfg(feature = "serde")]
    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    pub use crate::document::SessionBlock;
    pub use crate::document::{DocumentError, JSON_VERSION, Outcome, ReportDocument, located};
    pub use polypatch_core::{
        ApplyReport, Closest, Computed, EditReport, Failure, FailureKind, FileOperation, FileReport, FirstFailure,
        LineRange, MAX_CANDIDATES, Status, Tier,
    };
}

/// How patches are read ([`ParseOptions`]) and applied ([`ApplyOptions`]), with the
/// choices and defaults they take.
pub mod options {
    pub use polypatch_core::{
        AlreadyApplied, ApplyOptions, DEFAULT_FUZZY_THRESHOLD, DEFAULT_MAX_BINARY_SIZE, DEFAULT_MAX_TOTAL_BINARY_SIZE,
        LineBreaks, NewLineEnds, ParseOptions, StaleRead,
    };
}

/// The errors of the root's functions, and the kinds a malformed patch is reported as.
pub mod error {
    pub use crate::Error;
    pub use crate::reply::ReplyError;
    pub use polypatch_core::{ApplyError, ErrorKind, InvalidReadHash, PatchError};

    use crate::Format;

    /// A name given to [`Format`]'s `FromStr` is not a format.
    #[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
    #[error("unknown format `{0}`; known formats: auto, {names}", names = Format::DIALECTS.iter().map(|f| f.name()).collect::<Vec<_>>().join(", "))]
    pub struct UnknownFormat(pub String);
}

#[cfg(feature = "ai-patch")]
#[cfg_attr(docsrs, doc(cfg(feature = "ai-patch")))]
pub use polypatch_aipatch as aipatch;
#[cfg(feature = "ap")]
#[cfg_attr(docsrs, doc(cfg(feature = "ap")))]
pub use polypatch_ap as ap;
#[cfg(feature = "applydiff")]
#[cfg_attr(docsrs, doc(cfg(feature = "applydiff")))]
pub use polypatch_applydiff as applydiff;
#[cfg(feature = "aptix")]
#[cfg_attr(docsrs, doc(cfg(feature = "aptix")))]
pub use polypatch_aptix as aptix;
#[cfg(feature = "lazy")]
#[cfg_attr(docsrs, doc(cfg(feature = "lazy")))]
pub use polypatch_lazy as lazy;
#[cfg(feature = "search-replace")]
#[cfg_attr(docsrs, doc(cfg(feature = "search-replace")))]
pub use polypatch_search_replace as search_replace;
#[cfg(feature = "tool-call")]
#[cfg_attr(docsrs, doc(cfg(feature = "tool-call")))]
pub use polypatch_toolcall as toolcall;
#[cfg(feature = "unified")]
#[cfg_attr(docsrs, doc(cfg(feature = "unified")))]
pub use polypatch_unified as unified;

#[cfg(feature = "convert")]
#[cfg_attr(docsrs, doc(cfg(feature = "convert")))]
pub mod convert;
mod document;
#[cfg(feature = "editor")]
#[cfg_attr(docsrs, doc(cfg(feature = "editor")))]
pub mod editor;
#[cfg(feature = "schema")]
#[cfg_attr(docsrs, doc(cfg(feature = "schema")))]
pub mod schema;

pub mod extract;
mod registry;
pub mod reply;

/// The dialect `text` most looks like, if any looks like it at all.
///
/// ```
/// let dialect = polypatch::detect("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n").unwrap();
/// assert_eq!(dialect.name(), "unified");
/// ```
pub fn detect(text: &str) -> Option<&'static dyn Dialect> {
    Dialects::global().detect(text)
}

/// Which dialect to read a patch as: one by name, or [`Format::Auto`] to detect it.
///
/// Every dialect has a variant whether or not its cargo feature is on; parsing with one
/// that is not compiled in is an [`ErrorKind::UNKNOWN_FORMAT`](error::ErrorKind::UNKNOWN_FORMAT) error.
///
/// ```
/// use polypatch::Format;
///
/// assert_eq!("ai-patch".parse::<Format>(), Ok(Format::AiPatch));
/// assert_eq!(Format::Unified.name(), "unified");
/// assert!("yaml".parse::<Format>().is_err());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// Detect the dialect from the text ([`detect`]).
    #[default]
    Auto,
    /// The `*** Begin Patch` AI-PATCH dialect (`ai-patch`).
    AiPatch,
    /// git and plain unified diffs (`unified`).
    Unified,
    /// The 'ap' YAML v2.0 dialect (`ap`).
    Ap,
    /// `ApplyDiff` v3.0 `>>> file:` blocks (`applydiff`).
    ApplyDiff,
    /// Aptix JSON bundles (`aptix`).
    Aptix,
}

impl Format {
    /// Every format with a dialect (all but [`Format::Auto`]), compiled in or not.
    pub const DIALECTS: &[Format] = &[Format::AiPatch, Format::Unified, Format::Ap, Format::ApplyDiff, Format::Aptix];

    /// The name used on the command line and in reports (`"auto"`, `"ai-patch"`, …).
    pub fn name(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::AiPatch => "ai-patch",
            Format::Unified => "unified",
            Format::Ap => "ap",
            Format::ApplyDiff => "applydiff",
            Format::Aptix => "aptix",
        }
    }

    /// The dialect of this format, when it names one that is compiled in.
    pub fn dialect(self) -> Option<&'static dyn Dialect> {
        match self {
            Format::Auto => None,
            named => Dialects::global().get(named.name()),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = error::UnknownFormat;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        std::iter::once(Format::Auto)
            .chain(Format::DIALECTS.iter().copied())
            .find(|f| f.name() == name)
            .ok_or_else(|| error::UnknownFormat(name.to_string()))
    }
}

/// Parses `text` as `format` (or as the detected dialect for [`Format::Auto`]).
///
/// `text` is read as the engine reads a file: a character of U+10FF80..=U+10FFFF stands
/// for a byte that is not UTF-8 (a diff's bytes read with [`fs::decode_lossless`], which
/// a unified diff writes as those bytes, as git does). Text from elsewhere (a model's
/// reply, a JSON string, an editor) may hold such a character as itself: pass it through
/// `decode_lossless(text.as_bytes())` first, as [`apply_str`], [`editor`], the MCP
/// server and the Python package do, and it is written as that character.
///
/// ```
/// use polypatch::{parse, Format};
///
/// let plan = parse(">>> file: a.txt\n--- from\nold\n--- to\nnew\n<<<\n", Format::Auto).unwrap();
/// assert_eq!(plan.dialect, "applydiff");
/// let err = parse("*** Begin Patch\n", Format::AiPatch).unwrap_err();
/// assert_eq!(err.kind, polypatch::aipatch::error::MISSING_END);
/// assert_eq!(err.kind, "missing_end");
/// ```
pub fn parse(text: &str, format: Format) -> Result<EditPlan, PatchError> {
    parse_with(text, format, &ParseOptions::default())
}

/// [`parse`] with options (e.g. a diff's strip level).
///
/// A text that stops in the middle of a line inside a fence that never closes (a model's
/// reply cut off by its output limit) is refused as [`ErrorKind::TRUNCATED`](error::ErrorKind::TRUNCATED), whatever the
/// format: its last line is half a line.
///
/// ```
/// use polypatch::{parse_with, Format, ParseOptions};
///
/// let diff = "--- x/y/z.txt\n+++ x/y/z.txt\n@@ -1 +1 @@\n-a\n+b\n";
/// let plan = parse_with(diff, Format::Unified, &ParseOptions::default().strip(2)).unwrap();
/// assert_eq!(plan.files[0].path, "z.txt");
/// ```
pub fn parse_with(text: &str, format: Format, options: &ParseOptions) -> Result<EditPlan, PatchError> {
    Dialects::global().parse_with(text, format.name(), options)
}

/// Why a one-call apply ([`apply_str`]) did not give a result.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The patch text is malformed.
    #[error(transparent)]
    Malformed(#[from] PatchError),
    /// The patch could not be applied (the report says which edit and why).
    #[error(transparent)]
    NotApplied(#[from] ApplyError),
    /// The patch does something to another file than the one given, or deletes or moves
    /// it: one file's text cannot hold the result.
    #[error("the patch changes `{path}` ({operation}), not only the one file given")]
    OtherFile {
        /// The path the patch names.
        path: String,
        /// What it does there (`create`, `delete`, `modify`, …).
        operation: FileOperation,
    },
    /// The result is not UTF-8 text (a binary patch).
    #[error("the result for `{path}` is not UTF-8 text; apply binary patches with a file set")]
    NotText {
        /// The file.
        path: String,
    },
}

/// Applies `patch` (any dialect, detected) to one file's `text` known as `path`, in
/// memory, and returns the new text.
///
/// A patch that touches another file, or deletes or moves this one, is refused with
/// [`Error::OtherFile`]; for several files use [`apply`] with a [`MemoryFileSet`]. Both
/// strings are text: every character of the patch is written as itself (see [`parse`]).
///
/// ```
/// let patch = "--- a/greet.py\n+++ b/greet.py\n@@ -1,2 +1,2 @@\n def hi():\n-    print('hi')\n+    print('hello')\n";
/// let new = polypatch::apply_str(patch, "greet.py", "def hi():\n    print('hi')\n").unwrap();
/// assert_eq!(new, "def hi():\n    print('hello')\n");
/// ```
pub fn apply_str(patch: &str, path: &str, text: &str) -> Result<String, Error> {
    // Both strings are text: a character of U+10FF80..=U+10FFFF in the patch is that
    // character, as it is in the file's text (see [`parse`]).
    let patch = fs::decode_lossless(patch.as_bytes());
    let plan = parse(&patch, Format::Auto)?;
    // `./a.txt` and `a.txt` are one file; a path that is not valid stays as given, and the
    // patch's own path check reports it.
    let wanted = RelPath::parse(path, None).map_or_else(|_| path.to_string(), |p| p.as_str().to_string());
    // Computed, not applied to a file set: nothing needs to be stored, so the new text is
    // taken from the plan's one change as it was computed (an edited file's lines joined
    // once), not built into a set and copied out of it again.
    let file = OneFile { path: &wanted, bytes: FileBytes::from(text.to_string()) };
    let Computed { report, changes, .. } = compute(&plan, &file, &ApplyOptions::default())?;
    if let Some(other) =
        report.files.iter().find(|f| f.path != wanted || f.moved_to.is_some() || f.operation == FileOperation::Delete)
    {
        return Err(Error::OtherFile { path: other.path.clone(), operation: other.operation });
    }
    drop(file); // its text is no longer shared: an unchanged file's text is handed back without a copy
    match changes.into_iter().find(|c| c.path.as_str() == wanted).map(|c| c.kind) {
        None => Ok(text.to_string()),
        Some(ChangeKind::Write { bytes, .. }) => bytes.into_string().map_err(|_| Error::NotText { path: wanted }),
        Some(_) => Err(Error::OtherFile { path: wanted, operation: FileOperation::Delete }),
    }
}

/// The one file [`apply_str`] edits, read as a [`MemoryFileSet`] holding only it reads it
/// (same paths, same answers), without the set's map and without checking again that the
/// text is UTF-8.
struct OneFile<'a> {
    /// The file's path, as the set would hold it.
    path: &'a str,
    bytes: FileBytes,
}

impl FileSource for OneFile<'_> {
    fn resolve(&self, path: &str) -> Result<RelPath, PathError> {
        RelPath::parse(path, None)
    }

    fn read(&self, path: &RelPath) -> std::io::Result<Entry> {
        let asked = path.as_str();
        Ok(if asked == self.path {
            Entry::File { bytes: self.bytes.clone(), mode: None }
        } else if self.path.strip_prefix(asked).is_some_and(|rest| rest.starts_with('/')) {
            Entry::Directory
        } else if asked.strip_prefix(self.path).is_some_and(|rest| rest.starts_with('/')) {
            // The file used as a folder (`a` is the file, `a/b` is asked for).
            Entry::Other
        } else {
            Entry::Missing
        })
    }
}

#[cfg(all(feature = "ai-patch", feature = "unified", feature = "ap", feature = "applydiff", feature = "aptix"))]
#[doc(hidden)]
pub mod fuzzing;

#[cfg(all(test, feature = "ai-patch", feature = "unified"))]
mod tests {
    use super::*;
    use polypatch_core::{ErrorKind, FailureKind};

    #[test]
    fn format_names_round_trip_and_unknown_names_list_the_formats() {
        for &format in Format::DIALECTS {
            assert_eq!(format.name().parse::<Format>(), Ok(format));
            assert_eq!(format.dialect().map(Dialect::name), Some(format.name()));
        }
        assert_eq!("auto".parse::<Format>(), Ok(Format::Auto));
        assert!(Format::Auto.dialect().is_none());
        let err = "diff".parse::<Format>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown format `diff`; known formats: auto, ai-patch, unified, ap, applydiff, aptix"
        );
    }

    /// A patch's character of U+10FF80..=U+10FFFF (the range the engine's text uses for
    /// bytes that are not UTF-8) is that character, as in the file's text: a unified diff
    /// wrote the byte 0xEE (`NotText` for the new text), AI-PATCH refused it.
    #[test]
    fn apply_str_writes_a_character_of_the_raw_byte_range_as_itself() {
        let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+t\u{10ffee}o\n";
        assert_eq!(apply_str(diff, "a.txt", "one\ntwo\n").unwrap(), "one\nt\u{10ffee}o\n");
        // A text dialect matches it as that character, and keeps the file's other lines
        // that hold it (was: refused, "the patch's text is not UTF-8").
        let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-t\u{10ffee}o\n+tw\u{10ffee}\n*** End Patch\n";
        let file = "\u{10ffee}\nt\u{10ffee}o\n\u{10ff80}z\n";
        assert_eq!(apply_str(patch, "a.txt", file).unwrap(), "\u{10ffee}\ntw\u{10ffee}\n\u{10ff80}z\n");
        // In the engine's text (what `parse` takes), such a character alone is a byte that
        // is not UTF-8: a text dialect refuses it and says which characters.
        let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+\u{10ffee}\n*** End Patch\n";
        let plan = parse(patch, Format::Auto).unwrap();
        let mut files = MemoryFileSet::new().with("a.txt", "one\n");
        let err = apply(&plan, &mut files, &ApplyOptions::default()).unwrap_err();
        let failure = err.report.files[0].failure.as_ref().unwrap();
        assert_eq!(failure.kind, FailureKind::NotText);
        assert!(failure.message.contains("U+10FF80..=U+10FFFF"), "{}", failure.message);
        assert_eq!(files.get("a.txt"), Some(&b"one\n"[..]));
    }

    #[test]
    fn apply_str_refuses_what_one_text_cannot_hold() {
        let create = "*** Begin Patch\n*** Add File: other.txt\n+x\n*** End Patch\n";
        match apply_str(create, "a.txt", "a\n") {
            Err(Error::OtherFile { path, operation }) => {
                assert_eq!((path.as_str(), operation), ("other.txt", FileOperation::Create));
            }
            other => panic!("expected OtherFile, got {other:?}"),
        }
        let delete = "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n";
        assert!(matches!(
            apply_str(delete, "a.txt", "a\n"),
            Err(Error::OtherFile { operation: FileOperation::Delete, .. })
        ));
        let moved = "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-a\n+b\n*** End Patch\n";
        assert!(matches!(apply_str(moved, "a.txt", "a\n"), Err(Error::OtherFile { .. })));
    }

    #[test]
    fn apply_str_reports_malformed_and_not_applied_patches() {
        let err = apply_str("*** Begin Patch\n", "a.txt", "a\n").unwrap_err();
        assert!(matches!(&err, Error::Malformed(e) if e.kind == crate::aipatch::error::MISSING_END), "{err:?}");
        let missing = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-zzz\n+b\n";
        let err = apply_str(missing, "a.txt", "a\n").unwrap_err();
        let Error::NotApplied(err) = err else { panic!("expected NotApplied, got {err:?}") };
        assert_eq!(err.report.first_failure().map(|first| first.failure.kind), Some(FailureKind::NotFound));
        // A path written as `./a.txt` is the same file.
        assert_eq!(apply_str("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n", "./a.txt", "a\n").unwrap(), "b\n");
    }

    /// `apply_str` as it was first written: the patch read as text, the text in a one-file
    /// [`MemoryFileSet`], the plan applied to it, the text read back. The one-file route must give the same
    /// result, error and report in every case.
    fn through_a_file_set(patch: &str, path: &str, text: &str) -> Result<String, Error> {
        let plan = parse(&fs::decode_lossless(patch.as_bytes()), Format::Auto)?;
        let wanted = RelPath::parse(path, None).map_or_else(|_| path.to_string(), |p| p.as_str().to_string());
        let mut files = MemoryFileSet::new().with(wanted.clone(), text);
        let report = apply(&plan, &mut files, &ApplyOptions::default())?;
        if let Some(other) = report
            .files
            .iter()
            .find(|f| f.path != wanted || f.moved_to.is_some() || f.operation == FileOperation::Delete)
        {
            return Err(Error::OtherFile { path: other.path.clone(), operation: other.operation });
        }
        match files.get(&wanted) {
            Some(bytes) => String::from_utf8(bytes.to_vec()).map_err(|_| Error::NotText { path: wanted }),
            None => Err(Error::OtherFile { path: wanted, operation: FileOperation::Delete }),
        }
    }

    #[test]
    fn apply_str_answers_as_a_one_file_set_does() {
        let diff = |path: &str, body: &str| format!("--- a/{path}\n+++ b/{path}\n{body}");
        let aipatch = |body: &str| format!("*** Begin Patch\n{body}*** End Patch\n");
        let cases: Vec<(String, &str, &str)> = vec![
            (diff("a.txt", "@@ -2 +2 @@\n-two\n+2\n"), "a.txt", "one\ntwo\nthree\n"),
            (diff("a.txt", "@@ -2 +2 @@\n-two\n+2\n"), "./a.txt", "one\ntwo\nthree\n"),
            (diff("a.txt", "@@ -2 +2 @@\n-two\n+2\n"), "a.txt", "one\r\ntwo\r\nthree\r\n"),
            (diff("a.txt", "@@ -2 +2 @@\n-two\n+2\n"), "a.txt", "\u{feff}one\ntwo\nthree"),
            (diff("a.txt", "@@ -1 +1 @@\n-one\n+1\n"), "a.txt", "one"),
            // Already applied, a context-only hunk, an edit that changes nothing.
            (diff("a.txt", "@@ -2 +2 @@\n-two\n+2\n"), "a.txt", "one\n2\nthree\n"),
            (diff("a.txt", "@@ -1,2 +1,2 @@\n one\n two\n"), "a.txt", "one\ntwo\n"),
            (diff("a.txt", "@@ -1 +1 @@\n-one\n+one\n"), "a.txt", "one\n"),
            // Not found, ambiguous, reindented, fuzzy.
            (diff("a.txt", "@@ -1 +1 @@\n-zzz\n+b\n"), "a.txt", "one\n"),
            (diff("a.txt", "@@ -1 +1 @@\n-x\n+y\n"), "a.txt", "x\nx\n"),
            (diff("a.txt", "@@ -1,2 +1,2 @@\n fn a() {\n-  b();\n+  c();\n"), "a.txt", "fn a() {\n    b();\n}\n"),
            (
                diff("a.txt", "@@ -1,3 +1,3 @@\n let value_one = 1;\n-let b = 2;\n+let b = 3;\n let value_thre = 3;\n"),
                "a.txt",
                "let value_one = 1;\nlet b = 2;\nlet value_three = 3;\n",
            ),
            // Another file, a file where the text is a folder, or the text used as one.
            (diff("b.txt", "@@ -1 +1 @@\n-a\n+b\n"), "a.txt", "a\n"),
            (diff("d/x.txt", "@@ -1 +1 @@\n-a\n+b\n"), "d", "a\n"),
            (diff("a.txt/x", "@@ -1 +1 @@\n-a\n+b\n"), "a.txt", "a\n"),
            (diff("d", "@@ -1 +1 @@\n-a\n+b\n"), "d/x.txt", "a\n"),
            // Paths that are not valid, as given and in the patch.
            (diff("a.txt", "@@ -1 +1 @@\n-a\n+b\n"), "../a.txt", "a\n"),
            (diff("a.txt", "@@ -1 +1 @@\n-a\n+b\n"), "", "a\n"),
            (diff("../a.txt", "@@ -1 +1 @@\n-a\n+b\n"), "../a.txt", "a\n"),
            (diff(".git/config", "@@ -1 +1 @@\n-a\n+b\n"), ".git/config", "a\n"),
            // Create, delete, move, copy, whole-file replacements.
            (aipatch("*** Add File: a.txt\n+new\n"), "a.txt", "old\n"),
            (aipatch("*** Add File: a.txt\n+old\n"), "a.txt", "old\n"),
            (aipatch("*** Delete File: a.txt\n"), "a.txt", "a\n"),
            (aipatch("*** Update File: a.txt\n*** Move to: b.txt\n@@\n-a\n+b\n"), "a.txt", "a\n"),
            ("diff --git a/a.txt b/c.txt\ncopy from a.txt\ncopy to c.txt\n".to_string(), "a.txt", "a\n"),
            ("diff --git a/a.txt b/a.txt\nold mode 100644\nnew mode 100755\n".to_string(), "a.txt", "a\n"),
            (">>> file: a.txt\n--- from\na\n--- to\nb\n<<<\n".to_string(), "a.txt", "a\n"),
            ("{\"files\": [{\"path\": \"a.txt\", \"content\": \"whole\\n\"}]}\n".to_string(), "a.txt", "a\n"),
            // A character of the range the engine's text uses for bytes: text, written as
            // itself (both routes read the patch as text).
            (diff("a.txt", "@@ -1 +1 @@\n-a\n+\u{10ffe9}\n"), "a.txt", "a\n"),
            // Malformed and unknown.
            ("*** Begin Patch\n".to_string(), "a.txt", "a\n"),
            ("hello\n".to_string(), "a.txt", "a\n"),
        ];
        for (patch, path, text) in &cases {
            let ours = format!("{:?}", apply_str(patch, path, text));
            let set = format!("{:?}", through_a_file_set(patch, path, text));
            assert_eq!(ours, set, "{patch:?} on {path:?}");
        }
    }

    #[test]
    fn parsing_an_undetectable_text_names_the_formats() {
        let err = parse("hello\n", Format::Auto).unwrap_err();
        assert_eq!(err.kind, ErrorKind::UNKNOWN_FORMAT);
        assert!(err.message.contains("ai-patch, unified"), "{}", err.message);
        assert!(!err.message.contains("--format"), "library messages do not name CLI flags: {}", err.message);
    }
}

/// The README's code blocks, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The library guide's code blocks (`docs/library.md`), compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/library.md")]
pub struct LibraryGuideDoctests;

/// The dialects guide's code blocks (`docs/dialects.md`: a dialect of your own), compiled and
/// run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/dialects.md")]
pub struct DialectsGuideDoctests;

//! The core of polypatch: the [`EditPlan`] IR every patch dialect lowers into, the
//! matching engine that locates each edit, the in-memory apply, and the disk transaction.
//!
//! # How an edit is located
//!
//! The engine tries the tiers of [`Tier`] from strictest to loosest and stops at the first
//! that finds the target: exact; trailing whitespace ignored; one constant indentation
//! shift; trimmed; blank lines ignored on both sides; Unicode look-alikes folded; (for a
//! one-line anchor) a line prefix; fuzzy (Damerau–Levenshtein similarity at or above the
//! policy's threshold, rejected as ambiguous when another place scores within
//! [`AMBIGUITY_MARGIN`]).
//!
//! - [`Occurrence::First`] takes the first place in the search region only at the policy's
//!   strictest tiers; lenient tiers need a single place (or one strictly nearest to a line
//!   hint), and a block of only braces and blank lines is never located by "first".
//!   [`Occurrence::FirstAfterAnchor`] takes the first place after the anchor at any tier.
//! - A line hint orders equal candidates (nearest first) and never beats a stricter tier.
//! - "Already applied" is a finding, not a shortcut: the old side is located first, and
//!   the edit is reported already applied only when the old side is gone and the new
//!   side stands, or when the new side matches better where the lines the edit removes
//!   would be. A new side standing on the old side's own place is no evidence; when both
//!   readings are plausible the edit is refused with both places.
//! - A plan applies whole or not at all: after its first failure, which is searched in full,
//!   the later edits are located without the fuzzy tier, and one that would need it fails
//!   with [`FailureKind::SearchSkipped`]; the fuzzy searches of a whole plan share one work
//!   budget, counted in characters compared and lines read (the same on every machine).
//!   Past [`MAX_DETAILED_FAILURES`], failures are reported without their details.
//! - How new lines are written: lines the patch keeps as the file has them; added lines
//!   as the patch wrote them when its old lines carry the file's indentation, otherwise
//!   shifted like the old line they align with, in that file line's own tabs or spaces;
//!   after a match that ignored blank lines, the file's own blank lines stay.
//! - The key tiers nest, so one scan with the loosest key a step needs classifies every
//!   candidate; the fuzzy tier scores only windows seeded by an exact (trimmed) line of the
//!   pattern, or, when there is none, by lines near the longest pattern lines (length and
//!   character-histogram filters first). A window sharing no line with the pattern that
//!   ties with the best one is not seen; the chosen match is still one the content
//!   supports at the threshold.
//!
//! Everything is computed in memory ([`compute`]) before anything is written; a
//! [`FileStore`] then commits all changes or none ([`DiskFileSet`]: a journal, temporary
//! files renamed over their targets, hard-link backups, every step undone on failure and
//! an interrupted commit rolled back by [`DiskFileSet::recover`]).
//!
//! ```
//! use polypatch_core::{apply, ApplyOptions, Edit, EditPlan, FileEdit, MemoryFileSet, Status, Tier};
//!
//! let mut files = MemoryFileSet::new().with("greet.py", "def hi():\n    print('hi')\n");
//! // The edit wrote the line without indentation: the indentation tier finds it and the new
//! // line follows the file's indentation.
//! let edit = Edit::replace(["print('hi')"], ["print('hello')"]);
//! let plan = EditPlan::new("", vec![FileEdit::modify("greet.py", vec![edit])]);
//! let report = apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
//! assert_eq!(files.get_str("greet.py"), Some("def hi():\n    print('hello')\n"));
//! assert_eq!(report.files[0].edits[0].status, Status::Applied);
//! assert_eq!(report.files[0].edits[0].tier, Some(Tier::Indentation));
//! ```

mod apply;
pub mod binary;
mod decide;
mod dialect;
mod disk;
mod effort;
pub mod elision;
mod engine;
mod error_kind;
mod file_bytes;
mod fileset;
mod fold;
mod fuzzy;
mod index;
mod ir;
mod modify;
mod newlines;
pub mod render;
mod reply_lines;
mod report;
#[cfg(feature = "schemars")]
mod schema;
mod shape;
mod shared;
mod span;
mod substring;
mod text;
mod tier;

pub use apply::{ApplyError, ApplyOptions, Computed, apply, compute};
pub use dialect::{
    DEFAULT_MAX_BINARY_SIZE, DEFAULT_MAX_TOTAL_BINARY_SIZE, Dialect, ParseOptions, PatchError, cut_off_line,
    join_lines, quote,
};
pub use disk::{CommitError, DiskFileSet, Durability, Recovery};
pub use error_kind::{ErrorKind, UnknownErrorKind};
pub use file_bytes::FileBytes;
pub use fileset::{
    Change, ChangeKind, Entry, FileSource, FileStore, MemoryFileSet, Overlay, PathError, PathErrorKind, RelPath,
    is_git_dir_name,
};
pub use ir::{
    AMBIGUITY_MARGIN, Action, Anchor, BinaryData, BinaryEdit, Content, DEFAULT_FUZZY_THRESHOLD, Edit, EditPlan, Expect,
    FileEdit, FileOp, IfExists, IfMissing, Indent, LineBreaks, Missing, Modify, NewLineEnds, Newline, Occurrence,
    Policy, PostProcess, Replacement, Scope, Target,
};
pub use render::{FileDelta, Operation, RenderError, RenderOptions};
pub use reply_lines::ReplyLines;
pub use report::{
    ApplyReport, Closest, EditReport, Failure, FailureKind, FileReport, LineRange, MAX_CANDIDATES,
    MAX_DETAILED_FAILURES, MAX_LISTED_FAILURES, Status,
};
#[cfg(feature = "schemars")]
pub use schema::closed_schema;
pub use shared::SharedText;
pub use span::{Span, locate_line};
pub use text::{
    Cutter, Eol, Line, LineText, TextFile, decode_lossless, encode_lossless, holds_raw_bytes, show_raw_bytes,
};
pub use tier::{Tier, TierSet};

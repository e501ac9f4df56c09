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
//! # Layout
//!
//! One folder per stage, each depending only on the ones before it (no module cycles,
//! checked by `scripts/modgraph.py`): `text/` (lines, line endings, bytes), `ir/` (the
//! [`EditPlan`], tiers, spans, the [`Dialect`] trait), `locate/` (queries, the tiered
//! engine, the fuzzy search, budgets), `decide.rs` (which place counts, already applied or
//! refused), `apply/` (computing a plan, writing edits, shaping lines, the report) and
//! `store/` (file sets and the disk transaction). Beside the pipeline, [`render`] holds what
//! a dialect's writer is given and shares with the others (the way back: computed changes
//! written in a dialect), and `schema.rs` the JSON Schema helper of the report and the
//! dialects' inputs.
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
//!
//! # Cargo features
//!
//! - `disk` (on by default): [`DiskFileSet`], [`Durability`] and [`Recovery`], the
//!   directory as a file set and its journaled commit. It compiles serde and `serde_json` (the
//!   journal's lines), xxhash-rust and, on Unix, rustix. Without it the engine, the
//!   in-memory apply ([`MemoryFileSet`], [`Overlay`], your own [`FileStore`]) and the
//!   reports are the same; a dialect crate depends on this crate without it.
//! - `lazy` (on by default): the merge of [`Target::Sketch`] edits, the lazy dialect's
//!   snippets (`polypatch-lazy` turns it on). Without it such an edit fails as
//!   [`FailureKind::InvalidPlan`], naming the feature; every other target applies the same.
//! - `text-target` (on by default): the apply of [`Target::Text`] edits, a literal
//!   substring ([`Edit::replace_text`], Aptix `find`, the tool calls' `old_str`;
//!   `polypatch-aptix` and `polypatch-toolcall` turn it on). Without it such an edit fails
//!   as [`FailureKind::InvalidPlan`], naming the feature, and nothing is written; every
//!   other target applies the same.
//! - `stale-read` (on by default): the stale-read guard's hash, [`ReadHash::of`] (sha256,
//!   the sha2 crate), and the check of the hashes given for files
//!   ([`ApplyOptions::read_hash`], [`FileEdit::read_hash`]). Without it a [`ReadHash`] is
//!   still parsed, printed and carried, but a file given one fails as
//!   [`FailureKind::InvalidPlan`], naming the feature, and nothing is written: a hash is
//!   never taken as checked.
//! - `serde`: `Serialize` and `Deserialize` on the plan, the report and the options, and
//!   `Dialect::schema`.
//! - `schemars`: `JsonSchema` on the report types (turns on `serde`).

// docs.rs (`--cfg docsrs`, nightly) shows which feature each gated item needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod apply;
mod decide;
mod dialect_name;
mod ir;
mod locate;
pub mod render;
#[cfg(feature = "schemars")]
mod schema;
mod store;
mod text;

pub use apply::compute::{AlreadyApplied, ApplyError, ApplyOptions, Computed, StaleRead, apply, compute};
pub use apply::elision;
pub use apply::report::{
    ApplyReport, Closest, EditReport, Failure, FailureKind, FileOperation, FileReport, FirstFailure, LineRange,
    MAX_CANDIDATES, MAX_DETAILED_FAILURES, MAX_LISTED_FAILURES, Status,
};
pub use dialect_name::DialectName;
pub use ir::dialect::{
    DEFAULT_MAX_BINARY_SIZE, DEFAULT_MAX_TOTAL_BINARY_SIZE, Dialect, ParseOptions, PatchError, cut_off_line,
    join_lines, quote,
};
pub use ir::error_kind::ErrorKind;
pub use ir::plan::{
    AMBIGUITY_MARGIN, Action, Anchor, BinaryData, BinaryEdit, Content, DEFAULT_FUZZY_THRESHOLD, Edit, EditPlan, Expect,
    FileEdit, FileOp, IfExists, IfMissing, Indent, Missing, Modify, Occurrence, Policy, PostProcess, Replacement,
    Scope, Target,
};
pub use ir::read_hash::{InvalidReadHash, ReadHash};
pub use ir::reply_lines::ReplyLines;
pub use ir::span::{Span, locate_line, offset_at, spanned_lines};
pub use ir::tier::{Tier, TierSet};
pub use render::{FileDelta, Operation, RenderError, RenderOptions};
#[cfg(feature = "schemars")]
#[cfg_attr(docsrs, doc(cfg(feature = "schemars")))]
pub use schema::closed_schema;
#[cfg(feature = "disk")]
#[cfg_attr(docsrs, doc(cfg(feature = "disk")))]
pub use store::disk::{DiskFileSet, Durability, Recovery};
pub use store::fileset::{
    Change, ChangeKind, CommitError, Entry, FileSource, FileStore, MemoryFileSet, Overlay, PathError, PathErrorKind,
    RelPath, is_git_dir_name,
};
pub use text::binary;
pub use text::eol::{Eol, LineBreaks, NewLineEnds, Newline};
pub use text::file_bytes::FileBytes;
pub use text::lines::{
    Cutter, Line, LineRef, LineText, Lines, LinesIter, TextFile, decode_lossless, encode_lossless, holds_raw_bytes,
    show_raw_bytes,
};
pub use text::shared::SharedText;

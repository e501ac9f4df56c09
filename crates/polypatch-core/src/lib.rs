//! The core of polypatch: the [`EditPlan`] IR every patch dialect lowers into, the
//! matching engine that locates each edit, the in-memory apply, and the disk transaction.
//!
//! # How an edit is located
//!
//! The engine tries the tiers of [`Tier`] from strictest to loosest and stops at the first
//! that finds the target: exact; trailing whitespace ignored; one constant indentation
//! shift (carried to the new lines, in the file's tabs or spaces); trimmed; Unicode
//! look-alikes folded; fuzzy (Damerau–Levenshtein similarity at or above the policy's
//! threshold, rejected as ambiguous when another place scores within
//! [`AMBIGUITY_MARGIN`]). Lines the patch keeps are written as the file has them, never as
//! the patch wrote them.
//!
//! - [`Occurrence::First`] takes the first place in the search region only at the policy's
//!   strictest tiers; lenient tiers need a single place (or one strictly nearest to a line
//!   hint), and a block of only braces and blank lines is never located by "first".
//! - A line hint orders equal candidates (nearest first) and never beats a stricter tier.
//! - Before each step to a looser tier, the engine checks whether the edit's new side is
//!   already in place: re-running a patch reports "already applied" instead of matching
//!   fuzzily what the first run left.
//! - The key tiers nest, so one scan with the loosest key a step needs classifies every
//!   candidate; the fuzzy tier scores only windows seeded by an exact (trimmed) line of the
//!   pattern, or, when there is none, by lines near the longest pattern lines (length and
//!   character-histogram filters first). A window sharing no line with the pattern that
//!   ties with the best one is not seen; the chosen match is still one the content
//!   supports at the threshold.
//!
//! Everything is computed in memory ([`compute`]) before anything is written; a
//! [`FileStore`] then commits all changes or none ([`DiskFileSet`]: temporary files in
//! the targets' directories, originals moved aside, every step undone on failure).
//!
//! ```
//! use polypatch_core::{apply, ApplyOptions, EditPlan, FileEdit, FileOp, Modify, Edit,
//!     Target, Action, Replacement, MemoryFileSet, Status};
//!
//! let mut files = MemoryFileSet::new().with("greet.py", "def hi():\n    print('hi')\n");
//! let plan = EditPlan {
//!     dialect: String::new(),
//!     files: vec![FileEdit {
//!         path: "greet.py".into(),
//!         span: None,
//!         op: FileOp::Modify(Modify {
//!             edits: vec![Edit {
//!                 // The patch wrote the line without indentation: the indentation tier
//!                 // finds it and the new line follows the file's indentation.
//!                 target: Target::Lines(vec!["print('hi')".into()]),
//!                 action: Action::Replace(Replacement::lines(vec!["print('hello')".into()])),
//!                 scope: Default::default(),
//!                 policy: Default::default(),
//!                 label: String::new(),
//!                 span: None,
//!             }],
//!             ..Default::default()
//!         }),
//!     }],
//!     warnings: Vec::new(),
//! };
//! let report = apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
//! assert_eq!(files.get_str("greet.py"), Some("def hi():\n    print('hello')\n"));
//! assert_eq!(report.files[0].edits[0].status, Status::Applied);
//! ```

mod apply;
pub mod binary;
mod decide;
mod dialect;
mod disk;
pub mod elision;
mod engine;
mod fileset;
mod fold;
mod fuzzy;
mod ir;
mod modify;
mod report;
mod shape;
mod span;
mod substring;
mod text;
mod tier;

pub use apply::{ApplyError, ApplyOptions, Computed, apply, compute};
pub use dialect::{Dialect, ParseOptions, PatchError};
pub use disk::DiskFileSet;
pub use fileset::{Change, ChangeKind, Entry, FileSource, FileStore, MemoryFileSet, PathError, PathErrorKind, RelPath};
pub use ir::{
    AMBIGUITY_MARGIN, Action, Anchor, BinaryData, BinaryEdit, Content, DEFAULT_FUZZY_THRESHOLD, Edit, EditPlan, Expect,
    FileEdit, FileOp, IfExists, IfMissing, Indent, LineBreaks, Missing, Modify, Newline, Occurrence, Policy,
    PostProcess, Replacement, Scope, Target,
};
pub use report::{ApplyReport, Closest, EditReport, Failure, FailureKind, FileReport, LineRange, Status};
pub use span::Span;
pub use text::{Eol, Line, TextFile};
pub use tier::{Tier, TierSet};

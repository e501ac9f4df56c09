//! The core of polypatch: the [`EditPlan`] IR every patch dialect lowers into, the
//! matching engine that locates each edit, the in-memory apply, and the disk transaction.
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
//! };
//! let report = apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
//! assert_eq!(files.get_str("greet.py"), Some("def hi():\n    print('hello')\n"));
//! assert_eq!(report.files[0].edits[0].status, Status::Applied);
//! ```

mod apply;
mod dialect;
mod disk;
mod engine;
mod fileset;
mod fold;
mod fuzzy;
mod ir;
mod modify;
mod report;
mod span;
mod substring;
mod text;
mod tier;

pub use apply::{ApplyError, ApplyOptions, Computed, apply, compute};
pub use dialect::{Dialect, PatchError};
pub use disk::DiskFileSet;
pub use fileset::{Change, ChangeKind, Entry, FileSource, FileStore, MemoryFileSet, PathError, PathErrorKind, RelPath};
pub use ir::{
    AMBIGUITY_MARGIN, Action, Anchor, Content, DEFAULT_FUZZY_THRESHOLD, Edit, EditPlan, FileEdit, FileOp, IfExists,
    IfMissing, Indent, Missing, Modify, Newline, Occurrence, Policy, PostProcess, Replacement, Scope, Target,
};
pub use report::{ApplyReport, Closest, EditReport, Failure, FailureKind, FileReport, LineRange, Status};
pub use span::Span;
pub use text::{Eol, Line, TextFile};
pub use tier::{Tier, TierSet};

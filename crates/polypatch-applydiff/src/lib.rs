//! The `ApplyDiff` v3.0 dialect: `>>> file:` blocks with `--- from` and `--- to` sections.
//!
//! Work in progress (issue 11): the syntax (blocks, options, spans and the "Patch Format
//! Invalid" errors) is here; lowering into an `EditPlan`, the session-health block and
//! the CLI format come next.
//!
//! ```text
//! >>> file: <path> [| mode=patch|replace] [| fuzz=0.NN]
//! --- from
//! <context lines, plus lines to remove>
//! --- to
//! <context lines, plus lines to add>
//! <
//! ```
//!
//! Text between blocks (a model's prose) is ignored. The closing line is `<` (or `<<<`,
//! which the format's origin used).
//!
//! # Talking back to the model
//!
//! The spec closes the loop with two texts, both built here from what the core reports:
//!
//! - [`feedback`] (§5): after each apply, the status (`✅ Patch Applied`,
//!   `❌ Ambiguous match detected`, `❌ No match found`, `❌ Patch Format Invalid`) with the
//!   spec's message and `Action:` word for word, then what we know: the block, the
//!   candidates' line ranges, the closest region with its similarity and a diff, the tier
//!   and confidence of each applied block, the line and column of a format error.
//!   Failures the spec has no status for open with `❌ Patch not applied`.
//! - [`Session`] (§1, §3): across the applies of one conversation, patches and % changed
//!   per file, errors, ambiguous matches and the exchange count, rendered as the
//!   `[SESSION CONTEXT]` block, and the §3 threshold table's advice per file
//!   ([`Session::recommend`]: patch, patch with caution, the model decides, whole file,
//!   more context lines).
//!
//! ```
//! use polypatch_applydiff::{FileContents, Session};
//! use polypatch_core::ApplyReport;
//!
//! let mut session = Session::new(20);
//! // After each apply: the report, and the changed files' content before and after.
//! session.record(&ApplyReport::default(), &[]);
//! assert!(session.render("fix the parser").contains("Health: 0 errors, 0 ambiguous matches, exchange 1/20"));
//! let _ = FileContents { path: "a.rs", before: Some("x\n"), after: Some("y\n") };
//! ```

pub mod error;
pub mod feedback;
pub mod session;
pub mod syntax;

pub use error::kind;
pub use feedback::{FeedbackStatus, feedback, format_invalid};
pub use session::{
    DEFAULT_MAX_EXCHANGES, FileContents, FileHealth, FormatChoice, Recommendation, SESSION_VERSION, Session,
    SessionError,
};
pub use syntax::{Block, Mode, Patch, parse};

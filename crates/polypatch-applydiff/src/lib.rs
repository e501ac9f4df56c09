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

pub mod error;
pub mod syntax;

pub use error::kind;
pub use syntax::{Block, Mode, Patch, parse};

//! The IR: what every dialect lowers into and what the engine takes. [`plan`] holds the
//! [`EditPlan`](plan::EditPlan) (file operations; edits with a target, an action, a scope
//! and a policy), [`tier`] the match tiers a policy allows and a report names, [`span`] the
//! byte spans that point an error back into the patch text, [`dialect`] the trait a dialect
//! implements and its parse error, [`error_kind`] the stable machine-readable error kinds,
//! [`reply_lines`] a model's reply as a dialect's `bare_block` reads it, [`read_hash`] the
//! stale-read guard's file hash.
//! Nothing here reads a file, locates or writes.

pub(crate) mod dialect;
pub(crate) mod error_kind;
pub(crate) mod plan;
pub(crate) mod read_hash;
pub(crate) mod reply_lines;
pub(crate) mod span;
pub(crate) mod tier;

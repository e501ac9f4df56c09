//! Locate: where an edit's lines could land in a file. A [`query`] says what to look for
//! and where; the [`engine`] finds the candidate places tier by tier, from exact to
//! loosest, comparing lines through the per-tier keys of [`fold`] and the file's line
//! hashes ([`index`]); the fuzzy tier ([`fuzzy`]) scores seeded windows by edit distance,
//! within the work budgets of [`effort`]. Which of the candidates counts, and what that
//! means for the edit, is decided in [`crate::decide`].

pub(crate) mod effort;
pub(crate) mod engine;
pub(crate) mod fold;
pub(crate) mod fuzzy;
pub(crate) mod index;
pub(crate) mod query;

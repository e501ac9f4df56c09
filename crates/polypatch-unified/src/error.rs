//! Error kinds of the unified dialect.

/// The dialect's name in errors and reports.
pub(crate) const DIALECT: &str = "unified";

/// The stable `kind` strings of [`PatchError`](polypatch_core::PatchError)s from this
/// dialect.
pub mod kind {
    /// The text holds no file section (`diff --git`, `---`/`+++`) at all.
    pub const NO_DIFF: &str = "no_diff";
}

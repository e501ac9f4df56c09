//! The error kinds of this dialect. Every malformed patch is the spec's "Patch Format
//! Invalid": a [`PatchError`] with `dialect == "applydiff"`, one of the [`kind`] constants,
//! a message for the model that wrote the patch, and the span of the offending text.

use polypatch_core::{PatchError, Span};

/// The dialect name carried by every error and plan.
pub(crate) const DIALECT: &str = "applydiff";

/// The stable `kind` strings of [`PatchError`]s from this dialect.
pub mod kind {
    /// The text holds no `>>> file:` block.
    pub const NO_BLOCKS: &str = "no_blocks";
    /// `>>> file:` without a path.
    pub const MISSING_PATH: &str = "missing_path";
    /// An option other than `mode` and `fuzz`, or one without `=`.
    pub const UNKNOWN_OPTION: &str = "unknown_option";
    /// The same option twice in one header.
    pub const REPEATED_OPTION: &str = "repeated_option";
    /// `mode=` other than `patch` or `replace`.
    pub const INVALID_MODE: &str = "invalid_mode";
    /// `fuzz=` that is not a number from 0 to 1.
    pub const INVALID_FUZZ: &str = "invalid_fuzz";
    /// The line after the header is not `--- from`.
    pub const MISSING_FROM: &str = "missing_from";
    /// The block ends (or the text does) before its `--- to` line.
    pub const MISSING_TO: &str = "missing_to";
    /// The block has no closing `<` line before the next block or the end of the text.
    pub const UNCLOSED_BLOCK: &str = "unclosed_block";
    /// A `--- from` or `--- to` line outside any block.
    pub const STRAY_MARKER: &str = "stray_marker";
    /// A `mode=replace` block with `--- from` lines: the whole new file goes after
    /// `--- to`, and `--- from` stays empty.
    pub const REPLACE_WITH_FROM: &str = "replace_with_from";
}

/// An error of this dialect.
pub(crate) fn error(kind: &'static str, message: impl Into<String>, span: Option<Span>) -> PatchError {
    PatchError::new(DIALECT, kind, message, span)
}

//! The error kinds of this dialect. Every malformed patch is the spec's "Patch Format
//! Invalid": a [`PatchError`] with `dialect == "applydiff"`, one of the [`KINDS`],
//! a message for the model that wrote the patch, and the span of the offending text.

use polypatch_core::{ErrorKind, PatchError, Span};

/// The dialect name carried by every error and plan.
pub(crate) const DIALECT: &str = "applydiff";

/// The text holds no `>>> file:` block.
pub const NO_BLOCKS: ErrorKind = ErrorKind::new("no_blocks");
/// `>>> file:` without a path.
pub const MISSING_PATH: ErrorKind = ErrorKind::new("missing_path");
/// An option other than `mode` and `fuzz`, or one without `=`.
pub const UNKNOWN_OPTION: ErrorKind = ErrorKind::new("unknown_option");
/// The same option twice in one header.
pub const REPEATED_OPTION: ErrorKind = ErrorKind::new("repeated_option");
/// `mode=` other than `patch` or `replace`.
pub const INVALID_MODE: ErrorKind = ErrorKind::new("invalid_mode");
/// `fuzz=` that is not a number from 0 to 1.
pub const INVALID_FUZZ: ErrorKind = ErrorKind::new("invalid_fuzz");
/// The line after the header is not `--- from`.
pub const MISSING_FROM: ErrorKind = ErrorKind::new("missing_from");
/// The block ends (or the text does) before its `--- to` line.
pub const MISSING_TO: ErrorKind = ErrorKind::new("missing_to");
/// The block has no closing `<` line before the next block or the end of the text.
pub const UNCLOSED_BLOCK: ErrorKind = ErrorKind::new("unclosed_block");
/// A `--- from` or `--- to` line outside any block.
pub const STRAY_MARKER: ErrorKind = ErrorKind::new("stray_marker");
/// A `mode=replace` block with `--- from` lines: the whole new file goes after `---
/// to`, and `--- from` stays empty.
pub const REPLACE_WITH_FROM: ErrorKind = ErrorKind::new("replace_with_from");

/// Every [`ErrorKind`] this dialect reports, in the order its parser checks for them
/// ([`Dialect::error_kinds`](polypatch_core::Dialect::error_kinds)).
///
/// A text cut off (a model's reply that hit its output limit) is [`ErrorKind::TRUNCATED`]
/// when the last block has no closing `<` (or no `--- to`) and the text ends without a line
/// break (otherwise [`UNCLOSED_BLOCK`] or [`MISSING_TO`]), or when the text stops in the
/// first characters of the next block's `>>> file:`.
pub const KINDS: &[ErrorKind] = &[
    NO_BLOCKS,
    MISSING_PATH,
    UNKNOWN_OPTION,
    REPEATED_OPTION,
    INVALID_MODE,
    INVALID_FUZZ,
    MISSING_FROM,
    MISSING_TO,
    UNCLOSED_BLOCK,
    ErrorKind::TRUNCATED,
    STRAY_MARKER,
    REPLACE_WITH_FROM,
];

/// An error of this dialect.
pub(crate) fn error(kind: ErrorKind, message: impl Into<String>, span: Option<Span>) -> PatchError {
    PatchError::new(DIALECT, kind, message, span)
}

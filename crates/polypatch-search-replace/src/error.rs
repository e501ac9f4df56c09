//! The error kinds of this dialect: a malformed patch is a [`PatchError`] with
//! `dialect == "search-replace"`, one of the [`KINDS`], a message for the model that wrote
//! it, and the span of the offending text.

use polypatch_core::{ErrorKind, PatchError, Span};

/// The dialect name carried by every error and plan.
pub(crate) const DIALECT: &str = "search-replace";

/// The text holds no `<<<<<<< SEARCH` (or `------- SEARCH`) line.
pub const NO_BLOCKS: ErrorKind = ErrorKind::new("no_blocks");
/// A block names no file (no path line before it or its fence, nor inside the fence) and
/// the caller gave none ([`ParseOptions::file`](polypatch_core::ParseOptions::file)).
pub const MISSING_PATH: ErrorKind = ErrorKind::new("missing_path");
/// `:start_line:` or `:end_line:` that is not a line number from 1, or an end before the
/// start.
pub const INVALID_LINE_HINT: ErrorKind = ErrorKind::new("invalid_line_hint");
/// The SEARCH section ends (a REPLACE marker, another SEARCH marker, the end of the fence
/// or of the text) before its `=======` line.
pub const MISSING_DIVIDER: ErrorKind = ErrorKind::new("missing_divider");
/// A second `=======` line in one block.
pub const REPEATED_DIVIDER: ErrorKind = ErrorKind::new("repeated_divider");
/// The REPLACE section has no `>>>>>>> REPLACE` line before the next SEARCH marker, the end
/// of the fence or the end of the text.
pub const UNCLOSED_BLOCK: ErrorKind = ErrorKind::new("unclosed_block");
/// A `=======` or `>>>>>>> REPLACE` line outside a block.
pub const STRAY_MARKER: ErrorKind = ErrorKind::new("stray_marker");
/// Both sections empty: the block changes nothing.
pub const EMPTY_BLOCK: ErrorKind = ErrorKind::new("empty_block");
/// A block for a file after that file's block with an empty SEARCH (a create or an
/// append) in the same patch: a re-run could not tell the appended lines from the file's.
pub const APPEND_NOT_LAST: ErrorKind = ErrorKind::new("append_not_last");
/// `...` lines that do not stand at the same places in SEARCH and REPLACE (a different
/// number of them), or a piece between them with nothing to find but lines to write.
pub const UNPAIRED_ELISION: ErrorKind = ErrorKind::new("unpaired_elision");

/// Every [`ErrorKind`] this dialect reports, in the order its parser checks for them
/// ([`Dialect::error_kinds`](polypatch_core::Dialect::error_kinds)).
///
/// A text cut off (a model's reply that hit its output limit) is [`ErrorKind::TRUNCATED`]
/// when a block has no divider or no REPLACE marker and the text ends without a line
/// break (otherwise [`MISSING_DIVIDER`] or [`UNCLOSED_BLOCK`]).
pub const KINDS: &[ErrorKind] = &[
    NO_BLOCKS,
    MISSING_PATH,
    INVALID_LINE_HINT,
    MISSING_DIVIDER,
    REPEATED_DIVIDER,
    UNCLOSED_BLOCK,
    ErrorKind::TRUNCATED,
    STRAY_MARKER,
    EMPTY_BLOCK,
    APPEND_NOT_LAST,
    UNPAIRED_ELISION,
];

/// An error of this dialect.
pub(crate) fn error(kind: ErrorKind, message: impl Into<String>, span: Option<Span>) -> PatchError {
    PatchError::new(DIALECT, kind, message, span)
}

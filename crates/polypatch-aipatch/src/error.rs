//! The error kinds this dialect reports, and how its errors are built.
//!
//! Every malformed patch is a [`PatchError`] with `dialect == "ai-patch"`, one of the
//! [`KINDS`], a lowercase message meant for the model that wrote the patch, and
//! (except for an empty text) the byte span of the offending text.

use polypatch_core::{ErrorKind, PatchError, Span};

/// The dialect name carried by every error and plan.
pub(crate) const DIALECT: &str = "ai-patch";

/// The text does not start with `*** Begin Patch` (after any heredoc or code fence).
pub const MISSING_BEGIN: ErrorKind = ErrorKind::new("missing_begin");
/// The text does not end with `*** End Patch`: a truncated patch is never applied.
pub const MISSING_END: ErrorKind = ErrorKind::new("missing_end");
/// Non-blank text follows `*** End Patch`.
pub const CONTENT_AFTER_END: ErrorKind = ErrorKind::new("content_after_end");
/// Nothing between `*** Begin Patch` and `*** End Patch`.
pub const EMPTY_PATCH: ErrorKind = ErrorKind::new("empty_patch");
/// A line where a file header was expected is not `*** Add File:`, `*** Delete File:`
/// or `*** Update File:` (or a `*** Move to:` that does not follow its update header).
pub const INVALID_HEADER: ErrorKind = ErrorKind::new("invalid_header");
/// A file header or `*** Move to:` without a path.
pub const MISSING_PATH: ErrorKind = ErrorKind::new("missing_path");
/// A line inside `*** Add File:` that does not start with `+`.
pub const INVALID_ADD_LINE: ErrorKind = ErrorKind::new("invalid_add_line");
/// A line after `*** Delete File:` (which takes no body).
pub const INVALID_DELETE_LINE: ErrorKind = ErrorKind::new("invalid_delete_line");
/// `*** Update File:` with no hunk.
pub const EMPTY_UPDATE: ErrorKind = ErrorKind::new("empty_update");
/// `@@ :N` where N is not a line number from 1.
pub const INVALID_LINE_HINT: ErrorKind = ErrorKind::new("invalid_line_hint");
/// A line starting with `@@` that is none of the hunk header forms (`@@foo`).
pub const INVALID_HUNK_HEADER: ErrorKind = ErrorKind::new("invalid_hunk_header");
/// A line inside a hunk that is not context (` `), removal (`-`), addition (`+`),
/// empty, `@@` or a `***` header.
pub const INVALID_HUNK_LINE: ErrorKind = ErrorKind::new("invalid_hunk_line");
/// A hunk header (or `*** End of File`) with no lines in its hunk.
pub const EMPTY_HUNK: ErrorKind = ErrorKind::new("empty_hunk");

/// Every [`ErrorKind`] this dialect reports, in the order its parser checks for them
/// ([`Dialect::error_kinds`](polypatch_core::Dialect::error_kinds)).
///
/// A text cut off (a model's reply that hit its output limit) is [`ErrorKind::TRUNCATED`]
/// when there is no `*** End Patch` and the last line has no line break (without the half
/// line, [`MISSING_END`]).
pub const KINDS: &[ErrorKind] = &[
    MISSING_BEGIN,
    MISSING_END,
    ErrorKind::TRUNCATED,
    CONTENT_AFTER_END,
    EMPTY_PATCH,
    INVALID_HEADER,
    MISSING_PATH,
    INVALID_ADD_LINE,
    INVALID_DELETE_LINE,
    EMPTY_UPDATE,
    INVALID_LINE_HINT,
    INVALID_HUNK_HEADER,
    INVALID_HUNK_LINE,
    EMPTY_HUNK,
];

/// An error of this dialect.
pub(crate) fn error(kind: ErrorKind, message: impl Into<String>, span: Option<Span>) -> PatchError {
    PatchError::new(DIALECT, kind, message, span)
}

pub(crate) use polypatch_core::quote;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_shortens_long_text() {
        assert_eq!(quote("abc"), "`abc`");
        let long = "x".repeat(70);
        assert_eq!(quote(&long), format!("`{}…`", "x".repeat(60)));
    }
}

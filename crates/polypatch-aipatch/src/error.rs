//! The error kinds this dialect reports, and how its errors are built.
//!
//! Every malformed patch is a [`PatchError`] with `dialect == "ai-patch"`, one of the
//! [`KINDS`], a lowercase message meant for the model that wrote the patch, and
//! (except for an empty text) the byte span of the offending text.

use polypatch_core::{ErrorKind, PatchError, Span};

/// The dialect name carried by every error and plan.
pub(crate) const DIALECT: &str = "ai-patch";

/// Every [`ErrorKind`] this dialect reports, in the order its parser checks for them.
pub const KINDS: &[ErrorKind] = &[
    ErrorKind::MissingBegin,
    ErrorKind::MissingEnd,
    ErrorKind::Truncated,
    ErrorKind::ContentAfterEnd,
    ErrorKind::EmptyPatch,
    ErrorKind::InvalidHeader,
    ErrorKind::MissingPath,
    ErrorKind::InvalidAddLine,
    ErrorKind::InvalidDeleteLine,
    ErrorKind::EmptyUpdate,
    ErrorKind::InvalidLineHint,
    ErrorKind::InvalidHunkHeader,
    ErrorKind::InvalidHunkLine,
    ErrorKind::EmptyHunk,
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

//! The error kinds this dialect reports, and how its errors are built.
//!
//! Every malformed diff is a [`PatchError`] with `dialect == "unified"`, one of the
//! [`KINDS`], a lowercase message meant for whoever wrote the diff, and (except
//! for a text with no diff at all) the byte span of the offending text.

use polypatch_core::{ErrorKind, PatchError, Span};

/// The dialect's name in errors and reports.
pub(crate) const DIALECT: &str = "unified";

/// Every [`ErrorKind`] this dialect reports, in the order its parser checks for them.
pub const KINDS: &[ErrorKind] = &[
    ErrorKind::NoDiff,
    ErrorKind::InvalidHunkHeader,
    ErrorKind::HunkOutsideFile,
    ErrorKind::MissingNewHeader,
    ErrorKind::EmptyHunk,
    ErrorKind::InvalidHunkLine,
    ErrorKind::Truncated,
    ErrorKind::EmptySection,
    ErrorKind::InvalidPath,
    ErrorKind::MissingPath,
    ErrorKind::InvalidHeader,
    ErrorKind::InvalidMode,
    ErrorKind::ConflictingHeaders,
    ErrorKind::BadStrip,
    ErrorKind::NoContext,
    ErrorKind::BinaryWithoutData,
    ErrorKind::InvalidBinary,
    ErrorKind::BinaryTooLarge,
    ErrorKind::BinaryTotalTooLarge,
    ErrorKind::UnsupportedSymlink,
    ErrorKind::UnsupportedSubmodule,
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
        assert_eq!(quote(&"x".repeat(70)), format!("`{}…`", "x".repeat(60)));
    }
}

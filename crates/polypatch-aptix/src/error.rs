//! The error kinds of this dialect: a [`PatchError`] with `dialect == "aptix"`, one of the
//! [`KINDS`], a message that says what to write instead, and, where it can be
//! told, the span of the offending text.

use polypatch_core::{ErrorKind, PatchError, Span};

/// The dialect name carried by every error and plan.
pub(crate) const DIALECT: &str = "aptix";

/// Every [`ErrorKind`] this dialect reports, in the order its parser checks for them.
pub const KINDS: &[ErrorKind] = &[
    ErrorKind::NoBundle,
    ErrorKind::InvalidJson,
    ErrorKind::RawControlCharacter,
    ErrorKind::TrailingComma,
    ErrorKind::UnclosedJson,
    ErrorKind::TooLarge,
    ErrorKind::TooDeep,
    ErrorKind::Mode,
    ErrorKind::InvalidField,
    ErrorKind::MissingField,
    ErrorKind::UnknownField,
    ErrorKind::InvalidOperation,
    ErrorKind::OperationFields,
    ErrorKind::InvalidLimit,
    ErrorKind::EmptyFind,
    ErrorKind::InvalidRoot,
    ErrorKind::InvalidPath,
    ErrorKind::GitPatch,
    ErrorKind::BinaryTooLarge,
    ErrorKind::BinaryTotalTooLarge,
];

/// An error of this dialect.
pub(crate) fn error(kind: ErrorKind, message: impl Into<String>, span: Option<Span>) -> PatchError {
    PatchError::new(DIALECT, kind, message, span)
}

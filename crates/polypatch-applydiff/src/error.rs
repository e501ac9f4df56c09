//! The error kinds of this dialect. Every malformed patch is the spec's "Patch Format
//! Invalid": a [`PatchError`] with `dialect == "applydiff"`, one of the [`KINDS`],
//! a message for the model that wrote the patch, and the span of the offending text.

use polypatch_core::{ErrorKind, PatchError, Span};

/// The dialect name carried by every error and plan.
pub(crate) const DIALECT: &str = "applydiff";

/// Every [`ErrorKind`] this dialect reports, in the order its parser checks for them.
pub const KINDS: &[ErrorKind] = &[
    ErrorKind::NoBlocks,
    ErrorKind::MissingPath,
    ErrorKind::UnknownOption,
    ErrorKind::RepeatedOption,
    ErrorKind::InvalidMode,
    ErrorKind::InvalidFuzz,
    ErrorKind::MissingFrom,
    ErrorKind::MissingTo,
    ErrorKind::UnclosedBlock,
    ErrorKind::Truncated,
    ErrorKind::StrayMarker,
    ErrorKind::ReplaceWithFrom,
];

/// An error of this dialect.
pub(crate) fn error(kind: ErrorKind, message: impl Into<String>, span: Option<Span>) -> PatchError {
    PatchError::new(DIALECT, kind, message, span)
}

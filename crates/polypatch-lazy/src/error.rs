//! The error kinds of this dialect: a malformed snippet is a [`PatchError`] with
//! `dialect == "lazy"`, one of the [`KINDS`], a message for the model that wrote it, and
//! the span of the offending text.

use polypatch_core::{ErrorKind, PatchError, Span};

/// The dialect name carried by every error and plan.
pub(crate) const DIALECT: &str = "lazy";

/// The text holds no snippet: it is empty, or only prose around empty fences.
pub const NO_SNIPPET: ErrorKind = ErrorKind::new("no_snippet");
/// A snippet names no file (no path in its fence's info string nor on the line above the
/// fence) and the caller gave none ([`ParseOptions::file`](polypatch_core::ParseOptions::file)).
pub const MISSING_PATH: ErrorKind = ErrorKind::new("missing_path");
/// A snippet holds only markers and blank lines: it says nothing about the file.
pub const ONLY_MARKERS: ErrorKind = ErrorKind::new("only_markers");

/// A fence without a path holds a marker after a snippet's fence: a `` ``` `` line inside the
/// snippet ended its fence early (fence such a snippet with four backticks).
pub const SPLIT_SNIPPET: ErrorKind = ErrorKind::new("split_snippet");

/// Every [`ErrorKind`] this dialect reports
/// ([`Dialect::error_kinds`](polypatch_core::Dialect::error_kinds)).
pub const KINDS: &[ErrorKind] = &[NO_SNIPPET, MISSING_PATH, SPLIT_SNIPPET, ONLY_MARKERS];

/// An error of this dialect.
pub(crate) fn error(kind: ErrorKind, message: impl Into<String>, span: Option<Span>) -> PatchError {
    PatchError::new(DIALECT, kind, message, span)
}

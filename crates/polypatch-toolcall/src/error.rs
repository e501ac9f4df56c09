//! The error kinds of this dialect: a [`PatchError`] with `dialect == "tool-call"`, one of
//! the [`KINDS`], a message that names the call and the field and says what to send
//! instead, and, where it can be told, the span of the offending JSON.

use polypatch_core::{ErrorKind, PatchError, Span};

/// The dialect name carried by every error and plan.
pub(crate) const DIALECT: &str = "tool-call";

/// No JSON object or array in the text (nor in a fenced block of it).
pub const NO_CALL: ErrorKind = ErrorKind::new("no_call");
/// The JSON is malformed (`serde_json`'s message, line and column).
pub const INVALID_JSON: ErrorKind = ErrorKind::new("invalid_json");
/// The JSON ends before every object and array is closed (a reply cut off).
pub const UNCLOSED_JSON: ErrorKind = ErrorKind::new("unclosed_json");
/// The JSON is bigger than the limit ([`MAX_CALLS_BYTES`](crate::MAX_CALLS_BYTES)).
pub const TOO_LARGE: ErrorKind = ErrorKind::new("too_large");
/// The JSON nests deeper than `serde_json`'s limit (128).
pub const TOO_DEEP: ErrorKind = ErrorKind::new("too_deep");
/// An `OpenAI` function call's `arguments` string is not a JSON object.
pub const INVALID_ARGUMENTS: ErrorKind = ErrorKind::new("invalid_arguments");
/// An empty array: no call to apply.
pub const NO_EDIT: ErrorKind = ErrorKind::new("no_edit");
/// A call whose keys (and tool name) match none of the shapes.
pub const UNKNOWN_SHAPE: ErrorKind = ErrorKind::new("unknown_shape");
/// A call that is not an edit: the text editor's `view` or `undo_edit`.
pub const NOT_AN_EDIT: ErrorKind = ErrorKind::new("not_an_edit");
/// A required field is missing.
pub const MISSING_FIELD: ErrorKind = ErrorKind::new("missing_field");
/// A field has the wrong type or value.
pub const INVALID_FIELD: ErrorKind = ErrorKind::new("invalid_field");
/// A `path` or `file_path` that is empty or holds a line break or NUL.
pub const INVALID_PATH: ErrorKind = ErrorKind::new("invalid_path");
/// An empty old text where the shape has no meaning for it.
pub const EMPTY_OLD: ErrorKind = ErrorKind::new("empty_old");
/// MCP `dryRun: true`: the caller asked for a preview, which a patch cannot say.
pub const DRY_RUN: ErrorKind = ErrorKind::new("dry_run");
/// An `apply_patch` diff, Cline's / Roo's SEARCH/REPLACE blocks, or Continue's / Copilot's
/// lazy snippet, that is malformed (the AI-PATCH hunk grammar's, the search-replace or the
/// lazy dialect's reason, and the diff's line), or that names another file than the call.
pub const INVALID_DIFF: ErrorKind = ErrorKind::new("invalid_diff");

/// Every [`ErrorKind`] this dialect reports, in the order its parser checks for them
/// ([`Dialect::error_kinds`](polypatch_core::Dialect::error_kinds)).
pub const KINDS: &[ErrorKind] = &[
    NO_CALL,
    INVALID_JSON,
    UNCLOSED_JSON,
    TOO_LARGE,
    TOO_DEEP,
    INVALID_ARGUMENTS,
    NO_EDIT,
    UNKNOWN_SHAPE,
    NOT_AN_EDIT,
    MISSING_FIELD,
    INVALID_FIELD,
    INVALID_PATH,
    EMPTY_OLD,
    DRY_RUN,
    INVALID_DIFF,
];

/// An error of this dialect.
pub(crate) fn error(kind: ErrorKind, message: impl Into<String>, span: Option<Span>) -> PatchError {
    PatchError::new(DIALECT, kind, message, span)
}

//! The error kinds of this dialect: a [`PatchError`] with `dialect == "aptix"`, one of the
//! [`kind`] constants, a message that says what to write instead, and, where it can be
//! told, the span of the offending text.

use polypatch_core::{PatchError, Span};

/// The dialect name carried by every error and plan.
pub(crate) const DIALECT: &str = "aptix";

/// The stable `kind` strings of [`PatchError`]s from this dialect.
pub mod kind {
    /// No JSON object in the text (nor in a fenced block of it).
    pub const NO_BUNDLE: &str = "no_bundle";
    /// The JSON is malformed (`serde_json`'s message, line and column).
    pub const INVALID_JSON: &str = "invalid_json";
    /// A raw line break (or another control character) inside a JSON string.
    pub const RAW_CONTROL_CHARACTER: &str = "raw_control_character";
    /// A comma before a closing `]` or `}`.
    pub const TRAILING_COMMA: &str = "trailing_comma";
    /// The JSON ends before every object and array is closed.
    pub const UNCLOSED_JSON: &str = "unclosed_json";
    /// The bundle is bigger than [`crate::MAX_BUNDLE_BYTES`].
    pub const TOO_LARGE: &str = "too_large";
    /// The JSON nests deeper than `serde_json`'s limit (128).
    pub const TOO_DEEP: &str = "too_deep";
    /// The bundle has both `files` and `patches` (SYS-004 §2.2), or neither, or an empty one.
    pub const MODE: &str = "mode";
    /// A field has the wrong type, or the top level is not an object.
    pub const INVALID_FIELD: &str = "invalid_field";
    /// A required field is missing.
    pub const MISSING_FIELD: &str = "missing_field";
    /// A field this dialect does not know (a typo such as `contents`).
    pub const UNKNOWN_FIELD: &str = "unknown_field";
    /// `operation` other than `create`, `replace`, `delete`, `patch`, `gitPatch`.
    pub const INVALID_OPERATION: &str = "invalid_operation";
    /// A field an operation must not have, or lacks (SYS-004 §3.3).
    pub const OPERATION_FIELDS: &str = "operation_fields";
    /// `limit` other than `once` and `all`.
    pub const INVALID_LIMIT: &str = "invalid_limit";
    /// An empty `find`.
    pub const EMPTY_FIND: &str = "empty_find";
    /// A `root` that is absolute, uses `..` or backslashes.
    pub const INVALID_ROOT: &str = "invalid_root";
    /// A `path` that is empty, absolute, starts with `./`, uses `..` or backslashes.
    pub const INVALID_PATH: &str = "invalid_path";
    /// A `gitPatch` whose diff is malformed, or names files other than its entry's path.
    pub const GIT_PATCH: &str = "git_patch";
}

/// An error of this dialect.
pub(crate) fn error(kind: &'static str, message: impl Into<String>, span: Option<Span>) -> PatchError {
    PatchError::new(DIALECT, kind, message, span)
}

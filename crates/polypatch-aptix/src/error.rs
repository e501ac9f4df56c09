//! The error kinds of this dialect: a [`PatchError`] with `dialect == "aptix"`, one of the
//! [`KINDS`], a message that says what to write instead, and, where it can be
//! told, the span of the offending text.

use polypatch_core::{ErrorKind, PatchError, Span};

/// The dialect name carried by every error and plan.
pub(crate) const DIALECT: &str = "aptix";

/// No JSON object in the text (nor in a fenced block of it).
pub const NO_BUNDLE: ErrorKind = ErrorKind::new("no_bundle");
/// The JSON is malformed (`serde_json`'s message, line and column).
pub const INVALID_JSON: ErrorKind = ErrorKind::new("invalid_json");
/// A raw line break (or another control character) inside a JSON string.
pub const RAW_CONTROL_CHARACTER: ErrorKind = ErrorKind::new("raw_control_character");
/// A comma before a closing `]` or `}`.
pub const TRAILING_COMMA: ErrorKind = ErrorKind::new("trailing_comma");
/// The JSON ends before every object and array is closed.
pub const UNCLOSED_JSON: ErrorKind = ErrorKind::new("unclosed_json");
/// The bundle is bigger than the limit (64 MiB).
pub const TOO_LARGE: ErrorKind = ErrorKind::new("too_large");
/// The JSON nests deeper than `serde_json`'s limit (128).
pub const TOO_DEEP: ErrorKind = ErrorKind::new("too_deep");
/// The bundle has both `files` and `patches` (SYS-004 §2.2), or neither, or an empty
/// one.
pub const MODE: ErrorKind = ErrorKind::new("mode");
/// A field has the wrong type, or the top level is not an object.
pub const INVALID_FIELD: ErrorKind = ErrorKind::new("invalid_field");
/// A required field is missing.
pub const MISSING_FIELD: ErrorKind = ErrorKind::new("missing_field");
/// A field this dialect does not know (a typo such as `contents`).
pub const UNKNOWN_FIELD: ErrorKind = ErrorKind::new("unknown_field");
/// `operation` other than `create`, `replace`, `delete`, `patch`, `gitPatch`.
pub const INVALID_OPERATION: ErrorKind = ErrorKind::new("invalid_operation");
/// A field an operation must not have, or lacks (SYS-004 §3.3).
pub const OPERATION_FIELDS: ErrorKind = ErrorKind::new("operation_fields");
/// `limit` other than `once` and `all`.
pub const INVALID_LIMIT: ErrorKind = ErrorKind::new("invalid_limit");
/// An empty `find`.
pub const EMPTY_FIND: ErrorKind = ErrorKind::new("empty_find");
/// A `root` that is absolute, uses `..` or backslashes.
pub const INVALID_ROOT: ErrorKind = ErrorKind::new("invalid_root");
/// A `path` that is empty, absolute, starts with `./`, uses `..` or backslashes.
pub const INVALID_PATH: ErrorKind = ErrorKind::new("invalid_path");
/// A `gitPatch` whose diff is malformed, or names files other than its entry's path.
pub const GIT_PATCH: ErrorKind = ErrorKind::new("git_patch");
/// A `gitPatch` entry's `GIT binary patch` block expands to more bytes than the limit
/// ([`ParseOptions::max_binary_size`](polypatch_core::ParseOptions::max_binary_size)): the
/// unified dialect's kind of the same code, passed on.
pub const BINARY_TOO_LARGE: ErrorKind = ErrorKind::new("binary_too_large");
/// The binary data of the bundle's `gitPatch` entries expands to more bytes than the limit
/// ([`ParseOptions::max_total_binary_size`](polypatch_core::ParseOptions::max_total_binary_size)):
/// the unified dialect's kind of the same code, passed on.
pub const BINARY_TOTAL_TOO_LARGE: ErrorKind = ErrorKind::new("binary_total_too_large");
/// A `gitPatch` entry's `GIT binary patch` in a build without the `git-binary` feature
/// (the zlib its data is compressed with): the unified dialect's kind of the same code,
/// passed on; listed in [`KINDS`] only in such a build.
pub const UNSUPPORTED_BINARY: ErrorKind = polypatch_unified::error::UNSUPPORTED_BINARY;

/// Every [`ErrorKind`] this dialect reports, in the order its parser checks for them
/// ([`Dialect::error_kinds`](polypatch_core::Dialect::error_kinds)). A bundle cut off
/// (a model's reply that hit its output limit) is [`UNCLOSED_JSON`], whose message says so.
pub const KINDS: &[ErrorKind] = &[
    NO_BUNDLE,
    INVALID_JSON,
    RAW_CONTROL_CHARACTER,
    TRAILING_COMMA,
    UNCLOSED_JSON,
    TOO_LARGE,
    TOO_DEEP,
    MODE,
    INVALID_FIELD,
    MISSING_FIELD,
    UNKNOWN_FIELD,
    INVALID_OPERATION,
    OPERATION_FIELDS,
    INVALID_LIMIT,
    EMPTY_FIND,
    INVALID_ROOT,
    INVALID_PATH,
    GIT_PATCH,
    BINARY_TOO_LARGE,
    BINARY_TOTAL_TOO_LARGE,
    #[cfg(not(feature = "git-binary"))]
    UNSUPPORTED_BINARY,
];

/// An error of this dialect.
pub(crate) fn error(kind: ErrorKind, message: impl Into<String>, span: Option<Span>) -> PatchError {
    PatchError::new(DIALECT, kind, message, span)
}

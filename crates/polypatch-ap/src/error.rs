//! The error kinds this dialect reports, and how its errors are built.
//!
//! Every malformed patch is a [`PatchError`] with `dialect == "ap"`, one of the [`KINDS`]
//! kinds, a lowercase message meant for the model that wrote the patch (it names the
//! change and modification, 1-based, and the YAML line, and says what to write instead),
//! and the byte span of the offending key or item.

use polypatch_core::{ErrorKind, LineBreaks, PatchError, Span};

/// The dialect name carried by every error and plan.
pub(crate) const DIALECT: &str = "ap";

/// The text is not valid YAML (the parser's message, at the line it names: a misindented
/// key is the common case), or holds several YAML documents.
pub const INVALID_YAML: ErrorKind = ErrorKind::new("invalid_yaml");
/// The text breaches one of the YAML reader's safety limits: anchors and aliases that
/// expand too far, too many nodes or bytes, or lists and mappings nested too deeply.
pub const YAML_LIMIT: ErrorKind = ErrorKind::new("yaml_limit");
/// The document is not a mapping with `version` and `changes` (an empty text, a list, a
/// plain string).
pub const INVALID_ROOT: ErrorKind = ErrorKind::new("invalid_root");
/// A mapping has a key the format does not know (a misspelled `snipet`); the message lists
/// the known keys.
pub const UNKNOWN_KEY: ErrorKind = ErrorKind::new("unknown_key");
/// A value has the wrong YAML type: a list or mapping where a string is expected, a change
/// or modification that is not a mapping.
pub const INVALID_TYPE: ErrorKind = ErrorKind::new("invalid_type");
/// No `version` key.
pub const MISSING_VERSION: ErrorKind = ErrorKind::new("missing_version");
/// `version` is not `"2.0"`; the message lists the supported versions.
pub const UNSUPPORTED_VERSION: ErrorKind = ErrorKind::new("unsupported_version");
/// No `changes` key, or `changes` is not a list.
pub const MISSING_CHANGES: ErrorKind = ErrorKind::new("missing_changes");
/// A change without `file_path`.
pub const MISSING_FILE_PATH: ErrorKind = ErrorKind::new("missing_file_path");
/// A `file_path` that is empty, absolute, or has a `..` component.
pub const INVALID_PATH: ErrorKind = ErrorKind::new("invalid_path");
/// A change without `modifications`, or `modifications` is not a list.
pub const MISSING_MODIFICATIONS: ErrorKind = ErrorKind::new("missing_modifications");
/// `modifications` is an empty list: nothing would change, so the change is a mistake.
pub const EMPTY_MODIFICATIONS: ErrorKind = ErrorKind::new("empty_modifications");
/// `newline` is not `LF`, `CRLF` or `CR`.
pub const INVALID_NEWLINE: ErrorKind = ErrorKind::new("invalid_newline");
/// A modification without `action`.
pub const MISSING_ACTION: ErrorKind = ErrorKind::new("missing_action");
/// An `action` other than `REPLACE`, `INSERT_AFTER`, `INSERT_BEFORE`, `DELETE` and
/// `CREATE_FILE`.
pub const UNKNOWN_ACTION: ErrorKind = ErrorKind::new("unknown_action");
/// Neither `snippet` nor `start_snippet`/`end_snippet` for an action that locates.
pub const MISSING_SNIPPET: ErrorKind = ErrorKind::new("missing_snippet");
/// Both `snippet` and `start_snippet`/`end_snippet`: they are mutually exclusive.
pub const SNIPPET_AND_RANGE: ErrorKind = ErrorKind::new("snippet_and_range");
/// `start_snippet` without `end_snippet`, or the reverse.
pub const INCOMPLETE_RANGE: ErrorKind = ErrorKind::new("incomplete_range");
/// `start_snippet`/`end_snippet` with `INSERT_AFTER` or `INSERT_BEFORE` (ranges are for
/// `REPLACE` and `DELETE`).
pub const RANGE_WITH_INSERT: ErrorKind = ErrorKind::new("range_with_insert");
/// A `snippet`, `start_snippet`, `end_snippet` or `anchor` with no non-blank line: it would
/// match everywhere.
pub const EMPTY_SNIPPET: ErrorKind = ErrorKind::new("empty_snippet");
/// No `content` (or a null one) for `REPLACE`, `INSERT_AFTER`, `INSERT_BEFORE` or
/// `CREATE_FILE`.
pub const MISSING_CONTENT: ErrorKind = ErrorKind::new("missing_content");
/// `content` with `DELETE`.
pub const UNEXPECTED_CONTENT: ErrorKind = ErrorKind::new("unexpected_content");
/// `CREATE_FILE` with a key only located actions take (`snippet`, `anchor`,
/// `start_snippet`, `end_snippet`, `include_*_blank_lines`).
pub const INVALID_CREATE_FILE: ErrorKind = ErrorKind::new("invalid_create_file");
/// `include_leading_blank_lines` or `include_trailing_blank_lines` that is not a
/// non-negative integer.
pub const INVALID_BLANK_LINES: ErrorKind = ErrorKind::new("invalid_blank_lines");

/// Every [`ErrorKind`] this dialect reports, in the order its parser checks for them
/// ([`Dialect::error_kinds`](polypatch_core::Dialect::error_kinds)). 'ap' YAML has no end
/// marker and YAML needs no final line break, so an 'ap' text alone cannot show a cut
/// (only a chat reply's unclosed fence can: [`ErrorKind::TRUNCATED`], reported by the
/// reply pipeline).
pub const KINDS: &[ErrorKind] = &[
    INVALID_YAML,
    YAML_LIMIT,
    INVALID_ROOT,
    UNKNOWN_KEY,
    INVALID_TYPE,
    MISSING_VERSION,
    UNSUPPORTED_VERSION,
    MISSING_CHANGES,
    MISSING_FILE_PATH,
    INVALID_PATH,
    MISSING_MODIFICATIONS,
    EMPTY_MODIFICATIONS,
    INVALID_NEWLINE,
    MISSING_ACTION,
    UNKNOWN_ACTION,
    MISSING_SNIPPET,
    SNIPPET_AND_RANGE,
    INCOMPLETE_RANGE,
    RANGE_WITH_INSERT,
    EMPTY_SNIPPET,
    MISSING_CONTENT,
    UNEXPECTED_CONTENT,
    INVALID_CREATE_FILE,
    INVALID_BLANK_LINES,
];

/// An error of this dialect.
pub(crate) fn error(kind: ErrorKind, message: impl Into<String>, span: Option<Span>) -> PatchError {
    // YAML ends a line at a lone `\r` too: the line numbers must count it.
    PatchError::new(DIALECT, kind, message, span).with_line_breaks(LineBreaks::Any)
}

pub(crate) use polypatch_core::quote;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_shortens_long_text_and_keeps_one_line() {
        assert_eq!(quote("abc"), "`abc`");
        assert_eq!(quote("a\nb\n"), "`a⏎b`");
        let long = "x".repeat(70);
        assert_eq!(quote(&long), format!("`{}…`", "x".repeat(60)));
    }
}

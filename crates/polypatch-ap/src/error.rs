//! The error kinds this dialect reports, and how its errors are built.
//!
//! Every malformed patch is a [`PatchError`] with `dialect == "ap"`, one of the [`KINDS`]
//! kinds, a lowercase message meant for the model that wrote the patch (it names the
//! change and modification, 1-based, and the YAML line, and says what to write instead),
//! and the byte span of the offending key or item.

use polypatch_core::{ErrorKind, LineBreaks, PatchError, Span};

/// The dialect name carried by every error and plan.
pub(crate) const DIALECT: &str = "ap";

/// Every [`ErrorKind`] this dialect reports, in the order its parser checks for them.
pub const KINDS: &[ErrorKind] = &[
    ErrorKind::InvalidYaml,
    ErrorKind::YamlLimit,
    ErrorKind::InvalidRoot,
    ErrorKind::UnknownKey,
    ErrorKind::InvalidType,
    ErrorKind::MissingVersion,
    ErrorKind::UnsupportedVersion,
    ErrorKind::MissingChanges,
    ErrorKind::MissingFilePath,
    ErrorKind::InvalidPath,
    ErrorKind::MissingModifications,
    ErrorKind::EmptyModifications,
    ErrorKind::InvalidNewline,
    ErrorKind::MissingAction,
    ErrorKind::UnknownAction,
    ErrorKind::MissingSnippet,
    ErrorKind::SnippetAndRange,
    ErrorKind::IncompleteRange,
    ErrorKind::RangeWithInsert,
    ErrorKind::EmptySnippet,
    ErrorKind::MissingContent,
    ErrorKind::UnexpectedContent,
    ErrorKind::InvalidCreateFile,
    ErrorKind::InvalidBlankLines,
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

//! The error kinds this dialect reports, and how its errors are built.
//!
//! Every malformed patch is a [`PatchError`] with `dialect == "ai-patch"`, one of the
//! [`kind`] constants, a lowercase message meant for the model that wrote the patch, and
//! (except for an empty text) the byte span of the offending text.

use polypatch_core::{PatchError, Span};

/// The dialect name carried by every error and plan.
pub(crate) const DIALECT: &str = "ai-patch";

/// The stable `kind` strings of [`PatchError`]s from this dialect.
pub mod kind {
    /// The text does not start with `*** Begin Patch` (after any heredoc or code fence).
    pub const MISSING_BEGIN: &str = "missing_begin";
    /// The text does not end with `*** End Patch`: a truncated patch is never applied.
    pub const MISSING_END: &str = "missing_end";
    /// Non-blank text follows `*** End Patch`.
    pub const CONTENT_AFTER_END: &str = "content_after_end";
    /// Nothing between `*** Begin Patch` and `*** End Patch`.
    pub const EMPTY_PATCH: &str = "empty_patch";
    /// A line where a file header was expected is not `*** Add File:`, `*** Delete File:`
    /// or `*** Update File:` (or a `*** Move to:` that does not follow its update header).
    pub const INVALID_HEADER: &str = "invalid_header";
    /// A file header or `*** Move to:` without a path.
    pub const MISSING_PATH: &str = "missing_path";
    /// A line inside `*** Add File:` that does not start with `+`.
    pub const INVALID_ADD_LINE: &str = "invalid_add_line";
    /// A line after `*** Delete File:` (which takes no body).
    pub const INVALID_DELETE_LINE: &str = "invalid_delete_line";
    /// `*** Update File:` with no hunk.
    pub const EMPTY_UPDATE: &str = "empty_update";
    /// `@@ :N` where N is not a line number from 1.
    pub const INVALID_LINE_HINT: &str = "invalid_line_hint";
    /// A line starting with `@@` that is none of the hunk header forms (`@@foo`).
    pub const INVALID_HUNK_HEADER: &str = "invalid_hunk_header";
    /// A line inside a hunk that is not context (` `), removal (`-`), addition (`+`),
    /// empty, `@@` or a `***` header.
    pub const INVALID_HUNK_LINE: &str = "invalid_hunk_line";
    /// A hunk header (or `*** End of File`) with no lines in its hunk.
    pub const EMPTY_HUNK: &str = "empty_hunk";
}

/// An error of this dialect.
pub(crate) fn error(kind: &'static str, message: impl Into<String>, span: Option<Span>) -> PatchError {
    PatchError::new(DIALECT, kind, message, span)
}

/// `text` in backticks for a message, shortened when long.
pub(crate) fn quote(text: &str) -> String {
    const MAX: usize = 60;
    if text.chars().count() <= MAX {
        format!("`{text}`")
    } else {
        let head: String = text.chars().take(MAX).collect();
        format!("`{head}…`")
    }
}

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

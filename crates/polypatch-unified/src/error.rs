//! The error kinds this dialect reports, and how its errors are built.
//!
//! Every malformed diff is a [`PatchError`] with `dialect == "unified"`, one of the
//! [`kind`] constants, a lowercase message meant for whoever wrote the diff, and (except
//! for a text with no diff at all) the byte span of the offending text.

use polypatch_core::{PatchError, Span};

/// The dialect's name in errors and reports.
pub(crate) const DIALECT: &str = "unified";

/// The stable `kind` strings of [`PatchError`]s from this dialect.
pub mod kind {
    /// The text holds no file section (`diff --git`, `---`/`+++`) at all.
    pub const NO_DIFF: &str = "no_diff";
    /// A line starting with `@@` that is not a hunk header (`@@ -a,b +c,d @@`, or `@@`
    /// alone), or a combined diff's `@@@` header.
    pub const INVALID_HUNK_HEADER: &str = "invalid_hunk_header";
    /// A hunk header outside a file section (no `---`/`+++` or `diff --git` before it).
    pub const HUNK_OUTSIDE_FILE: &str = "hunk_outside_file";
    /// A `--- name` line inside a `diff --git` section that is not followed by `+++ name`.
    pub const MISSING_NEW_HEADER: &str = "missing_new_header";
    /// A hunk header with no line in its body.
    pub const EMPTY_HUNK: &str = "empty_hunk";
    /// A body line that cannot be in its hunk: a removed or context line in a new file, an
    /// added or context line in a deleted file.
    pub const INVALID_HUNK_LINE: &str = "invalid_hunk_line";
    /// A file section with nothing in it: a `diff --git` line without headers, hunks or
    /// binary data, or `---`/`+++` lines without a hunk.
    pub const EMPTY_SECTION: &str = "empty_section";
    /// A name that cannot be read: a bad C-quoted name (unknown escape, missing closing
    /// quote, bytes that are not UTF-8), or an empty name.
    pub const INVALID_PATH: &str = "invalid_path";
    /// A `diff --git` section whose file names cannot be told apart (unquoted names with
    /// spaces that differ) and that names them nowhere else.
    pub const MISSING_PATH: &str = "missing_path";
    /// An extended header whose value cannot be read (`similarity index x`, `index zz`).
    pub const INVALID_HEADER: &str = "invalid_header";
    /// A mode that is not octal, or names no kind of file git stores.
    pub const INVALID_MODE: &str = "invalid_mode";
    /// Headers of one section that contradict each other: `new file mode` with `deleted
    /// file mode`, a rename with a copy, `rename from` without `rename to`, a new file whose
    /// old side is not `/dev/null`.
    pub const CONFLICTING_HEADERS: &str = "conflicting_headers";
    /// A name with fewer components than the strip level (`-p N`) removes.
    pub const BAD_STRIP: &str = "bad_strip";
    /// A pure addition (no context and no removed line) that is not at the start of the
    /// file: nothing says where it goes.
    pub const NO_CONTEXT: &str = "no_context";
    /// `Binary files a and b differ`: git left out the data.
    pub const BINARY_WITHOUT_DATA: &str = "binary_without_data";
    /// A `GIT binary patch` whose blocks cannot be read or decoded.
    pub const INVALID_BINARY: &str = "invalid_binary";
    /// A `GIT binary patch` block that expands to more bytes than the limit
    /// ([`ParseOptions::max_binary_size`](polypatch_core::ParseOptions::max_binary_size)).
    pub const BINARY_TOO_LARGE: &str = "binary_too_large";
    /// A symbolic link (mode `120000`): polypatch writes regular files only.
    pub const UNSUPPORTED_SYMLINK: &str = "unsupported_symlink";
    /// A submodule (mode `160000`): it is not a file.
    pub const UNSUPPORTED_SUBMODULE: &str = "unsupported_submodule";
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
        assert_eq!(quote(&"x".repeat(70)), format!("`{}…`", "x".repeat(60)));
    }
}

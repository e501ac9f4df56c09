//! The error kinds this dialect reports, and how its errors are built.
//!
//! Every malformed diff is a [`PatchError`] with `dialect == "unified"`, one of the
//! [`KINDS`], a lowercase message meant for whoever wrote the diff, and (except
//! for a text with no diff at all) the byte span of the offending text.

use polypatch_core::{ErrorKind, PatchError, Span};

/// The dialect's name in errors and reports.
pub(crate) const DIALECT: &str = "unified";

/// The text holds no file section (`diff --git`, `---`/`+++`) at all.
pub const NO_DIFF: ErrorKind = ErrorKind::new("no_diff");
/// A line starting with `@@` that is not a hunk header (`@@ -a,b +c,d @@`, or `@@`
/// alone), or a combined diff's `@@@` header.
pub const INVALID_HUNK_HEADER: ErrorKind = ErrorKind::new("invalid_hunk_header");
/// A hunk header outside a file section (no `---`/`+++` or `diff --git` before it).
pub const HUNK_OUTSIDE_FILE: ErrorKind = ErrorKind::new("hunk_outside_file");
/// A `--- name` line inside a `diff --git` section that is not followed by `+++ name`.
pub const MISSING_NEW_HEADER: ErrorKind = ErrorKind::new("missing_new_header");
/// A hunk header with no line in its body.
pub const EMPTY_HUNK: ErrorKind = ErrorKind::new("empty_hunk");
/// A body line that cannot be in its hunk: a removed or context line in a new file, an
/// added or context line in a deleted file.
pub const INVALID_HUNK_LINE: ErrorKind = ErrorKind::new("invalid_hunk_line");
/// A file section with nothing in it: a `diff --git` line without headers, hunks or
/// binary data, or `---`/`+++` lines without a hunk.
pub const EMPTY_SECTION: ErrorKind = ErrorKind::new("empty_section");
/// A name that cannot be read: a bad C-quoted name (unknown escape, missing closing
/// quote, bytes that are not UTF-8), or an empty name.
pub const INVALID_PATH: ErrorKind = ErrorKind::new("invalid_path");
/// A `diff --git` section whose file names cannot be told apart (unquoted names with
/// spaces that differ) and that names them nowhere else.
pub const MISSING_PATH: ErrorKind = ErrorKind::new("missing_path");
/// An extended header whose value cannot be read (`similarity index x`, `index zz`).
pub const INVALID_HEADER: ErrorKind = ErrorKind::new("invalid_header");
/// A mode that is not octal, or names no kind of file git stores.
pub const INVALID_MODE: ErrorKind = ErrorKind::new("invalid_mode");
/// Headers of one section that contradict each other: `new file mode` with `deleted
/// file mode`, a rename with a copy, `rename from` without `rename to`, a new file whose old
/// side is not `/dev/null`.
pub const CONFLICTING_HEADERS: ErrorKind = ErrorKind::new("conflicting_headers");
/// A name with fewer components than the strip level (`-p N`) removes.
pub const BAD_STRIP: ErrorKind = ErrorKind::new("bad_strip");
/// A pure addition (no context and no removed line) that is not at the start of the
/// file: nothing says where it goes.
pub const NO_CONTEXT: ErrorKind = ErrorKind::new("no_context");
/// `Binary files a and b differ`: git left out the data.
pub const BINARY_WITHOUT_DATA: ErrorKind = ErrorKind::new("binary_without_data");
/// A `GIT binary patch` whose blocks cannot be read or decoded.
pub const INVALID_BINARY: ErrorKind = ErrorKind::new("invalid_binary");
/// A `GIT binary patch` block that expands to more bytes than the limit
/// ([`ParseOptions::max_binary_size`](polypatch_core::ParseOptions::max_binary_size)).
pub const BINARY_TOO_LARGE: ErrorKind = ErrorKind::new("binary_too_large");
/// The binary data of a whole patch expands to more bytes
/// than the limit ([`ParseOptions::max_total_binary_size`](polypatch_core::ParseOptions::max_total_binary_size)).
pub const BINARY_TOTAL_TOO_LARGE: ErrorKind = ErrorKind::new("binary_total_too_large");
/// A `GIT binary patch` in a build without the `git-binary` feature (the zlib its data is
/// compressed with): listed in [`KINDS`] only in such a build.
pub const UNSUPPORTED_BINARY: ErrorKind = ErrorKind::new("unsupported_binary");
/// A symbolic link (mode `120000`): polypatch writes regular files only.
pub const UNSUPPORTED_SYMLINK: ErrorKind = ErrorKind::new("unsupported_symlink");
/// A submodule (mode `160000`): it is not a file.
pub const UNSUPPORTED_SUBMODULE: ErrorKind = ErrorKind::new("unsupported_submodule");

/// Every [`ErrorKind`] this dialect reports, in the order its parser checks for them
/// ([`Dialect::error_kinds`](polypatch_core::Dialect::error_kinds)).
///
/// A text cut off (a model's reply that hit its output limit) is [`ErrorKind::TRUNCATED`]
/// when the last hunk has fewer lines than its header counts and the text ends without a
/// line break (and without a `\ No newline at end of file` line), or when the text stops,
/// after a hunk, in the first characters of the next hunk's `@@ ` or file's `diff --git `.
/// A hunk whose counts differ from its body in a complete diff is still read by its body.
/// A cut that falls in the last line of a hunk whose counts it then meets (the hunk's last
/// added line, say) cannot be told from a complete diff without a final line break.
pub const KINDS: &[ErrorKind] = &[
    NO_DIFF,
    INVALID_HUNK_HEADER,
    HUNK_OUTSIDE_FILE,
    MISSING_NEW_HEADER,
    EMPTY_HUNK,
    INVALID_HUNK_LINE,
    ErrorKind::TRUNCATED,
    EMPTY_SECTION,
    INVALID_PATH,
    MISSING_PATH,
    INVALID_HEADER,
    INVALID_MODE,
    CONFLICTING_HEADERS,
    BAD_STRIP,
    NO_CONTEXT,
    BINARY_WITHOUT_DATA,
    INVALID_BINARY,
    BINARY_TOO_LARGE,
    BINARY_TOTAL_TOO_LARGE,
    #[cfg(not(feature = "git-binary"))]
    UNSUPPORTED_BINARY,
    UNSUPPORTED_SYMLINK,
    UNSUPPORTED_SUBMODULE,
];

/// An error of this dialect.
pub(crate) fn error(kind: ErrorKind, message: impl Into<String>, span: Option<Span>) -> PatchError {
    PatchError::new(DIALECT, kind, message, span)
}

pub(crate) use polypatch_core::quote;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_shortens_long_text() {
        assert_eq!(quote("abc"), "`abc`");
        assert_eq!(quote(&"x".repeat(70)), format!("`{}…`", "x".repeat(60)));
    }
}

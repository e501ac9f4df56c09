//! What kind of malformed patch a [`crate::PatchError`] reports.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A stable, machine-readable reason why a patch text was refused.
///
/// Every dialect reports its malformed patches with these kinds; each dialect crate lists
/// the ones it uses in its `KINDS`. A kind serializes (and displays) as its `snake_case`
/// name (`"missing_end"`), which is stable across releases; new kinds may be added, so
/// match with a wildcard arm.
///
/// ```
/// use polypatch_core::ErrorKind;
///
/// assert_eq!(ErrorKind::MissingEnd.as_str(), "missing_end");
/// assert_eq!("missing_end".parse::<ErrorKind>(), Ok(ErrorKind::MissingEnd));
/// assert_eq!(ErrorKind::MissingEnd, "missing_end");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// unified: A name with fewer components than the strip level (`-p N`) removes.
    BadStrip,
    /// unified: A `GIT binary patch` block that expands to more bytes than the limit
    /// ([`ParseOptions::max_binary_size`](crate::ParseOptions::max_binary_size)).
    BinaryTooLarge,
    /// unified, Aptix (`gitPatch`): The binary data of a whole patch expands to more bytes
    /// than the limit ([`ParseOptions::max_total_binary_size`](crate::ParseOptions::max_total_binary_size)).
    BinaryTotalTooLarge,
    /// unified: `Binary files a and b differ`: git left out the data.
    BinaryWithoutData,
    /// unified: Headers of one section that contradict each other: `new file mode` with `deleted
    /// file mode`, a rename with a copy, `rename from` without `rename to`, a new file whose old
    /// side is not `/dev/null`.
    ConflictingHeaders,
    /// AI-PATCH: Non-blank text follows `*** End Patch`.
    ContentAfterEnd,
    /// Aptix: An empty `find`.
    EmptyFind,
    /// One of:
    /// - AI-PATCH: A hunk header (or `*** End of File`) with no lines in its hunk.
    /// - unified: A hunk header with no line in its body.
    EmptyHunk,
    /// ap: `modifications` is an empty list: nothing would change, so the change is a mistake.
    EmptyModifications,
    /// AI-PATCH: Nothing between `*** Begin Patch` and `*** End Patch`.
    EmptyPatch,
    /// unified: A file section with nothing in it: a `diff --git` line without headers, hunks or
    /// binary data, or `---`/`+++` lines without a hunk.
    EmptySection,
    /// ap: A `snippet`, `start_snippet`, `end_snippet` or `anchor` with no non-blank line: it would
    /// match everywhere.
    EmptySnippet,
    /// AI-PATCH: `*** Update File:` with no hunk.
    EmptyUpdate,
    /// Aptix: A `gitPatch` whose diff is malformed, or names files other than its entry's path.
    GitPatch,
    /// unified: A hunk header outside a file section (no `---`/`+++` or `diff --git` before it).
    HunkOutsideFile,
    /// ap: `start_snippet` without `end_snippet`, or the reverse.
    IncompleteRange,
    /// AI-PATCH: A line inside `*** Add File:` that does not start with `+`.
    InvalidAddLine,
    /// unified: A `GIT binary patch` whose blocks cannot be read or decoded.
    InvalidBinary,
    /// ap: `include_leading_blank_lines` or `include_trailing_blank_lines` that is not a
    /// non-negative integer.
    InvalidBlankLines,
    /// ap: `CREATE_FILE` with a key only located actions take (`snippet`, `anchor`,
    /// `start_snippet`, `end_snippet`, `include_*_blank_lines`).
    InvalidCreateFile,
    /// AI-PATCH: A line after `*** Delete File:` (which takes no body).
    InvalidDeleteLine,
    /// Aptix: A field has the wrong type, or the top level is not an object.
    InvalidField,
    /// `ApplyDiff`: `fuzz=` that is not a number from 0 to 1.
    InvalidFuzz,
    /// One of:
    /// - AI-PATCH: A line where a file header was expected is not `*** Add File:`, `*** Delete File:`
    ///   or `*** Update File:` (or a `*** Move to:` that does not follow its update header).
    /// - unified: An extended header whose value cannot be read (`similarity index x`, `index zz`).
    InvalidHeader,
    /// One of:
    /// - AI-PATCH: A line starting with `@@` that is none of the hunk header forms (`@@foo`).
    /// - unified: A line starting with `@@` that is not a hunk header (`@@ -a,b +c,d @@`, or `@@`
    ///   alone), or a combined diff's `@@@` header.
    InvalidHunkHeader,
    /// One of:
    /// - AI-PATCH: A line inside a hunk that is not context (` `), removal (`-`), addition (`+`),
    ///   empty, `@@` or a `***` header.
    /// - unified: A body line that cannot be in its hunk: a removed or context line in a new file, an
    ///   added or context line in a deleted file.
    InvalidHunkLine,
    /// Aptix: The JSON is malformed (`serde_json`'s message, line and column).
    InvalidJson,
    /// Aptix: `limit` other than `once` and `all`.
    InvalidLimit,
    /// AI-PATCH: `@@ :N` where N is not a line number from 1.
    InvalidLineHint,
    /// One of:
    /// - `ApplyDiff`: `mode=` other than `patch` or `replace`.
    /// - unified: A mode that is not octal, or names no kind of file git stores.
    InvalidMode,
    /// ap: `newline` is not `LF`, `CRLF` or `CR`.
    InvalidNewline,
    /// Aptix: `operation` other than `create`, `replace`, `delete`, `patch`, `gitPatch`.
    InvalidOperation,
    /// One of:
    /// - ap: A `file_path` that is empty, absolute, or has a `..` component.
    /// - Aptix: A `path` that is empty, absolute, starts with `./`, uses `..` or backslashes.
    /// - unified: A name that cannot be read: a bad C-quoted name (unknown escape, missing closing
    ///   quote, bytes that are not UTF-8), or an empty name.
    InvalidPath,
    /// One of:
    /// - ap: The document is not a mapping with `version` and `changes` (an empty text, a list, a
    ///   plain string).
    /// - Aptix: A `root` that is absolute, uses `..` or backslashes.
    InvalidRoot,
    /// ap: A value has the wrong YAML type: a list or mapping where a string is expected, a change
    /// or modification that is not a mapping.
    InvalidType,
    /// ap: The text is not valid YAML (the parser's message, at the line it names: a misindented
    /// key is the common case), or holds several YAML documents.
    InvalidYaml,
    /// ap: A modification without `action`.
    MissingAction,
    /// AI-PATCH: The text does not start with `*** Begin Patch` (after any heredoc or code fence).
    MissingBegin,
    /// ap: No `changes` key, or `changes` is not a list.
    MissingChanges,
    /// ap: No `content` (or a null one) for `REPLACE`, `INSERT_AFTER`, `INSERT_BEFORE` or
    /// `CREATE_FILE`.
    MissingContent,
    /// AI-PATCH: The text does not end with `*** End Patch`: a truncated patch is never applied.
    MissingEnd,
    /// Aptix: A required field is missing.
    MissingField,
    /// ap: A change without `file_path`.
    MissingFilePath,
    /// `ApplyDiff`: The line after the header is not `--- from`.
    MissingFrom,
    /// ap: A change without `modifications`, or `modifications` is not a list.
    MissingModifications,
    /// unified: A `--- name` line inside a `diff --git` section that is not followed by `+++ name`.
    MissingNewHeader,
    /// One of:
    /// - AI-PATCH: A file header or `*** Move to:` without a path.
    /// - `ApplyDiff`: `>>> file:` without a path.
    /// - unified: A `diff --git` section whose file names cannot be told apart (unquoted names with
    ///   spaces that differ) and that names them nowhere else.
    MissingPath,
    /// ap: Neither `snippet` nor `start_snippet`/`end_snippet` for an action that locates.
    MissingSnippet,
    /// `ApplyDiff`: The block ends (or the text does) before its `--- to` line.
    MissingTo,
    /// ap: No `version` key.
    MissingVersion,
    /// Aptix: The bundle has both `files` and `patches` (SYS-004 §2.2), or neither, or an empty
    /// one.
    Mode,
    /// `ApplyDiff`: The text holds no `>>> file:` block.
    NoBlocks,
    /// Aptix: No JSON object in the text (nor in a fenced block of it).
    NoBundle,
    /// unified: A pure addition (no context and no removed line) that is not at the start of the
    /// file: nothing says where it goes.
    NoContext,
    /// unified: The text holds no file section (`diff --git`, `---`/`+++`) at all.
    NoDiff,
    /// A chat reply (`polypatch::apply_text`) holds no patch block at all.
    NoPatch,
    /// The patch text is not UTF-8 (and not a unified diff, which may carry other bytes).
    NotUtf8,
    /// Aptix: A field an operation must not have, or lacks (SYS-004 §3.3).
    OperationFields,
    /// ap: `start_snippet`/`end_snippet` with `INSERT_AFTER` or `INSERT_BEFORE` (ranges are for
    /// `REPLACE` and `DELETE`).
    RangeWithInsert,
    /// Aptix: A raw line break (or another control character) inside a JSON string.
    RawControlCharacter,
    /// `ApplyDiff`: The same option twice in one header.
    RepeatedOption,
    /// `ApplyDiff`: A `mode=replace` block with `--- from` lines: the whole new file goes after `---
    /// to`, and `--- from` stays empty.
    ReplaceWithFrom,
    /// ap: Both `snippet` and `start_snippet`/`end_snippet`: they are mutually exclusive.
    SnippetAndRange,
    /// `ApplyDiff`: A `--- from` or `--- to` line outside any block.
    StrayMarker,
    /// Aptix: The JSON nests deeper than `serde_json`'s limit (128).
    TooDeep,
    /// Aptix: The bundle is bigger than the limit (64 MiB).
    TooLarge,
    /// Aptix: A comma before a closing `]` or `}`.
    TrailingComma,
    /// The text stops in the middle of a line where the patch cannot end: a model's reply
    /// cut off by its output limit. The message names the line ("the patch ends in the
    /// middle of a line at line N: the reply was probably cut off; ask for it again"). One of:
    /// - unified: The last hunk has fewer lines than its header counts, and the text ends
    ///   without a line break (and without a `\ No newline at end of file` line); or the
    ///   text stops, after a hunk, in the first characters of the next hunk's `@@ ` or
    ///   file's `diff --git `. A hunk whose counts differ from its body in a complete diff
    ///   is still read by its body.
    /// - AI-PATCH: No `*** End Patch`, and the last line has no line break (without the
    ///   half line, `missing_end`).
    /// - `ApplyDiff`: The last block has no closing `<` (or no `--- to`) and the text ends
    ///   without a line break (otherwise `unclosed_block` or `missing_to`), or the text
    ///   stops in the first characters of the next block's `>>> file:`.
    ///
    /// A cut that falls in the last line of a hunk whose counts it then meets (the
    /// hunk's last added line, say) cannot be told from a complete diff without a final
    /// line break; in a fence that never closes it is still refused.
    /// - A chat reply (`polypatch::apply_text`, `polypatch::parse` with any format, the
    ///   CLI): the last block of a fence that never closes, where the reply ends without a
    ///   line break, whatever its dialect.
    ///
    /// 'ap' YAML has no end marker and YAML needs no final line break, so an 'ap' text alone
    /// cannot show a cut (only in an unclosed fence); an Aptix bundle cut off is
    /// `unclosed_json`, whose message says so.
    Truncated,
    /// `ApplyDiff`: The block has no closing `<` line before the next block or the end of the text.
    UnclosedBlock,
    /// Aptix: The JSON ends before every object and array is closed.
    UnclosedJson,
    /// ap: `content` with `DELETE`.
    UnexpectedContent,
    /// ap: An `action` other than `REPLACE`, `INSERT_AFTER`, `INSERT_BEFORE`, `DELETE` and
    /// `CREATE_FILE`.
    UnknownAction,
    /// Aptix: A field this dialect does not know (a typo such as `contents`).
    UnknownField,
    /// The text does not look like any known patch format, or the named format is unknown.
    UnknownFormat,
    /// ap: A mapping has a key the format does not know (a misspelled `snipet`); the message lists
    /// the known keys.
    UnknownKey,
    /// `ApplyDiff`: An option other than `mode` and `fuzz`, or one without `=`.
    UnknownOption,
    /// unified: A submodule (mode `160000`): it is not a file.
    UnsupportedSubmodule,
    /// unified: A symbolic link (mode `120000`): polypatch writes regular files only.
    UnsupportedSymlink,
    /// ap: `version` is not `"2.0"`; the message lists the supported versions.
    UnsupportedVersion,
    /// ap: The text breaches one of the YAML reader's safety limits: anchors and aliases that
    /// expand too far, too many nodes or bytes, or lists and mappings nested too deeply.
    YamlLimit,
}

impl ErrorKind {
    /// Every kind, in alphabetical order of their names.
    pub const ALL: &[ErrorKind] = &[
        ErrorKind::BadStrip,
        ErrorKind::BinaryTooLarge,
        ErrorKind::BinaryTotalTooLarge,
        ErrorKind::BinaryWithoutData,
        ErrorKind::ConflictingHeaders,
        ErrorKind::ContentAfterEnd,
        ErrorKind::EmptyFind,
        ErrorKind::EmptyHunk,
        ErrorKind::EmptyModifications,
        ErrorKind::EmptyPatch,
        ErrorKind::EmptySection,
        ErrorKind::EmptySnippet,
        ErrorKind::EmptyUpdate,
        ErrorKind::GitPatch,
        ErrorKind::HunkOutsideFile,
        ErrorKind::IncompleteRange,
        ErrorKind::InvalidAddLine,
        ErrorKind::InvalidBinary,
        ErrorKind::InvalidBlankLines,
        ErrorKind::InvalidCreateFile,
        ErrorKind::InvalidDeleteLine,
        ErrorKind::InvalidField,
        ErrorKind::InvalidFuzz,
        ErrorKind::InvalidHeader,
        ErrorKind::InvalidHunkHeader,
        ErrorKind::InvalidHunkLine,
        ErrorKind::InvalidJson,
        ErrorKind::InvalidLimit,
        ErrorKind::InvalidLineHint,
        ErrorKind::InvalidMode,
        ErrorKind::InvalidNewline,
        ErrorKind::InvalidOperation,
        ErrorKind::InvalidPath,
        ErrorKind::InvalidRoot,
        ErrorKind::InvalidType,
        ErrorKind::InvalidYaml,
        ErrorKind::MissingAction,
        ErrorKind::MissingBegin,
        ErrorKind::MissingChanges,
        ErrorKind::MissingContent,
        ErrorKind::MissingEnd,
        ErrorKind::MissingField,
        ErrorKind::MissingFilePath,
        ErrorKind::MissingFrom,
        ErrorKind::MissingModifications,
        ErrorKind::MissingNewHeader,
        ErrorKind::MissingPath,
        ErrorKind::MissingSnippet,
        ErrorKind::MissingTo,
        ErrorKind::MissingVersion,
        ErrorKind::Mode,
        ErrorKind::NoBlocks,
        ErrorKind::NoBundle,
        ErrorKind::NoContext,
        ErrorKind::NoDiff,
        ErrorKind::NoPatch,
        ErrorKind::NotUtf8,
        ErrorKind::OperationFields,
        ErrorKind::RangeWithInsert,
        ErrorKind::RawControlCharacter,
        ErrorKind::RepeatedOption,
        ErrorKind::ReplaceWithFrom,
        ErrorKind::SnippetAndRange,
        ErrorKind::StrayMarker,
        ErrorKind::TooDeep,
        ErrorKind::TooLarge,
        ErrorKind::TrailingComma,
        ErrorKind::Truncated,
        ErrorKind::UnclosedBlock,
        ErrorKind::UnclosedJson,
        ErrorKind::UnexpectedContent,
        ErrorKind::UnknownAction,
        ErrorKind::UnknownField,
        ErrorKind::UnknownFormat,
        ErrorKind::UnknownKey,
        ErrorKind::UnknownOption,
        ErrorKind::UnsupportedSubmodule,
        ErrorKind::UnsupportedSymlink,
        ErrorKind::UnsupportedVersion,
        ErrorKind::YamlLimit,
    ];

    /// The kind's stable `snake_case` name (`"missing_end"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::BadStrip => "bad_strip",
            ErrorKind::BinaryTooLarge => "binary_too_large",
            ErrorKind::BinaryTotalTooLarge => "binary_total_too_large",
            ErrorKind::BinaryWithoutData => "binary_without_data",
            ErrorKind::ConflictingHeaders => "conflicting_headers",
            ErrorKind::ContentAfterEnd => "content_after_end",
            ErrorKind::EmptyFind => "empty_find",
            ErrorKind::EmptyHunk => "empty_hunk",
            ErrorKind::EmptyModifications => "empty_modifications",
            ErrorKind::EmptyPatch => "empty_patch",
            ErrorKind::EmptySection => "empty_section",
            ErrorKind::EmptySnippet => "empty_snippet",
            ErrorKind::EmptyUpdate => "empty_update",
            ErrorKind::GitPatch => "git_patch",
            ErrorKind::HunkOutsideFile => "hunk_outside_file",
            ErrorKind::IncompleteRange => "incomplete_range",
            ErrorKind::InvalidAddLine => "invalid_add_line",
            ErrorKind::InvalidBinary => "invalid_binary",
            ErrorKind::InvalidBlankLines => "invalid_blank_lines",
            ErrorKind::InvalidCreateFile => "invalid_create_file",
            ErrorKind::InvalidDeleteLine => "invalid_delete_line",
            ErrorKind::InvalidField => "invalid_field",
            ErrorKind::InvalidFuzz => "invalid_fuzz",
            ErrorKind::InvalidHeader => "invalid_header",
            ErrorKind::InvalidHunkHeader => "invalid_hunk_header",
            ErrorKind::InvalidHunkLine => "invalid_hunk_line",
            ErrorKind::InvalidJson => "invalid_json",
            ErrorKind::InvalidLimit => "invalid_limit",
            ErrorKind::InvalidLineHint => "invalid_line_hint",
            ErrorKind::InvalidMode => "invalid_mode",
            ErrorKind::InvalidNewline => "invalid_newline",
            ErrorKind::InvalidOperation => "invalid_operation",
            ErrorKind::InvalidPath => "invalid_path",
            ErrorKind::InvalidRoot => "invalid_root",
            ErrorKind::InvalidType => "invalid_type",
            ErrorKind::InvalidYaml => "invalid_yaml",
            ErrorKind::MissingAction => "missing_action",
            ErrorKind::MissingBegin => "missing_begin",
            ErrorKind::MissingChanges => "missing_changes",
            ErrorKind::MissingContent => "missing_content",
            ErrorKind::MissingEnd => "missing_end",
            ErrorKind::MissingField => "missing_field",
            ErrorKind::MissingFilePath => "missing_file_path",
            ErrorKind::MissingFrom => "missing_from",
            ErrorKind::MissingModifications => "missing_modifications",
            ErrorKind::MissingNewHeader => "missing_new_header",
            ErrorKind::MissingPath => "missing_path",
            ErrorKind::MissingSnippet => "missing_snippet",
            ErrorKind::MissingTo => "missing_to",
            ErrorKind::MissingVersion => "missing_version",
            ErrorKind::Mode => "mode",
            ErrorKind::NoBlocks => "no_blocks",
            ErrorKind::NoBundle => "no_bundle",
            ErrorKind::NoContext => "no_context",
            ErrorKind::NoDiff => "no_diff",
            ErrorKind::NoPatch => "no_patch",
            ErrorKind::NotUtf8 => "not_utf8",
            ErrorKind::OperationFields => "operation_fields",
            ErrorKind::RangeWithInsert => "range_with_insert",
            ErrorKind::RawControlCharacter => "raw_control_character",
            ErrorKind::RepeatedOption => "repeated_option",
            ErrorKind::ReplaceWithFrom => "replace_with_from",
            ErrorKind::SnippetAndRange => "snippet_and_range",
            ErrorKind::StrayMarker => "stray_marker",
            ErrorKind::TooDeep => "too_deep",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::TrailingComma => "trailing_comma",
            ErrorKind::Truncated => "truncated",
            ErrorKind::UnclosedBlock => "unclosed_block",
            ErrorKind::UnclosedJson => "unclosed_json",
            ErrorKind::UnexpectedContent => "unexpected_content",
            ErrorKind::UnknownAction => "unknown_action",
            ErrorKind::UnknownField => "unknown_field",
            ErrorKind::UnknownFormat => "unknown_format",
            ErrorKind::UnknownKey => "unknown_key",
            ErrorKind::UnknownOption => "unknown_option",
            ErrorKind::UnsupportedSubmodule => "unsupported_submodule",
            ErrorKind::UnsupportedSymlink => "unsupported_symlink",
            ErrorKind::UnsupportedVersion => "unsupported_version",
            ErrorKind::YamlLimit => "yaml_limit",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The name given to [`ErrorKind`]'s `FromStr` is not a known kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown error kind `{0}`")]
pub struct UnknownErrorKind(pub String);

impl std::str::FromStr for ErrorKind {
    type Err = UnknownErrorKind;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        ErrorKind::ALL.iter().copied().find(|k| k.as_str() == name).ok_or_else(|| UnknownErrorKind(name.to_string()))
    }
}

impl PartialEq<str> for ErrorKind {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ErrorKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_serde_and_from_str() {
        for &kind in ErrorKind::ALL {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.as_str()));
            assert_eq!(serde_json::from_str::<ErrorKind>(&json).unwrap(), kind);
            assert_eq!(kind.as_str().parse::<ErrorKind>(), Ok(kind));
        }
        assert!(ErrorKind::ALL.windows(2).all(|w| w[0].as_str() < w[1].as_str()));
        assert_eq!("nope".parse::<ErrorKind>(), Err(UnknownErrorKind("nope".into())));
    }
}

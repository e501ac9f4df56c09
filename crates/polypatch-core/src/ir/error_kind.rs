//! What kind of malformed patch a [`crate::PatchError`] reports.

use std::borrow::Cow;

/// A stable, machine-readable reason why a patch text was refused: a `snake_case` code
/// (`"missing_end"`).
///
/// The type is open: each dialect defines the kinds it reports as constants of its own
/// (`polypatch_aipatch::error::MISSING_END`) and lists them in
/// [`Dialect::error_kinds`](crate::Dialect::error_kinds); core defines only the kinds
/// that belong to no dialect (the associated constants below). A kind displays and
/// serializes as its code, which is stable across releases; two kinds are equal when
/// their codes are, so two dialects that report the same mistake share its code
/// (`invalid_path`). Compare with a constant or with the code itself (with `==`: a kind is
/// not a pattern `match` takes):
///
/// ```
/// use polypatch_core::ErrorKind;
///
/// const MISSING_END: ErrorKind = ErrorKind::new("missing_end");
/// assert_eq!(MISSING_END.as_str(), "missing_end");
/// assert_eq!(MISSING_END, "missing_end");
/// assert_eq!(MISSING_END.to_string(), "missing_end");
/// # #[cfg(feature = "serde")] // serde_json: core's `serde` feature
/// assert_eq!(serde_json::to_string(&ErrorKind::TRUNCATED).unwrap(), "\"truncated\"");
/// ```
///
/// A kind read back from JSON (a [`ReportDocument`]'s error, in the facade) holds its
/// code, whatever dialect defined it, so the type is not `Copy`: a constant's code is
/// borrowed, a code read back is owned. A dialect's list of kinds is a `const` slice:
///
/// ```
/// use polypatch_core::ErrorKind;
///
/// const BAD_LINE: ErrorKind = ErrorKind::new("bad_line");
/// const KINDS: &[ErrorKind] = &[BAD_LINE, ErrorKind::TRUNCATED];
/// # #[cfg(feature = "serde")] // serde_json: core's `serde` feature
/// # {
/// let back: ErrorKind = serde_json::from_str("\"bad_line\"").unwrap();
/// assert_eq!(back, BAD_LINE);
/// assert!(KINDS.contains(&back));
/// # }
/// ```
///
/// [`ReportDocument`]: https://docs.rs/polypatch/latest/polypatch/struct.ReportDocument.html
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ErrorKind(Cow<'static, str>);

impl ErrorKind {
    /// The text stops in the middle of a line where the patch cannot end: a model's reply
    /// cut off by its output limit. The message names the line ("the patch ends in the
    /// middle of a line at line N: the reply was probably cut off; ask for it again";
    /// [`PatchError::truncated`](crate::PatchError::truncated) builds it). Each dialect
    /// that can tell where its text cannot end reports it (its `KINDS` say which), and so
    /// does a chat reply (`polypatch::apply_text`, `polypatch::parse` with any format, the
    /// CLI) for the last block of a fence that never closes, where the reply ends without
    /// a line break, whatever its dialect.
    pub const TRUNCATED: ErrorKind = ErrorKind::new("truncated");
    /// A chat reply (`polypatch::apply_text`) holds no patch block at all.
    pub const NO_PATCH: ErrorKind = ErrorKind::new("no_patch");
    /// The patch text is not UTF-8 (and not a unified diff, which may carry other bytes).
    pub const NOT_UTF8: ErrorKind = ErrorKind::new("not_utf8");
    /// The text does not look like any known patch format, or the named format is unknown.
    pub const UNKNOWN_FORMAT: ErrorKind = ErrorKind::new("unknown_format");

    /// The kind whose code is `code`: `snake_case`, stable once published (JSON
    /// consumers match on it).
    pub const fn new(code: &'static str) -> Self {
        ErrorKind(Cow::Borrowed(code))
    }

    /// The kind's stable `snake_case` code (`"missing_end"`).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

crate::dialect_name::name_impls!(ErrorKind);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_is_its_code_in_text_and_json() {
        for kind in [ErrorKind::TRUNCATED, ErrorKind::NO_PATCH, ErrorKind::NOT_UTF8, ErrorKind::UNKNOWN_FORMAT] {
            #[cfg(feature = "serde")]
            assert_eq!(serde_json::to_string(&kind).unwrap(), format!("\"{}\"", kind.as_str()));
            assert_eq!(kind.to_string(), kind.as_str());
            assert_eq!(kind, kind.as_str());
        }
        assert_eq!(ErrorKind::NO_PATCH.as_str(), "no_patch");
        assert_eq!(ErrorKind::NOT_UTF8.as_str(), "not_utf8");
        assert_eq!(ErrorKind::UNKNOWN_FORMAT.as_str(), "unknown_format");
        assert_eq!(ErrorKind::TRUNCATED.as_str(), "truncated");
        // Equal codes are one kind, whoever defines them; order is the codes' order.
        assert_eq!(ErrorKind::new("truncated"), ErrorKind::TRUNCATED);
        assert_ne!(ErrorKind::new("truncate"), ErrorKind::TRUNCATED);
        assert!(ErrorKind::NO_PATCH < ErrorKind::TRUNCATED);
    }
}

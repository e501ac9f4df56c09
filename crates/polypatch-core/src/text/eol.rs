//! Line endings, all in one place: [`Eol`], the terminator a line of a file has (or
//! none, on a last line without one); [`Newline`], a terminator a patch or a policy asks
//! for; [`LineBreaks`], which byte sequences end a line when a file or a patch is split;
//! [`NewLineEnds`], which terminator a new line gets in a file that mixes them.
//!
//! `Eol` and `Newline` look alike but are not one type: a line of a file may end with no
//! terminator at all, a requested ending cannot be "none", and both are public with their
//! own serde names (`Lf` for a line's, `LF` in a plan). The two others are options, not
//! terminators.

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

/// A line terminator.
///
/// Closed (not `#[non_exhaustive]`): a line ends with `\n`, `\r\n`, a lone `\r` or
/// nothing, and a caller may match all four.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub enum Eol {
    /// `\n`
    #[default]
    Lf,
    /// `\r\n`
    CrLf,
    /// `\r` alone
    Cr,
    /// The last line of a file that does not end with a newline.
    None,
}

impl Eol {
    /// The terminator's bytes.
    pub fn as_str(self) -> &'static str {
        match self {
            Eol::Lf => "\n",
            Eol::CrLf => "\r\n",
            Eol::Cr => "\r",
            Eol::None => "",
        }
    }
}

impl From<Newline> for Eol {
    fn from(n: Newline) -> Eol {
        match n {
            Newline::Lf => Eol::Lf,
            Newline::CrLf => Eol::CrLf,
            Newline::Cr => Eol::Cr,
        }
    }
}

/// What ends a line of a file being edited.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum LineBreaks {
    /// `\n`, `\r\n` and a lone `\r` (Codex treats a lone `\r` as a line end).
    #[default]
    Any,
    /// `\n` and `\r\n` only; a lone `\r` is part of the line's text (git and GNU patch).
    LfOrCrLf,
}

/// Which terminator a new line gets when the patch does not give one, in a file that
/// mixes `\n` and `\r\n`. (In a file with one kind throughout, both give that kind.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum NewLineEnds {
    /// The terminator of the line it replaces or, for an insertion, of the line next to it:
    /// each region of the file keeps its ending.
    #[default]
    Neighbour,
    /// The file's most frequent terminator (what Codex's `apply_patch` does).
    Usual,
}

/// A line ending style.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[non_exhaustive]
pub enum Newline {
    /// `\n`
    #[cfg_attr(feature = "serde", serde(rename = "LF"))]
    Lf,
    /// `\r\n`
    #[cfg_attr(feature = "serde", serde(rename = "CRLF"))]
    CrLf,
    /// `\r`
    #[cfg_attr(feature = "serde", serde(rename = "CR"))]
    Cr,
}

impl Newline {
    /// The bytes of this line ending.
    pub fn as_str(self) -> &'static str {
        match self {
            Newline::Lf => "\n",
            Newline::CrLf => "\r\n",
            Newline::Cr => "\r",
        }
    }
}

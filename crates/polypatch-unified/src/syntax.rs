//! Unified diff text → syntax tree with byte spans. (Owned by the parser work.)

use polypatch_core::{PatchError, Span};

/// A parsed diff: its file sections in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch<'a> {
    /// The file sections.
    pub files: Vec<FilePatch<'a>>,
}

/// One file section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePatch<'a> {
    /// The hunks.
    pub hunks: Vec<Hunk<'a>>,
    /// The binary patch, if any.
    pub binary: Option<BinaryPatch>,
    /// Where the section was written.
    pub span: Span,
}

/// A hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk<'a> {
    /// The lines.
    pub lines: Vec<HunkLine<'a>>,
    /// Where it was written.
    pub span: Span,
}

/// A line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkLine<'a> {
    /// Its kind.
    pub kind: LineKind,
    /// Its text.
    pub text: &'a str,
}

/// The kind of a hunk line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// ` `
    Context,
    /// `-`
    Removed,
    /// `+`
    Added,
}

/// A `GIT binary patch`: forward and (optional) reverse data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinaryPatch {
    /// Old → new.
    pub forward: BinaryHunk,
    /// New → old.
    pub reverse: Option<BinaryHunk>,
}

/// One block of a binary patch, inflated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BinaryHunk {
    /// `literal <size>`: the whole content.
    Literal(Vec<u8>),
    /// `delta <size>`: a git delta.
    Delta(Vec<u8>),
}

/// Parses a unified diff.
pub fn parse(text: &str) -> Result<Patch<'_>, PatchError> {
    let _ = text;
    todo!()
}

/// How strongly `text` looks like a unified diff (0–100).
pub(crate) fn sniff(text: &str) -> u8 {
    let _ = text;
    todo!()
}

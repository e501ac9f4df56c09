//! The intermediate representation every dialect lowers into.
//!
//! An [`EditPlan`] is an ordered list of [`FileEdit`]s. Each names a path (as the patch
//! wrote it; it is resolved against the root when applied) and one [`FileOp`]. Text edits
//! inside a file are [`Edit`]s: a [`Target`] (what to find), an [`Action`] (what to do
//! there), a [`Scope`] (where to look) and a [`Policy`] (how strict to be).

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use crate::dialect_name::DialectName;
use crate::ir::read_hash::ReadHash;
use crate::ir::span::Span;
use crate::ir::tier::{Tier, TierSet};
use crate::text::eol::{LineBreaks, NewLineEnds, Newline};
use crate::text::lines::LineText;

/// A whole patch, lowered: every file operation in the order the patch gave them.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[non_exhaustive]
pub struct EditPlan {
    /// The dialect the plan came from (`"ai-patch"`, `"unified"`, …), for reports.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "DialectName::is_empty"))]
    pub dialect: DialectName,
    /// File operations, applied in this order within one transaction.
    pub files: Vec<FileEdit>,
    /// Things the parser accepted but the writer should fix (an unquoted `version: 2.0`),
    /// lowercase, for the user to see; they never change what is applied.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Vec::is_empty"))]
    pub warnings: Vec<String>,
}

impl EditPlan {
    /// A plan of `files`, in order, from the dialect called `dialect` (for reports; may be
    /// empty).
    ///
    /// ```
    /// use polypatch_core::{Edit, EditPlan, FileEdit};
    ///
    /// let plan = EditPlan::new("mine", vec![FileEdit::modify("a.txt", vec![Edit::replace(["old"], ["new"])])]);
    /// assert_eq!(plan.files.len(), 1);
    /// ```
    pub fn new(dialect: impl Into<DialectName>, files: Vec<FileEdit>) -> Self {
        EditPlan { dialect: dialect.into(), files, warnings: Vec::new() }
    }

    /// Builder: the warnings the parser found (see [`EditPlan::warnings`]).
    #[must_use]
    pub fn with_warnings(mut self, warnings: Vec<String>) -> Self {
        self.warnings = warnings;
        self
    }

    /// The bytes the plan's binary data expands to: each binary patch's data (a literal's
    /// content; a delta, and the size of the file it makes, from its header) and each
    /// binary content a file is created with. What a plan parsed before another for the
    /// same apply takes from their shared budget
    /// ([`ParseOptions::binary_expanded_before`](crate::ParseOptions::binary_expanded_before)).
    pub fn binary_size(&self) -> u64 {
        let size = |fe: &FileEdit| -> u64 {
            match &fe.op {
                FileOp::Binary(b) => match &b.data {
                    BinaryData::Literal(bytes) => bytes.len() as u64,
                    BinaryData::Delta(delta) => {
                        let result = crate::text::binary::delta_sizes(delta).map_or(0, |(_, result)| result);
                        (delta.len() as u64).saturating_add(result as u64)
                    }
                },
                FileOp::Create { content: Content::Bytes(bytes), .. } => bytes.len() as u64,
                _ => 0,
            }
        };
        self.files.iter().map(size).fold(0, u64::saturating_add)
    }
}

/// One operation on one file.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[non_exhaustive]
pub struct FileEdit {
    /// The path as written in the patch: relative to the root, or absolute inside it.
    pub path: String,
    /// What to do with the file.
    pub op: FileOp,
    /// Where the operation was written in the patch text.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub span: Option<Span>,
    /// The hash of the file's content as the writer read it (the stale-read guard): when
    /// the file no longer has it, the operation is refused (see [`ReadHash`]).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub read_hash: Option<ReadHash>,
}

impl FileEdit {
    /// An operation on `path`, with no span.
    pub fn new(path: impl Into<String>, op: FileOp) -> Self {
        FileEdit { path: path.into(), op, span: None, read_hash: None }
    }

    /// Change the existing file `path` with `edits`, applied in order.
    pub fn modify(path: impl Into<String>, edits: Vec<Edit>) -> Self {
        FileEdit::new(path, FileOp::Modify(Modify::new(edits)))
    }

    /// Create `path` with the text `content` (refused if the file exists with other
    /// content; already applied if it holds exactly this).
    pub fn create(path: impl Into<String>, content: impl Into<String>) -> Self {
        FileEdit::new(
            path,
            FileOp::Create {
                content: Content::Text(content.into()),
                newline: None,
                if_exists: IfExists::default(),
                mode: None,
            },
        )
    }

    /// Delete the existing file `path`, whatever it holds.
    pub fn delete(path: impl Into<String>) -> Self {
        FileEdit::new(path, FileOp::Delete { if_missing: IfMissing::default(), expect: None })
    }

    /// Builder: where the operation was written in the patch text.
    #[must_use]
    pub fn with_span(mut self, span: Span) -> Self {
        self.span = Some(span);
        self
    }

    /// Builder: the hash of the file as the writer read it; the operation is refused if
    /// the file has changed since (see [`ReadHash`]).
    #[must_use]
    pub fn with_read_hash(mut self, hash: ReadHash) -> Self {
        self.read_hash = Some(hash);
        self
    }
}

/// What happens to a file.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum FileOp {
    /// Create a file with the given content.
    Create {
        /// The new file's content (lines joined with `\n`; converted to `newline` on write).
        content: Content,
        /// Line ending to write; `None` keeps the content's own (`\n`).
        #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
        newline: Option<Newline>,
        /// What to do when the path already exists.
        #[cfg_attr(feature = "serde", serde(default))]
        if_exists: IfExists,
        /// Unix permission bits for the new file (e.g. `0o755`), when the patch says.
        #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
        mode: Option<u32>,
    },
    /// Delete the file.
    Delete {
        /// What to do when the file does not exist.
        #[cfg_attr(feature = "serde", serde(default))]
        if_missing: IfMissing,
        /// What the file must contain to be deleted (a diff's removed lines, a binary
        /// patch's blob id); a file with other content is not deleted.
        #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
        expect: Option<Expect>,
    },
    /// Replace the whole content of an existing file (or create it, if allowed).
    Replace {
        /// The new content.
        content: Content,
        /// Whether a missing file is created instead of being an error (the report then says
        /// `create`).
        #[cfg_attr(feature = "serde", serde(default))]
        create_if_missing: bool,
        /// Write the text content in the existing file's conventions: its usual line
        /// terminator for each `\n`, and no final terminator when the file had none
        /// (`ApplyDiff`'s `--- to` lines, which say neither). `false`: the content as it is.
        #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "std::ops::Not::not"))]
        follow_file: bool,
    },
    /// Change the file with a sequence of located edits, optionally moving it and changing
    /// its mode.
    Modify(Modify),
    /// Change a binary file with a git binary patch.
    Binary(BinaryEdit),
}

/// What a file must contain before an operation may touch it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", content = "value", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Expect {
    /// The file's lines, compared without their terminators (a diff's removed lines).
    Lines(Vec<LineText>),
    /// The git blob id of the file's bytes, in hex: full (40 digits) or abbreviated (at
    /// least 7).
    GitBlob(String),
}

/// The body of [`FileOp::Binary`]: a git binary patch (`GIT binary patch`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[non_exhaustive]
pub struct BinaryEdit {
    /// The forward data: the new content, or a delta against the current content.
    pub data: BinaryData,
    /// The git blob id (hex) of the content the patch was made from, when known. A file
    /// with another id is not touched.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub old_id: Option<String>,
    /// The git blob id (hex) of the result, when known: a file that already has it is
    /// already patched, and a delta's result is checked against it.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub new_id: Option<String>,
    /// A missing file is created (from an empty base) instead of being an error.
    #[cfg_attr(feature = "serde", serde(default))]
    pub create: bool,
    /// New Unix permission bits.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub mode: Option<u32>,
}

impl BinaryEdit {
    /// A binary patch applying `data`, with no blob ids, no creation and no mode.
    pub fn new(data: BinaryData) -> Self {
        BinaryEdit { data, old_id: None, new_id: None, create: false, mode: None }
    }
}

/// The data of a git binary patch, already inflated.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", content = "data", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum BinaryData {
    /// The whole new content.
    Literal(Vec<u8>),
    /// A git delta (copy and insert instructions) against the current content.
    Delta(Vec<u8>),
}

/// The body of [`FileOp::Modify`].
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[non_exhaustive]
pub struct Modify {
    /// Edits, applied in order; each sees the result of the ones before.
    pub edits: Vec<Edit>,
    /// Rename the file to this path (after editing); see `if_dest_exists` for an
    /// existing destination.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub move_to: Option<String>,
    /// Read the original from this path instead and leave it in place (a copy).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub copy_from: Option<String>,
    /// What a move or copy does when its destination exists: refuse unless it already
    /// holds the result (the default, as git's renames and copies), or overwrite it
    /// (Codex's moves).
    #[cfg_attr(feature = "serde", serde(default))]
    pub if_dest_exists: IfExists,
    /// New Unix permission bits.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub mode: Option<u32>,
    /// What to do when the file does not exist.
    #[cfg_attr(feature = "serde", serde(default))]
    pub if_missing: IfMissing,
    /// Post-processing of the whole file after all edits.
    #[cfg_attr(feature = "serde", serde(default))]
    pub post: PostProcess,
    /// Whether the result ends with a line terminator; `None` keeps the original's
    /// (a diff's `\ No newline at end of file` sets it).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub final_newline: Option<bool>,
    /// What ends a line of the file while it is edited.
    #[cfg_attr(feature = "serde", serde(default))]
    pub line_breaks: LineBreaks,
    /// Which terminator a new line gets when the patch does not say.
    #[cfg_attr(feature = "serde", serde(default))]
    pub new_line_ends: NewLineEnds,
    /// The git blob id (hex, at least 7 digits) of the content the edits were made for (a
    /// git diff's `index` line). A file that has it gets every edit as written: no guess
    /// that an edit is already applied, which repetitive text can fool.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub preimage: Option<String>,
    /// The git blob id of the content after the edits: a file that has it is already
    /// patched, whatever its text looks like.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub postimage: Option<String>,
}

impl Modify {
    /// Edits applied in order, with every other field at its default (no move, no mode
    /// change, the file must exist).
    pub fn new(edits: Vec<Edit>) -> Self {
        Modify { edits, ..Modify::default() }
    }
}

/// File content carried by a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "encoding", content = "data", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Content {
    /// UTF-8 text; `\n` separates lines.
    Text(String),
    /// Raw bytes, written as they are.
    Bytes(Vec<u8>),
}

impl Content {
    /// The content as bytes. Text is UTF-8, except that characters standing for bytes
    /// that are not UTF-8 (a diff read with [`crate::decode_lossless`]) are those bytes.
    pub fn as_bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        match self {
            Content::Text(s) => crate::text::lines::encode_lossless(s),
            Content::Bytes(b) => std::borrow::Cow::Borrowed(b),
        }
    }
}

/// What a create does when the file exists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum IfExists {
    /// Fail, unless the existing content is identical (then: already applied).
    #[default]
    ErrorUnlessIdentical,
    /// Overwrite (Codex's `*** Add File`, Aptix's default operation).
    Overwrite,
    /// Always fail.
    Error,
}

/// What a delete or modify does when the file is missing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum IfMissing {
    /// Fail with "file missing".
    #[default]
    Error,
    /// Report the operation as skipped.
    Skip,
    /// A modify starts from an empty file and creates it (an empty SEARCH block, Aider's
    /// rule for a new file: its edits append their lines); a delete fails as with
    /// [`IfMissing::Error`].
    Create,
}

/// Whole-file post-processing after all edits of a file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[non_exhaustive]
pub struct PostProcess {
    /// Remove trailing spaces and tabs from every line (the `ap` spec, §3.5), when at
    /// least one edit of the file was applied (or the operation has no edits).
    #[cfg_attr(feature = "serde", serde(default))]
    pub strip_trailing_whitespace: bool,
}

impl PostProcess {
    /// Post-processing that strips trailing spaces and tabs from every line.
    pub fn strip_trailing_whitespace() -> Self {
        PostProcess { strip_trailing_whitespace: true }
    }
}

/// One located change inside a file.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[non_exhaustive]
pub struct Edit {
    /// What to find.
    pub target: Target,
    /// What to do where it was found.
    pub action: Action,
    /// Where to search.
    #[cfg_attr(feature = "serde", serde(default))]
    pub scope: Scope,
    /// How strict to be.
    #[cfg_attr(feature = "serde", serde(default))]
    pub policy: Policy,
    /// A short name for reports (`"hunk 2"`, `"modification 3"`).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "String::is_empty"))]
    pub label: String,
    /// Where the edit was written in the patch text.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub span: Option<Span>,
}

impl Edit {
    /// An edit doing `action` at `target`, with the default scope and policy (unique
    /// place, every tier).
    pub fn new(target: Target, action: Action) -> Self {
        Edit { target, action, scope: Scope::default(), policy: Policy::default(), label: String::new(), span: None }
    }

    /// Replace the block of whole lines `old` with `new` (lines without terminators).
    ///
    /// ```
    /// use polypatch_core::{apply, ApplyOptions, Edit, EditPlan, FileEdit, MemoryFileSet};
    ///
    /// let mut files = MemoryFileSet::new().with("a.py", "def f():\n    return 1\n");
    /// let edit = Edit::replace(["    return 1"], ["    return 2"]).with_label("fix");
    /// apply(&EditPlan::new("", vec![FileEdit::modify("a.py", vec![edit])]), &mut files, &ApplyOptions::default())
    ///     .unwrap();
    /// assert_eq!(files.get_str("a.py"), Some("def f():\n    return 2\n"));
    /// ```
    pub fn replace<O, N>(old: O, new: N) -> Self
    where
        O: IntoIterator,
        O::Item: Into<LineText>,
        N: IntoIterator,
        N::Item: Into<LineText>,
    {
        Edit::new(Target::Lines(strings(old)), Action::Replace(Replacement::lines(strings(new))))
    }

    /// Replace the substring `find` (which may start and end inside lines) with `replace`.
    pub fn replace_text(find: impl Into<String>, replace: impl Into<String>) -> Self {
        Edit::new(Target::Text(find.into()), Action::Replace(Replacement::text(replace)))
    }

    /// Insert `lines` after the block of whole lines `after`.
    pub fn insert_after<A, L>(after: A, lines: L) -> Self
    where
        A: IntoIterator,
        A::Item: Into<LineText>,
        L: IntoIterator,
        L::Item: Into<LineText>,
    {
        Edit::new(Target::Lines(strings(after)), Action::InsertAfter { lines: strings(lines) })
    }

    /// Insert `lines` before the block of whole lines `before`.
    pub fn insert_before<B, L>(before: B, lines: L) -> Self
    where
        B: IntoIterator,
        B::Item: Into<LineText>,
        L: IntoIterator,
        L::Item: Into<LineText>,
    {
        Edit::new(Target::Lines(strings(before)), Action::InsertBefore { lines: strings(lines) })
    }

    /// Remove the block of whole lines `lines`.
    pub fn delete<L>(lines: L) -> Self
    where
        L: IntoIterator,
        L::Item: Into<LineText>,
    {
        Edit::new(Target::Lines(strings(lines)), Action::Delete)
    }

    /// Builder: the name reports give the edit (`"hunk 2"`).
    #[must_use]
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// Builder: where to search.
    #[must_use]
    pub fn with_scope(mut self, scope: Scope) -> Self {
        self.scope = scope;
        self
    }

    /// Builder: how strict to be.
    #[must_use]
    pub fn with_policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// Builder: the 1-based line where the target is expected (orders equal candidates,
    /// never overrides content).
    #[must_use]
    pub fn with_line_hint(mut self, line: usize) -> Self {
        self.scope.line_hint = Some(line);
        self
    }

    /// Builder: where the edit was written in the patch text.
    #[must_use]
    pub fn with_span(mut self, span: Span) -> Self {
        self.span = Some(span);
        self
    }
}

fn strings<I>(items: I) -> Vec<LineText>
where
    I: IntoIterator,
    I::Item: Into<LineText>,
{
    items.into_iter().map(Into::into).collect()
}

/// What an edit looks for.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", content = "value", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Target {
    /// A block of whole lines (a hunk's context and removed lines, an `ap` snippet, an
    /// `ApplyDiff` `from` block). Lines carry no line terminator. An empty block is only
    /// valid with an insert action and a scope that fixes the position.
    Lines(Vec<LineText>),
    /// From a start block through the first end block after it, inclusive (`ap` ranges).
    Range {
        /// The block that starts the range; located like [`Target::Lines`].
        start: Vec<LineText>,
        /// The first occurrence of this block after `start` ends the range.
        end: Vec<LineText>,
    },
    /// A literal substring that may start and end inside lines (Aptix `find`).
    Text(String),
    /// The start of the file (position before the first line).
    StartOfFile,
    /// The end of the file (position after the last line).
    EndOfFile,
    /// The region of the file that an [`Action::Replace`]'s new lines show with their
    /// changes (a lazy edit's segment between `// ... existing code ...` markers): the old
    /// side is not written in the patch but resolved against the file when applied. The
    /// segment's first lines that the file holds (its head) and its last ones (its tail)
    /// are located with the engine's tiers up to [`Tier::Trimmed`], each at one place; the
    /// file lines between them become the old side, kept where the new lines have them
    /// and removed where they do not; new lines before the head or after the tail are
    /// inserted there. Where two places or two readings fit (a head that stands at several
    /// places, new lines after a marker whose next line the file has several times, a new
    /// line that resembles the file's line next to it), the edit is refused as
    /// [`FailureKind::Ambiguous`](crate::FailureKind::Ambiguous), naming the line to add.
    /// Lowered without the file because a dialect's lowering never reads it: this target
    /// is the one hook that lets the engine resolve the old side itself, so that every
    /// path (replies, the CLI, editors, convert) applies it through locate, shape and the
    /// report like any other edit.
    Sketch {
        /// No marker before these lines: the snippet's first segment, which starts at the
        /// file's first line when its first line stands there (else a marker is assumed
        /// before it, and the report says so).
        #[cfg_attr(feature = "serde", serde(default))]
        at_start: bool,
        /// No marker after these lines: the snippet's last segment, which ends at the
        /// file's last line when its last line stands there (else a marker is assumed).
        #[cfg_attr(feature = "serde", serde(default))]
        at_end: bool,
    },
}

/// What an edit does at its target.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Action {
    /// Replace the target with `lines` (for [`Target::Text`]: with `text`).
    Replace(Replacement),
    /// Insert lines before the target.
    InsertBefore {
        /// The lines to insert.
        lines: Vec<LineText>,
    },
    /// Insert lines after the target.
    InsertAfter {
        /// The lines to insert.
        lines: Vec<LineText>,
    },
    /// Remove the target.
    Delete,
}

/// The new side of a replacement.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[non_exhaustive]
pub struct Replacement {
    /// The new lines (for line targets).
    #[cfg_attr(feature = "serde", serde(default))]
    pub lines: Vec<LineText>,
    /// For each new line, the index of the target line it keeps (a diff's context line),
    /// or `None` for an added line. When the target matched leniently, kept lines are
    /// written as the file has them, never as the patch wrote them. `None` for the whole
    /// field: the engine aligns old and new lines itself, and the edit carries no explicit
    /// context (an `ap` snippet): a line it removes that matched only by likeness may then
    /// stand when the line written in its place is the file's line (see
    /// [`Policy::allow_fuzzy_removals`]).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub kept: Option<Vec<Option<usize>>>,
    /// The replacement text for a [`Target::Text`] (substring) target.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub text: Option<String>,
    /// For each new line, its terminator, when the patch says (a diff's lines of a CRLF
    /// file); `None`: added lines get the file's most frequent terminator. Kept lines
    /// always keep the file's own.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub line_ends: Option<Vec<Newline>>,
}

impl Replacement {
    /// A line replacement whose alignment the engine computes (`LineText::from` makes a
    /// line of a `&str` or a `String`).
    pub fn lines(lines: Vec<LineText>) -> Self {
        Replacement { lines, kept: None, text: None, line_ends: None }
    }

    /// A substring replacement.
    pub fn text(text: impl Into<String>) -> Self {
        Replacement { lines: Vec::new(), kept: None, text: Some(text.into()), line_ends: None }
    }

    /// Builder: for each new line, the target line it keeps (see [`Replacement::kept`]).
    #[must_use]
    pub fn with_kept(mut self, kept: Vec<Option<usize>>) -> Self {
        self.kept = Some(kept);
        self
    }

    /// Builder: for each new line, its terminator (see [`Replacement::line_ends`]).
    #[must_use]
    pub fn with_line_ends(mut self, line_ends: Vec<Newline>) -> Self {
        self.line_ends = Some(line_ends);
        self
    }
}

/// Where an edit is searched.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[non_exhaustive]
pub struct Scope {
    /// A block that must be found first; the target is searched from the line after it.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub anchor: Option<Anchor>,
    /// A 1-based line number where the target is expected. It orders equal candidates
    /// (nearest first) and never overrides content.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub line_hint: Option<usize>,
    /// Search only after the end of the previous edit of the same file (AI-PATCH and
    /// unified hunks: they never overlap and keep their order), also with a line hint.
    #[cfg_attr(feature = "serde", serde(default))]
    pub after_previous: bool,
    /// The target must end at the last line of the file (`*** End of File`).
    #[cfg_attr(feature = "serde", serde(default))]
    pub at_end_of_file: bool,
}

impl Scope {
    /// Builder: a block that must be found first.
    #[must_use]
    pub fn with_anchor(mut self, anchor: Anchor) -> Self {
        self.anchor = Some(anchor);
        self
    }

    /// Builder: the 1-based line where the target is expected.
    #[must_use]
    pub fn with_line_hint(mut self, line: usize) -> Self {
        self.line_hint = Some(line);
        self
    }

    /// Builder: search only after the previous edit of the same file.
    #[must_use]
    pub fn with_after_previous(mut self, yes: bool) -> Self {
        self.after_previous = yes;
        self
    }

    /// Builder: the target must end at the last line of the file.
    #[must_use]
    pub fn with_at_end_of_file(mut self, yes: bool) -> Self {
        self.at_end_of_file = yes;
        self
    }
}

/// A scoping block (an `ap` anchor, a Codex `@@ context` header).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[non_exhaustive]
pub struct Anchor {
    /// The lines of the anchor.
    pub lines: Vec<LineText>,
    /// The anchor must occur exactly once in the file (`ap`); otherwise the first
    /// occurrence in the search region is used (Codex).
    #[cfg_attr(feature = "serde", serde(default))]
    pub unique: bool,
}

impl Anchor {
    /// An anchor of `lines` (`LineText::from` makes a line of a `&str` or a `String`);
    /// `unique`: it must occur exactly once in the file.
    pub fn new(lines: Vec<LineText>, unique: bool) -> Self {
        Anchor { lines, unique }
    }
}

/// How an edit is matched and what a miss means.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[non_exhaustive]
pub struct Policy {
    /// The tiers that may be used, tried from strictest to loosest.
    pub tiers: TierSet,
    /// Minimum similarity (0..1) for the fuzzy tier.
    pub fuzzy_threshold: f64,
    /// Which occurrence counts when the target is found more than once.
    pub occurrence: Occurrence,
    /// Blank lines are ignored in the target and skipped in the file (`ap` §3.2).
    #[cfg_attr(feature = "serde", serde(default))]
    pub ignore_blank_lines: bool,
    /// What it means when the target is not found.
    #[cfg_attr(feature = "serde", serde(default))]
    pub if_missing: Missing,
    /// How new lines are indented.
    #[cfg_attr(feature = "serde", serde(default))]
    pub indent: Indent,
    /// Whether a replacement whose old side is gone, or stands only where the new side
    /// proves it replaced, is reported already applied (see the engine's rules).
    #[cfg_attr(feature = "serde", serde(default = "yes"))]
    pub detect_already_applied: bool,
    /// Include up to this many blank lines before the target (`ap`).
    #[cfg_attr(feature = "serde", serde(default))]
    pub leading_blank_lines: usize,
    /// Include up to this many blank lines after the target (`ap`).
    #[cfg_attr(feature = "serde", serde(default))]
    pub trailing_blank_lines: usize,
    /// A line the edit removes or replaces may match its file line by likeness (the fuzzy
    /// tier), as the context lines may. Off by default: such a line is what the edit
    /// destroys, and one that differs from the patch's (`if amount <= 0:` where the patch
    /// removes `if amount < 0:`) may be a change made after the patch was written, so the
    /// edit is refused. `ApplyDiff` sets it, its spec mandating fuzzy matching of the whole
    /// `from` block; the report then lists each removed line that differed.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "std::ops::Not::not"))]
    pub allow_fuzzy_removals: bool,
}

#[cfg(feature = "serde")]
fn yes() -> bool {
    true
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            tiers: TierSet::ALL,
            fuzzy_threshold: DEFAULT_FUZZY_THRESHOLD,
            occurrence: Occurrence::Unique,
            ignore_blank_lines: false,
            if_missing: Missing::Error,
            indent: Indent::FollowMatch,
            detect_already_applied: true,
            leading_blank_lines: 0,
            trailing_blank_lines: 0,
            allow_fuzzy_removals: false,
        }
    }
}

impl Policy {
    /// Builder: which occurrence counts.
    #[must_use]
    pub fn with_occurrence(mut self, occurrence: Occurrence) -> Self {
        self.occurrence = occurrence;
        self
    }

    /// Builder: the tiers that may be used.
    #[must_use]
    pub fn with_tiers(mut self, tiers: TierSet) -> Self {
        self.tiers = tiers;
        self
    }

    /// Builder: the minimum similarity (0..1) for the fuzzy tier.
    #[must_use]
    pub fn with_fuzzy_threshold(mut self, threshold: f64) -> Self {
        self.fuzzy_threshold = threshold;
        self
    }

    /// Builder: what a target that is not found means.
    #[must_use]
    pub fn with_if_missing(mut self, missing: Missing) -> Self {
        self.if_missing = missing;
        self
    }

    /// Builder: how new lines are indented.
    #[must_use]
    pub fn with_indent(mut self, indent: Indent) -> Self {
        self.indent = indent;
        self
    }

    /// Builder: whether lines the edit removes may match by likeness (see
    /// [`Policy::allow_fuzzy_removals`]).
    #[must_use]
    pub fn with_fuzzy_removals(mut self, yes: bool) -> Self {
        self.allow_fuzzy_removals = yes;
        self
    }

    /// The tiers of this policy restricted to exact matching.
    #[must_use]
    pub fn strict(mut self) -> Self {
        self.tiers = self.tiers.intersect(TierSet::only(Tier::Exact));
        self
    }
}

/// The default minimum similarity for the fuzzy tier.
pub const DEFAULT_FUZZY_THRESHOLD: f64 = 0.9;

/// The fuzzy tier rejects a match when the best and second-best candidates are closer
/// than this.
pub const AMBIGUITY_MARGIN: f64 = 0.02;

/// Which occurrence counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Occurrence {
    /// Exactly one occurrence in the search region; more is an ambiguity error.
    #[default]
    Unique,
    /// The first occurrence in the search region, at the policy's strictest tiers; a
    /// lenient tier needs a single place, and a block of only braces and blank lines is
    /// never located by "first" (AI-PATCH's in-order search, with polypatch's guards).
    First,
    /// The first occurrence after the edit's anchor, at the strictest tier that finds
    /// one, however little the block says: the anchor fixes the place (`ap` §3.2).
    /// Without an anchor, as [`Occurrence::First`].
    FirstAfterAnchor,
    /// Every occurrence (Aptix `limit: all`).
    All,
    /// Exactly this many occurrences, every one replaced (Gemini CLI's
    /// `expected_replacements`); another count is refused, naming the count found. Read by
    /// [`Target::Text`] edits, found literally only (as [`Occurrence::All`]); other targets
    /// treat it as [`Occurrence::Unique`].
    Exactly(usize),
}

impl Occurrence {
    /// Whether every place found is replaced ([`Occurrence::All`], [`Occurrence::Exactly`]).
    #[cfg(feature = "text-target")]
    pub(crate) fn replaces_every(self) -> bool {
        matches!(self, Occurrence::All | Occurrence::Exactly(_))
    }
}

/// What a target that is not found means.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Missing {
    /// An error (the default).
    #[default]
    Error,
    /// The edit is skipped and reported as skipped (Aptix SYS-004's no-op).
    Skip,
    /// The edit counts as already applied (`ap` DELETE).
    AlreadyApplied,
}

/// How new lines are indented.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Indent {
    /// As written in the patch, even when the target matched at another indentation.
    AsWritten,
    /// Following the file line by line: as written when the target's lines carry the
    /// file's indentation; otherwise each new line is shifted like the old line it aligns
    /// with, in that file line's own tabs or spaces.
    #[default]
    FollowMatch,
    /// The file indentation of the target's first line prepended to every new line,
    /// unless the first new line already carries exactly that indentation (new lines
    /// written with their absolute indentation are then kept as written): `ap` §3.3.
    ToTargetFirstLine,
    /// Shifted by the difference between the file's and the patch's indentation of the
    /// target's first line (`ap` patches that wrote the snippet and content with their
    /// absolute indentation).
    ShiftByFirstLine,
}

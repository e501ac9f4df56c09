//! Applying a model's whole reply: every patch block in it, whatever its dialect, as one
//! transaction.
//!
//! [`apply_text`] finds the blocks ([`crate::extract()`]), parses each with its dialect, then
//! locates them in reply order on one view of the files: a block sees what the blocks
//! before it changed (two blocks editing the same file one after the other are common).
//! Nothing is written unless every edit of every block is located; then all the changes
//! are committed at once. A block whose every line ends in CRLF (a reply pasted from a
//! Windows clipboard) is read as if its lines ended in LF: the files keep their own line
//! ends.
//!
//! # Which block did what
//!
//! The result, [`ReplyReport`], holds one [`BlockReport`] per block, in reply order. Each
//! carries where the block came from ([`BlockInfo`]: its 1-based `index`, `dialect`, `lines`
//! in the reply, fence info string, and `source` when the blocks come from several patch
//! files) and the block's own [`ApplyReport`]: the files and edits of *that* block, as the
//! dialect numbers them. So an edit is named by block index + dialect, then file path, then
//! edit index. A path edited by two blocks appears in both blocks' reports; each report's
//! line numbers are those of the file as that block found it. When a block fails, the
//! blocks after it are `not_attempted` with empty reports, and nothing is written.

use std::fmt;
use std::sync::Arc;

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use crate::{ApplyOptions, ApplyReport, EditPlan, ParseOptions, PatchError, compute};
use polypatch_core::{
    Change, CommitError, DialectName, EditReport, Failure, FileReport, FileSource, FileStore, LineRange, Overlay, Span,
    Status,
};

/// Where a block came from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct BlockInfo {
    /// 1-based position of the block among all blocks applied together.
    pub index: usize,
    /// The block's dialect.
    pub dialect: DialectName,
    /// The lines of the block in its text (1-based, inclusive); `None` for a whole patch
    /// file.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub lines: Option<LineRange>,
    /// The fence's info string, for a fenced block.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub fence: Option<String>,
    /// The patch file the block is in, when several are applied together.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub source: Option<String>,
}

impl BlockInfo {
    /// Information on block `index` (1-based) of `dialect`, with no lines, fence or source.
    pub fn new(index: usize, dialect: impl Into<DialectName>) -> Self {
        BlockInfo { index, dialect: dialect.into(), lines: None, fence: None, source: None }
    }

    /// Builder: the block's lines in its text.
    #[must_use]
    pub fn with_lines(mut self, lines: LineRange) -> Self {
        self.lines = Some(lines);
        self
    }

    /// Builder: the patch file the block is in.
    #[must_use]
    pub fn with_source(mut self, source: impl Into<String>) -> Self {
        self.source = Some(source.into());
        self
    }
}

impl fmt::Display for BlockInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "block {} ({}", self.index, self.dialect)?;
        if let Some(source) = &self.source {
            write!(f, ", {source}")?;
        }
        if let Some(lines) = self.lines {
            if lines.start == lines.end {
                write!(f, ", line {}", lines.start)?;
            } else {
                write!(f, ", lines {}-{}", lines.start, lines.end)?;
            }
        }
        f.write_str(")")
    }
}

/// A parsed block, ready to be applied with others.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PlannedBlock {
    /// Where it came from.
    pub info: BlockInfo,
    /// What it does.
    pub plan: EditPlan,
}

impl PlannedBlock {
    /// A block doing `plan`.
    pub fn new(info: BlockInfo, plan: EditPlan) -> Self {
        PlannedBlock { info, plan }
    }
}

/// What happened to one block.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct BlockReport {
    /// Where the block came from.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub block: BlockInfo,
    /// `applied` (written), `located` (would change, but nothing was written: a dry run,
    /// or another block failed), `already_applied` (nothing to change), `failed`, or
    /// `not_attempted` (an earlier block failed).
    pub status: Status,
    /// The warnings of the block's parse (a tolerated deviation from its dialect).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Vec::is_empty"))]
    pub warnings: Vec<String>,
    /// The block's files and edits; empty when not attempted.
    pub report: ApplyReport,
}

/// The outcome of applying several blocks as one transaction.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize))]
#[non_exhaustive]
pub struct ReplyReport {
    /// Whether nothing was written on purpose.
    pub dry_run: bool,
    /// Whether the files were written.
    pub committed: bool,
    /// One report per block, in order.
    pub blocks: Vec<BlockReport>,
}

impl ReplyReport {
    /// Whether every block succeeded.
    pub fn is_success(&self) -> bool {
        self.blocks.iter().all(|b| b.status.is_success())
    }

    /// The first failure: its block, file, edit (when an edit failed) and reason.
    pub fn first_failure(&self) -> Option<BlockFailure<'_>> {
        self.blocks.iter().find_map(|block| {
            block.report.first_failure().map(|first| BlockFailure {
                block,
                file: first.file,
                edit: first.edit,
                failure: first.failure,
            })
        })
    }

    /// Every file report with the block it belongs to, in order.
    pub fn files(&self) -> impl Iterator<Item = (&BlockReport, &FileReport)> {
        self.blocks.iter().flat_map(|b| b.report.files.iter().map(move |f| (b, f)))
    }
}

/// The first failure of a reply ([`ReplyReport::first_failure`]): its block, file
/// operation, edit and reason.
///
/// Its `Display` is the one line a caller shows: the block, the path, the edit's label when
/// an edit failed, and the failure (`block 2 (unified, lines 5-9): a.txt: hunk 1: not
/// found: …`).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct BlockFailure<'a> {
    /// The block that failed.
    pub block: &'a BlockReport,
    /// Its file operation that failed, or whose edit failed.
    pub file: &'a FileReport,
    /// The edit that failed; `None` when the file operation itself failed.
    pub edit: Option<&'a EditReport>,
    /// Why.
    pub failure: &'a Failure,
}

impl fmt::Display for BlockFailure<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: ", self.block.block, self.file.path)?;
        if let Some(edit) = self.edit {
            write!(f, "{}: ", edit.name())?;
        }
        write!(f, "{}", self.failure)
    }
}

impl fmt::Display for ReplyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for block in &self.blocks {
            writeln!(f, "{}: {}", block.block, block.status.word())?;
            write!(f, "{}", block.report)?;
        }
        Ok(())
    }
}

/// Why a reply (or a set of blocks) was not applied. Nothing was written.
///
/// Its [`source`](std::error::Error::source) is the block's [`PatchError`] for
/// [`ReplyError::Malformed`] and the store's [`CommitError`] when writing failed.
#[derive(Debug, Clone)]
#[non_exhaustive]
// A malformed block's error and its block (~250 bytes) are its fields, as callers match
// them; one error per failed run, returned once: boxing them would cost an API change, not
// measurable time.
#[allow(clippy::large_enum_variant)]
pub enum ReplyError {
    /// The reply holds no patch block at all.
    NoPatch,
    /// A block could not be parsed. The error's span is in the reply's bytes (for a block
    /// of a reply), so `error.render(reply)` points into the reply.
    Malformed {
        /// The block.
        block: BlockInfo,
        /// What is wrong with it.
        error: PatchError,
    },
    /// A block could not be located, or writing failed.
    NotApplied {
        /// What happened to each block (the failed one carries the reason).
        report: ReplyReport,
        /// Set when every edit was located but writing failed: why, and whether every step
        /// was undone.
        commit_error: Option<Arc<CommitError>>,
        /// After a failed write: whether every step was undone.
        rolled_back: bool,
    },
}

impl fmt::Display for ReplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplyError::NoPatch => write!(
                f,
                "the reply holds no patch: no fenced or bare block in it, nor the whole text, looks like any known \
                 patch format ({})",
                crate::Dialects::global().names().join(", ")
            ),
            ReplyError::Malformed { block, error } => write!(f, "{block} is malformed: {error}"),
            ReplyError::NotApplied { report, commit_error, .. } => {
                f.write_str(&not_applied(report, commit_error.as_deref()))
            }
        }
    }
}

impl std::error::Error for ReplyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReplyError::NoPatch => None,
            ReplyError::Malformed { error, .. } => Some(error),
            ReplyError::NotApplied { commit_error, .. } => {
                commit_error.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
            }
        }
    }
}

impl ReplyError {
    /// A stable machine-readable kind: `no_patch`, `malformed` or `not_applied` (a
    /// malformed block's own kind is its error's [`PatchError::kind`]).
    pub fn kind(&self) -> &'static str {
        match self {
            ReplyError::NoPatch => "no_patch", // the code of ErrorKind::NO_PATCH
            ReplyError::Malformed { .. } => "malformed",
            ReplyError::NotApplied { .. } => "not_applied",
        }
    }
}

fn not_applied(report: &ReplyReport, commit: Option<&CommitError>) -> String {
    if let Some(err) = commit {
        return format!("could not write the changes: {err}");
    }
    match report.first_failure() {
        Some(first) => first.to_string(),
        None => "the reply could not be applied".to_string(),
    }
}

/// Finds every block of `reply` and parses each with its dialect. Blocks are numbered from
/// 1 in reply order; a malformed block stops with [`ReplyError::Malformed`] (a block cut
/// off, [`crate::extract::Block::cut_off`], as [`ErrorKind::TRUNCATED`](polypatch_core::ErrorKind::TRUNCATED)), a reply
/// without blocks is [`ReplyError::NoPatch`]. The blocks are applied as one transaction,
/// so their binary data shares one budget: each block is parsed with what the blocks
/// before it expanded to ([`ParseOptions::binary_expanded_before`]).
/// [`Dialects::plan_reply`](crate::Dialects::plan_reply) does it with the dialects of a
/// registry (a user's own among them).
///
/// ```
/// use polypatch::reply::plan_reply;
/// use polypatch::ParseOptions;
///
/// let reply = "Two fixes:\n\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n```\n\n\
///              *** Begin Patch\n*** Add File: b.txt\n+new\n*** End Patch\n";
/// let blocks = plan_reply(reply, &ParseOptions::default()).unwrap();
/// let dialects: Vec<&str> = blocks.iter().map(|b| b.info.dialect.as_str()).collect();
/// assert_eq!(dialects, ["unified", "ai-patch"]);
/// ```
pub fn plan_reply(reply: &str, options: &ParseOptions) -> Result<Vec<PlannedBlock>, ReplyError> {
    plan_reply_in(crate::Dialects::global(), reply, options)
}

/// [`plan_reply`] with the dialects of `dialects`.
pub(crate) fn plan_reply_in(
    dialects: &crate::Dialects,
    reply: &str,
    options: &ParseOptions,
) -> Result<Vec<PlannedBlock>, ReplyError> {
    let blocks = dialects.extract(reply);
    if blocks.is_empty() {
        return Err(ReplyError::NoPatch);
    }
    let mut out = Vec::with_capacity(blocks.len());
    // The blocks are one transaction: their binary data shares one budget.
    let mut options = options.clone();
    for (i, block) in blocks.iter().enumerate() {
        let info = BlockInfo {
            index: i + 1,
            dialect: block.dialect.clone(),
            lines: Some(block.lines),
            fence: block.fence.map(str::to_string),
            source: None,
        };
        // `extract` names the registry's dialects only.
        let Some(d) = dialects.get(block.dialect.as_str()) else { continue };
        // A fence that never closes, in a reply that stops mid-line: whatever the block
        // parses as, its last line is half a line (a complete-looking `def f(se`).
        if let Some(error) = cut_off(reply, block, d.name()) {
            return Err(ReplyError::Malformed { block: info, error });
        }
        // A bare last block followed directly by the reply's half last line (`@`, `>>> fi`,
        // what would have begun its next hunk or block): its dialect reads that line too,
        // to tell a cut.
        let stretched;
        let block = if i + 1 == blocks.len()
            && block.fence.is_none()
            && block.span.end < reply.len()
            && !reply[block.span.end..].contains('\n')
            && crate::engine::cut_off_line(reply).is_some()
        {
            stretched = crate::extract::Block {
                span: Span::new(block.span.start, reply.len()),
                text: &reply[block.span.start..],
                ..block.clone()
            };
            let cut = d.parse_with(&readable(&stretched).0, &options);
            if cut.is_err_and(|e| e.kind == polypatch_core::ErrorKind::TRUNCATED) { &stretched } else { block }
        } else {
            block
        };
        let (text, origin) = readable(block);
        // A fenced block's path, for a dialect that reads the caller's file (a lazy
        // snippet, SEARCH/REPLACE blocks without a path line) when the caller gave none.
        let fenced;
        let for_block = match fence_path(reply, block) {
            Some(path) if options.file.is_none() => {
                fenced = options.clone().file(path);
                &fenced
            }
            _ => &options,
        };
        match d.parse_with(&text, for_block) {
            Ok(plan) => {
                options.binary_expanded_before = options.binary_expanded_before.saturating_add(plan.binary_size());
                out.push(PlannedBlock { info, plan });
            }
            Err(mut error) => {
                let at = |offset: usize| origin[offset.min(text.len())];
                error.span = error.span.map(|s| Span::new(at(s.start), at(s.end)));
                return Err(ReplyError::Malformed { block: info, error: error.with_source(reply) });
            }
        }
    }
    // A file appended to and changed again later is refused when the blocks are computed
    // (`compute_blocks`, which every route takes), not here as well.
    Ok(out)
}

/// The kind of [`touched_after_append`]'s error, as the search-replace dialect names it
/// within one block.
const APPEND_NOT_LAST: polypatch_core::ErrorKind = polypatch_core::ErrorKind::new("append_not_last");

/// A file that one block creates or appends to ([`IfMissing::Create`], an empty SEARCH)
/// and a later block touches again: applied twice, the appended lines could not be told
/// from the file's own and would be appended again, so such a reply is refused, as a
/// dialect refuses it within one block.
///
/// [`IfMissing::Create`]: polypatch_core::IfMissing::Create
fn touched_after_append(blocks: &[PlannedBlock]) -> Option<ReplyError> {
    let key =
        |path: &str| polypatch_core::RelPath::parse(path, None).map_or_else(|_| path.to_owned(), |p| p.to_string());
    let mut appended: Vec<(String, usize, DialectName)> = Vec::new();
    for block in blocks {
        for file in &block.plan.files {
            let path = key(&file.path);
            if let Some((_, earlier, dialect)) = appended.iter().find(|(p, ..)| *p == path) {
                let message = format!(
                    "`{path}` is changed again after block {earlier}, which creates the file or appends to it: run \
                     again, the appended lines could not be told from the file's own and would be added twice; write \
                     a new file whole in one block, and put a block that appends after the file's other blocks"
                );
                return Some(ReplyError::Malformed {
                    block: block.info.clone(),
                    error: PatchError::new(dialect.clone(), APPEND_NOT_LAST, message, None),
                });
            }
            if let polypatch_core::FileOp::Modify(m) = &file.op
                && m.if_missing == polypatch_core::IfMissing::Create
            {
                appended.push((path, block.info.index, block.plan.dialect.clone()));
            }
        }
    }
    None
}

/// The [`ErrorKind::TRUNCATED`](polypatch_core::ErrorKind::TRUNCATED) error, as `dialect`'s, of a
/// block of `reply` that is cut off ([`crate::extract::Block::cut_off`]); its line is the reply's.
pub(crate) fn cut_off(reply: &str, block: &crate::extract::Block<'_>, dialect: &'static str) -> Option<PatchError> {
    if !block.cut_off {
        return None;
    }
    let detail = match block.fence {
        Some(info) if !info.is_empty() => format!(", inside a fenced `{info}` block that never closes"),
        _ => ", inside a fenced block that never closes".to_string(),
    };
    PatchError::truncated(dialect, reply, &detail)
}

/// The block's text as its dialect reads it, and for each of its bytes (and its end) the
/// byte of the reply it stands for. The fence's indentation is removed
/// ([`crate::extract::Block::content`]); and a block whose every line ends in CRLF came through a
/// Windows clipboard or chat client: its line ends are the transport's, not the patch's (a
/// diff would otherwise add `\r` to an LF file's lines), so it is read with LF and the
/// files keep their own.
/// The path a fenced block names: a token of its info string that reads as a path
/// (```` ```python src/app.py ````, `path=src/x.ts`, Cursor's `12:15:src/x.ts`; not the
/// language tag alone), or a path alone on the line above the fence (`src/app.py`,
/// `**src/app.py**`, `` `src/app.py`: ``).
fn fence_path<'a>(reply: &'a str, block: &crate::extract::Block<'a>) -> Option<&'a str> {
    let info = block.fence?;
    let path_like = |t: &str| {
        !t.is_empty()
            && (t.contains('/') || t.contains('.'))
            && !t.ends_with('.')
            && !t.chars().any(|c| c.is_whitespace() || "`*<>|\"'(){}[],;=".contains(c))
    };
    for token in info.split_whitespace() {
        for key in ["path=", "file=", "filepath=", "filename="] {
            if let Some(v) = token.strip_prefix(key).map(|v| v.trim_matches(|c| c == '"' || c == '\''))
                && !v.is_empty()
            {
                return Some(v);
            }
        }
    }
    if let Some(p) = info.split_whitespace().map(|t| t.rsplit(':').next().unwrap_or(t)).find(|t| path_like(t)) {
        return Some(p);
    }
    // The fence's line, then the line above it.
    let before = &reply[..block.span.start];
    let fence_start = before.trim_end_matches(['\n', '\r']).rfind('\n').map_or(0, |i| i + 1);
    let above = reply[..fence_start].trim_end_matches(['\n', '\r']);
    let line = above[above.rfind('\n').map_or(0, |i| i + 1)..].trim();
    let line = line.trim_matches(|c| c == '*' || c == '`').trim_end_matches(':').trim_matches(|c| c == '*' || c == '`');
    path_like(line).then_some(line)
}

fn readable(block: &crate::extract::Block<'_>) -> (String, Vec<usize>) {
    let crlf = block.text.contains('\n') && block.text.matches('\n').count() == block.text.matches("\r\n").count();
    let mut text = String::with_capacity(block.text.len());
    let mut origin = Vec::with_capacity(block.text.len() + 1);
    let mut at = block.span.start;
    for line in block.text.split_inclusive('\n') {
        let skip = (line.len() - line.trim_start_matches(' ').len()).min(block.indent);
        let kept = &line[skip..];
        let kept = match kept.strip_suffix("\r\n") {
            Some(body) if crlf => format!("{body}\n"),
            _ => kept.to_string(),
        };
        // A CRLF's `\n` stands for the `\r`, the first byte of the line break.
        origin.extend((0..kept.len()).map(|i| at + skip + i));
        text.push_str(&kept);
        at += line.len();
    }
    origin.push(block.span.end);
    (text, origin)
}

/// The report of blocks located together, and the changes that would write them.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ComputedReply {
    /// What each block did.
    pub report: ReplyReport,
    /// One change per path, the last one of every block that touched it.
    pub changes: Vec<Change>,
}

/// Locates every block of `blocks` in order, each on the files as the blocks before it
/// left them, writing nothing.
///
/// ```
/// use polypatch::reply::{compute_blocks, plan_reply};
/// use polypatch::{ApplyOptions, MemoryFileSet, ParseOptions};
///
/// // Two blocks for one file: the second sees the first one's result.
/// let reply = "```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n```\n\
///              ```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-two\n+three\n```\n";
/// let blocks = plan_reply(reply, &ParseOptions::default()).unwrap();
/// let files = MemoryFileSet::new().with("a.txt", "one\n");
/// let computed = compute_blocks(&blocks, &files, &ApplyOptions::default()).unwrap();
/// assert_eq!(computed.changes.len(), 1);
/// assert_eq!(files.get_str("a.txt"), Some("one\n")); // nothing written
/// ```
pub fn compute_blocks<S: FileSource + ?Sized>(
    blocks: &[PlannedBlock],
    files: &S,
    options: &ApplyOptions,
) -> Result<ComputedReply, ReplyError> {
    // Every route (a reply, several patch files, blocks planned by hand) comes here.
    if let Some(err) = touched_after_append(blocks) {
        return Err(err);
    }
    let mut overlay = Overlay::new(files);
    let mut report = ReplyReport { dry_run: options.dry_run, committed: false, blocks: Vec::new() };
    let mut failed = false;
    for block in blocks {
        let (status, block_report) = if failed {
            // Field by field: the report type may grow (`#[non_exhaustive]`).
            let mut empty = ApplyReport::default();
            empty.dialect.clone_from(&block.plan.dialect);
            (Status::NotAttempted, empty)
        } else {
            match compute(&block.plan, &overlay, options) {
                Ok(computed) => {
                    overlay.record(&computed.changes);
                    // Nothing is written yet: `located` until the commit.
                    let status =
                        if computed.report.is_already_applied() { Status::AlreadyApplied } else { Status::Located };
                    (status, computed.report)
                }
                Err(err) => {
                    failed = true;
                    (Status::Failed, err.report)
                }
            }
        };
        let mut block_report = block_report;
        block_report.dry_run = options.dry_run;
        report.blocks.push(BlockReport {
            block: block.info.clone(),
            status,
            warnings: block.plan.warnings.clone(),
            report: block_report,
        });
    }
    if failed {
        return Err(ReplyError::NotApplied { report, commit_error: None, rolled_back: true });
    }
    Ok(ComputedReply { report, changes: overlay.changes() })
}

/// Applies `blocks` as one transaction: every block is located (see [`compute_blocks`]),
/// then all changes are committed at once, or nothing is written. A dry run stops after
/// locating. The blocks may come from several texts (several patch files, say): number
/// them and name their source with [`BlockInfo`].
///
/// ```
/// use polypatch::reply::{apply_blocks, compute_blocks, plan_reply, BlockInfo, PlannedBlock};
/// use polypatch::{parse, ApplyOptions, MemoryFileSet, ParseOptions};
///
/// let mut files = MemoryFileSet::new().with("a.txt", "one\n");
/// // A whole patch file, and a reply with a block in it.
/// let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch\n";
/// let mut blocks = vec![PlannedBlock::new(BlockInfo::new(1, "ai-patch").with_source("fix.patch"), parse(patch, polypatch::Format::Auto).unwrap())];
/// let reply = "Then:\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-two\n+three\n```\n";
/// for mut block in plan_reply(reply, &ParseOptions::default()).unwrap() {
///     block.info.index += 1;
///     block.info.source = Some("reply.md".into());
///     blocks.push(block);
/// }
/// // Locate only: one change for `a.txt`, the files untouched.
/// let computed = compute_blocks(&blocks, &files, &ApplyOptions::default()).unwrap();
/// assert_eq!(computed.changes.len(), 1);
/// assert_eq!(files.get_str("a.txt"), Some("one\n"));
/// let report = apply_blocks(&blocks, &mut files, &ApplyOptions::default()).unwrap();
/// assert_eq!(files.get_str("a.txt"), Some("three\n"));
/// assert_eq!(report.blocks[1].block.to_string(), "block 2 (unified, reply.md, lines 3-7)");
/// ```
pub fn apply_blocks<S: FileStore + ?Sized>(
    blocks: &[PlannedBlock],
    files: &mut S,
    options: &ApplyOptions,
) -> Result<ReplyReport, ReplyError> {
    let ComputedReply { mut report, changes } = compute_blocks(blocks, &*files, options)?;
    if !options.dry_run {
        if let Err(err) = files.commit(&changes) {
            return Err(ReplyError::NotApplied {
                report,
                rolled_back: err.rolled_back,
                commit_error: Some(Arc::new(err)),
            });
        }
        report.committed = true;
        for block in &mut report.blocks {
            block.report.mark_committed();
            if block.status == Status::Located {
                block.status = Status::Applied;
            }
        }
    }
    Ok(report)
}

/// Applies every patch block of a model's reply as one transaction: the blocks are found
/// ([`crate::extract()`]), parsed, and located in order on the files as the blocks before
/// left them; nothing is written unless all of them are located. See the
/// [module documentation](self) for the report.
/// [`Dialects::apply_text`](crate::Dialects::apply_text) does it with the dialects of a
/// registry.
///
/// ```
/// use polypatch::{apply_text, ApplyOptions, MemoryFileSet, ReplyError};
///
/// let reply = "Rename the greeting first:\n\n\
///     ```diff\n--- a/hello.txt\n+++ b/hello.txt\n@@ -1 +1 @@\n-Hello\n+Hi\n```\n\n\
///     then add a name:\n\n\
///     *** Begin Patch\n*** Update File: hello.txt\n@@\n-Hi\n+Hi, Ada\n*** End Patch\n";
/// let mut files = MemoryFileSet::new().with("hello.txt", "Hello\n");
/// let report = apply_text(reply, &mut files, &ApplyOptions::default()).unwrap();
/// assert_eq!(files.get_str("hello.txt"), Some("Hi, Ada\n"));
/// assert_eq!(report.blocks.len(), 2);
/// assert_eq!(report.blocks[1].block.dialect, "ai-patch");
///
/// // No patch at all is an error of its own.
/// let err = apply_text("Looks good to me!", &mut files, &ApplyOptions::default()).unwrap_err();
/// assert_eq!(err.kind(), "no_patch");
/// ```
pub fn apply_text<S: FileStore + ?Sized>(
    reply: &str,
    files: &mut S,
    options: &ApplyOptions,
) -> Result<ReplyReport, ReplyError> {
    apply_text_with(reply, files, options, &ParseOptions::default())
}

/// [`apply_text`] with parse options (a diff's strip level, the binary size limit).
///
/// ```
/// use polypatch::reply::apply_text_with;
/// use polypatch::{ApplyOptions, MemoryFileSet, ParseOptions};
///
/// let reply = "```diff\n--- x/src/a.txt\n+++ x/src/a.txt\n@@ -1 +1 @@\n-one\n+two\n```\n";
/// let mut files = MemoryFileSet::new().with("a.txt", "one\n");
/// apply_text_with(reply, &mut files, &ApplyOptions::default(), &ParseOptions::default().strip(2)).unwrap();
/// assert_eq!(files.get_str("a.txt"), Some("two\n"));
/// ```
pub fn apply_text_with<S: FileStore + ?Sized>(
    reply: &str,
    files: &mut S,
    options: &ApplyOptions,
    parse: &ParseOptions,
) -> Result<ReplyReport, ReplyError> {
    let blocks = plan_reply(reply, parse)?;
    apply_blocks(&blocks, files, options)
}

#[cfg(all(test, feature = "ai-patch", feature = "unified", feature = "ap", feature = "applydiff", feature = "aptix"))]
mod tests {
    use super::*;
    use crate::MemoryFileSet;
    use polypatch_core::FailureKind;

    fn files() -> MemoryFileSet {
        MemoryFileSet::new().with("a.txt", "one\ntwo\n").with("b.txt", "three\n")
    }

    #[test]
    fn later_blocks_see_earlier_ones() {
        let reply = "First:\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+uno\n two\n```\n\
                     Then:\n```\n*** Begin Patch\n*** Update File: a.txt\n@@\n uno\n-two\n+dos\n*** End Patch\n```\n\
                     And:\n```json\n{\"root\": \".\", \"files\": [{\"path\": \"c.txt\", \"content\": \"new\\n\"}]}\n```\n";
        let mut files = files();
        let report = apply_text(reply, &mut files, &ApplyOptions::default()).unwrap();
        assert_eq!(files.get_str("a.txt"), Some("uno\ndos\n"));
        assert_eq!(files.get_str("c.txt"), Some("new\n"));
        assert!(report.committed && report.is_success());
        let dialects: Vec<_> = report.blocks.iter().map(|b| (b.block.index, b.block.dialect.as_str())).collect();
        assert_eq!(dialects, [(1, "unified"), (2, "ai-patch"), (3, "aptix")]);
        assert_eq!(report.blocks[1].report.files[0].path, "a.txt");
        assert_eq!(report.blocks[0].block.lines.map(|l| (l.start, l.end)), Some((3, 8)));
        let attributed: Vec<_> = report.files().map(|(b, f)| (b.block.index, f.path.as_str())).collect();
        assert_eq!(attributed, [(1, "a.txt"), (2, "a.txt"), (3, "c.txt")]);
    }

    /// A file set whose commit fails without undoing everything.
    struct HalfWritten(MemoryFileSet);

    impl polypatch_core::FileSource for HalfWritten {
        fn resolve(&self, path: &str) -> Result<polypatch_core::RelPath, polypatch_core::PathError> {
            self.0.resolve(path)
        }

        fn read(&self, path: &polypatch_core::RelPath) -> std::io::Result<polypatch_core::Entry> {
            self.0.read(path)
        }
    }

    impl FileStore for HalfWritten {
        fn commit(&mut self, _changes: &[polypatch_core::Change]) -> Result<(), polypatch_core::CommitError> {
            let cause = std::io::Error::other("disk gone");
            Err(polypatch_core::CommitError::new(cause, false, vec!["a.txt.old".into()]))
        }
    }

    #[test]
    fn a_commit_that_was_not_undone_is_reported_so() {
        let reply = "```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+uno\n```\n";
        let err = apply_text(reply, &mut HalfWritten(files()), &ApplyOptions::default()).unwrap_err();
        let ReplyError::NotApplied { commit_error: Some(commit_error), rolled_back, .. } = &err else {
            panic!("not a commit failure: {err:?}")
        };
        assert!(!rolled_back);
        // The store's error is the reply error's source, with the io::Error behind it.
        let source = std::error::Error::source(&err).and_then(|s| s.downcast_ref::<polypatch_core::CommitError>());
        assert_eq!(source.map(|s| s.cause.to_string()), Some("disk gone".to_string()));
        let commit_error = commit_error.to_string();
        assert!(commit_error.starts_with("disk gone; UNDOING IT FAILED"), "{commit_error}");
        assert!(commit_error.contains("`a.txt.old`"), "{commit_error}");
    }

    #[test]
    fn a_block_that_fails_writes_nothing() {
        let reply = "```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+uno\n```\n\
                     ```diff\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-absent\n+x\n```\n\
                     ```diff\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-three\n+tres\n```\n";
        let mut files = files();
        let err = apply_text(reply, &mut files, &ApplyOptions::default()).unwrap_err();
        assert_eq!(files, self::files());
        let ReplyError::NotApplied { report, commit_error: None, .. } = &err else { panic!("{err:?}") };
        let statuses: Vec<_> = report.blocks.iter().map(|b| b.status).collect();
        // Block 1 was located, not written (issue 26, point 6).
        assert_eq!(statuses, [Status::Located, Status::Failed, Status::NotAttempted]);
        assert_eq!(report.blocks[0].report.files[0].status, Status::Located);
        assert!(
            report.to_string().starts_with("block 1 (unified, lines 2-6): located\nlocated: modify a.txt\n"),
            "{report}"
        );
        let first = report.first_failure().unwrap();
        assert_eq!(
            (first.block.block.index, first.file.path.as_str(), first.edit.map(|e| e.index), first.failure.kind),
            (2, "b.txt", Some(1), FailureKind::NotFound)
        );
        assert_eq!(err.to_string(), first.to_string());
        assert!(err.to_string().starts_with("block 2 (unified, lines 9-13): b.txt: "), "{err}");
        assert_eq!(err.kind(), "not_applied");
    }

    #[test]
    fn a_malformed_block_is_named_and_points_into_the_reply() {
        let reply = "Fix:\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+uno\n```\nand\n\n\
                     *** Begin Patch\n*** Frobnicate File: a.txt\n*** End Patch\n";
        let mut files = files();
        let err = apply_text(reply, &mut files, &ApplyOptions::default()).unwrap_err();
        let ReplyError::Malformed { block, error } = &err else { panic!("{err:?}") };
        assert_eq!((block.index, block.dialect.as_str()), (2, "ai-patch"));
        assert_eq!(error.dialect, "ai-patch");
        let (line, _) = error.line_col(reply).unwrap();
        assert_eq!(line, 12, "{}", error.render(reply));
        // The message names the reply's line, not the block's nor a byte offset.
        assert!(err.to_string().ends_with("(at line 12, column 1)"), "{err}");
        let source = std::error::Error::source(&err).and_then(|s| s.downcast_ref::<PatchError>());
        assert_eq!(source, Some(error));
        assert_eq!(files, self::files());
    }

    #[test]
    fn a_crlf_block_is_read_with_lf_and_errors_point_into_the_reply() {
        let reply = "Fix:\r\n```diff\r\n--- a/a.txt\r\n+++ b/a.txt\r\n@@ -1 +1 @@\r\n-one\r\n+uno\r\n```\r\n";
        let mut files = files();
        apply_text(reply, &mut files, &ApplyOptions::default()).unwrap();
        assert_eq!(files.get_str("a.txt"), Some("uno\ntwo\n"));
        let reply =
            "Fix:\r\n\r\n*** Begin Patch\r\n*** Update File: b.txt\r\n@@\r\n-three\r\n*** Bogus\r\n*** End Patch\r\n";
        let ReplyError::Malformed { error, .. } = apply_text(reply, &mut files, &ApplyOptions::default()).unwrap_err()
        else {
            panic!("expected a malformed block")
        };
        let span = error.span.unwrap();
        assert!(reply[span.start..].starts_with("*** Bogus"), "{}", error.render(reply));
    }

    #[test]
    fn an_indented_fence_is_read_without_its_indentation() {
        let reply = "1. Rename:\n\n   ```diff\n   --- a/a.txt\n   +++ b/a.txt\n   @@ -1,2 +1,2 @@\n   -one\n   +uno\n    two\n   ```\n\n\
                     2. Then:\n\n   ```\n   *** Begin Patch\n   *** Frobnicate File: b.txt\n   *** End Patch\n   ```\n";
        let mut files = files();
        let ReplyError::Malformed { block, error } =
            apply_text(reply, &mut files, &ApplyOptions::default()).unwrap_err()
        else {
            panic!("expected a malformed block")
        };
        assert_eq!(block.index, 2);
        let span = error.span.unwrap();
        assert!(reply[span.start..].starts_with("*** Frobnicate"), "{}", error.render(reply));
        let fixed =
            reply.replace("*** Frobnicate File: b.txt\n", "*** Update File: b.txt\n   @@\n   -three\n   +tres\n");
        apply_text(&fixed, &mut files, &ApplyOptions::default()).unwrap();
        assert_eq!((files.get_str("a.txt"), files.get_str("b.txt")), (Some("uno\ntwo\n"), Some("tres\n")));
    }

    #[test]
    fn no_patch_and_dry_run() {
        let mut files = files();
        let err = apply_text("All good.\n```bash\nls\n```\n", &mut files, &ApplyOptions::default()).unwrap_err();
        assert!(matches!(err, ReplyError::NoPatch));
        assert!(err.to_string().starts_with("the reply holds no patch"), "{err}");
        let reply = "```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+uno\n```\n";
        let report = apply_text(reply, &mut files, &ApplyOptions::default().dry_run(true)).unwrap();
        assert!(report.dry_run && !report.committed);
        assert_eq!(files, self::files());
        // Nothing was written: the block and its edits are located (issue 26, point 6).
        assert_eq!(report.blocks[0].status, Status::Located);
        assert_eq!(report.blocks[0].report.files[0].edits[0].status, Status::Located);
        let report = apply_text(reply, &mut files, &ApplyOptions::default()).unwrap();
        assert_eq!(report.blocks[0].status, Status::Applied);
        assert_eq!(report.blocks[0].report.files[0].edits[0].status, Status::Applied);
    }

    #[test]
    fn delete_then_create_is_one_write() {
        let reply = "*** Begin Patch\n*** Delete File: b.txt\n*** End Patch\n\nthen\n\n\
                     *** Begin Patch\n*** Add File: b.txt\n+fresh\n*** End Patch\n";
        let mut files = files();
        let blocks = plan_reply(reply, &ParseOptions::default()).unwrap();
        let computed = compute_blocks(&blocks, &files, &ApplyOptions::default()).unwrap();
        assert_eq!(computed.changes.len(), 1);
        apply_blocks(&blocks, &mut files, &ApplyOptions::default()).unwrap();
        assert_eq!(files.get_str("b.txt"), Some("fresh\n"));
    }
}

//! What an apply did, file by file and edit by edit, and why anything failed.

use std::fmt::{self, Write as _};

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use crate::dialect_name::DialectName;
use crate::ir::tier::Tier;

/// The outcome of applying a plan: one entry per file operation.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[non_exhaustive]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ApplyReport {
    /// The dialect the plan came from.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "DialectName::is_empty"))]
    pub dialect: DialectName,
    /// Whether nothing was written on purpose (`check`, `--dry-run`).
    pub dry_run: bool,
    /// Whether the files were written (false on failure and on dry runs).
    pub committed: bool,
    /// One entry per file operation, in plan order.
    pub files: Vec<FileReport>,
    /// How many failures, after the first [`MAX_DETAILED_FAILURES`], are reported without
    /// their details (closest region, candidates, next step; the message shortened), so
    /// that a patch of thousands of failing edits gets a report of bounded size per edit.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "is_zero"))]
    pub shortened: usize,
}

impl ApplyReport {
    /// A report of `files` from the dialect `dialect`, neither a dry run nor committed.
    pub fn new(dialect: impl Into<DialectName>, files: Vec<FileReport>) -> Self {
        ApplyReport { dialect: dialect.into(), dry_run: false, committed: false, files, shortened: 0 }
    }

    /// Keeps the details of the first [`MAX_DETAILED_FAILURES`] failures and shortens the
    /// others (see [`ApplyReport::shortened`]).
    pub fn shorten_failures(&mut self) {
        let mut seen = 0;
        let mut shortened = 0;
        for file in &mut self.files {
            let failures = file.failure.iter_mut().chain(file.edits.iter_mut().filter_map(|e| e.failure.as_mut()));
            for failure in failures {
                seen += 1;
                if seen > MAX_DETAILED_FAILURES {
                    failure.shorten();
                    shortened += 1;
                }
            }
        }
        self.shortened += shortened;
    }

    /// Whether every file operation succeeded (applied, already applied or skipped).
    pub fn is_success(&self) -> bool {
        self.files.iter().all(|f| f.status.is_success())
    }

    /// The first failure, if any: the file operation, the edit when an edit failed, and
    /// the failure.
    ///
    /// ```
    /// use polypatch_core::{apply, ApplyOptions, Edit, EditPlan, FailureKind, FileEdit, MemoryFileSet};
    ///
    /// let plan = EditPlan::new("", vec![FileEdit::modify("a.txt", vec![Edit::replace(["two"], ["2"])])]);
    /// let mut files = MemoryFileSet::new().with("a.txt", "one\n");
    /// let err = apply(&plan, &mut files, &ApplyOptions::default()).unwrap_err();
    /// let first = err.report.first_failure().unwrap();
    /// assert_eq!((first.file.path.as_str(), first.edit.map(|e| e.index)), ("a.txt", Some(1)));
    /// assert_eq!(first.failure.kind, FailureKind::NotFound);
    /// assert_eq!(first.to_string(), format!("a.txt: edit 1: {}", first.failure));
    /// ```
    pub fn first_failure(&self) -> Option<FirstFailure<'_>> {
        for file in &self.files {
            if let Some(failure) = &file.failure {
                return Some(FirstFailure { file, edit: None, failure });
            }
            for edit in &file.edits {
                if let Some(failure) = &edit.failure {
                    return Some(FirstFailure { file, edit: Some(edit), failure });
                }
            }
        }
        None
    }

    /// Whether every operation was already applied (a re-run of the same patch).
    pub fn is_already_applied(&self) -> bool {
        !self.files.is_empty() && self.files.iter().all(|f| f.status == Status::AlreadyApplied)
    }

    /// Marks the report of changes that were written (committed to disk, or delivered to
    /// an editor): `committed` is set, and every operation and edit [`Status::Located`]
    /// becomes [`Status::Applied`]. [`apply`](crate::apply()) calls it after the commit;
    /// until then, nothing in a report says `applied`.
    pub fn mark_committed(&mut self) {
        self.committed = true;
        self.relabel(Status::Located, Status::Applied);
    }

    /// Marks the report of changes that were not written: `committed` is cleared, and
    /// every operation and edit [`Status::Applied`] becomes [`Status::Located`].
    pub fn mark_not_written(&mut self) {
        self.committed = false;
        self.relabel(Status::Applied, Status::Located);
    }

    fn relabel(&mut self, from: Status, to: Status) {
        for file in &mut self.files {
            if file.status == from {
                file.status = to;
            }
            for edit in &mut file.edits {
                if edit.status == from {
                    edit.status = to;
                }
            }
        }
    }
}

/// The first failure of a report ([`ApplyReport::first_failure`]): where it is and why.
///
/// Its `Display` is the one line a caller shows: the path, the edit's label when an edit
/// failed, and the failure (`a.txt: hunk 2: not found: …`).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct FirstFailure<'a> {
    /// The file operation that failed, or whose edit failed.
    pub file: &'a FileReport,
    /// The edit that failed; `None` when the file operation itself failed (file missing,
    /// path escapes the root, …).
    pub edit: Option<&'a EditReport>,
    /// Why.
    pub failure: &'a Failure,
}

impl fmt::Display for FirstFailure<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.file.path)?;
        if let Some(edit) = self.edit {
            write!(f, "{}: ", edit.name())?;
        }
        write!(f, "{}", self.failure)
    }
}

/// What happened to one file operation.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[non_exhaustive]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct FileReport {
    /// The path as given in the patch (normalized, root-relative).
    pub path: String,
    /// The operation: `create`, `delete`, `replace`, `modify` or `binary` in JSON.
    pub operation: FileOperation,
    /// The destination of a move.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub moved_to: Option<String>,
    /// The outcome.
    pub status: Status,
    /// Per-edit outcomes for `modify`.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Vec::is_empty"))]
    pub edits: Vec<EditReport>,
    /// Why the file operation itself failed (file missing, path escapes the root, …).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub failure: Option<Failure>,
}

impl FileReport {
    /// A report of the `operation` on `path`, with no edits and no failure.
    pub fn new(path: impl Into<String>, operation: FileOperation, status: Status) -> Self {
        FileReport { path: path.into(), operation, moved_to: None, status, edits: Vec::new(), failure: None }
    }
}

/// What a file operation of a report does (the IR's [`FileOp`](crate::FileOp), without
/// its content). A move is a `modify` or `replace` with
/// [`moved_to`](FileReport::moved_to) set. It serializes and displays as its name
/// (`modify`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum FileOperation {
    /// A new file.
    Create,
    /// The file removed.
    Delete,
    /// The file's whole content replaced.
    Replace,
    /// Edits inside the file.
    Modify,
    /// A git binary patch (a literal or a delta).
    Binary,
}

impl FileOperation {
    /// The stable name, as in JSON and in the text report (`modify`).
    pub fn name(self) -> &'static str {
        match self {
            FileOperation::Create => "create",
            FileOperation::Delete => "delete",
            FileOperation::Replace => "replace",
            FileOperation::Modify => "modify",
            FileOperation::Binary => "binary",
        }
    }
}

/// The operation's name, as JSON writes it:
///
/// ```
/// use polypatch_core::FileOperation;
///
/// assert_eq!(FileOperation::Modify.to_string(), "modify");
/// # #[cfg(feature = "serde")] // serde_json: core's `serde` feature
/// assert_eq!(serde_json::to_string(&FileOperation::Binary).unwrap(), "\"binary\"");
/// ```
impl fmt::Display for FileOperation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What happened to one edit.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[non_exhaustive]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct EditReport {
    /// 1-based position of the edit in its file operation.
    pub index: usize,
    /// The edit's label (`hunk 2`, `modification 3`).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "String::is_empty"))]
    pub label: String,
    /// The outcome.
    pub status: Status,
    /// The tier the target matched at.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub tier: Option<Tier>,
    /// Confidence of the match, 0..1.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub confidence: Option<f64>,
    /// The lines the target occupied (1-based, inclusive) in the file as it was when the
    /// edit was applied.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub lines: Option<LineRange>,
    /// Why it failed.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub failure: Option<Failure>,
    /// What the engine did beyond the letter of the edit, for the writer to check (an
    /// elision expanded into the lines it stands for).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Vec::is_empty"))]
    pub notes: Vec<String>,
}

impl EditReport {
    /// A report of the `index`th edit (1-based), with nothing else known.
    pub fn new(index: usize, status: Status) -> Self {
        EditReport {
            index,
            label: String::new(),
            status,
            tier: None,
            confidence: None,
            lines: None,
            failure: None,
            notes: Vec::new(),
        }
    }

    /// The edit's name in messages: its label (`hunk 2`), or `edit N` without one.
    pub fn name(&self) -> std::borrow::Cow<'_, str> {
        if self.label.is_empty() {
            std::borrow::Cow::Owned(format!("edit {}", self.index))
        } else {
            std::borrow::Cow::Borrowed(&self.label)
        }
    }
}

/// An outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Status {
    /// Changed as asked, and written: only a committed report (see
    /// [`ApplyReport::committed`]) says `applied`.
    Applied,
    /// The result was already there; nothing changed.
    AlreadyApplied,
    /// Not found, and the policy says that is a no-op.
    Skipped,
    /// Could not be applied.
    Failed,
    /// Not tried because an earlier part of the plan failed.
    NotAttempted,
    /// Located, and would change the file, but not written: the run was a dry run
    /// ([`compute`](crate::compute()), `check`), another part of it failed, or writing
    /// failed. `Applied` always means written.
    Located,
}

impl Status {
    /// Applied, already applied, skipped or located.
    pub fn is_success(self) -> bool {
        matches!(self, Status::Applied | Status::AlreadyApplied | Status::Skipped | Status::Located)
    }

    /// The word the text report ([`ApplyReport`]'s `Display`) opens its lines with: the
    /// [`Display`](fmt::Display) word, but `FAILED` in capitals, to stand out.
    pub fn word(self) -> &'static str {
        match self {
            Status::Failed => "FAILED",
            other => other.describe(),
        }
    }

    /// The `snake_case` name used in JSON (`already_applied`).
    pub fn name(self) -> &'static str {
        match self {
            Status::Applied => "applied",
            Status::AlreadyApplied => "already_applied",
            Status::Skipped => "skipped",
            Status::Failed => "failed",
            Status::NotAttempted => "not_attempted",
            Status::Located => "located",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Status::Applied => "applied",
            Status::AlreadyApplied => "already applied",
            Status::Skipped => "skipped",
            Status::Failed => "failed",
            Status::NotAttempted => "not attempted",
            Status::Located => "located",
        }
    }
}

/// The status in words, as messages say it: the JSON name with spaces (`already
/// applied`, `not attempted`, `located`).
///
/// ```
/// use polypatch_core::Status;
///
/// assert_eq!(Status::AlreadyApplied.to_string(), "already applied");
/// assert_eq!(Status::Failed.to_string(), "failed");
/// assert_eq!(Status::Failed.word(), "FAILED");
/// assert_eq!(Status::NotAttempted.name(), "not_attempted");
/// ```
impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// A 1-based inclusive line range. An empty range (an insertion point) has
/// `end == start - 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct LineRange {
    /// First line, 1-based.
    pub start: usize,
    /// Last line, 1-based, inclusive.
    pub end: usize,
}

impl LineRange {
    /// Lines `start` to `end`, 1-based and inclusive (`end == start - 1`: the point
    /// before line `start`).
    pub fn new(start: usize, end: usize) -> Self {
        LineRange { start, end }
    }

    /// The range covering 0-based lines `start..end`.
    pub fn from_zero_based(start: usize, end: usize) -> Self {
        LineRange { start: start + 1, end }
    }
}

impl fmt::Display for LineRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.end.cmp(&self.start) {
            std::cmp::Ordering::Less => write!(f, "before line {}", self.start),
            std::cmp::Ordering::Equal => write!(f, "line {}", self.start),
            std::cmp::Ordering::Greater => write!(f, "lines {}-{}", self.start, self.end),
        }
    }
}

/// Why something failed, written for the model that wrote the patch.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[non_exhaustive]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Failure {
    /// The kind of failure.
    pub kind: FailureKind,
    /// What went wrong.
    pub message: String,
    /// For ambiguity: the places the target matched, the first [`MAX_CANDIDATES`] of them
    /// (set with [`Failure::set_candidates`]).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Vec::is_empty"))]
    pub candidates: Vec<LineRange>,
    /// How many places the target matched in all, listed or not (0 when there are no
    /// candidates).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "is_zero"))]
    pub candidates_total: usize,
    /// For a fuzzy ambiguity: the similarity (0..1, two decimals) of each listed
    /// candidate, in the order of `candidates`. Empty otherwise: at the other tiers every
    /// candidate matches equally.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Vec::is_empty"))]
    pub candidate_scores: Vec<f64>,
    /// For not-found: the most similar region of the file.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub closest: Option<Closest>,
    /// What the writer of the patch should do next.
    pub next_step: String,
}

/// The region of the file most similar to a target that was not found.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[non_exhaustive]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Closest {
    /// Where it is.
    pub lines: LineRange,
    /// Similarity to the target, 0..1.
    pub similarity: f64,
    /// A short unified diff from the patch's expectation (`-`) to the file (`+`).
    pub diff: String,
}

impl Closest {
    /// The region `lines`, `similarity` (0..1) to the target, and the `diff` between them.
    pub fn new(lines: LineRange, similarity: f64, diff: impl Into<String>) -> Self {
        Closest { lines, similarity, diff: diff.into() }
    }
}

/// The kind of a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum FailureKind {
    /// The target is not in the file.
    NotFound,
    /// The target matched several places and nothing decides between them.
    Ambiguous,
    /// The file to change does not exist.
    FileMissing,
    /// The file to create exists with other content.
    FileExists,
    /// The path is a directory or something else that is not a regular file.
    NotAFile,
    /// The path leaves the root (`..`, an absolute path outside it, a symlink out).
    PathEscapesRoot,
    /// The file is not UTF-8 text and the operation needs text.
    NotText,
    /// The plan itself is inconsistent (two operations on one file that conflict, an
    /// edit the engine cannot express).
    InvalidPlan,
    /// The new text holds an elision (`// ... existing code ...`) where the edit removes
    /// lines: applied, it would delete the code it stands for.
    Elision,
    /// Reading or writing failed.
    Io,
    /// The target is not in the file at the tiers that compare lines (exact, whitespace,
    /// indentation, look-alikes, blank lines), and the similarity (fuzzy) search that might
    /// have found it was not run: an earlier edit of the plan had already failed, so the
    /// plan could not apply whatever this one gave, or the plan's budget for similarity
    /// searches ran out (a patch of thousands of such edits: split it). The message says
    /// which.
    SearchSkipped,
    /// The edit or file operation is already applied, and the caller asked to refuse
    /// what is ([`crate::AlreadyApplied::Refuse`]).
    AlreadyApplied,
    /// The file's content is no longer the one its writer read (the stale-read guard:
    /// [`crate::ApplyOptions::read_hashes`], [`crate::FileEdit::read_hash`]): the edit was
    /// written against an old view of the file. The message says whether the edits still
    /// match the file exactly, and where not.
    ChangedSinceRead,
}

impl FailureKind {
    /// The stable name used in JSON and messages.
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::NotFound => "not found",
            FailureKind::Ambiguous => "ambiguous",
            FailureKind::FileMissing => "file missing",
            FailureKind::FileExists => "file exists",
            FailureKind::NotAFile => "not a file",
            FailureKind::PathEscapesRoot => "path escapes root",
            FailureKind::NotText => "not text",
            FailureKind::InvalidPlan => "invalid plan",
            FailureKind::Elision => "elision",
            FailureKind::Io => "i/o error",
            FailureKind::SearchSkipped => "search skipped",
            FailureKind::AlreadyApplied => "already applied",
            FailureKind::ChangedSinceRead => "changed since read",
        }
    }
}

/// The kind in words, as messages say it ([`FailureKind::name`]: `not found`, `i/o
/// error`); JSON says it in `snake_case` (`not_found`, `io`).
///
/// ```
/// use polypatch_core::FailureKind;
///
/// assert_eq!(FailureKind::PathEscapesRoot.to_string(), "path escapes root");
/// # #[cfg(feature = "serde")] // serde_json: core's `serde` feature
/// assert_eq!(serde_json::to_string(&FailureKind::PathEscapesRoot).unwrap(), "\"path_escapes_root\"");
/// ```
impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Failure {
    /// A failure without candidates.
    pub fn new(kind: FailureKind, message: impl Into<String>, next_step: impl Into<String>) -> Self {
        Failure {
            kind,
            message: message.into(),
            candidates: Vec::new(),
            candidates_total: 0,
            candidate_scores: Vec::new(),
            closest: None,
            next_step: next_step.into(),
        }
    }

    /// The failure without its details: no closest region, no candidates listed (their
    /// count kept), no next step, the message cut short.
    fn shorten(&mut self) {
        const SHORT: usize = 100;
        if self.kind == FailureKind::SearchSkipped {
            self.message = "not in the file as written; not searched for similar lines".to_string();
        } else if let std::borrow::Cow::Owned(short) = clip_line(&self.message, SHORT) {
            self.message = short;
        }
        self.candidates.clear();
        self.candidate_scores.clear();
        self.closest = None;
        self.next_step.clear();
    }

    /// Sets the candidates: the first [`MAX_CANDIDATES`] are kept, and the total is
    /// recorded, so that a block matching 100,000 places makes a short report.
    pub fn set_candidates(&mut self, mut places: Vec<LineRange>) {
        self.candidates_total = places.len();
        places.truncate(MAX_CANDIDATES);
        self.candidates = places;
    }
}

/// The most candidate places a failure lists; the rest are counted.
pub const MAX_CANDIDATES: usize = 10;

/// The most failures of one report given with their details (closest region, candidates,
/// next step); the ones after are shortened ([`ApplyReport::shortened`]).
pub const MAX_DETAILED_FAILURES: usize = 10;

/// The most failures the text report ([`ApplyReport`]'s `Display`) lists; an edit or file
/// operation failing past them gets no line, and one closing line counts them. With the
/// shortened failures' one or two lines each, a failing plan's text report stays under
/// about 30 KB, however many edits fail. The JSON report lists every edit.
pub const MAX_LISTED_FAILURES: usize = 100;

/// The most lines of an excerpt (a diff, a line of the file) a failure shows.
pub(crate) const MAX_EXCERPT_LINES: usize = 40;

/// The most characters of one excerpt line a failure shows.
pub(crate) const MAX_EXCERPT_CHARS: usize = 200;

// serde's `skip_serializing_if` passes a reference.
#[cfg(feature = "serde")]
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// `places` as a list for a message: the first [`MAX_CANDIDATES`], then how many more.
pub(crate) fn list_places(places: &[LineRange], total: usize) -> String {
    let mut list: Vec<String> = places.iter().take(MAX_CANDIDATES).map(ToString::to_string).collect();
    let shown = list.len();
    if total > shown {
        list.push(format!("and {} more", total - shown));
    }
    list.join(", ")
}

/// `line` cut to at most `max` characters, saying how many were left out.
pub(crate) fn clip_line(line: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match line.char_indices().nth(max) {
        None => std::borrow::Cow::Borrowed(line),
        Some((cut, _)) => {
            let left = line[cut..].chars().count();
            std::borrow::Cow::Owned(format!("{}… ({left} more characters)", &line[..cut]))
        }
    }
}

/// Two lines of which one is longer than an excerpt shows, each cut to the same stretch
/// around their first difference (equal lines: their start), so that an excerpt shows the
/// change and not two equal beginnings. Shorter lines are returned as they are.
pub(crate) fn focus_pair(a: &str, b: &str) -> (String, String) {
    const WIDTH: usize = MAX_EXCERPT_CHARS - 80;
    let (ac, bc): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if ac.len() <= MAX_EXCERPT_CHARS && bc.len() <= MAX_EXCERPT_CHARS {
        return (a.to_string(), b.to_string());
    }
    let first = ac.iter().zip(&bc).take_while(|(x, y)| x == y).count();
    let start = if ac == bc { 0 } else { first.saturating_sub(WIDTH / 4) };
    let cut = |c: &[char]| {
        let from = start.min(c.len());
        let to = (from + WIDTH).min(c.len());
        let mut out = String::new();
        if from > 0 {
            let _ = write!(out, "({from} characters) …");
        }
        out.extend(&c[from..to]);
        if to < c.len() {
            let _ = write!(out, "… ({} more characters)", c.len() - to);
        }
        out
    };
    (cut(&ac), cut(&bc))
}

/// `text` cut to [`MAX_EXCERPT_LINES`] lines of at most [`MAX_EXCERPT_CHARS`] characters,
/// saying how much was left out.
pub(crate) fn clip_excerpt(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines();
    for line in lines.by_ref().take(MAX_EXCERPT_LINES) {
        out.push_str(&clip_line(line, MAX_EXCERPT_CHARS));
        out.push('\n');
    }
    let left = lines.count();
    if left > 0 {
        let _ = writeln!(out, "… ({left} more lines)");
    }
    if !text.ends_with('\n') && out.ends_with('\n') {
        out.pop();
    }
    out
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.message)?;
        if !self.candidates.is_empty() {
            let total = self.candidates_total.max(self.candidates.len());
            write!(f, "\n  candidates: {}", list_places(&self.candidates, total))?;
        }
        if let Some(closest) = &self.closest {
            write!(
                f,
                "\n  closest: {} (similarity {:.2})\n{}",
                closest.lines,
                closest.similarity,
                indent(&closest.diff, "    ")
            )?;
        }
        if !self.next_step.is_empty() {
            write!(f, "\n  next step: {}", self.next_step)?;
        }
        Ok(())
    }
}

fn indent(text: &str, prefix: &str) -> String {
    text.lines().map(|l| format!("{prefix}{l}")).collect::<Vec<_>>().join("\n")
}

impl fmt::Display for ApplyReport {
    /// One line per file and per edit; the tier is shown when not exact.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Failures listed so far, and those past MAX_LISTED_FAILURES left out.
        let mut listed = 0;
        let mut unlisted = 0;
        let mut list = |failed: bool| {
            if !failed {
                return true;
            }
            if listed < MAX_LISTED_FAILURES {
                listed += 1;
                true
            } else {
                unlisted += 1;
                false
            }
        };
        for file in &self.files {
            let edits: Vec<&EditReport> = file.edits.iter().filter(|e| list(e.failure.is_some())).collect();
            if !list(file.failure.is_some()) || (edits.is_empty() && !file.edits.is_empty() && file.failure.is_none()) {
                continue;
            }
            let target = match &file.moved_to {
                Some(to) => format!("{} -> {}", file.path, to),
                None => file.path.clone(),
            };
            writeln!(f, "{}: {} {}", file.status.word(), file.operation, target)?;
            if let Some(failure) = &file.failure {
                writeln!(f, "  {}", indent(&failure.to_string(), "  ").trim_start())?;
            }
            for edit in edits {
                write!(f, "  {}: {}", edit.name(), edit.status.word())?;
                if let Some(lines) = edit.lines {
                    write!(f, " at {lines}")?;
                }
                if let Some(tier) = edit.tier.filter(|t| *t != Tier::Exact) {
                    write!(f, " ({tier} match, confidence {:.2})", edit.confidence.unwrap_or(0.0))?;
                }
                writeln!(f)?;
                for note in &edit.notes {
                    writeln!(f, "    note: {note}")?;
                }
                if let Some(failure) = &edit.failure {
                    writeln!(f, "    {}", indent(&failure.to_string(), "    ").trim_start())?;
                }
            }
        }
        if self.shortened > 0 {
            writeln!(
                f,
                "({} more failures are shown without their details; only the first {MAX_DETAILED_FAILURES} are: fix those first)",
                self.shortened
            )?;
        }
        if unlisted > 0 {
            writeln!(
                f,
                "({unlisted} more failures are not listed; only the first {MAX_LISTED_FAILURES} are: fix those first, \
                 or see the JSON report, which lists every edit)"
            )?;
        }
        Ok(())
    }
}

//! Applying a plan: compute every file's new content in memory, then commit.

use std::collections::BTreeMap;
use std::sync::Arc;

use foldhash::{HashMap, HashMapExt};
#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use crate::apply::modify::modify;
use crate::apply::report::{
    ApplyReport, Closest, EditReport, Failure, FailureKind, FileOperation, FileReport, LineRange, Status,
};
use crate::apply::write::Overrides;
use crate::ir::plan::{
    Action, BinaryData, BinaryEdit, Content, Edit, EditPlan, Expect, FileEdit, FileOp, IfExists, IfMissing, Modify,
    Target,
};
use crate::ir::read_hash::ReadHash;
use crate::ir::tier::Tier;
use crate::locate::effort::Effort;
use crate::store::fileset::{
    Change, ChangeKind, CommitError, Entry, FileSource, FileStore, PathError, PathErrorKind, RelPath,
};
use crate::text::binary::{apply_git_delta, blob_id_matches, git_blob_id, id_names};
use crate::text::eol::{Eol, LineBreaks, NewLineEnds, Newline};
use crate::text::file_bytes::FileBytes;
use crate::text::lines::{LineText, TextFile, encode_lossless, holds_raw_bytes, show_raw_bytes};

/// Options of an apply.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[non_exhaustive]
#[allow(clippy::struct_excessive_bools, reason = "independent switches, each with its builder")]
pub struct ApplyOptions {
    /// Only exact matching, whatever the plan's policies allow.
    pub strict: bool,
    /// Locate and compute everything, write nothing.
    pub dry_run: bool,
    /// Overrides every edit's fuzzy threshold.
    pub fuzzy_threshold: Option<f64>,
    /// A text (substring) target that is not in the file, not even loosely, and not
    /// already applied, is reported skipped instead of failing the plan: the Aptix specs'
    /// "no-op" for a `find` that is not found. Off by default: a silent no-op is how edits
    /// get lost. Line targets are not affected.
    #[cfg_attr(feature = "serde", serde(default))]
    pub skip_missing_text: bool,
    /// Lets the plan change git's repository directory: a path with a `.git` component
    /// ([`RelPath::in_git_dir`], the names `git apply` refuses). Off by default: a patch
    /// that writes `.git/hooks/pre-commit` or `.git/config` (`core.fsmonitor`) runs
    /// commands at the next `git commit` or `git status`, so every such path (created,
    /// changed, deleted, renamed or copied, from or to, as written or through a symbolic
    /// link) is refused and nothing is written. The CLI's `--allow-git-dir`.
    #[cfg_attr(feature = "serde", serde(default))]
    pub allow_git_dir: bool,
    /// Lets every edit's removed and replaced lines match by likeness (the fuzzy tier), as
    /// its context lines may ([`Policy::allow_fuzzy_removals`](crate::Policy::allow_fuzzy_removals)
    /// for every edit); each such line is listed in the report. Off by default: a removed
    /// line that differs from the file's may be a change made after the patch was written,
    /// and the edit is refused. The CLI's `--allow-fuzzy-removals`.
    #[cfg_attr(feature = "serde", serde(default))]
    pub allow_fuzzy_removals: bool,
    /// The most lenient tier any edit may match at: the tiers past it are off for every
    /// edit, whatever its dialect's policy allows (`Some(Tier::Unicode)`: lenient about
    /// whitespace, indentation, blank lines and look-alike characters, never by
    /// similarity). An edit's strictest tier stays allowed even when it is past this one
    /// (an edit cannot be made stricter than its own floor: [`ApplyOptions::strict`] keeps
    /// only that one). `None` (the default): every tier the edit's policy allows.
    #[cfg_attr(feature = "serde", serde(default))]
    pub max_tier: Option<Tier>,
    /// What an edit or file operation found already applied (its new side already stands
    /// where the old side should be) does to the plan. Default
    /// [`AlreadyApplied::Accept`].
    #[cfg_attr(feature = "serde", serde(default))]
    pub already_applied: AlreadyApplied,
    /// The stale-read guard: the hash of each file's content as the writer of the patch
    /// read it, by path (as the patch or the file set names it). A file the plan touches
    /// whose content no longer has its hash was changed after it was read: its operation
    /// is refused ([`FailureKind::ChangedSinceRead`]) unless [`ApplyOptions::stale_read`]
    /// lets exact matches through. Paths the plan does not touch are ignored. Together
    /// with a [`FileEdit::read_hash`](crate::FileEdit::read_hash) a dialect carries, both
    /// must hold.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "BTreeMap::is_empty"))]
    pub read_hashes: BTreeMap<String, ReadHash>,
    /// What a file whose content changed since it was read (see
    /// [`ApplyOptions::read_hashes`]) does. Default [`StaleRead::Refuse`].
    #[cfg_attr(feature = "serde", serde(default))]
    pub stale_read: StaleRead,
}

/// What an apply does with a file that changed since the patch's writer read it (its
/// content no longer has the [`ReadHash`] given for it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum StaleRead {
    /// The file's operation fails with [`FailureKind::ChangedSinceRead`], and the plan
    /// with it: the edit was written against an old view of the file. The failure says
    /// whether the edits still match the file exactly, and where not.
    #[default]
    Refuse,
    /// The file's edits are applied only where they match the file exactly (as
    /// [`ApplyOptions::strict`]); the report notes that the file changed since it was
    /// read. Where one does not match exactly, the operation fails as with `Refuse`.
    /// Serialized `exact`, as the CLI's `--stale-read exact` (`exact_only` is read too).
    #[cfg_attr(feature = "serde", serde(rename = "exact", alias = "exact_only"))]
    ExactOnly,
}

/// What an apply does with an edit or file operation it finds already applied
/// ([`ApplyOptions::already_applied`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum AlreadyApplied {
    /// Reported as [`Status::AlreadyApplied`] and counted as success: a patch applied
    /// twice changes nothing the second time, and says so (an agent that retries after a
    /// lost reply is not told its edit failed).
    #[default]
    Accept,
    /// Failed with [`FailureKind::AlreadyApplied`], and the whole plan with it (nothing
    /// is written): for a caller that must apply each patch exactly once and wants to
    /// hear when a file already holds a change.
    Refuse,
}

impl ApplyOptions {
    /// Builder: only exact matching.
    #[must_use]
    pub fn strict(mut self, yes: bool) -> Self {
        self.strict = yes;
        self
    }

    /// Builder: write nothing.
    #[must_use]
    pub fn dry_run(mut self, yes: bool) -> Self {
        self.dry_run = yes;
        self
    }

    /// Builder: skip text targets that are not found (see [`ApplyOptions::skip_missing_text`]).
    #[must_use]
    pub fn skip_missing_text(mut self, yes: bool) -> Self {
        self.skip_missing_text = yes;
        self
    }

    /// Builder: let removed lines match by likeness (see [`ApplyOptions::allow_fuzzy_removals`]).
    #[must_use]
    pub fn allow_fuzzy_removals(mut self, yes: bool) -> Self {
        self.allow_fuzzy_removals = yes;
        self
    }

    /// Builder: no edit matches at a tier past `tier` (see [`ApplyOptions::max_tier`]).
    ///
    /// ```
    /// use polypatch_core::{ApplyOptions, Tier};
    ///
    /// // Lenient about whitespace and look-alikes, never by similarity.
    /// let options = ApplyOptions::default().max_tier(Tier::Unicode);
    /// assert_eq!(options.max_tier, Some(Tier::Unicode));
    /// ```
    #[must_use]
    pub fn max_tier(mut self, tier: Tier) -> Self {
        self.max_tier = Some(tier);
        self
    }

    /// Builder: every edit's similarity threshold (the fuzzy tier's floor, from 0 to 1:
    /// how alike a block must be to the edit's lines to match; the dialects' default is
    /// 0.8). A higher one finds fewer places by similarity; it never makes a match
    /// ambiguous that was not.
    ///
    /// # Panics
    ///
    /// When `threshold` is not a number from 0 to 1 (or is NaN).
    #[must_use]
    pub fn fuzzy_threshold(mut self, threshold: f64) -> Self {
        assert!(!threshold.is_nan(), "a fuzzy threshold is a number from 0 to 1, not NaN");
        assert!((0.0..=1.0).contains(&threshold), "a fuzzy threshold is a number from 0 to 1, not {threshold}");
        self.fuzzy_threshold = Some(threshold);
        self
    }

    /// Builder: what an edit found already applied does to the plan (see
    /// [`ApplyOptions::already_applied`]).
    #[must_use]
    pub fn already_applied(mut self, policy: AlreadyApplied) -> Self {
        self.already_applied = policy;
        self
    }

    /// Builder: allow paths in git's repository directory (see [`ApplyOptions::allow_git_dir`]).
    #[must_use]
    pub fn allow_git_dir(mut self, yes: bool) -> Self {
        self.allow_git_dir = yes;
        self
    }

    /// Builder: `path` was read with content of this hash (see
    /// [`ApplyOptions::read_hashes`]).
    ///
    /// ```
    /// use polypatch_core::{apply, ApplyOptions, Edit, EditPlan, FailureKind, FileEdit, MemoryFileSet, ReadHash};
    ///
    /// let read = ReadHash::of(b"one\ntwo\n"); // what the agent saw
    /// let mut files = MemoryFileSet::new().with("a.txt", "one\ntwo\nthree\n"); // changed since
    /// let plan = EditPlan::new("", vec![FileEdit::modify("a.txt", vec![Edit::replace(["two"], ["2"])])]);
    /// let err = apply(&plan, &mut files, &ApplyOptions::default().read_hash("a.txt", read)).unwrap_err();
    /// assert_eq!(err.report.first_failure().unwrap().failure.kind, FailureKind::ChangedSinceRead);
    /// assert_eq!(files.get_str("a.txt"), Some("one\ntwo\nthree\n")); // nothing written
    /// ```
    #[must_use]
    pub fn read_hash(mut self, path: impl Into<String>, hash: ReadHash) -> Self {
        self.read_hashes.insert(path.into(), hash);
        self
    }

    /// Builder: what a file that changed since it was read does (see [`StaleRead`]).
    #[must_use]
    pub fn stale_read(mut self, policy: StaleRead) -> Self {
        self.stale_read = policy;
        self
    }
}

/// The in-memory result of a plan: the report and the changes to write.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Computed {
    /// What happened to each file and edit.
    pub report: ApplyReport,
    /// The writes and deletions, in order; empty when nothing changes.
    pub changes: Vec<Change>,
}

/// The plan could not be applied; nothing was written.
///
/// When every edit was located but writing failed, [`commit_error`](Self::commit_error)
/// holds the store's [`CommitError`], which is also the error's
/// [`source`](std::error::Error::source): its [`cause`](CommitError::cause) is the
/// `io::Error` (its kind says whether the disk was full, a permission was missing, …).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ApplyError {
    /// What happened to each file and edit (the failed ones carry the reason).
    pub report: ApplyReport,
    /// Set when every edit was located but writing failed: why, and whether every step
    /// was undone.
    pub commit_error: Option<Arc<CommitError>>,
    /// After a failed write: whether every step was undone (no file changed). When it is
    /// `false`, `commit_error` names where the originals are kept.
    pub rolled_back: bool,
}

impl ApplyError {
    /// Some edit could not be located (the failures are in `report`); nothing was written.
    pub fn not_located(report: ApplyReport) -> Self {
        ApplyError { report, commit_error: None, rolled_back: true }
    }

    /// Every edit was located but writing failed with `error`, which says whether every
    /// step was undone.
    pub fn commit_failed(report: ApplyReport, error: CommitError) -> Self {
        let rolled_back = error.rolled_back;
        ApplyError { report, commit_error: Some(Arc::new(error)), rolled_back }
    }
}

impl std::fmt::Display for ApplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&summary(&self.report, self.commit_error.as_deref()))
    }
}

/// The source is the [`CommitError`] itself (not its `Arc`), so that
/// `err.source()?.downcast_ref::<CommitError>()` finds it.
impl std::error::Error for ApplyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.commit_error.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

fn summary(report: &ApplyReport, commit: Option<&CommitError>) -> String {
    if let Some(err) = commit {
        return format!("could not write the changes: {err}");
    }
    match report.first_failure() {
        Some(first) => first.to_string(),
        None => "the patch could not be applied".to_string(),
    }
}

/// Locates every edit of `plan` in `files` and computes the new contents, writing nothing.
///
/// ```
/// use polypatch_core::{compute, ApplyOptions, ChangeKind, Edit, EditPlan, FileEdit, MemoryFileSet};
///
/// let files = MemoryFileSet::new().with("a.txt", "one\ntwo\n");
/// let plan = EditPlan::new("", vec![FileEdit::modify("a.txt", vec![Edit::replace(["two"], ["2"])])]);
/// let computed = compute(&plan, &files, &ApplyOptions::default()).unwrap();
/// assert!(matches!(&computed.changes[0].kind, ChangeKind::Write { bytes, .. } if bytes == b"one\n2\n"));
/// assert_eq!(files.get_str("a.txt"), Some("one\ntwo\n")); // nothing written
/// ```
pub fn compute<S: FileSource + ?Sized>(
    plan: &EditPlan,
    files: &S,
    options: &ApplyOptions,
) -> Result<Computed, ApplyError> {
    let mut state = State {
        files,
        slots: Vec::new(),
        by_path: HashMap::new(),
        allow_git_dir: options.allow_git_dir,
        gone: None,
        // A path that does not resolve names no file the plan can touch.
        read_hashes: options
            .read_hashes
            .iter()
            .filter_map(|(path, hash)| Some((files.resolve(path).ok()?, *hash)))
            .collect(),
        stale_read: options.stale_read,
    };
    // What the plan's searches share: once it fails, the later edits are located without
    // similarity searches; all of them share one budget (see `effort`).
    let effort = Effort::default();
    let ov = Overrides {
        strict: options.strict,
        max_tier: options.max_tier,
        fuzzy_threshold: options.fuzzy_threshold,
        #[cfg(feature = "text-target")]
        skip_missing_text: options.skip_missing_text,
        fuzzy_removals: options.allow_fuzzy_removals,
        effort: Some(&effort),
        ..Overrides::default()
    };
    let mut report = ApplyReport { dialect: plan.dialect.clone(), dry_run: options.dry_run, ..ApplyReport::default() };
    // The deletes (and moves) found done already, with their failure should the rest of
    // the plan not be done already too.
    let mut gone: Vec<(usize, (Failure, bool))> = Vec::new();
    for fe in &plan.files {
        let file = state.file_op(fe, ov);
        if file.status == Status::Failed {
            effort.fail(|| format!("`{}`", file.path));
        }
        if let Some(failure) = state.gone.take() {
            gone.push((report.files.len(), failure));
        }
        report.files.push(file);
    }
    settle_gone(&mut report, gone);
    if options.already_applied == AlreadyApplied::Refuse {
        refuse_already_applied(&mut report);
    }
    // Nothing is written here: what would change is `located`, never `applied`.
    report.mark_not_written();
    if !report.is_success() {
        report.shorten_failures();
        return Err(ApplyError::not_located(report));
    }
    let changes = state.into_changes();
    Ok(Computed { report, changes })
}

/// [`AlreadyApplied::Refuse`]: every edit and file operation found already applied fails,
/// saying so.
fn refuse_already_applied(report: &mut ApplyReport) {
    let todo = "the file already holds this change: check that the patch was not applied before; to accept \
                changes found already applied, apply without refusing them";
    for file in &mut report.files {
        let mut refused = 0;
        for edit in file.edits.iter_mut().filter(|e| e.status == Status::AlreadyApplied) {
            let what = if edit.label.is_empty() { format!("edit {}", edit.index) } else { edit.label.clone() };
            let at = edit.lines.map(|l| format!(" (at {l})")).unwrap_or_default();
            edit.status = Status::Failed;
            edit.failure = Some(Failure::new(
                FailureKind::AlreadyApplied,
                format!("{what} of `{}` is already applied{at}", file.path),
                todo,
            ));
            refused += 1;
        }
        if file.status == Status::AlreadyApplied || refused > 0 {
            if file.status == Status::AlreadyApplied && refused == 0 {
                file.failure = Some(Failure::new(
                    FailureKind::AlreadyApplied,
                    format!("the {} of `{}` is already applied", file.operation, file.path),
                    todo,
                ));
            }
            file.status = Status::Failed;
        }
    }
}

/// The in-memory view of the file set while a plan is computed: each path touched, as
/// it was and as it is now.
struct State<'a, S: ?Sized> {
    files: &'a S,
    /// In first-touch order, the order of the changes.
    slots: Vec<Slot>,
    /// Each touched path's place in `slots`: a plan touching n files looks each one up in
    /// constant time, not by a scan of the n before it (`check` of a 40,000-file diff: 18 s
    /// to 1.2 s).
    by_path: HashMap<RelPath, usize>,
    /// [`ApplyOptions::allow_git_dir`].
    allow_git_dir: bool,
    /// [`ApplyOptions::read_hashes`], by resolved path.
    read_hashes: HashMap<RelPath, ReadHash>,
    /// [`ApplyOptions::stale_read`].
    stale_read: StaleRead,
    /// Set by the last file operation when it found its file gone (a delete of a missing
    /// file, a move whose source is missing and whose destination holds the result): done
    /// already if the rest of the plan is, else this failure (see [`settle_gone`]).
    /// With it, whether the operation is evidence of its own (a move whose edits all stand
    /// at its destination).
    gone: Option<(Failure, bool)>,
}

/// Settles the file operations that found their file gone (`gone`: their index in the
/// report, and their failure). A re-run of a patch that deletes or moves a file meets the
/// file missing: that is the patch already applied when every other file operation of the
/// plan is already applied too, and there is evidence: at least one other, or a move whose
/// edits all stand at its destination. Otherwise (a first run, or a patch naming a file
/// that never existed) each fails as before.
fn settle_gone(report: &mut ApplyReport, gone: Vec<(usize, (Failure, bool))>) {
    if gone.is_empty() {
        return;
    }
    let is_gone = |i: usize| gone.iter().any(|(g, _)| *g == i);
    let others: Vec<&FileReport> =
        (report.files.iter().enumerate()).filter(|(i, _)| !is_gone(*i)).map(|(_, f)| f).collect();
    let evidence = !others.is_empty() || gone.iter().any(|(_, (_, own))| *own);
    if evidence && others.iter().all(|f| f.status == Status::AlreadyApplied) {
        return;
    }
    for (i, (failure, _)) in gone {
        let file = &mut report.files[i];
        file.status = Status::Failed;
        file.edits.clear();
        file.failure = Some(failure);
    }
}

struct Slot {
    path: RelPath,
    original: Held,
    current: Held,
    /// A content this path held, already compared with the original's: whether they are
    /// equal. When it is still the current content, the changes need not compare again
    /// (a walk of an edited file's lines).
    compared: Option<(FileBytes, bool)>,
}

/// What is at a path while a plan is computed: an [`Entry`] whose content the original
/// and current states (and the lines decoded from it) share, so that a file read is held
/// once.
#[derive(Clone, PartialEq)]
enum Held {
    Missing,
    File { bytes: FileBytes, mode: Option<u32> },
    Directory,
    Other,
}

impl From<Entry> for Held {
    fn from(entry: Entry) -> Held {
        match entry {
            Entry::Missing => Held::Missing,
            Entry::File { bytes, mode } => Held::File { bytes, mode },
            Entry::Directory => Held::Directory,
            Entry::Other => Held::Other,
        }
    }
}

impl<S: FileSource + ?Sized> State<'_, S> {
    fn slot(&mut self, path: &RelPath) -> Result<usize, Failure> {
        if let Some(&i) = self.by_path.get(path) {
            return Ok(i);
        }
        let entry = Held::from(self.files.read(path).map_err(|e| read_failure(path, &e))?);
        let i = self.slots.len();
        self.slots.push(Slot { path: path.clone(), original: entry.clone(), current: entry, compared: None });
        self.by_path.insert(path.clone(), i);
        Ok(i)
    }

    /// Every path a plan names (a file's, a rename's or copy's source and destination)
    /// comes through here: the path rules hold for every operation of every dialect.
    fn resolve(&self, path: &str) -> Result<RelPath, Failure> {
        // A `.git` component as written, or in the file a link leads to.
        let in_git_dir = |rel: &RelPath| rel.in_git_dir() || self.files.as_written(path).is_ok_and(|w| w.in_git_dir());
        let resolved = match self.files.resolve(path) {
            Ok(rel) if !self.allow_git_dir && in_git_dir(&rel) => Err(PathError::new(path, PathErrorKind::GitDir)),
            other => other,
        };
        resolved.map_err(|e| {
            let (kind, next) = match e.kind {
                PathErrorKind::GitDir => (
                    FailureKind::InvalidPlan,
                    "change the project's files only; if the patch is meant to change git's own files, apply it \
                     with `--allow-git-dir` (`ApplyOptions::allow_git_dir`)",
                ),
                PathErrorKind::TooLong => (FailureKind::InvalidPlan, "use a shorter name"),
                PathErrorKind::Reserved => {
                    (FailureKind::InvalidPlan, "choose another name: `.polypatch-*` files are polypatch's own")
                }
                PathErrorKind::BrokenSymlink => {
                    (FailureKind::PathEscapesRoot, "name the file itself, or fix the link so that its target exists")
                }
                PathErrorKind::Empty | PathErrorKind::Invalid | PathErrorKind::NotUtf8 => {
                    (FailureKind::InvalidPlan, "use a path relative to the project root, without `..`")
                }
                _ => (FailureKind::PathEscapesRoot, "use a path relative to the project root, without `..`"),
            };
            Failure::new(kind, e.to_string(), next)
        })
    }

    fn file_op(&mut self, fe: &FileEdit, ov: Overrides<'_>) -> FileReport {
        let operation = match &fe.op {
            FileOp::Create { .. } => FileOperation::Create,
            FileOp::Delete { .. } => FileOperation::Delete,
            FileOp::Replace { .. } => FileOperation::Replace,
            FileOp::Modify(_) => FileOperation::Modify,
            FileOp::Binary(_) => FileOperation::Binary,
        };
        let mut report = FileReport {
            path: fe.path.clone(),
            operation,
            moved_to: None,
            status: Status::Failed,
            edits: Vec::new(),
            failure: None,
        };
        let moves_away = match &fe.op {
            FileOp::Delete { .. } => true,
            FileOp::Modify(m) => m.move_to.is_some() && m.copy_from.is_none(),
            _ => false,
        };
        let result = match self.resolve(&fe.path) {
            Ok(path) if moves_away && self.files.is_symlink(&fe.path) => Err(Failure::new(
                FailureKind::NotAFile,
                format!(
                    "cannot {operation} `{}`: it is a symbolic link (to `{path}`); polypatch changes files' contents, \
                     not links",
                    fe.path
                ),
                "delete or rename the link yourself, or name the file it points to",
            )),
            Ok(path) => {
                report.path = path.to_string();
                match self.changed_since_read(&path, fe) {
                    Ok(None) => self.run(&path, &fe.op, ov, &mut report),
                    Ok(Some(changed)) => self.run_changed(&path, fe, &changed, ov, &mut report),
                    Err(failure) => Err(failure),
                }
            }
            Err(failure) => Err(failure),
        };
        match result {
            Ok(status) => report.status = status,
            Err(failure) => {
                report.status = Status::Failed;
                report.failure = Some(failure);
            }
        }
        report
    }

    /// The stale-read guard: how the file differs from the content its writer read, when
    /// a [`ReadHash`] was given for it and the file no longer has it.
    fn changed_since_read(&mut self, path: &RelPath, fe: &FileEdit) -> Result<Option<String>, Failure> {
        let given = self.read_hashes.get(path).copied();
        let wanted: Vec<ReadHash> = fe.read_hash.into_iter().chain(given).collect();
        if wanted.is_empty() {
            return Ok(None);
        }
        let i = self.slot(path)?;
        // The file as it is on the store, before any operation of this plan.
        let now = hash_now(path, &self.slots[i].original)?;
        Ok(wanted.into_iter().find(|want| now != Ok(*want)).map(|want| match now {
            Ok(now) => format!("it was read as {}, it is now {}", short_hash(want), short_hash(now)),
            Err(gone) => format!("it was read as {}; {gone}", short_hash(want)),
        }))
    }

    /// A file operation on a file that changed since it was read (`changed` says how):
    /// tried with exact matching only, then applied ([`StaleRead::ExactOnly`], when every
    /// edit matched exactly), found already applied (whatever the policy: nothing is
    /// written) or refused, saying whether the edits still match exactly and
    /// where not. A refused trial leaves no trace in the plan's state.
    fn run_changed(
        &mut self,
        path: &RelPath,
        fe: &FileEdit,
        changed: &str,
        ov: Overrides<'_>,
        report: &mut FileReport,
    ) -> Result<Status, Failure> {
        let before: Vec<Held> = self.slots.iter().map(|slot| slot.current.clone()).collect();
        let gone = self.gone.take();
        let trial = self.run(path, &fe.op, Overrides { strict: true, ..ov }, report);
        let failed_edit = report.edits.iter().find_map(|e| e.failure.clone().filter(|_| e.status == Status::Failed));
        let exact = trial.as_ref().is_ok_and(|&status| status != Status::Failed) && failed_edit.is_none();
        // Already applied writes nothing, so it cannot lose anyone's newer work: a retry of
        // a patch whose reply was lost is told so, whatever the policy.
        let done = trial.as_ref().is_ok_and(|&status| status == Status::AlreadyApplied)
            && report.edits.iter().all(|e| e.status == Status::AlreadyApplied);
        if exact && (done || self.stale_read == StaleRead::ExactOnly) {
            let what = if done { "this edit is already in it" } else { "this edit matched it exactly" };
            let note = format!("`{path}` changed since it was read ({changed}); {what}");
            for edit in &mut report.edits {
                edit.notes.push(note.clone());
            }
            return trial;
        }
        let known = before.len();
        for (slot, held) in self.slots.iter_mut().zip(before) {
            slot.current = held;
        }
        // The paths the trial read first (a move's destination): as read.
        for slot in &mut self.slots[known..] {
            slot.current = slot.original.clone();
        }
        self.gone = gone;
        report.edits.clear();
        let message = format!("`{path}` changed since it was read: {changed}");
        Err(if exact {
            Failure::new(
                FailureKind::ChangedSinceRead,
                format!("{message}; every edit still matches it exactly"),
                "read the file again and check that the edit still fits it; to apply edits that match a changed \
                 file exactly, allow it (`--stale-read exact`, `StaleRead::ExactOnly`)",
            )
        } else {
            let why = failed_edit.or_else(|| trial.err());
            let mut failure = Failure::new(
                FailureKind::ChangedSinceRead,
                match &why {
                    Some(why) => format!("{message}; the patch does not match it exactly: {}", why.message),
                    None => message,
                },
                "read the file again and write the edit against its current content",
            );
            if let Some(why) = why {
                failure.closest = why.closest;
                failure.candidates = why.candidates;
                failure.candidates_total = why.candidates_total;
                failure.candidate_scores = why.candidate_scores;
            }
            failure
        })
    }

    fn run(
        &mut self,
        path: &RelPath,
        op: &FileOp,
        ov: Overrides<'_>,
        report: &mut FileReport,
    ) -> Result<Status, Failure> {
        match op {
            FileOp::Create { content, newline, if_exists, mode } => {
                let bytes = match (content, newline) {
                    (Content::Text(t), Some(nl)) if *nl != Newline::Lf => {
                        encode_lossless(&t.replace('\n', nl.as_str())).into_owned()
                    }
                    _ => content.as_bytes().to_vec(),
                };
                let i = self.slot(path)?;
                let slot = &mut self.slots[i];
                let status = match &slot.current {
                    Held::Missing => Status::Applied,
                    Held::File { bytes: old, .. } => {
                        let identical = *old == bytes;
                        if !identical {
                            // Lazy text over a file is the finding that says what to do,
                            // whether or not the create may overwrite.
                            crate::apply::elision::check_whole(old.as_bytes(), &bytes)?;
                        }
                        match if_exists {
                            IfExists::Overwrite if identical => Status::AlreadyApplied,
                            IfExists::Overwrite => Status::Applied,
                            IfExists::ErrorUnlessIdentical if identical => Status::AlreadyApplied,
                            IfExists::ErrorUnlessIdentical | IfExists::Error => {
                                return Err(Failure::new(
                                    FailureKind::FileExists,
                                    format!("cannot create `{path}`: a file with other content exists"),
                                    "update the existing file instead, or choose another path",
                                ));
                            }
                        }
                    }
                    Held::Directory | Held::Other => return Err(not_a_file(path, "create")),
                };
                let old_mode = match &slot.current {
                    Held::File { mode, .. } => *mode,
                    _ => None,
                };
                slot.current = Held::File { bytes: FileBytes::from(bytes), mode: mode.or(old_mode) };
                Ok(status)
            }
            FileOp::Binary(b) => self.binary(path, b),
            FileOp::Delete { if_missing, expect } => {
                let i = self.slot(path)?;
                let slot = &mut self.slots[i];
                match &slot.current {
                    Held::File { bytes, .. } => {
                        if let Some(expect) = expect {
                            check_expect(path, bytes, expect)?;
                        }
                        slot.current = Held::Missing;
                        Ok(Status::Applied)
                    }
                    Held::Missing => match if_missing {
                        IfMissing::Skip => Ok(Status::Skipped),
                        IfMissing::Error | IfMissing::Create => {
                            self.gone = Some((missing(path, "delete"), false));
                            Ok(Status::AlreadyApplied)
                        }
                    },
                    Held::Directory | Held::Other => Err(not_a_file(path, "delete")),
                }
            }
            FileOp::Replace { content, create_if_missing, follow_file } => {
                let i = self.slot(path)?;
                let slot = &mut self.slots[i];
                let content = match (&slot.current, content) {
                    (Held::File { bytes, .. }, Content::Text(text)) if *follow_file => {
                        Content::Bytes(in_conventions_of(bytes, text))
                    }
                    _ => content.clone(),
                };
                let mode = match &slot.current {
                    Held::File { bytes, .. } if *bytes == *content.as_bytes() => {
                        return Ok(Status::AlreadyApplied);
                    }
                    Held::File { bytes, mode } => {
                        crate::apply::elision::check_whole(bytes.as_bytes(), &content.as_bytes())?;
                        *mode
                    }
                    Held::Missing if *create_if_missing => {
                        // What happened is a creation: the report says so.
                        report.operation = FileOperation::Create;
                        None
                    }
                    Held::Missing => return Err(missing(path, "replace")),
                    Held::Directory | Held::Other => return Err(not_a_file(path, "replace")),
                };
                slot.current = Held::File { bytes: FileBytes::from(content.as_bytes().into_owned()), mode };
                Ok(Status::Applied)
            }
            FileOp::Modify(m) => self.modify(path, m, ov, report),
        }
    }

    fn modify(
        &mut self,
        path: &RelPath,
        m: &Modify,
        ov: Overrides<'_>,
        report: &mut FileReport,
    ) -> Result<Status, Failure> {
        let source = match &m.copy_from {
            Some(from) => self.resolve(from)?,
            None => path.clone(),
        };
        let dest = match &m.move_to {
            Some(to) => {
                let to = self.resolve(to)?;
                report.moved_to = Some(to.to_string());
                to
            }
            None => path.clone(),
        };
        let i = self.slot(&source)?;
        // Shared with the slot: the file's lines below are ranges of this one copy.
        let (blob, mode) = match &self.slots[i].current {
            Held::File { bytes, mode } => (bytes.clone(), *mode),
            Held::Missing if m.if_missing == IfMissing::Skip => return Ok(Status::Skipped),
            // Created: the edits start from an empty file (SEARCH/REPLACE's empty SEARCH).
            Held::Missing if m.if_missing == IfMissing::Create && dest == source && m.copy_from.is_none() => {
                (FileBytes::from(Vec::new()), None)
            }
            Held::Missing if dest != source && m.copy_from.is_none() => {
                return self.moved_already(&dest, m, ov, report, missing(&source, "update"));
            }
            Held::Missing => return Err(missing(&source, "update")),
            Held::Directory | Held::Other => return Err(not_a_file(&source, "update")),
        };
        let bytes = blob.as_bytes();
        // One hash of the file serves both of the diff's ids.
        let file_id = (m.preimage.is_some() || m.postimage.is_some()).then(|| git_blob_id(bytes));
        let names = |id: &str| file_id.as_deref().is_some_and(|f| id_names(id, f, bytes.is_empty()));
        let patched = m.postimage.as_deref().is_some_and(names);
        let new_bytes = if patched {
            report.edits = (m.edits.iter().enumerate())
                .map(|(i, e)| EditReport {
                    index: i + 1,
                    label: e.label.clone(),
                    status: Status::AlreadyApplied,
                    tier: None,
                    confidence: None,
                    lines: None,
                    failure: None,
                    notes: Vec::new(),
                })
                .collect();
            blob.clone()
        } else if m.edits.is_empty() && !m.post.strip_trailing_whitespace && m.final_newline.is_none() {
            blob.clone()
        } else {
            // A diff is applied as git applies it, byte for byte, also to a file that is not
            // UTF-8 (Latin-1, say) or with a patch that is not: exact matching on bytes,
            // line numbers free to drift. The lenient tiers compare text, so they are off.
            // A lazy edit's sketch reads lines as git does (a lone `\r` is text) but is text
            // merged by likeness, not a diff: a file or snippet that is not UTF-8 is refused
            // for it as in every text dialect (matched by bytes alone, a snippet line that
            // ends in `\r` was written as a `\r\n` that the same snippet no longer matched).
            let git = m.line_breaks == LineBreaks::LfOrCrLf
                && !m.edits.iter().any(|e| matches!(e.target, Target::Sketch { .. }));
            let utf8 = blob.text();
            let mut raw_patch = m.edits.iter().any(holds_raw);
            // A text dialect's patch holding characters that stand for bytes which make
            // UTF-8 (a character of U+10FF80..=U+10FFFF in a caller's text, escaped by
            // `decode_lossless`) is matched as that text in a UTF-8 file, and written so.
            let as_text_plan: Modify;
            let m = match (raw_patch && !git && utf8.is_some()).then(|| m.edits.iter().map(as_text).collect()) {
                Some(Some(edits)) => {
                    raw_patch = false;
                    as_text_plan = Modify { edits, ..m.clone() };
                    &as_text_plan
                }
                _ => m,
            };
            let byte_exact = git && (utf8.is_none() || raw_patch);
            let mut text = if byte_exact {
                blob.lossless_lines(m.line_breaks)
            } else if let Some(shared) = utf8.filter(|_| !raw_patch) {
                TextFile::parse_shared(shared, m.line_breaks)
            } else {
                let (what, todo) = if utf8.is_some() {
                    (
                        "the patch holds bytes that are not UTF-8, or a character of U+10FF80..=U+10FFFF (the \
                         range that stands for such bytes), and this dialect matches text",
                        "write the patch in UTF-8 without such characters, or as a unified diff (applied byte for \
                         byte, as git does)",
                    )
                } else {
                    (
                        "it is not UTF-8 text (Latin-1 or another encoding), and this dialect matches text",
                        "write the change as a unified diff (applied byte for byte, as git does), or convert the file to UTF-8; for a binary file, use a whole-file replacement or a binary patch",
                    )
                };
                return Err(Failure::new(FailureKind::NotText, format!("cannot edit `{source}`: {what}"), todo));
            };
            // git reads a byte order mark as bytes of the first line: a diff that shows it
            // on its old side is applied to those bytes (so it can keep, drop or move it);
            // bytes that are not UTF-8 are all taken as they are.
            let bom_is_text = git && text.bom && (byte_exact || shows_bom(&m.edits));
            if bom_is_text {
                text.bom = false;
                if let Some(first) = text.lines().first() {
                    text.set_text(0, &format!("{BOM}{}", first.text));
                }
            }
            let ended_with_newline = text.ends_with_newline();
            let marked_twice = text.bom && text.lines().first().is_some_and(|l| l.text.starts_with(BOM));
            let ov = Overrides {
                fresh: m.preimage.as_deref().is_some_and(names),
                adds_final_newline: m.final_newline == Some(true),
                strict: ov.strict || byte_exact,
                neighbour_ends: m.new_line_ends == NewLineEnds::Neighbour,
                ..ov
            };
            report.edits = modify(&mut text, &m.edits, ov, source.as_str());
            if report.edits.iter().any(|e| e.status == Status::Failed) {
                if byte_exact {
                    let why = if utf8.is_some() { "the patch" } else { "the file" };
                    for failure in report.edits.iter_mut().filter_map(|e| e.failure.as_mut()) {
                        only_bytes_matched(failure, why);
                    }
                }
                // The failed edits carry the reasons; the file is failed with them.
                return Ok(Status::Failed);
            }
            // The file's byte order mark stays the file's, once: a new first line that
            // brings its own (a patch that copied the mark) does not add a second one.
            if let Some(first) = text.lines().first().filter(|_| text.bom && !marked_twice) {
                let marks = first.text.len() - first.text.trim_start_matches(BOM).len();
                if marks > 0 {
                    let kept = first.text[marks..].to_string();
                    text.set_text(0, &kept);
                }
            }
            // Post-processing belongs to a file the edits changed: a re-run touches nothing.
            let edited = m.edits.is_empty() || report.edits.iter().any(|e| e.status == Status::Applied);
            if m.post.strip_trailing_whitespace && edited {
                for i in 0..text.len() {
                    let keep = text.line(i).text.trim_end_matches([' ', '\t']).len();
                    text.truncate_text(i, keep);
                }
            }
            let neighbour = m.new_line_ends == NewLineEnds::Neighbour;
            fix_line_ends(&mut text, m.final_newline.unwrap_or(ended_with_newline), neighbour);
            // Kept as lines until written: most are still ranges of the file's text.
            FileBytes::from_lines(text, byte_exact)
        };
        let differs = new_bytes != blob;
        let changed = differs || dest != source || m.mode.is_some_and(|md| Some(md) != mode);
        // The file as read, edited in place: that comparison is the one the changes make.
        let from_original = matches!(&self.slots[i].original, Held::File { bytes, .. } if bytes.is_same_content(&blob));
        drop(blob);
        let compared = (from_original && dest == source).then(|| (new_bytes.clone(), !differs));
        let new_entry = Held::File { bytes: new_bytes, mode: m.mode.or(mode) };
        if dest == source {
            self.slots[i].current = new_entry;
            self.slots[i].compared = compared;
        } else {
            if m.copy_from.is_none() {
                self.slots[i].current = Held::Missing;
            }
            let d = self.slot(&dest)?;
            let what = if m.copy_from.is_some() { "copy to" } else { "move to" };
            match (&self.slots[d].current, &new_entry) {
                (Held::Directory | Held::Other, _) => return Err(not_a_file(&dest, what)),
                (Held::File { bytes: existing, .. }, Held::File { bytes: result, .. }) => {
                    let refuse = match m.if_dest_exists {
                        IfExists::Overwrite => false,
                        IfExists::ErrorUnlessIdentical => existing != result,
                        IfExists::Error => true,
                    };
                    if refuse {
                        return Err(Failure::new(
                            FailureKind::FileExists,
                            format!("cannot {what} `{dest}`: a file with other content exists there"),
                            "choose another destination, or delete that file first in the same patch",
                        ));
                    }
                }
                _ => {}
            }
            self.slots[d].current = new_entry;
        }
        let all_done = report.edits.iter().all(|e| e.status == Status::AlreadyApplied);
        let all_skipped = !report.edits.is_empty() && report.edits.iter().all(|e| e.status == Status::Skipped);
        Ok(if changed {
            Status::Applied
        } else if all_skipped {
            Status::Skipped
        } else if all_done {
            Status::AlreadyApplied
        } else {
            Status::Applied
        })
    }

    /// A move whose source is missing: done already if its destination holds the result
    /// (the edits, applied there, change nothing), provided the rest of the plan is done
    /// already too ([`settle_gone`]); else `failure`, the source missing.
    fn moved_already(
        &mut self,
        dest: &RelPath,
        m: &Modify,
        ov: Overrides<'_>,
        report: &mut FileReport,
        failure: Failure,
    ) -> Result<Status, Failure> {
        let d = self.slot(dest)?;
        let held = self.slots[d].current.clone();
        if !matches!(held, Held::File { .. }) {
            return Err(failure);
        }
        let in_place = Modify { move_to: None, copy_from: None, ..m.clone() };
        let moved_to = report.moved_to.take();
        let status = self.modify(dest, &in_place, ov, report);
        report.moved_to = moved_to;
        if matches!(status, Ok(Status::AlreadyApplied)) && self.slots[d].current == held {
            self.gone = Some((failure, !m.edits.is_empty()));
            return Ok(Status::AlreadyApplied);
        }
        self.slots[d].current = held;
        report.edits.clear();
        Err(failure)
    }

    fn binary(&mut self, path: &RelPath, b: &BinaryEdit) -> Result<Status, Failure> {
        let i = self.slot(path)?;
        let slot = &mut self.slots[i];
        let (base, mode): (&[u8], Option<u32>) = match &slot.current {
            Held::File { bytes, mode } => (bytes.as_bytes(), *mode),
            Held::Missing if b.create => (&[], None),
            Held::Missing => return Err(missing(path, "patch")),
            Held::Directory | Held::Other => return Err(not_a_file(path, "patch")),
        };
        let exists = matches!(slot.current, Held::File { .. });
        let new_mode = b.mode.or(mode);
        if exists && b.new_id.as_deref().is_some_and(|id| blob_id_matches(id, base)) && new_mode == mode {
            return Ok(Status::AlreadyApplied);
        }
        if let Some(id) = &b.old_id
            && !blob_id_matches(id, base)
        {
            return Err(Failure::new(
                FailureKind::NotFound,
                format!(
                    "cannot patch `{path}`: the binary patch was made for blob {id}, the file is blob {}",
                    short_id(&git_blob_id(base))
                ),
                "the file is not the version the binary patch was made from; regenerate the patch against it",
            ));
        }
        let bytes = match &b.data {
            BinaryData::Literal(bytes) => bytes.clone(),
            BinaryData::Delta(delta) => apply_git_delta(base, delta).map_err(|e| {
                Failure::new(
                    FailureKind::NotFound,
                    format!("cannot patch `{path}`: {e}"),
                    "the file is not the version the binary patch was made from; regenerate the patch against it",
                )
            })?,
        };
        if let Some(id) = &b.new_id
            && !blob_id_matches(id, &bytes)
        {
            return Err(Failure::new(
                FailureKind::InvalidPlan,
                format!("cannot patch `{path}`: the binary patch's result is not blob {id}"),
                "the binary data is damaged; regenerate the patch with `git diff --binary`",
            ));
        }
        slot.current = Held::File { bytes: FileBytes::from(bytes), mode: new_mode };
        Ok(Status::Applied)
    }

    /// The changes between the original and the current state, in first-touch order; the
    /// new contents move into them (a copy only where the original shares one).
    fn into_changes(self) -> Vec<Change> {
        let mut out = Vec::new();
        for Slot { path, original, current, compared } in self.slots {
            let kind = match (original, current) {
                (Held::File { bytes: a, mode: ma }, Held::File { bytes: b, mode: mb }) => {
                    let same = match compared {
                        Some((known, same)) if known.is_same_content(&b) => same,
                        _ => a == b,
                    };
                    if same && ma == mb {
                        continue;
                    }
                    ChangeKind::Write { bytes: b, mode: if ma == mb { None } else { mb } }
                }
                (_, Held::File { bytes, mode }) => ChangeKind::Write { bytes, mode },
                (Held::File { .. }, Held::Missing) => ChangeKind::Delete,
                _ => continue,
            };
            out.push(Change { path, kind });
        }
        out
    }
}

/// The longest file name (one path component) most file systems take, in bytes.
const NAME_MAX: usize = 255;

/// A file that could not be read, with the reason in words and what to do about it.
fn read_failure(path: &RelPath, e: &std::io::Error) -> Failure {
    use std::io::ErrorKind as K;
    let (why, todo) = match e.kind() {
        K::PermissionDenied => (
            "permission denied: the file, or a folder on its path, may not be read".to_string(),
            "make the file readable (and its folders searchable) for this user, or apply as a user that may read it",
        ),
        K::InvalidFilename => {
            let long = path.components().find(|c| c.len() > NAME_MAX);
            let why = match long {
                Some(c) => format!(
                    "the name is too long: a path component is {} bytes, over the {NAME_MAX}-byte limit of a file name",
                    c.len()
                ),
                None => {
                    "the path is too long, or holds a character this file system does not allow in a name".to_string()
                }
            };
            (why, "use a shorter name: each component of a path at most 255 bytes")
        }
        K::IsADirectory => ("it is a directory".to_string(), "name a regular file"),
        K::NotADirectory => (
            "a component of the path is a file, not a folder".to_string(),
            "check the path's folders against the project",
        ),
        K::NotFound => ("the file vanished while it was read".to_string(), "run the command again"),
        K::Interrupted | K::WouldBlock | K::TimedOut => {
            (format!("the read was interrupted ({e})"), "run the command again")
        }
        _ => (e.to_string(), "check that the file exists, is a regular file and can be read"),
    };
    Failure::new(FailureKind::Io, format!("cannot read `{path}`: {why}"), todo)
}

/// `edit` with its characters that stand for bytes (U+10FF80..=U+10FFFF, see
/// [`decode_lossless`](crate::text::lines::decode_lossless)) turned into the text those
/// bytes are, when they are UTF-8; `None` when some are not.
fn as_text(edit: &Edit) -> Option<Edit> {
    let utf8 = |s: &str| String::from_utf8(encode_lossless(s).into_owned()).ok();
    let text = |s: &mut String| {
        *s = utf8(s)?;
        Some(())
    };
    let lines = |l: &mut Vec<LineText>| {
        l.iter_mut().try_for_each(|line| {
            *line = LineText::from(utf8(line)?);
            Some(())
        })
    };
    let mut out = edit.clone();
    match &mut out.target {
        Target::Lines(l) => lines(l)?,
        Target::Range { start, end } => {
            lines(start)?;
            lines(end)?;
        }
        Target::Text(t) => text(t)?,
        _ => {}
    }
    match &mut out.action {
        Action::Replace(r) => {
            lines(&mut r.lines)?;
            if let Some(t) = &mut r.text {
                text(t)?;
            }
        }
        Action::InsertBefore { lines: l } | Action::InsertAfter { lines: l } => lines(l)?,
        _ => {}
    }
    Some(out)
}

/// Whether an edit's text holds bytes that are not UTF-8 (a diff read with
/// [`decode_lossless`](crate::text::lines::decode_lossless)).
fn holds_raw(edit: &Edit) -> bool {
    let lines = |l: &[LineText]| l.iter().any(|l| holds_raw_bytes(l));
    let target = match &edit.target {
        Target::Lines(l) => lines(l),
        Target::Range { start, end } => lines(start) || lines(end),
        Target::Text(t) => holds_raw_bytes(t),
        Target::StartOfFile | Target::EndOfFile | Target::Sketch { .. } => false,
    };
    target
        || match &edit.action {
            Action::Replace(r) => lines(&r.lines) || r.text.as_deref().is_some_and(holds_raw_bytes),
            Action::InsertBefore { lines: l } | Action::InsertAfter { lines: l } => lines(l),
            _ => false,
        }
}

/// A failure of a byte-for-byte match: says that only exact bytes could be matched, and
/// shows bytes that are not UTF-8 as `\xNN`.
fn only_bytes_matched(failure: &mut Failure, not_utf8: &str) {
    failure.message = format!(
        "{}; {not_utf8} is not UTF-8 text, so only exact byte matching was possible (no whitespace, \
         indentation or typo tolerance)",
        show_raw_bytes(&failure.message)
    );
    failure.next_step =
        format!("{}; the lines must match the file byte for byte, in its own encoding", failure.next_step);
    if let Some(closest) = &mut failure.closest {
        closest.diff = show_raw_bytes(&closest.diff).into_owned();
    }
}

/// A byte order mark, as text.
const BOM: char = '\u{feff}';

/// Whether some edit's lines to find start with a byte order mark: a diff made from the
/// file's bytes, mark included.
fn shows_bom(edits: &[Edit]) -> bool {
    edits.iter().any(|e| match &e.target {
        Target::Lines(lines) | Target::Range { start: lines, .. } => lines.first().is_some_and(|l| l.starts_with(BOM)),
        _ => false,
    })
}

/// Every line but the last ends with a terminator; the last one ends as the original
/// file's last line did (a missing final newline stays missing, a present one stays).
/// A line given a terminator here gets the file's most frequent one or, with `neighbour`
/// ([`NewLineEnds::Neighbour`]), that of the line before it, so each region of a file
/// that mixes `\n` and `\r\n` keeps its ending (and a diff that adds the final newline
/// after a `\n` line writes `\n`, as git does).
fn fix_line_ends(text: &mut TextFile, ended_with_newline: bool, neighbour: bool) {
    let Some(last) = text.len().checked_sub(1) else { return };
    // The file's own terminator is counted only when a line needs one.
    let open = |i: usize, eol: Eol| eol == Eol::None && (i < last || ended_with_newline);
    if text.any_unterminated(open) {
        let usual = text.dominant_eol();
        for i in 0..text.len() {
            if open(i, text.lines().eol(i)) {
                let near = i.checked_sub(1).filter(|_| neighbour);
                let eol = crate::apply::shape::neighbour_eol(text.lines(), near, usual);
                text.set_eol(i, eol);
            }
        }
    }
    if !ended_with_newline {
        text.set_eol(last, Eol::None);
    }
}

/// Checks that a file holds what an operation expects of it.
fn check_expect(path: &RelPath, blob: &FileBytes, expect: &Expect) -> Result<(), Failure> {
    let bytes = blob.as_bytes();
    let differs = |detail: String| {
        Failure::new(
            FailureKind::NotFound,
            format!("cannot delete `{path}`: {detail}"),
            "the file changed since the patch was made; read it again and regenerate the deletion",
        )
    };
    match expect {
        Expect::GitBlob(id) => {
            if blob_id_matches(id, bytes) {
                Ok(())
            } else {
                Err(differs(format!("the patch deletes blob {id}, the file is blob {}", short_id(&git_blob_id(bytes)))))
            }
        }
        Expect::Lines(want) => {
            // Compared as bytes, as git compares them (also for a file that is not UTF-8).
            let mut text = blob.lossless_lines(LineBreaks::LfOrCrLf);
            if let Some(first) = text.lines().first().filter(|_| text.bom) {
                text.set_text(0, &format!("{BOM}{}", first.text)); // git's line 1 holds the mark
            }
            let have: Vec<&str> = text.texts();
            if have == *want {
                return Ok(());
            }
            let first = have.iter().zip(want).position(|(h, w)| h != w).unwrap_or(have.len().min(want.len()));
            let mut failure = differs(format!(
                "its content differs from the lines the patch deletes (from line {}; the file has {} lines, the patch {})",
                first + 1,
                have.len(),
                want.len()
            ));
            let old = want.join("\n") + "\n";
            let new = have.join("\n") + "\n";
            // A deadline keeps the line diff of two large, very different files bounded
            // (past it, `similar` gives a coarser diff, still a correct one).
            let (shown, ratio) = crate::render::hunks::short_diff(
                &old,
                &new,
                1,
                ("patch", "file"),
                std::time::Duration::from_millis(200),
            );
            let shown = shown.lines().take(20).collect::<Vec<_>>().join("\n");
            failure.closest = Some(Closest {
                lines: LineRange::from_zero_based(0, have.len()),
                similarity: f64::from(ratio),
                diff: crate::apply::report::clip_excerpt(&shown),
            });
            Err(failure)
        }
    }
}

/// The stale-read guard's hash of a file as the store holds it, or why it has none (it is
/// gone, or no longer a file).
#[cfg(feature = "stale-read")]
#[allow(clippy::unnecessary_wraps)] // the same signature as without the feature
fn hash_now(_path: &RelPath, held: &Held) -> Result<Result<ReadHash, &'static str>, Failure> {
    Ok(match held {
        Held::File { bytes, .. } => Ok(ReadHash::of(bytes.as_bytes())),
        Held::Missing => Err("it no longer exists"),
        Held::Directory | Held::Other => Err("it is no longer a file"),
    })
}

/// Without the `stale-read` feature no hash is computed: a file given a [`ReadHash`] is
/// refused (never applied unchecked), whatever it holds.
#[cfg(not(feature = "stale-read"))]
fn hash_now(path: &RelPath, _held: &Held) -> Result<Result<ReadHash, &'static str>, Failure> {
    Err(Failure::new(
        FailureKind::InvalidPlan,
        format!(
            "`{path}` has a read hash to check (the stale-read guard), but this build of polypatch lacks the \
             `stale-read` feature that computes it"
        ),
        "build polypatch with the `stale-read` feature, or apply without read hashes",
    ))
}

/// A [`ReadHash`] as a failure shows it: `sha256:` and its first 12 digits.
fn short_hash(hash: ReadHash) -> String {
    format!("sha256:{}…", &hash.hex()[..12])
}

fn short_id(id: &str) -> &str {
    &id[..id.len().min(12)]
}

/// `text` (lines ended by `\n`) in the conventions of the file `bytes`: its usual line
/// terminator, and no final terminator when the file had none.
fn in_conventions_of(bytes: &FileBytes, text: &str) -> Vec<u8> {
    let file = bytes.lossless_lines(LineBreaks::LfOrCrLf);
    let text = match text.strip_suffix('\n') {
        Some(body) if !file.ends_with_newline() => body,
        _ => text,
    };
    let eol = file.dominant_eol();
    if eol == Eol::Lf {
        return encode_lossless(text).into_owned();
    }
    encode_lossless(&text.replace('\n', eol.as_str())).into_owned()
}

fn missing(path: &RelPath, what: &str) -> Failure {
    Failure::new(
        FailureKind::FileMissing,
        format!("cannot {what} `{path}`: the file does not exist"),
        "check the path against the project's files; to make a new file, use an add/create operation",
    )
}

fn not_a_file(path: &RelPath, what: &str) -> Failure {
    Failure::new(
        FailureKind::NotAFile,
        format!("cannot {what} `{path}`: it is a directory or not a regular file"),
        "name a regular file",
    )
}

/// Applies `plan` to `files`: everything is located and computed first, then written as
/// one transaction (unless `options.dry_run`). On failure nothing is written.
///
/// ```
/// use polypatch_core::{apply, ApplyOptions, Edit, EditPlan, FailureKind, FileEdit, MemoryFileSet};
///
/// let mut files = MemoryFileSet::new().with("a.txt", "one\n").with("b.txt", "two\n");
/// let plan = EditPlan::new("", vec![
///     FileEdit::modify("a.txt", vec![Edit::replace(["one"], ["1"])]),
///     FileEdit::modify("b.txt", vec![Edit::replace(["three"], ["3"])]), // not in the file
/// ]);
/// let err = apply(&plan, &mut files, &ApplyOptions::default()).unwrap_err();
/// assert_eq!(err.report.first_failure().unwrap().failure.kind, FailureKind::NotFound);
/// assert_eq!(files.get_str("a.txt"), Some("one\n")); // all or nothing
/// ```
pub fn apply<S: FileStore + ?Sized>(
    plan: &EditPlan,
    files: &mut S,
    options: &ApplyOptions,
) -> Result<ApplyReport, ApplyError> {
    let Computed { mut report, changes } = compute(plan, &*files, options)?;
    report.dry_run = options.dry_run;
    if !options.dry_run {
        if let Err(err) = files.commit(&changes) {
            return Err(ApplyError::commit_failed(report, err));
        }
        report.mark_committed();
    }
    Ok(report)
}

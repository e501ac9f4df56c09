//! Session health (the spec's §1 and §3): what several applies in one conversation did,
//! rendered as the `[SESSION CONTEXT]` block the editor model reads before its next patch,
//! and the §3 threshold table's advice per file: keep patching, or send the whole file.
//!
//! A [`Session`] counts, across applies:
//!
//! - **exchanges**: one per apply recorded ([`Session::record`]) and one per patch that
//!   did not parse ([`Session::record_format_invalid`]);
//! - **errors**: every failed block or file operation, and every malformed patch; not a
//!   block whose search was skipped because an earlier one had failed
//!   ([`FailureKind::SearchSkipped`]): nothing is known against it;
//! - **ambiguous matches**: the failures of kind [`FailureKind::Ambiguous`] (in all, and
//!   per file);
//! - **patches per file**: the blocks of a committed apply that changed the file (a file
//!   operation without blocks, `mode=replace` or a creation, counts as one);
//! - **% changed per file**: see [`FileHealth::percent_changed`].
//!
//! It is plain data (serde): a caller keeps it between applies wherever it likes (the CLI
//! keeps it in the JSON file given by `--session`).
//!
//! ```
//! use polypatch_applydiff::Session;
//!
//! let session = Session::new(20);
//! assert_eq!(
//!     session.render("add the parser"),
//!     "[SESSION CONTEXT]\n\
//!      Modified: none\n\
//!      Guidance: add the parser\n\
//!      Health: 0 errors, 0 ambiguous matches, exchange 0/20\n\
//!      [/SESSION CONTEXT]\n"
//! );
//! ```

use std::fmt::{self, Write as _};
use std::time::{Duration, Instant};

use polypatch_core::{ApplyReport, FailureKind, Status};
use serde::{Deserialize, Serialize};

/// The `max exchanges` of a session created without one: 20.
pub const DEFAULT_MAX_EXCHANGES: usize = 20;

/// The version of the serialized [`Session`]; a state of another version is refused.
pub const SESSION_VERSION: u32 = 1;

/// A saved session that cannot be read back.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The text is not a session's JSON.
    #[error("not a session state: {0}")]
    Invalid(#[from] serde_json::Error),
    /// The state was written by another version of the format.
    #[error("session state version {found}, expected {SESSION_VERSION}")]
    Version {
        /// The version the state says it has.
        found: u32,
    },
}

/// How long the line diff behind "% changed" may take for one file before it settles for
/// a coarser (larger) count.
const DIFF_DEADLINE: Duration = Duration::from_secs(1);

/// The health of one conversation's applies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Session {
    /// [`SESSION_VERSION`] when written.
    pub version: u32,
    /// Exchanges recorded so far.
    pub exchange: usize,
    /// The exchange budget shown after the slash (`exchange 3/20`).
    pub max_exchanges: usize,
    /// Failed blocks and file operations, and malformed patches.
    pub errors: usize,
    /// Ambiguous matches.
    pub ambiguous: usize,
    /// Every file an apply changed or failed on, in the order first seen.
    pub files: Vec<FileHealth>,
}

/// What a session did to one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FileHealth {
    /// The path, root-relative as the report gives it.
    pub path: String,
    /// Blocks applied to it (a file operation without blocks counts as one).
    pub patches: usize,
    /// Ambiguous matches of blocks on it.
    pub ambiguous: usize,
    /// Its line count when the session first changed it (0 for a file the session created).
    pub original_lines: usize,
    /// Lines changed from that original (see [`FileHealth::percent_changed`]).
    pub changed_lines: usize,
    /// A hash of each original line, to diff the current content against; `None` until
    /// the session first changes the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    baseline: Option<Vec<u64>>,
}

impl FileHealth {
    fn new(path: &str) -> FileHealth {
        FileHealth {
            path: path.to_string(),
            patches: 0,
            ambiguous: 0,
            original_lines: 0,
            changed_lines: 0,
            baseline: None,
        }
    }

    /// The share of the file changed since the session first changed it, in whole percent
    /// (rounded half up, at most 100): [`FileHealth::changed_lines`] over
    /// [`FileHealth::original_lines`].
    ///
    /// The changed lines are counted on a line diff of the original content against the
    /// current one: each run of differing lines between two equal ones counts as many
    /// lines as the larger of its sides (a line rewritten counts 1, three lines inserted
    /// 3, two removed 2). Line ends do not count (CRLF → LF changes nothing). A file the
    /// session created, or one it emptied or deleted, is 100 % changed.
    pub fn percent_changed(&self) -> usize {
        if self.changed_lines == 0 {
            return 0;
        }
        if self.original_lines == 0 {
            return 100;
        }
        // In 128 bits: the counts come from a state file, up to `usize::MAX`.
        let (changed, original) = (self.changed_lines as u128, self.original_lines as u128);
        ((200 * changed + original) / (2 * original)).min(100) as usize
    }

    /// Sets the original on first change and counts the lines changed since.
    fn update(&mut self, before: Option<&str>, after: Option<&str>) {
        let baseline = self.baseline.get_or_insert_with(|| hashes(before.unwrap_or("")));
        self.original_lines = baseline.len();
        let current = hashes(after.unwrap_or(""));
        self.changed_lines = changed_lines(baseline, &current);
    }
}

/// One file's content before and after an apply, as the caller read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileContents<'a> {
    /// The path as the report names it (for a move: the destination).
    pub path: &'a str,
    /// The content before the apply; `None` when the file did not exist.
    pub before: Option<&'a str>,
    /// The content after the apply; `None` when the file is gone.
    pub after: Option<&'a str>,
}

impl<'a> FileContents<'a> {
    /// `path`'s content before and after an apply (`None`: the file did not exist, or is
    /// gone).
    pub fn new(path: &'a str, before: Option<&'a str>, after: Option<&'a str>) -> Self {
        FileContents { path, before, after }
    }
}

impl Default for Session {
    fn default() -> Session {
        Session::new(DEFAULT_MAX_EXCHANGES)
    }
}

impl Session {
    /// An empty session with an exchange budget of `max_exchanges`.
    pub fn new(max_exchanges: usize) -> Session {
        Session { version: SESSION_VERSION, exchange: 0, max_exchanges, errors: 0, ambiguous: 0, files: Vec::new() }
    }

    /// A session saved with [`Session::to_json`].
    pub fn from_json(text: &str) -> Result<Session, SessionError> {
        let session: Session = serde_json::from_str(text)?;
        if session.version != SESSION_VERSION {
            return Err(SessionError::Version { found: session.version });
        }
        Ok(session)
    }

    /// The session as JSON (pretty-printed, ending with a line feed), for
    /// [`Session::from_json`].
    pub fn to_json(&self) -> String {
        // A struct of numbers, strings and vectors: serializing cannot fail.
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// The file at `path`, if the session has seen it.
    pub fn file(&self, path: &str) -> Option<&FileHealth> {
        self.files.iter().find(|f| f.path == path)
    }

    fn file_mut(&mut self, path: &str) -> &mut FileHealth {
        let at = if let Some(at) = self.files.iter().position(|f| f.path == path) {
            at
        } else {
            self.files.push(FileHealth::new(path));
            self.files.len() - 1
        };
        &mut self.files[at]
    }

    /// Records one apply: one exchange; its failures as errors (and ambiguous matches);
    /// when it was committed, the blocks applied per file and the lines changed, from
    /// `contents` (a file changed without an entry there keeps its previous count).
    ///
    /// A dry run changes nothing on disk: callers usually do not record it (recorded, it
    /// counts an exchange and its failures, and no patches).
    pub fn record(&mut self, report: &ApplyReport, contents: &[FileContents<'_>]) {
        // Counts saturate: a state file may hold any number, up to `usize::MAX`.
        self.exchange = self.exchange.saturating_add(1);
        for file in &report.files {
            let failures = file.failure.iter().chain(file.edits.iter().filter_map(|e| e.failure.as_ref()));
            for failure in failures.filter(|f| f.kind != FailureKind::SearchSkipped) {
                self.errors = self.errors.saturating_add(1);
                if failure.kind == FailureKind::Ambiguous {
                    self.ambiguous = self.ambiguous.saturating_add(1);
                    let health = self.file_mut(&file.path);
                    health.ambiguous = health.ambiguous.saturating_add(1);
                }
            }
            if !report.committed || file.status != Status::Applied {
                continue;
            }
            let path = file.moved_to.as_deref().unwrap_or(&file.path);
            if path != file.path
                && let Some(at) = self.files.iter().position(|f| f.path == file.path)
                && self.file(path).is_none()
            {
                self.files[at].path = path.to_string();
            }
            let applied = file.edits.iter().filter(|e| e.status == Status::Applied).count().max(1);
            let health = self.file_mut(path);
            health.patches = health.patches.saturating_add(applied);
            if let Some(c) = contents.iter().find(|c| c.path == path) {
                health.update(c.before, c.after);
            }
        }
    }

    /// Records a patch that did not parse ("Patch Format Invalid"): one exchange, one error.
    pub fn record_format_invalid(&mut self) {
        self.exchange = self.exchange.saturating_add(1);
        self.errors = self.errors.saturating_add(1);
    }

    /// The §3 advice for the file at `path` (plain `PATCH BLOCK` for a file the session
    /// has not seen).
    pub fn recommend(&self, path: &str) -> Recommendation {
        self.file(path).map_or(Recommendation { choice: FormatChoice::Patch, more_context: false }, recommend)
    }

    /// The `[SESSION CONTEXT]` block, in the spec's shape, ending with a line feed:
    ///
    /// ```text
    /// [SESSION CONTEXT]
    /// Modified: src/a.rs (2 patches, 15% changed), src/b.rs (1 patch, 3% changed)
    /// Guidance: <guidance>
    /// Health: 1 error, 0 ambiguous matches, exchange 3/20
    /// [/SESSION CONTEXT]
    /// ```
    ///
    /// `Modified:` lists the files with at least one patch, in the order first changed, or
    /// says `none`. Counts take the singular for 1 (`1 patch`, `1 error`, `1 ambiguous
    /// match`). Line breaks in `guidance` and in paths are written as `\n` and `\r`, so the
    /// block keeps its five lines; an empty guidance is written `none`.
    pub fn render(&self, guidance: &str) -> String {
        let modified: Vec<String> = self
            .files
            .iter()
            .filter(|f| f.patches > 0)
            .map(|f| {
                format!(
                    "{} ({}, {}% changed)",
                    flat(&f.path),
                    count(f.patches, "patch", "patches"),
                    f.percent_changed()
                )
            })
            .collect();
        let modified = if modified.is_empty() { "none".to_string() } else { modified.join(", ") };
        let guidance = if guidance.trim().is_empty() { "none".to_string() } else { flat(guidance) };
        format!(
            "[SESSION CONTEXT]\nModified: {modified}\nGuidance: {guidance}\nHealth: {}, {}, exchange {}/{}\n\
             [/SESSION CONTEXT]\n",
            count(self.errors, "error", "errors"),
            count(self.ambiguous, "ambiguous match", "ambiguous matches"),
            self.exchange,
            self.max_exchanges,
        )
    }

    /// One `Recommend:` line per file whose advice is more than a plain `PATCH BLOCK`, in
    /// the order first seen; empty when there is none. Shown after the block, which keeps
    /// the spec's shape:
    ///
    /// ```text
    /// Recommend: src/a.rs: WHOLE FILE mandatory (9 patches, 75% changed)
    /// Recommend: src/b.rs: PATCH with MORE context (5+ lines) (1 patch, 3% changed, 3 ambiguous matches)
    /// ```
    pub fn recommendations(&self) -> String {
        let mut out = String::new();
        for file in &self.files {
            let advice = recommend(file);
            if advice == (Recommendation { choice: FormatChoice::Patch, more_context: false }) {
                continue;
            }
            let _ = write!(
                out,
                "Recommend: {}: {advice} ({}, {}% changed",
                flat(&file.path),
                count(file.patches, "patch", "patches"),
                file.percent_changed()
            );
            if file.ambiguous > 0 {
                let _ = write!(out, ", {}", count(file.ambiguous, "ambiguous match", "ambiguous matches"));
            }
            out.push_str(")\n");
        }
        out
    }
}

/// The §3 table's format choice for a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FormatChoice {
    /// `<30% changed, <6 patches`: PATCH BLOCK, incremental repair optimal.
    Patch,
    /// `30-50% changed, 6-8 patches`: PATCH BLOCK (caution), approaching the threshold.
    PatchCaution,
    /// `50-70% changed, 8+ patches`: AI decides (warning), the transition zone.
    AiDecides,
    /// `>70% changed`: WHOLE FILE mandatory.
    WholeFile,
}

/// The §3 advice for one file: the format choice, and whether patches to it need more
/// context lines (the table's last row: 3+ ambiguous matches).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Recommendation {
    /// Patch, patch with caution, the model decides, or the whole file.
    pub choice: FormatChoice,
    /// 3 or more ambiguous matches on the file: write 5+ context lines (moot for a whole
    /// file).
    pub more_context: bool,
}

/// The §3 thresholds, on the whole percent shown in the block (`p`), the patch count
/// (`n`) and the file's ambiguous matches (`a`), the first row that holds deciding:
///
/// | condition | choice |
/// | :--- | :--- |
/// | `p > 70` | [`FormatChoice::WholeFile`] |
/// | `p >= 50` or `n >= 8` | [`FormatChoice::AiDecides`] |
/// | `p >= 30` or `n >= 6` | [`FormatChoice::PatchCaution`] |
/// | otherwise (`p < 30` and `n < 6`) | [`FormatChoice::Patch`] |
///
/// and `more_context` when `a >= 3`. The spec's ranges share their ends (30-50, 50-70);
/// each end belongs to the higher range, except 70, which is still "50-70" (the whole file
/// is mandatory *above* 70). The table puts 8+ patches in the "AI decides" row; §3's
/// trigger list names it with the whole-file triggers: the table, being the finer rule, is
/// followed. KEYSTONE files are not tracked.
fn recommend(file: &FileHealth) -> Recommendation {
    let (p, n) = (file.percent_changed(), file.patches);
    let choice = if p > 70 {
        FormatChoice::WholeFile
    } else if p >= 50 || n >= 8 {
        FormatChoice::AiDecides
    } else if p >= 30 || n >= 6 {
        FormatChoice::PatchCaution
    } else {
        FormatChoice::Patch
    };
    Recommendation { choice, more_context: file.ambiguous >= 3 }
}

impl fmt::Display for FormatChoice {
    /// The table's wording: `PATCH BLOCK`, `PATCH BLOCK (caution)`, `AI decides
    /// (warning)`, `WHOLE FILE mandatory`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FormatChoice::Patch => "PATCH BLOCK",
            FormatChoice::PatchCaution => "PATCH BLOCK (caution)",
            FormatChoice::AiDecides => "AI decides (warning)",
            FormatChoice::WholeFile => "WHOLE FILE mandatory",
        })
    }
}

impl fmt::Display for Recommendation {
    /// The choice; with more context: `PATCH with MORE context (5+ lines)` for a plain
    /// patch, the choice followed by `, with MORE context (5+ lines)` otherwise (nothing
    /// added to a whole file).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.choice, self.more_context) {
            (FormatChoice::Patch, true) => f.write_str("PATCH with MORE context (5+ lines)"),
            (FormatChoice::WholeFile, _) | (_, false) => write!(f, "{}", self.choice),
            (choice, true) => write!(f, "{choice}, with MORE context (5+ lines)"),
        }
    }
}

/// `n word` with the singular for 1.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `text` on one line: line feeds and carriage returns written as `\n` and `\r`.
fn flat(text: &str) -> String {
    text.replace('\n', "\\n").replace('\r', "\\r")
}

/// FNV-1a of each line (line ends dropped): stable across builds, unlike `std`'s hasher,
/// so a saved session diffs the same way tomorrow.
fn hashes(text: &str) -> Vec<u64> {
    text.lines()
        .map(|line| {
            line.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
        })
        .collect()
}

/// Lines changed from `old` to `new`: each run of differing lines counts the larger of its
/// sides.
fn changed_lines(old: &[u64], new: &[u64]) -> usize {
    let ops = similar::capture_diff_slices_deadline(
        similar::Algorithm::Myers,
        old,
        new,
        Some(Instant::now() + DIFF_DEADLINE),
    );
    let (mut total, mut removed, mut added) = (0, 0, 0);
    for op in ops {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            total += removed.max(added);
            (removed, added) = (0, 0);
        } else {
            removed += old_range.len();
            added += new_range.len();
        }
    }
    total + removed.max(added)
}

#[cfg(test)]
mod tests {
    use polypatch_core::{EditReport, Failure, FileReport, Tier};

    use super::*;

    fn edits(statuses: &[Status], failure: Option<FailureKind>) -> Vec<EditReport> {
        statuses
            .iter()
            .enumerate()
            .map(|(i, status)| {
                let mut edit = EditReport::new(i + 1, *status);
                edit.label = format!("block {}", i + 1);
                edit.tier = Some(Tier::Exact);
                edit.confidence = Some(1.0);
                edit.failure = (*status == Status::Failed)
                    .then(|| Failure::new(failure.unwrap_or(FailureKind::NotFound), "m", "n"));
                edit
            })
            .collect()
    }

    fn applied(path: &str, blocks: usize) -> ApplyReport {
        let mut file = FileReport::new(path, polypatch_core::FileOperation::Modify, Status::Applied);
        file.edits = edits(&vec![Status::Applied; blocks], None);
        let mut report = ApplyReport::new("applydiff", vec![file]);
        report.committed = true;
        report
    }

    fn failed(path: &str, kind: FailureKind) -> ApplyReport {
        let mut file = FileReport::new(path, polypatch_core::FileOperation::Modify, Status::Failed);
        file.edits = edits(&[Status::Applied, Status::Failed], Some(kind));
        ApplyReport::new("applydiff", vec![file])
    }

    /// `n` numbered lines.
    fn text(n: usize) -> String {
        (1..=n).fold(String::new(), |mut s, i| {
            let _ = writeln!(s, "line {i}");
            s
        })
    }

    /// `text(n)` with lines `1..=k` rewritten.
    fn changed(n: usize, k: usize) -> String {
        (1..=n).fold(String::new(), |mut s, i| {
            let _ = writeln!(s, "{} {i}", if i <= k { "new" } else { "line" });
            s
        })
    }

    /// A session holding one file of `n` lines with `k` changed by `patches` patches and
    /// `ambiguous` ambiguous matches.
    fn state(n: usize, k: usize, patches: usize, ambiguous: usize) -> Session {
        let mut session = Session::default();
        let health = session.file_mut("f.rs");
        health.update(Some(&text(n)), Some(&changed(n, k)));
        health.patches = patches;
        health.ambiguous = ambiguous;
        session
    }

    fn advice(n: usize, k: usize, patches: usize, ambiguous: usize) -> (FormatChoice, bool) {
        let r = state(n, k, patches, ambiguous).recommend("f.rs");
        (r.choice, r.more_context)
    }

    #[test]
    fn a_block_whose_search_was_skipped_is_no_error() {
        let mut session = Session::new(20);
        let mut report = failed("src/b.rs", FailureKind::NotFound);
        let mut skipped = EditReport::new(3, Status::Failed);
        skipped.failure = Some(Failure::new(FailureKind::SearchSkipped, "m", "n"));
        report.files[0].edits.push(skipped);
        session.record(&report, &[]);
        assert_eq!((session.errors, session.exchange), (1, 1));
    }

    #[test]
    fn the_block_has_the_spec_shape() {
        let mut session = Session::new(20);
        let (a0, a1, a2) = (text(20), changed(20, 2), changed(20, 3));
        let (b0, b1) = (text(100), changed(100, 3));
        session
            .record(&applied("src/a.rs", 1), &[FileContents { path: "src/a.rs", before: Some(&a0), after: Some(&a1) }]);
        session.record(&failed("src/b.rs", FailureKind::NotFound), &[]);
        session
            .record(&applied("src/b.rs", 1), &[FileContents { path: "src/b.rs", before: Some(&b0), after: Some(&b1) }]);
        session
            .record(&applied("src/a.rs", 1), &[FileContents { path: "src/a.rs", before: Some(&a1), after: Some(&a2) }]);
        assert_eq!(
            session.render("make the parser strict"),
            "[SESSION CONTEXT]\n\
             Modified: src/a.rs (2 patches, 15% changed), src/b.rs (1 patch, 3% changed)\n\
             Guidance: make the parser strict\n\
             Health: 1 error, 0 ambiguous matches, exchange 4/20\n\
             [/SESSION CONTEXT]\n"
        );
        assert_eq!(session.recommendations(), "");
        session.record(&failed("src/a.rs", FailureKind::Ambiguous), &[]);
        session.record_format_invalid();
        let block = session.render("line one\nline two\r\n");
        assert!(block.contains("\nGuidance: line one\\nline two\\r\\n\n"), "{block}");
        assert!(block.contains("\nHealth: 3 errors, 1 ambiguous match, exchange 6/20\n"), "{block}");
        assert_eq!(block.lines().count(), 5);
        assert!(session.render("  ").contains("\nGuidance: none\n"));
    }

    #[test]
    fn an_empty_session_modified_nothing() {
        let mut session = Session::new(5);
        session.record(&failed("x.rs", FailureKind::Ambiguous), &[]);
        session.record(&failed("x.rs", FailureKind::Ambiguous), &[]);
        assert_eq!(
            session.render("g"),
            "[SESSION CONTEXT]\nModified: none\nGuidance: g\nHealth: 2 errors, 2 ambiguous matches, exchange 2/5\n\
             [/SESSION CONTEXT]\n"
        );
        assert_eq!(session.file("x.rs").map(|f| (f.patches, f.ambiguous)), Some((0, 2)));
    }

    #[test]
    fn percent_changed_is_measured_against_the_original() {
        let mut session = Session::default();
        let (v0, v1, v2) = (text(10), changed(10, 3), changed(10, 1));
        session.record(&applied("a", 1), &[FileContents { path: "a", before: Some(&v0), after: Some(&v1) }]);
        assert_eq!(session.file("a").unwrap().percent_changed(), 30);
        // Changing lines back reduces the share: it is the distance from the original.
        session.record(&applied("a", 1), &[FileContents { path: "a", before: Some(&v1), after: Some(&v2) }]);
        let a = session.file("a").unwrap();
        assert_eq!((a.patches, a.original_lines, a.changed_lines, a.percent_changed()), (2, 10, 1, 10));
        // Insertions count their lines; a created file is all new; CRLF is no change.
        let inserted = format!("{v0}x\ny\nz\nw\n");
        session.record(&applied("b", 2), &[FileContents { path: "b", before: Some(&v0), after: Some(&inserted) }]);
        assert_eq!(session.file("b").unwrap().percent_changed(), 40);
        session.record(&applied("c", 1), &[FileContents { path: "c", before: None, after: Some("new\n") }]);
        assert_eq!(session.file("c").unwrap().percent_changed(), 100);
        let crlf = v0.replace('\n', "\r\n");
        session.record(&applied("d", 1), &[FileContents { path: "d", before: Some(&v0), after: Some(&crlf) }]);
        assert_eq!(session.file("d").unwrap().percent_changed(), 0);
        session.record(&applied("e", 1), &[FileContents { path: "e", before: Some(&v0), after: None }]);
        assert_eq!(session.file("e").unwrap().percent_changed(), 100);
        // 1 of 200 lines is 0.5 %, shown rounded half up.
        assert_eq!(state(200, 1, 1, 0).file("f.rs").unwrap().percent_changed(), 1);
        assert_eq!(state(201, 1, 1, 0).file("f.rs").unwrap().percent_changed(), 0);
    }

    #[test]
    fn a_dry_run_or_failed_apply_adds_no_patches() {
        let mut session = Session::default();
        let mut dry = applied("a", 2);
        dry.committed = false;
        dry.dry_run = true;
        session.record(&dry, &[]);
        assert_eq!(session.render("g").lines().nth(1), Some("Modified: none"));
        assert_eq!(session.exchange, 1);
    }

    #[test]
    fn a_move_keeps_the_history_under_the_new_name() {
        let mut session = Session::default();
        let (v0, v1) = (text(10), changed(10, 1));
        session.record(&applied("old.rs", 1), &[FileContents { path: "old.rs", before: Some(&v0), after: Some(&v1) }]);
        let mut moved = applied("old.rs", 1);
        moved.files[0].moved_to = Some("new.rs".into());
        session.record(&moved, &[FileContents { path: "new.rs", before: Some(&v1), after: Some(&v1) }]);
        assert!(session.file("old.rs").is_none());
        assert_eq!(session.file("new.rs").map(|f| (f.patches, f.percent_changed())), Some((2, 10)));
    }

    #[test]
    fn each_row_of_the_threshold_table() {
        use FormatChoice::{AiDecides, Patch, PatchCaution, WholeFile};
        // <30% changed, <6 patches.
        assert_eq!(advice(100, 0, 0, 0), (Patch, false));
        assert_eq!(advice(100, 29, 5, 0), (Patch, false));
        // 30-50% changed, 6-8 patches.
        assert_eq!(advice(100, 30, 0, 0), (PatchCaution, false));
        assert_eq!(advice(100, 49, 0, 0), (PatchCaution, false));
        assert_eq!(advice(100, 0, 6, 0), (PatchCaution, false));
        assert_eq!(advice(100, 0, 7, 0), (PatchCaution, false));
        // 50-70% changed, 8+ patches.
        assert_eq!(advice(100, 50, 0, 0), (AiDecides, false));
        assert_eq!(advice(100, 70, 0, 0), (AiDecides, false));
        assert_eq!(advice(100, 0, 8, 0), (AiDecides, false));
        assert_eq!(advice(100, 10, 30, 0), (AiDecides, false));
        // >70% changed.
        assert_eq!(advice(100, 71, 0, 0), (WholeFile, false));
        assert_eq!(advice(100, 100, 1, 5), (WholeFile, true));
        // 3+ ambiguous matches.
        assert_eq!(advice(100, 0, 1, 2), (Patch, false));
        assert_eq!(advice(100, 0, 1, 3), (Patch, true));
        assert_eq!(advice(100, 40, 1, 3), (PatchCaution, true));
        // A file never seen.
        assert_eq!(Session::default().recommend("nope"), Recommendation { choice: Patch, more_context: false });
    }

    #[test]
    fn recommendations_follow_the_block() {
        let show = |choice, more_context| Recommendation { choice, more_context }.to_string();
        assert_eq!(show(FormatChoice::Patch, false), "PATCH BLOCK");
        assert_eq!(show(FormatChoice::Patch, true), "PATCH with MORE context (5+ lines)");
        assert_eq!(show(FormatChoice::PatchCaution, true), "PATCH BLOCK (caution), with MORE context (5+ lines)");
        assert_eq!(show(FormatChoice::AiDecides, false), "AI decides (warning)");
        assert_eq!(show(FormatChoice::WholeFile, true), "WHOLE FILE mandatory");
        let mut session = state(100, 75, 9, 0);
        session.files.push(state(100, 3, 1, 3).files.remove(0));
        session.files[1].path = "g.rs".into();
        session.files.push(state(100, 1, 1, 0).files.remove(0));
        session.files[2].path = "h.rs".into();
        assert_eq!(
            session.recommendations(),
            "Recommend: f.rs: WHOLE FILE mandatory (9 patches, 75% changed)\n\
             Recommend: g.rs: PATCH with MORE context (5+ lines) (1 patch, 3% changed, 3 ambiguous matches)\n"
        );
    }

    /// A state file is the user's to edit: counts up to the largest integer
    /// (`18446744073709551615`) stay there instead of overflowing (a panic in a build with
    /// overflow checks, a wrap to 0 without), and the share changed stays a percentage.
    #[test]
    fn counts_at_the_largest_integer_saturate() {
        let max = usize::MAX;
        let json = format!(
            "{{\"version\": 1, \"exchange\": {max}, \"max_exchanges\": {max}, \"errors\": {max}, \"ambiguous\": {max}, \
             \"files\": [{{\"path\": \"a.rs\", \"patches\": {max}, \"ambiguous\": {max}, \"original_lines\": {max}, \
             \"changed_lines\": {max}}}, {{\"path\": \"b.rs\", \"patches\": 1, \"ambiguous\": 0, \"original_lines\": {max}, \
             \"changed_lines\": 1}}]}}"
        );
        let mut session = Session::from_json(&json).unwrap();
        assert_eq!(session.file("a.rs").unwrap().percent_changed(), 100);
        assert_eq!(session.file("b.rs").unwrap().percent_changed(), 0);
        session.record(&failed("a.rs", FailureKind::Ambiguous), &[]);
        session.record(&applied("a.rs", 2), &[]);
        session.record_format_invalid();
        assert_eq!((session.exchange, session.errors, session.ambiguous), (max, max, max));
        assert_eq!(session.file("a.rs").map(|f| (f.patches, f.ambiguous)), Some((max, max)));
        assert_eq!(
            session.render("g").lines().nth(3),
            Some(format!("Health: {max} errors, {max} ambiguous matches, exchange {max}/{max}").as_str())
        );
    }

    #[test]
    fn the_state_round_trips() {
        let mut session = Session::new(7);
        let (v0, v1) = (text(10), changed(10, 2));
        session.record(&applied("a.rs", 2), &[FileContents { path: "a.rs", before: Some(&v0), after: Some(&v1) }]);
        session.record(&failed("a.rs", FailureKind::Ambiguous), &[]);
        let json = session.to_json();
        let back = Session::from_json(&json).unwrap();
        assert_eq!(back, session);
        assert_eq!(back.render("g"), session.render("g"));
        // The baseline survives: a later change is still measured against the original.
        let mut back = back;
        let v2 = changed(10, 5);
        back.record(&applied("a.rs", 1), &[FileContents { path: "a.rs", before: Some(&v1), after: Some(&v2) }]);
        assert_eq!(back.file("a.rs").unwrap().percent_changed(), 50);
        assert!(matches!(Session::from_json(r#"{"version":1}"#), Err(SessionError::Invalid(_))));
        assert!(matches!(Session::from_json("{not json"), Err(SessionError::Invalid(_))));
        let future = json.replacen("\"version\": 1", "\"version\": 2", 1);
        assert!(matches!(Session::from_json(&future), Err(SessionError::Version { found: 2 })));
        assert_eq!(Session::from_json(&future).unwrap_err().to_string(), "session state version 2, expected 1");
    }
}

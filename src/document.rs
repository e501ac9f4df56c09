//! The JSON document of an apply: the one contract the library, the command line and the
//! editor protocol share.
//!
//! Every document has `"version": 1` ([`JSON_VERSION`]) and a `status` ([`Outcome`]); the
//! rest depends on how far the run got: a `report` once edits were located, an `error` when
//! the patch or the request was malformed. Within a report, `applied` means written: a file
//! or edit that was located and would change, but was not written because the run was a
//! dry run or failed elsewhere, is [`Status::Located`].
//!
//! ```
//! use polypatch::{apply, parse, ApplyOptions, MemoryFileSet, report::ReportDocument};
//!
//! let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch\n";
//! let mut files = MemoryFileSet::new().with("a.txt", "one\n");
//! let plan = parse(patch, polypatch::Format::Auto).unwrap();
//! let doc = ReportDocument::of_result(&apply(&plan, &mut files, &ApplyOptions::default()));
//! let json = serde_json::to_value(&doc).unwrap();
//! assert_eq!(json["version"], 1);
//! assert_eq!(json["status"], "applied");
//! assert_eq!(json["report"]["files"][0]["status"], "applied");
//! ```

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use crate::reply::{BlockInfo, BlockReport, ReplyReport};
use crate::{ApplyError, ApplyReport, PatchError, ReplyError};
use polypatch_core::{DialectName, ErrorKind, Status};

/// The `version` of every JSON document polypatch writes. It changes only when a field
/// changes meaning or goes away; new fields may appear without a new version.
pub const JSON_VERSION: u32 = 1;

/// How a run ended: the document's `status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Outcome {
    /// Every edit was located and the changes were written.
    Applied,
    /// Every edit was already there; nothing needed to change.
    AlreadyApplied,
    /// Every edit was located; nothing was written on purpose.
    DryRun,
    /// Some edit could not be located (or writing failed); nothing was written.
    Failed,
    /// The patch could not be parsed; `error` says where.
    Malformed,
    /// The request itself was unusable (an unknown format, unreadable input, a malformed
    /// editor request); `error` says why.
    UsageError,
}

impl Outcome {
    /// The outcome of a successful run: [`Outcome::Applied`] only when the report was
    /// committed (its changes written), [`Outcome::DryRun`] when something would change
    /// but was not written (a dry run, [`crate::compute`]'s report, a report marked not
    /// written), else [`Outcome::AlreadyApplied`].
    pub fn of(report: &ApplyReport) -> Outcome {
        Self::of_changes(report.dry_run, report.committed, report.files.iter())
    }

    fn of_changes<'a>(
        dry_run: bool,
        committed: bool,
        mut files: impl Iterator<Item = &'a polypatch_core::FileReport>,
    ) -> Outcome {
        let changes = files.any(|f| matches!(f.status, Status::Applied | Status::Located));
        if dry_run || (changes && !committed) {
            Outcome::DryRun
        } else if changes {
            Outcome::Applied
        } else {
            Outcome::AlreadyApplied
        }
    }

    /// The name as written in JSON (`already_applied`).
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Applied => "applied",
            Outcome::AlreadyApplied => "already_applied",
            Outcome::DryRun => "dry_run",
            Outcome::Failed => "failed",
            Outcome::Malformed => "malformed",
            Outcome::UsageError => "usage_error",
        }
    }
}

/// The outcome in words, as messages say it: the JSON name with spaces (`already
/// applied`, `dry run`, `usage error`).
impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Outcome::AlreadyApplied => "already applied",
            Outcome::DryRun => "dry run",
            Outcome::UsageError => "usage error",
            other => other.name(),
        })
    }
}

/// One JSON document describing a run. Build it with [`ReportDocument::of_result`],
/// [`ReportDocument::malformed`] or [`ReportDocument::usage`], then add what the caller
/// has (warnings, a diff, feedback).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct ReportDocument {
    /// Always [`JSON_VERSION`].
    pub version: u32,
    /// How the run ended.
    pub status: Outcome,
    /// What happened to each file and edit, once the patch was parsed. `applied` means
    /// written; `located` means found but not written (a dry run, or a failed run).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub report: Option<ApplyReport>,
    /// Every edit was located, but writing the files failed with this message.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub commit_error: Option<String>,
    /// With `commit_error`: whether every file was restored (`false`: some may be half
    /// written, and the interrupted commit must be recovered).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub rolled_back: Option<bool>,
    /// Why the patch or the request was refused (`malformed`, `usage_error`).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub error: Option<DocumentError>,
    /// Things the parser accepted that the writer should fix.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Vec::is_empty"))]
    pub warnings: Vec<String>,
    /// What applying would change, as a git diff (the command line's `diff` verb).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub diff: Option<String>,
    /// The `ApplyDiff` spec's feedback text (§5), for `ApplyDiff` patches.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub feedback: Option<String>,
    /// The `ApplyDiff` session kept across applies (spec §1, §3), when one is kept.
    #[cfg(feature = "serde")]
    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub session: Option<SessionBlock>,
    /// For a chat reply or several patches applied as one transaction
    /// ([`crate::apply_text`]): each block, where it came from and its own report (then
    /// `report` is absent).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Vec::is_empty"))]
    pub blocks: Vec<BlockReport>,
}

/// Why a patch or a request was refused.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct DocumentError {
    /// The dialect whose parser refused the patch (`polypatch` for refusals before any
    /// dialect); absent for usage errors.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub dialect: Option<DialectName>,
    /// A stable, machine-readable kind (`syntax`, `unknown_format`, `not_utf8`, …); absent
    /// for usage errors.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub kind: Option<ErrorKind>,
    /// What is wrong and what to do.
    pub message: String,
    /// The 1-based line of the patch where the problem is, when known.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub line: Option<usize>,
    /// The 1-based column (in characters) on that line, when known.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub column: Option<usize>,
    /// For a block of a chat reply: the block (its `line` and `column` are in the reply).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub block: Option<BlockInfo>,
}

/// An `ApplyDiff` session as a document shows it.
#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct SessionBlock {
    /// The `[SESSION CONTEXT]` block as printed.
    pub context: String,
    /// The `Recommend:` lines, one per entry.
    pub recommendations: Vec<String>,
    /// The saved session state.
    pub state: serde_json::Value,
}

#[cfg(feature = "serde")]
impl SessionBlock {
    /// A session block from its parts.
    pub fn new(context: String, recommendations: Vec<String>, state: serde_json::Value) -> Self {
        SessionBlock { context, recommendations, state }
    }
}

impl ReportDocument {
    fn bare(status: Outcome) -> Self {
        ReportDocument {
            version: JSON_VERSION,
            status,
            report: None,
            commit_error: None,
            rolled_back: None,
            error: None,
            warnings: Vec::new(),
            diff: None,
            feedback: None,
            #[cfg(feature = "serde")]
            session: None,
            blocks: Vec::new(),
        }
    }

    /// The document of a successful run (applied, already applied, or a dry run).
    pub fn success(report: &ApplyReport) -> Self {
        ReportDocument { report: Some(located(report)), ..Self::bare(Outcome::of(report)) }
    }

    /// The document of a failed run: the report with the failures, and the write error
    /// when every edit was located but writing failed.
    pub fn failure(err: &ApplyError) -> Self {
        ReportDocument {
            commit_error: err.commit_error.as_ref().map(ToString::to_string),
            rolled_back: err.commit_error.as_ref().map(|_| err.rolled_back),
            ..Self::failed(&err.report)
        }
    }

    /// The document of a run that failed before anything was written: `report` carries
    /// the failures.
    pub fn failed(report: &ApplyReport) -> Self {
        ReportDocument { report: Some(located(report)), ..Self::bare(Outcome::Failed) }
    }

    /// The document of [`crate::apply`]'s or [`crate::compute`]'s result.
    pub fn of_result(result: &Result<ApplyReport, ApplyError>) -> Self {
        match result {
            Ok(report) => Self::success(report),
            Err(err) => Self::failure(err),
        }
    }

    /// The document of a patch that could not be parsed; `source` is the patch text the
    /// error's span points into (for the line and column).
    pub fn malformed(err: &PatchError, source: &str) -> Self {
        let (line, column) = err.line_col(source).unzip();
        let error = DocumentError {
            dialect: Some(err.dialect.clone()),
            kind: Some(err.kind.clone()),
            message: err.message.clone(),
            line,
            column,
            block: None,
        };
        ReportDocument { error: Some(error), ..Self::bare(Outcome::Malformed) }
    }

    /// The document of a chat reply (or several patches) applied as one transaction
    /// ([`crate::apply_text`]'s result): `blocks` carries each block's report.
    pub fn of_reply(result: &Result<ReplyReport, ReplyError>, reply: &str) -> Self {
        match result {
            Ok(report) => {
                let outcome = Outcome::of_changes(report.dry_run, report.committed, report.files().map(|(_, f)| f));
                ReportDocument { blocks: located_blocks(report), ..Self::bare(outcome) }
            }
            Err(ReplyError::NoPatch) => {
                let error = DocumentError {
                    dialect: None,
                    kind: Some(ErrorKind::NO_PATCH),
                    message: ReplyError::NoPatch.to_string(),
                    line: None,
                    column: None,
                    block: None,
                };
                ReportDocument { error: Some(error), ..Self::bare(Outcome::Malformed) }
            }
            Err(ReplyError::Malformed { block, error }) => {
                let mut doc = Self::malformed(error, reply);
                if let Some(err) = doc.error.as_mut() {
                    err.block = Some(block.clone());
                }
                doc
            }
            Err(ReplyError::NotApplied { report, commit_error, rolled_back }) => ReportDocument {
                blocks: located_blocks(report),
                commit_error: commit_error.as_ref().map(ToString::to_string),
                rolled_back: commit_error.as_ref().map(|_| *rolled_back),
                ..Self::bare(Outcome::Failed)
            },
        }
    }

    /// The document of a request that could not be carried out at all.
    pub fn usage(message: impl Into<String>) -> Self {
        let error =
            DocumentError { dialect: None, kind: None, message: message.into(), line: None, column: None, block: None };
        ReportDocument { error: Some(error), ..Self::bare(Outcome::UsageError) }
    }

    /// Builder: the parser's warnings.
    #[must_use]
    pub fn with_warnings(mut self, warnings: &[String]) -> Self {
        self.warnings = warnings.to_vec();
        self
    }

    /// Builder: the git diff of what applying changes.
    #[must_use]
    pub fn with_diff(mut self, diff: impl Into<String>) -> Self {
        self.diff = Some(diff.into());
        self
    }

    /// Builder: the `ApplyDiff` feedback text and session, each when there is one.
    #[cfg(feature = "serde")]
    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    #[must_use]
    pub fn with_extras(mut self, feedback: Option<String>, session: Option<SessionBlock>) -> Self {
        self.feedback = feedback;
        self.session = session;
        self
    }

    /// The document as one line of JSON, without a trailing newline.
    #[cfg(feature = "serde")]
    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    pub fn to_json(&self) -> String {
        // The types hold no maps with non-string keys and no non-finite floats the report
        // makes, so serializing cannot fail; should it ever, the text is still a document.
        serde_json::to_string(self).unwrap_or_else(|err| {
            let message = serde_json::Value::String(err.to_string());
            format!(r#"{{"version":{JSON_VERSION},"status":"usage_error","error":{{"message":{message}}}}}"#)
        })
    }

    /// The JSON Schema (draft 2020-12) of this document. Every object in it refuses
    /// properties it does not list, so a document with a field the schema lacks is invalid.
    #[cfg(feature = "schema")]
    #[cfg_attr(docsrs, doc(cfg(feature = "schema")))]
    pub fn schema() -> serde_json::Value {
        polypatch_core::closed_schema(&schemars::schema_for!(ReportDocument))
    }
}

/// The blocks of `report` as documents show them: [`located`] each block's report, and a
/// block `applied` in a run that was not committed is `located`.
fn located_blocks(report: &ReplyReport) -> Vec<BlockReport> {
    report
        .blocks
        .iter()
        .map(|block| {
            let mut block = block.clone();
            block.report.committed = report.committed;
            block.report.dry_run = report.dry_run;
            block.report = located(&block.report);
            if !report.committed && block.status == Status::Applied {
                block.status = Status::Located;
            }
            block
        })
        .collect()
}

/// `report` as documents show it: an operation or edit that is `Applied` in a report that
/// was not committed becomes `Located`. The library's own reports already say so
/// ([`crate::apply`] and [`crate::compute`] say `applied` only for what was written); this
/// is for a report built or changed by hand.
///
/// ```
/// use polypatch::report::{located, Status};
/// use polypatch::{apply, parse, ApplyOptions, Format, MemoryFileSet};
///
/// let plan = parse("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n", Format::Auto).unwrap();
/// let mut files = MemoryFileSet::new().with("a.txt", "one\n");
/// let mut report = apply(&plan, &mut files, &ApplyOptions::default().dry_run(true)).unwrap();
/// assert_eq!(report.files[0].status, Status::Located); // nothing was written
/// report.files[0].status = Status::Applied;
/// assert_eq!(located(&report).files[0].status, Status::Located);
/// ```
pub fn located(report: &ApplyReport) -> ApplyReport {
    let mut report = report.clone();
    if !report.committed {
        report.mark_not_written();
    }
    report
}

#[cfg(all(test, feature = "ai-patch"))]
mod tests {
    use super::*;
    use crate::{ApplyOptions, MemoryFileSet, apply, parse};

    const TWO: &str = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Update File: b.txt\n@@\n-two\n+TWO\n*** End Patch\n";

    #[test]
    fn a_file_located_in_a_failed_run_is_not_applied() {
        let mut files = MemoryFileSet::new().with("a.txt", "one\n").with("b.txt", "three\n");
        let plan = parse(TWO, crate::Format::Auto).unwrap();
        let doc = ReportDocument::of_result(&apply(&plan, &mut files, &ApplyOptions::default()));
        assert_eq!(doc.status, Outcome::Failed);
        let report = doc.report.unwrap();
        assert_eq!(report.files[0].status, Status::Located);
        assert_eq!(report.files[0].edits[0].status, Status::Located);
        assert_eq!(report.files[1].status, Status::Failed);
        assert_eq!(files.get_str("a.txt"), Some("one\n"));
    }

    #[test]
    fn a_dry_run_locates_and_a_real_run_applies() {
        let plan = parse(TWO, crate::Format::Auto).unwrap();
        let mut files = MemoryFileSet::new().with("a.txt", "one\n").with("b.txt", "two\n");
        let dry = ReportDocument::of_result(&apply(&plan, &mut files, &ApplyOptions::default().dry_run(true)));
        assert_eq!(dry.status, Outcome::DryRun);
        assert!(dry.report.unwrap().files.iter().all(|f| f.status == Status::Located));
        let real = ReportDocument::of_result(&apply(&plan, &mut files, &ApplyOptions::default()));
        assert_eq!(real.status, Outcome::Applied);
        assert!(real.report.unwrap().files.iter().all(|f| f.status == Status::Applied));
    }

    /// A report of changes that were not written is never `applied` nor `already_applied`:
    /// `compute`'s (whose `dry_run` is not set: it never writes), or one marked not written.
    #[test]
    fn a_report_of_changes_not_written_is_a_dry_run() {
        let plan = parse(TWO, crate::Format::Auto).unwrap();
        let files = MemoryFileSet::new().with("a.txt", "one\n").with("b.txt", "two\n");
        let computed = crate::compute(&plan, &files, &ApplyOptions::default()).unwrap();
        assert!(!computed.report.dry_run && !computed.report.committed);
        let doc = ReportDocument::success(&computed.report);
        assert_eq!(doc.status, Outcome::DryRun);
        assert!(doc.report.unwrap().files.iter().all(|f| f.status == Status::Located));

        let mut files = files;
        let mut report = apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
        assert_eq!(Outcome::of(&report), Outcome::Applied);
        report.mark_not_written();
        assert_eq!(Outcome::of(&report), Outcome::DryRun);
        let again = apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
        assert_eq!(Outcome::of(&again), Outcome::AlreadyApplied);
    }

    /// A malformed patch's document names its dialect and kind as types, with the JSON
    /// unchanged, and reads back equal.
    #[test]
    fn a_malformed_document_has_a_typed_dialect_and_kind_and_reads_back() {
        let text = "*** Begin Patch\n*** Frobnicate File: a.txt\n*** End Patch\n";
        let err = parse(text, crate::Format::AiPatch).unwrap_err();
        let doc = ReportDocument::malformed(&err, text);
        let error = doc.error.as_ref().unwrap();
        assert_eq!(error.dialect, Some(DialectName::new("ai-patch")));
        assert_eq!(error.kind, Some(crate::aipatch::error::INVALID_HEADER));
        let json = doc.to_json();
        assert!(json.contains(r#""error":{"dialect":"ai-patch","kind":"invalid_header","#), "{json}");
        let back: ReportDocument = serde_json::from_str(&json).unwrap();
        assert_eq!(back, doc);
    }

    #[test]
    fn outcomes_display_as_words_and_serialize_as_names() {
        let all = [
            (Outcome::Applied, "applied", "applied"),
            (Outcome::AlreadyApplied, "already applied", "already_applied"),
            (Outcome::DryRun, "dry run", "dry_run"),
            (Outcome::Failed, "failed", "failed"),
            (Outcome::Malformed, "malformed", "malformed"),
            (Outcome::UsageError, "usage error", "usage_error"),
        ];
        for (outcome, word, name) in all {
            assert_eq!((outcome.to_string().as_str(), outcome.name()), (word, name));
            assert_eq!(serde_json::to_value(outcome).unwrap(), name);
        }
    }

    #[test]
    fn version_comes_first_and_absent_parts_are_left_out() {
        let json = ReportDocument::usage("no such file").to_json();
        assert_eq!(json, r#"{"version":1,"status":"usage_error","error":{"message":"no such file"}}"#);
    }

    #[cfg(feature = "schema")]
    #[test]
    fn every_object_of_the_schema_is_closed() {
        let schema = ReportDocument::schema();
        assert_eq!(schema["additionalProperties"], false);
        let text = schema.to_string();
        assert!(text.contains("\"located\""), "the schema lacks the located status");
        assert!(!text.contains("\"additionalProperties\":true"));
    }
}

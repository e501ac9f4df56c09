//! Applying a plan: compute every file's new content in memory, then commit.

use serde::{Deserialize, Serialize};

use crate::fileset::{Change, FileSource, FileStore};
use crate::ir::EditPlan;
use crate::report::ApplyReport;

/// Options of an apply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ApplyOptions {
    /// Only exact matching, whatever the plan's policies allow.
    pub strict: bool,
    /// Locate and compute everything, write nothing.
    pub dry_run: bool,
    /// Overrides every edit's fuzzy threshold.
    pub fuzzy_threshold: Option<f64>,
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
}

/// The in-memory result of a plan: the report and the changes to write.
#[derive(Debug, Clone)]
pub struct Computed {
    /// What happened to each file and edit.
    pub report: ApplyReport,
    /// The writes and deletions, in order; empty when nothing changes.
    pub changes: Vec<Change>,
}

/// The plan could not be applied; nothing was written.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", summary(.report, .commit_error.as_deref()))]
pub struct ApplyError {
    /// What happened to each file and edit (the failed ones carry the reason).
    pub report: ApplyReport,
    /// Set when every edit was located but writing failed (and was rolled back).
    pub commit_error: Option<String>,
}

fn summary(report: &ApplyReport, commit: Option<&str>) -> String {
    if let Some(err) = commit {
        return format!("could not write the changes, nothing was changed: {err}");
    }
    match report.first_failure() {
        Some((file, Some(edit), failure)) => {
            let name = if edit.label.is_empty() { format!("edit {}", edit.index) } else { edit.label.clone() };
            format!("{}: {name}: {failure}", file.path)
        }
        Some((file, None, failure)) => format!("{}: {failure}", file.path),
        None => "the patch could not be applied".to_string(),
    }
}

/// Locates every edit of `plan` in `files` and computes the new contents, writing nothing.
pub fn compute<S: FileSource + ?Sized>(
    plan: &EditPlan,
    files: &S,
    options: &ApplyOptions,
) -> Result<Computed, ApplyError> {
    let _ = (plan, files, options);
    todo!()
}

/// Applies `plan` to `files`: everything is located and computed first, then written as
/// one transaction (unless `options.dry_run`). On failure nothing is written.
pub fn apply<S: FileStore + ?Sized>(
    plan: &EditPlan,
    files: &mut S,
    options: &ApplyOptions,
) -> Result<ApplyReport, ApplyError> {
    let Computed { mut report, changes } = compute(plan, &*files, options)?;
    report.dry_run = options.dry_run;
    if !options.dry_run {
        if let Err(err) = files.commit(&changes) {
            return Err(ApplyError { report, commit_error: Some(err.to_string()) });
        }
        report.committed = true;
    }
    Ok(report)
}

//! The spec's §5 error feedback: what the engine tells the model after each apply.
//!
//! Every text opens with one of the spec's four statuses, word for word: its headline
//! (`❌ Ambiguous match detected`, `❌ No match found`, `✅ Patch Applied`,
//! `❌ Patch Format Invalid`), its message and its `Action:` sentence (the spec's bold
//! markup dropped). Our specifics follow: the file and the block (`block 2`), for an
//! ambiguity the line ranges of the candidates (with their similarity after a fuzzy match), for a target not found the closest region
//! with its similarity and a short diff, for success the tier and confidence of every
//! block, for a malformed patch the line and column. The core's own message and next step
//! close each failure.
//!
//! Failures the spec has no status for (a file missing, a file that exists, a path leaving
//! the root, an elision, an i/o error, …) open with [`FeedbackStatus::NotApplied`]'s
//! headline, `❌ Patch not applied`, followed by the core's reason and next step.
//!
//! The functions are pure: they read an [`ApplyReport`] or a [`PatchError`] and return
//! text; nothing is escaped (a caller printing to a terminal escapes what it prints).

use std::fmt::Write as _;

use polypatch_core::{ApplyReport, Failure, FailureKind, FileReport, PatchError, Status, Tier};

/// The status an apply's feedback opens with: the four of the spec's §5 table, and one
/// for the failures the table does not name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FeedbackStatus {
    /// Every block applied (or was already applied), and the changes were written.
    Applied,
    /// A dry run: every block was located (or was already applied), nothing was written.
    /// Not one of the spec's statuses (the spec has no dry run): its own headline,
    /// `✅ Patch would apply (dry run)`, so that no model reads "applied" for a change that
    /// was not made.
    WouldApply,
    /// A `--- from` section matched several places with near-equal confidence.
    AmbiguousMatch,
    /// A `--- from` section matched no place.
    NoMatch,
    /// The patch text is not a well-formed `ApplyDiff` patch.
    FormatInvalid,
    /// Any other failure (file missing, file exists, path escapes the root, elision,
    /// i/o, …): not one of the spec's statuses.
    NotApplied,
}

impl FeedbackStatus {
    /// The status a failure of `kind` is reported with.
    pub fn of(kind: FailureKind) -> FeedbackStatus {
        match kind {
            FailureKind::Ambiguous => FeedbackStatus::AmbiguousMatch,
            FailureKind::NotFound => FeedbackStatus::NoMatch,
            _ => FeedbackStatus::NotApplied,
        }
    }

    /// The headline, as the spec writes it.
    pub fn headline(self) -> &'static str {
        match self {
            FeedbackStatus::Applied => "✅ Patch Applied",
            FeedbackStatus::WouldApply => "✅ Patch would apply (dry run)",
            FeedbackStatus::AmbiguousMatch => "❌ Ambiguous match detected",
            FeedbackStatus::NoMatch => "❌ No match found",
            FeedbackStatus::FormatInvalid => "❌ Patch Format Invalid",
            FeedbackStatus::NotApplied => "❌ Patch not applied",
        }
    }

    /// The spec's "Error Code/Message" (`None` for [`FeedbackStatus::NotApplied`], whose
    /// message is the core's). [`FeedbackStatus::Applied`]'s names the session's health
    /// line; [`feedback`] gives it only with a session ([`session_feedback`]).
    pub fn message(self) -> Option<&'static str> {
        match self {
            FeedbackStatus::Applied => Some("Apply succeeded. Health updated in [SESSION CONTEXT]."),
            FeedbackStatus::WouldApply => Some("Every block was located; nothing was written."),
            FeedbackStatus::AmbiguousMatch => Some(
                "Your \"from\" block matched multiple locations in the file with near-equal confidence. The \
                 application cannot proceed safely.",
            ),
            FeedbackStatus::NoMatch => Some(
                "Your \"from\" block did not match any location in the file. Possible causes: File changed, \
                 whitespace differs, or code moved.",
            ),
            FeedbackStatus::FormatInvalid => Some(
                "The output did not conform to the required Classic Style (`>>> file:`, `--- from`, `--- to`, `<`).",
            ),
            FeedbackStatus::NotApplied => None,
        }
    }

    /// The spec's "Required AI Action", with its `Action:` prefix (`None` for
    /// [`FeedbackStatus::NotApplied`], whose next step is the core's).
    pub fn action(self) -> Option<&'static str> {
        match self {
            FeedbackStatus::Applied => Some("Action: Continue to next task step or end."),
            FeedbackStatus::WouldApply => Some("Action: Apply the patch to make the change."),
            FeedbackStatus::AmbiguousMatch => Some(
                "Action: Submit the same patch content but use MORE surrounding context lines (5+) to uniquely \
                 define the target location.",
            ),
            FeedbackStatus::NoMatch => Some("Action: Request current state of the relevant function/section."),
            FeedbackStatus::FormatInvalid => {
                Some("Action: Regenerate output strictly adhering to the mandated format.")
            }
            FeedbackStatus::NotApplied => None,
        }
    }

    /// The headline, the spec's message and its action, one per line. Without a session
    /// (`session` false), [`FeedbackStatus::Applied`]'s message stops before the health
    /// line: there is no `[SESSION CONTEXT]` to update.
    fn opening(self, session: bool) -> String {
        let mut out = format!("{}\n", self.headline());
        let message = match self {
            FeedbackStatus::Applied if !session => Some("Apply succeeded."),
            _ => self.message(),
        };
        for line in [message, self.action()].into_iter().flatten() {
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}

/// The status of an apply: the first failure's, [`FeedbackStatus::WouldApply`] for a dry
/// run, or [`FeedbackStatus::Applied`].
pub fn status(report: &ApplyReport) -> FeedbackStatus {
    match report.first_failure() {
        Some(first) => FeedbackStatus::of(first.failure.kind),
        None if report.dry_run => FeedbackStatus::WouldApply,
        None => FeedbackStatus::Applied,
    }
}

/// The feedback for an apply, success or failure, without a session.
///
/// On success: the `✅ Patch Applied` opening (`Apply succeeded.`: the spec's health
/// sentence is for [`session_feedback`]), or for a dry run `✅ Patch would apply (dry run)`,
/// then one line per block (its file, label, outcome — `applied`, or `located` when nothing
/// was written —, lines, tier and confidence). On failure: one section per failed block or
/// file operation, each opening with its own status, separated by blank lines, then a line
/// naming what was not attempted.
///
/// ```
/// use polypatch_applydiff::feedback;
/// use polypatch_core::ApplyReport;
///
/// let text = feedback::feedback(&ApplyReport::default());
/// assert!(text.starts_with("✅ Patch Applied\nApply succeeded.\nAction:"));
/// ```
pub fn feedback(report: &ApplyReport) -> String {
    if report.is_success() { success(report, false) } else { failure(report) }
}

/// [`feedback`] for an apply recorded in a [`Session`](crate::Session): a success says, as
/// the spec writes it, `Apply succeeded. Health updated in [SESSION CONTEXT].`. A dry run
/// records nothing, and says what [`feedback`] says.
pub fn session_feedback(report: &ApplyReport) -> String {
    if report.is_success() { success(report, true) } else { failure(report) }
}

fn success(report: &ApplyReport, session: bool) -> String {
    let mut out = status(report).opening(session);
    for file in &report.files {
        if file.edits.is_empty() {
            let _ = writeln!(out, "{}: {} ({})", target(file), file.status.word(), file.operation);
            continue;
        }
        for edit in &file.edits {
            let _ = write!(out, "{}, {}: {}", target(file), label(&edit.label, edit.index), edit.status.word());
            if let Some(lines) = edit.lines {
                let _ = write!(out, " at {lines}");
            }
            if let Some(tier) = edit.tier {
                // The wording of the core's report (`ApplyReport`'s `Display`), which names the tier
                // only when it is not exact; here every block names it.
                let _ = write!(out, " ({tier} match, confidence {:.2})", confidence(tier, edit.confidence));
            }
            out.push('\n');
            for note in &edit.notes {
                let _ = writeln!(out, "  note: {note}");
            }
        }
    }
    out
}

/// The reported confidence, or the tier's own when the report has none.
fn confidence(tier: Tier, reported: Option<f64>) -> f64 {
    reported.unwrap_or_else(|| tier.confidence())
}

fn failure(report: &ApplyReport) -> String {
    let mut sections = Vec::new();
    let mut not_attempted = Vec::new();
    for file in &report.files {
        if let Some(failure) = &file.failure {
            sections.push(section(&target(file), failure));
        }
        if file.status == Status::NotAttempted && file.edits.is_empty() {
            not_attempted.push(target(file));
        }
        for edit in &file.edits {
            let place = format!("{}, {}", target(file), label(&edit.label, edit.index));
            if let Some(failure) = &edit.failure {
                sections.push(section(&place, failure));
            } else if edit.status == Status::NotAttempted {
                not_attempted.push(place);
            }
        }
    }
    let mut out = sections.join("\n");
    if !not_attempted.is_empty() {
        let _ = writeln!(out, "\nNot attempted (nothing was written): {}", not_attempted.join("; "));
    }
    out
}

/// One failure: its status's opening, where, what we know, the core's next step.
fn section(place: &str, failure: &Failure) -> String {
    let status = FeedbackStatus::of(failure.kind);
    let mut out = status.opening(false);
    let _ = writeln!(out, "Where: {place}");
    let _ = writeln!(out, "Reason: {}: {}", failure.kind.name(), failure.message);
    if !failure.candidates.is_empty() {
        let mut list: Vec<String> = failure
            .candidates
            .iter()
            .enumerate()
            .map(|(i, lines)| match failure.candidate_scores.get(i) {
                Some(score) => format!("{lines} (similarity {score:.2})"),
                None => lines.to_string(),
            })
            .collect();
        let total = failure.candidates_total.max(list.len());
        if total > list.len() {
            list.push(format!("and {} more", total - list.len()));
        }
        let _ = writeln!(out, "Candidates ({total}): {}", list.join(", "));
    }
    if let Some(closest) = &failure.closest {
        let _ = writeln!(out, "Closest region: {} (similarity {:.2})", closest.lines, closest.similarity);
        for line in closest.diff.lines() {
            let _ = writeln!(out, "    {line}");
        }
    }
    if !failure.next_step.is_empty() {
        let _ = writeln!(out, "Next step: {}", failure.next_step);
    }
    out
}

/// A file operation's path, with its destination for a move.
fn target(file: &FileReport) -> String {
    match &file.moved_to {
        Some(to) => format!("{} -> {to}", file.path),
        None => file.path.clone(),
    }
}

/// An edit's label, or `edit N` when it has none.
fn label(label: &str, index: usize) -> String {
    if label.is_empty() { format!("edit {index}") } else { label.to_string() }
}

/// The feedback for a patch that did not parse: the `❌ Patch Format Invalid` opening,
/// then where (line and column in `source`, the patch text) and what is wrong.
///
/// ```
/// use polypatch_applydiff::{feedback, parse};
///
/// let source = ">>> file: a.txt\n--- to\n";
/// let err = parse(source).unwrap_err();
/// let text = feedback::format_invalid(&err, source);
/// assert!(text.starts_with("❌ Patch Format Invalid\n"));
/// assert!(text.contains("At line 2, column 1:"));
/// ```
pub fn format_invalid(err: &PatchError, source: &str) -> String {
    let mut out = FeedbackStatus::FormatInvalid.opening(false);
    match err.line_col(source) {
        Some((line, column)) => {
            let _ = writeln!(out, "At line {line}, column {column}: {} ({})", err.message, err.kind);
        }
        None => {
            let _ = writeln!(out, "Error: {} ({})", err.message, err.kind);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use polypatch_core::{Closest, EditReport, LineRange, Span};

    use super::*;
    use crate::error::{MISSING_FROM, NO_BLOCKS};

    fn edit(index: usize, status: Status, failure: Option<Failure>) -> EditReport {
        let applied = status == Status::Applied;
        let mut edit = EditReport::new(index, status);
        edit.label = format!("block {index}");
        edit.tier = applied.then_some(Tier::Exact);
        edit.confidence = applied.then_some(1.0);
        edit.lines = applied.then_some(LineRange::new(3, 5));
        edit.failure = failure;
        edit
    }

    fn file(path: &str, status: Status, edits: Vec<EditReport>) -> FileReport {
        let mut file = FileReport::new(path, polypatch_core::FileOperation::Modify, status);
        file.edits = edits;
        file
    }

    fn report(files: Vec<FileReport>) -> ApplyReport {
        ApplyReport::new("applydiff", files)
    }

    fn ambiguous() -> Failure {
        let mut failure = Failure::new(
            FailureKind::Ambiguous,
            "the `--- from` lines match 12 places equally well",
            "add lines that differ between the places",
        );
        failure.set_candidates((0..12).map(|i| LineRange::new(10 * i + 1, 10 * i + 3)).collect::<Vec<_>>());
        failure
    }

    fn not_found() -> Failure {
        let mut failure = Failure::new(
            FailureKind::NotFound,
            "the `--- from` lines are not in the file",
            "copy the lines from the file as they are now",
        );
        failure.closest = Some(Closest::new(LineRange::new(4, 5), 0.8123, "-let x = 1;\n+let x = 2;\n y();\n"));
        failure
    }

    #[test]
    fn the_spec_statuses_map_from_failure_kinds() {
        assert_eq!(FeedbackStatus::of(FailureKind::Ambiguous), FeedbackStatus::AmbiguousMatch);
        assert_eq!(FeedbackStatus::of(FailureKind::NotFound), FeedbackStatus::NoMatch);
        for kind in [
            FailureKind::FileMissing,
            FailureKind::FileExists,
            FailureKind::NotAFile,
            FailureKind::PathEscapesRoot,
            FailureKind::NotText,
            FailureKind::InvalidPlan,
            FailureKind::Elision,
            FailureKind::Io,
        ] {
            assert_eq!(FeedbackStatus::of(kind), FeedbackStatus::NotApplied, "{kind:?}");
        }
    }

    #[test]
    fn ambiguity_lists_the_candidates() {
        let r = report(vec![file(
            "src/a.rs",
            Status::Failed,
            vec![edit(1, Status::Applied, None), edit(2, Status::Failed, Some(ambiguous()))],
        )]);
        assert_eq!(status(&r), FeedbackStatus::AmbiguousMatch);
        assert_eq!(
            feedback(&r),
            "❌ Ambiguous match detected\n\
             Your \"from\" block matched multiple locations in the file with near-equal confidence. The \
             application cannot proceed safely.\n\
             Action: Submit the same patch content but use MORE surrounding context lines (5+) to uniquely define \
             the target location.\n\
             Where: src/a.rs, block 2\n\
             Reason: ambiguous: the `--- from` lines match 12 places equally well\n\
             Candidates (12): lines 1-3, lines 11-13, lines 21-23, lines 31-33, lines 41-43, lines 51-53, \
             lines 61-63, lines 71-73, lines 81-83, lines 91-93, and 2 more\n\
             Next step: add lines that differ between the places\n"
        );
    }

    #[test]
    fn a_fuzzy_ambiguity_shows_each_candidates_similarity() {
        let mut failure = Failure::new(FailureKind::Ambiguous, "tie", "add context");
        failure.set_candidates(vec![LineRange::new(2, 4), LineRange::new(8, 10)]);
        failure.candidate_scores = vec![0.981, 0.972];
        let r = report(vec![file("a.py", Status::Failed, vec![edit(1, Status::Failed, Some(failure))])]);
        let text = feedback(&r);
        assert!(
            text.contains("\nCandidates (2): lines 2-4 (similarity 0.98), lines 8-10 (similarity 0.97)\n"),
            "{text}"
        );
    }

    #[test]
    fn no_match_shows_the_closest_region_and_its_diff() {
        let r = report(vec![file(
            "src/a.rs",
            Status::Failed,
            vec![edit(1, Status::Failed, Some(not_found())), edit(2, Status::NotAttempted, None)],
        )]);
        assert_eq!(status(&r), FeedbackStatus::NoMatch);
        assert_eq!(
            feedback(&r),
            "❌ No match found\n\
             Your \"from\" block did not match any location in the file. Possible causes: File changed, \
             whitespace differs, or code moved.\n\
             Action: Request current state of the relevant function/section.\n\
             Where: src/a.rs, block 1\n\
             Reason: not found: the `--- from` lines are not in the file\n\
             Closest region: lines 4-5 (similarity 0.81)\n\
             \x20   -let x = 1;\n\
             \x20   +let x = 2;\n\
             \x20    y();\n\
             Next step: copy the lines from the file as they are now\n\
             \n\
             Not attempted (nothing was written): src/a.rs, block 2\n"
        );
    }

    #[test]
    fn every_failure_gets_its_own_section() {
        let mut missing = file("src/gone.rs", Status::Failed, Vec::new());
        missing.failure = Some(Failure::new(
            FailureKind::FileMissing,
            "`src/gone.rs` does not exist",
            "create it with `mode=replace`",
        ));
        let r = report(vec![
            file("src/a.rs", Status::Failed, vec![edit(1, Status::Failed, Some(ambiguous()))]),
            missing,
            file("src/b.rs", Status::NotAttempted, Vec::new()),
        ]);
        let text = feedback(&r);
        assert!(text.starts_with("❌ Ambiguous match detected\n"), "{text}");
        assert!(
            text.ends_with(
                "Next step: add lines that differ between the places\n\
                 \n\
                 ❌ Patch not applied\n\
                 Where: src/gone.rs\n\
                 Reason: file missing: `src/gone.rs` does not exist\n\
                 Next step: create it with `mode=replace`\n\
                 \n\
                 Not attempted (nothing was written): src/b.rs\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn success_reports_tier_and_confidence_per_block() {
        let mut fuzzy = edit(2, Status::Applied, None);
        fuzzy.tier = Some(Tier::Fuzzy);
        fuzzy.confidence = Some(0.914);
        fuzzy.lines = Some(LineRange::new(20, 20));
        fuzzy.notes.push("an elision was expanded".into());
        let mut replaced = file("src/new.rs", Status::Applied, Vec::new());
        replaced.operation = polypatch_core::FileOperation::Replace;
        let r = report(vec![
            file("src/a.rs", Status::Applied, vec![edit(1, Status::Applied, None), fuzzy]),
            file("src/b.rs", Status::AlreadyApplied, vec![edit(1, Status::AlreadyApplied, None)]),
            replaced,
        ]);
        assert_eq!(status(&r), FeedbackStatus::Applied);
        assert_eq!(
            session_feedback(&r),
            "✅ Patch Applied\n\
             Apply succeeded. Health updated in [SESSION CONTEXT].\n\
             Action: Continue to next task step or end.\n\
             src/a.rs, block 1: applied at lines 3-5 (exact match, confidence 1.00)\n\
             src/a.rs, block 2: applied at line 20 (fuzzy match, confidence 0.91)\n\
             \x20 note: an elision was expanded\n\
             src/b.rs, block 1: already applied\n\
             src/new.rs: applied (replace)\n"
        );
        // Without a session: no health line (issue 26, point 6).
        assert!(feedback(&r).starts_with("✅ Patch Applied\nApply succeeded.\nAction: Continue"), "{}", feedback(&r));
    }

    /// Issue 26, point 6: a dry run says what would happen, never "applied", and names no
    /// session it does not have.
    #[test]
    fn a_dry_run_says_it_would_apply() {
        let mut dry = report(vec![file("src/a.rs", Status::Located, vec![edit(1, Status::Located, None)])]);
        dry.dry_run = true;
        assert_eq!(status(&dry), FeedbackStatus::WouldApply);
        let want = "✅ Patch would apply (dry run)\n\
                    Every block was located; nothing was written.\n\
                    Action: Apply the patch to make the change.\n\
                    src/a.rs, block 1: located\n";
        assert_eq!(feedback(&dry), want);
        assert_eq!(session_feedback(&dry), want);
    }

    #[test]
    fn format_invalid_gives_line_and_column() {
        let source = "prose\n>>> file: a.txt\n--- from\nold\n";
        let err = crate::parse(source).unwrap_err();
        let (line, column) = err.line_col(source).unwrap();
        assert_eq!(
            format_invalid(&err, source),
            format!(
                "❌ Patch Format Invalid\n\
                 The output did not conform to the required Classic Style (`>>> file:`, `--- from`, `--- to`, \
                 `<`).\n\
                 Action: Regenerate output strictly adhering to the mandated format.\n\
                 At line {line}, column {column}: {} ({})\n",
                err.message, err.kind
            )
        );
        let spanless = PatchError::new("applydiff", NO_BLOCKS, "no block", None);
        assert!(format_invalid(&spanless, "").ends_with("format.\nError: no block (no_blocks)\n"));
        let at = PatchError::new("applydiff", MISSING_FROM, "expected `--- from`", Some(Span::new(6, 7)));
        assert!(
            format_invalid(&at, "a.txt\nb\n").ends_with("At line 2, column 1: expected `--- from` (missing_from)\n")
        );
    }
}

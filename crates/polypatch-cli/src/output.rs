//! Rendering outcomes for people (text) and for tools (one JSON document).

use polypatch::applydiff::{self, Session};
use polypatch::{
    ApplyError, ApplyReport, PatchError, ReplyError,
    fs::Recovery,
    reply::ReplyReport,
    report::{ReportDocument, SessionBlock, Status},
};
use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde::Serialize;

use crate::escape;

/// What a report adds up to.
#[derive(Debug, Default, PartialEq, Eq)]
struct Counts {
    /// Files that change.
    files: usize,
    /// Changes in them: each applied edit, or the file operation itself when it has no
    /// applied edit (create, delete, a move).
    edits: usize,
    /// Edits and file operations that were already applied.
    already: usize,
    /// Edits and file operations skipped by their policy.
    skipped: usize,
}

impl Counts {
    fn of(report: &ApplyReport) -> Counts {
        let mut counts = Counts::default();
        for file in &report.files {
            let count = |status: Status| file.edits.iter().filter(|e| e.status == status).count();
            // Written (`applied`) or, in a dry run, would be (`located`).
            if changes(file.status) {
                counts.files += 1;
                counts.edits += file.edits.iter().filter(|e| changes(e.status)).count().max(1);
            }
            if file.edits.is_empty() {
                counts.already += usize::from(file.status == Status::AlreadyApplied);
                counts.skipped += usize::from(file.status == Status::Skipped);
            } else {
                counts.already += count(Status::AlreadyApplied);
                counts.skipped += count(Status::Skipped);
            }
        }
        counts
    }
}

/// Whether an operation or edit with this status changes its file: it was written
/// (`applied`), or would be (`located`: a dry run, or a run that failed elsewhere).
pub fn changes(status: Status) -> bool {
    matches!(status, Status::Applied | Status::Located)
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 { format!("{n} {word}") } else { format!("{n} {word}s") }
}

/// The last line of a successful apply: `applied 3 edits in 2 files`,
/// `already applied: nothing to do`, `dry run: would apply …`.
pub fn summary(report: &ApplyReport) -> String {
    let c = Counts::of(report);
    let mut line = match (report.dry_run, c.files) {
        (false, 0) => "already applied: nothing to do".to_string(),
        (true, 0) => "dry run: already applied, nothing to do".to_string(),
        (false, _) => format!("applied {} in {}", plural(c.edits, "edit"), plural(c.files, "file")),
        (true, _) => {
            format!("dry run: would apply {} in {}, nothing written", plural(c.edits, "edit"), plural(c.files, "file"))
        }
    };
    let mut extra = Vec::new();
    if c.files > 0 && c.already > 0 {
        extra.push(format!("{} already applied", c.already));
    }
    if c.skipped > 0 {
        extra.push(format!("{} skipped", c.skipped));
    }
    if !extra.is_empty() {
        line = format!("{line} ({})", extra.join(", "));
    }
    line
}

/// Standard output of a successful apply: the report, then the summary line. Names and
/// messages from the patch are escaped for the terminal, here and in every text below.
/// A dry run's files and edits say `located`: nothing was written.
pub fn success_text(report: &ApplyReport) -> String {
    format!("{}{}\n", escape::report(&polypatch::report::located(report)), summary(report))
}

/// What the `ApplyDiff` feedback and `--session` add to the output of an apply.
#[derive(Debug, Default)]
pub struct Extra<'a> {
    /// The spec's §5 feedback (`ApplyDiff` patches only), unescaped.
    pub feedback: Option<String>,
    /// The session after this apply, and the `Guidance:` line.
    pub session: Option<(&'a Session, &'a str)>,
}

impl Extra<'_> {
    /// The session block and its `Recommend:` lines, after a blank line; empty without
    /// `--session`.
    fn session_text(&self) -> String {
        match self.session {
            Some((session, guidance)) => {
                format!("\n{}", escape::terminal(&format!("{}{}", session.render(guidance), session.recommendations())))
            }
            None => String::new(),
        }
    }

    /// The feedback and the session block a JSON document carries.
    fn json(&self) -> (Option<String>, Option<SessionBlock>) {
        let session = self.session.map(|(session, guidance)| {
            SessionBlock::new(
                session.render(guidance),
                session.recommendations().lines().map(str::to_string).collect(),
                serde_json::to_value(session).unwrap_or_default(),
            )
        });
        (self.feedback.clone(), session)
    }
}

/// [`success_text`] with the extras: for an `ApplyDiff` patch the §5 feedback in place of
/// the report (the summary line stays), then the session block.
pub fn success_text_with(report: &ApplyReport, extra: &Extra) -> String {
    let body = if extra.feedback.is_some() {
        let shown = escape::report(&polypatch::report::located(report));
        // The spec's "Health updated in [SESSION CONTEXT]" only when a session was.
        let feedback = if extra.session.is_some() && report.committed {
            applydiff::session_feedback(&shown)
        } else {
            applydiff::feedback(&shown)
        };
        format!("{feedback}{}\n", summary(report))
    } else {
        success_text(report)
    };
    body + &extra.session_text()
}

/// [`failure_text`] with the extras: for an `ApplyDiff` patch whose edits failed, the §5
/// feedback in place of the report; then the session block.
pub fn failure_text_with(err: &ApplyError, extra: &Extra) -> String {
    let body = if extra.feedback.is_some() && err.commit_error.is_none() {
        format!(
            "error: could not apply the patch, nothing was written\n{}",
            applydiff::feedback(&escape::report(&err.report))
        )
    } else {
        failure_text(err)
    };
    body + &extra.session_text()
}

/// [`malformed_text`] with the extras: the §5 "Patch Format Invalid" feedback for an
/// `ApplyDiff` patch, then the session block.
pub fn malformed_text_with(err: &PatchError, source: &str, extra: &Extra) -> String {
    let mut out = malformed_text(err, source);
    if let Some(feedback) = &extra.feedback {
        out.push_str(&escape::terminal(feedback));
    }
    out + &extra.session_text()
}

/// Standard error of a failed apply: what failed, the closest candidate, the next step.
pub fn failure_text(err: &ApplyError) -> String {
    let Some(cause) = &err.commit_error else {
        return format!(
            "error: could not apply the patch, nothing was written\n{}",
            escape::report(&polypatch::report::located(&err.report))
        );
    };
    // Every edit was located; the disk refused. Say what was and was not written.
    let mut out = format!(
        "error: every edit was located, but writing the files failed: {}\n",
        escape::one_line(&cause.to_string())
    );
    let word = if err.rolled_back { "not written" } else { "maybe written" };
    for file in err.report.files.iter().filter(|f| changes(f.status)) {
        let target = match &file.moved_to {
            Some(to) => format!("{} -> {to}", file.path),
            None => file.path.clone(),
        };
        let _ = writeln!(out, "{word}: {} {}", file.operation, escape::one_line(&target));
    }
    if err.rolled_back {
        out.push_str("nothing was written: every file is as it was\n");
    } else {
        out.push_str("run `polypatch recover` in the root to give every file its content from before\n");
    }
    out
}

/// One line saying what the recovery of an interrupted commit did.
pub fn recovery_line(r: &Recovery) -> String {
    let mut parts = Vec::new();
    if !r.rolled_back.is_empty() {
        parts.push(format!("rolled back {} interrupted commit(s)", r.rolled_back.len()));
    }
    if !r.restored.is_empty() {
        parts.push(format!("restored {}", escape::one_line(&r.restored.join(", "))));
    }
    if !r.removed.is_empty() {
        parts.push(format!("removed the new file(s) {}", escape::one_line(&r.removed.join(", "))));
    }
    if r.leftovers > 0 {
        parts.push(format!("removed {} leftover file(s)", r.leftovers));
    }
    if !r.running.is_empty() {
        parts.push(format!("left alone {} commit(s) still running", r.running.len()));
    }
    for problem in &r.problems {
        parts.push(format!("could not recover: {}", escape::one_line(problem)));
    }
    if parts.is_empty() {
        return "nothing to recover".to_string();
    }
    parts.join("; ")
}

/// Standard output of `recover`.
pub fn recovery_text(r: &Recovery) -> String {
    format!("{}\n", recovery_line(r))
}

/// The JSON document of `recover`.
pub fn recovery_json(r: &Recovery) -> String {
    #[derive(Serialize)]
    struct Document<'a> {
        version: u32,
        status: &'static str,
        recovery: &'a Recovery,
    }
    let status = if !r.problems.is_empty() {
        "failed"
    } else if r.is_empty() {
        "clean"
    } else {
        "recovered"
    };
    document(&Document { version: polypatch::report::JSON_VERSION, status, recovery: r })
}

/// Standard error for a malformed patch: the message, line, column and a caret.
pub fn malformed_text(err: &PatchError, source: &str) -> String {
    let mut out = format!("error: {}\n", escape::terminal(&err.render(source)));
    // Unified and Aptix (its `gitPatch` entries) report it, with the same code.
    if err.kind == polypatch::unified::error::BINARY_TOO_LARGE {
        out.push_str("hint: raise the limit with --max-binary-size BYTES\n");
    }
    out
}

/// Standard error for a usage error.
pub fn usage_text(err: &anyhow::Error) -> String {
    format!("error: {}\n", escape::terminal(&format!("{err:#}")))
}

/// The JSON document of a successful apply or check, with the parser's `warnings`
/// (omitted when there are none) and the extras: `feedback` (the §5 text) and `session`
/// (`context`, the block as printed; `recommendations`, the `Recommend:` lines; `state`, the
/// saved state), each when there is one.
pub fn success_json_with(report: &ApplyReport, warnings: &[String], extra: &Extra) -> String {
    let (feedback, session) = extra.json();
    document(&ReportDocument::success(report).with_warnings(warnings).with_extras(feedback, session))
}

/// [`success_json_with`] for a failed apply: `commit_error` and `rolled_back` are set when
/// every edit was located but writing failed.
pub fn failure_json_with(err: &ApplyError, warnings: &[String], extra: &Extra) -> String {
    let (feedback, session) = extra.json();
    document(&ReportDocument::failure(err).with_warnings(warnings).with_extras(feedback, session))
}

/// The JSON document of `diff`: the report and the git diff of what applying would change.
pub fn diff_json(report: &ApplyReport, diff: &str, warnings: &[String]) -> String {
    document(&ReportDocument::success(report).with_diff(diff).with_warnings(warnings))
}

/// The parser's warnings, one `warning:` line each.
pub fn warnings_text(warnings: &[String]) -> String {
    warnings.iter().flat_map(|w| ["warning: ".into(), escape::one_line(w), "\n".into()]).collect()
}

/// The JSON document of a malformed patch, with the extras of [`success_json_with`].
pub fn malformed_json(err: &PatchError, source: &str, extra: &Extra) -> String {
    let (feedback, session) = extra.json();
    document(&ReportDocument::malformed(err, source).with_extras(feedback, session))
}

/// The JSON document of a usage error found after the arguments were parsed.
pub fn usage_json(err: &anyhow::Error) -> String {
    document(&ReportDocument::usage(format!("{err:#}")))
}

/// The JSON document of `formats`: the dialects this build understands.
pub fn formats_json(dialects: &polypatch::Dialects) -> String {
    #[derive(Serialize)]
    struct Dialect<'a> {
        name: &'a str,
        summary: &'a str,
        aliases: &'a [&'a str],
    }
    #[derive(Serialize)]
    struct Document<'a> {
        version: u32,
        formats: Vec<&'a str>,
        dialects: Vec<Dialect<'a>>,
    }
    let each = dialects.iter().map(|d| Dialect { name: d.name(), summary: d.summary(), aliases: d.aliases() });
    document(&Document {
        version: polypatch::report::JSON_VERSION,
        formats: dialects.names(),
        dialects: each.collect(),
    })
}

/// The text of `formats`: each dialect's name, what it is, and the other names `--format`
/// takes for it, one line each.
pub fn formats_text(dialects: &polypatch::Dialects) -> String {
    let width = dialects.iter().map(|d| d.name().len()).max().unwrap_or(0);
    let mut out = String::new();
    for d in dialects.iter() {
        let mut line = format!("{:width$}  {}", d.name(), d.summary());
        if !d.aliases().is_empty() {
            let _ = write!(line, " (also: {})", d.aliases().join(", "));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str("\n`--format` takes a name or an alias, in any case; `auto` (the default) detects the dialect\n");
    out
}

/// The JSON document of `hash`: each file read and its hash.
pub fn hashes_json(files: &[(String, polypatch::fs::ReadHash)]) -> String {
    #[derive(Serialize)]
    struct File<'a> {
        path: &'a str,
        hash: polypatch::fs::ReadHash,
    }
    #[derive(Serialize)]
    struct Document<'a> {
        version: u32,
        files: Vec<File<'a>>,
    }
    let files = files.iter().map(|(path, hash)| File { path, hash: *hash }).collect();
    document(&Document { version: polypatch::report::JSON_VERSION, files })
}

/// Every block's report under a `block N (dialect, lines a-b): status` line (several blocks
/// applied together: a model's reply, several patch files).
pub fn blocks_text(report: &ReplyReport) -> String {
    let mut out = String::new();
    for block in &report.blocks {
        out.push_str(&escape::one_line(&format!("{}: {}", block.block, block.status.word())));
        out.push('\n');
        for line in escape::report(&block.report).to_string().lines() {
            out.push_str("  ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The last line of several blocks applied together: `applied 3 edits in 2 files (3
/// blocks)`; a file several blocks change counts once.
pub fn blocks_summary(report: &ReplyReport) -> String {
    let mut files = BTreeSet::new();
    let mut edits = 0;
    for (_, file) in report.files().filter(|(_, f)| changes(f.status)) {
        files.insert(file.moved_to.as_deref().unwrap_or(&file.path));
        edits += file.edits.iter().filter(|e| changes(e.status)).count().max(1);
    }
    let blocks = plural(report.blocks.len(), "block");
    match (report.dry_run, files.len()) {
        (false, 0) => format!("already applied: nothing to do ({blocks})"),
        (true, 0) => format!("dry run: already applied, nothing to do ({blocks})"),
        (false, n) => format!("applied {} in {} ({blocks})", plural(edits, "edit"), plural(n, "file")),
        (true, n) => {
            format!(
                "dry run: would apply {} in {} ({blocks}), nothing written",
                plural(edits, "edit"),
                plural(n, "file")
            )
        }
    }
}

/// The JSON document of several blocks applied together: the library's document, whose
/// `blocks` carry each block's `index`, `dialect`, `lines`, `fence`, `source`, `status` and
/// `report`; with `diff`, the git diff of what applying would change.
pub fn blocks_json(result: &Result<ReplyReport, ReplyError>, warnings: &[String], diff: Option<&str>) -> String {
    let mut doc = ReportDocument::of_reply(result, "").with_warnings(warnings);
    if let Some(diff) = diff {
        doc = doc.with_diff(diff);
    }
    document(&doc)
}

/// One JSON document on one line. Field order follows the structs (`version`, then
/// `status`).
pub(crate) fn document(value: &impl Serialize) -> String {
    // Serializing these types cannot fail (no maps with non-string keys); should it ever,
    // the output is still one valid document.
    let text = serde_json::to_string(value).unwrap_or_else(|err| {
        let message = serde_json::Value::String(err.to_string());
        format!(r#"{{"version":1,"status":"usage_error","error":{{"message":{message}}}}}"#)
    });
    // serde_json escapes C0 controls only; C1 controls and bidirectional overrides
    // would reach a terminal as they are.
    format!("{}\n", escape::json(&text))
}

#[cfg(test)]
mod tests {
    use polypatch::{
        fs::CommitError,
        plan::Span,
        report::{EditReport, FileOperation, FileReport, Outcome, Tier},
    };
    use serde_json::Value;

    use super::*;

    #[test]
    fn a_failed_write_says_what_was_not_written() {
        let report = ApplyReport::new(
            "ai-patch",
            vec![file("a.txt", FileOperation::Modify, Status::Applied, &[Status::Applied])],
        );
        let err = ApplyError::commit_failed(report, CommitError::from(std::io::Error::other("disk full")));
        assert_eq!(
            failure_text(&err),
            "error: every edit was located, but writing the files failed: disk full; every step was undone, no file \
             was changed\n\
             not written: modify a.txt\n\
             nothing was written: every file is as it was\n"
        );
        let cause = std::io::Error::other("disk full");
        let err = ApplyError::commit_failed(err.report, CommitError::new(cause, false, vec!["a.txt.old".into()]));
        let text = failure_text(&err);
        assert!(text.contains("maybe written: modify a.txt\n"), "{text}");
        assert!(text.contains("polypatch recover"), "{text}");
    }

    fn file(path: &str, operation: FileOperation, status: Status, edits: &[Status]) -> FileReport {
        let mut file = FileReport::new(path, operation, status);
        file.edits = edits
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut edit = EditReport::new(i + 1, *s);
                edit.label = format!("hunk {}", i + 1);
                edit.tier = Some(Tier::Exact);
                edit.confidence = Some(1.0);
                edit
            })
            .collect();
        file
    }

    fn report(files: Vec<FileReport>, dry_run: bool) -> ApplyReport {
        let mut report = ApplyReport::new("ai-patch", files);
        report.dry_run = dry_run;
        report.committed = !dry_run;
        report
    }

    #[test]
    fn summary_counts_edits_and_file_operations() {
        let r = report(
            vec![
                file("a.py", FileOperation::Modify, Status::Applied, &[Status::Applied, Status::Applied]),
                file("b.py", FileOperation::Create, Status::Applied, &[]),
            ],
            false,
        );
        assert_eq!(summary(&r), "applied 3 edits in 2 files");
        assert_eq!(Outcome::of(&r), Outcome::Applied);
    }

    #[test]
    fn summary_mentions_already_applied_and_skipped_parts() {
        let r = report(
            vec![
                file("a.py", FileOperation::Modify, Status::Applied, &[Status::Applied, Status::AlreadyApplied]),
                file("b.py", FileOperation::Modify, Status::Skipped, &[Status::Skipped]),
            ],
            false,
        );
        assert_eq!(summary(&r), "applied 1 edit in 1 file (1 already applied, 1 skipped)");
    }

    #[test]
    fn rerun_is_already_applied() {
        let r =
            report(vec![file("a.py", FileOperation::Modify, Status::AlreadyApplied, &[Status::AlreadyApplied])], false);
        assert_eq!(summary(&r), "already applied: nothing to do");
        assert_eq!(Outcome::of(&r), Outcome::AlreadyApplied);
    }

    #[test]
    fn dry_run_says_nothing_was_written() {
        let r = report(vec![file("a.py", FileOperation::Modify, Status::Applied, &[Status::Applied])], true);
        assert_eq!(summary(&r), "dry run: would apply 1 edit in 1 file, nothing written");
        assert_eq!(Outcome::of(&r), Outcome::DryRun);
    }

    #[test]
    fn malformed_json_has_line_and_column() {
        let source = "*** Begin Patch\n*** Frob File: x\n";
        let at = source.find("Frob").unwrap();
        let err = PatchError::new(
            "ai-patch",
            polypatch::aipatch::error::INVALID_HEADER,
            "unknown header",
            Some(Span::new(at, at + 4)),
        );
        let value: Value = serde_json::from_str(&malformed_json(&err, source, &Extra::default())).unwrap();
        assert_eq!(value["status"], "malformed");
        assert_eq!(value["error"]["kind"], "invalid_header");
        assert_eq!(value["error"]["line"], 2);
        assert_eq!(value["error"]["column"], 5);
    }

    #[test]
    fn malformed_json_without_span_has_null_position() {
        let err = PatchError::new("polypatch", polypatch::error::ErrorKind::UNKNOWN_FORMAT, "no format matched", None);
        let value: Value = serde_json::from_str(&malformed_json(&err, "", &Extra::default())).unwrap();
        assert_eq!(value["error"]["line"], Value::Null);
        assert_eq!(value["error"]["dialect"], "polypatch");
    }

    #[test]
    fn warnings_are_lines_and_a_json_field() {
        assert_eq!(warnings_text(&[]), "");
        assert_eq!(warnings_text(&["a".into(), "b c".into()]), "warning: a\nwarning: b c\n");
        let r = report(vec![], false);
        let value: Value = serde_json::from_str(&success_json_with(&r, &["w".into()], &Extra::default())).unwrap();
        assert_eq!(value["warnings"][0], "w");
        let value: Value = serde_json::from_str(&success_json_with(&r, &[], &Extra::default())).unwrap();
        assert!(value.get("warnings").is_none());
    }

    #[test]
    fn the_session_block_is_escaped_for_the_terminal_and_raw_in_json() {
        let mut session = Session::new(4);
        let mut r =
            report(vec![file("a\u{1b}[2J.py", FileOperation::Modify, Status::Applied, &[Status::Applied])], false);
        r.committed = true;
        session.record(&r, &[]);
        let extra = Extra { feedback: None, session: Some((&session, "say \u{202e}hi")) };
        let text = success_text_with(&r, &extra);
        assert!(
            text.ends_with(
                "\n\n[SESSION CONTEXT]\nModified: a\\x1b[2J.py (1 patch, 0% changed)\nGuidance: say \\u{202e}hi\n\
                 Health: 0 errors, 0 ambiguous matches, exchange 1/4\n[/SESSION CONTEXT]\n"
            ),
            "{text}"
        );
        let value: Value = serde_json::from_str(&success_json_with(&r, &[], &extra)).unwrap();
        assert!(value["session"]["context"].as_str().unwrap().contains("Modified: a\u{1b}[2J.py (1 patch"));
        assert_eq!(value["session"]["state"]["exchange"], 1);
        assert!(value.get("feedback").is_none());
    }

    #[test]
    fn report_json_is_one_document() {
        let r = report(vec![file("a.py", FileOperation::Modify, Status::Applied, &[Status::Applied])], false);
        let text = success_json_with(&r, &[], &Extra::default());
        assert_eq!(text.lines().count(), 1);
        assert!(text.starts_with(r#"{"version":1,"status":"applied","report":{"#), "{text}");
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["status"], "applied");
        assert_eq!(value["report"]["files"][0]["edits"][0]["status"], "applied");
    }
}

//! `apply`, `check` and `diff`: one flow for a patch file, a model's reply and several patch
//! files.
//!
//! The text is **read**, then **planned** into blocks: a text that one dialect parses whole,
//! and that holds no block of another dialect (the usual patch file), is one block; a
//! model's reply (several blocks, prose around a block) and several PATCH arguments are the
//! blocks found in each, numbered across all of them. The blocks are **located** on the
//! files under the root, one after the other on the files as the blocks before left them,
//! then **committed** together (`apply`), or nothing is written (`check`, and `diff`, which
//! shows the changes as a git diff). The **report** of a whole patch is that patch's (its
//! files and edits, `ApplyDiff`'s feedback, the `--session` block); several blocks are
//! reported each under its `block N (…)` line. A reply without any patch is exit 2, like a
//! malformed patch.

use std::io::{self, IsTerminal as _};
use std::path::PathBuf;

use anyhow::anyhow;
use polypatch::toolcall::{Calls, ResultShape};
use polypatch::unified::generate::DiffOptions;
use polypatch::{
    ApplyError, ApplyOptions, ApplyReport, DiskFileSet, EditPlan, ParseOptions, PatchError, ReplyError,
    fs::{Change, FileSource, Overlay, ReadHash},
    options::StaleRead,
    reply::{BlockInfo, PlannedBlock, ReplyReport},
    report::ReportDocument,
};

use crate::cli::{self, ApplyArgs};
use crate::escape;
use crate::inout::{self, Exit, Input, stderr, stdout, usage_error};
use crate::output;
use crate::reverse;
use crate::session::{self, Kept};
use crate::stat;
use crate::term::{self, Stream};

/// What the run does once every edit is located.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Write the changes.
    Apply,
    /// Write nothing, report.
    Check,
    /// Write nothing, print the changes as a git diff.
    Diff,
    /// Print `--stat` and `--summary` only: nothing is located or written.
    Stat,
}

/// Runs `apply`, `check` or `diff` (`mode`) of the PATCH arguments in `args`.
pub fn run(args: &ApplyArgs, mode: Mode) -> Exit {
    let usage = |err: anyhow::Error| usage_error(args.json, &err);
    let format = match cli::resolve_format(&args.format) {
        Ok(format) => format,
        Err(err) => return usage(err),
    };
    // The session comes first: a state file that cannot be used stops the run before
    // anything is applied, and is left as it is.
    let kept = match &args.session {
        None => None,
        Some(_) if mode == Mode::Diff => return usage(anyhow!("`--session` is for `apply` and `check`, not `diff`")),
        Some(path) => match Kept::load(path, args.max_exchanges.map(|n| usize::try_from(n).unwrap_or(usize::MAX))) {
            Ok(kept) => Some(kept),
            Err(err) => return usage(err),
        },
    };
    let reply = match &args.reply_format {
        None => None,
        Some(_) if mode == Mode::Diff => {
            return usage(anyhow!("`--reply-format` is for `apply` and `check`, not `diff`"));
        }
        Some(_) if format != Some("tool-call") => {
            return usage(anyhow!("`--reply-format` answers tool calls: give `--format tool-call` with it"));
        }
        Some(shape) => match shape.parse::<ResultShape>() {
            Ok(shape) => Some(shape),
            Err(err) => return usage(anyhow!(err)),
        },
    };
    Run { args, mode, format, kept, reply, calls: None, ap_folder: None }.go()
}

/// The blocks a run applies together, as one transaction.
struct Planned {
    /// In order; a whole patch is one block.
    blocks: Vec<PlannedBlock>,
    /// One patch text its dialect parsed whole: reported as that patch. Otherwise the blocks
    /// of a reply or of several patch files, each reported under its own line.
    whole: bool,
}

impl Planned {
    /// A patch parsed whole, as the one block.
    fn whole(plan: EditPlan) -> Planned {
        Planned { blocks: vec![PlannedBlock::new(BlockInfo::new(1, plan.dialect.clone()), plan)], whole: true }
    }

    /// The blocks that undo these (`--reverse`): each block's inverse, the last block first.
    /// `text` is the patch a whole plan was parsed from (a deleted file's exact bytes are
    /// read from its diff).
    fn reversed(self, text: &str) -> Result<Planned, reverse::Refusal> {
        let source = self.whole.then_some(text);
        let mut blocks = Vec::with_capacity(self.blocks.len());
        for block in self.blocks.iter().rev() {
            blocks.push(PlannedBlock::new(block.info.clone(), reverse::reverse(&block.plan, source)?));
        }
        Ok(Planned { blocks, whole: self.whole })
    }

    /// The plan of a whole patch.
    fn plan(&self) -> Option<&EditPlan> {
        self.whole.then(|| &self.blocks[0].plan)
    }

    /// Locates every block, writing nothing: the report, and the changes that would write it.
    fn locate<S: FileSource + ?Sized>(
        &self,
        files: &S,
        options: &ApplyOptions,
    ) -> Result<(Report, Vec<Change>), Failed> {
        match self.plan() {
            Some(plan) => polypatch::compute(plan, files, options)
                .map(|computed| (Report::Whole(computed.report), computed.changes))
                .map_err(Failed::Whole),
            None => polypatch::reply::compute_blocks(&self.blocks, files, options)
                .map(|computed| (Report::Blocks(computed.report), computed.changes))
                .map_err(Failed::Blocks),
        }
    }

    /// Locates every block, writing nothing: the report, and the changes as a git diff
    /// (`Err` inside when a file cannot be read). The diff's old side is the bytes the
    /// edits were located on: each file is read once, through an [`Overlay`], so another
    /// program's save after that read is not shown as the original (the diff would then
    /// undo it, fed to `git apply`).
    fn diff<S: FileSource + ?Sized>(
        &self,
        files: &S,
        options: &ApplyOptions,
    ) -> Result<(Report, io::Result<String>), Failed> {
        let once = Overlay::new(files);
        let (report, changes) = self.locate(&once, options)?;
        Ok((report, polypatch::unified::generate::diff_changes(&once, &changes, &DiffOptions::default())))
    }

    /// Locates every block, then writes all the changes at once (nothing on a dry run).
    fn commit(&self, files: &mut DiskFileSet, options: &ApplyOptions) -> Result<Report, Failed> {
        match self.plan() {
            Some(plan) => polypatch::apply(plan, files, options).map(Report::Whole).map_err(Failed::Whole),
            None => {
                polypatch::reply::apply_blocks(&self.blocks, files, options).map(Report::Blocks).map_err(Failed::Blocks)
            }
        }
    }
}

/// What the blocks did: a whole patch's report, or every block's.
enum Report {
    Whole(ApplyReport),
    Blocks(ReplyReport),
}

/// Why they were not applied; nothing was written.
enum Failed {
    Whole(ApplyError),
    Blocks(ReplyError),
}

/// One run of `apply`, `check` or `diff`.
struct Run<'a> {
    args: &'a ApplyArgs,
    mode: Mode,
    /// The dialect `--format` names; `None` for `auto`.
    format: Option<&'static str>,
    /// The `--session` state, loaded before anything is read.
    kept: Option<Kept>,
    /// `--reply-format`: the results in this shape instead of the report.
    reply: Option<ResultShape>,
    /// The tool calls read, for `--reply-format`.
    calls: Option<Calls>,
    /// The folder of an `ap` patch file its paths were resolved from (no `--root`).
    ap_folder: Option<PathBuf>,
}

impl Run<'_> {
    /// Read, plan, locate, commit, report.
    fn go(mut self) -> Exit {
        let args = self.args;
        let text = match inout::read_patch(&args.patch, self.format) {
            Ok(text) => text,
            Err(Input::Unreadable(err)) => return usage_error(args.json, &err),
            Err(Input::NotText(err, lossy)) => return self.malformed(&err, &lossy),
        };
        let mut planned = match self.plan(&text, &parse_options(args)) {
            Ok(planned) => planned,
            Err(exit) => return exit,
        };
        // What the patch touches, from the plan as written (`--reverse` swaps the sides).
        let touched = (args.stat || args.summary).then(|| {
            let source = planned.whole.then_some(text.as_str());
            let plans: Vec<_> = planned.blocks.iter().map(|b| (&b.plan, source)).collect();
            let mut out = String::new();
            if args.stat {
                out.push_str(&stat::stat(&plans, args.reverse));
            }
            if args.summary {
                out.push_str(&stat::summary(&plans, args.reverse));
            }
            out
        });
        if let Some(touched) = touched {
            stdout(&escape::terminal(&touched));
            if self.mode == Mode::Stat {
                return Exit::Success;
            }
        }
        if args.reverse {
            planned = match planned.reversed(&text) {
                Ok(planned) => planned,
                Err(refusal) => return usage_error(args.json, &anyhow!("{refusal}")),
            };
        }
        if self.reply.is_some() {
            self.calls = polypatch::toolcall::parse(&text).ok();
        }
        // An `ap` patch's paths are relative to its file's folder.
        let root = args.root.clone().unwrap_or_else(|| {
            let dialect = if planned.blocks.iter().all(|b| b.info.dialect == "ap") { "ap" } else { "" };
            if args.more.is_empty() { inout::default_root(dialect, &args.patch) } else { PathBuf::from(".") }
        });
        if args.root.is_none() && root != std::path::Path::new(".") {
            self.ap_folder = Some(root.clone());
        }
        let mut files = match inout::open_root_for(&root, args) {
            Ok(files) => files,
            Err(err) => return usage_error(args.json, &err),
        };
        // The parse's warnings, then the root's (a recovered or a pending commit).
        let mut warnings = if let Some(plan) = planned.plan() {
            plan.warnings.clone()
        } else {
            let each =
                |b: &PlannedBlock| b.plan.warnings.iter().map(|w| format!("{}: {w}", b.info)).collect::<Vec<_>>();
            planned.blocks.iter().flat_map(each).collect()
        };
        if let Err(exit) = prepare_root(&files, &root, self.mode, &mut warnings) {
            return exit;
        }
        if !args.json && !term::quiet() {
            stderr(&output::warnings_text(&warnings));
        }
        let mut options = ApplyOptions::default()
            .strict(args.strict)
            .dry_run(self.mode != Mode::Apply)
            .skip_missing_text(args.skip_missing_find)
            .allow_git_dir(args.allow_git_dir)
            .allow_fuzzy_removals(args.allow_fuzzy_removals)
            .stale_read(if args.stale_read == "exact" { StaleRead::ExactOnly } else { StaleRead::Refuse });
        for given in &args.read_hash {
            match read_hash(given) {
                Ok((path, hash)) => options.read_hashes.insert(path.to_owned(), hash),
                Err(err) => return usage_error(args.json, &err),
            };
        }
        if self.mode == Mode::Diff {
            return self.diff(&planned, &files, &options, &warnings);
        }
        if !args.partial {
            return self.commit(&planned, &mut files, &options, &warnings);
        }
        // `--partial`: the files whose edits all locate, each whole; the others reported.
        let (planned, left) = partial(planned, &files, &options);
        let exit = if planned.blocks[0].plan.files.is_empty() {
            Exit::NotApplied
        } else {
            self.commit(&planned, &mut files, &options, &warnings)
        };
        if left.files.is_empty() {
            return exit;
        }
        let n = left.files.len();
        let what = if self.mode == Mode::Apply { "not applied, as it was" } else { "would not apply" };
        let whose = if n == 1 { "its" } else { "their" };
        let text =
            format!("error: {} {what}: {whose} edits did not all locate\n{}", plural_files(n), escape::report(&left));
        stderr(&term::report(&text, Stream::Err));
        if exit == Exit::Success { Exit::NotApplied } else { exit }
    }

    /// The blocks to apply: the text parsed whole by its dialect when it is one patch (see
    /// [`is_reply`]; always with `--format`), otherwise the blocks of every PATCH argument.
    /// `Err`: the exit code, the error printed.
    fn plan(&mut self, text: &str, parse: &ParseOptions) -> Result<Planned, Exit> {
        let args = self.args;
        let whole = if !args.more.is_empty() {
            None
        } else if self.format.is_some() {
            Some(cli::parse_as(text, self.format, parse))
        } else {
            match is_reply(text, parse) {
                Ok((_, Some(plan))) => Some(Ok(plan)),
                Ok((dialect, None)) => Some(dialect.parse_with(text, parse)),
                Err(()) => None,
            }
        };
        match whole {
            Some(Ok(plan)) => Ok(Planned::whole(plan)),
            Some(Err(err)) => Err(self.malformed(&err, text)),
            None if args.session.is_some() => Err(usage_error(
                args.json,
                &anyhow!(
                    "`--session` takes one patch; this is several patch blocks or files: apply them one at a time"
                ),
            )),
            None => plan_sources(args, self.format, text, parse).map(|blocks| Planned { blocks, whole: false }),
        }
    }

    /// `diff`: locate everything, write nothing, print the effect as a git diff (or, with
    /// `--json`, the report with the diff in it).
    fn diff(&self, planned: &Planned, files: &DiskFileSet, options: &ApplyOptions, warnings: &[String]) -> Exit {
        let json = self.args.json;
        let (report, diff) = match planned.diff(files, options) {
            Ok(located) => located,
            Err(Failed::Whole(err)) => {
                if json {
                    stdout(&output::failure_json_with(&err, warnings, &output::Extra::default()));
                } else {
                    stderr(&term::report(&output::failure_text(&err), Stream::Err));
                }
                return Exit::NotApplied;
            }
            Err(Failed::Blocks(err)) => return blocks_failed(json, &err, warnings),
        };
        let diff = match diff {
            Ok(diff) => diff,
            Err(err) => {
                return usage_error(json, &anyhow::Error::new(err).context("cannot read the files to show the diff"));
            }
        };
        if json {
            stdout(&match report {
                Report::Whole(report) => output::diff_json(&report, &diff, warnings),
                Report::Blocks(report) => output::blocks_json(&Ok(report), warnings, Some(&diff)),
            });
        } else if io::stdout().is_terminal() {
            // Shown, not piped: the file's bytes may hold escape sequences.
            stdout(&term::diff(&escape::terminal(&diff)));
        } else {
            // Piped or redirected, the diff is data and keeps its bytes (colored only when
            // `--color always` asks for it).
            stdout(&term::diff(&diff));
        }
        Exit::Success
    }

    /// `apply` and `check`: locate everything, write it (`apply`), report.
    fn commit(
        &mut self,
        planned: &Planned,
        files: &mut DiskFileSet,
        options: &ApplyOptions,
        warnings: &[String],
    ) -> Exit {
        let json = self.args.json;
        // A dry run records nothing in the session; it still shows the block.
        let recording = self.mode == Mode::Apply;
        let before = match planned.plan() {
            Some(plan) if recording && self.kept.is_some() => session::read_before(plan, files),
            _ => session::Before::new(),
        };
        let result = match planned.commit(files, options) {
            Ok(Report::Whole(report)) => Ok(report),
            Err(Failed::Whole(err)) => Err(err),
            Ok(Report::Blocks(report)) => {
                if json {
                    stdout(&output::blocks_json(&Ok(report), warnings, None));
                } else if !term::quiet() {
                    stdout(&format!("{}{}\n", output::blocks_text(&report), output::blocks_summary(&report)));
                }
                return Exit::Success;
            }
            Err(Failed::Blocks(err)) => return blocks_failed(json, &err, warnings),
        };
        let report = match &result {
            Ok(report) => report,
            Err(err) => &err.report,
        };
        if let (Some(shape), Some(calls)) = (self.reply, &self.calls) {
            stdout(&results_json(&polypatch::toolcall::results(calls, report, shape)));
            return if result.is_ok() { Exit::Success } else { Exit::NotApplied };
        }
        // A whole patch: the session, `ApplyDiff`'s feedback, the report.
        let mut save_error = None;
        if let Some(kept) = self.kept.as_mut()
            && recording
        {
            session::record(&mut kept.session, report, &before, files);
            save_error = kept.save().err();
        }
        let extra = output::Extra {
            feedback: (report.dialect == "applydiff").then(|| {
                // The spec's "Health updated in [SESSION CONTEXT]" only when a session was.
                let shown = polypatch::report::located(report);
                if self.kept.is_some() && report.committed {
                    polypatch::applydiff::session_feedback(&shown)
                } else {
                    polypatch::applydiff::feedback(&shown)
                }
            }),
            session: self.session_view(),
        };
        let exit = match &result {
            Ok(report) => {
                if json {
                    stdout(&output::success_json_with(report, warnings, &extra));
                } else if !term::quiet() {
                    stdout(&term::report(&output::success_text_with(report, &extra), Stream::Out));
                }
                Exit::Success
            }
            Err(err) => {
                if json {
                    stdout(&output::failure_json_with(err, warnings, &extra));
                } else {
                    stderr(&term::report(&output::failure_text_with(err, &extra), Stream::Err));
                    if let Some(folder) = &self.ap_folder
                        && err.report.files.iter().any(|f| {
                            f.failure.as_ref().is_some_and(|f| f.kind == polypatch::report::FailureKind::FileMissing)
                        })
                    {
                        stderr(&format!(
                            "note: an `ap` patch's paths are relative to the patch file's folder (its spec, §2.3): \
                             they were looked for under `{}`; give `--root DIR` to resolve them from another \
                             directory (`--root .` for the current one)\n",
                            escape::one_line(&folder.display().to_string())
                        ));
                    }
                }
                Exit::NotApplied
            }
        };
        match save_error {
            Some(err) => {
                let what = if report.committed { "the patch was applied" } else { "nothing was written" };
                stderr(&output::usage_text(&err.context(what)));
                Exit::Invalid
            }
            None => exit,
        }
    }

    /// A whole patch that is malformed (or not text): exit 2, with `ApplyDiff`'s feedback and
    /// the session block; an `apply` records the malformed exchange in the session.
    fn malformed(&mut self, err: &PatchError, source: &str) -> Exit {
        if let Some(shape) = self.reply {
            stdout(&results_json(&polypatch::toolcall::error_results(source, err, shape)));
            return Exit::Invalid;
        }
        let json = self.args.json;
        let applydiff = self.format == Some("applydiff") || err.dialect == "applydiff";
        let mut save_error = None;
        if let Some(kept) = self.kept.as_mut()
            && self.mode == Mode::Apply
        {
            kept.session.record_format_invalid();
            save_error = kept.save().err();
        }
        let extra = output::Extra {
            feedback: applydiff.then(|| polypatch::applydiff::format_invalid(err, source)),
            session: self.session_view(),
        };
        if json {
            stdout(&output::malformed_json(err, source, &extra));
        } else {
            stderr(&term::report(&output::malformed_text_with(err, source, &extra), Stream::Err));
        }
        if let Some(err) = save_error {
            stderr(&output::usage_text(&err.context("the patch was malformed; nothing was written")));
        }
        Exit::Invalid
    }

    /// The session and guidance to show, when `--session` is given.
    fn session_view(&self) -> Option<(&polypatch::applydiff::Session, &str)> {
        let guidance = self.args.guidance.as_deref().unwrap_or(session::DEFAULT_GUIDANCE);
        self.kept.as_ref().map(|kept| (&kept.session, guidance))
    }
}

/// `1 file`, `2 files`.
fn plural_files(n: usize) -> String {
    if n == 1 { "1 file".to_string() } else { format!("{n} files") }
}

/// `--partial`: the plan of the files whose edits all locate on `files` (one plan, the
/// blocks' files in order), and the report of the others. A file is kept whole or left
/// out whole: every operation on a path that failed (its own, a move's or a copy's) is
/// left out, and the rest located again, until what is left locates.
fn partial<S: FileSource + ?Sized>(planned: Planned, files: &S, options: &ApplyOptions) -> (Planned, ApplyReport) {
    let dialect = planned.blocks[0].plan.dialect.clone();
    let mut plan = if planned.whole {
        planned.blocks.into_iter().next().map_or_else(|| EditPlan::new(dialect.clone(), Vec::new()), |b| b.plan)
    } else {
        let mut all = EditPlan::new(dialect.clone(), Vec::new());
        for block in planned.blocks {
            all.files.extend(block.plan.files);
            all.warnings.extend(block.plan.warnings);
        }
        all
    };
    let mut left = ApplyReport::new(dialect, Vec::new());
    let dry = options.clone().dry_run(true);
    while !plan.files.is_empty() {
        let Err(err) = polypatch::compute(&plan, files, &dry) else { break };
        let failed: Vec<_> = err
            .report
            .files
            .into_iter()
            .filter(|f| !f.status.is_success() && f.status != polypatch::report::Status::NotAttempted)
            .collect();
        if failed.is_empty() {
            break;
        }
        let touches = |fe: &polypatch::plan::FileEdit, path: &str| {
            fe.path == path
                || match &fe.op {
                    polypatch::plan::FileOp::Modify(m) => {
                        m.move_to.as_deref() == Some(path) || m.copy_from.as_deref() == Some(path)
                    }
                    _ => false,
                }
        };
        let before = plan.files.len();
        plan.files.retain(|fe| {
            !failed.iter().any(|f| touches(fe, &f.path) || f.moved_to.as_deref().is_some_and(|to| touches(fe, to)))
        });
        left.files.extend(failed);
        if plan.files.len() == before {
            // Nothing to leave out: report what is left as failed too.
            break;
        }
    }
    (Planned::whole(plan), left)
}

/// `--reply-format`'s output: the results as a JSON array.
fn results_json(results: &[serde_json::Value]) -> String {
    let mut out = serde_json::to_string_pretty(results).unwrap_or_default();
    out.push('\n');
    out
}

/// The parse options of `args`: the strip level, the file of blocks that name none, the
/// binary budgets.
fn parse_options(args: &ApplyArgs) -> ParseOptions {
    let mut parse = ParseOptions::default();
    if let Some(n) = args.strip {
        parse = parse.strip(n);
    }
    if let Some(path) = &args.file {
        parse = parse.file(path.clone());
    }
    if let Some(bytes) = args.max_binary_size {
        parse = parse.max_binary_size(bytes);
    }
    if let Some(bytes) = args.max_total_binary_size {
        parse = parse.max_total_binary_size(bytes);
    }
    parse.skip_binary_without_data(args.skip_binary_without_data)
}

/// Rolls back an interrupted commit before anything else is read or written (`apply`), or
/// warns that one is pending (`check`, `diff`). `apply` takes the root's commit lock
/// first and holds it until it is done (the set is dropped): another `polypatch apply` in
/// the same root waits for it (a few seconds at most), then reads the files this one
/// wrote, instead of replacing them with what it computed from their content before.
fn prepare_root(
    files: &DiskFileSet,
    root: &std::path::Path,
    mode: Mode,
    warnings: &mut Vec<String>,
) -> Result<(), Exit> {
    if mode == Mode::Apply {
        match files.hold_lock() {
            Ok(()) => {}
            // A root this user cannot write: nothing is locked, and a commit that has
            // anything to write says why it cannot.
            Err(err) if matches!(err.kind(), io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem) => {}
            Err(err) => {
                stderr(&format!("error: cannot apply in `{}`: {err}\n", root.display()));
                return Err(Exit::NotApplied);
            }
        }
        match files.recover() {
            Ok(recovery) if !recovery.is_empty() => warnings.push(output::recovery_line(&recovery)),
            Ok(_) => {}
            Err(err) => {
                stderr(&format!("error: cannot recover the interrupted commit in `{}`: {err}\n", root.display()));
                return Err(Exit::NotApplied);
            }
        }
    } else if let Ok(pending) = files.interrupted()
        && let Some(first) = pending.first()
    {
        warnings.push(format!(
            "an interrupted commit is pending (`{first}`): the files may be half patched; `polypatch apply` or \
             `polypatch recover` rolls it back first"
        ));
    }
    Ok(())
}

/// Whether `text` is read as a reply (`Err`) rather than parsed whole by the detected
/// dialect (`Ok`: that dialect, and the plan when it was parsed here, so that it is neither
/// detected nor parsed a second time): a reply when no dialect recognises it at all (it
/// says "no patch"); when its blocks are of another dialect than the whole text's, or are
/// several blocks the whole parse does not take all of; when a block is cut off
/// ([`polypatch::extract::Block::cut_off`]); or when the whole parse fails and the one block found is
/// not the whole text (prose around it).
fn is_reply(text: &str, parse: &ParseOptions) -> Result<(&'static dyn polypatch::Dialect, Option<EditPlan>), ()> {
    let Some(detected) = polypatch::detect(text) else { return Err(()) };
    let blocks = polypatch::extract(text);
    if blocks.is_empty() {
        return Ok((detected, None));
    }
    // A fence the reply was cut off inside: the reply path refuses it (`truncated`), even
    // where the whole text would parse.
    if blocks.iter().any(|b| b.cut_off) {
        return Err(());
    }
    // The usual bare patch: one block that is the whole text (no second parse needed).
    if let [only] = blocks.as_slice()
        && only.indent == 0
        && only.text.trim() == text.trim()
    {
        return Ok((detected, None));
    }
    match detected.parse_with(text, parse) {
        Ok(plan) => {
            if blocks.iter().any(|b| b.dialect != detected.name()) {
                return Err(());
            }
            if blocks.len() == 1 {
                return Ok((detected, Some(plan)));
            }
            // Several blocks of the one dialect: the whole parse must take every edit of every
            // block (an Aptix parse takes the first bundle only; ApplyDiff merges a file's blocks).
            let each: usize =
                blocks.iter().filter_map(|b| detected.parse_with(&b.content(), parse).ok()).map(|p| edits(&p)).sum();
            if edits(&plan) == each { Ok((detected, Some(plan))) } else { Err(()) }
        }
        Err(_) => Err(()),
    }
}

/// How many edits a plan makes: each edit of a modified file, and each other file operation.
fn edits(plan: &EditPlan) -> usize {
    plan.files
        .iter()
        .map(|f| match &f.op {
            polypatch::plan::FileOp::Modify(m) => m.edits.len().max(1),
            _ => 1,
        })
        .sum()
}

/// The blocks of every PATCH argument (`first` is the first one's text), numbered from 1
/// across all of them. `Err`: the exit code, the error printed.
fn plan_sources(
    args: &ApplyArgs,
    format: Option<&str>,
    first: &str,
    parse: &ParseOptions,
) -> Result<Vec<PlannedBlock>, Exit> {
    let several = !args.more.is_empty();
    let mut paths = vec![args.patch.as_path()];
    paths.extend(args.more.iter().map(PathBuf::as_path));
    if paths.iter().filter(|p| cli::is_stdin(p)).count() > 1 {
        return Err(usage_error(args.json, &anyhow!("standard input (`-`) can be given as one PATCH only")));
    }
    let mut blocks: Vec<PlannedBlock> = Vec::new();
    // Every file's blocks are one transaction: their binary data shares one budget.
    let mut parse = parse.clone();
    for (i, path) in paths.iter().enumerate() {
        let text = if i == 0 {
            first.to_string()
        } else {
            match inout::read_patch(path, format) {
                Ok(text) => text,
                Err(Input::Unreadable(err)) => return Err(usage_error(args.json, &err)),
                Err(Input::NotText(err, lossy)) => {
                    let block =
                        BlockInfo::new(blocks.len() + 1, err.dialect.clone()).with_source(path.display().to_string());
                    return Err(block_malformed(args.json, &block, &err, &lossy));
                }
            }
        };
        let source = several.then(|| if cli::is_stdin(path) { "-".to_string() } else { path.display().to_string() });
        let planned = if format.is_some() || (several && is_reply(&text, &parse).is_ok()) {
            cli::parse_as(&text, format, &parse)
                .map(|plan| vec![PlannedBlock::new(BlockInfo::new(1, plan.dialect.clone()), plan)])
                .map_err(|error| ReplyError::Malformed { block: BlockInfo::new(1, error.dialect.clone()), error })
        } else {
            polypatch::reply::plan_reply(&text, &parse)
        };
        let offset = blocks.len();
        let tag = |mut info: BlockInfo| {
            info.index += offset;
            info.source.clone_from(&source);
            info
        };
        match planned {
            Ok(planned) => {
                let expanded = planned.iter().map(|b| b.plan.binary_size()).fold(0, u64::saturating_add);
                parse.binary_expanded_before = parse.binary_expanded_before.saturating_add(expanded);
                blocks.extend(planned.into_iter().map(|b| PlannedBlock::new(tag(b.info), b.plan)));
            }
            Err(ReplyError::Malformed { block, error }) => {
                return Err(block_malformed(args.json, &tag(block), &error, &text));
            }
            Err(err) => {
                let err = match &source {
                    Some(source) => anyhow!("`{source}`: {err}"),
                    None => anyhow!("{err}"),
                };
                return Err(no_patch(args.json, &err));
            }
        }
    }
    Ok(blocks)
}

/// Several blocks: one could not be located, or a write failed (exit 1).
fn blocks_failed(json: bool, err: &ReplyError, warnings: &[String]) -> Exit {
    let ReplyError::NotApplied { report, commit_error, rolled_back } = err else {
        return usage_error(json, &anyhow!("{err}"));
    };
    if json {
        stdout(&output::blocks_json(&Err(err.clone()), warnings, None));
        return Exit::NotApplied;
    }
    let mut out = match commit_error {
        None => "error: could not apply the patch blocks, nothing was written\n".to_string(),
        Some(cause) if *rolled_back => format!(
            "error: every edit was located, but writing the files failed: {}\nnothing was written: every file is as \
             it was\n",
            escape::one_line(&cause.to_string())
        ),
        Some(cause) => format!(
            "error: every edit was located, but writing the files failed: {}\nrun `polypatch recover` in the root to \
             give every file its content from before\n",
            escape::one_line(&cause.to_string())
        ),
    };
    out.push_str(&output::blocks_text(report));
    stderr(&out);
    Exit::NotApplied
}

/// A malformed block: exit 2, the error pointing into the text the block is in.
fn block_malformed(json: bool, block: &BlockInfo, err: &PatchError, source: &str) -> Exit {
    if json {
        let err = ReplyError::Malformed { block: block.clone(), error: err.clone() };
        stdout(&output::document(&ReportDocument::of_reply(&Err(err), source)));
    } else {
        let head = escape::one_line(&block.to_string()).into_owned();
        stderr(&format!("error: {head}: {}\n", escape::terminal(&err.render(source))));
    }
    Exit::Invalid
}

/// A reply without any patch: exit 2, kind `no_patch`.
fn no_patch(json: bool, err: &anyhow::Error) -> Exit {
    if json {
        let mut doc = ReportDocument::of_reply(&Err(ReplyError::NoPatch), "");
        if let Some(error) = doc.error.as_mut() {
            // The message names the file the text came from.
            error.message = format!("{err:#}");
        }
        stdout(&output::document(&doc));
    } else {
        stderr(&output::usage_text(err));
    }
    Exit::Invalid
}

/// A `--read-hash PATH=HASH` value.
fn read_hash(given: &str) -> anyhow::Result<(&str, ReadHash)> {
    let (path, hash) = given.rsplit_once('=').ok_or_else(|| {
        anyhow::anyhow!("`--read-hash {given}`: write the path, `=` and its hash, as `--read-hash src/a.rs=sha256:…`")
    })?;
    let hash = ReadHash::parse(hash).map_err(|err| anyhow::anyhow!("`--read-hash {given}`: {err}"))?;
    Ok((path, hash))
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;
    use std::sync::atomic::{AtomicBool, Ordering};

    use polypatch::fs::{Entry, PathError, RelPath};

    use super::*;

    /// What another program saves: a line more than polypatch read.
    const THEIRS: &str = "one\ntwo\ntheir line\n";

    /// The disk, with another program that saves `a.txt` right after polypatch first read it.
    struct SavedMeanwhile {
        disk: DiskFileSet,
        saved: AtomicBool,
    }

    impl SavedMeanwhile {
        fn new(root: &Path) -> Self {
            fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
            SavedMeanwhile { disk: DiskFileSet::new(root).unwrap(), saved: false.into() }
        }
    }

    impl FileSource for SavedMeanwhile {
        fn resolve(&self, path: &str) -> Result<RelPath, PathError> {
            self.disk.resolve(path)
        }

        fn as_written(&self, path: &str) -> Result<RelPath, PathError> {
            self.disk.as_written(path)
        }

        fn read(&self, path: &RelPath) -> io::Result<Entry> {
            let entry = self.disk.read(path)?;
            if path.as_str() == "a.txt" && !self.saved.swap(true, Ordering::SeqCst) {
                fs::write(self.disk.full_path(path), THEIRS).unwrap();
            }
            Ok(entry)
        }

        fn is_symlink(&self, path: &str) -> bool {
            self.disk.is_symlink(path)
        }
    }

    /// `diff` shows the bytes the edits were located on as the old side, for a whole patch
    /// and for a reply's blocks: another program's save after polypatch read the file is
    /// not shown as the original. The diff once read every changed file again: the save
    /// became the old side, and the diff (fed to `git apply`) would have undone it.
    #[test]
    fn the_diff_shows_the_bytes_the_edits_were_located_on_not_a_later_save() {
        let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+uno\n*** End Patch\n";
        let whole = || Planned::whole(polypatch::parse(patch, polypatch::Format::AiPatch).unwrap());
        let reply = || {
            let blocks = polypatch::reply::plan_reply(&format!("Fix:\n\n```\n{patch}```\n"), &ParseOptions::default());
            Planned { blocks: blocks.unwrap(), whole: false }
        };
        let diff_of = |planned: Planned, files: &dyn FileSource| {
            let Ok((_, diff)) = planned.diff(files, &ApplyOptions::default()) else { panic!("not located") };
            diff.unwrap()
        };
        let want = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+uno\n two\n";
        for planned in [&whole as &dyn Fn() -> Planned, &reply] {
            let clean = tempfile::tempdir().unwrap();
            let clean_diff = diff_of(planned(), &SavedMeanwhile::new(clean.path()).disk);
            assert!(clean_diff.ends_with(want), "{clean_diff}");

            let dir = tempfile::tempdir().unwrap();
            let files = SavedMeanwhile::new(dir.path());
            assert_eq!(diff_of(planned(), &files), clean_diff);
            assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), THEIRS);
        }
    }
}

//! Model replies and several patch files: `extract`, `detect --json`, and `apply`/`check`/
//! `diff` of every block as one transaction.
//!
//! A text that one dialect parses whole, and that holds no block of another dialect, keeps
//! the one-patch path of `run`; everything else (several blocks, prose the dialect's parser
//! refuses, several PATCH arguments) comes here. A reply without any patch is exit 2, like
//! a malformed patch.

use std::collections::BTreeSet;
use std::io::{self, IsTerminal as _};
use std::path::Path;

use anyhow::anyhow;
use polypatch::unified::generate::DiffOptions;
use polypatch::{
    ApplyOptions, BlockInfo, DiskFileSet, ParseOptions, PatchError, PlannedBlock, ReplyError, ReplyReport,
    ReportDocument,
};
use serde::Serialize;

use crate::cli::{self, ApplyArgs, DetectArgs, ExtractArgs};
use crate::escape;
use crate::output;
use crate::run::{self, Exit, Input, Mode, stderr, stdout, usage_error as usage};

/// How a text is applied: through the reply path, or parsed whole by one dialect.
pub enum Routed {
    /// The reply path applied it (or refused it): the exit code.
    Done(Exit),
    /// The one-patch path: parse the text whole with the dialect found here (`None`: the
    /// format the user named, or detection), or take the plan the check already parsed.
    Whole(Option<(&'static dyn polypatch::Dialect, Option<polypatch::EditPlan>)>),
}

/// Whether `text` goes through the reply path (`Err`) rather than being parsed whole by the
/// detected dialect (`Ok`: that dialect, and the plan when it was parsed here, so that the
/// one-patch path neither detects nor parses the text a second time): the reply path when
/// no dialect recognises it at all (it says "no patch"); when its blocks are of another
/// dialect than the whole text's, or are several blocks the whole parse does not take all
/// of; when a block is cut off ([`polypatch::Block::cut_off`]); or when the whole parse fails
/// and the one block found is not the whole text (prose around it).
fn is_reply(
    text: &str,
    parse: &ParseOptions,
) -> Result<(&'static dyn polypatch::Dialect, Option<polypatch::EditPlan>), ()> {
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
fn edits(plan: &polypatch::EditPlan) -> usize {
    plan.files
        .iter()
        .map(|f| match &f.op {
            polypatch::FileOp::Modify(m) => m.edits.len().max(1),
            _ => 1,
        })
        .sum()
}

/// `apply`/`check`/`diff` through the reply path, when it applies (see [`is_reply`]);
/// [`Routed::Whole`] keeps the one-patch path.
pub fn route(args: &ApplyArgs, mode: Mode, format: Option<&str>, text: &str, parse: &ParseOptions) -> Routed {
    if args.more.is_empty() {
        if format.is_some() {
            return Routed::Whole(None);
        }
        if let Ok(whole) = is_reply(text, parse) {
            return Routed::Whole(Some(whole));
        }
    }
    Routed::Done(apply(args, mode, format, text, parse))
}

/// The blocks of every PATCH argument, numbered from 1 across all of them.
fn plan_sources(
    args: &ApplyArgs,
    format: Option<&str>,
    first: &str,
    parse: &ParseOptions,
) -> Result<Vec<PlannedBlock>, Exit> {
    let several = !args.more.is_empty();
    let mut paths = vec![args.patch.as_path()];
    paths.extend(args.more.iter().map(std::path::PathBuf::as_path));
    if paths.iter().filter(|p| cli::is_stdin(p)).count() > 1 {
        return Err(usage(args.json, &anyhow!("standard input (`-`) can be given as one PATCH only")));
    }
    let mut blocks: Vec<PlannedBlock> = Vec::new();
    // Every file's blocks are one transaction: their binary data shares one budget.
    let mut parse = parse.clone();
    for (i, path) in paths.iter().enumerate() {
        let text = if i == 0 {
            first.to_string()
        } else {
            match run::read_patch(path, format) {
                Ok(text) => text,
                Err(Input::Unreadable(err)) => return Err(usage(args.json, &err)),
                Err(Input::NotText(err, lossy)) => {
                    let block = BlockInfo::new(blocks.len() + 1, err.dialect).with_source(path.display().to_string());
                    return Err(malformed(args.json, &block, &err, &lossy));
                }
            }
        };
        let source = several.then(|| if cli::is_stdin(path) { "-".to_string() } else { path.display().to_string() });
        let planned = if format.is_some() || (several && is_reply(&text, &parse).is_ok()) {
            polypatch::parse_with(&text, run::library_format(format), &parse)
                .map(|plan| vec![PlannedBlock::new(BlockInfo::new(1, plan.dialect.clone()), plan)])
                .map_err(|error| ReplyError::Malformed { block: BlockInfo::new(1, error.dialect), error })
        } else {
            polypatch::plan_reply(&text, &parse)
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
                return Err(malformed(args.json, &tag(block), &error, &text));
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

fn apply(args: &ApplyArgs, mode: Mode, format: Option<&str>, first: &str, parse: &ParseOptions) -> Exit {
    if args.session.is_some() {
        return usage(
            args.json,
            &anyhow!("`--session` takes one patch; this is several patch blocks or files: apply them one at a time"),
        );
    }
    let blocks = match plan_sources(args, format, first, parse) {
        Ok(blocks) => blocks,
        Err(exit) => return exit,
    };
    // An `ap` plan's paths are relative to its file's folder (run::default_root).
    let dialect = if blocks.iter().all(|b| b.info.dialect == "ap") { "ap" } else { "" };
    let root = args
        .root
        .clone()
        .unwrap_or_else(|| if args.more.is_empty() { run::default_root(dialect, &args.patch) } else { ".".into() });
    let mut files = match run::open_root_for(&root, args) {
        Ok(files) => files,
        Err(err) => return usage(args.json, &err),
    };
    let mut warnings = Vec::new();
    if let Err(exit) = run::prepare_root(&files, &root, mode, &mut warnings) {
        return exit;
    }
    for block in &blocks {
        warnings.extend(block.plan.warnings.iter().map(|w| format!("{}: {w}", block.info)));
    }
    if !args.json {
        stderr(&output::warnings_text(&warnings));
    }
    let options = ApplyOptions::default()
        .strict(args.strict)
        .dry_run(mode != Mode::Apply)
        .skip_missing_text(args.skip_missing_find)
        .allow_git_dir(args.allow_git_dir)
        .allow_fuzzy_removals(args.allow_fuzzy_removals);
    if mode == Mode::Diff {
        return diff(args, &blocks, &files, &options, &warnings);
    }
    match polypatch::apply_blocks(&blocks, &mut files, &options) {
        Ok(report) => {
            if args.json {
                stdout(&reply_json(&Ok(report), &warnings, None));
            } else {
                stdout(&format!("{}{}\n", blocks_text(&report), summary(&report)));
            }
            Exit::Success
        }
        Err(err) => failed(args.json, &err, &warnings),
    }
}

/// `diff` of several blocks: the git diff of everything they change together.
fn diff(
    args: &ApplyArgs,
    blocks: &[PlannedBlock],
    files: &DiskFileSet,
    options: &ApplyOptions,
    warnings: &[String],
) -> Exit {
    let computed = match polypatch::compute_blocks(blocks, files, options) {
        Ok(computed) => computed,
        Err(err) => return failed(args.json, &err, warnings),
    };
    let diff = match polypatch::unified::generate::diff_changes(files, &computed.changes, &DiffOptions::default()) {
        Ok(diff) => diff,
        Err(err) => {
            return usage(args.json, &anyhow::Error::new(err).context("cannot read the files to show the diff"));
        }
    };
    if args.json {
        stdout(&reply_json(&Ok(computed.report), warnings, Some(&diff)));
    } else if io::stdout().is_terminal() {
        stdout(&escape::terminal(&diff));
    } else {
        stdout(&diff);
    }
    Exit::Success
}

/// Every block's report under a `block N (dialect, lines a-b): status` line.
fn blocks_text(report: &ReplyReport) -> String {
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

/// The last line: `applied 3 edits in 2 files (3 blocks)`; a file several blocks change
/// counts once.
fn summary(report: &ReplyReport) -> String {
    let mut files = BTreeSet::new();
    let mut edits = 0;
    for (_, file) in report.files().filter(|(_, f)| output::changes(f.status)) {
        files.insert(file.moved_to.as_deref().unwrap_or(&file.path));
        edits += file.edits.iter().filter(|e| output::changes(e.status)).count().max(1);
    }
    let plural = |n: usize, word: &str| if n == 1 { format!("{n} {word}") } else { format!("{n} {word}s") };
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

/// The JSON document of a run of several blocks: the library's document, whose `blocks`
/// carry each block's `index`, `dialect`, `lines`, `fence`, `source`, `status` and `report`.
fn reply_json(result: &Result<ReplyReport, ReplyError>, warnings: &[String], diff: Option<&str>) -> String {
    let mut doc = ReportDocument::of_reply(result, "").with_warnings(warnings);
    if let Some(diff) = diff {
        doc = doc.with_diff(diff);
    }
    output::document(&doc)
}

/// A block that could not be located, or a write that failed: exit 1.
fn failed(json: bool, err: &ReplyError, warnings: &[String]) -> Exit {
    let ReplyError::NotApplied { report, commit_error, rolled_back } = err else {
        return usage(json, &anyhow!("{err}"));
    };
    if json {
        stdout(&reply_json(&Err(err.clone()), warnings, None));
        return Exit::NotApplied;
    }
    let mut out = match commit_error {
        None => "error: could not apply the patch blocks, nothing was written\n".to_string(),
        Some(cause) if *rolled_back => format!(
            "error: every edit was located, but writing the files failed: {}\nnothing was written: every file is as \
             it was\n",
            escape::one_line(cause)
        ),
        Some(cause) => format!(
            "error: every edit was located, but writing the files failed: {}\nrun `polypatch recover` in the root to \
             give every file its content from before\n",
            escape::one_line(cause)
        ),
    };
    out.push_str(&blocks_text(report));
    stderr(&out);
    Exit::NotApplied
}

/// A malformed block: exit 2, the error pointing into the text the block is in.
fn malformed(json: bool, block: &BlockInfo, err: &PatchError, source: &str) -> Exit {
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

/// Reads the text of `extract` and `detect`: exit 2 when it cannot be had.
fn read_text(path: &Path) -> Result<String, Exit> {
    match run::read_patch(path, None) {
        Ok(text) => Ok(text),
        Err(Input::Unreadable(err)) => Err(usage(false, &err)),
        Err(Input::NotText(err, lossy)) => {
            stderr(&output::malformed_text(&err, &lossy));
            Err(Exit::Invalid)
        }
    }
}

/// `extract`: the blocks of a reply, as one JSON document or printed one after the other.
/// Exit 0 when there is a block, 1 when there is none.
pub fn extract(args: &ExtractArgs) -> Exit {
    let text = match read_text(&args.reply) {
        Ok(text) => text,
        Err(exit) => return exit,
    };
    let blocks = polypatch::extract(&text);
    if args.json {
        #[derive(Serialize)]
        struct Document<'a> {
            version: u32,
            blocks: Vec<Entry<'a>>,
        }
        #[derive(Serialize)]
        struct Entry<'a> {
            index: usize,
            #[serde(flatten)]
            block: &'a polypatch::Block<'a>,
        }
        let blocks = blocks.iter().enumerate().map(|(i, block)| Entry { index: i + 1, block }).collect();
        stdout(&output::document(&Document { version: polypatch::JSON_VERSION, blocks }));
    } else {
        let mut out = String::new();
        for (i, block) in blocks.iter().enumerate() {
            let fence = block.fence.map(|f| format!(", fenced ```{f}")).unwrap_or_default();
            let lines = if block.lines.start == block.lines.end {
                format!("line {}", block.lines.start)
            } else {
                format!("lines {}-{}", block.lines.start, block.lines.end)
            };
            // A fence the reply was cut off inside (`apply` refuses it as `truncated`).
            let cut = if block.cut_off { ", cut off mid-line" } else { "" };
            let head = format!("=== block {}: {}, {lines}{fence}{cut} ===", i + 1, block.dialect);
            out.push_str(&escape::one_line(&head));
            out.push('\n');
            out.push_str(block.text);
            if !block.text.ends_with('\n') {
                out.push('\n');
            }
        }
        if io::stdout().is_terminal() {
            out = escape::terminal(&out).into_owned();
        }
        stdout(&out);
        if blocks.is_empty() {
            stderr("no patch block found\n");
        }
    }
    if blocks.is_empty() { Exit::NotApplied } else { Exit::Success }
}

/// `detect --json`: every dialect's score, highest first, and the best dialect (`null` when
/// none scores above 0; exit 1 then, as `detect` without `--json`).
pub fn detect_json(args: &DetectArgs) -> Exit {
    #[derive(Serialize)]
    struct Document {
        version: u32,
        dialect: Option<&'static str>,
        scores: Vec<Score>,
    }
    #[derive(Serialize)]
    struct Score {
        dialect: &'static str,
        confidence: u8,
    }
    let text = match read_text(&args.patch) {
        Ok(text) => text,
        Err(exit) => return exit,
    };
    let scores: Vec<Score> = polypatch::detect_all(&text)
        .into_iter()
        .map(|(d, confidence)| Score { dialect: d.name(), confidence })
        .collect();
    let dialect = scores.first().filter(|s| s.confidence > 0).map(|s| s.dialect);
    stdout(&output::document(&Document { version: polypatch::JSON_VERSION, dialect, scores }));
    if dialect.is_some() { Exit::Success } else { Exit::NotApplied }
}

//! What each verb does, ending in an exit code.

use std::fs;
use std::io::{self, IsTerminal as _, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, anyhow, bail};
use polypatch::unified::generate::DiffOptions;
use polypatch::{ApplyOptions, DiskFileSet, Durability, ParseOptions, PatchError, Span};

use crate::cli::{self, ApplyArgs, Cli, Command, DetectArgs, RecoverArgs};
use crate::output;
use crate::reply;
use crate::session::{self, Kept};
use crate::term::{self, Stream};
use crate::{editor, escape, generate, schema};

/// The exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Applied, already applied, or a check that would apply.
    Success = 0,
    /// The patch could not be applied; nothing was written (or `detect` found nothing).
    NotApplied = 1,
    /// A malformed patch or a usage error.
    Invalid = 2,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit as u8)
    }
}

/// Runs the verb `cli` names.
pub fn run(cli: &Cli) -> Exit {
    term::init(cli.globals.color, cli.globals.quiet);
    match &cli.command {
        Command::Apply(args) if args.stdin_json => editor::run(args.root.as_deref()),
        Command::Apply(args) => apply(args, if args.dry_run { Mode::Check } else { Mode::Apply }),
        Command::Check(args) | Command::Diff(args) if args.stdin_json => {
            stderr(&output::usage_text(&anyhow!("`--stdin-json` is for `apply`")));
            Exit::Invalid
        }
        Command::Check(args) => apply(args, Mode::Check),
        Command::Diff(args) => apply(args, Mode::Diff),
        Command::Detect(args) => detect(args),
        Command::Convert(args) => crate::convert::convert_verb(args),
        Command::Extract(args) => reply::extract(args),
        Command::Recover(args) => recover(args),
        Command::Formats(args) => {
            let names = polypatch::dialect_names();
            if args.json {
                stdout(&output::formats_json(&names));
            } else {
                stdout(&names.iter().flat_map(|name| [*name, "\n"]).collect::<String>());
            }
            Exit::Success
        }
        Command::Schema(args) => schema::run(args),
        Command::Prompt(args) => match generate::prompt(&args.format) {
            Ok(text) => {
                stdout(text);
                Exit::Success
            }
            Err(err) => {
                stderr(&output::usage_text(&err));
                Exit::Invalid
            }
        },
        Command::Completions(args) => {
            stdout_bytes(&generate::completions(args.shell));
            Exit::Success
        }
        Command::Man(args) => {
            let written = match &args.dir {
                None => generate::man().map(|page| stdout_bytes(&page)),
                Some(dir) => generate::man_pages(dir),
            };
            match written {
                Ok(()) => Exit::Success,
                Err(err) => {
                    let err = anyhow::Error::new(err).context(match &args.dir {
                        None => "cannot write the manual page".to_string(),
                        Some(dir) => format!("cannot write the manual pages into `{}`", dir.display()),
                    });
                    stderr(&output::usage_text(&err));
                    Exit::Invalid
                }
            }
        }
    }
}

/// Why the patch text could not be had.
pub(crate) enum Input {
    /// Unreadable file, stdin failure: a usage error.
    Unreadable(anyhow::Error),
    /// Not UTF-8 and not a unified diff: a malformed patch, reported against the lossily
    /// decoded text.
    NotText(PatchError, String),
}

/// What `apply` does once every edit is located.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Write the changes.
    Apply,
    /// Write nothing, report.
    Check,
    /// Write nothing, print the changes as a git diff.
    Diff,
}

fn apply(args: &ApplyArgs, mode: Mode) -> Exit {
    let dry_run = mode != Mode::Apply;
    let usage = |err: anyhow::Error| usage_error(args.json, &err);

    let format = match resolve_format(&args.format) {
        Ok(format) => format,
        Err(err) => return usage(err),
    };
    // The session comes first: a state file that cannot be used stops the run before
    // anything is applied, and is left as it is.
    let mut kept = match &args.session {
        None => None,
        Some(_) if mode == Mode::Diff => return usage(anyhow!("`--session` is for `apply` and `check`, not `diff`")),
        Some(path) => match Kept::load(path, args.max_exchanges.map(|n| usize::try_from(n).unwrap_or(usize::MAX))) {
            Ok(kept) => Some(kept),
            Err(err) => return usage(err),
        },
    };
    let guidance = args.guidance.as_deref().unwrap_or(session::DEFAULT_GUIDANCE);
    // A dry run records nothing in the session; it still shows the block.
    let recording = mode == Mode::Apply;
    let malformed = |err: &PatchError, source: &str, kept: Option<&mut Kept>| {
        let applydiff = format == Some("applydiff") || err.dialect == "applydiff";
        let mut kept = kept;
        let mut save_error = None;
        if let Some(kept) = kept.as_deref_mut()
            && recording
        {
            kept.session.record_format_invalid();
            save_error = kept.save().err();
        }
        let extra = output::Extra {
            feedback: applydiff.then(|| polypatch::applydiff::format_invalid(err, source)),
            session: kept_view(kept.as_deref(), guidance),
        };
        if args.json {
            stdout(&output::malformed_json(err, source, &extra));
        } else {
            stderr(&term::report(&output::malformed_text_with(err, source, &extra), Stream::Err));
        }
        if let Some(err) = save_error {
            stderr(&output::usage_text(&err.context("the patch was malformed; nothing was written")));
        }
        Exit::Invalid
    };

    let text = match read_patch(&args.patch, format) {
        Ok(text) => text,
        Err(Input::Unreadable(err)) => return usage(err),
        Err(Input::NotText(err, lossy)) => return malformed(&err, &lossy, kept.as_mut()),
    };
    let mut parse_options = ParseOptions::default();
    if let Some(n) = args.strip {
        parse_options = parse_options.strip(n);
    }
    if let Some(bytes) = args.max_binary_size {
        parse_options = parse_options.max_binary_size(bytes);
    }
    if let Some(bytes) = args.max_total_binary_size {
        parse_options = parse_options.max_total_binary_size(bytes);
    }
    parse_options = parse_options.skip_binary_without_data(args.skip_binary_without_data);
    // Several patch files, or a model's reply (several blocks, prose around a block): every
    // block is applied as one transaction.
    let parsed = match reply::route(args, mode, format, &text, &parse_options) {
        reply::Routed::Done(exit) => return exit,
        reply::Routed::Whole(Some((_, Some(plan)))) => Ok(plan),
        reply::Routed::Whole(Some((dialect, None))) => dialect.parse_with(&text, &parse_options),
        reply::Routed::Whole(None) => polypatch::parse_with(&text, library_format(format), &parse_options),
    };
    let plan = match parsed {
        Ok(plan) => plan,
        Err(err) => return malformed(&err, &text, kept.as_mut()),
    };
    let root = args.root.clone().unwrap_or_else(|| default_root(&plan.dialect, &args.patch));
    let mut files = match open_root_for(&root, args) {
        Ok(files) => files,
        Err(err) => return usage(err),
    };
    let mut warnings = plan.warnings.clone();
    if let Err(exit) = prepare_root(&files, &root, mode, &mut warnings) {
        return exit;
    }
    if !args.json && !term::quiet() {
        stderr(&output::warnings_text(&warnings));
    }

    let options = ApplyOptions::default()
        .strict(args.strict)
        .dry_run(dry_run)
        .skip_missing_text(args.skip_missing_find)
        .allow_git_dir(args.allow_git_dir)
        .allow_fuzzy_removals(args.allow_fuzzy_removals);
    if mode == Mode::Diff {
        return show_diff(args, &plan, &files, &options);
    }
    let before = match &kept {
        Some(_) if recording => session::read_before(&plan, &files),
        _ => session::Before::new(),
    };
    let result = polypatch::apply(&plan, &mut files, &options);
    let report = match &result {
        Ok(report) => report,
        Err(err) => &err.report,
    };
    let mut save_error = None;
    if let Some(kept) = kept.as_mut()
        && recording
    {
        session::record(&mut kept.session, report, &before, &files);
        save_error = kept.save().err();
    }
    let applydiff = plan.dialect == "applydiff";
    let extra = output::Extra {
        feedback: applydiff.then(|| {
            // The spec's "Health updated in [SESSION CONTEXT]" only when a session was.
            let shown = polypatch::located(report);
            if kept.is_some() && report.committed {
                polypatch::applydiff::session_feedback(&shown)
            } else {
                polypatch::applydiff::feedback(&shown)
            }
        }),
        session: kept_view(kept.as_ref(), guidance),
    };
    let exit = match &result {
        Ok(report) => {
            if args.json {
                stdout(&output::success_json_with(report, &warnings, &extra));
            } else if !term::quiet() {
                stdout(&term::report(&output::success_text_with(report, &extra), Stream::Out));
            }
            Exit::Success
        }
        Err(err) => {
            if args.json {
                stdout(&output::failure_json_with(err, &warnings, &extra));
            } else {
                stderr(&term::report(&output::failure_text_with(err, &extra), Stream::Err));
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

/// Rolls back an interrupted commit before anything else is read or written (`apply`), or
/// warns that one is pending (`check`, `diff`). `apply` takes the root's commit lock
/// first and holds it until it is done (the set is dropped): another `polypatch apply` in
/// the same root waits for it (a few seconds at most), then reads the files this one
/// wrote, instead of replacing them with what it computed from their content before.
pub(crate) fn prepare_root(
    files: &DiskFileSet,
    root: &Path,
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

/// The session and guidance to show, when `--session` is given.
fn kept_view<'a>(kept: Option<&'a Kept>, guidance: &'a str) -> Option<(&'a polypatch::applydiff::Session, &'a str)> {
    kept.map(|kept| (&kept.session, guidance))
}

/// `diff`: locate everything, write nothing, print the effect as a git diff (or, with
/// `--json`, the report with the diff in it).
fn show_diff(args: &ApplyArgs, plan: &polypatch::EditPlan, files: &DiskFileSet, options: &ApplyOptions) -> Exit {
    let computed = match polypatch::compute(plan, files, options) {
        Ok(computed) => computed,
        Err(err) => {
            if args.json {
                stdout(&output::failure_json_with(&err, &plan.warnings, &output::Extra::default()));
            } else {
                stderr(&term::report(&output::failure_text(&err), Stream::Err));
            }
            return Exit::NotApplied;
        }
    };
    let diff = match polypatch::unified::generate::diff_changes(files, &computed.changes, &DiffOptions::default()) {
        Ok(diff) => diff,
        Err(err) => {
            let err = anyhow::Error::new(err).context("cannot read the files to show the diff");
            if args.json {
                stdout(&output::usage_json(&err));
            } else {
                stderr(&output::usage_text(&err));
            }
            return Exit::Invalid;
        }
    };
    if args.json {
        stdout(&output::diff_json(&computed.report, &diff, &plan.warnings));
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

fn detect(args: &DetectArgs) -> Exit {
    if args.json {
        return reply::detect_json(args);
    }
    let text = match read_patch(&args.patch, None) {
        Ok(text) => text,
        Err(Input::Unreadable(err)) => {
            stderr(&output::usage_text(&err));
            return Exit::Invalid;
        }
        Err(Input::NotText(err, lossy)) => {
            stderr(&output::malformed_text(&err, &lossy));
            return Exit::Invalid;
        }
    };
    if let Some(dialect) = polypatch::detect(&text) {
        stdout(&format!("{}\n", dialect.name()));
        Exit::Success
    } else {
        stderr(&format!("no known patch format matched (known formats: {})\n", polypatch::dialect_names().join(", ")));
        Exit::NotApplied
    }
}

/// `None` for `auto`; the dialect's name otherwise; an error listing the known names.
pub(crate) fn resolve_format(name: &str) -> anyhow::Result<Option<&'static str>> {
    if name == "auto" {
        return Ok(None);
    }
    match polypatch::dialect(name) {
        Some(dialect) => Ok(Some(dialect.name())),
        None => bail!("unknown format `{name}`; known formats: {}", cli::format_names().join(", ")),
    }
}

/// The library's [`polypatch::Format`] of a name [`resolve_format`] returned.
pub(crate) fn library_format(name: Option<&str>) -> polypatch::Format {
    name.map_or(polypatch::Format::Auto, |name| name.parse().expect("resolve_format checked the name"))
}

/// The root when `--root` is not given: an `ap` patch's paths are relative to the patch
/// file's folder (its spec, §2.3); every other patch's to the current directory.
pub(crate) fn default_root(dialect: &str, patch: &Path) -> PathBuf {
    match patch.parent() {
        Some(dir) if dialect == "ap" && !cli::is_stdin(patch) => {
            if dir.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                dir.to_path_buf()
            }
        }
        _ => PathBuf::from("."),
    }
}

/// `recover`: roll back interrupted commits under the root and remove their leftovers.
fn recover(args: &RecoverArgs) -> Exit {
    let root = args.root.clone().unwrap_or_else(|| PathBuf::from("."));
    let result = open_root(&root)
        .and_then(|files| files.recover().with_context(|| format!("cannot recover in `{}`", root.display())));
    match result {
        Ok(recovery) => {
            if args.json {
                stdout(&output::recovery_json(&recovery));
            } else if !term::quiet() || !recovery.problems.is_empty() {
                stdout(&output::recovery_text(&recovery));
            }
            if recovery.problems.is_empty() { Exit::Success } else { Exit::NotApplied }
        }
        Err(err) => {
            if args.json {
                stdout(&output::usage_json(&err));
            } else {
                stderr(&output::usage_text(&err));
            }
            Exit::Invalid
        }
    }
}

/// The durability policy of `apply`'s commit: `--fsync`, else `$POLYPATCH_FSYNC`, else the
/// library's default.
pub(crate) fn durability(args: &ApplyArgs) -> anyhow::Result<Durability> {
    let (name, from) = match &args.fsync {
        Some(name) => (name.clone(), "--fsync"),
        None => match std::env::var("POLYPATCH_FSYNC") {
            Ok(name) if !name.is_empty() => (name, "POLYPATCH_FSYNC"),
            _ => return Ok(Durability::default()),
        },
    };
    Durability::from_name(&name).with_context(|| format!("{from} must be `none` or `full`, not `{name}`"))
}

/// The root as a file set, committing with `apply`'s durability policy.
pub(crate) fn open_root_for(root: &Path, args: &ApplyArgs) -> anyhow::Result<DiskFileSet> {
    Ok(open_root(root)?.durability(durability(args)?))
}

pub(crate) fn open_root(root: &Path) -> anyhow::Result<DiskFileSet> {
    let meta = fs::metadata(root).with_context(|| format!("cannot use root directory `{}`", root.display()))?;
    if !meta.is_dir() {
        bail!("root `{}` is not a directory", root.display());
    }
    DiskFileSet::new(root).with_context(|| format!("cannot use root directory `{}`", root.display()))
}

/// The patch's text. A unified diff may hold bytes that are not UTF-8 (a Latin-1 file's
/// lines): it is read without loss and applied byte for byte, as git applies it. Any other
/// patch must be UTF-8 text.
pub(crate) fn read_patch(patch: &Path, format: Option<&str>) -> Result<String, Input> {
    let bytes = if cli::is_stdin(patch) {
        if let Some(hint) = term::stdin_hint(io::stdin().is_terminal()) {
            stderr(hint);
        }
        let mut bytes = Vec::new();
        io::stdin().lock().read_to_end(&mut bytes).map(|_| bytes).context("cannot read the patch from standard input")
    } else {
        fs::read(patch).with_context(|| format!("cannot read patch file `{}`", patch.display()))
    }
    .map_err(Input::Unreadable)?;
    String::from_utf8(bytes).or_else(|err| {
        let text = polypatch::decode_lossless(err.as_bytes()).into_owned();
        let dialect = format.or_else(|| polypatch::detect(&text).map(polypatch::Dialect::name));
        if dialect == Some("unified") {
            return Ok(text);
        }
        let at = err.utf8_error().valid_up_to();
        let byte = err.as_bytes()[at];
        let lossy = String::from_utf8_lossy(err.as_bytes()).into_owned();
        let message = format!(
            "invalid UTF-8 (byte 0x{byte:02x}); a patch must be UTF-8 text (only a unified diff may hold other \
             bytes: it is applied byte for byte, as git applies it)"
        );
        // The lossy text equals the original up to `at`, so the span points at the
        // replacement character standing for the bad byte.
        Err(Input::NotText(
            PatchError::new("polypatch", polypatch::ErrorKind::NOT_UTF8, message, Some(Span::new(at, at + 1))),
            lossy,
        ))
    })
}

/// Prints a usage error, as JSON with `--json` (exit 2).
pub(crate) fn usage_error(json: bool, err: &anyhow::Error) -> Exit {
    if json {
        stdout(&output::usage_json(err));
    } else {
        stderr(&output::usage_text(err));
    }
    Exit::Invalid
}

/// Writes to standard output. A closed pipe (`polypatch … | head`) is not an error worth
/// a panic: the exit code still says what happened.
pub(crate) fn stdout(text: &str) {
    stdout_bytes(text.as_bytes());
}

/// Writes bytes to standard output, ignoring a closed pipe like [`stdout`].
fn stdout_bytes(bytes: &[u8]) {
    let mut out = io::stdout().lock();
    let _ = out.write_all(bytes).and_then(|()| out.flush());
}

/// Writes to standard error, ignoring a closed stream like [`stdout`].
pub(crate) fn stderr(text: &str) {
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ap_patches_default_to_their_folder() {
        assert_eq!(default_root("ap", Path::new("work/fix.ap")), PathBuf::from("work"));
        assert_eq!(default_root("ap", Path::new("fix.ap")), PathBuf::from("."));
        assert_eq!(default_root("ap", Path::new("-")), PathBuf::from("."));
        assert_eq!(default_root("unified", Path::new("work/fix.diff")), PathBuf::from("."));
        assert_eq!(default_root("ai-patch", Path::new("/abs/fix.patch")), PathBuf::from("."));
    }

    #[test]
    fn auto_means_detect() {
        assert_eq!(resolve_format("auto").unwrap(), None);
    }

    #[test]
    fn known_formats_resolve() {
        for name in polypatch::dialect_names() {
            assert_eq!(resolve_format(name).unwrap(), Some(name));
        }
    }

    #[test]
    fn unknown_format_lists_the_known_ones() {
        let message = format!("{:#}", resolve_format("yaml-ish").unwrap_err());
        assert!(message.starts_with("unknown format `yaml-ish`; known formats: auto"), "{message}");
        for name in polypatch::dialect_names() {
            assert!(message.contains(name), "{message}");
        }
    }

    #[test]
    fn non_utf8_patch_points_at_the_bad_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.patch");
        fs::write(&path, b"*** Begin Patch\n*** Add File: a\n+caf\xe9\n").unwrap();
        let Err(Input::NotText(err, lossy)) = read_patch(&path, None) else { panic!("expected a UTF-8 error") };
        assert_eq!(err.kind, "not_utf8");
        assert!(err.message.contains("0xe9"), "{}", err.message);
        let rendered = err.render(&lossy);
        assert!(rendered.contains("line 3, column 5"), "{rendered}");
    }

    #[test]
    fn missing_root_is_a_usage_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = open_root(&dir.path().join("nope")).unwrap_err();
        assert!(format!("{err:#}").starts_with("cannot use root directory"), "{err:#}");
        let file = dir.path().join("file");
        fs::write(&file, "x").unwrap();
        assert!(format!("{:#}", open_root(&file).unwrap_err()).ends_with("is not a directory"));
    }
}

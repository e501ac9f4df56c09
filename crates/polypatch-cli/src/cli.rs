//! The command line's shape: verbs, options and their help.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::term;

/// Apply LLM-written patches exactly and atomically.
///
/// Exit codes: 0 applied (or already applied), 1 the patch could not be applied and nothing
/// was written, 2 malformed patch or usage error.
#[derive(Debug, Parser)]
#[command(name = "polypatch", version, after_help = EXAMPLES)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// The options every verb takes.
    #[command(flatten)]
    pub globals: Globals,
}

/// The options every verb takes (`--color`, `--quiet`).
#[derive(Debug, Args)]
pub struct Globals {
    /// When to color the report and a diff: `auto` (a terminal; see ENVIRONMENT), `always`, `never`
    #[arg(
        long,
        value_name = "WHEN",
        default_value = "auto",
        global = true,
        hide_possible_values = true,
        hide_default_value = true
    )]
    pub color: term::ColorChoice,
    /// Print errors only: no report on success, no warnings (the exit code still says what
    /// happened; `--json` documents and the output of `diff`, `prompt` and the like stay)
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

/// Usage examples shown after the top command's help.
const EXAMPLES: &str = "\
Examples:
  polypatch apply fix.patch                  apply a patch to the current directory
  polypatch check --root ~/src/app fix.diff  check it applies, write nothing
  polypatch apply --root app < fix.patch     the patch on standard input, paths under app
  polypatch diff reply.aptix.json            show what it would change, as a git diff
  polypatch prompt --format ai-patch         instructions that make a model write a dialect well
  polypatch completions bash > ~/.local/share/bash-completion/completions/polypatch
  polypatch man --dir ~/.local/share/man/man1";

/// Usage examples shown after `apply --help`.
const APPLY_EXAMPLES: &str = "\
Examples:
  polypatch apply fix.patch                 every edit of fix.patch, or none
  polypatch apply --root ../app < fix.diff  the patch on standard input, paths under ../app
  polypatch apply --dry-run --json fix.ap   locate everything, print a JSON report, write nothing
  polypatch apply --strict -p1 fix.diff     exact matches only, strip one path component
  polypatch apply -R fix.diff               undo fix.diff (as patch -R, git apply -R)
  polypatch apply --stat --summary x.diff   what it touches, as git apply --stat --summary
  polypatch apply --partial reply.md        apply the files whose edits all locate

The editor protocol (`--stdin-json`): the files in the request, the new contents in the answer
  echo '{\"patch\": \"*** Begin Patch\\n*** Update File: a.py\\n@@\\n-x = 1\\n+x = 2\\n*** End Patch\\n\",
         \"files\": {\"a.py\": \"x = 1\\n\"}}' | polypatch apply --stdin-json";

/// The verbs.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Apply a patch to the files under a root directory: every edit or none
    #[command(after_help = APPLY_EXAMPLES)]
    Apply(ApplyArgs),
    /// Check that a patch applies, writing nothing (the same as `apply --dry-run`)
    Check(ApplyArgs),
    /// Show what a patch would change, as a git diff, writing nothing
    Diff(ApplyArgs),
    /// Rewrite a patch in another dialect, resolved against the files (nothing is written).
    ///
    /// The patch is located in the files as `apply` would locate it, then each changed file
    /// is written in the target dialect with exact context, checked by applying it in memory.
    /// Exit codes: 0 converted, 1 the patch does not apply to the files (nothing converted),
    /// 2 malformed patch, usage error, or an operation the target dialect cannot express
    /// (deleting a file in ap or applydiff, binary content outside unified and aptix, …)
    Convert(ConvertArgs),
    /// Print the dialect a patch is written in; for a reply of several blocks, each block's
    /// (with `--json`: every dialect's score)
    Detect(DetectArgs),
    /// List the patch blocks in a model's reply (fenced, bare, raw diffs), or print them
    Extract(ExtractArgs),
    /// Roll back a commit a crash interrupted and remove its leftovers (`apply` does this
    /// first on its own)
    Recover(RecoverArgs),
    /// List the patch dialects this build understands
    Formats(FormatsArgs),
    /// Print each file's hash (`sha256:…`), the one `--read-hash` takes: give it to the model
    /// with the file, and pass it back with the model's patch
    Hash(HashArgs),
    /// Serve the files under a root to an agent as a Model Context Protocol server over
    /// stdio: tools `apply_patch`, `edit_file` and `read_file`, in DIR and in the roots the
    /// client announces (register the command `polypatch mcp --root DIR` in the client's MCP
    /// configuration)
    Mcp(McpArgs),
    /// Print a JSON Schema: of the `--json` report, or of a structured dialect's input
    Schema(SchemaArgs),
    /// Print the instructions to give a model so that it writes a patch dialect well
    Prompt(PromptArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions(CompletionsArgs),
    /// Print the manual page (roff), e.g. `polypatch man > polypatch.1`, or write one page
    /// per verb into a directory
    Man(ManArgs),
}

/// Options of `man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write `polypatch.1` and a `polypatch-VERB.1` for every verb into DIR (it must exist)
    /// instead of printing the top page
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// Options of `prompt`.
#[derive(Debug, Args)]
pub struct PromptArgs {
    /// The dialect the model should write (a name from `polypatch formats`)
    #[arg(long, value_name = "FORMAT")]
    pub format: String,
}

/// Options of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete in
    #[arg(value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// Options of `apply` and `check`.
#[derive(Debug, Args)]
#[allow(clippy::struct_excessive_bools, reason = "command-line switches, each read in one place")]
pub struct ApplyArgs {
    /// The directory the patch's paths are relative to; nothing outside it is touched
    /// (`-d`/`--directory` as GNU patch). Default: the current directory (for an `ap` patch
    /// file: the patch file's folder)
    #[arg(short = 'd', long, visible_alias = "directory", value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The patch dialect, or `auto` to detect it (the list is filled in at run time)
    #[arg(long, value_name = "FORMAT", default_value = "auto")]
    pub format: String,
    /// Read the patch from FILE (as `patch -i`), instead of a PATCH argument
    #[arg(short = 'i', long = "input", value_name = "FILE", conflicts_with_all = ["patch", "more", "stdin_json"])]
    pub input: Option<PathBuf>,
    /// Undo the patch (as `patch -R` and `git apply -R`): every edit is inverted, then
    /// located and applied as usual. A patch whose edits cannot be inverted (a deletion or
    /// replacement that does not carry the old content, a substring replaced everywhere,
    /// an `ap` patch's whitespace stripping, …) is refused, naming the file and the edit
    #[arg(short = 'R', long)]
    pub reverse: bool,
    /// Print what the patch touches in git's diffstat form (as `git apply --stat`): each
    /// file's changed lines, then the totals. Nothing is written unless `--apply` is given
    #[arg(long, conflicts_with = "json")]
    pub stat: bool,
    /// Print the files the patch creates, deletes, renames, copies and changes the mode of
    /// (as `git apply --summary`). Nothing is written unless `--apply` is given
    #[arg(long, conflicts_with = "json")]
    pub summary: bool,
    /// With `--stat` or `--summary`: apply the patch too (as `git apply --stat --apply`)
    #[arg(long)]
    pub apply: bool,
    /// Check that the patch applies and write nothing: the `check` verb (as `git apply --check`)
    #[arg(long)]
    pub check: bool,
    /// Apply every file whose edits all locate, each file whole or untouched, and report
    /// the others (exit 1 when any is left); a text report only. Default: every edit of
    /// every file, or nothing
    #[arg(long, conflicts_with_all = ["json", "session", "reply_format"])]
    pub partial: bool,
    /// Locate every edit and report, but write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Print one JSON document on standard output instead of text
    #[arg(long)]
    pub json: bool,
    /// Accept exact matches only (no whitespace, indentation or fuzzy tier)
    #[arg(long)]
    pub strict: bool,
    /// Report a text replacement whose `find` is not in the file (not even loosely, and not
    /// already applied) as skipped instead of failing (the Aptix specs' no-op); the report
    /// names what was not found. Default: such a patch fails and nothing is written
    #[arg(long)]
    pub skip_missing_find: bool,
    /// Let the patch change git's repository directory: a path with a `.git` component
    /// (`.git/config`, `sub/.git/hooks/pre-commit`, `.GIT`, `git~1`), which `git apply`
    /// refuses too. Default: such a patch fails and nothing is written, since git's hooks
    /// and config run commands at the next `git commit` or `git status`
    #[arg(long)]
    pub allow_git_dir: bool,
    /// Let a line the patch removes or replaces match the file's line by likeness (the fuzzy
    /// tier), as context lines may; each such line is listed in the report. Default: such
    /// an edit is refused, showing the file's line against the patch's, since the file may
    /// hold a change made after the patch was written (the `applydiff` spec allows it)
    #[arg(long)]
    pub allow_fuzzy_removals: bool,
    /// Strip N leading components from a diff's paths (as `patch -pN`); default: `a/` and `b/`
    #[arg(short = 'p', long = "strip", value_name = "N")]
    pub strip: Option<usize>,
    /// The file of SEARCH/REPLACE blocks and lazy snippets (`--format lazy`) that name none
    /// (Cline's and Roo Code's blocks, a bare `// ... existing code ...` snippet, whose path
    /// comes beside them); blocks with a path keep theirs. Default: such a block is refused
    #[arg(long, value_name = "PATH")]
    pub file: Option<String>,
    /// The most bytes a binary patch (git `literal` or `delta`) may expand to; a patch that
    /// announces more is refused. Default: 67108864 (64 MiB)
    #[arg(long, value_name = "BYTES")]
    pub max_binary_size: Option<u64>,
    /// The most bytes all the binary patches of a run may expand to together (every
    /// `literal` and `delta`, reverse blocks and delta results included, over every patch
    /// file and block applied as one transaction); a patch that reaches more is refused
    /// before that data is decoded. Default: 268435456 (256 MiB)
    #[arg(long, value_name = "BYTES")]
    pub max_total_binary_size: Option<u64>,
    /// The stale-read guard: PATH was read with content of HASH (`sha256:` and 64 hex digits,
    /// as `polypatch hash PATH` prints it); if the file no longer has it, its edits are
    /// refused (the file changed since the patch's writer read it). Repeat for each file.
    /// Default: no file is checked
    #[arg(long, value_name = "PATH=HASH")]
    pub read_hash: Vec<String>,
    /// What a file that changed since it was read (`--read-hash`) does: `refuse` (the
    /// default) or `exact` (apply its edits where they match the file exactly, and report it)
    #[arg(long, value_name = "POLICY", value_parser = ["refuse", "exact"], default_value = "refuse")]
    pub stale_read: String,
    /// Skip a diff's `Binary files a/x and b/x differ` sections (a `git diff` made without
    /// `--binary`: no data to apply), with a warning, and apply the rest, as GNU patch does.
    /// Default: such a diff is refused and nothing is written
    #[arg(long)]
    pub skip_binary_without_data: bool,
    /// How far the commit flushes the files it writes to the device: `none` (the default,
    /// as GNU patch and git) or `full` (fsync every new file, the journal and the
    /// directories, so that a power loss cannot lose a reported commit). Either way each
    /// file is replaced atomically and a failure rolls every file back.
    /// Default: the environment variable `POLYPATCH_FSYNC`, else `none`
    #[arg(long, value_name = "POLICY", value_parser = ["none", "full"])]
    pub fsync: Option<String>,
    /// Keep session health (`ApplyDiff` spec §1, §3) in FILE, a JSON state file created on
    /// first use: every apply adds an exchange, its errors and ambiguous matches, and the
    /// patches and % changed of each file; the `[SESSION CONTEXT]` block and any `Recommend:`
    /// lines are printed after the report. A dry run records nothing. Not for `diff`
    #[arg(long, value_name = "FILE")]
    pub session: Option<PathBuf>,
    /// The `Guidance:` line of the session block (the planner's goals). Default: `none`
    #[arg(long, value_name = "TEXT", requires = "session")]
    pub guidance: Option<String>,
    /// The exchange budget of the session (`exchange 3/20`), saved in the state file.
    /// Default: 20 for a new session, then the saved value
    #[arg(long, value_name = "N", requires = "session", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_exchanges: Option<u64>,
    /// With `--format tool-call`: print, instead of the report, a JSON array with one result
    /// per tool call in the caller's own shape, ready to hand back to the model:
    /// `anthropic` (`tool_result` blocks), `openai` (`function_call_output`, or
    /// `apply_patch_call_output` for an `apply_patch_call`) or `mcp` (text content and
    /// `isError`). The exit code is the same as without it
    #[arg(long, value_name = "SHAPE", value_parser = ["anthropic", "openai", "mcp"], conflicts_with_all = ["json", "session", "more", "stdin_json"])]
    pub reply_format: Option<String>,
    /// The editor protocol, for an editor or a tool that holds the files itself: read one
    /// JSON request `{"patch", "format", "files": {path: text}}` on standard input and print
    /// the new contents of the changed files as JSON, writing nothing; files the request
    /// lacks are read from `--root` when given (see the examples below)
    #[arg(long, conflicts_with_all = ["patch", "more", "session", "dry_run", "strict", "skip_missing_find", "allow_git_dir", "allow_fuzzy_removals", "strip", "file", "max_binary_size", "max_total_binary_size", "skip_binary_without_data", "format", "read_hash", "reverse", "stat", "summary", "partial", "check"])]
    pub stdin_json: bool,
    /// The patch file, or `-` for standard input. A model's whole reply is taken too: every
    /// patch block in it is applied, as one transaction
    #[arg(value_name = "PATCH", default_value = "-")]
    pub patch: PathBuf,
    /// More patch files: all of them are applied as one transaction (every edit of every
    /// file, or nothing)
    #[arg(value_name = "PATCH")]
    pub more: Vec<PathBuf>,
}

/// Options of `convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The dialect to write (the list is filled in at run time)
    #[arg(long, value_name = "FORMAT")]
    pub to: String,
    /// The dialect of the patch read, or `auto` to detect it
    #[arg(long, value_name = "FORMAT", default_value = "auto")]
    pub format: String,
    /// The directory the patch's paths are relative to. Default: the current directory (for
    /// an `ap` patch file, the patch file's folder)
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Strip N leading components from a diff's paths (as `patch -pN`); default: `a/` and `b/`
    #[arg(short = 'p', long = "strip", value_name = "N")]
    pub strip: Option<usize>,
    /// The file of SEARCH/REPLACE blocks that name none
    #[arg(long, value_name = "PATH")]
    pub file: Option<String>,
    /// Locate the patch's edits by exact matches only
    #[arg(long)]
    pub strict: bool,
    /// Skip a text replacement whose `find` is not in the file (the Aptix specs' no-op)
    #[arg(long)]
    pub skip_missing_find: bool,
    /// Lines of context around each change, where the target has context
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub context: usize,
    /// Print one JSON document on standard output instead of the patch
    #[arg(long)]
    pub json: bool,
    /// The patch file, or `-` for standard input
    #[arg(value_name = "PATCH", default_value = "-")]
    pub patch: PathBuf,
}

/// Options of `formats`.
#[derive(Debug, Args)]
pub struct FormatsArgs {
    /// Print one JSON document on standard output instead of text
    #[arg(long)]
    pub json: bool,
}

/// Options of `mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The directory the tools' paths are relative to; nothing outside it is read or
    /// written. Default: the current directory
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

/// Options of `hash`.
#[derive(Debug, Args)]
pub struct HashArgs {
    /// Print one JSON document on standard output instead of text
    #[arg(long)]
    pub json: bool,
    /// The files to hash
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
}

/// Options of `schema`: exactly one of `--report` and `--format`.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub struct SchemaArgs {
    /// The schema of the JSON document `--json` prints (and the editor protocol answers with)
    #[arg(long)]
    pub report: bool,
    /// The schema of a structured dialect's patches: aptix or ap (an ap patch is YAML; the
    /// schema describes the value it reads as)
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
}

/// Options of `detect`.
#[derive(Debug, Args)]
pub struct DetectArgs {
    /// Print one JSON document with every dialect's score
    #[arg(long)]
    pub json: bool,
    /// The patch file, or `-` for standard input
    #[arg(value_name = "PATCH", default_value = "-")]
    pub patch: PathBuf,
}

/// Options of `extract`.
#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// Print one JSON document listing the blocks instead of the blocks themselves
    #[arg(long)]
    pub json: bool,
    /// Print block N alone (numbered from 1, as listed), as it is, ready to pipe into `apply`
    #[arg(long, value_name = "N")]
    pub block: Option<usize>,
    /// The reply, or `-` for standard input
    #[arg(value_name = "REPLY", default_value = "-")]
    pub reply: PathBuf,
}

/// Options of `recover`.
#[derive(Debug, Args)]
pub struct RecoverArgs {
    /// The directory a patch was applied under. Default: the current directory
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Print one JSON document on standard output instead of text
    #[arg(long)]
    pub json: bool,
}

/// Whether a PATCH argument means standard input.
pub fn is_stdin(patch: &Path) -> bool {
    patch.as_os_str() == "-"
}

/// The values `--format` accepts: `auto` and every dialect compiled in.
pub fn format_names() -> Vec<&'static str> {
    std::iter::once("auto").chain(polypatch::Dialects::global().names()).collect()
}

/// `None` for `auto`; the dialect's name otherwise, for its name or one of its aliases in
/// any case (`codex`, `Git`, `aider`); an error listing the known names.
pub fn resolve_format(name: &str) -> anyhow::Result<Option<&'static str>> {
    if name.eq_ignore_ascii_case("auto") {
        return Ok(None);
    }
    match dialects().get(name) {
        Some(dialect) => Ok(Some(dialect.name())),
        None => anyhow::bail!(
            "unknown format `{name}`; known formats: {} (`polypatch formats` lists each with its aliases)",
            format_names().join(", ")
        ),
    }
}

/// The dialects the command line reads and writes: the built-in ones, one registry made
/// once. Every verb looks a dialect up here by name, so a dialect added to the registry
/// needs no line in the command line.
pub fn dialects() -> &'static polypatch::Dialects {
    static DIALECTS: std::sync::OnceLock<polypatch::Dialects> = std::sync::OnceLock::new();
    DIALECTS.get_or_init(polypatch::Dialects::builtin)
}

/// Parses `text` as the dialect a name [`resolve_format`] returned (`None`: detected).
pub fn parse_as(
    text: &str,
    format: Option<&str>,
    options: &polypatch::ParseOptions,
) -> Result<polypatch::EditPlan, polypatch::PatchError> {
    dialects().parse_with(text, format.unwrap_or("auto"), options)
}

/// Parses the command line. Dialects are cargo features, so the `--format` help lists the
/// compiled-in names at run time. Exits (code 2, or 0 for `--help`/`--version`) when clap
/// rejects the arguments.
///
/// The run-time help strings are only read when help or an error is printed, so a command
/// line that parses (and `--version`) is parsed without them; anything else is parsed
/// again with the full [`command`], which prints the help or the error and exits.
///
/// `apply`, `check` and `diff` are parsed with a command that holds that verb alone,
/// `--version` with the top command alone ([`verb_command`]): building every verb's
/// arguments is a good part of a small edit's run. The arguments are the same, so a command
/// line parses to the same [`Cli`]; one it rejects goes to the full command as above.
pub fn parse(args: impl IntoIterator<Item = impl Into<OsString> + Clone>) -> Cli {
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let quick = args.get(1).and_then(|verb| verb.to_str()).and_then(verb_command);
    let mut cmd = quick.unwrap_or_else(Cli::command);
    let parsed = cmd.try_get_matches_from_mut(&args);
    // The command and the matches are parsed once per process and live until it ends:
    // freeing every argument's strings and settings one by one took more of a small run
    // than parsing them (about 25,000 instructions of `check`'s 600,000), and the process
    // gives its memory back whole when it exits.
    std::mem::forget(cmd);
    let mut matches = match parsed {
        Ok(matches) => matches,
        Err(err) if err.kind() == clap::error::ErrorKind::DisplayVersion => err.exit(),
        Err(_) => command().get_matches_from(&args),
    };
    // `_mut` takes the values out of the matches; `from_arg_matches` would copy them first.
    let mut cli = Cli::from_arg_matches_mut(&mut matches).unwrap_or_else(|err| err.format(&mut command()).exit());
    std::mem::forget(matches);
    // `-i FILE` is the PATCH argument given as an option (clap refuses both at once).
    if let Command::Apply(args) | Command::Check(args) | Command::Diff(args) = &mut cli.command
        && let Some(input) = args.input.take()
    {
        args.patch = input;
    }
    cli
}

/// The top command with the one verb `verb` (`apply`, `check` or `diff`), its arguments
/// and the options every verb takes, as [`Cli::command`] builds them (without the help
/// texts that only a printed help reads); for `--version` (`-V`), which clap answers as
/// soon as it meets it, the top command without verbs. `None` for anything else.
fn verb_command(verb: &str) -> Option<clap::Command> {
    let top = Globals::augment_args(
        clap::Command::new("polypatch")
            .version(env!("CARGO_PKG_VERSION"))
            .subcommand_required(true)
            .arg_required_else_help(true),
    );
    if verb == "--version" || verb == "-V" {
        return Some(top);
    }
    let verb = ["apply", "check", "diff"].into_iter().find(|v| *v == verb)?;
    Some(top.subcommand(ApplyArgs::augment_args(clap::Command::new(verb))))
}

/// The command with its run-time help (the `--format` lists), as `parse`, the completion
/// scripts and the manual page see it.
pub fn command() -> clap::Command {
    let help = format!("The patch dialect: {}", format_names().join(", "));
    let mut command = Cli::command();
    for verb in ["apply", "check", "diff", "convert"] {
        command = command.mut_subcommand(verb, |sub| sub.mut_arg("format", |arg| arg.help(help.clone())));
    }
    let to = format!("The dialect to write: {}", polypatch::Dialects::global().names().join(", "));
    // `apply`, `check` and `diff` share their arguments; each verb's help lists the ones it
    // takes (the others are refused, or mean nothing there: `check` writes nothing).
    let hide = |mut sub: clap::Command, ids: &[&str]| {
        for id in ids {
            sub = sub.mut_arg(*id, |arg| arg.hide(true));
        }
        sub
    };
    command
        .mut_subcommand("convert", |sub| sub.mut_arg("to", |arg| arg.help(to)))
        .mut_subcommand("check", |sub| hide(sub, &["stdin_json", "dry_run", "check", "apply", "fsync"]))
        .mut_subcommand("diff", |sub| {
            hide(
                sub,
                &[
                    "stdin_json",
                    "dry_run",
                    "check",
                    "apply",
                    "stat",
                    "summary",
                    "partial",
                    "fsync",
                    "session",
                    "guidance",
                    "max_exchanges",
                    "reply_format",
                ],
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn skip_missing_find_is_a_switch_of_apply_and_check() {
        for verb in ["apply", "check"] {
            let cli = parse(["polypatch", verb, "--skip-missing-find", "p.json"]);
            let (Command::Apply(args) | Command::Check(args)) = cli.command else { panic!("expected {verb}") };
            assert!(args.skip_missing_find);
        }
    }

    #[test]
    fn defaults() {
        let cli = parse(["polypatch", "apply"]);
        let Command::Apply(args) = cli.command else { panic!("expected apply") };
        assert_eq!(args.root, None);
        assert_eq!(args.format, "auto");
        assert!(is_stdin(&args.patch));
        assert!(!args.dry_run && !args.json && !args.strict && !args.skip_missing_find && !args.allow_git_dir);
        assert_eq!(args.strip, None);
        assert_eq!((args.max_binary_size, args.max_total_binary_size), (None, None));
        assert_eq!((args.session, args.guidance, args.max_exchanges), (None, None, None));
        assert!(args.more.is_empty());
        let Command::Check(args) = parse(["polypatch", "check", "-p0", "x.diff"]).command else { panic!("check") };
        assert_eq!(args.strip, Some(0));
    }

    #[test]
    fn session_options() {
        let cli = parse(["polypatch", "apply", "--session", "s.json", "--guidance", "g", "--max-exchanges", "9"]);
        let Command::Apply(args) = cli.command else { panic!("expected apply") };
        assert_eq!(args.session, Some(PathBuf::from("s.json")));
        assert_eq!((args.guidance.as_deref(), args.max_exchanges), (Some("g"), Some(9)));
        let without = Cli::command().try_get_matches_from(["polypatch", "apply", "--guidance", "g"]);
        assert_eq!(without.unwrap_err().kind(), clap::error::ErrorKind::MissingRequiredArgument);
        let zero =
            Cli::command().try_get_matches_from(["polypatch", "apply", "--session", "s", "--max-exchanges", "0"]);
        assert_eq!(zero.unwrap_err().kind(), clap::error::ErrorKind::ValueValidation);
    }

    #[test]
    fn several_patches_and_extract() {
        let Command::Apply(args) = parse(["polypatch", "apply", "a.patch", "b.diff", "-"]).command else {
            panic!("expected apply")
        };
        assert_eq!(args.patch, PathBuf::from("a.patch"));
        assert_eq!(args.more, [PathBuf::from("b.diff"), PathBuf::from("-")]);
        let Command::Extract(args) = parse(["polypatch", "extract", "--json"]).command else { panic!("extract") };
        assert!(args.json && is_stdin(&args.reply));
        let Command::Detect(args) = parse(["polypatch", "detect", "--json", "x"]).command else { panic!("detect") };
        assert!(args.json);
    }

    /// The one-verb command of `apply`, `check` and `diff` has the full command's arguments,
    /// parses every command line to the same `Cli`, and rejects the same ones (which then
    /// go to the full command for the message).
    #[test]
    fn verb_command_parses_as_the_full_command() {
        // Everything but the place in the help, which counts the verbs before.
        let debug = |command: &clap::Command| {
            command.get_arguments().map(|a| format!("{:?}", a.clone().display_order(0))).collect::<Vec<_>>()
        };
        let full = Cli::command();
        let good = [
            "",
            "x.diff",
            "--root d --format unified --fsync full x.diff",
            "-p1 --json --strict a.diff b.diff -",
            "--color never -q x",
            "x --color=always --quiet",
            "--session s.json --guidance g --max-exchanges 3 x",
            "--stdin-json --root d",
            "--dry-run --skip-missing-find --max-binary-size 10 --strip=2 -- -x",
            "--allow-git-dir x",
            "--max-total-binary-size 100 x",
        ];
        let bad = [
            "--stdin-json x",
            "--guidance g",
            "--session s --max-exchanges 0",
            "--fsync half",
            "--color sometimes",
            "--nope",
            "--version",
            "--help",
            "-p",
            "--root",
        ];
        for verb in ["apply", "check", "diff"] {
            let quick = verb_command(verb).expect("a quick verb");
            assert_eq!(debug(&quick), debug(&full));
            let sub = |command: &clap::Command| debug(command.find_subcommand(verb).expect("the verb"));
            assert_eq!(sub(&quick), sub(&full));
            assert_eq!(quick.get_subcommands().count(), 1);
            for line in good.iter().chain(&bad) {
                let args: Vec<&str> = ["polypatch", verb].into_iter().chain(line.split_whitespace()).collect();
                let with = |command: clap::Command| {
                    command
                        .try_get_matches_from(&args)
                        .and_then(|m| Cli::from_arg_matches(&m))
                        .map(|cli| format!("{cli:?}"))
                        .map_err(|e| e.kind())
                };
                let (fast, slow) = (with(quick.clone()), with(Cli::command()));
                assert_eq!(fast, slow, "{args:?}");
                assert_eq!(fast.is_ok(), good.contains(line), "{args:?}");
                if let Ok(expected) = slow {
                    assert_eq!(format!("{:?}", parse(&args)), expected);
                }
            }
        }
        for other in ["recover", "convert", "help", "--color", "-q", "--help", "-h"] {
            assert!(verb_command(other).is_none(), "{other}");
        }
        // `--version` first: the same answer, whatever follows.
        for line in ["", "apply", "--nope", "-q", "help"] {
            for flag in ["--version", "-V"] {
                let args: Vec<&str> = ["polypatch", flag].into_iter().chain(line.split_whitespace()).collect();
                let answer = |command: clap::Command| {
                    let err = command.try_get_matches_from(&args).expect_err("the version");
                    (err.kind(), err.to_string())
                };
                let quick = answer(verb_command(flag).expect("a quick command"));
                assert_eq!(quick, answer(Cli::command()), "{args:?}");
                assert_eq!(quick.0, clap::error::ErrorKind::DisplayVersion);
            }
        }
    }

    #[test]
    fn auto_means_detect() {
        assert_eq!(resolve_format("auto").unwrap(), None);
    }

    #[test]
    fn known_formats_resolve() {
        for name in polypatch::Dialects::global().names() {
            assert_eq!(resolve_format(name).unwrap(), Some(name));
        }
    }

    #[test]
    fn unknown_format_lists_the_known_ones() {
        let message = format!("{:#}", resolve_format("yaml-ish").unwrap_err());
        assert!(message.starts_with("unknown format `yaml-ish`; known formats: auto"), "{message}");
        for name in polypatch::Dialects::global().names() {
            assert!(message.contains(name), "{message}");
        }
    }

    #[test]
    fn format_names_start_with_auto() {
        let names = format_names();
        assert_eq!(names[0], "auto");
        assert_eq!(names.len(), polypatch::Dialects::global().names().len() + 1);
    }
}

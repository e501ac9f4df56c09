//! The command line's shape: verbs, options and their help.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

/// Apply LLM-written patches exactly and atomically.
///
/// Exit codes: 0 applied (or already applied), 1 the patch could not be applied and nothing
/// was written, 2 malformed patch or usage error.
#[derive(Debug, Parser)]
#[command(name = "polypatch", version)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The verbs.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Apply a patch to the files under a root directory: every edit or none
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
    Convert(crate::convert::ConvertArgs),
    /// Print the dialect a patch is written in
    Detect(DetectArgs),
    /// Roll back a commit a crash interrupted and remove its leftovers (`apply` does this
    /// first on its own)
    Recover(RecoverArgs),
    /// List the patch dialects this build understands
    Formats,
}

/// Options of `apply` and `check`.
#[derive(Debug, Args)]
#[allow(clippy::struct_excessive_bools, reason = "command-line switches, each read in one place")]
pub struct ApplyArgs {
    /// The directory the patch's paths are relative to; nothing outside it is touched.
    /// Default: the current directory (for an `ap` patch file: the patch file's folder)
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The patch dialect, or `auto` to detect it (the list is filled in at run time)
    #[arg(long, value_name = "FORMAT", default_value = "auto")]
    pub format: String,
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
    /// Strip N leading components from a diff's paths (as `patch -pN`); default: `a/` and `b/`
    #[arg(short = 'p', long = "strip", value_name = "N")]
    pub strip: Option<usize>,
    /// The most bytes a binary patch (git `literal` or `delta`) may expand to; a patch that
    /// announces more is refused. Default: 67108864 (64 MiB)
    #[arg(long, value_name = "BYTES")]
    pub max_binary_size: Option<u64>,
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
    /// The patch file, or `-` for standard input
    #[arg(value_name = "PATCH", default_value = "-")]
    pub patch: PathBuf,
}

/// Options of `detect`.
#[derive(Debug, Args)]
pub struct DetectArgs {
    /// The patch file, or `-` for standard input
    #[arg(value_name = "PATCH", default_value = "-")]
    pub patch: PathBuf,
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
    std::iter::once("auto").chain(polypatch::dialect_names()).collect()
}

/// Parses the command line. Dialects are cargo features, so the `--format` help lists the
/// compiled-in names at run time. Exits (code 2, or 0 for `--help`/`--version`) when clap
/// rejects the arguments.
pub fn parse(args: impl IntoIterator<Item = impl Into<OsString> + Clone>) -> Cli {
    let help = format!("The patch dialect: {}", format_names().join(", "));
    let mut command = Cli::command();
    for verb in ["apply", "check", "diff", "convert"] {
        command = command.mut_subcommand(verb, |sub| sub.mut_arg("format", |arg| arg.help(help.clone())));
    }
    let to = format!("The dialect to write: {}", polypatch::dialect_names().join(", "));
    command = command.mut_subcommand("convert", |sub| sub.mut_arg("to", |arg| arg.help(to)));
    let matches = command.get_matches_from(args);
    Cli::from_arg_matches(&matches).unwrap_or_else(|err| err.format(&mut Cli::command()).exit())
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
        assert!(!args.dry_run && !args.json && !args.strict && !args.skip_missing_find);
        assert_eq!(args.strip, None);
        assert_eq!(args.max_binary_size, None);
        assert_eq!((args.session, args.guidance, args.max_exchanges), (None, None, None));
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
    fn format_names_start_with_auto() {
        let names = format_names();
        assert_eq!(names[0], "auto");
        assert_eq!(names.len(), polypatch::dialect_names().len() + 1);
    }
}

//! Runs the verb the command line names, ending in an exit code.

use std::fmt::Write as _;

use anyhow::Context;

use crate::cli::{Cli, Command, HashArgs, RecoverArgs};
use crate::inout::{self, Exit, stderr, stdout, stdout_bytes};
use crate::pipeline::{self, Mode};
use crate::{convert, editor, generate, inspect, output, schema, term};

/// Runs the verb `cli` names.
pub fn run(cli: &Cli) -> Exit {
    term::init(cli.globals.color, cli.globals.quiet);
    match &cli.command {
        Command::Apply(args) if args.stdin_json => editor::run(args.root.as_deref()),
        Command::Check(args) | Command::Diff(args) if args.stdin_json => {
            stderr(&output::usage_text(&anyhow::anyhow!("`--stdin-json` is for `apply`")));
            Exit::Invalid
        }
        Command::Diff(args)
            if args.check
                || args.stat
                || args.summary
                || args.apply
                || args.partial
                || args.dry_run
                || args.fsync.is_some() =>
        {
            stderr(&output::usage_text(&anyhow::anyhow!(
                "`diff` writes nothing and takes none of `--check`, `--stat`, `--summary`, `--apply`, `--partial`, \
                 `--dry-run` and `--fsync`: give them to `apply`"
            )));
            Exit::Invalid
        }
        Command::Check(args) if args.apply || args.check || args.dry_run || args.fsync.is_some() => {
            stderr(&output::usage_text(&anyhow::anyhow!(
                "`check` writes nothing and takes none of `--apply`, `--check`, `--dry-run` and `--fsync`: give them \
                 to `apply`"
            )));
            Exit::Invalid
        }
        Command::Apply(args) if args.apply && !(args.stat || args.summary) => {
            stderr(&output::usage_text(&anyhow::anyhow!(
                "`--apply` goes with `--stat` or `--summary` (to apply as well as print them)"
            )));
            Exit::Invalid
        }
        Command::Apply(args) => {
            // `--stat` and `--summary` print, and apply only with `--apply`, as in git.
            let mode = if args.dry_run || args.check {
                Mode::Check
            } else if (args.stat || args.summary) && !args.apply {
                Mode::Stat
            } else {
                Mode::Apply
            };
            pipeline::run(args, mode)
        }
        Command::Check(args) => pipeline::run(args, Mode::Check),
        Command::Diff(args) => pipeline::run(args, Mode::Diff),
        Command::Detect(args) => inspect::detect(args),
        Command::Convert(args) => convert::run(args),
        Command::Extract(args) => inspect::extract(args),
        Command::Recover(args) => recover(args),
        Command::Formats(args) => {
            if args.json {
                stdout(&output::formats_json(crate::cli::dialects()));
            } else {
                stdout(&output::formats_text(crate::cli::dialects()));
            }
            Exit::Success
        }
        Command::Hash(args) => hash(args),
        Command::Mcp(args) => match polypatch_mcp::serve(args.root.as_deref().unwrap_or(std::path::Path::new("."))) {
            Ok(()) => Exit::Success,
            Err(err) => {
                stderr(&output::usage_text(&anyhow::Error::new(err)));
                Exit::Invalid
            }
        },
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

/// `recover`: roll back interrupted commits under the root and remove their leftovers.
fn recover(args: &RecoverArgs) -> Exit {
    let root = args.root.clone().unwrap_or_else(|| ".".into());
    let result = inout::open_root(&root)
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

/// `hash`: each file's [`ReadHash`](polypatch::fs::ReadHash), as `sha256sum` lists them
/// (`sha256:HEX  FILE`). A file that cannot be read is an error (exit 2), after the others.
fn hash(args: &HashArgs) -> Exit {
    let mut listed = Vec::new();
    let mut failed = false;
    for path in &args.files {
        match std::fs::read(path) {
            Ok(bytes) => listed.push((path.display().to_string(), polypatch::fs::ReadHash::of(&bytes))),
            Err(err) => {
                failed = true;
                let err = anyhow::Error::new(err).context(format!("cannot read `{}`", path.display()));
                stderr(&output::usage_text(&err));
            }
        }
    }
    if args.json {
        stdout(&output::hashes_json(&listed));
    } else {
        let mut text = String::new();
        for (path, hash) in &listed {
            let _ = writeln!(text, "{hash}  {path}");
        }
        stdout(&text);
    }
    if failed { Exit::Invalid } else { Exit::Success }
}

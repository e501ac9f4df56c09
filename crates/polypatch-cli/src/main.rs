//! `polypatch`: apply LLM-written patches exactly and atomically.
//!
//! `cli` holds the argument types and their parser; `run` runs the verb they name and gives
//! the exit code. The verbs: `pipeline` (`apply`, `check`, `diff`: read, plan, locate,
//! commit, report, for a patch file, a model's reply or several files alike), `convert`,
//! `inspect` (`detect`, `extract`), `editor` (`apply --stdin-json`), `schema`, `generate`
//! (prompts, completions, manual pages). Beneath them, and knowing none of them: `inout`
//! (the patch text, the root, the standard streams, the exit code), `output` (human and
//! JSON rendering), `session` (the `--session` state file), `term` (colors, `--quiet`, the
//! terminal hint) and `escape` (what reaches a terminal). No module imports one above it.

mod cli;
mod convert;
mod editor;
mod escape;
mod generate;
mod inout;
mod inspect;
mod output;
mod pipeline;
mod reverse;
mod run;
mod schema;
mod session;
mod stat;
mod term;

/// Reads the command line, runs it and gives the exit code.
fn main() -> std::process::ExitCode {
    let cli = cli::parse(std::env::args_os());
    run::run(&cli).into()
}

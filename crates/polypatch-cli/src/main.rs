//! `polypatch`: apply LLM-written patches exactly and atomically.
//!
//! `cli` holds the argument types, `run` the logic (it returns the exit code), `output`
//! the human and JSON rendering, `session` the `--session` state file, `editor` the
//! editor protocol (`apply --stdin-json`), `schema` the `schema` verb, `term` colors,
//! `--quiet` and the terminal hint, `generate` the prompts, completions and manual page.

mod cli;
mod convert;
mod editor;
mod escape;
mod generate;
mod output;
mod reply;
mod run;
mod schema;
mod session;
mod term;

fn main() -> std::process::ExitCode {
    let cli = cli::parse(std::env::args_os());
    run::run(&cli).into()
}

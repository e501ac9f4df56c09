//! `polypatch`: apply LLM-written patches exactly and atomically.
//!
//! `cli` holds the argument types, `run` the logic (it returns the exit code), `output`
//! the human and JSON rendering, `session` the `--session` state file.

mod cli;
mod convert;
mod escape;
mod output;
mod run;
mod session;

fn main() -> std::process::ExitCode {
    let cli = cli::parse(std::env::args_os());
    run::run(&cli).into()
}

//! `polypatch`: apply LLM-written patches exactly and atomically.
//!
//! `cli` holds the argument types, `run` the logic (it returns the exit code), `output`
//! the human and JSON rendering, `session` the `--session` state file, `editor` the
//! editor protocol (`apply --stdin-json`), `schema` the `schema` verb, `term` colors,
//! `--quiet` and the terminal hint, `generate` the prompts, completions and manual page.
//! On Linux with glibc, `start` is the entry point (a lighter start than Rust's own).

// Linux with glibc starts at `start`'s C `main`; elsewhere (and the unit tests' harness) at
// `main` below.
#![cfg_attr(all(target_os = "linux", target_env = "gnu", not(test)), no_main)]

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
#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
mod start;
mod term;

#[cfg(not(all(target_os = "linux", target_env = "gnu", not(test))))]
fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(run_main())
}

/// Reads the command line, runs it and gives the exit code.
fn run_main() -> u8 {
    let cli = cli::parse(std::env::args_os());
    run::run(&cli) as u8
}

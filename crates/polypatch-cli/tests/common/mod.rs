//! Running the `polypatch` binary from the CLI's integration tests.

#![allow(dead_code, reason = "each test binary uses the part it needs")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

/// What a run of the binary gave.
#[derive(Debug)]
pub struct Run {
    /// The exit code.
    pub code: i32,
    /// Standard output, UTF-8.
    pub stdout: String,
    /// Standard error, UTF-8.
    pub stderr: String,
}

impl Run {
    /// Standard output as the one JSON document (on one line) it must be.
    pub fn json(&self) -> Value {
        assert_eq!(self.stdout.lines().count(), 1, "expected one JSON line, got:\n{}", self.stdout);
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }
}

/// The binary the tests run: this build's, or the one `POLYPATCH_TEST_BIN` names (`.ci/run`
/// runs the tests again on the static build, `cargo build-static`).
pub fn binary() -> PathBuf {
    std::env::var_os("POLYPATCH_TEST_BIN").map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_polypatch")), PathBuf::from)
}

/// Runs `polypatch args…` in `cwd` with `env` added (and `NO_COLOR`/`CLICOLOR_FORCE`
/// removed, so the caller's environment does not color the output) and `stdin` piped in
/// (`None`: standard input is closed).
pub fn polypatch_with(cwd: &Path, args: &[&str], env: &[(&str, &str)], stdin: Option<&[u8]>) -> Run {
    let mut command = Command::new(binary());
    command.args(args).current_dir(cwd).stdout(Stdio::piped()).stderr(Stdio::piped());
    command.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE").envs(env.iter().copied());
    command.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    let mut child = command.spawn().expect("the binary starts");
    if let Some(bytes) = stdin {
        // A run refused before it reads standard input closes the pipe; a failed write
        // (broken pipe) is then expected.
        let _ = child.stdin.take().unwrap().write_all(bytes);
    }
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().expect("exited normally, not by a signal"),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

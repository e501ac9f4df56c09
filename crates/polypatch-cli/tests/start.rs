//! What the program relies on of Rust's standard process start, checked on the real binary
//! (it once had a start of its own, which had to keep these): closed standard streams are
//! opened on `/dev/null`, `SIGPIPE` is ignored, the arguments arrive as given.
#![cfg(all(target_os = "linux", target_env = "gnu"))]

use std::fmt::Write as _;
use std::fs;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

/// A closed standard output is opened on `/dev/null` before the program opens anything,
/// so no file it opens takes descriptor 1. The program is started with descriptor 1
/// closed and waits on its standard input for a patch: descriptor 1 must then be
/// `/dev/null` (were the start to skip that, it would stay closed, and this test times out).
#[test]
fn a_closed_standard_output_is_opened_on_dev_null() {
    let polypatch = common::binary();
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new("sh")
        .args(["-c".as_ref(), r#"exec "$0" apply - >&-"#.as_ref(), polypatch.as_os_str()])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let exe = fs::canonicalize(&polypatch).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    // The shell first, then (same process) the program; its descriptor 1 once started. While
    // the dynamic loader maps the libraries, it may hold one of them open on descriptor 1 for
    // a moment (the lowest free one): the last target seen before the deadline is the answer,
    // `/dev/null` as soon as it shows.
    let null = std::path::Path::new("/dev/null");
    let mut target = None;
    while Instant::now() < deadline {
        let started = fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|e| e == exe);
        if started {
            target = fs::read_link(format!("/proc/{pid}/fd/1")).ok();
            if target.as_deref() == Some(null) {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(child.stdin.take()); // an empty patch: the program ends
    let status = child.wait().unwrap();
    assert_eq!(target.as_deref(), Some(null), "descriptor 1 of the running program");
    assert_eq!(status.code(), Some(2), "an empty patch is invalid input");
}

/// A closed pipe on standard output is not a kill by `SIGPIPE`: the program passes over the
/// write error and its exit code says what happened. `polypatch diff` of a 100,000-line
/// new file writes more than a pipe holds to a reader that has gone.
#[test]
fn a_closed_pipe_does_not_kill_the_program() {
    let dir = tempfile::tempdir().unwrap();
    let mut patch = String::from("*** Begin Patch\n*** Add File: big.txt\n");
    for i in 0..100_000 {
        writeln!(patch, "+line {i}").unwrap();
    }
    patch.push_str("*** End Patch\n");
    fs::write(dir.path().join("big.patch"), patch).unwrap();
    // The reader (`true`) ends at once; PIPESTATUS[0] is the program's status, 128 + 13
    // when SIGPIPE ends it.
    let out = Command::new("bash")
        .args([
            "-c".as_ref(),
            r#""$0" diff big.patch | true; echo "${PIPESTATUS[0]}""#.as_ref(),
            common::binary().as_os_str(),
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0", "stderr: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "", "no panic, no message");
    assert!(!dir.path().join("big.txt").exists(), "diff writes nothing");
}

/// Arguments reach the program as they were given, non-UTF-8 ones too.
#[test]
fn arguments_reach_the_program() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.patch");
    let out = Command::new(common::binary()).arg("check").arg(name).current_dir(dir.path()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("caf\u{fffd}.patch"), "the missing patch file is named: {stderr}");
    let mut child = Command::new(common::binary())
        .args(["check", "--format", "ai-patch", "-"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("a.txt"));
}

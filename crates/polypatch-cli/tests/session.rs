//! `polypatch apply --session FILE` with `ApplyDiff` patches, driven as a user drives it:
//! the §5 feedback, the `[SESSION CONTEXT]` block growing over several applies, and the
//! state file's errors.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

mod common;
use tempfile::TempDir;

/// What one run of the binary did.
#[derive(Debug)]
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// A temporary directory holding `root/` with `m.py` (ten numbered lines) and `amb.py`
/// (two equal pairs of lines), patch files and `state.json` beside the root.
struct Sandbox {
    dir: TempDir,
}

const M_PY: &str = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\nf = 6\ng = 7\nh = 8\ni = 9\nj = 10\n";

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("root")).unwrap();
        fs::write(dir.path().join("root/m.py"), M_PY).unwrap();
        fs::write(dir.path().join("root/amb.py"), "x = 1\ny = 2\nx = 1\ny = 2\n").unwrap();
        Sandbox { dir }
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("state.json")
    }

    fn read(&self, path: &str) -> String {
        fs::read_to_string(self.dir.path().join("root").join(path)).unwrap()
    }

    /// `polypatch <verb> --root root [extra…] change.patch`, in the sandbox.
    fn run(&self, verb: &str, extra: &[&str], patch: &str) -> Run {
        fs::write(self.dir.path().join("change.patch"), patch).unwrap();
        let out = Command::new(common::binary())
            .arg(verb)
            .args(["--root", "root"])
            .args(extra)
            .arg("change.patch")
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        Run {
            code: out.status.code().expect("exited normally"),
            stdout: String::from_utf8(out.stdout).unwrap(),
            stderr: String::from_utf8(out.stderr).unwrap(),
        }
    }

    /// `apply --session state.json [extra…]`.
    fn apply(&self, extra: &[&str], patch: &str) -> Run {
        let mut args = vec!["--session", "state.json"];
        args.extend_from_slice(extra);
        self.run("apply", &args, patch)
    }
}

/// A block changing line `n` of `m.py` from its number to `value`, with a context line
/// on each side.
fn change(n: usize, value: &str) -> String {
    let lines: Vec<&str> = M_PY.lines().collect();
    let (before, old, after) = (lines[n - 2], lines[n - 1], lines[n]);
    let new = format!("{} = {value}", &old[..1]);
    format!(
        "Here is the change:\n\n>>> file: m.py\n--- from\n{before}\n{old}\n{after}\n--- to\n{before}\n{new}\n{after}\n<\n"
    )
}

#[test]
fn the_session_block_grows_over_two_applies() {
    let sb = Sandbox::new();
    let run = sb.apply(&["--guidance", "renumber m.py", "--max-exchanges", "10"], &change(2, "20"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "✅ Patch Applied\n\
         Apply succeeded. Health updated in [SESSION CONTEXT].\n\
         Action: Continue to next task step or end.\n\
         m.py, block 1: applied at lines 1-3 (exact match, confidence 1.00)\n\
         applied 1 edit in 1 file\n\
         \n\
         [SESSION CONTEXT]\n\
         Modified: m.py (1 patch, 10% changed)\n\
         Guidance: renumber m.py\n\
         Health: 0 errors, 0 ambiguous matches, exchange 1/10\n\
         [/SESSION CONTEXT]\n"
    );
    assert_eq!(run.stderr, "");
    // The budget is kept in the state; the guidance is given per run.
    let run = sb.apply(&[], &format!("{}{}", change(5, "50"), change(8, "80")));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.ends_with(
            "m.py, block 1: applied at lines 4-6 (exact match, confidence 1.00)\n\
             m.py, block 2: applied at lines 7-9 (exact match, confidence 1.00)\n\
             applied 2 edits in 1 file\n\
             \n\
             [SESSION CONTEXT]\n\
             Modified: m.py (3 patches, 30% changed)\n\
             Guidance: none\n\
             Health: 0 errors, 0 ambiguous matches, exchange 2/10\n\
             [/SESSION CONTEXT]\n\
             Recommend: m.py: PATCH BLOCK (caution) (3 patches, 30% changed)\n"
        ),
        "{}",
        run.stdout
    );
    assert_eq!(sb.read("m.py"), M_PY.replace("b = 2", "b = 20").replace("e = 5", "e = 50").replace("h = 8", "h = 80"));
    let state: Value = serde_json::from_str(&fs::read_to_string(sb.state()).unwrap()).unwrap();
    assert_eq!((state["exchange"].as_u64(), state["max_exchanges"].as_u64()), (Some(2), Some(10)));
    assert_eq!(state["files"][0]["changed_lines"].as_u64(), Some(3));
}

#[test]
fn failures_count_as_errors_and_ambiguous_matches() {
    let sb = Sandbox::new();
    let missing = ">>> file: m.py\n--- from\nq = 1\nr = 2\nzz = 3\n--- to\nq = 0\n<\n";
    let run = sb.apply(&[], missing);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.starts_with(
            "error: could not apply the patch, nothing was written\n\
             ❌ No match found\n\
             Your \"from\" block did not match any location in the file. Possible causes: File changed, whitespace \
             differs, or code moved.\n\
             Action: Request current state of the relevant function/section.\n\
             Where: m.py, block 1\n"
        ),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("\nClosest region: lines 1-3 (similarity "), "{}", run.stderr);
    assert!(run.stderr.contains("\n    -q = 1\n"), "{}", run.stderr);
    assert!(run.stderr.ends_with("Health: 1 error, 0 ambiguous matches, exchange 1/20\n[/SESSION CONTEXT]\n"));

    let ambiguous = ">>> file: amb.py\n--- from\nx = 1\ny = 2\n--- to\nx = 5\ny = 2\n<\n";
    let run = sb.apply(&[], ambiguous);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("\n❌ Ambiguous match detected\n"), "{}", run.stderr);
    assert!(run.stderr.contains("\nWhere: amb.py, block 1\n"), "{}", run.stderr);
    assert!(run.stderr.contains("\nCandidates (2): lines 1-2, lines 3-4\n"), "{}", run.stderr);
    assert!(
        run.stderr.ends_with(
            "\n\n[SESSION CONTEXT]\nModified: none\nGuidance: none\n\
             Health: 2 errors, 1 ambiguous match, exchange 2/20\n[/SESSION CONTEXT]\n"
        ),
        "{}",
        run.stderr
    );
    assert_eq!(sb.read("amb.py"), "x = 1\ny = 2\nx = 1\ny = 2\n", "nothing written");
}

#[test]
fn format_invalid_is_exit_2_and_an_error() {
    let sb = Sandbox::new();
    let run = sb.apply(&[], ">>> file: m.py\n--- from\na = 1\n");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.starts_with("error: malformed applydiff patch: "), "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "\n❌ Patch Format Invalid\n\
             The output did not conform to the required Classic Style (`>>> file:`, `--- from`, `--- to`, `<`).\n\
             Action: Regenerate output strictly adhering to the mandated format.\n\
             At line 4, column 1: "
        ),
        "{}",
        run.stderr
    );
    assert!(run.stderr.ends_with("Health: 1 error, 0 ambiguous matches, exchange 1/20\n[/SESSION CONTEXT]\n"));
}

#[test]
fn json_carries_the_feedback_and_the_session() {
    let sb = Sandbox::new();
    let run = sb.apply(&["--json", "--guidance", "g"], &change(2, "20"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 1, "{}", run.stdout);
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["status"], "applied");
    assert!(json["feedback"].as_str().unwrap().starts_with("✅ Patch Applied\n"), "{json}");
    assert_eq!(
        json["session"]["context"],
        "[SESSION CONTEXT]\nModified: m.py (1 patch, 10% changed)\nGuidance: g\n\
         Health: 0 errors, 0 ambiguous matches, exchange 1/20\n[/SESSION CONTEXT]\n"
    );
    assert_eq!(json["session"]["recommendations"], Value::Array(Vec::new()));
    assert_eq!(json["session"]["state"]["files"][0]["patches"], 1);
    let run = sb.apply(&["--json"], ">>> file: m.py\n");
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!((run.code, json["status"].as_str()), (2, Some("malformed")));
    assert!(json["feedback"].as_str().unwrap().starts_with("❌ Patch Format Invalid\n"), "{json}");
    assert_eq!(json["session"]["state"]["errors"], 1);
}

#[test]
fn a_dry_run_shows_the_block_and_records_nothing() {
    let sb = Sandbox::new();
    sb.apply(&[], &change(2, "20"));
    let saved = fs::read_to_string(sb.state()).unwrap();
    for (verb, extra) in
        [("check", vec!["--session", "state.json"]), ("apply", vec!["--session", "state.json", "--dry-run"])]
    {
        let run = sb.run(verb, &extra, &change(3, "30"));
        assert_eq!(run.code, 0, "{}", run.stderr);
        // Issue 26, point 6: what would happen, not "applied", and no health line.
        assert!(
            run.stdout.starts_with(
                "✅ Patch would apply (dry run)\nEvery block was located; nothing was written.\n\
                 Action: Apply the patch to make the change.\nm.py, block 1: located at lines 2-4 ("
            ) && run.stdout.contains("\ndry run: would apply 1 edit in 1 file, nothing written\n"),
            "{}",
            run.stdout
        );
        assert!(run.stdout.contains("\nHealth: 0 errors, 0 ambiguous matches, exchange 1/20\n"), "{}", run.stdout);
        assert_eq!(fs::read_to_string(sb.state()).unwrap(), saved);
    }
}

#[test]
fn a_corrupt_state_file_is_exit_2_and_is_left_alone() {
    let sb = Sandbox::new();
    fs::write(sb.state(), "{\"version\": 1, \"exchange\": ").unwrap();
    let run = sb.apply(&[], &change(2, "20"));
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.starts_with("error: session state file `state.json` cannot be used; fix or remove it"),
        "{}",
        run.stderr
    );
    assert_eq!(fs::read_to_string(sb.state()).unwrap(), "{\"version\": 1, \"exchange\": ");
    assert_eq!(sb.read("m.py"), M_PY, "nothing applied");
    // Another version of the state is refused the same way.
    fs::write(
        sb.state(),
        "{\"version\": 9, \"exchange\": 0, \"max_exchanges\": 20, \"errors\": 0, \"ambiguous\": 0, \"files\": []}",
    )
    .unwrap();
    let run = sb.apply(&["--json"], &change(2, "20"));
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!((run.code, json["status"].as_str()), (2, Some("usage_error")));
    assert!(json["error"]["message"].as_str().unwrap().ends_with("session state version 9, expected 1"), "{json}");
    // A state file that is a directory cannot be read.
    let dir = Path::new("state-dir");
    fs::create_dir(sb.dir.path().join(dir)).unwrap();
    let run = sb.run("apply", &["--session", "state-dir"], &change(2, "20"));
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.starts_with("error: cannot read session state file `state-dir`"), "{}", run.stderr);
}

#[test]
fn without_session_nothing_is_kept_and_diff_refuses_it() {
    let sb = Sandbox::new();
    let run = sb.run("apply", &[], &change(2, "20"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    // No session: no health line (issue 26, point 6).
    assert!(
        run.stdout.starts_with("✅ Patch Applied\nApply succeeded.\nAction: Continue to next task step or end.\n"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("SESSION CONTEXT"), "{}", run.stdout);
    let run = sb.run("check", &[], &change(3, "30"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("✅ Patch would apply (dry run)\n"), "{}", run.stdout);
    assert!(!run.stdout.contains("SESSION CONTEXT") && !run.stdout.contains("applied at"), "{}", run.stdout);
    let run = sb.run("check", &["--json"], &change(3, "30"));
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    let feedback = json["feedback"].as_str().unwrap();
    assert!(feedback.starts_with("✅ Patch would apply (dry run)\n"), "{feedback}");
    assert!(feedback.contains("\nm.py, block 1: located at lines 2-4 ("), "{feedback}");
    assert!(!sb.state().exists());
    let run = sb.run("diff", &["--session", "state.json"], &change(3, "30"));
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stderr, "error: `--session` is for `apply` and `check`, not `diff`\n");
    assert!(!sb.state().exists());
}

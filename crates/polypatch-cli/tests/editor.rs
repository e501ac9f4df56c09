//! `apply --stdin-json` (the editor protocol), `schema` and `formats --json`, driven as an
//! editor or a script drives them: a real process, a request on standard input, one JSON
//! document on standard output, the exit code.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

/// What one run of the binary did.
mod common;

use common::Run;

/// Runs `polypatch args…` in `cwd` with `stdin` piped in.
fn polypatch(cwd: &Path, args: &[&str], stdin: &[u8]) -> Run {
    common::polypatch_with(cwd, args, &[], Some(stdin))
}

const PATCH: &str =
    "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Update File: b.txt\n@@\n-two\n+TWO\n*** End Patch\n";

/// Every file under `dir` with its bytes and modification time.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>, std::time::SystemTime)> {
    let mut out: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
                e.metadata().unwrap().modified().unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn buffers_in_new_contents_out_and_the_disk_untouched() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("b.txt"), "two\n").unwrap();
    fs::write(dir.path().join("a.txt"), "one on disk\n").unwrap();
    let before = snapshot(dir.path());
    let request = json!({"patch": PATCH, "files": {"a.txt": "zero\none\n"}});
    let root = dir.path().to_str().unwrap();
    let run = polypatch(dir.path(), &["apply", "--stdin-json", "--root", root], request.to_string().as_bytes());
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stderr, "");
    let doc = run.json();
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["status"], "applied");
    // a.txt from the buffer, b.txt read from the root.
    assert_eq!(doc["files"], json!({"a.txt": "zero\nONE\n", "b.txt": "TWO\n"}));
    assert_eq!(doc["report"]["files"][1]["status"], "applied");
    assert_eq!(snapshot(dir.path()), before, "the editor protocol wrote to the root");
}

#[test]
fn a_missing_file_without_root_is_exit_1_with_the_report_and_no_files() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("b.txt"), "two\n").unwrap();
    let request = json!({"patch": PATCH, "format": "ai-patch", "files": {"a.txt": "one\n"}});
    // No --root: b.txt in the working directory is not read.
    let run = polypatch(dir.path(), &["apply", "--stdin-json"], request.to_string().as_bytes());
    assert_eq!(run.code, 1, "{run:?}");
    let doc = run.json();
    assert_eq!(doc["status"], "failed");
    assert_eq!(doc["files"], json!({}));
    assert_eq!(doc["report"]["files"][0]["status"], "located");
    assert_eq!(doc["report"]["files"][1]["path"], "b.txt");
    assert_eq!(doc["report"]["files"][1]["failure"]["kind"], "file_missing");
}

#[test]
fn a_malformed_request_or_patch_is_exit_2_with_a_json_error() {
    let dir = tempfile::tempdir().unwrap();
    for (input, status) in [
        (&b"{\"patch\": "[..], "usage_error"),
        (&b"{\"patch\": \"x\", \"fils\": {}}"[..], "usage_error"),
        (&b"\xff\xfe"[..], "usage_error"),
        (json!({"patch": "*** Begin Patch\n*** Frob File: a\n*** End Patch\n"}).to_string().as_bytes(), "malformed"),
    ] {
        let run = polypatch(dir.path(), &["apply", "--stdin-json"], input);
        assert_eq!(run.code, 2, "{run:?}");
        let doc = run.json();
        assert_eq!(doc["version"], 1);
        assert_eq!(doc["status"], status, "{doc}");
        assert!(doc["error"]["message"].is_string());
    }
}

#[test]
fn stdin_json_refuses_options_that_belong_in_the_request() {
    let dir = tempfile::tempdir().unwrap();
    let run = polypatch(dir.path(), &["apply", "--stdin-json", "--strict"], b"{}");
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("--strict"), "{}", run.stderr);
    let run = polypatch(dir.path(), &["check", "--stdin-json"], b"{}");
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("`--stdin-json` is for `apply`"), "{}", run.stderr);
}

#[test]
fn schema_prints_the_report_and_format_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let run = polypatch(dir.path(), &["schema", "--report"], b"");
    assert_eq!(run.code, 0, "{run:?}");
    let schema: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(schema, polypatch::schema::report());
    for name in ["aptix", "ap"] {
        let run = polypatch(dir.path(), &["schema", "--format", name], b"");
        assert_eq!(run.code, 0, "{run:?}");
        assert_eq!(serde_json::from_str::<Value>(&run.stdout).unwrap(), polypatch::schema::format(name).unwrap());
    }
    let run = polypatch(dir.path(), &["schema", "--format", "unified"], b"");
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("no schema for format `unified`; formats with a schema: aptix, ap"), "{}", run.stderr);
    let run = polypatch(dir.path(), &["schema"], b"");
    assert_eq!(run.code, 2, "one of --report and --format is required: {run:?}");
}

#[test]
fn formats_json_lists_the_dialects() {
    let dir = tempfile::tempdir().unwrap();
    let run = polypatch(dir.path(), &["formats", "--json"], b"");
    assert_eq!(run.code, 0, "{run:?}");
    let doc = run.json();
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["formats"], json!(polypatch::Dialects::global().names()));
}

#[test]
fn a_failed_check_reports_located_files_not_applied_ones() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    fs::write(dir.path().join("b.txt"), "three\n").unwrap();
    let root = dir.path().to_str().unwrap();
    let run = polypatch(dir.path(), &["apply", "--json", "--root", root, "-"], PATCH.as_bytes());
    assert_eq!(run.code, 1, "{run:?}");
    let doc = run.json();
    assert_eq!(doc["report"]["files"][0]["status"], "located");
    assert_eq!(doc["report"]["files"][0]["edits"][0]["status"], "located");
    assert_eq!(doc["report"]["files"][1]["status"], "failed");
    let run = polypatch(dir.path(), &["apply", "--root", root, "-"], PATCH.as_bytes());
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("\nlocated: modify a.txt\n  hunk 1: located at line 1\n"), "{}", run.stderr);
    fs::write(dir.path().join("b.txt"), "two\n").unwrap();
    let run = polypatch(dir.path(), &["check", "--json", "--root", root, "-"], PATCH.as_bytes());
    assert_eq!(run.code, 0, "{run:?}");
    let doc = run.json();
    assert_eq!(doc["status"], "dry_run");
    assert_eq!(doc["report"]["files"][0]["status"], "located");
    let run = polypatch(dir.path(), &["check", "--root", root, "-"], PATCH.as_bytes());
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stdout,
        "located: modify a.txt\n  hunk 1: located at line 1\nlocated: modify b.txt\n  hunk 1: located at line 1\n\
         dry run: would apply 2 edits in 2 files, nothing written\n"
    );
}

/// Every kind of document the command line prints validates against `schema --report`,
/// so a field the command line adds without the schema fails here.
#[test]
fn every_cli_document_validates_against_the_report_schema() {
    let schema = jsonschema::draft202012::new(&polypatch::schema::report()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap().to_string();
    let write = |a: &str, b: &str| {
        fs::write(dir.path().join("a.txt"), a).unwrap();
        fs::write(dir.path().join("b.txt"), b).unwrap();
    };
    let applydiff = ">>> file: a.txt\n--- from\nONE\n--- to\nuno\n<\n";
    // A chat reply: prose around two blocks of two dialects, applied as one transaction.
    let reply = String::from(
        "Here is the fix:\n\n```diff\n*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch\n```\n\nand the second file:\n\n```diff\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-two\n+TWO\n```\n",
    );
    let malformed_reply = "Two blocks:\n\n```diff\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-two\n+TWO\n```\n\n*** Begin Patch\n*** Frob File: a.txt\n*** End Patch\n";
    let runs: Vec<(&str, Vec<&str>, &str, &str)> = vec![
        ("dry run", vec!["check", "--json"], PATCH, "one\n"),
        ("diff", vec!["diff", "--json"], PATCH, "one\n"),
        ("applied", vec!["apply", "--json"], PATCH, "one\n"),
        ("already applied", vec!["apply", "--json"], PATCH, "ONE\n"),
        ("failed", vec!["apply", "--json"], PATCH, "three\n"),
        ("malformed", vec!["apply", "--json"], "*** Begin Patch\n*** Frob\n", "one\n"),
        ("usage error", vec!["apply", "--json", "--format", "klingon"], PATCH, "one\n"),
        ("applydiff session", vec!["apply", "--json", "--session", "state.json"], applydiff, "ONE\n"),
        ("applydiff failure", vec!["apply", "--json", "--session", "state.json"], applydiff, "two\n"),
        ("reply applied", vec!["apply", "--json"], &reply, "one\n"),
        ("reply dry run", vec!["check", "--json"], &reply, "one\n"),
        ("reply diff", vec!["diff", "--json"], &reply, "one\n"),
        ("reply failed", vec!["apply", "--json"], &reply, "three\n"),
        ("reply malformed block", vec!["apply", "--json"], malformed_reply, "one\n"),
        ("reply without a patch", vec!["apply", "--json"], "Sure, I can help with that.\n", "one\n"),
    ];
    for (what, mut args, patch, a) in runs {
        write(a, "two\n");
        args.extend(["--root", &root, "-"]);
        let run = polypatch(dir.path(), &args, patch.as_bytes());
        let doc = run.json();
        let errors: Vec<String> = schema.iter_errors(&doc).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{what}: {}\n{doc:#}", errors.join("\n"));
        if what.starts_with("applydiff") {
            assert!(doc["session"]["state"].is_object() && doc["feedback"].is_string(), "{what}: {doc:#}");
        }
        if what == "diff" || what == "reply diff" {
            assert!(doc["diff"].is_string(), "{doc:#}");
        }
        if what.starts_with("reply") {
            let blocks = doc["blocks"].as_array().map_or(0, Vec::len);
            let error_block = doc["error"]["block"].is_object();
            assert!(blocks == 2 || error_block || doc["error"]["kind"] == "no_patch", "{what}: {doc:#}");
        }
    }
}

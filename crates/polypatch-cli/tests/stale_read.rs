//! The stale-read guard from the command line: `hash` prints a file's hash, `--read-hash`
//! gives it back with the patch, `--stale-read exact` lets exact matches of a changed file
//! through; the editor protocol takes the same in its request.

use std::fs;
use std::path::Path;

mod common;

use common::Run;

fn polypatch(cwd: &Path, args: &[&str], stdin: Option<&str>) -> Run {
    common::polypatch_with(cwd, args, &[], stdin.map(str::as_bytes))
}

const READ: &str = "one\ntwo\nthree\n";
const PATCH: &str = "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+2\n three\n*** End Patch\n";
const READ_HASH: &str = "sha256:b6285c57e8797db5d4c51c80d6f11938afda9b11c6a003549709189e9b4b92a2";

fn sandbox(text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), text).unwrap();
    fs::write(dir.path().join("p.patch"), PATCH).unwrap();
    dir
}

#[test]
fn hash_prints_each_files_hash_as_sha256sum_lists_them() {
    let dir = sandbox(READ);
    fs::write(dir.path().join("b.txt"), "").unwrap();
    let run = polypatch(dir.path(), &["hash", "a.txt", "b.txt"], None);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        run.stdout,
        format!("{READ_HASH}  a.txt\nsha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  b.txt\n")
    );
    let json = polypatch(dir.path(), &["hash", "--json", "a.txt"], None);
    assert_eq!(json.stdout, format!("{{\"version\":1,\"files\":[{{\"path\":\"a.txt\",\"hash\":\"{READ_HASH}\"}}]}}\n"));
    let missing = polypatch(dir.path(), &["hash", "a.txt", "nope.txt"], None);
    assert_eq!(missing.code, 2);
    assert_eq!(missing.stdout, format!("{READ_HASH}  a.txt\n"), "the files that could be read are listed");
    assert!(missing.stderr.starts_with("error: cannot read `nope.txt`: "), "{}", missing.stderr);
}

#[test]
fn a_file_changed_since_it_was_read_is_refused_and_left_alone() {
    let now = "zero\none\ntwo\nthree\n";
    let dir = sandbox(now);
    let given = format!("a.txt={READ_HASH}");
    let run = polypatch(dir.path(), &["apply", "--read-hash", &given, "p.patch"], None);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), now);
    assert!(
        run.stderr.contains("`a.txt` changed since it was read: it was read as sha256:b6285c57e879…"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("every edit still matches it exactly"), "{}", run.stderr);
    // The JSON report names the kind.
    let json = polypatch(dir.path(), &["check", "--json", "--read-hash", &given, "p.patch"], None);
    assert!(json.stdout.contains("\"kind\":\"changed_since_read\""), "{}", json.stdout);
    // Allowed to apply exact matches: applied, and said so.
    let exact = polypatch(dir.path(), &["apply", "--read-hash", &given, "--stale-read", "exact", "p.patch"], None);
    assert_eq!(exact.code, 0, "{}", exact.stderr);
    assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), "zero\none\n2\nthree\n");
    assert!(exact.stdout.contains("changed since it was read"), "{}", exact.stdout);
}

#[test]
fn a_file_as_read_applies_and_a_malformed_hash_is_a_usage_error() {
    let dir = sandbox(READ);
    let run = polypatch(dir.path(), &["apply", "--read-hash", &format!("./a.txt={READ_HASH}"), "p.patch"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), "one\n2\nthree\n");
    for bad in ["a.txt", "a.txt=sha256:abc"] {
        let dir = sandbox(READ);
        let run = polypatch(dir.path(), &["apply", "--read-hash", bad, "p.patch"], None);
        assert_eq!(run.code, 2, "{bad}");
        assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), READ);
        assert!(run.stderr.starts_with(&format!("error: `--read-hash {bad}`: ")), "{}", run.stderr);
    }
}

#[test]
fn the_editor_protocol_takes_read_hashes_for_its_buffers() {
    let dir = tempfile::tempdir().unwrap();
    let request = |text: &str, policy: &str| {
        serde_json::json!({
            "patch": PATCH,
            "files": {"a.txt": text},
            "read_hashes": {"a.txt": READ_HASH},
            "stale_read": policy,
        })
        .to_string()
    };
    let run = polypatch(dir.path(), &["apply", "--stdin-json"], Some(&request(READ, "refuse")));
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["files"]["a.txt"], "one\n2\nthree\n", "{doc}");
    let run = polypatch(dir.path(), &["apply", "--stdin-json"], Some(&request("zero\none\ntwo\nthree\n", "refuse")));
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["files"], serde_json::json!({}), "{doc}");
    assert!(run.stdout.contains("\"kind\":\"changed_since_read\""), "{}", run.stdout);
    let run =
        polypatch(dir.path(), &["apply", "--stdin-json"], Some(&request("zero\none\ntwo\nthree\n", "exact_only")));
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["files"]["a.txt"], "zero\none\n2\nthree\n", "{doc}");
}

//! `polypatch convert` and `polypatch diff` driven as a user drives them: real processes in
//! temporary directories, asserting exit codes, output and the bytes a converted patch gives.

use std::fs;
use std::path::Path;
mod common;

/// Runs `polypatch args…` in `cwd` with `stdin`; returns (exit code, stdout, stderr).
fn polypatch(cwd: &Path, args: &[&str], stdin: &str) -> (i32, String, String) {
    let run = common::polypatch_with(cwd, args, &[], Some(stdin.as_bytes()));
    (run.code, run.stdout, run.stderr)
}

const CALC: &str = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";
const FIXED: &str = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n";

/// The same fix written in each dialect.
const PATCHES: &[(&str, &str)] = &[
    (
        "ai-patch",
        "*** Begin Patch\n*** Update File: calc.py\n@@\n def add(a, b):\n-    return a - b\n+    return a + b\n*** End Patch\n",
    ),
    (
        "unified",
        "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n",
    ),
    (
        "ap",
        "version: \"2.0\"\nchanges:\n  - file_path: calc.py\n    modifications:\n      - action: REPLACE\n        snippet: |\n          return a - b\n        content: |\n          return a + b\n",
    ),
    (
        "applydiff",
        ">>> file: calc.py\n--- from\ndef add(a, b):\n    return a - b\n--- to\ndef add(a, b):\n    return a + b\n<\n",
    ),
    (
        "aptix",
        "{\n  \"root\": \".\",\n  \"patches\": [\n    {\"path\": \"calc.py\", \"find\": \"a - b\", \"replace\": \"a + b\", \"limit\": \"once\"}\n  ]\n}\n",
    ),
];

fn sandbox() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("calc.py"), CALC).unwrap();
    dir
}

#[test]
fn diff_shows_the_same_git_diff_for_every_dialect() {
    let want = "diff --git a/calc.py b/calc.py\nindex f905fb9..717f7ed 100644\n--- a/calc.py\n+++ b/calc.py\n\
                @@ -1,5 +1,5 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n \n \n def mul(a, b):\n";
    for (dialect, patch) in PATCHES {
        let dir = sandbox();
        let (code, out, err) = polypatch(dir.path(), &["diff"], patch);
        assert_eq!((code, out.as_str()), (0, want), "{dialect}: {err}");
        assert_eq!(fs::read_to_string(dir.path().join("calc.py")).unwrap(), CALC, "{dialect}: diff writes nothing");
    }
}

#[test]
fn every_dialect_converts_to_every_dialect_and_applies_exactly() {
    for (source, patch) in PATCHES {
        for (target, _) in PATCHES {
            let dir = sandbox();
            let (code, converted, err) = polypatch(dir.path(), &["convert", "--to", target], patch);
            assert_eq!(code, 0, "{source} -> {target}: {err}");
            assert_eq!(fs::read_to_string(dir.path().join("calc.py")).unwrap(), CALC, "convert writes nothing");
            let (code, _, err) = polypatch(dir.path(), &["detect"], &converted);
            assert_eq!(code, 0, "{err}");
            let (code, _, err) = polypatch(dir.path(), &["apply", "--strict", "--format", target], &converted);
            assert_eq!(code, 0, "{source} -> {target}:\n{converted}\n{err}");
            assert_eq!(fs::read_to_string(dir.path().join("calc.py")).unwrap(), FIXED, "{source} -> {target}");
        }
    }
}

#[test]
fn an_operation_the_target_lacks_is_exit_2_naming_it() {
    let dir = sandbox();
    let delete = "*** Begin Patch\n*** Delete File: calc.py\n*** End Patch\n";
    let (code, out, err) = polypatch(dir.path(), &["convert", "--to", "applydiff"], delete);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.contains("applydiff cannot express deleting a file (`calc.py`)"), "{err}");
    let (code, out, _) = polypatch(dir.path(), &["convert", "--to", "ap", "--json"], delete);
    assert_eq!(code, 2);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (doc["status"].as_str(), doc["operation"].as_str(), doc["path"].as_str()),
        (Some("inexpressible"), Some("delete"), Some("calc.py"))
    );
    assert!(dir.path().join("calc.py").exists());
}

#[test]
fn a_patch_that_does_not_apply_is_exit_1_and_malformed_or_usage_is_exit_2() {
    let dir = sandbox();
    let stale = "--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n-def sub(a, b):\n+def minus(a, b):\n";
    let (code, out, err) = polypatch(dir.path(), &["convert", "--to", "ap"], stale);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("not found") && err.contains("nothing was converted"), "{err}");
    let (code, _, err) = polypatch(dir.path(), &["convert", "--to", "yaml"], PATCHES[0].1);
    assert_eq!(code, 2);
    assert!(err.starts_with("error: `--to yaml`: no dialect is called so; write one of: ai-patch, "), "{err}");
    let (code, _, err) = polypatch(dir.path(), &["convert", "--to", "ap", "--format", "ai-patch"], "*** Begin Patch\n");
    assert_eq!(code, 2, "{err}");
    let (code, out, _) = polypatch(dir.path(), &["convert", "--to", "unified", "--json"], PATCHES[0].1);
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (doc["status"].as_str(), doc["from"].as_str(), doc["files"].as_u64()),
        (Some("converted"), Some("ai-patch"), Some(1))
    );
    assert!(doc["patch"].as_str().unwrap().starts_with("diff --git a/calc.py b/calc.py\n"));
}

#[test]
fn an_applied_patch_has_nothing_to_convert() {
    let dir = sandbox();
    fs::write(dir.path().join("calc.py"), FIXED).unwrap();
    let (code, out, err) = polypatch(dir.path(), &["convert", "--to", "ap"], PATCHES[1].1);
    assert_eq!((code, out.as_str()), (0, ""));
    assert!(err.contains("nothing to convert"), "{err}");
}

//! The `polypatch` binary, driven as a user drives it: real processes in temporary
//! directories, asserting exit codes, exact file bytes and output.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tempfile::TempDir;

/// What one run of the binary did.
mod common;

use common::Run;

/// Runs `polypatch args…` in `cwd`, with `stdin` piped in when given.
fn polypatch(cwd: &Path, args: &[&str], stdin: Option<&str>) -> Run {
    common::polypatch_with(cwd, args, &[], stdin.map(str::as_bytes))
}

/// A temporary directory holding `root/` with `files`, and a place for patch files
/// outside the root.
struct Sandbox {
    dir: TempDir,
}

impl Sandbox {
    fn new(files: &[(&str, &str)]) -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("root")).unwrap();
        let sandbox = Sandbox { dir };
        for (path, content) in files {
            sandbox.write(path, content.as_bytes());
        }
        sandbox
    }

    fn top(&self) -> &Path {
        self.dir.path()
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    fn root_arg(&self) -> String {
        self.root().to_str().unwrap().to_string()
    }

    fn write(&self, path: &str, bytes: &[u8]) {
        let path = self.root().join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }

    fn read(&self, path: &str) -> String {
        fs::read_to_string(self.root().join(path)).unwrap_or_else(|e| panic!("reading {path}: {e}"))
    }

    fn exists(&self, path: &str) -> bool {
        self.root().join(path).exists()
    }

    /// Writes a patch file next to (not inside) the root and returns its path.
    fn patch(&self, text: &str) -> String {
        let path = self.top().join("change.patch");
        fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    }

    /// Every file under the root with its bytes, to prove nothing changed.
    fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut all = Vec::new();
        collect(&self.root(), &mut all);
        all.sort();
        all
    }

    /// `polypatch <verb> --root <root> [extra…] <patch file>`.
    fn run(&self, verb: &str, extra: &[&str], patch: &str) -> Run {
        let patch = self.patch(patch);
        let root = self.root_arg();
        let mut args = vec![verb, "--root", &root];
        args.extend_from_slice(extra);
        args.push(&patch);
        polypatch(self.top(), &args, None)
    }
}

fn collect(dir: &Path, all: &mut Vec<(PathBuf, Vec<u8>)>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, all);
        } else {
            let bytes = fs::read(&path).unwrap();
            all.push((path, bytes));
        }
    }
}

const CALC: &str = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";
const CALC_FIXED: &str = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n";

/// Fixes `add` in `calc.py` and creates `notes.txt`.
const TWO_FILES: &str = "\
*** Begin Patch
*** Update File: calc.py
@@
 def add(a, b):
-    return a - b
+    return a + b
*** Add File: notes.txt
+add() was subtracting
*** End Patch
";

fn calc_sandbox() -> Sandbox {
    Sandbox::new(&[("calc.py", CALC)])
}

#[test]
fn apply_writes_the_exact_bytes() {
    let sb = calc_sandbox();
    let run = sb.run("apply", &[], TWO_FILES);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(sb.read("calc.py"), CALC_FIXED);
    assert_eq!(sb.read("notes.txt"), "add() was subtracting\n");
    assert!(run.stdout.contains("applied: modify calc.py\n"), "{}", run.stdout);
    assert!(run.stdout.contains("applied: create notes.txt\n"), "{}", run.stdout);
    assert!(run.stdout.ends_with("applied 2 edits in 2 files\n"), "{}", run.stdout);
    assert_eq!(run.stderr, "");
}

#[test]
fn rerun_is_already_applied_and_changes_nothing() {
    let sb = calc_sandbox();
    assert_eq!(sb.run("apply", &[], TWO_FILES).code, 0);
    let after_first = sb.snapshot();
    let run = sb.run("apply", &[], TWO_FILES);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.ends_with("already applied: nothing to do\n"), "{}", run.stdout);
    assert_eq!(sb.snapshot(), after_first);
    assert_eq!(sb.read("calc.py"), CALC_FIXED);
}

#[test]
fn check_and_dry_run_write_nothing() {
    let sb = calc_sandbox();
    let before = sb.snapshot();
    for (verb, extra) in [("check", &[][..]), ("apply", &["--dry-run"][..])] {
        let run = sb.run(verb, extra, TWO_FILES);
        assert_eq!(run.code, 0, "{verb} {extra:?}: {run:?}");
        assert!(run.stdout.ends_with("dry run: would apply 2 edits in 2 files, nothing written\n"), "{}", run.stdout);
        assert_eq!(sb.snapshot(), before, "{verb} {extra:?} wrote something");
        assert!(!sb.exists("notes.txt"));
    }
}

#[test]
fn json_reports_every_outcome() {
    let sb = calc_sandbox();

    let run = sb.run("check", &["--json"], TWO_FILES);
    assert_eq!(run.code, 0, "{run:?}");
    let doc = run.json();
    assert_eq!(doc["status"], "dry_run");
    assert_eq!(doc["report"]["dry_run"], true);
    assert_eq!(doc["report"]["committed"], false);

    let run = sb.run("apply", &["--json"], TWO_FILES);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stderr, "");
    let doc = run.json();
    assert_eq!(doc["status"], "applied");
    let report = &doc["report"];
    assert_eq!(report["dialect"], "ai-patch");
    assert_eq!(report["committed"], true);
    assert_eq!(report["files"][0]["path"], "calc.py");
    assert_eq!(report["files"][0]["operation"], "modify");
    assert_eq!(report["files"][0]["status"], "applied");
    let edit = &report["files"][0]["edits"][0];
    assert_eq!(edit["index"], 1);
    assert_eq!(edit["status"], "applied");
    assert_eq!(edit["tier"], "exact");
    assert_eq!(edit["lines"]["start"], 1);
    assert_eq!(edit["lines"]["end"], 2);
    assert_eq!(report["files"][1]["path"], "notes.txt");
    assert_eq!(report["files"][1]["operation"], "create");

    let run = sb.run("apply", &["--json"], TWO_FILES);
    assert_eq!(run.code, 0, "{run:?}");
    let doc = run.json();
    assert_eq!(doc["status"], "already_applied");
    assert_eq!(doc["report"]["files"][0]["edits"][0]["status"], "already_applied");
}

/// A two-file patch whose second hunk is not in the file.
const SECOND_HUNK_MISSING: &str = "\
*** Begin Patch
*** Update File: calc.py
@@
 def add(a, b):
-    return a - b
+    return a + b
*** Update File: shapes.py
@@
 def area(r):
-    return 3.14 * r * r
+    return math.pi * r * r
*** End Patch
";

#[test]
fn failure_is_exit_1_and_writes_nothing() {
    let sb = Sandbox::new(&[("calc.py", CALC), ("shapes.py", "def perimeter(r):\n    return 2 * 3.14 * r\n")]);
    let before = sb.snapshot();
    let run = sb.run("apply", &[], SECOND_HUNK_MISSING);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(sb.snapshot(), before, "a failed apply changed files");
    assert_eq!(sb.read("calc.py"), CALC);
    assert_eq!(run.stdout, "");
    assert!(run.stderr.starts_with("error: could not apply the patch, nothing was written\n"), "{}", run.stderr);
    assert!(run.stderr.contains("shapes.py"), "{}", run.stderr);
    assert!(run.stderr.contains("not found"), "{}", run.stderr);
    assert!(run.stderr.contains("next step:"), "{}", run.stderr);
}

#[test]
fn every_fsync_policy_writes_the_same_bytes_and_fails_the_same_way() {
    for policy in [&["--fsync", "none"][..], &["--fsync", "full"], &[]] {
        let sb = calc_sandbox();
        let run = sb.run("apply", policy, TWO_FILES);
        assert_eq!(run.code, 0, "{policy:?}: {run:?}");
        assert_eq!(sb.read("calc.py"), CALC_FIXED);
        assert_eq!(sb.read("notes.txt"), "add() was subtracting\n");
        let sb = Sandbox::new(&[("calc.py", CALC), ("shapes.py", "def perimeter(r):\n    return 2 * 3.14 * r\n")]);
        let before = sb.snapshot();
        let run = sb.run("apply", policy, SECOND_HUNK_MISSING);
        assert_eq!(run.code, 1, "{policy:?}: {run:?}");
        assert_eq!(sb.snapshot(), before, "{policy:?}: a failed apply changed files");
    }
}

#[test]
fn fsync_policy_comes_from_the_flag_then_the_environment() {
    let sb = calc_sandbox();
    let root = sb.root_arg();
    let patch = sb.patch(TWO_FILES);
    let run =
        common::polypatch_with(sb.top(), &["apply", "--root", &root, &patch], &[("POLYPATCH_FSYNC", "full")], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(sb.read("calc.py"), CALC_FIXED);
    // A bad value is a usage error, whether it comes from the flag or the environment.
    let sb = calc_sandbox();
    let run = sb.run("apply", &["--fsync", "sometimes"], TWO_FILES);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("sometimes"), "{}", run.stderr);
    let root = sb.root_arg();
    let patch = sb.patch(TWO_FILES);
    let run =
        common::polypatch_with(sb.top(), &["apply", "--root", &root, &patch], &[("POLYPATCH_FSYNC", "often")], None);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("POLYPATCH_FSYNC must be `none` or `full`, not `often`"), "{}", run.stderr);
    assert_eq!(sb.read("calc.py"), CALC);
    // The flag wins over the environment.
    let run = common::polypatch_with(
        sb.top(),
        &["apply", "--fsync", "none", "--root", &root, &patch],
        &[("POLYPATCH_FSYNC", "often")],
        None,
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(sb.read("calc.py"), CALC_FIXED);
}

#[test]
fn check_of_a_patch_that_does_not_apply_is_exit_1() {
    let sb = Sandbox::new(&[("calc.py", CALC), ("shapes.py", "def perimeter(r):\n    return 2 * 3.14 * r\n")]);
    let before = sb.snapshot();
    let run = sb.run("check", &[], SECOND_HUNK_MISSING);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.starts_with("error: could not apply the patch, nothing was written\n"), "{}", run.stderr);
    assert_eq!(sb.snapshot(), before);
}

#[test]
fn failure_in_json_is_status_failed() {
    let sb = Sandbox::new(&[("calc.py", CALC), ("shapes.py", "def perimeter(r):\n    return 2 * 3.14 * r\n")]);
    let before = sb.snapshot();
    let run = sb.run("apply", &["--json"], SECOND_HUNK_MISSING);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.stderr, "");
    let doc = run.json();
    assert_eq!(doc["status"], "failed");
    assert_eq!(doc["report"]["committed"], false);
    let shapes = &doc["report"]["files"][1];
    assert_eq!(shapes["path"], "shapes.py");
    assert_eq!(shapes["status"], "failed");
    assert_eq!(shapes["edits"][0]["failure"]["kind"], "not_found");
    assert_eq!(sb.snapshot(), before);
}

const MALFORMED: &str = "*** Begin Patch\n*** Frob File: calc.py\n+x\n*** End Patch\n";

#[test]
fn malformed_patch_is_exit_2_with_line_and_column() {
    let sb = calc_sandbox();
    let before = sb.snapshot();
    let run = sb.run("apply", &[], MALFORMED);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.starts_with("error: malformed ai-patch patch: "), "{}", run.stderr);
    assert!(run.stderr.contains("--> line 2, column "), "{}", run.stderr);
    assert!(run.stderr.contains("2 | *** Frob File: calc.py"), "{}", run.stderr);
    assert!(run.stderr.contains('^'), "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert_eq!(sb.snapshot(), before);
}

#[test]
fn malformed_patch_in_json() {
    let sb = calc_sandbox();
    let run = sb.run("apply", &["--json"], MALFORMED);
    assert_eq!(run.code, 2, "{run:?}");
    let doc = run.json();
    assert_eq!(doc["status"], "malformed");
    assert_eq!(doc["error"]["dialect"], "ai-patch");
    assert_eq!(doc["error"]["line"], 2);
    assert!(doc["error"]["column"].as_u64().is_some(), "{doc}");
    assert!(doc["error"]["kind"].as_str().is_some_and(|k| !k.is_empty()), "{doc}");
    assert!(doc["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{doc}");
}

#[test]
fn text_that_is_no_patch_is_exit_2() {
    let sb = calc_sandbox();
    let run = sb.run("apply", &[], "please change add() to add\n");
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("the reply holds no patch"), "{}", run.stderr);
    assert!(run.stderr.contains("looks like any known patch format"), "{}", run.stderr);
}

#[test]
fn non_utf8_patch_is_exit_2() {
    let sb = calc_sandbox();
    let path = sb.top().join("latin1.patch");
    fs::write(&path, b"*** Begin Patch\n*** Add File: a.txt\n+caf\xe9\n*** End Patch\n").unwrap();
    let root = sb.root_arg();
    let run = polypatch(sb.top(), &["apply", "--root", &root, path.to_str().unwrap()], None);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("invalid UTF-8 (byte 0xe9)"), "{}", run.stderr);
    assert!(run.stderr.contains("--> line 3, column 5"), "{}", run.stderr);
    assert!(!sb.exists("a.txt"));

    let run = polypatch(sb.top(), &["apply", "--json", "--root", &root, path.to_str().unwrap()], None);
    assert_eq!(run.code, 2, "{run:?}");
    let doc = run.json();
    assert_eq!(doc["status"], "malformed");
    assert_eq!(doc["error"]["kind"], "not_utf8");
    assert_eq!(doc["error"]["line"], 3);
}

/// A character of U+10FF80..=U+10FFFF, which the library's text stands for a byte that is
/// not UTF-8 with, written as UTF-8 in a patch file: it is that character, written as its
/// four bytes (it was written as the one byte it stands for, 0xEE here: found by the
/// `lazy` fuzz target).
#[test]
fn a_patch_character_of_the_raw_byte_range_is_written_as_its_utf8() {
    let sb = calc_sandbox();
    let path = sb.top().join("plane16.patch");
    fs::write(&path, "*** Begin Patch\n*** Add File: a.txt\n+\u{10ffee}x\n*** End Patch\n").unwrap();
    let root = sb.root_arg();
    let run = polypatch(sb.top(), &["apply", "--root", &root, path.to_str().unwrap()], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(fs::read(sb.root().join("a.txt")).unwrap(), "\u{10ffee}x\n".as_bytes());
    // Applied again: already applied, nothing changed.
    let run = polypatch(sb.top(), &["apply", "--root", &root, path.to_str().unwrap()], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(fs::read(sb.root().join("a.txt")).unwrap(), "\u{10ffee}x\n".as_bytes());
    // Updated: the character is matched as itself and written so (was refused, "not UTF-8").
    fs::write(&path, "*** Begin Patch\n*** Update File: a.txt\n@@\n-\u{10ffee}x\n+\u{10ffee}y\n*** End Patch\n")
        .unwrap();
    let run = polypatch(sb.top(), &["apply", "--root", &root, path.to_str().unwrap()], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(fs::read(sb.root().join("a.txt")).unwrap(), "\u{10ffee}y\n".as_bytes());
}

#[test]
fn unknown_format_is_exit_2_and_lists_the_known_ones() {
    let sb = calc_sandbox();
    let run = sb.run("apply", &["--format", "klingon"], TWO_FILES);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("unknown format `klingon`"), "{}", run.stderr);
    assert!(run.stderr.contains("auto"), "{}", run.stderr);
    for name in polypatch::Dialects::global().names() {
        assert!(run.stderr.contains(name), "{name} missing from: {}", run.stderr);
    }
    assert!(!sb.exists("notes.txt"));

    let run = sb.run("apply", &["--json", "--format", "klingon"], TWO_FILES);
    assert_eq!(run.code, 2, "{run:?}");
    let doc = run.json();
    assert_eq!(doc["status"], "usage_error");
    assert!(doc["error"]["message"].as_str().unwrap().contains("ai-patch"), "{doc}");
}

#[test]
fn named_format_is_used() {
    let sb = calc_sandbox();
    let run = sb.run("apply", &["--format", "ai-patch"], TWO_FILES);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(sb.read("calc.py"), CALC_FIXED);
}

/// Cline's blocks name no file: `--file` does; without it, exit 2 and nothing written.
#[test]
fn file_names_the_file_of_search_replace_blocks_without_a_path() {
    let blocks = "------- SEARCH\n    return a - b\n=======\n    return a + b\n+++++++ REPLACE\n";
    let sb = calc_sandbox();
    let before = sb.snapshot();
    let run = sb.run("apply", &["--format", "search-replace"], blocks);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("the block names no file"), "{}", run.stderr);
    assert_eq!(sb.snapshot(), before);
    let run = sb.run("apply", &["--file", "calc.py"], blocks);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(sb.read("calc.py"), CALC_FIXED);
    // A block's own path line wins over `--file`.
    let sb = calc_sandbox();
    let run = sb.run("apply", &["--file", "other.py"], &format!("calc.py\n{blocks}"));
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(sb.read("calc.py"), CALC_FIXED);
    assert!(!sb.exists("other.py"));
}

#[test]
fn patch_from_stdin() {
    for patch_arg in [None, Some("-")] {
        let sb = calc_sandbox();
        let root = sb.root_arg();
        let mut args = vec!["apply", "--root", root.as_str()];
        args.extend(patch_arg);
        let run = polypatch(sb.top(), &args, Some(TWO_FILES));
        assert_eq!(run.code, 0, "{patch_arg:?}: {run:?}");
        assert_eq!(sb.read("calc.py"), CALC_FIXED);
        assert_eq!(sb.read("notes.txt"), "add() was subtracting\n");
    }
}

#[test]
fn root_defaults_to_the_current_directory() {
    let sb = calc_sandbox();
    let patch = sb.patch(TWO_FILES);
    let run = polypatch(&sb.root(), &["apply", &patch], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(sb.read("calc.py"), CALC_FIXED);
    assert!(!sb.top().join("calc.py").exists());
}

#[test]
fn root_option_is_relative_to_the_current_directory() {
    let sb = calc_sandbox();
    let patch = sb.patch(TWO_FILES);
    let run = polypatch(sb.top(), &["apply", "--root", "root", &patch], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(sb.read("calc.py"), CALC_FIXED);
    assert!(!sb.top().join("notes.txt").exists(), "created outside the root");
}

#[test]
fn missing_root_is_exit_2() {
    let sb = calc_sandbox();
    let patch = sb.patch(TWO_FILES);
    let run = polypatch(sb.top(), &["apply", "--root", "no-such-dir", &patch], None);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("no-such-dir"), "{}", run.stderr);
    assert!(!sb.top().join("no-such-dir").exists());
}

#[test]
fn unreadable_patch_file_is_exit_2() {
    let sb = calc_sandbox();
    let root = sb.root_arg();
    let run = polypatch(sb.top(), &["apply", "--root", &root, "missing.patch"], None);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("cannot read patch file `missing.patch`"), "{}", run.stderr);
}

#[test]
fn strict_refuses_a_whitespace_only_difference_that_the_default_applies() {
    // The file has trailing spaces the patch's context does not.
    let original = "alpha\nbeta   \ngamma\n";
    let patch = "*** Begin Patch\n*** Update File: greek.txt\n@@\n alpha\n beta\n-gamma\n+GAMMA\n*** End Patch\n";

    let sb = Sandbox::new(&[("greek.txt", original)]);
    let run = sb.run("apply", &["--strict"], patch);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(sb.read("greek.txt"), original);
    assert!(run.stderr.contains("not found"), "{}", run.stderr);

    let run = sb.run("apply", &[], patch);
    assert_eq!(run.code, 0, "{run:?}");
    // The context line keeps the file's trailing spaces: a lenient match never rewrites context.
    assert_eq!(sb.read("greek.txt"), "alpha\nbeta   \nGAMMA\n");
    assert!(run.stdout.contains("(trailing_whitespace match"), "{}", run.stdout);
}

#[test]
fn a_removed_line_unlike_the_file_is_refused_unless_fuzzy_removals_are_allowed() {
    // Issue 26: the user changed `<` to `<=` after the model read the file.
    let original = "class Inventory:\n    def restock(self, amount):\n        if amount <= 0:\n            raise ValueError(\"no\")\n";
    let patch = "*** Begin Patch\n*** Update File: inv.py\n@@\n     def restock(self, amount):\n-        if amount < 0:\n+        if amount < 0 or amount > 1000:\n             raise ValueError(\"no\")\n*** End Patch\n";
    let sb = Sandbox::new(&[("inv.py", original)]);
    let run = sb.run("apply", &[], patch);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(sb.read("inv.py"), original);
    assert!(
        run.stderr.contains("line 3 is `if amount <= 0:` where the patch removes `if amount < 0:`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("-        if amount < 0:\n") && run.stderr.contains("+        if amount <= 0:\n"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("next step: the file has `<=` where the patch removes `<`: re-read the file"),
        "{}",
        run.stderr
    );

    let run = sb.run("apply", &["--allow-fuzzy-removals"], patch);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        sb.read("inv.py"),
        "class Inventory:\n    def restock(self, amount):\n        if amount < 0 or amount > 1000:\n            raise ValueError(\"no\")\n"
    );
    assert!(
        run.stdout.contains("the file had `if amount <= 0:`, the patch removes `if amount < 0:`"),
        "{}",
        run.stdout
    );
}

#[test]
fn path_leaving_the_root_is_refused() {
    let sb = Sandbox::new(&[("calc.py", CALC)]);
    fs::write(sb.top().join("outside.txt"), "keep\n").unwrap();
    let before = sb.snapshot();

    let add = "*** Begin Patch\n*** Add File: ../x\n+escaped\n*** End Patch\n";
    let run = sb.run("apply", &[], add);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(!sb.top().join("x").exists(), "the file was created outside the root");
    assert!(run.stderr.contains("escapes"), "{}", run.stderr);

    let update = "*** Begin Patch\n*** Update File: ../outside.txt\n@@\n-keep\n+changed\n*** End Patch\n";
    let run = sb.run("apply", &[], update);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(fs::read_to_string(sb.top().join("outside.txt")).unwrap(), "keep\n");
    assert_eq!(sb.snapshot(), before);
}

#[test]
fn detect_names_the_dialect() {
    let sb = calc_sandbox();
    let patch = sb.patch(TWO_FILES);
    let run = polypatch(sb.top(), &["detect", &patch], None);
    assert_eq!((run.code, run.stdout.as_str()), (0, "ai-patch\n"), "{run:?}");

    let run = polypatch(sb.top(), &["detect"], Some(TWO_FILES));
    assert_eq!((run.code, run.stdout.as_str()), (0, "ai-patch\n"), "{run:?}");

    let run = polypatch(sb.top(), &["detect", "-"], Some("just some prose\n"));
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("no known patch format matched"), "{}", run.stderr);
}

#[test]
fn formats_lists_the_compiled_in_dialects() {
    let dir = tempfile::tempdir().unwrap();
    let run = polypatch(dir.path(), &["formats"], None);
    assert_eq!(run.code, 0, "{run:?}");
    // A line per dialect, in order, starting with its name (then what it is, its aliases).
    let names: Vec<&str> =
        run.stdout.lines().take_while(|l| !l.is_empty()).map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(names, polypatch::Dialects::global().names());
    assert!(run.stdout.starts_with("ai-patch "));
}

#[test]
fn clap_usage_errors_are_exit_2_and_help_is_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(polypatch(dir.path(), &["apply", "--no-such-flag"], None).code, 2);
    assert_eq!(polypatch(dir.path(), &["frobnicate"], None).code, 2);
    assert_eq!(polypatch(dir.path(), &[], None).code, 2);
    let help = polypatch(dir.path(), &["apply", "--help"], None);
    assert_eq!(help.code, 0);
    assert!(help.stdout.contains("--format <FORMAT>"), "{}", help.stdout);
    assert!(help.stdout.contains("auto, ai-patch"), "{}", help.stdout);
    // The run-time help strings are there however help is asked for.
    let help = polypatch(dir.path(), &["help", "check"], None);
    assert_eq!(help.code, 0);
    assert!(help.stdout.contains("auto, ai-patch"), "{}", help.stdout);
    let help = polypatch(dir.path(), &["convert", "-h"], None);
    assert_eq!(help.code, 0);
    assert!(help.stdout.contains("The dialect to write: ai-patch"), "{}", help.stdout);
    let version = polypatch(dir.path(), &["--version"], None);
    assert_eq!(version.code, 0);
    assert_eq!(version.stdout, format!("polypatch {}\n", env!("CARGO_PKG_VERSION")));
}

// The demo the README runs: examples/demo.patch on a copy of examples/demo.

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

const DEMO_CALC_AFTER: &str = r#""""A small calculator: the file the polypatch demo patches."""


def add(a, b):
    return a + b


def divide(a, b):
    if b == 0:
        raise ValueError("cannot divide by zero")
    return a / b


class Calculator:
    """Keeps a running total."""

    def __init__(self):
        self.total = 0

    def push(self, value):
        if not isinstance(value, (int, float)):
            raise TypeError(f"push() takes a number, not {type(value).__name__}")
        self.total += value
        return self.total
"#;

const DEMO_TEST_AFTER: &str = r#"import pytest

from calc import Calculator, divide


def test_divide_by_zero():
    with pytest.raises(ValueError):
        divide(1, 0)


def test_push_refuses_text():
    with pytest.raises(TypeError):
        Calculator().push("3")
"#;

#[test]
fn demo_patch_applies_with_an_indentation_match() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    copy_tree(&examples_dir().join("demo"), &root);
    let patch = examples_dir().join("demo.patch");
    let args = ["apply", "--root", root.to_str().unwrap(), patch.to_str().unwrap()];

    let run = polypatch(dir.path(), &args, None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(fs::read_to_string(root.join("src/calc.py")).unwrap(), DEMO_CALC_AFTER);
    assert_eq!(fs::read_to_string(root.join("tests/test_calc.py")).unwrap(), DEMO_TEST_AFTER);
    assert!(run.stdout.contains("(indentation match"), "{}", run.stdout);
    assert!(run.stdout.ends_with("applied 3 edits in 2 files\n"), "{}", run.stdout);
}

#[test]
fn demo_patch_rerun_is_already_applied() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    copy_tree(&examples_dir().join("demo"), &root);
    let patch = examples_dir().join("demo.patch");
    let args = ["apply", "--root", root.to_str().unwrap(), patch.to_str().unwrap()];
    assert_eq!(polypatch(dir.path(), &args, None).code, 0);

    // The second hunk only matches after an indentation shift, so its already-applied
    // check must look for the new lines at that shift too.
    let run = polypatch(dir.path(), &args, None);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.ends_with("already applied: nothing to do\n"), "{}", run.stdout);
    assert_eq!(fs::read_to_string(root.join("src/calc.py")).unwrap(), DEMO_CALC_AFTER);
}

#[test]
fn demo_applydiff_gives_the_same_calc_py_and_reruns_as_already_applied() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    copy_tree(&examples_dir().join("demo"), &root);
    let patch = examples_dir().join("demo.applydiff");
    let args = ["apply", "--root", root.to_str().unwrap(), patch.to_str().unwrap()];

    // A check writes nothing, and its feedback says so: located, not applied.
    let check = ["check", "--root", root.to_str().unwrap(), patch.to_str().unwrap()];
    let run = polypatch(dir.path(), &check, None);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("block 2: located at lines 20-22 (indentation match"), "{}", run.stdout);
    assert!(!run.stdout.contains(": applied at"), "{}", run.stdout);
    assert_ne!(fs::read_to_string(root.join("src/calc.py")).unwrap(), DEMO_CALC_AFTER);

    let run = polypatch(dir.path(), &args, None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(fs::read_to_string(root.join("src/calc.py")).unwrap(), DEMO_CALC_AFTER);
    assert!(
        run.stdout.contains("block 2: applied at lines 20-22 (indentation match, confidence 0.98)"),
        "{}",
        run.stdout
    );
    let run = polypatch(dir.path(), &args, None);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.ends_with("already applied: nothing to do\n"), "{}", run.stdout);
    assert_eq!(fs::read_to_string(root.join("src/calc.py")).unwrap(), DEMO_CALC_AFTER);
}

const GIT_DIFF: &str = "\
Subject: [PATCH] greet the world

diff --git a/src/hello.txt b/src/hello.txt
--- a/src/hello.txt
+++ b/src/hello.txt
@@ -1,3 +1,3 @@
 one
-hello
+hello, world
 three
diff --git a/old.txt b/new.txt
similarity index 100%
rename from old.txt
rename to new.txt
";

#[test]
fn unified_diff_is_detected_and_applied() {
    let sb = Sandbox::new(&[("src/hello.txt", "one\nhello\nthree\n"), ("old.txt", "moved\n")]);
    let patch = sb.patch(GIT_DIFF);
    let run = polypatch(sb.top(), &["detect", &patch], None);
    assert_eq!((run.code, run.stdout.as_str()), (0, "unified\n"), "{run:?}");
    let run = sb.run("apply", &[], GIT_DIFF);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(sb.read("src/hello.txt"), "one\nhello, world\nthree\n");
    assert_eq!(sb.read("new.txt"), "moved\n");
    assert!(!sb.exists("old.txt"));
    // Run again: the rename's source is gone and its destination holds the result, the
    // other edit is already applied: the whole patch is (issue 26, point 5).
    let again = sb.run("apply", &[], GIT_DIFF);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(again.stdout.contains("already applied: modify old.txt -> new.txt"), "{again:?}");
    assert_eq!(
        (sb.read("src/hello.txt").as_str(), sb.read("new.txt").as_str()),
        ("one\nhello, world\nthree\n", "moved\n")
    );
    assert!(!sb.exists("old.txt"));
    // With the other edit not applied, the source missing is a failure as before.
    sb.write("src/hello.txt", b"one\nhello\nthree\n");
    let other = sb.run("apply", &[], GIT_DIFF);
    assert_eq!(other.code, 1, "the rename's source is gone: {other:?}");
}

#[test]
fn strip_option_sets_the_path_prefix_to_drop() {
    let plain = "--- project/src/x.txt\n+++ project/src/x.txt\n@@ -1 +1 @@\n-a\n+b\n";
    let sb = Sandbox::new(&[("src/x.txt", "a\n")]);
    let run = sb.run("apply", &["-p1"], plain);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(sb.read("src/x.txt"), "b\n");
    // Without -p1 the path is `project/src/x.txt`, which does not exist.
    let sb = Sandbox::new(&[("src/x.txt", "a\n")]);
    let run = sb.run("apply", &["--format", "unified"], plain);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("project/src/x.txt"), "{}", run.stderr);
    // Stripping more components than a path has is a malformed patch.
    let run = sb.run("apply", &["--strip", "5"], plain);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("bad_strip") || run.stderr.contains("strip"), "{}", run.stderr);
}

#[test]
fn unified_hunk_that_is_not_there_names_the_closest_lines() {
    let sb = Sandbox::new(&[(
        "f.py",
        "def area(r):\n    return 3.14 * r * r\n\ndef volume(r):\n    return 4 / 3 * 3.14 * r ** 3\n",
    )]);
    let before = sb.snapshot();
    let diff = "--- a/f.py\n+++ b/f.py\n@@ -1,2 +1,2 @@\n def area(radius):\n-    return math.pi * radius * radius\n+    return math.pi * radius ** 2\n";
    let run = sb.run("apply", &[], diff);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(sb.snapshot(), before);
    assert!(run.stderr.contains("f.py") && run.stderr.contains("hunk 1"), "{}", run.stderr);
    assert!(run.stderr.contains("closest"), "{}", run.stderr);
    assert!(run.stderr.contains("def area(r):"), "the closest lines are shown: {}", run.stderr);
}

#[test]
fn diff_shows_any_patch_as_a_git_diff_that_git_applies() {
    let sb = calc_sandbox();
    let before = sb.snapshot();
    let run = sb.run("diff", &[], TWO_FILES);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(sb.snapshot(), before, "diff writes nothing");
    assert_eq!(
        run.stdout,
        "diff --git a/calc.py b/calc.py\nindex f905fb9..717f7ed 100644\n--- a/calc.py\n+++ b/calc.py\n\
         @@ -1,5 +1,5 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n \n \n def mul(a, b):\n\
         diff --git a/notes.txt b/notes.txt\nnew file mode 100644\nindex 0000000..284d395\n--- /dev/null\n\
         +++ b/notes.txt\n@@ -0,0 +1 @@\n+add() was subtracting\n"
    );
    let json = sb.run("diff", &["--json"], TWO_FILES);
    let doc = json.json();
    assert_eq!(doc["diff"], run.stdout.as_str(), "{doc}");
    assert_eq!(doc["report"]["files"][0]["path"], "calc.py");

    // git applies the shown diff to the same tree and gets what `apply` writes.
    let diff = sb.top().join("shown.diff");
    fs::write(&diff, &run.stdout).unwrap();
    let git = Command::new("git").args(["apply", diff.to_str().unwrap()]).current_dir(sb.root()).status();
    if let Ok(status) = git {
        assert!(status.success());
        assert_eq!(sb.read("calc.py"), CALC_FIXED);
        assert_eq!(sb.read("notes.txt"), "add() was subtracting\n");
    }
}

#[test]
fn diff_of_a_patch_that_does_not_apply_is_exit_1() {
    let sb = Sandbox::new(&[("calc.py", CALC), ("shapes.py", "def perimeter(r):\n    return 2 * 3.14 * r\n")]);
    let run = sb.run("diff", &[], SECOND_HUNK_MISSING);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.stdout, "");
    assert!(run.stderr.contains("not found"), "{}", run.stderr);
}

const AP_PATCH: &str = "\
# Summary: greet the world
version: \"2.0\"
changes:
  - file_path: \"src/hello.py\"
    modifications:
      - action: REPLACE
        snippet: |
          print('hi')
        content: |
          print('hello, world')
";

#[test]
fn ap_patch_is_detected_and_its_paths_are_relative_to_its_folder() {
    let sb = Sandbox::new(&[("proj/src/hello.py", "def main():\n    print('hi')\n")]);
    let patch_dir = sb.root().join("proj");
    let patch = patch_dir.join("fix.ap");
    fs::write(&patch, AP_PATCH).unwrap();
    // Run from elsewhere, without --root: the patch file's folder is the root.
    let run = polypatch(sb.top(), &["apply", patch.to_str().unwrap()], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(sb.read("proj/src/hello.py"), "def main():\n    print('hello, world')\n");
    let run = polypatch(sb.top(), &["detect", patch.to_str().unwrap()], None);
    assert_eq!(run.stdout, "ap\n");
    // Re-applying changes nothing.
    let again = polypatch(sb.top(), &["apply", patch.to_str().unwrap()], None);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(again.stdout.contains("already applied"), "{}", again.stdout);
}

#[test]
fn ap_unquoted_version_is_a_warning() {
    let sb = Sandbox::new(&[("src/hello.py", "print('hi')\n")]);
    let text = AP_PATCH.replace("version: \"2.0\"", "version: 2.0");
    let run = sb.run("apply", &[], &text);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.starts_with("warning: "), "{}", run.stderr);
    assert!(run.stderr.contains("2.0"), "{}", run.stderr);
    let sb = Sandbox::new(&[("src/hello.py", "print('hi')\n")]);
    let doc = sb.run("apply", &["--json"], &text).json();
    assert!(doc["warnings"][0].as_str().unwrap().contains("2.0"), "{doc}");
}

/// What a crash halfway through a three-file commit leaves: the journal, `a.txt` already
/// switched to its new content with its backup beside it, `b.txt` not yet switched (its
/// temporary file still there), and a new file `c.txt` already in place. Each line holds
/// the git blob id of the new content (`printf 'a new\n' | git hash-object --stdin`);
/// with `hashes` false, the journal is one of an earlier version, without them.
fn interrupted_commit(sb: &Sandbox, hashes: bool) {
    sb.write("a.txt", b"a new\n");
    sb.write(".polypatch-1f-0.old", b"a old\n");
    sb.write("b.txt", b"b old\n");
    sb.write(".polypatch-1f-1.new", b"b new\n");
    sb.write("c.txt", b"c new\n");
    let new = |id: &str| if hashes { format!(",\"new\":\"{id}\"") } else { String::new() };
    let journal = format!(
        "{{\"file\":{{\"path\":\"a.txt\",\"temp\":\".polypatch-1f-0.new\",\"backup\":\".polypatch-1f-0.old\"{}}}}}\n\
         {{\"file\":{{\"path\":\"b.txt\",\"temp\":\".polypatch-1f-1.new\",\"backup\":\".polypatch-1f-1.old\"{}}}}}\n\
         {{\"file\":{{\"path\":\"c.txt\",\"temp\":\".polypatch-1f-2.new\",\"backup\":null{}}}}}\n\
         {{\"file\":{{\"path\":\"d.txt\",\"te",
        new("813eeb1806033544d175b502c9ec619762bbab73"),
        new("028252fcf21423253bbc6768797a5d22d4b4980b"),
        new("52ce5be21067cc11c95890a98a93a81e185edd05"),
    );
    sb.write(".polypatch-1f.journal", journal.as_bytes());
}

#[test]
fn recover_rolls_an_interrupted_commit_back() {
    let sb = Sandbox::new(&[]);
    interrupted_commit(&sb, true);
    let root = sb.root_arg();
    let run = polypatch(sb.top(), &["recover", "--root", &root], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stdout,
        "rolled back 1 interrupted commit(s); restored a.txt; removed the new file(s) c.txt; removed 2 leftover file(s)\n"
    );
    let names: Vec<String> =
        sb.snapshot().iter().map(|(p, _)| p.strip_prefix(sb.root()).unwrap().display().to_string()).collect();
    assert_eq!(names, ["a.txt", "b.txt"]);
    assert_eq!(sb.read("a.txt"), "a old\n");
    assert_eq!(sb.read("b.txt"), "b old\n");
    let again = polypatch(sb.top(), &["recover", "--root", &root, "--json"], None);
    assert_eq!(again.code, 0);
    assert_eq!(again.json()["status"], "clean");
}

/// `diff --json` names a pending interrupted commit in its `warnings`, as its text output
/// does on standard error, and as `check --json` does (it was missing there).
#[test]
fn diff_json_warns_of_a_pending_interrupted_commit() {
    let sb = Sandbox::new(&[]);
    interrupted_commit(&sb, true);
    let patch = "*** Begin Patch\n*** Update File: b.txt\n@@\n-b old\n+b fixed\n*** End Patch\n";
    let pending = "an interrupted commit is pending (`.polypatch-1f.journal`)";
    let text = sb.run("diff", &[], patch);
    assert_eq!(text.code, 0, "{text:?}");
    assert!(text.stderr.contains(pending), "{}", text.stderr);
    for verb in ["diff", "check"] {
        let doc = sb.run(verb, &["--json"], patch).json();
        let warnings = doc["warnings"].as_array().unwrap_or_else(|| panic!("{verb}: no warnings in {doc}"));
        assert!(warnings.iter().any(|w| w.as_str().unwrap().starts_with(pending)), "{verb}: {doc}");
    }
    assert!(sb.exists(".polypatch-1f.journal"), "diff and check write nothing");
}

#[test]
fn apply_recovers_an_interrupted_commit_first() {
    let sb = Sandbox::new(&[]);
    interrupted_commit(&sb, true);
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-a old\n+a fixed\n*** End Patch\n";
    // A check reads the tree as it is and writes nothing, not even the recovery.
    let check = sb.run("check", &[], patch);
    assert_eq!(check.code, 1, "{check:?}");
    assert!(check.stderr.contains("an interrupted commit is pending (`.polypatch-1f.journal`)"), "{}", check.stderr);
    assert!(sb.exists(".polypatch-1f.journal"));
    let run = sb.run("apply", &[], patch);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("warning: rolled back 1 interrupted commit(s); restored a.txt"), "{}", run.stderr);
    assert_eq!(sb.read("a.txt"), "a fixed\n");
    assert_eq!(sb.read("b.txt"), "b old\n");
    assert!(!sb.exists("c.txt"));
    assert_eq!(sb.snapshot().len(), 2);
}

/// A journal of an earlier version (no hashes): recovery cannot tell whether `a.txt` and
/// `c.txt` still hold what the commit wrote, leaves them, keeps the backup and the
/// journal, and says so for each; `apply` then refuses to start beside the journal.
#[test]
fn recover_leaves_what_an_old_journal_cannot_check() {
    let sb = Sandbox::new(&[]);
    interrupted_commit(&sb, false);
    let root = sb.root_arg();
    let run = polypatch(sb.top(), &["recover", "--root", &root], None);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        run.stdout,
        "removed 1 leftover file(s); could not recover: `.polypatch-1f.journal`: `c.txt` may be the interrupted commit's new file, but the \
               journal (of an earlier version of polypatch) has no hash to check it with: it is left as it is; \
               remove it if it should go, then remove the journal; could not recover: `.polypatch-1f.journal`: \
               `a.txt` may hold the interrupted commit's content, but the journal (of an earlier version of \
               polypatch) has no hash to check it with: it is left as it is, and its content from before the \
               commit is kept in `.polypatch-1f-0.old`; compare the two, keep what you want, then remove the \
               backup and the journal\n"
    );
    assert_eq!(sb.read("a.txt"), "a new\n");
    assert_eq!(sb.read("c.txt"), "c new\n");
    assert_eq!(sb.read(".polypatch-1f-0.old"), "a old\n");
    assert!(sb.exists(".polypatch-1f.journal") && !sb.exists(".polypatch-1f-1.new"));
    let run = sb.run("apply", &[], "*** Begin Patch\n*** Update File: b.txt\n@@\n-b old\n+b fixed\n*** End Patch\n");
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr.contains("an interrupted commit left `.polypatch-1f.journal` in the root; run `polypatch recover`"),
        "{}",
        run.stderr
    );
    assert_eq!(sb.read("b.txt"), "b old\n");
}

/// A journal that names a file outside the root: `recover` and `apply` say which journal
/// and which line, and nothing outside (or inside) is touched.
#[test]
fn a_planted_journal_is_named_and_refused() {
    let sb = Sandbox::new(&[("a.txt", "a\n")]);
    fs::write(sb.top().join("victim"), "mine\n").unwrap();
    sb.write(".polypatch-9.journal", b"{\"file\":{\"path\":\"a.txt\",\"temp\":\"../victim\",\"backup\":null}}\n");
    let root = sb.root_arg();
    let said = "`.polypatch-9.journal`: line 1 names `../victim` as the temporary file of `a.txt`, where a commit \
                writes `.polypatch-9-<n>.new`: it is not a journal polypatch wrote, or it was damaged; nothing was \
                done: look at it, then remove it";
    let run = polypatch(sb.top(), &["recover", "--root", &root], None);
    assert_eq!((run.code, run.stdout.as_str()), (1, format!("could not recover: {said}\n").as_str()), "{run:?}");
    let json = polypatch(sb.top(), &["recover", "--root", &root, "--json"], None).json();
    assert_eq!(json["status"], "failed");
    assert_eq!(json["recovery"]["problems"][0], said);
    let run = sb.run("apply", &[], "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** End Patch\n");
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains(said), "{}", run.stderr);
    assert!(run.stderr.contains("an interrupted commit left `.polypatch-9.journal`"), "{}", run.stderr);
    assert_eq!(fs::read_to_string(sb.top().join("victim")).unwrap(), "mine\n");
    assert_eq!(sb.read("a.txt"), "a\n");
}

/// `new file mode 100777` under the umask, as `git apply` does.
#[cfg(unix)]
#[test]
fn a_new_files_mode_goes_through_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new(&[]);
    let patch = sb.patch(
        "diff --git a/run.sh b/run.sh\nnew file mode 100777\n--- /dev/null\n+++ b/run.sh\n@@ -0,0 +1 @@\n+echo\n",
    );
    let script = format!("umask 027 && exec \"$0\" apply --root '{}' '{patch}'", sb.root_arg());
    let out = Command::new("sh").arg("-c").arg(script).arg(common::binary()).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(fs::metadata(sb.root().join("run.sh")).unwrap().permissions().mode() & 0o7777, 0o750);
}

#[cfg(unix)]
#[test]
fn a_link_inside_the_root_is_edited_through_and_kept() {
    let sb = Sandbox::new(&[("real.txt", "one\n")]);
    std::os::unix::fs::symlink("real.txt", sb.root().join("link.txt")).unwrap();
    let patch = "*** Begin Patch\n*** Update File: link.txt\n@@\n-one\n+two\n*** End Patch\n";
    let run = sb.run("apply", &[], patch);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(fs::symlink_metadata(sb.root().join("link.txt")).unwrap().file_type().is_symlink());
    assert_eq!(sb.read("real.txt"), "two\n");
    // Deleting the link is not done to the file it points to.
    let run = sb.run("apply", &[], "*** Begin Patch\n*** Delete File: link.txt\n*** End Patch\n");
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("symbolic link"), "{}", run.stderr);
    assert_eq!(sb.read("real.txt"), "two\n");
}

/// What a patch's author could use to take over a terminal: a title change, a screen
/// clear, a carriage return that overwrites the line, NUL, a C1 CSI, a bidi override.
const HOSTILE: &str = "\x1b]0;owned\x07\x1b[2J\rfake\0\u{9b}31m\u{202e}txt.exe";

/// No character that steers a terminal; line feeds and tabs are layout.
fn assert_inert(text: &str) {
    let bad = text.chars().find(|&c| {
        (c.is_control() && c != '\n' && c != '\t') || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    });
    assert_eq!(bad, None, "a raw steering character reached the output:\n{text:?}");
}

#[test]
fn names_and_lines_from_the_patch_are_escaped_on_the_terminal() {
    let sb = Sandbox::new(&[("a.txt", "one\ntwo\n")]);
    let before = sb.snapshot();
    // A path and a hunk line that hold the hostile text; the hunk is not found, so the
    // report quotes both, and the closest region's diff too.
    let patch = format!(
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-one{HOSTILE}\n+x\n*** Update File: b{HOSTILE}.txt\n@@\n-a\n+b\n*** End Patch\n"
    );
    let run = sb.run("apply", &[], &patch);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(sb.snapshot(), before);
    assert_inert(&run.stderr);
    assert!(
        run.stderr.contains("b\\x1b]0;owned\\x07\\x1b[2J\\rfake\\0\\u{9b}31m\\u{202e}txt.exe.txt"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("`one\\x1b]0;owned\\x07\\x1b[2J\\rfake\\0"), "{}", run.stderr);

    // The same patch as JSON: one document, every such character a JSON escape, and the
    // values unchanged.
    let run = sb.run("apply", &["--json"], &patch);
    assert_eq!(run.code, 1, "{run:?}");
    assert_inert(&run.stdout);
    let doc = run.json();
    assert_eq!(doc["report"]["files"][1]["path"], format!("b{HOSTILE}.txt"));

    // A malformed patch quoting the text, and a successful apply naming the path.
    let run = sb.run("apply", &[], &format!("*** Begin Patch\n*** Frob{HOSTILE}\n*** End Patch\n"));
    assert_eq!(run.code, 2, "{run:?}");
    assert_inert(&run.stderr);
    // A file name may hold all of them but NUL.
    let name = format!("n{}", HOSTILE.replace('\0', ""));
    let sb = Sandbox::new(&[]);
    let run = sb.run("apply", &[], &format!("*** Begin Patch\n*** Add File: {name}\n+x\n*** End Patch\n"));
    assert_eq!(run.code, 0, "{run:?}");
    assert_inert(&run.stdout);
    assert!(run.stdout.contains("create n\\x1b]0;owned"), "{}", run.stdout);
    assert_eq!(fs::read(sb.root().join(&name)).unwrap(), b"x\n");
}

#[test]
fn a_newline_in_a_path_cannot_forge_a_report_line() {
    let sb = Sandbox::new(&[]);
    let patch = "diff --git \"a/x\\nFAILED: fake\" \"b/x\\nFAILED: fake\"\nnew file mode 100644\n--- /dev/null\n+++ \"b/x\\nFAILED: fake\"\n@@ -0,0 +1 @@\n+x\n";
    let run = sb.run("apply", &[], patch);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("applied: create x\\nFAILED: fake\n"), "{}", run.stdout);
    assert!(!run.stdout.lines().any(|l| l.starts_with("FAILED")), "{}", run.stdout);
}

#[test]
fn a_name_too_long_is_reported_as_such_not_as_permissions() {
    let name = format!("{}.txt", "n".repeat(300));
    let sb = Sandbox::new(&[]);
    let run = sb.run("apply", &[], &format!("*** Begin Patch\n*** Update File: {name}\n@@\n-a\n+b\n*** End Patch\n"));
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("is too long: a name is over 255 bytes"), "{}", run.stderr);
    assert!(run.stderr.contains("next step: use a shorter name"), "{}", run.stderr);
    assert!(!run.stderr.contains("permissions"), "{}", run.stderr);
}

#[test]
fn ap_errors_in_a_patch_with_lone_cr_line_ends_name_the_right_line() {
    let sb = Sandbox::new(&[("f.txt", "f\n")]);
    let patch = "version: \"2.0\"\rchanges:\r  - file_path: f.txt\r    modifications:\r      - action: REPLACE\r        snipet: \"f\"\r        content: \"F\"\r";
    let run = sb.run("apply", &["--format", "ap", "--json"], patch);
    assert_eq!(run.code, 2, "{run:?}");
    let doc = run.json();
    assert_eq!(doc["error"]["line"], 6, "{doc}");
    assert_eq!(doc["error"]["column"], 9, "{doc}");
    let run = sb.run("apply", &["--format", "ap"], patch);
    assert!(run.stderr.contains("--> line 6, column 9"), "{}", run.stderr);
    assert_inert(&run.stderr);
}

#[test]
fn yaml_alias_bombs_are_reported_as_a_limit() {
    let sb = Sandbox::new(&[("f.txt", "f\n")]);
    let mut bomb = String::from("version: \"2.0\"\nx0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..12 {
        let refs = vec![format!("*a{}", i - 1); 9].join(", ");
        std::fmt::Write::write_fmt(&mut bomb, format_args!("x{i}: &a{i} [{refs}]\n")).unwrap();
    }
    bomb.push_str("changes: []\n");
    let run = sb.run("apply", &["--format", "ap", "--json"], &bomb);
    assert_eq!(run.code, 2, "{run:?}");
    let doc = run.json();
    assert_eq!(doc["error"]["kind"], "yaml_limit", "{doc}");
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("the patch exceeds the YAML alias limit"), "{message}");
    assert!(!message.contains("indentation"), "{message}");
}

/// Runs `polypatch apply --root <root> [extra…] <patch>` with a patch given as bytes.
fn apply_bytes(sb: &Sandbox, extra: &[&str], patch: &[u8]) -> Run {
    let path = sb.top().join("bytes.patch");
    fs::write(&path, patch).unwrap();
    let root = sb.root_arg();
    let mut args = vec!["apply", "--root", &root];
    args.extend_from_slice(extra);
    args.push(path.to_str().unwrap());
    polypatch(sb.top(), &args, None)
}

const LATIN1_FILE: &[u8] = b"caf\xe9\nna\xefve\nplain\n";

#[test]
fn a_latin1_diff_applies_byte_for_byte_to_a_latin1_file() {
    let sb = Sandbox::new(&[]);
    sb.write("l.txt", LATIN1_FILE);
    let patch = b"--- a/l.txt\n+++ b/l.txt\n@@ -1,3 +1,3 @@\n caf\xe9\n-na\xefve\n+NA\xcfVE\n plain\n";
    let run = apply_bytes(&sb, &[], patch);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(fs::read(sb.root().join("l.txt")).unwrap(), b"caf\xe9\nNA\xcfVE\nplain\n");
    // Again: already applied, nothing written.
    let run = apply_bytes(&sb, &[], patch);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("already applied"), "{}", run.stdout);
    assert_eq!(fs::read(sb.root().join("l.txt")).unwrap(), b"caf\xe9\nNA\xcfVE\nplain\n");
}

#[test]
fn a_latin1_file_needing_a_lenient_match_is_refused_saying_why() {
    let sb = Sandbox::new(&[]);
    sb.write("l.txt", LATIN1_FILE);
    let before = sb.snapshot();
    // The context's indentation differs: the text tiers would take it, bytes cannot.
    let patch = b"--- a/l.txt\n+++ b/l.txt\n@@ -1,3 +1,3 @@\n   caf\xe9\n-na\xefve\n+NA\xcfVE\n plain\n";
    let run = apply_bytes(&sb, &[], patch);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(sb.snapshot(), before);
    assert!(
        run.stderr.contains("the file is not UTF-8 text, so only exact byte matching was possible"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("caf\\xe9"), "bytes shown escaped: {}", run.stderr);
    let run = apply_bytes(&sb, &["--json"], patch);
    assert_eq!(run.code, 1, "{run:?}");
    let failure = &run.json()["report"]["files"][0]["edits"][0]["failure"];
    assert_eq!(failure["kind"], "not_found");
    assert!(failure["message"].as_str().unwrap().contains("only exact byte matching"), "{failure}");
}

#[test]
fn other_dialects_refuse_a_latin1_file_naming_the_encoding() {
    let sb = Sandbox::new(&[]);
    sb.write("l.txt", LATIN1_FILE);
    let before = sb.snapshot();
    let run = sb.run("apply", &[], "*** Begin Patch\n*** Update File: l.txt\n@@\n-plain\n+PLAIN\n*** End Patch\n");
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(sb.snapshot(), before);
    assert!(run.stderr.contains("not text: cannot edit `l.txt`: it is not UTF-8 text (Latin-1"), "{}", run.stderr);
    assert!(run.stderr.contains("unified diff"), "{}", run.stderr);
    // An AI-PATCH that is itself Latin-1 is malformed: only a diff may hold such bytes.
    let run =
        apply_bytes(&sb, &[], b"*** Begin Patch\n*** Update File: l.txt\n@@\n-caf\xe9\n+CAF\xc9\n*** End Patch\n");
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("only a unified diff may hold other bytes"), "{}", run.stderr);
    assert_eq!(sb.snapshot(), before);
}

/// A git binary patch creating `name` from `data`.
fn binary_patch(name: &str, data: &[u8]) -> String {
    format!(
        "diff --git a/{name} b/{name}\nnew file mode 100644\nindex 0000000..{}\nGIT binary patch\n{}literal 0\nHcmV?d00001\n\n",
        polypatch::engine::binary::git_blob_id(data),
        polypatch::unified::binary::encode_block(data)
    )
}

#[test]
fn binary_patch_over_the_size_limit_is_refused_and_the_flag_raises_it() {
    let sandbox = Sandbox::new(&[]);
    let data = vec![7u8; 2_000];
    let patch = binary_patch("blob.bin", &data);
    let run = sandbox.run("apply", &["--max-binary-size", "1000"], &patch);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("`blob.bin`") && run.stderr.contains("--max-binary-size"), "{}", run.stderr);
    assert!(!sandbox.exists("blob.bin"), "nothing written");
    let run = sandbox.run("apply", &["--json", "--max-binary-size", "1000"], &patch);
    let json = run.json();
    assert_eq!(
        (json["status"].as_str(), json["error"]["kind"].as_str()),
        (Some("malformed"), Some("binary_too_large"))
    );
    let run = sandbox.run("apply", &["--max-binary-size", "2000"], &patch);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(fs::read(sandbox.root().join("blob.bin")).unwrap(), data);
}

/// Issue 25: binary literals each within the file limit, together over the whole run's
/// limit (in one diff, and across two patch files applied as one transaction); the flag
/// raises it.
#[test]
fn binary_patches_over_the_total_limit_are_refused_and_the_flag_raises_it() {
    let sandbox = Sandbox::new(&[]);
    let data = vec![7u8; 1_000];
    let patch: String = (1..=3).map(|i| binary_patch(&format!("f{i}.bin"), &data)).collect();
    let limits = ["--max-binary-size", "1000", "--max-total-binary-size", "2500"];
    let run = sandbox.run("apply", &limits, &patch);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.starts_with(
            "error: malformed unified patch: the binary data of the patch reaches 3000 bytes with the binary patch \
             for `f3.bin`, which announces 1000 bytes: more than the limit of 2500 bytes for all the binary data of a \
             patch; if it is meant to be that large, raise the limit with `--max-total-binary-size BYTES` \
             (`ParseOptions::max_total_binary_size`)\n"
        ),
        "{}",
        run.stderr
    );
    assert!(sandbox.snapshot().is_empty(), "nothing written");
    let run = sandbox.run("apply", &["--json", "--max-binary-size", "1000", "--max-total-binary-size", "2500"], &patch);
    assert_eq!(run.json()["error"]["kind"].as_str(), Some("binary_total_too_large"));
    // Two patch files share the budget: 2,000 bytes, then 2,000 more.
    let two: String = (1..=2).map(|i| binary_patch(&format!("f{i}.bin"), &data)).collect();
    let other: String = (3..=4).map(|i| binary_patch(&format!("f{i}.bin"), &data)).collect();
    let second = sandbox.top().join("second.patch");
    fs::write(&second, other).unwrap();
    let first = sandbox.patch(&two);
    let root = sandbox.root_arg();
    let args = ["apply", "--root", &root, "--max-binary-size", "1000", "--max-total-binary-size", "3500"];
    let run = polypatch(sandbox.top(), &[&args[..], &[&first, second.to_str().unwrap()]].concat(), None);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("reaches 4000 bytes with the binary patch for `f4.bin`"), "{}", run.stderr);
    assert!(sandbox.snapshot().is_empty(), "nothing written");
    let run = sandbox.run("apply", &["--max-binary-size", "1000", "--max-total-binary-size", "3000"], &patch);
    assert_eq!(run.code, 0, "{run:?}");
    for i in 1..=3 {
        assert_eq!(fs::read(sandbox.root().join(format!("f{i}.bin"))).unwrap(), data);
    }
}

#[test]
fn binary_literal_announcing_a_gigabyte_is_refused_by_default() {
    let sandbox = Sandbox::new(&[]);
    let patch = "diff --git a/big.bin b/big.bin\nnew file mode 100644\nindex 0000000..1234567\nGIT binary patch\nliteral 1000000000\nzcmeIuF#!q%0RR91\n\nliteral 0\nHcmV?d00001\n\n";
    let run = sandbox.run("apply", &[], patch);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("1000000000 bytes") && run.stderr.contains("67108864"), "{}", run.stderr);
    assert!(sandbox.snapshot().is_empty(), "nothing written");
}

const APTIX_REPLY: &str = "Here is the change:\n\n```json\n{\n  \"root\": \".\",\n  \"patches\": [\n    {\"path\": \"a.txt\", \"find\": \"alpha\", \"replace\": \"ALPHA\", \"limit\": \"once\"},\n    {\"path\": \"a.txt\", \"find\": \"gamma ray\", \"replace\": \"GAMMA RAY\", \"limit\": \"once\"}\n  ]\n}\n```\n";

#[test]
fn an_aptix_reply_fails_on_a_missing_find_unless_asked_to_skip() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "alpha\nbeta\n").unwrap();
    fs::write(dir.path().join("reply.md"), APTIX_REPLY).unwrap();

    let run = polypatch(dir.path(), &["apply", "reply.md"], None);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("patches[1]: FAILED"), "{}", run.stderr);
    assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), "alpha\nbeta\n");

    let run = polypatch(dir.path(), &["apply", "--skip-missing-find", "reply.md"], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("patches[1]: skipped"), "{}", run.stdout);
    assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), "ALPHA\nbeta\n");
}

#[test]
fn an_aptix_field_error_points_at_the_entry() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = "{\n  \"root\": \".\",\n  \"files\": [\n    {\"path\": \"a.txt\", \"operation\": \"delete\", \"content\": \"x\"}\n  ]\n}\n";
    fs::write(dir.path().join("b.json"), bundle).unwrap();
    let run = polypatch(dir.path(), &["apply", "b.json"], None);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("files[0] (a.txt): operation \"delete\" must not have \"content\""), "{}", run.stderr);
    assert!(run.stderr.contains("line 4, column 14"), "{}", run.stderr);
}

#[test]
fn demo_aptix_reply_gives_the_same_tree_as_demo_patch() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    copy_tree(&examples_dir().join("demo"), &root);
    let patch = examples_dir().join("demo.aptix.md");
    let args = ["apply", "--root", root.to_str().unwrap(), patch.to_str().unwrap()];

    let run = polypatch(dir.path(), &args, None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(fs::read_to_string(root.join("src/calc.py")).unwrap(), DEMO_CALC_AFTER);
    assert_eq!(fs::read_to_string(root.join("tests/test_calc.py")).unwrap(), DEMO_TEST_AFTER);
    assert!(
        run.stdout.contains("patches[1]: applied at lines 20-22 (indentation match, confidence 0.98)"),
        "{}",
        run.stdout
    );
    let run = polypatch(dir.path(), &args, None);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.ends_with("already applied: nothing to do\n"), "{}", run.stdout);
}

/// A model's reply: prose, a fenced diff for `calc.py`, a shell snippet, and a bare AI-PATCH
/// block creating `notes.txt`.
const REPLY: &str = "\
The subtraction is a typo:

```diff
--- a/calc.py
+++ b/calc.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a - b
+    return a + b
```

Check it with:

```bash
python -c 'import calc; print(calc.add(1, 2))'
```

And a note for later:

*** Begin Patch
*** Add File: notes.txt
+add() was subtracting
*** End Patch
";

#[test]
fn extract_json_lists_every_block() {
    let sb = calc_sandbox();
    let patch = sb.patch(REPLY);
    let run = polypatch(sb.top(), &["extract", "--json", &patch], None);
    assert_eq!(run.code, 0, "{run:?}");
    let doc = run.json();
    assert_eq!(doc["version"], 1);
    let blocks = doc["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 2, "{doc}");
    assert_eq!(blocks[0]["index"], 1);
    assert_eq!(blocks[0]["dialect"], "unified");
    assert_eq!(blocks[0]["fence"], "diff");
    assert_eq!(blocks[0]["lines"], serde_json::json!({"start": 4, "end": 9}));
    assert_eq!(blocks[0]["confidence"], 80);
    let (start, end) = (blocks[0]["span"]["start"].as_u64().unwrap(), blocks[0]["span"]["end"].as_u64().unwrap());
    assert_eq!(&REPLY[start as usize..end as usize], blocks[0]["text"].as_str().unwrap());
    assert!(blocks[0]["text"].as_str().unwrap().starts_with("--- a/calc.py\n"));
    assert_eq!(blocks[1]["dialect"], "ai-patch");
    assert_eq!(blocks[1]["fence"], Value::Null);
    assert_eq!(blocks[1]["lines"], serde_json::json!({"start": 20, "end": 23}));

    // Without --json: each block under its heading.
    let run = polypatch(sb.top(), &["extract", &patch], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.starts_with("=== block 1: unified, lines 4-9, fenced ```diff ===\n--- a/calc.py\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("+    return a + b\n=== block 2: ai-patch, lines 20-23 ===\n*** Begin Patch\n"));

    // No block: exit 1, an empty list.
    let run = polypatch(sb.top(), &["extract", "--json", "-"], Some("Nothing to change.\n"));
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.json()["blocks"], serde_json::json!([]));
}

/// A patch whose first hunk fails: the later hunks that need the search for similar lines
/// say it was skipped and why, and the failures past the tenth are shortened (issue 25).
#[test]
fn after_the_first_failure_the_search_for_similar_lines_is_skipped() {
    let lines = (0..40).fold(String::new(), |mut s, i| {
        let _ = writeln!(s, "value_{i} = compute_{i}(input)");
        s
    });
    let sb = Sandbox::new(&[("a.py", &lines)]);
    let mut patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-absent = nowhere()\n+x\n".to_string();
    for i in (1..25).step_by(2) {
        // A typo in the context line: found by similarity, were it searched.
        let _ = write!(patch, "@@\n value_{}=compute_{}(input)\n-value_{i} = compute_{i}(input)\n+y\n", i - 1, i - 1);
    }
    patch.push_str("*** End Patch\n");
    let run = sb.run("apply", &[], &patch);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr.contains(
            "  hunk 2: FAILED\n    search skipped: the lines to find are not in the file as written, nor with other \
             whitespace or look-alike characters (first line: `value_0=compute_0(input)`); the search for similar \
             lines was skipped: `a.py`, hunk 1 failed already, so the patch cannot apply\n      next step: fix \
             `a.py`, hunk 1 first and send the patch again"
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.ends_with(
            "  hunk 13: FAILED\n    search skipped: not in the file as written; not searched for similar lines\n(3 \
             more failures are shown without their details; only the first 10 are: fix those first)\n"
        ),
        "{}",
        run.stderr
    );
    assert_eq!(sb.read("a.py"), lines);
    let doc = sb.run("check", &["--json"], &patch).json();
    let report = &doc["report"];
    assert_eq!((doc["status"].as_str(), report["shortened"].as_u64()), (Some("failed"), Some(3)));
    let kinds: Vec<&str> = report["files"][0]["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["failure"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, [["not_found"].as_slice(), &["search_skipped"; 12]].concat());
    // The same hunks without the failing one apply, each by similarity.
    let fixed = patch.replacen("@@\n-absent = nowhere()\n+x\n", "", 1);
    let run = sb.run("apply", &[], &fixed);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("hunk 12: applied at lines 23-24 (fuzzy match"), "{}", run.stdout);
}

/// Every command that looks for blocks, on a patch or a reply whose last line ends in a
/// multi-byte character without a line break (issue 25, point 7: each exited 101).
#[test]
fn a_patch_ending_in_a_multibyte_character_without_a_line_break() {
    let unified = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello\n+hi日本";
    let reply = format!("Fix:\n```diff\n{unified}");
    let cut_off = "*** Begin Patch\n*** Update File: a.txt\n@@\n-hello\n+hi🦀";
    let bundle = "{\"root\": \".\", \"files\": [{\"path\": \"a.txt\", \"content\": \"x\"}]} é";
    let applydiff = ">>> file: a.txt\n--- from\nhello\n--- to\nhié";
    for (text, head) in [
        (unified, "=== block 1: unified, lines 1-5 ==="),
        (&reply, "=== block 1: unified, lines 3-7, fenced ```diff, cut off mid-line ==="),
        (cut_off, "=== block 1: ai-patch, lines 1-5 ==="),
    ] {
        let sb = Sandbox::new(&[("a.txt", "hello\nworld\n")]);
        let run = polypatch(sb.top(), &["extract", &sb.patch(text)], None);
        assert_eq!(run.code, 0, "{run:?}");
        let body = &text[text.find(['-', '*']).unwrap()..];
        assert_eq!(run.stdout, format!("{head}\n{body}\n"));
    }
    {
        let text = unified;
        let sb = Sandbox::new(&[("a.txt", "hello\nworld\n")]);
        let run = sb.run("check", &[], text);
        assert_eq!((run.code, sb.read("a.txt").as_str()), (0, "hello\nworld\n"), "{run:?}");
        let run = sb.run("diff", &[], text);
        assert_eq!(run.code, 0, "{run:?}");
        assert!(run.stdout.ends_with("@@ -1,2 +1,2 @@\n-hello\n+hi日本\n world\n"), "{}", run.stdout);
        let run = sb.run("apply", &["--json"], text);
        assert_eq!((run.code, run.json()["status"].as_str()), (0, Some("applied")), "{run:?}");
        assert_eq!(sb.read("a.txt"), "hi日本\nworld\n");
    }
    // Cut off mid-line (issue 26, point 2): the AI-PATCH, the ApplyDiff block and the reply's
    // unclosed fence.
    for (text, kind) in
        [(cut_off, "truncated"), (bundle, "invalid_json"), (applydiff, "truncated"), (reply.as_str(), "truncated")]
    {
        let sb = Sandbox::new(&[("a.txt", "hello\nworld\n")]);
        for verb in ["check", "diff", "apply"] {
            let run = sb.run(verb, &["--json"], text);
            assert_eq!((run.code, run.json()["error"]["kind"].as_str()), (2, Some(kind)), "{verb}: {run:?}");
        }
        assert_eq!(sb.read("a.txt"), "hello\nworld\n");
    }
}

/// Issue 26, point 2: a reply cut off by an output limit (the text stops mid-line inside a
/// hunk, before `*** End Patch`, inside an `ApplyDiff` block, inside a fence that never
/// closes) is refused with exit 2, kind `truncated`, the line where it stops and what to
/// do; nothing is written. The old code applied the unified and fenced ones, writing the
/// half line.
#[test]
fn a_reply_cut_off_mid_line_is_refused() {
    let file = "class M:\n    def forwards(self):\n        pass\n\n    flag = True\n";
    let unified = "--- a/m.py\n+++ b/m.py\n@@ -2,4 +2,7 @@\n     def forwards(self):\n         pass\n \n+    def backwards(self, app_l";
    let fenced =
        "Add it:\n\n```diff\n--- a/m.py\n+++ b/m.py\n@@ -3,1 +3,2 @@\n         pass\n+    def backwards(self, app_l";
    let aipatch = "*** Begin Patch\n*** Update File: m.py\n@@\n         pass\n+    def backwards(self, app_l";
    let applydiff = ">>> file: m.py\n--- from\n        pass\n--- to\n        pass\n    def backwards(self, app_l";
    for (text, line, dialect) in
        [(unified, 7, "unified"), (fenced, 8, "unified"), (aipatch, 5, "ai-patch"), (applydiff, 6, "applydiff")]
    {
        let sb = Sandbox::new(&[("m.py", file)]);
        let run = sb.run("apply", &[], text);
        assert_eq!(run.code, 2, "{text:?}: {run:?}");
        let head = format!("the patch ends in the middle of a line at line {line}");
        assert!(run.stderr.contains(&head), "{text:?}: {}", run.stderr);
        assert!(run.stderr.contains("the reply was probably cut off; ask for it again"), "{}", run.stderr);
        let run = sb.run("apply", &["--json"], text);
        let doc = run.json();
        assert_eq!((run.code, doc["error"]["kind"].as_str()), (2, Some("truncated")), "{run:?}");
        // `extract` names the cut fence (text and JSON).
        let run = polypatch(sb.top(), &["extract", "--json", &sb.patch(text)], None);
        assert_eq!(run.json()["blocks"][0]["cut_off"].as_bool().unwrap_or(false), text == fenced, "{run:?}");
        assert_eq!((doc["error"]["dialect"].as_str(), doc["error"]["line"].as_u64()), (Some(dialect), Some(line)));
        assert_eq!(sb.read("m.py"), file, "nothing written");
    }
    // The same hunk ending with a line break is a miscount, read by its body, as before.
    let sb = Sandbox::new(&[("m.py", file)]);
    let run = sb.run("apply", &[], &format!("{unified}\n"));
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        sb.read("m.py"),
        "class M:\n    def forwards(self):\n        pass\n\n    def backwards(self, app_l\n    flag = True\n"
    );
}

#[test]
fn detect_json_gives_every_score() {
    let sb = calc_sandbox();
    let run = polypatch(sb.top(), &["detect", "--json", "-"], Some(TWO_FILES));
    assert_eq!(run.code, 0, "{run:?}");
    let doc = run.json();
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["dialect"], "ai-patch");
    let scores = doc["scores"].as_array().unwrap();
    assert_eq!(scores.len(), polypatch::Dialects::global().names().len());
    assert_eq!(scores[0], serde_json::json!({"dialect": "ai-patch", "confidence": 95}));
    assert!(scores[1]["confidence"].as_u64().unwrap() < 95);
    // Without --json: the best dialect, as before.
    let run = polypatch(sb.top(), &["detect", "-"], Some(TWO_FILES));
    assert_eq!((run.code, run.stdout.as_str()), (0, "ai-patch\n"));
    let run = polypatch(sb.top(), &["detect", "--json", "-"], Some("hello\n"));
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.json()["dialect"], Value::Null);
}

#[test]
fn a_whole_reply_is_applied_as_one_transaction() {
    let sb = calc_sandbox();
    let run = sb.run("apply", &[], REPLY);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(sb.read("calc.py"), CALC_FIXED);
    assert_eq!(sb.read("notes.txt"), "add() was subtracting\n");
    assert!(
        run.stdout.starts_with("block 1 (unified, lines 4-9): applied\n  applied: modify calc.py\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.ends_with("applied 2 edits in 2 files (2 blocks)\n"), "{}", run.stdout);

    // JSON: each file under the block it came from.
    let sb = calc_sandbox();
    let doc = sb.run("check", &["--json"], REPLY).json();
    assert_eq!(doc["status"], "dry_run");
    assert_eq!(doc["blocks"][0]["dialect"], "unified");
    assert_eq!(doc["blocks"][0]["report"]["files"][0]["path"], "calc.py");
    assert_eq!(doc["blocks"][1]["dialect"], "ai-patch");
    assert_eq!(doc["blocks"][1]["report"]["files"][0]["path"], "notes.txt");
    assert_eq!(sb.read("calc.py"), CALC);

    // `diff`: one git diff of what every block changes together, nothing written.
    let run = sb.run("diff", &[], REPLY);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("--- a/calc.py\n+++ b/calc.py\n"), "{}", run.stdout);
    assert!(
        run.stdout.contains("--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+add() was subtracting\n"),
        "{}",
        run.stdout
    );
    assert_eq!(sb.read("calc.py"), CALC);

    // A second block that does not locate: exit 1, nothing written, the block named.
    let sb = calc_sandbox();
    let before = sb.snapshot();
    let bad =
        REPLY.replace("*** Add File: notes.txt\n+add() was subtracting", "*** Update File: calc.py\n@@\n-nowhere\n+x");
    let run = sb.run("apply", &[], &bad);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("block 2 (ai-patch, lines 20-25): FAILED"), "{}", run.stderr);
    assert_eq!(sb.snapshot(), before);
}

#[test]
fn a_bare_patch_keeps_the_one_patch_output() {
    let sb = calc_sandbox();
    let run = sb.run("apply", &[], TWO_FILES);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!run.stdout.contains("block 1"), "{}", run.stdout);
    assert!(run.stdout.ends_with("applied 2 edits in 2 files\n"), "{}", run.stdout);
}

#[test]
fn a_reply_without_a_patch_is_exit_2_kind_no_patch() {
    let sb = calc_sandbox();
    let before = sb.snapshot();
    let reply = "It already works.\n\n```bash\npython calc.py\n```\n";
    let run = sb.run("apply", &[], reply);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.starts_with("error: the reply holds no patch"), "{}", run.stderr);
    let doc = sb.run("apply", &["--json"], reply).json();
    assert_eq!(doc["status"], "malformed");
    assert_eq!(doc["error"]["kind"], "no_patch");
    assert_eq!(sb.snapshot(), before);
}

#[test]
fn a_malformed_block_of_a_reply_is_exit_2_naming_the_block() {
    let sb = calc_sandbox();
    let bad = REPLY.replace("*** Add File: notes.txt", "*** Create File: notes.txt");
    let run = sb.run("apply", &["--json"], &bad);
    assert_eq!(run.code, 2, "{run:?}");
    let doc = run.json();
    assert_eq!(doc["status"], "malformed");
    assert_eq!(doc["error"]["dialect"], "ai-patch");
    assert_eq!(doc["error"]["line"], 21);
    assert_eq!(doc["error"]["block"]["index"], 2);
    assert_eq!(sb.read("calc.py"), CALC);
}

#[test]
fn several_patch_arguments_are_one_transaction() {
    let sb = calc_sandbox();
    let first = sb.top().join("one.diff");
    fs::write(
        &first,
        "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n",
    )
    .unwrap();
    let second = sb.top().join("two.patch");
    // Edits what the first patch wrote.
    fs::write(
        &second,
        "*** Begin Patch\n*** Update File: calc.py\n@@\n-    return a + b\n+    return b + a\n*** End Patch\n",
    )
    .unwrap();
    let root = sb.root_arg();
    let (first, second) = (first.to_str().unwrap(), second.to_str().unwrap());
    let run = polypatch(sb.top(), &["apply", "--json", "--root", &root, first, second], None);
    assert_eq!(run.code, 0, "{run:?}");
    let doc = run.json();
    assert_eq!(doc["blocks"][0]["source"], first);
    assert_eq!(doc["blocks"][1]["source"], second);
    assert_eq!(doc["blocks"][1]["index"], 2);
    assert_eq!(sb.read("calc.py"), CALC.replace("a - b", "b + a"));

    // All or nothing: the second one does not locate, so the first is not written either.
    let sb = calc_sandbox();
    let before = sb.snapshot();
    let root = sb.root_arg();
    let bad = sb.top().join("bad.patch");
    fs::write(&bad, "*** Begin Patch\n*** Update File: calc.py\n@@\n-import nowhere_at_all_in_this_file\n+import os\n*** End Patch\n")
        .unwrap();
    let bad = bad.to_str().unwrap();
    let run = polypatch(sb.top(), &["apply", "--root", &root, first, bad], None);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains(&format!("block 2 (ai-patch, {bad}): FAILED")), "{}", run.stderr);
    assert_eq!(sb.snapshot(), before);

    // Standard input once at most.
    let run = polypatch(sb.top(), &["apply", "--root", &root, "-", "-"], Some(""));
    assert_eq!(run.code, 2, "{run:?}");
}

/// Issue 26, point 6: no report says `applied` for what was not written. `check` of several
/// patch files, and a run whose second patch fails, say `located` for the first.
#[test]
fn several_patches_say_located_unless_written() {
    let sb = calc_sandbox();
    let first = sb.top().join("one.diff");
    fs::write(
        &first,
        "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n",
    )
    .unwrap();
    let notes = sb.top().join("notes.patch");
    fs::write(&notes, "*** Begin Patch\n*** Add File: notes.txt\n+hi\n*** End Patch\n").unwrap();
    let bad = sb.top().join("bad.patch");
    fs::write(&bad, "*** Begin Patch\n*** Update File: calc.py\n@@\n-import nowhere\n+import os\n*** End Patch\n")
        .unwrap();
    let root = sb.root_arg();
    let (first, notes, bad) = (first.to_str().unwrap(), notes.to_str().unwrap(), bad.to_str().unwrap());
    let before = sb.snapshot();

    let run = polypatch(sb.top(), &["check", "--root", &root, first, notes], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stdout,
        format!(
            "block 1 (unified, {first}): located\n  located: modify calc.py\n    hunk 1: located at lines 1-2\n\
             block 2 (ai-patch, {notes}): located\n  located: create notes.txt\n\
             dry run: would apply 2 edits in 2 files (2 blocks), nothing written\n"
        )
    );

    let run = polypatch(sb.top(), &["apply", "--root", &root, first, bad], None);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr.starts_with(&format!(
            "error: could not apply the patch blocks, nothing was written\n\
             block 1 (unified, {first}): located\n  located: modify calc.py\n    hunk 1: located at lines 1-2\n\
             block 2 (ai-patch, {bad}): FAILED\n"
        )),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("applied"), "{}", run.stderr);
    assert_eq!(sb.snapshot(), before);

    let run = polypatch(sb.top(), &["apply", "--root", &root, first, notes], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("block 1 (unified, "), "{}", run.stdout);
    assert!(run.stdout.contains("): applied\n  applied: modify calc.py\n    hunk 1: applied at lines 1-2\n"));
    assert!(run.stdout.ends_with("applied 2 edits in 2 files (2 blocks)\n"), "{}", run.stdout);
}

/// Creates the hook `.git/hooks/pre-commit`, executable, as a diff (issue 25).
const HOOK: &str = "\
diff --git a/.git/hooks/pre-commit b/.git/hooks/pre-commit
new file mode 100755
--- /dev/null
+++ b/.git/hooks/pre-commit
@@ -0,0 +1,2 @@
+#!/bin/sh
+echo from the hook
";

#[test]
fn a_path_in_the_git_directory_is_refused_unless_allowed() {
    let sb = Sandbox::new(&[("calc.py", CALC), (".git/config", "[core]\n\tbare = false\n")]);
    fs::create_dir_all(sb.root().join(".git/hooks")).unwrap();
    let before = sb.snapshot();
    for verb in ["apply", "check"] {
        let run = sb.run(verb, &[], HOOK);
        assert_eq!(run.code, 1, "{run:?}");
        assert_eq!(sb.snapshot(), before, "{verb} wrote");
        assert_eq!(
            run.stderr,
            "error: could not apply the patch, nothing was written\n\
             FAILED: create .git/hooks/pre-commit\n  \
             invalid plan: path `.git/hooks/pre-commit` is in git's repository directory `.git`, whose hooks and \
             config run commands: not changed unless allowed\n    \
             next step: change the project's files only; if the patch is meant to change git's own files, apply it \
             with `--allow-git-dir` (`ApplyOptions::allow_git_dir`)\n",
            "{verb}"
        );
    }
    let run = sb.run("check", &["--allow-git-dir"], HOOK);
    assert_eq!((run.code, sb.snapshot() == before), (0, true), "{run:?}");
    let run = sb.run("apply", &["--allow-git-dir"], HOOK);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(sb.read(".git/hooks/pre-commit"), "#!/bin/sh\necho from the hook\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(sb.root().join(".git/hooks/pre-commit")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755);
    }
    // The editor protocol takes the option in the request, not as a flag.
    let request = serde_json::json!({"patch": HOOK, "format": "unified"}).to_string();
    let run = polypatch(sb.top(), &["apply", "--stdin-json"], Some(&request));
    assert_eq!((run.code, run.json()["status"].as_str()), (1, Some("failed")), "{run:?}");
    let request = serde_json::json!({"patch": HOOK, "format": "unified", "allow_git_dir": true}).to_string();
    let run = polypatch(sb.top(), &["apply", "--stdin-json"], Some(&request));
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json()["files"][".git/hooks/pre-commit"], "#!/bin/sh\necho from the hook\n");
    let run = polypatch(sb.top(), &["apply", "--stdin-json", "--allow-git-dir"], Some(&request));
    assert_eq!(run.code, 2, "{run:?}");
}

/// A patch that touches more directories than the process may hold open descriptors
/// (600 under `ulimit -n 256`) commits, every file, and leaves nothing behind: the commit
/// keeps a bounded number of directories open, not one per directory until it ends.
#[cfg(unix)]
#[test]
fn a_commit_across_more_directories_than_open_files_allowed() {
    use std::fmt::Write as _;
    let sb = Sandbox::new(&[]);
    let mut patch = String::new();
    for i in 0..600 {
        sb.write(&format!("d{i}/e/f.txt"), format!("file {i}\nold\n").as_bytes());
        let _ = write!(
            patch,
            "diff --git a/d{i}/e/f.txt b/d{i}/e/f.txt\n--- a/d{i}/e/f.txt\n+++ b/d{i}/e/f.txt\n\
             @@ -1,2 +1,2 @@\n file {i}\n-old\n+new\n"
        );
        // Half of them in directories the commit creates.
        let _ = write!(
            patch,
            "diff --git a/n{i}/g/h.txt b/n{i}/g/h.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n{i}/g/h.txt\n\
             @@ -0,0 +1 @@\n+made {i}\n"
        );
    }
    let patch = sb.patch(&patch);
    let script = format!("ulimit -n 256 && exec \"$0\" apply -q --root '{}' '{patch}'", sb.root_arg());
    let out = Command::new("sh").arg("-c").arg(script).arg(common::binary()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for i in 0..600 {
        assert_eq!(sb.read(&format!("d{i}/e/f.txt")), format!("file {i}\nnew\n"));
        assert_eq!(sb.read(&format!("n{i}/g/h.txt")), format!("made {i}\n"));
    }
    let files = sb.snapshot();
    assert_eq!(
        files.len(),
        1200,
        "{:?}",
        files.iter().map(|(p, _)| p).filter(|p| !p.ends_with("f.txt")).take(5).collect::<Vec<_>>()
    );
}

/// Issue 26, point 7: a `git diff` without `--binary` is refused as before; with
/// `--skip-binary-without-data` its binary section is skipped with a warning and the rest
/// applies.
#[test]
fn binary_files_without_data_are_skipped_only_when_asked() {
    let sb = Sandbox::new(&[("a.txt", "one\n")]);
    sb.write("logo.png", b"\x89PNG\x00\x01");
    let patch = "diff --git a/logo.png b/logo.png\nindex 1234567..89abcde 100644\n\
                 Binary files a/logo.png and b/logo.png differ\n\
                 diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n";
    let before = sb.snapshot();
    let run = sb.run("apply", &[], patch);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("(`--skip-binary-without-data`"), "{}", run.stderr);
    assert_eq!(sb.snapshot(), before);

    let run = sb.run("apply", &["--skip-binary-without-data"], patch);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stderr,
        "warning: skipped `logo.png`: the diff says only that the binary files differ, with no data (made without \
         `git diff --binary`); that file is left as it is\n"
    );
    assert_eq!(run.stdout, "applied: modify a.txt\n  hunk 1: applied at line 1\napplied 1 edit in 1 file\n");
    assert_eq!(sb.read("a.txt"), "two\n");
    assert_eq!(fs::read(sb.root().join("logo.png")).unwrap(), b"\x89PNG\x00\x01");
    let doc = sb.run("check", &["--json", "--skip-binary-without-data"], patch).json();
    assert_eq!(doc["status"], "dry_run");
    assert_eq!(doc["warnings"][0].as_str().unwrap().split(':').next(), Some("skipped `logo.png`"));
}

/// `--reply-format`: one result per tool call in the caller's shape on standard output,
/// the usual exit codes, and nothing written when a call fails.
#[test]
fn reply_format_answers_each_tool_call_in_its_callers_shape() {
    let calls = r#"[
  {"type": "tool_use", "id": "toolu_1", "name": "Edit",
   "input": {"file_path": "a.py", "old_string": "    total = 0", "new_string": "    total = start"}},
  {"type": "tool_use", "id": "toolu_2", "name": "Write", "input": {"file_path": "b.txt", "content": "b\n"}}
]"#;
    let sb = Sandbox::new(&[("a.py", "def f(start):\r\n\ttotal = 0\r\n")]);
    let tool_call = ["--format", "tool-call", "--reply-format", "anthropic"];
    let run = sb.run("apply", &tool_call, calls);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(sb.read("a.py"), "def f(start):\r\n\ttotal = start\r\n");
    let results: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        results,
        serde_json::json!([
            {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": false,
             "content": "Applied: a.py: old_string replaced at line 2 (matched at the trimmed tier)."},
            {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": false, "content": "Applied: b.txt: created."}
        ])
    );
    // A failing call: exit 1, nothing written, every result an error.
    let sb = Sandbox::new(&[("a.py", "def f():\n    pass\n")]);
    let before = sb.snapshot();
    let run = sb.run("apply", &["--format", "tool-call", "--reply-format", "mcp"], calls);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(sb.snapshot(), before);
    let results: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(results[0]["isError"], true);
    assert!(results[0]["content"][0]["text"].as_str().unwrap().starts_with("Failed: a.py\nold_string: not found"));
    assert_eq!(results[1]["isError"], true);
    // A call that cannot be read: exit 2, its result under its id.
    let view = r#"{"type": "apply_patch_call", "call_id": "c9", "operation": {"type": "move_file", "path": "a.py"}}"#;
    let run = sb.run("apply", &["--format", "tool-call", "--reply-format", "openai"], view);
    assert_eq!(run.code, 2, "{run:?}");
    let results: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!((&results[0]["call_id"], &results[0]["status"]), (&Value::from("c9"), &Value::from("failed")));
    // Without `--format tool-call` it is a usage error.
    let run = sb.run("apply", &["--reply-format", "openai"], view);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("`--reply-format` answers tool calls: give `--format tool-call` with it"),
        "{}",
        run.stderr
    );
}

//! The flags users bring from GNU patch and `git apply` (`-R`, `--stat`, `--summary`,
//! `-d`, `-i`, `--check`, `--partial`, the dialects' familiar names), driven as a user
//! drives them: exact bytes, exact messages, exit codes.

use std::fs;
use std::path::Path;

mod common;

use common::Run;

fn polypatch(cwd: &Path, args: &[&str], stdin: Option<&str>) -> Run {
    common::polypatch_with(cwd, args, &[], stdin.map(str::as_bytes))
}

/// A directory with `files` in it.
fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        let path = dir.path().join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }
    dir
}

fn read(dir: &Path, path: &str) -> String {
    fs::read_to_string(dir.join(path)).unwrap()
}

const TEN: &str = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n";

/// A git diff that changes two lines of `a.txt` in two hunks, creates `n.txt` and deletes
/// `gone.txt`, as `git diff` writes it.
const GIT_DIFF: &str = "\
diff --git a/a.txt b/a.txt
index c9e9e05..061a3ba 100644
--- a/a.txt
+++ b/a.txt
@@ -1,4 +1,4 @@
 one
-two
+TWO
 three
 four
@@ -7,4 +7,5 @@ six
 seven
 eight
-nine
+NINE
+nine and a half
 ten
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
index 3f0b5a4..0000000
--- a/gone.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-x
-y
diff --git a/n.txt b/n.txt
new file mode 100644
index 0000000..07f33c4
--- /dev/null
+++ b/n.txt
@@ -0,0 +1,2 @@
+new
+file
";

const A_AFTER: &str = "one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\nNINE\nnine and a half\nten\n";

/// `-R` undoes a git diff: the hunks, the created file (deleted again) and the deleted
/// file (written back), byte for byte what `git apply -R` and `patch -R` give. Failed
/// before: `-R` was an unexpected argument (exit 2).
#[test]
fn reverse_undoes_a_unified_diff() {
    let dir = dir_with(&[("a.txt", A_AFTER), ("n.txt", "new\nfile\n"), ("fix.diff", GIT_DIFF)]);
    let run = polypatch(dir.path(), &["apply", "-R", "fix.diff"], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stdout,
        "applied: delete n.txt\napplied: create gone.txt\napplied: modify a.txt\n  hunk 1: applied at lines 1-4\n  \
         hunk 2: applied at lines 7-11\napplied 4 edits in 3 files\n"
    );
    assert_eq!(read(dir.path(), "a.txt"), TEN);
    assert_eq!(read(dir.path(), "gone.txt"), "x\ny\n");
    assert!(!dir.path().join("n.txt").exists());
    // And forward again: the round trip is exact.
    let run = polypatch(dir.path(), &["apply", "fix.diff"], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(read(dir.path(), "a.txt"), A_AFTER);
    assert!(!dir.path().join("gone.txt").exists());
}

/// `--reverse` serves every dialect whose edits carry both sides: AI-PATCH, SEARCH/REPLACE
/// blocks and a tool call's `str_replace`, through the one inversion of the plan. Failed
/// before: unexpected argument.
#[test]
fn reverse_undoes_ai_patch_search_replace_and_str_replace() {
    let original = "def f():\n    return 1\n\ndef g():\n    return 2\n";
    let patches = [
        (
            "ai-patch",
            "*** Begin Patch\n*** Update File: m.py\n@@ def f():\n-    return 1\n+    return 10\n+    # ten\n*** End \
             Patch\n",
            "def f():\n    return 10\n    # ten\n\ndef g():\n    return 2\n",
        ),
        (
            "search-replace",
            "m.py\n```python\n<<<<<<< SEARCH\ndef g():\n    return 2\n=======\ndef g():\n    return 20\n>>>>>>> \
             REPLACE\n```\n",
            "def f():\n    return 1\n\ndef g():\n    return 20\n",
        ),
        (
            "tool-call",
            r#"{"type": "tool_use", "id": "t1", "name": "str_replace_based_edit_tool", "input": {"command": "str_replace", "path": "m.py", "old_str": "return 1", "new_str": "return one"}}"#,
            "def f():\n    return one\n\ndef g():\n    return 2\n",
        ),
    ];
    for (dialect, patch, after) in patches {
        let dir = dir_with(&[("m.py", original), ("p", patch)]);
        let run = polypatch(dir.path(), &["apply", "--format", dialect, "p"], None);
        assert_eq!(run.code, 0, "{dialect}: {run:?}");
        assert_eq!(read(dir.path(), "m.py"), after, "{dialect}");
        let run = polypatch(dir.path(), &["apply", "--reverse", "--format", dialect, "p"], None);
        assert_eq!(run.code, 0, "{dialect}: {run:?}");
        assert_eq!(read(dir.path(), "m.py"), original, "{dialect}");
        // Undone twice: the second writes nothing (a text too short to prove the edit
        // undone is refused rather than called already undone).
        let run = polypatch(dir.path(), &["apply", "-R", "--format", dialect, "p"], None);
        if dialect == "tool-call" {
            assert_eq!(run.code, 1, "{dialect}: {run:?}");
        } else {
            assert_eq!(run.code, 0, "{dialect}: {run:?}");
            assert!(run.stdout.ends_with("already applied: nothing to do\n"), "{dialect}: {}", run.stdout);
        }
        assert_eq!(read(dir.path(), "m.py"), original, "{dialect}");
    }
}

/// A patch whose edits cannot be inverted is refused whole, naming the dialect, the file
/// and what the patch does not carry; nothing is written (exit 2). Failed before:
/// unexpected argument.
#[test]
fn reverse_refuses_what_cannot_be_inverted() {
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-b\n+B\n*** Delete File: old.txt\n*** End Patch\n";
    let dir = dir_with(&[("a.txt", "a\nB\n"), ("p", patch)]);
    let run = polypatch(dir.path(), &["apply", "-R", "p"], None);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        "error: cannot reverse this ai-patch patch: `old.txt`: it deletes the file, and the patch does not carry \
         its exact bytes (line ends, final newline) to write it back; nothing was written (undo it from a copy of \
         the files, or from version control)\n"
    );
    assert_eq!(read(dir.path(), "a.txt"), "a\nB\n");
    // An edit replacing every occurrence cannot say which were there before.
    let call = r#"{"type": "tool_use", "id": "t1", "name": "Edit", "input": {"file_path": "a.txt", "old_string": "a", "new_string": "b", "replace_all": true}}"#;
    fs::write(dir.path().join("call.json"), call).unwrap();
    let run = polypatch(dir.path(), &["apply", "-R", "call.json"], None);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.starts_with("error: cannot reverse this tool-call patch: `a.txt`, ")
            && run.stderr.contains(": it replaces every occurrence, and which of them were there before is not known;"),
        "{}",
        run.stderr
    );
    assert_eq!(read(dir.path(), "a.txt"), "a\nB\n");
}

/// `--stat` and `--summary` print what `git apply --stat --summary` prints for the same
/// diff, byte for byte, and write nothing; `-R` prints the inverse's. Failed before:
/// unexpected argument (`--stat` was "a similar argument exists: '--strict'").
#[test]
fn stat_and_summary_in_git_form() {
    let dir = dir_with(&[("a.txt", TEN), ("gone.txt", "x\ny\n"), ("fix.diff", GIT_DIFF)]);
    let run = polypatch(dir.path(), &["apply", "--stat", "--summary", "fix.diff"], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stdout,
        " a.txt    |    5 +++--\n gone.txt |    2 --\n n.txt    |    2 ++\n 3 files changed, 5 insertions(+), 4 \
         deletions(-)\n delete mode 100644 gone.txt\n create mode 100644 n.txt\n"
    );
    assert_eq!(run.stderr, "");
    assert_eq!(read(dir.path(), "a.txt"), TEN);
    let run = polypatch(dir.path(), &["apply", "-R", "--stat", "--summary", "fix.diff"], None);
    assert_eq!(
        run.stdout,
        " n.txt    |    2 --\n gone.txt |    2 ++\n a.txt    |    5 ++---\n 3 files changed, 4 insertions(+), 5 \
         deletions(-)\n delete mode 100644 n.txt\n create gone.txt\n"
    );
    // A rename and a mode change, as git writes them.
    let rename = "diff --git a/src/old.rs b/src/new.rs\nsimilarity index 90%\nrename from src/old.rs\nrename to \
                  src/new.rs\ndiff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n";
    fs::write(dir.path().join("r.diff"), rename).unwrap();
    let run = polypatch(dir.path(), &["check", "--summary", "r.diff"], None);
    assert_eq!(
        run.stdout.lines().take(2).collect::<Vec<_>>(),
        [" rename src/{old.rs => new.rs} (90%)", " mode change 100644 => 100755 run.sh"]
    );
    // With `--apply`, it is applied too.
    let run = polypatch(dir.path(), &["apply", "--stat", "--apply", "-q", "fix.diff"], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with(" a.txt    |    5 +++--\n"), "{}", run.stdout);
    assert_eq!(read(dir.path(), "a.txt"), A_AFTER);
}

/// The stat of a dialect without line numbers counts the lines its edits add and remove.
#[test]
fn stat_of_search_replace_blocks() {
    let patch = "m.py\n```python\n<<<<<<< SEARCH\ndef g():\n    return 2\n=======\ndef g():\n    return 20\n    # \
                 more\n>>>>>>> REPLACE\n```\n";
    let dir = dir_with(&[("p", patch)]);
    let run = polypatch(dir.path(), &["apply", "--stat", "p"], None);
    assert_eq!(run.stdout, " m.py |    3 ++-\n 1 file changed, 2 insertions(+), 1 deletion(-)\n");
}

/// `-d`/`--directory` is `--root`, `-i FILE` the patch file, `--check` the `check` verb.
/// Failed before: each an unexpected argument.
#[test]
fn directory_input_and_check_as_patch_and_git_apply_spell_them() {
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-b\n+B\n*** End Patch\n";
    let dir = dir_with(&[("app/a.txt", "a\nb\n"), ("fix.patch", patch)]);
    let run = polypatch(dir.path(), &["apply", "--check", "-d", "app", "-i", "fix.patch"], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stdout,
        "located: modify a.txt\n  hunk 1: located at line 2\ndry run: would apply 1 edit in 1 file, nothing written\n"
    );
    assert_eq!(read(dir.path(), "app/a.txt"), "a\nb\n");
    let run = polypatch(dir.path(), &["apply", "--directory", "app", "--input", "fix.patch"], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(read(dir.path(), "app/a.txt"), "a\nB\n");
    // `-i` and a PATCH argument: which one is meant?
    let run = polypatch(dir.path(), &["apply", "-i", "fix.patch", "other.patch"], None);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("cannot be used with"), "{}", run.stderr);
}

/// `--format` takes the names users know, in any case; `formats` lists each dialect with
/// what it is and its aliases. Failed before: "unknown format `codex`".
#[test]
fn format_takes_the_names_users_know() {
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-b\n+B\n*** End Patch\n";
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n";
    let blocks = "a.txt\n<<<<<<< SEARCH\nb\n=======\nB\n>>>>>>> REPLACE\n";
    for (name, text) in [
        ("codex", patch),
        ("AIPatch", patch),
        ("AI-PATCH", patch),
        ("git", diff),
        ("Diff", diff),
        ("patch", diff),
        ("aider", blocks),
        ("Cline", blocks),
        ("roo", blocks),
    ] {
        let dir = dir_with(&[("a.txt", "a\nb\n"), ("p", text)]);
        let run = polypatch(dir.path(), &["check", "--format", name, "p"], None);
        assert_eq!(run.code, 0, "{name}: {run:?}");
    }
    let dir = dir_with(&[]);
    let run = polypatch(dir.path(), &["formats"], None);
    assert_eq!(run.code, 0);
    let first = run.stdout.lines().next().unwrap();
    assert_eq!(
        first,
        "ai-patch        the `*** Begin Patch` envelope of OpenAI Codex's `apply_patch` tool (also: aipatch, codex, \
         apply-patch, apply_patch)"
    );
    let json = polypatch(dir.path(), &["formats", "--json"], None);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(doc["dialects"][1]["name"], "unified");
    assert_eq!(
        doc["dialects"][1]["aliases"],
        serde_json::json!(["git", "diff", "patch", "udiff", "unidiff", "git-diff"])
    );
    for dialect in polypatch::Dialects::global().iter() {
        let line = run.stdout.lines().find(|l| l.starts_with(&format!("{} ", dialect.name()))).unwrap();
        assert!(line.contains(dialect.summary()) && !dialect.summary().is_empty(), "{line}");
        for alias in dialect.aliases() {
            assert!(line.contains(alias), "{line}");
        }
    }
}

/// `--partial` writes every file whose edits all locate, each whole, reports the others
/// (never as applied) and exits 1; the default stays all or nothing. Failed before:
/// unexpected argument.
#[test]
fn partial_applies_the_files_that_locate() {
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-b\n+B\n*** Update File: b.txt\n@@\n-y\n+Y\n@@\n-nope\n+NOPE\n*** Update File: c.txt\n@@\n-z\n+Z\n*** End Patch\n";
    let files = [("a.txt", "a\nb\n"), ("b.txt", "x\ny\n"), ("c.txt", "z\n"), ("p", patch)];
    let dir = dir_with(&files);
    let run = polypatch(dir.path(), &["apply", "p"], None);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!((read(dir.path(), "a.txt"), read(dir.path(), "c.txt")), ("a\nb\n".into(), "z\n".into()));

    let run = polypatch(dir.path(), &["apply", "--partial", "p"], None);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        run.stdout,
        "applied: modify a.txt\n  hunk 1: applied at line 2\napplied: modify c.txt\n  hunk 1: applied at line \
         1\napplied 2 edits in 2 files\n"
    );
    assert!(
        run.stderr
            .starts_with("error: 1 file not applied, as it was: its edits did not all locate\nFAILED: modify b.txt\n"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("applied:"), "{}", run.stderr);
    assert_eq!(read(dir.path(), "a.txt"), "a\nB\n");
    assert_eq!(
        read(dir.path(), "b.txt"),
        "x\ny\n",
        "b.txt is whole or untouched: its first hunk located, its second did not"
    );
    assert_eq!(read(dir.path(), "c.txt"), "Z\n");

    // Nothing locates: nothing is said to be applied.
    let dir = dir_with(&[
        ("b.txt", "x\n"),
        ("p", "*** Begin Patch\n*** Update File: b.txt\n@@\n-nope\n+NOPE\n*** End Patch\n"),
    ]);
    let run = polypatch(dir.path(), &["apply", "--partial", "p"], None);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.stdout, "");
    assert!(run.stderr.starts_with("error: 1 file not applied, as it was"), "{}", run.stderr);
}

/// `\ No newline at end of file` on either side: `-R` gives the file its final newline
/// back, or takes it away, as `git apply -R` and `patch -R` do (checked against both).
#[test]
fn reverse_keeps_what_no_newline_markers_say() {
    // The patch drops the final newline (marker on the new side only).
    let drops = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+Y\n\\ No newline at end of file\n";
    // It adds one (marker on the old side only), and both (a marker on each).
    let adds = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+Y\n";
    let neither = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+Y\n\\ No newline \
                   at end of file\n";
    for (patch, before, after) in [(drops, "x\ny\n", "x\nY"), (adds, "x\ny", "x\nY\n"), (neither, "x\ny", "x\nY")] {
        let dir = dir_with(&[("a.txt", after), ("p.diff", patch)]);
        let run = polypatch(dir.path(), &["apply", "-R", "p.diff"], None);
        assert_eq!(run.code, 0, "{patch}: {run:?}");
        assert_eq!(read(dir.path(), "a.txt"), before, "{patch}");
    }
}

/// No alias names two dialects, or another dialect's name: each resolves to its own.
#[test]
fn every_alias_names_one_dialect() {
    let dialects = polypatch::Dialects::global();
    let mut seen = std::collections::BTreeMap::new();
    for d in dialects.iter() {
        for name in std::iter::once(d.name()).chain(d.aliases().iter().copied()) {
            assert_eq!(name, name.to_ascii_lowercase(), "aliases are written lowercase");
            assert!(seen.insert(name, d.name()).is_none(), "`{name}` names two dialects");
            assert_eq!(dialects.get(&name.to_ascii_uppercase()).map(polypatch::Dialect::name), Some(d.name()));
        }
    }
    assert!(dialects.get("auto").is_none() && dialects.get("yaml").is_none());
}

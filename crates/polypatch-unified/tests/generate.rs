//! Generated diffs checked against git itself: `git apply` must accept every diff and
//! produce exactly the target bytes and modes, and for simple cases the text must equal
//! what `git diff` writes. Without git on the machine, each test prints a skip message.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use polypatch_unified::generate::{DiffOptions, Side, diff_file, diff_files};
use proptest::prelude::*;

mod common;
use common::{edited, edits, text_file};

/// A tree: path → (bytes, permission bits 0o644/0o755).
type Tree = BTreeMap<String, (Vec<u8>, u32)>;

fn tree(files: &[(&str, &[u8], u32)]) -> Tree {
    files.iter().map(|&(p, b, m)| (p.to_owned(), (b.to_vec(), m))).collect()
}

fn git_available() -> bool {
    let found = Command::new("git").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: git is not installed");
    }
    found
}

fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "core.autocrlf=false"])
        .args(["-c", "core.quotepath=true", "-c", "color.ui=never", "-c", "diff.noprefix=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap_or(dir))
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .expect("git runs")
}

fn write_tree(root: &Path, files: &Tree) {
    for (path, (bytes, mode)) in files {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(&full, bytes).unwrap();
        std::fs::set_permissions(&full, std::fs::Permissions::from_mode(*mode)).unwrap();
    }
}

fn read_tree(root: &Path) -> Tree {
    fn walk(root: &Path, dir: &Path, out: &mut Tree) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                if entry.file_name() != ".git" {
                    walk(root, &path, out);
                }
                continue;
            }
            let rel = path.strip_prefix(root).unwrap().to_str().unwrap().to_owned();
            let mode = entry.metadata().unwrap().permissions().mode();
            let mode = if mode & 0o100 == 0 { 0o644 } else { 0o755 };
            out.insert(rel, (std::fs::read(&path).unwrap(), mode));
        }
    }
    let mut out = Tree::new();
    walk(root, root, &mut out);
    out
}

/// Applies `patch` with `git apply --binary` (plus `extra` arguments) to `before` and
/// returns the resulting tree, or git's error output.
fn git_apply(before: &Tree, patch: &str, extra: &[&str]) -> Result<Tree, String> {
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("tree");
    std::fs::create_dir(&root).unwrap();
    write_tree(&root, before);
    let patch_file = work.path().join("change.diff");
    std::fs::write(&patch_file, patch).unwrap();
    let mut args = vec!["apply", "--binary"];
    args.extend_from_slice(extra);
    args.push(patch_file.to_str().unwrap());
    let output = git(&root, &args);
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    Ok(read_tree(&root))
}

/// The changes that turn `before` into `after`, path by path.
fn changes<'a>(before: &'a Tree, after: &'a Tree) -> Vec<(Option<Side<'a>>, Option<Side<'a>>)> {
    let mut paths: Vec<&String> = before.keys().chain(after.keys()).collect();
    paths.sort();
    paths.dedup();
    let side = |tree: &'a Tree, path: &'a str| tree.get(path).map(|(b, m)| Side::new(path, b).with_mode(*m));
    paths.into_iter().map(|p| (side(before, p), side(after, p))).collect()
}

/// Diffs `before` → `after`, applies the diff with git and checks the result.
fn check_with(before: &Tree, after: &Tree, options: &DiffOptions) -> String {
    let patch = diff_files(changes(before, after), options);
    if before == after {
        assert_eq!(patch, "");
        return patch;
    }
    match git_apply(before, &patch, &[]) {
        Ok(result) => assert_eq!(&result, after, "git apply gave another tree for:\n{patch}"),
        Err(err) => panic!("git apply refused:\n{err}\n--- patch ---\n{patch}"),
    }
    patch
}

fn check(before: &Tree, after: &Tree) -> String {
    check_with(before, after, &DiffOptions::default())
}

fn numbered(n: usize) -> String {
    let mut out = String::new();
    for i in 1..=n {
        out.push_str("line ");
        out.push_str(&i.to_string());
        out.push('\n');
    }
    out
}

#[test]
fn edits_in_the_middle_at_start_and_at_end() {
    if !git_available() {
        return;
    }
    let base = numbered(20);
    let middle = base.replace("line 10\n", "line ten\n");
    let start = format!("line 0\n{}", base.replace("line 1\n", ""));
    let end = format!("{}line 21\n", base.replace("line 20\n", "changed 20\n"));
    let scattered = base.replace("line 2\n", "").replace("line 11\n", "line 11\nnew\n").replace("line 19\n", "x\n");
    for after in [&middle, &start, &end, &scattered] {
        check(&tree(&[("f.txt", base.as_bytes(), 0o644)]), &tree(&[("f.txt", after.as_bytes(), 0o644)]));
    }
    let patch = check(&tree(&[("f.txt", base.as_bytes(), 0o644)]), &tree(&[("f.txt", scattered.as_bytes(), 0o644)]));
    assert_eq!(patch.matches("\n@@ ").count(), 3, "{patch}");
}

#[test]
fn empty_files() {
    if !git_available() {
        return;
    }
    let empty = tree(&[("e", b"", 0o644)]);
    let full = tree(&[("e", b"a\nb\n", 0o644)]);
    let patch = check(&empty, &full);
    assert!(patch.contains("@@ -0,0 +1,2 @@\n+a\n+b\n"), "{patch}");
    let patch = check(&full, &empty);
    assert!(patch.contains("@@ -1,2 +0,0 @@\n-a\n-b\n"), "{patch}");
    // A new empty file and a deleted empty file: headers only.
    let patch = check(&tree(&[]), &empty);
    assert_eq!(patch, "diff --git a/e b/e\nnew file mode 100644\nindex 0000000..e69de29\n");
    let patch = check(&empty, &tree(&[]));
    assert_eq!(patch, "diff --git a/e b/e\ndeleted file mode 100644\nindex e69de29..0000000\n");
}

#[test]
fn missing_final_newline() {
    if !git_available() {
        return;
    }
    // (before, after, number of `\ No newline` markers).
    let cases: [(&[u8], &[u8], usize); 8] = [
        (b"a\nb\nc", b"a\nB\nc", 1),
        (b"a\nb\nc", b"a\nb\nC", 2),
        (b"a\nb\nc\n", b"a\nb\nC", 1),
        (b"a\nb\nc", b"a\nb\nC\n", 1),
        (b"a\nb\nc", b"a\nb\nc\n", 1),
        (b"a\nb\nc\n", b"a\nb\nc", 1),
        (b"x", b"y", 2),
        (b"1\n2\n3\n4\n5\n6\n7\n8\n9\nlast", b"one\n2\n3\n4\n5\n6\n7\n8\n9\nlast", 0),
    ];
    for (before, after, markers) in cases {
        let patch = check(&tree(&[("f", before, 0o644)]), &tree(&[("f", after, 0o644)]));
        assert_eq!(patch.matches("\\ No newline at end of file\n").count(), markers, "{patch}");
    }
    // Adding the final newline: the old line is marked, the new one is not.
    let patch = check(&tree(&[("f", b"a\nb", 0o644)]), &tree(&[("f", b"a\nb\n", 0o644)]));
    assert!(patch.ends_with("@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"), "{patch}");
    // Removing it: the new line is marked.
    let patch = check(&tree(&[("f", b"a\nb\n", 0o644)]), &tree(&[("f", b"a\nb", 0o644)]));
    assert!(patch.ends_with("@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n"), "{patch}");
    // A context line without newline is marked too.
    let patch = check(&tree(&[("f", b"a\nb", 0o644)]), &tree(&[("f", b"A\nb", 0o644)]));
    assert!(patch.ends_with("-a\n+A\n b\n\\ No newline at end of file\n"), "{patch}");
}

#[test]
fn crlf_content() {
    if !git_available() {
        return;
    }
    let before = b"one\r\ntwo\r\nthree\r\n".as_slice();
    for after in [
        b"one\r\n2\r\nthree\r\n".as_slice(),
        b"one\r\ntwo\nthree\r\n",
        b"one\r\ntwo\r\nthree",
        b"one\r\ntwo\r\nthree\r",
        b"zero\r\none\r\ntwo\r\nthree\r\n",
        b"one\rtwo\r\nthree\r\n",
    ] {
        check(&tree(&[("w.txt", before, 0o644)]), &tree(&[("w.txt", after, 0o644)]));
    }
    let patch = check(&tree(&[("w.txt", before, 0o644)]), &tree(&[("w.txt", b"one\r\n2\r\nthree\r\n", 0o644)]));
    assert!(patch.contains("-two\r\n+2\r\n"), "{patch:?}");
}

#[test]
fn new_deleted_and_mode_changed_files() {
    if !git_available() {
        return;
    }
    check(&tree(&[]), &tree(&[("dir/sub/new.rs", b"fn main() {}\n", 0o644)]));
    check(&tree(&[]), &tree(&[("run.sh", b"#!/bin/sh\necho hi\n", 0o755)]));
    check(&tree(&[("gone.txt", b"bye\nbye", 0o644)]), &tree(&[]));
    check(&tree(&[("gone.sh", b"x\n", 0o755)]), &tree(&[]));
    let patch = check(&tree(&[("m", b"x\n", 0o644)]), &tree(&[("m", b"x\n", 0o755)]));
    assert_eq!(patch, "diff --git a/m b/m\nold mode 100644\nnew mode 100755\n");
    let patch = check(&tree(&[("m", b"x\n", 0o755)]), &tree(&[("m", b"y\n", 0o644)]));
    assert!(
        patch.starts_with("diff --git a/m b/m\nold mode 100755\nnew mode 100644\nindex 587be6b..975fbec\n"),
        "{patch}"
    );
}

#[test]
fn renames() {
    if !git_available() {
        return;
    }
    let options = DiffOptions::default().renames(true);
    let text = numbered(10);
    let edited = text.replace("line 5\n", "five\n");
    let patch = check_with(
        &tree(&[("old/name.txt", text.as_bytes(), 0o644)]),
        &tree(&[("new/name.txt", text.as_bytes(), 0o644)]),
        &options,
    );
    assert_eq!(
        patch,
        "diff --git a/old/name.txt b/new/name.txt\nsimilarity index 100%\nrename from old/name.txt\nrename to new/name.txt\n"
    );
    let patch = check_with(
        &tree(&[("a.txt", text.as_bytes(), 0o644)]),
        &tree(&[("b.txt", edited.as_bytes(), 0o755)]),
        &options,
    );
    assert!(patch.starts_with("diff --git a/a.txt b/b.txt\nold mode 100644\nnew mode 100755\nsimilarity index 90%\n"));
    assert!(patch.contains("--- a/a.txt\n+++ b/b.txt\n"), "{patch}");
    // Below 50% similar: a deletion and an addition.
    let patch = check_with(
        &tree(&[("a.txt", text.as_bytes(), 0o644)]),
        &tree(&[("b.txt", b"something else\n", 0o644)]),
        &options,
    );
    assert!(!patch.contains("rename"), "{patch}");
    // Without the option: no rename.
    let patch = check(&tree(&[("a.txt", text.as_bytes(), 0o644)]), &tree(&[("b.txt", text.as_bytes(), 0o644)]));
    assert!(patch.contains("deleted file mode") && patch.contains("new file mode"));
    // diff_file with two paths is always a rename.
    let direct = diff_file(Some(Side::new("x", b"1\n2\n")), Some(Side::new("y", b"3\n4\n")), &DiffOptions::default());
    assert!(direct.contains("similarity index 0%\nrename from x\nrename to y\n"), "{direct}");
    let result = git_apply(&tree(&[("x", b"1\n2\n", 0o644)]), &direct, &[]).unwrap();
    assert_eq!(result, tree(&[("y", b"3\n4\n", 0o644)]));
}

#[test]
fn rename_pairing_prefers_exact_then_best() {
    if !git_available() {
        return;
    }
    let a = numbered(10);
    let b = a.replace("line 3\n", "three\n");
    let c = a.replace("line 3\n", "three\n").replace("line 7\n", "seven\n");
    let before = tree(&[("one", a.as_bytes(), 0o644), ("two", b.as_bytes(), 0o644)]);
    let after = tree(&[("uno", c.as_bytes(), 0o644), ("dos", a.as_bytes(), 0o644)]);
    let patch = check_with(&before, &after, &DiffOptions::default().renames(true));
    assert!(patch.contains("rename from one\nrename to dos\n"), "{patch}");
    assert!(patch.contains("rename from two\nrename to uno\n"), "{patch}");
    assert_eq!(patch.matches("diff --git").count(), 2);
}

#[test]
fn quoted_paths() {
    if !git_available() {
        return;
    }
    for path in
        ["with space.txt", "dir with space/f", "naïve.txt", "tab\there", "quote\"d", "back\\slash", "日本/語.md"]
    {
        let patch = check(&tree(&[(path, b"a\n", 0o644)]), &tree(&[(path, b"b\n", 0o644)]));
        check(&tree(&[]), &tree(&[(path, b"new\n", 0o644)]));
        check(&tree(&[(path, b"old\n", 0o644)]), &tree(&[]));
        check_with(
            &tree(&[(path, b"same\n", 0o644)]),
            &tree(&[("renamed", b"same\n", 0o644)]),
            &DiffOptions::default().renames(true),
        );
        if path.contains(' ') && !path.contains('"') {
            assert!(patch.contains(&format!("--- a/{path}\t\n")), "{patch}");
        }
    }
    let patch = check(&tree(&[("naïve", b"a\n", 0o644)]), &tree(&[("naïve", b"b\n", 0o644)]));
    assert!(patch.starts_with("diff --git \"a/na\\303\\257ve\" \"b/na\\303\\257ve\"\n"), "{patch}");
    let patch = check(&tree(&[("t\tb", b"a\n", 0o644)]), &tree(&[("t\tb", b"b\n", 0o644)]));
    assert!(patch.contains("--- \"a/t\\tb\"\n+++ \"b/t\\tb\"\n"), "{patch}");
}

#[test]
fn binary_literals() {
    if !git_available() {
        return;
    }
    let blob: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
    let mut other = blob.clone();
    other[100] = 0xff;
    other.extend_from_slice(b"tail");
    check(&tree(&[]), &tree(&[("img.png", &blob, 0o644)]));
    check(&tree(&[("img.png", &blob, 0o644)]), &tree(&[("img.png", &other, 0o644)]));
    check(&tree(&[("img.png", &blob, 0o644)]), &tree(&[]));
    // Text to binary and back, and invalid UTF-8 without NUL.
    check(&tree(&[("f", b"text\n", 0o644)]), &tree(&[("f", b"bin\0ary", 0o644)]));
    check(&tree(&[("f", b"bin\0ary", 0o644)]), &tree(&[("f", b"text\n", 0o644)]));
    check(&tree(&[("latin1", b"caf\xe9\n", 0o644)]), &tree(&[("latin1", b"caf\xe8\n", 0o644)]));
    // Renamed binary with identical content, and a binary rename with changes.
    let options = DiffOptions::default().renames(true);
    check_with(&tree(&[("a.bin", &blob, 0o644)]), &tree(&[("b.bin", &blob, 0o644)]), &options);
    let patch = diff_file(
        Some(Side::new("a.bin", &blob)),
        Some(Side::new("b.bin", &other).with_mode(0o755)),
        &DiffOptions::default(),
    );
    assert_eq!(git_apply(&tree(&[("a.bin", &blob, 0o644)]), &patch, &[]).unwrap(), tree(&[("b.bin", &other, 0o755)]));
    // Full ids on binary patches.
    let patch = check(&tree(&[("img.png", &blob, 0o644)]), &tree(&[("img.png", &other, 0o644)]));
    let index = patch.lines().find(|l| l.starts_with("index ")).unwrap();
    assert_eq!(index.len(), "index ".len() + 40 + 2 + 40 + " 100644".len(), "{index}");
    // Without `binary`: git's message, which git apply refuses.
    let patch = diff_file(
        Some(Side::new("img.png", &blob)),
        Some(Side::new("img.png", &other)),
        &DiffOptions::default().binary(false),
    );
    assert!(patch.ends_with("Binary files a/img.png and b/img.png differ\n"), "{patch}");
    assert!(git_apply(&tree(&[("img.png", &blob, 0o644)]), &patch, &[]).is_err());
    let patch = diff_file(None, Some(Side::new("n.bin", &blob)), &DiffOptions::default().binary(false));
    assert!(patch.ends_with("Binary files /dev/null and b/n.bin differ\n"), "{patch}");
}

#[test]
fn several_files() {
    if !git_available() {
        return;
    }
    let before = tree(&[
        ("a.txt", b"1\n2\n3\n", 0o644),
        ("b/c.txt", numbered(30).as_bytes(), 0o644),
        ("d.bin", b"\0\x01\x02", 0o644),
        ("gone", b"x\n", 0o644),
        ("exec", b"#!/bin/sh\n", 0o644),
    ]);
    let after = tree(&[
        ("a.txt", b"1\n3\n", 0o644),
        ("b/c.txt", numbered(31).replace("line 15\n", "").as_bytes(), 0o644),
        ("d.bin", b"\0\x01\x03", 0o644),
        ("exec", b"#!/bin/sh\n", 0o755),
        ("new dir/new file", b"hello", 0o644),
    ]);
    let patch = check(&before, &after);
    assert_eq!(patch.matches("diff --git ").count(), 6);
}

#[test]
fn prefixes_and_context() {
    if !git_available() {
        return;
    }
    let base = numbered(30);
    let after = base.replace("line 10\n", "ten\n").replace("line 20\n", "twenty\n");
    let (b, a) = (tree(&[("f", base.as_bytes(), 0o644)]), tree(&[("f", after.as_bytes(), 0o644)]));
    let patch = check_with(&b, &a, &DiffOptions::default().context(1));
    assert!(patch.contains("@@ -9,3 +9,3 @@ line 8\n line 9\n-line 10\n+ten\n line 11\n"), "{patch}");
    let patch = check_with(&b, &a, &DiffOptions::default().context(5));
    assert_eq!(patch.matches("\n@@ ").count(), 1, "changes 9 lines apart share a hunk with context 5");
    let patch = check_with(&b, &a, &DiffOptions::default().context(4));
    assert_eq!(patch.matches("\n@@ ").count(), 2, "changes 9 lines apart are two hunks with context 4");
    let patch = diff_files(changes(&b, &a), &DiffOptions::default().prefixes("", ""));
    assert!(patch.starts_with("diff --git f f\nindex "), "{patch}");
    let result = git_apply(&b, &patch, &["-p0"]).unwrap();
    assert_eq!(result, a);
    let patch = diff_files(changes(&b, &a), &DiffOptions::default().context(0));
    assert!(patch.contains("@@ -10 +10 @@ line 9\n-line 10\n+ten\n"), "{patch}");
    assert_eq!(git_apply(&b, &patch, &["--unidiff-zero"]).unwrap(), a);
    // Pure insertion with no context: the line before, `,0`.
    let inserted = base.replace("line 10\n", "line 10\nnew\n");
    let patch =
        diff_files(changes(&b, &tree(&[("f", inserted.as_bytes(), 0o644)])), &DiffOptions::default().context(0));
    assert!(patch.contains("@@ -10,0 +11 @@ line 10\n+new\n"), "{patch}");
}

/// Source with function lines (git's default rule: a line starting with a letter, `_` or
/// `$`), one longer than 80 bytes, for the text after `@@`.
const CODE: &str = "use std::io;\n\nfn first() {\n    let a = 1;\n    let b = 2;\n    let c = 3;\n    let d = 4;\n    a + b\n}\n\n\
fn a_function_with_a_very_long_name_that_goes_past_the_eighty_byte_cut_of_git(x: u32) -> u32 {\n    let y = 1;\n\
    let z = 2;\n    let w = 3;\n    let v = 4;\n    x + y\n}\n\n$dollar\n    one\n    two\n    three\n    four\n    five\n\
    six\n    seven\n    eight\n    nine\n    ten\n    eleven\n";

fn code_edited() -> String {
    CODE.replace("    a + b\n", "    a - b\n")
        .replace("    x + y\n", "    x * y\n")
        .replace("    five\n", "    5\n")
        .replace("    eleven\n", "    11\n")
}

/// Our text equals `git diff`'s where git's diff algorithm finds the same changes.
#[test]
fn same_text_as_git_diff() {
    if !git_available() {
        return;
    }
    let base = numbered(40);
    let cases: Vec<(Tree, Tree)> = vec![
        (tree(&[("f", base.as_bytes(), 0o644)]), tree(&[("f", base.replace("line 20\n", "x\n").as_bytes(), 0o644)])),
        (
            tree(&[("f", base.as_bytes(), 0o644)]),
            tree(&[("f", base.replace("line 10\n", "x\n").replace("line 17\n", "y\n").as_bytes(), 0o644)]),
        ),
        (
            tree(&[("f", base.as_bytes(), 0o644)]),
            tree(&[("f", base.replace("line 10\n", "x\n").replace("line 18\n", "y\n").as_bytes(), 0o644)]),
        ),
        (tree(&[("f", b"a\nb", 0o644)]), tree(&[("f", b"a\nc", 0o644)])),
        (tree(&[("f", b"a\nb", 0o644)]), tree(&[("f", b"a\nb\n", 0o644)])),
        (tree(&[("f", b"", 0o644)]), tree(&[("f", b"a\n", 0o644)])),
        (tree(&[("f", b"a\r\nb\r\n", 0o644)]), tree(&[("f", b"a\r\nc\r\n", 0o644)])),
        (tree(&[]), tree(&[("new file", b"1\n2\n", 0o755)])),
        (tree(&[("old", b"1\n2", 0o644)]), tree(&[])),
        (tree(&[("m", b"1\n", 0o644)]), tree(&[("m", b"2\n", 0o755)])),
        (tree(&[("naïve\tx", b"1\n", 0o644)]), tree(&[("naïve\tx", b"2\n", 0o644)])),
        (tree(&[("e", b"", 0o644)]), tree(&[])),
        (tree(&[("code.rs", CODE.as_bytes(), 0o644)]), tree(&[("code.rs", code_edited().as_bytes(), 0o644)])),
    ];
    for (before, after) in cases {
        let ours = check(&before, &after);
        let repo = tempfile::tempdir().unwrap();
        let root = repo.path();
        assert!(git(root, &["init", "-q"]).status.success());
        write_tree(root, &before);
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "--allow-empty", "-m", "before"]);
        for path in before.keys() {
            std::fs::remove_file(root.join(path)).unwrap();
        }
        write_tree(root, &after);
        git(root, &["add", "-A"]);
        let theirs = git(root, &["diff", "--cached", "--no-renames", "--no-ext-diff"]);
        assert_eq!(ours, String::from_utf8(theirs.stdout).unwrap());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The git oracle round trip: random file + random edits → diff_file → `git apply`
    /// reproduces the target bytes.
    #[test]
    fn git_oracle_round_trip(
        before in text_file(30),
        edits in edits(8),
        final_newline in prop::option::of(any::<bool>()),
        context in prop::sample::select(vec![1usize, 3, 3, 3]),
    ) {
        if !git_available() {
            return Ok(());
        }
        let after = edited(&before, &edits, final_newline);
        let patch = diff_file(
            Some(Side::new("file.txt", &before)),
            Some(Side::new("file.txt", &after)),
            &DiffOptions::default().context(context),
        );
        if before == after {
            prop_assert_eq!(patch, "");
            return Ok(());
        }
        let result = git_apply(&tree(&[("file.txt", &before, 0o644)]), &patch, &[]);
        prop_assert_eq!(result, Ok(tree(&[("file.txt", &after, 0o644)])), "patch:\n{}", patch);
    }
}

fn owned_side(s: &(String, Vec<u8>, Option<u32>)) -> Side<'_> {
    let side = Side::new(s.0.as_str(), s.1.as_slice());
    s.2.map_or(side, |mode| side.with_mode(mode))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any bytes, paths, modes and options: no panic, and an empty diff exactly when
    /// nothing changed.
    #[test]
    fn never_panics(
        old in prop::option::of((".{0,12}", prop::collection::vec(any::<u8>(), 0..200), prop::option::of(any::<u32>()))),
        new in prop::option::of((".{0,12}", prop::collection::vec(any::<u8>(), 0..200), prop::option::of(any::<u32>()))),
        context in 0usize..8,
        binary in any::<bool>(),
        renames in any::<bool>(),
    ) {
        let side = owned_side;
        let options = DiffOptions::default().context(context).binary(binary).renames(renames);
        let diff = diff_file(old.as_ref().map(side), new.as_ref().map(side), &options);
        let _ = diff_files([(old.as_ref().map(side), None), (None, new.as_ref().map(side))], &options);
        let unchanged = match (&old, &new) {
            (None, None) => true,
            (Some(o), Some(n)) => o == n,
            _ => false,
        };
        if unchanged {
            prop_assert_eq!(diff, "");
        }
    }
}

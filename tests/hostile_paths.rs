//! Hostile paths in every dialect and operation: nothing outside the root is ever read
//! or written, escapes are refused before anything is touched, names that merely look
//! odd stay inside the root, and two names of one file (an in-root directory link) are
//! one file.

#[allow(dead_code, reason = "this suite uses only the snapshot of the shared helpers")]
mod common;

use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

use common::snapshot;
use polypatch::{ApplyOptions, DiskFileSet, apply, parse};

/// `outer/root` (the root) and `outer/outside`, with links from the one to the other.
struct World {
    outer: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("root");
        let outside = outer.path().join("outside");
        fs::create_dir_all(root.join("d")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(root.join("inside.txt"), "secret\n").unwrap();
        fs::write(root.join("d/x"), "secret\n").unwrap();
        fs::write(outside.join("secret.txt"), "secret\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::symlink;
            symlink(&outside, root.join("link")).unwrap();
            symlink(outside.join("secret.txt"), root.join("secret-link.txt")).unwrap();
            symlink(outside.join("nothing.txt"), root.join("dangling.txt")).unwrap();
            symlink("missing.txt", root.join("broken-in.txt")).unwrap();
            symlink("d", root.join("ins")).unwrap();
        }
        World { outer }
    }

    /// Removes what a patch created inside the root and restores the files it changed.
    fn reset(&self) {
        let root = self.root();
        for entry in fs::read_dir(&root).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let known = ["d", "inside.txt", "link", "secret-link.txt", "dangling.txt", "broken-in.txt", "ins"];
            if !known.contains(&name.as_str()) {
                if path.is_dir() { fs::remove_dir_all(&path).unwrap() } else { fs::remove_file(&path).unwrap() }
            }
        }
        fs::write(root.join("inside.txt"), "secret\n").unwrap();
    }

    fn root(&self) -> PathBuf {
        self.outer.path().join("root")
    }

    fn state(&self) -> Vec<(String, Vec<u8>)> {
        snapshot(self.outer.path())
    }

    fn apply(&self, dialect: &str, patch: &str) -> Result<polypatch::ApplyReport, String> {
        self.apply_with(dialect, patch, &ApplyOptions::default())
    }

    fn apply_with(&self, dialect: &str, patch: &str, options: &ApplyOptions) -> Result<polypatch::ApplyReport, String> {
        let plan = parse(patch, dialect.parse().expect("a format name")).map_err(|e| format!("parse: {e}"))?;
        let mut disk = DiskFileSet::new(self.root()).unwrap();
        apply(&plan, &mut disk, options).map_err(|e| {
            let kind = e.report.first_failure().map(|first| first.failure.kind);
            format!("{kind:?}: {e}")
        })
    }
}

/// A path as git writes it: C-quoted when it holds anything unusual.
fn git_quote(path: &str) -> String {
    if path.bytes().all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\') {
        return path.to_string();
    }
    let mut out = String::from("\"");
    for b in path.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
    out.push('"');
    out
}

/// Every operation of every dialect on `path`, as (dialect, patch).
fn operations(path: &str) -> Vec<(&'static str, String)> {
    let q = git_quote(path);
    let (a, b) = if let Some(rest) = q.strip_prefix('"') {
        (format!("\"a/{rest}"), format!("\"b/{rest}"))
    } else {
        (format!("a/{q}"), format!("b/{q}"))
    };
    let y = serde_json::to_string(path).unwrap();
    let mut aptix = aptix_operations(".", path);
    // After an entry on a file inside the root, so that a refusal of the second entry
    // must undo nothing of the first.
    aptix.push(format!(
        "{{\"root\": \".\", \"files\": [{{\"path\": \"inside.txt\", \"operation\": \"patch\", \"patches\": \
         [{{\"find\": \"secret\", \"replace\": \"owned\"}}]}}, {{\"path\": {y}, \"content\": \"owned\\n\"}}]}}"
    ));
    if let Some((root, file)) = through_root(path) {
        aptix.extend(aptix_operations(&root, &file));
    }
    let mut all = vec![
        ("ai-patch", format!("*** Begin Patch\n*** Update File: {path}\n@@\n-secret\n+owned\n*** End Patch\n")),
        ("ai-patch", format!("*** Begin Patch\n*** Add File: {path}\n+owned\n*** End Patch\n")),
        ("ai-patch", format!("*** Begin Patch\n*** Delete File: {path}\n*** End Patch\n")),
        (
            "ai-patch",
            format!(
                "*** Begin Patch\n*** Update File: inside.txt\n*** Move to: {path}\n@@\n-secret\n+owned\n*** End Patch\n"
            ),
        ),
        ("unified", format!("--- {a}\n+++ {b}\n@@ -1 +1 @@\n-secret\n+owned\n")),
        (
            "unified",
            format!("diff --git {a} {b}\nnew file mode 100644\n--- /dev/null\n+++ {b}\n@@ -0,0 +1 @@\n+owned\n"),
        ),
        (
            "unified",
            format!("diff --git {a} {b}\ndeleted file mode 100644\n--- {a}\n+++ /dev/null\n@@ -1 +0,0 @@\n-secret\n"),
        ),
        (
            "unified",
            format!(
                "diff --git a/inside.txt {b}\nsimilarity index 100%\nrename from inside.txt\nrename to {}\n",
                &b[2..].trim_end_matches('"')
            ),
        ),
        (
            "ap",
            format!(
                "version: \"2.0\"\nchanges:\n  - file_path: {y}\n    modifications:\n      - action: REPLACE\n        snippet: |\n          secret\n        content: |\n          owned\n"
            ),
        ),
        (
            "ap",
            format!(
                "version: \"2.0\"\nchanges:\n  - file_path: {y}\n    modifications:\n      - action: CREATE_FILE\n        content: |\n          owned\n"
            ),
        ),
        ("applydiff", format!(">>> file: {path}\n--- from\nsecret\n--- to\nowned\n<\n")),
        ("applydiff", format!(">>> file: {path}\n--- from\n--- to\nowned\n<\n")),
        ("applydiff", format!(">>> file: {path} | mode=replace\n--- from\n--- to\nowned\n<\n")),
        // After a block on a file inside the root, so that a refusal of the second
        // block must undo nothing of the first.
        (
            "applydiff",
            format!(
                ">>> file: inside.txt\n--- from\nsecret\n--- to\nowned\n<\n>>> file: {path}\n--- from\n--- to\nowned\n<\n"
            ),
        ),
    ];
    all.extend(aptix.into_iter().map(|patch| ("aptix", patch)));
    all
}

/// Every Aptix operation on `path` under `root`: create-or-replace (no operation), create,
/// replace, delete, patch, gitPatch, and a structured patch bundle in both shapes.
fn aptix_operations(root: &str, path: &str) -> Vec<String> {
    let quote = |s: &str| serde_json::to_string(s).unwrap();
    let (r, p) = (quote(root), quote(path));
    let quoted = git_quote(path);
    let (a, b) = match quoted.strip_prefix('"') {
        Some(rest) => (format!("\"a/{rest}"), format!("\"b/{rest}")),
        None => (format!("a/{quoted}"), format!("b/{quoted}")),
    };
    let diff = quote(&format!("--- {a}\n+++ {b}\n@@ -1 +1 @@\n-secret\n+owned\n"));
    let file = |entry: &str| format!("{{\"root\": {r}, \"files\": [{{\"path\": {p}, {entry}}}]}}");
    vec![
        file("\"content\": \"owned\\n\""),
        file("\"operation\": \"create\", \"content\": \"owned\\n\""),
        file("\"operation\": \"replace\", \"content\": \"owned\\n\""),
        file("\"operation\": \"delete\""),
        file(
            "\"operation\": \"patch\", \"patches\": [{\"find\": \"secret\", \"replace\": \"owned\", \"limit\": \"all\"}]",
        ),
        file(&format!("\"operation\": \"gitPatch\", \"content\": {diff}")),
        format!(
            "{{\"root\": {r}, \"patches\": [{{\"path\": {p}, \"find\": \"secret\", \"replace\": \"owned\", \"limit\": \"once\"}}]}}"
        ),
        format!(
            "{{\"root\": {r}, \"patches\": [{{\"path\": {p}, \"replacements\": [{{\"find\": \"secret\", \"replace\": \"owned\"}}]}}]}}"
        ),
    ]
}

/// A hostile path put in an Aptix `root`: its folder part (or the whole path, when it has
/// none or ends in `.` or `..`) as the root and a plain file name as the path; `None` when
/// that root names the workspace itself (`.`, `./`, `/`'s empty folder part).
fn through_root(path: &str) -> Option<(String, String)> {
    let (root, file) = match path.rfind(['/', '\\']) {
        // `d/..` and `d/.`: the whole path is the root.
        Some(i) if !matches!(&path[i + 1..], "." | "..") => (&path[..i], &path[i + 1..]),
        _ => (path, ""),
    };
    let file = if file.is_empty() { "secret.txt" } else { file };
    let benign = root.split('/').all(|c| c.is_empty() || c == ".") && !root.starts_with('/');
    (!benign).then(|| (root.to_owned(), file.to_owned()))
}

#[test]
fn escaping_paths_are_refused_in_every_dialect_and_operation() {
    let w = World::new();
    let root = w.root().canonicalize().unwrap();
    let outside_abs = w.outer.path().join("outside/secret.txt").to_string_lossy().into_owned();
    let long = "x".repeat(300);
    let mut paths: Vec<String> = vec![
        "../outside/secret.txt".into(),
        "a/../../outside/secret.txt".into(),
        "a/b/c/../../../../outside/secret.txt".into(),
        "..".into(),
        "d/..".into(),
        "..\\outside\\secret.txt".into(),
        "d\\..\\..\\outside\\secret.txt".into(),
        outside_abs.clone(),
        format!("{}/../outside/secret.txt", root.display()),
        "/etc/passwd".into(),
        "/".into(),
        "C:\\Windows\\win.ini".into(),
        "C:/Windows/win.ini".into(),
        "\\\\server\\share\\secret.txt".into(),
        "//server/share/secret.txt".into(),
        "d/x\0.txt".into(),
        ".".into(),
        "./".into(),
        format!("d/{long}"),
        "~/../../outside/secret.txt".into(),
    ];
    if cfg!(unix) {
        paths.extend(
            ["link/secret.txt", "link", "secret-link.txt", "dangling.txt", "broken-in.txt", "link/../root/inside.txt"]
                .map(String::from),
        );
    }
    assert!(paths.len() >= 26);
    let mut cases = 0;
    for path in &paths {
        for (dialect, patch) in operations(path) {
            let before = w.state();
            let outside = snapshot(&w.outer.path().join("outside"));
            let result = w.apply(dialect, &patch);
            assert_eq!(
                snapshot(&w.outer.path().join("outside")),
                outside,
                "{dialect} `{path:?}` wrote outside:\n{patch}"
            );
            match result {
                // A diff's `a/` and `b/` prefixes make `a//etc/x` the relative `etc/x`
                // (as git reads it): a file inside the root.
                Ok(_) if dialect == "unified" && (path.starts_with('/') || path.starts_with('\\')) => {
                    w.reset();
                }
                Ok(report) => panic!("{dialect} applied a patch on `{path:?}`:\n{patch}\n{report:?}"),
                Err(why) => {
                    // A refusal names the path problem (or the patch is refused as malformed).
                    assert!(
                        why.starts_with("parse:")
                            || why.contains("PathEscapesRoot")
                            || why.contains("InvalidPlan")
                            || (dialect == "unified" && why.contains("FileMissing")),
                        "{dialect} `{path:?}`: {why}\n{patch}"
                    );
                    assert_eq!(w.state(), before, "{dialect} `{path:?}` changed something:\n{patch}");
                    cases += 1;
                }
            }
        }
    }
    assert!(cases >= 330, "{cases}");
}

#[test]
fn odd_names_stay_inside_the_root() {
    for (written, lands) in [
        ("~/x.txt", "~/x.txt"),
        ("./a/./b.txt", "a/b.txt"),
        ("a//b.txt", "a/b.txt"),
        ("C:x.txt", "C:x.txt"),
        ("-rf.txt", "-rf.txt"),
        ("sp ace/n\u{e9}.txt", "sp ace/n\u{e9}.txt"),
    ] {
        let w = World::new();
        let before_outside = snapshot(&w.outer.path().join("outside"));
        let patch = format!("*** Begin Patch\n*** Add File: {written}\n+new\n*** End Patch\n");
        w.apply("ai-patch", &patch).unwrap_or_else(|e| panic!("{written}: {e}"));
        assert_eq!(fs::read_to_string(w.root().join(lands)).unwrap(), "new\n", "{written}");
        assert_eq!(snapshot(&w.outer.path().join("outside")), before_outside);
    }
    // An absolute path inside the root is the file it names.
    let w = World::new();
    let abs = w.root().canonicalize().unwrap().join("inside.txt");
    let patch = format!("*** Begin Patch\n*** Update File: {}\n@@\n-secret\n+changed\n*** End Patch\n", abs.display());
    w.apply("ai-patch", &patch).unwrap();
    assert_eq!(fs::read_to_string(w.root().join("inside.txt")).unwrap(), "changed\n");
}

#[cfg(unix)]
mod aliases {
    //! `ins` is a link to the directory `d`: `ins/x` and `d/x` are one file.
    use super::*;

    fn x(w: &World) -> String {
        fs::read_to_string(w.root().join("d/x")).unwrap()
    }

    #[test]
    fn an_edit_through_a_directory_link_edits_the_file() {
        let w = World::new();
        let report = w.apply("unified", "--- a/ins/x\n+++ b/ins/x\n@@ -1 +1 @@\n-secret\n+public\n").unwrap();
        assert_eq!(report.files[0].path, "d/x");
        assert_eq!(x(&w), "public\n");
        assert!(fs::symlink_metadata(w.root().join("ins")).unwrap().file_type().is_symlink());
    }

    #[test]
    fn a_rename_to_another_name_of_the_same_file_keeps_it() {
        let w = World::new();
        let patch = "*** Begin Patch\n*** Update File: d/x\n*** Move to: ins/x\n@@\n-secret\n+moved\n*** End Patch\n";
        w.apply("ai-patch", patch).unwrap();
        assert_eq!(x(&w), "moved\n");
        let patch = "diff --git a/d/x b/ins/x\nsimilarity index 100%\nrename from d/x\nrename to ins/x\n";
        w.apply("unified", patch).unwrap();
        assert_eq!(x(&w), "moved\n");
    }

    #[test]
    fn two_updates_through_two_names_both_land() {
        let w = World::new();
        fs::write(w.root().join("d/x"), "one\ntwo\n").unwrap();
        let patch = "*** Begin Patch\n*** Update File: d/x\n@@\n-one\n+ONE\n*** Update File: ins/x\n@@\n-two\n+TWO\n*** End Patch\n";
        w.apply("ai-patch", patch).unwrap();
        assert_eq!(x(&w), "ONE\nTWO\n");
    }

    #[test]
    fn a_delete_and_an_update_through_two_names_is_refused() {
        let w = World::new();
        let before = w.state();
        let patch =
            "*** Begin Patch\n*** Delete File: d/x\n*** Update File: ins/x\n@@\n-secret\n+back\n*** End Patch\n";
        let err = w.apply("ai-patch", patch).unwrap_err();
        assert!(err.contains("FileMissing"), "{err}");
        assert_eq!(w.state(), before);
    }

    #[test]
    fn applydiff_blocks_through_a_directory_link_edit_the_file() {
        let w = World::new();
        fs::write(w.root().join("d/x"), "one\ntwo\n").unwrap();
        // Two blocks through two names of one file: both land, in order.
        let patch = ">>> file: ins/x\n--- from\none\n--- to\nONE\n<\n>>> file: d/x\n--- from\ntwo\n--- to\nTWO\n<\n";
        let report = w.apply("applydiff", patch).unwrap();
        assert_eq!(report.files[0].path, "d/x");
        assert_eq!(x(&w), "ONE\nTWO\n");
        // A whole-file replace through the link writes the file and keeps the link.
        w.apply("applydiff", ">>> file: ins/x | mode=replace\n--- from\n--- to\nall new\n<\n").unwrap();
        assert_eq!(x(&w), "all new\n");
        assert!(fs::symlink_metadata(w.root().join("ins")).unwrap().file_type().is_symlink());
        // An empty-from create of the same file under its other name: it exists.
        let before = w.state();
        let err = w.apply("applydiff", ">>> file: ins/x\n--- from\n--- to\nother\n<\n").unwrap_err();
        assert!(err.contains("FileExists"), "{err}");
        assert_eq!(w.state(), before);
    }

    #[test]
    fn applydiff_blocks_through_a_file_link_edit_its_target_and_keep_the_link() {
        let w = World::new();
        std::os::unix::fs::symlink("inside.txt", w.root().join("alias.txt")).unwrap();
        w.apply("applydiff", ">>> file: alias.txt\n--- from\nsecret\n--- to\nedited\n<\n").unwrap();
        assert_eq!(fs::read_to_string(w.root().join("inside.txt")).unwrap(), "edited\n");
        assert!(fs::symlink_metadata(w.root().join("alias.txt")).unwrap().file_type().is_symlink());
        let before = w.state();
        let err = w.apply("applydiff", ">>> file: alias.txt\n--- from\n--- to\nother\n<\n").unwrap_err();
        assert!(err.contains("FileExists"), "{err}");
        assert_eq!(w.state(), before);
    }

    #[test]
    fn aptix_entries_through_a_directory_link_edit_the_file() {
        let w = World::new();
        fs::write(w.root().join("d/x"), "one\ntwo\n").unwrap();
        // Two entries through two names of one file, as `path` and through `root`: both land.
        let patch = r#"{"root": ".", "patches": [{"path": "ins/x", "find": "one", "replace": "ONE"},
            {"path": "d/x", "replacements": [{"find": "two", "replace": "TWO"}]}]}"#;
        w.apply("aptix", patch).unwrap();
        assert_eq!(x(&w), "ONE\nTWO\n");
        w.apply("aptix", r#"{"root": "ins", "patches": [{"path": "x", "find": "ONE", "replace": "1"}]}"#).unwrap();
        assert_eq!(x(&w), "1\nTWO\n");
        // A whole-file replace through the link writes the file and keeps the link.
        w.apply(
            "aptix",
            r#"{"root": "./ins", "files": [{"path": "x", "operation": "replace", "content": "all new\n"}]}"#,
        )
        .unwrap();
        assert_eq!(x(&w), "all new\n");
        assert!(fs::symlink_metadata(w.root().join("ins")).unwrap().file_type().is_symlink());
        // A create of the same file under its other name, with other content: it exists.
        let before = w.state();
        let err = w
            .apply(
                "aptix",
                r#"{"root": ".", "files": [{"path": "ins/x", "operation": "create", "content": "other\n"}]}"#,
            )
            .unwrap_err();
        assert!(err.contains("FileExists"), "{err}");
        assert_eq!(w.state(), before);
    }

    #[test]
    fn aptix_entries_through_a_file_link_edit_its_target_and_keep_the_link() {
        let w = World::new();
        std::os::unix::fs::symlink("inside.txt", w.root().join("alias.txt")).unwrap();
        let patch = r#"{"root": ".", "files": [{"path": "alias.txt", "operation": "patch",
            "patches": [{"find": "secret", "replace": "edited"}]}]}"#;
        w.apply("aptix", patch).unwrap();
        assert_eq!(fs::read_to_string(w.root().join("inside.txt")).unwrap(), "edited\n");
        assert!(fs::symlink_metadata(w.root().join("alias.txt")).unwrap().file_type().is_symlink());
        for patch in [
            r#"{"root": ".", "files": [{"path": "alias.txt", "operation": "create", "content": "other\n"}]}"#,
            r#"{"root": ".", "files": [{"path": "alias.txt", "operation": "delete"}]}"#,
        ] {
            let before = w.state();
            let err = w.apply("aptix", patch).unwrap_err();
            assert!(err.contains("FileExists") || err.contains("NotAFile"), "{err}");
            assert_eq!(w.state(), before);
        }
    }

    #[test]
    fn a_file_link_inside_the_root_edits_its_target_and_stays_a_link() {
        let w = World::new();
        std::os::unix::fs::symlink("inside.txt", w.root().join("alias.txt")).unwrap();
        w.apply("ai-patch", "*** Begin Patch\n*** Update File: alias.txt\n@@\n-secret\n+edited\n*** End Patch\n")
            .unwrap();
        assert_eq!(fs::read_to_string(w.root().join("inside.txt")).unwrap(), "edited\n");
        assert!(fs::symlink_metadata(w.root().join("alias.txt")).unwrap().file_type().is_symlink());
        for patch in [
            "*** Begin Patch\n*** Delete File: alias.txt\n*** End Patch\n",
            "*** Begin Patch\n*** Update File: alias.txt\n*** Move to: moved.txt\n@@\n-edited\n+x\n*** End Patch\n",
        ] {
            let before = w.state();
            let err = w.apply("ai-patch", patch).unwrap_err();
            assert!(err.contains("NotAFile") && err.contains("symbolic link"), "{err}");
            assert_eq!(w.state(), before);
        }
    }
}

mod git_dir {
    //! The root is a repository: `.git/config` and `.git/hooks/` (issue 25). No path of
    //! git's repository directory is changed, read for a copy or written through a link,
    //! in any dialect or operation, unless the apply allows it.
    use super::*;

    fn world() -> World {
        let w = World::new();
        let root = w.root();
        fs::create_dir_all(root.join(".git/hooks")).unwrap();
        fs::write(root.join(".git/config"), "secret\n").unwrap();
        fs::write(root.join(".git/hooks/pre-commit"), "secret\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::symlink;
            // A link to the hooks (the file it leads to is in `.git`), and a nested
            // repository whose `.git` is a link to a folder of another name.
            symlink(".git/hooks", root.join("hooks")).unwrap();
            fs::create_dir_all(root.join("store")).unwrap();
            fs::write(root.join("store/config"), "secret\n").unwrap();
            fs::create_dir_all(root.join("sub")).unwrap();
            symlink("../store", root.join("sub/.git")).unwrap();
        }
        w
    }

    /// Names of git's directory as each file system reads them, and as written.
    fn paths(w: &World) -> Vec<String> {
        let root = w.root().canonicalize().unwrap();
        let mut paths: Vec<String> = [
            ".git/config",
            ".git/hooks/pre-commit",
            ".git/hooks/post-checkout",
            ".git",
            "./.git/config",
            ".GIT/config",
            ".Git/hooks/pre-commit",
            "d/.git/config",
            ".git\\config",
            "git~1/config",
            "GIT~1/config",
            ".git./config",
            ".git /config",
            ".git. ./config",
            ".git::$INDEX_ALLOCATION/config",
            ".g\u{200c}it/config",
            "\u{feff}.git/config",
            ".git\u{200d}/config",
        ]
        .map(String::from)
        .to_vec();
        paths.push(format!("{}/.git/config", root.display()));
        if cfg!(unix) {
            paths.extend(["hooks/pre-commit", "sub/.git/config"].map(String::from));
            paths.push(format!("{}/sub/.git/config", root.display()));
        }
        paths
    }

    /// The operations of [`operations`] on `path`, and those that read it as a source:
    /// a rename or copy from it, a binary patch of it.
    fn all_operations(path: &str) -> Vec<(&'static str, String)> {
        let q = git_quote(path);
        let (a, b) = match q.strip_prefix('"') {
            Some(rest) => (format!("\"a/{rest}"), format!("\"b/{rest}")),
            None => (format!("a/{q}"), format!("b/{q}")),
        };
        let mut all = operations(path);
        all.extend([
            (
                "ai-patch",
                format!("*** Begin Patch\n*** Update File: {path}\n*** Move to: out.txt\n@@\n-secret\n+owned\n*** End Patch\n"),
            ),
            ("unified", format!("diff --git {a} b/out.txt\nsimilarity index 100%\nrename from {q}\nrename to out.txt\n")),
            ("unified", format!("diff --git {a} b/out.txt\nsimilarity index 100%\ncopy from {q}\ncopy to out.txt\n")),
            (
                "unified",
                format!(
                    "diff --git a/inside.txt b/inside.txt\n--- a/inside.txt\n+++ b/inside.txt\n@@ -1 +1 @@\n-secret\n+owned\n\
                     diff --git {a} {b}\nnew file mode 100755\nGIT binary patch\n{}literal 0\nHcmV?d00001\n\n",
                    polypatch::unified::binary::encode_block(b"owned\0")
                ),
            ),
        ]);
        all
    }

    #[test]
    fn every_name_of_the_git_directory_is_refused_in_every_dialect_and_operation() {
        let w = world();
        let mut refused = 0;
        for path in paths(&w) {
            for (dialect, patch) in all_operations(&path) {
                let before = w.state();
                match w.apply(dialect, &patch) {
                    Ok(report) => panic!("{dialect} applied a patch on `{path:?}`:\n{patch}\n{report:?}"),
                    // A name a dialect cannot write (a quote, a trailing space) is malformed.
                    Err(why) if why.starts_with("parse:") => {}
                    // `operations` writes a quoted name's `rename to` as `/…`: absolute.
                    Err(why)
                        if dialect == "unified"
                            && git_quote(&path).starts_with('"')
                            && why.starts_with("Some(PathEscapesRoot): ") => {}
                    Err(why) => {
                        assert!(
                            why.starts_with("Some(InvalidPlan): ")
                                && why.contains("is in git's repository directory `.git`")
                                && why.contains("--allow-git-dir"),
                            "{dialect} `{path:?}`: {why}\n{patch}"
                        );
                        refused += 1;
                    }
                }
                assert_eq!(w.state(), before, "{dialect} `{path:?}` changed something:\n{patch}");
            }
        }
        assert!(refused >= 700, "{refused}");
    }

    #[test]
    fn the_option_allows_them() {
        let w = world();
        let allow = ApplyOptions::default().allow_git_dir(true);
        let hook = "diff --git a/.git/hooks/post-merge b/.git/hooks/post-merge\nnew file mode 100755\n--- /dev/null\n+++ b/.git/hooks/post-merge\n@@ -0,0 +1 @@\n+#!/bin/sh\n";
        w.apply_with("unified", hook, &allow).unwrap();
        assert_eq!(fs::read_to_string(w.root().join(".git/hooks/post-merge")).unwrap(), "#!/bin/sh\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(w.root().join(".git/hooks/post-merge")).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o755);
        }
        let config = "*** Begin Patch\n*** Update File: .git/config\n@@\n-secret\n+[core]\n*** End Patch\n";
        w.apply_with("ai-patch", config, &allow).unwrap();
        assert_eq!(fs::read_to_string(w.root().join(".git/config")).unwrap(), "[core]\n");
        w.apply_with("ai-patch", "*** Begin Patch\n*** Delete File: ./.git/hooks/pre-commit\n*** End Patch\n", &allow)
            .unwrap();
        assert!(!w.root().join(".git/hooks/pre-commit").exists());
        // In memory too, and refused there without the option.
        let patch = "*** Begin Patch\n*** Add File: .git/info/exclude\n+/build\n*** End Patch\n";
        let plan = parse(patch, polypatch::Format::AiPatch).unwrap();
        let mut files = polypatch::MemoryFileSet::new();
        let err = apply(&plan, &mut files, &ApplyOptions::default()).unwrap_err();
        assert_eq!(err.report.first_failure().unwrap().failure.kind, polypatch::report::FailureKind::InvalidPlan);
        assert_eq!(files.paths().count(), 0);
        apply(&plan, &mut files, &allow).unwrap();
        assert_eq!(files.get_str(".git/info/exclude"), Some("/build\n"));
    }

    #[test]
    fn names_that_only_look_like_it_are_ordinary() {
        for name in [
            ".gitignore",
            ".gitmodules",
            ".gitattributes",
            ".github/x",
            "foo.git/x",
            "x.git",
            ".git-x/y",
            "git/x",
            "git~2/x",
            "gi~1/x",
        ] {
            let w = world();
            let patch = format!("*** Begin Patch\n*** Add File: {name}\n+new\n*** End Patch\n");
            w.apply("ai-patch", &patch).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(fs::read_to_string(w.root().join(name)).unwrap(), "new\n", "{name}");
        }
    }
}

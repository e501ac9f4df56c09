//! All-or-nothing and path confinement, on the real disk, through AI-PATCH patches.

#[allow(dead_code, reason = "this suite uses only the snapshot of the shared helpers")]
mod common;

use std::fs;
use std::path::Path;

use common::snapshot;
use polypatch::{ApplyOptions, DiskFileSet, FailureKind, apply, parse};

fn apply_patch(root: &Path, patch: &str) -> Result<polypatch::ApplyReport, polypatch::ApplyError> {
    let plan = parse(patch, polypatch::Format::AiPatch).expect("the patch parses");
    let mut disk = DiskFileSet::new(root).unwrap();
    apply(&plan, &mut disk, &ApplyOptions::default())
}

#[test]
fn two_file_patch_whose_second_file_fails_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("first.txt"), "alpha\nbeta\n").unwrap();
    fs::write(dir.path().join("second.txt"), "gamma\ndelta\n").unwrap();
    let before = snapshot(dir.path());
    let patch = "*** Begin Patch\n*** Update File: first.txt\n@@\n-alpha\n+ALPHA\n*** Add File: created.txt\n+new\n\
                 *** Update File: second.txt\n@@\n-epsilon\n+EPSILON\n*** End Patch\n";
    let err = apply_patch(dir.path(), patch).unwrap_err();
    assert_eq!(snapshot(dir.path()), before, "the tree must be byte-identical after a failed patch");
    let (file, _, failure) = err.report.first_failure().unwrap();
    assert_eq!(file.path, "second.txt");
    assert_eq!(failure.kind, FailureKind::NotFound);
    assert!(!err.report.committed);
}

#[test]
fn two_file_patch_applies_both_when_both_match() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("first.txt"), "alpha\n").unwrap();
    fs::write(dir.path().join("second.txt"), "gamma\n").unwrap();
    let patch = "*** Begin Patch\n*** Update File: first.txt\n@@\n-alpha\n+ALPHA\n\
                 *** Update File: second.txt\n@@\n-gamma\n+GAMMA\n*** End Patch\n";
    apply_patch(dir.path(), patch).unwrap();
    assert_eq!(fs::read_to_string(dir.path().join("first.txt")).unwrap(), "ALPHA\n");
    assert_eq!(fs::read_to_string(dir.path().join("second.txt")).unwrap(), "GAMMA\n");
}

/// A root with one file, a sibling directory outside it, and a symlink leading out.
struct Hostile {
    _outer: tempfile::TempDir,
    root: std::path::PathBuf,
    outside: std::path::PathBuf,
}

fn hostile() -> Hostile {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("root");
    let outside = outer.path().join("outside");
    fs::create_dir_all(&root).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(root.join("inside.txt"), "inside\n").unwrap();
    fs::write(outside.join("secret.txt"), "secret\n").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
        std::os::unix::fs::symlink(outside.join("secret.txt"), root.join("secret-link.txt")).unwrap();
    }
    Hostile { _outer: outer, root, outside }
}

#[test]
fn hostile_paths_are_refused_for_every_operation() {
    let h = hostile();
    let outside_abs = h.outside.join("secret.txt");
    let outside_abs = outside_abs.to_str().unwrap();
    let mut paths =
        vec!["../outside/secret.txt".to_string(), outside_abs.to_string(), "a/../../outside/secret.txt".into()];
    if cfg!(unix) {
        paths.push("link/secret.txt".into());
        paths.push("secret-link.txt".into());
    }
    for path in &paths {
        let ops = [
            format!("*** Update File: {path}\n@@\n-secret\n+owned\n"),
            format!("*** Add File: {path}\n+owned\n"),
            format!("*** Delete File: {path}\n"),
            format!("*** Update File: inside.txt\n*** Move to: {path}\n@@\n-inside\n+owned\n"),
        ];
        for op in ops {
            let before_root = snapshot(&h.root);
            let before_outside = snapshot(&h.outside);
            let patch = format!("*** Begin Patch\n{op}*** End Patch\n");
            let err = apply_patch(&h.root, &patch).expect_err(&patch);
            let (_, _, failure) = err.report.first_failure().unwrap();
            assert_eq!(failure.kind, FailureKind::PathEscapesRoot, "{patch}\n{failure}");
            assert_eq!(snapshot(&h.root), before_root, "{patch}");
            assert_eq!(snapshot(&h.outside), before_outside, "{patch}");
        }
    }
}

#[test]
fn absolute_path_inside_the_root_is_accepted() {
    let h = hostile();
    let abs = h.root.canonicalize().unwrap().join("inside.txt");
    let patch = format!("*** Begin Patch\n*** Update File: {}\n@@\n-inside\n+changed\n*** End Patch\n", abs.display());
    apply_patch(&h.root, &patch).unwrap();
    assert_eq!(fs::read_to_string(h.root.join("inside.txt")).unwrap(), "changed\n");
}

//! All-or-nothing and path confinement, on the real disk, through AI-PATCH patches.

#[allow(dead_code, reason = "this suite uses only the snapshot of the shared helpers")]
mod common;

use std::fs;
use std::path::Path;

use common::snapshot;
use polypatch::{ApplyOptions, DiskFileSet, apply, parse, report::FailureKind};

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
    let first = err.report.first_failure().unwrap();
    let failure = first.failure;
    assert_eq!(first.file.path, "second.txt");
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
            let failure = err.report.first_failure().unwrap().failure;
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

/// The disk, with another program that saves `a.txt` right after polypatch first read it
/// (while the patch is located, before anything is written).
struct SavedMeanwhile {
    disk: DiskFileSet,
    saved: std::sync::atomic::AtomicBool,
}

/// What the other program saves: a line more than polypatch read.
const THEIRS: &str = "one\ntwo\ntheir line\n";

impl SavedMeanwhile {
    fn new(root: &Path) -> Self {
        fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
        SavedMeanwhile { disk: DiskFileSet::new(root).unwrap(), saved: false.into() }
    }
}

impl polypatch::fs::FileSource for SavedMeanwhile {
    fn resolve(&self, path: &str) -> Result<polypatch::fs::RelPath, polypatch::fs::PathError> {
        self.disk.resolve(path)
    }

    fn as_written(&self, path: &str) -> Result<polypatch::fs::RelPath, polypatch::fs::PathError> {
        self.disk.as_written(path)
    }

    fn read(&self, path: &polypatch::fs::RelPath) -> std::io::Result<polypatch::fs::Entry> {
        let entry = self.disk.read(path)?;
        if path.as_str() == "a.txt" && !self.saved.swap(true, std::sync::atomic::Ordering::SeqCst) {
            fs::write(self.disk.full_path(path), THEIRS).unwrap();
        }
        Ok(entry)
    }

    fn is_symlink(&self, path: &str) -> bool {
        self.disk.is_symlink(path)
    }
}

impl polypatch::fs::FileStore for SavedMeanwhile {
    fn commit(&mut self, changes: &[polypatch::fs::Change]) -> Result<(), polypatch::fs::CommitError> {
        self.disk.commit(changes)
    }
}

/// A file another program saves after polypatch read it is not replaced, whether one
/// patch is applied or a reply's blocks are (located on an overlay of the disk, whose
/// changes are then committed): both refuse with the same error, and the other program's
/// bytes stay. A reply once read every changed file again to compute its changes, and the
/// commit then checked the file against that second read: the save in between was lost.
#[test]
fn a_file_saved_by_another_program_after_it_was_read_is_kept_by_a_patch_and_by_a_reply() {
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+uno\n*** End Patch\n";
    let expected = "`a.txt` was changed by another program while the patch was applied; read it again and \
                    regenerate the patch; every step was undone, no file was changed";
    let only_theirs = vec![("a.txt".to_string(), THEIRS.as_bytes().to_vec())];

    let dir = tempfile::tempdir().unwrap();
    let mut files = SavedMeanwhile::new(dir.path());
    let plan = parse(patch, polypatch::Format::AiPatch).unwrap();
    let err = apply(&plan, &mut files, &ApplyOptions::default()).unwrap_err();
    assert_eq!(
        (err.commit_error.as_ref().map(ToString::to_string).as_deref(), err.rolled_back),
        (Some(expected), true)
    );
    assert_eq!(err.to_string(), format!("could not write the changes: {expected}"));
    // The store's error is the source, itself with the io::Error as its source.
    let source = std::error::Error::source(&err).and_then(|s| s.downcast_ref::<polypatch::fs::CommitError>());
    assert_eq!(source.map(ToString::to_string).as_deref(), Some(expected));
    let cause = std::error::Error::source(source.unwrap()).and_then(|s| s.downcast_ref::<std::io::Error>());
    assert!(cause.is_some_and(|c| expected.starts_with(&c.to_string())), "{cause:?}");
    assert_eq!(snapshot(dir.path()), only_theirs);

    // One block, then two blocks editing the file one after the other (the second reads
    // it through the overlay, over the first one's change).
    let second = "*** Begin Patch\n*** Update File: a.txt\n@@\n-two\n+dos\n*** End Patch\n";
    for reply in
        [format!("Fix:\n\n```\n{patch}```\n"), format!("Fix:\n\n```\n{patch}```\n\nThen:\n\n```\n{second}```\n")]
    {
        let dir = tempfile::tempdir().unwrap();
        let mut files = SavedMeanwhile::new(dir.path());
        let err = polypatch::apply_text(&reply, &mut files, &ApplyOptions::default()).unwrap_err();
        let polypatch::ReplyError::NotApplied { commit_error, rolled_back, .. } = &err else {
            panic!("not a commit failure: {err:?}")
        };
        let commit_error = commit_error.as_ref().map(ToString::to_string);
        assert_eq!((commit_error.as_deref(), *rolled_back), (Some(expected), true), "{reply}");
        let source = std::error::Error::source(&err).and_then(|s| s.downcast_ref::<polypatch::fs::CommitError>());
        assert_eq!(source.map(ToString::to_string).as_deref(), Some(expected), "{reply}");
        assert_eq!(err.kind(), "not_applied");
        assert_eq!(err.to_string(), format!("could not write the changes: {expected}"));
        assert_eq!(snapshot(dir.path()), only_theirs, "{reply}");
    }
}

/// A conversion shows the files as the patch was located on them: the old side of its
/// unified diff, and the files its rendering is checked against, are polypatch's first read
/// of each file. The changes were once described against a second read: another program's
/// save in between became the old side, and the diff (fed to `git apply`) undid that save.
#[test]
fn a_conversion_shows_the_bytes_the_patch_was_located_on_not_a_later_save() {
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+uno\n*** End Patch\n";
    let options = polypatch::convert::ConvertOptions::default();
    let clean = tempfile::tempdir().unwrap();
    fs::write(clean.path().join("a.txt"), "one\ntwo\n").unwrap();
    let want = polypatch::convert::convert(
        patch,
        &DiskFileSet::new(clean.path()).unwrap(),
        polypatch::Format::Unified,
        &options,
    )
    .unwrap()
    .text;
    assert!(want.ends_with("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+uno\n two\n"), "{want}");

    let dir = tempfile::tempdir().unwrap();
    let files = SavedMeanwhile::new(dir.path());
    let got = polypatch::convert::convert(patch, &files, polypatch::Format::Unified, &options).map(|c| c.text);
    assert_eq!(got.as_deref().map_err(ToString::to_string), Ok(want.as_str()));
    assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), THEIRS);
}

//! The disk transaction under injected faults and crashes, path resolution, recovery.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::ops::{Dir, Meta, Ops, Read, RealOps, Xattrs};
use super::*;
use crate::store::fileset::{ChangeKind, CommitError, FileSource, FileStore};
use crate::text::file_bytes::FileBytes;

fn rel(p: &str) -> RelPath {
    RelPath::parse(p, None).unwrap()
}

/// A root that cannot be used is named in the error, with what was tried; the error keeps
/// its kind.
#[test]
fn a_root_that_cannot_be_opened_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let err = DiskFileSet::new(&missing).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::NotFound);
    let os = io::Error::from_raw_os_error(2); // ENOENT, ERROR_FILE_NOT_FOUND
    assert_eq!(err.to_string(), format!("cannot open the root directory `{}`: {os}", missing.display()));

    let file = dir.path().join("file.txt");
    fs::write(&file, "x").unwrap();
    let err = DiskFileSet::new(&file).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::NotADirectory);
    assert_eq!(
        err.to_string(),
        format!("cannot use `{}` as the root directory: it is not a directory", file.display())
    );
}

#[test]
fn commit_writes_and_deletes() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "old").unwrap();
    fs::write(dir.path().join("gone.txt"), "x").unwrap();
    let mut set = DiskFileSet::new(dir.path()).unwrap();
    set.commit(&[
        Change { path: rel("a.txt"), kind: ChangeKind::Write { bytes: b"new".to_vec().into(), mode: None } },
        Change { path: rel("d/e/f.txt"), kind: ChangeKind::Write { bytes: b"f".to_vec().into(), mode: None } },
        Change { path: rel("gone.txt"), kind: ChangeKind::Delete },
    ])
    .unwrap();
    assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), "new");
    assert_eq!(fs::read_to_string(dir.path().join("d/e/f.txt")).unwrap(), "f");
    assert!(!dir.path().join("gone.txt").exists());
    let names: Vec<String> =
        fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|n| !n.starts_with(".polypatch")), "{names:?}");
}

/// The directories a commit's deletions leave empty are removed, as `git apply` removes
/// them (a release diff deleting `.github/sponsors/x.yml` left `.github/sponsors/` behind);
/// directories that still hold something, that were empty before, and the root stay.
#[test]
fn directories_the_deletions_empty_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (path, text) in [
        ("a/keep.txt", "keep\n"),
        ("a/b/only.txt", "only\n"),
        ("x/y/z.txt", "z\n"),
        ("m/one.txt", "one\n"),
        ("top.txt", "top\n"),
    ] {
        fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        fs::write(root.join(path), text).unwrap();
    }
    fs::create_dir(root.join("empty")).unwrap();
    let mut set = DiskFileSet::new(root).unwrap();
    let delete = |p: &str| Change { path: rel(p), kind: ChangeKind::Delete };
    set.commit(&[
        delete("a/b/only.txt"),
        delete("x/y/z.txt"),
        delete("m/one.txt"),
        Change { path: rel("m/two.txt"), kind: ChangeKind::Write { bytes: b"two\n".to_vec().into(), mode: None } },
        delete("top.txt"),
    ])
    .unwrap();
    let tree: Vec<String> = snapshot(root).into_keys().collect();
    assert_eq!(tree, ["a/", "a/keep.txt", "empty/", "m/", "m/two.txt"], "{tree:?}");
}

#[test]
fn failed_commit_rolls_everything_back() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "old").unwrap();
    fs::write(dir.path().join("blocker"), "i am a file").unwrap();
    let mut set = DiskFileSet::new(dir.path()).unwrap();
    let err = set.commit(&[
        Change { path: rel("a.txt"), kind: ChangeKind::Write { bytes: b"new".to_vec().into(), mode: None } },
        Change { path: rel("new/dir/x.txt"), kind: ChangeKind::Write { bytes: b"x".to_vec().into(), mode: None } },
        // A directory cannot be created under a regular file.
        Change { path: rel("blocker/y.txt"), kind: ChangeKind::Write { bytes: b"y".to_vec().into(), mode: None } },
    ]);
    let err = err.unwrap_err();
    assert!(err.rolled_back && err.kept.is_empty(), "{err}");
    // The system's error says only "Not a directory": the message names the file and the
    // step, and keeps the error's kind.
    assert_eq!(
        err.to_string(),
        format!(
            "cannot open the directory `blocker` for `blocker/y.txt`: {}; every step was undone, no file was changed",
            io::Error::from_raw_os_error(20) // ENOTDIR
        )
    );
    assert_eq!(err.cause.kind(), io::ErrorKind::NotADirectory);
    let source = std::error::Error::source(&err).and_then(|e| e.downcast_ref::<io::Error>());
    assert!(source.is_some_and(|e| std::ptr::eq(e, &raw const err.cause)), "the io::Error is the source");
    assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), "old");
    assert!(!dir.path().join("new").exists());
    let mut names: Vec<String> =
        fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["a.txt", "blocker"]);
}

#[cfg(unix)]
#[test]
fn symlink_out_of_root_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
    fs::write(dir.path().join("in.txt"), "x").unwrap();
    std::os::unix::fs::symlink(dir.path().join("in.txt"), dir.path().join("inside-link")).unwrap();
    std::os::unix::fs::symlink("/nonexistent/target", dir.path().join("dangling")).unwrap();
    let set = DiskFileSet::new(dir.path()).unwrap();
    assert_eq!(set.resolve("out/x.txt").unwrap_err().kind, PathErrorKind::SymlinkOutside);
    assert_eq!(set.resolve("out").unwrap_err().kind, PathErrorKind::SymlinkOutside);
    assert!(set.resolve("inside-link").is_ok());
    assert_eq!(set.resolve("dangling").unwrap_err().kind, PathErrorKind::SymlinkOutside);
    let abs = dir.path().canonicalize().unwrap().join("sub/f.txt");
    assert_eq!(set.resolve(abs.to_str().unwrap()).unwrap().as_str(), "sub/f.txt");
    assert_eq!(set.resolve("/etc/passwd").unwrap_err().kind, PathErrorKind::Absolute);
}

#[cfg(unix)]
#[test]
fn mode_is_preserved_and_set() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("run.sh");
    fs::write(&script, "echo").unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o750)).unwrap();
    let mut set = DiskFileSet::new(dir.path()).unwrap();
    set.commit(&[Change {
        path: rel("run.sh"),
        kind: ChangeKind::Write { bytes: b"echo 2".to_vec().into(), mode: None },
    }])
    .unwrap();
    assert_eq!(fs::metadata(&script).unwrap().permissions().mode() & 0o777, 0o750);
    set.commit(&[Change {
        path: rel("run.sh"),
        kind: ChangeKind::Write { bytes: b"echo 3".to_vec().into(), mode: Some(0o700) },
    }])
    .unwrap();
    assert_eq!(fs::metadata(&script).unwrap().permissions().mode() & 0o777, 0o700);
}

/// Real operations that fail at the `at`-th step once armed; after a crash every later
/// step fails too (the process is gone).
struct Faulty {
    inner: RealOps,
    step: AtomicUsize,
    at: usize,
    crash: bool,
    armed: AtomicBool,
    dead: AtomicBool,
    /// Calls of `sync` and `sync_dir`.
    syncs: AtomicUsize,
    /// Calls of `link` (backups).
    links: AtomicUsize,
    /// The most directories a commit keeps open (0: the default).
    open_dirs: AtomicUsize,
    /// Run once, right before the `n`-th call (from 1, once armed) of the named step.
    hook: std::sync::Mutex<Option<Hook>>,
    /// Hard links fail, as on a file system that has none (backups are copies).
    no_links: AtomicBool,
    /// The injected fault is the system's "no space left on device", whose message says
    /// neither the step nor the file, rather than a message naming the step.
    os_error: AtomicBool,
}

type Hook = (&'static str, usize, Box<dyn FnOnce() + Send>);

impl Faulty {
    fn new(at: usize, crash: bool) -> Arc<Faulty> {
        Arc::new(Faulty {
            inner: RealOps,
            step: AtomicUsize::new(0),
            at,
            crash,
            armed: AtomicBool::new(false),
            dead: AtomicBool::new(false),
            syncs: AtomicUsize::new(0),
            links: AtomicUsize::new(0),
            open_dirs: AtomicUsize::new(0),
            hook: std::sync::Mutex::new(None),
            no_links: AtomicBool::new(false),
            os_error: AtomicBool::new(false),
        })
    }

    fn tick(&self, what: &str) -> io::Result<()> {
        if self.dead.load(Ordering::SeqCst) {
            return Err(io::Error::other(format!("crashed before {what}")));
        }
        if !self.armed.load(Ordering::SeqCst) {
            return Ok(());
        }
        let mut hook = self.hook.lock().unwrap();
        if let Some((step, n, _)) = hook.as_mut()
            && *step == what
        {
            *n -= 1;
            if *n == 0 {
                let (_, _, run) = hook.take().unwrap();
                drop(hook);
                run();
            }
        }
        let n = self.step.fetch_add(1, Ordering::SeqCst) + 1;
        if n == self.at {
            if self.crash {
                self.dead.store(true, Ordering::SeqCst);
            }
            if self.os_error.load(Ordering::SeqCst) {
                return Err(io::Error::from_raw_os_error(28)); // ENOSPC
            }
            return Err(io::Error::other(format!("injected fault at step {n} ({what})")));
        }
        Ok(())
    }
}

impl Ops for Faulty {
    fn open_root(&self, root: &Path) -> io::Result<Dir> {
        self.tick("open_root")?;
        self.inner.open_root(root)
    }
    fn open_dir(&self, dir: &Dir, name: &str) -> io::Result<Dir> {
        self.tick("open_dir")?;
        self.inner.open_dir(dir, name)
    }
    fn mkdir(&self, dir: &Dir, name: &str) -> io::Result<()> {
        self.tick("mkdir")?;
        self.inner.mkdir(dir, name)
    }
    fn rmdir(&self, dir: &Dir, name: &str) -> io::Result<()> {
        self.tick("rmdir")?;
        self.inner.rmdir(dir, name)
    }
    fn stat(&self, dir: &Dir, name: &str) -> io::Result<Option<Meta>> {
        self.tick("stat")?;
        self.inner.stat(dir, name)
    }
    fn read(&self, dir: &Dir, name: &str, max: u64, xattrs: bool) -> io::Result<Read> {
        self.tick("read")?;
        self.inner.read(dir, name, max, xattrs)
    }
    fn xattrs(&self, dir: &Dir, name: &str) -> io::Result<(Meta, Xattrs)> {
        self.tick("xattrs")?;
        self.inner.xattrs(dir, name)
    }
    fn set_xattrs(&self, file: &File, xattrs: &Xattrs) -> io::Result<()> {
        self.tick("set_xattrs")?;
        self.inner.set_xattrs(file, xattrs)
    }
    fn create(&self, dir: &Dir, name: &str, mode: u32) -> io::Result<File> {
        self.tick("create")?;
        self.inner.create(dir, name, mode)
    }
    fn write(&self, file: &mut File, bytes: &FileBytes) -> io::Result<()> {
        self.tick("write")?;
        self.inner.write(file, bytes)
    }
    fn set_mode(&self, file: &File, mode: u32) -> io::Result<()> {
        self.tick("set_mode")?;
        self.inner.set_mode(file, mode)
    }
    fn set_owner_and_mode(&self, file: &File, uid: u32, gid: u32, mode: Option<u32>) -> io::Result<()> {
        self.tick("set_owner_and_mode")?;
        self.inner.set_owner_and_mode(file, uid, gid, mode)
    }
    fn sync(&self, file: &File) -> io::Result<()> {
        self.syncs.fetch_add(1, Ordering::SeqCst);
        self.tick("sync")?;
        self.inner.sync(file)
    }
    fn sync_dir(&self, dir: &Dir) -> io::Result<()> {
        self.syncs.fetch_add(1, Ordering::SeqCst);
        self.tick("sync_dir")?;
        self.inner.sync_dir(dir)
    }
    fn link(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()> {
        self.links.fetch_add(1, Ordering::SeqCst);
        self.tick("link")?;
        if self.no_links.load(Ordering::SeqCst) {
            return Err(io::Error::new(io::ErrorKind::Unsupported, "no hard links here"));
        }
        self.inner.link(dir, from, to)
    }
    fn rename(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()> {
        self.tick("rename")?;
        self.inner.rename(dir, from, to)
    }
    fn rename_new(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()> {
        self.tick("rename_new")?;
        self.inner.rename_new(dir, from, to)
    }
    fn remove(&self, dir: &Dir, name: &str) -> io::Result<()> {
        self.tick("remove")?;
        self.inner.remove(dir, name)
    }
    fn list(&self, dir: &Dir) -> io::Result<Vec<String>> {
        self.tick("list")?;
        self.inner.list(dir)
    }
    fn lock(&self, dir: &Dir, name: &str) -> io::Result<Option<File>> {
        self.tick("lock")?;
        self.inner.lock(dir, name)
    }
    fn is_locked(&self, dir: &Dir, name: &str) -> io::Result<bool> {
        self.tick("is_locked")?;
        self.inner.is_locked(dir, name)
    }
}

/// Every entry under `dir`: files with bytes and mode, directories, links with targets.
type Tree = BTreeMap<String, (Vec<u8>, u32)>;

fn snapshot(dir: &Path) -> Tree {
    let mut out = Tree::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let name = path.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            let md = fs::symlink_metadata(&path).unwrap();
            if md.file_type().is_symlink() {
                out.insert(name, (fs::read_link(&path).unwrap().to_string_lossy().into_owned().into_bytes(), 0));
            } else if md.is_dir() {
                out.insert(format!("{name}/"), (Vec::new(), 0));
                stack.push(path);
            } else {
                out.insert(name, (fs::read(&path).unwrap(), mode(&md)));
            }
        }
    }
    out
}

#[cfg(unix)]
fn mode(md: &fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    md.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
fn mode(_md: &fs::Metadata) -> u32 {
    0
}

#[cfg(unix)]
fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

#[cfg(not(unix))]
fn chmod(_path: &Path, _mode: u32) {}

fn is_litter(name: &str) -> bool {
    name.rsplit('/').next().is_some_and(|n| n.starts_with(".polypatch-"))
}

/// A tree and a multi-file change set: modify, create in new directories, rename
/// (delete + create), delete, and a mode change.
fn scenario(root: &Path) -> Vec<Change> {
    fs::write(root.join("a.txt"), "a old\n").unwrap();
    fs::write(root.join("c.txt"), "c secret\n").unwrap();
    chmod(&root.join("c.txt"), 0o600);
    fs::write(root.join("e.txt"), "e\n").unwrap();
    fs::write(root.join("run.sh"), "echo\n").unwrap();
    chmod(&root.join("run.sh"), 0o644);
    fs::write(root.join("keep.txt"), "keep\n").unwrap();
    let write = |p: &str, b: &str, mode: Option<u32>| Change {
        path: rel(p),
        kind: ChangeKind::Write { bytes: b.into(), mode },
    };
    vec![
        write("a.txt", "a new\n", None),
        write("new/dir/b.txt", "b\n", None),
        Change { path: rel("c.txt"), kind: ChangeKind::Delete },
        write("d.txt", "c secret\n", Some(0o600)),
        Change { path: rel("e.txt"), kind: ChangeKind::Delete },
        write("run.sh", "echo\n", Some(0o755)),
    ]
}

/// One file replaced in a subdirectory, its mode kept: a commit that is one rename when
/// it syncs nothing.
fn one_file(root: &Path) -> Vec<Change> {
    fs::create_dir(root.join("sub")).unwrap();
    fs::write(root.join("sub/a.txt"), "a old\n").unwrap();
    chmod(&root.join("sub/a.txt"), 0o640);
    fs::write(root.join("keep.txt"), "keep\n").unwrap();
    vec![Change { path: rel("sub/a.txt"), kind: ChangeKind::Write { bytes: b"a new\n".to_vec().into(), mode: None } }]
}

/// Reads every target (as `apply` does before it commits), arms the faults, commits.
fn commit_with(root: &Path, ops: &Arc<Faulty>, changes: &[Change], policy: Durability) -> Result<(), CommitError> {
    let mut set = DiskFileSet::with_ops(root, ops.clone()).unwrap().durability(policy);
    match ops.open_dirs.load(Ordering::SeqCst) {
        0 => {}
        n => set = set.open_dirs(n),
    }
    for c in changes {
        set.read(&c.path).unwrap();
    }
    ops.armed.store(true, Ordering::SeqCst);
    set.commit(changes)
}

/// A system error at any step of a commit is reported with the step and the file (or the
/// journal) it was for, and its kind: the system's message says neither.
#[test]
fn a_system_error_at_any_step_names_what_failed() {
    let mut failures = 0;
    for policy in [Durability::None, Durability::Full] {
        for k in 1.. {
            let dir = tempfile::tempdir().unwrap();
            fs::write(dir.path().join("a.txt"), "a old\n").unwrap();
            fs::write(dir.path().join("gone.txt"), "x").unwrap();
            let changes = [
                Change {
                    path: rel("a.txt"),
                    kind: ChangeKind::Write { bytes: b"a new\n".to_vec().into(), mode: None },
                },
                Change { path: rel("d/b.txt"), kind: ChangeKind::Write { bytes: b"b\n".to_vec().into(), mode: None } },
                Change { path: rel("gone.txt"), kind: ChangeKind::Delete },
            ];
            let ops = Faulty::new(k, false);
            ops.os_error.store(true, Ordering::SeqCst);
            let result = commit_with(dir.path(), &ops, &changes, policy);
            if ops.step.load(Ordering::SeqCst) < k {
                break; // the commit had fewer steps: no fault
            }
            // A fault some step tolerates (a hard link that fails: the backup is a copy).
            let Err(err) = result else { continue };
            failures += 1;
            let message = err.cause.to_string();
            let os = io::Error::from_raw_os_error(28).to_string();
            assert!(message.starts_with("cannot ") && message.ends_with(&format!(": {os}")), "step {k}: {message}");
            assert_eq!(err.cause.kind(), io::ErrorKind::StorageFull, "step {k}: {message}");
        }
    }
    assert!(failures > 20, "only {failures} steps");
}

/// A fault (or a crash) at every step of a commit under `policy`; the reference (the tree
/// a commit that succeeds leaves) is written with [`Durability::Full`], so every policy
/// is held to the same bytes and the same rollback.
fn fault_run(crash: bool, policy: Durability, scenario: fn(&Path) -> Vec<Change>, min_steps: usize) {
    fault_run_with(crash, policy, scenario, min_steps, |_| {});
}

/// [`fault_run`] with the operations set up by `setup` (fewer directories open, no hard
/// links).
fn fault_run_with(
    crash: bool,
    policy: Durability,
    scenario: fn(&Path) -> Vec<Change>,
    min_steps: usize,
    setup: fn(&Faulty),
) {
    let reference = tempfile::tempdir().unwrap();
    let changes = scenario(reference.path());
    let before = snapshot(reference.path());
    let full = Faulty::new(usize::MAX, false);
    commit_with(reference.path(), &full, &changes, Durability::Full).unwrap();
    assert!(full.syncs.load(Ordering::SeqCst) > 0);
    let counting_dir = tempfile::tempdir().unwrap();
    let changes = scenario(counting_dir.path());
    let counting = Faulty::new(usize::MAX, false);
    setup(&counting);
    commit_with(counting_dir.path(), &counting, &changes, policy).unwrap();
    assert_eq!(snapshot(counting_dir.path()), snapshot(reference.path()));
    let after = snapshot(reference.path());
    assert!(after.keys().all(|k| !is_litter(k)), "{after:?}");
    let steps = counting.step.load(Ordering::SeqCst);
    assert!(steps > min_steps, "{steps}");
    let mut failures = 0;
    for k in 1..=steps + 1 {
        let dir = tempfile::tempdir().unwrap();
        let changes = scenario(dir.path());
        let ops = Faulty::new(k, crash);
        setup(&ops);
        let result = commit_with(dir.path(), &ops, &changes, policy);
        let now = snapshot(dir.path());
        // At every instant each target holds its old or its new content.
        for (path, _) in before.iter().chain(after.iter()) {
            if path.ends_with('/') {
                continue;
            }
            let have = now.get(path).map(|(b, _)| b);
            let old = before.get(path).map(|(b, _)| b);
            let new = after.get(path).map(|(b, _)| b);
            assert!(have == old || have == new, "step {k} (crash {crash}): `{path}` holds {have:?}");
        }
        if let Err(err) = &result {
            failures += 1;
            if !crash && err.rolled_back {
                assert_eq!(now, before, "step {k}: rolled back but the tree differs: {err}");
            }
        }
        let recovery = DiskFileSet::new(dir.path()).unwrap().recover().unwrap();
        assert!(recovery.problems.is_empty(), "step {k}: {recovery:?}");
        let want = if result.is_ok() { &after } else { &before };
        assert_eq!(&snapshot(dir.path()), want, "step {k} (crash {crash}) after recovery, commit said {result:?}");
        // A second recovery finds nothing.
        assert!(DiskFileSet::new(dir.path()).unwrap().recover().unwrap().is_empty());
    }
    assert!(failures > steps / 2, "{failures} of {steps}");
    println!(
        "crash {crash}, {}: {steps} steps, a fault at each: {failures} commits failed, every one recovered",
        policy.name()
    );
}

#[test]
fn every_failed_step_leaves_old_or_new_and_recovery_restores() {
    for policy in Durability::ALL {
        fault_run(false, policy, scenario, 20);
        fault_run(false, policy, one_file, 8);
    }
}

#[test]
fn a_crash_at_every_step_is_recovered() {
    for policy in Durability::ALL {
        fault_run(true, policy, scenario, 20);
        fault_run(true, policy, one_file, 8);
    }
}

/// With two directories open at most, the commit closes and opens them again between its
/// phases: a fault or a crash at every step is still undone or recovered.
#[test]
fn every_step_with_few_directories_open() {
    for policy in Durability::ALL {
        for crash in [false, true] {
            fault_run_with(crash, policy, scenario, 20, |ops| ops.open_dirs.store(2, Ordering::SeqCst));
        }
    }
}

/// Where the file system has no hard links, backups are copies: a fault or a crash at
/// every step is still undone or recovered (recovery tells a copy made before its target
/// was switched by the temporary file still there and the target still the original).
#[test]
fn every_step_without_hard_links() {
    for policy in Durability::ALL {
        for crash in [false, true] {
            fault_run_with(crash, policy, scenario, 20, |ops| ops.no_links.store(true, Ordering::SeqCst));
        }
    }
}

/// A directory closed to make room is opened again only as itself: one moved away and
/// replaced meanwhile (here by a copy, the commit's temporary file included) is not
/// written into, and the commit is undone.
#[cfg(unix)]
#[test]
fn a_directory_replaced_while_closed_is_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let mut changes = Vec::new();
    for d in ["a", "b", "c"] {
        fs::create_dir(root.join(d)).unwrap();
        fs::write(root.join(d).join("keep.txt"), "keep\n").unwrap();
        changes.push(Change {
            path: rel(&format!("{d}/new.txt")),
            kind: ChangeKind::Write { bytes: "new\n".into(), mode: None },
        });
    }
    let ops = Faulty::new(usize::MAX, false);
    ops.open_dirs.store(2, Ordering::SeqCst);
    // `a` was closed to make room for `b`; before `c`'s temporary file is made, `a` is
    // moved away and a copy takes its name.
    let moved = root.clone();
    *ops.hook.lock().unwrap() = Some((
        "create",
        3,
        Box::new(move || {
            fs::rename(moved.join("a"), moved.join("a-moved")).unwrap();
            fs::create_dir(moved.join("a")).unwrap();
            for entry in fs::read_dir(moved.join("a-moved")).unwrap() {
                let entry = entry.unwrap();
                fs::copy(entry.path(), moved.join("a").join(entry.file_name())).unwrap();
            }
        }),
    ));
    let err = commit_with(&root, &ops, &changes, Durability::None).unwrap_err();
    assert!(
        err.to_string().starts_with("the directory `a` was moved or replaced while the patch was applied"),
        "{err}"
    );
    assert!(!root.join("a/new.txt").exists());
    assert!(!root.join("a-moved/new.txt").exists());
    for d in ["b", "c"] {
        assert_eq!(names_in(&root.join(d)), ["keep.txt"]);
    }
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// A commit that replaces one file and syncs nothing is one rename: no backup (no hard
/// link), the journal names the temporary file only and is gone after; with syncs, or with
/// more than one file, the backups stay.
#[test]
fn one_file_without_syncs_is_one_rename() {
    for (policy, setup, links) in [
        (Durability::None, one_file as fn(&Path) -> Vec<Change>, 0),
        (Durability::Full, one_file, 1),
        // Two edits linked; the two deletes are renamed to their backup names.
        (Durability::None, scenario, 2),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let changes = setup(dir.path());
        let ops = Faulty::new(usize::MAX, false);
        commit_with(dir.path(), &ops, &changes, policy).unwrap();
        assert_eq!(ops.links.load(Ordering::SeqCst), links, "{}", policy.name());
        let tree = snapshot(dir.path());
        assert!(tree.keys().all(|k| !is_litter(k)), "{tree:?}");
    }
    let dir = tempfile::tempdir().unwrap();
    let changes = one_file(dir.path());
    commit_with(dir.path(), &Faulty::new(usize::MAX, false), &changes, Durability::None).unwrap();
    let tree = snapshot(dir.path());
    assert_eq!(tree["sub/a.txt"], (b"a new\n".to_vec(), if cfg!(unix) { 0o640 } else { 0 }));
    assert_eq!(tree["keep.txt"].0, b"keep\n");
    assert_eq!(tree.len(), 3, "{tree:?}");
}

/// A journal of a one-file commit interrupted before its rename: recovery removes the
/// temporary file and leaves the file as it was; interrupted after it, the new content
/// stays.
#[test]
fn an_interrupted_one_file_commit_is_recovered() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("a.txt"), "old\n").unwrap();
    fs::write(root.join(".polypatch-1-0.new"), "new\n").unwrap();
    fs::write(root.join(".polypatch-1.journal"), "{\"swap\":{\"path\":\"a.txt\",\"temp\":\".polypatch-1-0.new\"}}\n")
        .unwrap();
    let recovery = DiskFileSet::new(root).unwrap().recover().unwrap();
    assert_eq!(
        (recovery.rolled_back.as_slice(), recovery.leftovers),
        ([".polypatch-1.journal".to_string()].as_slice(), 2)
    );
    assert!(recovery.restored.is_empty() && recovery.problems.is_empty(), "{recovery:?}");
    assert_eq!(snapshot(root).keys().collect::<Vec<_>>(), ["a.txt"]);
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "old\n");
    // Renamed already: only the journal is left.
    fs::write(root.join("a.txt"), "new\n").unwrap();
    fs::write(root.join(".polypatch-2.journal"), "{\"swap\":{\"path\":\"a.txt\",\"temp\":\".polypatch-2-0.new\"}}\n")
        .unwrap();
    let recovery = DiskFileSet::new(root).unwrap().recover().unwrap();
    assert!(recovery.rolled_back.is_empty() && recovery.problems.is_empty(), "{recovery:?}");
    assert_eq!(recovery.leftovers, 1);
    assert_eq!(snapshot(root).keys().collect::<Vec<_>>(), ["a.txt"]);
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "new\n");
}

#[test]
fn only_full_durability_syncs() {
    for policy in Durability::ALL {
        let dir = tempfile::tempdir().unwrap();
        let changes = scenario(dir.path());
        let ops = Faulty::new(usize::MAX, false);
        commit_with(dir.path(), &ops, &changes, policy).unwrap();
        let syncs = ops.syncs.load(Ordering::SeqCst);
        match policy {
            // Three new files, the journal, four directories before the renames and after.
            Durability::Full => assert!(syncs >= 8, "{syncs}"),
            _ => assert_eq!(syncs, 0, "{}", policy.name()),
        }
    }
}

#[test]
fn durability_names_round_trip() {
    for policy in Durability::ALL {
        assert_eq!(Durability::from_name(policy.name()), Some(policy));
    }
    assert_eq!(Durability::from_name("FULL"), None);
    assert_eq!(DiskFileSet::new(".").unwrap().policy(), Durability::default());
}

#[test]
fn a_failed_restore_keeps_the_backup_and_says_where() {
    // Find the step of the first rename back (the undo), by failing the last switch.
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "a old\n").unwrap();
    fs::write(dir.path().join("b.txt"), "b old\n").unwrap();
    let changes = vec![
        Change { path: rel("a.txt"), kind: ChangeKind::Write { bytes: b"a new\n".to_vec().into(), mode: None } },
        Change { path: rel("b.txt"), kind: ChangeKind::Write { bytes: b"b new\n".to_vec().into(), mode: None } },
    ];
    // A crash right after a.txt was switched: every later step fails, the undo too.
    let counting = Faulty::new(usize::MAX, false);
    let probe = tempfile::tempdir().unwrap();
    fs::write(probe.path().join("a.txt"), "a old\n").unwrap();
    fs::write(probe.path().join("b.txt"), "b old\n").unwrap();
    commit_with(probe.path(), &counting, &changes, Durability::Full).unwrap();
    let mut found = false;
    for k in 1..counting.step.load(Ordering::SeqCst) {
        let dir2 = tempfile::tempdir().unwrap();
        fs::write(dir2.path().join("a.txt"), "a old\n").unwrap();
        fs::write(dir2.path().join("b.txt"), "b old\n").unwrap();
        let ops = Faulty::new(k, true);
        let Err(err) = commit_with(dir2.path(), &ops, &changes, Durability::Full) else { continue };
        if fs::read_to_string(dir2.path().join("a.txt")).unwrap() != "a new\n" {
            continue;
        }
        found = true;
        let commit = &err;
        assert!(!commit.rolled_back);
        let source = std::error::Error::source(commit).and_then(|e| e.downcast_ref::<io::Error>());
        assert!(source.is_some_and(|e| std::ptr::eq(e, &raw const commit.cause)), "the io::Error is the source");
        let msg = err.to_string();
        assert!(msg.contains("UNDOING IT FAILED") && msg.contains("polypatch recover"), "{msg}");
        let kept = commit
            .kept
            .iter()
            .find(|k| Path::new(k).extension().is_some_and(|e| e == "old"))
            .expect("the backup is named");
        assert_eq!(fs::read_to_string(dir2.path().join(kept)).unwrap(), "a old\n", "the backup is kept");
        let recovery = DiskFileSet::new(dir2.path()).unwrap().recover().unwrap();
        assert_eq!(recovery.restored, ["a.txt"]);
        assert_eq!(fs::read_to_string(dir2.path().join("a.txt")).unwrap(), "a old\n");
        break;
    }
    assert!(found);
    drop(dir);
}

#[cfg(unix)]
#[test]
fn temporary_files_never_expose_a_private_file() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let root = rustix::process::geteuid().is_root();
    if !root {
        println!("not root: the group of the file cannot be another than the process's");
    }
    // Crash at every step; whatever temporary file is left is private, or has the
    // original's group and mode. A file its group may read (0640, of a group not the
    // process's) is no exception: until the replacement has the original's group, its
    // group is the process's (or the directory's).
    for (k, private) in (1..12).flat_map(|k| [(k, 0o600), (k, 0o640)]) {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("secret.env");
        fs::write(&secret, "KEY=1\n").unwrap();
        fs::set_permissions(&secret, fs::Permissions::from_mode(private)).unwrap();
        if root {
            rustix::fs::chown(&secret, None, Some(rustix::fs::Gid::from_raw(65534))).unwrap();
        }
        let group = fs::metadata(&secret).unwrap().gid();
        let changes = vec![Change {
            path: rel("secret.env"),
            kind: ChangeKind::Write { bytes: b"KEY=2\n".to_vec().into(), mode: None },
        }];
        let _ = commit_with(dir.path(), &Faulty::new(k, true), &changes, Durability::Full);
        // The lock file a crash leaves holds nothing; the backup is the original itself.
        for entry in fs::read_dir(dir.path()).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            let kind = name.rsplit('.').next().unwrap_or_default();
            if !matches!(kind, "new" | "journal" | "done") {
                continue;
            }
            let md = entry.metadata().unwrap();
            let mode = md.permissions().mode() & 0o777;
            let as_original = kind == "new" && md.gid() == group && mode == private;
            let private_now = mode & 0o700 == mode;
            assert!(private_now || as_original, "step {k}, {private:o}: {name} is {mode:o}, group {}", md.gid());
        }
    }
}

#[test]
fn a_file_changed_after_it_was_read_is_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "old\n").unwrap();
    let mut set = DiskFileSet::new(dir.path()).unwrap();
    set.read(&rel("a.txt")).unwrap();
    // Another program writes the file (a different size, so the change is seen even on
    // file systems with coarse timestamps).
    fs::write(dir.path().join("a.txt"), "their edit\n").unwrap();
    let err = set
        .commit(&[Change {
            path: rel("a.txt"),
            kind: ChangeKind::Write { bytes: b"new\n".to_vec().into(), mode: None },
        }])
        .unwrap_err();
    assert!(err.to_string().contains("changed by another program"), "{err}");
    assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), "their edit\n");
    // A file that appeared where the patch creates one is not overwritten either.
    set.read(&rel("b.txt")).unwrap();
    fs::write(dir.path().join("b.txt"), "theirs\n").unwrap();
    let err = set
        .commit(&[Change {
            path: rel("b.txt"),
            kind: ChangeKind::Write { bytes: b"ours\n".to_vec().into(), mode: None },
        }])
        .unwrap_err();
    assert!(err.to_string().contains("changed by another program"), "{err}");
    assert_eq!(fs::read_to_string(dir.path().join("b.txt")).unwrap(), "theirs\n");
    let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

/// A reply's blocks are located on an [`Overlay`] of the disk and its changes committed
/// at once: a file another program saves after the overlay read it is not replaced,
/// whether the save comes before the overlay's changes are taken or before a second
/// block reads the file over the first one's change. The overlay reads each file once, so
/// the commit checks it against the read the changes were computed from (a second read,
/// taken as the original, once let the commit overwrite the save).
#[test]
fn a_file_changed_after_an_overlay_read_it_is_not_replaced() {
    use crate::{ApplyOptions, Edit, EditPlan, FileEdit, Overlay, compute};
    let first = EditPlan::new("", vec![FileEdit::modify("a.txt", vec![Edit::replace(["one"], ["1"])])]);
    let second = EditPlan::new("", vec![FileEdit::modify("a.txt", vec![Edit::replace(["two"], ["2"])])]);
    for blocks in [vec![&first], vec![&first, &second]] {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
        let mut set = DiskFileSet::new(dir.path()).unwrap();
        let changes = {
            let mut overlay = Overlay::new(&set);
            for (i, plan) in blocks.iter().enumerate() {
                let computed = compute(plan, &overlay, &ApplyOptions::default()).unwrap();
                overlay.record(&computed.changes);
                if i == 0 {
                    // A line more: seen whatever the file system's timestamps.
                    fs::write(dir.path().join("a.txt"), "one\ntwo\ntheirs\n").unwrap();
                }
            }
            overlay.changes()
        };
        assert_eq!(changes.len(), 1);
        let err = set.commit(&changes).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`a.txt` was changed by another program while the patch was applied; read it again and regenerate the \
             patch; every step was undone, no file was changed",
            "{} blocks",
            blocks.len()
        );
        assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), "one\ntwo\ntheirs\n");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["a.txt"]);
    }
}

#[test]
fn an_interrupted_commit_blocks_the_next_until_recovered() {
    let dir = tempfile::tempdir().unwrap();
    let changes = scenario(dir.path());
    let before = snapshot(dir.path());
    // Crash after the first switch.
    let mut k = 1;
    loop {
        let ops = Faulty::new(k, true);
        let _ = commit_with(dir.path(), &ops, &changes, Durability::Full);
        if fs::read_to_string(dir.path().join("a.txt")).unwrap() == "a new\n" {
            break;
        }
        DiskFileSet::new(dir.path()).unwrap().recover().unwrap();
        k += 1;
    }
    let mut set = DiskFileSet::new(dir.path()).unwrap();
    let err = set.commit(&changes).unwrap_err();
    assert!(err.to_string().contains("polypatch recover"), "{err}");
    let recovery = set.recover().unwrap();
    assert_eq!(recovery.restored, ["a.txt"]);
    assert_eq!(recovery.rolled_back.len(), 1);
    assert_eq!(snapshot(dir.path()), before);
}

#[cfg(unix)]
#[test]
fn links_inside_the_root_resolve_to_their_files() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("d")).unwrap();
    fs::write(dir.path().join("d/x"), "x\n").unwrap();
    fs::write(dir.path().join("real.txt"), "r\n").unwrap();
    symlink("real.txt", dir.path().join("link.txt")).unwrap();
    symlink("d", dir.path().join("ins")).unwrap();
    symlink("missing.txt", dir.path().join("broken")).unwrap();
    let set = DiskFileSet::new(dir.path()).unwrap();
    assert_eq!(set.resolve("link.txt").unwrap().as_str(), "real.txt");
    assert_eq!(set.resolve("ins/x").unwrap().as_str(), "d/x");
    assert_eq!(set.resolve("ins/new.txt").unwrap().as_str(), "d/new.txt");
    assert_eq!(set.resolve("broken").unwrap_err().kind, PathErrorKind::BrokenSymlink);
    assert!(set.is_symlink("link.txt"));
    assert!(set.is_symlink("ins"));
    assert!(!set.is_symlink("ins/x"));
    assert!(!set.is_symlink("real.txt"));
}

#[cfg(unix)]
#[test]
fn two_names_of_one_file_are_refused_in_one_commit() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    fs::hard_link(dir.path().join("a.txt"), dir.path().join("b.txt")).unwrap();
    let mut set = DiskFileSet::new(dir.path()).unwrap();
    let err = set
        .commit(&[
            Change { path: rel("a.txt"), kind: ChangeKind::Write { bytes: b"A\n".to_vec().into(), mode: None } },
            Change { path: rel("b.txt"), kind: ChangeKind::Write { bytes: b"B\n".to_vec().into(), mode: None } },
        ])
        .unwrap_err();
    assert!(err.to_string().contains("two names of one file"), "{err}");
    assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), "one\n");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
}

/// The reads of one apply share the handle of the directory read last; a directory
/// swapped for a link out of the root between two reads is still not read through.
#[cfg(unix)]
#[test]
fn a_directory_swapped_for_a_link_out_between_reads_is_not_read_through() {
    use std::os::unix::fs::symlink;
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("root");
    let outside = outer.path().join("outside");
    fs::create_dir_all(root.join("sub")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(root.join("sub/a.txt"), "a\n").unwrap();
    fs::write(root.join("sub/b.txt"), "b\n").unwrap();
    fs::write(outside.join("b.txt"), "outside\n").unwrap();
    let set = DiskFileSet::new(&root).unwrap();
    set.read(&rel("sub/a.txt")).unwrap();
    fs::rename(root.join("sub"), outer.path().join("moved")).unwrap();
    symlink(&outside, root.join("sub")).unwrap();
    match set.read(&rel("sub/b.txt")) {
        Ok(Entry::File { bytes, .. }) => assert_eq!(bytes, b"b\n"),
        Ok(other) => panic!("{other:?}"),
        Err(e) => assert!(e.to_string().contains("changed while the patch was applied"), "{e}"),
    }
}

#[cfg(unix)]
#[test]
fn a_directory_swapped_for_a_link_out_is_not_written_through() {
    use std::os::unix::fs::symlink;
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("root");
    let outside = outer.path().join("outside");
    fs::create_dir_all(root.join("sub")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(root.join("sub/a.txt"), "a\n").unwrap();
    fs::write(outside.join("a.txt"), "outside\n").unwrap();
    let mut set = DiskFileSet::new(&root).unwrap();
    let path = set.resolve("sub/a.txt").unwrap();
    set.read(&path).unwrap();
    // Between the read and the commit, `sub` becomes a link out of the root.
    fs::rename(root.join("sub"), outer.path().join("moved")).unwrap();
    symlink(&outside, root.join("sub")).unwrap();
    let err = set
        .commit(&[Change { path, kind: ChangeKind::Write { bytes: b"pwned\n".to_vec().into(), mode: None } }])
        .unwrap_err();
    assert_eq!(fs::read_to_string(outside.join("a.txt")).unwrap(), "outside\n", "{err}");
    assert_eq!(fs::read_dir(&outside).unwrap().count(), 1);
}

#[cfg(unix)]
#[test]
fn the_owner_is_kept_where_the_process_may() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("owned.txt");
    fs::write(&path, "old\n").unwrap();
    if rustix::process::geteuid().is_root() {
        rustix::fs::chown(&path, Some(rustix::fs::Uid::from_raw(65534)), Some(rustix::fs::Gid::from_raw(65534)))
            .unwrap();
    } else {
        println!("not root: only checking that the owner stays the process's own");
    }
    let before = fs::metadata(&path).unwrap();
    let mut set = DiskFileSet::new(dir.path()).unwrap();
    set.read(&rel("owned.txt")).unwrap();
    set.commit(&[Change {
        path: rel("owned.txt"),
        kind: ChangeKind::Write { bytes: b"new\n".to_vec().into(), mode: None },
    }])
    .unwrap();
    let after = fs::metadata(&path).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "new\n");
    assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
    assert_ne!(after.ino(), before.ino(), "replaced atomically, not rewritten in place");
}

#[test]
fn interrupted_lists_pending_journals() {
    let dir = tempfile::tempdir().unwrap();
    let set = DiskFileSet::new(dir.path()).unwrap();
    assert!(set.interrupted().unwrap().is_empty());
    fs::write(dir.path().join(".polypatch-7.journal"), "").unwrap();
    fs::write(dir.path().join(".polypatch-8.done"), "").unwrap();
    assert_eq!(set.interrupted().unwrap(), [".polypatch-7.journal"]);
    let recovery = set.recover().unwrap();
    assert_eq!(recovery.rolled_back, [".polypatch-7.journal"]);
    assert_eq!(recovery.leftovers, 2);
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn the_commits_own_names_are_reserved() {
    let dir = tempfile::tempdir().unwrap();
    let set = DiskFileSet::new(dir.path()).unwrap();
    for name in [".polypatch-1.journal", "sub/.polypatch-1-0.old", ".polypatch-2.done", "a/.polypatch-x-1.new"] {
        assert_eq!(set.resolve(name).unwrap_err().kind, PathErrorKind::Reserved, "{name}");
    }
    assert!(set.resolve(".polypatch-notes.txt").is_ok());
}

mod concurrent;
mod hostile;

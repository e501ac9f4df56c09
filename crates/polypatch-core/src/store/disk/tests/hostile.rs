//! Journals planted in the root, files changed after a crash, another program's change
//! the timestamps cannot tell, modes and extended attributes (issue 25).

use std::fs;
use std::path::Path;

use super::*;

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// A journal whose names lead out of the root (`../`, absolute) deletes and moves
/// nothing: it is refused whole, named, and kept.
#[test]
fn a_planted_journal_reaches_nothing_outside_the_root() {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("root");
    fs::create_dir(&root).unwrap();
    for victim in ["victim-temp", "victim-backup", "victim-abs"] {
        fs::write(outer.path().join(victim), format!("{victim}\n")).unwrap();
    }
    fs::write(root.join("a.txt"), "a\n").unwrap();
    let abs = outer.path().join("victim-abs");
    let planted = [
        // A new file whose temporary file is gone: the old recovery removed the temp name.
        "{\"file\":{\"path\":\"a.txt\",\"temp\":\"../victim-temp\",\"backup\":null}}\n".to_string(),
        // A backup that differs from the target: the old recovery renamed it over the target.
        "{\"file\":{\"path\":\"a.txt\",\"temp\":null,\"backup\":\"../victim-backup\"}}\n".to_string(),
        format!("{{\"file\":{{\"path\":\"a.txt\",\"temp\":{:?},\"backup\":null}}}}\n", abs.to_str().unwrap()),
        "{\"file\":{\"path\":\"../victim-temp\",\"temp\":\".polypatch-1-0.new\",\"backup\":null}}\n".to_string(),
    ];
    let why = [
        "line 1 names `../victim-temp` as the temporary file of `a.txt`, where a commit writes `.polypatch-1-<n>.new`",
        "line 1 names `../victim-backup` as the backup of `a.txt`, where a commit writes `.polypatch-1-<n>.old`",
        &format!(
            "line 1 names `{}` as the temporary file of `a.txt`, where a commit writes `.polypatch-1-<n>.new`",
            abs.display()
        ),
        "line 1 names `../victim-temp` as a file, which is not a path inside the root",
    ];
    for (journal, why) in planted.iter().zip(why) {
        fs::write(root.join(".polypatch-1.journal"), journal).unwrap();
        let recovery = DiskFileSet::new(&root).unwrap().recover().unwrap();
        assert_eq!(
            recovery.problems,
            [format!(
                "`.polypatch-1.journal`: {why}: it is not a journal polypatch wrote, or it was damaged; nothing was \
                 done: look at it, then remove it"
            )],
            "{journal}"
        );
        assert!(recovery.restored.is_empty() && recovery.removed.is_empty() && recovery.leftovers == 0);
        for victim in ["victim-temp", "victim-backup", "victim-abs"] {
            assert_eq!(fs::read_to_string(outer.path().join(victim)).unwrap(), format!("{victim}\n"), "{journal}");
        }
        assert_eq!(names(&root), [".polypatch-1.journal", "a.txt"]);
        assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "a\n");
        // A commit does not start beside it, and says which journal and what to do.
        let mut set = DiskFileSet::new(&root).unwrap();
        let err = set
            .commit(&[Change { path: rel("a.txt"), kind: ChangeKind::Write { bytes: "b\n".into(), mode: None } }])
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "an interrupted commit left `.polypatch-1.journal` in the root; run `polypatch recover` (or \
             `DiskFileSet::recover`) to roll it back first: it says what keeps it from being rolled back; every \
             step was undone, no file was changed"
        );
    }
}

/// A journal that names an in-tree file as a new file of the commit, its temporary file
/// gone, and no hash (as a planted one, or one of an earlier version): the file stays.
#[test]
fn a_file_a_journal_cannot_check_is_not_removed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("a.txt"), "mine\n").unwrap();
    fs::write(
        root.join(".polypatch-1.journal"),
        "{\"file\":{\"path\":\"a.txt\",\"temp\":\".polypatch-1-0.new\",\"backup\":null}}\n",
    )
    .unwrap();
    let recovery = DiskFileSet::new(root).unwrap().recover().unwrap();
    assert_eq!(
        recovery.problems,
        ["`.polypatch-1.journal`: `a.txt` may be the interrupted commit's new file, but the journal (of an earlier \
          version of polypatch) has no hash to check it with: it is left as it is; remove it if it should go, then \
          remove the journal"]
    );
    assert!(recovery.removed.is_empty());
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "mine\n");
    // With the hash of other content (as this version names it, or an earlier one), the same.
    for other in [journal::content_id(&"theirs\n".into()), journal::blob_id(&"theirs\n".into())] {
        fs::write(
            root.join(".polypatch-1.journal"),
            format!(
                "{{\"file\":{{\"path\":\"a.txt\",\"temp\":\".polypatch-1-0.new\",\"backup\":null,\"new\":\"{other}\"}}}}\n"
            ),
        )
        .unwrap();
        let recovery = DiskFileSet::new(root).unwrap().recover().unwrap();
        assert_eq!(recovery.problems.len(), 1, "{recovery:?}");
        assert!(recovery.problems[0].contains("`a.txt`, which the interrupted commit created, was changed since"));
        assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "mine\n");
    }
}

/// A directory, a FIFO and a symbolic link named like journals: recovery names each and
/// does not wait on the FIFO; a commit names the first.
#[cfg(unix)]
#[test]
fn an_entry_named_like_a_journal_that_is_no_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir(root.join(".polypatch-5.journal")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        root.join(".polypatch-6.journal"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    std::os::unix::fs::symlink("/etc/passwd", root.join(".polypatch-7.done")).unwrap();
    fs::write(root.join("a.txt"), "a\n").unwrap();
    let recovery = DiskFileSet::new(root).unwrap().recover().unwrap();
    let said = |name: &str, what: &str| {
        format!("`{name}`: it is {what}, not a journal polypatch wrote; nothing was done: remove it")
    };
    assert_eq!(
        recovery.problems,
        [
            said(".polypatch-5.journal", "a directory"),
            said(".polypatch-6.journal", "a FIFO, socket or device"),
            said(".polypatch-7.done", "a symbolic link"),
        ]
    );
    let mut set = DiskFileSet::new(root).unwrap();
    let err = set
        .commit(&[Change { path: rel("a.txt"), kind: ChangeKind::Write { bytes: "b\n".into(), mode: None } }])
        .unwrap_err();
    assert!(
        err.to_string().starts_with(
            "`.polypatch-5.journal` in the root is a directory, not a journal polypatch wrote, and a commit cannot \
             start beside it: remove it"
        ),
        "{err}"
    );
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "a\n");
}

/// A journal another user wrote (a shared folder) is not acted on, however well formed.
#[cfg(unix)]
#[test]
fn another_users_journal_is_left_alone() {
    if !rustix::process::geteuid().is_root() {
        println!("not root: cannot give a journal to another user here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("a.txt"), "a\n").unwrap();
    fs::write(root.join(".polypatch-1-0.new"), "theirs\n").unwrap();
    fs::write(root.join(".polypatch-1.journal"), "{\"swap\":{\"path\":\"a.txt\",\"temp\":\".polypatch-1-0.new\"}}\n")
        .unwrap();
    rustix::fs::chown(root.join(".polypatch-1.journal"), Some(rustix::fs::Uid::from_raw(65534)), None).unwrap();
    let recovery = DiskFileSet::new(root).unwrap().recover().unwrap();
    assert_eq!(
        recovery.problems,
        ["`.polypatch-1.journal`: it belongs to another user (uid 65534), and polypatch acts only on the journals of \
          its own user (uid 0); nothing was done: remove it if no commit of that user is interrupted"]
    );
    assert_eq!(names(root), [".polypatch-1-0.new", ".polypatch-1.journal", "a.txt"]);
}

/// The journal of the commit a crash interrupted, with its targets: the crash came at the
/// commit point (every target switched, the journal not yet renamed `.done`). The commit
/// takes its targets directory by directory: `new/dir/b.txt` is the last.
fn crashed_at_the_commit_point(root: &Path) -> String {
    crashed_at_the_commit_point_with(root, false)
}

/// [`crashed_at_the_commit_point`], on a file system without hard links when `no_links`.
fn crashed_at_the_commit_point_with(root: &Path, no_links: bool) -> String {
    let changes = scenario(root);
    for k in 1.. {
        let ops = Faulty::new(k, true);
        ops.no_links.store(no_links, Ordering::SeqCst);
        let result = commit_with(root, &ops, &changes, Durability::None);
        let journal = names(root).into_iter().find(|n| n.ends_with(".journal"));
        assert!(result.is_err(), "no crash at step {k}");
        if let Some(journal) = journal
            && !root.join("e.txt").exists()
            && mode(&fs::metadata(root.join("run.sh")).unwrap()) == if cfg!(unix) { 0o755 } else { 0 }
            && root.join("new/dir/b.txt").exists()
        {
            return journal;
        }
        let recovery = DiskFileSet::new(root).unwrap().recover().unwrap();
        assert!(recovery.problems.is_empty(), "step {k}: {recovery:?}");
    }
    unreachable!()
}

/// After a crash at the commit point the user keeps working; the next recovery gives back
/// only what still holds exactly what the commit left, and keeps the rest, reported.
#[test]
fn recovery_leaves_what_was_changed_after_the_crash() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let journal = crashed_at_the_commit_point(root);
    let id = journal.trim_start_matches(".polypatch-").trim_end_matches(".journal");
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "a new\n");
    // An editor saves a.txt (a new file renamed over it); an agent appends to the new file.
    fs::write(root.join("a.txt.swp"), "a: the user's later work\n").unwrap();
    fs::rename(root.join("a.txt.swp"), root.join("a.txt")).unwrap();
    fs::write(root.join("new/dir/b.txt"), "b\nmore\n").unwrap();
    for _ in 0..2 {
        let recovery = DiskFileSet::new(root).unwrap().recover().unwrap();
        assert_eq!(
            recovery.problems,
            [
                format!(
                    "`{journal}`: `new/dir/b.txt`, which the interrupted commit created, was changed since (or made \
                     by another program): it is left as it is; remove it if it should go, then remove the journal"
                ),
                format!(
                    "`{journal}`: `a.txt` was changed after the commit was interrupted: it is left as it is, and its \
                     content from before the commit is kept in `.polypatch-{id}-0.old`; compare the two, keep what \
                     you want, then remove the backup and the journal"
                ),
            ]
        );
        assert!(recovery.rolled_back.is_empty());
        assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "a: the user's later work\n");
        assert_eq!(fs::read_to_string(root.join("new/dir/b.txt")).unwrap(), "b\nmore\n");
        assert_eq!(fs::read_to_string(root.join(format!(".polypatch-{id}-0.old"))).unwrap(), "a old\n");
        // What the commit left untouched since is rolled back.
        assert_eq!(fs::read_to_string(root.join("c.txt")).unwrap(), "c secret\n");
        assert_eq!(fs::read_to_string(root.join("e.txt")).unwrap(), "e\n");
        assert!(!root.join("d.txt").exists());
        assert_eq!(mode(&fs::metadata(root.join("run.sh")).unwrap()), if cfg!(unix) { 0o644 } else { 0 });
        assert!(root.join(&journal).exists());
    }
    // The user keeps their work and lets the rest go.
    fs::remove_file(root.join(format!(".polypatch-{id}-0.old"))).unwrap();
    fs::remove_file(root.join(&journal)).unwrap();
    assert!(DiskFileSet::new(root).unwrap().recover().unwrap().is_empty());
}

/// The same crash, nothing touched since: everything is rolled back (the journal's
/// hashes match).
#[test]
fn recovery_after_a_crash_at_the_commit_point_restores_everything() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let reference = tempfile::tempdir().unwrap();
    scenario(reference.path());
    let before = snapshot(reference.path());
    crashed_at_the_commit_point(root);
    let recovery = DiskFileSet::new(root).unwrap().recover().unwrap();
    assert!(recovery.problems.is_empty(), "{recovery:?}");
    assert_eq!(recovery.restored, ["run.sh", "e.txt", "c.txt", "a.txt"]);
    assert_eq!(recovery.removed, ["new/dir/b.txt", "d.txt"]);
    assert_eq!(snapshot(root), before);
}

/// A journal of the version before this one names contents by their git blob ids (`new`,
/// and `old` for the original): recovery still checks both and rolls back.
#[test]
fn a_journal_with_git_blob_ids_is_recovered() {
    for (old_id, restored) in [("old\n", true), ("something else\n", false)] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a.txt"), "new\n").unwrap();
        fs::write(root.join(".polypatch-5-0.old"), "old\n").unwrap();
        let (new, old) = (journal::blob_id(&"new\n".into()), journal::blob_id(&old_id.into()));
        fs::write(
            root.join(".polypatch-5.journal"),
            format!(
                "{{\"file\":{{\"path\":\"a.txt\",\"temp\":\".polypatch-5-0.new\",\"backup\":\".polypatch-5-0.old\",\
                 \"new\":\"{new}\",\"old\":\"{old}\"}}}}\n"
            ),
        )
        .unwrap();
        let recovery = DiskFileSet::new(root).unwrap().recover().unwrap();
        if restored {
            assert_eq!(recovery.restored, ["a.txt"], "{recovery:?}");
            assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "old\n");
            assert_eq!(names(root), ["a.txt"]);
        } else {
            assert!(recovery.problems[0].contains("does not hold the content the commit replaced"), "{recovery:?}");
            assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "new\n");
        }
    }
}

/// A backup changed after the crash is not put back: the journal records the original's
/// size and modification time, and the backup (its hard link) must still show them.
#[test]
fn a_backup_changed_after_the_crash_is_not_put_back() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let journal = crashed_at_the_commit_point(root);
    let id = journal.trim_start_matches(".polypatch-").trim_end_matches(".journal");
    let backup = root.join(format!(".polypatch-{id}-0.old"));
    fs::write(&backup, "not what a.txt held\n").unwrap();
    let recovery = DiskFileSet::new(root).unwrap().recover().unwrap();
    assert_eq!(
        recovery.problems,
        [format!(
            "`{journal}`: the backup `.polypatch-{id}-0.old` of `a.txt` does not hold the content the commit \
             replaced: both are left as they are; compare the two, keep what you want, then remove the backup and \
             the journal"
        )]
    );
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "a new\n");
    assert_eq!(fs::read_to_string(&backup).unwrap(), "not what a.txt held\n");
    // The rest is rolled back.
    assert_eq!(fs::read_to_string(root.join("c.txt")).unwrap(), "c secret\n");
    assert!(!root.join("d.txt").exists());
}

/// Where the file system has no hard links the backups are copies, given the original's
/// modification time: recovery puts them back.
#[test]
fn copied_backups_are_put_back() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let reference = tempfile::tempdir().unwrap();
    scenario(reference.path());
    let before = snapshot(reference.path());
    crashed_at_the_commit_point_with(root, true);
    let recovery = DiskFileSet::new(root).unwrap().recover().unwrap();
    assert!(recovery.problems.is_empty(), "{recovery:?}");
    assert_eq!(recovery.restored, ["run.sh", "e.txt", "c.txt", "a.txt"]);
    assert_eq!(snapshot(root), before);
}

/// Another program rewrites the file in place after it was read, keeping its size, and
/// sets its modification time back: only the ctime tells, and the commit refuses.
#[cfg(unix)]
#[test]
fn a_change_that_keeps_size_and_mtime_is_seen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.txt");
    fs::write(&path, "one\n").unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    fs::File::options().write(true).open(&path).unwrap().set_modified(old).unwrap();
    let mut set = DiskFileSet::new(dir.path()).unwrap();
    set.read(&rel("a.txt")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let file = fs::File::options().write(true).open(&path).unwrap();
    std::io::Write::write_all(&mut &file, b"ONE\n").unwrap();
    file.set_modified(old).unwrap();
    drop(file);
    let err = set
        .commit(&[Change { path: rel("a.txt"), kind: ChangeKind::Write { bytes: "two\n".into(), mode: None } }])
        .unwrap_err();
    assert!(err.to_string().starts_with("`a.txt` was changed by another program"), "{err}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "ONE\n");
    assert_eq!(names(dir.path()), ["a.txt"]);
}

/// Real operations on a file system whose timestamps cannot tell two changes apart (a
/// change in the same tick of its clock as the read): every look at `a.txt` reports what
/// the first look saw.
struct Coarse {
    inner: RealOps,
    first: std::sync::Mutex<Option<Meta>>,
}

impl Coarse {
    fn frozen(&self, name: &str, md: Meta) -> Meta {
        if name != "a.txt" {
            return md;
        }
        *self.first.lock().unwrap().get_or_insert(md)
    }
}

impl Ops for Coarse {
    fn open_root(&self, root: &Path) -> io::Result<Dir> {
        self.inner.open_root(root)
    }
    fn open_dir(&self, dir: &Dir, name: &str) -> io::Result<Dir> {
        self.inner.open_dir(dir, name)
    }
    fn mkdir(&self, dir: &Dir, name: &str) -> io::Result<()> {
        self.inner.mkdir(dir, name)
    }
    fn rmdir(&self, dir: &Dir, name: &str) -> io::Result<()> {
        self.inner.rmdir(dir, name)
    }
    fn stat(&self, dir: &Dir, name: &str) -> io::Result<Option<Meta>> {
        Ok(self.inner.stat(dir, name)?.map(|md| self.frozen(name, md)))
    }
    fn read(&self, dir: &Dir, name: &str, max: u64, xattrs: bool) -> io::Result<Read> {
        let mut read = self.inner.read(dir, name, max, xattrs)?;
        read.meta = self.frozen(name, read.meta);
        Ok(read)
    }
    fn xattrs(&self, dir: &Dir, name: &str) -> io::Result<(Meta, Xattrs)> {
        self.inner.xattrs(dir, name)
    }
    fn set_xattrs(&self, file: &File, xattrs: &Xattrs) -> io::Result<()> {
        self.inner.set_xattrs(file, xattrs)
    }
    fn create(&self, dir: &Dir, name: &str, mode: u32) -> io::Result<File> {
        self.inner.create(dir, name, mode)
    }
    fn write(&self, file: &mut File, bytes: &FileBytes) -> io::Result<()> {
        self.inner.write(file, bytes)
    }
    fn set_mode(&self, file: &File, mode: u32) -> io::Result<()> {
        self.inner.set_mode(file, mode)
    }
    fn set_owner_and_mode(&self, file: &File, uid: u32, gid: u32, mode: Option<u32>) -> io::Result<()> {
        self.inner.set_owner_and_mode(file, uid, gid, mode)
    }
    fn sync(&self, file: &File) -> io::Result<()> {
        self.inner.sync(file)
    }
    fn sync_dir(&self, dir: &Dir) -> io::Result<()> {
        self.inner.sync_dir(dir)
    }
    fn link(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()> {
        self.inner.link(dir, from, to)
    }
    fn rename(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()> {
        self.inner.rename(dir, from, to)
    }
    fn rename_new(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()> {
        self.inner.rename_new(dir, from, to)
    }
    fn remove(&self, dir: &Dir, name: &str) -> io::Result<()> {
        self.inner.remove(dir, name)
    }
    fn list(&self, dir: &Dir) -> io::Result<Vec<String>> {
        self.inner.list(dir)
    }
    fn lock(&self, dir: &Dir, name: &str) -> io::Result<Option<File>> {
        self.inner.lock(dir, name)
    }
    fn is_locked(&self, dir: &Dir, name: &str) -> io::Result<bool> {
        self.inner.is_locked(dir, name)
    }
}

/// A file modified just before it was read is compared byte for byte right before the
/// rename: a second change its timestamps cannot show is still seen.
#[test]
fn a_change_the_timestamps_cannot_show_is_seen_in_the_content() {
    for policy in Durability::ALL {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        fs::write(&path, "one\n").unwrap();
        let ops = Arc::new(Coarse { inner: RealOps, first: std::sync::Mutex::new(None) });
        let mut set = DiskFileSet::with_ops(dir.path(), ops).unwrap().durability(policy);
        set.read(&rel("a.txt")).unwrap();
        // In place, the same size: what the metadata of a coarse clock would not show.
        std::io::Write::write_all(&mut fs::OpenOptions::new().write(true).open(&path).unwrap(), b"ONE\n").unwrap();
        let err = set
            .commit(&[Change { path: rel("a.txt"), kind: ChangeKind::Write { bytes: "two\n".into(), mode: None } }])
            .unwrap_err();
        assert!(err.to_string().starts_with("`a.txt` was changed by another program"), "{}: {err}", policy.name());
        assert_eq!(fs::read_to_string(&path).unwrap(), "ONE\n");
        assert_eq!(names(dir.path()), ["a.txt"]);
    }
}

/// The process's umask, as the kernel reports it (Linux).
#[cfg(target_os = "linux")]
fn umask() -> u32 {
    let status = fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find_map(|l| l.strip_prefix("Umask:")).expect("a kernel that reports the umask");
    u32::from_str_radix(line.trim(), 8).unwrap()
}

/// `new file mode 100777` gives what `git apply` gives: the mode through the umask.
#[cfg(target_os = "linux")]
#[test]
fn a_mode_from_the_patch_goes_through_the_umask() {
    let umask = umask();
    if umask & 0o022 == 0 {
        println!("umask {umask:o} lets 0777 through: the test shows nothing here");
    }
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("old.sh"), "echo\n").unwrap();
    chmod(&dir.path().join("old.sh"), 0o644);
    let mut set = DiskFileSet::new(dir.path()).unwrap();
    set.commit(&[
        Change { path: rel("new.sh"), kind: ChangeKind::Write { bytes: "echo\n".into(), mode: Some(0o777) } },
        Change { path: rel("old.sh"), kind: ChangeKind::Write { bytes: "echo 2\n".into(), mode: Some(0o777) } },
    ])
    .unwrap();
    for name in ["new.sh", "old.sh"] {
        assert_eq!(mode(&fs::metadata(dir.path().join(name)).unwrap()), 0o777 & !umask, "{name}");
    }
}

/// A set-user-ID (or set-group-ID) file loses those bits when its content changes, as
/// with git and GNU patch; its other bits stay.
#[cfg(unix)]
#[test]
fn an_edit_drops_set_user_id() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tool");
    fs::write(&path, "v1\n").unwrap();
    chmod(&path, 0o6754);
    let mut set = DiskFileSet::new(dir.path()).unwrap();
    set.read(&rel("tool")).unwrap();
    set.commit(&[Change { path: rel("tool"), kind: ChangeKind::Write { bytes: "v2\n".into(), mode: None } }]).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "v2\n");
    assert_eq!(mode(&fs::metadata(&path).unwrap()), 0o754);
}

#[cfg(target_os = "linux")]
fn get_xattr(path: &Path, name: &str) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; 4096];
    let n = rustix::fs::getxattr(path, name, &mut buf[..]).ok()?;
    buf.truncate(n);
    Some(buf)
}

/// A POSIX access ACL (`system.posix_acl_access`, Linux's binary form): the owner
/// `rw-`, the user `uid` `r--`, the owning group `---`, the mask `r--`, others `---`.
#[cfg(target_os = "linux")]
fn acl_with_user(uid: u32) -> Vec<u8> {
    let mut acl = 2u32.to_le_bytes().to_vec();
    for (tag, perm, id) in
        [(0x01u16, 6u16, u32::MAX), (0x02, 4, uid), (0x04, 0, u32::MAX), (0x10, 4, u32::MAX), (0x20, 0, u32::MAX)]
    {
        acl.extend(tag.to_le_bytes());
        acl.extend(perm.to_le_bytes());
        acl.extend(id.to_le_bytes());
    }
    acl
}

/// An edit keeps the file's extended attributes and its ACL (read with the file, or at
/// the commit for a file that was not read); a patch that sets the mode replaces the ACL.
#[cfg(target_os = "linux")]
#[test]
fn an_edit_keeps_extended_attributes_and_the_acl() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.txt");
    fs::write(&path, "one\n").unwrap();
    chmod(&path, 0o600);
    if rustix::fs::setxattr(&path, "user.origin", b"agent", rustix::fs::XattrFlags::empty()).is_err() {
        println!("no user extended attributes on this file system: nothing to test");
        return;
    }
    let acl = acl_with_user(4242);
    let has_acl = rustix::fs::setxattr(&path, "system.posix_acl_access", &acl, rustix::fs::XattrFlags::empty()).is_ok();
    if !has_acl {
        println!("no POSIX ACLs on this file system: only a user attribute is tested");
    }
    let before = mode(&fs::metadata(&path).unwrap());
    if has_acl {
        assert_eq!(before, 0o640, "the ACL's mask is the group bits");
    }
    for read_first in [true, false] {
        let mut set = DiskFileSet::new(dir.path()).unwrap();
        if read_first {
            set.read(&rel("a.txt")).unwrap();
        }
        set.commit(&[Change {
            path: rel("a.txt"),
            kind: ChangeKind::Write { bytes: format!("{read_first}\n").into(), mode: None },
        }])
        .unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), format!("{read_first}\n"));
        assert_eq!(get_xattr(&path, "user.origin").as_deref(), Some(&b"agent"[..]));
        if has_acl {
            // Without the ACL the group would have read access where only user 4242 had it.
            assert_eq!(get_xattr(&path, "system.posix_acl_access"), Some(acl.clone()));
        }
        assert_eq!(mode(&fs::metadata(&path).unwrap()), before);
    }
    let mut set = DiskFileSet::new(dir.path()).unwrap();
    set.commit(&[Change { path: rel("a.txt"), kind: ChangeKind::Write { bytes: "x\n".into(), mode: Some(0o600) } }])
        .unwrap();
    assert_eq!(get_xattr(&path, "user.origin").as_deref(), Some(&b"agent"[..]));
    assert_eq!(get_xattr(&path, "system.posix_acl_access"), None);
    assert_eq!(mode(&fs::metadata(&path).unwrap()), 0o600);
}

/// The lock file is one of the commit's names: no patch writes it.
#[test]
fn the_lock_file_is_reserved() {
    let dir = tempfile::tempdir().unwrap();
    let set = DiskFileSet::new(dir.path()).unwrap();
    for name in [".polypatch.lock", "sub/.polypatch.lock"] {
        assert_eq!(set.resolve(name).unwrap_err().kind, PathErrorKind::Reserved, "{name}");
    }
}

/// Something else under the lock file's name (a directory, a file with data, as a clone
/// could bring) is neither used nor removed: the commit says what it is.
#[cfg(unix)]
#[test]
fn what_is_not_a_lock_file_is_left_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("a.txt"), "a\n").unwrap();
    let change = [Change { path: rel("a.txt"), kind: ChangeKind::Write { bytes: "b\n".into(), mode: None } }];
    fs::write(root.join(".polypatch.lock"), "someone's notes\n").unwrap();
    let err = DiskFileSet::new(root).unwrap().commit(&change).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot take the root's commit lock: `.polypatch.lock` holds data, and polypatch's lock file is empty; move \
         it away; every step was undone, no file was changed"
    );
    assert_eq!(fs::read_to_string(root.join(".polypatch.lock")).unwrap(), "someone's notes\n");
    fs::remove_file(root.join(".polypatch.lock")).unwrap();
    fs::create_dir(root.join(".polypatch.lock")).unwrap();
    let err = DiskFileSet::new(root).unwrap().commit(&change).unwrap_err();
    assert!(
        err.to_string().starts_with(
            "cannot take the root's commit lock: `.polypatch.lock` is a directory, not the lock file polypatch \
             writes; remove it"
        ),
        "{err}"
    );
    assert_eq!(names(root), [".polypatch.lock", "a.txt"]);
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "a\n");
}

//! The commit: a journal, temporary files and backups, atomic renames, and an undo that
//! never removes a backup it did not restore.

use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

use super::journal::{self, Line};
use super::ops::{Dir, Kind, Meta, Xattrs, copied_xattr};
use super::{DiskFileSet, Seen};
use crate::file_bytes::FileBytes;
use crate::fileset::{Change, ChangeKind, RelPath};

/// A commit that did not happen.
#[derive(Debug, thiserror::Error)]
pub struct CommitError {
    /// What failed.
    pub cause: io::Error,
    /// Whether every step taken was undone: the tree is as it was before.
    pub rolled_back: bool,
    /// When undoing failed: root-relative paths of the backups that still hold the
    /// originals, and of the journal that lets `polypatch recover` restore them.
    pub kept: Vec<String>,
}

impl fmt::Display for CommitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.cause)?;
        if self.rolled_back {
            write!(f, "; every step was undone, no file was changed")
        } else {
            write!(
                f,
                "; UNDOING IT FAILED, some files may hold their new content: the originals are kept at {}; \
                 restore them with `DiskFileSet::recover` (`polypatch recover` on the command line)",
                self.kept.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
            )
        }
    }
}

/// One target while the commit runs.
struct Target<'c> {
    change: &'c Change,
    /// Index into the open directories.
    dir: usize,
    name: String,
    temp: Option<String>,
    backup: Option<String>,
    /// What the target was when prepared (after its backup was linked); `None` when missing.
    original: Option<Meta>,
    /// The content the plan was computed from, compared again right before the rename:
    /// the file was changed so shortly before it was read that its timestamps could not
    /// tell a second change in the same tick (see [`Seen::racy`]).
    recheck: Option<FileBytes>,
    switched: bool,
}

/// Whether `changes` is a commit of one rename: one new content for one file. The file
/// must also exist when the commit prepares it, and the commit must not sync (see
/// [`Line::Swap`]).
fn one_swap(changes: &[Change]) -> bool {
    matches!(changes, [Change { kind: ChangeKind::Write { .. }, .. }])
}

/// The open directories, by root-relative path ("" is the root).
struct Dirs {
    handles: Vec<Dir>,
    index: HashMap<String, usize>,
    /// Directories created by this commit, in creation order.
    created: Vec<String>,
}

fn new_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{:x}{:08x}{n:x}", std::process::id(), nanos)
}

fn changed_meanwhile(path: &RelPath) -> io::Error {
    io::Error::other(format!(
        "`{path}` was changed by another program while the patch was applied; read it again and regenerate the patch"
    ))
}

/// The permission bits a new file is created with, and those it is given once its owner
/// is set: a mode the patch gives is applied as `git apply` applies it, through the
/// process's umask (the kernel masks `openat`'s mode: no umask is read or set, which would
/// race with other threads); an edited file keeps its own bits, without set-user-ID,
/// set-group-ID and sticky (dropped on a change of content, as git and GNU patch do), and
/// is private until then; a new file without a mode gets the default (`0666` through the
/// umask).
fn modes(asked: Option<u32>, original: Option<&Meta>) -> (u32, Option<u32>) {
    match (asked, original) {
        (Some(mode), _) => (mode & 0o777, None),
        (None, Some(md)) => (0o600, super::mode_of(md).map(|m| m & 0o777)),
        (None, None) => (0o666, None),
    }
}

impl DiskFileSet {
    pub(super) fn transaction(&self, changes: &[Change]) -> Result<(), CommitError> {
        if changes.is_empty() {
            return Ok(());
        }
        let fail = |cause: io::Error| CommitError { cause, rolled_back: true, kept: Vec::new() };
        let root = self.ops.open_root(self.root()).map_err(fail)?;
        // Held from before the journal is visible until it is gone: no other commit runs,
        // and no recovery takes this commit's journal for an interrupted one.
        let _lock = self.lock_root(&root).map_err(fail)?;
        self.refuse_pending(&root).map_err(fail)?;
        let (id, journal) = self.start_journal(&root).map_err(fail)?;
        let mut tx = Tx {
            set: self,
            journal,
            journal_name: journal::journal_name(&id),
            dirs: Dirs { handles: Vec::new(), index: HashMap::new(), created: Vec::new() },
            targets: Vec::new(),
            inodes: HashMap::new(),
            root: &root,
            swap: false,
        };
        match tx.run(&id, changes) {
            Ok(()) => {
                tx.clean_up(&id);
                Ok(())
            }
            Err(cause) => Err(tx.undo(cause)),
        }
    }

    fn start_journal(&self, root: &Dir) -> io::Result<(String, File)> {
        loop {
            let id = new_id();
            match self.ops.create(root, &journal::journal_name(&id), 0o600) {
                Ok(file) => {
                    // The root's lock keeps recovery away; this lock is for earlier
                    // versions of polypatch, which look at the journal's own.
                    let _ = file.try_lock();
                    return Ok((id, file));
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// A journal left by an interrupted commit must be recovered before anything else is
    /// written: its backups would otherwise be restored over this commit's files. Under
    /// the root's lock no other commit is running: a journal here was left by a crash (or
    /// by an earlier version of polypatch, which does not take the lock).
    fn refuse_pending(&self, root: &Dir) -> io::Result<()> {
        let pending = self.pending(root)?;
        let Some(first) = pending.first() else {
            return Ok(());
        };
        let what = match self.ops.stat(root, first)? {
            Some(md) if md.kind != Kind::File => {
                return Err(io::Error::other(format!(
                    "`{first}` in the root is {}, not a journal polypatch wrote, and a commit cannot start \
                     beside it: remove it",
                    super::recover::describe(md.kind)
                )));
            }
            _ => first,
        };
        Err(io::Error::other(format!(
            "an interrupted commit left `{what}` in the root; run `polypatch recover` (or `DiskFileSet::recover`) \
             to roll it back first: it says what keeps it from being rolled back"
        )))
    }
}

struct Tx<'s> {
    set: &'s DiskFileSet,
    journal: File,
    journal_name: String,
    root: &'s Dir,
    dirs: Dirs,
    targets: Vec<Target<'s>>,
    /// The targets by inode (device, number): two names of one file are refused.
    inodes: HashMap<(u64, u64), usize>,
    /// The commit is one rename ([`Line::Swap`]).
    swap: bool,
}

impl<'s> Tx<'s> {
    fn log(&mut self, line: &Line) -> io::Result<()> {
        let mut text = serde_json::to_string(line).map_err(io::Error::other)?;
        text.push('\n');
        self.set.ops.write(&mut self.journal, &FileBytes::from(text))
    }

    fn dir(&self, i: usize) -> &Dir {
        &self.dirs.handles[i]
    }

    /// Opens (creating if `create`) the directory `rel` ("" is the root).
    fn open_dir(&mut self, rel: &str, create: bool) -> io::Result<usize> {
        if let Some(&i) = self.dirs.index.get(rel) {
            return Ok(i);
        }
        let handle = if rel.is_empty() {
            self.set.ops.open_dir(self.root, ".")?
        } else {
            let (parent, name) = rel.rsplit_once('/').unwrap_or(("", rel));
            let p = self.open_dir(parent, create)?;
            match self.set.ops.open_dir(self.dir(p), name) {
                Ok(d) => d,
                Err(e) if create && e.kind() == io::ErrorKind::NotFound => {
                    self.log(&Line::Mkdir { dir: rel.to_string() })?;
                    self.set.ops.mkdir(self.dir(p), name)?;
                    self.dirs.created.push(rel.to_string());
                    self.set.ops.open_dir(self.dir(p), name)?
                }
                Err(e) => return Err(e),
            }
        };
        self.dirs.handles.push(handle);
        self.dirs.index.insert(rel.to_string(), self.dirs.handles.len() - 1);
        Ok(self.dirs.handles.len() - 1)
    }

    fn run(&mut self, id: &str, changes: &'s [Change]) -> io::Result<()> {
        let ops = &self.set.ops;
        let durable = self.set.durability.syncs();
        // Prepare: temporary files and backups; nothing visible changes.
        for (n, change) in changes.iter().enumerate() {
            let write = matches!(change.kind, ChangeKind::Write { .. });
            let parent = change.path.parent().map(|p| p.as_str().to_string()).unwrap_or_default();
            let dir = match self.open_dir(&parent, write) {
                Ok(d) => d,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(changed_meanwhile(&change.path)),
                Err(e) => return Err(e),
            };
            let name = change.path.components().last().unwrap_or_default().to_string();
            let original = ops.stat(self.dir(dir), &name)?;
            let seen: Option<Option<Seen>> = self.set.seen().get(&change.path).cloned();
            if let Some(seen) = &seen
                && !Meta::unchanged(seen.as_ref().map(|s| &s.meta), original.as_ref())
            {
                return Err(changed_meanwhile(&change.path));
            }
            let seen = seen.flatten();
            if let Some(md) = &original {
                if md.kind != Kind::File {
                    return Err(io::Error::other(format!("`{}` is not a regular file", change.path)));
                }
                if md.ino != 0
                    && let Some(&other) = self.inodes.get(&(md.dev, md.ino))
                {
                    return Err(io::Error::other(format!(
                        "`{}` and `{}` are two names of one file (hard links); change it under one name only",
                        self.targets[other].change.path, change.path
                    )));
                }
                self.inodes.insert((md.dev, md.ino), self.targets.len());
            }
            let temp = write.then(|| journal::temp_name(id, n));
            // One file replaced: its rename is the commit, nothing to undo after it. Not
            // with syncs: a sync after the rename can fail, and that commit must be undone.
            let swap = !durable && one_swap(changes) && original.is_some();
            let backup = (original.is_some() && !swap).then(|| journal::backup_name(id, n));
            let path = change.path.to_string();
            let line = match (&temp, swap) {
                (Some(temp), true) => Line::Swap { path, temp: temp.clone() },
                _ => Line::File {
                    path,
                    temp: temp.clone(),
                    backup: backup.clone(),
                    new: match &change.kind {
                        ChangeKind::Write { bytes, .. } => Some(journal::blob_id(bytes)),
                        ChangeKind::Delete => None,
                    },
                    old: backup.as_ref().and(seen.as_ref()).map(|s| journal::blob_id(&s.bytes)),
                },
            };
            self.log(&line)?;
            self.swap = swap;
            let recheck = seen.as_ref().filter(|s| s.racy && original.is_some()).map(|s| s.bytes.clone());
            self.targets.push(Target {
                change,
                dir,
                name: name.clone(),
                temp: temp.clone(),
                backup: backup.clone(),
                original,
                recheck,
                switched: false,
            });
            if let (ChangeKind::Write { bytes, mode }, Some(temp)) = (&change.kind, &temp) {
                let (create, keep) = modes(*mode, original.as_ref());
                let mut file = ops.create(self.dir(dir), temp, create)?;
                ops.write(&mut file, bytes)?;
                if let Some(md) = &original {
                    ops.set_owner(&file, md.uid, md.gid);
                    if let Some(keep) = keep {
                        ops.set_mode(&file, keep)?;
                    }
                    let xattrs = if let Some(seen) = seen {
                        seen.xattrs
                    } else {
                        let (now, xattrs) = ops.xattrs(self.dir(dir), &name)?;
                        if !now.same_file(md) {
                            return Err(changed_meanwhile(&change.path));
                        }
                        xattrs
                    };
                    // After the mode: an ACL sets the group bits (its mask) as the
                    // original had them.
                    let xattrs: Xattrs = if mode.is_some() {
                        xattrs.into_iter().filter(|(n, _)| copied_xattr(n.as_bytes(), false)).collect()
                    } else {
                        xattrs
                    };
                    if !xattrs.is_empty() {
                        ops.set_xattrs(&file, &xattrs)
                            .map_err(|e| io::Error::new(e.kind(), format!("`{}`: {e}", change.path)))?;
                    }
                }
                if durable {
                    ops.sync(&file)?;
                }
            }
            if let (Some(md), Some(backup)) = (&original, &backup) {
                self.back_up(dir, &name, backup, md)?;
            }
        }
        if durable {
            ops.sync(&self.journal)?;
            for d in &self.dirs.handles {
                ops.sync_dir(d)?;
            }
            // The journal's directory, unless it was among the targets' directories.
            if !self.dirs.index.contains_key("") {
                ops.sync_dir(self.root)?;
            }
        }
        // Switch: each rename replaces a target atomically.
        for i in 0..self.targets.len() {
            let t = &self.targets[i];
            let dir = self.dir(t.dir);
            // The last look, right before the rename: still the file the plan was
            // computed from (what remains is the time between this look and the rename).
            if !self.still_as_read(t)? {
                return Err(changed_meanwhile(&t.change.path));
            }
            match (&t.temp, &t.original) {
                (Some(temp), Some(_)) => ops.rename(dir, temp, &t.name)?,
                (Some(temp), None) => ops.rename_new(dir, temp, &t.name)?,
                (None, _) => ops.remove(dir, &t.name)?,
            }
            self.targets[i].switched = true;
        }
        if durable {
            for d in &self.dirs.handles {
                ops.sync_dir(d)?;
            }
        }
        if self.swap {
            // The rename was the commit point; the journal only named the temporary file.
            return Ok(());
        }
        // The commit point.
        ops.rename(self.root, &self.journal_name, &journal::done_name(id))?;
        Ok(())
    }

    /// Whether the target is still what the commit prepared: where its timestamps cannot
    /// tell, the same bytes; then, last (the nearest the rename can be), the same file,
    /// untouched (inode, size, mtime, ctime).
    fn still_as_read(&self, t: &Target<'_>) -> io::Result<bool> {
        let ops = &self.set.ops;
        let dir = self.dir(t.dir);
        if let Some(bytes) = &t.recheck {
            match ops.read(dir, &t.name, bytes.len() as u64) {
                Ok(now) if Meta::unchanged(t.original.as_ref(), Some(&now.meta)) && **bytes == *now.bytes => {}
                Ok(_) => return Ok(false),
                Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::FileTooLarge) => {
                    return Ok(false);
                }
                Err(e) if e.kind() == io::ErrorKind::InvalidInput => return Ok(false),
                Err(e) => return Err(e),
            }
        }
        Ok(Meta::unchanged(t.original.as_ref(), ops.stat(dir, &t.name)?.as_ref()))
    }

    /// Keeps the original under `backup`: a hard link, or a copy where links fail.
    fn back_up(&mut self, dir: usize, name: &str, backup: &str, original: &Meta) -> io::Result<()> {
        let ops = &self.set.ops;
        let d = self.dir(dir);
        let path = &self.targets.last().expect("pushed").change.path;
        if ops.link(d, name, backup).is_err() {
            let read = ops.read(d, name, u64::MAX)?;
            if !read.meta.same_file(original) {
                return Err(changed_meanwhile(path));
            }
            let mut file = ops.create(d, backup, 0o600)?;
            ops.write(&mut file, &FileBytes::from(read.bytes))?;
            if let Some(mode) = super::mode_of(&read.meta) {
                ops.set_mode(&file, mode)?;
            }
            if self.set.durability.syncs() {
                ops.sync(&file)?;
            }
            return Ok(());
        }
        // The link names the file that was stat'ed, or the target was swapped meanwhile.
        // The link changed the file's ctime: the last look before the rename compares
        // with what it is now.
        match ops.stat(d, backup)? {
            Some(md) if md.same_file(original) => {
                self.targets.last_mut().expect("pushed").original = Some(md);
                Ok(())
            }
            _ => Err(changed_meanwhile(path)),
        }
    }

    /// After the commit point: backups and the journal go; a failure here leaves litter
    /// that `recover` removes, never a wrong file.
    fn clean_up(self, id: &str) {
        let ops = &self.set.ops;
        // Past the commit point nothing is undone. Should this sync fail, a power loss may
        // bring the journal back under its first name, and recovery rolls the whole commit
        // back: still all or nothing.
        if self.set.durability.syncs() {
            let _ = ops.sync_dir(self.root);
        }
        if self.swap {
            let _ = ops.remove(self.root, &self.journal_name);
            return;
        }
        let mut clean = true;
        for t in &self.targets {
            if let Some(backup) = &t.backup {
                clean &= ops.remove(self.dir(t.dir), backup).is_ok();
            }
        }
        if clean {
            let _ = ops.remove(self.root, &journal::done_name(id));
        }
    }

    /// Whether a switched target still holds what this commit wrote (a deleted one:
    /// nothing).
    fn holds_ours(&self, t: &Target<'_>) -> io::Result<bool> {
        let ops = &self.set.ops;
        let dir = self.dir(t.dir);
        match &t.change.kind {
            ChangeKind::Write { bytes, .. } => match ops.read(dir, &t.name, bytes.len() as u64) {
                Ok(now) => Ok(bytes.len() == now.bytes.len() && bytes.to_vec() == now.bytes),
                Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::FileTooLarge) => Ok(false),
                Err(e) if e.kind() == io::ErrorKind::InvalidInput => Ok(false),
                Err(e) => Err(e),
            },
            ChangeKind::Delete => Ok(ops.stat(dir, &t.name)?.is_none()),
        }
    }

    /// Undoes every step taken, in reverse. A backup is removed only when its target
    /// holds the original (never switched, or restored); a target is given back its
    /// original (or removed, when this commit created it) only while it holds what this
    /// commit wrote: a file another program wrote meanwhile stays, and the backup too.
    fn undo(self, cause: io::Error) -> CommitError {
        let ops = &self.set.ops;
        let mut kept = Vec::new();
        for t in self.targets.iter().rev() {
            let dir = self.dir(t.dir);
            let rel_dir = t.change.path.parent().map(|p| format!("{p}/")).unwrap_or_default();
            if t.switched {
                let ours = self.holds_ours(t);
                let changed = matches!(ours, Ok(false));
                let ours = ours.unwrap_or(false);
                match &t.backup {
                    Some(backup) => {
                        let restored = ours
                            && match t.temp {
                                Some(_) => ops.rename(dir, backup, &t.name),
                                // Deleted: back under its name, unless another file took it.
                                None => ops.rename_new(dir, backup, &t.name),
                            }
                            .is_ok();
                        if !restored {
                            kept.push(format!("{rel_dir}{backup}"));
                        }
                    }
                    None if changed => {
                        kept.push(format!(
                            "{} (a new file, changed since by another program: left as it is)",
                            t.change.path
                        ));
                    }
                    None if !ours => {
                        kept.push(format!("{} (a new file that could not be read back and was left)", t.change.path));
                    }
                    None => {
                        if ops.remove(dir, &t.name).is_err() {
                            kept.push(format!("{} (a new file that could not be removed)", t.change.path));
                        }
                    }
                }
            } else if let Some(backup) = &t.backup {
                let _ = ops.remove(dir, backup);
            }
            if let Some(temp) = &t.temp
                && !t.switched
            {
                let _ = ops.remove(dir, temp);
            }
        }
        for created in self.dirs.created.iter().rev() {
            let (parent, name) = created.rsplit_once('/').unwrap_or(("", created));
            if let Some(&p) = self.dirs.index.get(parent) {
                let _ = ops.rmdir(self.dir(p), name);
            }
        }
        if kept.is_empty() {
            let _ = ops.remove(self.root, &self.journal_name);
            CommitError { cause, rolled_back: true, kept }
        } else {
            kept.push(self.journal_name.clone());
            CommitError { cause, rolled_back: false, kept }
        }
    }
}

//! The commit: a journal, temporary files and backups, atomic renames, and an undo that
//! never removes a backup it did not restore.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

use super::dirs::Dirs;
use super::journal::{self, Line};
use super::ops::{Dir, Kind, Meta, Ops, Xattrs, copied_xattr};
use super::{DiskFileSet, Seen};
use crate::store::fileset::{Change, ChangeKind, CommitError, RelPath};
use crate::text::file_bytes::FileBytes;

/// One target while the commit runs.
struct Target<'c> {
    change: &'c Change,
    /// Its directory's id in [`Dirs`].
    dir: usize,
    name: String,
    temp: Option<String>,
    backup: Option<String>,
    /// What the target was when planned (as read), then when prepared (after its backup
    /// was linked); `None` when missing.
    original: Option<Meta>,
    /// The content the plan was computed from, compared again right before the rename:
    /// the file was changed so shortly before it was read that its timestamps could not
    /// tell a second change in the same tick (see [`Seen::racy`]).
    recheck: Option<FileBytes>,
    /// The extended attributes of the original as it was read (`None`: not read).
    xattrs: Option<Xattrs>,
    /// The plan read the target (`original` is what it read).
    read: bool,
    switched: bool,
}

/// Whether `changes` is a commit of one rename: one new content for one file. The file
/// must also exist when the commit prepares it, and the commit must not sync (see
/// [`Line::Swap`]).
fn one_swap(changes: &[Change]) -> bool {
    matches!(changes, [Change { kind: ChangeKind::Write { .. }, .. }])
}

fn new_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{:x}{:08x}{n:x}", std::process::id(), nanos)
}

/// A modification time (seconds and nanoseconds since the epoch) as a [`SystemTime`](std::time::SystemTime).
fn system_time((secs, nanos): (i64, i64)) -> std::time::SystemTime {
    let epoch = std::time::UNIX_EPOCH;
    let nanos = std::time::Duration::from_nanos(u64::try_from(nanos).unwrap_or(0));
    match u64::try_from(secs) {
        Ok(secs) => epoch + std::time::Duration::from_secs(secs) + nanos,
        Err(_) => epoch - std::time::Duration::from_secs(secs.unsigned_abs()) + nanos,
    }
}

/// A system error of a step on one file, with the step and the file (`cannot write the
/// new content of `a.txt`: No space left on device (os error 28)`): the system's message
/// names neither. Its kind is kept. An error polypatch wrote itself already says what and
/// where, and is returned as it is. `what` is only called on a failure.
fn at(e: io::Error, what: impl FnOnce() -> String) -> io::Error {
    if e.raw_os_error().is_none() {
        return e;
    }
    cannot(&e, &what())
}

/// [`at`]'s error built: compiled once, not once per caller's closure (seventeen of them).
fn cannot(e: &io::Error, what: &str) -> io::Error {
    io::Error::new(e.kind(), format!("cannot {what}: {e}"))
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
/// set-group-ID and sticky (dropped on a change of content, as git and GNU patch do); a
/// new file without a mode gets the default (`0666` through the umask).
///
/// Until its owner and group are the original's, the replacement of an edited file lets
/// no one more than the original did: its group gets no more than everyone else (the
/// group may not be the original's yet: the process's, or the directory's), so that
/// the usual modes (`0644`, `0755`, `0600`) are right from the start and need no `chmod`.
fn modes(asked: Option<u32>, original: Option<&Meta>) -> (u32, Option<u32>) {
    match (asked, original) {
        (Some(mode), _) => (mode & 0o777, None),
        (None, Some(md)) => match super::mode_of(md).map(|m| m & 0o777) {
            Some(keep) => ((keep & 0o707) | (keep & 0o070 & ((keep & 0o007) << 3)), Some(keep)),
            None => (0o600, None),
        },
        (None, None) => (0o666, None),
    }
}

impl DiskFileSet {
    pub(super) fn transaction(&self, changes: &[Change]) -> Result<(), CommitError> {
        if changes.is_empty() {
            return Ok(());
        }
        let fail = |cause: io::Error| CommitError { cause, rolled_back: true, kept: Vec::new() };
        let in_root = |what: &str| format!("{what} in the root `{}`", self.root().display());
        let root = self
            .ops
            .open_root(self.root())
            .map_err(|e| fail(at(e, || format!("open the root directory `{}`", self.root().display()))))?;
        // Held from before the journal is visible until it is gone: no other commit runs,
        // and no recovery takes this commit's journal for an interrupted one.
        let _lock = self.lock_root(&root).map_err(|e| fail(at(e, || in_root("take the commit lock"))))?;
        self.refuse_pending(&root).map_err(|e| fail(at(e, || in_root("look for interrupted commits"))))?;
        let (id, journal) = self.start_journal(&root).map_err(|e| fail(at(e, || in_root("create the journal"))))?;
        let mut tx = Tx {
            set: self,
            journal,
            journal_name: journal::journal_name(&id),
            dirs: Dirs::new(self.open_dirs),
            targets: Vec::new(),
            inodes: HashMap::new(),
            root: &root,
            swap: false,
            to_make: HashSet::new(),
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

/// Lines of the journal, serialized as they are planned, written when the plan is whole
/// (or in pieces of [`JOURNAL_PIECE`], a bound on the memory a plan of many files takes;
/// every piece still before the first step).
struct Lines(Vec<u8>);

/// See [`Lines`].
const JOURNAL_PIECE: usize = 1 << 20;

impl Lines {
    fn push(&mut self, line: &Line) -> io::Result<()> {
        serde_json::to_writer(&mut self.0, line).map_err(io::Error::other)?;
        self.0.push(b'\n');
        Ok(())
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
    /// Directories the plan found missing, created when the first target in them is
    /// prepared.
    to_make: HashSet<usize>,
}

impl<'s> Tx<'s> {
    /// Writes the lines planned so far to the journal, in one write.
    fn log_all(&mut self, lines: &mut Lines) -> io::Result<()> {
        if lines.0.is_empty() {
            return Ok(());
        }
        self.set.ops.write(&mut self.journal, &FileBytes::from(std::mem::take(&mut lines.0)))
    }

    /// The open handle of directory `id` (opened again if it was closed to make room).
    fn dir(&mut self, id: usize) -> io::Result<&Dir> {
        self.dirs.get(&*self.set.ops, self.root, id)
    }

    /// Plans the directory `rel` ("" is the root): its id, and whether it exists. One
    /// that does not (nor its parents, maybe) is to be created when `create`: its
    /// [`Line::Mkdir`] goes into `lines` after its parent's.
    fn plan_dir(&mut self, rel: &str, create: bool, lines: &mut Lines) -> io::Result<(usize, bool)> {
        let id = self.dirs.id(rel);
        if self.to_make.contains(&id) {
            return Ok((id, false));
        }
        match self.dir(id) {
            Ok(_) => Ok((id, true)),
            Err(e) if create && e.kind() == io::ErrorKind::NotFound => {
                let parent = self.dirs.parent(id).ok_or(e)?;
                let parent_path = self.dirs.path(parent).to_owned();
                self.plan_dir(&parent_path, create, lines)?;
                lines.push(&Line::Mkdir { dir: rel.to_string() })?;
                self.to_make.insert(id);
                Ok((id, false))
            }
            Err(e) => Err(e),
        }
    }

    /// Creates the directory `id` (and its parents) where the plan said so.
    fn make_dir(&mut self, id: usize) -> io::Result<()> {
        if !self.to_make.contains(&id) {
            return Ok(());
        }
        let parent = self.dirs.parent(id).expect("the root exists");
        self.make_dir(parent)?;
        let name = self.dirs.name(id).to_owned();
        self.set.ops.mkdir(self.dir(parent)?, &name)?;
        self.to_make.remove(&id);
        self.dirs.created.push(id);
        Ok(())
    }

    fn run(&mut self, id: &str, changes: &'s [Change]) -> io::Result<()> {
        let set = self.set;
        let ops = &set.ops;
        let durable = set.durability.syncs();
        // Directory by directory (depth first), so that each directory is opened once per
        // phase however few handles are kept open (see [`Dirs`]).
        let mut order: Vec<usize> = (0..changes.len()).collect();
        {
            let dirs: Vec<String> =
                changes.iter().map(|c| c.path.parent().map(|p| p.as_str().to_string()).unwrap_or_default()).collect();
            order.sort_by(|&a, &b| dirs[a].split('/').cmp(dirs[b].split('/')));
        }
        // Plan: every line of the journal, written in one go before the first step (each
        // line still comes before the step it announces). Nothing is changed yet.
        let mut lines = Lines(Vec::new());
        self.targets.reserve_exact(changes.len());
        for n in order {
            let change = &changes[n];
            let write = matches!(change.kind, ChangeKind::Write { .. });
            let parent = change.path.parent().map(|p| p.as_str().to_string()).unwrap_or_default();
            let (dir, exists) = match self.plan_dir(&parent, write, &mut lines) {
                Ok(d) => d,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(changed_meanwhile(&change.path)),
                Err(e) => {
                    return Err(at(e, || match parent.as_str() {
                        "" => format!("open the root directory for `{}`", change.path),
                        dir => format!("open the directory `{dir}` for `{}`", change.path),
                    }));
                }
            };
            let name = change.path.components().last().unwrap_or_default().to_string();
            let seen: Option<Option<Seen>> = set.seen().get(&change.path).cloned();
            // What is there: as it was read (checked again before its backup is made), or,
            // for a file the plan did not read, as it is now.
            let original = match &seen {
                Some(seen) => seen.as_ref().map(|s| s.meta),
                None if exists => {
                    ops.stat(self.dir(dir)?, &name).map_err(|e| at(e, || format!("read `{}`", change.path)))?
                }
                None => None,
            };
            if original.is_some() && !exists {
                return Err(changed_meanwhile(&change.path));
            }
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
            let read = seen.as_ref().and_then(Option::as_ref);
            let temp = write.then(|| journal::temp_name(id, n));
            // One file replaced: its rename is the commit, nothing to undo after it. Not
            // with syncs: a sync after the rename can fail, and that commit must be undone.
            let swap = !durable && one_swap(changes) && original.is_some();
            let backup = (original.is_some() && !swap).then(|| journal::backup_name(id, n));
            let path = change.path.to_string();
            lines.push(&match (&temp, swap) {
                (Some(temp), true) => Line::Swap { path, temp: temp.clone() },
                _ => Line::File {
                    path,
                    temp: temp.clone(),
                    backup: backup.clone(),
                    new: match &change.kind {
                        ChangeKind::Write { bytes, .. } => Some(journal::content_id(bytes)),
                        ChangeKind::Delete => None,
                    },
                    old: None,
                    was: backup.as_ref().and(original.as_ref()).map(|md| (md.size, md.mtime.0, md.mtime.1)),
                },
            })?;
            if lines.0.len() >= JOURNAL_PIECE {
                self.log_all(&mut lines).map_err(|e| at(e, || format!("write the journal `{}`", self.journal_name)))?;
            }
            self.swap = swap;
            self.targets.push(Target {
                change,
                dir,
                name,
                temp,
                backup,
                original,
                recheck: read.filter(|s| s.racy).map(|s| s.bytes.clone()),
                xattrs: read.map(|s| s.xattrs.clone()),
                read: seen.is_some(),
                switched: false,
            });
        }
        self.log_all(&mut lines).map_err(|e| at(e, || format!("write the journal `{}`", self.journal_name)))?;
        // Prepare: temporary files and backups; nothing visible changes.
        for i in 0..self.targets.len() {
            let t = &self.targets[i];
            let (change, dir, name) = (t.change, t.dir, t.name.clone());
            self.make_dir(dir).map_err(|e| at(e, || format!("create the directory of `{}`", change.path)))?;
            let mut original = self.targets[i].original;
            if self.targets[i].read && original.is_some() {
                // Still the file that was read, right before its backup is made.
                let now = ops.stat(self.dir(dir)?, &name).map_err(|e| at(e, || format!("read `{}`", change.path)))?;
                if !Meta::unchanged(original.as_ref(), now.as_ref()) {
                    return Err(changed_meanwhile(&change.path));
                }
                original = now;
            }
            // The new content, in a temporary file beside the target.
            let temp_file = (|| -> io::Result<()> {
                if let (ChangeKind::Write { bytes, mode }, Some(temp)) = (&change.kind, self.targets[i].temp.clone()) {
                    let (create, keep) = modes(*mode, original.as_ref());
                    let mut file = ops.create(self.dir(dir)?, &temp, create)?;
                    ops.write(&mut file, bytes)?;
                    if let Some(md) = &original {
                        ops.set_owner_and_mode(&file, md.uid, md.gid, keep)?;
                        let xattrs = if let Some(xattrs) = self.targets[i].xattrs.take() {
                            xattrs
                        } else {
                            let (now, xattrs) = ops.xattrs(self.dir(dir)?, &name)?;
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
                Ok(())
            })();
            temp_file.map_err(|e| at(e, || format!("write the new content of `{}`", change.path)))?;
            // A file to delete is renamed to its backup name when it is switched: it is
            // its own backup.
            if let (Some(md), Some(backup), Some(_)) =
                (&original, self.targets[i].backup.clone(), &self.targets[i].temp)
            {
                self.back_up(i, &backup, md).map_err(|e| at(e, || format!("back up `{}`", change.path)))?;
            }
        }
        if durable {
            let flushed = (|| -> io::Result<()> {
                ops.sync(&self.journal)?;
                for d in self.dirs.ids() {
                    ops.sync_dir(self.dir(d)?)?;
                }
                // The journal's directory, unless it was among the targets' directories.
                if self.dirs.find("").is_none() {
                    ops.sync_dir(self.root)?;
                }
                Ok(())
            })();
            flushed
                .map_err(|e| at(e, || "flush the journal, the new contents and their directories to disk".into()))?;
        }
        // Switch: each rename replaces a target atomically.
        for i in 0..self.targets.len() {
            let t = &self.targets[i];
            let done = if t.temp.is_some() { "written" } else { "deleted" };
            let look = |e| at(e, || format!("check `{}` once more before it is {done}", t.change.path));
            let dir = self.dirs.get(&**ops, self.root, t.dir).map_err(look)?;
            // The last look, right before the rename: still the file the plan was
            // computed from (what remains is the time between this look and the rename).
            if !still_as_read(&**ops, dir, t).map_err(look)? {
                return Err(changed_meanwhile(&t.change.path));
            }
            let (switched, step) = match (&t.temp, &t.original, &t.backup) {
                (Some(temp), Some(_), _) => (ops.rename(dir, temp, &t.name), "replace"),
                (Some(temp), None, _) => (ops.rename_new(dir, temp, &t.name), "create"),
                (None, _, Some(backup)) => (ops.rename_new(dir, &t.name, backup), "delete"),
                (None, _, None) => (ops.remove(dir, &t.name), "delete"),
            };
            switched.map_err(|e| at(e, || format!("{step} `{}`", t.change.path)))?;
            self.targets[i].switched = true;
        }
        if durable {
            for d in self.dirs.ids() {
                ops.sync_dir(self.dir(d)?)
                    .map_err(|e| at(e, || "flush the renamed files' directories to disk".into()))?;
            }
        }
        if self.swap {
            // The rename was the commit point; the journal only named the temporary file.
            return Ok(());
        }
        // The commit point.
        ops.rename(self.root, &self.journal_name, &journal::done_name(id))
            .map_err(|e| at(e, || format!("mark the journal `{}` done", self.journal_name)))?;
        Ok(())
    }

    /// Keeps the original of target `i` under `backup`: a hard link, or a copy where links
    /// fail.
    fn back_up(&mut self, i: usize, backup: &str, original: &Meta) -> io::Result<()> {
        let set = self.set;
        let ops = &set.ops;
        let durable = set.durability.syncs();
        let t = &self.targets[i];
        let d = self.dirs.get(&**ops, self.root, t.dir)?;
        let (name, path) = (&t.name, &t.change.path);
        if ops.link(d, name, backup).is_err() {
            let read = ops.read(d, name, u64::MAX, false)?;
            if !read.meta.same_file(original) {
                return Err(changed_meanwhile(path));
            }
            let mut file = ops.create(d, backup, 0o600)?;
            ops.write(&mut file, &FileBytes::from(read.bytes))?;
            if let Some(mode) = super::mode_of(&read.meta) {
                ops.set_mode(&file, mode)?;
            }
            // What the journal says the original was (`Line::File::was`), checked by
            // recovery before it puts the copy back.
            file.set_modified(system_time(original.mtime))?;
            if durable {
                ops.sync(&file)?;
            }
            self.targets[i].original = Some(*original);
            return Ok(());
        }
        // The link names the file that was stat'ed, or the target was swapped meanwhile.
        // The link changed the file's ctime: the last look before the rename compares
        // with what it is now.
        match ops.stat(d, backup)? {
            Some(md) if md.same_file(original) => {
                self.targets[i].original = Some(md);
                Ok(())
            }
            _ => Err(changed_meanwhile(path)),
        }
    }

    /// After the commit point: backups and the journal go; a failure here leaves litter
    /// that `recover` removes, never a wrong file.
    fn clean_up(mut self, id: &str) {
        let set = self.set;
        let ops = &set.ops;
        // Past the commit point nothing is undone. Should this sync fail, a power loss may
        // bring the journal back under its first name, and recovery rolls the whole commit
        // back: still all or nothing.
        if set.durability.syncs() {
            let _ = ops.sync_dir(self.root);
        }
        if self.swap {
            let _ = ops.remove(self.root, &self.journal_name);
            return;
        }
        let mut clean = true;
        for t in &self.targets {
            if let Some(backup) = &t.backup {
                clean &= self.dirs.get(&**ops, self.root, t.dir).and_then(|d| ops.remove(d, backup)).is_ok();
            }
        }
        if clean {
            let _ = ops.remove(self.root, &journal::done_name(id));
        }
        self.remove_emptied_dirs();
    }

    /// The directories the commit's deletions left empty go too, as `git apply` and GNU
    /// `patch` remove them: deepest first, each parent in turn, never the root. A directory
    /// that is not empty (another file, a backup left behind, a file someone created
    /// meanwhile) stays: `rmdir(2)` removes only an empty one, so nothing but the
    /// directory itself can go. After the journal: a crash here leaves an empty directory,
    /// no journal pointing into a removed one.
    fn remove_emptied_dirs(&mut self) {
        let ops = &self.set.ops;
        let mut emptied: std::collections::BinaryHeap<(usize, usize)> = std::collections::BinaryHeap::new();
        let depth = |dirs: &Dirs, id: usize| dirs.path(id).matches('/').count() + 1;
        let mut queued = HashSet::new();
        for t in &self.targets {
            if matches!(t.change.kind, ChangeKind::Delete) && self.dirs.parent(t.dir).is_some() && queued.insert(t.dir)
            {
                emptied.push((depth(&self.dirs, t.dir), t.dir));
            }
        }
        while let Some((_, id)) = emptied.pop() {
            let Some(parent) = self.dirs.parent(id) else { continue };
            let name = self.dirs.name(id).to_string();
            let removed = self.dirs.get(&**ops, self.root, parent).and_then(|p| ops.rmdir(p, &name)).is_ok();
            if removed && self.dirs.parent(parent).is_some() && queued.insert(parent) {
                emptied.push((depth(&self.dirs, parent), parent));
            }
        }
    }

    /// Undoes every step taken, in reverse. A backup is removed only when its target
    /// holds the original (never switched, or restored); a target is given back its
    /// original (or removed, when this commit created it) only while it holds what this
    /// commit wrote: a file another program wrote meanwhile stays, and the backup too.
    fn undo(mut self, cause: io::Error) -> CommitError {
        let set = self.set;
        let ops = &set.ops;
        let mut kept = Vec::new();
        for t in self.targets.iter().rev() {
            let rel_dir = t.change.path.parent().map(|p| format!("{p}/")).unwrap_or_default();
            let dir = match self.dirs.get(&**ops, self.root, t.dir) {
                Ok(dir) => dir,
                Err(_) if t.switched => {
                    // The directory is gone or was replaced: what it holds cannot be told.
                    kept.push(match &t.backup {
                        Some(backup) => format!("{rel_dir}{backup}"),
                        None => format!("{} (a new file in a directory that could not be opened again)", t.change.path),
                    });
                    continue;
                }
                Err(_) => continue,
            };
            if t.switched {
                let ours = holds_ours(&**ops, dir, t);
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
        for &created in self.dirs.created.clone().iter().rev() {
            let name = self.dirs.name(created).to_string();
            if let Some(parent) = self.dirs.parent(created)
                && let Ok(p) = self.dirs.get(&**ops, self.root, parent)
            {
                let _ = ops.rmdir(p, &name);
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

/// Whether the target is still what the commit prepared: where its timestamps cannot
/// tell, the same bytes; then, last (the nearest the rename can be), the same file,
/// untouched (inode, size, mtime, ctime).
fn still_as_read(ops: &dyn Ops, dir: &Dir, t: &Target<'_>) -> io::Result<bool> {
    if let Some(bytes) = &t.recheck {
        match ops.read(dir, &t.name, bytes.len() as u64, false) {
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

/// Whether a switched target still holds what this commit wrote (a deleted one:
/// nothing).
fn holds_ours(ops: &dyn Ops, dir: &Dir, t: &Target<'_>) -> io::Result<bool> {
    match &t.change.kind {
        ChangeKind::Write { bytes, .. } => match ops.read(dir, &t.name, bytes.len() as u64, false) {
            Ok(now) => Ok(bytes.len() == now.bytes.len() && bytes.to_vec() == now.bytes),
            Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::FileTooLarge) => Ok(false),
            Err(e) if e.kind() == io::ErrorKind::InvalidInput => Ok(false),
            Err(e) => Err(e),
        },
        ChangeKind::Delete => Ok(ops.stat(dir, &t.name)?.is_none()),
    }
}

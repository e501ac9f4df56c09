//! The commit: a journal, temporary files and backups, atomic renames, and an undo that
//! never removes a backup it did not restore.

use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use super::DiskFileSet;
use super::ops::{Dir, Kind, Meta};
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

/// One line of the journal, written before the step it announces.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Line {
    /// The directory (root-relative) is about to be created.
    Mkdir { dir: String },
    /// A target (root-relative), its temporary file and its backup (names in its
    /// directory).
    File { path: String, temp: Option<String>, backup: Option<String> },
    /// The whole commit is one rename of `temp` over the existing file `path` (a commit
    /// that replaces one file and syncs nothing): the rename is the commit point, so no
    /// backup is kept. A temporary file still there means the commit did not happen;
    /// recovery removes it. (A version that does not know this line reads no line of the
    /// journal and changes nothing.)
    Swap { path: String, temp: String },
}

pub(super) const PREFIX: &str = ".polypatch-";
pub(super) const JOURNAL: &str = ".journal";
pub(super) const DONE: &str = ".done";

/// Names of the commit's own files: journals, temporary files and backups.
pub(super) fn is_reserved(name: &str) -> bool {
    name.starts_with(PREFIX) && [JOURNAL, DONE, ".new", ".old"].iter().any(|end| name.ends_with(end))
}

/// One target while the commit runs.
struct Target<'c> {
    change: &'c Change,
    /// Index into the open directories.
    dir: usize,
    name: String,
    temp: Option<String>,
    backup: Option<String>,
    /// What the target was when prepared; `None` when missing.
    original: Option<Meta>,
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

impl DiskFileSet {
    pub(super) fn transaction(&self, changes: &[Change]) -> Result<(), CommitError> {
        if changes.is_empty() {
            return Ok(());
        }
        let fail = |cause: io::Error| CommitError { cause, rolled_back: true, kept: Vec::new() };
        let root = self.ops.open_root(self.root()).map_err(fail)?;
        self.refuse_pending(&root).map_err(fail)?;
        let (id, journal) = self.start_journal(&root).map_err(fail)?;
        let mut tx = Tx {
            set: self,
            journal,
            journal_name: format!("{PREFIX}{id}{JOURNAL}"),
            dirs: Dirs { handles: Vec::new(), index: HashMap::new(), created: Vec::new() },
            targets: Vec::new(),
            root,
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
            let name = format!("{PREFIX}{id}{JOURNAL}");
            match self.ops.create(root, &name, true) {
                Ok(file) => {
                    // Held while the commit runs: `recover` leaves a locked journal alone.
                    let _ = file.try_lock();
                    return Ok((id, file));
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// A journal left by an interrupted commit must be recovered before anything else is
    /// written: its backups would otherwise be restored over this commit's files.
    fn refuse_pending(&self, root: &Dir) -> io::Result<()> {
        let pending = self.pending(root)?;
        if pending.is_empty() {
            return Ok(());
        }
        Err(io::Error::other(format!(
            "an interrupted commit left `{}` in the root; run `polypatch recover` (or `DiskFileSet::recover`) \
             first, or wait for the other polypatch to finish",
            pending[0]
        )))
    }
}

struct Tx<'s> {
    set: &'s DiskFileSet,
    journal: File,
    journal_name: String,
    root: Dir,
    dirs: Dirs,
    targets: Vec<Target<'s>>,
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
            self.set.ops.open_dir(&self.root, ".")?
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
            if let Some(seen) = self.set.seen().get(&change.path)
                && !Meta::unchanged(seen.as_ref(), original.as_ref())
            {
                return Err(changed_meanwhile(&change.path));
            }
            if let Some(md) = &original {
                if md.kind != Kind::File {
                    return Err(io::Error::other(format!("`{}` is not a regular file", change.path)));
                }
                if let Some(other) = self.targets.iter().find(|t| t.original.is_some_and(|o| o.same_inode(md))) {
                    return Err(io::Error::other(format!(
                        "`{}` and `{}` are two names of one file (hard links); change it under one name only",
                        other.change.path, change.path
                    )));
                }
            }
            let temp = write.then(|| format!("{PREFIX}{id}-{n}.new"));
            // One file replaced: its rename is the commit, nothing to undo after it. Not
            // with syncs: a sync after the rename can fail, and that commit must be undone.
            let swap = !durable && one_swap(changes) && original.is_some();
            let backup = (original.is_some() && !swap).then(|| format!("{PREFIX}{id}-{n}.old"));
            let path = change.path.to_string();
            let line = match (&temp, swap) {
                (Some(temp), true) => Line::Swap { path, temp: temp.clone() },
                _ => Line::File { path, temp: temp.clone(), backup: backup.clone() },
            };
            self.log(&line)?;
            self.swap = swap;
            self.targets.push(Target {
                change,
                dir,
                name: name.clone(),
                temp: temp.clone(),
                backup: backup.clone(),
                original,
                switched: false,
            });
            if let (ChangeKind::Write { bytes, mode }, Some(temp)) = (&change.kind, &temp) {
                let private = original.is_some() || mode.is_some();
                let mut file = ops.create(self.dir(dir), temp, private)?;
                ops.write(&mut file, bytes)?;
                if let Some(md) = &original {
                    ops.set_owner(&file, md.uid, md.gid);
                }
                let keep = original.as_ref().and_then(super::mode_of);
                if let Some(mode) = mode.or(keep) {
                    ops.set_mode(&file, mode)?;
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
                ops.sync_dir(&self.root)?;
            }
        }
        // Switch: each rename replaces a target atomically.
        for i in 0..self.targets.len() {
            let t = &self.targets[i];
            let dir = self.dir(t.dir);
            let now = ops.stat(dir, &t.name)?;
            if !Meta::unchanged(t.original.as_ref(), now.as_ref()) {
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
        let done = self.journal_name.replace(JOURNAL, DONE);
        ops.rename(&self.root, &self.journal_name, &done)?;
        Ok(())
    }

    /// Keeps the original under `backup`: a hard link, or a copy where links fail.
    fn back_up(&mut self, dir: usize, name: &str, backup: &str, original: &Meta) -> io::Result<()> {
        let ops = &self.set.ops;
        let d = self.dir(dir);
        if ops.link(d, name, backup).is_err() {
            let (bytes, md) = ops.read(d, name)?;
            if !md.same_file(original) {
                return Err(changed_meanwhile(&self.targets.last().expect("pushed").change.path));
            }
            let mut file = ops.create(d, backup, true)?;
            ops.write(&mut file, &FileBytes::from(bytes))?;
            if let Some(mode) = super::mode_of(&md) {
                ops.set_mode(&file, mode)?;
            }
            if self.set.durability.syncs() {
                ops.sync(&file)?;
            }
            return Ok(());
        }
        // The link names the file that was stat'ed, or the target was swapped meanwhile.
        match ops.stat(d, backup)? {
            Some(md) if md.same_file(original) => Ok(()),
            _ => Err(changed_meanwhile(&self.targets.last().expect("pushed").change.path)),
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
            let _ = ops.sync_dir(&self.root);
        }
        if self.swap {
            let _ = ops.remove(&self.root, &self.journal_name);
            return;
        }
        let mut clean = true;
        for t in &self.targets {
            if let Some(backup) = &t.backup {
                clean &= ops.remove(self.dir(t.dir), backup).is_ok();
            }
        }
        if clean {
            let done = format!("{PREFIX}{id}{DONE}");
            let _ = ops.remove(&self.root, &done);
        }
    }

    /// Undoes every step taken, in reverse. A backup is removed only when its target
    /// holds the original (never switched, or restored).
    fn undo(self, cause: io::Error) -> CommitError {
        let ops = &self.set.ops;
        let mut kept = Vec::new();
        for t in self.targets.iter().rev() {
            let dir = self.dir(t.dir);
            let rel_dir = t.change.path.parent().map(|p| format!("{p}/")).unwrap_or_default();
            if t.switched {
                match &t.backup {
                    Some(backup) => {
                        if ops.rename(dir, backup, &t.name).is_err() {
                            kept.push(format!("{rel_dir}{backup}"));
                        }
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
            let _ = ops.remove(&self.root, &self.journal_name);
            CommitError { cause, rolled_back: true, kept }
        } else {
            kept.push(self.journal_name.clone());
            CommitError { cause, rolled_back: false, kept }
        }
    }
}

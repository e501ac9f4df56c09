//! The root's commit lock: one commit (or recovery) at a time under a root, so that no
//! recovery takes a running commit's journal for an interrupted one, and no two commits
//! check and replace one file at the same time.

use std::fs::File;
use std::io;
use std::time::{Duration, Instant};

use super::DiskFileSet;
use super::journal::LOCK;
use super::ops::{Dir, Ops};

/// How long a commit or a recovery waits for another to let go of the root.
pub(super) const WAIT: Duration = Duration::from_secs(5);

/// The lock [`DiskFileSet::hold_lock`] took, held until the set is dropped.
pub(super) struct Held {
    root: Dir,
    file: File,
}

/// The lock taken for one commit or recovery, let go when dropped.
pub(super) struct Lock<'a> {
    ops: &'a dyn Ops,
    root: &'a Dir,
    file: Option<File>,
}

impl Drop for Lock<'_> {
    fn drop(&mut self) {
        if let Some(file) = self.file.take() {
            release(self.ops, self.root, file);
        }
    }
}

/// Lets go of the lock. The name goes first, while the lock is still held: a process
/// that waits on this file finds the name gone once it has the lock, and opens the next
/// one (see [`Ops::lock`]). Where files have no inode numbers to tell one file from the
/// next under a name, the lock file stays.
fn release(ops: &dyn Ops, root: &Dir, file: File) {
    #[cfg(unix)]
    let _ = ops.remove(root, LOCK);
    #[cfg(not(unix))]
    let _ = (ops, root);
    drop(file);
}

impl DiskFileSet {
    /// Takes the root's lock for one commit or recovery, waiting for another holder as
    /// long as [`WAIT`]; `None` when this set holds it already ([`DiskFileSet::hold_lock`]).
    pub(super) fn lock_root<'a>(&'a self, root: &'a Dir) -> io::Result<Option<Lock<'a>>> {
        if self.held().is_some() {
            return Ok(None);
        }
        let file = self.acquire(root)?;
        Ok(Some(Lock { ops: &*self.ops, root, file: Some(file) }))
    }

    /// Takes the lock if no one holds it, without waiting (a lock file a crash left is
    /// removed this way).
    pub(super) fn try_lock_root<'a>(&'a self, root: &'a Dir) -> io::Result<Option<Lock<'a>>> {
        if self.held().is_some() {
            return Ok(None);
        }
        Ok(self.ops.lock(root, LOCK).map_err(|e| self.lock_error(root, &e))?.map(|file| Lock {
            ops: &*self.ops,
            root,
            file: Some(file),
        }))
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Option<Held>> {
        self.held.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn acquire(&self, root: &Dir) -> io::Result<File> {
        let start = Instant::now();
        let mut pause = Duration::from_millis(1);
        loop {
            if let Some(file) = self.ops.lock(root, LOCK).map_err(|e| self.lock_error(root, &e))? {
                return Ok(file);
            }
            let waited = start.elapsed();
            if waited >= self.lock_wait {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "another polypatch is writing in this root (it holds `{LOCK}`) and did not finish within {} s; \
                         run this again once it is done",
                        self.lock_wait.as_secs_f32()
                    ),
                ));
            }
            std::thread::sleep(pause.min(self.lock_wait.saturating_sub(waited)));
            pause = (pause * 2).min(Duration::from_millis(10));
        }
    }

    fn lock_error(&self, root: &Dir, e: &io::Error) -> io::Error {
        match self.ops.stat(root, LOCK) {
            Ok(Some(md)) if md.kind != super::Kind::File => io::Error::new(
                e.kind(),
                format!(
                    "cannot take the root's commit lock: `{LOCK}` is {}, not the lock file polypatch writes; remove it",
                    super::recover::describe(md.kind)
                ),
            ),
            Ok(Some(md)) if md.size != 0 => io::Error::new(
                e.kind(),
                format!(
                    "cannot take the root's commit lock: `{LOCK}` holds data, and polypatch's lock file is empty; \
                     move it away"
                ),
            ),
            _ => io::Error::new(e.kind(), format!("cannot take the root's commit lock `{LOCK}`: {e}")),
        }
    }

    /// Takes the root's commit lock now and holds it until the set is dropped (or
    /// [`DiskFileSet::release_lock`]): no other polypatch commits or recovers under the
    /// root meanwhile, so what this set reads is still what its commit replaces (another
    /// program, an editor, is not held off: the commit checks each file again, see the
    /// module docs). Another holder is waited for a few seconds, then the error says so.
    /// `polypatch apply` holds it from its recovery to its commit.
    ///
    /// ```
    /// use polypatch_core::DiskFileSet;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let files = DiskFileSet::new(dir.path()).unwrap();
    /// files.hold_lock().unwrap();
    /// assert!(dir.path().join(".polypatch.lock").exists());
    /// files.release_lock();
    /// assert!(!dir.path().join(".polypatch.lock").exists());
    /// ```
    pub fn hold_lock(&self) -> io::Result<()> {
        let mut held = self.held();
        if held.is_none() {
            let root = self.ops.open_root(self.root())?;
            let file = self.acquire(&root)?;
            *held = Some(Held { root, file });
        }
        Ok(())
    }

    /// Lets go of the lock [`DiskFileSet::hold_lock`] took (dropping the set does too).
    pub fn release_lock(&self) {
        if let Some(held) = self.held().take() {
            release(&*self.ops, &held.root, held.file);
        }
    }

    #[cfg(test)]
    pub(super) fn lock_wait(mut self, wait: Duration) -> Self {
        self.lock_wait = wait;
        self
    }
}

impl Drop for DiskFileSet {
    fn drop(&mut self) {
        self.release_lock();
    }
}

//! Recovery from an interrupted commit: roll it back from its journal, or finish the
//! clean-up of one that was done, and remove every leftover. A journal is input: every
//! name in it is checked first ([`journal::parse`]), and a file is given back its
//! original (or removed) only while it holds exactly what the interrupted commit left.

use std::io;

#[cfg(feature = "serde")]
use serde::Serialize;

use super::DiskFileSet;
use super::journal::{self, Journal, Line};
use super::ops::{Dir, Kind, Meta};
use crate::store::fileset::RelPath;

/// What [`DiskFileSet::recover`] found and did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize))]
#[non_exhaustive]
pub struct Recovery {
    /// Interrupted commits rolled back (their journals' names).
    pub rolled_back: Vec<String>,
    /// Files given back their content from before an interrupted commit.
    pub restored: Vec<String>,
    /// Files an interrupted commit had created, removed again.
    pub removed: Vec<String>,
    /// Temporary files, backups, journals and empty directories removed.
    pub leftovers: usize,
    /// Journals of commits still running in another process, left alone.
    pub running: Vec<String>,
    /// What could not be undone or was left alone, with the reason and what to do, each
    /// naming its journal; the journal is kept.
    pub problems: Vec<String>,
}

impl Recovery {
    /// Nothing was found.
    pub fn is_empty(&self) -> bool {
        self.rolled_back.is_empty()
            && self.restored.is_empty()
            && self.removed.is_empty()
            && self.leftovers == 0
            && self.running.is_empty()
            && self.problems.is_empty()
    }
}

/// What an entry that is not a regular file is, for a message.
pub(super) fn describe(kind: Kind) -> &'static str {
    match kind {
        Kind::Dir => "a directory",
        Kind::Symlink => "a symbolic link",
        Kind::File => "a regular file",
        Kind::Other => "a FIFO, socket or device",
    }
}

/// The effective user: a journal another user wrote is not acted on.
#[cfg(unix)]
fn own(md: &Meta) -> Result<(), String> {
    let me = rustix::process::geteuid().as_raw();
    if md.uid == me {
        Ok(())
    } else {
        Err(format!(
            "it belongs to another user (uid {}), and polypatch acts only on the journals of its own user (uid {me}); \
             nothing was done: remove it if no commit of that user is interrupted",
            md.uid
        ))
    }
}

#[cfg(not(unix))]
#[allow(clippy::unnecessary_wraps, reason = "the Unix version can fail")]
fn own(_md: &Meta) -> Result<(), String> {
    Ok(())
}

/// What recovery did to one target.
enum Done {
    Restored,
    Removed,
    /// A backup of a target the commit never switched.
    Litter,
}

/// How a file under recovery compares with what the interrupted commit left there.
enum Found {
    /// Exactly what the commit wrote.
    Ours,
    /// Something else.
    Other,
    /// Nothing to compare with: a journal of an earlier version (no hash).
    Unknown,
}

impl DiskFileSet {
    /// Journals of interrupted (or running) commits in the root.
    pub(super) fn pending(&self, root: &Dir) -> io::Result<Vec<String>> {
        let mut names: Vec<String> = self
            .ops
            .list(root)?
            .into_iter()
            .filter(|n| n.starts_with(journal::PREFIX) && n.ends_with(journal::JOURNAL))
            .collect();
        names.sort();
        Ok(names)
    }

    /// Rolls back every commit a crash interrupted (each target gets its content from
    /// before the commit, files it created are removed), finishes the clean-up of commits
    /// that were done, and removes their temporary files, backups and journals. It takes
    /// the root's commit lock first (waiting a few seconds for a commit that is running),
    /// so it never touches a running commit's journal.
    ///
    /// A journal is checked whole before anything is done: one that names a path outside
    /// the root, or a temporary file or backup under another name than its commit gives,
    /// or that is not a regular file, or that belongs to another user, is left alone and
    /// reported in [`Recovery::problems`]. A file is given back its original (or removed,
    /// when the commit created it) only while it holds the content the commit wrote (the
    /// journal records its hash): a file changed since the crash is left as it is,
    /// reported, and its backup kept.
    pub fn recover(&self) -> io::Result<Recovery> {
        let ops = &self.ops;
        let root = ops.open_root(self.root())?;
        let mut out = Recovery::default();
        let names = ops.list(&root)?;
        if !names.iter().any(|n| journal::is_journal(n)) {
            // A lock file a crash left goes, unless someone holds it.
            if names.iter().any(|n| n == journal::LOCK) {
                drop(self.try_lock_root(&root));
            }
            return Ok(out);
        }
        let _lock = match self.lock_root(&root) {
            Ok(lock) => lock,
            Err(e) if e.kind() == io::ErrorKind::TimedOut => {
                out.running = names.into_iter().filter(|n| journal::is_journal(n)).collect();
                out.running.sort();
                return Ok(out);
            }
            Err(e) => return Err(e),
        };
        let mut names: Vec<String> = ops.list(&root)?.into_iter().filter(|n| journal::is_journal(n)).collect();
        names.sort();
        for name in names {
            let known = out.problems.len();
            let ok = match self.open_journal(&root, &name, &mut out) {
                Some(journal) if journal.done => self.finish(&root, &journal, &name, &mut out),
                Some(journal) => match journal.lines.as_slice() {
                    [Line::Swap { path, temp }] => self.end_swap(&root, path, temp, &name, &mut out),
                    lines => {
                        let ok = self.roll_back(&root, lines, &name, &mut out);
                        if ok {
                            out.rolled_back.push(name.clone());
                        }
                        ok
                    }
                },
                None => false,
            };
            if ok && out.problems.len() == known {
                match ops.remove(&root, &name) {
                    Ok(()) => out.leftovers += 1,
                    Err(e) => out.problems.push(format!("`{name}`: cannot remove it: {e}")),
                }
            }
        }
        Ok(out)
    }

    /// The journal `name`, read and checked; `None` (with the reason in `out`) when it is
    /// not one to act on.
    fn open_journal(&self, root: &Dir, name: &str, out: &mut Recovery) -> Option<Journal> {
        let ops = &self.ops;
        let mut refuse = |why: String| {
            out.problems.push(format!("`{name}`: {why}"));
            None
        };
        match ops.stat(root, name) {
            Ok(None) => return None,
            Ok(Some(md)) if md.kind != Kind::File => {
                return refuse(format!(
                    "it is {}, not a journal polypatch wrote; nothing was done: remove it",
                    describe(md.kind)
                ));
            }
            Ok(Some(md)) => {
                if let Err(why) = own(&md) {
                    return refuse(why);
                }
            }
            Err(e) => return refuse(format!("cannot look at it: {e}")),
        }
        // A commit of an earlier version of polypatch does not take the root's lock; it
        // holds its journal's.
        match ops.is_locked(root, name) {
            Ok(false) => {}
            Ok(true) => {
                out.running.push(name.to_string());
                return None;
            }
            Err(e) => return refuse(format!("cannot open it: {e}")),
        }
        let read = match ops.read(root, name, journal::MAX_JOURNAL, false) {
            Ok(read) => read,
            Err(e) => return refuse(format!("cannot read it: {e}")),
        };
        if let Err(why) = own(&read.meta) {
            return refuse(why);
        }
        match journal::parse(name, &read.bytes) {
            Ok(journal) => Some(journal),
            Err(why) => refuse(format!(
                "{why}: it is not a journal polypatch wrote, or it was damaged; nothing was done: look at it, then \
                 remove it"
            )),
        }
    }

    fn target_dir(&self, root: &Dir, path: &str, journal: &str, out: &mut Recovery) -> Option<(Dir, String)> {
        let rel = RelPath::parse(path, None).ok()?;
        match self.open_parent(root, &rel) {
            Ok(Some(dir)) => Some((dir, rel.components().last().unwrap_or_default().to_string())),
            Ok(None) => None,
            Err(e) => {
                out.problems.push(format!("`{journal}`: cannot open the directory of `{path}`: {e}"));
                None
            }
        }
    }

    /// Whether the file `name` holds the content `id` names ([`journal::names`]).
    fn holds(&self, dir: &Dir, name: &str, id: Option<&String>) -> io::Result<Found> {
        let Some(id) = id else { return Ok(Found::Unknown) };
        match self.ops.read(dir, name, u64::MAX, false) {
            Ok(read) => Ok(if journal::names(id, &read.bytes.into()) { Found::Ours } else { Found::Other }),
            Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::InvalidInput) => Ok(Found::Other),
            Err(e) => Err(e),
        }
    }

    fn remove_litter(&self, dir: &Dir, name: &str, journal: &str, out: &mut Recovery) -> bool {
        match self.ops.stat(dir, name) {
            Ok(Some(_)) => match self.ops.remove(dir, name) {
                Ok(()) => {
                    out.leftovers += 1;
                    true
                }
                Err(e) => {
                    out.problems.push(format!("`{journal}`: cannot remove `{name}`: {e}"));
                    false
                }
            },
            Ok(None) => true,
            Err(e) => {
                out.problems.push(format!("`{journal}`: cannot look at `{name}`: {e}"));
                false
            }
        }
    }

    fn roll_back(&self, root: &Dir, lines: &[Line], journal: &str, out: &mut Recovery) -> bool {
        let ops = &self.ops;
        let mut ok = true;
        for line in lines.iter().rev() {
            let Line::File { path, temp, backup, new, .. } = line else { continue };
            let known = out.problems.len();
            let Some((dir, name)) = self.target_dir(root, path, journal, out) else {
                // A missing directory holds nothing of the commit; an unreadable one might.
                ok &= out.problems.len() == known;
                continue;
            };
            let target = ops.stat(&dir, &name).ok().flatten();
            let step = match (backup, temp) {
                (Some(backup), _) => self.restore(&dir, &name, backup, target.as_ref(), line),
                (None, Some(temp)) => {
                    // No original: when the temporary file is gone and the target exists,
                    // the new file was renamed into place (or someone made one there since).
                    let temp_gone = matches!(ops.stat(&dir, temp), Ok(None));
                    if temp_gone && target.is_some() { self.unmake(&dir, &name, path, new.as_ref()) } else { Ok(None) }
                }
                (None, None) => Ok(None),
            };
            match step {
                Ok(Some(Done::Restored)) => out.restored.push(path.clone()),
                Ok(Some(Done::Removed)) => out.removed.push(path.clone()),
                Ok(Some(Done::Litter)) => out.leftovers += 1,
                Ok(None) => {}
                Err(why) => {
                    out.problems.push(format!("`{journal}`: {why}"));
                    ok = false;
                }
            }
            if let Some(temp) = temp {
                ok &= self.remove_litter(&dir, temp, journal, out);
            }
        }
        for line in lines.iter().rev() {
            let Line::Mkdir { dir } = line else { continue };
            let Ok(rel) = RelPath::parse(dir, None) else { continue };
            if let Ok(Some(parent)) = self.open_parent(root, &rel) {
                let name = rel.components().last().unwrap_or_default();
                // Only an empty directory goes; one that holds anything stays.
                if ops.rmdir(&parent, name).is_ok() {
                    out.leftovers += 1;
                }
            }
        }
        ok
    }

    /// Gives a target with a backup its original back, when the commit switched it and
    /// it still holds what the commit left.
    fn restore(
        &self,
        dir: &Dir,
        name: &str,
        backup: &str,
        target: Option<&Meta>,
        line: &Line,
    ) -> Result<Option<Done>, String> {
        let ops = &self.ops;
        let Line::File { path, temp, new, old, was, .. } = line else { return Ok(None) };
        let rel_dir = path.rsplit_once('/').map(|(d, _)| format!("{d}/")).unwrap_or_default();
        let kept = format!("its content from before the commit is kept in `{rel_dir}{backup}`");
        let then = "compare the two, keep what you want, then remove the backup and the journal";
        let b = match ops.stat(dir, backup) {
            Ok(Some(b)) => b,
            // Never made, or given back already.
            Ok(None) => return Ok(None),
            Err(e) => return Err(format!("cannot look at `{rel_dir}{backup}`: {e}")),
        };
        // Never switched: the backup is a second name of the target, or (a copy, where the
        // file system has no hard links) the temporary file is still there to be renamed
        // and the target is still the original.
        let original = |t: &Meta| match was {
            Some((size, secs, nanos)) => t.size == *size && t.mtime == (*secs, *nanos),
            None => matches!(self.holds(dir, name, old.as_ref()), Ok(Found::Ours)),
        };
        let temp_there = temp.as_ref().is_some_and(|t| matches!(ops.stat(dir, t), Ok(Some(_))));
        if target.is_some_and(|t| t.same_inode(&b) || (temp_there && original(t))) {
            return match ops.remove(dir, backup) {
                Ok(()) => Ok(Some(Done::Litter)),
                Err(e) => Err(format!("cannot remove `{rel_dir}{backup}`: {e}")),
            };
        }
        // Switched: the target holds the new content, or (deleted) nothing.
        let found = match (temp, target) {
            (Some(_), _) => self.holds(dir, name, new.as_ref()).map_err(|e| format!("cannot read `{path}`: {e}"))?,
            (None, None) => Found::Ours,
            (None, Some(_)) => {
                return Err(format!(
                    "`{path}`, which the interrupted commit deleted, was made again since: it is left as it is, and \
                     {kept}; {then}"
                ));
            }
        };
        match found {
            Found::Ours => {}
            Found::Other => {
                return Err(format!(
                    "`{path}` was changed after the commit was interrupted: it is left as it is, and {kept}; {then}"
                ));
            }
            Found::Unknown => {
                return Err(format!(
                    "`{path}` may hold the interrupted commit's content, but the journal (of an earlier version of \
                     polypatch) has no hash to check it with: it is left as it is, and {kept}; {then}"
                ));
            }
        }
        let changed = was.is_some_and(|(size, secs, nanos)| b.size != size || b.mtime != (secs, nanos));
        if changed
            || matches!(
                self.holds(dir, backup, old.as_ref()).map_err(|e| format!("cannot read `{backup}`: {e}"))?,
                Found::Other
            )
        {
            return Err(format!(
                "the backup `{rel_dir}{backup}` of `{path}` does not hold the content the commit replaced: both are \
                 left as they are; {then}"
            ));
        }
        let restored = match temp {
            Some(_) => ops.rename(dir, backup, name),
            None => ops.rename_new(dir, backup, name),
        };
        restored
            .map(|()| Some(Done::Restored))
            .map_err(|e| format!("cannot restore `{path}` from `{rel_dir}{backup}`: {e}"))
    }

    /// Removes a file the commit created, while it holds what the commit wrote.
    fn unmake(&self, dir: &Dir, name: &str, path: &str, new: Option<&String>) -> Result<Option<Done>, String> {
        let then = "remove it if it should go, then remove the journal";
        match self.holds(dir, name, new).map_err(|e| format!("cannot read `{path}`: {e}"))? {
            Found::Ours => match self.ops.remove(dir, name) {
                Ok(()) => Ok(Some(Done::Removed)),
                Err(e) => Err(format!("cannot remove the new file `{path}`: {e}")),
            },
            Found::Other => Err(format!(
                "`{path}`, which the interrupted commit created, was changed since (or made by another program): it is \
                 left as it is; {then}"
            )),
            Found::Unknown => Err(format!(
                "`{path}` may be the interrupted commit's new file, but the journal (of an earlier version of polypatch) \
                 has no hash to check it with: it is left as it is; {then}"
            )),
        }
    }

    /// A one-file commit ([`Line::Swap`]): its rename was the commit point. The temporary
    /// file still there means it did not happen (the file is as it was): it is removed;
    /// gone, the file holds the new content and nothing is left to do.
    fn end_swap(&self, root: &Dir, path: &str, temp: &str, journal: &str, out: &mut Recovery) -> bool {
        let known = out.problems.len();
        let Some((dir, _)) = self.target_dir(root, path, journal, out) else {
            return out.problems.len() == known;
        };
        match self.ops.stat(&dir, temp) {
            Ok(Some(_)) => {
                let removed = self.remove_litter(&dir, temp, journal, out);
                if removed {
                    out.rolled_back.push(journal.to_string());
                }
                removed
            }
            Ok(None) => true,
            Err(e) => {
                out.problems.push(format!("`{journal}`: cannot look at `{temp}`: {e}"));
                false
            }
        }
    }

    /// A commit that was done: only its temporary files and backups are left to remove.
    fn finish(&self, root: &Dir, journal: &Journal, name: &str, out: &mut Recovery) -> bool {
        let mut ok = true;
        for line in &journal.lines {
            let Line::File { path, temp, backup, .. } = line else { continue };
            let known = out.problems.len();
            let Some((dir, _)) = self.target_dir(root, path, name, out) else {
                ok &= out.problems.len() == known;
                continue;
            };
            for litter in [temp, backup].into_iter().flatten() {
                ok &= self.remove_litter(&dir, litter, name, out);
            }
        }
        ok
    }
}

//! Recovery from an interrupted commit: roll it back from its journal, or finish the
//! clean-up of one that was done, and remove every leftover.

use std::io;

use serde::Serialize;

use super::DiskFileSet;
use super::commit::{DONE, JOURNAL, Line, PREFIX};
use super::ops::Dir;
use crate::fileset::RelPath;

/// What [`DiskFileSet::recover`] found and did.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize)]
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
    /// What could not be undone, with the reason; the journal is kept for another try.
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

fn is_ours(name: &str) -> bool {
    name.starts_with(PREFIX) && (name.ends_with(JOURNAL) || name.ends_with(DONE))
}

fn parse(text: &[u8]) -> Vec<Line> {
    // A crash can cut the last line short: it announced a step that was not taken.
    String::from_utf8_lossy(text).lines().map_while(|l| serde_json::from_str(l).ok()).collect()
}

impl DiskFileSet {
    /// Journals of interrupted (or running) commits in the root.
    pub(super) fn pending(&self, root: &Dir) -> io::Result<Vec<String>> {
        let mut names: Vec<String> =
            self.ops.list(root)?.into_iter().filter(|n| n.starts_with(PREFIX) && n.ends_with(JOURNAL)).collect();
        names.sort();
        Ok(names)
    }

    /// Rolls back every commit a crash interrupted (each target gets its content from
    /// before the commit, files it created are removed), finishes the clean-up of commits
    /// that were done, and removes their temporary files, backups and journals. Commits
    /// still running in another process are left alone.
    pub fn recover(&self) -> io::Result<Recovery> {
        let ops = &self.ops;
        let root = ops.open_root(self.root())?;
        let mut out = Recovery::default();
        let mut names: Vec<String> = ops.list(&root)?.into_iter().filter(|n| is_ours(n)).collect();
        names.sort();
        for name in names {
            // A running commit holds its journal's lock.
            let Some(_lock) = ops.open_locked(&root, &name)? else {
                out.running.push(name);
                continue;
            };
            let (text, _) = ops.read(&root, &name)?;
            let lines = parse(&text);
            let ok = if name.ends_with(DONE) {
                self.finish(&root, &lines, &mut out)
            } else if let [Line::Swap { path, temp }] = lines.as_slice() {
                self.end_swap(&root, path, temp, &name, &mut out)
            } else {
                let ok = self.roll_back(&root, &lines, &mut out);
                if ok {
                    out.rolled_back.push(name.clone());
                }
                ok
            };
            if ok {
                ops.remove(&root, &name)?;
                out.leftovers += 1;
            }
        }
        Ok(out)
    }

    fn target_dir(&self, root: &Dir, path: &str, out: &mut Recovery) -> Option<(Dir, String)> {
        let Ok(rel) = RelPath::parse(path, None) else {
            out.problems.push(format!("the journal names an invalid path `{path}`"));
            return None;
        };
        match self.open_parent(root, &rel) {
            Ok(Some(dir)) => Some((dir, rel.components().last().unwrap_or_default().to_string())),
            Ok(None) => None,
            Err(e) => {
                out.problems.push(format!("cannot open the directory of `{path}`: {e}"));
                None
            }
        }
    }

    fn roll_back(&self, root: &Dir, lines: &[Line], out: &mut Recovery) -> bool {
        let ops = &self.ops;
        let mut ok = true;
        let remove_litter = |dir: &Dir, name: &str, out: &mut Recovery| match ops.stat(dir, name) {
            Ok(Some(_)) => match ops.remove(dir, name) {
                Ok(()) => {
                    out.leftovers += 1;
                    true
                }
                Err(e) => {
                    out.problems.push(format!("cannot remove `{name}`: {e}"));
                    false
                }
            },
            Ok(None) => true,
            Err(e) => {
                out.problems.push(format!("cannot look at `{name}`: {e}"));
                false
            }
        };
        for line in lines.iter().rev() {
            let Line::File { path, temp, backup } = line else { continue };
            let known = out.problems.len();
            let Some((dir, name)) = self.target_dir(root, path, out) else {
                // A missing directory holds nothing of the commit; an unreadable one might.
                ok &= out.problems.len() == known;
                continue;
            };
            let target = ops.stat(&dir, &name).ok().flatten();
            if let Some(backup) = backup {
                match ops.stat(&dir, backup) {
                    Ok(Some(b)) if target.is_some_and(|t| t.same_inode(&b)) => ok &= remove_litter(&dir, backup, out),
                    Ok(Some(_)) => match ops.rename(&dir, backup, &name) {
                        Ok(()) => out.restored.push(path.clone()),
                        Err(e) => {
                            out.problems.push(format!("cannot restore `{path}` from `{backup}`: {e}"));
                            ok = false;
                        }
                    },
                    Ok(None) => {}
                    Err(e) => {
                        out.problems.push(format!("cannot look at `{backup}`: {e}"));
                        ok = false;
                    }
                }
            } else if let Some(temp) = temp {
                // No original: when the temporary file is gone and the target exists,
                // the new file was renamed into place.
                let temp_gone = matches!(ops.stat(&dir, temp), Ok(None));
                if temp_gone && target.is_some() {
                    match ops.remove(&dir, &name) {
                        Ok(()) => out.removed.push(path.clone()),
                        Err(e) => {
                            out.problems.push(format!("cannot remove the new file `{path}`: {e}"));
                            ok = false;
                        }
                    }
                }
            }
            if let Some(temp) = temp {
                ok &= remove_litter(&dir, temp, out);
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

    /// A one-file commit ([`Line::Swap`]): its rename was the commit point. The temporary
    /// file still there means it did not happen (the file is as it was): it is removed;
    /// gone, the file holds the new content and nothing is left to do.
    fn end_swap(&self, root: &Dir, path: &str, temp: &str, journal: &str, out: &mut Recovery) -> bool {
        let known = out.problems.len();
        let Some((dir, _)) = self.target_dir(root, path, out) else {
            return out.problems.len() == known;
        };
        match self.ops.stat(&dir, temp) {
            Ok(Some(_)) => match self.ops.remove(&dir, temp) {
                Ok(()) => {
                    out.leftovers += 1;
                    out.rolled_back.push(journal.to_string());
                    true
                }
                Err(e) => {
                    out.problems.push(format!("cannot remove `{temp}`: {e}"));
                    false
                }
            },
            Ok(None) => true,
            Err(e) => {
                out.problems.push(format!("cannot look at `{temp}`: {e}"));
                false
            }
        }
    }

    fn finish(&self, root: &Dir, lines: &[Line], out: &mut Recovery) -> bool {
        let ops = &self.ops;
        let mut ok = true;
        for line in lines {
            let Line::File { path, temp, backup } = line else { continue };
            let known = out.problems.len();
            let Some((dir, _)) = self.target_dir(root, path, out) else {
                ok &= out.problems.len() == known;
                continue;
            };
            for litter in [temp, backup].into_iter().flatten() {
                if let Ok(Some(_)) = ops.stat(&dir, litter) {
                    match ops.remove(&dir, litter) {
                        Ok(()) => out.leftovers += 1,
                        Err(e) => {
                            out.problems.push(format!("cannot remove `{litter}`: {e}"));
                            ok = false;
                        }
                    }
                }
            }
        }
        ok
    }
}

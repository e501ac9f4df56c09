//! The disk as a file set: paths confined to a root, all-or-nothing commits.
//!
//! A commit first writes every new content to a temporary file in the target's own
//! directory (so the final rename stays on one file system), then moves each original
//! aside to a backup name in the same directory and renames the temporary file into
//! place. Any failure undoes every step taken, in reverse: originals come back, new files
//! and created directories go away. Backups are removed only once every step succeeded.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tempfile::{Builder, NamedTempFile, TempPath};

use crate::fileset::{Change, ChangeKind, Entry, FileSource, FileStore, PathError, PathErrorKind, RelPath};

/// The files under a root directory on disk.
#[derive(Debug, Clone)]
pub struct DiskFileSet {
    root: PathBuf,
    given: PathBuf,
}

impl DiskFileSet {
    /// The files under `root` (which must be an existing directory).
    pub fn new(root: impl AsRef<Path>) -> io::Result<Self> {
        let given = std::path::absolute(root.as_ref())?;
        let root = root.as_ref().canonicalize()?;
        if !root.is_dir() {
            return Err(io::Error::new(io::ErrorKind::NotADirectory, format!("{} is not a directory", root.display())));
        }
        Ok(DiskFileSet { root, given })
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The on-disk path of a root-relative path.
    pub fn full_path(&self, path: &RelPath) -> PathBuf {
        let mut full = self.root.clone();
        full.extend(path.components());
        full
    }
}

impl FileSource for DiskFileSet {
    fn resolve(&self, path: &str) -> Result<RelPath, PathError> {
        let root = self.root.to_string_lossy();
        let rel = RelPath::parse(path, Some(&root)).or_else(|e| match e.kind {
            PathErrorKind::Absolute => RelPath::parse(path, Some(&self.given.to_string_lossy())),
            _ => Err(e),
        })?;
        // Walk the components: a symbolic link anywhere must stay inside the root.
        let mut cur = self.root.clone();
        for comp in rel.components() {
            cur.push(comp);
            match fs::symlink_metadata(&cur) {
                Ok(md) if md.file_type().is_symlink() => match fs::canonicalize(&cur) {
                    Ok(target) if target.starts_with(&self.root) => cur = target,
                    _ => return Err(PathError::new(path, PathErrorKind::SymlinkOutside)),
                },
                Ok(_) => {}
                Err(_) => break,
            }
        }
        Ok(rel)
    }

    fn read(&self, path: &RelPath) -> io::Result<Entry> {
        let full = self.full_path(path);
        let md = match fs::metadata(&full) {
            Ok(md) => md,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Entry::Missing),
            Err(e) if e.kind() == io::ErrorKind::NotADirectory => return Ok(Entry::Other),
            Err(e) => return Err(e),
        };
        if md.is_dir() {
            return Ok(Entry::Directory);
        }
        if !md.is_file() {
            return Ok(Entry::Other);
        }
        Ok(Entry::File { bytes: fs::read(&full)?, mode: mode_of(&md) })
    }
}

#[cfg(unix)]
#[allow(clippy::unnecessary_wraps, reason = "other platforms have no mode")]
fn mode_of(md: &fs::Metadata) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    Some(md.permissions().mode() & 0o7777)
}

#[cfg(not(unix))]
fn mode_of(_md: &fs::Metadata) -> Option<u32> {
    None
}

#[cfg(unix)]
fn set_mode(file: &fs::File, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_file: &fs::File, _mode: u32) -> io::Result<()> {
    Ok(())
}

fn new_temp(dir: &Path) -> io::Result<NamedTempFile> {
    let mut builder = Builder::new();
    builder.prefix(".polypatch-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // New files get the usual 0666 less the umask, like any editor's new file.
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

/// One step taken, to undo on failure.
enum Step {
    CreatedDir(PathBuf),
    /// The original was moved to the backup; `placed` says whether a new file now
    /// stands at the target.
    MovedAside {
        target: PathBuf,
        backup: TempPath,
        placed: bool,
    },
    /// A new file was placed where nothing was.
    Placed(PathBuf),
}

impl FileStore for DiskFileSet {
    fn commit(&mut self, changes: &[Change]) -> io::Result<()> {
        let mut steps: Vec<Step> = Vec::new();
        match self.try_commit(changes, &mut steps) {
            Ok(()) => Ok(()),
            Err(err) => {
                rollback(steps);
                Err(err)
            }
        }
    }
}

impl DiskFileSet {
    fn try_commit(&self, changes: &[Change], steps: &mut Vec<Step>) -> io::Result<()> {
        // Phase 1: every new content is written to a temporary file next to its target.
        let mut temps: Vec<Option<TempPath>> = Vec::with_capacity(changes.len());
        for change in changes {
            let ChangeKind::Write { bytes, mode } = &change.kind else {
                temps.push(None);
                continue;
            };
            let target = self.full_path(&change.path);
            let dir = target.parent().expect("a root-relative path has a parent").to_path_buf();
            create_dirs(&dir, steps)?;
            let mut temp = new_temp(&dir)?;
            temp.write_all(bytes)?;
            let keep = fs::metadata(&target).ok().filter(fs::Metadata::is_file).and_then(|m| mode_of(&m));
            if let Some(mode) = mode.or(keep) {
                set_mode(temp.as_file(), mode)?;
            }
            temp.as_file().sync_all()?;
            temps.push(Some(temp.into_temp_path()));
        }
        // Phase 2: originals aside, new files in place.
        for (change, temp) in changes.iter().zip(temps) {
            let target = self.full_path(&change.path);
            let dir = target.parent().expect("a root-relative path has a parent");
            let exists = fs::symlink_metadata(&target).is_ok();
            if exists {
                let backup = Builder::new().prefix(".polypatch-backup-").tempfile_in(dir)?.into_temp_path();
                fs::rename(&target, &backup)?;
                steps.push(Step::MovedAside { target: target.clone(), backup, placed: false });
            }
            if let Some(temp) = temp {
                temp.persist(&target).map_err(|e| e.error)?;
                match steps.last_mut() {
                    Some(Step::MovedAside { target: t, placed, .. }) if exists && *t == target => *placed = true,
                    _ => steps.push(Step::Placed(target)),
                }
            } else if !exists {
                return Err(io::Error::new(io::ErrorKind::NotFound, format!("{} vanished", target.display())));
            }
        }
        // Success: drop the backups (their TempPath deletes them).
        steps.clear();
        Ok(())
    }
}

fn create_dirs(dir: &Path, steps: &mut Vec<Step>) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent() {
        create_dirs(parent, steps)?;
    }
    fs::create_dir(dir)?;
    steps.push(Step::CreatedDir(dir.to_path_buf()));
    Ok(())
}

/// Undoes the steps in reverse order. Best effort: every step is tried.
fn rollback(steps: Vec<Step>) {
    for step in steps.into_iter().rev() {
        match step {
            Step::Placed(target) => {
                let _ = fs::remove_file(target);
            }
            Step::MovedAside { target, backup, placed } => {
                if placed {
                    let _ = fs::remove_file(&target);
                }
                let _ = fs::rename(&backup, &target);
                // `backup` no longer exists; dropping the TempPath is a no-op.
            }
            Step::CreatedDir(dir) => {
                let _ = fs::remove_dir(dir);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(p: &str) -> RelPath {
        RelPath::parse(p, None).unwrap()
    }

    #[test]
    fn commit_writes_and_deletes() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.txt"), "old").unwrap();
        fs::write(dir.path().join("gone.txt"), "x").unwrap();
        let mut set = DiskFileSet::new(dir.path()).unwrap();
        set.commit(&[
            Change { path: rel("a.txt"), kind: ChangeKind::Write { bytes: b"new".to_vec(), mode: None } },
            Change { path: rel("d/e/f.txt"), kind: ChangeKind::Write { bytes: b"f".to_vec(), mode: None } },
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

    #[test]
    fn failed_commit_rolls_everything_back() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.txt"), "old").unwrap();
        fs::write(dir.path().join("blocker"), "i am a file").unwrap();
        let mut set = DiskFileSet::new(dir.path()).unwrap();
        let err = set.commit(&[
            Change { path: rel("a.txt"), kind: ChangeKind::Write { bytes: b"new".to_vec(), mode: None } },
            Change { path: rel("new/dir/x.txt"), kind: ChangeKind::Write { bytes: b"x".to_vec(), mode: None } },
            // A directory cannot be created under a regular file.
            Change { path: rel("blocker/y.txt"), kind: ChangeKind::Write { bytes: b"y".to_vec(), mode: None } },
        ]);
        assert!(err.is_err());
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
            kind: ChangeKind::Write { bytes: b"echo 2".to_vec(), mode: None },
        }])
        .unwrap();
        assert_eq!(fs::metadata(&script).unwrap().permissions().mode() & 0o777, 0o750);
        set.commit(&[Change {
            path: rel("run.sh"),
            kind: ChangeKind::Write { bytes: b"echo 3".to_vec(), mode: Some(0o700) },
        }])
        .unwrap();
        assert_eq!(fs::metadata(&script).unwrap().permissions().mode() & 0o777, 0o700);
    }
}

//! The file system operations a commit is made of, behind a trait so that the tests can
//! inject a failure (or a crash) at any step.
//!
//! Every operation names an entry relative to an open directory handle: directories are
//! opened one component at a time from the root without following symbolic links, so a
//! directory swapped for a link to somewhere else while a patch is applied cannot receive
//! a write (the walk fails instead).

use std::fs::File;
use std::io;
use std::path::Path;

use crate::file_bytes::FileBytes;

/// An open directory (a file descriptor on Unix, a path elsewhere).
#[cfg(unix)]
pub(crate) type Dir = std::os::fd::OwnedFd;
/// An open directory (a file descriptor on Unix, a path elsewhere).
#[cfg(not(unix))]
pub(crate) type Dir = std::path::PathBuf;

/// What kind of entry a name holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Dir,
    Symlink,
    Other,
}

/// What `lstat` says about an entry: enough to tell whether it is still the file that
/// was read, and to give a replacement the same mode and owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Meta {
    pub kind: Kind,
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime: (i64, i64),
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
}

impl Meta {
    /// The same file with the same content, as far as metadata can tell.
    pub fn same_file(&self, other: &Meta) -> bool {
        self.kind == other.kind
            && self.dev == other.dev
            && self.ino == other.ino
            && self.size == other.size
            && self.mtime == other.mtime
    }

    /// Whether what is at a name now (`now`) is what was there before (`then`): the same
    /// file, or still nothing.
    pub fn unchanged(then: Option<&Meta>, now: Option<&Meta>) -> bool {
        match (then, now) {
            (None, None) => true,
            (Some(a), Some(b)) => a.same_file(b),
            _ => false,
        }
    }

    /// The same file (inode), whatever its content.
    pub fn same_inode(&self, other: &Meta) -> bool {
        self.dev == other.dev && self.ino == other.ino && self.ino != 0
    }
}

/// The steps of a commit. Names are single path components.
pub(crate) trait Ops: Send + Sync {
    fn open_root(&self, root: &Path) -> io::Result<Dir>;
    /// Opens a subdirectory, refusing a symbolic link.
    fn open_dir(&self, dir: &Dir, name: &str) -> io::Result<Dir>;
    fn mkdir(&self, dir: &Dir, name: &str) -> io::Result<()>;
    fn rmdir(&self, dir: &Dir, name: &str) -> io::Result<()>;
    /// `lstat`; `None` when nothing is there.
    fn stat(&self, dir: &Dir, name: &str) -> io::Result<Option<Meta>>;
    /// Reads a regular file (refusing a symbolic link) with its metadata.
    fn read(&self, dir: &Dir, name: &str) -> io::Result<(Vec<u8>, Meta)>;
    /// Creates a new file that must not exist yet, readable by its owner only
    /// (`private`) or with the default mode of new files.
    fn create(&self, dir: &Dir, name: &str, private: bool) -> io::Result<File>;
    /// Writes `bytes` to `file` (an edited file's lines piece by piece, see [`FileBytes::write_to`]).
    fn write(&self, file: &mut File, bytes: &FileBytes) -> io::Result<()>;
    fn set_mode(&self, file: &File, mode: u32) -> io::Result<()>;
    /// Gives the file an owner and group, as far as the process may; never fails.
    fn set_owner(&self, file: &File, uid: u32, gid: u32);
    fn sync(&self, file: &File) -> io::Result<()>;
    fn sync_dir(&self, dir: &Dir) -> io::Result<()>;
    /// A hard link `to` of `from` (both in `dir`).
    fn link(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()>;
    /// Renames `from` over `to` (both in `dir`), atomically.
    fn rename(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()>;
    /// Renames `from` to `to` only if `to` does not exist.
    fn rename_new(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()>;
    fn remove(&self, dir: &Dir, name: &str) -> io::Result<()>;
    /// The names in a directory.
    fn list(&self, dir: &Dir) -> io::Result<Vec<String>>;
    /// Opens an existing file and takes its lock; `None` when another process holds it.
    fn open_locked(&self, dir: &Dir, name: &str) -> io::Result<Option<File>>;
}

fn try_lock(file: File) -> io::Result<Option<File>> {
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

/// The real file system.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RealOps;

#[cfg(unix)]
mod unix {
    use std::fs::File;
    use std::io::{self, Read};
    use std::os::fd::OwnedFd;
    use std::path::Path;

    use rustix::fs::{AtFlags, FileType, Mode, OFlags, RenameFlags, Stat};

    use super::{Dir, FileBytes, Kind, Meta, Ops, RealOps};

    #[allow(clippy::unnecessary_cast, clippy::useless_conversion, reason = "field types differ between platforms")]
    fn meta(st: &Stat) -> Meta {
        let kind = match FileType::from_raw_mode(st.st_mode) {
            FileType::RegularFile => Kind::File,
            FileType::Directory => Kind::Dir,
            FileType::Symlink => Kind::Symlink,
            _ => Kind::Other,
        };
        Meta {
            kind,
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
            size: st.st_size as u64,
            mtime: (st.st_mtime as i64, st.st_mtime_nsec as i64),
            mode: st.st_mode as u32 & 0o7777,
            uid: st.st_uid,
            gid: st.st_gid,
        }
    }

    const DIR_FLAGS: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::NOFOLLOW).union(OFlags::CLOEXEC);

    impl Ops for RealOps {
        fn open_root(&self, root: &Path) -> io::Result<Dir> {
            // The root itself may be reached through links (it was canonicalized).
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
            Ok(rustix::fs::open(root, flags, Mode::empty())?)
        }

        fn open_dir(&self, dir: &Dir, name: &str) -> io::Result<Dir> {
            Ok(rustix::fs::openat(dir, name, DIR_FLAGS, Mode::empty())?)
        }

        fn mkdir(&self, dir: &Dir, name: &str) -> io::Result<()> {
            Ok(rustix::fs::mkdirat(dir, name, Mode::from_raw_mode(0o777))?)
        }

        fn rmdir(&self, dir: &Dir, name: &str) -> io::Result<()> {
            Ok(rustix::fs::unlinkat(dir, name, AtFlags::REMOVEDIR)?)
        }

        fn stat(&self, dir: &Dir, name: &str) -> io::Result<Option<Meta>> {
            match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) => Ok(Some(meta(&st))),
                Err(rustix::io::Errno::NOENT) => Ok(None),
                Err(e) => Err(e.into()),
            }
        }

        fn read(&self, dir: &Dir, name: &str) -> io::Result<(Vec<u8>, Meta)> {
            let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
            let fd: OwnedFd = rustix::fs::openat(dir, name, flags, Mode::empty())?;
            let md = meta(&rustix::fs::fstat(&fd)?);
            if md.kind != Kind::File {
                return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
            }
            let mut file = File::from(fd);
            let mut bytes = Vec::with_capacity(usize::try_from(md.size).unwrap_or(0).min(1 << 30));
            file.read_to_end(&mut bytes)?;
            Ok((bytes, md))
        }

        fn create(&self, dir: &Dir, name: &str, private: bool) -> io::Result<File> {
            let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            let mode = Mode::from_raw_mode(if private { 0o600 } else { 0o666 });
            Ok(File::from(rustix::fs::openat(dir, name, flags, mode)?))
        }

        fn write(&self, file: &mut File, bytes: &FileBytes) -> io::Result<()> {
            bytes.write_to(file)
        }

        fn set_mode(&self, file: &File, mode: u32) -> io::Result<()> {
            Ok(rustix::fs::fchmod(file, Mode::from_raw_mode(mode))?)
        }

        fn set_owner(&self, file: &File, uid: u32, gid: u32) {
            let Ok(st) = rustix::fs::fstat(file) else { return };
            if st.st_uid == uid && st.st_gid == gid {
                return;
            }
            let owner = rustix::fs::Uid::from_raw(uid);
            let group = rustix::fs::Gid::from_raw(gid);
            // Only a privileged process may give a file away; anyone may set a group
            // they belong to. What is not allowed is left as it is.
            if rustix::fs::fchown(file, Some(owner), Some(group)).is_err() {
                let _ = rustix::fs::fchown(file, None, Some(group));
            }
        }

        fn sync(&self, file: &File) -> io::Result<()> {
            file.sync_all()
        }

        fn sync_dir(&self, dir: &Dir) -> io::Result<()> {
            Ok(rustix::fs::fsync(dir)?)
        }

        fn link(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()> {
            Ok(rustix::fs::linkat(dir, from, dir, to, AtFlags::empty())?)
        }

        fn rename(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()> {
            Ok(rustix::fs::renameat(dir, from, dir, to)?)
        }

        fn rename_new(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()> {
            match rustix::fs::renameat_with(dir, from, dir, to, RenameFlags::NOREPLACE) {
                Ok(()) => Ok(()),
                // File systems without RENAME_NOREPLACE: a link cannot replace anything.
                Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {
                    self.link(dir, from, to)?;
                    self.remove(dir, from)
                }
                Err(e) => Err(e.into()),
            }
        }

        fn remove(&self, dir: &Dir, name: &str) -> io::Result<()> {
            Ok(rustix::fs::unlinkat(dir, name, AtFlags::empty())?)
        }

        fn list(&self, dir: &Dir) -> io::Result<Vec<String>> {
            let fd = rustix::fs::openat(dir, ".", DIR_FLAGS, Mode::empty())?;
            let mut names = Vec::new();
            for entry in rustix::fs::Dir::new(fd)? {
                let entry = entry?;
                let name = entry.file_name().to_string_lossy().into_owned();
                if name != "." && name != ".." {
                    names.push(name);
                }
            }
            Ok(names)
        }

        fn open_locked(&self, dir: &Dir, name: &str) -> io::Result<Option<File>> {
            let flags = OFlags::RDWR | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            super::try_lock(File::from(rustix::fs::openat(dir, name, flags, Mode::empty())?))
        }
    }
}

#[cfg(not(unix))]
mod other {
    //! Path-based operations for platforms without `openat`: the walk checks each
    //! component for a link before use, which leaves a window a descriptor-based walk
    //! does not have.
    use std::fs::{self, File, OpenOptions};
    use std::io;
    use std::path::Path;

    use super::{Dir, FileBytes, Kind, Meta, Ops, RealOps};

    fn meta(md: &fs::Metadata) -> Meta {
        let ft = md.file_type();
        let kind = if ft.is_symlink() {
            Kind::Symlink
        } else if ft.is_dir() {
            Kind::Dir
        } else if ft.is_file() {
            Kind::File
        } else {
            Kind::Other
        };
        let mtime = md
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or((0, 0), |d| (d.as_secs() as i64, i64::from(d.subsec_nanos())));
        Meta { kind, dev: 0, ino: 0, size: md.len(), mtime, mode: 0, uid: 0, gid: 0 }
    }

    impl Ops for RealOps {
        fn open_root(&self, root: &Path) -> io::Result<Dir> {
            Ok(root.to_path_buf())
        }
        fn open_dir(&self, dir: &Dir, name: &str) -> io::Result<Dir> {
            let path = dir.join(name);
            let md = fs::symlink_metadata(&path)?;
            if !md.is_dir() {
                return Err(io::Error::new(io::ErrorKind::NotADirectory, "not a directory"));
            }
            Ok(path)
        }
        fn mkdir(&self, dir: &Dir, name: &str) -> io::Result<()> {
            fs::create_dir(dir.join(name))
        }
        fn rmdir(&self, dir: &Dir, name: &str) -> io::Result<()> {
            fs::remove_dir(dir.join(name))
        }
        fn stat(&self, dir: &Dir, name: &str) -> io::Result<Option<Meta>> {
            match fs::symlink_metadata(dir.join(name)) {
                Ok(md) => Ok(Some(meta(&md))),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(e),
            }
        }
        fn read(&self, dir: &Dir, name: &str) -> io::Result<(Vec<u8>, Meta)> {
            let path = dir.join(name);
            let md = meta(&fs::symlink_metadata(&path)?);
            if md.kind != Kind::File {
                return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
            }
            Ok((fs::read(&path)?, md))
        }
        fn create(&self, dir: &Dir, name: &str, _private: bool) -> io::Result<File> {
            OpenOptions::new().write(true).create_new(true).open(dir.join(name))
        }
        fn write(&self, file: &mut File, bytes: &FileBytes) -> io::Result<()> {
            bytes.write_to(file)
        }
        fn set_mode(&self, _file: &File, _mode: u32) -> io::Result<()> {
            Ok(())
        }
        fn set_owner(&self, _file: &File, _uid: u32, _gid: u32) {}
        fn sync(&self, file: &File) -> io::Result<()> {
            file.sync_all()
        }
        fn sync_dir(&self, _dir: &Dir) -> io::Result<()> {
            Ok(())
        }
        fn link(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()> {
            fs::hard_link(dir.join(from), dir.join(to))
        }
        fn rename(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()> {
            fs::rename(dir.join(from), dir.join(to))
        }
        fn rename_new(&self, dir: &Dir, from: &str, to: &str) -> io::Result<()> {
            self.link(dir, from, to)?;
            self.remove(dir, from)
        }
        fn remove(&self, dir: &Dir, name: &str) -> io::Result<()> {
            fs::remove_file(dir.join(name))
        }
        fn list(&self, dir: &Dir) -> io::Result<Vec<String>> {
            fs::read_dir(dir)?.map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned())).collect()
        }
        fn open_locked(&self, dir: &Dir, name: &str) -> io::Result<Option<File>> {
            super::try_lock(OpenOptions::new().read(true).write(true).open(dir.join(name))?)
        }
    }
}

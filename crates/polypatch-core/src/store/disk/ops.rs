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

use crate::text::file_bytes::FileBytes;

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
    /// The last change of the content or of the inode (mode, owner, links, extended
    /// attributes); no program can set it back.
    pub ctime: (i64, i64),
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
}

impl Meta {
    /// The same file with the same content, as far as metadata can tell, whatever
    /// happened to its inode (a hard link made to it changes its `ctime`).
    pub fn same_file(&self, other: &Meta) -> bool {
        self.kind == other.kind
            && self.dev == other.dev
            && self.ino == other.ino
            && self.size == other.size
            && self.mtime == other.mtime
    }

    /// Whether what is at a name now (`now`) is what was there before (`then`): the same
    /// file, untouched since (content, mode, owner, links, extended attributes), or still
    /// nothing.
    pub fn unchanged(then: Option<&Meta>, now: Option<&Meta>) -> bool {
        match (then, now) {
            (None, None) => true,
            (Some(a), Some(b)) => a.same_file(b) && a.ctime == b.ctime,
            _ => false,
        }
    }

    /// The same file (inode), whatever its content.
    pub fn same_inode(&self, other: &Meta) -> bool {
        self.dev == other.dev && self.ino == other.ino && self.ino != 0
    }
}

/// Extended attributes a replacement takes over from the file it replaces: names and
/// values (see [`copied_xattr`]).
pub(crate) type Xattrs = Vec<(std::ffi::CString, Vec<u8>)>;

/// Whether an extended attribute goes over to a file's replacement: the user's own
/// (`user.*`) and the POSIX ACL (`system.posix_acl_access`, unless `acl` is false: a
/// patch that sets the mode replaces the ACL's entries, as `git apply` does). Not the
/// kernel's and the security modules' (`security.*`: a label is given by policy to a new
/// file, and file capabilities, like the set-user-ID bit, must not outlive a change of
/// content), nor `trusted.*` (privileged).
pub(crate) fn copied_xattr(name: &[u8], acl: bool) -> bool {
    name.starts_with(b"user.") || (acl && name == b"system.posix_acl_access")
}

/// A regular file as read, with what a replacement must keep of it.
#[derive(Debug)]
pub(crate) struct Read {
    pub bytes: Vec<u8>,
    pub meta: Meta,
    /// The extended attributes a replacement takes over (Linux; empty elsewhere).
    pub xattrs: Xattrs,
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
    /// Reads a regular file (refusing a symbolic link, never waiting on a FIFO) with its
    /// metadata and, when `xattrs`, the extended attributes a replacement keeps; a file over
    /// `max` bytes is refused (`FileTooLarge`) before it is read whole.
    fn read(&self, dir: &Dir, name: &str, max: u64, xattrs: bool) -> io::Result<Read>;
    /// The extended attributes a replacement of the regular file `name` keeps, and the
    /// file's metadata (for a file that was not read).
    fn xattrs(&self, dir: &Dir, name: &str) -> io::Result<(Meta, Xattrs)>;
    /// Gives `file` these extended attributes.
    fn set_xattrs(&self, file: &File, xattrs: &Xattrs) -> io::Result<()>;
    /// Creates a new file that must not exist yet, with the permission bits `mode` as the
    /// process's umask (or the directory's default ACL) lets them through.
    fn create(&self, dir: &Dir, name: &str, mode: u32) -> io::Result<File>;
    /// Writes `bytes` to `file` (an edited file's lines piece by piece, see [`FileBytes::write_to`]).
    fn write(&self, file: &mut File, bytes: &FileBytes) -> io::Result<()>;
    fn set_mode(&self, file: &File, mode: u32) -> io::Result<()>;
    /// Gives the file an owner and group, as far as the process may (what it may not is
    /// left as it is), then the permission bits `mode`, unless it has them already.
    fn set_owner_and_mode(&self, file: &File, uid: u32, gid: u32, mode: Option<u32>) -> io::Result<()>;
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
    /// Opens (creating it) the lock file `name` and takes its lock (`flock`, exclusive)
    /// without waiting: `None` when another process holds it, or when the name was removed
    /// or replaced by the holder before (try again). A lock file is empty: anything else
    /// under the name is refused.
    fn lock(&self, dir: &Dir, name: &str) -> io::Result<Option<File>>;
    /// Whether another process holds the lock of the regular file `name` (a commit of an
    /// earlier version of polypatch holds its journal's).
    fn is_locked(&self, dir: &Dir, name: &str) -> io::Result<bool>;
}

/// Whether another process holds `file`'s lock (exclusively).
fn locked_elsewhere(file: &File) -> io::Result<bool> {
    match file.try_lock_shared() {
        Ok(()) => {
            file.unlock()?;
            Ok(false)
        }
        Err(std::fs::TryLockError::WouldBlock) => Ok(true),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

fn too_large(max: u64) -> io::Error {
    io::Error::new(io::ErrorKind::FileTooLarge, format!("it is over {max} bytes"))
}

/// The real file system.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RealOps;

#[cfg(unix)]
mod unix {
    use std::fs::File;
    use std::io::{self, Read as _};
    use std::os::fd::{AsFd, OwnedFd};
    use std::path::Path;

    use rustix::fs::{AtFlags, FileType, Mode, OFlags, RenameFlags, Stat};

    use super::{Dir, FileBytes, Kind, Meta, Ops, Read, RealOps, Xattrs};

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
            ctime: (st.st_ctime as i64, st.st_ctime_nsec as i64),
            mode: st.st_mode as u32 & 0o7777,
            uid: st.st_uid,
            gid: st.st_gid,
        }
    }

    const DIR_FLAGS: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::NOFOLLOW).union(OFlags::CLOEXEC);
    /// A regular file opened for reading: never through a link, never waiting for a
    /// writer (a FIFO).
    const READ_FLAGS: OFlags = OFlags::RDONLY.union(OFlags::NOFOLLOW).union(OFlags::NONBLOCK).union(OFlags::CLOEXEC);

    fn not_a_file() -> io::Error {
        io::Error::new(io::ErrorKind::InvalidInput, "not a regular file")
    }

    /// Opens the regular file `name` for reading, with its metadata.
    fn open_file(dir: &Dir, name: &str) -> io::Result<(OwnedFd, Meta)> {
        let fd: OwnedFd = rustix::fs::openat(dir, name, READ_FLAGS, Mode::empty())?;
        let md = meta(&rustix::fs::fstat(&fd)?);
        if md.kind != Kind::File {
            return Err(not_a_file());
        }
        Ok((fd, md))
    }

    /// The extended attributes of an open file that a replacement keeps.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn xattrs_of(fd: impl AsFd) -> io::Result<Xattrs> {
        use rustix::io::Errno;
        let fd = fd.as_fd();
        let mut small = [0u8; 256];
        let names = match rustix::fs::flistxattr(fd, &mut small[..]) {
            Ok(0) => return Ok(Vec::new()),
            Ok(n) => small[..n].to_vec(),
            Err(Errno::NOTSUP) => return Ok(Vec::new()),
            Err(Errno::RANGE) => {
                let mut big = vec![0u8; rustix::fs::flistxattr_query(fd)?];
                let n = rustix::fs::flistxattr(fd, &mut big[..])?;
                big.truncate(n);
                big
            }
            Err(e) => return Err(e.into()),
        };
        let mut out = Vec::new();
        for name in names.split(|&b| b == 0).filter(|n| super::copied_xattr(n, true)) {
            let Ok(name) = std::ffi::CString::new(name) else { continue };
            let value = match rustix::fs::fgetxattr(fd, name.as_c_str(), &mut small[..]) {
                Ok(n) => small[..n].to_vec(),
                // Removed since it was listed.
                Err(Errno::NODATA) => continue,
                Err(Errno::RANGE) => {
                    let mut big = vec![0u8; rustix::fs::fgetxattr_query(fd, name.as_c_str())?];
                    let n = rustix::fs::fgetxattr(fd, name.as_c_str(), &mut big[..])?;
                    big.truncate(n);
                    big
                }
                Err(e) => return Err(e.into()),
            };
            out.push((name, value));
        }
        Ok(out)
    }

    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    #[allow(clippy::unnecessary_wraps, reason = "the Linux version can fail")]
    fn xattrs_of(_fd: impl AsFd) -> io::Result<Xattrs> {
        Ok(Vec::new())
    }

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

        fn read(&self, dir: &Dir, name: &str, max: u64, xattrs: bool) -> io::Result<Read> {
            let (fd, md) = open_file(dir, name)?;
            if md.size > max {
                return Err(super::too_large(max));
            }
            let xattrs = if xattrs { xattrs_of(&fd)? } else { Vec::new() };
            let file = File::from(fd);
            let mut bytes = Vec::with_capacity(usize::try_from(md.size).unwrap_or(0).min(1 << 30));
            // A file that grows while it is read stops at `max` too.
            file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
            if bytes.len() as u64 > max {
                return Err(super::too_large(max));
            }
            Ok(Read { bytes, meta: md, xattrs })
        }

        fn xattrs(&self, dir: &Dir, name: &str) -> io::Result<(Meta, Xattrs)> {
            let (fd, md) = open_file(dir, name)?;
            Ok((md, xattrs_of(&fd)?))
        }

        #[cfg(any(target_os = "linux", target_os = "android"))]
        fn set_xattrs(&self, file: &File, xattrs: &Xattrs) -> io::Result<()> {
            for (name, value) in xattrs {
                rustix::fs::fsetxattr(file, name.as_c_str(), value, rustix::fs::XattrFlags::empty()).map_err(|e| {
                    io::Error::new(
                        io::Error::from(e).kind(),
                        format!("cannot give the extended attribute `{}` to the new file: {e}", name.to_string_lossy()),
                    )
                })?;
            }
            Ok(())
        }

        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        fn set_xattrs(&self, _file: &File, _xattrs: &Xattrs) -> io::Result<()> {
            Ok(())
        }

        fn create(&self, dir: &Dir, name: &str, mode: u32) -> io::Result<File> {
            let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            Ok(File::from(rustix::fs::openat(dir, name, flags, Mode::from_raw_mode(mode & 0o777))?))
        }

        fn write(&self, file: &mut File, bytes: &FileBytes) -> io::Result<()> {
            bytes.write_to(file)
        }

        fn set_mode(&self, file: &File, mode: u32) -> io::Result<()> {
            Ok(rustix::fs::fchmod(file, Mode::from_raw_mode(mode))?)
        }

        fn set_owner_and_mode(&self, file: &File, uid: u32, gid: u32, mode: Option<u32>) -> io::Result<()> {
            let st = rustix::fs::fstat(file).ok();
            if st.is_none_or(|st| st.st_uid != uid || st.st_gid != gid) {
                let owner = rustix::fs::Uid::from_raw(uid);
                let group = rustix::fs::Gid::from_raw(gid);
                // Only a privileged process may give a file away; anyone may set a group
                // they belong to. What is not allowed is left as it is.
                if rustix::fs::fchown(file, Some(owner), Some(group)).is_err() {
                    let _ = rustix::fs::fchown(file, None, Some(group));
                }
            }
            match mode {
                #[allow(clippy::unnecessary_cast, reason = "the field's type differs between platforms")]
                Some(mode) if st.is_none_or(|st| st.st_mode as u32 & 0o7777 != mode) => self.set_mode(file, mode),
                _ => Ok(()),
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

        fn lock(&self, dir: &Dir, name: &str) -> io::Result<Option<File>> {
            let flags = OFlags::RDWR | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
            let fd = match rustix::fs::openat(dir, name, flags, Mode::from_raw_mode(0o666)) {
                Ok(fd) => fd,
                // Another user's lock file: a shared root. `flock` takes a lock through a
                // descriptor open for reading too (on the local machine).
                Err(rustix::io::Errno::ACCESS) => rustix::fs::openat(dir, name, READ_FLAGS, Mode::empty())?,
                Err(e) => return Err(e.into()),
            };
            let st = meta(&rustix::fs::fstat(&fd)?);
            if st.kind != Kind::File {
                return Err(not_a_file());
            }
            // The holder removes it when it lets go: a file with something in it is not
            // polypatch's, and must not be removed.
            if st.size != 0 {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "it is not empty"));
            }
            let file = File::from(fd);
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
                Err(std::fs::TryLockError::Error(e)) => return Err(e),
            }
            // The holder before removes the name before it lets go: a lock on a file no
            // longer under the name excludes no one.
            match self.stat(dir, name)? {
                Some(now) if now.same_inode(&st) => Ok(Some(file)),
                _ => Ok(None),
            }
        }

        fn is_locked(&self, dir: &Dir, name: &str) -> io::Result<bool> {
            let (fd, _) = open_file(dir, name)?;
            super::locked_elsewhere(&File::from(fd))
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

    use super::{Dir, FileBytes, Kind, Meta, Ops, Read, RealOps, Xattrs};

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
        Meta { kind, dev: 0, ino: 0, size: md.len(), mtime, ctime: (0, 0), mode: 0, uid: 0, gid: 0 }
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
        fn read(&self, dir: &Dir, name: &str, max: u64, _xattrs: bool) -> io::Result<Read> {
            use std::io::Read as _;
            let path = dir.join(name);
            let md = meta(&fs::symlink_metadata(&path)?);
            if md.kind != Kind::File {
                return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
            }
            if md.size > max {
                return Err(super::too_large(max));
            }
            let mut bytes = Vec::new();
            File::open(&path)?.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
            if bytes.len() as u64 > max {
                return Err(super::too_large(max));
            }
            Ok(Read { bytes, meta: md, xattrs: Vec::new() })
        }
        fn xattrs(&self, dir: &Dir, name: &str) -> io::Result<(Meta, Xattrs)> {
            let md = meta(&fs::symlink_metadata(dir.join(name))?);
            if md.kind != Kind::File {
                return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
            }
            Ok((md, Vec::new()))
        }
        fn set_xattrs(&self, _file: &File, _xattrs: &Xattrs) -> io::Result<()> {
            Ok(())
        }
        fn create(&self, dir: &Dir, name: &str, _mode: u32) -> io::Result<File> {
            OpenOptions::new().write(true).create_new(true).open(dir.join(name))
        }
        fn write(&self, file: &mut File, bytes: &FileBytes) -> io::Result<()> {
            bytes.write_to(file)
        }
        fn set_mode(&self, _file: &File, _mode: u32) -> io::Result<()> {
            Ok(())
        }
        fn set_owner_and_mode(&self, _file: &File, _uid: u32, _gid: u32, _mode: Option<u32>) -> io::Result<()> {
            Ok(())
        }
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
        fn lock(&self, dir: &Dir, name: &str) -> io::Result<Option<File>> {
            let file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(dir.join(name))?;
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
                Err(std::fs::TryLockError::Error(e)) => return Err(e),
            }
            // Without inode numbers the name cannot be checked: the lock file stays.
            Ok(Some(file))
        }
        fn is_locked(&self, dir: &Dir, name: &str) -> io::Result<bool> {
            super::locked_elsewhere(&File::open(dir.join(name))?)
        }
    }
}

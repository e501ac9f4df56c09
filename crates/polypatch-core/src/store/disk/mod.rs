//! The disk as a file set: paths confined to a root and resolved to their real files,
//! all-or-nothing commits that survive a crash.
//!
//! # How a commit is written
//!
//! 1. The commit takes the root's lock (see [below](#the-roots-lock)), waiting a few
//!    seconds for another commit or recovery that holds it, and holds it until its
//!    journal is gone. A journal already there was left by a crash: the commit refuses to
//!    start beside it (recovery first).
//! 2. A journal `.polypatch-<id>.journal` is created in the root. It lists, before the
//!    first step is taken (in one write), the directories to create and, for each target,
//!    its temporary file, its backup, the XXH3-128 hash of the new content, and the size
//!    and modification time of the original as it was read.
//! 3. Every new content is written to a temporary file `.polypatch-<id>-<n>.new` next to
//!    its target, created with no more rights than the original gives (its group no more
//!    than everyone else, until the group is the original's), then given the original's
//!    owner (as far as the process may), mode and extended attributes (see
//!    [below](#modes-owner-extended-attributes)). Every existing target that is replaced
//!    gets a backup `.polypatch-<id>-<n>.old`: a hard link to the original (a copy given
//!    the original's modification time where the file system has no hard links). Each
//!    target is checked to still be the file that was read.
//! 4. With [`Durability::Full`], the temporary files, the journal and their directories
//!    are synced.
//! 5. Each temporary file is renamed over its target (atomic: the path holds the old
//!    content, then the new, never nothing); a file to delete is renamed to its backup
//!    name (it is its own backup: no link, and the path goes from the old content to
//!    nothing at once). Right before
//!    each rename the target is looked at once more: still the inode that was read, with
//!    its size, modification time and change time (`ctime`, which no program can set
//!    back: it moves with a write, a `chmod`, a new link, an extended attribute); a file
//!    modified less than two seconds before it was read, where a second change in the
//!    same tick of the file system's clock would leave all of these as they were, is
//!    also read again and compared byte for byte. A file another program changed since
//!    it was read is not replaced: the commit is undone and says so.
//! 6. The journal is renamed to `.polypatch-<id>.done`: the commit has happened. Backups
//!    and the journal are then removed, and the lock let go.
//!
//! A commit that replaces one existing file and syncs nothing ([`Durability::None`]) keeps
//! no backup: the journal names the temporary file only, and the rename of step 5 is the
//! commit point (nothing is undone after it); the journal is then removed.
//!
//! A failure before step 6 undoes every step in reverse: backups are renamed back over
//! their targets, new files and created directories removed, each only while the target
//! still holds what this commit wrote (a file another program saved meanwhile stays, and
//! so does the backup, named in the error). A backup is never removed unless its target
//! holds the original again. A crash leaves the journal behind; [`DiskFileSet::recover`]
//! (the CLI's `polypatch recover`, and the start of every `polypatch apply`) rolls an
//! interrupted commit back, or finishes the clean-up of one that was done, and removes
//! every leftover.
//!
//! # What another program can still lose
//!
//! Nothing makes a rename conditional on what it replaces: between the last look of
//! step 5 and `rename(2)` (a few microseconds, no other step in between) an editor's save
//! is overwritten and the commit reports success. Another polypatch cannot land there:
//! it waits for the lock. A program that writes a file in place while polypatch reads it
//! can be read half written; the look before the rename then sees the change. (Linux's
//! `renameat2(RENAME_EXCHANGE)` could tell after the fact and swap back; it is not used.)
//!
//! # Recovery
//!
//! A journal is input like a patch: one committed into a cloned repository, or dropped by
//! another user into a shared folder, must not move or delete anything. Recovery takes
//! the root's lock (so it never touches a running commit's journal), then checks each
//! journal whole before it acts: a regular file of the current user, every path inside
//! the root and none of the commit's own names, every temporary file and backup named as
//! the journal's commit names them (`.polypatch-<id>-<n>.new` / `.old`, in the directory
//! of their target). A journal that fails is left as it is and reported with the line and
//! name at fault; so is anything named like a journal that is a directory, a FIFO or a
//! link (never opened in a way that waits). Then a target is given back its backup only
//! while it holds exactly the content the interrupted commit wrote (its hash in the
//! journal) and the backup still has the original's size and modification time, and a
//! file the commit created is removed only while it holds that content:
//! a file changed since the crash (the user kept working) is left as it is, its backup is
//! kept, and the journal stays, with the reason in [`Recovery::problems`]. Journals of
//! earlier versions have no hashes: recovery then changes no file it cannot check, and
//! says so.
//!
//! # The root's lock
//!
//! `flock` on the file `.polypatch.lock` in the root, a name no patch can write. It is
//! created by whoever takes the lock and removed by the holder before it lets go (a
//! waiter that then gets the lock of the removed file sees the name gone, and opens the
//! next), so it is only there while a commit runs or after a crash (the next commit or
//! recovery removes it). A lock file, not the root directory itself: on NFS, Linux sends
//! the lock of a regular file open for writing to the server (as a POSIX lock), while a
//! lock on a directory stays on one client. A root the user cannot write has no lock:
//! nothing can be committed there either. Another user's lock file is opened for reading
//! and locked on the local machine only. [`DiskFileSet::hold_lock`] holds the lock for
//! longer than a commit: `polypatch apply` holds it from its recovery through its reads to
//! its commit, so two applies in one root take turns and neither works from content the
//! other is replacing. (Commits of earlier versions of polypatch lock their journal
//! instead; recovery leaves a journal locked that way alone, and commits still lock their
//! journal for those versions.)
//!
//! # Modes, owner, extended attributes
//!
//! An edited file keeps its mode without the set-user-ID, set-group-ID and sticky bits,
//! which a change of content drops (as git and GNU patch do). A mode the patch gives
//! (`new file mode 100755`, `new mode …`) goes through the process's umask, as `git
//! apply` does: the kernel applies it to the mode `openat` creates the file with (no
//! umask is read or set: that would race with other threads). Git keeps only whether a
//! file is executable (`0777` or `0666` through the umask); polypatch gives the patch's
//! bits through the umask, the same for git's two modes under the usual umasks, and never
//! more than the patch asks. The owner and group are the original's, as far as the
//! process may set them. On Linux the original's extended attributes in `user.*` and its
//! POSIX ACL (`system.posix_acl_access`) go to the replacement, the ACL after the mode
//! (its mask is the group bits); a mode from the patch replaces the ACL, as `git apply`'s
//! new file does. Security labels and file capabilities (`security.*`) are not copied: a
//! new file is labelled by policy, and capabilities, like set-user-ID, must not outlive a
//! change of content. Other systems keep no extended attributes.
//!
//! Directories are opened one component at a time from a handle on the root without
//! following symbolic links, so a directory swapped for a link while a patch is applied
//! cannot receive the write. A commit keeps at most 64 of them open (a quarter of the
//! process's open-file limit, when that is lower) and takes its targets directory by
//! directory: one closed to make room is opened again the same way when it is needed, and
//! must then be the directory it was (device and inode), or the commit is undone.

mod commit;
mod dirs;
mod journal;
mod lock;
mod ops;
mod recover;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::store::fileset::{Change, CommitError, Entry, FileSource, FileStore, PathError, PathErrorKind, RelPath};
use crate::text::file_bytes::FileBytes;
use ops::{Dir, Kind, Meta, Ops, RealOps, Xattrs};

pub use recover::Recovery;

/// How far a commit of a [`DiskFileSet`] flushes what it writes to stable storage.
///
/// It is a property of the disk, not of an apply: the same plan applied in memory or to an
/// editor's buffers has nothing to flush. Every policy writes each new content to a
/// temporary file renamed over its target, keeps a backup and a journal, and undoes every
/// step when one fails, so other processes see each file's old or new content, never a
/// part, and a crash of the process (kill, panic) is rolled back by
/// [`DiskFileSet::recover`]. The policies differ only for a crash of the machine (power
/// loss, kernel panic) before the data reached the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Durability {
    /// No `fsync`, as GNU patch, `git apply` and most editors write work-tree files: the
    /// kernel writes the data back when it chooses (seconds). A power loss soon after a
    /// commit may lose it, or part of it across files; on file systems that flush a file
    /// renamed over an existing one (ext4 with its default `auto_da_alloc`, btrfs) each
    /// replaced file keeps its old or its new content. The default: a commit costs no more than the renames, and the files an
    /// editor or an agent patches are most often under version control.
    #[default]
    None,
    /// `fsync` every new file, the journal and every directory touched, before the first
    /// rename and after the last: a commit that returned has reached the device, and one
    /// interrupted by a power loss is rolled back by recovery, all or nothing. Each sync
    /// waits for the device (a few milliseconds on an SSD, more when other writes are
    /// queued).
    Full,
}

impl Durability {
    /// Every policy, the default first.
    pub const ALL: [Durability; 2] = [Durability::None, Durability::Full];

    /// The policy's name: `none` or `full`.
    pub fn name(self) -> &'static str {
        match self {
            Durability::None => "none",
            Durability::Full => "full",
        }
    }

    /// The policy named `name` (`none` or `full`, as [`Durability::name`] gives).
    pub fn from_name(name: &str) -> Option<Durability> {
        Durability::ALL.into_iter().find(|d| d.name() == name)
    }

    fn syncs(self) -> bool {
        self == Durability::Full
    }
}

/// The files under a root directory on disk.
///
/// ```
/// use polypatch_core::{apply, ApplyOptions, DiskFileSet, Edit, EditPlan, FileEdit};
///
/// let dir = tempfile::tempdir().unwrap();
/// std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
/// let mut files = DiskFileSet::new(dir.path()).unwrap();
/// let plan = EditPlan::new("", vec![FileEdit::modify("a.txt", vec![Edit::replace(["one"], ["1"])])]);
/// apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
/// assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "1\n");
/// ```
pub struct DiskFileSet {
    root: PathBuf,
    given: PathBuf,
    durability: Durability,
    ops: Arc<dyn Ops>,
    /// What each path was when it was read: the commit refuses to replace a file that
    /// changed since (another program's edit would be lost).
    seen: Mutex<HashMap<RelPath, Option<Seen>>>,
    /// What the reads of one apply share (see [`Handles`]).
    handles: Mutex<Handles>,
    /// How long a commit or a recovery waits for another one to let go of the root.
    lock_wait: Duration,
    /// The root's commit lock, when [`DiskFileSet::hold_lock`] took it.
    held: Mutex<Option<lock::Held>>,
    /// How many directories a commit keeps open at once (see [`dirs::Dirs`]).
    open_dirs: usize,
}

/// What the reads of one apply share, dropped when it commits: the root's handle, the
/// directory the last read was in (a plan's paths come directory by directory), and the
/// real path of the last resolved path's directory. A directory replaced by a link
/// meanwhile is still not read through (a directory is opened anew, without following
/// links, for every other directory), and the commit opens everything again.
#[derive(Default)]
struct Handles {
    root: Option<Arc<Dir>>,
    /// A directory (root-relative) and its handle.
    dir: Option<(RelPath, Arc<Dir>)>,
    /// A path's directory as written and as resolved ([`DiskFileSet::real`]).
    real: Option<(String, PathBuf)>,
}

/// What a path held when it was read.
#[derive(Debug, Clone)]
struct Seen {
    meta: Meta,
    /// The content as read (shared, not copied): its hash goes into the journal, and a
    /// racy file's content is compared again right before the rename.
    bytes: FileBytes,
    /// Modified so shortly before it was read ([`RACY`]) that a second change in the same
    /// tick of the file system's clock could leave size and timestamps as they were: the
    /// commit compares the content itself.
    racy: bool,
    /// The extended attributes its replacement takes over.
    xattrs: Xattrs,
}

/// How recent a file's modification time makes it racy (see [`Seen::racy`]): more than
/// the coarsest timestamps (FAT's two seconds; Linux's local file systems tick every few
/// milliseconds).
const RACY: Duration = Duration::from_secs(2);

/// Whether a file modified at `mtime` (seconds, nanoseconds) and read now is racy.
fn racy(mtime: (i64, i64)) -> bool {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let nanos = |secs: i128, sub: i128| secs * 1_000_000_000 + sub;
    nanos(i128::from(mtime.0), i128::from(mtime.1)) + RACY.as_nanos() as i128
        >= nanos(i128::from(now.as_secs()), i128::from(now.subsec_nanos()))
}

impl fmt::Debug for DiskFileSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DiskFileSet")
            .field("root", &self.root)
            .field("durability", &self.durability)
            .finish_non_exhaustive()
    }
}

impl Clone for DiskFileSet {
    fn clone(&self) -> Self {
        // The copy does not hold the original's lock: it takes its own to commit.
        DiskFileSet {
            root: self.root.clone(),
            given: self.given.clone(),
            durability: self.durability,
            ops: Arc::clone(&self.ops),
            seen: Mutex::new(self.seen().clone()),
            handles: Mutex::new(Handles::default()),
            lock_wait: self.lock_wait,
            held: Mutex::new(None),
            open_dirs: self.open_dirs,
        }
    }
}

impl DiskFileSet {
    /// The files under `root` (which must be an existing directory). A root that cannot
    /// be opened is an error of the system error's kind that names it and what failed
    /// (`cannot open the root directory `/srv/x`: No such file or directory (os error 2)`).
    pub fn new(root: impl AsRef<Path>) -> io::Result<Self> {
        Self::with_ops(root, Arc::new(RealOps))
    }

    pub(crate) fn with_ops(root: impl AsRef<Path>, ops: Arc<dyn Ops>) -> io::Result<Self> {
        let asked = root.as_ref();
        // The system's message is part of the text, not a `source()`: a report that prints
        // the chain of sources (`anyhow`'s `{:#}`) would say it twice.
        let open = |e: io::Error| {
            io::Error::new(e.kind(), format!("cannot open the root directory `{}`: {e}", asked.display()))
        };
        let given = std::path::absolute(asked).map_err(open)?;
        let root = asked.canonicalize().map_err(open)?;
        if !root.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("cannot use `{}` as the root directory: it is not a directory", asked.display()),
            ));
        }
        Ok(DiskFileSet {
            root,
            given,
            durability: Durability::default(),
            ops,
            seen: Mutex::new(HashMap::new()),
            handles: Mutex::new(Handles::default()),
            lock_wait: lock::WAIT,
            held: Mutex::new(None),
            open_dirs: dirs::cap(),
        })
    }

    /// How far a commit flushes what it writes to stable storage (see [`Durability`]).
    /// Default: [`Durability::None`]. Every policy keeps the atomic replace and the
    /// all-or-nothing commit with its rollback; only the syncs differ.
    ///
    /// ```
    /// use polypatch_core::{DiskFileSet, Durability};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let files = DiskFileSet::new(dir.path()).unwrap().durability(Durability::Full);
    /// assert_eq!(files.policy(), Durability::Full);
    /// ```
    #[must_use]
    pub fn durability(mut self, policy: Durability) -> Self {
        self.durability = policy;
        self
    }

    /// The durability policy commits use.
    pub fn policy(&self) -> Durability {
        self.durability
    }

    /// At most `n` directories open at once in a commit (see [`dirs::Dirs`]).
    #[cfg(test)]
    fn open_dirs(mut self, n: usize) -> Self {
        self.open_dirs = n;
        self
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

    /// Journals of commits that were interrupted (or are running in another process)
    /// under the root; [`DiskFileSet::recover`] rolls the interrupted ones back.
    pub fn interrupted(&self) -> io::Result<Vec<String>> {
        let root = self.ops.open_root(&self.root)?;
        self.pending(&root)
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, HashMap<RelPath, Option<Seen>>> {
        self.seen.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn handles(&self) -> std::sync::MutexGuard<'_, Handles> {
        self.handles.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The directory holding `path`, for a read: the last one read in when it is the same
    /// ([`Handles`]), else opened one component at a time without following links.
    /// `Ok(None)` when a component is missing.
    fn read_dir_of(&self, path: &RelPath) -> io::Result<Option<Arc<Dir>>> {
        let (root, last) = {
            let handles = self.handles();
            (handles.root.clone(), handles.dir.clone())
        };
        let root = if let Some(root) = root {
            root
        } else {
            let root = Arc::new(self.ops.open_root(&self.root)?);
            self.handles().root = Some(Arc::clone(&root));
            root
        };
        let Some(parent) = path.parent() else { return Ok(Some(root)) };
        if let Some((dir, handle)) = last
            && dir == parent
        {
            return Ok(Some(handle));
        }
        let Some(dir) = self.open_parent(&root, path)? else { return Ok(None) };
        let dir = Arc::new(dir);
        self.handles().dir = Some((parent, Arc::clone(&dir)));
        Ok(Some(dir))
    }

    /// Opens the directory holding `path`, one component at a time without following
    /// links. `Ok(None)` when a component is missing.
    fn open_parent(&self, root: &Dir, path: &RelPath) -> io::Result<Option<Dir>> {
        let comps: Vec<&str> = path.components().collect();
        let mut dir: Option<Dir> = None;
        for comp in &comps[..comps.len() - 1] {
            let parent = dir.as_ref().unwrap_or(root);
            match self.ops.open_dir(parent, comp) {
                Ok(d) => dir = Some(d),
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(e),
            }
        }
        match dir {
            Some(d) => Ok(Some(d)),
            None => self.ops.open_dir(root, ".").map(Some),
        }
    }

    /// Resolves the components of `rel` against the disk: a symbolic link inside the
    /// root is replaced by its real target, one leading out (or nowhere) is refused.
    fn real(&self, written: &str, rel: &RelPath) -> Result<RelPath, PathError> {
        let comps: Vec<&str> = rel.components().collect();
        let mut cur = self.root.clone();
        // The directory of the path resolved before, when it is this one's.
        let parent = comps[..comps.len().saturating_sub(1)].join("/");
        let mut start = 0;
        if comps.len() > 1
            && let Some((dir, real)) = &self.handles().real
            && *dir == parent
        {
            cur.clone_from(real);
            start = comps.len() - 1;
        }
        for (i, comp) in comps.iter().enumerate().skip(start) {
            if i == comps.len() - 1 && start == 0 && i > 0 {
                self.handles().real = Some((parent.clone(), cur.clone()));
            }
            let next = cur.join(comp);
            match fs::symlink_metadata(&next) {
                Ok(md) if md.file_type().is_symlink() => match fs::canonicalize(&next) {
                    Ok(target) if target.starts_with(&self.root) => cur = target,
                    Ok(_) => return Err(PathError::new(written, PathErrorKind::SymlinkOutside)),
                    Err(_) => {
                        // A dangling link: where would it lead?
                        let inside = fs::read_link(&next).ok().is_some_and(|t| {
                            let t = if t.is_absolute() { t } else { cur.join(t) };
                            lexical(&t).starts_with(&self.root)
                        });
                        let kind = if inside { PathErrorKind::BrokenSymlink } else { PathErrorKind::SymlinkOutside };
                        return Err(PathError::new(written, kind));
                    }
                },
                Ok(_) => cur = next,
                Err(_) => {
                    cur = next;
                    cur.extend(&comps[i + 1..]);
                    break;
                }
            }
        }
        let rest = cur.strip_prefix(&self.root).map_err(|_| PathError::new(written, PathErrorKind::SymlinkOutside))?;
        let rest: Vec<String> = rest.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        RelPath::parse(&rest.join("/"), None).map_err(|e| PathError::new(written, e.kind))
    }

    fn written(&self, path: &str) -> Result<RelPath, PathError> {
        let root = self.root.to_string_lossy();
        RelPath::parse(path, Some(&root)).or_else(|e| match e.kind {
            PathErrorKind::Absolute => RelPath::parse(path, Some(&self.given.to_string_lossy())),
            _ => Err(e),
        })
    }
}

/// `path` with `.` and `..` components folded, without touching the disk.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for comp in path.components() {
        match comp {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

impl FileSource for DiskFileSet {
    fn resolve(&self, path: &str) -> Result<RelPath, PathError> {
        let rel = self.written(path)?;
        // A patch must not plant a journal that the next recovery would act on.
        if rel.components().any(journal::is_reserved) {
            return Err(PathError::new(path, PathErrorKind::Reserved));
        }
        self.real(path, &rel)
    }

    fn as_written(&self, path: &str) -> Result<RelPath, PathError> {
        self.written(path)
    }

    fn is_symlink(&self, path: &str) -> bool {
        let Ok(rel) = self.written(path) else { return false };
        let parent = match rel.parent() {
            Some(p) => match self.real(path, &p) {
                Ok(p) => self.full_path(&p),
                Err(_) => return false,
            },
            None => self.root.clone(),
        };
        let name = rel.components().last().unwrap_or_default();
        fs::symlink_metadata(parent.join(name)).is_ok_and(|md| md.file_type().is_symlink())
    }

    fn read(&self, path: &RelPath) -> io::Result<Entry> {
        let dir = match self.read_dir_of(path) {
            Ok(Some(dir)) => dir,
            Ok(None) => {
                self.seen().insert(path.clone(), None);
                return Ok(Entry::Missing);
            }
            Err(e) if e.kind() == io::ErrorKind::NotADirectory => return Ok(Entry::Other),
            Err(e) => return Err(link_swapped(e, path)),
        };
        let name = path.components().last().unwrap_or_default();
        let Some(md) = self.ops.stat(&dir, name)? else {
            self.seen().insert(path.clone(), None);
            return Ok(Entry::Missing);
        };
        match md.kind {
            Kind::Dir => Ok(Entry::Directory),
            Kind::Symlink | Kind::Other => Ok(Entry::Other),
            Kind::File => {
                let read = self.ops.read(&dir, name, u64::MAX, true).map_err(|e| link_swapped(e, path))?;
                let bytes = FileBytes::from(read.bytes);
                let md = read.meta;
                let seen = Seen { meta: md, bytes: bytes.clone(), racy: racy(md.mtime), xattrs: read.xattrs };
                self.seen().insert(path.clone(), Some(seen));
                Ok(Entry::File { bytes, mode: mode_of(&md) })
            }
        }
    }
}

/// A walk that met a symbolic link where the resolved path had none: something changed
/// the tree while the patch was applied.
fn link_swapped(e: io::Error, path: &RelPath) -> io::Error {
    #[cfg(unix)]
    let looped = e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error());
    #[cfg(not(unix))]
    let looped = false;
    if looped {
        io::Error::new(
            e.kind(),
            format!("`{path}` changed while the patch was applied (a directory was replaced by a symbolic link)"),
        )
    } else {
        e
    }
}

#[cfg(unix)]
#[allow(clippy::unnecessary_wraps, reason = "other platforms have no mode")]
fn mode_of(md: &Meta) -> Option<u32> {
    Some(md.mode)
}

#[cfg(not(unix))]
fn mode_of(_md: &Meta) -> Option<u32> {
    None
}

impl FileStore for DiskFileSet {
    fn commit(&mut self, changes: &[Change]) -> Result<(), CommitError> {
        let result = self.transaction(changes);
        // What was read belongs to this apply; the next one reads again.
        self.seen().clear();
        *self.handles() = Handles::default();
        result
    }
}

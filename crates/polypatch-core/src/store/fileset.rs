//! The files a plan is applied to: a small trait, an in-memory implementation for editors
//! and tests, and root-relative path validation shared by every implementation.

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::sync::{Mutex, PoisonError};

use foldhash::{HashMap, HashMapExt};
#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use crate::text::file_bytes::FileBytes;

/// A validated root-relative path: `/`-separated, no empty, `.` or `..` components.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct RelPath(String);

impl RelPath {
    /// Validates `path` lexically against a root given as a `/`-separated absolute path
    /// (used for absolute paths in patches). Rejects `..` anywhere (a patch has no reason
    /// to climb, and refusing is simpler to trust than resolving), absolute paths outside
    /// `root`, and empty paths.
    pub fn parse(path: &str, root: Option<&str>) -> Result<RelPath, PathError> {
        // A path already in its normal form (relative, `/`-separated, no empty, `.` or `..`
        // component: what nearly every patch names) is its own result: checked in place,
        // without building it again.
        if let Some(longest) = normal_form(path) {
            // The same checks as below, on the whole path: no component holds a `/`.
            if path.contains('\0') {
                return Err(PathError::new(path, PathErrorKind::Invalid));
            }
            if longest > 255 || path.len() > 4096 {
                return Err(PathError::new(path, PathErrorKind::TooLong));
            }
            if crate::text::lines::holds_raw_bytes(path) {
                return Err(PathError::new(path, PathErrorKind::NotUtf8));
            }
            return Ok(RelPath(path.to_string()));
        }
        let original = path;
        let normalized = path.replace('\\', "/");
        let mut rest: &str = &normalized;
        if rest.starts_with('/') || is_windows_absolute(rest) {
            let Some(root) = root else {
                return Err(PathError::new(original, PathErrorKind::Absolute));
            };
            let root = root.replace('\\', "/");
            let root = root.trim_end_matches('/');
            match rest.strip_prefix(root) {
                Some(r) if root.is_empty() || r.is_empty() || r.starts_with('/') => rest = r,
                _ => return Err(PathError::new(original, PathErrorKind::Absolute)),
            }
        }
        let mut parts = Vec::new();
        for part in rest.split('/') {
            match part {
                "" | "." => {}
                ".." => return Err(PathError::new(original, PathErrorKind::ParentDir)),
                p => parts.push(p),
            }
        }
        if parts.is_empty() {
            return Err(PathError::new(original, PathErrorKind::Empty));
        }
        // NUL ends a path for the system; a component over 255 bytes (or a path over
        // 4096) is refused by every common file system: say so before anything is read.
        if parts.iter().any(|p| p.contains('\0')) {
            return Err(PathError::new(original, PathErrorKind::Invalid));
        }
        if parts.iter().any(|p| p.len() > 255) || normalized.len() > 4096 {
            return Err(PathError::new(original, PathErrorKind::TooLong));
        }
        if parts.iter().any(|p| crate::text::lines::holds_raw_bytes(p)) {
            return Err(PathError::new(original, PathErrorKind::NotUtf8));
        }
        Ok(RelPath(parts.join("/")))
    }

    /// The path as a `/`-separated string.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The path's components.
    pub fn components(&self) -> impl Iterator<Item = &str> {
        self.0.split('/')
    }

    /// The parent directory, if the path has one.
    pub fn parent(&self) -> Option<RelPath> {
        self.0.rfind('/').map(|i| RelPath(self.0[..i].to_string()))
    }

    /// Whether a component of the path names git's repository directory
    /// ([`is_git_dir_name`]): `.git/config`, `sub/.GIT/hooks/pre-commit`, `.git` itself.
    ///
    /// ```
    /// use polypatch_core::RelPath;
    ///
    /// let path = |p: &str| RelPath::parse(p, None).unwrap();
    /// assert!(path(".git/hooks/pre-commit").in_git_dir());
    /// assert!(path("vendor/lib/.Git/config").in_git_dir());
    /// assert!(!path(".gitignore").in_git_dir());
    /// assert!(!path("foo.git/x").in_git_dir());
    /// assert!(!path(".github/workflows/ci.yml").in_git_dir());
    /// ```
    pub fn in_git_dir(&self) -> bool {
        self.components().any(is_git_dir_name)
    }
}

/// The length of `path`'s longest component when `path` is in the form
/// [`RelPath::parse`] gives (relative, `/`-separated, without an empty, `.` or `..`
/// component); `None` otherwise.
fn normal_form(path: &str) -> Option<usize> {
    if path.starts_with('/') || is_windows_absolute(path) || path.contains('\\') {
        return None;
    }
    let mut longest = 0;
    for part in path.split('/') {
        if matches!(part, "" | "." | "..") {
            return None;
        }
        longest = longest.max(part.len());
    }
    Some(longest)
}

/// Whether `name`, one path component, names git's repository directory: `.git` in any
/// case, as `git apply` refuses it (its hooks and its config run commands: a patch that
/// wrote `.git/hooks/pre-commit` would run at the next commit). The names that file
/// systems of Windows and macOS take to be `.git` are included, as git includes them
/// (`core.protectNTFS`, `core.protectHFS`) on any system, since the work tree may be
/// shared with one:
///
/// - with trailing dots or spaces (`.git.`, `.git `), which NTFS drops;
/// - with an NTFS stream after a colon (`.git::$INDEX_ALLOCATION`);
/// - the NTFS short name `git~1`;
/// - with the invisible characters HFS+ ignores in names (zero-width joiners and
///   non-joiners, direction marks and overrides, U+206A to U+206F, the byte order mark).
///
/// Names that only start or end with `.git` are ordinary names: `.gitignore`,
/// `.gitmodules`, `.github`, `foo.git`.
pub fn is_git_dir_name(name: &str) -> bool {
    // Only a name of these few characters can be `.git` to any file system: the rest is
    // a plain comparison for every other name.
    if !name.bytes().any(|b| matches!(b, b'g' | b'G')) {
        return false;
    }
    let visible: String;
    let name = if name.is_ascii() {
        name
    } else {
        visible = name.chars().filter(|&c| !hfs_ignores(c)).collect();
        &visible
    };
    let stem = name.split(':').next().unwrap_or_default().trim_end_matches([' ', '.']);
    stem.eq_ignore_ascii_case(".git") || stem.eq_ignore_ascii_case("git~1")
}

/// The characters HFS+ leaves out when it compares names (Apple's Technical Note
/// TN1150, "Unicode Subtleties"): a `.git` written with them is `.git` there.
fn hfs_ignores(c: char) -> bool {
    matches!(c, '\u{200c}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{206a}'..='\u{206f}' | '\u{feff}')
}

fn is_windows_absolute(p: &str) -> bool {
    let b = p.as_bytes();
    b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'/'
}

impl fmt::Display for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A path the patch may not touch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("path `{path}` {}", kind.describe())]
#[non_exhaustive]
pub struct PathError {
    /// The path as written.
    pub path: String,
    /// Why it was refused.
    pub kind: PathErrorKind,
}

impl PathError {
    /// A new path error.
    pub fn new(path: &str, kind: PathErrorKind) -> Self {
        PathError { path: path.to_string(), kind }
    }
}

/// Why a path was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathErrorKind {
    /// It contains a `..` component.
    ParentDir,
    /// It is absolute and not inside the root.
    Absolute,
    /// It goes through a symbolic link that leads out of the root.
    SymlinkOutside,
    /// It goes through a symbolic link inside the root whose target does not exist.
    BrokenSymlink,
    /// It names one of the files a commit keeps while it runs (`.polypatch.lock`,
    /// `.polypatch-*.journal`, `.new`, `.old`, `.done`).
    Reserved,
    /// A component is over 255 bytes, or the whole path over 4096.
    TooLong,
    /// It is empty.
    Empty,
    /// It contains a NUL byte or is otherwise unusable.
    Invalid,
    /// It holds bytes that are not UTF-8 (a patch read with [`crate::decode_lossless`]).
    NotUtf8,
    /// It names git's repository directory, `.git`, or a file inside it
    /// ([`is_git_dir_name`]); refused unless
    /// [`ApplyOptions::allow_git_dir`](crate::ApplyOptions::allow_git_dir).
    GitDir,
}

impl PathErrorKind {
    fn describe(self) -> &'static str {
        match self {
            PathErrorKind::ParentDir => "escapes the root: `..` components are not allowed",
            PathErrorKind::Absolute => "escapes the root: absolute paths must lie inside the root",
            PathErrorKind::SymlinkOutside => "escapes the root through a symbolic link",
            PathErrorKind::BrokenSymlink => "goes through a symbolic link whose target does not exist",
            PathErrorKind::Reserved => "is reserved for polypatch's lock, journal, temporary files and backups",
            PathErrorKind::Empty => "is empty",
            PathErrorKind::Invalid => "is not a valid path (it holds a NUL byte)",
            PathErrorKind::TooLong => "is too long: a name is over 255 bytes or the whole path over 4096",
            PathErrorKind::NotUtf8 => "is not UTF-8: file names must be UTF-8 text",
            PathErrorKind::GitDir => {
                "is in git's repository directory `.git`, whose hooks and config run commands: not changed unless allowed"
            }
        }
    }
}

/// Why the path was refused, as [`PathError`]'s message says it after the path:
///
/// ```
/// use polypatch_core::{PathError, PathErrorKind};
///
/// assert_eq!(PathErrorKind::ParentDir.to_string(), "escapes the root: `..` components are not allowed");
/// let err = PathError::new("../x", PathErrorKind::ParentDir);
/// assert_eq!(err.to_string(), format!("path `../x` {}", err.kind));
/// ```
impl fmt::Display for PathErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// What is at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Entry {
    /// Nothing.
    Missing,
    /// A regular file.
    File {
        /// Its content: shared, so that a file set that keeps its files in memory hands
        /// them out without a copy.
        bytes: FileBytes,
        /// Unix permission bits, where the file set knows them.
        mode: Option<u32>,
    },
    /// A directory.
    Directory,
    /// Something else (a socket, a device, a dangling link).
    Other,
}

/// A set of files a plan reads from.
pub trait FileSource {
    /// Validates a path as written in a patch and makes it root-relative. Implementations
    /// refuse paths that leave the root, including through symbolic links.
    fn resolve(&self, path: &str) -> Result<RelPath, PathError>;

    /// The path as written, made root-relative without following symbolic links: the name
    /// the patch gives, where [`FileSource::resolve`] gives the file it leads to. Path
    /// rules on names (a `.git` component, [`RelPath::in_git_dir`]) hold for both. The
    /// default is [`FileSource::resolve`], right for a set without links.
    fn as_written(&self, path: &str) -> Result<RelPath, PathError> {
        self.resolve(path)
    }

    /// What is at `path`.
    fn read(&self, path: &RelPath) -> io::Result<Entry>;

    /// Whether `path` as written names a symbolic link itself (its last component).
    /// [`FileSource::resolve`] gives the link's target, which is where edits go; deleting
    /// or moving a link is refused rather than done to the file it points to.
    fn is_symlink(&self, path: &str) -> bool {
        let _ = path;
        false
    }
}

/// A file set that can take a computed set of changes.
pub trait FileStore: FileSource {
    /// Writes every change or none of them. On failure the error says whether every step
    /// taken was undone ([`CommitError::rolled_back`]); an `io::Error` passed up with `?`
    /// becomes one that was rolled back, so a store whose failures can leave a change
    /// behind builds its [`CommitError`] itself.
    fn commit(&mut self, changes: &[Change]) -> Result<(), CommitError>;
}

/// A commit that did not happen: what failed ([`CommitError::cause`], also its
/// [`source`](std::error::Error::source)), and whether the files are as they were.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub struct CommitError {
    /// What failed.
    #[source]
    pub cause: io::Error,
    /// Whether every step taken was undone: the tree is as it was before.
    pub rolled_back: bool,
    /// When undoing failed: root-relative paths of the backups that still hold the
    /// originals, and of the journal that lets `polypatch recover` restore them.
    pub kept: Vec<String>,
}

impl CommitError {
    /// A failed commit: what failed, whether every step was undone, and (when not) the
    /// root-relative paths that keep the originals and the journal (see the fields).
    pub fn new(cause: io::Error, rolled_back: bool, kept: Vec<String>) -> Self {
        CommitError { cause, rolled_back, kept }
    }
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

/// A failure before anything was written, or after every step was undone.
impl From<io::Error> for CommitError {
    fn from(cause: io::Error) -> CommitError {
        CommitError { cause, rolled_back: true, kept: Vec::new() }
    }
}

/// One change to the file set, computed by [`crate::apply()`] and written by
/// [`FileStore::commit`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Change {
    /// The file.
    pub path: RelPath,
    /// What happens to it.
    pub kind: ChangeKind,
}

/// What happens to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChangeKind {
    /// Write these bytes (creating parent directories as needed).
    Write {
        /// The new content: an edited file's lines until it is written (see [`FileBytes`]).
        bytes: FileBytes,
        /// Permission bits to set; `None` keeps the existing file's (or the default).
        mode: Option<u32>,
    },
    /// Remove the file. [`DiskFileSet`](crate::DiskFileSet) then removes the
    /// directories this leaves empty (never the root), as `git apply` does.
    Delete,
}

impl Change {
    /// Writes `bytes` at `path` (`mode`: the permission bits to set, `None` keeps the
    /// file's or the default).
    pub fn write(path: RelPath, bytes: impl Into<FileBytes>, mode: Option<u32>) -> Self {
        Change { path, kind: ChangeKind::Write { bytes: bytes.into(), mode } }
    }

    /// Removes the file at `path`.
    pub fn delete(path: RelPath) -> Self {
        Change { path, kind: ChangeKind::Delete }
    }
}

impl ChangeKind {
    /// The file after the change: its bytes and the mode to set (`None`: keep the file's
    /// or the default) when it is written, `None` when it is gone. What a reader of the
    /// changes needs without matching every kind (more may come: this type is
    /// `#[non_exhaustive]`).
    ///
    /// ```
    /// use polypatch_core::ChangeKind;
    ///
    /// assert!(ChangeKind::Delete.written().is_none());
    /// let write = ChangeKind::Write { bytes: b"x\n".to_vec().into(), mode: Some(0o755) };
    /// assert_eq!(write.written().map(|(bytes, mode)| (bytes.as_bytes(), mode)), Some((&b"x\n"[..], Some(0o755))));
    /// ```
    pub fn written(&self) -> Option<(&FileBytes, Option<u32>)> {
        match self {
            ChangeKind::Write { bytes, mode } => Some((bytes, *mode)),
            ChangeKind::Delete => None,
        }
    }
}

/// An in-memory file set, for editors' unsaved buffers and for tests.
///
/// Directories exist implicitly as prefixes of file paths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryFileSet {
    /// Each file's content and mode. The content is shared: reading a file for a plan
    /// counts a reference instead of copying it.
    files: BTreeMap<String, (FileBytes, Option<u32>)>,
    root: Option<String>,
}

impl MemoryFileSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty set whose files live under the absolute path `root`, so patches that use
    /// absolute paths inside it resolve.
    pub fn with_root(root: impl Into<String>) -> Self {
        MemoryFileSet { files: BTreeMap::new(), root: Some(root.into()) }
    }

    /// Adds or replaces a file.
    pub fn insert(&mut self, path: impl Into<String>, content: impl Into<Vec<u8>>) -> &mut Self {
        self.files.insert(path.into(), (FileBytes::from(content.into()), None));
        self
    }

    /// Builder form of [`MemoryFileSet::insert`].
    #[must_use]
    pub fn with(mut self, path: impl Into<String>, content: impl Into<Vec<u8>>) -> Self {
        self.insert(path, content);
        self
    }

    /// The content of a file.
    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.files.get(path).map(|(b, _)| b.as_bytes())
    }

    /// The content of a file as text (`None` when missing or not UTF-8).
    pub fn get_str(&self, path: &str) -> Option<&str> {
        self.get(path).and_then(|b| std::str::from_utf8(b).ok())
    }

    /// The permission bits of a file, when set.
    pub fn mode(&self, path: &str) -> Option<u32> {
        self.files.get(path).and_then(|(_, m)| *m)
    }

    /// Sets a file's permission bits.
    pub fn set_mode(&mut self, path: &str, mode: u32) {
        if let Some(entry) = self.files.get_mut(path) {
            entry.1 = Some(mode);
        }
    }

    /// Every path, sorted.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    fn is_dir(&self, path: &str) -> bool {
        let prefix = format!("{path}/");
        self.files.range(prefix.clone()..).next().is_some_and(|(k, _)| k.starts_with(&prefix))
    }
}

impl FileSource for MemoryFileSet {
    fn resolve(&self, path: &str) -> Result<RelPath, PathError> {
        RelPath::parse(path, self.root.as_deref())
    }

    fn read(&self, path: &RelPath) -> io::Result<Entry> {
        if let Some((bytes, mode)) = self.files.get(path.as_str()) {
            return Ok(Entry::File { bytes: bytes.clone(), mode: *mode });
        }
        if self.is_dir(path.as_str()) {
            return Ok(Entry::Directory);
        }
        // A file used as a directory (`a` is a file, `a/b` is asked for).
        let mut prefix = path.parent();
        while let Some(p) = prefix {
            if self.files.contains_key(p.as_str()) {
                return Ok(Entry::Other);
            }
            prefix = p.parent();
        }
        Ok(Entry::Missing)
    }
}

impl FileStore for MemoryFileSet {
    fn commit(&mut self, changes: &[Change]) -> Result<(), CommitError> {
        for change in changes {
            match &change.kind {
                ChangeKind::Write { bytes, mode } => {
                    let old_mode = self.files.get(change.path.as_str()).and_then(|(_, m)| *m);
                    // Kept as bytes (built here once from an edited file's lines), not as
                    // the lines: the set holds each file compactly, as it was given.
                    self.files.insert(change.path.as_str().to_string(), (bytes.built(), mode.or(old_mode)));
                }
                ChangeKind::Delete => {
                    self.files.remove(change.path.as_str());
                }
            }
        }
        Ok(())
    }
}

/// A read-only view of a file set with pending changes on top: what the files would be
/// once the changes were written. Several plans computed one after the other on it see
/// each other's results, and [`Overlay::changes`] gives one set of changes for a single
/// [`FileStore::commit`].
///
/// The base is read once per path, the first time the overlay is asked for it (or for its
/// mode, or its changes): every later look, [`Overlay::changes`] included, is at that
/// read. So a plan is computed, and its changes told apart from the base, on one read of
/// each file, and a base that checks at commit that a file is still as it was read
/// ([`DiskFileSet`](crate::DiskFileSet), against another program's save) checks it against
/// the read the changes were computed from, not a later one that would take the other
/// program's bytes for the original.
///
/// ```
/// use polypatch_core::{Change, Entry, FileSource, MemoryFileSet, Overlay, RelPath};
///
/// let base = MemoryFileSet::new().with("a.txt", "one\n");
/// let mut overlay = Overlay::new(&base);
/// let path = RelPath::parse("a.txt", None).unwrap();
/// overlay.record(&[Change::write(path.clone(), "two\n", None)]);
/// assert_eq!(overlay.read(&path).unwrap(), Entry::File { bytes: "two\n".into(), mode: None });
/// assert_eq!(overlay.changes().len(), 1);
/// assert_eq!(base.get_str("a.txt"), Some("one\n"));
/// ```
#[derive(Debug)]
pub struct Overlay<'a, S: ?Sized> {
    base: &'a S,
    /// The latest change of each path, in the order the paths were first changed.
    pending: Vec<Change>,
    /// Each pending path's place in `pending`.
    at: HashMap<RelPath, usize>,
    /// For each folder, how many pending writes are under it (at any depth): a folder a
    /// pending write creates. Counted, so that recording and reading stay constant time
    /// per path, however many files are pending (a reply of many blocks).
    writes_under: HashMap<String, usize>,
    /// What the base held at each path it was read at: the base is read once per path.
    read: Mutex<HashMap<RelPath, Entry>>,
}

impl<'a, S: FileSource + ?Sized> Overlay<'a, S> {
    /// The file set as it is, nothing pending.
    pub fn new(base: &'a S) -> Self {
        Overlay {
            base,
            pending: Vec::new(),
            at: HashMap::new(),
            writes_under: HashMap::new(),
            read: Mutex::new(HashMap::new()),
        }
    }

    /// What the base holds at `path`, as it was the first time the overlay read it.
    fn base_read(&self, path: &RelPath) -> io::Result<Entry> {
        let mut read = self.read.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = read.get(path) {
            return Ok(entry.clone());
        }
        let entry = self.base.read(path)?;
        read.insert(path.clone(), entry.clone());
        Ok(entry)
    }

    /// Puts `changes` on top of the pending ones: the last change of a path wins (a write
    /// after a delete is a write; a delete after a write is a delete).
    pub fn record(&mut self, changes: &[Change]) {
        for change in changes {
            let kind = match (&change.kind, self.pending_kind(&change.path)) {
                // A write that keeps the mode keeps the one an earlier pending write set.
                (ChangeKind::Write { bytes, mode: None }, Some(ChangeKind::Write { mode: Some(m), .. })) => {
                    ChangeKind::Write { bytes: bytes.clone(), mode: Some(*m) }
                }
                (kind, _) => kind.clone(),
            };
            let was_write = matches!(self.pending_kind(&change.path), Some(ChangeKind::Write { .. }));
            let is_write = matches!(kind, ChangeKind::Write { .. });
            if was_write != is_write {
                self.count_folders(&change.path, is_write);
            }
            if let Some(&i) = self.at.get(&change.path) {
                self.pending[i].kind = kind;
            } else {
                self.at.insert(change.path.clone(), self.pending.len());
                self.pending.push(Change { path: change.path.clone(), kind });
            }
        }
    }

    /// Counts a pending write at `path` in (or out of) every folder above it.
    fn count_folders(&mut self, path: &RelPath, add: bool) {
        let path = path.as_str();
        for (i, _) in path.match_indices('/') {
            let folder = &path[..i];
            if add {
                *self.writes_under.entry(folder.to_owned()).or_insert(0) += 1;
            } else if let Some(n) = self.writes_under.get_mut(folder) {
                *n -= 1;
                if *n == 0 {
                    self.writes_under.remove(folder);
                }
            }
        }
    }

    fn pending_kind(&self, path: &RelPath) -> Option<&ChangeKind> {
        self.at.get(path).map(|&i| &self.pending[i].kind)
    }

    /// The changes that turn the base into this view, one per path, in the order the paths
    /// were first changed. A file created and then deleted again, or written back to its
    /// base bytes and mode, needs no change and is left out. The base is compared as the
    /// overlay first read it, not read again.
    pub fn changes(&self) -> Vec<Change> {
        self.pending
            .iter()
            .filter(|change| {
                let base = self.base_read(&change.path).ok();
                match (&change.kind, base) {
                    (ChangeKind::Delete, Some(Entry::Missing)) => false,
                    (ChangeKind::Write { bytes, mode }, Some(Entry::File { bytes: old, mode: old_mode })) => {
                        *bytes != old || mode.is_some_and(|m| Some(m) != old_mode)
                    }
                    _ => true,
                }
            })
            .cloned()
            .collect()
    }
}

impl<S: FileSource + ?Sized> FileSource for Overlay<'_, S> {
    fn resolve(&self, path: &str) -> Result<RelPath, PathError> {
        self.base.resolve(path)
    }

    fn as_written(&self, path: &str) -> Result<RelPath, PathError> {
        self.base.as_written(path)
    }

    fn read(&self, path: &RelPath) -> io::Result<Entry> {
        match self.pending_kind(path) {
            Some(ChangeKind::Write { bytes, mode }) => {
                let mode = match (mode, self.base_read(path)?) {
                    (Some(m), _) => Some(*m),
                    (None, Entry::File { mode, .. }) => mode,
                    (None, _) => None,
                };
                Ok(Entry::File { bytes: bytes.clone(), mode })
            }
            Some(ChangeKind::Delete) => Ok(Entry::Missing),
            None => {
                let entry = self.base_read(path)?;
                // A folder a pending write creates.
                let written_under = self.writes_under.contains_key(path.as_str());
                Ok(if entry == Entry::Missing && written_under { Entry::Directory } else { entry })
            }
        }
    }

    fn is_symlink(&self, path: &str) -> bool {
        self.base.is_symlink(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_normalizes_and_refuses_escapes() {
        assert_eq!(RelPath::parse("./a//b/./c.txt", None).unwrap().as_str(), "a/b/c.txt");
        assert_eq!(RelPath::parse("../x", None).unwrap_err().kind, PathErrorKind::ParentDir);
        assert_eq!(RelPath::parse("a/../../x", None).unwrap_err().kind, PathErrorKind::ParentDir);
        assert_eq!(RelPath::parse("/etc/passwd", None).unwrap_err().kind, PathErrorKind::Absolute);
        assert_eq!(RelPath::parse("/etc/passwd", Some("/work/repo")).unwrap_err().kind, PathErrorKind::Absolute);
        assert_eq!(RelPath::parse("/work/repo2/x", Some("/work/repo")).unwrap_err().kind, PathErrorKind::Absolute);
        assert_eq!(RelPath::parse("/work/repo/src/a.rs", Some("/work/repo/")).unwrap().as_str(), "src/a.rs");
        assert_eq!(RelPath::parse("", None).unwrap_err().kind, PathErrorKind::Empty);
        assert_eq!(RelPath::parse("C:\\x\\y", None).unwrap_err().kind, PathErrorKind::Absolute);
    }

    /// A path already in normal form is taken as it is (no rebuilding): the same result,
    /// and the same refusal, as the same path written in another form that is rebuilt.
    #[test]
    fn a_normal_path_parses_as_its_rebuilt_forms_do() {
        let long = "x".repeat(256);
        let deep = vec!["d"; 2100].join("/");
        for path in [
            "a.txt",
            "src/lib.rs",
            "a b/c\u{e9}.txt",
            "C:x",
            "c:",
            ".git/config",
            "...",
            ".a/..b",
            "nul\0name",
            long.as_str(),
            deep.as_str(),
            "raw\u{10ff80}byte",
        ] {
            for root in [None, Some("/work/repo")] {
                let direct = RelPath::parse(path, root).map_err(|e| e.kind);
                for other in [format!("./{path}"), format!(".//{path}"), path.replace('/', "/./")] {
                    let rebuilt = RelPath::parse(&other, root).map_err(|e| e.kind);
                    // A longer spelling can cross the 4096-byte limit the path itself is under.
                    if other.len() <= 4096 || path.len() > 4096 {
                        assert_eq!(direct, rebuilt, "{path:?} / {other:?}");
                    }
                }
            }
        }
    }

    /// `.git` as git's own path check reads it on every system (`core.protectNTFS` and
    /// `core.protectHFS` included), and the names next to it that are ordinary.
    #[test]
    fn git_dir_names_are_the_names_git_refuses() {
        for name in [
            ".git",
            ".GIT",
            ".gIt",
            ".git.",
            ".git ",
            ".git. . ",
            ".git::$INDEX_ALLOCATION",
            ".git:stream",
            "git~1",
            "GIT~1",
            "git~1.",
            ".g\u{200c}it",
            "\u{200d}.git",
            ".git\u{202e}",
            "\u{206a}.G\u{206f}IT",
            "\u{feff}.git",
        ] {
            assert!(is_git_dir_name(name), "{name:?}");
        }
        for name in [
            "git",
            ".gi",
            ".gitx",
            ".gitignore",
            ".gitmodules",
            ".github",
            "foo.git",
            "x.git.",
            "..git",
            ". git",
            "git~2",
            "git~",
            "gi~1",
            ".g\u{200b}it",
            ".g\u{e9}it",
            "",
        ] {
            assert!(!is_git_dir_name(name), "{name:?}");
        }
    }

    #[test]
    fn memory_set_reports_directories() {
        let set = MemoryFileSet::new().with("dir/a.txt", "x");
        assert_eq!(set.read(&RelPath::parse("dir", None).unwrap()).unwrap(), Entry::Directory);
        assert_eq!(set.read(&RelPath::parse("di", None).unwrap()).unwrap(), Entry::Missing);
        assert_eq!(set.read(&RelPath::parse("dir/a.txt/b", None).unwrap()).unwrap(), Entry::Other);
    }

    /// A file set, its entries and its changes go between threads as they did when they
    /// held `Vec<u8>` (an editor's worker thread applies, its UI thread reads).
    #[test]
    fn file_sets_and_their_contents_are_send_and_sync() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<MemoryFileSet>();
        send_sync::<Entry>();
        send_sync::<Change>();
        send_sync::<FileBytes>();
    }

    #[test]
    fn memory_set_hands_out_its_files_without_a_copy() {
        let mut set = MemoryFileSet::new().with("a.txt", "one\ntwo\n").with("b.bin", vec![0xff, 0x00, 0x0a]);
        let stored = |set: &MemoryFileSet, p: &str| set.get(p).unwrap().as_ptr();
        for p in ["a.txt", "b.bin"] {
            let Entry::File { bytes, .. } = set.read(&RelPath::parse(p, None).unwrap()).unwrap() else {
                panic!("a file")
            };
            // The very bytes the set holds, not a copy of them.
            assert_eq!(bytes.as_ptr(), stored(&set, p), "{p}");
        }
        // An edited file is stored as bytes, built once: reading it again builds nothing new.
        let plan = crate::EditPlan::new(
            "",
            vec![crate::FileEdit::modify("a.txt", vec![crate::Edit::replace(["two"], ["2"])])],
        );
        crate::apply(&plan, &mut set, &crate::ApplyOptions::default()).unwrap();
        assert_eq!(set.get_str("a.txt"), Some("one\n2\n"));
        assert_eq!(stored(&set, "a.txt"), stored(&set, "a.txt"));
        let Entry::File { bytes, .. } = set.read(&RelPath::parse("a.txt", None).unwrap()).unwrap() else {
            panic!("a file")
        };
        assert_eq!(bytes.as_ptr(), stored(&set, "a.txt"));
        assert_eq!(set.get("b.bin"), Some(&[0xff, 0x00, 0x0a][..]));
    }

    #[test]
    fn overlay_merges_changes_last_one_wins() {
        let base = MemoryFileSet::new().with("a", "1").with("b", "2");
        let path = |p: &str| RelPath::parse(p, None).unwrap();
        let write = |p: &str, bytes: &str, mode: Option<u32>| Change {
            path: path(p),
            kind: ChangeKind::Write { bytes: bytes.into(), mode },
        };
        let delete = |p: &str| Change { path: path(p), kind: ChangeKind::Delete };
        let mut overlay = Overlay::new(&base);
        overlay.record(&[write("a", "10", Some(0o755)), delete("b"), write("new/c", "3", None)]);
        assert_eq!(overlay.read(&path("a")).unwrap(), Entry::File { bytes: "10".into(), mode: Some(0o755) });
        assert_eq!(overlay.read(&path("b")).unwrap(), Entry::Missing);
        assert_eq!(overlay.read(&path("new")).unwrap(), Entry::Directory);
        // Later changes: the mode set earlier stays; a deleted file comes back; a new file goes.
        overlay.record(&[write("a", "11", None), write("b", "2", None), delete("new/c")]);
        assert_eq!(overlay.read(&path("a")).unwrap(), Entry::File { bytes: "11".into(), mode: Some(0o755) });
        assert_eq!(overlay.read(&path("new")).unwrap(), Entry::Missing);
        // `b` is back as it was and `new/c` never existed: neither needs a change.
        assert_eq!(overlay.changes(), vec![write("a", "11", Some(0o755))]);
        assert_eq!(base.get_str("a"), Some("1"));
    }

    /// A folder is there while some pending write under it is, at any depth, however the
    /// writes came and went; a write recorded twice counts once.
    #[test]
    fn overlay_folders_follow_the_pending_writes_under_them() {
        use Entry::{Directory as D, Missing as M};
        let base = MemoryFileSet::new().with("kept/f", "1");
        let path = |p: &str| RelPath::parse(p, None).unwrap();
        let write = |p: &str| Change { path: path(p), kind: ChangeKind::Write { bytes: "x".into(), mode: None } };
        let delete = |p: &str| Change { path: path(p), kind: ChangeKind::Delete };
        let mut overlay = Overlay::new(&base);
        let kinds = |o: &Overlay<'_, MemoryFileSet>| -> Vec<Entry> {
            ["x", "x/y", "xy", "kept"].iter().map(|p| o.read(&path(p)).unwrap()).collect()
        };
        overlay.record(&[write("x/y/1"), write("x/y/2"), write("x/z"), write("x/z"), write("xy/q")]);
        assert_eq!(kinds(&overlay), [D, D, D, D]);
        overlay.record(&[delete("x/y/1"), delete("xy/q")]);
        assert_eq!(kinds(&overlay), [D, D, M, D]);
        overlay.record(&[delete("x/y/2")]);
        assert_eq!(kinds(&overlay), [D, M, M, D]);
        overlay.record(&[delete("x/z"), delete("kept/f")]);
        assert_eq!(kinds(&overlay), [M, M, M, D]);
        overlay.record(&[write("x/y/1")]);
        assert_eq!(kinds(&overlay), [D, D, M, D]);
        let changes = overlay.changes();
        let paths: Vec<&str> = changes.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, ["x/y/1", "kept/f"]);
    }
}

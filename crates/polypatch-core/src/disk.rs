//! The disk as a file set: paths confined to a root, all-or-nothing commits.

use std::io;
use std::path::{Path, PathBuf};

use crate::fileset::{Change, Entry, FileSource, FileStore, PathError, RelPath};

/// The files under a root directory on disk.
#[derive(Debug, Clone)]
pub struct DiskFileSet {
    root: PathBuf,
}

impl DiskFileSet {
    /// The files under `root` (which must be an existing directory).
    pub fn new(root: impl AsRef<Path>) -> io::Result<Self> {
        let root = root.as_ref().canonicalize()?;
        Ok(DiskFileSet { root })
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl FileSource for DiskFileSet {
    fn resolve(&self, path: &str) -> Result<RelPath, PathError> {
        let _ = path;
        todo!()
    }

    fn read(&self, path: &RelPath) -> io::Result<Entry> {
        let _ = path;
        todo!()
    }
}

impl FileStore for DiskFileSet {
    fn commit(&mut self, changes: &[Change]) -> io::Result<()> {
        let _ = changes;
        todo!()
    }
}

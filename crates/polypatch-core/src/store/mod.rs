//! Store: the files a plan applies to. [`fileset`] holds the small traits
//! ([`FileSource`](fileset::FileSource) to read, [`FileStore`](fileset::FileStore) to commit,
//! failing with a [`CommitError`](fileset::CommitError)), the in-memory set and overlay, and
//! root-relative path validation; `disk` (the `disk` feature) the real directory: reads relative to an opened
//! root, and the commit as a journaled transaction (temporary files, backups, renames),
//! undone on failure and recovered after a crash.

#[cfg(feature = "disk")]
pub(crate) mod disk;
pub(crate) mod fileset;

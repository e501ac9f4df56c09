//! The directories a commit works in, with a bounded number of them open at once.
//!
//! A commit may touch more directories than the process may hold open files (the usual
//! limit is 1,024, and a release diff of a large tree touches thousands). At most
//! [`Dirs::cap`] handles are kept; the one used longest ago is closed to make room, and
//! opened again, the same walk from the root, when it is needed: it must then be the
//! directory it was (device and inode, taken when it was closed), or the step fails as a
//! change by another program. The commit takes its targets directory by directory, so
//! each directory is opened about once per phase, whatever the cap.

use std::collections::HashMap;
use std::io;

use super::ops::{Dir, Ops};

/// The most directory handles a commit keeps open when the process may open many files.
const MAX_OPEN: usize = 64;

/// A directory by its root-relative path ("" is the root), opened from the root one
/// component at a time without following links.
pub(super) struct Dirs {
    /// Root-relative path of each directory, by id.
    paths: Vec<String>,
    /// The id of each directory's parent (`None` for the root).
    parents: Vec<Option<usize>>,
    index: HashMap<String, usize>,
    /// The open handles, with when each was last used.
    handles: Vec<Option<(Dir, u64)>>,
    /// Device and inode of a directory closed to make room: what it must be when opened
    /// again.
    identity: Vec<Option<(u64, u64)>>,
    /// The ids of the open handles (at most `cap`).
    open: Vec<usize>,
    cap: usize,
    clock: u64,
    /// Directories this commit created, in creation order.
    pub created: Vec<usize>,
}

/// How many directory handles a commit may keep: a quarter of what the process may still
/// open, at most [`MAX_OPEN`], at least 2 (a directory and the parent it is opened from).
pub(super) fn cap() -> usize {
    #[cfg(unix)]
    {
        let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
        limit.map_or(MAX_OPEN, |n| usize::try_from(n / 4).unwrap_or(MAX_OPEN).clamp(2, MAX_OPEN))
    }
    #[cfg(not(unix))]
    {
        MAX_OPEN
    }
}

impl Dirs {
    pub fn new(cap: usize) -> Dirs {
        Dirs {
            paths: Vec::new(),
            parents: Vec::new(),
            index: HashMap::new(),
            handles: Vec::new(),
            identity: Vec::new(),
            open: Vec::new(),
            cap: cap.max(2),
            clock: 0,
            created: Vec::new(),
        }
    }

    /// The id of the directory `rel`, registering it (and its ancestors) on first use.
    pub fn id(&mut self, rel: &str) -> usize {
        if let Some(&id) = self.index.get(rel) {
            return id;
        }
        let parent = (!rel.is_empty()).then(|| self.id(rel.rsplit_once('/').map_or("", |(p, _)| p)));
        let id = self.paths.len();
        self.paths.push(rel.to_string());
        self.parents.push(parent);
        self.handles.push(None);
        self.identity.push(None);
        self.index.insert(rel.to_string(), id);
        id
    }

    /// The id of `rel`, when it was registered.
    pub fn find(&self, rel: &str) -> Option<usize> {
        self.index.get(rel).copied()
    }

    pub fn path(&self, id: usize) -> &str {
        &self.paths[id]
    }

    pub fn parent(&self, id: usize) -> Option<usize> {
        self.parents[id]
    }

    /// The last component of the directory's path.
    pub fn name(&self, id: usize) -> &str {
        let path = &self.paths[id];
        path.rsplit_once('/').map_or(path.as_str(), |(_, name)| name)
    }

    /// Every registered directory, by id.
    pub fn ids(&self) -> std::ops::Range<usize> {
        0..self.paths.len()
    }

    /// The open handle of directory `id`, opened (again) if need be.
    pub fn get(&mut self, ops: &dyn Ops, root: &Dir, id: usize) -> io::Result<&Dir> {
        self.clock += 1;
        if let Some((_, used)) = &mut self.handles[id] {
            *used = self.clock;
        } else {
            let name = self.name(id).to_string();
            let handle = match self.parents[id] {
                None => ops.open_dir(root, ".")?,
                Some(parent) => ops.open_dir(self.get(ops, root, parent)?, &name)?,
            };
            if let Some(was) = self.identity[id] {
                let now = ops.stat(&handle, ".")?.map(|md| (md.dev, md.ino));
                if now != Some(was) {
                    return Err(io::Error::other(format!(
                        "the directory `{}` was moved or replaced while the patch was applied; look at it, then apply \
                         the patch again",
                        self.display(id)
                    )));
                }
            }
            self.make_room(ops)?;
            self.handles[id] = Some((handle, self.clock));
            self.open.push(id);
        }
        Ok(&self.handles[id].as_ref().expect("just opened").0)
    }

    /// Closes the handle used longest ago when the cap is reached (a look at the `cap`
    /// open ones), noting what the directory is so that it is opened again only as itself.
    fn make_room(&mut self, ops: &dyn Ops) -> io::Result<()> {
        while self.open.len() >= self.cap {
            let handles = &self.handles;
            let used = |id: usize| handles[id].as_ref().map_or(0, |(_, used)| *used);
            let Some(at) = (0..self.open.len()).min_by_key(|&at| used(self.open[at])) else { return Ok(()) };
            let oldest = self.open.swap_remove(at);
            let (handle, _) = self.handles[oldest].take().expect("open");
            if self.identity[oldest].is_none() {
                let md = ops.stat(&handle, ".")?.ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
                self.identity[oldest] = Some((md.dev, md.ino));
            }
        }
        Ok(())
    }

    /// The directory's path for a message.
    fn display(&self, id: usize) -> &str {
        if self.paths[id].is_empty() { "." } else { &self.paths[id] }
    }
}

//! Helpers shared by the data-driven suites: file trees on disk, copied and compared byte for
//! byte, inside a temporary sandbox.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// A tree of regular files: `/`-separated relative path -> bytes. Directories are not part of
/// it (git cannot store an empty one, and no suite compares them).
pub type Tree = BTreeMap<String, Vec<u8>>;

/// Every entry under `dir`, sorted: files with their bytes, directories (named with a
/// trailing `/`), symbolic links with their targets (not followed). For proving that a
/// failed or hostile patch changed nothing, links and empty directories included.
#[allow(dead_code, reason = "only the suites about safety use it")]
pub fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let name = path.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            let md = fs::symlink_metadata(&path).unwrap();
            if md.file_type().is_symlink() {
                out.push((name, fs::read_link(&path).unwrap().to_string_lossy().into_owned().into_bytes()));
            } else if md.is_dir() {
                out.push((format!("{name}/"), Vec::new()));
                stack.push(path);
            } else {
                out.push((name, fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The subdirectories of `dir`, sorted by path.
pub fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Reads every regular file under `dir`; a missing `dir` is an empty tree.
pub fn read_tree(dir: &Path) -> io::Result<Tree> {
    let mut tree = Tree::new();
    if dir.exists() {
        collect(dir, dir, &mut tree)?;
    }
    Ok(tree)
}

fn collect(base: &Path, dir: &Path, tree: &mut Tree) -> io::Result<()> {
    let mut entries = fs::read_dir(dir)?.collect::<io::Result<Vec<_>>>()?;
    entries.sort_by_key(fs::DirEntry::file_name);
    for entry in entries {
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            collect(base, &path, tree)?;
        } else {
            // Anything that is not a directory is reported, so that a stray symlink or
            // special file shows up as an extra entry instead of being skipped.
            let rel = path.strip_prefix(base).expect("entry lies under its base");
            let rel = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            let bytes = if kind.is_file() { fs::read(&path)? } else { b"<not a regular file>".to_vec() };
            tree.insert(rel, bytes);
        }
    }
    Ok(())
}

/// Copies the regular files under `from` (if it exists) into `to`, creating directories.
/// Copies are made writable by their owner: suites may keep read-only inputs, and the copy
/// stands for a working tree as a user has it.
pub fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    for (rel, _) in read_tree(from)? {
        let src = from.join(&rel);
        let dst = to.join(&rel);
        if let Some(parent) = dst.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::copy(&src, &dst)?;
        make_owner_writable(&dst)?;
    }
    Ok(())
}

#[cfg(unix)]
fn make_owner_writable(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let mut perms = fs::metadata(path)?.permissions();
    perms.set_mode(perms.mode() | 0o200);
    fs::set_permissions(path, perms)
}

#[cfg(not(unix))]
fn make_owner_writable(path: &Path) -> io::Result<()> {
    let mut perms = fs::metadata(path)?.permissions();
    #[allow(clippy::permissions_set_readonly_false, reason = "no mode bits to set outside unix")]
    perms.set_readonly(false);
    fs::set_permissions(path, perms)
}

/// `Ok` when the trees hold the same paths with the same bytes; otherwise a description of
/// every difference.
pub fn compare_trees(actual: &Tree, expected: &Tree) -> Result<(), String> {
    let mut out = String::new();
    for (path, want) in expected {
        match actual.get(path) {
            None => writeln!(out, "missing file `{path}`").unwrap(),
            Some(got) if got != want => {
                writeln!(out, "file `{path}` differs\n  expected: {}\n  actual:   {}", show(want), show(got)).unwrap();
            }
            Some(_) => {}
        }
    }
    for (path, got) in actual {
        if !expected.contains_key(path) {
            writeln!(out, "unexpected file `{path}`: {}", show(got)).unwrap();
        }
    }
    if out.is_empty() { Ok(()) } else { Err(out) }
}

/// File content for a failure message: escaped, so line endings, a BOM and trailing spaces
/// are visible.
fn show(bytes: &[u8]) -> String {
    const MAX: usize = 600;
    let text = match std::str::from_utf8(bytes) {
        Ok(s) => format!("{s:?}"),
        Err(_) => format!("{} bytes, not UTF-8: {:?}", bytes.len(), String::from_utf8_lossy(bytes)),
    };
    if text.len() > MAX {
        let mut cut = MAX;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}… ({} bytes)", &text[..cut], bytes.len())
    } else {
        text
    }
}

/// A temporary directory holding the root a patch is applied to (`<tmp>/root`) and nothing
/// else, so a patch that writes outside the root is caught.
pub struct Sandbox {
    dir: tempfile::TempDir,
    root: PathBuf,
}

impl Sandbox {
    /// A sandbox whose root holds a copy of `input` (an empty root when `input` is absent).
    pub fn with_copy_of(input: &Path) -> io::Result<Sandbox> {
        let dir = tempfile::Builder::new().prefix("polypatch-suite-").tempdir()?;
        let base = dir.path().canonicalize()?;
        let root = base.join("root");
        fs::create_dir(&root)?;
        copy_tree(input, &root)?;
        Ok(Sandbox { dir, root })
    }

    /// The canonical path of the root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The files under the root.
    pub fn tree(&self) -> io::Result<Tree> {
        read_tree(&self.root)
    }

    /// `Ok` when the sandbox holds nothing but the root.
    pub fn nothing_outside_root(&self) -> Result<(), String> {
        let mut names = Vec::new();
        for entry in fs::read_dir(self.dir.path()).map_err(|e| e.to_string())? {
            let name = entry.map_err(|e| e.to_string())?.file_name();
            if name != "root" {
                names.push(name.to_string_lossy().into_owned());
            }
        }
        if names.is_empty() { Ok(()) } else { Err(format!("the patch wrote outside the root: {}", names.join(", "))) }
    }
}

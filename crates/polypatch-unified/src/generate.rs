//! before/after → git-compatible unified diff.
//!
//! [`diff_file`] writes one file's change as `git diff` does: the `diff --git` line,
//! the extended headers (`new file mode`, `deleted file mode`, `old mode`/`new mode`,
//! `similarity index` + `rename from`/`rename to`, `index`), `---`/`+++`, and hunks with
//! `\ No newline at end of file` where a side ends without a newline. Binary content
//! becomes a `GIT binary patch` with literal blocks (or `Binary files … differ`; always
//! that in a build without the `git-binary` feature).
//! [`diff_files`] concatenates several changes and pairs deletions with additions as
//! renames when asked. The line diff is [`similar`]'s Myers; the text is written here.
//!
//! Every output is accepted by `git apply` and produces exactly the new bytes and modes.
//!
//! # Differences from `git diff`
//!
//! Where git's choices are the same, the text is git's byte for byte (tested). It differs
//! on purpose or by construction here:
//! - The line diff is Myers without git's indent heuristic, so where a change can be
//!   placed in several equally small ways, the hunk lines may be placed differently.
//!   A search still running after two seconds settles for larger hunks.
//! - The text after `@@` follows git's default rule only (the nearest line above the hunk
//!   starting with a letter, `_` or `$`; no `.gitattributes` diff drivers), cut at 80
//!   bytes on a character boundary.
//! - Binary means a NUL byte anywhere or content that is not UTF-8 (git: a NUL in the
//!   first 8000 bytes). Binary patches are always `literal` blocks, never `delta`, and the
//!   deflated bytes may differ from git's zlib output (same level; both decode the same).
//! - `index` lines always abbreviate text ids to 7 digits (git lengthens them in large
//!   repositories, and `--binary` writes full ids for text files too); binary patches get
//!   full ids, as git requires.
//! - Renames: the similarity is the share of bytes in common lines of a Myers diff
//!   (git estimates it from hashed chunks, so the percentage can differ slightly); binary
//!   files pair only when identical; no copy detection; files stay in the given order
//!   (git sorts by path).
//!
//! ```
//! use polypatch_unified::generate::{DiffOptions, Side, diff_file};
//!
//! let old = Side::new("src/a.txt", b"one\ntwo\nthree\n");
//! let new = Side::new("src/a.txt", b"one\n2\nthree");
//! assert_eq!(
//!     diff_file(Some(old), Some(new), &DiffOptions::default()),
//!     "diff --git a/src/a.txt b/src/a.txt\n\
//!      index 4cb29ea..a623a0b 100644\n\
//!      --- a/src/a.txt\n\
//!      +++ b/src/a.txt\n\
//!      @@ -1,3 +1,3 @@\n \
//!      one\n\
//!      -two\n\
//!      -three\n\
//!      +2\n\
//!      +three\n\
//!      \\ No newline at end of file\n"
//! );
//! ```

use std::collections::HashMap;
use std::convert::Infallible;
use std::fmt::Write as _;
use std::ops::Range;
use std::time::{Duration, Instant};

use similar::algorithms::{DiffHook, myers};

use polypatch_core::render::hunks::hunk_range;
use polypatch_core::{Entry, FileSource};

#[cfg(feature = "git-binary")]
use crate::binary::encode_block;

/// How [`diff_file`] and [`diff_files`] write a diff.
///
/// ```
/// use polypatch_unified::generate::DiffOptions;
///
/// let options = DiffOptions::default().context(1).renames(true).prefixes("old/", "new/");
/// assert_eq!(options.context, 1);
/// assert!(options.renames);
/// #[cfg(feature = "git-binary")]
/// assert!(options.binary);
/// assert_eq!(options.prefixes, ("old/".to_string(), "new/".to_string()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DiffOptions {
    /// Lines of context around each change (`git diff -U<n>`); 3 by default. Hunks whose
    /// changes are at most twice this many lines apart are merged, as git does. With 0,
    /// `git apply` needs `--unidiff-zero`.
    pub context: usize,
    /// For content that is not UTF-8 or contains a NUL byte: `true` (the default) writes a
    /// `GIT binary patch` with literal blocks (`git diff --binary`), which applies;
    /// `false` writes only `Binary files a/x and b/x differ` (`git diff`), which does not.
    /// A build without the `git-binary` feature has no zlib to write the data with: it
    /// always writes `Binary files … differ`.
    #[cfg(feature = "git-binary")]
    #[cfg_attr(docsrs, doc(cfg(feature = "git-binary")))]
    pub binary: bool,
    /// [`diff_files`] pairs a deleted file with an added one as a rename when their
    /// content is identical or at least 50% similar (`git diff -M`); `false` by default.
    pub renames: bool,
    /// The prefixes of the old and new names (`("a/", "b/")` by default; empty strings for
    /// `git diff --no-prefix`).
    pub prefixes: (String, String),
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            context: 3,
            #[cfg(feature = "git-binary")]
            binary: true,
            renames: false,
            prefixes: ("a/".to_owned(), "b/".to_owned()),
        }
    }
}

impl DiffOptions {
    /// Builder: lines of context.
    #[must_use]
    pub fn context(mut self, lines: usize) -> Self {
        self.context = lines;
        self
    }

    /// Builder: binary patches (`true`) or `Binary files … differ` (`false`).
    #[cfg(feature = "git-binary")]
    #[cfg_attr(docsrs, doc(cfg(feature = "git-binary")))]
    #[must_use]
    pub fn binary(mut self, yes: bool) -> Self {
        self.binary = yes;
        self
    }

    /// Whether binary content is written as a `GIT binary patch` (never without the
    /// `git-binary` feature).
    #[cfg_attr(not(feature = "git-binary"), allow(clippy::unused_self, reason = "the feature's version reads it"))]
    fn binary_data(&self) -> bool {
        #[cfg(feature = "git-binary")]
        return self.binary;
        #[cfg(not(feature = "git-binary"))]
        false
    }

    /// Builder: rename detection in [`diff_files`].
    #[must_use]
    pub fn renames(mut self, yes: bool) -> Self {
        self.renames = yes;
        self
    }

    /// Builder: the old and new name prefixes.
    #[must_use]
    pub fn prefixes(mut self, old: impl Into<String>, new: impl Into<String>) -> Self {
        self.prefixes = (old.into(), new.into());
        self
    }
}

/// One side of a change: a file's path, content and mode.
///
/// ```
/// use polypatch_unified::generate::Side;
///
/// let script = Side::new("run.sh", b"#!/bin/sh\n").with_mode(0o755);
/// assert_eq!(script.mode, Some(0o755));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Side<'a> {
    /// The path relative to the repository root, `/`-separated, without prefix.
    pub path: &'a str,
    /// The exact content.
    pub bytes: &'a [u8],
    /// The file mode: either a full git mode (`0o100644`, `0o100755`; other file types
    /// such as `0o120000` are written as given) or only permission bits (`0o644`, `0o755`),
    /// which become `100755` when the owner's execute bit is set and `100644` otherwise,
    /// as git records them. `None` is `100644`.
    pub mode: Option<u32>,
}

impl<'a> Side<'a> {
    /// A side with the default mode.
    pub fn new(path: &'a str, bytes: &'a [u8]) -> Self {
        Side { path, bytes, mode: None }
    }

    /// Builder: the mode (see [`Side::mode`]).
    #[must_use]
    pub fn with_mode(mut self, mode: u32) -> Self {
        self.mode = Some(mode);
        self
    }

    /// The mode as git writes it in headers.
    fn git_mode(&self) -> u32 {
        const TYPE: u32 = 0o170_000;
        const REGULAR: u32 = 0o100_000;
        match self.mode {
            None => 0o100_644,
            Some(mode) if mode & TYPE == 0 || mode & TYPE == REGULAR => {
                if mode & 0o100 == 0 {
                    0o100_644
                } else {
                    0o100_755
                }
            }
            Some(mode) => mode,
        }
    }
}

/// The diff of one file, as `git diff` writes it; empty when nothing changed.
///
/// - `old: None` is a new file (`new file mode`, `--- /dev/null`), `new: None` a deletion
///   (`deleted file mode`, `+++ /dev/null`).
/// - Different paths are a rename (`similarity index`, `rename from`/`rename to`), with
///   hunks when the content changed too.
/// - Different modes write `old mode`/`new mode`.
/// - Lines end at `\n` only: a `\r` stays part of its line, as in git, so CRLF files
///   diff exactly. A last line without `\n` is followed by `\ No newline at end of file`.
/// - `index` lines carry real git blob ids: abbreviated to 7 digits for text, full for
///   binary patches (git checks them before applying).
/// - Paths with control characters, `"`, `\` or non-ASCII characters are quoted as git
///   does (C escapes, octal for bytes ≥ 0x80).
///
/// ```
/// use polypatch_unified::generate::{DiffOptions, Side, diff_file};
///
/// let options = DiffOptions::default();
/// let created = diff_file(None, Some(Side::new("new.txt", b"hi\n")), &options);
/// assert_eq!(
///     created,
///     "diff --git a/new.txt b/new.txt\nnew file mode 100644\nindex 0000000..45b983b\n\
///      --- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n"
/// );
///
/// let moved = diff_file(
///     Some(Side::new("a.txt", b"same\n")),
///     Some(Side::new("b.txt", b"same\n").with_mode(0o755)),
///     &options,
/// );
/// assert_eq!(
///     moved,
///     "diff --git a/a.txt b/b.txt\nold mode 100644\nnew mode 100755\n\
///      similarity index 100%\nrename from a.txt\nrename to b.txt\n"
/// );
///
/// let same = Side::new("x", b"x\n");
/// assert_eq!(diff_file(Some(same), Some(same), &options), "");
/// ```
pub fn diff_file(old: Option<Side<'_>>, new: Option<Side<'_>>, options: &DiffOptions) -> String {
    let mut out = String::new();
    match (old, new) {
        (None, None) => {}
        (None, Some(new)) => write_added(&mut out, new, options),
        (Some(old), None) => write_deleted(&mut out, old, options),
        (Some(old), Some(new)) => write_modified(&mut out, old, new, options),
    }
    out
}

/// The diffs of several changes, concatenated in the given order.
///
/// With [`DiffOptions::renames`], a deletion `(Some, None)` and an addition `(None, Some)`
/// with identical content (exact matches first, in order) or, among the rest, with at
/// least 50% of their bytes in common lines (best pairs first) are written as one rename
/// at the position of whichever came first. Binary files pair only when identical; the
/// inexact search is skipped when more than 1000 deletions or additions remain, like
/// git's `diff.renameLimit`.
///
/// ```
/// use polypatch_unified::generate::{DiffOptions, Side, diff_files};
///
/// let changes = [
///     (Some(Side::new("old.txt", b"a\nb\nc\n")), None),
///     (None, Some(Side::new("new.txt", b"a\nb\nc\nd\n"))),
/// ];
/// let diff = diff_files(changes, &DiffOptions::default().renames(true));
/// assert!(diff.starts_with("diff --git a/old.txt b/new.txt\nsimilarity index 75%\nrename from old.txt\n"));
/// ```
pub fn diff_files<'a>(
    changes: impl IntoIterator<Item = (Option<Side<'a>>, Option<Side<'a>>)>,
    options: &DiffOptions,
) -> String {
    let changes: Vec<(Option<Side<'a>>, Option<Side<'a>>)> = changes.into_iter().collect();
    let partner = if options.renames { pair_renames(&changes) } else { vec![None; changes.len()] };
    let mut out = String::new();
    for (i, &(old, new)) in changes.iter().enumerate() {
        match partner[i] {
            None => out.push_str(&diff_file(old, new, options)),
            Some(j) if j < i => {}
            Some(j) => {
                let (deleted, added) = if old.is_some() { (old, changes[j].1) } else { (changes[j].0, new) };
                out.push_str(&diff_file(deleted, added, options));
            }
        }
    }
    out
}

/// The git diff of a computed change set ([`polypatch_core::compute`]'s `changes`) against
/// the files it was computed from: how any patch, in any dialect, would change the tree.
/// Deletions paired with creations of similar content show as renames.
///
/// The old side is read from `files`: it must be the files as the plan was computed on
/// them. Where another program may save a file meanwhile (a directory: core's
/// `DiskFileSet`, its `disk` feature), compute the plan on an
/// [`Overlay`](polypatch_core::Overlay) of the files and pass that same overlay here: it
/// reads each file once, so the old side is the bytes the edits were located on. Read
/// again, the other program's save would be shown as the original, and the diff, fed to
/// `git apply`, would undo it.
///
/// ```
/// use polypatch_core::{ApplyOptions, MemoryFileSet, Overlay, compute};
/// use polypatch_unified::generate::{DiffOptions, diff_changes};
///
/// let files = MemoryFileSet::new().with("a.txt", "one\ntwo\n");
/// let plan = polypatch_unified::parse("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n")
///     .and_then(|p| polypatch_unified::lower(&p, &Default::default()))
///     .unwrap();
/// let once = Overlay::new(&files);
/// let computed = compute(&plan, &once, &ApplyOptions::default()).unwrap();
/// let diff = diff_changes(&once, &computed.changes, &DiffOptions::default()).unwrap();
/// assert!(diff.ends_with("@@ -1,2 +1,2 @@\n one\n-two\n+2\n"));
/// ```
pub fn diff_changes<S: FileSource + ?Sized>(
    files: &S,
    changes: &[polypatch_core::Change],
    options: &DiffOptions,
) -> std::io::Result<String> {
    let mut before = Vec::with_capacity(changes.len());
    for change in changes {
        before.push(match files.read(&change.path)? {
            Entry::File { bytes, mode } => Some((bytes, mode)),
            _ => None,
        });
    }
    let pairs = changes.iter().zip(&before).map(|(change, old)| {
        let path = change.path.as_str();
        let old = old.as_ref().map(|(bytes, mode)| Side { path, bytes, mode: *mode });
        let new = change.kind.written().map(|(bytes, mode)| Side {
            path,
            bytes: bytes.as_bytes(),
            mode: mode.or(old.and_then(|o| o.mode)),
        });
        (old, new)
    });
    Ok(diff_files(pairs, &DiffOptions { renames: true, ..options.clone() }))
}

/// For each change, the index of the change it is paired with as a rename.
fn pair_renames(changes: &[(Option<Side<'_>>, Option<Side<'_>>)]) -> Vec<Option<usize>> {
    const MIN_SIMILARITY: u32 = 50;
    const RENAME_LIMIT: usize = 1000;

    let mut partner = vec![None; changes.len()];
    let deleted: Vec<(usize, Side<'_>)> = changes
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match *c {
            (Some(old), None) => Some((i, old)),
            _ => None,
        })
        .collect();
    let added: Vec<(usize, Side<'_>)> = changes
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match *c {
            (None, Some(new)) => Some((i, new)),
            _ => None,
        })
        .collect();

    for &(d, old) in &deleted {
        if let Some(&(a, _)) = added.iter().find(|&&(a, new)| partner[a].is_none() && new.bytes == old.bytes) {
            link(&mut partner, d, a);
        }
    }

    let open_deleted: Vec<&(usize, Side<'_>)> = deleted.iter().filter(|(d, _)| partner[*d].is_none()).collect();
    let open_added: Vec<&(usize, Side<'_>)> = added.iter().filter(|(a, _)| partner[*a].is_none()).collect();
    if open_deleted.len() > RENAME_LIMIT || open_added.len() > RENAME_LIMIT {
        return partner;
    }
    let mut candidates = Vec::new();
    for &&(d, old) in &open_deleted {
        for &&(a, new) in &open_added {
            let (short, long) = (old.bytes.len().min(new.bytes.len()), old.bytes.len().max(new.bytes.len()));
            // Common bytes are at most the shorter side: skip pairs that cannot reach 50%.
            if short * 100 < long * MIN_SIMILARITY as usize {
                continue;
            }
            let score = similarity(old.bytes, new.bytes);
            if score >= MIN_SIMILARITY {
                candidates.push((score, d, a));
            }
        }
    }
    candidates.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    for (_, d, a) in candidates {
        if partner[d].is_none() && partner[a].is_none() {
            link(&mut partner, d, a);
        }
    }
    partner
}

/// Records that `d` and `a` are one rename.
fn link(partner: &mut [Option<usize>], d: usize, a: usize) {
    partner[d] = Some(a);
    partner[a] = Some(d);
}

/// git's similarity index in percent: the bytes of the lines both sides share, relative to
/// the larger side (rounded down). Identical content is 100; differing binary content 0.
fn similarity(old: &[u8], new: &[u8]) -> u32 {
    if old == new {
        return 100;
    }
    let (Some(old_text), Some(new_text)) = (text(old), text(new)) else { return 0 };
    let old_lines = split_lines(old_text);
    let new_lines = split_lines(new_text);
    let common: usize = common_runs(&old_lines, &new_lines)
        .iter()
        .map(|run| old_lines[run.old..run.old + run.len].iter().map(|l| l.len()).sum::<usize>())
        .sum();
    (common * 100 / old.len().max(new.len())) as u32
}

/// The content as text, or `None` when it is binary: not UTF-8 or containing NUL.
fn text(bytes: &[u8]) -> Option<&str> {
    if memchr::memchr(0, bytes).is_some() {
        return None;
    }
    std::str::from_utf8(bytes).ok()
}

/// Lines ending at `\n`, each keeping its terminator; a last line without one is kept too.
fn split_lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

const NULL_ID: &str = "0000000000000000000000000000000000000000";

/// The `index` line's id of one side: abbreviated for text, full for binary patches.
fn index_id(bytes: Option<&[u8]>, full: bool) -> String {
    let id = bytes.map_or_else(|| NULL_ID.to_owned(), polypatch_core::binary::git_blob_id);
    if full { id } else { id[..7].to_owned() }
}

fn write_header(out: &mut String, old_path: &str, new_path: &str, options: &DiffOptions) {
    let _ =
        writeln!(out, "diff --git {} {}", quote(&options.prefixes.0, old_path), quote(&options.prefixes.1, new_path));
}

/// The `---`/`+++` name: quoted when needed, and followed by a tab when it has a space, as
/// git does so that nothing after it reads as a timestamp.
fn file_line(out: &mut String, marker: &str, prefix: &str, path: Option<&str>) {
    match path {
        None => {
            let _ = writeln!(out, "{marker} /dev/null");
        }
        Some(path) => {
            let tab = if path.contains(' ') { "\t" } else { "" };
            let _ = writeln!(out, "{marker} {}{tab}", quote(prefix, path));
        }
    }
}

fn write_added(out: &mut String, new: Side<'_>, options: &DiffOptions) {
    write_header(out, new.path, new.path, options);
    let _ = writeln!(out, "new file mode {:06o}", new.git_mode());
    write_content(out, None, Some(new), options);
}

fn write_deleted(out: &mut String, old: Side<'_>, options: &DiffOptions) {
    write_header(out, old.path, old.path, options);
    let _ = writeln!(out, "deleted file mode {:06o}", old.git_mode());
    write_content(out, Some(old), None, options);
}

fn write_modified(out: &mut String, old: Side<'_>, new: Side<'_>, options: &DiffOptions) {
    let renamed = old.path != new.path;
    let (old_mode, new_mode) = (old.git_mode(), new.git_mode());
    if !renamed && old_mode == new_mode && old.bytes == new.bytes {
        return;
    }
    write_header(out, old.path, new.path, options);
    if old_mode != new_mode {
        let _ = writeln!(out, "old mode {old_mode:06o}\nnew mode {new_mode:06o}");
    }
    if renamed {
        let _ = writeln!(
            out,
            "similarity index {}%\nrename from {}\nrename to {}",
            similarity(old.bytes, new.bytes),
            quote("", old.path),
            quote("", new.path)
        );
    }
    if old.bytes != new.bytes {
        write_content(out, Some(old), Some(new), options);
    }
}

/// The `index` line and the body (`---`/`+++` and hunks, or the binary patch) of a change
/// whose content differs.
fn write_content(out: &mut String, old: Option<Side<'_>>, new: Option<Side<'_>>, options: &DiffOptions) {
    let old_bytes = old.map(|s| s.bytes);
    let new_bytes = new.map(|s| s.bytes);
    let old_text = old_bytes.map(text);
    let new_text = new_bytes.map(text);
    let binary = matches!(old_text, Some(None)) || matches!(new_text, Some(None));
    let full = binary && options.binary_data();

    // The mode follows the ids only when it is unchanged (no mode lines above).
    let _ = write!(out, "index {}..{}", index_id(old_bytes, full), index_id(new_bytes, full));
    match (old, new) {
        (Some(o), Some(n)) if o.git_mode() == n.git_mode() => {
            let _ = write!(out, " {:06o}", o.git_mode());
        }
        _ => {}
    }
    out.push('\n');

    let old_path = old.map(|s| s.path);
    let new_path = new.map(|s| s.path);
    if binary {
        #[cfg(feature = "git-binary")]
        if options.binary {
            out.push_str("GIT binary patch\n");
            out.push_str(&encode_block(new_bytes.unwrap_or_default()));
            out.push_str(&encode_block(old_bytes.unwrap_or_default()));
            return;
        }
        let name = |prefix: &str, path: Option<&str>| path.map_or_else(|| "/dev/null".to_owned(), |p| quote(prefix, p));
        let _ = writeln!(
            out,
            "Binary files {} and {} differ",
            name(&options.prefixes.0, old_path),
            name(&options.prefixes.1, new_path)
        );
        return;
    }

    let old_text = old_text.flatten().unwrap_or_default();
    let new_text = new_text.flatten().unwrap_or_default();
    // A created or deleted empty file: git writes the header only.
    if old_text.is_empty() && new_text.is_empty() {
        return;
    }
    file_line(out, "---", &options.prefixes.0, old_path);
    file_line(out, "+++", &options.prefixes.1, new_path);
    write_hunks(out, &split_lines(old_text), &split_lines(new_text), options.context);
}

/// One run of changed lines: `old` lines replaced by `new` lines.
#[derive(Debug, Clone)]
struct Change {
    old: Range<usize>,
    new: Range<usize>,
}

/// A run of `len` equal lines at `old` and `new`.
#[derive(Debug, Clone, Copy)]
struct Run {
    old: usize,
    new: usize,
    len: usize,
}

/// Collects the equal runs that Myers reports.
struct Runs(Vec<Run>);

impl DiffHook for Runs {
    type Error = Infallible;

    fn equal(&mut self, old: usize, new: usize, len: usize) -> Result<(), Infallible> {
        self.0.push(Run { old, new, len });
        Ok(())
    }
}

/// How long one line diff may search for a minimal result before it settles for a coarser
/// one (still exact: only the hunks get larger). Only pathological inputs get near it.
const DIFF_DEADLINE: Duration = Duration::from_secs(2);

/// The runs of equal lines of a Myers line diff, increasing on both sides.
///
/// Lines are interned to numbers first, so the diff compares integers, and lines that
/// occur only on one side are left out of the search (they are changes whatever Myers
/// finds; git's xdiff does the same), which keeps a rewritten file from costing
/// quadratic time. Only the equal runs are taken from the algorithm and checked to be in
/// order: what lies between them is a change by construction, so the hunks always add up.
fn common_runs<'t>(old: &[&'t str], new: &[&'t str]) -> Vec<Run> {
    // Per distinct line: its number and how often it occurs on each side.
    let mut ids: HashMap<&'t str, (u32, u32, u32)> = HashMap::with_capacity(old.len() + new.len());
    for (side, lines) in [old, new].into_iter().enumerate() {
        for &line in lines {
            let next = ids.len() as u32;
            let entry = ids.entry(line).or_insert((next, 0, 0));
            if side == 0 {
                entry.1 += 1;
            } else {
                entry.2 += 1;
            }
        }
    }
    // The lines found on both sides, with their positions.
    let keep = |lines: &[&'t str]| -> (Vec<u32>, Vec<usize>) {
        lines
            .iter()
            .enumerate()
            .filter_map(|(i, line)| {
                let (id, in_old, in_new) = ids[line];
                (in_old > 0 && in_new > 0).then_some((id, i))
            })
            .unzip()
    };
    let (old_ids, old_at) = keep(old);
    let (new_ids, new_at) = keep(new);
    let mut hook = Runs(Vec::new());
    let deadline = Instant::now().checked_add(DIFF_DEADLINE);
    let Ok(()) = myers::diff_deadline(&mut hook, &old_ids, 0..old_ids.len(), &new_ids, 0..new_ids.len(), deadline);

    let mut runs: Vec<Run> = Vec::with_capacity(hook.0.len());
    let (mut old_end, mut new_end) = (0, 0);
    for run in hook.0 {
        for k in 0..run.len {
            let (i, j) = (run.old + k, run.new + k);
            if old_ids.get(i).is_none() || old_ids.get(i) != new_ids.get(j) {
                continue;
            }
            // Back to positions in the whole files; keep only matches in order.
            let (at_old, at_new) = (old_at[i], new_at[j]);
            if at_old < old_end || at_new < new_end {
                continue;
            }
            match runs.last_mut() {
                Some(last) if last.old + last.len == at_old && last.new + last.len == at_new => last.len += 1,
                _ => runs.push(Run { old: at_old, new: at_new, len: 1 }),
            }
            (old_end, new_end) = (at_old + 1, at_new + 1);
        }
    }
    runs
}

/// The maximal runs of changed lines, in order: the gaps between the equal runs.
fn changes(old: &[&str], new: &[&str]) -> Vec<Change> {
    let mut out = Vec::new();
    let (mut old_at, mut new_at) = (0, 0);
    let end = Run { old: old.len(), new: new.len(), len: 0 };
    for run in common_runs(old, new).into_iter().chain([end]) {
        if run.old > old_at || run.new > new_at {
            out.push(Change { old: old_at..run.old, new: new_at..run.new });
        }
        (old_at, new_at) = (run.old + run.len, run.new + run.len);
    }
    out
}

/// Whether git's default function-name rule picks this line for hunk headers: it starts
/// with an ASCII letter, `_` or `$`.
fn is_function_line(line: &str) -> bool {
    line.bytes().next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'$')
}

/// A function line as git shows it after `@@`: at most 80 bytes, trailing whitespace
/// removed. (git cuts at 80 bytes; here the cut backs off to a character boundary.)
fn function_text(line: &str) -> &str {
    let mut cut = line.len().min(80);
    while !line.is_char_boundary(cut) {
        cut -= 1;
    }
    line[..cut].trim_end_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r'])
}

fn write_line(out: &mut String, prefix: char, line: &str) {
    out.push(prefix);
    out.push_str(line);
    if !line.ends_with('\n') {
        out.push_str("\n\\ No newline at end of file\n");
    }
}

fn write_hunks(out: &mut String, old: &[&str], new: &[&str], context: usize) {
    let changes = changes(old, new);
    let mut rest = changes.as_slice();
    // The nearest function line above the current hunk, and how far up has been searched.
    let mut function: Option<&str> = None;
    let mut searched = 0;
    while let Some(first) = rest.first() {
        // Changes closer than twice the context share a hunk.
        let mut n = 1;
        while n < rest.len() && rest[n].old.start - rest[n - 1].old.end <= context.saturating_mul(2) {
            n += 1;
        }
        let (group, tail) = rest.split_at(n);
        rest = tail;
        let last = &group[n - 1];

        // The lines around changes are equal on both sides, so the offsets carry over.
        let old_start = first.old.start.saturating_sub(context);
        let new_start = first.new.start - (first.old.start - old_start);
        let old_end = last.old.end.saturating_add(context).min(old.len());
        let new_end = last.new.end + (old_end - last.old.end);
        if let Some(i) = (searched..old_start).rev().find(|&i| is_function_line(old[i])) {
            function = Some(function_text(old[i]));
        }
        searched = old_start;
        let _ = write!(
            out,
            "@@ -{} +{} @@",
            hunk_range(old_start, old_end - old_start),
            hunk_range(new_start, new_end - new_start)
        );
        match function {
            Some(text) if !text.is_empty() => {
                let _ = writeln!(out, " {text}");
            }
            _ => out.push('\n'),
        }
        let mut cursor = old_start;
        for change in group {
            for line in &old[cursor..change.old.start] {
                write_line(out, ' ', line);
            }
            for line in &old[change.old.clone()] {
                write_line(out, '-', line);
            }
            for line in &new[change.new.clone()] {
                write_line(out, '+', line);
            }
            cursor = change.old.end;
        }
        for line in &old[cursor..old_end] {
            write_line(out, ' ', line);
        }
    }
}

/// `prefix` + `path`, quoted the way git quotes names (`core.quotePath`, its default): in
/// double quotes with C escapes (`\t`, `\n`, `\"`, `\\`, …) and octal for other control
/// bytes and every byte ≥ 0x80, when any such character occurs.
fn quote(prefix: &str, path: &str) -> String {
    let needs = |b: u8| b < 0x20 || b == b'"' || b == b'\\' || b >= 0x7f;
    if !prefix.bytes().chain(path.bytes()).any(needs) {
        return format!("{prefix}{path}");
    }
    let mut out = String::with_capacity(prefix.len() + path.len() + 8);
    out.push('"');
    for b in prefix.bytes().chain(path.bytes()) {
        match b {
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            0x0b => out.push_str("\\v"),
            0x0c => out.push_str("\\f"),
            b'\r' => out.push_str("\\r"),
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            _ if needs(b) => {
                let _ = write!(out, "\\{b:03o}");
            }
            _ => out.push(char::from(b)),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(quote("a/", "plain name.txt"), "a/plain name.txt");
        assert_eq!(quote("a/", "na\u{ef}ve"), "\"a/na\\303\\257ve\"");
        assert_eq!(quote("b/", "t\tab"), "\"b/t\\tab\"");
        assert_eq!(quote("", "q\"b\\s\n\x01\x7f"), "\"q\\\"b\\\\s\\n\\001\\177\"");
    }

    #[test]
    fn index_ids() {
        assert_eq!(index_id(Some(b"hello\n"), false), "ce01362");
        assert_eq!(index_id(Some(b"hello\n"), true), "ce013625030ba8dba906f756967f9e9ca394464a");
        assert_eq!(index_id(None, false), "0000000");
    }

    #[test]
    fn modes() {
        assert_eq!(Side::new("x", b"").git_mode(), 0o100_644);
        assert_eq!(Side::new("x", b"").with_mode(0o755).git_mode(), 0o100_755);
        assert_eq!(Side::new("x", b"").with_mode(0o644).git_mode(), 0o100_644);
        assert_eq!(Side::new("x", b"").with_mode(0o100_775).git_mode(), 0o100_755);
        assert_eq!(Side::new("x", b"").with_mode(0o120_000).git_mode(), 0o120_000);
    }

    #[test]
    fn similarity_counts_common_line_bytes() {
        assert_eq!(similarity(b"a\nb\nc\nd\n", b"a\nb\nc\nD\n"), 75);
        assert_eq!(similarity(b"", b""), 100);
        assert_eq!(similarity(b"x\n", b"y\n"), 0);
        assert_eq!(similarity(b"\0a", b"\0b"), 0);
    }

    #[test]
    fn large_rewrite_is_one_hunk() {
        // Lines found on one side only never enter the Myers search, so this is fast; its
        // speed is measured by `cargo bench --bench unified`, not asserted here.
        let (mut old, mut new) = (String::new(), String::new());
        for i in 0..20_000 {
            let _ = writeln!(old, "old {i}");
            let _ = writeln!(new, "new {i}");
        }
        let diff = diff_file(
            Some(Side::new("f", old.as_bytes())),
            Some(Side::new("f", new.as_bytes())),
            &DiffOptions::default(),
        );
        assert!(diff.contains("\n@@ -1,20000 +1,20000 @@\n-old 0\n"));
        assert_eq!(diff.lines().count(), 4 + 1 + 40_000);
    }

    #[test]
    fn huge_context_is_the_whole_file() {
        let diff = diff_file(
            Some(Side::new("f", b"a\nb\nc\n")),
            Some(Side::new("f", b"a\nB\nc\n")),
            &DiffOptions::default().context(usize::MAX),
        );
        assert!(diff.ends_with("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"), "{diff}");
    }
}

//! The journal a commit writes before each step, its names, and what recovery accepts of
//! it. A journal is input like a patch (a clone of a repository, another user's shared
//! folder can hold one): recovery acts on no name in it that it has not checked against
//! the names a commit gives, and on no file that does not hold what the commit left.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use sha1::Digest as _;

use crate::store::fileset::RelPath;
use crate::text::file_bytes::FileBytes;

pub(super) const PREFIX: &str = ".polypatch-";
pub(super) const JOURNAL: &str = ".journal";
pub(super) const DONE: &str = ".done";
const NEW: &str = ".new";
const OLD: &str = ".old";
/// The root's commit lock (see the module docs of `disk`).
pub(super) const LOCK: &str = ".polypatch.lock";
/// The largest journal recovery reads: a line is about 200 bytes, a commit of a million
/// files writes a fifth of this.
pub(super) const MAX_JOURNAL: u64 = 1 << 30;

/// Names of the commit's own files: the lock, journals, temporary files and backups.
pub(super) fn is_reserved(name: &str) -> bool {
    name == LOCK || (name.starts_with(PREFIX) && [JOURNAL, DONE, NEW, OLD].iter().any(|end| name.ends_with(end)))
}

/// Names of journals in the root: running, interrupted or done.
pub(super) fn is_journal(name: &str) -> bool {
    name.starts_with(PREFIX) && (name.ends_with(JOURNAL) || name.ends_with(DONE))
}

pub(super) fn journal_name(id: &str) -> String {
    format!("{PREFIX}{id}{JOURNAL}")
}

pub(super) fn done_name(id: &str) -> String {
    format!("{PREFIX}{id}{DONE}")
}

pub(super) fn temp_name(id: &str, n: usize) -> String {
    format!("{PREFIX}{id}-{n}{NEW}")
}

pub(super) fn backup_name(id: &str, n: usize) -> String {
    format!("{PREFIX}{id}-{n}{OLD}")
}

/// One line of the journal, written before the step it announces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Line {
    /// The directory (root-relative) is about to be created.
    Mkdir { dir: String },
    /// A target (root-relative), its temporary file and its backup (names in its
    /// directory), with the XXH3-128 hash ([`content_id`]) of the content the commit
    /// writes (`new`), and the size and modification time (seconds, nanoseconds) of the
    /// file it replaces (`was`): recovery puts the backup back only over a file that still
    /// holds `new`, and only while the backup (the original itself, its hard link, or a
    /// copy given its time) still shows `was`; it removes a file the commit created only
    /// while it holds `new`. (Journals of earlier versions have no `new`: recovery then
    /// leaves every file whose content it cannot check. Those of the version before this
    /// one hold git blob ids in `new`, and `old`, the blob id of the original, in place of
    /// `was`.)
    File {
        path: String,
        temp: Option<String>,
        backup: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        new: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        old: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        was: Option<(u64, i64, i64)>,
    },
    /// The whole commit is one rename of `temp` over the existing file `path` (a commit
    /// that replaces one file and syncs nothing): the rename is the commit point, so no
    /// backup is kept. A temporary file still there means the commit did not happen;
    /// recovery removes it. Recovery never changes `path`. (A version that does not know
    /// this line reads no line of the journal and changes nothing.)
    Swap { path: String, temp: String },
}

/// A journal as recovery accepts it: every name checked.
#[derive(Debug)]
pub(super) struct Journal {
    /// Renamed to `.done`: the commit happened.
    pub done: bool,
    pub lines: Vec<Line>,
}

/// The id in a journal's name (`.polypatch-<id>.journal` or `.done`), when it is one a
/// commit gives.
fn id_of(name: &str) -> Option<(&str, bool)> {
    let rest = name.strip_prefix(PREFIX)?;
    let (id, done) = match rest.strip_suffix(JOURNAL) {
        Some(id) => (id, false),
        None => (rest.strip_suffix(DONE)?, true),
    };
    (!id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric())).then_some((id, done))
}

/// The `n` of `.polypatch-<id>-<n><end>`, when `name` is that.
fn number_in(name: &str, id: &str, end: &str) -> Option<u64> {
    let n = name.strip_prefix(PREFIX)?.strip_prefix(id)?.strip_prefix('-')?.strip_suffix(end)?;
    let value: u64 = n.parse().ok()?;
    (value.to_string() == n).then_some(value)
}

fn valid_path(path: &str) -> bool {
    RelPath::parse(path, None).is_ok_and(|rel| rel.as_str() == path && !rel.components().any(is_reserved))
}

/// A content's name as a journal gives it: an XXH3-128 hash (32 hex digits), or a git blob
/// id (40, from earlier versions).
fn valid_id(hash: Option<&String>) -> bool {
    hash.is_none_or(|h| {
        matches!(h.len(), 32 | 40) && h.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// Why `line` (number `n`, from 1) is not one a commit of journal `id` writes.
fn check(line: &Line, id: &str, n: usize) -> Result<(), String> {
    let quoted = |s: &str| format!("`{}`", s.escape_debug());
    let (path, temp, backup) = match line {
        Line::Mkdir { dir } => {
            return if valid_path(dir) {
                Ok(())
            } else {
                Err(format!("line {n} names {} as a directory, which is not a path inside the root", quoted(dir)))
            };
        }
        Line::File { path, temp, backup, new, old, .. } => {
            if !valid_id(new.as_ref()) || !valid_id(old.as_ref()) {
                return Err(format!("line {n} holds a content hash that is not one a commit writes"));
            }
            (path, temp.as_deref(), backup.as_deref())
        }
        Line::Swap { path, temp } => (path, Some(temp.as_str()), None),
    };
    if !valid_path(path) {
        return Err(format!("line {n} names {} as a file, which is not a path inside the root", quoted(path)));
    }
    let temp_n = match temp {
        Some(temp) => match number_in(temp, id, NEW) {
            Some(k) => Some(k),
            None => {
                return Err(format!(
                    "line {n} names {} as the temporary file of {}, where a commit writes `{}`",
                    quoted(temp),
                    quoted(path),
                    format!("{PREFIX}{id}-<n>{NEW}").escape_debug()
                ));
            }
        },
        None => None,
    };
    if let Some(backup) = backup {
        match number_in(backup, id, OLD) {
            Some(k) if temp_n.is_none_or(|t| t == k) => {}
            _ => {
                return Err(format!(
                    "line {n} names {} as the backup of {}, where a commit writes `{}`",
                    quoted(backup),
                    quoted(path),
                    format!("{PREFIX}{id}-{}{OLD}", temp_n.map_or("<n>".to_string(), |t| t.to_string())).escape_debug()
                ));
            }
        }
    }
    Ok(())
}

/// Reads the journal `name` (in the root) from its bytes, checking every name in it: the
/// paths lie inside the root and are not the commit's own files, the temporary files and
/// backups are named as this journal's commit names them (in the directory of their
/// target). A last line cut short (a crash while it was written) announced a step that
/// was not taken and is left out; any other line that is not one a commit writes makes
/// the whole journal refused.
pub(super) fn parse(name: &str, text: &[u8]) -> Result<Journal, String> {
    let Some((id, done)) = id_of(name) else {
        return Err("its name is not one a commit gives (`.polypatch-<letters and digits>.journal`)".to_string());
    };
    let mut lines = Vec::new();
    let mut rest = text;
    let mut n = 0;
    while let Some(end) = memchr::memchr(b'\n', rest) {
        n += 1;
        let line = std::str::from_utf8(&rest[..end])
            .ok()
            .and_then(|l| serde_json::from_str::<Line>(l).ok())
            .ok_or_else(|| format!("line {n} is not a line a commit writes"))?;
        check(&line, id, n)?;
        lines.push(line);
        rest = &rest[end + 1..];
    }
    Ok(Journal { done, lines })
}

/// What a content is named by in the journal: its XXH3-128 hash, 32 hex digits. A hash to
/// tell a file still holding what the commit wrote from one changed since (by a program or
/// a person, not an adversary: whoever can write the file can also write a journal that
/// names it), fast enough to hash every new content of a commit (several GB/s; SHA-1, the
/// git blob id journals held before, took a third of a 73-file commit).
pub(super) fn content_id(bytes: &FileBytes) -> String {
    struct Hasher(xxhash_rust::xxh3::Xxh3Default);
    impl std::io::Write for Hasher {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.update(buf);
            Ok(buf.len())
        }
        fn write_vectored(&mut self, bufs: &[std::io::IoSlice<'_>]) -> std::io::Result<usize> {
            bufs.iter().map(|buf| self.write(buf)).sum()
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    if let Some(bytes) = bytes.at_hand() {
        return format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes));
    }
    let mut hash = Hasher(xxhash_rust::xxh3::Xxh3Default::new());
    // Writing to a hasher cannot fail.
    let _ = bytes.write_to(&mut hash);
    format!("{:032x}", hash.0.digest128())
}

/// Whether `bytes` is the content `id` names: an XXH3-128 hash ([`content_id`]), or the git
/// blob id the journals of earlier versions hold.
pub(super) fn names(id: &str, bytes: &FileBytes) -> bool {
    if id.len() == 40 { blob_id(bytes) == id } else { content_id(bytes) == id }
}

/// The git blob id of a content: what the journals of earlier versions record.
pub(super) fn blob_id(bytes: &FileBytes) -> String {
    struct Hasher(sha1::Sha1);
    impl std::io::Write for Hasher {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.update(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut hash = Hasher(sha1::Sha1::new());
    hash.0.update(format!("blob {}\0", bytes.len()).as_bytes());
    // Writing to a hasher cannot fail.
    let _ = bytes.write_to(&mut hash);
    let mut hex = String::with_capacity(40);
    for byte in hash.0.finalize() {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_ids_are_gits() {
        assert_eq!(blob_id(&FileBytes::from(&b"hello\n"[..])), "ce013625030ba8dba906f756967f9e9ca394464a");
        assert_eq!(blob_id(&FileBytes::from(&b""[..])), crate::text::binary::git_blob_id(b""));
    }

    /// A content is named alike whole or as an edited file's lines, and either name, the
    /// XXH3-128 hash or the git blob id of an earlier version's journal, is checked.
    #[test]
    fn contents_are_named_by_their_hash() {
        let whole = FileBytes::from(&b"one\ntwo\n"[..]);
        let lines = FileBytes::from_lines(
            crate::text::lines::TextFile::parse_shared(
                &crate::text::shared::SharedText::new("one\ntwo\n".into()),
                crate::text::eol::LineBreaks::LfOrCrLf,
            ),
            false,
        );
        let id = content_id(&whole);
        assert_eq!(id, format!("{:032x}", xxhash_rust::xxh3::xxh3_128(b"one\ntwo\n")));
        assert_eq!(content_id(&lines), id);
        assert!(names(&id, &lines) && names(&blob_id(&whole), &lines));
        assert!(!names(&id, &FileBytes::from(&b"one\n"[..])));
        assert!(valid_id(Some(&id)) && valid_id(Some(&blob_id(&whole))) && !valid_id(Some(&id[1..].to_string())));
    }

    #[test]
    fn names_are_checked_against_the_journals_own() {
        let file = |path: &str, temp: Option<&str>, backup: Option<&str>| Line::File {
            path: path.into(),
            temp: temp.map(Into::into),
            backup: backup.map(Into::into),
            new: None,
            old: None,
            was: None,
        };
        let ok = [
            file("a.txt", Some(".polypatch-7f-0.new"), Some(".polypatch-7f-0.old")),
            file("d/b.txt", Some(".polypatch-7f-12.new"), None),
            file("gone.txt", None, Some(".polypatch-7f-3.old")),
            Line::Swap { path: "a.txt".into(), temp: ".polypatch-7f-0.new".into() },
            Line::Mkdir { dir: "d/e".into() },
        ];
        for line in &ok {
            assert_eq!(check(line, "7f", 1), Ok(()), "{line:?}");
        }
        let bad = [
            (file("../x", Some(".polypatch-7f-0.new"), None), "as a file"),
            (file("/etc/passwd", Some(".polypatch-7f-0.new"), None), "as a file"),
            (file("a/./b", None, None), "as a file"),
            (file(".polypatch-7f.journal", None, None), "as a file"),
            (file("a.txt", Some("../../victim"), None), "temporary file"),
            (file("a.txt", Some("/tmp/victim"), None), "temporary file"),
            (file("a.txt", Some("b.txt"), None), "temporary file"),
            (file("a.txt", Some(".polypatch-other-0.new"), None), "temporary file"),
            (file("a.txt", Some(".polypatch-7f-00.new"), None), "temporary file"),
            (file("a.txt", Some(".polypatch-7f-0.new"), Some(".polypatch-7f-1.old")), "backup"),
            (file("a.txt", None, Some("../a.txt")), "backup"),
            (file("a.txt", None, Some(".polypatch-7f-0.new")), "backup"),
            (Line::Swap { path: "a.txt".into(), temp: "a.txt".into() }, "temporary file"),
            (Line::Mkdir { dir: "../up".into() }, "as a directory"),
        ];
        for (line, what) in &bad {
            let err = check(line, "7f", 3).unwrap_err();
            assert!(err.starts_with("line 3 names") && err.contains(what), "{line:?}: {err}");
        }
        let hashed = Line::File {
            path: "a".into(),
            temp: None,
            backup: None,
            new: Some("../../x".into()),
            old: None,
            was: None,
        };
        assert!(check(&hashed, "7f", 1).is_err());
    }

    #[test]
    fn a_journal_is_read_whole_or_refused() {
        let text = "{\"mkdir\":{\"dir\":\"d\"}}\n{\"file\":{\"path\":\"d/a\",\"temp\":\".polypatch-9-1.new\",\"backup\":null}}\n{\"file\":{\"pa";
        let journal = parse(".polypatch-9.journal", text.as_bytes()).unwrap();
        assert_eq!((journal.done, journal.lines.len()), (false, 2));
        assert!(parse(".polypatch-9.done", b"").unwrap().done);
        let err = parse(".polypatch-9.journal", b"{\"mkdir\":{\"dir\":\"d\"}}\nnot json\n{}\n").unwrap_err();
        assert_eq!(err, "line 2 is not a line a commit writes");
        assert!(parse(".polypatch-a-b.journal", b"").unwrap_err().contains("its name"));
        assert!(parse(".polypatch-9.journal", b"{\"future\":{}}\n").is_err());
    }
}

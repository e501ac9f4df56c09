//! `apply --session FILE`: the session health of the `ApplyDiff` spec (§1, §3) kept in a
//! JSON state file between runs.
//!
//! The file is created on first use (a missing or empty file is a new session). One that
//! cannot be read, or holds something other than a session, is an error (exit 2) before
//! anything is applied, and the file is left as it is. After each apply the state is
//! written to a temporary file beside it and renamed over it, so a crash leaves the old
//! state or the new one. Two runs sharing a state file at the same moment are not
//! serialized: the last to finish wins.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use polypatch::applydiff::{FileContents, Session};
use polypatch::{
    ApplyReport, DiskFileSet, EditPlan,
    fs::{Entry, FileSource},
    report::Status,
};

/// The `Guidance:` line when `--guidance` is not given.
pub const DEFAULT_GUIDANCE: &str = "none";

/// A session loaded from its state file, with what this run needs to update it.
pub struct Kept {
    /// Where it is kept.
    pub path: PathBuf,
    /// The state.
    pub session: Session,
}

impl Kept {
    /// Loads the session in `path` (a new one when the file is missing or empty), with its
    /// exchange budget set to `max_exchanges` when given.
    pub fn load(path: &Path, max_exchanges: Option<usize>) -> anyhow::Result<Kept> {
        let mut session = match fs::read_to_string(path) {
            Ok(text) if text.trim().is_empty() => Session::default(),
            Ok(text) => Session::from_json(&text).with_context(|| {
                format!(
                    "session state file `{}` cannot be used; fix or remove it (it is left as it is)",
                    path.display()
                )
            })?,
            Err(err) if err.kind() == io::ErrorKind::NotFound => Session::default(),
            Err(err) => {
                return Err(err).with_context(|| format!("cannot read session state file `{}`", path.display()));
            }
        };
        if let Some(max) = max_exchanges {
            session.max_exchanges = max;
        }
        Ok(Kept { path: path.to_path_buf(), session })
    }

    /// Writes the state: to a temporary file beside the state file, renamed over it.
    pub fn save(&self) -> anyhow::Result<()> {
        let Some(name) = self.path.file_name() else {
            bail!("session state file `{}` is not a file name", self.path.display());
        };
        let mut temp_name = name.to_os_string();
        temp_name.push(format!(".{}.tmp", std::process::id()));
        let temp = self.path.with_file_name(temp_name);
        let written = fs::write(&temp, self.session.to_json()).and_then(|()| fs::rename(&temp, &self.path));
        if written.is_err() {
            let _ = fs::remove_file(&temp);
        }
        written.with_context(|| format!("cannot write session state file `{}`", self.path.display()))
    }
}

/// The content of every file `plan` names, before the apply, by root-relative path.
pub type Before = BTreeMap<String, Option<String>>;

/// Reads the files `plan` touches, before it is applied.
pub fn read_before(plan: &EditPlan, files: &DiskFileSet) -> Before {
    let mut before = Before::new();
    for file in &plan.files {
        if let Ok(path) = files.resolve(&file.path) {
            let text = read_text(files, path.as_str());
            before.insert(path.as_str().to_string(), text);
        }
    }
    before
}

/// Records `report` in the session, reading the changed files as they are now.
pub fn record(session: &mut Session, report: &ApplyReport, before: &Before, files: &DiskFileSet) {
    let mut read = Vec::new();
    if report.committed {
        for file in report.files.iter().filter(|f| f.status == Status::Applied) {
            let path = file.moved_to.as_deref().unwrap_or(&file.path);
            let source = files.resolve(&file.path).ok();
            let old = source.and_then(|p| before.get(p.as_str()).cloned()).flatten();
            read.push((path.to_string(), old, read_text(files, path)));
        }
    }
    let contents: Vec<FileContents<'_>> =
        read.iter().map(|(path, before, after)| FileContents::new(path, before.as_deref(), after.as_deref())).collect();
    session.record(report, &contents);
}

/// A file's text (lossily decoded), or `None` when it is not a readable regular file.
fn read_text(files: &DiskFileSet, path: &str) -> Option<String> {
    let path = files.resolve(path).ok()?;
    match files.read(&path) {
        Ok(Entry::File { bytes, .. }) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_or_empty_file_is_a_new_session() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        let kept = Kept::load(&path, None).unwrap();
        assert_eq!(kept.session, Session::default());
        fs::write(&path, "\n").unwrap();
        let kept = Kept::load(&path, Some(7)).unwrap();
        assert_eq!(kept.session.max_exchanges, 7);
        kept.save().unwrap();
        let back = Kept::load(&path, None).unwrap();
        assert_eq!(back.session, kept.session);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file is left");
    }

    #[test]
    fn a_corrupt_file_is_an_error_and_stays() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        fs::write(&path, "{\"version\": 1, \"exch").unwrap();
        let err = format!("{:#}", Kept::load(&path, None).err().unwrap());
        assert!(err.starts_with(&format!("session state file `{}` cannot be used", path.display())), "{err}");
        assert!(err.contains("not a session state"), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"version\": 1, \"exch");
        let err = format!("{:#}", Kept::load(dir.path(), None).err().unwrap());
        assert!(err.starts_with("cannot read session state file"), "{err}");
    }
}

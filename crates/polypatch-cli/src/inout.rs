//! Input and output: the patch text, the root directory, the standard streams and the exit
//! code. Every verb reads and writes through these; they know no verb.

use std::fs;
use std::io::{self, IsTerminal as _, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use polypatch::{DiskFileSet, PatchError, fs::Durability, plan::Span};

use crate::cli::{self, ApplyArgs};
use crate::output;
use crate::term;

/// The exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Applied, already applied, or a check that would apply.
    Success = 0,
    /// The patch could not be applied; nothing was written (or `detect` found nothing).
    NotApplied = 1,
    /// A malformed patch or a usage error.
    Invalid = 2,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit as u8)
    }
}

/// Why the patch text could not be had.
pub enum Input {
    /// Unreadable file, stdin failure: a usage error.
    Unreadable(anyhow::Error),
    /// Not UTF-8 and not a unified diff: a malformed patch, reported against the lossily
    /// decoded text.
    NotText(PatchError, String),
}

/// The patch's text. A unified diff may hold bytes that are not UTF-8 (a Latin-1 file's
/// lines): it is read without loss and applied byte for byte, as git applies it. Any other
/// patch must be UTF-8 text.
pub fn read_patch(patch: &Path, format: Option<&str>) -> Result<String, Input> {
    let bytes = if cli::is_stdin(patch) {
        if let Some(hint) = term::stdin_hint(io::stdin().is_terminal()) {
            stderr(hint);
        }
        let mut bytes = Vec::new();
        io::stdin().lock().read_to_end(&mut bytes).context("cannot read the patch from standard input").and_then(|_| {
            if bytes.iter().all(u8::is_ascii_whitespace) {
                let what = if bytes.is_empty() { "empty" } else { "blank" };
                anyhow::bail!(
                    "standard input was {what}: there is no patch to read; name the patch file (`polypatch apply fix.patch`) \
                     or pipe one in (`polypatch apply < fix.patch`)"
                )
            }
            Ok(bytes)
        })
    } else {
        fs::read(patch).with_context(|| format!("cannot read patch file `{}`", patch.display()))
    }
    .map_err(Input::Unreadable)?;
    // Decoded as the library decodes a file's bytes: a character of U+10FF80..=U+10FFFF,
    // which its text stands for a byte that is not UTF-8 with, is written in a patch as
    // that character (its four bytes), not as the one byte it would stand for.
    String::from_utf8(bytes)
        .map(|text| match polypatch::fs::decode_lossless(text.as_bytes()) {
            std::borrow::Cow::Borrowed(_) => text,
            std::borrow::Cow::Owned(escaped) => escaped,
        })
        .or_else(|err| {
            let text = polypatch::fs::decode_lossless(err.as_bytes()).into_owned();
            let dialect = format.or_else(|| polypatch::detect(&text).map(polypatch::Dialect::name));
            if dialect == Some("unified") {
                return Ok(text);
            }
            let at = err.utf8_error().valid_up_to();
            let byte = err.as_bytes()[at];
            let lossy = String::from_utf8_lossy(err.as_bytes()).into_owned();
            let message = format!(
                "invalid UTF-8 (byte 0x{byte:02x}); a patch must be UTF-8 text (only a unified diff may hold other \
             bytes: it is applied byte for byte, as git applies it)"
            );
            // The lossy text equals the original up to `at`, so the span points at the
            // replacement character standing for the bad byte.
            Err(Input::NotText(
                PatchError::new(
                    "polypatch",
                    polypatch::error::ErrorKind::NOT_UTF8,
                    message,
                    Some(Span::new(at, at + 1)),
                ),
                lossy,
            ))
        })
}

/// The text of `extract` and `detect`: exit 2 when it cannot be had.
pub fn read_text(path: &Path) -> Result<String, Exit> {
    match read_patch(path, None) {
        Ok(text) => Ok(text),
        Err(Input::Unreadable(err)) => Err(usage_error(false, &err)),
        Err(Input::NotText(err, lossy)) => {
            stderr(&output::malformed_text(&err, &lossy));
            Err(Exit::Invalid)
        }
    }
}

/// The root when `--root` is not given: an `ap` patch's paths are relative to the patch
/// file's folder (its spec, §2.3); every other patch's to the current directory.
pub fn default_root(dialect: &str, patch: &Path) -> PathBuf {
    match patch.parent() {
        Some(dir) if dialect == "ap" && !cli::is_stdin(patch) => {
            if dir.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                dir.to_path_buf()
            }
        }
        _ => PathBuf::from("."),
    }
}

/// The root directory as a file set.
pub fn open_root(root: &Path) -> anyhow::Result<DiskFileSet> {
    let meta = fs::metadata(root).with_context(|| format!("cannot use root directory `{}`", root.display()))?;
    if !meta.is_dir() {
        bail!("root `{}` is not a directory", root.display());
    }
    // The error names the root and what failed.
    Ok(DiskFileSet::new(root)?)
}

/// The root as a file set, committing with `apply`'s durability policy.
pub fn open_root_for(root: &Path, args: &ApplyArgs) -> anyhow::Result<DiskFileSet> {
    Ok(open_root(root)?.durability(durability(args)?))
}

/// The durability policy of `apply`'s commit: `--fsync`, else `$POLYPATCH_FSYNC`, else the
/// library's default.
fn durability(args: &ApplyArgs) -> anyhow::Result<Durability> {
    let (name, from) = match &args.fsync {
        Some(name) => (name.clone(), "--fsync"),
        None => match std::env::var("POLYPATCH_FSYNC") {
            Ok(name) if !name.is_empty() => (name, "POLYPATCH_FSYNC"),
            _ => return Ok(Durability::default()),
        },
    };
    Durability::from_name(&name).with_context(|| format!("{from} must be `none` or `full`, not `{name}`"))
}

/// Prints a usage error, as JSON with `--json` (exit 2).
pub fn usage_error(json: bool, err: &anyhow::Error) -> Exit {
    if json {
        stdout(&output::usage_json(err));
    } else {
        stderr(&output::usage_text(err));
    }
    Exit::Invalid
}

/// Writes to standard output. A closed pipe (`polypatch … | head`) is not an error worth
/// a panic: the exit code still says what happened.
pub fn stdout(text: &str) {
    stdout_bytes(text.as_bytes());
}

/// Writes bytes to standard output, ignoring a closed pipe like [`stdout`].
pub fn stdout_bytes(bytes: &[u8]) {
    let mut out = io::stdout().lock();
    let _ = out.write_all(bytes).and_then(|()| out.flush());
}

/// Writes to standard error, ignoring a closed stream like [`stdout`].
pub fn stderr(text: &str) {
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ap_patches_default_to_their_folder() {
        assert_eq!(default_root("ap", Path::new("work/fix.ap")), PathBuf::from("work"));
        assert_eq!(default_root("ap", Path::new("fix.ap")), PathBuf::from("."));
        assert_eq!(default_root("ap", Path::new("-")), PathBuf::from("."));
        assert_eq!(default_root("unified", Path::new("work/fix.diff")), PathBuf::from("."));
        assert_eq!(default_root("ai-patch", Path::new("/abs/fix.patch")), PathBuf::from("."));
    }

    #[test]
    fn non_utf8_patch_points_at_the_bad_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.patch");
        fs::write(&path, b"*** Begin Patch\n*** Add File: a\n+caf\xe9\n").unwrap();
        let Err(Input::NotText(err, lossy)) = read_patch(&path, None) else { panic!("expected a UTF-8 error") };
        assert_eq!(err.kind, "not_utf8");
        assert!(err.message.contains("0xe9"), "{}", err.message);
        let rendered = err.render(&lossy);
        assert!(rendered.contains("line 3, column 5"), "{rendered}");
    }

    #[test]
    fn missing_root_is_a_usage_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = open_root(&dir.path().join("nope")).unwrap_err();
        assert!(format!("{err:#}").starts_with("cannot use root directory"), "{err:#}");
        let file = dir.path().join("file");
        fs::write(&file, "x").unwrap();
        assert!(format!("{:#}", open_root(&file).unwrap_err()).ends_with("is not a directory"));
    }
}

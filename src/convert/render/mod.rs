//! Writing the deltas in each target dialect.

#[cfg(feature = "ai-patch")]
mod aipatch;
#[cfg(feature = "ap")]
mod ap;
#[cfg(feature = "applydiff")]
mod applydiff;
#[cfg(feature = "aptix")]
mod aptix;

use polypatch_core::{Change, FileSource};

use super::changes::{Delta, text};
use super::{ConvertError, Operation};

/// Whether [`render`] writes the dialect `target`: a built-in dialect compiled in.
pub(crate) fn renders(target: &str) -> bool {
    crate::dialect(target).is_some()
}

/// The deltas written in the dialect `target` (a name [`crate::dialect`] knows). `whole`
/// asks for the plainest form, tried when the first rendering did not verify: Aptix writes
/// whole contents, AI-PATCH context only (no scope lines), ap single snippets (no ranges)
/// with all the context asked for.
pub(crate) fn render<S: FileSource + ?Sized>(
    target: &'static str,
    files: &S,
    changes: &[Change],
    deltas: &[Delta],
    context: usize,
    whole: bool,
) -> Result<String, ConvertError> {
    let _ = (files, changes, deltas, context, whole);
    match target {
        #[cfg(feature = "unified")]
        "unified" => {
            let options = polypatch_unified::generate::DiffOptions::default().context(context);
            polypatch_unified::generate::diff_changes(files, changes, &options)
                .map_err(|source| ConvertError::Read { path: String::new(), source })
        }
        #[cfg(feature = "ai-patch")]
        "ai-patch" => aipatch::render(deltas, context, !whole),
        #[cfg(feature = "ap")]
        // The ap spec asks for the shortest unique snippet (§4.2): one line of context,
        // which also keeps the content's indentation (§3.3), more only where needed. The
        // plain form has all the context asked for (blank lines added next to blank lines
        // need it: the spec's search skips blank lines).
        #[cfg(feature = "ap")]
        "ap" if whole => ap::render(deltas, context, false),
        #[cfg(feature = "ap")]
        "ap" => ap::render(deltas, context.min(1), true),
        #[cfg(feature = "applydiff")]
        "applydiff" => applydiff::render(deltas, context),
        #[cfg(feature = "aptix")]
        "aptix" => Ok(aptix::render(deltas, if whole { aptix::Style::Replace } else { aptix::Style::Patch })),
        other => unreachable!("dialect `{other}` is compiled in but has no renderer"),
    }
}

/// What a text-only dialect refuses up front, for every delta: binary content and a file
/// mode; plus, where the dialect lacks them, deletion and renaming.
pub(crate) fn text_only(dialect: &'static str, delta: &Delta, delete: bool, rename: bool) -> Result<(), ConvertError> {
    if delta.after.is_none() && !delete {
        return Err(refuse(dialect, Operation::Delete, delta, "its spec has no operation that deletes a file"));
    }
    // A deletion does not write the content it removes.
    let sides = if delta.after.is_some() { [&delta.before, &delta.after] } else { [&None, &None] };
    if sides.iter().any(|s| s.as_ref().is_some_and(|s| text(&s.bytes).is_none())) {
        return Err(refuse(
            dialect,
            Operation::Binary,
            delta,
            "it is a text format; a git diff carries binary content",
        ));
    }
    if delta.renamed_to.is_some() && !rename {
        return Err(refuse(
            dialect,
            Operation::Rename,
            delta,
            "its spec can create the new file but not delete the old one",
        ));
    }
    if delta.mode_changes() {
        return Err(refuse(dialect, Operation::Mode, delta, "its spec has no file modes; a git diff carries them"));
    }
    Ok(())
}

/// An inexpressible operation on a delta's file.
pub(crate) fn refuse(dialect: &'static str, operation: Operation, delta: &Delta, detail: &str) -> ConvertError {
    ConvertError::Inexpressible { dialect, operation, path: delta.path.clone(), detail: detail.to_owned() }
}

/// The text of both sides of a delta that [`text_only`] accepted (`""` for a missing side).
pub(crate) fn texts(delta: &Delta) -> (&str, &str) {
    fn side(s: Option<&super::changes::Side>) -> &str {
        s.and_then(|s| text(&s.bytes)).unwrap_or("")
    }
    (side(delta.before.as_ref()), side(delta.after.as_ref()))
}

/// Refuses a change to a file's final newline or byte order mark, which a dialect that
/// keeps a file's own cannot make.
pub(crate) fn keeps_ends(dialect: &'static str, delta: &Delta, before: &str, after: &str) -> Result<(), ConvertError> {
    if before.ends_with('\n') != after.ends_with('\n') && !before.is_empty() && !after.is_empty() {
        return Err(refuse(
            dialect,
            Operation::FinalNewline,
            delta,
            "an edit keeps the file's own final newline or its absence",
        ));
    }
    if before.starts_with('\u{feff}') != after.starts_with('\u{feff}') {
        return Err(refuse(dialect, Operation::ByteOrderMark, delta, "an edit keeps the file's own byte order mark"));
    }
    Ok(())
}

/// A text without its byte order mark: the engine reads a file's mark apart from its first
/// line, and a dialect that keeps it ([`keeps_ends`]) need not write it.
pub(crate) fn unmarked(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

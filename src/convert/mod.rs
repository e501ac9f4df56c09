//! Converting a patch from any dialect to any other, resolved against the files.
//!
//! A patch is first computed in memory against the files it applies to (every tier the
//! source dialect allows: a fuzzy, re-indented or typo'd hunk is located as it would be
//! applied). That gives each file's exact content before and after. The target dialect is
//! then written from those two contents, growing the context of every hunk, snippet or
//! `find` until the target's own rules locate it in exactly one place. Last, the output is
//! parsed as the target dialect and computed again against the same files with exact
//! matching only: the conversion succeeds only when that gives byte for byte the same
//! files as the source patch, and when applying it once more to that result changes
//! nothing. So the result of a conversion always applies at the exact tier, never
//! approximates, and is safe to re-run.
//!
//! What a dialect cannot say (deleting a file in `ap`, binary content outside a git diff,
//! an executable bit in `ai-patch`, …) is a [`RenderError::Inexpressible`] (in [`ConvertError::Render`]) naming the
//! [`Operation`] and the file.
//!
//! ```
//! use polypatch::MemoryFileSet;
//! use polypatch::Format;
//! use polypatch::convert::{ConvertOptions, convert};
//!
//! let files = MemoryFileSet::new().with("app.py", "def main():\n    print('hi')\n");
//! // A hunk whose indentation the model lost: it is located leniently, written exactly.
//! let diff = "--- a/app.py\n+++ b/app.py\n@@ -2 +2 @@\n-print('hi')\n+print('hello')\n";
//! let out = convert(diff, &files, Format::AiPatch, &ConvertOptions::default()).unwrap();
//! assert_eq!(
//!     out.text,
//!     "*** Begin Patch\n*** Update File: app.py\n@@\n def main():\n-    print('hi')\n+    print('hello')\n\
//!      *** End of File\n*** End Patch\n"
//! );
//! ```

mod changes;

use std::collections::HashMap;

use crate::Format;

use polypatch_core::{
    ApplyError, ApplyOptions, Change, ChangeKind, DialectName, EditPlan, Entry, FileDelta, FileSource, ParseOptions,
    PatchError, RenderOptions,
};

#[cfg(feature = "ap")]
pub use polypatch_ap::yaml_scalar;
/// Something a dialect has no way to say (core's [`polypatch_core::Operation`]).
pub use polypatch_core::{Operation, RenderError};

/// The patch to convert: a text in some dialect, or an already lowered plan.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Input<'a> {
    /// Patch text and its dialect ([`Format::Auto`]: detected).
    Text {
        /// The patch text.
        text: &'a str,
        /// The dialect, or [`Format::Auto`] to detect it.
        format: Format,
    },
    /// A plan (from [`crate::parse`], or built by hand).
    Plan(&'a EditPlan),
}

impl<'a> From<&'a str> for Input<'a> {
    /// Text whose dialect is detected.
    fn from(text: &'a str) -> Self {
        Input::Text { text, format: Format::Auto }
    }
}

impl<'a> From<&'a String> for Input<'a> {
    /// Text whose dialect is detected.
    fn from(text: &'a String) -> Self {
        Input::Text { text, format: Format::Auto }
    }
}

impl<'a> From<&'a EditPlan> for Input<'a> {
    fn from(plan: &'a EditPlan) -> Self {
        Input::Plan(plan)
    }
}

/// How a conversion reads and applies the source patch, and how much context it writes.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ConvertOptions {
    /// How the source patch is located (strict, skip a missing `find`, fuzzy threshold).
    /// `dry_run` plays no part: a conversion never writes.
    pub apply: ApplyOptions,
    /// How the source text is parsed (a diff's strip level).
    pub parse: ParseOptions,
    /// Lines of context written around each change where the target dialect has context
    /// (unified, AI-PATCH, `ApplyDiff`); more are added where needed to be unique. Default
    /// 3. ap snippets take at most one (all of them where one does not give back the
    /// bytes) and Aptix finds none unless needed: their specs ask for the shortest unique
    /// snippet.
    pub context: usize,
}

impl Default for ConvertOptions {
    fn default() -> Self {
        ConvertOptions { apply: ApplyOptions::default(), parse: ParseOptions::default(), context: 3 }
    }
}

impl ConvertOptions {
    /// Builder: how the source patch is applied.
    #[must_use]
    pub fn apply(mut self, options: ApplyOptions) -> Self {
        self.apply = options;
        self
    }

    /// Builder: how the source text is parsed.
    #[must_use]
    pub fn parse(mut self, options: ParseOptions) -> Self {
        self.parse = options;
        self
    }

    /// Builder: lines of context around each change.
    #[must_use]
    pub fn context(mut self, lines: usize) -> Self {
        self.context = lines;
        self
    }
}

/// A converted patch.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Converted {
    /// The patch in the target dialect; empty when the source changes nothing (it is
    /// already applied): there is nothing to write.
    pub text: String,
    /// The target dialect's name.
    pub dialect: DialectName,
    /// The source dialect's name.
    pub source: DialectName,
    /// How many files the patch changes.
    pub files: usize,
}

/// Why a conversion gave no patch.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertError {
    /// The target (or source) dialect name is not one compiled in.
    #[error("unknown format `{name}`; known formats: {known}")]
    UnknownFormat {
        /// The name given.
        name: String,
        /// The names known, comma-separated.
        known: String,
    },
    /// The source patch is malformed.
    #[error("the patch is malformed: {0}")]
    Malformed(#[source] PatchError),
    /// The source patch does not apply to the files; the report says why.
    #[error("the patch does not apply to the files: {0}")]
    NotApplied(#[source] Box<ApplyError>),
    /// A file could not be read.
    #[error("cannot read `{path}`: {source}")]
    Read {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// The target dialect cannot express something the patch does
    /// ([`RenderError::Inexpressible`]: the operation, the file and why), or cannot be
    /// written at all ([`RenderError::NotWritable`]).
    #[error(transparent)]
    Render(#[from] RenderError),
}

impl ConvertError {
    /// The operation the target cannot express, for [`RenderError::Inexpressible`].
    pub fn operation(&self) -> Option<Operation> {
        match self {
            ConvertError::Render(err) => err.operation(),
            _ => None,
        }
    }
}

/// Converts `input` into the dialect named `to`, resolved against `files`.
///
/// The source is computed against `files` (nothing is written), each changed file's
/// content before and after is written in the target dialect, and the result is checked
/// by applying it in memory with exact matching only: it must give the same bytes.
/// [`Dialects::convert`](crate::Dialects::convert) converts with the dialects of a
/// registry (from a user's own dialect, say).
///
/// ```
/// use polypatch::{Format, MemoryFileSet};
/// use polypatch::convert::{ConvertError, ConvertOptions, Operation, convert};
///
/// let files = MemoryFileSet::new().with("old.txt", "bye\n");
/// let patch = "*** Begin Patch\n*** Delete File: old.txt\n*** End Patch\n";
/// let diff = convert(patch, &files, Format::Unified, &ConvertOptions::default()).unwrap();
/// assert!(diff.text.starts_with("diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n"));
/// // The 'ap' format has no way to delete a file.
/// let err = convert(patch, &files, Format::Ap, &ConvertOptions::default()).unwrap_err();
/// assert_eq!(err.operation(), Some(Operation::Delete));
/// ```
pub fn convert<'a, S: FileSource + ?Sized>(
    input: impl Into<Input<'a>>,
    files: &S,
    to: Format,
    options: &ConvertOptions,
) -> Result<Converted, ConvertError> {
    convert_in(crate::Dialects::global(), input.into(), files, to.name(), options)
}

/// [`convert`] with the dialects of `dialects` ([`crate::Dialects::convert`]): the source
/// is parsed, written ([`Dialect::render`](crate::Dialect::render)) and the result checked
/// with them, so a user's own dialect converts both ways when it renders.
pub(crate) fn convert_in<S: FileSource + ?Sized>(
    dialects: &crate::Dialects,
    input: Input<'_>,
    files: &S,
    to: &str,
    options: &ConvertOptions,
) -> Result<Converted, ConvertError> {
    let dialect = dialects.get(to).ok_or_else(|| unknown(dialects, to))?;
    let target = dialect.name();
    let parsed;
    let plan = match input {
        Input::Plan(plan) => plan,
        Input::Text { text, format } => {
            if format != Format::Auto && dialects.get(format.name()).is_none() {
                return Err(unknown(dialects, format.name()));
            }
            parsed = dialects.parse_with(text, format.name(), &options.parse).map_err(ConvertError::Malformed)?;
            &parsed
        }
    };
    // Each file is read once: the changes, their old sides and the check of the rendering
    // all see the bytes the patch was located on, never another program's later save
    // (which the output would otherwise show as the original, and so undo).
    let files = &polypatch_core::Overlay::new(files);
    let apply = options.apply.clone().dry_run(true);
    let computed = polypatch_core::compute(plan, files, &apply).map_err(|e| ConvertError::NotApplied(Box::new(e)))?;
    let deltas = changes::deltas(files, &computed.changes, &computed.report)?;
    let text = if deltas.is_empty() {
        String::new()
    } else {
        let render = RenderOptions::default().context(options.context);
        let text = dialect.render(&deltas, &render)?;
        match verify(dialects, target, &text, files, &computed.changes, &deltas) {
            Ok(()) => text,
            // The dialect's plainest form (Aptix: whole contents, AI-PATCH: context only,
            // ap: single snippets), tried when it differs from the first text.
            Err(first) => {
                let plain = dialect.render(&deltas, &render.plain(true))?;
                if plain == text {
                    return Err(first);
                }
                verify(dialects, target, &plain, files, &computed.changes, &deltas).map_err(|_| first)?;
                plain
            }
        }
    };
    Ok(Converted { text, dialect: DialectName::new(target), source: plan.dialect.clone(), files: deltas.len() })
}

fn unknown(dialects: &crate::Dialects, name: &str) -> ConvertError {
    ConvertError::UnknownFormat { name: name.to_owned(), known: dialects.names().join(", ") }
}

/// Applies the output in memory, exact tier only, and checks that it gives the same files
/// as the source patch.
fn verify<S: FileSource + ?Sized>(
    dialects: &crate::Dialects,
    target: &'static str,
    text: &str,
    files: &S,
    expected: &[Change],
    deltas: &[FileDelta],
) -> Result<(), ConvertError> {
    let unfaithful = |path: &str, detail: String| {
        ConvertError::Render(RenderError::Inexpressible {
            dialect: DialectName::new(target),
            operation: Operation::Edit,
            path: path.to_owned(),
            detail,
        })
    };
    let first = deltas.first().map_or("", |d| d.path.as_str());
    let plan = dialects
        .parse(text, target)
        .map_err(|e| unfaithful(first, format!("its rendering does not parse back: {}", e.message)))?;
    let strict = ApplyOptions::default().strict(true).dry_run(true);
    let got = match polypatch_core::compute(&plan, files, &strict) {
        Ok(got) => got.changes,
        Err(err) => {
            let path = err.report.first_failure().map_or(first.to_owned(), |first| first.file.path.clone());
            return Err(unfaithful(&path, format!("its rendering does not apply exactly: {err}")));
        }
    };
    // Applied again, it must change nothing (already applied, or refused).
    if let Ok(again) = polypatch_core::compute(&plan, &Overlay { files, changes: by_path(&got) }, &strict)
        && let Some(change) = again.changes.first()
    {
        return Err(unfaithful(
            change.path.as_str(),
            "its rendering would change the file again on a re-run".to_owned(),
        ));
    }
    let (expected_at, got_at) = (by_path(expected), by_path(&got));
    let state = |changes: &HashMap<&str, &ChangeKind>, path: &str| -> Option<Option<Vec<u8>>> {
        changes.get(path).map(|kind| kind.written().map(|(bytes, _)| bytes.to_vec()))
    };
    let mut paths: Vec<&str> = expected.iter().chain(&got).map(|c| c.path.as_str()).collect();
    paths.sort_unstable();
    paths.dedup();
    for path in paths {
        let want = state(&expected_at, path);
        let have = state(&got_at, path);
        if want == have {
            continue;
        }
        let original = || match files.resolve(path).ok().and_then(|p| files.read(&p).ok()) {
            Some(Entry::File { bytes, .. }) => Some(bytes.into_vec()),
            _ => None,
        };
        let want = want.unwrap_or_else(original);
        let have = have.unwrap_or_else(original);
        let operation = changes::classify(want.as_deref(), have.as_deref());
        return Err(ConvertError::Render(RenderError::Inexpressible {
            dialect: DialectName::new(target),
            operation,
            path: path.to_owned(),
            detail: format!(
                "written in {target}, the file would not come out byte for byte as the patch leaves it \
                 (the difference is {}); convert to `unified`, which says every byte",
                operation.describe()
            ),
        }));
    }
    Ok(())
}

/// Each path's change, the first one where a path has several: looked up, not searched
/// for, so that verifying a conversion of n files is linear in n.
fn by_path(changes: &[Change]) -> HashMap<&str, &ChangeKind> {
    let mut out = HashMap::with_capacity(changes.len());
    for c in changes {
        out.entry(c.path.as_str()).or_insert(&c.kind);
    }
    out
}

/// A file set with computed changes laid over it.
struct Overlay<'a, S: ?Sized> {
    files: &'a S,
    changes: HashMap<&'a str, &'a ChangeKind>,
}

impl<S: FileSource + ?Sized> FileSource for Overlay<'_, S> {
    fn resolve(&self, path: &str) -> Result<polypatch_core::RelPath, polypatch_core::PathError> {
        self.files.resolve(path)
    }

    fn as_written(&self, path: &str) -> Result<polypatch_core::RelPath, polypatch_core::PathError> {
        self.files.as_written(path)
    }

    fn read(&self, path: &polypatch_core::RelPath) -> std::io::Result<Entry> {
        match self.changes.get(path.as_str()).map(|kind| kind.written()) {
            Some(Some((bytes, mode))) => Ok(Entry::File { bytes: bytes.clone(), mode }),
            Some(None) => Ok(Entry::Missing),
            None => self.files.read(path),
        }
    }

    fn is_symlink(&self, path: &str) -> bool {
        self.files.is_symlink(path)
    }
}

#[cfg(test)]
mod tests;

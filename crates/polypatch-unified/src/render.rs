//! Writing the deltas of a conversion as a git diff, through [`crate::generate`].

use polypatch_core::render::{self, FileDelta, RenderOptions};

use crate::generate::{DiffOptions, Side, diff_files};

/// The deltas as `git diff -M` writes them: every rename is handed to [`diff_files`] as the
/// deletion and the creation it pairs (the creation right after the deletion, where the
/// plan touched it), so that renames are found by content as in a diff of the two trees
/// ([`crate::generate::diff_changes`]), not only where the plan moved a file.
pub(crate) fn render(deltas: &[FileDelta], options: &RenderOptions) -> String {
    fn side<'a>(path: &'a str, s: &'a render::Side) -> Side<'a> {
        Side { path, bytes: &s.bytes, mode: s.mode }
    }
    let mut pairs = Vec::with_capacity(deltas.len());
    for d in deltas {
        let old = d.before.as_ref().map(|s| side(d.path.as_str(), s));
        let new = d.after.as_ref().map(|s| side(d.new_path(), s));
        if d.renamed_to.is_some() && old.is_some() && new.is_some() {
            pairs.push((old, None));
            pairs.push((None, new));
        } else {
            pairs.push((old, new));
        }
    }
    diff_files(pairs, &DiffOptions::default().context(options.context).renames(true))
}

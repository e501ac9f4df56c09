//! Writing the deltas of a conversion as a git diff, through [`crate::generate`].

#[cfg(not(feature = "git-binary"))]
use polypatch_core::render::RenderError;
use polypatch_core::render::{self, FileDelta, RenderOptions};
#[cfg(not(feature = "git-binary"))]
use polypatch_core::{Operation, render::refuse};

use crate::generate::{DiffOptions, Side, diff_files};

/// Refuses binary content (on either side: git writes a deleted file's bytes too), which
/// takes a `GIT binary patch`, in a build without the zlib that writes one.
#[cfg(not(feature = "git-binary"))]
pub(crate) fn refuse_binary(deltas: &[FileDelta]) -> Result<(), RenderError> {
    let binary = |d: &&FileDelta| {
        [&d.before, &d.after].iter().any(|s| s.as_ref().is_some_and(|s| render::text(&s.bytes).is_none()))
    };
    match deltas.iter().find(binary) {
        Some(delta) => Err(refuse(crate::error::DIALECT, Operation::Binary, delta, NO_GIT_BINARY)),
        None => Ok(()),
    }
}

/// Why binary content is refused in a build without the `git-binary` feature.
#[cfg(not(feature = "git-binary"))]
const NO_GIT_BINARY: &str = "it takes a `GIT binary patch`, and this build of polypatch lacks the \
     `git-binary` feature that writes one (zlib); build polypatch with that feature (on by default; the polypatch \
     command has it)";

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

#[cfg(test)]
mod tests {
    use polypatch_core::render::Side;
    use polypatch_core::{Dialect, RenderOptions};

    use super::*;
    use crate::Unified;

    fn side(text: &str) -> Side {
        Side::new(text.as_bytes().to_vec(), None)
    }

    /// A move the plan made with most of its content changed is no rename by content (under
    /// 50% similar): a deletion and a creation, as `git diff -M` shows it; a deletion and
    /// a creation the plan did not pair, with the same content, are one.
    #[test]
    fn renames_are_found_by_content_not_by_the_plan() {
        let moved =
            FileDelta::new("a.txt", Some(side("one\ntwo\nthree\n")), Some(side("1\n2\n3\n"))).renamed_to("b.txt");
        let text = Unified.render(&[moved], &RenderOptions::default()).unwrap();
        let headers: Vec<&str> = text.lines().filter(|l| l.starts_with("diff --git")).collect();
        assert_eq!(headers, ["diff --git a/a.txt b/a.txt", "diff --git a/b.txt b/b.txt"], "{text}");
        let deleted = FileDelta::new("c.txt", Some(side("same\n")), None);
        let created = FileDelta::new("d.txt", None, Some(side("same\n")));
        let text = Unified.render(&[deleted, created], &RenderOptions::default()).unwrap();
        assert_eq!(text, "diff --git a/c.txt b/d.txt\nsimilarity index 100%\nrename from c.txt\nrename to d.txt\n");
    }

    #[test]
    fn context_is_as_asked() {
        let delta = FileDelta::new("f.txt", Some(side("a\nb\nc\nd\ne\n")), Some(side("a\nb\nC\nd\ne\n")));
        let text = Unified.render(&[delta], &RenderOptions::default().context(1)).unwrap();
        assert!(text.ends_with("@@ -2,3 +2,3 @@ a\n b\n-c\n+C\n d\n"), "{text}");
    }
}

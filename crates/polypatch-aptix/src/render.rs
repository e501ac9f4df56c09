//! Aptix file bundle (`files[]`): `create`, `delete`, `patch` with `find`/`replace` pairs
//! that each occur once in the file as the pairs before them left it, `replace` with the
//! whole content where no such pairs exist, and `gitPatch` (a git diff of the one file)
//! for binary content and modes. A rename is a `delete` of the old path and a `create`
//! (or `gitPatch`) of the new one: the bundle has no rename of its own.

use std::fmt::Write as _;

use polypatch_core::RenderError;
use polypatch_core::render::hunks;
use polypatch_core::render::{FileDelta, Side, text, texts};

/// How changed text files are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// `patch` entries with `find`/`replace` pairs where possible.
    Patch,
    /// `replace` entries with the whole content.
    Replace,
}

pub(crate) fn render(deltas: &[FileDelta], style: Style) -> Result<String, RenderError> {
    let mut entries = Vec::new();
    for delta in deltas {
        let binary = [&delta.before, &delta.after].iter().any(|s| s.as_ref().is_some_and(|s| text(&s.bytes).is_none()));
        let git = binary || delta.mode_changes();
        let new_path = delta.new_path();
        if delta.renamed_to.is_some() || delta.after.is_none() {
            entries.push(entry(&delta.path, "delete", None));
        }
        let Some(after) = &delta.after else { continue };
        let created = delta.before.is_none() || delta.renamed_to.is_some();
        if git {
            let old = if created { None } else { delta.before.as_ref() };
            // A build without zlib writes no `GIT binary patch` (unified's `git-binary`).
            if !polypatch_unified::GIT_BINARY
                && (text(&after.bytes).is_none() || old.is_some_and(|o| text(&o.bytes).is_none()))
            {
                return Err(polypatch_core::render::refuse(
                    crate::error::DIALECT,
                    polypatch_core::Operation::Binary,
                    delta,
                    "a `gitPatch` entry takes a `GIT binary patch`, and this build of polypatch lacks the `git-binary` \
                     feature that writes one (zlib); build polypatch with that feature (on by default; the polypatch \
                     command has it)",
                ));
            }
            entries.push(entry(new_path, "gitPatch", Some(("content", json(&git_diff(new_path, old, after))))));
            continue;
        }
        let (before, after_text) = texts(delta);
        if created {
            entries.push(entry(new_path, "create", Some(("content", json(after_text)))));
            continue;
        }
        let pairs = if style == Style::Patch { pairs(before, after_text) } else { None };
        match pairs {
            Some(pairs) => entries.push(entry(new_path, "patch", Some(("patches", pairs)))),
            None => entries.push(entry(new_path, "replace", Some(("content", json(after_text))))),
        }
    }
    Ok(format!("{{\n  \"root\": \".\",\n  \"files\": [\n{}\n  ]\n}}\n", entries.join(",\n")))
}

/// A `files[]` entry, with its last field already rendered.
fn entry(path: &str, operation: &str, field: Option<(&str, String)>) -> String {
    let mut out = format!("    {{\n      \"path\": {},\n      \"operation\": \"{operation}\"", json(path));
    if let Some((name, value)) = field {
        let _ = write!(out, ",\n      \"{name}\": {value}");
    }
    out.push_str("\n    }");
    out
}

/// A JSON string.
fn json(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// The `patches` array: one pair per hunk, each `find` (whole lines with their
/// terminators) occurring once where it is applied. `None` when some hunk has none.
/// The specs ask for minimal pairs: context only where a `find` needs it to be unique.
fn pairs(before: &str, after: &str) -> Option<String> {
    let items: Vec<String> = hunks::unique_text_pairs(before, after)?
        .iter()
        .map(|(find, replace)| {
            format!(
                "        {{\n          \"find\": {},\n          \"replace\": {},\n          \"limit\": \"once\"\n        }}",
                json(find),
                json(replace)
            )
        })
        .collect();
    Some(format!("[\n{}\n      ]", items.join(",\n")))
}

/// A git diff of one file, for a `gitPatch` entry.
fn git_diff(path: &str, before: Option<&Side>, after: &Side) -> String {
    use polypatch_unified::generate::{DiffOptions, Side as GitSide, diff_file};
    fn side<'a>(path: &'a str, s: &'a Side) -> GitSide<'a> {
        let side = GitSide::new(path, &s.bytes);
        match s.mode {
            Some(mode) => side.with_mode(mode),
            None => side,
        }
    }
    diff_file(before.map(|b| side(path, b)), Some(side(path, after)), &DiffOptions::default())
}

#[cfg(test)]
mod tests {
    use polypatch_core::{Dialect, RenderOptions};

    use super::*;
    use crate::Aptix;

    fn side(bytes: &[u8]) -> Side {
        Side::new(bytes.to_vec(), None)
    }

    #[cfg(feature = "git-binary")]
    #[test]
    fn a_rename_is_a_delete_and_a_create_and_binary_content_a_git_patch() {
        use polypatch_core::{ApplyOptions, MemoryFileSet, apply};
        let moved = FileDelta::new("t.txt", Some(side(b"a\n")), Some(side(b"b\n"))).renamed_to("u.txt");
        let binary = FileDelta::new("b.bin", None, Some(side(b"\x00\x01")));
        let text = Aptix.render(&[moved, binary], &RenderOptions::default()).unwrap();
        let ops: Vec<&str> = text.lines().filter(|l| l.contains("\"operation\"")).map(str::trim).collect();
        assert_eq!(ops, ["\"operation\": \"delete\"", "\"operation\": \"create\",", "\"operation\": \"gitPatch\","]);
        let mut files = MemoryFileSet::new().with("t.txt", "a\n");
        apply(&Aptix.parse(&text).unwrap(), &mut files, &ApplyOptions::default().strict(true)).unwrap();
        assert_eq!((files.get_str("t.txt"), files.get_str("u.txt")), (None, Some("b\n")));
        assert_eq!(files.get("b.bin"), Some(&b"\x00\x01"[..]));
    }

    /// A build without zlib refuses what needs a `GIT binary patch`, reading or writing, and
    /// says which feature turns it on.
    #[cfg(not(feature = "git-binary"))]
    #[test]
    fn without_git_binary_binary_content_is_refused_naming_the_feature() {
        let binary = FileDelta::new("b.bin", None, Some(side(b"\x00\x01")));
        let err = Aptix.render(&[binary], &RenderOptions::default()).unwrap_err();
        assert_eq!(err.operation(), Some(polypatch_core::Operation::Binary));
        assert!(err.to_string().contains("lacks the `git-binary` feature"), "{err}");

        let bundle = r#"{"files": [{"path": "b.bin", "operation": "gitPatch", "content":
            "diff --git a/b.bin b/b.bin\nnew file mode 100644\nGIT binary patch\nliteral 1\nIcmZPo000310RR91\n\nliteral 0\nHcmV?d00001\n\n"}]}"#;
        let err = Aptix.parse(bundle).unwrap_err();
        assert_eq!(err.kind, crate::error::UNSUPPORTED_BINARY);
        assert!(
            err.message.starts_with(
                "files[0] (b.bin): the diff in \"content\" is not supported by this build (its line 4, column 1): the \
                 `GIT binary patch` of `b.bin` cannot be read: this build of polypatch lacks the `git-binary` feature"
            ),
            "{}",
            err.message
        );
        assert!(crate::error::KINDS.contains(&err.kind));
    }

    #[test]
    fn a_change_is_minimal_pairs_and_in_the_plain_form_the_whole_file() {
        // `b` occurs twice: its `find` grows a line each side to be unique.
        let before = "a\nb\nc\nb\n";
        let after = "a\nB\nc\nb\n";
        let delta = FileDelta::new("f.txt", Some(side(before.as_bytes())), Some(side(after.as_bytes())));
        let text = Aptix.render(std::slice::from_ref(&delta), &RenderOptions::default()).unwrap();
        assert!(text.contains("\"find\": \"a\\nb\\nc\\n\",\n          \"replace\": \"a\\nB\\nc\\n\""), "{text}");
        let plain = Aptix.render(&[delta], &RenderOptions::default().plain(true)).unwrap();
        assert!(plain.contains("\"operation\": \"replace\",\n      \"content\": \"a\\nB\\nc\\nb\\n\""), "{plain}");
    }
}

use std::fmt::Write as _;

use proptest::prelude::*;

use super::*;
use crate::MemoryFileSet;

fn to(patch: &str, files: &MemoryFileSet, target: &str) -> Result<String, ConvertError> {
    crate::Dialects::global().convert(patch, files, target, &ConvertOptions::default()).map(|c| c.text)
}

/// A plan that replaces the whole content of `path` (or creates it): an Aptix entry
/// without an operation ("create or replace").
fn replace_plan(path: &str, after: &str) -> EditPlan {
    let bundle = serde_json::json!({"root": ".", "files": [{"path": path, "content": after}]});
    crate::parse(&bundle.to_string(), crate::Format::Aptix).unwrap()
}

/// Converts `plan` to `target`, applies the result exactly to a copy of `files`, and returns
/// the content of `path` afterwards; or the conversion's error.
fn round_trip(files: &MemoryFileSet, plan: &EditPlan, target: &str, path: &str) -> Result<Vec<u8>, ConvertError> {
    let text = crate::Dialects::global().convert(plan, files, target, &ConvertOptions::default())?.text;
    if text.is_empty() {
        // Nothing to convert: the plan changes nothing.
        return Ok(files.get(path).map(<[u8]>::to_vec).unwrap_or_default());
    }
    let parsed = crate::Dialects::global()
        .parse(&text, target)
        .unwrap_or_else(|e| panic!("{target}:\n{}\n{text}", e.render(&text)));
    let mut copy = files.clone();
    crate::apply(&parsed, &mut copy, &ApplyOptions::default().strict(true)).unwrap_or_else(|e| panic!("{e}\n{text}"));
    Ok(copy.get(path).map(<[u8]>::to_vec).unwrap_or_default())
}

#[test]
fn a_fuzzy_unified_hunk_becomes_exact_edits_in_each_dialect() {
    let files = MemoryFileSet::new().with("a.py", "def f():\n    x = 1\n    return x\n");
    // The hunk lost its indentation and has a typo in a context line.
    let diff = "--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n def f():\n-x = 1\n+x = 2\n retrun x\n";
    for target in writable() {
        let text = to(diff, &files, target).unwrap_or_else(|e| panic!("{target}: {e}"));
        assert!(text.contains("    x = 2"), "{target}: the new line carries the file's indentation:\n{text}");
        assert!(!text.contains("retrun"), "{target}: the context is the file's, not the patch's:\n{text}");
    }
}

#[test]
fn repeated_blocks_get_context_until_unique() {
    let before = "fn a() {\n    x();\n}\n\nfn b() {\n    x();\n}\n";
    let after = "fn a() {\n    x();\n}\n\nfn b() {\n    y();\n}\n";
    let files = MemoryFileSet::new().with("r.rs", before);
    let plan = replace_plan("r.rs", after);
    for target in writable() {
        assert_eq!(round_trip(&files, &plan, target, "r.rs").unwrap(), after.as_bytes(), "{target}");
    }
    let ap = convert(&plan, &files, crate::Format::Ap, &ConvertOptions::default()).unwrap().text;
    assert!(ap.contains("fn b() {"), "the snippet reaches the line that makes it unique:\n{ap}");
}

#[test]
fn inexpressible_operations_name_the_operation_and_the_file() {
    let files = MemoryFileSet::new().with("gone.txt", "x\n").with("t.txt", "a \nb\n");
    let delete = "*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch\n";
    for target in ["ap", "applydiff"] {
        let err = to(delete, &files, target).unwrap_err();
        assert_eq!(err.operation(), Some(Operation::Delete), "{target}");
        assert!(err.to_string().contains("gone.txt"), "{err}");
    }
    let edit = "*** Begin Patch\n*** Update File: t.txt\n@@\n a \n-b\n+c\n*** End Patch\n";
    let err = to(edit, &files, "ap").unwrap_err();
    assert_eq!(err.operation(), Some(Operation::TrailingWhitespace));
    let rename = "*** Begin Patch\n*** Update File: t.txt\n*** Move to: u.txt\n@@\n-b\n+c\n*** End Patch\n";
    assert_eq!(to(rename, &files, "applydiff").unwrap_err().operation(), Some(Operation::Rename));
    // Aptix writes a rename as a delete and a create.
    let aptix = to(rename, &files, "aptix").unwrap();
    assert!(aptix.contains("\"operation\": \"delete\"") && aptix.contains("\"operation\": \"create\""), "{aptix}");
    let binary = MemoryFileSet::new().with("b.bin", b"\x00\x01".to_vec());
    let plan = replace_plan("b.bin", "text now\n");
    assert_eq!(
        convert(&plan, &binary, crate::Format::AiPatch, &ConvertOptions::default()).unwrap_err().operation(),
        Some(Operation::Binary)
    );
    assert_eq!(round_trip(&binary, &plan, "aptix", "b.bin").unwrap(), b"text now\n");
}

#[test]
fn nothing_to_convert_is_an_empty_patch() {
    let files = MemoryFileSet::new().with("a.txt", "b\n");
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n";
    let out = convert(diff, &files, crate::Format::Ap, &ConvertOptions::default()).unwrap();
    assert_eq!((out.text.as_str(), out.files), ("", 0));
}

#[test]
fn unknown_formats_and_unapplicable_patches_are_errors() {
    let files = MemoryFileSet::new().with("a.txt", "a\n");
    assert!(matches!(to("x", &files, "auto"), Err(ConvertError::UnknownFormat { .. })));
    let missing = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-zzz\n+b\n";
    assert!(matches!(to(missing, &files, "ap"), Err(ConvertError::NotApplied(_))));
    assert!(matches!(to("*** Begin Patch\n", &files, "ap"), Err(ConvertError::Malformed(_))));
    // Each wraps the error it reports as its source.
    let source = |err: &ConvertError| std::error::Error::source(err).map(ToString::to_string);
    let err = to(missing, &files, "ap").unwrap_err();
    let ConvertError::NotApplied(inner) = &err else { unreachable!() };
    assert_eq!(source(&err), Some(inner.to_string()));
    let err = to("*** Begin Patch\n", &files, "ap").unwrap_err();
    let ConvertError::Malformed(inner) = &err else { unreachable!() };
    assert_eq!(source(&err), Some(inner.to_string()));
}

/// Text a YAML or JSON writer can get wrong.
const TRICKY: &[&str] = &[
    "  leading spaces\n",
    "\ttab first\n\tsecond\n",
    "# not a comment\n",
    "key: value\n",
    "'single' and \"double\" quotes\n",
    "trailing spaces   \n",
    "a\n\n\nb\n",
    "no final newline",
    "two final newlines\n\n",
    "crlf\r\nlines\r\n",
    "mixed\r\nends\n",
    "unicode: é ü — “quotes” 😀\n",
    "\u{feff}bom first\n",
    "- dash\n? question\n| pipe\n> fold\n",
    "   \n  \n",
    "\n\nleading newlines\n",
    "back\\slash \\n not a newline\n",
    "control \u{7} bell\n",
    "|\n",
    "---\n...\n",
];

#[test]
fn tricky_content_round_trips_through_every_dialect_that_can_carry_it() {
    for content in TRICKY {
        for target in writable() {
            // A new file, and a changed one.
            let created = round_trip(&MemoryFileSet::new(), &replace_plan("t.txt", content), target, "t.txt");
            let files = MemoryFileSet::new().with("t.txt", format!("head\n{content}"));
            let changed = round_trip(&files, &replace_plan("t.txt", &format!("head2\n{content}")), target, "t.txt");
            for (what, result, want) in
                [("created", created, content.to_string()), ("changed", changed, format!("head2\n{content}"))]
            {
                match result {
                    Ok(bytes) => assert_eq!(String::from_utf8(bytes).unwrap(), want, "{target} {what} {content:?}"),
                    // Refusing is right only for what the dialect lacks.
                    Err(ConvertError::Render(RenderError::Inexpressible { operation, .. })) => assert!(
                        matches!(
                            operation,
                            Operation::LineEnding
                                | Operation::FinalNewline
                                | Operation::TrailingWhitespace
                                | Operation::ByteOrderMark
                                | Operation::MarkerLine
                        ) && !matches!(target, "unified" | "aptix"),
                        "{target} {what} {content:?}: {operation}"
                    ),
                    Err(err) => panic!("{target} {what} {content:?}: {err}"),
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any text, even with control characters and quotes, as a new file's content in an
    /// Aptix bundle (JSON strings) and in ap (YAML), comes out byte for byte.
    #[test]
    fn json_and_yaml_strings_carry_any_text(value in "\\PC{0,30}|[\u{0}-\u{1f}\u{7f}\"\\\\]{1,10}") {
        for target in ["aptix", "ap", "unified"] {
            match round_trip(&MemoryFileSet::new(), &replace_plan("n.txt", &value), target, "n.txt") {
                Ok(bytes) => prop_assert_eq!(String::from_utf8(bytes).unwrap(), value.clone(), "{}", target),
                // A NUL makes the content binary: a text format refuses it.
                Err(ConvertError::Render(RenderError::Inexpressible { operation: Operation::Binary, .. })) => {
                    prop_assert!(target == "ap" && value.contains('\0'));
                }
                Err(err) => return Err(TestCaseError::fail(format!("{target}: {err}"))),
            }
        }
    }

    /// Any change of a small text, in any dialect, applies exactly or is refused for what
    /// the dialect lacks; JSON strings (Aptix) always carry it.
    #[test]
    fn random_edits_round_trip(
        before in proptest::collection::vec("[ ab{}\t]{0,4}", 1..8),
        after in proptest::collection::vec("[ ab{}\t]{0,4}", 1..8),
    ) {
        let (before, after) = (before.join("\n") + "\n", after.join("\n") + "\n");
        let files = MemoryFileSet::new().with("f", before.as_str());
        for target in writable() {
            match round_trip(&files, &replace_plan("f", &after), target, "f") {
                Ok(bytes) => prop_assert_eq!(String::from_utf8(bytes).unwrap(), after.clone(), "{}", target),
                // AI-PATCH locates any change, but a pure addition of lines that are already
                // there (blank lines at the end) would be added again by a re-run: refused.
                Err(ConvertError::Render(RenderError::Inexpressible { operation, detail, .. })) => prop_assert!(
                    target != "unified"
                        && target != "aptix"
                        && !(target == "ai-patch" && operation == Operation::Edit && !detail.contains("re-run")),
                    "{} refused {}: {}", target, operation, detail
                ),
                Err(err) => return Err(TestCaseError::fail(format!("{target}: {err}"))),
            }
        }
    }
}

#[test]
fn a_file_that_repeats_itself_throughout_is_refused_or_written_whole() {
    let before = "x\n".repeat(2000);
    let after = format!("{}y\n{}", "x\n".repeat(1000), "x\n".repeat(999));
    let files = MemoryFileSet::new().with("r.txt", before.as_str());
    let plan = replace_plan("r.txt", &after);
    for target in ["ai-patch", "ap"] {
        let err = crate::Dialects::global().convert(&plan, &files, target, &ConvertOptions::default()).unwrap_err();
        assert_eq!(err.operation(), Some(Operation::Edit), "{target}");
    }
    for target in ["applydiff", "aptix", "unified"] {
        assert_eq!(round_trip(&files, &plan, target, "r.txt").unwrap(), after.as_bytes(), "{target}");
    }
    let aptix = convert(&plan, &files, crate::Format::Aptix, &ConvertOptions::default()).unwrap().text;
    assert!(aptix.contains("\"operation\": \"replace\""), "written whole");
}

/// A diff over hundreds of files, renames among edits, creations and deletions: one
/// delta per file in the order the plan touches them, each rename paired with its
/// source, and the converted diff gives byte for byte the tree the source diff gives.
#[test]
fn a_diff_over_many_files_converts_with_every_rename_paired_in_order() {
    const N: usize = 600;
    let mut files = MemoryFileSet::new();
    let mut diff = String::new();
    let mut headers = Vec::new();
    for i in 0..N {
        let (a, body) = (format!("src/f{i}.txt"), format!("one {i}\ntwo {i}\nthree {i}\n"));
        files.insert(a.clone(), body);
        match i % 4 {
            0 => {
                let b = format!("moved/g{i}.txt");
                let _ = write!(
                    diff,
                    "diff --git a/{a} b/{b}\nsimilarity index 90%\nrename from {a}\nrename to {b}\n--- a/{a}\n+++ b/{b}\n\
                     @@ -1,3 +1,3 @@\n one {i}\n-two {i}\n+TWO {i}\n three {i}\n"
                );
                headers.push(format!("diff --git a/{a} b/{b}"));
            }
            1 => {
                let _ = write!(
                    diff,
                    "diff --git a/{a} b/{a}\n--- a/{a}\n+++ b/{a}\n@@ -1,3 +1,3 @@\n one {i}\n-two {i}\n+2 {i}\n three {i}\n"
                );
                headers.push(format!("diff --git a/{a} b/{a}"));
            }
            2 => {
                let _ = write!(
                    diff,
                    "diff --git a/{a} b/{a}\ndeleted file mode 100644\n--- a/{a}\n+++ /dev/null\n@@ -1,3 +0,0 @@\n\
                     -one {i}\n-two {i}\n-three {i}\n"
                );
                headers.push(format!("diff --git a/{a} b/{a}"));
            }
            _ => {
                let c = format!("new/n{i}.txt");
                let _ = write!(
                    diff,
                    "diff --git a/{c} b/{c}\nnew file mode 100644\n--- /dev/null\n+++ b/{c}\n@@ -0,0 +1 @@\n+new {i}\n"
                );
                headers.push(format!("diff --git a/{c} b/{c}"));
            }
        }
    }
    let out = convert(diff.as_str(), &files, crate::Format::Unified, &ConvertOptions::default()).unwrap();
    assert_eq!(out.files, N);
    let got: Vec<&str> = out.text.lines().filter(|l| l.starts_with("diff --git ")).collect();
    assert_eq!(got, headers);
    assert_eq!(out.text.matches("\nrename from ").count(), N / 4);
    let apply = |text: &str| {
        let mut copy = files.clone();
        let plan = crate::parse(text, crate::Format::Unified).unwrap();
        crate::apply(&plan, &mut copy, &ApplyOptions::default().strict(true)).unwrap();
        copy
    };
    assert_eq!(apply(&out.text), apply(&diff));
}

/// The dialects convert can write: a dialect that can only be read (`lazy`) is left out.
fn writable() -> Vec<&'static str> {
    crate::Dialects::global()
        .iter()
        .filter(|d| !matches!(d.render(&[], &RenderOptions::default()), Err(RenderError::NotWritable { .. })))
        .map(crate::Dialect::name)
        .collect()
}

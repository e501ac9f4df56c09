use crate::error::{
    BAD_STRIP, CONFLICTING_HEADERS, INVALID_HUNK_HEADER, INVALID_HUNK_LINE, MISSING_PATH, NO_CONTEXT,
    UNSUPPORTED_SUBMODULE, UNSUPPORTED_SYMLINK,
};
use polypatch_core::ErrorKind;
use polypatch_core::{NewLineEnds, Scope, Span};

use super::*;
use crate::syntax::{BinaryPatch, parse};

/// The plan of `text`, lowered both ways: from the tree alone (each section's lines copied
/// into a buffer of their own) and from the tree with its source (the lines are ranges of
/// one copy of it, as `Unified` parses); both give the same plan, and so does parsing and
/// lowering one section at a time.
fn plan_with(text: &str, options: &ParseOptions) -> EditPlan {
    let patch = parse(text).unwrap_or_else(|e| panic!("{}", e.render(text)));
    let plan = lower(&patch, options).unwrap_or_else(|e| panic!("{}", e.render(text)));
    assert_eq!(lower_source(&patch, text, options).as_ref(), Ok(&plan), "{text:?}");
    assert_eq!(parse_and_lower(text, options).as_ref(), Ok(&plan), "{text:?}");
    plan
}

fn plan(text: &str) -> EditPlan {
    plan_with(text, &ParseOptions::default())
}

fn lower_err(text: &str, options: &ParseOptions) -> PatchError {
    let patch = parse(text).unwrap_or_else(|e| panic!("{}", e.render(text)));
    match lower(&patch, options) {
        Ok(plan) => panic!("expected an error, got {plan:#?}"),
        Err(e) => {
            assert_eq!(lower_source(&patch, text, options).as_ref(), Err(&e));
            assert_eq!(parse_and_lower(text, options).as_ref(), Err(&e));
            e
        }
    }
}

/// The span of the only occurrence of `needle` in `text`.
fn at(text: &str, needle: &str) -> Span {
    let start = text.find(needle).expect("needle in text");
    assert_eq!(text.matches(needle).count(), 1, "{needle:?} occurs once");
    Span::new(start, start + needle.len())
}

fn strings(lines: &[&str]) -> Vec<polypatch_core::LineText> {
    lines.iter().copied().map(Into::into).collect()
}

fn modify(file: &FileEdit) -> &Modify {
    match &file.op {
        FileOp::Modify(m) => m,
        other => panic!("expected a modify, got {other:?}"),
    }
}

fn only_modify(plan: &EditPlan) -> &Modify {
    assert_eq!(plan.files.len(), 1);
    modify(&plan.files[0])
}

fn replacement(edit: &Edit) -> &Replacement {
    match &edit.action {
        Action::Replace(r) => r,
        other => panic!("expected a replacement, got {other:?}"),
    }
}

#[test]
fn git_modify_lowers_exactly() {
    let text = "diff --git a/src/x.rs b/src/x.rs\nindex 1234567..89abcde 100644\n--- a/src/x.rs\n+++ b/src/x.rs\n@@ -5,3 +5,4 @@ fn main() {\n a\n-b\n+B\n+C\n c\n";
    let plan = plan(text);
    assert_eq!(plan.dialect, "unified");
    assert_eq!(
        plan.files,
        [FileEdit::new(
            "src/x.rs",
            FileOp::Modify({
                let mut x = Modify::new(vec![
                    Edit::new(
                        Target::Lines(strings(&["a", "b", "c"])),
                        Action::Replace(Replacement::lines(strings(&["a", "B", "C", "c"])).with_kept(vec![
                            Some(0),
                            None,
                            None,
                            Some(2),
                        ])),
                    )
                    .with_scope(Scope::default().with_line_hint(5).with_after_previous(true))
                    .with_label("hunk 1")
                    .with_span(Span::new(text.find("@@").unwrap(), text.len() - 1)),
                ]);
                x.move_to = None;
                x.copy_from = None;
                x.if_dest_exists = IfExists::ErrorUnlessIdentical;
                x.mode = None;
                x.if_missing = IfMissing::Error;
                x.post = polypatch_core::PostProcess::default();
                x.final_newline = None;
                x.line_breaks = LineBreaks::LfOrCrLf;
                x.new_line_ends = NewLineEnds::Neighbour;
                x.preimage = Some("1234567".into());
                x.postimage = Some("89abcde".into());
                x
            })
        )
        .with_span(Span::new(0, text.len() - 1))]
    );
}

#[test]
fn hints_carry_the_offset_of_earlier_hunks() {
    let text = "--- a/x\n+++ b/x\n@@ -2,2 +2,4 @@\n a\n+n1\n+n2\n b\n@@ -10,3 +12,1 @@\n c\n-d\n-e\n@@ @@\n f\n-g\n@@ -30 +29 @@\n-h\n+H\n";
    let m = only_modify(&plan(text)).clone();
    let hints: Vec<Option<usize>> = m.edits.iter().map(|e| e.scope.line_hint).collect();
    // +2, then -2, then -1 (the `@@ @@` hunk still shifts), so the last is 30 + 2 - 2 - 1.
    assert_eq!(hints, [Some(2), Some(12), None, Some(29)]);
    assert!(m.edits.iter().all(|e| e.scope.after_previous));
    let labels: Vec<&str> = m.edits.iter().map(|e| e.label.as_str()).collect();
    assert_eq!(labels, ["hunk 1", "hunk 2", "hunk 3", "hunk 4"]);
    assert_eq!(m.edits[2].span, Some(at(text, "@@ @@\n f\n-g")));
}

#[test]
fn recounted_hunks_use_their_real_lengths_for_the_offset() {
    // The first header claims 1 line each; the body has 1 old and 3 new lines.
    let text = "--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n a\n+b\n+c\n@@ -5 +7 @@\n-d\n+D\n";
    let m = only_modify(&plan(text)).clone();
    assert_eq!(m.edits[1].scope.line_hint, Some(7));
}

#[test]
fn pure_addition_at_the_start_and_elsewhere() {
    let text = "--- a/x\n+++ b/x\n@@ -0,0 +1,2 @@\n+a\n+b\n";
    let m = only_modify(&plan(text)).clone();
    assert_eq!(m.edits[0].target, Target::StartOfFile);
    assert_eq!(
        m.edits[0].action,
        Action::Replace(Replacement::lines(strings(&["a", "b"])).with_kept(vec![None, None]))
    );
    let text = "--- a/x\n+++ b/x\n@@ -5,0 +6,2 @@\n+a\n+b\n";
    let e = lower_err(text, &ParseOptions::default());
    assert_eq!((e.kind, e.span), (NO_CONTEXT, Some(at(text, "@@ -5,0 +6,2 @@"))));
    assert!(e.message.contains("regenerate the diff with context"), "{}", e.message);
    let text = "--- a/x\n+++ b/x\n@@ @@\n+a\n";
    assert_eq!(lower_err(text, &ParseOptions::default()).kind, NO_CONTEXT);
}

#[test]
fn new_file_is_an_exact_create() {
    let text = "diff --git a/bin/run b/bin/run\nnew file mode 100755\nindex 0000000..1111111\n--- /dev/null\n+++ b/bin/run\n@@ -0,0 +1,3 @@\n+#!/bin/sh\n+\n+echo hi\n";
    assert_eq!(
        plan(text).files,
        [FileEdit::new(
            "bin/run",
            FileOp::Create {
                content: Content::Text("#!/bin/sh\n\necho hi\n".into()),
                newline: None,
                if_exists: IfExists::ErrorUnlessIdentical,
                mode: Some(0o755),
            }
        )
        .with_span(Span::new(0, text.len() - 1))]
    );
}

#[test]
fn new_file_keeps_crlf_and_a_missing_final_newline() {
    let text = "--- /dev/null\n+++ b/w.txt\n@@ -0,0 +1,2 @@\n+a\r\n+b\r\n\\ No newline at end of file\n";
    let FileOp::Create { content, mode, .. } = &plan(text).files[0].op else { panic!("create") };
    assert_eq!(content, &Content::Text("a\r\nb\r".into()));
    assert_eq!(*mode, None);
    // git writes a file ending in "b\r" (no LF) as `+b\r` and the marker: the `\r` is kept.
}

#[test]
fn new_empty_file() {
    let text = "diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\n";
    let FileOp::Create { content, mode, if_exists, .. } = &plan(text).files[0].op else { panic!("create") };
    assert_eq!(
        (content, *mode, *if_exists),
        (&Content::Text(String::new()), Some(0o644), IfExists::ErrorUnlessIdentical)
    );
}

#[test]
fn deleted_file_expects_its_lines() {
    let text = "diff --git a/old.txt b/old.txt\ndeleted file mode 100644\nindex 1111111..0000000\n--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\r\n-b\n";
    assert_eq!(
        plan(text).files,
        [FileEdit::new(
            "old.txt",
            FileOp::Delete { if_missing: IfMissing::Error, expect: Some(Expect::Lines(strings(&["a", "b"]))) }
        )
        .with_span(Span::new(0, text.len() - 1))]
    );
    let text = "diff --git a/empty b/empty\ndeleted file mode 100644\nindex e69de29..0000000\n";
    assert_eq!(
        plan(text).files[0].op,
        FileOp::Delete { if_missing: IfMissing::Error, expect: Some(Expect::Lines(vec![])) }
    );
}

#[test]
fn new_and_deleted_files_reject_other_lines() {
    let text = "--- /dev/null\n+++ b/x\n@@ -0,0 +1,2 @@\n+a\n ctx\n";
    let e = lower_err(text, &ParseOptions::default());
    assert_eq!((e.kind, e.span), (INVALID_HUNK_LINE, Some(at(text, " ctx"))));
    let text = "--- a/x\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n+b\n";
    let e = lower_err(text, &ParseOptions::default());
    assert_eq!((e.kind, e.span), (INVALID_HUNK_LINE, Some(at(text, "+b"))));
}

/// A modify's path, move, copy source, mode and number of edits.
type Summary<'p> = (&'p str, Option<&'p str>, Option<&'p str>, Option<u32>, usize);

#[test]
fn renames_copies_and_modes() {
    let text = "\
diff --git a/old.txt b/new.txt
similarity index 100%
rename from old.txt
rename to new.txt
diff --git a/r1 b/r2
similarity index 80%
rename from r1
rename to r2
index 1111111..2222222 100644
--- a/r1
+++ b/r2
@@ -1 +1 @@
-a
+b
diff --git a/c1 b/c2
similarity index 90%
copy from c1
copy to c2
--- a/c1
+++ b/c2
@@ -1 +1 @@
-a
+b
diff --git a/script b/script
old mode 100644
new mode 100755
";
    let plan = plan(text);
    let summary: Vec<Summary<'_>> = plan
        .files
        .iter()
        .map(|f| {
            let m = modify(f);
            (f.path.as_str(), m.move_to.as_deref(), m.copy_from.as_deref(), m.mode, m.edits.len())
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("old.txt", Some("new.txt"), None, None, 0),
            ("r1", Some("r2"), None, None, 1),
            ("c2", None, Some("c1"), None, 1),
            ("script", None, None, Some(0o755), 0),
        ]
    );
}

#[test]
fn default_strip_levels() {
    let path = |text: &str| plan(text).files[0].path.clone();
    assert_eq!(path("--- a/src/x\n+++ b/src/x\n@@ -1 +1 @@\n-a\n+b\n"), "src/x");
    assert_eq!(path("--- src/x\n+++ src/x\n@@ -1 +1 @@\n-a\n+b\n"), "src/x");
    assert_eq!(path("--- old/src/x\n+++ new/src/x\n@@ -1 +1 @@\n-a\n+b\n"), "src/x");
    assert_eq!(path("--- x.orig\n+++ x\n@@ -1 +1 @@\n-a\n+b\n"), "x");
    assert_eq!(path("--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+a\n"), "n");
    // `git diff --no-prefix`.
    assert_eq!(path("diff --git src/x src/x\n--- src/x\n+++ src/x\n@@ -1 +1 @@\n-a\n+b\n"), "src/x");
    // Unquoted names with spaces in the `diff --git` line only.
    assert_eq!(path("diff --git a/my file b/my file\nold mode 100644\nnew mode 100755\n"), "my file");
}

#[test]
fn explicit_strip_levels() {
    let text = "diff --git a/p/q/x b/p/q/y\nsimilarity index 90%\nrename from p/q/x\nrename to p/q/y\n--- a/p/q/x\n+++ b/p/q/y\n@@ -1 +1 @@\n-a\n+b\n";
    let plan = plan_with(text, &ParseOptions::default().strip(2));
    // Rename names carry no prefix: they lose one component less.
    assert_eq!((plan.files[0].path.as_str(), modify(&plan.files[0]).move_to.as_deref()), ("q/x", Some("q/y")));
    let plan = plan_with("--- x\n+++ x\n@@ -1 +1 @@\n-a\n+b\n", &ParseOptions::default().strip(0));
    assert_eq!(plan.files[0].path, "x");
    let plan = plan_with("--- a/b/c\n+++ a/b/c\n@@ -1 +1 @@\n-a\n+b\n", &ParseOptions::default().strip(0));
    assert_eq!(plan.files[0].path, "a/b/c");
    let text = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
    let e = lower_err(text, &ParseOptions::default().strip(2));
    assert_eq!((e.kind, e.span), (BAD_STRIP, Some(at(text, "--- a/x"))));
}

#[test]
fn final_newline_and_end_of_file() {
    let modify_of = |text: &str| only_modify(&plan(text)).clone();
    // Marker after the new side: the result ends without a newline.
    let a = modify_of("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n");
    assert_eq!(a.final_newline, Some(false));
    assert!(a.edits[0].scope.at_end_of_file);
    // Only on the old side: the result gains one.
    let b = modify_of("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n");
    assert_eq!(b.final_newline, Some(true));
    assert!(b.edits[0].scope.at_end_of_file);
    // On both sides (and on a context line).
    let c = modify_of("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n\\ No newline at end of file\n");
    assert_eq!(c.final_newline, Some(false));
    let d = modify_of("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n");
    assert_eq!((d.final_newline, d.edits[0].scope.at_end_of_file), (None, false));
}

#[test]
fn crlf_sections_set_line_ends() {
    let text = "--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n a\r\n-b\r\n+B\r\n+C\n c\r\n";
    let m = only_modify(&plan(text)).clone();
    let r = replacement(&m.edits[0]);
    assert_eq!(m.edits[0].target, Target::Lines(strings(&["a", "b", "c"])));
    assert_eq!(r.lines, strings(&["a", "B", "C", "c"]));
    assert_eq!(r.line_ends, Some(vec![Newline::CrLf, Newline::CrLf, Newline::Lf, Newline::CrLf]));
    let m = only_modify(&plan("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")).clone();
    assert_eq!(replacement(&m.edits[0]).line_ends, None);
}

#[test]
fn diff_run_epoch_sides_create_and_delete() {
    let text = "\
diff -ruN old/n.txt new/n.txt
--- old/n.txt\t1970-01-01 00:00:00.000000000 +0000
+++ new/n.txt\t2024-01-01 11:00:00.000000000 +0000
@@ -0,0 +1 @@
+new
diff -ruN old/g.txt new/g.txt
--- old/g.txt\t2024-01-01 10:00:00.000000000 +0000
+++ new/g.txt\t1970-01-01 00:00:00.000000000 +0000
@@ -1 +0,0 @@
-gone
";
    let plan = plan(text);
    assert_eq!(plan.files[0].path, "n.txt");
    assert!(matches!(&plan.files[0].op, FileOp::Create { content: Content::Text(t), .. } if t == "new\n"));
    assert_eq!(plan.files[1].path, "g.txt");
    assert_eq!(
        plan.files[1].op,
        FileOp::Delete { if_missing: IfMissing::Error, expect: Some(Expect::Lines(strings(&["gone"]))) }
    );
}

#[test]
fn unsupported_modes_and_conflicts() {
    let cases: &[(&str, ErrorKind, &str)] = &[
        (
            "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+target\n",
            UNSUPPORTED_SYMLINK,
            "new file mode 120000",
        ),
        (
            "diff --git a/m b/m\nindex 1234567..89abcde 160000\n--- a/m\n+++ b/m\n@@ -1 +1 @@\n-Subproject commit 1\n+Subproject commit 2\n",
            UNSUPPORTED_SUBMODULE,
            "index 1234567..89abcde 160000",
        ),
        (
            "diff --git a/x b/x\nnew file mode 100644\ndeleted file mode 100644\n",
            CONFLICTING_HEADERS,
            "deleted file mode 100644",
        ),
        ("diff --git a/x b/y\nrename from x\n", CONFLICTING_HEADERS, "rename from x"),
        (
            "diff --git a/x b/y\nrename from x\nrename to y\ncopy from x\ncopy to y\n",
            CONFLICTING_HEADERS,
            "rename from x",
        ),
        (
            "diff --git a/x b/x\nnew file mode 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
            CONFLICTING_HEADERS,
            "--- a/x",
        ),
        (
            "diff --git a/one two b/three four\nold mode 100644\nnew mode 100755\n",
            MISSING_PATH,
            "diff --git a/one two b/three four\nold mode 100644\nnew mode 100755",
        ),
    ];
    for (text, kind, offending) in cases {
        let e = lower_err(text, &ParseOptions::default());
        assert_eq!((&e.kind, e.span), (kind, Some(at(text, offending))), "{text:?}: {}", e.render(text));
    }
}

fn binary_section(text: &str, forward: BinaryHunk) -> Patch<'_> {
    let mut patch = parse(text).unwrap_or_else(|e| panic!("{}", e.render(text)));
    patch.files[0].binary = Some(BinaryPatch { forward, reverse: None, span: Span::new(0, 0) });
    patch
}

const OLD_ID: &str = "1111111111111111111111111111111111111111";
const NEW_ID: &str = "2222222222222222222222222222222222222222";

#[test]
fn binary_sections_lower_by_kind() {
    // The syntax tree is built by hand: decoding is the binary module's.
    let modify_text = format!("diff --git a/x.bin b/x.bin\nindex {OLD_ID}..{NEW_ID} 100644\n");
    let plan = lower(&binary_section(&modify_text, BinaryHunk::Delta(vec![1, 2])), &ParseOptions::default()).unwrap();
    assert_eq!(
        plan.files[0].op,
        FileOp::Binary({
            let mut x = BinaryEdit::new(BinaryData::Delta(vec![1, 2]));
            x.old_id = Some(OLD_ID.into());
            x.new_id = Some(NEW_ID.into());
            x
        })
    );
    let new_text = format!("diff --git a/x.bin b/x.bin\nnew file mode 100755\nindex {}..{NEW_ID}\n", "0".repeat(40));
    let plan = lower(&binary_section(&new_text, BinaryHunk::Literal(vec![0, 1])), &ParseOptions::default()).unwrap();
    assert_eq!(
        plan.files[0].op,
        FileOp::Create {
            content: Content::Bytes(vec![0, 1]),
            newline: None,
            if_exists: IfExists::ErrorUnlessIdentical,
            mode: Some(0o755)
        }
    );
    let plan = lower(&binary_section(&new_text, BinaryHunk::Delta(vec![3])), &ParseOptions::default()).unwrap();
    assert!(matches!(&plan.files[0].op, FileOp::Binary(b) if b.create && b.old_id.is_none() && b.mode == Some(0o755)));
    let deleted_text =
        format!("diff --git a/x.bin b/x.bin\ndeleted file mode 100644\nindex {OLD_ID}..{}\n", "0".repeat(40));
    let plan = lower(&binary_section(&deleted_text, BinaryHunk::Literal(vec![])), &ParseOptions::default()).unwrap();
    assert_eq!(
        plan.files[0].op,
        FileOp::Delete { if_missing: IfMissing::Error, expect: Some(Expect::GitBlob(OLD_ID.into())) }
    );
    let short = "diff --git a/x.bin b/x.bin\ndeleted file mode 100644\nindex 1234567..0000000\n";
    let plan = lower(&binary_section(short, BinaryHunk::Literal(vec![])), &ParseOptions::default()).unwrap();
    assert_eq!(plan.files[0].op, FileOp::Delete { if_missing: IfMissing::Error, expect: None });
}

#[test]
fn binary_rename_is_a_change_then_a_move() {
    let text = format!(
        "diff --git a/a.bin b/b.bin\nsimilarity index 90%\nrename from a.bin\nrename to b.bin\nindex {OLD_ID}..{NEW_ID} 100644\n"
    );
    let plan = lower(&binary_section(&text, BinaryHunk::Delta(vec![1])), &ParseOptions::default()).unwrap();
    assert_eq!(plan.files.len(), 2);
    assert_eq!(plan.files[0].path, "a.bin");
    assert!(matches!(plan.files[0].op, FileOp::Binary(_)));
    assert_eq!((plan.files[1].path.as_str(), modify(&plan.files[1]).move_to.as_deref()), ("a.bin", Some("b.bin")));
    let text = format!(
        "diff --git a/a.bin b/b.bin\nsimilarity index 90%\ncopy from a.bin\ncopy to b.bin\nindex {OLD_ID}..{NEW_ID} 100644\n"
    );
    let plan = lower(&binary_section(&text, BinaryHunk::Delta(vec![1])), &ParseOptions::default()).unwrap();
    assert_eq!((plan.files[0].path.as_str(), modify(&plan.files[0]).copy_from.as_deref()), ("b.bin", Some("a.bin")));
    assert_eq!(plan.files[1].path, "b.bin");
    assert!(matches!(plan.files[1].op, FileOp::Binary(_)));
}

/// Lines cut from the diff's text keep exactly their text: without the prefix and the
/// `\r` of a CRLF, with the `\r` a `\ No newline` marker makes the file's last byte, and
/// empty for an empty context line; several sections share the one copy of the text.
#[test]
fn lines_taken_from_the_source_are_the_lines_as_written() {
    let text = "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\r\n\n-b\r\n\\ No newline at end of file\n+B\r\n\\ No newline at end of file\n\
                --- a/y\n+++ b/y\n@@ -1 +1 @@\n-é\n+🦀\n";
    let plan = plan(text);
    let x = modify(&plan.files[0]);
    assert_eq!(x.edits[0].target, Target::Lines(strings(&["a", "", "b\r"])));
    assert_eq!(replacement(&x.edits[0]).lines, strings(&["a", "", "B\r"]));
    let y = modify(&plan.files[1]);
    assert_eq!(y.edits[0].target, Target::Lines(strings(&["é"])));
    assert_eq!(replacement(&y.edits[0]).lines, strings(&["🦀"]));
}

#[test]
fn hunk_labels_are_decimal() {
    for n in (0..1_200).chain([9_999, 10_000, 123_456_789, usize::MAX]) {
        assert_eq!(super::hunk_label(n), format!("hunk {n}"));
    }
}

/// Read one section at a time, a diff still fails as when read whole: a parse error
/// anywhere wins over a lowering error in an earlier section.
#[test]
fn a_parse_error_after_a_lowering_error_wins() {
    let lowering_error = "diff --git a/x b/x\nnew file mode 100644\ndeleted file mode 100644\n";
    let parse_error = "diff --git a/y b/y\n--- a/y\n+++ b/y\n@@ -1,x +1 @@\n-a\n+b\n";
    let text = format!("{lowering_error}{parse_error}");
    let whole = parse(&text).unwrap_err();
    assert_eq!(whole.kind, INVALID_HUNK_HEADER);
    assert_eq!(parse_and_lower(&text, &ParseOptions::default()), Err(whole));
    let lowered_first = lower(&parse(lowering_error).unwrap(), &ParseOptions::default()).unwrap_err();
    assert_eq!(lowered_first.kind, CONFLICTING_HEADERS);
    let twice = format!("{lowering_error}{}", lowering_error.replace('x', "z"));
    assert_eq!(parse_and_lower(&twice, &ParseOptions::default()), Err(lowered_first));
}

/// A tree built by hand whose counts disagree with its lines, without saying so
/// (`recounted: false`), lowers as if they agreed: counts only size buffers.
#[test]
fn counts_of_a_hand_built_tree_only_size_buffers() {
    let text = "--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n a\n+b\n c\n@@ -10,2 +11,2 @@\n d\n-e\n+f\n";
    let patch = parse(text).unwrap();
    let expected = lower(&patch, &ParseOptions::default()).unwrap();
    let mut lying = patch.clone();
    let hunk = &mut lying.files[0].hunks[0];
    assert!(!hunk.recounted);
    let ranges = hunk.ranges.as_mut().unwrap();
    (ranges.old.count, ranges.new.count) = (usize::MAX, 0);
    assert_eq!(lower(&lying, &ParseOptions::default()), Ok(expected));
}

/// Issue 26, point 7: `Binary files … differ` sections carry no data. Refused by default;
/// with `skip_binary_without_data`, each is skipped with a warning naming the file, in a
/// `diff --git` section or alone (`diff -r`), and the rest lowers as without them.
#[test]
fn binary_files_without_data_are_skipped_when_asked() {
    let text = "diff --git a/logo.png b/logo.png\nindex 1234567..89abcde 100644\n\
                Binary files a/logo.png and b/logo.png differ\n\
                diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n\
                Binary files old/db.sqlite and new/db.sqlite differ\n";
    let err = parse_and_lower(text, &ParseOptions::default()).unwrap_err();
    assert_eq!(err.kind, "binary_without_data");
    assert!(err.message.contains("`--skip-binary-without-data`"), "{}", err.message);
    let plan = parse_and_lower(text, &ParseOptions::default().skip_binary_without_data(true)).unwrap();
    assert_eq!(plan.files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(), ["a.txt"]);
    assert_eq!(
        plan.warnings,
        [
            "skipped `logo.png`: the diff says only that the binary files differ, with no data (made without `git \
             diff --binary`); that file is left as it is",
            "skipped `new/db.sqlite`: the diff says only that the binary files differ, with no data (made without \
             `git diff --binary`); that file is left as it is",
        ]
    );
}

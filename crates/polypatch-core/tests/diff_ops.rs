//! The IR pieces diffs need: deletion preconditions, binary patches, final-newline and
//! line-end control, git's view of a lone `\r`, hunks ordered by position and hint.

mod common;

use polypatch_core::binary::git_blob_id;
use polypatch_core::{
    Action, ApplyOptions, BinaryData, BinaryEdit, Edit, EditPlan, Expect, FailureKind, FileEdit, FileOp, IfMissing,
    LineBreaks, LineText, MemoryFileSet, Modify, Newline, Replacement, Scope, Status, Target, apply,
};

fn plan(files: Vec<FileEdit>) -> EditPlan {
    EditPlan::new("test", files)
}

fn file(path: &str, op: FileOp) -> FileEdit {
    FileEdit::new(path, op)
}

/// A diff hunk: ` ` context, `-` removed, `+` added; `hint` is the 1-based line.
fn hunk(lines: &[&str], hint: Option<usize>) -> Edit {
    let (old, new, kept) = common::sides(lines);
    Edit::new(Target::Lines(old), Action::Replace(Replacement::lines(new).with_kept(kept)))
        .with_scope({
            let mut x = Scope::default();
            x.after_previous = true;
            x.line_hint = hint;
            x
        })
        .with_policy(polypatch_core::Policy::default())
}

fn run(files: &mut MemoryFileSet, p: &EditPlan) -> Result<polypatch_core::ApplyReport, polypatch_core::ApplyError> {
    apply(p, files, &ApplyOptions::default())
}

fn delete(lines: &[&str]) -> FileOp {
    FileOp::Delete {
        if_missing: IfMissing::Error,
        expect: Some(Expect::Lines(lines.iter().copied().map(LineText::from).collect())),
    }
}

#[test]
fn delete_checks_the_expected_lines() {
    let mut files = MemoryFileSet::new().with("a.txt", "one\r\ntwo\n").with("b.txt", "x\n");
    // Terminators do not matter, the lines do.
    let ok = plan(vec![file("a.txt", delete(&["one", "two"]))]);
    let wrong = plan(vec![
        file("b.txt", FileOp::Delete { if_missing: IfMissing::Error, expect: None }),
        file("a.txt", delete(&["one", "TWO"])),
    ]);
    let err = run(&mut files, &wrong).unwrap_err();
    let failure = err.report.files[1].failure.as_ref().unwrap();
    assert_eq!(failure.kind, FailureKind::NotFound);
    assert!(failure.message.contains("from line 2"), "{}", failure.message);
    assert!(failure.closest.as_ref().unwrap().diff.contains("-TWO"));
    assert_eq!(files.get_str("b.txt"), Some("x\n"), "nothing written on failure");
    run(&mut files, &ok).unwrap();
    assert_eq!(files.get("a.txt"), None);
}

#[test]
fn delete_checks_a_blob_id() {
    let bytes = [0u8, 1, 2, 3];
    let mut files = MemoryFileSet::new().with("bin", bytes.to_vec());
    let wrong = FileOp::Delete { if_missing: IfMissing::Error, expect: Some(Expect::GitBlob(git_blob_id(b"other"))) };
    let err = run(&mut files, &plan(vec![file("bin", wrong)])).unwrap_err();
    assert_eq!(err.report.files[0].failure.as_ref().unwrap().kind, FailureKind::NotFound);
    let right = FileOp::Delete { if_missing: IfMissing::Error, expect: Some(Expect::GitBlob(git_blob_id(&bytes))) };
    run(&mut files, &plan(vec![file("bin", right)])).unwrap();
    assert_eq!(files.get("bin"), None);
}

fn binary(data: BinaryData, old: &[u8], new: &[u8]) -> FileOp {
    FileOp::Binary({
        let mut x = BinaryEdit::new(data);
        x.old_id = Some(git_blob_id(old));
        x.new_id = Some(git_blob_id(new));
        x
    })
}

#[test]
fn binary_literal_checks_the_preimage_and_reruns_as_already_applied() {
    let old = vec![0u8, 159, 146, 150];
    let new = vec![1u8, 2, 3];
    let op = binary(BinaryData::Literal(new.clone()), &old, &new);
    let mut other = MemoryFileSet::new().with("img", vec![9u8, 9]);
    let err = run(&mut other, &plan(vec![file("img", op.clone())])).unwrap_err();
    let failure = err.report.files[0].failure.as_ref().unwrap();
    assert_eq!(failure.kind, FailureKind::NotFound);
    assert!(failure.message.contains("made for blob"), "{}", failure.message);
    assert_eq!(other.get("img"), Some(&[9u8, 9][..]));

    let mut files = MemoryFileSet::new().with("img", old);
    let report = run(&mut files, &plan(vec![file("img", op.clone())])).unwrap();
    assert_eq!(report.files[0].status, Status::Applied);
    assert_eq!(files.get("img"), Some(&new[..]));
    let again = run(&mut files, &plan(vec![file("img", op)])).unwrap();
    assert_eq!(again.files[0].status, Status::AlreadyApplied);
}

#[test]
fn binary_delta_applies_to_the_current_bytes() {
    let old = b"hello".to_vec();
    let new = b"hello!!!".to_vec();
    let delta = vec![5, 8, 0x90, 5, 3, b'!', b'!', b'!'];
    let mut files = MemoryFileSet::new().with("f", old.clone());
    run(&mut files, &plan(vec![file("f", binary(BinaryData::Delta(delta.clone()), &old, &new))])).unwrap();
    assert_eq!(files.get("f"), Some(&new[..]));
    // A delta whose result is not the promised blob is refused.
    let mut files = MemoryFileSet::new().with("f", old.clone());
    let err = run(&mut files, &plan(vec![file("f", binary(BinaryData::Delta(delta), &old, b"other"))])).unwrap_err();
    assert_eq!(err.report.files[0].failure.as_ref().unwrap().kind, FailureKind::InvalidPlan);
    assert_eq!(files.get("f"), Some(&old[..]));
}

#[test]
fn binary_create_from_an_empty_base() {
    let delta = vec![0, 2, 2, b'h', b'i'];
    let op = FileOp::Binary({
        let mut x = BinaryEdit::new(BinaryData::Delta(delta));
        x.new_id = Some(git_blob_id(b"hi"));
        x.create = true;
        x.mode = Some(0o755);
        x
    });
    let mut files = MemoryFileSet::new();
    run(&mut files, &plan(vec![file("new", op)])).unwrap();
    assert_eq!(files.get("new"), Some(&b"hi"[..]));
}

fn modify(edits: Vec<Edit>, final_newline: Option<bool>) -> FileOp {
    FileOp::Modify({
        let mut x = Modify::new(edits);
        x.final_newline = final_newline;
        x.line_breaks = LineBreaks::LfOrCrLf;
        x
    })
}

#[test]
fn final_newline_is_added_or_removed_when_the_plan_says() {
    let mut files = MemoryFileSet::new().with("a", "x\ny").with("b", "x\ny\n");
    let p = plan(vec![
        file("a", modify(vec![hunk(&[" x", "-y", "+z"], Some(1))], Some(true))),
        file("b", modify(vec![hunk(&[" x", "-y", "+z"], Some(1))], Some(false))),
    ]);
    run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("a"), Some("x\nz\n"));
    assert_eq!(files.get_str("b"), Some("x\nz"));
    // Only the final newline changes: no edits at all.
    let mut files = MemoryFileSet::new().with("c", "x\ny");
    run(&mut files, &plan(vec![file("c", modify(vec![], Some(true)))])).unwrap();
    assert_eq!(files.get_str("c"), Some("x\ny\n"));
}

#[test]
fn a_lone_cr_is_text_with_git_line_breaks() {
    let mut files = MemoryFileSet::new().with("a", "a\rb\nc\n");
    let p = plan(vec![file("a", modify(vec![hunk(&["-a\rb", "+ab", " c"], Some(1))], None))]);
    run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("a"), Some("ab\nc\n"));
}

#[test]
fn line_ends_from_the_patch_set_added_lines_and_changes_of_terminator() {
    // A mixed file: the patch's terminators win for added lines, kept lines keep theirs.
    let mut files = MemoryFileSet::new().with("a", "one\r\ntwo\nthree\r\n");
    let mut edit = hunk(&[" one", "-two", "+2", "+2b", " three"], Some(1));
    let Action::Replace(rep) = &mut edit.action else { unreachable!() };
    rep.line_ends = Some(vec![Newline::CrLf, Newline::Lf, Newline::CrLf, Newline::CrLf]);
    run(&mut files, &plan(vec![file("a", modify(vec![edit.clone()], None))])).unwrap();
    assert_eq!(files.get_str("a"), Some("one\r\n2\n2b\r\nthree\r\n"));
    let again = run(&mut files, &plan(vec![file("a", modify(vec![edit], None))])).unwrap();
    assert_eq!(again.files[0].edits[0].status, Status::AlreadyApplied);

    // Only the terminator changes (a CRLF → LF conversion diff).
    let mut files = MemoryFileSet::new().with("b", "x\r\ny\r\n");
    let mut edit = hunk(&["-x", "-y", "+x", "+y"], Some(1));
    let Action::Replace(rep) = &mut edit.action else { unreachable!() };
    rep.line_ends = Some(vec![Newline::Lf, Newline::Lf]);
    run(&mut files, &plan(vec![file("b", modify(vec![edit], None))])).unwrap();
    assert_eq!(files.get_str("b"), Some("x\ny\n"));
}

#[test]
fn hunks_keep_their_order_even_with_line_hints() {
    // The second hunk's hint points above the first hunk; it is still searched after it.
    let mut files = MemoryFileSet::new().with("a", "k\nv\nk\nv\n");
    let p = plan(vec![file(
        "a",
        modify(vec![hunk(&[" k", "-v", "+V1"], Some(1)), hunk(&[" k", "-v", "+V2"], Some(1))], None),
    )]);
    run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("a"), Some("k\nV1\nk\nV2\n"));
}

#[test]
fn preimage_id_settles_repetitive_text() {
    // `a a b a a` holds both the old side `a b a` and the new side `a a b a a` of adding an
    // `a` on each side of `b`: without more to go on the edit looks applied. The blob id of
    // the file the diff was made for settles it.
    let with = |id: Option<String>, hint: Option<usize>| {
        let edit = hunk(&[" a", "+a", " b", "+a", " a"], hint);
        let m = {
            let mut x = Modify::new(vec![edit]);
            x.preimage = id;
            x.line_breaks = LineBreaks::LfOrCrLf;
            x
        };
        plan(vec![file("f", FileOp::Modify(m))])
    };
    let original = "a\na\nb\na\na\n";
    let patched = "a\na\na\nb\na\na\na\n";
    let mut files = MemoryFileSet::new().with("f", original);
    run(&mut files, &with(Some(git_blob_id(original.as_bytes())), None)).unwrap();
    assert_eq!(files.get_str("f"), Some(patched));
    // Without an id that matches, content decides: it looks applied.
    let mut files = MemoryFileSet::new().with("f", original);
    let report = run(&mut files, &with(Some(git_blob_id(b"other")), None)).unwrap();
    assert_eq!(report.files[0].edits[0].status, Status::AlreadyApplied);
    assert_eq!(files.get_str("f"), Some(original));
    // A line hint where the old side stands exactly says it is not applied yet.
    run(&mut files, &with(None, Some(2))).unwrap();
    assert_eq!(files.get_str("f"), Some(patched));
}

#[test]
fn postimage_id_means_already_patched() {
    let mut files = MemoryFileSet::new().with("f", "k\nv\n");
    let op = FileOp::Modify({
        let mut x = Modify::new(vec![hunk(&[" k", "+v"], Some(1))]);
        x.postimage = Some(git_blob_id(b"k\nv\n")[..7].to_string());
        x
    });
    let report = run(&mut files, &plan(vec![file("f", op)])).unwrap();
    assert_eq!(report.files[0].status, Status::AlreadyApplied);
    assert_eq!(report.files[0].edits[0].status, Status::AlreadyApplied);
    assert_eq!(files.get_str("f"), Some("k\nv\n"));
}

#[test]
fn a_diff_made_from_this_very_file_may_add_an_ellipsis_line() {
    // A comment with an ellipsis in place of removed lines looks like an elision; a diff
    // whose preimage id is the file's was made by a tool from it, and means it.
    let original = "def f():\n    return 1\n";
    let with = |preimage: Option<String>| {
        let m = {
            let mut x = Modify::new(vec![hunk(
                &[" def f():", "-    return 1", "+    # ... rest ...", "+    return 2"],
                Some(1),
            )]);
            x.preimage = preimage;
            x
        };
        plan(vec![file("f.py", FileOp::Modify(m))])
    };
    let mut files = MemoryFileSet::new().with("f.py", original);
    let err = run(&mut files, &with(None)).unwrap_err();
    assert_eq!(err.report.files[0].edits[0].failure.as_ref().unwrap().kind, FailureKind::Elision);
    run(&mut files, &with(Some(git_blob_id(original.as_bytes())))).unwrap();
    assert_eq!(files.get_str("f.py"), Some("def f():\n    # ... rest ...\n    return 2\n"));

    // Python's `...` as a block's only statement is a stub body, code whatever the id.
    let stub = Modify::new(vec![hunk(&[" def f():", "-    return 1", "+    ..."], Some(1))]);
    let mut files = MemoryFileSet::new().with("f.py", original);
    run(&mut files, &plan(vec![file("f.py", FileOp::Modify(stub))])).unwrap();
    assert_eq!(files.get_str("f.py"), Some("def f():\n    ...\n"));
}

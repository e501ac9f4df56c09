//! End-to-end behaviour of the core: plans built by hand, applied to in-memory file sets.

use std::fmt::Write as _;

mod common;

use polypatch_core::{
    Action, Anchor, ApplyOptions, Content, Edit, EditPlan, FailureKind, FileEdit, FileOp, IfExists, IfMissing,
    MemoryFileSet, Modify, Occurrence, Policy, Replacement, Scope, Status, Target, Tier, apply, compute,
};

/// An edit from diff-style lines: ` ` context, `-` removed, `+` added.
fn hunk(lines: &[&str]) -> Edit {
    let (old, new, kept) = common::sides(lines);
    Edit::new(Target::Lines(old), Action::Replace(Replacement::lines(new).with_kept(kept)))
        .with_scope(Scope::default().with_after_previous(true))
        .with_policy(Policy::default().with_occurrence(Occurrence::First))
}

fn modify(path: &str, edits: Vec<Edit>) -> FileEdit {
    FileEdit::new(path, FileOp::Modify(Modify::new(edits)))
}

fn plan(files: Vec<FileEdit>) -> EditPlan {
    EditPlan::new("test", files)
}

fn run(files: &mut MemoryFileSet, p: &EditPlan) -> Result<polypatch_core::ApplyReport, polypatch_core::ApplyError> {
    apply(p, files, &ApplyOptions::default())
}

#[test]
fn exact_replacement_and_rerun_is_already_applied() {
    let mut files = MemoryFileSet::new().with("a.txt", "one\ntwo\nthree\n");
    let p = plan(vec![modify("a.txt", vec![hunk(&[" one", "-two", "+TWO", " three"])])]);
    let report = run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("a.txt"), Some("one\nTWO\nthree\n"));
    assert_eq!(report.files[0].edits[0].status, Status::Applied);
    assert_eq!(report.files[0].edits[0].tier, Some(Tier::Exact));
    let again = run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("a.txt"), Some("one\nTWO\nthree\n"));
    assert_eq!(again.files[0].edits[0].status, Status::AlreadyApplied);
    assert!(again.is_already_applied());
}

#[test]
fn pure_insertion_rerun_is_already_applied() {
    let mut files = MemoryFileSet::new().with("a.txt", "a\nb\n");
    let p = plan(vec![modify("a.txt", vec![hunk(&[" a", "+inserted", " b"])])]);
    run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("a.txt"), Some("a\ninserted\nb\n"));
    let again = run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("a.txt"), Some("a\ninserted\nb\n"));
    assert_eq!(again.files[0].edits[0].status, Status::AlreadyApplied);
}

#[test]
fn indentation_shift_is_carried_to_new_lines() {
    let mut files = MemoryFileSet::new().with("a.py", "class A:\n    def f(self):\n        return 1\n");
    // The model wrote the method unindented.
    let p = plan(vec![modify("a.py", vec![hunk(&[" def f(self):", "-    return 1", "+    x = 2", "+    return x"])])]);
    let report = run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("a.py"), Some("class A:\n    def f(self):\n        x = 2\n        return x\n"));
    assert_eq!(report.files[0].edits[0].tier, Some(Tier::Indentation));
}

#[test]
fn rerun_of_an_indentation_shifted_hunk_is_already_applied() {
    let mut files = MemoryFileSet::new().with("a.py", "class A:\n    def f(self):\n        return 1\n");
    let p = plan(vec![modify("a.py", vec![hunk(&[" def f(self):", "-    return 1", "+    return 2"])])]);
    run(&mut files, &p).unwrap();
    let again = run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("a.py"), Some("class A:\n    def f(self):\n        return 2\n"));
    assert_eq!(again.files[0].edits[0].status, Status::AlreadyApplied);
    assert_eq!(again.files[0].edits[0].tier, Some(Tier::Indentation));
}

#[test]
fn indentation_follows_tabs_of_the_file() {
    let mut files = MemoryFileSet::new().with("a.go", "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n");
    let p = plan(vec![modify("a.go", vec![hunk(&[" if x {", "-    return 1", "+    y := 2", "+    return y", " }"])])]);
    run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("a.go"), Some("func f() {\n\tif x {\n\t\ty := 2\n\t\treturn y\n\t}\n}\n"));
}

#[test]
fn fuzzy_match_keeps_the_files_context_lines() {
    let text = "fn main() {\n    let total = compute(alpha, beta);\n    report(total);\n    done();\n}\n";
    let mut files = MemoryFileSet::new().with("m.rs", text);
    // One typo in a context line (`totl`): the file's version of that line is kept.
    let p = plan(vec![modify(
        "m.rs",
        vec![hunk(&[
            "     let totl = compute(alpha, beta);",
            "-    report(total);",
            "+    log(total);",
            "     done();",
        ])],
    )]);
    let report = run(&mut files, &p).unwrap();
    assert_eq!(
        files.get_str("m.rs"),
        Some("fn main() {\n    let total = compute(alpha, beta);\n    log(total);\n    done();\n}\n")
    );
    let edit = &report.files[0].edits[0];
    assert_eq!(edit.tier, Some(Tier::Fuzzy));
    assert!(edit.confidence.unwrap() >= 0.9 && edit.confidence.unwrap() < 1.0);
}

#[test]
fn unicode_lookalikes_match_and_keep_the_file_version() {
    let mut files = MemoryFileSet::new().with("a.md", "say \u{201C}hi\u{201D} \u{2014} ok\nnext\n");
    let p = plan(vec![modify("a.md", vec![hunk(&[" say \"hi\" - ok", "-next", "+after"])])]);
    let report = run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("a.md"), Some("say \u{201C}hi\u{201D} \u{2014} ok\nafter\n"));
    assert_eq!(report.files[0].edits[0].tier, Some(Tier::Unicode));
}

#[test]
fn crlf_file_with_lf_patch_stays_crlf() {
    let mut files = MemoryFileSet::new().with("w.txt", "one\r\ntwo\r\nthree\r\n");
    let p = plan(vec![modify("w.txt", vec![hunk(&["-one", "+ONE", " two", "+between", " three"])])]);
    run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("w.txt"), Some("ONE\r\ntwo\r\nbetween\r\nthree\r\n"));
}

#[test]
fn missing_final_newline_stays_missing() {
    let mut files = MemoryFileSet::new().with("n.txt", "a\nlast");
    let p = plan(vec![modify("n.txt", vec![hunk(&[" a", "-last", "+new last", "+really last"])])]);
    run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("n.txt"), Some("a\nnew last\nreally last"));
    // Appending after a last line without newline gives that line a newline.
    let mut files = MemoryFileSet::new().with("n.txt", "a\nlast");
    let p = plan(vec![modify("n.txt", vec![hunk(&[" last", "+appended"])])]);
    run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("n.txt"), Some("a\nlast\nappended"));
}

#[test]
fn bom_is_preserved() {
    let mut files = MemoryFileSet::new().with("b.txt", "\u{feff}first\nsecond\n");
    let p = plan(vec![modify("b.txt", vec![hunk(&["-first", "+FIRST"])])]);
    run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("b.txt"), Some("\u{feff}FIRST\nsecond\n"));
}

#[test]
fn second_file_failing_leaves_both_untouched() {
    let mut files = MemoryFileSet::new().with("a.txt", "alpha\n").with("b.txt", "beta\n");
    let before = files.clone();
    let p = plan(vec![
        modify("a.txt", vec![hunk(&["-alpha", "+ALPHA"])]),
        modify("b.txt", vec![hunk(&["-gamma", "+GAMMA"])]),
    ]);
    let err = run(&mut files, &p).unwrap_err();
    assert_eq!(files, before);
    assert!(!err.report.committed);
    assert_eq!(err.report.files[1].status, Status::Failed);
    let failure = err.report.files[1].edits[0].failure.as_ref().unwrap();
    assert_eq!(failure.kind, FailureKind::NotFound);
    assert!(err.to_string().contains("b.txt"), "{err}");
}

#[test]
fn ambiguity_lists_the_candidates() {
    let mut files = MemoryFileSet::new().with("a.txt", "x\n  item\ny\n\titem\n");
    let mut edit = hunk(&["-item", "+thing"]);
    edit.policy.occurrence = Occurrence::Unique;
    let err = run(&mut files, &plan(vec![modify("a.txt", vec![edit])])).unwrap_err();
    let failure = err.report.files[0].edits[0].failure.clone().unwrap();
    assert_eq!(failure.kind, FailureKind::Ambiguous);
    assert_eq!(failure.candidates.iter().map(|r| (r.start, r.end)).collect::<Vec<_>>(), [(2, 2), (4, 4)]);
    assert!(failure.next_step.contains("add lines around the change"), "{}", failure.next_step);
}

#[test]
fn not_found_shows_the_closest_region() {
    let mut files = MemoryFileSet::new().with("a.rs", "fn a() {}\nfn compute_total(x: u32) -> u32 {\n    x * 2\n}\n");
    let p = plan(vec![modify("a.rs", vec![hunk(&["-fn compute_sum(x: u64) -> u64 {", "+fn f() {"])])]);
    let err = run(&mut files, &p).unwrap_err();
    let failure = err.report.files[0].edits[0].failure.clone().unwrap();
    assert_eq!(failure.kind, FailureKind::NotFound);
    let closest = failure.closest.expect("a closest region");
    assert_eq!((closest.lines.start, closest.lines.end), (2, 2));
    assert!(closest.similarity > 0.5 && closest.similarity < 0.9, "{}", closest.similarity);
    assert!(closest.diff.contains("-fn compute_sum") && closest.diff.contains("+fn compute_total"), "{}", closest.diff);
}

#[test]
fn strict_refuses_what_default_applies() {
    let files = MemoryFileSet::new().with("a.txt", "  indented\n");
    let p = plan(vec![modify("a.txt", vec![hunk(&["-indented", "+changed"])])]);
    assert!(compute(&p, &files, &ApplyOptions::default()).is_ok());
    let err = compute(&p, &files, &ApplyOptions::default().strict(true)).unwrap_err();
    assert_eq!(err.report.files[0].edits[0].failure.as_ref().unwrap().kind, FailureKind::NotFound);
}

#[test]
fn hunks_are_searched_after_the_previous_one() {
    let mut files = MemoryFileSet::new().with("a.txt", "x\nfinish\ny\nfinish\n");
    let p = plan(vec![modify("a.txt", vec![hunk(&[" y", "-finish", "+END2"]), hunk(&["-finish", "+END3"])])]);
    let err = run(&mut files, &p).unwrap_err();
    // The second hunk's `finish` is only before the first hunk, and was also where the
    // first one changed it: which one the patch meant is unclear (issue 26, point 7).
    let failure = err.report.files[0].edits[1].failure.as_ref().unwrap();
    assert_eq!(failure.kind, FailureKind::Ambiguous);
    assert_eq!(
        failure.message,
        "the lines to find are not after line 4, where the hunk before this one ends, but they stand before it, at \
         line 2, and may also have stood where an earlier hunk changed the file (lines 3-4): which place is meant is \
         unclear"
    );
    assert_eq!(files.get_str("a.txt"), Some("x\nfinish\ny\nfinish\n"));
    let p = plan(vec![modify("a.txt", vec![hunk(&["-finish", "+END1"]), hunk(&["-finish", "+END2"])])]);
    run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("a.txt"), Some("x\nEND1\ny\nEND2\n"));
}

#[test]
fn line_hint_picks_the_nearest_and_never_beats_content() {
    let mut files = MemoryFileSet::new().with("a.txt", "v\nk\nv\nk\n");
    let mut edit = hunk(&[" v", "-k", "+K"]);
    edit.scope = Scope::default().with_line_hint(3);
    run(&mut files, &plan(vec![modify("a.txt", vec![edit.clone()])])).unwrap();
    assert_eq!(files.get_str("a.txt"), Some("v\nk\nv\nK\n"));
    // A wrong hint still finds the only place that matches.
    let mut files = MemoryFileSet::new().with("a.txt", "a\nb\nc\nd\n");
    edit = hunk(&[" c", "-d", "+D"]);
    edit.scope = Scope::default().with_line_hint(1);
    run(&mut files, &plan(vec![modify("a.txt", vec![edit])])).unwrap();
    assert_eq!(files.get_str("a.txt"), Some("a\nb\nc\nD\n"));
}

#[test]
fn anchor_scopes_and_pure_insertion_lands_after_it() {
    let mut files = MemoryFileSet::new().with("a.py", "def a():\n    pass\ndef b():\n    pass\n");
    let mut edit = hunk(&["-    pass", "+    return 2"]);
    edit.scope.anchor = Some(Anchor::new(vec!["def b():".into()], false));
    let insert = Edit::new(Target::Lines(vec![]), Action::InsertAfter { lines: vec!["    # first".into()] })
        .with_scope(Scope::default().with_anchor(Anchor::new(vec!["def a():".into()], false)));
    run(&mut files, &plan(vec![modify("a.py", vec![insert, edit])])).unwrap();
    assert_eq!(files.get_str("a.py"), Some("def a():\n    # first\n    pass\ndef b():\n    return 2\n"));
}

/// `IfMissing::Create` (an empty SEARCH block): a missing file is created from the edits
/// applied to an empty file; an existing one is edited; a move from a missing file is still
/// refused as missing.
#[test]
fn a_modify_that_may_create_starts_a_missing_file_empty() {
    let append = Edit::new(Target::EndOfFile, Action::InsertAfter { lines: vec!["a".into(), "b".into()] });
    let creating = |path: &str, edits: Vec<Edit>| {
        let mut m = Modify::new(edits);
        m.if_missing = IfMissing::Create;
        FileEdit::new(path, FileOp::Modify(m))
    };
    let p = plan(vec![creating("new/n.txt", vec![append.clone(), Edit::replace(["b"], ["c"])])]);
    let mut files = MemoryFileSet::new();
    run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("new/n.txt"), Some("a\nc\n"));
    let mut files = MemoryFileSet::new().with("new/n.txt", "z\r\n");
    run(&mut files, &plan(vec![creating("new/n.txt", vec![append.clone()])])).unwrap();
    assert_eq!(files.get_str("new/n.txt"), Some("z\r\na\r\nb\r\n"));
    let mut moved = Modify::new(vec![append]);
    moved.if_missing = IfMissing::Create;
    moved.move_to = Some("to.txt".into());
    let mut files = MemoryFileSet::new();
    let err = run(&mut files, &plan(vec![FileEdit::new("from.txt", FileOp::Modify(moved))])).unwrap_err();
    assert_eq!(err.report.files[0].failure.as_ref().unwrap().kind, FailureKind::FileMissing);
    assert_eq!(files.paths().count(), 0);
}

#[test]
fn end_of_file_scope_and_target() {
    let mut files = MemoryFileSet::new().with("a.txt", "x\ny\nx\n");
    let mut edit = hunk(&["-x", "+z"]);
    edit.scope.at_end_of_file = true;
    let append = Edit::new(Target::EndOfFile, Action::InsertAfter { lines: vec!["tail".into()] });
    let p = plan(vec![modify("a.txt", vec![edit.clone()])]);
    run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("a.txt"), Some("x\ny\nz\n"));
    assert!(run(&mut files, &p).unwrap().is_already_applied());
    let p = plan(vec![modify("a.txt", vec![append])]);
    run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("a.txt"), Some("x\ny\nz\ntail\n"));
    assert!(run(&mut files, &p).unwrap().is_already_applied());
}

#[test]
fn file_operations() {
    let mut files =
        MemoryFileSet::new().with("old/a.txt", "a\n").with("gone.txt", "g\n").with("dest.txt", "old dest\n");
    let p = plan(vec![
        FileEdit::new(
            "new/b.txt",
            FileOp::Create {
                content: Content::Text("b\nc\n".into()),
                newline: Some(polypatch_core::Newline::CrLf),
                if_exists: IfExists::ErrorUnlessIdentical,
                mode: None,
            },
        ),
        FileEdit::new("gone.txt", FileOp::Delete { if_missing: IfMissing::Error, expect: None }),
        FileEdit::new(
            "old/a.txt",
            FileOp::Modify({
                let mut x = Modify::new(vec![hunk(&["-a", "+A"])]);
                x.move_to = Some("dest.txt".into());
                x.if_dest_exists = IfExists::Overwrite;
                x
            }),
        ),
    ]);
    let report = run(&mut files, &p).unwrap();
    assert_eq!(files.paths().collect::<Vec<_>>(), ["dest.txt", "new/b.txt"]);
    assert_eq!(files.get_str("new/b.txt"), Some("b\r\nc\r\n"));
    assert_eq!(files.get_str("dest.txt"), Some("A\n"));
    assert_eq!(report.files[2].moved_to.as_deref(), Some("dest.txt"));
}

#[test]
fn move_or_copy_onto_another_file_is_refused_unless_it_holds_the_result() {
    let files = MemoryFileSet::new().with("a.txt", "a\n").with("taken.txt", "other\n").with("same.txt", "A\n");
    let op = |to: &str, copy: bool| {
        let m = if copy {
            {
                let mut x = Modify::new(vec![hunk(&["-a", "+A"])]);
                x.copy_from = Some("a.txt".into());
                x
            }
        } else {
            {
                let mut x = Modify::new(vec![hunk(&["-a", "+A"])]);
                x.move_to = Some(to.into());
                x
            }
        };
        FileEdit::new(if copy { to } else { "a.txt" }, FileOp::Modify(m))
    };
    for copy in [false, true] {
        let mut f = files.clone();
        let err = run(&mut f, &plan(vec![op("taken.txt", copy)])).unwrap_err();
        assert_eq!(err.report.files[0].failure.as_ref().unwrap().kind, FailureKind::FileExists);
        assert_eq!(f.get_str("taken.txt"), Some("other\n"));
        assert_eq!(f.get_str("a.txt"), Some("a\n"));
        // A destination that already holds the result is fine.
        let mut f = files.clone();
        run(&mut f, &plan(vec![op("same.txt", copy)])).unwrap();
        assert_eq!(f.get_str("same.txt"), Some("A\n"));
        assert_eq!(f.get("a.txt").is_some(), copy);
    }
}

#[test]
fn file_level_failures_have_kinds() {
    let files = MemoryFileSet::new().with("dir/x.txt", "x\n").with("bin", vec![0xff, 0xfe, 0x00]).with("e.txt", "e\n");
    let cases: Vec<(FileEdit, FailureKind)> = vec![
        (
            FileEdit::new("missing", FileOp::Delete { if_missing: IfMissing::Error, expect: None }),
            FailureKind::FileMissing,
        ),
        (FileEdit::new("dir", FileOp::Delete { if_missing: IfMissing::Error, expect: None }), FailureKind::NotAFile),
        (modify("missing", vec![hunk(&["-a", "+b"])]), FailureKind::FileMissing),
        (modify("bin", vec![hunk(&["-a", "+b"])]), FailureKind::NotText),
        (modify("../x", vec![hunk(&["-a", "+b"])]), FailureKind::PathEscapesRoot),
        (modify("/etc/passwd", vec![hunk(&["-a", "+b"])]), FailureKind::PathEscapesRoot),
        (
            FileEdit::new(
                "e.txt",
                FileOp::Create {
                    content: Content::Text("other\n".into()),
                    newline: None,
                    if_exists: IfExists::ErrorUnlessIdentical,
                    mode: None,
                },
            ),
            FailureKind::FileExists,
        ),
    ];
    for (fe, kind) in cases {
        let name = fe.path.clone();
        let err = compute(&plan(vec![fe]), &files, &ApplyOptions::default()).unwrap_err();
        let failure = err.report.first_failure().unwrap().failure;
        assert_eq!(failure.kind, kind, "{name}: {failure}");
    }
}

#[cfg(feature = "serde")]
#[test]
fn report_serializes_to_json() {
    let mut files = MemoryFileSet::new().with("a.txt", "  x\n");
    let report = run(&mut files, &plan(vec![modify("a.txt", vec![hunk(&["-x", "+y"])])])).unwrap();
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["files"][0]["edits"][0]["tier"], "indentation");
    assert_eq!(json["files"][0]["edits"][0]["status"], "applied");
    assert_eq!(json["files"][0]["edits"][0]["lines"]["start"], 1);
    assert_eq!(json["committed"], true);
    let text = report.to_string();
    assert!(text.contains("indentation match"), "{text}");
}

#[test]
fn fuzzy_search_on_a_big_file_finds_the_unique_place() {
    let mut text = String::new();
    for i in 0..100_000 {
        writeln!(text, "    let value_{i} = compute({i}, {});", i % 97).unwrap();
    }
    let mut files = MemoryFileSet::new().with("big.rs", text.clone());
    let p = plan(vec![modify(
        "big.rs",
        vec![hunk(&[
            "     let value_77777 = compute(77777, 80);",
            "-    let value_77778 = compute(77778, 81);",
            "+    let changed = 1;",
            "     let valeu_77779 = compute(77779, 82);",
        ])],
    )]);
    let report = run(&mut files, &p).unwrap();
    assert_eq!(report.files[0].edits[0].tier, Some(Tier::Fuzzy));
    let after = files.get_str("big.rs").unwrap();
    let at = after.find("let changed").expect("applied");
    assert_eq!(
        &after[at - 46..at + 59],
        "    let value_77777 = compute(77777, 80);\n    let changed = 1;\n    let value_77779 = compute(77779, 82);\n"
    );
}

#[test]
fn occurrence_all_replaces_every_place() {
    let mut files = MemoryFileSet::new().with("a.txt", "old line\nkeep\nold line\n");
    let mut edit = hunk(&["-old line", "+new line"]);
    edit.policy.occurrence = Occurrence::All;
    edit.scope.after_previous = false;
    run(&mut files, &plan(vec![modify("a.txt", vec![edit])])).unwrap();
    assert_eq!(files.get_str("a.txt"), Some("new line\nkeep\nnew line\n"));
}

#[cfg(feature = "serde")]
#[test]
fn edit_plan_round_trips_through_json() {
    let mut edit = hunk(&[" ctx", "-old", "+new"]);
    edit.scope.anchor = Some(Anchor::new(vec!["fn f() {".into()], true));
    edit.scope.line_hint = Some(12);
    let p = plan(vec![
        modify("src/a.rs", vec![edit]),
        FileEdit::new(
            "b.bin",
            FileOp::Create {
                content: Content::Bytes(vec![0, 159, 146, 150]),
                newline: None,
                if_exists: IfExists::Overwrite,
                mode: Some(0o755),
            },
        )
        .with_span(polypatch_core::Span::new(3, 9)),
    ]);
    let json = serde_json::to_string(&p).unwrap();
    let back: EditPlan = serde_json::from_str(&json).unwrap();
    assert_eq!(back, p);
}

#[test]
fn an_elision_that_would_delete_code_is_refused() {
    let file = "fn f() {\n    setup();\n    work();\n    done();\n}\n";
    let mut files = MemoryFileSet::new().with("f.rs", file);
    // The model wrote `// ... existing code ...` for setup() and work() and a new line
    // after it: which removed lines it stands for is unclear, so the edit is refused.
    let p = plan(vec![modify(
        "f.rs",
        vec![hunk(&[
            " fn f() {",
            "-    setup();",
            "-    work();",
            "+    // ... existing code ...",
            "+    more();",
            " done();",
        ])],
    )]);
    let err = run(&mut files, &p).unwrap_err();
    let failure = err.report.files[0].edits[0].failure.as_ref().unwrap();
    assert_eq!(failure.kind, FailureKind::Elision);
    assert!(failure.message.contains("`// ... existing code ...`"), "{}", failure.message);
    assert_eq!(files.get_str("f.rs"), Some(file));

    // At the start of the hunk nothing encloses it: unclear too.
    let p = plan(vec![modify(
        "f.rs",
        vec![hunk(&["-fn f() {", "-    setup();", "+// ... existing code ...", " work();"])],
    )]);
    assert_eq!(
        run(&mut files, &p).unwrap_err().report.files[0].edits[0].failure.as_ref().unwrap().kind,
        FailureKind::Elision
    );

    // The same line where nothing is removed is just a comment being added.
    let p = plan(vec![modify("f.rs", vec![hunk(&[" fn f() {", "+    // ... existing code ...", "     setup();"])])]);
    run(&mut files, &p).unwrap();
    assert_eq!(
        files.get_str("f.rs"),
        Some("fn f() {\n    // ... existing code ...\n    setup();\n    work();\n    done();\n}\n")
    );
    // An elision the file already has is kept, not added: a removal around it is fine.
    let p = plan(vec![modify("f.rs", vec![hunk(&[" // ... existing code ...", "-    setup();"])])]);
    run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("f.rs"), Some("fn f() {\n    // ... existing code ...\n    work();\n    done();\n}\n"));
}

#[test]
fn an_elision_alone_between_kept_lines_keeps_what_it_stands_for() {
    let file = "fn f() {\n    setup();\n    work();\n    done();\n}\nfn g() {}\n";
    let mut files = MemoryFileSet::new().with("f.rs", file);
    // Hunk 1 stands `// ... existing code ...` in for setup() and work(); hunk 2 changes g.
    let p = plan(vec![modify(
        "f.rs",
        vec![
            hunk(&[" fn f() {", "-    setup();", "-    work();", "+    // ... existing code ...", "     done();"]),
            hunk(&[" }", "-fn g() {}", "+fn g() { finish(); }"]),
        ],
    )]);
    let report = run(&mut files, &p).unwrap();
    assert_eq!(
        files.get_str("f.rs"),
        Some("fn f() {\n    setup();\n    work();\n    done();\n}\nfn g() { finish(); }\n")
    );
    let first = &report.files[0].edits[0];
    assert_eq!(first.status, Status::AlreadyApplied, "expanded, the hunk changes nothing");
    assert_eq!(first.notes, ["`// ... existing code ...` stands for the 2 line(s) it replaced: kept"]);
    assert!(report.to_string().contains("note: `// ... existing code ...` stands for"), "{report}");
}

#[test]
fn a_python_stub_body_is_not_an_elision() {
    let file = "class A:\n    def f(self):\n        raise NotImplementedError\n";
    let mut files = MemoryFileSet::new().with("a.py", file);
    let p = plan(vec![modify("a.py", vec![hunk(&[" def f(self):", "-    raise NotImplementedError", "+    ..."])])]);
    run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("a.py"), Some("class A:\n    def f(self):\n        ...\n"));
}

#[test]
fn a_whole_file_write_with_an_elision_is_refused() {
    let file = "def a():\n    return 1\n\ndef b():\n    return 2\n";
    for op in [
        FileOp::Create {
            content: Content::Text("# ... existing code ...\n\ndef b():\n    return 3\n".into()),
            newline: None,
            if_exists: IfExists::Overwrite,
            mode: None,
        },
        FileOp::Replace {
            content: Content::Text("# ... existing code ...\n\ndef b():\n    return 3\n".into()),
            create_if_missing: false,
            follow_file: false,
        },
    ] {
        let mut files = MemoryFileSet::new().with("m.py", file);
        let p = plan(vec![FileEdit::new("m.py", op)]);
        let err = run(&mut files, &p).unwrap_err();
        let failure = err.report.files[0].failure.as_ref().unwrap();
        assert_eq!(failure.kind, FailureKind::Elision, "{failure}");
        assert!(failure.message.starts_with("line 1 of the new content, `# ... existing code ...`"), "{failure}");
        assert_eq!(files.get_str("m.py"), Some(file));
    }
    // A new file may hold anything, and so may a write over a file that has the line.
    let mut files = MemoryFileSet::new();
    let create = FileOp::Create {
        content: Content::Text("# ...\n".into()),
        newline: None,
        if_exists: IfExists::Overwrite,
        mode: None,
    };
    run(&mut files, &plan(vec![FileEdit::new("new.py", create)])).unwrap();
    assert_eq!(files.get_str("new.py"), Some("# ...\n"));
}

/// A file set whose every read fails with one kind of I/O error.
struct Unreadable(std::io::ErrorKind);

impl polypatch_core::FileSource for Unreadable {
    fn resolve(&self, path: &str) -> Result<polypatch_core::RelPath, polypatch_core::PathError> {
        polypatch_core::RelPath::parse(path, None)
    }

    fn read(&self, _: &polypatch_core::RelPath) -> std::io::Result<polypatch_core::Entry> {
        Err(std::io::Error::from(self.0))
    }
}

#[test]
fn a_file_that_cannot_be_read_says_why_and_not_always_permissions() {
    use std::io::ErrorKind as K;
    let p = plan(vec![modify("src/a.txt", vec![hunk(&["-one", "+ONE"])])]);
    let cases = [
        (K::PermissionDenied, "permission denied", "readable"),
        (K::InvalidFilename, "too long", "shorter name"),
        (K::IsADirectory, "it is a directory", "regular file"),
        (K::NotADirectory, "is a file, not a folder", "folders"),
    ];
    for (kind, why, todo) in cases {
        let Err(err) = compute(&p, &Unreadable(kind), &ApplyOptions::default()) else { panic!("a failure") };
        let failure = err.report.files[0].failure.as_ref().expect("the file's failure");
        assert_eq!(failure.kind, FailureKind::Io);
        assert!(failure.message.starts_with("cannot read `src/a.txt`: "), "{kind:?}: {}", failure.message);
        assert!(failure.message.contains(why), "{kind:?}: {}", failure.message);
        assert!(failure.next_step.contains(todo), "{kind:?}: {}", failure.next_step);
        if kind != K::PermissionDenied {
            assert!(!failure.next_step.contains("permission"), "{kind:?}: {}", failure.next_step);
        }
    }
}

#[test]
fn a_name_over_255_bytes_is_reported_as_too_long() {
    let dir = tempfile::tempdir().unwrap();
    let name = format!("{}.txt", "x".repeat(300));
    let p = plan(vec![modify(&name, vec![hunk(&["-one", "+ONE"])])]);
    let mut files = polypatch_core::DiskFileSet::new(dir.path()).unwrap();
    let Err(err) = apply(&p, &mut files, &ApplyOptions::default()) else { panic!("a failure") };
    let failure = err.report.files[0].failure.as_ref().expect("the file's failure");
    // Refused from the path alone, before anything is read.
    assert_eq!(failure.kind, FailureKind::InvalidPlan);
    assert!(failure.message.contains("is too long: a name is over 255 bytes"), "{}", failure.message);
    assert!(failure.next_step.contains("shorter name"), "{}", failure.next_step);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing written");
}

/// A diff-style modify (git's line breaks) of `path` with one hunk whose lines are read
/// from bytes without loss.
fn diff_modify(path: &str, lines: &[&[u8]]) -> FileEdit {
    let texts: Vec<String> = lines.iter().map(|l| polypatch_core::decode_lossless(l).into_owned()).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut edit = hunk(&refs);
    edit.policy = Policy::default();
    let m = {
        let mut x = Modify::new(vec![edit]);
        x.line_breaks = polypatch_core::LineBreaks::LfOrCrLf;
        x
    };
    FileEdit::new(path, FileOp::Modify(m))
}

#[test]
fn a_latin1_hunk_never_matches_utf8_text_by_likeness() {
    // The file is UTF-8 (é is C3 A9); the diff is Latin-1 (é is E9). The texts look alike,
    // the bytes differ: git refuses, and so does polypatch, saying why, with nothing written.
    let mut files = MemoryFileSet::new().with("u.txt", "caf\u{e9}\nsecond line\n");
    let p = plan(vec![diff_modify("u.txt", &[b" caf\xe9", b"-second line", b"+SECOND LINE"])]);
    let err = run(&mut files, &p).unwrap_err();
    let failure = err.report.files[0].edits[0].failure.as_ref().expect("a failure");
    assert_eq!(failure.kind, FailureKind::NotFound);
    assert!(
        failure.message.contains("the patch is not UTF-8 text, so only exact byte matching"),
        "{}",
        failure.message
    );
    assert_eq!(files.get("u.txt"), Some("caf\u{e9}\nsecond line\n".as_bytes()));
}

#[test]
fn a_latin1_file_gets_exactly_the_diffs_bytes_and_keeps_its_bom_bytes() {
    let mut files = MemoryFileSet::new().with("l.txt", &b"\xef\xbb\xbfcaf\xe9\r\nb\xe0\n"[..]);
    let p = plan(vec![diff_modify("l.txt", &[b" \xef\xbb\xbfcaf\xe9", b"-b\xe0", b"+B\xc0"])]);
    let report = run(&mut files, &p).unwrap();
    assert_eq!(report.files[0].edits[0].tier, Some(Tier::Exact));
    assert_eq!(files.get("l.txt"), Some(&b"\xef\xbb\xbfcaf\xe9\r\nB\xc0\n"[..]));
}

#[test]
fn other_dialects_refuse_a_file_that_is_not_utf8() {
    let mut files = MemoryFileSet::new().with("l.txt", &b"caf\xe9\nx\n"[..]);
    let p = plan(vec![modify("l.txt", vec![hunk(&["-x", "+y"])])]);
    let err = run(&mut files, &p).unwrap_err();
    let failure = err.report.files[0].failure.as_ref().expect("a failure");
    assert_eq!(failure.kind, FailureKind::NotText);
    assert!(failure.message.contains("it is not UTF-8 text (Latin-1 or another encoding)"), "{}", failure.message);
    assert_eq!(files.get("l.txt"), Some(&b"caf\xe9\nx\n"[..]));
}

#[test]
fn a_replace_that_follows_the_file_keeps_its_line_ends_and_missing_final_newline() {
    let cases = [
        ("a\r\nb\r\n", "x\ny\n", "x\r\ny\r\n"),
        ("a\r\nb", "x\ny\n", "x\r\ny"),
        ("a\nb", "x\ny\n", "x\ny"),
        ("a\nb\n", "x\ny\n", "x\ny\n"),
        ("", "x\n", "x\n"),
    ];
    for (before, content, after) in cases {
        let mut files = MemoryFileSet::new().with("f", before);
        let op =
            FileOp::Replace { content: Content::Text(content.into()), create_if_missing: false, follow_file: true };
        let p = plan(vec![FileEdit::new("f", op)]);
        let report = run(&mut files, &p).unwrap();
        assert_eq!(files.get_str("f"), Some(after), "{before:?}");
        assert_eq!(report.files[0].status, Status::Applied, "{before:?}");
        // The same content again is already applied, in the file's conventions.
        let report = run(&mut files, &p).unwrap();
        assert_eq!(report.files[0].status, Status::AlreadyApplied, "{before:?}");
    }
}

#[test]
fn lines_edited_in_the_middle_of_a_file_leave_every_other_byte_as_it_was() {
    // A byte order mark, CRLF, LF, a lone CR and no final newline, in one file.
    let before = "\u{feff}head\r\nalpha\nbeta\rgamma\r\nmiddle\nlast";
    let mut files = MemoryFileSet::new().with("a.txt", before);
    let p = plan(vec![modify(
        "a.txt",
        vec![hunk(&[" alpha", "-beta", "+BETA", " gamma"]), hunk(&[" middle", "-last", "+LAST", "+added"])],
    )]);
    run(&mut files, &p).unwrap();
    // A replaced line ends as the one it replaces; the old last line, no longer last, ends
    // like the line before it (LF: the region it ends; it took the file's most common
    // ending before, CRLF on the tie with LF); the new last line has
    // none, as the old one had none.
    assert_eq!(files.get_str("a.txt"), Some("\u{feff}head\r\nalpha\nBETA\rgamma\r\nmiddle\nLAST\nadded"));
}

#[test]
fn a_file_changed_and_changed_back_in_one_plan_is_not_written() {
    let files = MemoryFileSet::new().with("a.txt", "one\ntwo\nthree\n");
    let p = plan(vec![
        modify("a.txt", vec![hunk(&[" one", "-two", "+TWO", " three"])]),
        modify("a.txt", vec![hunk(&[" one", "-TWO", "+two", " three"])]),
    ]);
    let computed = compute(&p, &files, &ApplyOptions::default()).unwrap();
    assert!(computed.changes.is_empty());
    assert_eq!(computed.report.files.len(), 2);
}

/// A plan over thousands of files, each touched up to three times (edited, edited again,
/// deleted or moved) among creations: every file's result is exact and the changes come
/// one per path, in the order the paths were first touched. The paths' places are kept in
/// a map; a lookup that confused two paths, or lost the first-touch order, fails here.
#[test]
fn a_plan_over_thousands_of_files_gives_one_exact_change_per_path_in_first_touch_order() {
    const N: usize = 3000;
    let mut files = MemoryFileSet::new();
    for i in 0..N {
        files.insert(format!("d{}/f{i}.txt", i % 7), format!("head\nline {i}\ntail\n"));
    }
    let path = |i: usize| format!("d{}/f{i}.txt", i % 7);
    let edit = |from: String, to: String| hunk(&[" head", &format!("-{from}"), &format!("+{to}"), " tail"]);
    let moved = |i: usize| i % 5 == 1 && !i.is_multiple_of(3);
    let mut ops = Vec::new();
    for i in 0..N {
        ops.push(modify(&path(i), vec![edit(format!("line {i}"), format!("LINE {i}"))]));
    }
    for i in (0..N).rev().filter(|i| i.is_multiple_of(3)) {
        ops.push(modify(&path(i), vec![edit(format!("LINE {i}"), format!("LINE {i} again"))]));
    }
    for i in 0..N {
        if i.is_multiple_of(5) {
            ops.push(FileEdit::new(path(i), FileOp::Delete { if_missing: IfMissing::Error, expect: None }));
        }
        if moved(i) {
            let mut m = Modify::new(vec![edit(format!("LINE {i}"), format!("moved {i}"))]);
            m.move_to = Some(format!("moved/f{i}.txt"));
            ops.push(FileEdit::new(path(i), FileOp::Modify(m)));
        }
        if i.is_multiple_of(2) {
            ops.push(FileEdit::create(format!("new/n{i}.txt"), format!("new {i}\n")));
        }
    }
    let p = plan(ops);

    let computed = compute(&p, &files, &ApplyOptions::default()).unwrap();
    let mut want: Vec<(String, Option<String>)> = Vec::new();
    for i in 0..N {
        let content = match i {
            _ if i.is_multiple_of(5) || moved(i) => None,
            _ if i.is_multiple_of(3) => Some(format!("head\nLINE {i} again\ntail\n")),
            _ => Some(format!("head\nLINE {i}\ntail\n")),
        };
        want.push((path(i), content));
    }
    for i in 0..N {
        if moved(i) {
            want.push((format!("moved/f{i}.txt"), Some(format!("head\nmoved {i}\ntail\n"))));
        }
        if i.is_multiple_of(2) {
            want.push((format!("new/n{i}.txt"), Some(format!("new {i}\n"))));
        }
    }
    let got: Vec<(String, Option<String>)> = computed
        .changes
        .iter()
        .map(|c| {
            let bytes = c.kind.written().map(|(bytes, _)| String::from_utf8(bytes.to_vec()).unwrap());
            (c.path.to_string(), bytes)
        })
        .collect();
    assert_eq!(got.len(), want.len());
    assert_eq!(got, want);
    assert_eq!(computed.report.files.len(), p.files.len());

    run(&mut files, &p).unwrap();
    let mut kept: Vec<(String, Option<String>)> = want.into_iter().filter(|(_, c)| c.is_some()).collect();
    kept.sort();
    let after: Vec<(String, Option<String>)> =
        files.paths().map(|p| (p.to_owned(), files.get_str(p).map(str::to_owned))).collect();
    assert_eq!(after, kept);
}

/// Issue 26, point 6: a report says `applied` only for what was written. A dry run, and
/// the edits of a failed plan that were located, say `located`, in the types and in the
/// text report.
#[test]
fn only_what_was_written_is_applied() {
    let mut files = MemoryFileSet::new().with("a.txt", "one\n").with("b.txt", "two\n");
    let p = plan(vec![modify("a.txt", vec![hunk(&["-one", "+ONE"])])]);
    let dry = apply(&p, &mut files, &ApplyOptions::default().dry_run(true)).unwrap();
    assert_eq!((dry.files[0].status, dry.files[0].edits[0].status), (Status::Located, Status::Located));
    assert_eq!(dry.to_string(), "located: modify a.txt\n  edit 1: located at line 1\n");
    assert!(dry.is_success() && !dry.committed);
    assert_eq!(files.get_str("a.txt"), Some("one\n"));
    let computed = compute(&p, &files, &ApplyOptions::default()).unwrap();
    assert_eq!(computed.report.files[0].status, Status::Located);

    let failing =
        plan(vec![modify("a.txt", vec![hunk(&["-one", "+ONE"])]), modify("b.txt", vec![hunk(&["-three", "+THREE"])])]);
    let err = run(&mut files, &failing).unwrap_err();
    assert_eq!((err.report.files[0].status, err.report.files[0].edits[0].status), (Status::Located, Status::Located));
    assert!(
        err.report
            .to_string()
            .starts_with("located: modify a.txt\n  edit 1: located at line 1\nFAILED: modify b.txt\n")
    );
    assert_eq!(files.get_str("a.txt"), Some("one\n"));

    let report = run(&mut files, &p).unwrap();
    assert_eq!((report.files[0].status, report.files[0].edits[0].status), (Status::Applied, Status::Applied));
    assert_eq!(report.to_string(), "applied: modify a.txt\n  edit 1: applied at line 1\n");
    assert_eq!(files.get_str("a.txt"), Some("ONE\n"));
}

/// Issue 26, point 7: hunks of one file out of order. Each found exactly, uniquely and
/// apart from the others' places applies (and re-runs as already applied); otherwise the
/// refusal says that the order is the problem, not that the lines must be copied.
#[test]
fn hunks_out_of_order_apply_when_exact_unique_and_apart() {
    let text = "a\nb\nc\nd\ne\nf\n";
    let mut files = MemoryFileSet::new().with("t.txt", text);
    let p = plan(vec![modify("t.txt", vec![hunk(&[" d", "-e", "+E"]), hunk(&[" a", "-b", "+B"])])]);
    let report = run(&mut files, &p).unwrap();
    assert_eq!(files.get_str("t.txt"), Some("a\nB\nc\nd\nE\nf\n"));
    let edit = &report.files[0].edits[1];
    assert_eq!((edit.status, edit.lines.map(|l| (l.start, l.end))), (Status::Applied, Some((1, 2))));
    assert!(edit.notes[0].starts_with("the hunks are not in file order"), "{:?}", edit.notes);
    let again = run(&mut files, &p).unwrap();
    assert!(again.is_already_applied(), "{again}");
    assert_eq!(files.get_str("t.txt"), Some("a\nB\nc\nd\nE\nf\n"));

    // Overlapping the place hunk 1 took: refused, naming the order.
    let mut files = MemoryFileSet::new().with("t.txt", text);
    let p = plan(vec![modify("t.txt", vec![hunk(&[" d", "-e", "+E"]), hunk(&[" c", "-d", "+D"])])]);
    let err = run(&mut files, &p).unwrap_err();
    let failure = err.report.files[0].edits[1].failure.as_ref().unwrap();
    assert_eq!(failure.kind, FailureKind::NotFound);
    assert_eq!(
        failure.message,
        "the lines to find are not after line 5, where the hunk before this one ends, but they stand before it, at \
         lines 3-4, overlapping the place an earlier hunk took (lines 4-5)"
    );
    assert_eq!(
        failure.next_step,
        "put the file's hunks in the order of their places in the file, each hunk's lines apart from the others' \
         (merge overlapping hunks into one); the lines themselves need no change"
    );
    assert_eq!(files.get_str("t.txt"), Some(text));

    // Exactly at two places before it: ambiguous, naming both and the order.
    let mut files = MemoryFileSet::new().with("t.txt", "a\nb\na\nb\nc\nd\n");
    let p = plan(vec![modify("t.txt", vec![hunk(&[" c", "-d", "+D"]), hunk(&[" a", "-b", "+B"])])]);
    let err = run(&mut files, &p).unwrap_err();
    let failure = err.report.files[0].edits[1].failure.as_ref().unwrap();
    assert_eq!(failure.kind, FailureKind::Ambiguous);
    assert!(failure.message.starts_with("the lines to find are not after line 6"), "{failure}");
    assert_eq!(failure.candidates.len(), 2);
    assert!(failure.next_step.starts_with("put the file's hunks in the order"), "{failure}");
}

/// A file set whose commit fails as `fail` says: undone (`None` kept paths) or not.
struct FailingStore {
    files: MemoryFileSet,
    kept: Option<Vec<String>>,
}

impl polypatch_core::FileSource for FailingStore {
    fn resolve(&self, path: &str) -> Result<polypatch_core::RelPath, polypatch_core::PathError> {
        self.files.resolve(path)
    }

    fn read(&self, path: &polypatch_core::RelPath) -> std::io::Result<polypatch_core::Entry> {
        self.files.read(path)
    }
}

impl polypatch_core::FileStore for FailingStore {
    fn commit(&mut self, _changes: &[polypatch_core::Change]) -> Result<(), polypatch_core::CommitError> {
        let cause = std::io::Error::new(std::io::ErrorKind::StorageFull, "disk full");
        match &self.kept {
            // An io::Error passed up with `?` counts as undone.
            None => Err(cause)?,
            Some(kept) => Err(polypatch_core::CommitError::new(cause, false, kept.clone())),
        }
    }
}

#[test]
fn a_failed_commit_says_whether_it_was_undone_and_keeps_the_io_error_as_its_source() {
    use std::error::Error as _;
    let plan = EditPlan::new("", vec![modify("a.txt", vec![Edit::replace(["one"], ["1"])])]);
    let failing = |kept| FailingStore { files: MemoryFileSet::new().with("a.txt", "one\n"), kept };

    let err = apply(&plan, &mut failing(None), &ApplyOptions::default()).unwrap_err();
    assert!(err.rolled_back);
    let message = "disk full; every step was undone, no file was changed";
    assert_eq!(err.commit_error.as_ref().map(ToString::to_string).as_deref(), Some(message));
    // The apply error's source is the store's error, and its source the io::Error: a caller
    // tells a full disk from a refusal by its kind.
    let commit = err.source().and_then(|s| s.downcast_ref::<polypatch_core::CommitError>()).expect("no commit source");
    assert_eq!(commit.to_string(), message);
    let io = commit.source().and_then(|s| s.downcast_ref::<std::io::Error>()).expect("no io::Error source");
    assert_eq!(io.kind(), std::io::ErrorKind::StorageFull);

    let err =
        apply(&plan, &mut failing(Some(vec![".polypatch-1.journal".into()])), &ApplyOptions::default()).unwrap_err();
    assert!(!err.rolled_back);
    assert_eq!(
        err.commit_error.as_ref().map(ToString::to_string).as_deref(),
        Some(
            "disk full; UNDOING IT FAILED, some files may hold their new content: the originals are kept at \
             `.polypatch-1.journal`; restore them with `DiskFileSet::recover` (`polypatch recover` on the command line)"
        )
    );
    assert_eq!(err.report.files[0].edits[0].status, Status::Located);

    // The io::Error is the commit error's source, for callers that walk the chain.
    let mut store = failing(Some(Vec::new()));
    let err = polypatch_core::FileStore::commit(&mut store, &[]).unwrap_err();
    let source = err.source().and_then(|s| s.downcast_ref::<std::io::Error>()).expect("an io::Error source");
    assert!(std::ptr::eq(source, &raw const err.cause));
    assert_eq!(source.kind(), std::io::ErrorKind::StorageFull);
}

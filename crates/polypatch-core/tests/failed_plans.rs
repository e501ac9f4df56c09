//! A plan that cannot apply (issue 25, point 9): its first failure is diagnosed in full; the
//! edits after it are located with the tiers that compare lines only, those that would need
//! the similarity search say it was skipped and why, and the report stays short however
//! many edits fail.

use polypatch_core::{
    Action, ApplyError, ApplyOptions, ApplyReport, Edit, EditPlan, EditReport, FailureKind, FileEdit, FileOp,
    MAX_DETAILED_FAILURES, MAX_LISTED_FAILURES, MemoryFileSet, Modify, Occurrence, Policy, Replacement, Scope, Status,
    Target, Tier, apply,
};

/// 60 distinct statements.
fn source() -> String {
    (0..60).map(|i| line(i) + "\n").collect()
}

fn line(i: usize) -> String {
    format!("    let value_{i} = compute_{i}(input, {});", i * 7)
}

/// `text` with its middle character replaced: a typo.
fn typo(text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let mid = chars.len() / 2;
    chars[mid] = if chars[mid] == 'Q' { 'W' } else { 'Q' };
    chars.into_iter().collect()
}

/// An edit that appends ` // checked` to line `i`, with a line of context on each side;
/// with `typo_in_context`, the context line before carries a typo (the fuzzy tier finds it).
fn edit(i: usize, typo_in_context: bool, label: &str) -> Edit {
    let before = if typo_in_context { typo(&line(i - 1)) } else { line(i - 1) };
    let old = [before.clone(), line(i), line(i + 1)];
    let new = [before, format!("{} // checked", line(i)), line(i + 1)];
    Edit::new(
        Target::Lines(old.iter().map(|l| l.as_str().into()).collect()),
        Action::Replace(Replacement::lines(new.iter().map(|l| l.as_str().into()).collect()).with_kept(vec![
            Some(0),
            None,
            Some(2),
        ])),
    )
    .with_scope(Scope::default().with_after_previous(true))
    .with_policy(Policy::default().with_occurrence(Occurrence::First))
    .with_label(label)
}

/// An edit whose lines are not in the file, not even with a typo: lines 50-52 rewritten.
fn absent(label: &str) -> Edit {
    let old: Vec<String> =
        (50..53).map(|i| line(i).replace("compute_", "evaluate_").replace("input", "source")).collect();
    Edit::new(
        Target::Lines(old.iter().map(|l| l.as_str().into()).collect()),
        Action::Replace(Replacement::lines(vec!["    todo!();".into()])),
    )
    .with_label(label)
}

fn modify(path: &str, edits: Vec<Edit>) -> FileEdit {
    FileEdit::new(path, FileOp::Modify(Modify::new(edits)))
}

fn files() -> MemoryFileSet {
    MemoryFileSet::new().with("a.rs", source()).with("b.rs", source())
}

fn failed(plan: &EditPlan, options: &ApplyOptions) -> ApplyReport {
    let mut set = files();
    let err: ApplyError = apply(plan, &mut set, options).unwrap_err();
    assert_eq!(set, files(), "nothing written");
    err.report
}

fn edit_report(report: &ApplyReport, file: usize, edit: usize) -> &EditReport {
    &report.files[file].edits[edit]
}

#[test]
fn after_the_first_failure_edits_are_located_without_the_similarity_search() {
    let plan = EditPlan::new(
        "test",
        vec![
            modify(
                "a.rs",
                vec![edit(5, true, "hunk 1"), absent("hunk 2"), edit(20, false, "hunk 3"), edit(30, true, "hunk 4")],
            ),
            modify("b.rs", vec![edit(40, true, "hunk 1")]),
        ],
    );
    let report = failed(&plan, &ApplyOptions::default());
    // Before the failure: the fuzzy tier as always; located, not written.
    let first = edit_report(&report, 0, 0);
    assert_eq!((first.status, first.tier), (Status::Located, Some(Tier::Fuzzy)));
    // The first failure, in full: not found, with the closest place.
    let miss = edit_report(&report, 0, 1).failure.as_ref().unwrap();
    assert_eq!(miss.kind, FailureKind::NotFound);
    assert!(miss.closest.is_some(), "{miss:?}");
    // After it: an exact edit is still located and reported.
    let exact = edit_report(&report, 0, 2);
    assert_eq!((exact.status, exact.tier, exact.failure.as_ref()), (Status::Located, Some(Tier::Exact), None));
    // One that needs the fuzzy tier fails, saying why and what to do; in the next file too.
    for (file, edit, first_line) in [(0, 3, typo(&line(29))), (1, 0, typo(&line(39)))] {
        let skipped = edit_report(&report, file, edit);
        assert_eq!(skipped.status, Status::Failed);
        let failure = skipped.failure.as_ref().unwrap();
        assert_eq!(failure.kind, FailureKind::SearchSkipped);
        assert_eq!(
            failure.message,
            format!(
                "the lines to find are not in the file as written, nor with other whitespace or look-alike \
                 characters (first line: `{}`); the search for similar lines was skipped: `a.rs`, hunk 2 failed \
                 already, so the patch cannot apply",
                first_line.trim()
            )
        );
        assert!(failure.next_step.starts_with("fix `a.rs`, hunk 2 first and send the patch again"), "{failure:?}");
        assert_eq!((failure.closest.as_ref(), failure.candidates.len()), (None, 0));
    }
    assert_eq!(report.files.iter().map(|f| f.status).collect::<Vec<_>>(), [Status::Failed, Status::Failed]);
    assert_eq!(
        report.first_failure().map(|first| (first.file.path.as_str(), first.edit.map(|e| e.index))),
        Some(("a.rs", Some(2)))
    );

    // Without the failing edit, the same edits are correct and apply (the fuzzy ones too).
    let plan = EditPlan::new(
        "test",
        vec![
            modify("a.rs", vec![edit(5, true, "hunk 1"), edit(20, false, "hunk 3"), edit(30, true, "hunk 4")]),
            modify("b.rs", vec![edit(40, true, "hunk 1")]),
        ],
    );
    let mut set = files();
    let report = apply(&plan, &mut set, &ApplyOptions::default()).unwrap();
    assert_eq!(report.files[0].edits[2].tier, Some(Tier::Fuzzy));
    assert_eq!(report.files[1].edits[0].tier, Some(Tier::Fuzzy));
    assert!(set.get_str("b.rs").unwrap().contains(&format!("{} // checked\n", line(40))));
}

#[test]
fn a_file_that_fails_stops_the_similarity_searches_of_the_files_after_it() {
    let plan = EditPlan::new(
        "test",
        vec![modify("gone.rs", vec![edit(5, false, "hunk 1")]), modify("a.rs", vec![edit(30, true, "hunk 1")])],
    );
    let report = failed(&plan, &ApplyOptions::default());
    assert_eq!(report.files[0].failure.as_ref().map(|f| f.kind), Some(FailureKind::FileMissing));
    let failure = edit_report(&report, 1, 0).failure.as_ref().unwrap();
    assert_eq!(failure.kind, FailureKind::SearchSkipped);
    assert!(failure.message.ends_with("skipped: `gone.rs` failed already, so the patch cannot apply"), "{failure:?}");
}

#[test]
fn without_the_fuzzy_tier_later_misses_are_not_found_without_a_closest_place() {
    let plan = EditPlan::new("test", vec![modify("a.rs", vec![absent("hunk 1"), absent("hunk 2")])]);
    let report = failed(&plan, &ApplyOptions::default().strict(true));
    let (first, second) = (edit_report(&report, 0, 0), edit_report(&report, 0, 1));
    let (first, second) = (first.failure.as_ref().unwrap(), second.failure.as_ref().unwrap());
    assert_eq!((first.kind, first.closest.is_some()), (FailureKind::NotFound, true));
    // Not a skipped search: the strict tiers were all this edit had. Only the feedback is.
    assert_eq!((second.kind, second.closest.is_some()), (FailureKind::NotFound, false));
    assert!(second.next_step.ends_with(" (the closest place was not looked for: `a.rs`, hunk 1 failed already)"));
}

#[test]
fn the_failures_after_the_first_ten_are_shortened() {
    let edits: Vec<Edit> = (0..25).map(|k| edit(2 + 2 * k, true, &format!("hunk {}", k + 2))).collect();
    let plan = EditPlan::new("test", vec![modify("a.rs", std::iter::once(absent("hunk 1")).chain(edits).collect())]);
    let report = failed(&plan, &ApplyOptions::default());
    let failures: Vec<_> = report.files[0].edits.iter().map(|e| e.failure.as_ref().unwrap()).collect();
    assert_eq!(failures.len(), 26);
    assert_eq!(report.shortened, 26 - MAX_DETAILED_FAILURES);
    for (k, failure) in failures.iter().enumerate() {
        let detailed = k < MAX_DETAILED_FAILURES;
        assert_eq!(!failure.next_step.is_empty(), detailed, "{k}: {failure:?}");
        if !detailed {
            assert_eq!(failure.kind, FailureKind::SearchSkipped);
            assert_eq!(failure.message, "not in the file as written; not searched for similar lines");
        }
    }
    let text = report.to_string();
    assert!(
        text.ends_with("(16 more failures are shown without their details; only the first 10 are: fix those first)\n"),
        "{text}"
    );
    // A line or two per edit: the size of the report grows with the edits, not with
    // what each one's search found.
    assert!(text.len() < 26 * 400, "{} bytes:\n{text}", text.len());
}

#[test]
fn the_text_report_lists_the_first_hundred_failures_and_counts_the_rest() {
    // 250 failing edits over two files, then one that would apply: the text report lists
    // the first MAX_LISTED_FAILURES failures, keeps every edit that did not fail, and ends
    // with the count of the others; the report itself (the JSON) keeps every edit.
    let absents = |file: &str, n: usize| (0..n).map(|k| absent(&format!("{file} hunk {}", k + 1))).collect::<Vec<_>>();
    let mut b_edits = absents("b", 150);
    b_edits.push(edit(5, false, "b hunk ok"));
    let plan = EditPlan::new("test", vec![modify("a.rs", absents("a", 100)), modify("b.rs", b_edits)]);
    let report = failed(&plan, &ApplyOptions::default());
    assert_eq!(report.files[0].edits.len() + report.files[1].edits.len(), 251, "every edit is in the report");
    let text = report.to_string();
    assert_eq!(MAX_LISTED_FAILURES, 100);
    assert!(text.contains("\n  a hunk 100: FAILED\n"), "{text}");
    // The 100 failures listed are all of a.rs's: b.rs is listed with its one located edit.
    assert!(!text.contains("b hunk 1:"), "{text}");
    assert!(text.contains("FAILED: modify b.rs\n  b hunk ok: "), "{text}");
    assert!(
        text.ends_with(
            "(150 more failures are not listed; only the first 100 are: fix those first, or see the JSON report, \
             which lists every edit)\n"
        ),
        "{text}"
    );
    assert_eq!(text.matches(": FAILED\n").count(), 100, "{text}");
    // However many edits fail, the text stays about this size.
    assert!(text.len() < 30_000, "{} bytes", text.len());
}

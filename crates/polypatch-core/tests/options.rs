//! The caller's options that bound an apply: the most lenient tier (`max_tier`), the
//! similarity threshold, and what an edit found already applied does to the plan.

mod common;

use polypatch_core::{
    Action, AlreadyApplied, ApplyOptions, Edit, EditPlan, FailureKind, FileEdit, FileOp, MemoryFileSet, Modify,
    Occurrence, Policy, Replacement, Scope, Status, Target, Tier, TierSet, apply,
};

/// An edit from diff-style lines: ` ` context, `-` removed, `+` added.
fn hunk(lines: &[&str]) -> Edit {
    let (old, new, kept) = common::sides(lines);
    Edit::new(Target::Lines(old), Action::Replace(Replacement::lines(new).with_kept(kept)))
        .with_scope(Scope::default().with_after_previous(true))
        .with_policy(Policy::default().with_occurrence(Occurrence::First))
}

fn plan(path: &str, edits: Vec<Edit>) -> EditPlan {
    EditPlan::new("test", vec![FileEdit::new(path, FileOp::Modify(Modify::new(edits)))])
}

const FILE: &str = "function total(items) {\n  let sum = 0;\n  return sum;\n}\n";

/// A context line with a typo: found only by similarity.
fn typo_hunk() -> Edit {
    hunk(&[" function totl(items) {", "-  let sum = 0;", "+  let sum = 1;", "   return sum;"])
}

#[test]
fn max_tier_turns_off_the_tiers_past_it() {
    let p = plan("a.js", vec![typo_hunk()]);
    // By default the typo is found by similarity.
    let mut files = MemoryFileSet::new().with("a.js", FILE);
    let report = apply(&p, &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(report.files[0].edits[0].tier, Some(Tier::Fuzzy));
    // Capped below it: refused, nothing written.
    let mut files = MemoryFileSet::new().with("a.js", FILE);
    let err = apply(&p, &mut files, &ApplyOptions::default().max_tier(Tier::Unicode)).unwrap_err();
    let failure = err.report.files[0].edits[0].failure.as_ref().unwrap();
    assert_eq!(failure.kind, FailureKind::NotFound);
    assert_eq!(files.get_str("a.js"), Some(FILE));
    // The tiers up to the cap still apply: a re-indented hunk is found at the
    // indentation tier under a cap of `Unicode`, and refused under one of `Exact`.
    let shifted = plan("a.js", vec![hunk(&["   function total(items) {", "-    let sum = 0;", "+    let sum = 1;"])]);
    let mut files = MemoryFileSet::new().with("a.js", FILE);
    let report = apply(&shifted, &mut files, &ApplyOptions::default().max_tier(Tier::Unicode)).unwrap();
    assert_eq!(report.files[0].edits[0].tier, Some(Tier::Indentation));
    assert_eq!(files.get_str("a.js"), Some("function total(items) {\n  let sum = 1;\n  return sum;\n}\n"));
    let mut files = MemoryFileSet::new().with("a.js", FILE);
    assert!(apply(&shifted, &mut files, &ApplyOptions::default().max_tier(Tier::Exact)).is_err());
}

#[test]
fn max_tier_keeps_an_edits_own_floor() {
    // An edit whose strictest tier is `Trimmed`: a cap below it leaves that one tier,
    // as `strict` does, rather than no tier at all.
    let edit = hunk(&["   let sum = 0;", "-  return sum;", "+  return sum + 1;"])
        .with_policy(Policy::default().with_tiers(TierSet::range(Tier::Trimmed, Tier::Fuzzy)));
    let p = plan("a.js", vec![edit]);
    for options in [ApplyOptions::default().max_tier(Tier::Exact), ApplyOptions::default().strict(true)] {
        let mut files = MemoryFileSet::new().with("a.js", FILE);
        let report = apply(&p, &mut files, &options).unwrap();
        assert_eq!(report.files[0].edits[0].tier, Some(Tier::Trimmed));
        assert_eq!(files.get_str("a.js"), Some("function total(items) {\n  let sum = 0;\n  return sum + 1;\n}\n"));
    }
}

#[test]
fn the_fuzzy_threshold_bounds_similarity() {
    let p = plan("a.js", vec![typo_hunk()]);
    let mut files = MemoryFileSet::new().with("a.js", FILE);
    assert!(apply(&p, &mut files, &ApplyOptions::default().fuzzy_threshold(0.99)).is_err());
    assert_eq!(files.get_str("a.js"), Some(FILE));
    let report = apply(&p, &mut files, &ApplyOptions::default().fuzzy_threshold(0.5)).unwrap();
    assert_eq!(report.files[0].edits[0].tier, Some(Tier::Fuzzy));
}

#[test]
#[should_panic(expected = "a fuzzy threshold is a number from 0 to 1, not 1.5")]
fn a_threshold_past_one_is_a_mistake() {
    let _ = ApplyOptions::default().fuzzy_threshold(1.5);
}

#[test]
#[should_panic(expected = "not NaN")]
fn a_threshold_that_is_not_a_number_is_a_mistake() {
    let _ = ApplyOptions::default().fuzzy_threshold(f64::NAN);
}

#[test]
fn already_applied_edits_fail_the_plan_when_refused() {
    let edit = || hunk(&[" function total(items) {", "-  let sum = 0;", "+  let sum = 1;"]);
    let refuse = ApplyOptions::default().already_applied(AlreadyApplied::Refuse);
    let mut files = MemoryFileSet::new().with("a.js", FILE);
    // The first run applies, refusing or not.
    apply(&plan("a.js", vec![edit()]), &mut files, &refuse).unwrap();
    let applied = "function total(items) {\n  let sum = 1;\n  return sum;\n}\n";
    assert_eq!(files.get_str("a.js"), Some(applied));
    // Again: accepted by default, refused when asked.
    let again = apply(&plan("a.js", vec![edit()]), &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(again.files[0].edits[0].status, Status::AlreadyApplied);
    let err = apply(&plan("a.js", vec![edit()]), &mut files, &refuse).unwrap_err();
    let (file, edit_report) = (&err.report.files[0], &err.report.files[0].edits[0]);
    assert_eq!((file.status, edit_report.status), (Status::Failed, Status::Failed));
    let failure = edit_report.failure.as_ref().unwrap();
    assert_eq!(failure.kind, FailureKind::AlreadyApplied);
    assert_eq!(failure.message, "edit 1 of `a.js` is already applied (at lines 1-2)");
    assert!(failure.next_step.starts_with("the file already holds this change"), "{}", failure.next_step);
    assert_eq!(FailureKind::AlreadyApplied.name(), "already applied");
    // One edit applied already and one not: the plan fails whole, nothing written.
    let more = hunk(&["-  return sum;", "+  return sum * 2;", " }"]);
    let err = apply(&plan("a.js", vec![edit(), more]), &mut files, &refuse).unwrap_err();
    let statuses: Vec<Status> = err.report.files[0].edits.iter().map(|e| e.status).collect();
    assert_eq!(statuses, [Status::Failed, Status::Located]);
    assert_eq!(files.get_str("a.js"), Some(applied));
}

#[test]
fn an_already_applied_file_operation_fails_when_refused() {
    // A file created again with the content it already has.
    let create = EditPlan::new("test", vec![FileEdit::create("new.txt", "hello\n")]);
    let mut files = MemoryFileSet::new().with("new.txt", "hello\n");
    let report = apply(&create, &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(report.files[0].status, Status::AlreadyApplied);
    let err = apply(&create, &mut files, &ApplyOptions::default().already_applied(AlreadyApplied::Refuse)).unwrap_err();
    let file = &err.report.files[0];
    assert_eq!(file.status, Status::Failed);
    let failure = file.failure.as_ref().unwrap();
    assert_eq!(
        (failure.kind, failure.message.as_str()),
        (FailureKind::AlreadyApplied, "the create of `new.txt` is already applied")
    );
}

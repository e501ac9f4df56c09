//! The stale-read guard: a file whose content is no longer the one the patch's writer read
//! (its sha256, given per file) is not edited, unless the caller lets edits that still match
//! it exactly through. With the `stale-read` feature (on by default; without it:
//! `stale_read_feature.rs`).
#![cfg(feature = "stale-read")]

use polypatch_core::{
    ApplyOptions, Edit, EditPlan, FailureKind, FileEdit, MemoryFileSet, ReadHash, StaleRead, Status, apply,
};

const READ: &str = "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n";

fn set(text: &str) -> MemoryFileSet {
    MemoryFileSet::new().with("main.rs", text).with("other.txt", "other\n")
}

fn plan() -> EditPlan {
    EditPlan::new(
        "test",
        vec![FileEdit::modify("main.rs", vec![Edit::replace(["    let x = 1;"], ["    let x = 2;"])])],
    )
}

fn read() -> ReadHash {
    ReadHash::of(READ.as_bytes())
}

/// Applies `plan` to `text` with `options`; the failure's kind and message, and the file
/// after (it must be unchanged on failure).
fn refused(plan: &EditPlan, text: &str, options: &ApplyOptions) -> (FailureKind, String, String) {
    let mut files = set(text);
    let err = apply(plan, &mut files, options).expect_err("refused");
    assert_eq!(files.get_str("main.rs"), Some(text), "nothing written");
    let first = err.report.first_failure().expect("a failure");
    (first.failure.kind, first.failure.message.clone(), first.failure.next_step.clone())
}

#[test]
fn a_file_still_as_read_is_edited() {
    let mut files = set(READ);
    let report = apply(&plan(), &mut files, &ApplyOptions::default().read_hash("main.rs", read())).unwrap();
    assert_eq!(report.files[0].status, Status::Applied);
    assert_eq!(files.get_str("main.rs"), Some("fn main() {\n    let x = 2;\n    println!(\"{x}\");\n}\n"));
    assert!(report.files[0].edits[0].notes.is_empty());
}

#[test]
fn a_file_changed_since_it_was_read_is_refused_even_where_the_edit_still_matches() {
    // Someone added a line after the agent read the file; the edit's lines are untouched.
    let now = format!("{READ}// added later\n");
    let (kind, message, next) = refused(&plan(), &now, &ApplyOptions::default().read_hash("main.rs", read()));
    assert_eq!(kind, FailureKind::ChangedSinceRead);
    let (was, is) = (&read().hex()[..12], &ReadHash::of(now.as_bytes()).hex()[..12]);
    assert_eq!(
        message,
        format!(
            "`main.rs` changed since it was read: it was read as sha256:{was}…, it is now sha256:{is}…; every edit \
             still matches it exactly"
        )
    );
    assert!(next.contains("`--stale-read exact`"), "{next}");
}

#[test]
fn exact_only_applies_what_still_matches_exactly_and_notes_it() {
    let now = format!("{READ}// added later\n");
    let mut files = set(&now);
    let options = ApplyOptions::default().read_hash("main.rs", read()).stale_read(StaleRead::ExactOnly);
    let report = apply(&plan(), &mut files, &options).unwrap();
    assert_eq!(files.get_str("main.rs"), Some(now.replace("let x = 1;", "let x = 2;").as_str()));
    let notes = &report.files[0].edits[0].notes;
    assert_eq!(notes.len(), 1);
    assert!(notes[0].starts_with("`main.rs` changed since it was read (it was read as sha256:"), "{notes:?}");
    assert!(notes[0].ends_with("this edit matched it exactly"), "{notes:?}");
}

#[test]
fn a_changed_line_the_edit_replaces_is_refused_with_where_it_differs() {
    // The line the edit replaces was changed by someone else: under either policy the edit
    // is refused, and the failure shows the closest place.
    let now = READ.replace("let x = 1;", "let x = 10;");
    for policy in [StaleRead::Refuse, StaleRead::ExactOnly] {
        let options = ApplyOptions::default().read_hash("main.rs", read()).stale_read(policy);
        let mut files = set(&now);
        let err = apply(&plan(), &mut files, &options).unwrap_err();
        assert_eq!(files.get_str("main.rs"), Some(now.as_str()));
        let first = err.report.first_failure().unwrap();
        assert_eq!(first.failure.kind, FailureKind::ChangedSinceRead);
        assert!(first.failure.message.contains("; the patch does not match it exactly: "), "{}", first.failure.message);
        let closest = first.failure.closest.as_ref().expect("the closest place");
        assert!(closest.diff.contains("let x = 10;"), "{}", closest.diff);
        assert_eq!(first.failure.next_step, "read the file again and write the edit against its current content");
    }
}

#[test]
fn a_changed_file_gets_no_lenient_match() {
    // Re-indented since it was read: without the guard the indentation tier finds the
    // line; with it, only an exact match may pass, and there is none.
    let now = READ.replace("    ", "\t");
    let mut files = set(&now);
    apply(&plan(), &mut files, &ApplyOptions::default()).expect("lenient without the guard");
    let options = ApplyOptions::default().read_hash("main.rs", read()).stale_read(StaleRead::ExactOnly);
    let (kind, message, _) = refused(&plan(), &now, &options);
    assert_eq!(kind, FailureKind::ChangedSinceRead);
    assert!(message.contains("does not match it exactly"), "{message}");
}

#[test]
fn a_file_deleted_since_it_was_read_says_so() {
    let mut files = MemoryFileSet::new().with("other.txt", "other\n");
    let err = apply(&plan(), &mut files, &ApplyOptions::default().read_hash("main.rs", read())).unwrap_err();
    let first = err.report.first_failure().unwrap();
    assert_eq!(first.failure.kind, FailureKind::ChangedSinceRead);
    assert!(first.failure.message.contains("; it no longer exists"), "{}", first.failure.message);
}

#[test]
fn the_hash_a_plan_carries_is_checked_as_the_callers() {
    let now = format!("{READ}// added later\n");
    let carried = EditPlan::new(
        "test",
        vec![
            FileEdit::modify("main.rs", vec![Edit::replace(["    let x = 1;"], ["    let x = 2;"])])
                .with_read_hash(read()),
        ],
    );
    let (kind, ..) = refused(&carried, &now, &ApplyOptions::default());
    assert_eq!(kind, FailureKind::ChangedSinceRead);
    // Both given: both must hold (the plan's is right, the caller's is not).
    let right = EditPlan::new(
        "test",
        vec![
            FileEdit::modify("main.rs", vec![Edit::replace(["    let x = 1;"], ["    let x = 2;"])])
                .with_read_hash(ReadHash::of(now.as_bytes())),
        ],
    );
    let (kind, ..) = refused(&right, &now, &ApplyOptions::default().read_hash("main.rs", read()));
    assert_eq!(kind, FailureKind::ChangedSinceRead);
    let mut files = set(&now);
    apply(&right, &mut files, &ApplyOptions::default().read_hash("./main.rs", ReadHash::of(now.as_bytes()))).unwrap();
}

#[test]
fn paths_are_compared_resolved_and_hashes_of_untouched_files_are_ignored() {
    let now = format!("{READ}// added later\n");
    let (kind, ..) = refused(&plan(), &now, &ApplyOptions::default().read_hash("./main.rs", read()));
    assert_eq!(kind, FailureKind::ChangedSinceRead);
    let mut files = set(READ);
    let options = ApplyOptions::default()
        .read_hash("other.txt", ReadHash::of(b"not what it holds"))
        .read_hash("../outside", read());
    apply(&plan(), &mut files, &options).expect("hashes of files the plan does not touch are ignored");
}

#[test]
fn a_refused_file_fails_the_whole_plan_and_leaves_no_trace_in_it() {
    // The stale file is moved away; a later operation creates the file it would have been
    // moved to. The trial of the refused move must not make the create see a file there.
    let now = format!("{READ}// added later\n");
    let mut moved = FileEdit::modify("main.rs", vec![Edit::replace(["    let x = 1;"], ["    let x = 2;"])]);
    if let polypatch_core::FileOp::Modify(m) = &mut moved.op {
        m.move_to = Some("moved.rs".into());
    }
    let plan = EditPlan::new(
        "test",
        vec![
            FileEdit::modify("other.txt", vec![Edit::replace(["other"], ["changed"])]),
            moved,
            FileEdit::create("moved.rs", "new\n"),
        ],
    );
    let mut files = set(&now);
    let err = apply(&plan, &mut files, &ApplyOptions::default().read_hash("main.rs", read())).unwrap_err();
    assert_eq!(files.get_str("other.txt"), Some("other\n"), "all or nothing");
    assert_eq!(files.get_str("moved.rs"), None);
    let statuses: Vec<Status> = err.report.files.iter().map(|f| f.status).collect();
    assert_eq!(statuses[1], Status::Failed);
    assert_ne!(statuses[2], Status::Failed, "{:?}", err.report.files[2].failure);
    assert!(err.report.files[1].edits.is_empty(), "a refused trial reports no edits");
}

#[test]
fn a_patch_applied_again_after_the_file_changed_is_already_applied() {
    // The agent's first apply went through but its reply was lost; it retries with the
    // hash it read before. The file changed (by that apply): already applied, nothing
    // written, under either policy.
    let mut files = set(READ);
    let options = ApplyOptions::default().read_hash("main.rs", read());
    apply(&plan(), &mut files, &options).unwrap();
    let after = files.get_str("main.rs").unwrap().to_owned();
    let report = apply(&plan(), &mut files, &options).unwrap();
    assert_eq!(report.files[0].status, Status::AlreadyApplied);
    assert_eq!(report.files[0].edits[0].status, Status::AlreadyApplied);
    let note = &report.files[0].edits[0].notes[0];
    assert!(note.contains("changed since it was read") && note.ends_with("this edit is already in it"), "{note}");
    assert_eq!(files.get_str("main.rs"), Some(after.as_str()));
}

//! 'ap' patches applied by the core: what the reports and failures say (the fixtures in
//! `spec-fixtures/ap/` check the resulting trees).

use polypatch_ap::Ap;
use polypatch_core::{ApplyOptions, Dialect, FailureKind, LineRange, MemoryFileSet, Status, apply};

fn patch(path: &str, modifications: &str) -> String {
    format!("version: \"2.0\"\nchanges:\n  - file_path: {path}\n    modifications:\n{modifications}")
}

const FUNCS: &str = "def first():\n    return None\n\ndef second():\n    return None\n";

#[test]
fn an_ambiguous_snippet_fails_with_the_candidates_lines() {
    let text = patch(
        "f.py",
        "      - action: REPLACE\n        snippet: |\n          return None\n        content: |\n          return 0\n",
    );
    let plan = Ap.parse(&text).unwrap();
    let mut files = MemoryFileSet::new().with("f.py", FUNCS);
    let err = apply(&plan, &mut files, &ApplyOptions::default()).unwrap_err();
    let first = err.report.first_failure().unwrap();
    let failure = first.failure;
    assert_eq!(first.file.path, "f.py");
    assert_eq!(first.edit.unwrap().label, "change 1 modification 1");
    assert_eq!(failure.kind, FailureKind::Ambiguous);
    assert_eq!(failure.candidates, [LineRange::new(2, 2), LineRange::new(5, 5)]);
    assert!(err.to_string().contains("change 1 modification 1"), "{err}");
    assert_eq!(files.get_str("f.py"), Some(FUNCS));
}

#[test]
fn an_ambiguous_anchor_fails_with_its_candidates() {
    let text = patch(
        "f.py",
        "      - action: DELETE\n        anchor: |\n          return None\n        snippet: |\n          def second():\n",
    );
    let plan = Ap.parse(&text).unwrap();
    let mut files = MemoryFileSet::new().with("f.py", FUNCS);
    let err = apply(&plan, &mut files, &ApplyOptions::default()).unwrap_err();
    let failure = err.report.first_failure().unwrap().failure;
    assert_eq!(failure.kind, FailureKind::Ambiguous);
    assert!(failure.message.contains("anchor"), "{}", failure.message);
    assert_eq!(failure.candidates.len(), 2);
}

#[test]
fn a_missing_snippet_names_the_closest_place() {
    let text = patch(
        "f.py",
        "      - action: REPLACE\n        snippet: |\n          def secnod_one():\n        content: |\n          def two():\n",
    );
    let plan = Ap.parse(&text).unwrap();
    let mut files = MemoryFileSet::new().with("f.py", FUNCS);
    let err = apply(&plan, &mut files, &ApplyOptions::default().strict(true)).unwrap_err();
    let failure = err.report.first_failure().unwrap().failure;
    assert_eq!(failure.kind, FailureKind::NotFound);
    assert!(failure.message.contains("def secnod_one():"), "{}", failure.message);
    assert_eq!(failure.closest.as_ref().unwrap().lines, LineRange::new(4, 4));
}

#[test]
fn modifications_see_the_results_of_the_ones_before_and_report_in_order() {
    let text = patch(
        "f.py",
        "      - action: INSERT_AFTER\n        snippet: \"def first():\"\n        content: x = 1\n\
         \x20     - action: REPLACE\n        snippet: x = 1\n        content: x = 2\n\
         \x20     - action: DELETE\n        snippet: \"def third():\"\n",
    );
    let plan = Ap.parse(&text).unwrap();
    let mut files = MemoryFileSet::new().with("f.py", FUNCS);
    let report = apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
    let statuses: Vec<Status> = report.files[0].edits.iter().map(|e| e.status).collect();
    assert_eq!(statuses, [Status::Applied, Status::Applied, Status::AlreadyApplied]);
    assert_eq!(files.get_str("f.py"), Some("def first():\nx = 2\n    return None\n\ndef second():\n    return None\n"));
}

#[test]
fn create_file_with_crlf_then_an_edit_keeps_crlf() {
    let text = "version: \"2.0\"\nchanges:\n  - file_path: new.txt\n    newline: CRLF\n    modifications:\n      - action: CREATE_FILE\n        content: |\n          a\n          b\n      - action: INSERT_AFTER\n        snippet: a\n        content: x\n";
    let plan = Ap.parse(text).unwrap();
    let mut files = MemoryFileSet::new();
    apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(files.get_str("new.txt"), Some("a\r\nx\r\nb\r\n"));
}

/// §3.2 asks for the first occurrence after the anchor and §3.1 for idempotency. With a
/// later occurrence of the snippet after the anchor and the content standing between the
/// anchor and it, the file cannot tell a re-run (the edit was applied at the first
/// occurrence) from a first run (the content was there already): both places are named
/// and nothing is written, in either case.
#[test]
fn content_between_the_anchor_and_the_snippet_is_refused_with_both_places() {
    let text = patch(
        "r.py",
        "      - action: REPLACE\n        anchor: \"def run():\"\n        snippet: log(\"start\")\n        content: log(\"run\")\n",
    );
    let before = "def run():\n    log(\"start\")\n    work()\n    log(\"start\")\n";
    let after = "def run():\n    log(\"run\")\n    work()\n    log(\"start\")\n";
    let plan = Ap.parse(&text).unwrap();
    let mut files = MemoryFileSet::new().with("r.py", before);
    apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(files.get_str("r.py"), Some(after));
    // The re-run (or a first run on this file): refused, naming both places.
    let err = apply(&plan, &mut files, &ApplyOptions::default()).unwrap_err();
    let failure = err.report.files[0].edits[0].failure.as_ref().unwrap();
    assert_eq!(failure.kind, FailureKind::Ambiguous);
    assert_eq!(failure.candidates, [LineRange::new(4, 4), LineRange::new(2, 2)]);
    assert!(failure.message.contains("cannot be told whether the edit was already applied"), "{failure}");
    assert_eq!(files.get_str("r.py"), Some(after));
}

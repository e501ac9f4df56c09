//! A text edit ([`Target::Text`], a substring to replace) is applied by the `text-target`
//! feature; a build without it (a dialect crate other than Aptix and the tool calls, a
//! one-dialect build of the facade) refuses it, naming the feature, and writes nothing.
//! Run both ways: `cargo test -p polypatch-core --test text_target_feature` (the defaults,
//! `text-target` on) and
//! `cargo test -p polypatch-core --no-default-features --test text_target_feature`.

use polypatch_core::{ApplyOptions, Edit, EditPlan, FileEdit, MemoryFileSet, apply};

const FILE: &str = "let greeting = \"hi\";\nlet other = 1;\n";

/// A substring inside the first line, as `Edit::replace_text` (MCP's `edit_file`) builds it.
fn plan() -> EditPlan {
    EditPlan::new("test", vec![FileEdit::modify("main.rs", vec![Edit::replace_text("\"hi\"", "\"hello\"")])])
}

#[cfg(feature = "text-target")]
#[test]
fn a_text_edit_is_applied_with_the_text_target_feature() {
    let mut files = MemoryFileSet::new().with("main.rs", FILE);
    apply(&plan(), &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(files.get_str("main.rs"), Some("let greeting = \"hello\";\nlet other = 1;\n"));
}

#[cfg(not(feature = "text-target"))]
#[test]
fn a_text_edit_is_refused_without_the_text_target_feature_and_nothing_is_written() {
    use polypatch_core::{FailureKind, Status};

    let mut files = MemoryFileSet::new().with("main.rs", FILE);
    let err = apply(&plan(), &mut files, &ApplyOptions::default()).unwrap_err();
    assert_eq!(files.get_str("main.rs"), Some(FILE), "nothing written");
    let edit = &err.report.files[0].edits[0];
    assert_eq!(edit.status, Status::Failed);
    let failure = edit.failure.as_ref().expect("the failure");
    assert_eq!(failure.kind, FailureKind::InvalidPlan);
    assert_eq!(
        failure.message,
        "a text edit (`Target::Text`, a substring to replace) cannot be applied: this build of polypatch lacks the \
         `text-target` feature"
    );
    assert_eq!(
        failure.next_step,
        "build polypatch with the `text-target` feature, or send the edit as the lines it replaces (a diff or \
         SEARCH/REPLACE block)"
    );
}

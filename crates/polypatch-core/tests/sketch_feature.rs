//! A lazy snippet's edit ([`Target::Sketch`]) is merged by the `lazy` feature; a build
//! without it (a dialect crate other than `polypatch-lazy`, a one-dialect build of the
//! facade) refuses it, naming the feature, and writes nothing. Run both ways:
//! `cargo test -p polypatch-core --test sketch_feature` (the defaults, `lazy` on) and
//! `cargo test -p polypatch-core --no-default-features --test sketch_feature`.

use polypatch_core::{
    Action, ApplyOptions, Edit, EditPlan, FileEdit, FileOp, MemoryFileSet, Modify, Replacement, Target, apply,
};

const FILE: &str = "fn main() {\n    one();\n    two();\n}\n";

/// The snippet `fn main() {` / `    one();` / `    // ... existing code ...` with a line
/// added after `one();`: its first segment, before the marker.
fn plan() -> EditPlan {
    let edit = Edit::new(
        Target::Sketch { at_start: true, at_end: false },
        Action::Replace(Replacement::lines(vec!["fn main() {".into(), "    one();".into(), "    added();".into()])),
    );
    EditPlan::new("lazy", vec![FileEdit::new("main.rs", FileOp::Modify(Modify::new(vec![edit])))])
}

#[cfg(feature = "lazy")]
#[test]
fn a_sketch_is_merged_with_the_lazy_feature() {
    let mut files = MemoryFileSet::new().with("main.rs", FILE);
    apply(&plan(), &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(files.get_str("main.rs"), Some("fn main() {\n    one();\n    added();\n    two();\n}\n"));
}

#[cfg(not(feature = "lazy"))]
#[test]
fn a_sketch_is_refused_without_the_lazy_feature_and_nothing_is_written() {
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
        "a lazy snippet (`Target::Sketch`) cannot be merged: this build of polypatch lacks the `lazy` feature"
    );
    assert_eq!(
        failure.next_step,
        "build polypatch with the `lazy` feature, or send the edit with the lines it replaces (a diff or \
         SEARCH/REPLACE block)"
    );
}

//! The stale-read guard's hash (sha256) is computed by the `stale-read` feature; a build
//! without it (a one-dialect build of the facade) still reads and carries a [`ReadHash`],
//! but refuses a file given one, naming the feature, and writes nothing: a hash is never
//! taken as checked when it was not. Run both ways:
//! `cargo test -p polypatch-core --test stale_read_feature` (the defaults, `stale-read` on)
//! and `cargo test -p polypatch-core --no-default-features --test stale_read_feature`.

use polypatch_core::{ApplyOptions, Edit, EditPlan, FileEdit, MemoryFileSet, ReadHash, apply};

const FILE: &str = "fn main() {\n    one();\n}\n";

/// The sha256 of [`FILE`], written out (computed by `sha256sum`, not by the feature).
const FILE_HASH: &str = "sha256:9d7a99206da5144d4d08a1b848dc5be580228d8ff5a6d7986e9eb366c45f930c";

fn hash() -> ReadHash {
    ReadHash::parse(FILE_HASH).unwrap()
}

/// An edit of `main.rs`, with the hash of what its writer read when `in_plan`.
fn plan(in_plan: bool) -> EditPlan {
    let file = FileEdit::modify("main.rs", vec![Edit::replace(["    one();"], ["    two();"])]);
    EditPlan::new("test", vec![if in_plan { file.with_read_hash(hash()) } else { file }])
}

/// The hash in the plan, in the options, and in both.
fn cases() -> [(EditPlan, ApplyOptions); 3] {
    let given = || ApplyOptions::default().read_hash("main.rs", hash());
    [(plan(true), ApplyOptions::default()), (plan(false), given()), (plan(true), given())]
}

#[cfg(feature = "stale-read")]
#[test]
fn a_read_hash_is_checked_with_the_stale_read_feature() {
    use polypatch_core::FailureKind;

    assert_eq!(ReadHash::of(FILE.as_bytes()), hash());
    for (plan, options) in cases() {
        let mut files = MemoryFileSet::new().with("main.rs", FILE);
        apply(&plan, &mut files, &options).unwrap();
        assert_eq!(files.get_str("main.rs"), Some("fn main() {\n    two();\n}\n"));
        // The same file changed since it was read: refused.
        let changed = format!("{FILE}// later\n");
        let mut files = MemoryFileSet::new().with("main.rs", changed.as_str());
        let err = apply(&plan, &mut files, &options).unwrap_err();
        assert_eq!(err.report.first_failure().unwrap().failure.kind, FailureKind::ChangedSinceRead);
        assert_eq!(files.get_str("main.rs"), Some(changed.as_str()), "nothing written");
    }
}

#[cfg(not(feature = "stale-read"))]
#[test]
fn a_read_hash_is_refused_without_the_stale_read_feature_and_nothing_is_written() {
    use polypatch_core::{FailureKind, Status};

    for (plan, options) in cases() {
        // The file is as read: with the feature it would apply; without it the hash is not
        // checked, so the file is not edited.
        let mut files = MemoryFileSet::new().with("main.rs", FILE).with("other.txt", "other\n");
        let err = apply(&plan, &mut files, &options).unwrap_err();
        assert_eq!(files.get_str("main.rs"), Some(FILE), "nothing written");
        let file = &err.report.files[0];
        assert_eq!(file.status, Status::Failed);
        let failure = file.failure.as_ref().expect("the file's failure");
        assert_eq!(failure.kind, FailureKind::InvalidPlan);
        assert_eq!(
            failure.message,
            "`main.rs` has a read hash to check (the stale-read guard), but this build of polypatch lacks the \
             `stale-read` feature that computes it"
        );
        assert_eq!(failure.next_step, "build polypatch with the `stale-read` feature, or apply without read hashes");
    }
    // Without a hash the same plan applies.
    let mut files = MemoryFileSet::new().with("main.rs", FILE);
    apply(&plan(false), &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(files.get_str("main.rs"), Some("fn main() {\n    two();\n}\n"));
}

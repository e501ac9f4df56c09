//! The round trip property of issue 3: random file + random edits → `generate::diff_file`
//! → parse and lower as the `unified` dialect → `polypatch_core::apply` on an in-memory
//! file set → exactly the target bytes (and modes, paths).

use polypatch_core::{ApplyOptions, Dialect, MemoryFileSet, apply};
use polypatch_unified::Unified;
use polypatch_unified::generate::{DiffOptions, Side, diff_file, diff_files};
use proptest::prelude::*;

mod common;
use common::{edited, edits, text_file};

/// Parses `patch` as the unified dialect and applies it (exact matching only: a generated
/// diff is exact) to `files`.
fn apply_patch(patch: &str, files: &mut MemoryFileSet) -> Result<(), String> {
    let plan = Unified.parse(patch).map_err(|e| format!("parse: {}", e.render(patch)))?;
    let report = apply(&plan, files, &ApplyOptions::default().strict(true)).map_err(|e| format!("apply: {e:?}"))?;
    if !report.is_success() {
        return Err(format!("apply: {:?}", report.first_failure()));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random file + random edits → diff → parse → apply == target.
    #[test]
    fn modify_round_trip(
        before in text_file(40),
        edits in edits(10),
        final_newline in prop::option::of(any::<bool>()),
        context in prop::sample::select(vec![1usize, 2, 3, 3, 3, 5]),
    ) {
        let after = edited(&before, &edits, final_newline);
        let patch = diff_file(
            Some(Side::new("src/file.txt", &before)),
            Some(Side::new("src/file.txt", &after)),
            &DiffOptions::default().context(context),
        );
        if before == after {
            prop_assert_eq!(patch, "");
            return Ok(());
        }
        let mut files = MemoryFileSet::new().with("src/file.txt", before.clone()).with("other.txt", "untouched\n");
        let applied = apply_patch(&patch, &mut files);
        prop_assert!(applied.is_ok(), "{}\n--- patch ---\n{}", applied.unwrap_err(), patch);
        prop_assert_eq!(files.get("src/file.txt"), Some(after.as_slice()), "patch:\n{}", patch);
        prop_assert_eq!(files.get("other.txt"), Some(b"untouched\n".as_slice()));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// File operations: creations, deletions, renames (with edits) and mode changes in one
    /// patch, applied as one transaction.
    #[test]
    fn file_operations_round_trip(
        created in text_file(40),
        deleted in text_file(40),
        moved in text_file(40),
        edits in edits(10),
        executable in any::<bool>(),
    ) {
        let moved_after = edited(&moved, &edits, None);
        let changes = [
            (None, Some(Side::new("new dir/created.txt", &created).with_mode(if executable { 0o755 } else { 0o644 }))),
            (Some(Side::new("deleted.txt", &deleted)), None),
            (Some(Side::new("old/name.txt", &moved)), Some(Side::new("new/name.txt", &moved_after).with_mode(0o755))),
        ];
        let patch = diff_files(changes, &DiffOptions::default());
        let mut files = MemoryFileSet::new()
            .with("deleted.txt", deleted.clone())
            .with("old/name.txt", moved.clone());
        let applied = apply_patch(&patch, &mut files);
        prop_assert!(applied.is_ok(), "{}\n--- patch ---\n{}", applied.unwrap_err(), patch);
        prop_assert_eq!(files.get("new dir/created.txt"), Some(created.as_slice()), "patch:\n{}", patch);
        prop_assert_eq!(files.get("deleted.txt"), None);
        prop_assert_eq!(files.get("old/name.txt"), None);
        prop_assert_eq!(files.get("new/name.txt"), Some(moved_after.as_slice()), "patch:\n{}", patch);
        prop_assert_eq!(files.mode("new/name.txt").map(|m| m & 0o777), Some(0o755));
        if executable {
            prop_assert_eq!(files.mode("new dir/created.txt").map(|m| m & 0o777), Some(0o755));
        }
    }
}

#[cfg(feature = "git-binary")]
#[test]
fn binary_round_trip() {
    let before: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
    let mut after = before.clone();
    after[10] = 0;
    after.extend_from_slice(b"\xff\xfe");
    let patch =
        diff_file(Some(Side::new("blob.bin", &before)), Some(Side::new("blob.bin", &after)), &DiffOptions::default());
    let mut files = MemoryFileSet::new().with("blob.bin", before.clone());
    apply_patch(&patch, &mut files).unwrap();
    assert_eq!(files.get("blob.bin"), Some(after.as_slice()));

    let patch = diff_file(None, Some(Side::new("new.bin", &after)), &DiffOptions::default());
    let mut files = MemoryFileSet::new();
    apply_patch(&patch, &mut files).unwrap();
    assert_eq!(files.get("new.bin"), Some(after.as_slice()));
}

/// A diff that only adds the final newline to a file of mixed line endings: the new
/// terminator is the patch's `\n`, as git writes it, not the file's most frequent one
/// (here a tie, which the first line's `\r\n` used to break). Found by the round trip
/// property above.
#[test]
fn an_added_final_newline_in_a_mixed_file_is_the_patchs() {
    let patch = "diff --git a/src/file.txt b/src/file.txt\n--- a/src/file.txt\n+++ b/src/file.txt\n\
                 @@ -2,2 +2,2 @@ a\n a\n-a\n\\ No newline at end of file\n+a\n";
    let mut files = MemoryFileSet::new().with("src/file.txt", "a\r\na\na");
    apply_patch(patch, &mut files).unwrap();
    assert_eq!(files.get("src/file.txt"), Some(b"a\r\na\na\n".as_slice()));
    // In a file of CRLF lines, the line before the end tells: it stays CRLF throughout.
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\r\n-b\n\\ No newline at end of file\n+b\r\n";
    let mut files = MemoryFileSet::new().with("f.txt", "a\r\nb");
    apply_patch(patch, &mut files).unwrap();
    assert_eq!(files.get("f.txt"), Some(b"a\r\nb\r\n".as_slice()));
}

/// Lines written in place of a mixed file's last line, which has no newline: they end
/// like the line before it (`\n` here), as git writes them, not with the file's most
/// frequent ending (a tie, broken by the first line's `\r\n`). Found by the round trip
/// property above (failed before: `a\r\n` and `aa\r\n`).
#[test]
fn lines_replacing_a_mixed_files_last_line_end_like_the_line_before() {
    let patch = "diff --git a/src/file.txt b/src/file.txt\n--- a/src/file.txt\n+++ b/src/file.txt\n\
                 @@ -2,2 +2,3 @@ a\n a\n-a\n\\ No newline at end of file\n+a\n+aa\n";
    let mut files = MemoryFileSet::new().with("src/file.txt", "a\r\na\na");
    apply_patch(patch, &mut files).unwrap();
    assert_eq!(files.get("src/file.txt"), Some(b"a\r\na\na\naa\n".as_slice()));
}

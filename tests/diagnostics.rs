//! Snapshots of what a writer (a person, or the model that wrote the patch) reads when a
//! patch is malformed or does not apply: the rendered parse errors of every dialect, the
//! failure report, and a generated diff. Review changes with `cargo insta review`.

use polypatch::{ApplyOptions, MemoryFileSet, apply, parse};

fn malformed(format: &str, patch: &str) -> String {
    parse(patch, format.parse().expect("a format name")).map(|_| ()).expect_err("the patch is malformed").render(patch)
}

fn failure(patch: &str, files: &mut MemoryFileSet) -> String {
    let plan = parse(patch, polypatch::Format::Auto).expect("the patch parses");
    let err = apply(&plan, files, &ApplyOptions::default()).expect_err("the patch does not apply");
    format!("{err}\n\n{}", err.report)
}

const CALC: &str =
    "import math\n\n\ndef area(r):\n    return 3.14 * r * r\n\n\ndef circumference(r):\n    return 2 * 3.14 * r\n";

#[test]
fn ai_patch_missing_end() {
    insta::assert_snapshot!(malformed("ai-patch", "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n"));
}

#[test]
fn ai_patch_bad_hunk_line() {
    insta::assert_snapshot!(malformed(
        "ai-patch",
        "*** Begin Patch\n*** Update File: a.py\n@@ def f():\n-    x = 1\n*    y = 2\n*** End Patch\n"
    ));
}

#[test]
fn unified_bad_hunk_header() {
    insta::assert_snapshot!(malformed("unified", "--- a/a.py\n+++ b/a.py\n@@ -1,x +1 @@\n-a\n+b\n"));
}

#[test]
fn unified_binary_without_data() {
    insta::assert_snapshot!(malformed(
        "unified",
        "diff --git a/logo.png b/logo.png\nindex 1234567..89abcde 100644\nBinary files a/logo.png and b/logo.png differ\n"
    ));
}

#[test]
fn ap_misspelled_key() {
    insta::assert_snapshot!(malformed(
        "ap",
        "version: \"2.0\"\nchanges:\n  - file_path: a.py\n    modifications:\n      - action: REPLACE\n        snipet: |\n          x\n        content: |\n          y\n"
    ));
}

#[test]
fn ap_misindented_list_item() {
    insta::assert_snapshot!(malformed(
        "ap",
        "version: \"2.0\"\nchanges:\n  - file_path: a.py\n    modifications:\n      - action: DELETE\n        snippet: |\n          x\n        - action: DELETE\n          snippet: |\n            y\n"
    ));
}

#[test]
fn not_found_shows_the_closest_lines_and_the_next_step() {
    let mut files = MemoryFileSet::new().with("src/calc.py", CALC);
    let patch = "--- a/src/calc.py\n+++ b/src/calc.py\n@@ -4,2 +4,2 @@\n def area(radius):\n-    return 3.14 * radius * radius\n+    return math.pi * radius ** 2\n";
    insta::assert_snapshot!(failure(patch, &mut files));
}

#[test]
fn ambiguous_lists_the_candidates() {
    let mut files = MemoryFileSet::new().with("a.py", "x = 1\nvalue = 1\ny = 2\nvalue = 1\n");
    let patch = "version: \"2.0\"\nchanges:\n  - file_path: a.py\n    modifications:\n      - action: REPLACE\n        snippet: |\n          value = 1\n        content: |\n          value = 2\n";
    insta::assert_snapshot!(failure(patch, &mut files));
}

#[test]
fn elision_is_refused_with_the_line_named() {
    let mut files = MemoryFileSet::new().with("src/calc.py", CALC);
    let patch = "*** Begin Patch\n*** Update File: src/calc.py\n@@ def area(r):\n-    return 3.14 * r * r\n+    # ... existing code ...\n*** End Patch\n";
    insta::assert_snapshot!(failure(patch, &mut files));
}

#[test]
fn generated_diff_of_a_rename_with_an_edit() {
    use polypatch::unified::generate::{DiffOptions, Side, diff_files};
    let old = CALC.as_bytes();
    let new = CALC.replace("3.14", "math.pi");
    let diff = diff_files(
        [(Some(Side::new("calc.py", old)), None), (None, Some(Side::new("geometry/calc.py", new.as_bytes())))],
        &DiffOptions::default().renames(true),
    );
    insta::assert_snapshot!(diff);
}

//! The snippet's lines and the file's lines end at the same places: a lone `\r` is text in
//! both (the snippet is read line by line at `\n`), so a merged snippet applied again to
//! its result changes nothing (found by the `lazy` fuzz target:
//! `fuzz/regressions/lazy/lone-cr-rerun`).

use polypatch_core::{ApplyOptions, Dialect, MemoryFileSet, ParseOptions, Status, apply};
use polypatch_lazy::Lazy;

#[test]
fn a_lone_cr_inside_a_snippet_line_is_text_and_a_rerun_is_already_applied() {
    // No marker: the snippet is the whole file; its second line holds a lone `\r`.
    let plan = Lazy.parse_with("src\n#\r\u{fffd}\n\u{fffd}", &ParseOptions::default().file("f.txt")).unwrap();
    let mut files = MemoryFileSet::new().with("f.txt", "");
    apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(files.get_str("f.txt"), Some("src\n#\r\u{fffd}\n\u{fffd}\n"));
    let report = apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(report.files[0].status, Status::AlreadyApplied);
    assert_eq!(files.get_str("f.txt"), Some("src\n#\r\u{fffd}\n\u{fffd}\n"));
}

#[test]
fn a_file_line_holding_a_lone_cr_is_matched_whole() {
    // The file's `b = 2\rjunk` is one line, as the snippet writes it: kept, and the line
    // after it changed.
    let file = "a = 1\nb = 2\rjunk\nc = 3\nd = 4\n";
    let snippet = "```python f.py\n# ... existing code ...\nb = 2\rjunk\nc = 30\nd = 4\n```\n";
    let plan = Lazy.parse(snippet).unwrap();
    let mut files = MemoryFileSet::new().with("f.py", file);
    apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(files.get_str("f.py"), Some("a = 1\nb = 2\rjunk\nc = 30\nd = 4\n"));
    let report = apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(report.files[0].status, Status::AlreadyApplied);
}

/// A file that is not UTF-8 (Latin-1) is refused as in every text dialect: a lazy merge
/// matches text, not bytes (before, it was merged by bytes alone, exact lines only, which a
/// snippet line ending in `\r` defeated on the rerun: `fuzz/regressions/lazy/raw-range-char-cr`).
#[test]
fn a_file_that_is_not_utf8_is_refused_and_left_as_it_was() {
    let file: &[u8] = b"caf\xe9 = 1\nb = 2\nc = 3\n";
    let snippet = "```python f.py\n# ... existing code ...\nb = 20\nc = 3\n```\n";
    let plan = Lazy.parse(snippet).unwrap();
    let mut files = MemoryFileSet::new().with("f.py", file);
    let err = apply(&plan, &mut files, &ApplyOptions::default()).unwrap_err();
    let failure = err.report.first_failure().expect("a failure");
    assert_eq!(failure.failure.kind, polypatch_core::FailureKind::NotText);
    assert_eq!(
        failure.failure.message,
        "cannot edit `f.py`: it is not UTF-8 text (Latin-1 or another encoding), and this dialect matches text"
    );
    assert_eq!(files.get("f.py"), Some(file));
}

/// A snippet given as text holding a character that the library's text stands for a byte
/// with (U+10FF80..=U+10FFFF, see `decode_lossless`) is refused, not written as that byte.
#[test]
fn a_snippet_holding_a_raw_byte_character_is_refused() {
    let plan = Lazy
        .parse_with("\n\u{fffd}\n\u{10ffee}\r\r\n\u{fffd}\nmmmmmmmm", &ParseOptions::default().file("f.txt"))
        .unwrap();
    let mut files = MemoryFileSet::new().with("f.txt", "");
    let err = apply(&plan, &mut files, &ApplyOptions::default()).unwrap_err();
    let failure = err.report.first_failure().expect("a failure");
    assert_eq!(failure.failure.kind, polypatch_core::FailureKind::NotText);
    assert_eq!(files.get_str("f.txt"), Some(""));
}

/// A byte order mark opening a snippet is the file's mark copied with its first line: the
/// line is matched and written without it (written as text, it became a new file's mark,
/// read back without it, and the same snippet merged again on its own result:
/// `fuzz/regressions/lazy/bom-opening-snippet`).
#[test]
fn a_byte_order_mark_opening_the_snippet_is_not_text() {
    let plan =
        Lazy.parse_with("```\n\u{feff}first\n\u{feff}second\n```\n", &ParseOptions::default().file("f.txt")).unwrap();
    let mut files = MemoryFileSet::new().with("f.txt", "");
    apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(files.get_str("f.txt"), Some("first\n\u{feff}second\n"));
    let report = apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(report.files[0].status, Status::AlreadyApplied);
    // A file with a mark keeps it, its first line matched by the snippet's.
    let mut files = MemoryFileSet::new().with("g.py", "\u{feff}import os\nx = 1\ny = 2\n");
    let plan =
        Lazy.parse("```python g.py\n\u{feff}import os\nimport sys\nx = 1\n# ... existing code ...\n```\n").unwrap();
    apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(files.get_str("g.py"), Some("\u{feff}import os\nimport sys\nx = 1\ny = 2\n"));
}

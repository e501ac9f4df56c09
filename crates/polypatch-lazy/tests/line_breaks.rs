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

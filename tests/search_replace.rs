//! SEARCH/REPLACE blocks through the facade: found in whole chat replies (the path line
//! above the fence, the path inside it, bare blocks), detected, applied as one transaction,
//! and the caller's file for blocks that name none.
#![cfg(all(feature = "search-replace", feature = "unified"))]

use polypatch::{
    ApplyOptions, MemoryFileSet, ParseOptions, ReplyError, apply_text, error::ErrorKind, reply::apply_text_with,
};

const CALC: &str = "import math\n\n\ndef area(r):\n    return 3.14 * r * r\n\n\ndef add(a, b):\n    return a - b\n";

/// An Aider reply in its "diff" layout: prose, the path line, a fence tagged with the
/// language holding two blocks, another file created in a fence of its own.
const AIDER: &str = "I'll fix `add` and use `math.pi`.\n\nsrc/calc.py\n```python\n<<<<<<< SEARCH\ndef area(r):\n    return 3.14 * r * r\n=======\ndef area(r):\n    return math.pi * r * r\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\ndef add(a, b):\n    return a - b\n=======\ndef add(a, b):\n    return a + b\n>>>>>>> REPLACE\n```\n\nAnd a note:\n\ndocs/notes.md\n```markdown\n<<<<<<< SEARCH\n=======\n# Notes\n>>>>>>> REPLACE\n```\n\nRun the tests after.\n";

const CALC_AFTER: &str =
    "import math\n\n\ndef area(r):\n    return math.pi * r * r\n\n\ndef add(a, b):\n    return a + b\n";

#[test]
fn an_aider_reply_with_the_path_above_each_fence_applies_as_one_transaction() {
    let blocks = polypatch::extract(AIDER);
    let found: Vec<(&str, usize, usize, Option<&str>)> =
        blocks.iter().map(|b| (b.dialect.as_str(), b.lines.start, b.lines.end, b.fence)).collect();
    assert_eq!(found, [("search-replace", 3, 20, None), ("search-replace", 24, 30, None)]);
    assert!(blocks[0].text.starts_with("src/calc.py\n```python\n<<<<<<< SEARCH\n"));
    let mut files = MemoryFileSet::new().with("src/calc.py", CALC);
    let report = apply_text(AIDER, &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(report.blocks.len(), 2);
    assert_eq!(files.get_str("src/calc.py"), Some(CALC_AFTER));
    assert_eq!(files.get_str("docs/notes.md"), Some("# Notes\n"));
    // The same reply again: every block already applied, nothing changes.
    apply_text(AIDER, &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(files.get_str("src/calc.py"), Some(CALC_AFTER));
    assert_eq!(files.get_str("docs/notes.md"), Some("# Notes\n"));
}

#[test]
fn one_block_that_fails_leaves_every_file_as_it_was() {
    let reply = AIDER.replace("    return a - b\n=======", "    return a * b\n=======");
    let mut files = MemoryFileSet::new().with("src/calc.py", CALC);
    let Err(ReplyError::NotApplied { report, .. }) = apply_text(&reply, &mut files, &ApplyOptions::default()) else {
        panic!("the reply must not apply");
    };
    let first = report.first_failure().unwrap();
    assert_eq!(first.failure.kind, polypatch::report::FailureKind::NotFound);
    assert_eq!(files.get_str("src/calc.py"), Some(CALC));
    assert_eq!(files.get_str("docs/notes.md"), None);
}

#[test]
fn the_diff_fenced_layout_and_bare_blocks_are_found_too() {
    let fenced = "Change:\n\n```\nsrc/calc.py\n<<<<<<< SEARCH\ndef add(a, b):\n    return a - b\n=======\ndef add(a, b):\n    return a + b\n>>>>>>> REPLACE\n```\n";
    let bare = "Change:\n\nsrc/calc.py\n<<<<<<< SEARCH\ndef add(a, b):\n    return a - b\n=======\ndef add(a, b):\n    return a + b\n>>>>>>> REPLACE\n\nDone.\n";
    for (reply, fence) in [(fenced, Some("")), (bare, None)] {
        let blocks = polypatch::extract(reply);
        assert_eq!(blocks.len(), 1, "{reply}");
        assert_eq!((blocks[0].dialect.as_str(), blocks[0].fence), ("search-replace", fence));
        let mut files = MemoryFileSet::new().with("src/calc.py", CALC);
        apply_text(reply, &mut files, &ApplyOptions::default()).unwrap();
        assert_eq!(
            files.get_str("src/calc.py"),
            Some("import math\n\n\ndef area(r):\n    return 3.14 * r * r\n\n\ndef add(a, b):\n    return a + b\n")
        );
    }
}

#[test]
fn a_block_without_a_path_needs_the_caller_s_file() {
    // Cline's markers, prose (not a path) before the fence.
    let reply =
        "Here is the fix:\n```\n------- SEARCH\n    return a - b\n=======\n    return a + b\n+++++++ REPLACE\n```\n";
    let mut files = MemoryFileSet::new().with("src/calc.py", CALC);
    let Err(ReplyError::Malformed { error, .. }) = apply_text(reply, &mut files, &ApplyOptions::default()) else {
        panic!("a block that names no file is refused");
    };
    assert_eq!(error.kind, polypatch::search_replace::error::MISSING_PATH);
    assert_eq!(files.get_str("src/calc.py"), Some(CALC));
    let given = ParseOptions::default().file("src/calc.py");
    apply_text_with(reply, &mut files, &ApplyOptions::default(), &given).unwrap();
    assert!(files.get_str("src/calc.py").unwrap().ends_with("    return a + b\n"));
}

#[test]
fn a_reply_cut_off_inside_a_block_is_truncated() {
    let reply = "src/calc.py\n```python\n<<<<<<< SEARCH\ndef add(a, b):\n    return a - b\n=======\ndef add(a, b):\n    return a +";
    let mut files = MemoryFileSet::new().with("src/calc.py", CALC);
    let Err(ReplyError::Malformed { error, .. }) = apply_text(reply, &mut files, &ApplyOptions::default()) else {
        panic!("a cut-off reply is refused");
    };
    assert_eq!(error.kind, ErrorKind::TRUNCATED);
    assert_eq!(files.get_str("src/calc.py"), Some(CALC));
}

#[test]
fn search_replace_and_a_diff_in_one_reply() {
    let reply =
        format!("{AIDER}\nAlso:\n\n```diff\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-# calc\n+# Calc\n```\n");
    let blocks = polypatch::extract(&reply);
    let dialects: Vec<&str> = blocks.iter().map(|b| b.dialect.as_str()).collect();
    assert_eq!(dialects, ["search-replace", "search-replace", "unified"]);
    let mut files = MemoryFileSet::new().with("src/calc.py", CALC).with("README.md", "# calc\n");
    apply_text(&reply, &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(files.get_str("README.md"), Some("# Calc\n"));
    assert_eq!(files.get_str("src/calc.py"), Some(CALC_AFTER));
}

#[test]
fn detected_and_applied_to_one_text() {
    let patch = "src/calc.py\n<<<<<<< SEARCH\ndef add(a, b):\n    return a - b\n=======\ndef add(a, b):\n    return a + b\n>>>>>>> REPLACE\n";
    assert_eq!(polypatch::detect(patch).map(polypatch::Dialect::name), Some("search-replace"));
    let crlf = CALC.replace('\n', "\r\n");
    let new = polypatch::apply_str(patch, "src/calc.py", &crlf).unwrap();
    assert_eq!(new, crlf.replace("return a - b", "return a + b"));
    // Another file than the one given: not there, refused.
    assert!(matches!(polypatch::apply_str(patch, "other.py", CALC), Err(polypatch::Error::NotApplied(_))));
}

/// A file created by an empty SEARCH in one fence and edited by a block in a later fence:
/// each fence is a patch of its own, so the dialect's rule inside a patch does not see it;
/// the reply is refused as a whole (a re-run would append the file's lines again: it wrote
/// `a c a c`), before anything is written.
#[test]
fn a_file_appended_to_in_one_fence_and_edited_in_a_later_one_is_refused() {
    let reply = "new.txt\n```\n<<<<<<< SEARCH\n=======\na\n>>>>>>> REPLACE\n```\n\nnew.txt\n```\n<<<<<<< SEARCH\na\n=======\na\nc\n>>>>>>> REPLACE\n```\n";
    let mut files = MemoryFileSet::new();
    let err = apply_text(reply, &mut files, &ApplyOptions::default()).unwrap_err();
    let ReplyError::Malformed { block, error } = err else { panic!("expected a refusal, got {err:?}") };
    assert_eq!((block.index, error.kind.as_str(), error.dialect.as_str()), (2, "append_not_last", "search-replace"));
    assert!(error.message.starts_with("`new.txt` is changed again after block 1, which creates the file or appends"));
    assert_eq!(files.paths().count(), 0, "nothing written");
    // The other order is fine: edits first, the append last.
    let mut files = MemoryFileSet::new().with("log.txt", "x\n");
    let last = "log.txt\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n\nlog.txt\n```\n<<<<<<< SEARCH\n=======\nz\n>>>>>>> REPLACE\n```\n";
    apply_text(last, &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(files.get_str("log.txt"), Some("y\nz\n"));
    apply_text(last, &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(files.get_str("log.txt"), Some("y\nz\n"), "a re-run changes nothing");
}

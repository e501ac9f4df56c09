use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use super::*;
use crate::editor::{Position, Range};
use crate::reply::BlockInfo;
use polypatch_core::FailureKind;

fn edit(start: (u32, u32), end: (u32, u32), text: &str) -> TextEdit {
    TextEdit::new(Range::new(Position::new(start.0, start.1), Position::new(end.0, end.1)), text)
}

/// Applies LSP edits to `old` as an editor does: in UTF-16 code units, every range in the
/// coordinates of `old` (line breaks `\n`, `\r\n`, `\r`).
fn apply_lsp(old: &str, edits: &[TextEdit]) -> String {
    let units: Vec<u16> = old.encode_utf16().collect();
    // Where each line starts, in code units.
    let mut starts = vec![0];
    for (i, &unit) in units.iter().enumerate() {
        if unit == u16::from(b'\n') || (unit == u16::from(b'\r') && units.get(i + 1) != Some(&u16::from(b'\n'))) {
            starts.push(i + 1);
        }
    }
    let offset = |p: Position| {
        let start = starts[p.line as usize];
        let next = starts.get(p.line as usize + 1).copied().unwrap_or(units.len());
        let at = start + p.character as usize;
        // A position inside the line or at its end, never in its line break.
        let body_end = units[start..next]
            .iter()
            .rposition(|&u| u != u16::from(b'\n') && u != u16::from(b'\r'))
            .map_or(start, |i| start + i + 1);
        assert!(at <= body_end, "{p:?} is past the end of its line");
        at
    };
    let mut out = units.clone();
    let mut last = usize::MAX;
    for e in edits.iter().rev() {
        let (start, end) = (offset(e.range.start), offset(e.range.end));
        assert!(start <= end && end <= last, "edits out of order or overlapping: {edits:?}");
        last = start;
        out.splice(start..end, e.new_text.encode_utf16());
    }
    String::from_utf16(&out).expect("edits split no surrogate pair")
}

/// The files under `dir`, with their bytes.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), fs::read(e.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

fn texts(outcome: &Outcome) -> Vec<(&str, &str)> {
    outcome.texts.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect()
}

#[test]
fn a_buffer_wins_over_the_disk_and_a_file_only_on_disk_is_read_from_the_root() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "saved\n").unwrap();
    fs::write(dir.path().join("b.txt"), "one\ntwo\n").unwrap();
    let before = snapshot(dir.path());
    let buffers = Buffers::new().with("a.txt", "unsaved\n").root(dir.path());
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-unsaved\n+edited\n\
                 *** Update File: b.txt\n@@\n one\n-two\n+deux\n*** End Patch\n";
    let outcome = buffers.apply(patch, &ApplyOptions::default()).unwrap();
    assert_eq!(texts(&outcome), [("a.txt", "edited\n"), ("b.txt", "one\ndeux\n")]);
    assert_eq!((outcome.before("a.txt"), outcome.before("b.txt")), (Some("unsaved\n"), Some("one\ntwo\n")));
    assert!(outcome.deleted.is_empty() && outcome.moved.is_empty());
    assert!(outcome.report.committed && outcome.report.is_success());
    assert_eq!(outcome.report.blocks[0].status, Status::Applied);
    // Nothing under the root changed, and nothing was added (no journal, no temporary file).
    assert_eq!(snapshot(dir.path()), before);

    // The disk's text is not what the patch expects of a.txt: the buffer is what is read.
    let stale = "*** Begin Patch\n*** Update File: a.txt\n@@\n-saved\n+edited\n*** End Patch\n";
    let err = buffers.apply(stale, &ApplyOptions::default()).unwrap_err();
    let first = err.report().and_then(ReplyReport::first_failure).expect("a failure");
    assert_eq!((first.file.path.as_str(), first.failure.kind), ("a.txt", FailureKind::NotFound));
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn a_reply_with_two_blocks_for_two_files() {
    let reply = "Rename it:\n\n```diff\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,2 +1,2 @@\n-fn old() {}\n+fn new() {}\n fn keep() {}\n```\n\n\
                 and call it:\n\n```\n*** Begin Patch\n*** Update File: src/b.rs\n@@\n-    old();\n+    new();\n*** End Patch\n```\n";
    let buffers = Buffers::new()
        .with("src/a.rs", "fn old() {}\nfn keep() {}\n")
        .with("./src/b.rs", "fn main() {\n    old();\n}\n");
    let outcome = buffers.apply(reply, &ApplyOptions::default()).unwrap();
    assert_eq!(
        texts(&outcome),
        [("src/a.rs", "fn new() {}\nfn keep() {}\n"), ("src/b.rs", "fn main() {\n    new();\n}\n")]
    );
    let blocks: Vec<_> = outcome.report.blocks.iter().map(|b| (b.block.to_string(), b.status)).collect();
    assert_eq!(
        blocks,
        [
            ("block 1 (unified, lines 4-9)".to_string(), Status::Applied),
            ("block 2 (ai-patch, lines 15-20)".to_string(), Status::Applied)
        ]
    );
    assert_eq!(outcome.text_edits("src/a.rs"), Some(vec![edit((0, 3), (0, 6), "new")]));
    assert_eq!(outcome.text_edits("src/b.rs"), Some(vec![edit((1, 4), (1, 7), "new")]));
    assert_eq!(outcome.text_edits("src/c.rs"), None);
    assert_eq!(BlockInfo::new(1, "unified").index, outcome.report.blocks[0].block.index);
}

/// A character of U+10FF80..=U+10FFFF (the range the engine's text uses for bytes that
/// are not UTF-8) in the patch is that character in the new text: in a unified diff
/// (applied byte for byte) and in AI-PATCH (a text dialect). Before: the diff wrote the
/// byte 0xEE (`NotText` for the buffer's new text), AI-PATCH refused "not UTF-8".
#[test]
fn a_patch_character_of_the_raw_byte_range_is_that_character() {
    let buffers = Buffers::new().with("a.txt", "one\ntwo\n");
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+t\u{10ffee}o\n";
    let outcome = buffers.apply(diff, &ApplyOptions::default()).unwrap();
    assert_eq!(texts(&outcome), [("a.txt", "one\nt\u{10ffee}o\n")]);
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+t\u{10ffee}o\n*** End Patch\n";
    let outcome = buffers.apply(patch, &ApplyOptions::default()).unwrap();
    assert_eq!(texts(&outcome), [("a.txt", "one\nt\u{10ffee}o\n")]);
    // The buffer holding the character already: the patch's context line matches it.
    let buffers = Buffers::new().with("a.txt", "t\u{10ffee}o\n");
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n t\u{10ffee}o\n+x\n";
    let outcome = buffers.apply(diff, &ApplyOptions::default()).unwrap();
    assert_eq!(texts(&outcome), [("a.txt", "t\u{10ffee}o\nx\n")]);
}

#[test]
fn a_delete_and_a_move() {
    let buffers = Buffers::new().with("a.txt", "alpha\nbeta\n").with("b.txt", "bye\n").with("c.txt", "same\n");
    let patch = "*** Begin Patch\n*** Delete File: b.txt\n\
                 *** Update File: a.txt\n*** Move to: ./moved//a.txt\n@@\n alpha\n-beta\n+gamma\n*** End Patch\n";
    let outcome = buffers.apply(patch, &ApplyOptions::default()).unwrap();
    assert_eq!(texts(&outcome), [("moved/a.txt", "alpha\ngamma\n")]);
    assert_eq!(outcome.deleted, ["b.txt"]);
    assert_eq!(outcome.moved.iter().collect::<Vec<_>>(), [(&"a.txt".to_string(), &"moved/a.txt".to_string())]);
    // The moved file's edits are against its old text: rename, then edit.
    assert_eq!(outcome.before("moved/a.txt"), Some("alpha\nbeta\n"));
    assert_eq!(outcome.text_edits("moved/a.txt"), Some(vec![edit((1, 0), (1, 3), "gamm")]));

    // Moved twice over two blocks: first path → last path.
    let reply = "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b2.txt\n@@\n-alpha\n+ALPHA\n*** End Patch\n\nthen\n\n\
                 *** Begin Patch\n*** Update File: b2.txt\n*** Move to: c2.txt\n@@\n-beta\n+BETA\n*** End Patch\n";
    let outcome = buffers.apply(reply, &ApplyOptions::default()).unwrap();
    assert_eq!(texts(&outcome), [("c2.txt", "ALPHA\nBETA\n")]);
    assert_eq!(outcome.moved.iter().collect::<Vec<_>>(), [(&"a.txt".to_string(), &"c2.txt".to_string())]);
    assert!(outcome.deleted.is_empty());
    assert_eq!(apply_lsp(outcome.before("c2.txt").unwrap(), &outcome.text_edits("c2.txt").unwrap()), "ALPHA\nBETA\n");
}

#[test]
fn a_failing_patch_returns_the_failure_and_no_texts() {
    let buffers = Buffers::new().with("a.txt", "one\n").with("b.txt", "here\n");
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n\
                 *** Update File: b.txt\n@@\n-gone\n+GONE\n*** End Patch\n";
    let err = buffers.apply(patch, &ApplyOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "block 1 (ai-patch, lines 1-10): b.txt: hunk 1: not found: the lines to find are not in the file (first \
         line: `gone`)\n  next step: re-read the file and copy the context and removed lines exactly as they are \
         now; if the change was already made, drop this edit"
    );
    let Error::Reply(ReplyError::NotApplied { report, commit_error: None, .. }) = &err else { panic!("{err:?}") };
    assert!(!report.committed);
    let statuses: Vec<_> = report.blocks[0].report.files.iter().map(|f| f.status).collect();
    // a.txt was located, but nothing is delivered.
    assert_eq!(statuses, [Status::Located, Status::Failed]);
    let first = report.first_failure().unwrap();
    assert_eq!((first.file.path.as_str(), first.failure.kind), ("b.txt", FailureKind::NotFound));
    assert_eq!(err.to_string(), first.to_string());

    let err = buffers.apply("Looks good to me.\n", &ApplyOptions::default()).unwrap_err();
    assert!(matches!(err, Error::Reply(ReplyError::NoPatch)), "{err:?}");
    let err = Buffers::new().with("../up.txt", "x").apply(patch, &ApplyOptions::default()).unwrap_err();
    assert!(err.to_string().starts_with("the buffer `../up.txt`: "), "{err}");
    let err = Buffers::new().root("/nonexistent/polypatch-root").apply(patch, &ApplyOptions::default()).unwrap_err();
    assert!(matches!(err, Error::Root(_)), "{err:?}");
    assert!(err.to_string().contains("`/nonexistent/polypatch-root`"), "{err}");
}

#[test]
fn a_dry_run_gives_the_texts_and_says_located() {
    let buffers = Buffers::new().with("a.txt", "one\n");
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n";
    let outcome = buffers.apply(patch, &ApplyOptions::default().dry_run(true)).unwrap();
    assert_eq!(texts(&outcome), [("a.txt", "two\n")]);
    assert!(!outcome.report.committed);
    assert_eq!(outcome.report.blocks[0].status, Status::Located);
}

#[test]
fn lsp_edits_of_crlf_emoji_bom_and_missing_newline_texts() {
    let buffers = Buffers::new()
        .with("crlf.txt", "one\r\ntwo\r\nthree\r\n")
        .with("emoji.txt", "🎉 party 🎉 time\nend\n")
        .with("bom.txt", "\u{feff}first\nsecond\n")
        .with("tail.txt", "a\nb");
    let patch = "*** Begin Patch\n\
                 *** Update File: crlf.txt\n@@\n one\n-two\n+TWO\n+2½\n three\n\
                 *** Update File: emoji.txt\n@@\n-🎉 party 🎉 time\n+🎉 party 🎊 now\n end\n\
                 *** Update File: bom.txt\n@@\n-\u{feff}first\n+\u{feff}1st\n second\n\
                 *** Update File: tail.txt\n@@\n a\n-b\n+b\n+c\n*** End of File\n*** End Patch\n";
    let outcome = buffers.apply(patch, &ApplyOptions::default()).unwrap();
    assert_eq!(
        texts(&outcome),
        [
            ("bom.txt", "\u{feff}1st\nsecond\n"),
            ("crlf.txt", "one\r\nTWO\r\n2½\r\nthree\r\n"),
            ("emoji.txt", "🎉 party 🎊 now\nend\n"),
            ("tail.txt", "a\nb\nc"),
        ]
    );
    let expected = [
        // The BOM is one unit of line 0; `first` → `1st` keeps `st`.
        ("bom.txt", vec![edit((0, 1), (0, 4), "1")]),
        // Inserting whole lines: the range does not split the `\r\n` before it.
        ("crlf.txt", vec![edit((1, 0), (1, 3), "TWO\r\n2½")]),
        // Each emoji is 2 UTF-16 units: `🎉 party ` is 9 units.
        ("emoji.txt", vec![edit((0, 9), (0, 16), "🎊 now")]),
        ("tail.txt", vec![edit((1, 1), (1, 1), "\nc")]),
    ];
    for (path, edits) in expected {
        assert_eq!(outcome.text_edits(path).as_ref(), Some(&edits), "{path}");
        assert_eq!(apply_lsp(outcome.before(path).unwrap(), &edits), outcome.texts[path], "{path}");
    }
}

#[test]
fn lsp_edits_rebuild_the_new_text_exactly() {
    let texts = [
        "",
        "a",
        "a\n",
        "a\r\n",
        "a\rb\r",
        "one\r\ntwo\r\nthree",
        "one\ntwo\nthree\n",
        "one\r\ntwo\nthree\r",
        "\u{feff}one\n",
        "👋🏽 hi\n🎉\n",
        "x👋y\r\n👋\r\n",
        "α\r\nβ\r\nγ\r\n",
        "\r\n\r\n\r\n",
        "a\r",
        "a\r\nb",
    ];
    for old in texts {
        for new in texts {
            let edits = text_edits(old, new);
            assert_eq!(apply_lsp(old, &edits), new, "{old:?} → {new:?}: {edits:?}");
            assert_eq!(edits.is_empty(), old == new);
        }
    }
    // A range ending between `\r` and `\n` is widened over the whole line break; a `\r`
    // inserted before a `\n` is inserted at the end of the line.
    assert_eq!(text_edits("a\r\nb", "a\nb"), [edit((0, 1), (1, 0), "\n")]);
    assert_eq!(text_edits("a\nb", "a\r\nb"), [edit((0, 1), (0, 1), "\r")]);
    assert_eq!(text_edits("a\r\nb\r\n", "a\r\nX\r\nb\r\n"), [edit((1, 0), (1, 0), "X\r\n")]);
    // Two changes far apart are two edits, in order.
    let old = "1\n2\n3\n4\n5\n6\n";
    assert_eq!(text_edits(old, "1\nX\n3\n4\n5\nY\n"), [edit((1, 0), (1, 1), "X"), edit((5, 0), (5, 1), "Y")]);
}

#[test]
fn lsp_edits_serialize_as_lsp_json() {
    let json = serde_json::to_value(edit((1, 2), (3, 4), "x")).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"range": {"start": {"line": 1, "character": 2}, "end": {"line": 3, "character": 4}}, "newText": "x"})
    );
    assert_eq!(serde_json::from_value::<TextEdit>(json).unwrap(), edit((1, 2), (3, 4), "x"));
}

#[test]
fn an_already_applied_patch_gives_no_texts() {
    let buffers = Buffers::new().with("a.txt", "two\n");
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n";
    let outcome = buffers.apply(patch, &ApplyOptions::default()).unwrap();
    assert!(outcome.texts.is_empty(), "{:?}", outcome.texts);
    assert!(outcome.deleted.is_empty() && outcome.moved.is_empty());
    assert_eq!(outcome.report.blocks[0].status, Status::AlreadyApplied);
    assert_eq!(outcome.text_edits("a.txt"), None);
}

#[test]
fn a_file_on_disk_is_deleted_in_the_outcome_only_and_binary_content_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("old.txt"), "bye\n").unwrap();
    fs::write(dir.path().join("latin1.txt"), b"caf\xe9\nold\n").unwrap();
    let before = snapshot(dir.path());
    let buffers = Buffers::new().root(dir.path());
    let delete = "*** Begin Patch\n*** Delete File: old.txt\n*** End Patch\n";
    let outcome = buffers.apply(delete, &ApplyOptions::default()).unwrap();
    assert_eq!((outcome.texts.len(), outcome.deleted.as_slice()), (0, ["old.txt".to_string()].as_slice()));
    let edit = "--- a/latin1.txt\n+++ b/latin1.txt\n@@ -2 +2 @@\n-old\n+new\n";
    let err = buffers.apply(edit, &ApplyOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the content of `latin1.txt` is not UTF-8 text, and buffers hold text only; apply this patch to the \
         files on disk instead"
    );
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn lsp_edits_of_texts_too_different_to_diff_in_time_are_coarser_but_exact() {
    // Every line differs from every other: the line diff's search is bounded, and what it
    // gives past its bound is still the exact change.
    let (mut old, mut new) = (String::new(), String::new());
    for i in 0..20_000 {
        write!(old, "old {i} 👋\r\n").unwrap();
        writeln!(new, "{i} new 🎉").unwrap();
    }
    let edits = text_edits(&old, &new);
    assert_eq!(apply_lsp(&old, &edits), new);
}

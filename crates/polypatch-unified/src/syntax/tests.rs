use crate::error::{
    BINARY_WITHOUT_DATA, EMPTY_HUNK, EMPTY_SECTION, HUNK_OUTSIDE_FILE, INVALID_BINARY, INVALID_HEADER,
    INVALID_HUNK_HEADER, INVALID_MODE, INVALID_PATH, MISSING_NEW_HEADER, NO_DIFF,
};
use polypatch_core::ErrorKind;
use proptest::prelude::*;

use super::*;

/// The lines as a split on `\n` gives them: a mark skipped, no line after a final newline.
fn lines_by_split(text: &str) -> Vec<(&str, &str, bool, usize)> {
    let bom = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
    let body = &text[bom..];
    let body = body.strip_suffix('\n').unwrap_or(body);
    if body.is_empty() && bom == text.len() {
        return Vec::new();
    }
    let mut start = bom;
    body.split('\n')
        .map(|piece| {
            let stripped = piece.strip_suffix('\r');
            let line = (stripped.unwrap_or(piece), piece, stripped.is_some(), start);
            start += piece.len() + 1;
            line
        })
        .collect()
}

#[test]
fn lines_match_a_split_on_newlines() {
    const PIECES: &[&str] = &["", "\n", "\r\n", "\r", "a", "\u{feff}", "\u{feff}x\n", "é\r", "\n\n"];
    for a in PIECES {
        for b in PIECES {
            for c in PIECES {
                let text = format!("{a}{b}{c}");
                let lines = Lines::new(&text);
                let got: Vec<_> =
                    (0..lines.len()).map(|i| lines.at(i)).map(|l| (l.text, l.raw, l.cr, l.start)).collect();
                assert_eq!(got, lines_by_split(&text), "{text:?}");
                assert!(lines.get(lines.len()).is_none());
            }
        }
    }
}

fn parsed(text: &str) -> Patch<'_> {
    parse(text).unwrap_or_else(|e| panic!("{}", e.render(text)))
}

fn only(text: &str) -> FilePatch<'_> {
    let mut patch = parsed(text);
    assert_eq!(patch.files.len(), 1, "one section");
    patch.files.remove(0)
}

/// The span of the only occurrence of `needle` in `text`.
fn at(text: &str, needle: &str) -> Span {
    let start = text.find(needle).expect("needle in text");
    assert_eq!(text.matches(needle).count(), 1, "{needle:?} occurs once");
    Span::new(start, start + needle.len())
}

fn err(text: &str) -> PatchError {
    match parse(text) {
        Ok(patch) => panic!("expected an error, parsed {patch:#?}"),
        Err(e) => e,
    }
}

/// The lines of a hunk as `(prefix, text)` pairs.
fn body(hunk: &Hunk<'_>) -> Vec<(char, String)> {
    hunk.lines
        .iter()
        .map(|l| {
            let c = match l.kind {
                LineKind::Context => ' ',
                LineKind::Removed => '-',
                LineKind::Added => '+',
            };
            (c, l.text.to_owned())
        })
        .collect()
}

fn lines(spec: &[&str]) -> Vec<(char, String)> {
    spec.iter().map(|s| (s.chars().next().unwrap(), s[1..].to_owned())).collect()
}

fn path(p: &str) -> PathName {
    PathName::Path(p.into())
}

#[test]
fn git_modify_section_with_spans() {
    let text = "diff --git a/src/x.rs b/src/x.rs\nindex 1234567..89abcde 100644\n--- a/src/x.rs\n+++ b/src/x.rs\n@@ -1,3 +1,3 @@ fn main() {\n a\n-b\n+B\n c\n";
    let file = only(text);
    assert_eq!(
        file.git,
        Some(GitLine {
            names: Some(("a/src/x.rs".into(), "b/src/x.rs".into())),
            span: at(text, "diff --git a/src/x.rs b/src/x.rs")
        })
    );
    assert_eq!(
        file.headers,
        [ExtendedHeader {
            header: Header::Index { old: "1234567".into(), new: "89abcde".into(), mode: Some(0o100_644) },
            span: at(text, "index 1234567..89abcde 100644"),
        }]
    );
    assert_eq!(file.old, Some(FileName { name: path("a/src/x.rs"), epoch: false, span: at(text, "--- a/src/x.rs") }));
    assert_eq!(file.new, Some(FileName { name: path("b/src/x.rs"), epoch: false, span: at(text, "+++ b/src/x.rs") }));
    assert_eq!(file.span, Span::new(0, text.len() - 1));
    let [hunk] = file.hunks.as_slice() else { panic!("one hunk") };
    assert_eq!(
        hunk.ranges,
        Some(HunkRanges { old: HunkRange { start: 1, count: 3 }, new: HunkRange { start: 1, count: 3 } })
    );
    assert_eq!(hunk.section, "fn main() {");
    assert!(!hunk.recounted);
    assert_eq!(body(hunk), lines(&[" a", "-b", "+B", " c"]));
    assert_eq!(hunk.header_span, at(text, "@@ -1,3 +1,3 @@ fn main() {"));
    assert_eq!(&text[hunk.span.start..hunk.span.end], "@@ -1,3 +1,3 @@ fn main() {\n a\n-b\n+B\n c");
    assert_eq!(hunk.lines[1].span, at(text, "-b"));
}

#[test]
fn every_extended_header() {
    let text = "\
diff --git a/old b/new
old mode 100644
new mode 100755
similarity index 90%
dissimilarity index 10%
rename from old
rename to new
index 0123456789012345678901234567890123456789..abcdefabcdefabcdefabcdefabcdefabcdefabcd
diff --git a/c b/d
copy from c
copy to d
diff --git a/n b/n
new file mode 100755
index 0000000..e69de29
diff --git a/g b/g
deleted file mode 100644
index e69de29..0000000
";
    let patch = parsed(text);
    let headers: Vec<Vec<Header>> =
        patch.files.iter().map(|f| f.headers.iter().map(|h| h.header.clone()).collect()).collect();
    assert_eq!(
        headers,
        [
            vec![
                Header::OldMode(0o100_644),
                Header::NewMode(0o100_755),
                Header::Similarity(90),
                Header::Dissimilarity(10),
                Header::RenameFrom("old".into()),
                Header::RenameTo("new".into()),
                Header::Index {
                    old: "0123456789012345678901234567890123456789".into(),
                    new: "abcdefabcdefabcdefabcdefabcdefabcdefabcd".into(),
                    mode: None
                },
            ],
            vec![Header::CopyFrom("c".into()), Header::CopyTo("d".into())],
            vec![
                Header::NewFileMode(0o100_755),
                Header::Index { old: "0000000".into(), new: "e69de29".into(), mode: None }
            ],
            vec![
                Header::DeletedFileMode(0o100_644),
                Header::Index { old: "e69de29".into(), new: "0000000".into(), mode: None }
            ],
        ]
    );
    assert!(patch.files.iter().all(|f| f.hunks.is_empty() && f.old.is_none()));
    assert_eq!(&text[patch.files[1].span.start..patch.files[1].span.end], "diff --git a/c b/d\ncopy from c\ncopy to d");
}

#[test]
fn quoted_names_in_git_and_file_lines() {
    let text = "diff --git \"a/t\\303\\251st\\tx\" \"b/t\\303\\251st\\tx\"\n--- \"a/t\\303\\251st\\tx\"\n+++ \"b/t\\303\\251st\\tx\"\n@@ -1 +1 @@\n-a\n+b\n";
    let file = only(text);
    assert_eq!(file.git.unwrap().names, Some(("a/tést\tx".into(), "b/tést\tx".into())));
    assert_eq!(file.old.unwrap().name, path("a/tést\tx"));
    assert_eq!(file.new.unwrap().name, path("b/tést\tx"));
    let text = "diff --git a/x b/y\nrename from \"sp ace\\\"q\"\nrename to plain\n";
    assert_eq!(only(text).headers[0].header, Header::RenameFrom("sp ace\"q".into()));
}

#[test]
fn unquoted_names_with_spaces() {
    let file =
        only("diff --git a/my file.txt b/my file.txt\n--- a/my file.txt\n+++ b/my file.txt\n@@ -1 +1 @@\n-a\n+b\n");
    assert_eq!(file.git.unwrap().names, Some(("a/my file.txt".into(), "b/my file.txt".into())));
    // Different names with spaces: no certain split; the rename headers name the files.
    let file =
        only("diff --git a/one two b/three four\nsimilarity index 100%\nrename from one two\nrename to three four\n");
    assert_eq!(file.git.unwrap().names, None);
}

#[test]
fn dev_null_and_new_file() {
    let text = "diff --git a/n.txt b/n.txt\nnew file mode 100644\nindex 0000000..3b18e51\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n";
    let file = only(text);
    assert_eq!(file.old.unwrap().name, PathName::DevNull);
    assert_eq!(body(&file.hunks[0]), lines(&["+x", "+y"]));
}

#[test]
fn plain_diff_with_timestamps() {
    let text = "--- hello.c\t2024-01-01 10:00:00.000000000 +0100\n+++ hello.c\t2024-01-02 11:00:00.000000000 +0100\n@@ -1 +1 @@\n-a\n+b\n";
    let file = only(text);
    assert!(file.git.is_none());
    assert_eq!(file.old.unwrap().name, path("hello.c"));
    assert_eq!(file.new.unwrap().name, path("hello.c"));
}

#[test]
fn diff_run_with_command_lines_and_epoch() {
    let text = "\
Only in old: gone.txt
diff -ruN old/a.txt new/a.txt
--- old/a.txt\t2024-01-01 10:00:00.000000000 +0000
+++ new/a.txt\t2024-01-01 11:00:00.000000000 +0000
@@ -1 +1 @@
-a
+b
diff -ruN old/n.txt new/n.txt
--- old/n.txt\t1970-01-01 00:00:00.000000000 +0000
+++ new/n.txt\t2024-01-01 11:00:00.000000000 +0000
@@ -0,0 +1 @@
+new
";
    let patch = parsed(text);
    assert_eq!(patch.files.len(), 2);
    assert!(!patch.files[0].old.as_ref().unwrap().epoch);
    assert!(patch.files[1].old.as_ref().unwrap().epoch);
    assert_eq!(body(&patch.files[1].hunks[0]), lines(&["+new"]));
}

#[test]
fn junk_mail_headers_fences_and_index_lines_are_skipped() {
    let text = "\
From 1234 Mon Sep 17 00:00:00 2001
From: A <a@example.com>
Subject: [PATCH] fix

Some prose.
---
 x | 2 +-

```diff
Index: x
===================================================================
--- a/x
+++ b/x
@@ -1,2 +1,2 @@
-a
+b
 c
```

Between the files.

```diff
--- a/y
+++ b/y
@@ -1 +1 @@
-y
+Y
```
-- 
2.43.0
";
    let patch = parsed(text);
    assert_eq!(patch.files.len(), 2);
    assert_eq!(body(&patch.files[0].hunks[0]), lines(&["-a", "+b", " c"]));
    assert_eq!(body(&patch.files[1].hunks[0]), lines(&["-y", "+Y"]));
}

#[test]
fn format_patch_signature_is_not_a_removed_line() {
    let text = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n-- \n2.43.0\n";
    let file = only(text);
    assert_eq!(body(&file.hunks[0]), lines(&["-a", "+b"]));
    assert!(!file.hunks[0].recounted);
}

#[test]
fn empty_line_in_a_hunk_is_empty_context() {
    let text = "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n\n-b\n+B\n\nprose after\n";
    let hunk = &only(text).hunks[0];
    assert_eq!(body(hunk), [(' ', "a".to_owned()), (' ', String::new()), ('-', "b".to_owned()), ('+', "B".to_owned())]);
    assert!(!hunk.recounted);
}

#[test]
fn no_newline_markers_on_either_side() {
    let text = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n";
    let hunk = &only(text).hunks[0];
    assert_eq!(body(hunk), lines(&["-a", "+b"]));
    assert!(hunk.lines[0].no_newline && hunk.lines[1].no_newline);
    assert!(!hunk.recounted);
    let text = "--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n-a\n\\ Kein Zeilenumbruch am Dateiende.\n+a\n+b\n";
    let hunk = &only(text).hunks[0];
    assert_eq!((hunk.lines[0].no_newline, hunk.lines[1].no_newline, hunk.lines[2].no_newline), (true, false, false));
}

#[test]
fn a_cr_before_the_no_newline_marker_is_text() {
    // The file ends with "a\r" and no LF: the `\r` is the last byte, not half a CRLF.
    let text = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\r\n \r\n\\ No newline at end of file\n+a\r\n\\ No newline at end of file\n";
    let hunk = &only(text).hunks[0];
    let got: Vec<(&str, bool, bool)> = hunk.lines.iter().map(|l| (l.text, l.cr, l.no_newline)).collect();
    assert_eq!(got, [("a", true, false), ("\r", false, true), ("a\r", false, true)]);
}

#[test]
fn several_files_and_hunks() {
    let text = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n@@ -10 +10 @@\n-c\n+d\n\n@@ -20 +20 @@\n-e\n+f\ndiff --git a/y b/y\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n";
    let patch = parsed(text);
    assert_eq!(patch.files.len(), 2);
    assert_eq!(patch.files[0].hunks.len(), 3);
    assert_eq!(body(&patch.files[0].hunks[2]), lines(&["-e", "+f"]));
}

#[test]
fn wrong_counts_are_recounted() {
    // Too small: the body goes on after the counted lines.
    let hunk = &only("--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n a\n-b\n+B\n c\n").hunks[0];
    assert_eq!(body(hunk), lines(&[" a", "-b", "+B", " c"]));
    assert!(hunk.recounted);
    // Too large: the text ends first.
    let hunk = &only("--- a/x\n+++ b/x\n@@ -1,9 +1,9 @@\n a\n-b\n+B\n").hunks[0];
    assert_eq!(body(hunk), lines(&[" a", "-b", "+B"]));
    assert!(hunk.recounted);
    // Too large, and a fence follows: stop at the fence.
    let hunk = &only("```diff\n--- a/x\n+++ b/x\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n\n```\n").hunks[0];
    assert_eq!(body(hunk), lines(&[" a", "-b", "+B"]));
    // An empty line followed by more hunk lines is context.
    let hunk = &only("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n\n c\n").hunks[0];
    assert_eq!(body(hunk).len(), 5);
    assert_eq!(hunk.lines[3].text, "");
}

/// Issue 26, point 2: a hunk shorter than its header whose text stops mid-line is a reply
/// cut off, not a count to correct; every other reading of that hunk stays as it was.
#[test]
fn a_hunk_cut_off_mid_line_is_truncated() {
    let text = "--- a/m.py\n+++ b/m.py\n@@ -2,3 +2,5 @@\n     pass\n \n+    def database_backwards(self, app_l";
    let e = err(text);
    assert_eq!((e.kind, e.span), (ErrorKind::TRUNCATED, Some(at(text, "+    def database_backwards(self, app_l"))));
    assert_eq!(
        e.message,
        "the patch ends in the middle of a line at line 6, inside a hunk its header `@@ -2,3 +2,5 @@` counts 3 old \
         and 5 new lines for (the text has 2 and 3): the reply was probably cut off; ask for it again"
    );
    // The same cut in a second file's hunk, after a complete first file.
    let two = format!("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n{text}");
    assert_eq!(err(&two).kind, ErrorKind::TRUNCATED);
    // Short of its counts but ending with a line break: recounted, as before.
    assert!(only(&format!("{text}\n")).hunks[0].recounted);
    // Every line its header counts, no final line break: complete.
    let hunk = &only("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+B").hunks[0];
    assert!(!hunk.recounted);
    // A `\ No newline at end of file` line ends the text: the file's end, not a cut.
    assert!(parse("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n\\ No newline at end of file").is_ok());
    // No counts to fall short of (`@@`): read as before.
    assert!(parse("--- a/x\n+++ b/x\n@@\n a\n-b\n+B").is_ok());
    // A blank tail is no half line.
    assert!(parse("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n  ").is_ok());
    // Cut where the next hunk or file begins, after a complete hunk.
    let complete = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n";
    for tail in ["@", "di", "diff --gi"] {
        let text = format!("{complete}{tail}");
        let e = err(&text);
        let span = Span::new(complete.len(), text.len());
        assert_eq!((e.kind, e.span), (ErrorKind::TRUNCATED, Some(span)), "{tail}");
        assert!(e.message.contains("at line 7, where the next hunk or file begins"), "{}", e.message);
    }
    // Prose after a diff, or a tail with its line break, is not a cut.
    assert!(parse(&format!("{complete}Done")).is_ok());
    assert!(parse(&format!("{complete}@\n")).is_ok());
}

#[test]
fn recounting_never_swallows_the_next_file() {
    let text = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-c\n+d\n";
    let patch = parsed(text);
    assert_eq!(patch.files.len(), 2);
    assert_eq!(body(&patch.files[0].hunks[0]), lines(&["-a", "+b"]));
    assert!(patch.files[0].hunks[0].recounted);
    // Counts that fit keep a `--- ` removed line and a `+++ ` added line.
    let text = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n--- old\n+++ new\n";
    assert_eq!(body(&only(text).hunks[0]), lines(&["--- old", "+++ new"]));
}

#[test]
fn hunks_without_numbers() {
    for header in ["@@ @@", "@@", "@@ fn main() {"] {
        let text = format!("--- a/x\n+++ b/x\n{header}\n a\n-b\n+B\n");
        let hunk = &only(&text).hunks[0];
        assert_eq!(hunk.ranges, None, "{header}");
        assert!(hunk.recounted);
        assert_eq!(body(hunk), lines(&[" a", "-b", "+B"]));
    }
    let hunk = &only("--- a/x\n+++ b/x\n@@ -3 +3,2\n a\n+b\n").hunks[0];
    assert_eq!(
        hunk.ranges,
        Some(HunkRanges { old: HunkRange { start: 3, count: 1 }, new: HunkRange { start: 3, count: 2 } })
    );
}

#[test]
fn crlf_lines_are_marked() {
    let text = "--- a/x\r\n+++ b/x\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+B\r\n";
    let file = only(text);
    assert_eq!(file.new.unwrap().name, path("b/x"));
    let hunk = &file.hunks[0];
    assert_eq!(body(hunk), lines(&[" a", "-b", "+B"]));
    assert!(hunk.lines.iter().all(|l| l.cr));
    assert!(!hunk.recounted);
}

#[test]
fn mode_only_and_rename_only_sections() {
    let text = "diff --git a/x b/x\nold mode 100644\nnew mode 100755\ndiff --git a/y b/z\nsimilarity index 100%\nrename from y\nrename to z\n";
    let patch = parsed(text);
    assert_eq!(patch.files.len(), 2);
    assert!(patch.files.iter().all(|f| f.hunks.is_empty()));
}

#[test]
fn errors_have_kinds_and_spans() {
    let cases: &[(&str, ErrorKind, &str)] = &[
        ("just some text\n", NO_DIFF, ""),
        ("", NO_DIFF, ""),
        ("prose\n@@ -1 +1 @@\n-a\n+b\n", HUNK_OUTSIDE_FILE, "@@ -1 +1 @@"),
        ("--- a/x\n+++ b/x\n@@ -1,x +1 @@\n-a\n", INVALID_HUNK_HEADER, "@@ -1,x +1 @@"),
        ("--- a/x\n+++ b/x\n@@@ -1 -1 +1 @@@\n-a\n", INVALID_HUNK_HEADER, "@@@ -1 -1 +1 @@@"),
        ("--- a/x\n+++ b/x\n@@ -1 +1 junk\n-a\n", INVALID_HUNK_HEADER, "@@ -1 +1 junk"),
        (
            "--- a/x\n+++ b/x\n@@ -99999999999999999999999 +1 @@\n-a\n",
            INVALID_HUNK_HEADER,
            "@@ -99999999999999999999999 +1 @@",
        ),
        ("diff --git a/x b/x\n--- a/x\nprose\n", MISSING_NEW_HEADER, "--- a/x"),
        ("--- a/x\n+++ b/x\n@@ -1 +1 @@\nprose\n", EMPTY_HUNK, "@@ -1 +1 @@"),
        ("diff --git a/x b/x\nprose\n", EMPTY_SECTION, "diff --git a/x b/x"),
        ("--- a/x\n+++ b/x\nprose\n", EMPTY_SECTION, "--- a/x\n+++ b/x"),
        ("diff --git \"a/x b/x\n", INVALID_PATH, "diff --git \"a/x b/x"),
        ("--- \"a/\\q\"\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", INVALID_PATH, "\"a/\\q\""),
        ("diff --git a/x b/x\nold mode 10064z\n", INVALID_MODE, "10064z"),
        ("diff --git a/x b/x\nnew file mode 040000\n", INVALID_MODE, "040000"),
        ("diff --git a/x b/x\nsimilarity index lots\n", INVALID_HEADER, "lots"),
        ("diff --git a/x b/x\nindex zz..yy\n", INVALID_HEADER, "index zz..yy"),
        (
            "diff --git a/x.png b/x.png\nindex 1234567..89abcde 100644\nBinary files a/x.png and b/x.png differ\n",
            BINARY_WITHOUT_DATA,
            "Binary files a/x.png and b/x.png differ",
        ),
        (
            "Binary files old/x.png and new/x.png differ\n",
            BINARY_WITHOUT_DATA,
            "Binary files old/x.png and new/x.png differ",
        ),
    ];
    for (text, kind, offending) in cases {
        let e = err(text);
        assert_eq!((e.dialect.as_str(), &e.kind), ("unified", kind), "{text:?}: {}", e.render(text));
        if offending.is_empty() {
            assert_eq!(e.span, None, "{text:?}");
        } else {
            assert_eq!(e.span, Some(at(text, offending)), "{text:?}: {}", e.render(text));
        }
        assert!(!e.message.ends_with('.'), "{}", e.message);
    }
}

#[test]
fn errors_render_with_line_and_column() {
    let text = "--- a/x\n+++ b/x\n@@ -1,x +1 @@\n-a\n";
    let rendered = err(text).render(text);
    assert!(rendered.contains("line 3, column 1"), "{rendered}");
    assert!(rendered.contains("3 | @@ -1,x +1 @@"), "{rendered}");
    assert!(rendered.ends_with(&"^".repeat("@@ -1,x +1 @@".len())), "{rendered}");
}

#[test]
fn bom_is_skipped() {
    let text = "\u{feff}--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
    let file = only(text);
    assert_eq!(file.span.start, 3);
}

#[cfg(feature = "git-binary")]
#[test]
fn binary_literal_and_reverse_blocks() {
    // `git diff --binary` of a new file holding the bytes 0, 1, 2.
    let text = "diff --git a/h.bin b/h.bin\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..8352675d67aed6625ece79af41c27fdb4ee2e867\nGIT binary patch\nliteral 3\nKcmZQzWC8#H2LJ>B\n\nliteral 0\nHcmV?d00001\n\n";
    let file = only(text);
    let binary = file.binary.unwrap();
    assert_eq!(binary.forward, BinaryHunk::Literal(vec![0, 1, 2]));
    assert_eq!(binary.reverse, Some(BinaryHunk::Literal(Vec::new())));
}

#[cfg(feature = "git-binary")]
#[test]
fn bad_binary_data_is_invalid_binary() {
    let text = "diff --git a/h.bin b/h.bin\nGIT binary patch\nliteral 5\n!!!!\n\n";
    assert_eq!(err(text).kind, INVALID_BINARY);
}

#[test]
fn binary_block_header_errors_need_no_decoding() {
    let text = "diff --git a/h.bin b/h.bin\nGIT binary patch\nliteral five\n";
    let e = err(text);
    assert_eq!((e.kind, e.span), (INVALID_BINARY, Some(at(text, "literal five"))));
    let text = "diff --git a/h.bin b/h.bin\nGIT binary patch\nprose\n";
    let e = err(text);
    assert_eq!((e.kind, e.span), (INVALID_BINARY, Some(at(text, "prose"))));
}

#[test]
fn sniff_levels() {
    assert_eq!(sniff("diff --git a/x b/x\n"), 90);
    assert_eq!(sniff("--- a\n+++ b\n@@ -1 +1 @@\n"), 80);
    assert_eq!(sniff("text\n@@ -1,2 +1,3 @@\n"), 50);
    assert_eq!(sniff("--- a\n+++ b\n"), 0);
    assert_eq!(sniff("*** Begin Patch\n*** Update File: x\n@@\n-a\n+b\n*** End Patch\n"), 0);
}

/// Lines that look like pieces of diffs, to build hostile texts from.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("diff --git a/x b/x".to_owned()),
        Just("diff --git \"a/\\303\" b".to_owned()),
        Just("--- a/x".to_owned()),
        Just("+++ b/x".to_owned()),
        Just("--- /dev/null".to_owned()),
        Just("+++ /dev/null".to_owned()),
        Just("new file mode 100644".to_owned()),
        Just("deleted file mode 100644".to_owned()),
        Just("old mode 120000".to_owned()),
        Just("rename from x".to_owned()),
        Just("rename to y".to_owned()),
        Just("copy from x".to_owned()),
        Just("index 0000000..1234567 100644".to_owned()),
        Just("\\ No newline at end of file".to_owned()),
        Just("@@ @@".to_owned()),
        Just("@@".to_owned()),
        Just("-- ".to_owned()),
        Just("GIT binary patch".to_owned()),
        Just("literal 3".to_owned()),
        Just("delta 5".to_owned()),
        Just("KcmZQzWC8#H2LJ>B".to_owned()),
        Just("Binary files a/x and b/x differ".to_owned()),
        Just(String::new()),
        Just("\r".to_owned()),
        (0usize..30, 0usize..5, 0usize..30, 0usize..5).prop_map(|(a, b, c, d)| format!("@@ -{a},{b} +{c},{d} @@")),
        "[ +\\-@\\\\a-c\"]{0,6}",
        "\\PC{0,8}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn never_panics_on_diff_like_text(lines in proptest::collection::vec(fragment(), 0..24), crlf in any::<bool>()) {
        let text = lines.join(if crlf { "\r\n" } else { "\n" });
        if let Ok(patch) = parse(&text) {
            for file in &patch.files {
                prop_assert!(file.span.start <= file.span.end && file.span.end <= text.len());
                for hunk in &file.hunks {
                    prop_assert!(!hunk.lines.is_empty());
                    prop_assert!(hunk.span.end <= text.len());
                }
            }
            let _ = crate::lower::lower(&patch, &polypatch_core::ParseOptions::default());
            let _ = crate::lower::lower(&patch, &polypatch_core::ParseOptions::default().strip(2));
        }
        let _ = sniff(&text);
    }

    #[test]
    fn never_panics_on_arbitrary_text(text in "\\PC{0,400}") {
        if let Ok(patch) = parse(&text) {
            let _ = crate::lower::lower(&patch, &polypatch_core::ParseOptions::default());
        }
        let _ = sniff(&text);
    }
}

/// The nom grammars the hand-written readers of hunk headers and `index` lines replaced,
/// kept as the reference they must agree with.
mod nom_reference {
    use nom::Parser as _;
    use nom::bytes::complete::tag;
    use nom::character::complete::{char, digit1, hex_digit1, space0, space1};
    use nom::combinator::{map_res, opt};
    use nom::sequence::preceded;

    use super::super::{HunkRange, HunkRanges};

    fn number(input: &str) -> nom::IResult<&str, usize> {
        map_res(digit1, str::parse::<usize>).parse(input)
    }

    fn range(input: &str) -> nom::IResult<&str, HunkRange> {
        let (rest, (start, count)) = (number, opt(preceded(char(','), number))).parse(input)?;
        Ok((rest, HunkRange { start, count: count.unwrap_or(1) }))
    }

    /// `-a[,b] +c[,d]` then blanks: the ranges and the rest.
    pub fn ranges(input: &str) -> Option<(HunkRanges, &str)> {
        let parsed: nom::IResult<&str, (HunkRanges, &str)> = (
            |i| {
                let (rest, (old, _, new)) =
                    (preceded(char('-'), range), space1, preceded(char('+'), range)).parse(i)?;
                Ok((rest, HunkRanges { old, new }))
            },
            space0,
        )
            .parse(input);
        parsed.ok().map(|(rest, (ranges, _))| (ranges, rest))
    }

    pub fn index(value: &str) -> Option<(&str, &str, Option<&str>)> {
        let parsed: nom::IResult<&str, (&str, &str, Option<&str>)> =
            (hex_digit1, preceded(tag(".."), hex_digit1), opt(preceded(space1, digit1))).parse(value);
        match parsed {
            Ok((rest, ids)) if rest.trim().is_empty() => Some(ids),
            _ => None,
        }
    }
}

fn hand_ranges(input: &str) -> Option<(HunkRanges, &str)> {
    ranges(input).map(|(r, rest)| (r, skip_blanks(rest)))
}

const HEADER_CASES: &[&str] = &[
    "-1,2 +3,4 @@",
    "-1 +1",
    "-1,2\t+3,4@@ x",
    "-1, +2 @@",
    "-1,x +2 @@",
    "-1 +2, @@",
    "-1 +2,x @@",
    "-1+2 @@",
    "-18446744073709551616 +1 @@",
    "-1,18446744073709551616 +1 @@",
    "-1 +1,18446744073709551616 @@",
    "-18446744073709551615,0 +0,18446744073709551615",
    "- 1 +1",
    "-1 + 1",
    "-0001,002 +3 \t @@ section",
    "-",
    "",
    "-1 +١ @@",
];

const INDEX_CASES: &[&str] = &[
    "1234567..89abcde 100644",
    "1234567..89ABCDE",
    "abc..def  ",
    "abc..def x",
    "abc..def 100644 x",
    "abc..def\t100644\t",
    "abc..def100644",
    "..def",
    "abc..",
    "abc.def",
    "abc..def 99999999999999999999999",
    "abc..def ١٢",
    "",
];

#[test]
fn hand_readers_agree_with_the_nom_grammars_on_edge_cases() {
    for case in HEADER_CASES {
        assert_eq!(hand_ranges(case), nom_reference::ranges(case), "{case:?}");
    }
    for case in INDEX_CASES {
        assert_eq!(index_ids(case), nom_reference::index(case), "{case:?}");
    }
}

proptest! {
    #[test]
    fn hand_readers_agree_with_the_nom_grammars(text in "[-+, \t0-9a-fA-F.@x]{0,24}") {
        prop_assert_eq!(hand_ranges(&text), nom_reference::ranges(&text));
        prop_assert_eq!(index_ids(&text), nom_reference::index(&text));
    }
}

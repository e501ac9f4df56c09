//! Format detection is unambiguous on every fixture patch: for `spec-fixtures/<dialect>/*/patch`
//! and `spec-fixtures/equivalence/*/patch.<dialect>`, the fixture's dialect scores highest and
//! strictly above the runner-up. And `extract`, built on the same sniffers, is total on
//! replies cut off anywhere.

use std::fs;
use std::path::Path;

/// Fixtures whose patch holds no recognisable marker of its dialect (a malformed case about
/// the missing marker itself), each with the reason.
const UNRECOGNISABLE: &[(&str, &str)] = &[
    ("unified/malformed_no_diff", "prose only: the case is a reply without any diff"),
    ("applydiff/malformed_no_blocks", "prose only: the case is a reply without any block"),
    ("aptix/malformed_no_bundle", "prose only: the case is a reply without any bundle"),
];

#[test]
fn every_fixture_is_detected_as_its_dialect_unambiguously() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("spec-fixtures");
    let mut problems = Vec::new();
    let mut checked = 0;
    let mut check = |name: String, dialect: &str, path: &Path| {
        let text = polypatch::fs::decode_lossless(&fs::read(path).expect("a readable patch")).into_owned();
        let scores = polypatch::extract::detect_all(&text);
        let (top, top_score) = scores[0];
        let runner_up = scores[1].1;
        checked += 1;
        if UNRECOGNISABLE.iter().any(|(n, _)| *n == name) {
            return;
        }
        if top.name() != dialect || top_score <= runner_up {
            let all: Vec<_> = scores.iter().map(|(d, s)| format!("{}={s}", d.name())).collect();
            problems.push(format!("{name}: {}", all.join(" ")));
        }
    };
    for dialect in polypatch::Dialects::global().names() {
        let Ok(cases) = fs::read_dir(base.join(dialect)) else { continue };
        for case in cases.flatten() {
            let patch = case.path().join("patch");
            if patch.is_file() {
                check(format!("{dialect}/{}", case.file_name().to_string_lossy()), dialect, &patch);
            }
        }
    }
    for case in fs::read_dir(base.join("equivalence")).expect("the equivalence cases").flatten() {
        for dialect in polypatch::Dialects::global().names() {
            let patch = case.path().join(format!("patch.{dialect}"));
            if patch.is_file() {
                check(format!("equivalence/{}/patch.{dialect}", case.file_name().to_string_lossy()), dialect, &patch);
            }
        }
    }
    assert!(checked > 100, "only {checked} fixtures found");
    for (name, _) in UNRECOGNISABLE {
        assert!(base.join(name).join("patch").is_file(), "the exception list names `{name}`, which is not a fixture");
    }
    assert!(
        problems.is_empty(),
        "{} of {checked} fixtures are not detected unambiguously:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// `extract` on every prefix of every chat reply (a reply cut off mid-stream, as a model's
/// reply can be): no panic, blocks in order without overlap, each block's text its span.
#[test]
fn extract_is_total_on_cut_off_replies() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("spec-fixtures/chat");
    let mut replies = 0;
    for case in fs::read_dir(&base).expect("the chat cases").flatten() {
        let reply = fs::read_to_string(case.path().join("patch")).expect("a UTF-8 reply");
        replies += 1;
        for cut in (0..=reply.len()).filter(|&i| reply.is_char_boundary(i)) {
            let text = &reply[..cut];
            // The fuzz target's invariants: detect, detect_all, extract and plan_reply agree.
            polypatch::fuzzing::detect_format(text.as_bytes());
            let blocks = polypatch::extract(text);
            let mut end = 0;
            for block in &blocks {
                assert!(block.span.start >= end && block.span.end >= block.span.start, "{cut}: {blocks:?}");
                assert_eq!(block.text, &text[block.span.start..block.span.end]);
                assert!(block.confidence > 0 && block.lines.start <= block.lines.end + 1);
                end = block.span.end;
            }
        }
    }
    assert!(replies >= 8, "only {replies} chat replies found");
}

/// A bare git diff in prose: its binary data lines (a length letter, then git's base85
/// alphabet, every character of it) belong to the block, and a line with any other
/// character after the letter, or a non-ASCII one, ends it.
#[test]
fn a_binary_diffs_data_lines_are_its_own_and_nothing_else_is() {
    let alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
    let reversed: String = alphabet.chars().rev().collect();
    let diff = format!(
        "diff --git a/f.bin b/f.bin\nnew file mode 100644\nindex 0000000..e69de29\nGIT binary patch\nliteral 85\n\
         z{alphabet}\nA{reversed}\n\nliteral 0\nHcmV?d00001\n"
    );
    let blocks = |reply: &str| -> Vec<String> { polypatch::extract(reply).iter().map(|b| b.text.to_owned()).collect() };
    assert_eq!(blocks(&format!("Here it is:\n\n{diff}\nThat is all.\n")), [diff.as_str()]);
    for stray in ["\"", " ", "\\", "é", "[", "\t"] {
        let cut = diff.replace("z0123", &format!("z0{stray}123"));
        let first_data = cut.find("z0").unwrap();
        let got = blocks(&format!("Here it is:\n\n{cut}\nThat is all.\n"));
        assert_eq!(got.first().map(String::as_str), Some(&cut[..first_data]), "{stray:?}");
    }
}

/// A patch or reply whose last line ends in a multi-byte character, without a line break
/// (issue 25, point 7: `extract` sliced the reply one byte before a block's end, inside
/// the character, and every command that looks for blocks panicked).
const WIDE_ENDS: &[&str] = &["é", "日本", "🦀", "e\u{301}"];

/// What applying a case gives: the file's bytes after, or the malformed line and a piece of
/// the message.
type Outcome = Result<String, (usize, &'static str)>;

/// Each dialect's text ending in `end`: the dialect, the text, and the outcome of applying
/// it to `a.txt` = `hello\nworld\n`.
fn wide_cases(end: &str) -> Vec<(&'static str, String, Outcome)> {
    let applied = Ok(format!("hi{end}\nworld\n"));
    vec![
        (
            "ai-patch",
            format!("*** Begin Patch\n*** Update File: a.txt\n@@\n-hello\n+hi{end}"),
            Err((5, "`*** End Patch`")),
        ),
        ("unified", format!("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello\n+hi{end}"), applied.clone()),
        (
            "unified",
            format!("diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello\n+hi{end}"),
            applied.clone(),
        ),
        (
            "ap",
            format!(
                "version: \"2.0\"\nchanges:\n  - file_path: a.txt\n    modifications:\n      - action: REPLACE\n        \
                 snippet: hello\n        content: hi{end}"
            ),
            applied.clone(),
        ),
        // Cut off inside a block, mid-line (issue 26, point 2).
        ("applydiff", format!(">>> file: a.txt\n--- from\nhello\n--- to\nhi{end}"), Err((5, "probably cut off"))),
        (
            "aptix",
            format!(
                "{{\"root\": \".\", \"files\": [{{\"path\": \"a.txt\", \"operation\": \"patch\", \"patches\": \
                 [{{\"find\": \"hello\", \"replace\": \"hi{end}\"}}]}}]}} {end}"
            ),
            Err((1, "trailing characters")),
        ),
        // A fence that never closes, the reply stopping mid-line: cut off (issue 26, point 2).
        (
            "unified",
            format!("Fix:\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello\n+hi{end}"),
            Err((7, "inside a fenced `diff` block that never closes")),
        ),
    ]
}

#[test]
fn a_text_ending_in_a_multibyte_character_without_a_line_break() {
    for end in WIDE_ENDS {
        for (dialect, text, outcome) in wide_cases(end) {
            let blocks = polypatch::extract(&text);
            assert_eq!(blocks.len(), 1, "{text:?}: {blocks:?}");
            let block = &blocks[0];
            assert_eq!((block.dialect.as_str(), block.span.end), (dialect, text.len()), "{text:?}");
            assert_eq!(block.lines.end, text.lines().count(), "{text:?}");
            assert_eq!(block.text, &text[block.span.start..], "{text:?}");
            let mut files = polypatch::MemoryFileSet::new().with("a.txt", "hello\nworld\n");
            let result = polypatch::apply_text(&text, &mut files, &polypatch::ApplyOptions::default());
            match (outcome, result) {
                (Ok(after), Ok(report)) => {
                    assert!(report.committed, "{text:?}");
                    assert_eq!(files.get_str("a.txt"), Some(after.as_str()), "{text:?}");
                }
                (Err((line, message)), Err(polypatch::ReplyError::Malformed { block, error })) => {
                    assert_eq!((block.index, error.dialect.as_str()), (1, dialect), "{text:?}");
                    assert_eq!(error.line_col(&text).map(|(l, _)| l), Some(line), "{}", error.render(&text));
                    assert!(error.message.contains(message), "{text:?}: {}", error.message);
                    assert_eq!(files.get_str("a.txt"), Some("hello\nworld\n"), "nothing written");
                }
                (outcome, result) => panic!("{text:?}: expected {outcome:?}, got {result:?}"),
            }
            // The fuzz target's invariants hold on every cut of the text too.
            for cut in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                polypatch::fuzzing::detect_format(&text.as_bytes()[..cut]);
            }
        }
    }
}

proptest::proptest! {
    /// Any text after any dialect's patch or a reply, without a final line break: the blocks
    /// found are in the text, on character boundaries, and planning them does not panic.
    #[test]
    fn any_unterminated_tail_is_read_without_panic(case in 0usize..7, tail in "\\PC{0,6}") {
        let (_, text, _) = wide_cases("").swap_remove(case);
        let text = format!("{text}{tail}");
        polypatch::fuzzing::detect_format(text.as_bytes());
        for block in polypatch::extract(&text) {
            proptest::prop_assert!(text.is_char_boundary(block.span.start) && text.is_char_boundary(block.span.end));
            proptest::prop_assert!(block.lines.end <= text.lines().count().max(1));
        }
    }
}

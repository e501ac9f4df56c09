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
        let text = polypatch::decode_lossless(&fs::read(path).expect("a readable patch")).into_owned();
        let scores = polypatch::detect_all(&text);
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
    for dialect in polypatch::dialect_names() {
        let Ok(cases) = fs::read_dir(base.join(dialect)) else { continue };
        for case in cases.flatten() {
            let patch = case.path().join("patch");
            if patch.is_file() {
                check(format!("{dialect}/{}", case.file_name().to_string_lossy()), dialect, &patch);
            }
        }
    }
    for case in fs::read_dir(base.join("equivalence")).expect("the equivalence cases").flatten() {
        for dialect in polypatch::dialect_names() {
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

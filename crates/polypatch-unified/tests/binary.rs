//! `GIT binary patch` data: base85 + zlib round trips, vectors written by real
//! `git diff --binary`, and malformed input.

use std::path::Path;
use std::process::Command;

use polypatch_unified::binary::{decode, encode, encode_block, encode_raw};
use proptest::prelude::*;

fn lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

/// Deterministic pseudo-random bytes (xorshift), so vectors do not need a rand crate.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// Runs git in `dir`; `None` when git is not installed.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "core.autocrlf=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    assert!(output.status.success(), "git {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    Some(String::from_utf8(output.stdout).expect("git diff --binary output is ASCII"))
}

/// One `literal`/`delta` block of a `GIT binary patch`.
struct Block<'a> {
    kind: &'a str,
    size: usize,
    lines: Vec<&'a str>,
}

/// The blocks of every `GIT binary patch` in a diff.
fn blocks(diff: &str) -> Vec<Block<'_>> {
    let mut out = Vec::new();
    let mut iter = diff.lines().peekable();
    while let Some(line) = iter.next() {
        let Some((kind, size)) = line.split_once(' ') else { continue };
        if kind != "literal" && kind != "delta" {
            continue;
        }
        let Ok(size) = size.parse() else { continue };
        let mut data = Vec::new();
        while let Some(next) = iter.next_if(|l| !l.is_empty()) {
            data.push(next);
        }
        out.push(Block { kind, size, lines: data });
    }
    out
}

/// A new git repository in a temporary directory; `None` (with a message) without git.
fn repo() -> Option<tempfile::TempDir> {
    let dir = tempfile::tempdir().unwrap();
    if git(dir.path(), &["init", "-q"]).is_none() {
        eprintln!("skipped: git is not installed");
        return None;
    }
    Some(dir)
}

/// `git diff --binary` of `x.bin` changed from `before` to `after` in the repository `root`.
fn binary_diff(root: &Path, before: &[u8], after: &[u8]) -> String {
    std::fs::write(root.join("x.bin"), before).unwrap();
    git(root, &["add", "."]).unwrap();
    git(root, &["commit", "-q", "-m", "before"]).unwrap();
    std::fs::write(root.join("x.bin"), after).unwrap();
    git(root, &["diff", "--binary"]).unwrap()
}

#[test]
fn vectors_from_git_new_files() {
    let Some(dir) = repo() else { return };
    let root = dir.path();
    let sizes = [1usize, 4, 26, 27, 52, 53, 104, 1000, 70_000];
    let files: Vec<(String, Vec<u8>)> = sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            // Half noise, half zeros: compressible but binary (NUL bytes).
            let mut bytes = noise(i as u64 + 1, n / 2);
            bytes.resize(n, 0);
            (format!("f{n}.bin"), bytes)
        })
        .collect();
    for (name, bytes) in &files {
        std::fs::write(root.join(name), bytes).unwrap();
    }
    git(root, &["add", "."]).unwrap();
    let diff = git(root, &["diff", "--cached", "--binary"]).unwrap();
    let found = blocks(&diff);
    // Each new file: a forward literal of the content and a reverse `literal 0`.
    assert_eq!(found.len(), files.len() * 2, "{diff}");
    let mut checked = 0;
    for block in &found {
        assert_eq!(block.kind, "literal");
        let data = decode(&block.lines, block.size).unwrap();
        if block.size == 0 {
            assert!(data.is_empty());
            continue;
        }
        let (_, expected) = files.iter().find(|(_, b)| b.len() == block.size).unwrap();
        assert_eq!(&data, expected);
        checked += 1;
    }
    assert_eq!(checked, files.len());
}

#[test]
fn vectors_from_git_modified_file() {
    let Some(dir) = repo() else { return };
    let root = dir.path();
    let before = noise(7, 300);
    let after = noise(99, 500);
    let diff = binary_diff(root, &before, &after);
    let found = blocks(&diff);
    assert_eq!(found.len(), 2, "{diff}");
    // Unrelated noise: git writes both directions as literals.
    assert_eq!((found[0].kind, found[0].size), ("literal", 500));
    assert_eq!((found[1].kind, found[1].size), ("literal", 300));
    assert_eq!(decode(&found[0].lines, 500).unwrap(), after);
    assert_eq!(decode(&found[1].lines, 300).unwrap(), before);
}

#[test]
fn git_delta_blocks_decode_to_their_size() {
    let Some(dir) = repo() else { return };
    let root = dir.path();
    let before = noise(3, 4000);
    let mut after = before.clone();
    after[2000..2010].copy_from_slice(b"0123456789");
    let diff = binary_diff(root, &before, &after);
    let found = blocks(&diff);
    assert_eq!(found.len(), 2, "{diff}");
    for block in &found {
        assert_eq!(block.kind, "delta");
        let data = decode(&block.lines, block.size).unwrap();
        // A git delta starts with the base size and the result size (little-endian base-128).
        assert_eq!(data.len(), block.size);
        assert_eq!(&data[..2], &[0xa0, 0x1f], "4000 as a varint");
    }
}

#[test]
fn git_accepts_our_literal_blocks() {
    // git apply checks the full index line of a binary patch and decodes our data.
    let Some(dir) = repo() else { return };
    let root = dir.path();
    let content = noise(11, 777);
    std::fs::write(root.join("data.bin"), &content).unwrap();
    let id = git(root, &["hash-object", "data.bin"]).unwrap().trim().to_string();
    std::fs::remove_file(root.join("data.bin")).unwrap();
    let patch = format!(
        "diff --git a/data.bin b/data.bin\nnew file mode 100644\nindex {zero}..{id}\nGIT binary patch\n{forward}{reverse}",
        zero = "0".repeat(40),
        forward = encode_block(&content),
        reverse = encode_block(b""),
    );
    std::fs::write(root.join("p.diff"), &patch).unwrap();
    git(root, &["apply", "--binary", "p.diff"]).unwrap();
    assert_eq!(std::fs::read(root.join("data.bin")).unwrap(), content);
}

#[test]
fn encode_block_shape() {
    let block = encode_block(&[0u8; 100]);
    let mut parts = block.split('\n');
    assert_eq!(parts.next(), Some("literal 100"));
    assert!(block.ends_with("\n\n"));
    let data: Vec<&str> = block.lines().skip(1).take_while(|l| !l.is_empty()).collect();
    assert_eq!(decode(&data, 100).unwrap(), vec![0u8; 100]);
}

#[test]
fn empty_input_round_trips() {
    assert_eq!(decode(&lines(&encode(b"")), 0).unwrap(), b"");
    // git's own encoding of nothing.
    assert_eq!(decode(&["HcmV?d00001"], 0).unwrap(), b"");
}

#[test]
fn bad_length_character() {
    let err = decode(&["IcmZPo000310RR91", "0cmZPo"], 1).unwrap_err();
    assert_eq!(err.line, 1);
    assert!(err.message.contains("bad length character"), "{}", err.message);
    assert_eq!(decode(&[""], 0).unwrap_err().line, 0);
}

#[test]
fn bad_base85_character() {
    for bad in ["IcmZPo000310RR9 ", "IcmZPo000310RR9\"", "IcmZPo000310RR9,", "IcmZPo000310RR9é"] {
        let err = decode(&[bad], 1).unwrap_err();
        assert_eq!(err.line, 0, "{bad}");
        assert!(
            err.message.contains("bad base85 character") || err.message.contains("base85 characters"),
            "{bad}: {}",
            err.message
        );
    }
}

#[test]
fn line_length_must_match_its_length_character() {
    // `I` = 9 bytes = 15 characters; one too few and one too many.
    let short = decode(&["IcmZPo000310RR9"], 1).unwrap_err();
    assert!(short.message.contains("announces 9 bytes"), "{}", short.message);
    let long = decode(&["IcmZPo000310RR910"], 1).unwrap_err();
    assert_eq!(long.line, 0);
    // `J` = 10 bytes also takes 15 characters: the padding byte becomes data after the
    // end of the zlib stream.
    let trailing = decode(&["JcmZPo000310RR91"], 1).unwrap_err();
    assert_eq!(trailing.message, "1 byte of data after the end of the zlib stream");
}

#[test]
fn group_overflow() {
    // `|NsC0` is 0xffffffff; `~~~~~` is far beyond 32 bits.
    let err = decode(&["D~~~~~"], 4).unwrap_err();
    assert!(err.message.contains("overflows"), "{}", err.message);
}

#[test]
fn truncated_data() {
    let content = noise(5, 400);
    let text = encode(&content);
    let all = lines(&text);
    assert!(all.len() > 2);
    let err = decode(&all[..all.len() - 1], 400).unwrap_err();
    assert_eq!(err.line, all.len() - 2);
    assert!(err.message.contains("truncated") || err.message.contains("bad zlib"), "{}", err.message);
}

#[test]
fn wrong_size() {
    let text = encode(b"0123456789");
    let all = lines(&text);
    let small = decode(&all, 9).unwrap_err();
    assert!(small.message.contains("more than the announced 9"), "{}", small.message);
    let big = decode(&all, 11).unwrap_err();
    assert_eq!(big.message, "data inflates to 10 bytes, but the block announces 11");
    assert_eq!(big.line, all.len() - 1);
}

#[test]
fn bad_zlib() {
    // Valid base85 of bytes that are not a zlib stream (bad header).
    let garbage = b"hello world, not zlib";
    let encoded = base85_raw(garbage);
    let err = decode(&[&encoded], 10).unwrap_err();
    assert_eq!(err.line, 0);
    assert!(err.message.contains("bad zlib data"), "{}", err.message);
}

/// One raw base85 data line (valid base85, not deflated), to build input that is not a
/// valid zlib stream.
fn base85_raw(bytes: &[u8]) -> String {
    assert!(bytes.len() <= 52);
    encode_raw(bytes).trim_end_matches('\n').to_string()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn round_trip(data in proptest::collection::vec(any::<u8>(), 0..3000)) {
        let text = encode(&data);
        prop_assert!(text.ends_with('\n'));
        for line in text.lines() {
            prop_assert!(line.len() <= 66);
        }
        prop_assert_eq!(decode(&lines(&text), data.len()).unwrap(), data);
    }

    #[test]
    fn raw_base85_lines_round_trip(data in proptest::collection::vec(any::<u8>(), 1..=52)) {
        // A valid line of raw bytes decodes (then fails as zlib, never panics).
        let line = base85_raw(&data);
        let _ = decode(&[&line], data.len());
    }

    #[test]
    fn arbitrary_lines_never_panic(input in proptest::collection::vec("[ -~]{0,70}", 0..5), size in 0usize..200) {
        let refs: Vec<&str> = input.iter().map(String::as_str).collect();
        let _ = decode(&refs, size);
    }
}

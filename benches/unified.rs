//! Benchmarks of the unified dialect.
//!
//! - `parse/unified`: parse and lower a generated multi-megabyte git diff (2,000 file
//!   sections, 5 hunks each, 3 context lines per side), reported in bytes per second;
//! - `parse/unified-auto`: the same diff read with [`Format::Auto`]: every dialect sniffs
//!   it first;
//! - `parse/unified-recount`: the same diff with every hunk's counts wrong, so that every
//!   hunk is recounted from its body;
//! - `generate/100k-lines-50-changes`: a git diff of a 100,000-line file with 50 changed
//!   lines.
//!
//! Inputs are generated deterministically. Each is checked once before measuring.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use polypatch::unified::generate::{DiffOptions, Side, diff_file};
use polypatch::{Format, ParseOptions, plan::FileOp};

mod common;
use common::Rng;

const WORDS: &[&str] = &[
    "buffer", "cache", "config", "cursor", "entry", "event", "frame", "handle", "index", "layer", "node", "offset",
    "queue", "record", "request", "result", "session", "state", "stream", "token", "value", "window",
];

fn line(rng: &mut Rng) -> String {
    let (a, b) = (WORDS[rng.below(WORDS.len())], WORDS[rng.below(WORDS.len())]);
    match rng.below(4) {
        0 => format!("    let {a} = {b}.get({})?;", rng.below(1000)),
        1 => format!("    if {a}.len() > {} {{ return Err(Error::{b}); }}", rng.below(100)),
        2 => format!("    // update the {a} before the {b} ({})", rng.below(10_000)),
        _ => format!("    out.push({a}_{b}({}));", rng.below(512)),
    }
}

/// A git diff of `files` sections with `hunks` hunks each; with `wrong_counts`, every
/// hunk header claims two lines more on each side than the body has.
fn make_diff(files: usize, hunks: usize, wrong_counts: bool) -> String {
    let mut rng = Rng(0xD1FF_5EED);
    let mut out = String::new();
    for f in 0..files {
        let path = format!("src/module_{f}/file_{f}.rs");
        writeln!(out, "diff --git a/{path} b/{path}\nindex 1234567..89abcde 100644\n--- a/{path}\n+++ b/{path}")
            .unwrap();
        let mut old_line = 1;
        for _ in 0..hunks {
            old_line += 20 + rng.below(40);
            let extra = if wrong_counts { 2 } else { 0 };
            writeln!(out, "@@ -{old_line},{} +{old_line},{} @@ fn section_{f}() {{", 7 + extra, 8 + extra).unwrap();
            for _ in 0..3 {
                writeln!(out, " {}", line(&mut rng)).unwrap();
            }
            writeln!(out, "-{}", line(&mut rng)).unwrap();
            writeln!(out, "+{}", line(&mut rng)).unwrap();
            writeln!(out, "+{}", line(&mut rng)).unwrap();
            for _ in 0..3 {
                writeln!(out, " {}", line(&mut rng)).unwrap();
            }
            old_line += 7;
        }
    }
    out
}

fn check(diff: &str, files: usize, hunks: usize) {
    let plan = polypatch::parse_with(diff, Format::Unified, &ParseOptions::default()).expect("the diff parses");
    assert_eq!(plan.files.len(), files);
    for file in &plan.files {
        let FileOp::Modify(m) = &file.op else { panic!("a modification") };
        assert_eq!(m.edits.len(), hunks);
    }
}

fn bench_unified(c: &mut Criterion) {
    let (files, hunks) = (2_000, 5);
    let diff = make_diff(files, hunks, false);
    let recount = make_diff(files, hunks, true);
    check(&diff, files, hunks);
    check(&recount, files, hunks);

    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(diff.len() as u64));
    group.bench_function("unified", |b| b.iter(|| polypatch::parse(black_box(&diff), Format::Unified)));
    group.bench_function("unified-auto", |b| b.iter(|| polypatch::parse(black_box(&diff), Format::Auto)));
    group.throughput(Throughput::Bytes(recount.len() as u64));
    group.bench_function("unified-recount", |b| b.iter(|| polypatch::parse(black_box(&recount), Format::Unified)));
    group.finish();

    let mut rng = Rng(7);
    let before: String = (0..100_000).map(|_| line(&mut rng) + "\n").collect();
    let mut after_lines: Vec<&str> = before.lines().collect();
    let changed: Vec<String> = (0..50).map(|i| format!("    changed_{i}();")).collect();
    for (i, text) in changed.iter().enumerate() {
        after_lines[i * 2_000 + 1_000] = text;
    }
    let after = after_lines.join("\n") + "\n";
    let options = DiffOptions::default();
    let old = Side::new("big.rs", before.as_bytes());
    let new = Side::new("big.rs", after.as_bytes());
    let diff = diff_file(Some(old), Some(new), &options);
    assert_eq!(diff.matches("\n@@ ").count(), 50, "one hunk per change");

    let mut group = c.benchmark_group("generate");
    group.throughput(Throughput::Bytes(before.len() as u64));
    group.sample_size(20);
    group.bench_function("100k-lines-50-changes", |b| {
        b.iter(|| diff_file(Some(black_box(old)), Some(black_box(new)), &options));
    });
    group.finish();
}

criterion_group!(benches, bench_unified);
criterion_main!(benches);

//! Benchmarks of the AI-PATCH parser and the matching engine on generated source.
//!
//! - `parse`: a 50-hunk AI-PATCH;
//! - `locate+apply/exact`: that patch computed in memory against a 100,000-line file;
//! - `locate+apply/typo`: the same patch with a one-character typo in one context line of
//!   every hunk, so that the fuzzy tier runs for every hunk;
//! - `locate+apply/5k-file-single-hunk-fuzzy`: one hunk with a typo in a 5,000-line file;
//! - `extract/fenced-diffs/800k`: the blocks of an 800 KB reply of 5,000 fenced diffs with
//!   prose between them; `extract/unclosed-fences/800k`: an 800 KB reply of fences that
//!   open and never close, one inside the other (both took time by the square of the
//!   reply's size before issue 25; `benches/replies.py` times the whole process).
//!
//! Inputs are generated deterministically, so runs compare. Before measuring, each case is
//! checked once to apply as intended (every hunk applied, at the intended tier): a benchmark
//! that measured a failing apply would measure the wrong thing.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use polypatch::{
    ApplyOptions, EditPlan, Format, MemoryFileSet, compute,
    report::{Status, Tier},
};

mod common;
use common::{join, source_lines, typo};

const PATH: &str = "src/generated.rs";
const CONTEXT: usize = 3;

/// An AI-PATCH with `hunks` hunks spread evenly over `lines`, each replacing one statement
/// with `CONTEXT` context lines on each side. With `with_typo`, the longest context line of
/// every hunk carries a one-character typo.
fn make_patch(lines: &[String], hunks: usize, with_typo: bool) -> String {
    let mut patch = format!("*** Begin Patch\n*** Update File: {PATH}\n");
    for at in common::statement_slots(lines, hunks, CONTEXT) {
        let before = &lines[at - CONTEXT..at];
        let after = &lines[at + 1..=at + CONTEXT];
        let typo_at = with_typo.then(|| {
            (0..2 * CONTEXT)
                .max_by_key(|&k| if k < CONTEXT { before[k].len() } else { after[k - CONTEXT].len() })
                .expect("context lines")
        });
        patch.push_str("@@\n");
        for (k, line) in before.iter().chain(after).enumerate() {
            if k == CONTEXT {
                writeln!(patch, "-{}\n+{} // checked", lines[at], lines[at]).expect("writing to a String");
            }
            let text = if typo_at == Some(k) { typo(line) } else { line.clone() };
            writeln!(patch, " {text}").expect("writing to a String");
        }
    }
    patch.push_str("*** End Patch\n");
    patch
}

struct Case {
    files: MemoryFileSet,
    plan: EditPlan,
    lines: usize,
}

fn case(lines: usize, hunks: usize, with_typo: bool, tier: Tier) -> (Case, String) {
    let source = source_lines(lines, 0x5EED_C0DE);
    let patch = make_patch(&source, hunks, with_typo);
    let files = MemoryFileSet::new().with(PATH, join(&source));
    let plan = polypatch::parse(&patch, Format::AiPatch).expect("the generated patch parses");
    check(&plan, &files, hunks, tier);
    (Case { files, plan, lines }, patch)
}

/// Panics unless every hunk applies at `tier`.
fn check(plan: &EditPlan, files: &MemoryFileSet, hunks: usize, tier: Tier) {
    let computed = compute(plan, files, &ApplyOptions::default())
        .unwrap_or_else(|e| panic!("the benchmark patch must apply: {e}\n{}", e.report));
    let edits = &computed.report.files[0].edits;
    assert_eq!(edits.len(), hunks);
    for edit in edits {
        assert_eq!((edit.status, edit.tier), (Status::Located, Some(tier)), "{}", computed.report);
    }
}

/// A reply of at least `size` bytes made of `piece(i)` for i = 0, 1, …
fn reply(size: usize, piece: impl Fn(usize) -> String) -> String {
    let mut out = String::from("Here are the changes:\n\n");
    for i in 0.. {
        if out.len() >= size {
            break;
        }
        out.push_str(&piece(i));
    }
    out
}

fn bench_extract(c: &mut Criterion) {
    let fenced = reply(800_000, |i| {
        format!(
            "Step {i}:\n\n```diff\n--- a/f{i}.txt\n+++ b/f{i}.txt\n@@ -1,2 +1,2 @@\n-v{i}\n+v{}\n keep\n```\n\n",
            i + 1
        )
    });
    let unclosed = reply(800_000, |i| format!("```step{i}\n"));
    assert_eq!(polypatch::extract(&fenced).len(), fenced.matches("```diff").count());
    assert_eq!(polypatch::extract(&unclosed).len(), 0);
    let mut group = c.benchmark_group("extract");
    for (name, text) in [("fenced-diffs/800k", &fenced), ("unclosed-fences/800k", &unclosed)] {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| b.iter(|| polypatch::extract(black_box(text))));
    }
    group.finish();
}

fn bench_engine(c: &mut Criterion) {
    let (exact, patch) = case(100_000, 50, false, Tier::Exact);
    let (typo, _) = case(100_000, 50, true, Tier::Fuzzy);
    let (small, _) = case(5_000, 1, true, Tier::Fuzzy);
    let options = ApplyOptions::default();

    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(patch.len() as u64));
    group.bench_function("ai-patch/50-hunks", |b| b.iter(|| polypatch::parse(black_box(&patch), Format::AiPatch)));
    group.finish();

    let mut group = c.benchmark_group("locate+apply");
    for (name, case) in [("exact", &exact), ("typo", &typo), ("5k-file-single-hunk-fuzzy", &small)] {
        group.throughput(Throughput::Elements(case.lines as u64));
        group.bench_function(name, |b| {
            b.iter(|| compute(black_box(&case.plan), black_box(&case.files), &options).expect("checked above"));
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    // Few samples and short windows: the whole run stays within a few minutes on 2 cores.
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench_engine, bench_extract
}
criterion_main!(benches);

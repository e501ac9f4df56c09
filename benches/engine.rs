//! Benchmarks of the AI-PATCH parser and the matching engine on generated source.
//!
//! - `parse`: a 50-hunk AI-PATCH;
//! - `locate+apply/exact`: that patch computed in memory against a 100,000-line file;
//! - `locate+apply/typo`: the same patch with a one-character typo in one context line of
//!   every hunk, so that the fuzzy tier runs for every hunk;
//! - `locate+apply/5k-file-single-hunk-fuzzy`: one hunk with a typo in a 5,000-line file.
//!
//! Inputs are generated deterministically, so runs compare. Before measuring, each case is
//! checked once to apply as intended (every hunk applied, at the intended tier): a benchmark
//! that measured a failing apply would measure the wrong thing.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use polypatch::{ApplyOptions, EditPlan, Format, MemoryFileSet, Status, Tier, compute};

mod common;
use common::Rng;

const PATH: &str = "src/generated.rs";
const CONTEXT: usize = 3;

const NOUNS: &[&str] = &[
    "account", "buffer", "cache", "config", "cursor", "entry", "event", "frame", "handle", "index", "item", "key",
    "layer", "limit", "node", "offset", "packet", "queue", "record", "request", "result", "route", "scope", "session",
    "shard", "signal", "slot", "state", "stream", "table", "token", "value", "window", "worker",
];
const VERBS: &[&str] = &[
    "apply", "build", "check", "collect", "decode", "drain", "encode", "fetch", "flush", "load", "merge", "parse",
    "prepare", "read", "refresh", "render", "resolve", "scan", "split", "store", "update", "validate", "write",
];
const TYPES: &[&str] = &["u32", "u64", "usize", "i64", "String", "Vec<u8>", "bool", "Option<u32>"];

/// Rust-like source of exactly `lines` lines: functions with varied statements, and the
/// repetition real code has (`}`, blank lines, `Ok(())`, `let mut out = Vec::new();`).
fn source_lines(lines: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng(seed);
    let mut out = Vec::with_capacity(lines + 64);
    let mut n = 0usize;
    while out.len() < lines {
        n += 1;
        let (verb, noun) = (rng.pick(VERBS), rng.pick(NOUNS));
        out.push(format!("/// {verb}s the {noun} for step {n}."));
        out.push(format!(
            "pub fn {verb}_{noun}_{n}(input: &[{}], limit: usize) -> Result<{}, Error> {{",
            rng.pick(TYPES),
            rng.pick(TYPES)
        ));
        out.push("    let mut out = Vec::new();".to_string());
        for _ in 0..3 + rng.below(8) {
            let (a, b, c) = (rng.pick(NOUNS), rng.pick(NOUNS), rng.pick(VERBS));
            match rng.below(6) {
                0 => out.push(format!("    let {a}_{b} = {c}_{a}(input, {})?;", rng.below(1000))),
                1 => {
                    out.push(format!("    if {a}.len() > limit + {} {{", rng.below(64)));
                    out.push(format!("        return Err(Error::{}({a}.len()));", capitalize(b)));
                    out.push("    }".to_string());
                }
                2 => {
                    out.push(format!("    for {a} in input.iter().skip({}) {{", rng.below(16)));
                    out.push(format!("        out.push({c}_{b}(*{a}, {}));", rng.below(512)));
                    out.push("    }".to_string());
                }
                3 => out.push(String::new()),
                4 => out.push(format!("    // {c} the {a} before the {b} is read ({})", rng.below(10_000))),
                _ => out.push(format!("    out.extend({a}.{c}_{b}().take({}));", rng.below(256))),
            }
        }
        out.push("    Ok(out)".to_string());
        out.push("}".to_string());
        out.push(String::new());
    }
    out.truncate(lines);
    out
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
}

fn join(lines: &[String]) -> String {
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// One-character typo: the first ASCII letter after the indentation is replaced by another.
fn typo(line: &str) -> String {
    let at = line.find(|c: char| c.is_ascii_lowercase()).expect("a line with a letter");
    let c = line.as_bytes()[at];
    let replacement = if c == b'z' { 'y' } else { char::from(c + 1) };
    format!("{}{replacement}{}", &line[..at], &line[at + 1..])
}

/// An AI-PATCH with `hunks` hunks spread evenly over `lines`, each replacing one statement
/// with `CONTEXT` context lines on each side. With `with_typo`, the longest context line of
/// every hunk carries a one-character typo.
fn make_patch(lines: &[String], hunks: usize, with_typo: bool) -> String {
    let mut patch = format!("*** Begin Patch\n*** Update File: {PATH}\n");
    let stride = lines.len() / hunks;
    for h in 0..hunks {
        // The first line at or after the hunk's slot that is a statement unique to its
        // function (it names its own variables and numbers) and has room for context.
        let start = h * stride + stride / 2;
        let at = (start..start + stride / 2)
            .find(|&i| {
                i >= CONTEXT
                    && i + CONTEXT < lines.len()
                    && lines[i].starts_with("    let ")
                    && !lines[i].contains("mut out")
            })
            .expect("a statement in every slot");
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
        assert_eq!((edit.status, edit.tier), (Status::Applied, Some(tier)), "{}", computed.report);
    }
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
    targets = bench_engine
}
criterion_main!(benches);

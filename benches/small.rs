//! One file's text edited in memory, side by side with diffy (issue 28, point 7).
//!
//! Every row measures the whole unit a caller pays for: parse the unified diff, apply it
//! to the text, and hold the new text as a `String`. Nothing is parsed once and reused.
//!
//! - `small/200-lines-1-hunk/…`: a generated 200-line file and a one-hunk unified diff
//!   (one line replaced, three context lines on each side);
//! - `small/100k-lines-50-hunks/…`: a 100,000-line file and a 50-hunk diff of the same
//!   kind, to show that the large case keeps its lead.
//!
//! Each case has three rows: `diffy` (`diffy::Patch::from_str` and `diffy::apply`),
//! `polypatch/apply_str` (the one-call route: the dialect detected) and `polypatch/typed`
//! (`parse` as `Format::Unified`, `compute` on a [`MemoryFileSet`], the new bytes turned
//! into a `String`). Before measuring, every row's result is checked to be the intended
//! text, byte for byte: the tools must agree on what they measure.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use polypatch::{ApplyOptions, Format, MemoryFileSet, compute, fs::ChangeKind};

mod common;
use common::{join, source_lines};

const PATH: &str = "src/generated.rs";
const CONTEXT: usize = 3;

/// A unified diff of `hunks` hunks spread evenly over `lines`, each appending ` // checked`
/// to one `let` statement with `CONTEXT` context lines on each side; and the expected text.
fn make_case(lines: &[String], hunks: usize) -> (String, String) {
    let mut diff = format!("--- a/{PATH}\n+++ b/{PATH}\n");
    let mut expected = lines.to_vec();
    for at in common::statement_slots(lines, hunks, CONTEXT) {
        let first = at - CONTEXT + 1;
        let len = 2 * CONTEXT + 1;
        writeln!(diff, "@@ -{first},{len} +{first},{len} @@").expect("writing to a String");
        for line in &lines[at - CONTEXT..at] {
            writeln!(diff, " {line}").expect("writing to a String");
        }
        writeln!(diff, "-{}\n+{} // checked", lines[at], lines[at]).expect("writing to a String");
        for line in &lines[at + 1..=at + CONTEXT] {
            writeln!(diff, " {line}").expect("writing to a String");
        }
        expected[at] = format!("{} // checked", lines[at]);
    }
    (diff, join(&expected))
}

fn with_diffy(diff: &str, text: &str) -> String {
    let patch = diffy::Patch::from_str(diff).expect("diffy parses the diff");
    diffy::apply(text, &patch).expect("diffy applies the diff")
}

fn with_apply_str(diff: &str, text: &str) -> String {
    polypatch::apply_str(diff, PATH, text).expect("polypatch applies the diff")
}

fn with_typed(diff: &str, text: &str) -> String {
    let plan = polypatch::parse(diff, Format::Unified).expect("polypatch parses the diff");
    let files = MemoryFileSet::new().with(PATH, text);
    let mut computed = compute(&plan, &files, &ApplyOptions::default()).expect("polypatch applies the diff");
    match computed.changes.pop().map(|change| change.kind) {
        Some(ChangeKind::Write { bytes, .. }) => String::from_utf8(bytes.to_vec()).expect("UTF-8"),
        other => panic!("expected one write, got {other:?}"),
    }
}

/// One way to edit the text: the diff and the text in, the new text out.
type Route = fn(&str, &str) -> String;

fn bench_small(c: &mut Criterion) {
    let mut group = c.benchmark_group("small");
    for (name, lines, hunks) in [("200-lines-1-hunk", 200, 1), ("100k-lines-50-hunks", 100_000, 50)] {
        let source = source_lines(lines, 0x5EED_C0DE);
        let text = join(&source);
        let (diff, expected) = make_case(&source, hunks);
        let routes: [(&str, Route); 3] =
            [("diffy", with_diffy), ("polypatch/apply_str", with_apply_str), ("polypatch/typed", with_typed)];
        for (route, run) in routes {
            assert!(run(&diff, &text) == expected, "{route} on {name} gives another text");
        }
        group.throughput(Throughput::Elements(lines as u64));
        for (route, run) in routes {
            group.bench_function(format!("{name}/{route}"), |b| b.iter(|| run(black_box(&diff), black_box(&text))));
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    // Short windows: the whole run stays around a minute on 2 cores, so that it can be run
    // several times in a row on a loaded machine and the medians compared.
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench_small
}
criterion_main!(benches);

//! A lazy snippet merged in memory: a generated 5,000-line file (250 functions of 20
//! lines) and a snippet of 10 segments, each changing one line of one function with 3
//! unchanged lines on each side, markers between them. The row measures parse + apply +
//! the new text; the result is checked to be the intended text before measuring.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use polypatch_core::{ApplyOptions, Dialect, MemoryFileSet, ParseOptions, apply};
use polypatch_lazy::Lazy;

fn file_lines() -> Vec<String> {
    let mut lines = Vec::with_capacity(5000);
    for f in 0..250 {
        lines.push(format!("fn function_{f}(input: &[u32]) -> u64 {{"));
        for s in 0..17 {
            lines.push(format!("    let value_{s} = input.get({s}).copied().unwrap_or({f}) as u64 * {};", s + f));
        }
        lines.push(format!("    value_0 + value_16 + {f}"));
        lines.push("}".to_string());
    }
    lines
}

/// The snippet and the expected text: in every 25th function, line 9 gets ` // checked`.
fn case(lines: &[String]) -> (String, String) {
    let mut snippet = String::new();
    let mut expected = lines.to_vec();
    for k in 0..10 {
        let at = k * 25 * 20 + 9;
        snippet.push_str("// ... existing code ...\n");
        for (i, line) in lines.iter().enumerate().take(at + 4).skip(at - 3) {
            let line = if i == at { format!("{line} // checked") } else { line.clone() };
            writeln!(snippet, "{line}").expect("writing to a String");
        }
        expected[at] = format!("{} // checked", lines[at]);
    }
    snippet.push_str("// ... existing code ...\n");
    (snippet, expected.join("\n") + "\n")
}

fn merge(snippet: &str, text: &str) -> String {
    let plan = Lazy.parse_with(snippet, &ParseOptions::default().file("src/big.rs")).expect("parses");
    let mut files = MemoryFileSet::new().with("src/big.rs", text);
    apply(&plan, &mut files, &ApplyOptions::default()).expect("applies");
    files.get_str("src/big.rs").expect("text").to_string()
}

fn benches(c: &mut Criterion) {
    let lines = file_lines();
    let text = lines.join("\n") + "\n";
    let (snippet, expected) = case(&lines);
    assert_eq!(merge(&snippet, &text), expected);
    c.bench_function("lazy/5000-lines-10-segments", |b| b.iter(|| merge(black_box(&snippet), black_box(&text))));
}

criterion_group! {
    name = group;
    config = Criterion::default().sample_size(30).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = benches
}
criterion_main!(group);

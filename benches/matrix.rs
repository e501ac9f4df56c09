//! The benchmark matrix: parse, locate, apply and commit, per dialect, per tier and per
//! size, on inputs generated deterministically (issue 14).
//!
//! Every benchmark ID reads `<group>/<dialect>/<kind>/<file lines>/<hunks>`, for example
//! `locate/unified/exact/100k/50`:
//!
//! - groups: `parse` (the patch text to an `EditPlan`), `locate` (`compute` in memory:
//!   locate every edit and build the new contents), `apply` (`apply` to a `MemoryFileSet`,
//!   a fresh copy per iteration, not timed) and `commit` (`apply` to a `DiskFileSet` in a
//!   temporary directory; the file is rewritten before every iteration, not timed);
//! - dialects: `ai-patch`, `unified`, `ap`, `applydiff`, `aptix`, `search-replace`,
//!   `tool-call` (a Claude Code `MultiEdit` call): each generated case is rendered into
//!   each dialect;
//! - kinds: `exact`; `offset` (unified only: every hunk header's line numbers are 25 lines
//!   off); `reindent` (the patch's lines carry 4 more spaces of indentation than the
//!   file's); `blank-added` (the patch has a blank line the file has not); `blank-dropped`
//!   (the file has a blank line the patch has not); `typo` (one character of one context
//!   line is wrong); `not-found` (lines that are nowhere in the file: every tier is tried
//!   and the apply fails);
//! - sizes: files of 1k, 10k, 100k and 1M lines; 1, 50 or 1,000 hunks. One hunk edits a
//!   30-line block; 50 and 1,000 hunks edit 7-line blocks (3 lines around the changed one),
//!   spread evenly over the file.
//!
//! Before measuring, each case is checked once to give its intended outcome: every edit
//! applied at the intended tier, or the apply failed as not found. A benchmark that
//! measured a failing apply would measure the wrong thing. Cases are built on first use,
//! so a filter (`cargo bench --bench matrix -- locate/unified`) builds only what it runs.
//!
//! Not every combination is run: see [`matrix`] for the choice and its reasons.
//!
//! One more group, `floor/copy/<file lines>`, copies the generated file's bytes into new
//! memory and does nothing else: what this machine charges for touching that much memory.
//! A 100k-line file (3 MB) stays in the processor's caches from one iteration to the next,
//! a 1M-line file (31 MB) does not, so its copy costs about 20x as much for 10x the bytes
//! (1.14 ms against 50.6 µs on 2026-11-27). The 100k -> 1M growth of the other groups
//! reads against this one.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use polypatch::report::{FailureKind, Status, Tier};
use polypatch::{ApplyOptions, Dialects, DiskFileSet, EditPlan, MemoryFileSet, PatchError};

mod common;
use common::{join, source_lines, typo};

const PATH: &str = "src/generated.rs";
const SEED: u64 = 0x5EED_C0DE;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dialect {
    AiPatch,
    Unified,
    Ap,
    ApplyDiff,
    Aptix,
    SearchReplace,
    ToolCall,
}

const DIALECTS: [Dialect; 7] = [
    Dialect::AiPatch,
    Dialect::Unified,
    Dialect::Ap,
    Dialect::ApplyDiff,
    Dialect::Aptix,
    Dialect::SearchReplace,
    Dialect::ToolCall,
];

impl Dialect {
    fn name(self) -> &'static str {
        match self {
            Dialect::AiPatch => "ai-patch",
            Dialect::Unified => "unified",
            Dialect::Ap => "ap",
            Dialect::ApplyDiff => "applydiff",
            Dialect::Aptix => "aptix",
            Dialect::SearchReplace => "search-replace",
            Dialect::ToolCall => "tool-call",
        }
    }

    /// `text` parsed as this dialect, by name through the built-in registry (the path
    /// `polypatch::parse` takes; a dialect outside the closed `Format` enum too).
    fn parse(self, text: &str) -> Result<EditPlan, PatchError> {
        Dialects::global().get(self.name()).expect("compiled in").parse(text)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Exact,
    Offset,
    Reindent,
    BlankAdded,
    BlankDropped,
    Typo,
    NotFound,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Exact => "exact",
            Kind::Offset => "offset",
            Kind::Reindent => "reindent",
            Kind::BlankAdded => "blank-added",
            Kind::BlankDropped => "blank-dropped",
            Kind::Typo => "typo",
            Kind::NotFound => "not-found",
        }
    }

    /// The tier every edit of the case must apply at (`None`: the apply must fail as not
    /// found). The 'ap' dialect compares trimmed lines with blank lines skipped, as its
    /// specification says: it reports `trimmed` for what the other dialects find
    /// exactly, re-indented or with blank lines added or dropped.
    fn tier(self, dialect: Dialect) -> Option<Tier> {
        match (self, dialect) {
            (Kind::NotFound, _) => None,
            (Kind::Exact | Kind::Reindent | Kind::BlankAdded | Kind::BlankDropped, Dialect::Ap) => Some(Tier::Trimmed),
            (Kind::Exact | Kind::Offset, _) => Some(Tier::Exact),
            (Kind::Reindent, _) => Some(Tier::Indentation),
            (Kind::BlankAdded | Kind::BlankDropped, _) => Some(Tier::BlankLines),
            (Kind::Typo, _) => Some(Tier::Fuzzy),
        }
    }
}

fn size_name(lines: usize) -> String {
    match lines {
        n if n >= 1_000_000 => format!("{}M", n / 1_000_000),
        n if n >= 1_000 => format!("{}k", n / 1_000),
        n => n.to_string(),
    }
}

/// One edit as a model would write it: the old lines it expects (as written, with the
/// case's defect), the new lines, and the 1-based line number it claims.
struct Hunk {
    line: usize,
    old: Vec<String>,
    new: Vec<String>,
}

/// `count` hunks over `source`, each in its own slot of the file. A hunk's changed line
/// is a statement that names its own variables and numbers (`    let ...`), so that
/// every block is found once.
fn hunks(source: &[String], count: usize, kind: Kind) -> Vec<Hunk> {
    let size = if count == 1 { 30 } else { 7 };
    let stride = source.len() / count;
    assert!(stride > size + 2, "{count} hunks of {size} lines do not fit {} lines", source.len());
    let mid = size / 2;
    let lost = source_lines(size + 40, SEED ^ 0xFFFF);
    (0..count)
        .map(|h| {
            let slot = h * stride;
            // blank-dropped needs a blank line inside the block (not at its ends, where
            // leaving it out would only make the block shorter) and not next to the
            // changed line (where the edit could be read as removing it), and alone (with
            // two in the file and none in the patch, which one goes is unclear).
            let inner = |k: &usize| k.abs_diff(mid) > 1;
            let lone_blank = |j: usize| source[j].is_empty() && !source[j - 1].is_empty() && !source[j + 1].is_empty();
            let has_blank = |i: usize| (1..size - 1).filter(inner).any(|k| lone_blank(i - mid + k));
            let fits = |i: usize| kind != Kind::BlankDropped || has_blank(i);
            let slot_lines = slot + mid..slot + stride - (size - mid);
            let changed = slot_lines
                .clone()
                .find(|&i| source[i].starts_with("    let ") && !source[i].contains("mut out") && fits(i))
                .or_else(|| slot_lines.clone().find(|&i| !source[i].is_empty() && fits(i)))
                .expect("a line to change in every slot");
            let start = changed - mid;
            let mut old: Vec<String> = source[start..start + size].to_vec();
            if kind == Kind::NotFound {
                // Lines of another generated file, with the hunk's numbers made unique.
                old = lost[20..20 + size].iter().map(|l| l.replace("limit", &format!("lim{h}x"))).collect();
            }
            let mut new = old.clone();
            new[mid] = format!("{} // checked", old[mid]);
            let mut line = start + 1;
            match kind {
                Kind::Exact | Kind::NotFound => {}
                Kind::Offset => line += 25,
                Kind::Reindent => {
                    for l in old.iter_mut().chain(new.iter_mut()).filter(|l| !l.is_empty()) {
                        l.insert_str(0, "    ");
                    }
                }
                Kind::BlankAdded => {
                    old.insert(1, String::new());
                    new.insert(1, String::new());
                }
                Kind::BlankDropped => {
                    let k = (1..size - 1).filter(inner).find(|&k| old[k].is_empty()).expect("chosen so");
                    old.remove(k);
                    new.remove(k);
                }
                Kind::Typo => {
                    let k = (0..old.len()).filter(|&k| k != mid).max_by_key(|&k| old[k].len()).expect("context lines");
                    old[k] = typo(&old[k]);
                    new[k].clone_from(&old[k]);
                }
            }
            Hunk { line, old, new }
        })
        .collect()
}

/// The hunks written in `dialect`, all editing `PATH`.
fn render(dialect: Dialect, hunks: &[Hunk]) -> String {
    let mut out = String::new();
    let w = &mut out;
    match dialect {
        Dialect::AiPatch | Dialect::Unified => {
            if dialect == Dialect::AiPatch {
                write!(w, "*** Begin Patch\n*** Update File: {PATH}\n").unwrap();
            } else {
                write!(w, "--- a/{PATH}\n+++ b/{PATH}\n").unwrap();
            }
            for h in hunks {
                if dialect == Dialect::AiPatch {
                    w.push_str("@@\n");
                } else {
                    let n = h.old.len();
                    writeln!(w, "@@ -{},{n} +{},{n} @@", h.line, h.line).unwrap();
                }
                for (old, new) in h.old.iter().zip(&h.new) {
                    if old == new {
                        writeln!(w, " {old}").unwrap();
                    } else {
                        writeln!(w, "-{old}\n+{new}").unwrap();
                    }
                }
            }
            if dialect == Dialect::AiPatch {
                w.push_str("*** End Patch\n");
            }
        }
        Dialect::Ap => {
            write!(w, "version: \"2.0\"\nchanges:\n  - file_path: {PATH}\n    modifications:\n").unwrap();
            let block = |w: &mut String, key: &str, lines: &[String]| {
                writeln!(w, "        {key}: |2").unwrap();
                for l in lines {
                    if l.is_empty() {
                        w.push('\n');
                    } else {
                        writeln!(w, "          {l}").unwrap();
                    }
                }
            };
            for h in hunks {
                w.push_str("      - action: REPLACE\n");
                block(w, "snippet", &h.old);
                block(w, "content", &h.new);
            }
        }
        Dialect::ApplyDiff => {
            for h in hunks {
                writeln!(w, ">>> file: {PATH}\n--- from\n{}\n--- to\n{}\n<", h.old.join("\n"), h.new.join("\n"))
                    .unwrap();
            }
        }
        Dialect::SearchReplace => {
            for h in hunks {
                writeln!(
                    w,
                    "{PATH}\n<<<<<<< SEARCH\n{}\n=======\n{}\n>>>>>>> REPLACE",
                    h.old.join("\n"),
                    h.new.join("\n")
                )
                .unwrap();
            }
        }
        Dialect::Aptix => {
            let patches: Vec<_> =
                hunks.iter().map(|h| serde_json::json!({ "find": join(&h.old), "replace": join(&h.new) })).collect();
            let bundle = serde_json::json!({ "files": [ { "path": PATH, "operation": "patch", "patches": patches } ] });
            *w = serde_json::to_string_pretty(&bundle).expect("JSON");
        }
        Dialect::ToolCall => {
            let edits: Vec<_> = hunks
                .iter()
                .map(|h| serde_json::json!({ "old_string": join(&h.old), "new_string": join(&h.new) }))
                .collect();
            let call = serde_json::json!({ "file_path": PATH, "edits": edits });
            *w = serde_json::to_string_pretty(&call).expect("JSON");
        }
    }
    out
}

/// One case, ready to measure.
struct Case {
    patch: String,
    plan: EditPlan,
    files: MemoryFileSet,
    file: String,
    dialect: Dialect,
}

/// The generated sources, one per size, made once per run.
#[derive(Default)]
struct Sources(Vec<(usize, Vec<String>)>);

impl Sources {
    fn get(&mut self, lines: usize) -> &[String] {
        if let Some(at) = self.0.iter().position(|(n, _)| *n == lines) {
            return &self.0[at].1;
        }
        self.0.push((lines, source_lines(lines, SEED)));
        &self.0.last().expect("just pushed").1
    }
}

/// Builds the case and checks it gives its intended outcome.
fn build(sources: &mut Sources, dialect: Dialect, kind: Kind, lines: usize, count: usize) -> Case {
    let source = sources.get(lines);
    let patch = render(dialect, &hunks(source, count, kind));
    let file = join(source);
    let files = MemoryFileSet::new().with(PATH, file.clone());
    let plan = dialect.parse(&patch).unwrap_or_else(|e| panic!("the generated patch parses: {e}"));
    let id = format!("{}/{}/{}/{count}", dialect.name(), kind.name(), size_name(lines));
    match (polypatch::compute(&plan, &files, &ApplyOptions::default()), kind.tier(dialect)) {
        (Err(e), None) => {
            let failure = e.report.first_failure().map(|first| first.failure.kind);
            assert_eq!(failure, Some(FailureKind::NotFound), "{id}: {e}\n{}", e.report);
        }
        (Ok(computed), Some(tier)) => {
            let edits = &computed.report.files[0].edits;
            assert_eq!(edits.len(), count, "{id}");
            for edit in edits {
                assert_eq!((edit.status, edit.tier), (Status::Located, Some(tier)), "{id}\n{}", computed.report);
            }
        }
        (Err(e), Some(_)) => panic!("{id} must apply: {e}\n{}", e.report),
        (Ok(computed), None) => panic!("{id} must fail as not found\n{}", computed.report),
    }
    Case { patch, plan, files, file, dialect }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    Parse,
    Locate,
    Apply,
    Commit,
}

/// Measures one case in `group`; the case is built (and checked) on first use only, so
/// that a filter builds only what it runs.
fn bench(
    group: &mut BenchmarkGroup<'_, WallTime>,
    sources: &mut Sources,
    stage: Stage,
    (dialect, kind, lines, count): (Dialect, Kind, usize, usize),
) {
    let id = format!("{}/{}/{}/{count}", dialect.name(), kind.name(), size_name(lines));
    let mut case: Option<Case> = None;
    let options = ApplyOptions::default();
    if stage != Stage::Parse {
        // File lines per second; a parse's work is the patch's size, not the file's.
        group.throughput(Throughput::Elements(lines as u64));
    }
    group.bench_function(&id, |b| {
        let c = case.get_or_insert_with(|| build(sources, dialect, kind, lines, count));
        match stage {
            Stage::Parse => b.iter(|| c.dialect.parse(black_box(&c.patch)).expect("checked")),
            Stage::Locate => b.iter(|| polypatch::compute(black_box(&c.plan), black_box(&c.files), &options)),
            Stage::Apply => b.iter_batched_ref(
                || c.files.clone(),
                |files| polypatch::apply(&c.plan, files, &options).expect("checked"),
                BatchSize::LargeInput,
            ),
            Stage::Commit => {
                let dir = tempfile::tempdir().expect("a temporary directory");
                let path = dir.path().join(PATH);
                std::fs::create_dir_all(path.parent().expect("a parent")).expect("the directory");
                let mut disk = DiskFileSet::new(dir.path()).expect("the directory");
                b.iter_batched(
                    || std::fs::write(&path, &c.file).expect("the file"),
                    |()| polypatch::apply(&c.plan, &mut disk, &options).expect("checked"),
                    BatchSize::PerIteration,
                );
            }
        }
    });
}

const K1: usize = 1_000;
const K10: usize = 10_000;
const K100: usize = 100_000;
const M1: usize = 1_000_000;
const SIZES: [usize; 4] = [K1, K10, K100, M1];

/// The cases each group runs. The choice:
///
/// - scaling (10x input, about 10x time) in AI-PATCH, the dialect with the least parsing
///   around the engine: every size with 1 and 50 exact hunks, one typo block and one
///   not-found block; 1,000 exact hunks on 100k and 1M lines;
/// - every dialect and every kind at 100k lines x 50 hunks (not-found: one block; a
///   failing plan stops being interesting after its first failure), the size the goals
///   name;
/// - `apply` (in memory) and `commit` (disk, small files) per dialect on exact hunks: the
///   tiers cost the same in every stage, `locate` measures them;
/// - not-found with 1,000 hunks is left out: every hunk tries every tier over the whole
///   file, minutes per iteration today, and it measures nothing the one-block case does not.
fn matrix(stage: Stage) -> Vec<(Dialect, Kind, usize, usize)> {
    use Dialect::AiPatch;
    let mut cases = Vec::new();
    match stage {
        Stage::Parse => {
            for d in DIALECTS {
                cases.push((d, Kind::Exact, K100, 50));
                cases.push((d, Kind::Exact, M1, 1_000));
            }
        }
        Stage::Locate => {
            for lines in SIZES {
                cases.push((AiPatch, Kind::Exact, lines, 1));
                cases.push((AiPatch, Kind::Exact, lines, 50));
                cases.push((AiPatch, Kind::Typo, lines, 1));
                cases.push((AiPatch, Kind::NotFound, lines, 1));
            }
            cases.push((AiPatch, Kind::Exact, K100, 1_000));
            cases.push((AiPatch, Kind::Exact, M1, 1_000));
            for d in DIALECTS {
                for kind in
                    [Kind::Exact, Kind::Offset, Kind::Reindent, Kind::BlankAdded, Kind::BlankDropped, Kind::Typo]
                {
                    if kind == Kind::Offset && d != Dialect::Unified {
                        continue; // only unified hunks carry line numbers
                    }
                    if (d, kind) != (AiPatch, Kind::Exact) {
                        cases.push((d, kind, K100, 50));
                    }
                }
                if d != AiPatch {
                    cases.push((d, Kind::NotFound, K100, 1));
                }
            }
        }
        Stage::Apply => {
            for lines in SIZES {
                cases.push((AiPatch, Kind::Exact, lines, 50));
            }
            cases.push((AiPatch, Kind::Exact, M1, 1_000));
            for d in DIALECTS.into_iter().skip(1) {
                cases.push((d, Kind::Exact, K100, 50));
            }
        }
        Stage::Commit => {
            for d in DIALECTS {
                cases.push((d, Kind::Exact, K1, 1));
            }
            cases.push((AiPatch, Kind::Exact, K10, 50));
        }
    }
    cases
}

/// `floor/copy/<file lines>`: a fresh copy of the file's bytes (see the module's docs).
fn bench_floor(c: &mut Criterion, sources: &mut Sources) {
    let mut group = c.benchmark_group("floor");
    for lines in [K10, K100, M1] {
        let file = join(sources.get(lines));
        group.throughput(Throughput::Bytes(file.len() as u64));
        group.bench_function(format!("copy/{}", size_name(lines)), |b| b.iter(|| black_box(file.as_bytes()).to_vec()));
    }
    group.finish();
}

fn bench_matrix(c: &mut Criterion) {
    let mut sources = Sources::default();
    for (stage, name) in
        [(Stage::Parse, "parse"), (Stage::Locate, "locate"), (Stage::Apply, "apply"), (Stage::Commit, "commit")]
    {
        let mut group = c.benchmark_group(name);
        for case in matrix(stage) {
            bench(&mut group, &mut sources, stage, case);
        }
        group.finish();
    }
    bench_floor(c, &mut sources);
}

criterion_group! {
    name = benches;
    // Ten samples and short windows: the whole matrix runs in about a quarter of an hour on
    // 2 cores. A case slower than the window takes its ten samples anyway.
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = bench_matrix
}
criterion_main!(benches);

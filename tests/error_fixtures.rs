//! The malformed patches in `tests/errors/<dialect>/`, each its own named test
//! (`unified::bad_strip`): the input `<kind>[-<variant>].<ext>` (any extension but
//! `.stderr` and `.options`; `.patch`, `.diff`, `.yaml`, `.txt`, `.json` by dialect) is parsed with its dialect
//! (and the options of an optional `<case>.options` beside it: `strip = N`,
//! `max_binary_size = N`, `max_total_binary_size = N`, one a line) and must be refused with
//! exactly what `<case>.stderr` holds: the kind (which must be the one the file name
//! starts with), the error's `Display`, its JSON and [`PatchError::render`] of the input
//! (the offending line and a caret under the span), as a writer reads it.
//!
//! A `coverage` test checks that every dialect compiled in has a folder and every kind it
//! lists ([`polypatch::Dialect::error_kinds`]) a case, but for the few in [`UNREACHABLE`],
//! each with the reason it has none.
//!
//! After an intended change of a message, rewrite the expected files with
//! `POLYPATCH_BLESS=1 cargo test --test error_fixtures` and review the diff.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use polypatch::{ParseOptions, PatchError};

/// Kinds a dialect lists that have no case here, with the reason.
const UNREACHABLE: &[(&str, &str, &str)] = &[
    (
        "aptix",
        "too_large",
        "only a bundle over 64 MiB produces it, too big a file to keep; syntax.rs tests it on a generated text",
    ),
    (
        "tool-call",
        "too_large",
        "only JSON over 64 MiB produces it, too big a file to keep; tests/apply.rs tests it on a generated text",
    ),
];

fn main() {
    let args = Arguments::from_args();
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/errors");
    let mut trials = Vec::new();
    for dialect in polypatch::Dialects::global().names() {
        for input in cases(&base.join(dialect)) {
            let case = input.file_stem().unwrap().to_str().unwrap().to_owned();
            trials.push(Trial::test(format!("{dialect}::{case}"), move || run_case(dialect, &input)));
        }
    }
    trials.push(Trial::test("coverage", move || coverage(&base)));
    libtest_mimic::run(&args, trials).exit();
}

/// The inputs of one dialect's folder, sorted (none when there is no folder).
fn cases(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else { return Vec::new() };
    let mut inputs: Vec<PathBuf> = entries
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e != "stderr" && e != "options"))
        .collect();
    inputs.sort();
    inputs
}

/// The kind a case's file name says it produces: the stem up to a `-`.
fn named_kind(input: &Path) -> String {
    let stem = input.file_stem().unwrap().to_str().unwrap();
    stem.split('-').next().unwrap().to_owned()
}

fn run_case(dialect: &str, input: &Path) -> Result<(), Failed> {
    let text = fs::read_to_string(input).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    let options = options(&input.with_extension("options"))?;
    let parser = polypatch::Dialects::global()
        .get(dialect)
        .ok_or_else(|| format!("the dialect `{dialect}` is not compiled in"))?;
    let Err(err) = parser.parse_with(&text, &options) else {
        return Err(format!("{} parses: it must be refused", input.display()).into());
    };
    if err.dialect != dialect {
        return Err(format!("the error's dialect is `{}`, not `{dialect}`", err.dialect).into());
    }
    let expected_kind = named_kind(input);
    if err.kind != expected_kind.as_str() {
        return Err(format!("the kind is `{}`, but the file name says `{expected_kind}`:\n{err}", err.kind).into());
    }
    let actual = describe(&err, &text);
    let expected_file = input.with_extension("stderr");
    if std::env::var_os("POLYPATCH_BLESS").is_some() {
        fs::write(&expected_file, &actual).map_err(|e| format!("cannot write {}: {e}", expected_file.display()))?;
        return Ok(());
    }
    let expected = fs::read_to_string(&expected_file).map_err(|e| {
        format!("cannot read {}: {e} (POLYPATCH_BLESS=1 writes it)\nactual:\n{actual}", expected_file.display())
    })?;
    if actual != expected {
        return Err(format!(
            "{} differs (POLYPATCH_BLESS=1 rewrites it)\n--- expected\n{expected}\n--- actual\n{actual}",
            expected_file.display()
        )
        .into());
    }
    Ok(())
}

/// What the expected file holds.
fn describe(err: &PatchError, text: &str) -> String {
    let json = serde_json::to_string(err).expect("an error serializes");
    format!("kind: {}\ndisplay: {err}\njson: {json}\nrender:\n{}\n", err.kind, err.render(text))
}

/// The parse options of a case: `key = value` lines.
fn options(path: &Path) -> Result<ParseOptions, Failed> {
    let mut options = ParseOptions::default();
    let Ok(text) = fs::read_to_string(path) else { return Ok(options) };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (key, value) =
            line.split_once('=').ok_or_else(|| format!("{}: `{line}` is not `key = value`", path.display()))?;
        let value: u64 = value.trim().parse().map_err(|e| format!("{}: `{line}`: {e}", path.display()))?;
        options = match key.trim() {
            "strip" => options.strip(value as usize),
            "max_binary_size" => options.max_binary_size(value),
            "max_total_binary_size" => options.max_total_binary_size(value),
            other => return Err(format!("{}: unknown option `{other}`", path.display()).into()),
        };
    }
    Ok(options)
}

/// Every kind a dialect lists has a case, but those in [`UNREACHABLE`]; every case's kind
/// is one its dialect lists.
fn coverage(base: &Path) -> Result<(), Failed> {
    let mut problems = Vec::new();
    for dialect in polypatch::Dialects::global().names() {
        let listed: BTreeSet<String> = kinds(dialect).into_iter().collect();
        let covered: BTreeSet<String> = cases(&base.join(dialect)).iter().map(|p| named_kind(p)).collect();
        for kind in &listed {
            let unreachable = UNREACHABLE.iter().any(|&(d, k, _)| d == dialect && k == kind);
            if covered.contains(kind) && unreachable {
                problems.push(format!("{dialect}: `{kind}` has a case but is listed as unreachable"));
            } else if !covered.contains(kind) && !unreachable {
                problems.push(format!("{dialect}: no case for `{kind}`"));
            }
        }
        for kind in covered.difference(&listed) {
            problems.push(format!("{dialect}: a case for `{kind}`, which the dialect does not list"));
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(problems.join("\n").into()) }
}

/// The kinds `dialect` lists ([`polypatch::Dialect::error_kinds`]).
fn kinds(dialect: &str) -> Vec<String> {
    let dialect = polypatch::Dialects::global()
        .get(dialect)
        .unwrap_or_else(|| panic!("the dialect `{dialect}` is not compiled in"));
    dialect.error_kinds().iter().map(ToString::to_string).collect()
}

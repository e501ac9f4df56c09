//! The proof of `polypatch::convert`: every fixture of every dialect that applies
//! (`spec-fixtures/<dialect>/<case>/patch` and `spec-fixtures/equivalence/<case>/patch.<dialect>`),
//! converted to each of the five dialects, parsed as that dialect and applied to a copy of
//! `before/` with exact matching only, gives `after/` byte for byte; applying it again
//! changes nothing and, but for a file deleted or moved away or an Aptix `find` too short to prove it,
//! reports it already applied. Each pair is its own test: `<dialect>::<case> -> <target>`.
//!
//! A conversion the target cannot express must fail with `ConvertError::Inexpressible`, and
//! its operation must be one the fixture really does (seen by comparing `before/` and
//! `after/`) and one the target is known to lack. The counts are printed at the end.

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use libtest_mimic::{Arguments, Failed, Trial};
use polypatch::convert::{ConvertError, ConvertOptions, Input, Operation, RenderError};
use polypatch::{ApplyOptions, DiskFileSet, ParseOptions};

use common::{Sandbox, Tree, compare_trees, read_tree, subdirs};

/// What each target dialect cannot say, by its spec (see the table in docs/dialects.md, "Converting between dialects").
fn lacks(target: &str, op: Operation) -> bool {
    use Operation as O;
    match target {
        "unified" => false,
        "aptix" => false,
        // A tool call carries text: no binary content, no mode.
        "tool-call" => matches!(op, O::Binary | O::Mode),
        "ai-patch" => matches!(op, O::Binary | O::Mode | O::LineEnding | O::FinalNewline),
        "applydiff" => {
            matches!(op, O::Delete | O::Rename | O::Binary | O::Mode | O::LineEnding | O::FinalNewline | O::MarkerLine)
        }
        "ap" => matches!(
            op,
            O::Delete
                | O::Rename
                | O::Binary
                | O::Mode
                | O::LineEnding
                | O::FinalNewline
                | O::TrailingWhitespace
                | O::Edit
        ),
        // No delete, rename or mode; a created file's lines end with `\n`, with a final one;
        // an existing file keeps its own ends (the engine writes them).
        "search-replace" => matches!(
            op,
            O::Delete | O::Rename | O::Binary | O::Mode | O::LineEnding | O::FinalNewline | O::MarkerLine | O::Edit
        ),
        _ => false,
    }
}

/// The cases a target refuses as [`Operation::Edit`] (its locating rules cannot pin the
/// change down), each with the reason.
const EDIT_REFUSALS: &[(&str, &str)] = &[
    // An empty file has no line for an ap snippet, and CREATE_FILE does not overwrite.
    ("unified::pure_addition_to_empty_file", "ap"),
    // The blank lines that go are at the file's edges, with no other line beside them for
    // a snippet: ap says that only with `include_*_blank_lines`, which conversion does not
    // write.
    ("ap::blank_lines_the_largest_number_at_the_edges_of_the_file", "ap"),
    // A block that creates a file writes lines: an empty new file has none.
    ("unified::git_new_empty_file", "search-replace"),
    // A path line holds no space: the path would read as prose.
    ("unified::git_quoted_paths", "search-replace"),
];

/// The outcome of one pair, for the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Converted,
    NothingToConvert,
    Inexpressible(&'static str, &'static str),
}

static OUTCOMES: Mutex<Vec<Outcome>> = Mutex::new(Vec::new());

fn main() {
    let args = Arguments::from_args();
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("spec-fixtures");
    if !base.is_dir() {
        eprintln!("skipping: no spec-fixtures folder");
        return;
    }
    let mut trials = Vec::new();
    for dialect_dir in subdirs(&base) {
        let dialect = name_of(&dialect_dir);
        if dialect == "equivalence" {
            for case_dir in subdirs(&dialect_dir) {
                for source in polypatch::Dialects::global().names() {
                    if case_dir.join(format!("unreachable.{source}")).exists() {
                        continue;
                    }
                    let patch = case_dir.join(format!("patch.{source}"));
                    let name = format!("equivalence::{}::{source}", name_of(&case_dir));
                    trials.extend(pairs(&name, source, &case_dir, &patch));
                }
            }
            continue;
        }
        let Some(source) = polypatch::Dialects::global().get(&dialect).map(polypatch::Dialect::name) else { continue };
        for case_dir in subdirs(&dialect_dir) {
            let name = format!("{dialect}::{}", name_of(&case_dir));
            trials.extend(pairs(&name, source, &case_dir, &case_dir.join("patch")));
        }
    }
    let conclusion = libtest_mimic::run(&args, trials);
    summary();
    conclusion.exit();
}

/// One trial per target for a case that applies; none for a case that does not.
fn pairs(name: &str, source: &'static str, case_dir: &Path, patch: &Path) -> Vec<Trial> {
    if !case_dir.join("after").is_dir() || !patch.is_file() {
        return Vec::new();
    }
    polypatch::Dialects::global()
        .iter()
        .filter(|d| {
            !matches!(d.render(&[], &polypatch_core::RenderOptions::default()), Err(RenderError::NotWritable { .. }))
        })
        .map(polypatch::Dialect::name)
        .map(|target| {
            let (case_dir, patch) = (case_dir.to_path_buf(), patch.to_path_buf());
            Trial::test(format!("{name} -> {target}"), move || run(source, target, &case_dir, &patch))
        })
        .collect()
}

fn name_of(path: &Path) -> String {
    path.file_name().expect("a named directory").to_string_lossy().into_owned()
}

fn run(source: &'static str, target: &'static str, case_dir: &Path, patch_file: &PathBuf) -> Result<(), Failed> {
    let sandbox = Sandbox::with_copy_of(&case_dir.join("before"))?;
    let before = sandbox.tree()?;
    let after = read_tree(&case_dir.join("after"))?;
    let bytes = fs::read(patch_file)?;
    let patch = polypatch::fs::decode_lossless(&bytes)
        .replace("@ROOT@", &sandbox.root().to_string_lossy())
        .replace("@OUTSIDE@", &sandbox.root().with_file_name("outside").to_string_lossy());
    let expect = fs::read_to_string(case_dir.join("expect")).unwrap_or_default();
    let option = |name: &str| {
        expect.lines().any(|l| l.split('#').next().unwrap_or("").replace(' ', "") == format!("options={name}"))
    };
    let strict = option("strict");
    let options = ConvertOptions::default()
        .apply(ApplyOptions::default().strict(strict))
        .parse(ParseOptions::default().skip_binary_without_data(option("skip_binary_without_data")));

    let files = DiskFileSet::new(sandbox.root())?;
    // By name, through the registry: `Format` lists only the first five dialects.
    let dialects = polypatch::Dialects::builtin();
    let source_plan = dialects.parse_with(&patch, source, &options.parse);
    let input = match &source_plan {
        Ok(plan) => Input::Plan(plan),
        Err(e) => return Err(format!("the conversion failed: {e}").into()),
    };
    let converted = match dialects.convert(input, &files, target, &options) {
        Ok(converted) => converted,
        Err(ConvertError::Render(RenderError::Inexpressible { operation, path, detail, .. })) => {
            let mut does = operations(&before, &after);
            if operation == Operation::Mode && changes_modes(source, case_dir, patch_file, strict)? {
                does.insert(Operation::Mode);
            }
            if !does.contains(&operation) && operation != Operation::Edit {
                return Err(format!(
                    "refused for {operation} on `{path}` ({detail}), which the case does not do (it does {does:?})"
                )
                .into());
            }
            if !lacks(target, operation) {
                return Err(format!("{target} should express {operation} on `{path}`, but refused: {detail}").into());
            }
            let case = format!("{source}::{}", name_of(case_dir));
            if operation == Operation::Edit && !EDIT_REFUSALS.contains(&(case.as_str(), target)) {
                return Err(format!("refused as an edit {target} cannot locate (`{path}`): {detail}").into());
            }
            record(Outcome::Inexpressible(target, operation.name()));
            return Ok(());
        }
        Err(err) => return Err(format!("the conversion failed: {err}").into()),
    };
    if converted.text.is_empty() {
        compare_trees(&after, &before).map_err(|d| format!("nothing converted, but the case changes files:\n{d}"))?;
        record(Outcome::NothingToConvert);
        return Ok(());
    }
    let shown = || format!("converted patch:\n{}", converted.text);
    let plan = dialects
        .parse(&converted.text, target)
        .map_err(|e| format!("the converted patch does not parse:\n{}\n{}", e.render(&converted.text), shown()))?;
    if polypatch::detect(&converted.text).map(polypatch::Dialect::name) != Some(target) {
        return Err(format!("the converted patch is not detected as {target}\n{}", shown()).into());
    }
    let exact = ApplyOptions::default().strict(true);
    let mut files = DiskFileSet::new(sandbox.root())?;
    polypatch::apply(&plan, &mut files, &exact)
        .map_err(|e| format!("the converted patch does not apply exactly: {e}\n{}\n{}", e.report, shown()))?;
    compare_trees(&sandbox.tree()?, &after).map_err(|d| format!("the tree is not after/:\n{d}\n{}", shown()))?;
    // Again: already applied, or refused, but nothing changes.
    match polypatch::apply(&plan, &mut files, &exact) {
        Err(err) if err.commit_error.is_some() => {
            return Err(format!(
                "the re-run failed while writing: {}",
                err.commit_error.map(|c| c.to_string()).unwrap_or_default()
            )
            .into());
        }
        // Refused, nothing written: right for a file deleted or moved away (gone now) and for an Aptix
        // `find` or a tool call's `old_string` too short to prove the edit was made (the
        // core will not guess); every other target reports its edits already applied.
        Err(err) => {
            let deleted = err.report.first_failure().is_some_and(|first| {
                first.failure.kind == polypatch::report::FailureKind::FileMissing
                    && !after.contains_key(&first.file.path)
            });
            if !deleted && target != "aptix" && target != "tool-call" {
                return Err(format!("the re-run should find everything already applied: {err}\n{}", shown()).into());
            }
        }
        Ok(_) => {}
    }
    compare_trees(&sandbox.tree()?, &after).map_err(|d| format!("the re-run changed the tree:\n{d}\n{}", shown()))?;
    sandbox.nothing_outside_root()?;
    record(Outcome::Converted);
    Ok(())
}

/// Whether applying the case's own patch changes a file's executable bit (or creates an
/// executable file): the trees hold bytes only.
#[cfg(not(unix))]
fn changes_modes(_: &str, _: &Path, _: &Path, _: bool) -> Result<bool, Failed> {
    Ok(false)
}

/// Whether applying the case's own patch changes a file's executable bit (or creates an
/// executable file): the trees hold bytes only.
#[cfg(unix)]
fn changes_modes(source: &str, case_dir: &Path, patch_file: &Path, strict: bool) -> Result<bool, Failed> {
    use std::os::unix::fs::PermissionsExt as _;
    let sandbox = Sandbox::with_copy_of(&case_dir.join("before"))?;
    let exec = |root: &Path| -> Vec<(String, bool)> {
        read_tree(root)
            .unwrap_or_default()
            .into_keys()
            .map(|p| {
                let mode = fs::metadata(root.join(&p)).map_or(0, |m| m.permissions().mode());
                (p, mode & 0o111 != 0)
            })
            .collect()
    };
    let old = exec(sandbox.root());
    let patch = polypatch::fs::decode_lossless(&fs::read(patch_file)?)
        .replace("@ROOT@", &sandbox.root().to_string_lossy())
        .replace("@OUTSIDE@", &sandbox.root().with_file_name("outside").to_string_lossy());
    let plan = polypatch::Dialects::builtin().parse(&patch, source).map_err(|e| e.render(&patch))?;
    let mut files = DiskFileSet::new(sandbox.root())?;
    polypatch::apply(&plan, &mut files, &ApplyOptions::default().strict(strict))?;
    let new = exec(sandbox.root());
    Ok(new.iter().any(|(p, x)| *x && !old.contains(&(p.clone(), true)))
        || old.iter().any(|(p, x)| *x && !new.contains(&(p.clone(), true))))
}

/// What a case does, seen from its trees alone.
fn operations(before: &Tree, after: &Tree) -> BTreeSet<Operation> {
    let mut does = BTreeSet::new();
    let text = |b: &[u8]| if b.contains(&0) { None } else { std::str::from_utf8(b).ok().map(str::to_owned) };
    for (path, old) in before {
        match after.get(path) {
            None => {
                does.insert(Operation::Delete);
                // A deletion may be half of a rename.
                does.insert(Operation::Rename);
            }
            Some(new) if new != old => {
                let (Some(old), Some(new)) = (text(old), text(new)) else {
                    does.insert(Operation::Binary);
                    continue;
                };
                if old.ends_with('\n') != new.ends_with('\n') {
                    does.insert(Operation::FinalNewline);
                }
                if old.replace("\r\n", "\n") == new.replace("\r\n", "\n") || new.contains('\r') {
                    does.insert(Operation::LineEnding);
                }
                if new.lines().any(|l| l.ends_with([' ', '\t'])) {
                    does.insert(Operation::TrailingWhitespace);
                }
                if new.lines().any(|l| matches!(l, "<" | "<<<" | "--- from" | "--- to") || l.starts_with(">>> file:")) {
                    does.insert(Operation::MarkerLine);
                }
            }
            Some(_) => {}
        }
    }
    for (path, new) in after {
        if before.contains_key(path) {
            continue;
        }
        match text(new) {
            None => does.insert(Operation::Binary),
            Some(t) => {
                if t.contains('\r') {
                    does.insert(Operation::LineEnding);
                }
                if !t.is_empty() && !t.ends_with('\n') {
                    does.insert(Operation::FinalNewline);
                }
                does.insert(Operation::Rename)
            }
        };
    }
    does
}

fn record(outcome: Outcome) {
    OUTCOMES.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(outcome);
}

fn summary() {
    let outcomes = OUTCOMES.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut counts = std::collections::BTreeMap::new();
    for o in outcomes.iter() {
        *counts.entry(*o).or_insert(0usize) += 1;
    }
    eprintln!("convert summary ({} pairs run):", outcomes.len());
    for (o, n) in counts {
        eprintln!("  {n:4}  {o:?}");
    }
}

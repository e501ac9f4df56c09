//! The conformance cases in `spec-fixtures/<dialect>/<case>/`, each its own named test
//! (`ai-patch::tier_fuzzy_typo`). The layout and the `expect` line format are described in
//! `spec-fixtures/README.md`.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use polypatch::{
    ApplyOptions, ApplyReport, DiskFileSet, ParseOptions, ReplyError,
    report::{EditReport, FailureKind, FileReport, Status, Tier},
};

use common::{Sandbox, Tree, compare_trees, read_tree, subdirs};

/// Cases that are known not to pass, each with the reason. Every entry must name an existing
/// case; run them with `cargo test --test fixtures -- --ignored`.
const IGNORED: &[(&str, &str)] = &[];

fn main() {
    let args = Arguments::from_args();
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("spec-fixtures");
    let mut trials = Vec::new();
    for dialect_dir in subdirs(&base) {
        let dialect = file_name(&dialect_dir);
        if dialect == EQUIVALENCE {
            trials.extend(equivalence_trials(&dialect_dir));
            continue;
        }
        if dialect == CHAT {
            for case_dir in subdirs(&dialect_dir) {
                let name = format!("{CHAT}::{}", file_name(&case_dir));
                trials.push(Trial::test(name, move || run_chat_case(&case_dir)));
            }
            continue;
        }
        let compiled_in = polypatch::Dialects::global().get(&dialect).is_some();
        for case_dir in subdirs(&dialect_dir) {
            let name = format!("{dialect}::{}", file_name(&case_dir));
            let ignored = IGNORED.iter().find(|(n, _)| *n == name);
            if let Some((_, reason)) = ignored {
                eprintln!("ignoring {name}: {reason}");
            }
            let dialect = dialect.clone();
            trials.push(
                Trial::test(name, move || run_case(&dialect, &case_dir, "patch"))
                    // A dialect whose feature is off has nothing to run its cases with.
                    .with_ignored_flag(ignored.is_some() || !compiled_in),
            );
        }
    }
    for (name, _) in IGNORED {
        assert!(trials.iter().any(|t| t.name() == *name), "the ignore list names `{name}`, which is not a case");
    }
    libtest_mimic::run(&args, trials).exit();
}

/// The folder of cases that write one change in every dialect: `patch.<dialect>` files
/// beside one `before/` and one `after/` (or `error.txt`). Each dialect's patch must give the
/// same outcome, and be detected as its dialect.
const EQUIVALENCE: &str = "equivalence";

fn equivalence_trials(dir: &Path) -> Vec<Trial> {
    let mut trials = Vec::new();
    for case_dir in subdirs(dir) {
        let case = file_name(&case_dir);
        for dialect in polypatch::Dialects::global().names() {
            // `unreachable.<dialect>` (its reason inside): the dialect cannot say this change
            // (a lazy snippet cannot delete a file's last lines).
            if case_dir.join(format!("unreachable.{dialect}")).exists() {
                continue;
            }
            let name = format!("{EQUIVALENCE}::{case}::{dialect}");
            let case_dir = case_dir.clone();
            trials.push(Trial::test(name, move || {
                let patch_file = format!("patch.{dialect}");
                let text = fs::read_to_string(case_dir.join(&patch_file))
                    .map_err(|e| format!("every dialect writes the change: cannot read `{patch_file}`: {e}"))?;
                let detected = polypatch::detect(&text).map(polypatch::Dialect::name);
                if detected != Some(dialect) {
                    return Err(format!("`{patch_file}` is detected as {detected:?}, not {dialect}").into());
                }
                run_case(dialect, &case_dir, &patch_file)
            }));
        }
    }
    trials
}

/// The folder of models' whole replies: `patch` is the reply (prose, fences, blocks of any
/// dialect), applied with `polypatch::apply_text` as one transaction.
const CHAT: &str = "chat";

fn run_chat_case(dir: &Path) -> Result<(), Failed> {
    let case = Case::load(dir, "patch")?;
    let sandbox = Sandbox::with_copy_of(&case.before)?;
    let before = sandbox.tree()?;
    let reply = case.patch.replace("@ROOT@", &sandbox.root().to_string_lossy());
    let mut strict = false;
    for e in &case.expect {
        match e {
            Expectation::Strict => strict = true,
            Expectation::Blocks(want) => {
                let blocks = polypatch::extract(&reply);
                let got: Vec<&str> = blocks.iter().map(|b| b.dialect.as_str()).collect();
                if got != *want {
                    return Err(format!("expected the blocks {want:?}, extract found {got:?}").into());
                }
            }
            other => return Err(format!("a chat case takes `blocks` and `options` only, not {other:?}").into()),
        }
    }
    let options = ApplyOptions::default().strict(strict);
    let mut files = DiskFileSet::new(sandbox.root())?;
    let result = polypatch::apply_text(&reply, &mut files, &options);
    match (&case.outcome, result) {
        (Outcome::Tree(_), Ok(_)) => {}
        (Outcome::NoPatch, Err(ReplyError::NoPatch)) => {}
        (Outcome::Malformed(kind), Err(ReplyError::Malformed { block, error })) => {
            if error.kind != kind.as_str() {
                return Err(format!(
                    "expected malformed:{kind}, got {} in {block}:\n{}",
                    error.kind,
                    error.render(&reply)
                )
                .into());
            }
        }
        (Outcome::Failed(kind), Err(ReplyError::NotApplied { report, commit_error: None, .. })) => {
            let failure = report.first_failure().ok_or_else(|| format!("no failure in:\n{report}"))?.failure;
            let got = failure_kind_name(failure.kind);
            if got != *kind {
                return Err(format!("expected failed:{kind}, got failed:{got}:\n{report}").into());
            }
        }
        (_, result) => return Err(format!("not the expected outcome: {result:#?}").into()),
    }
    let expected_tree = match &case.outcome {
        Outcome::Tree(after) => after,
        _ => &before,
    };
    compare_trees(&sandbox.tree()?, expected_tree).map_err(|d| format!("the tree is not as expected:\n{d}"))?;
    sandbox.nothing_outside_root()?;
    // Applying the reply again, whether it succeeds or is refused, changes nothing.
    if let Outcome::Tree(after) = &case.outcome {
        let mut files = DiskFileSet::new(sandbox.root())?;
        if let Err(ReplyError::NotApplied { commit_error: Some(commit), .. }) =
            polypatch::apply_text(&reply, &mut files, &options)
        {
            return Err(format!("the re-run failed while writing: {commit}").into());
        }
        compare_trees(&sandbox.tree()?, after).map_err(|d| format!("the re-run changed the tree:\n{d}"))?;
    }
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name().expect("a named directory").to_string_lossy().into_owned()
}

/// What a case expects the patch to do.
enum Outcome {
    /// Success, leaving exactly this tree.
    Tree(Tree),
    /// `parse` fails with this `PatchError` kind.
    Malformed(String),
    /// `apply` fails with this `FailureKind` (its JSON name).
    Failed(String),
    /// A chat reply without any patch block (`no_patch`).
    NoPatch,
}

/// One parsed line of an `expect` file.
#[derive(Debug)]
enum Expectation {
    Strict,
    /// `options = skip_binary_without_data`: parsed with
    /// `ParseOptions::skip_binary_without_data`.
    SkipBinary,
    Rerun,
    /// `rerun <dialect> = unchanged`: for that dialect (of an equivalence case), a re-run
    /// need only leave the tree unchanged; refusing it is right where its patch cannot
    /// show that it was applied.
    RerunUnchanged(String),
    Tier(Selector, Tier),
    EditStatus(Selector, Status),
    FileStatus(String, Status),
    Lines(Selector, usize, usize),
    /// `blocks = unified ai-patch`: a chat case's reply holds blocks of these dialects, in
    /// this order.
    Blocks(Vec<String>),
}

/// `[path] hunk N`: an edit of a file of the report.
#[derive(Debug)]
struct Selector {
    path: Option<String>,
    index: usize,
}

struct Case {
    before: PathBuf,
    patch: String,
    outcome: Outcome,
    expect: Vec<Expectation>,
}

impl Case {
    fn load(dir: &Path, patch_file: &str) -> Result<Case, String> {
        let read = |name: &str| fs::read_to_string(dir.join(name)).map_err(|e| format!("cannot read `{name}`: {e}"));
        // A diff may hold bytes that are not UTF-8 (a Latin-1 file's lines): read without
        // loss, as the CLI reads it.
        let bytes = fs::read(dir.join(patch_file)).map_err(|e| format!("cannot read `{patch_file}`: {e}"))?;
        let patch = polypatch::fs::decode_lossless(&bytes).into_owned();
        let has_after = dir.join("after").is_dir();
        let has_error = dir.join("error.txt").is_file();
        let outcome = match (has_after, has_error) {
            (true, false) => Outcome::Tree(read_tree(&dir.join("after")).map_err(|e| e.to_string())?),
            (false, true) => {
                let text = read("error.txt")?;
                let first = text.lines().next().unwrap_or_default().trim();
                if let Some(kind) = first.strip_prefix("malformed:") {
                    Outcome::Malformed(kind.trim().to_string())
                } else if let Some(kind) = first.strip_prefix("failed:") {
                    Outcome::Failed(kind.trim().to_string())
                } else if first == "no_patch" {
                    Outcome::NoPatch
                } else {
                    return Err(format!("error.txt must start with `malformed:` or `failed:`, not `{first}`"));
                }
            }
            _ => return Err("a case needs exactly one of `after/` and `error.txt`".to_string()),
        };
        let expect = match fs::read_to_string(dir.join("expect")) {
            Ok(text) => parse_expect(&text)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(format!("cannot read `expect`: {e}")),
        };
        let reruns = expect.iter().any(|e| matches!(e, Expectation::Rerun));
        if reruns && !matches!(outcome, Outcome::Tree(_)) {
            return Err("`rerun` needs a case that applies (`after/`)".to_string());
        }
        Ok(Case { before: dir.join("before"), patch, outcome, expect })
    }
}

fn parse_expect(text: &str) -> Result<Vec<Expectation>, String> {
    let mut out = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |why: &str| format!("expect line {}: {why}: `{raw}`", n + 1);
        let (left, value) = line.split_once('=').ok_or_else(|| bad("no `=`"))?;
        let value = value.trim();
        let words: Vec<&str> = left.split_whitespace().collect();
        let Some((&key, target)) = words.split_first() else {
            return Err(bad("no key"));
        };
        let expectation = match key {
            "options" if target.is_empty() && value == "strict" => Expectation::Strict,
            "options" if target.is_empty() && value == "skip_binary_without_data" => Expectation::SkipBinary,
            "rerun" if target.is_empty() && value == "already_applied" => Expectation::Rerun,
            "blocks" if target.is_empty() => {
                Expectation::Blocks(value.split_whitespace().map(str::to_string).collect())
            }
            "rerun" if value == "unchanged" => match target {
                [dialect] => Expectation::RerunUnchanged((*dialect).to_string()),
                _ => return Err(bad("expected `rerun <dialect> = unchanged`")),
            },
            "tier" => Expectation::Tier(selector(target).ok_or_else(|| bad("expected `[path] hunk N`"))?, {
                serde_json::from_value(serde_json::Value::String(value.to_string())).map_err(|_| bad("unknown tier"))?
            }),
            "status" => {
                let status: Status = serde_json::from_value(serde_json::Value::String(value.to_string()))
                    .map_err(|_| bad("unknown status"))?;
                match (selector(target), target) {
                    (Some(sel), _) => Expectation::EditStatus(sel, status),
                    (None, [path]) => Expectation::FileStatus((*path).to_string(), status),
                    (None, _) => return Err(bad("expected `[path] hunk N` or `path`")),
                }
            }
            "lines" => {
                let sel = selector(target).ok_or_else(|| bad("expected `[path] hunk N`"))?;
                let (start, end) = value.split_once('-').unwrap_or((value, value));
                let num = |s: &str| s.trim().parse::<usize>().map_err(|_| bad("expected `START-END`"));
                Expectation::Lines(sel, num(start)?, num(end)?)
            }
            _ => return Err(bad("unknown expectation")),
        };
        out.push(expectation);
    }
    Ok(out)
}

/// `hunk N` or `PATH hunk N`.
fn selector(words: &[&str]) -> Option<Selector> {
    let (path, rest) = match words {
        [path, rest @ ..] if words.len() == 3 => (Some((*path).to_string()), rest),
        _ => (None, words),
    };
    match rest {
        ["hunk", n] => Some(Selector { path, index: n.parse().ok()? }),
        _ => None,
    }
}

fn run_case(dialect: &str, dir: &Path, patch_file: &str) -> Result<(), Failed> {
    let case = Case::load(dir, patch_file)?;
    let sandbox = Sandbox::with_copy_of(&case.before)?;
    let before = sandbox.tree()?;
    let patch = case
        .patch
        .replace("@ROOT@", &sandbox.root().to_string_lossy())
        // A path next to the root, inside the sandbox, that does not exist.
        .replace("@OUTSIDE@", &sandbox.root().with_file_name("outside").to_string_lossy());
    let strict = case.expect.iter().any(|e| matches!(e, Expectation::Strict));
    let options = ApplyOptions::default().strict(strict);

    if case.expect.iter().any(|e| matches!(e, Expectation::Blocks(_))) {
        return Err("`blocks` is for chat cases".into());
    }
    let parse_options = ParseOptions::default()
        .skip_binary_without_data(case.expect.iter().any(|e| matches!(e, Expectation::SkipBinary)));
    let parsed = parse_case(dialect, &patch, &parse_options);
    match &case.outcome {
        Outcome::Malformed(kind) => {
            let err = match parsed {
                Ok(plan) => return Err(format!("expected a malformed patch ({kind}), but it parsed: {plan:#?}").into()),
                Err(err) => err,
            };
            if err.kind != kind.as_str() || err.dialect != dialect {
                return Err(format!(
                    "expected malformed:{kind} from {dialect}, got {} from {}:\n{}",
                    err.kind,
                    err.dialect,
                    err.render(&patch)
                )
                .into());
            }
            if !case.expect.is_empty() {
                return Err("a malformed case has no report to check `expect` against".into());
            }
        }
        Outcome::Failed(kind) => {
            let plan = parsed.map_err(|e| format!("the patch should parse:\n{}", e.render(&patch)))?;
            let mut files = DiskFileSet::new(sandbox.root())?;
            let err = match polypatch::apply(&plan, &mut files, &options) {
                Ok(report) => return Err(format!("expected failed:{kind}, but the patch applied:\n{report}").into()),
                Err(err) => err,
            };
            if let Some(commit) = &err.commit_error {
                return Err(format!("expected failed:{kind} before writing, got a commit error: {commit}").into());
            }
            let failure =
                err.report.first_failure().ok_or_else(|| format!("no failure in the report:\n{}", err.report))?.failure;
            let got = failure_kind_name(failure.kind);
            if got != *kind {
                return Err(format!("expected failed:{kind}, got failed:{got}:\n{}", err.report).into());
            }
            check_expectations(&case.expect, &err.report)?;
        }
        Outcome::Tree(_) => {
            let plan = parsed.map_err(|e| format!("the patch should parse:\n{}", e.render(&patch)))?;
            let mut files = DiskFileSet::new(sandbox.root())?;
            let report = polypatch::apply(&plan, &mut files, &options)
                .map_err(|e| format!("the patch should apply: {e}\n{}", e.report))?;
            check_expectations(&case.expect, &report)?;
        }
        Outcome::NoPatch => return Err("`no_patch` is for chat cases".into()),
    }

    let expected_tree = match &case.outcome {
        Outcome::Tree(after) => after,
        Outcome::Malformed(_) | Outcome::Failed(_) | Outcome::NoPatch => &before,
    };
    compare_trees(&sandbox.tree()?, expected_tree).map_err(|d| format!("the tree is not as expected:\n{d}"))?;
    sandbox.nothing_outside_root()?;

    let unchanged_only = case.expect.iter().any(|e| matches!(e, Expectation::RerunUnchanged(d) if d == dialect));
    if case.expect.iter().any(|e| matches!(e, Expectation::Rerun)) && !unchanged_only {
        rerun(dialect, &patch, &sandbox, (&parse_options, &options), expected_tree)?;
    } else if let Outcome::Tree(after) = &case.outcome {
        rerun_changes_nothing(dialect, &patch, &sandbox, (&parse_options, &options), after)?;
    }
    Ok(())
}

/// The case's patch parsed as its dialect folder says, with the case's parse options.
fn parse_case(
    dialect: &str,
    patch: &str,
    options: &ParseOptions,
) -> Result<polypatch::EditPlan, polypatch::PatchError> {
    // By name: `Format` lists only the first five dialects.
    polypatch::Dialects::builtin().parse_with(patch, dialect, options)
}

/// Every case that applies: applying the patch again, whether it succeeds or is refused,
/// leaves the tree as the first run left it.
fn rerun_changes_nothing(
    dialect: &str,
    patch: &str,
    sandbox: &Sandbox,
    (parse_options, options): (&ParseOptions, &ApplyOptions),
    after: &Tree,
) -> Result<(), Failed> {
    let plan = parse_case(dialect, patch, parse_options).map_err(|e| e.render(patch))?;
    let mut files = DiskFileSet::new(sandbox.root())?;
    if let Err(err) = polypatch::apply(&plan, &mut files, options)
        && let Some(commit) = err.commit_error
    {
        return Err(format!("the re-run failed while writing: {commit}").into());
    }
    compare_trees(&sandbox.tree()?, after).map_err(|d| format!("the re-run changed the tree:\n{d}").into())
}

/// Applies the patch a second time: every file and edit must be already applied, and the tree
/// must not change.
fn rerun(
    dialect: &str,
    patch: &str,
    sandbox: &Sandbox,
    (parse_options, options): (&ParseOptions, &ApplyOptions),
    after: &Tree,
) -> Result<(), Failed> {
    let plan = parse_case(dialect, patch, parse_options).map_err(|e| e.render(patch))?;
    let mut files = DiskFileSet::new(sandbox.root())?;
    let report = polypatch::apply(&plan, &mut files, options)
        .map_err(|e| format!("the re-run should succeed: {e}\n{}", e.report))?;
    let all_edits = report.files.iter().flat_map(|f| &f.edits).all(|e| e.status == Status::AlreadyApplied);
    if !report.is_already_applied() || !all_edits {
        return Err(format!("the re-run should report everything as already applied:\n{report}").into());
    }
    compare_trees(&sandbox.tree()?, after).map_err(|d| format!("the re-run changed the tree:\n{d}"))?;
    Ok(())
}

fn check_expectations(expect: &[Expectation], report: &ApplyReport) -> Result<(), Failed> {
    for e in expect {
        let problem = match e {
            Expectation::Strict
            | Expectation::SkipBinary
            | Expectation::Rerun
            | Expectation::RerunUnchanged(_)
            | Expectation::Blocks(_) => None,
            Expectation::Tier(sel, tier) => {
                let edit = edit(report, sel)?;
                (edit.tier != Some(*tier))
                    .then(|| format!("hunk {}: expected tier {tier}, got {:?}", sel.index, edit.tier))
            }
            Expectation::EditStatus(sel, status) => {
                let edit = edit(report, sel)?;
                (edit.status != *status)
                    .then(|| format!("hunk {}: expected status {status:?}, got {:?}", sel.index, edit.status))
            }
            Expectation::FileStatus(path, status) => {
                let file = file(report, Some(path))?;
                (file.status != *status).then(|| format!("{path}: expected status {status:?}, got {:?}", file.status))
            }
            Expectation::Lines(sel, start, end) => {
                let edit = edit(report, sel)?;
                let got = edit.lines.map(|l| (l.start, l.end));
                (got != Some((*start, *end)))
                    .then(|| format!("hunk {}: expected lines {start}-{end}, got {:?}", sel.index, edit.lines))
            }
        };
        if let Some(problem) = problem {
            return Err(format!("{problem}\nreport:\n{report}").into());
        }
    }
    Ok(())
}

fn file<'r>(report: &'r ApplyReport, path: Option<&String>) -> Result<&'r FileReport, String> {
    match path {
        Some(path) => report
            .files
            .iter()
            .find(|f| f.path == *path)
            .ok_or_else(|| format!("no file `{path}` in the report:\n{report}")),
        None => match report.files.as_slice() {
            [only] => Ok(only),
            _ => Err(format!("the report holds several files; name one in `expect`:\n{report}")),
        },
    }
}

fn edit<'r>(report: &'r ApplyReport, sel: &Selector) -> Result<&'r EditReport, String> {
    let file = file(report, sel.path.as_ref())?;
    file.edits
        .iter()
        .find(|e| e.index == sel.index)
        .ok_or_else(|| format!("no hunk {} in the report:\n{report}", sel.index))
}

fn failure_kind_name(kind: FailureKind) -> String {
    match serde_json::to_value(kind) {
        Ok(serde_json::Value::String(name)) => name,
        other => panic!("FailureKind serializes as a string, got {other:?}"),
    }
}

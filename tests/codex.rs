//! Codex's portable `apply_patch` scenarios (`../shared/conformance/codex-apply-patch`,
//! Apache-2.0, data only) as an external conformance suite for the AI-PATCH dialect.
//!
//! Each scenario directory holds `input/` (optional), `patch.txt` and `expected/`. The input is
//! copied into a temporary root, the patch is parsed with format detection (as the CLI's
//! `--format auto` does) and applied with `DiskFileSet`, and the tree must equal `expected/`
//! byte for byte, with no extra file (empty directories are not compared).
//!
//! Every upstream scenario whose expected tree equals its input is a rejection ("rejects",
//! "fails", "requires" in its name), so there the patch must fail: an applier that quietly
//! accepts a patch it could not apply is the bug this project exists to prevent.

mod common;

use std::fs;
use std::path::Path;

use libtest_mimic::{Arguments, Failed, Trial};
use polypatch::{ApplyOptions, DiskFileSet};

use common::{Sandbox, compare_trees, read_tree, subdirs};

/// Scenarios where polypatch differs from Codex on purpose: the patch must fail and the tree
/// must stay exactly as `input/`, whatever `expected/` says.
const DIVERGENCES: &[(&str, &str)] = &[(
    "015_failure_after_partial_success_leaves_changes",
    "polypatch applies a patch all or nothing: Codex keeps the file added before the failing \
     update, polypatch writes nothing when any part fails",
)];

/// Scenarios where polypatch applies the patch but writes other bytes than Codex, on
/// purpose: the scenario, the reason, and the files (path, bytes) polypatch leaves instead of
/// `expected/`'s.
type Different = (&'static str, &'static str, &'static [(&'static str, &'static [u8])]);
const DIFFERENT_RESULT: &[Different] = &[];

fn main() {
    let args = Arguments::from_args();
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/codex-apply-patch/scenarios");
    let trials = if suite.is_dir() {
        let scenarios = subdirs(&suite);
        let names = DIVERGENCES.iter().map(|(n, _)| *n).chain(DIFFERENT_RESULT.iter().map(|(n, _, _)| *n));
        for name in names {
            assert!(
                scenarios.iter().any(|s| s.file_name().is_some_and(|n| n == name)),
                "the divergence list names `{name}`, which is not a scenario"
            );
        }
        scenarios
            .into_iter()
            .map(|dir| {
                let name = dir.file_name().expect("a named directory").to_string_lossy().into_owned();
                Trial::test(format!("codex-apply-patch::{name}"), move || run_scenario(&name, &dir))
            })
            .collect()
    } else {
        let message = format!("codex-apply-patch suite not found at {}: skipped", suite.display());
        vec![Trial::test("codex-apply-patch::suite_not_found", move || {
            println!("{message}");
            Ok(())
        })]
    };
    libtest_mimic::run(&args, trials).exit();
}

fn run_scenario(name: &str, dir: &Path) -> Result<(), Failed> {
    let patch = fs::read_to_string(dir.join("patch.txt"))?;
    let input = read_tree(&dir.join("input"))?;
    let mut expected = read_tree(&dir.join("expected"))?;
    let different = DIFFERENT_RESULT.iter().find(|(n, _, _)| *n == name);
    if let Some((_, reason, files)) = different {
        for (path, bytes) in *files {
            let slot = expected.get_mut(*path).ok_or_else(|| format!("`{path}` is not in expected/"))?;
            if slot.as_slice() == *bytes {
                return Err("declared as a different result, but Codex expects the same bytes: drop it".into());
            }
            *slot = bytes.to_vec();
        }
        eprintln!("declared divergence: {reason}");
    }
    let divergence = DIVERGENCES.iter().find(|(n, _)| *n == name).map(|(_, reason)| *reason);
    let must_fail = divergence.is_some() || expected == input;

    let sandbox = Sandbox::with_copy_of(&dir.join("input"))?;
    let result = match polypatch::parse(&patch, polypatch::Format::Auto) {
        Err(err) => Err(err.render(&patch)),
        Ok(plan) => {
            let mut files = DiskFileSet::new(sandbox.root())?;
            match polypatch::apply(&plan, &mut files, &ApplyOptions::default()) {
                Ok(report) => Ok(report),
                Err(err) => Err(format!("{err}\n{}", err.report)),
            }
        }
    };

    let (want, what) = match divergence {
        Some(reason) => (&input, format!("the input (declared divergence: {reason})")),
        None => (&expected, "expected/".to_string()),
    };
    match (&result, must_fail) {
        (Ok(report), true) => {
            return Err(format!("the patch should be rejected, but it applied:\n{report}").into());
        }
        (Err(err), false) => return Err(format!("the patch should apply: {err}").into()),
        _ => {}
    }
    compare_trees(&sandbox.tree()?, want).map_err(|d| format!("the tree does not match {what}:\n{d}"))?;
    sandbox.nothing_outside_root()?;
    Ok(())
}

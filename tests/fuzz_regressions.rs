//! Every input the fuzzers found a bug with, replayed without a fuzzer: each file in
//! `fuzz/regressions/<target>/` runs through the same check its fuzz target runs
//! (`polypatch::fuzzing`), as its own named test (`apply::<file>`). The check panics, and
//! the test fails, when the bug comes back. `fuzz/README.md` says how to add one.

use std::fs;
use std::path::Path;

use libtest_mimic::{Arguments, Trial};
use polypatch::fuzzing;

/// A fuzz target's check: panics on a broken invariant.
type Check = fn(&[u8]);

/// The fuzz targets (`fuzz/fuzz_targets/<name>.rs`) and the check each runs.
const TARGETS: &[(&str, Check)] = &[
    ("unified", fuzzing::unified),
    ("aipatch", fuzzing::aipatch),
    ("ap", fuzzing::ap),
    ("applydiff", fuzzing::applydiff),
    ("aptix", fuzzing::aptix),
    ("toolcall", fuzzing::toolcall),
    ("detect", fuzzing::detect_format),
    ("apply", fuzzing::apply_patch),
    #[cfg(feature = "search-replace")]
    ("search_replace", fuzzing::search_replace),
    #[cfg(feature = "lazy")]
    ("lazy", fuzzing::lazy),
];

fn main() {
    let args = Arguments::from_args();
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut trials = Vec::new();
    for dir in fs::read_dir(&base).expect("fuzz/regressions exists") {
        let dir = dir.unwrap().path();
        let target = dir.file_name().unwrap().to_string_lossy().into_owned();
        let Some(&(_, check)) = TARGETS.iter().find(|(name, _)| *name == target) else {
            panic!("fuzz/regressions/{target} names no fuzz target");
        };
        let mut inputs: Vec<_> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        // Dot files (`.gitkeep`) keep an empty folder in git; they are no input.
        inputs.retain(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'));
        inputs.sort();
        for input in inputs {
            let name = format!("{target}::{}", input.file_name().unwrap().to_string_lossy());
            trials.push(Trial::test(name, move || {
                check(&fs::read(&input).map_err(|e| format!("{}: {e}", input.display()))?);
                Ok(())
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

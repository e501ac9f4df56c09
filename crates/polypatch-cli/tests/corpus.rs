//! The fixture corpus (`spec-fixtures/`) driven through the `polypatch` binary, as a user
//! runs it: every case applied with `polypatch apply --format <dialect> --json`, its exit code
//! (0 applied, 1 failed, 2 malformed), the JSON status and error kind, and the tree after it,
//! byte for byte. `tests/fixtures.rs` of the `polypatch` crate runs the same cases through the
//! library with the finer `expect` checks.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;

type Tree = BTreeMap<String, Vec<u8>>;

fn read_tree(dir: &Path) -> Tree {
    fn walk(base: &Path, dir: &Path, out: &mut Tree) {
        let Ok(entries) = fs::read_dir(dir) else { return };
        for entry in entries.map(Result::unwrap) {
            let path = entry.path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let rel = path.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/");
                out.insert(rel, fs::read(&path).unwrap());
            }
        }
    }
    let mut out = Tree::new();
    walk(dir, dir, &mut out);
    out
}

fn write_tree(dir: &Path, tree: &Tree) {
    for (rel, bytes) in tree {
        let path = dir.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }
}

fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    out.sort();
    out
}

/// One case: a dialect, its folder and its patch file.
struct Case {
    name: String,
    dialect: String,
    dir: PathBuf,
    patch: PathBuf,
}

fn cases() -> Vec<Case> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../spec-fixtures");
    let mut out = Vec::new();
    for dialect_dir in subdirs(&base) {
        let group = dialect_dir.file_name().unwrap().to_string_lossy().into_owned();
        for dir in subdirs(&dialect_dir) {
            let case = dir.file_name().unwrap().to_string_lossy().into_owned();
            if group == "equivalence" {
                for dialect in polypatch::Dialects::global().names() {
                    if dir.join(format!("unreachable.{dialect}")).exists() {
                        continue;
                    }
                    let patch = dir.join(format!("patch.{dialect}"));
                    let name = format!("{group}::{case}::{dialect}");
                    out.push(Case { name, dialect: dialect.to_string(), dir: dir.clone(), patch });
                }
            } else if group == "chat" {
                // A model's whole reply: detected and extracted, as a user pastes it.
                let patch = dir.join("patch");
                out.push(Case { name: format!("{group}::{case}"), dialect: "auto".to_string(), dir, patch });
            } else if polypatch::Dialects::global().get(&group).is_some() {
                let patch = dir.join("patch");
                out.push(Case { name: format!("{group}::{case}"), dialect: group.clone(), dir, patch });
            }
        }
    }
    out
}

fn run_case(case: &Case) -> Result<(), String> {
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let base = tmp.path().canonicalize().map_err(|e| e.to_string())?;
    let root = base.join("root");
    fs::create_dir(&root).map_err(|e| e.to_string())?;
    let before = read_tree(&case.dir.join("before"));
    write_tree(&root, &before);
    // A diff may hold bytes that are not UTF-8: the binary gets the fixture's bytes.
    let bytes = fs::read(&case.patch).map_err(|e| format!("{}: {e}", case.patch.display()))?;
    let text = polypatch::fs::decode_lossless(&bytes)
        .replace("@ROOT@", &root.to_string_lossy())
        .replace("@OUTSIDE@", &base.join("outside").to_string_lossy());
    let patch = base.join("case.patch");
    fs::write(&patch, polypatch::engine::encode_lossless(&text)).map_err(|e| e.to_string())?;
    let expect = fs::read_to_string(case.dir.join("expect")).unwrap_or_default();
    let option = |name: &str| {
        expect.lines().any(|l| l.split('#').next().unwrap_or("").replace(' ', "") == format!("options={name}"))
    };
    let (strict, skip_binary) = (option("strict"), option("skip_binary_without_data"));

    let run = || {
        let mut args = vec!["apply", "--json", "--format", &case.dialect, "--root"];
        let root = root.to_str().unwrap();
        args.push(root);
        if strict {
            args.push("--strict");
        }
        if skip_binary {
            args.push("--skip-binary-without-data");
        }
        let patch = patch.to_str().unwrap();
        args.push(patch);
        let out = Command::new(common::binary()).args(&args).output().unwrap();
        let doc: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{}: stdout is not one JSON document ({e})", case.name));
        (out.status.code(), doc)
    };
    let (code, doc) = run();
    let error = fs::read_to_string(case.dir.join("error.txt")).ok();
    let first = error.as_deref().and_then(|t| t.lines().next()).map(str::trim);
    let expected_tree = match first {
        None => {
            if code != Some(0) {
                return Err(format!("expected exit 0, got {code:?}: {doc}"));
            }
            read_tree(&case.dir.join("after"))
        }
        Some(line) => {
            let (want_code, want_status, kind) = if let Some(kind) = line.strip_prefix("malformed:") {
                (2, "malformed", kind.trim())
            } else if let Some(kind) = line.strip_prefix("failed:") {
                (1, "failed", kind.trim())
            } else if line == "no_patch" {
                (2, "malformed", "no_patch")
            } else {
                return Err(format!("bad error.txt: {line}"));
            };
            if code != Some(want_code) || doc["status"] != want_status {
                return Err(format!("expected exit {want_code} ({want_status}), got {code:?}: {doc}"));
            }
            if want_status == "malformed" && doc["error"]["kind"] != kind {
                return Err(format!("expected malformed:{kind}: {doc}"));
            }
            before.clone()
        }
    };
    let after = read_tree(&root);
    if after != expected_tree {
        let differ: std::collections::BTreeSet<&String> =
            expected_tree.keys().chain(after.keys()).filter(|k| expected_tree.get(*k) != after.get(*k)).collect();
        return Err(format!("the tree is not as expected; files that differ: {differ:?}"));
    }
    if fs::read_dir(&base).map_err(|e| e.to_string())?.count() != 2 {
        return Err("the patch wrote outside the root".to_string());
    }
    let unchanged_only = format!("rerun{}=unchanged", case.dialect);
    if expect.lines().any(|l| l.replace(' ', "") == "rerun=already_applied")
        && !expect.lines().any(|l| l.replace(' ', "") == unchanged_only)
    {
        let (code, doc) = run();
        if code != Some(0) || doc["status"] != "already_applied" {
            return Err(format!("the re-run should be already_applied, got {code:?}: {doc}"));
        }
    }
    Ok(())
}

#[test]
fn every_fixture_through_the_binary() {
    let cases = cases();
    assert!(cases.len() > 100, "the corpus is missing: {} cases", cases.len());
    let failures: Vec<String> =
        cases.iter().filter_map(|c| run_case(c).err().map(|e| format!("{}: {e}", c.name))).collect();
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
    println!("{} fixture cases ran through the binary", cases.len());
}

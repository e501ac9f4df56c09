//! Pairs of `polypatch apply` processes editing different lines of one file at the same
//! time (issue 25, point 4). Ignored by default (a few hundred pairs take a while):
//!
//! ```text
//! cargo test -p polypatch-cli --test concurrent -- --ignored --nocapture
//! POLYPATCH_PAIRS=1000 cargo test -p polypatch-cli --release --test concurrent -- --ignored --nocapture
//! ```
//!
//! It prints how many pairs both applied, how many updates were lost (an apply exited 0
//! and its edit is not in the file) and how many applies failed for any reason; the
//! assertion is that none was lost and none failed.

use std::fs;
use std::process::{Command, Stdio};

mod common;

const LINES: usize = 12;

fn patch(line: usize) -> String {
    format!("*** Begin Patch\n*** Update File: f.txt\n@@\n-line {line}\n+line {line} edited\n*** End Patch\n")
}

#[test]
#[ignore = "a few hundred pairs of processes: run with --ignored"]
fn concurrent_applies_on_disjoint_lines() {
    let pairs: usize = std::env::var("POLYPATCH_PAIRS").ok().and_then(|n| n.parse().ok()).unwrap_or(300);
    let (mut both, mut lost, mut failed) = (0, Vec::new(), Vec::new());
    for pair in 0..pairs {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        fs::create_dir(&root).unwrap();
        let text: Vec<String> = (0..LINES).map(|i| format!("line {i}\n")).collect();
        fs::write(root.join("f.txt"), text.concat()).unwrap();
        let lines = [2, 8];
        let mut children = Vec::new();
        for (who, line) in lines.iter().enumerate() {
            let path = dir.path().join(format!("{who}.patch"));
            fs::write(&path, patch(*line)).unwrap();
            let child = Command::new(common::binary())
                .args(["apply", "--root", root.to_str().unwrap(), path.to_str().unwrap()])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            children.push(child);
        }
        let outs: Vec<_> = children.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
        let text = fs::read_to_string(root.join("f.txt")).unwrap();
        let mut ok = 0;
        for (out, line) in outs.iter().zip(lines) {
            let edited = text.contains(&format!("line {line} edited\n"));
            match (out.status.success(), edited) {
                (true, true) => ok += 1,
                (true, false) => lost.push(format!("pair {pair}: line {line} exited 0, edit gone")),
                (false, _) => failed.push(format!("pair {pair}: {}", String::from_utf8_lossy(&out.stderr).trim())),
            }
        }
        if ok == 2 {
            both += 1;
        }
    }
    println!("{pairs} pairs: {both} both applied, {} lost updates, {} failed applies", lost.len(), failed.len());
    for line in lost.iter().chain(&failed).take(10) {
        println!("  {line}");
    }
    assert!(lost.is_empty() && failed.is_empty());
}

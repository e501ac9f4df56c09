//! Runs polypatch's elision recognizer over every line of the source files under the
//! given folders, as if each line were new text a model wrote (with the lines before it
//! as its context), and prints every line it flags and a count per folder. It checks
//! that no line of real code is taken for an elision:
//!
//! ```sh
//! cargo run --release --example scan_elisions -- ~/.cargo/registry/src "$(rustc --print sysroot)/lib/rustlib/src"
//! ```

use std::path::{Path, PathBuf};

/// The extensions of the source files scanned.
const CODE: &[&str] = &[
    "rs", "py", "pyi", "js", "mjs", "cjs", "ts", "mts", "cts", "jsx", "tsx", "c", "h", "cc", "cpp", "hpp", "go",
    "java", "rb", "sh",
];

#[derive(Default)]
struct Count {
    files: usize,
    lines: usize,
    flagged: usize,
}

fn main() {
    let folders: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if folders.is_empty() {
        eprintln!("usage: scan_elisions FOLDER...");
        std::process::exit(2);
    }
    let mut total = Count::default();
    for folder in &folders {
        let mut count = Count::default();
        scan(folder, &mut count);
        println!("{}: {} files, {} lines, {} flagged", folder.display(), count.files, count.lines, count.flagged);
        total.files += count.files;
        total.lines += count.lines;
        total.flagged += count.flagged;
    }
    println!("total: {} files, {} lines, {} flagged", total.files, total.lines, total.flagged);
}

fn scan(path: &Path, count: &mut Count) {
    let Ok(meta) = std::fs::symlink_metadata(path) else { return };
    if meta.is_dir() {
        let Ok(entries) = std::fs::read_dir(path) else { return };
        let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for entry in entries {
            scan(&entry, count);
        }
        return;
    }
    let is_code = path.extension().and_then(|e| e.to_str()).is_some_and(|e| CODE.contains(&e));
    if !meta.is_file() || !is_code {
        return;
    }
    let Ok(text) = std::fs::read_to_string(path) else { return };
    let lines: Vec<&str> = text.lines().collect();
    count.files += 1;
    count.lines += lines.len();
    for (j, line) in lines.iter().enumerate() {
        if polypatch::engine::elision::is_elision_at(&lines, j) {
            count.flagged += 1;
            println!("{}:{}: {}", path.display(), j + 1, line.trim());
        }
    }
}

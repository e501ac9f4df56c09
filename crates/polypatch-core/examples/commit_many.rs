//! One commit of many files, for a whole-process timing of how the disk commit scales
//! with the number of files (issue 25): `commit_many setup DIR N` writes `N` files (100 to
//! a directory), `commit_many commit DIR N` reads each and commits a new content for
//! every one (a fresh run may repeat it: each run writes the same new contents).
//!
//! ```text
//! cargo build --release -p polypatch-core --example commit_many
//! target/release/examples/commit_many setup /tmp/many 20000
//! /usr/bin/time -v target/release/examples/commit_many commit /tmp/many 20000
//! ```

use std::path::Path;

use polypatch_core::{Change, DiskFileSet, FileSource, FileStore};

fn name(i: usize) -> String {
    format!("d{}/f{i}.txt", i / 100)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, verb, dir, n] = args.as_slice() else {
        eprintln!("usage: commit_many setup|commit DIR N");
        std::process::exit(2);
    };
    let (dir, n): (&Path, usize) = (Path::new(dir), n.parse().expect("N is a number"));
    match verb.as_str() {
        "setup" => {
            for i in 0..n {
                let path = dir.join(name(i));
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, format!("file {i}\nold line\n")).unwrap();
            }
        }
        "commit" => {
            let mut files = DiskFileSet::new(dir).unwrap();
            let changes: Vec<Change> = (0..n)
                .map(|i| {
                    let path = files.resolve(&name(i)).unwrap();
                    files.read(&path).unwrap();
                    Change::write(path, format!("file {i}\nnew line\n"), None)
                })
                .collect();
            files.commit(&changes).unwrap();
        }
        _ => {
            eprintln!("usage: commit_many setup|commit DIR N");
            std::process::exit(2);
        }
    }
}

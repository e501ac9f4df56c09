//! Converts a unified diff into each dialect compiled in, on files held in memory, and
//! prints each version.
//!
//! Run it with `cargo run --example convert`. `cargo test` runs its test, which applies each
//! converted patch exactly and compares the bytes.

use std::error::Error;

use polypatch::convert::ConvertOptions;
use polypatch::{Dialects, MemoryFileSet};

/// The diff a model wrote: it lost the indentation, and the line it changes occurs twice;
/// its line number picks the second. Each conversion says exactly which line, with
/// context that makes it unique.
const DIFF: &str = "\
--- a/src/main.rs
+++ b/src/main.rs
@@ -6 +6 @@
-println!(\"hello\");
+println!(\"goodbye\");
";

const MAIN: &str = "\
fn main() {
    println!(\"hello\");
}

fn helper() {
    println!(\"hello\");
}
";

/// The diff converted into every dialect compiled in: `(dialect, patch)`.
fn run() -> Result<Vec<(&'static str, String)>, Box<dyn Error>> {
    let files = MemoryFileSet::new().with("src/main.rs", MAIN);
    // By name, through the registry (`polypatch::Format` names only the first five).
    let dialects = Dialects::builtin();
    let mut out = Vec::new();
    for dialect in writable() {
        let converted = dialects.convert(DIFF, &files, dialect, &ConvertOptions::default())?;
        out.push((dialect, converted.text));
    }
    Ok(out)
}

/// The dialects convert can write: a dialect that can only be read (`lazy`) is left out.
fn writable() -> Vec<&'static str> {
    polypatch::Dialects::global()
        .iter()
        .filter(|d| {
            !matches!(
                d.render(&[], &polypatch_core::RenderOptions::default()),
                Err(polypatch::convert::RenderError::NotWritable { .. })
            )
        })
        .map(polypatch::Dialect::name)
        .collect()
}

fn main() -> Result<(), Box<dyn Error>> {
    for (dialect, patch) in run()? {
        println!("=== {dialect}");
        print!("{patch}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use polypatch::{ApplyOptions, apply};

    use super::*;

    #[test]
    fn every_conversion_applies_exactly_and_gives_the_same_bytes() {
        let after = MAIN.rsplit_once("hello").map(|(a, b)| format!("{a}goodbye{b}")).unwrap();
        let converted = run().unwrap();
        assert_eq!(converted.len(), writable().len());
        for (dialect, patch) in converted {
            assert_eq!(polypatch::detect(&patch).map(polypatch::Dialect::name), Some(dialect), "{patch}");
            let plan = Dialects::builtin().parse(&patch, dialect).unwrap();
            let mut files = MemoryFileSet::new().with("src/main.rs", MAIN);
            apply(&plan, &mut files, &ApplyOptions::default().strict(true)).unwrap();
            assert_eq!(files.get_str("src/main.rs"), Some(after.as_str()), "{dialect}:\n{patch}");
        }
    }

    #[test]
    fn the_ai_patch_version_is_exact() {
        let converted = run().unwrap();
        let (_, patch) = converted.iter().find(|(d, _)| *d == "ai-patch").unwrap();
        assert_eq!(
            patch,
            "*** Begin Patch\n*** Update File: src/main.rs\n@@\n }\n \n fn helper() {\n-    println!(\"hello\");\n\
             +    println!(\"goodbye\");\n }\n*** End of File\n*** End Patch\n"
        );
    }
}

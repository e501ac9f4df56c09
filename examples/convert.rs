//! Converts a unified diff into each of the five dialects, on files held in memory, and
//! prints each version.
//!
//! Run it with `cargo run --example convert`. `cargo test` runs its test, which applies each
//! converted patch exactly and compares the bytes.

use std::error::Error;

use polypatch::MemoryFileSet;
use polypatch::convert::{ConvertOptions, convert};

/// The diff a model wrote: its hunk header counts are wrong and it lost the indentation of
/// the method, which the lenient tiers forgive; each conversion is exact.
const DIFF: &str = "\
--- a/greet.py
+++ b/greet.py
@@ -5,2 +5,2 @@
 def farewell(self):
-    return 'bye'
+    return 'Goodbye!'
";

const GREET: &str = "\
def greet(name):
    return 'Hello ' + name


class Greeter:
    def farewell(self):
        return 'bye'
";

/// The diff converted into every dialect compiled in: `(dialect, patch)`.
fn run() -> Result<Vec<(&'static str, String)>, Box<dyn Error>> {
    let files = MemoryFileSet::new().with("greet.py", GREET);
    let mut out = Vec::new();
    for dialect in polypatch::dialect_names() {
        let converted = convert(DIFF, &files, dialect, &ConvertOptions::default())?;
        out.push((dialect, converted.text));
    }
    Ok(out)
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
    use polypatch::{ApplyOptions, apply, parse};

    use super::*;

    #[test]
    fn every_conversion_applies_exactly_and_gives_the_same_bytes() {
        let after = GREET.replace("'bye'", "'Goodbye!'");
        let converted = run().unwrap();
        assert_eq!(converted.len(), polypatch::dialect_names().len());
        for (dialect, patch) in converted {
            assert_eq!(polypatch::detect(&patch).map(polypatch::Dialect::name), Some(dialect), "{patch}");
            let plan = parse(&patch, Some(dialect)).unwrap();
            let mut files = MemoryFileSet::new().with("greet.py", GREET);
            apply(&plan, &mut files, &ApplyOptions::default().strict(true)).unwrap();
            assert_eq!(files.get_str("greet.py"), Some(after.as_str()), "{dialect}:\n{patch}");
        }
    }

    #[test]
    fn the_ai_patch_version_is_exact() {
        let converted = run().unwrap();
        let (_, patch) = converted.iter().find(|(d, _)| *d == "ai-patch").unwrap();
        assert_eq!(
            patch,
            "*** Begin Patch\n*** Update File: greet.py\n@@\n \n class Greeter:\n     def farewell(self):\n\
             -        return 'bye'\n+        return 'Goodbye!'\n*** End of File\n*** End Patch\n"
        );
    }
}

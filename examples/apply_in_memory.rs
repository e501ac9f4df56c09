//! Applies an AI-PATCH to files held in memory, as an editor would to its unsaved
//! buffers, and prints the report.
//!
//! Run it with `cargo run --example apply_in_memory`. `cargo test` runs its test.

use std::error::Error;

use polypatch::{ApplyOptions, ApplyReport, MemoryFileSet, apply, parse};

/// The patch a model wrote. Its second hunk lost the class's indentation, as models'
/// hunks often do: the indentation tier finds it and indents the new line like the file.
const PATCH: &str = "\
*** Begin Patch
*** Update File: greet.py
@@
 def greet(name):
-    return 'Hello ' + name
+    return f'Hello, {name}!'
@@
 def farewell(self):
-    return 'bye'
+    return 'Goodbye!'
*** End Patch
";

const GREET: &str = "\
def greet(name):
    return 'Hello ' + name


class Greeter:
    def farewell(self):
        return 'bye'
";

/// Parses the patch and applies it to a buffer; returns the buffers and the report.
fn run() -> Result<(MemoryFileSet, ApplyReport), Box<dyn Error>> {
    let mut buffers = MemoryFileSet::new().with("greet.py", GREET);
    // `None` detects the dialect; `Some("ai-patch")` would name it.
    let plan = parse(PATCH, polypatch::Format::Auto).map_err(|err| err.render(PATCH))?;
    let report = apply(&plan, &mut buffers, &ApplyOptions::default())?;
    Ok((buffers, report))
}

fn main() -> Result<(), Box<dyn Error>> {
    let (buffers, report) = run()?;
    print!("{report}");
    println!("--- greet.py ---");
    print!("{}", buffers.get_str("greet.py").unwrap_or_default());
    Ok(())
}

#[cfg(test)]
mod tests {
    use polypatch::report::{Status, Tier};

    #[test]
    fn patches_the_buffer() {
        let (buffers, report) = super::run().unwrap();
        let expected = "\
def greet(name):
    return f'Hello, {name}!'


class Greeter:
    def farewell(self):
        return 'Goodbye!'
";
        assert_eq!(buffers.get_str("greet.py"), Some(expected));
        let edits = &report.files[0].edits;
        assert_eq!(edits[0].status, Status::Applied);
        assert_eq!(edits[0].tier, Some(Tier::Exact));
        assert_eq!(edits[1].tier, Some(Tier::Indentation));
    }

    #[test]
    fn main_runs() {
        super::main().unwrap();
    }
}

//! Instructions to give a model so that it writes a dialect well.
//!
//! Each text says, in plain words, the dialect's shape, how to write an edit that
//! applies (exact copies of the file's lines, enough context to be unique, no elisions,
//! one block per change, paths relative to the project root), what to do after a failure
//! report, and ends with one worked example: a small file and the patch that changes it.
//! A test applies every example, so a prompt never teaches a broken patch. Each dialect
//! holds its own text ([`Dialect::prompt`](crate::Dialect::prompt), the `prompt.txt` of its
//! crate); this module only looks it up.

/// The instructions for writing the dialect called `format` (a name from
/// [`Dialects::names`](crate::Dialects::names)), as plain text; `None` for a name that is not a
/// dialect compiled in.
///
/// ```
/// let text = polypatch::prompt("ai-patch").unwrap();
/// assert!(text.contains("*** Begin Patch"));
/// assert_eq!(polypatch::prompt("yaml-ish"), None);
/// ```
pub fn prompt(format: &str) -> Option<&'static str> {
    crate::Dialects::global().get(format)?.prompt()
}

#[cfg(test)]
mod tests {
    use super::prompt;
    use crate::{ApplyOptions, MemoryFileSet, apply};

    /// The file every example changes, and what it becomes.
    const PATH: &str = "app/greet.py";
    const BEFORE: &str =
        "import sys\n\n\ndef greet(name):\n    print(\"Hello, \" + name)\n\n\ndef main():\n    greet(sys.argv[1])\n";
    const AFTER: &str = "import sys\n\n\ndef greet(name):\n    print(f\"Hello, {name}!\")\n\n\ndef main():\n    name = sys.argv[1] if len(sys.argv) > 1 else \"world\"\n    greet(name)\n";

    /// The contents of the text's fenced blocks (lines between a line opening with three
    /// backticks and a line of exactly three backticks), in order.
    fn fences(text: &str) -> Vec<String> {
        let mut blocks = Vec::new();
        let mut open: Option<String> = None;
        for line in text.split_inclusive('\n') {
            match open.as_mut() {
                None if line.starts_with("```") => open = Some(String::new()),
                None => {}
                Some(block) if line.trim_end() == "```" => {
                    blocks.push(std::mem::take(block));
                    open = None;
                }
                Some(block) => block.push_str(line),
            }
        }
        assert!(open.is_none(), "a fenced block is not closed");
        blocks
    }

    #[test]
    fn every_dialect_has_a_prompt() {
        assert!(!crate::Dialects::global().names().is_empty());
        for name in crate::Dialects::global().names() {
            let text = prompt(name).unwrap_or_else(|| panic!("no prompt for {name}"));
            assert!(text.contains("nothing was written"), "{name}: says what a failure means");
            assert!(text.contains("project root"), "{name}: says what paths are relative to");
            assert!(text.contains("existing code"), "{name}: warns about elisions");
        }
        assert_eq!(prompt("auto"), None);
        assert_eq!(prompt(""), None);
    }

    /// The last two fenced blocks of each prompt are the example's file and its patch: the
    /// patch parses as that dialect (and is detected as it) and turns the file into
    /// [`AFTER`]; applied again, it changes nothing.
    #[test]
    fn every_example_patch_applies() {
        for name in crate::Dialects::global().names() {
            // A lazy snippet cannot replace a file's last line (the marker assumed after it
            // keeps it): its example is another edit, applied by the lazy crate's tests.
            if name == "lazy" {
                continue;
            }
            let blocks = fences(prompt(name).unwrap());
            let [.., file, patch] = blocks.as_slice() else { panic!("{name}: the example needs a file and a patch") };
            assert_eq!(file, BEFORE, "{name}: the example's file");
            // By name: `Format` lists only the first five dialects.
            let plan = crate::Dialects::global()
                .get(name)
                .expect("compiled in")
                .parse(patch)
                .unwrap_or_else(|err| panic!("{name}: {}", err.render(patch)));
            assert_eq!(crate::detect(patch).map(crate::Dialect::name), Some(name), "{name}: detected as itself");
            let mut files = MemoryFileSet::new().with(PATH, BEFORE);
            let report = apply(&plan, &mut files, &ApplyOptions::default().strict(true))
                .unwrap_or_else(|err| panic!("{name}: {err}"));
            assert!(report.committed, "{name}: {report}");
            assert_eq!(files.get_str(PATH), Some(AFTER), "{name}: the bytes after applying");
            assert_eq!(files.paths().count(), 1, "{name}: no other file");
            apply(&plan, &mut files, &ApplyOptions::default()).unwrap_or_else(|err| panic!("{name} re-run: {err}"));
            assert_eq!(files.get_str(PATH), Some(AFTER), "{name}: a re-run changes nothing");
        }
    }

    #[test]
    fn fences_are_read_in_order() {
        let text = "intro ```json inline\n```python\na\n```\nmid\n```\nb\nc\n```\n";
        assert_eq!(fences(text), ["a\n", "b\nc\n"]);
    }
}

//! Applies a model's whole chat reply (prose, a fenced diff, a shell snippet, a bare
//! AI-PATCH block and an Aptix bundle) to files held in memory, as one transaction, and
//! prints which block did what.
//!
//! Run it with `cargo run --example apply_chat_reply`. `cargo test` runs its test.

use std::error::Error;

use polypatch::{ApplyOptions, MemoryFileSet, ReplyError, apply_text, reply::ReplyReport};

/// The reply, pasted whole. The second block edits what the first one wrote.
const REPLY: &str = r#"The greeting should name the person. First the function:

```diff
--- a/greet.py
+++ b/greet.py
@@ -1,2 +1,2 @@
-def greet():
-    return 'Hello'
+def greet(name):
+    return 'Hello'
```

Then its body, now that it takes a name:

*** Begin Patch
*** Update File: greet.py
@@ def greet(name):
-    return 'Hello'
+    return f'Hello, {name}!'
*** End Patch

You can try it with:

```bash
python -c 'import greet; print(greet.greet("Ada"))'
```

And a changelog entry:

```json
{"root": ".", "files": [{"path": "CHANGELOG.md", "operation": "create", "content": "- greet() takes a name\n"}]}
```
"#;

/// Applies the reply to a buffer; returns the buffers and the report.
fn run() -> Result<(MemoryFileSet, ReplyReport), Box<dyn Error>> {
    let mut buffers = MemoryFileSet::new().with("greet.py", "def greet():\n    return 'Hello'\n");
    let report = apply_text(REPLY, &mut buffers, &ApplyOptions::default()).map_err(|err| match err {
        // A malformed block's error points into the reply.
        ReplyError::Malformed { block, error } => format!("{block}:\n{}", error.render(REPLY)),
        other => other.to_string(),
    })?;
    Ok((buffers, report))
}

fn main() -> Result<(), Box<dyn Error>> {
    let (buffers, report) = run()?;
    print!("{report}");
    for path in buffers.paths() {
        println!("--- {path} ---");
        print!("{}", buffers.get_str(path).unwrap_or_default());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use polypatch::{ApplyOptions, MemoryFileSet, ReplyError, apply_text, report::Status};

    #[test]
    fn applies_every_block_in_order() {
        let (buffers, report) = super::run().unwrap();
        assert_eq!(buffers.get_str("greet.py"), Some("def greet(name):\n    return f'Hello, {name}!'\n"));
        assert_eq!(buffers.get_str("CHANGELOG.md"), Some("- greet() takes a name\n"));
        let blocks: Vec<_> = report.blocks.iter().map(|b| (b.block.dialect.as_str(), b.status)).collect();
        assert_eq!(blocks, [("unified", Status::Applied), ("ai-patch", Status::Applied), ("aptix", Status::Applied)]);
        assert!(report.committed);
    }

    #[test]
    fn a_block_that_fails_leaves_every_buffer_alone() {
        let reply = super::REPLY.replace("-    return 'Hello'\n+    return f'", "-    return 'Howdy'\n+    return f'");
        let before = MemoryFileSet::new().with("greet.py", "def greet():\n    return 'Hello'\n");
        let mut buffers = before.clone();
        let err = apply_text(&reply, &mut buffers, &ApplyOptions::default()).unwrap_err();
        assert!(matches!(err, ReplyError::NotApplied { .. }), "{err}");
        assert_eq!(buffers, before);
    }

    #[test]
    fn main_runs() {
        super::main().unwrap();
    }
}

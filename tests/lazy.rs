//! Lazy snippets through the facade: a chat reply whose fence names the file, detected and
//! applied without `--format`; the other dialects keep refusing elisions.
#![cfg(all(feature = "lazy", feature = "search-replace"))]

use polypatch::{ApplyOptions, MemoryFileSet, apply_text};

const FILE: &str = "import os\n\n\ndef add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";

#[test]
fn a_reply_with_a_lazy_snippet_applies_with_the_fence_s_path() {
    for reply in [
        "Fixed:\n\n```python src/calc.py\n# ... existing code ...\ndef add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n# ... existing code ...\n```\n",
        "Fixed:\n\nsrc/calc.py\n```python\n# ... existing code ...\ndef add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n# ... existing code ...\n```\n",
    ] {
        let blocks = polypatch::extract(reply);
        assert_eq!(blocks.iter().map(|b| b.dialect.as_str()).collect::<Vec<_>>(), ["lazy"], "{reply}");
        let mut files = MemoryFileSet::new().with("src/calc.py", FILE);
        apply_text(reply, &mut files, &ApplyOptions::default()).unwrap();
        assert_eq!(files.get_str("src/calc.py"), Some(FILE.replace("a - b", "a + b").as_str()));
    }
}

#[test]
fn search_replace_keeps_refusing_an_elision() {
    let reply = "src/calc.py\n```python\n<<<<<<< SEARCH\ndef add(a, b):\n    return a - b\n=======\ndef add(a, b):\n    # ... existing code ...\n>>>>>>> REPLACE\n```\n";
    let mut files = MemoryFileSet::new().with("src/calc.py", FILE);
    let err = apply_text(reply, &mut files, &ApplyOptions::default()).unwrap_err();
    assert!(format!("{err}").contains("stands for code the edit would delete"), "{err}");
    assert_eq!(files.get_str("src/calc.py"), Some(FILE));
}

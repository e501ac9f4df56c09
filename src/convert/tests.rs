use super::*;
use crate::MemoryFileSet;

fn to(patch: &str, files: &MemoryFileSet, target: &str) -> Result<String, ConvertError> {
    convert(patch, files, target, &ConvertOptions::default()).map(|c| c.text)
}

#[test]
fn a_unified_diff_becomes_each_dialect() {
    let files = MemoryFileSet::new().with("a.txt", "one\ntwo\nthree\n");
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n";
    for target in crate::dialect_names() {
        let text = to(diff, &files, target).unwrap_or_else(|e| panic!("{target}: {e}"));
        assert!(!text.is_empty(), "{target}");
    }
}

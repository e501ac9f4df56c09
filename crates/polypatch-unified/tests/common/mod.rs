//! Random files and edits shared by the property tests of the generator (against `git
//! apply`) and of the round trip (through polypatch's own parser and apply).

use proptest::prelude::*;

/// A random text: lines from a small vocabulary (so that diffs meet repeated lines),
/// sometimes `\r\n`, with or without a final newline.
pub fn text_file(max_lines: usize) -> impl Strategy<Value = Vec<u8>> {
    let line = prop::sample::select(vec!["a", "b", "c", "{", "}", "", "    x = 1;", "fn f() {", "// note"]);
    let ending = prop::sample::select(vec!["\n", "\n", "\n", "\n", "\n", "\n", "\r\n"]);
    (prop::collection::vec((line, ending), 0..max_lines), any::<bool>()).prop_map(|(lines, final_newline)| {
        let mut out = String::new();
        for (text, end) in &lines {
            out.push_str(text);
            out.push_str(end);
        }
        // Without a final newline; a `\r\n` line then keeps its `\r`.
        if !final_newline && out.ends_with('\n') {
            out.pop();
        }
        out.into_bytes()
    })
}

/// Random edits: (kind, position, new line) with kind 0 insert, 1 delete, 2 replace.
pub fn edits(max_edits: usize) -> impl Strategy<Value = Vec<(u8, usize, &'static str)>> {
    let word = prop::sample::select(vec!["a", "b", "new", "}", "", "    y = 2;", "fn g() {", "z\r"]);
    prop::collection::vec((0u8..3, any::<usize>(), word), 0..max_edits)
}

/// `before` with `edits` applied line by line, and its final newline set when asked.
pub fn edited(before: &[u8], edits: &[(u8, usize, &str)], final_newline: Option<bool>) -> Vec<u8> {
    let text = std::str::from_utf8(before).unwrap();
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_owned).collect();
    for &(kind, pos, word) in edits {
        match kind {
            0 => {
                let at = pos % (lines.len() + 1);
                lines.insert(at, format!("{word}\n"));
            }
            _ if lines.is_empty() => {}
            1 => {
                lines.remove(pos % lines.len());
            }
            _ => {
                let at = pos % lines.len();
                lines[at] = format!("{word}\n");
            }
        }
    }
    let mut out = lines.concat();
    match final_newline {
        Some(true) if !out.is_empty() && !out.ends_with('\n') => out.push('\n'),
        Some(false) if out.ends_with('\n') => {
            out.pop();
        }
        _ => {}
    }
    out.into_bytes()
}

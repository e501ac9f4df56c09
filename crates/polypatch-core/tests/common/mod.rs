//! What the integration tests share.

use polypatch_core::LineText;

/// Diff-style lines (` ` context, `-` removed, `+` added) split into the old side, the
/// new side and, for each new line, the index of the old line it keeps.
pub fn sides(lines: &[&str]) -> (Vec<LineText>, Vec<LineText>, Vec<Option<usize>>) {
    let (mut old, mut new, mut kept) = (Vec::new(), Vec::new(), Vec::new());
    for l in lines {
        let (tag, text) = l.split_at(1);
        match tag {
            " " => {
                kept.push(Some(old.len()));
                old.push(text.into());
                new.push(text.into());
            }
            "-" => old.push(text.into()),
            "+" => {
                kept.push(None);
                new.push(text.into());
            }
            _ => panic!("bad tag in {l:?}"),
        }
    }
    (old, new, kept)
}

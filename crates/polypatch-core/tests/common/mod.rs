//! What the integration tests share.

/// Diff-style lines (` ` context, `-` removed, `+` added) split into the old side, the
/// new side and, for each new line, the index of the old line it keeps.
pub fn sides(lines: &[&str]) -> (Vec<String>, Vec<String>, Vec<Option<usize>>) {
    let (mut old, mut new, mut kept) = (Vec::new(), Vec::new(), Vec::new());
    for l in lines {
        let (tag, text) = l.split_at(1);
        match tag {
            " " => {
                kept.push(Some(old.len()));
                old.push(text.to_string());
                new.push(text.to_string());
            }
            "-" => old.push(text.to_string()),
            "+" => {
                kept.push(None);
                new.push(text.to_string());
            }
            _ => panic!("bad tag in {l:?}"),
        }
    }
    (old, new, kept)
}

//! Where a run of `>>> file:` blocks written bare in a model's reply ends
//! ([`Dialect::bare_block`](polypatch_core::Dialect::bare_block)).

use polypatch_core::ReplyLines;

/// [`Dialect::bare_block`](polypatch_core::Dialect::bare_block) of [`crate::ApplyDiff`]: a run of `>>> file:` blocks.
pub(crate) fn bare_block(lines: &ReplyLines<'_>, at: usize, to: usize) -> Option<usize> {
    lines.line(at).trim_start().starts_with(">>> file:").then(|| run_end(lines, at, to))
}

/// One past the last line of a run of `>>> file:` blocks starting at line `i`: each block
/// ends with its `<` (or `<<<`) line after `--- to`; blocks separated only by blank lines
/// belong to the same run. An unclosed block runs to `to`.
fn run_end(lines: &ReplyLines<'_>, i: usize, to: usize) -> usize {
    let mut j = i;
    loop {
        // j is a `>>> file:` line.
        let mut seen_to = false;
        let mut close = None;
        for k in j + 1..to {
            let line = lines.line(k);
            if line.trim_end() == "--- to" {
                seen_to = true;
            } else if seen_to && matches!(line.trim_end(), "<" | "<<<") {
                close = Some(k);
                break;
            }
        }
        let Some(close) = close else { return to };
        let next = (close + 1..to).find(|&k| !lines.line(k).trim().is_empty());
        match next {
            Some(k) if lines.line(k).trim_start().starts_with(">>> file:") => j = k,
            _ => return close + 1,
        }
    }
}

//! Where SEARCH/REPLACE blocks written bare in a model's reply end
//! ([`Dialect::bare_block`](polypatch_core::Dialect::bare_block)).

use polypatch_core::ReplyLines;

use crate::syntax::{is_replace, is_search, path_of};

/// [`Dialect::bare_block`](polypatch_core::Dialect::bare_block) of [`crate::SearchReplace`]:
///
/// - a path line right before a fence whose content holds a SEARCH marker (Aider's
///   "diff" layout): the path line, the fence and its close;
/// - a run of blocks from a SEARCH marker, or from a path line right before one: each
///   block ends at its REPLACE marker, and blocks separated only by blank lines (each
///   maybe after its own path line) belong to one run. An unclosed block runs to `to`.
pub(crate) fn bare_block(lines: &ReplyLines<'_>, at: usize, to: usize) -> Option<usize> {
    let line = lines.line(at);
    if is_search(line) {
        return Some(run_end(lines, at, to));
    }
    if at + 1 >= to || path_of(line).is_none() {
        return None;
    }
    let next = lines.line(at + 1);
    if is_search(next) {
        return Some(run_end(lines, at + 1, to));
    }
    let (c, width) = fence_open(next)?;
    let mut holds_block = false;
    for j in at + 2..to {
        let l = lines.line(j);
        if closes(l, c, width) {
            return holds_block.then_some(j + 1);
        }
        holds_block |= is_search(l);
    }
    holds_block.then_some(to)
}

/// A fence opening line: its character and width.
fn fence_open(line: &str) -> Option<(char, usize)> {
    let t = line.trim_start();
    let c = t.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let width = t.len() - t.trim_start_matches(c).len();
    (width >= 3 && !(c == '`' && t[width..].contains('`'))).then_some((c, width))
}

/// Whether `line` closes a fence of `width` characters `c`.
fn closes(line: &str, c: char, width: usize) -> bool {
    let t = line.trim();
    t.len() >= width && t.chars().all(|x| x == c)
}

/// One past the last line of the run of blocks whose first SEARCH marker is line `i`.
fn run_end(lines: &ReplyLines<'_>, i: usize, to: usize) -> usize {
    let mut j = i;
    loop {
        let Some(close) = (j + 1..to).find(|&k| is_replace(lines.line(k))) else { return to };
        let Some(next) = (close + 1..to).find(|&k| !lines.line(k).trim().is_empty()) else { return close + 1 };
        let line = lines.line(next);
        if is_search(line) {
            j = next;
        } else if path_of(line).is_some() && next + 1 < to && is_search(lines.line(next + 1)) {
            j = next + 1;
        } else {
            return close + 1;
        }
    }
}

//! Hunks from two versions of a file, with context grown until each is unique by the
//! target dialect's rules: what the built-in renderers plan their hunks, snippets and
//! `find`s with ([`plan`]), and the line helpers they share.

use std::hash::Hash;
use std::ops::Range;
use std::time::{Duration, Instant};

use similar::algorithms::{Capture, Compact, Replace, myers};
use similar::{DiffOp, DiffTag};

/// The lines of a text, each with its terminator (`\n` ends a line; a `\r` before it is
/// part of the terminator).
pub fn split(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// A line without its terminator.
pub fn body(line: &str) -> &str {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}

/// How many lines of context a hunk may gain, beyond those asked for, to be unique.
pub const MAX_EXTRA_CONTEXT: usize = 64;

/// A changed region of a file with its context: the same lines before `lead` and after
/// `trail` on both sides.
///
/// Plain data, closed: a hunk is its two ranges and its context (not `#[non_exhaustive]`,
/// so a dialect's renderer may build one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// The lines of the old version it covers.
    pub old: Range<usize>,
    /// The lines of the new version it covers.
    pub new: Range<usize>,
    /// How many of its first lines are context.
    pub lead: usize,
    /// How many of its last lines are context.
    pub trail: usize,
}

/// Widens hunk `i` by up to `n` context lines on each side, never past its neighbours (the
/// lines between two hunks are the same in both versions, so both sides move together);
/// whether it grew.
fn grow(hunks: &mut [Hunk], i: usize, n: usize, old_len: usize, new_len: usize) -> bool {
    let (prev_old, prev_new) = i.checked_sub(1).map_or((0, 0), |p| (hunks[p].old.end, hunks[p].new.end));
    let (next_old, next_new) = hunks.get(i + 1).map_or((old_len, new_len), |h| (h.old.start, h.new.start));
    let h = &mut hunks[i];
    let before = n.min(h.old.start - prev_old).min(h.new.start - prev_new);
    let after = n.min(next_old - h.old.end).min(next_new - h.new.end);
    h.old = h.old.start - before..h.old.end + after;
    h.new = h.new.start - before..h.new.end + after;
    h.lead += before;
    h.trail += after;
    before + after > 0
}

/// The hunks that turn `old` into `new` (lines with terminators), each with `context`
/// lines around it, then widened one line each side at a time while `accept(hunks, i)`
/// refuses hunk `i` (hunks that come to touch are merged). `Err(hunk)`: the hunk covers
/// the whole file, or has [`MAX_EXTRA_CONTEXT`] lines of context beyond `context`, and is
/// still refused (a file that repeats itself throughout; the bound keeps the search from
/// growing with the square of the file's size).
pub fn plan(
    old: &[&str],
    new: &[&str],
    context: usize,
    mut accept: impl FnMut(&[Hunk], usize) -> bool,
) -> Result<Vec<Hunk>, Hunk> {
    let mut hunks: Vec<Hunk> = Vec::new();
    for (op, o, n) in ops(old, new) {
        if op == DiffTag::Equal {
            continue;
        }
        match hunks.last_mut() {
            Some(last) if last.old.end == o.start && last.new.end == n.start => {
                last.old.end = o.end;
                last.new.end = n.end;
            }
            _ => hunks.push(Hunk { old: o, new: n, lead: 0, trail: 0 }),
        }
    }
    for i in 0..hunks.len() {
        grow(&mut hunks, i, context, old.len(), new.len());
    }
    merge(&mut hunks);
    let mut i = 0;
    while i < hunks.len() {
        if accept(&hunks, i) {
            i += 1;
            continue;
        }
        let h = &hunks[i];
        if h.lead + h.trail > 2 * context + MAX_EXTRA_CONTEXT || !grow(&mut hunks, i, 1, old.len(), new.len()) {
            return Err(hunks[i].clone());
        }
        let count = hunks.len();
        merge(&mut hunks);
        if hunks.len() < count {
            i = i.saturating_sub(1);
        }
    }
    Ok(hunks)
}

/// The line diff as (tag, old range, new range), in order. The ranges are counted here
/// from the lengths: `similar` can give a deletion at the start a stray new index.
fn ops(old: &[&str], new: &[&str]) -> Vec<(DiffTag, Range<usize>, Range<usize>)> {
    let (mut o, mut n) = (0, 0);
    myers_ops(old, new, None)
        .iter()
        .map(|op| {
            let (ol, nl) = (op.old_range().len(), op.new_range().len());
            let out = (op.tag(), o..o + ol, n..n + nl);
            (o, n) = (o + ol, n + nl);
            out
        })
        .collect()
}

/// The line diff's operations: what `similar::capture_diff_slices(Algorithm::Myers, ..)`
/// gives (the same hooks around Myers' algorithm: changes moved to their canonical place,
/// a deletion and an insertion together as a replacement), without compiling the two
/// algorithms that function can also choose (`patience`, `lcs`) for every element type.
/// Past `deadline` the diff is coarser, still a correct one.
pub(crate) fn myers_ops<T: Hash + Eq + Ord>(old: &[T], new: &[T], deadline: Option<Instant>) -> Vec<DiffOp> {
    let mut hooks = Compact::new(Replace::new(Capture::new()), old, new);
    let Ok(()) = myers::diff_deadline(&mut hooks, old, 0..old.len(), new, 0..new.len(), deadline);
    hooks.into_inner().into_inner().into_ops()
}

/// A hunk header's range as git writes it: `start,count` counted from 1, `start` alone
/// for one line, and for an empty side the line before it with `,0`.
///
/// ```
/// use polypatch_core::render::hunks::hunk_range;
///
/// assert_eq!(hunk_range(0, 0), "0,0");
/// assert_eq!(hunk_range(5, 0), "5,0");
/// assert_eq!(hunk_range(0, 1), "1");
/// assert_eq!(hunk_range(9, 1), "10");
/// assert_eq!(hunk_range(0, 3), "1,3");
/// ```
pub fn hunk_range(start: usize, count: usize) -> String {
    match count {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{count}", start + 1),
    }
}

/// A unified diff from `old` to `new` (texts whose lines end with `\n`) with `radius`
/// lines of context, headed `--- {from}` and `+++ {to}` (empty when they are equal), and
/// how alike they are (twice the lines kept over all lines, 1.0 for two empty texts): the
/// short diffs failures show. Past `timeout` Myers' algorithm gives a coarser diff, still a
/// correct one, so two large, very different texts stay cheap.
pub(crate) fn short_diff(
    old: &str,
    new: &str,
    radius: usize,
    (from, to): (&str, &str),
    timeout: Duration,
) -> (String, f32) {
    use std::fmt::Write as _;
    let old: Vec<&str> = old.split_inclusive('\n').collect();
    let new: Vec<&str> = new.split_inclusive('\n').collect();
    let ops = myers_ops(&old, &new, Instant::now().checked_add(timeout));
    let ratio = similar::get_diff_ratio(&ops, old.len(), new.len());
    let mut out = String::new();
    for (k, group) in similar::group_diff_ops(ops, radius).iter().enumerate() {
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        if k == 0 {
            let _ = write!(out, "--- {from}\n+++ {to}\n");
        }
        // Saturating: similar can give a deletion at the start a stray new index.
        let (o, n) = (first.old_range().start, first.new_range().start);
        let old_count = last.old_range().end.saturating_sub(o);
        let new_count = last.new_range().end.saturating_sub(n);
        let _ = writeln!(out, "@@ -{} +{} @@", hunk_range(o, old_count), hunk_range(n, new_count));
        for op in group {
            let (olds, news) = (&old[op.old_range()], &new[op.new_range()]);
            let mut put = |mark: char, lines: &[&str]| {
                for line in lines {
                    out.push(mark);
                    out.push_str(line);
                }
            };
            match op.tag() {
                DiffTag::Equal => put(' ', olds),
                DiffTag::Delete => put('-', olds),
                DiffTag::Insert => put('+', news),
                DiffTag::Replace => {
                    put('-', olds);
                    put('+', news);
                }
            }
        }
    }
    (out, ratio)
}

/// Merges hunks that touch.
fn merge(hunks: &mut Vec<Hunk>) {
    let mut out: Vec<Hunk> = Vec::with_capacity(hunks.len());
    for hunk in hunks.drain(..) {
        match out.last_mut() {
            Some(last) if hunk.old.start == last.old.end => {
                last.trail = hunk.trail;
                last.old.end = hunk.old.end;
                last.new.end = hunk.new.end;
            }
            _ => out.push(hunk),
        }
    }
    *hunks = out;
}

/// One line of a hunk: kept (context), removed or added.
///
/// Closed: a diff's line is one of these three (not `#[non_exhaustive]`, so a renderer
/// matches all of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// In both versions.
    Keep,
    /// Only in the old version.
    Remove,
    /// Only in the new version.
    Add,
}

/// The lines of a hunk in diff order, each with its mark.
pub fn lines<'a>(old: &[&'a str], new: &[&'a str], hunk: &Hunk) -> Vec<(Mark, &'a str)> {
    let (o, n) = (&old[hunk.old.clone()], &new[hunk.new.clone()]);
    let mut out = Vec::with_capacity(o.len().max(n.len()));
    for (tag, old_range, new_range) in ops(o, n) {
        if tag == DiffTag::Equal {
            out.extend(o[old_range].iter().map(|l| (Mark::Keep, *l)));
        } else {
            out.extend(o[old_range].iter().map(|l| (Mark::Remove, *l)));
            out.extend(n[new_range].iter().map(|l| (Mark::Add, *l)));
        }
    }
    out
}

/// The start of every occurrence of `needle` in `hay`, compared with `eq`.
pub fn occurrences<T>(hay: &[T], needle: &[T], eq: impl Fn(&T, &T) -> bool) -> Vec<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return Vec::new();
    }
    (0..=hay.len() - needle.len())
        .filter(|&i| hay[i..i + needle.len()].iter().zip(needle).all(|(a, b)| eq(a, b)))
        .collect()
}

/// The file after the first `n` hunks are applied: the new lines up to the end of hunk
/// `n - 1`, then the old lines after it.
pub fn after_hunks<'a>(old: &[&'a str], new: &[&'a str], hunks: &[Hunk], n: usize) -> Vec<&'a str> {
    match n.checked_sub(1).map(|last| &hunks[last]) {
        None => old.to_vec(),
        Some(last) => new[..last.new.end].iter().chain(&old[last.old.end..]).copied().collect(),
    }
}

/// Whether hunk `i`'s old lines, compared without their line ends, stand exactly once in
/// the file as the hunks before it left it: what a SEARCH or `--- from` section needs to be
/// found (an empty old side never is).
pub fn old_side_unique(old: &[&str], new: &[&str], hunks: &[Hunk], i: usize) -> bool {
    let wanted: Vec<&str> = old[hunks[i].old.clone()].iter().map(|l| body(l)).collect();
    if wanted.is_empty() {
        return false;
    }
    let current: Vec<&str> = after_hunks(old, new, hunks, i).iter().map(|l| body(l)).collect();
    occurrences(&current, &wanted, |a, b| a == b).len() == 1
}

/// The find/replace pairs of a text-replacing dialect (Aptix `patches`, tool calls' old and
/// new strings) that turn `before` into `after`: one per hunk, each `find` (whole lines
/// with their terminators) occurring exactly once, overlaps counted, in the text as the
/// pairs before it left it, with context only where a `find` needs it to be unique.
/// `None` when some hunk cannot be made unique.
pub fn unique_text_pairs(before: &str, after: &str) -> Option<Vec<(String, String)>> {
    let old = split(before);
    let new = split(after);
    let accept = |hunks: &[Hunk], i: usize| {
        let find: String = old[hunks[i].old.clone()].concat();
        !find.is_empty() && count(&after_hunks(&old, &new, hunks, i).concat(), &find) == 1
    };
    let planned = plan(&old, &new, 0, accept).ok()?;
    Some(planned.iter().map(|h| (old[h.old.clone()].concat(), new[h.new.clone()].concat())).collect())
}

/// How many times `needle` occurs in `hay`, overlapping occurrences counted.
fn count(hay: &str, needle: &str) -> usize {
    let mut n = 0;
    let mut from = 0;
    while let Some(at) = hay[from..].find(needle) {
        n += 1;
        from += at + hay[from + at..].chars().next().map_or(1, char::len_utf8);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_is_grown_until_accepted_and_touching_hunks_merge() {
        let old = ["a\n", "x\n", "b\n", "x\n", "c\n"];
        let new = ["a\n", "y\n", "b\n", "y\n", "c\n"];
        let hunks = plan(&old, &new, 0, |_, _| true).unwrap();
        assert_eq!(hunks.len(), 2);
        assert_eq!((hunks[0].old.clone(), hunks[1].old.clone()), (1..2, 3..4));
        // A rule that wants a line of context before every hunk not at the top.
        let hunks = plan(&old, &new, 0, |h, i| h[i].lead >= 1 || h[i].old.start == 0).unwrap();
        assert_eq!(hunks.len(), 1, "{hunks:?}");
        // The first grew one line each side and so came to touch the second.
        assert_eq!((hunks[0].old.clone(), hunks[0].new.clone(), hunks[0].lead, hunks[0].trail), (0..4, 0..4, 1, 0));
    }

    #[test]
    fn a_hunk_that_cannot_be_accepted_is_returned() {
        let err = plan(&["a\n"], &["b\n"], 3, |_, _| false).unwrap_err();
        assert_eq!(err.old, 0..1);
    }

    #[test]
    fn occurrences_and_the_file_between_hunks() {
        assert_eq!(occurrences(&[1, 2, 1, 2], &[1, 2], |a, b| a == b), [0, 2]);
        assert!(occurrences(&[1], &[1, 2], |a, b| a == b).is_empty());
        // Context never reaches past a neighbour, where the two versions differ.
        let hunks = plan(&split("a\n\n\n}\n\t\n{\n"), &split("\n\n\n \n\n\n"), 3, |_, _| true).unwrap();
        assert_eq!(hunks, [Hunk { old: 0..6, new: 0..6, lead: 0, trail: 0 }]);
        let old = ["a\n", "b\n", "c\n", "d\n"];
        let new = ["a\n", "B\n", "B2\n", "c\n", "D\n"];
        let hunks = plan(&old, &new, 0, |_, _| true).unwrap();
        assert_eq!(after_hunks(&old, &new, &hunks, 1), ["a\n", "B\n", "B2\n", "c\n", "d\n"]);
    }

    proptest::proptest! {
        /// `myers_ops` gives the operations `similar::capture_diff_slices` gives with Myers'
        /// algorithm (which it replaces, without the other algorithms compiled), on
        /// sequences over a few lines (many repeats: shifts, replacements, runs).
        #[test]
        fn myers_ops_are_capture_diff_slices_with_myers(
            old in proptest::collection::vec(proptest::sample::select(vec!["a\n", "b\n", "\n", "c"]), 0..40),
            new in proptest::collection::vec(proptest::sample::select(vec!["a\n", "b\n", "\n", "c"]), 0..40),
        ) {
            let want = similar::capture_diff_slices(similar::Algorithm::Myers, &old, &new);
            proptest::prop_assert_eq!(myers_ops(&old, &new, None), want);
        }

        /// `short_diff` gives what similar's `TextDiff` printed as a unified diff (which it
        /// replaces, without similar's `text` feature compiled), and its ratio, for texts
        /// of a few lines with many repeats and any context radius.
        #[test]
        fn short_diff_is_similars_unified_diff(
            old in proptest::collection::vec(proptest::sample::select(vec!["a", "b", "", "c d"]), 0..30),
            new in proptest::collection::vec(proptest::sample::select(vec!["a", "b", "", "c d"]), 0..30),
            radius in 0usize..4,
        ) {
            let (old, new) = (old.join("\n") + "\n", new.join("\n") + "\n");
            let diff = similar::TextDiff::from_lines(&old, &new);
            let want = diff.unified_diff().context_radius(radius).header("a", "b").to_string();
            let (shown, ratio) = short_diff(&old, &new, radius, ("a", "b"), Duration::from_secs(5));
            proptest::prop_assert_eq!(shown, want);
            proptest::prop_assert_eq!(ratio.to_bits(), diff.ratio().to_bits());
        }
    }
}

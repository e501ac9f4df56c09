//! How similar a window of file lines is to the pattern: every seeded window scored as
//! the weighted mean of its lines' similarities ([`window_score`]), within the search's
//! work budget, keeping those that can compete ([`scored`]).

use foldhash::HashSet;

use super::distance::{Budget, Pattern, bounded_distance, histogram_distance, text_histogram, typo_cap};
use super::seeds::{exact_seeds, near_seeds};
use crate::locate::fold::trim;
use crate::locate::query::View;

/// The view's pattern lines, the ones the edit changes (`changed`, by pattern index)
/// capped at a typo.
pub(super) fn capped_patterns(view: &View<'_>, changed: &[bool]) -> Vec<Pattern> {
    let capped = |i: usize, p: &str| {
        let mut pattern = Pattern::new(trim(p));
        if changed.get(i).copied().unwrap_or(false) {
            pattern.cap = Some(typo_cap(pattern.chars.len()));
        }
        pattern
    };
    view.pat.iter().map(|&(i, p)| capped(i, p)).collect()
}

/// `by_caps`: seed near windows only where the changed lines can stand ([`capped_starts`](super::seeds::capped_starts));
/// `false` only to check in tests that this finds the same.
pub(super) fn scored(
    view: &View<'_>,
    floor: f64,
    changed: &[bool],
    budget: &mut Budget,
    by_caps: bool,
) -> Vec<(usize, f64)> {
    let m = view.pat.len();
    let n = view.idx.len();
    if m == 0 || n < m {
        return Vec::new();
    }
    let pat = capped_patterns(view, changed);
    // Bytes bound characters from above: with prefix sums of the file lines' byte lengths,
    // a window's total length is bounded in O(1) (built only when many windows are seeded).
    let pat_len: usize = pat.iter().map(|p| p.chars.len()).sum();
    let mut prefix: Vec<usize> = Vec::new();
    let mut score_all = |starts: HashSet<usize>, budget: &mut Budget| {
        let mut starts: Vec<usize> = starts.into_iter().collect();
        starts.sort_unstable();
        if starts.len() > 64 && prefix.is_empty() {
            prefix.push(0);
            for p in 0..n {
                prefix.push(prefix[p] + view.file(p).len());
            }
        }
        let upper = |s: usize| prefix.get(s + m).map_or(usize::MAX, |end| pat_len + end - prefix[s]);
        let mut buf = Vec::new();
        starts
            .into_iter()
            .filter_map(|s| Some((s, window_score(view, &pat, s, floor, upper(s), &mut buf, budget)?)))
            .collect::<Vec<_>>()
    };
    // Windows sharing an exact line with the pattern first; only when none of them is
    // close enough, windows seeded by near lines (a costlier scan). A window that shares
    // no line with the pattern and still ties with the best one would need an error in
    // every line; such a tie goes unseen, and the match is still one the content supports.
    // Each seeding reads the view's lines (tags, hashes or lengths) once, about.
    budget.scanned += n as u64;
    let found = score_all(exact_seeds(view, m, n), budget);
    if !found.is_empty() {
        return found;
    }
    budget.scanned += n as u64;
    let near = near_seeds(view, &pat, floor, budget, by_caps);
    score_all(near, budget)
}

/// Similarity of the window at `s`: 1 - total distance / total length, over trimmed
/// lines; `None` when below `floor`. Cheap lower bounds (length difference, character
/// histograms) reject most windows before any edit distance is computed.
///
/// `upper` bounds the window's total length from above (`usize::MAX`: unknown): with it,
/// a window is given up as soon as its lower bounds alone exceed what even that length
/// would allow, so many seeded windows that differ everywhere cost a few lines each.
// The arguments are one scoring pass's settings; a struct for them would be used once.
#[allow(clippy::too_many_arguments)]
pub(super) fn window_score(
    view: &View<'_>,
    pat: &[Pattern],
    s: usize,
    floor: f64,
    upper: usize,
    buf: &mut Vec<char>,
    budget: &mut Budget,
) -> Option<f64> {
    let give_up = ((1.0 - floor) * upper as f64).floor() as usize;
    let mut total = 0usize;
    let mut differing = Vec::new();
    let mut bound = 0usize;
    for (k, Pattern { chars: p, hist, .. }) in pat.iter().enumerate() {
        let f = trim(view.file(s + k));
        // A blank line against a line with text is a misalignment, not a typo (blank lines
        // the patch dropped or added are the blank-lines tier's business).
        if f.is_empty() != p.is_empty() {
            return None;
        }
        let flen = f.chars().count();
        total += flen.max(p.len());
        // Reading the lines is work too: many seeded windows of a long pattern, each
        // read line by line, would cost the pattern's length squared.
        if !budget.spend(flen.max(p.len()) as u64 + 1) {
            return None;
        }
        if flen == p.len() && f.chars().eq(p.iter().copied()) {
            continue;
        }
        let lower = flen.abs_diff(p.len()).max(histogram_distance(hist, &text_histogram(f)) / 2);
        bound += lower;
        if bound > give_up {
            return None;
        }
        differing.push(k);
    }
    if total == 0 {
        return Some(1.0);
    }
    let allowed = ((1.0 - floor) * total as f64).floor() as usize;
    if bound > allowed {
        return None;
    }
    let mut spent = 0usize;
    for k in differing {
        buf.clear();
        buf.extend(trim(view.file(s + k)).chars());
        let limit = pat[k].cap.map_or(allowed - spent, |cap| cap.min(allowed - spent));
        spent += bounded_distance(&pat[k].chars, buf, limit, budget)?;
    }
    Some(1.0 - spent as f64 / total as f64)
}

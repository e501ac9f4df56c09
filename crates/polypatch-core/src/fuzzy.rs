//! The fuzzy tier: similarity of a whole window of lines, found without scanning the
//! file quadratically.
//!
//! Candidate windows come from seeds: file lines equal (trimmed) to some pattern line, and
//! file lines near the longest pattern line (length and character-histogram filters
//! before any edit distance). If a window's similarity is at least `t`, at least one of
//! its lines has similarity at least `t` to its pattern line (the score is a weighted
//! mean), so seeding from near lines loses little. Only seeded windows are scored, with an
//! early exit once the distance budget is spent. A window that pairs a blank line with a
//! line of text is not scored at all: that is a misalignment, never a typo.

use std::collections::HashSet;

use crate::engine::{Query, View};
use crate::fold::trim;
use crate::ir::AMBIGUITY_MARGIN;

/// A pattern line that occurs more often than this is not used as a seed (`}` and the
/// like would seed thousands of windows that the other lines rule out anyway).
const MAX_SEEDS_PER_LINE: usize = 64;

/// How many of the longest pattern lines are also seeded by near (not equal) lines.
const NEAR_SEED_LINES: usize = 2;

/// Scores every seeded window; returns those scoring at least `threshold - margin`
/// (anything lower cannot compete with an accepted match).
pub(crate) fn candidates(view: &View<'_>, q: &Query<'_>) -> Vec<(usize, f64)> {
    let floor = (q.threshold - AMBIGUITY_MARGIN).max(0.0);
    scored(view, floor, usize::MAX, q.changed)
}

/// The most similar window at any score (for feedback), if any window was seeded.
pub(crate) fn closest(view: &View<'_>) -> Option<(usize, f64)> {
    scored(view, 0.3, 4096, &[]).into_iter().max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
}

/// The most edits a changed line may differ by: one typo, one more per 40 characters;
/// none in a line under 5 characters (one edit there makes another line: `l0`, `l1`).
fn typo_cap(len: usize) -> usize {
    if len < 5 { 0 } else { 1 + len / 40 }
}

fn scored(view: &View<'_>, floor: f64, max_windows: usize, changed: &[bool]) -> Vec<(usize, f64)> {
    let m = view.pat.len();
    let n = view.idx.len();
    if m == 0 || n < m {
        return Vec::new();
    }
    let pat: Vec<Pattern> = view
        .pat
        .iter()
        .map(|(i, p)| {
            let mut pattern = Pattern::new(trim(p));
            if changed.get(*i).copied().unwrap_or(false) {
                pattern.cap = Some(typo_cap(pattern.chars.len()));
            }
            pattern
        })
        .collect();
    let score_all = |starts: HashSet<usize>| {
        let mut starts: Vec<usize> = starts.into_iter().collect();
        starts.sort_unstable();
        starts.truncate(max_windows);
        let mut buf = Vec::new();
        starts.into_iter().filter_map(|s| Some((s, window_score(view, &pat, s, floor, &mut buf)?))).collect::<Vec<_>>()
    };
    // Windows sharing an exact line with the pattern first; only when none of them is
    // close enough, windows seeded by near lines (a costlier scan). A window that shares
    // no line with the pattern and still ties with the best one would need an error in
    // every line; such a tie goes unseen, and the match is still one the content supports.
    let found = score_all(exact_seeds(view, m, n));
    if !found.is_empty() {
        return found;
    }
    score_all(near_seeds(view, &pat, floor))
}

/// Window starts where some rare pattern line occurs exactly (trimmed).
fn exact_seeds(view: &View<'_>, m: usize, n: usize) -> HashSet<usize> {
    let trimmed: Vec<&str> = view.pat.iter().map(|(_, p)| trim(p)).collect();
    let mut hits: Vec<Vec<usize>> = vec![Vec::new(); m];
    for p in 0..n {
        let f = trim(view.file(p));
        if f.is_empty() {
            continue;
        }
        for (k, t) in trimmed.iter().enumerate() {
            if *t == f && hits[k].len() <= MAX_SEEDS_PER_LINE {
                hits[k].push(p);
            }
        }
    }
    let mut starts = HashSet::new();
    for (k, list) in hits.iter().enumerate() {
        if list.len() <= MAX_SEEDS_PER_LINE {
            for &p in list {
                if p >= k && p - k + m <= n {
                    starts.insert(p - k);
                }
            }
        }
    }
    starts
}

/// Window starts where one of the longest pattern lines is nearly equal to a file line.
fn near_seeds(view: &View<'_>, pat: &[Pattern], floor: f64) -> HashSet<usize> {
    let m = pat.len();
    let n = view.idx.len();
    let mut starts = HashSet::new();
    let mut order: Vec<usize> = (0..m).filter(|&k| !pat[k].chars.is_empty()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(pat[k].chars.len()));
    let mut buf = Vec::new();
    for &k in order.iter().take(NEAR_SEED_LINES) {
        let Pattern { chars: needle, hist, .. } = &pat[k];
        for p in k..(n + k + 1).saturating_sub(m) {
            let f = trim(view.file(p));
            let flen = f.chars().count();
            let longest = flen.max(needle.len());
            let budget = ((1.0 - floor) * longest as f64).floor() as usize;
            if flen.abs_diff(needle.len()) > budget {
                continue;
            }
            // Each edit changes the histograms' L1 distance by at most 2.
            if histogram_distance(hist, &histogram(f.chars())) / 2 > budget {
                continue;
            }
            buf.clear();
            buf.extend(f.chars());
            if bounded_distance(needle, &buf, budget).is_some() {
                starts.insert(p - k);
            }
        }
    }
    starts
}

/// Similarity of the window at `s`: 1 - total distance / total length, over trimmed
/// lines; `None` when below `floor`. Cheap lower bounds (length difference, character
/// histograms) reject most windows before any edit distance is computed.
fn window_score(view: &View<'_>, pat: &[Pattern], s: usize, floor: f64, buf: &mut Vec<char>) -> Option<f64> {
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
        if flen == p.len() && f.chars().eq(p.iter().copied()) {
            continue;
        }
        let lower = flen.abs_diff(p.len()).max(histogram_distance(hist, &histogram(f.chars())) / 2);
        bound += lower;
        differing.push(k);
    }
    if total == 0 {
        return Some(1.0);
    }
    let budget = ((1.0 - floor) * total as f64).floor() as usize;
    if bound > budget {
        return None;
    }
    let mut spent = 0usize;
    for k in differing {
        buf.clear();
        buf.extend(trim(view.file(s + k)).chars());
        let limit = pat[k].cap.map_or(budget - spent, |cap| cap.min(budget - spent));
        spent += bounded_distance(&pat[k].chars, buf, limit)?;
    }
    Some(1.0 - spent as f64 / total as f64)
}

/// The Damerau–Levenshtein distance of `a` and `b` when it is at most `limit`.
fn bounded_distance(a: &[char], b: &[char], limit: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let d = strsim::generic_damerau_levenshtein(a, b);
    (d <= limit).then_some(d)
}

/// A trimmed pattern line as characters, with its character histogram (computed once per
/// query, used for every window).
struct Pattern {
    chars: Vec<char>,
    hist: [u16; 64],
    /// A line the edit changes may differ by this many edits at most.
    cap: Option<usize>,
}

impl Pattern {
    fn new(line: &str) -> Pattern {
        let chars: Vec<char> = line.chars().collect();
        let hist = histogram(chars.iter().copied());
        Pattern { chars, hist, cap: None }
    }
}

fn histogram(chars: impl Iterator<Item = char>) -> [u16; 64] {
    let mut h = [0u16; 64];
    for c in chars {
        let slot = (c as u32 as usize) % 64;
        h[slot] = h[slot].saturating_add(1);
    }
    h
}

fn histogram_distance(a: &[u16; 64], b: &[u16; 64]) -> usize {
    a.iter().zip(b).map(|(x, y)| usize::from(x.abs_diff(*y))).sum()
}

/// Similarity of two texts (for feedback): 1 - distance / longer length.
pub(crate) fn similarity(a: &str, b: &str) -> f64 {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let longest = a.len().max(b.len());
    if longest == 0 {
        return 1.0;
    }
    1.0 - strsim::generic_damerau_levenshtein(&a, &b) as f64 / longest as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Miss, locate, test_lines as lines, test_query};
    use crate::ir::Occurrence;
    use crate::text::TextFile;
    use crate::tier::{Tier, TierSet};

    fn query(pat: &[String], n: usize) -> Query<'_> {
        test_query(pat, n, Occurrence::First)
    }

    #[test]
    fn one_typo_is_found_with_its_score() {
        let f = TextFile::parse("fn main() {\n    let total = compute(a, b);\n    println!(\"{total}\");\n}\n");
        let p = lines(&["let totl = compute(a, b);", "println!(\"{total}\");"]);
        let got = locate(&f.lines, &query(&p, 4), TierSet::ALL).unwrap();
        assert_eq!((got[0].start, got[0].end, got[0].tier), (1, 3, Tier::Fuzzy));
        assert!(got[0].confidence > 0.95 && got[0].confidence < 1.0, "{}", got[0].confidence);
    }

    #[test]
    fn single_line_typo_without_any_exact_line() {
        let f = TextFile::parse("alpha = 1\nbeta_value = compute_something(x)\ngamma = 3\n");
        let p = lines(&["beta_value = compute_somethng(x)"]);
        let got = locate(&f.lines, &query(&p, 3), TierSet::ALL).unwrap();
        assert_eq!((got[0].start, got[0].tier), (1, Tier::Fuzzy));
    }

    #[test]
    fn near_ties_are_ambiguous() {
        let f = TextFile::parse("value = compute(1)\nvalue = compute(2)\n");
        let p = lines(&["value = compute(3)"]);
        assert!(matches!(locate(&f.lines, &query(&p, 2), TierSet::ALL), Err(Miss::Ambiguous(Tier::Fuzzy, _))));
    }

    #[test]
    fn a_blank_line_never_pairs_with_a_line_of_text() {
        // Short repetitive lines would score high; one of them against a blank line does
        // not count as a typo.
        let f = TextFile::parse("a\n\n\na\na\na\na = 0\na\n");
        let p = lines(&["a", "", "a", "a", "a", "a", "a = 0", "a"]);
        assert!(locate(&f.lines, &query(&p, 8), TierSet::only(Tier::Fuzzy)).is_err());
    }

    #[test]
    fn a_line_the_edit_changes_may_differ_by_a_typo_only() {
        // An unrelated file: the header matches, the line to change names another module.
        let f = TextFile::parse("# SPDX-License-Identifier: MIT\n\nfrom attr.setters import *  # noqa\n");
        let p = lines(&["# SPDX-License-Identifier: MIT", "", "from attr.filters import *  # noqa"]);
        let mut q = query(&p, 3);
        assert!(locate(&f.lines, &q, TierSet::ALL).is_ok(), "as context, the line may drift");
        q.changed = &[false, false, true];
        assert_eq!(locate(&f.lines, &q, TierSet::ALL), Err(Miss::NotFound));
        // One typo in it is still found.
        let typo = lines(&["# SPDX-License-Identifier: MIT", "", "from attr.setter import *  # noqa"]);
        let q = Query { changed: &[false, false, true], ..query(&typo, 3) };
        assert_eq!(locate(&f.lines, &q, TierSet::ALL).unwrap()[0].tier, Tier::Fuzzy);
    }

    #[test]
    fn dissimilar_is_not_found() {
        let f = TextFile::parse("completely different\ncontent here\n");
        let p = lines(&["nothing like it at all"]);
        assert_eq!(locate(&f.lines, &query(&p, 2), TierSet::ALL), Err(Miss::NotFound));
    }
}

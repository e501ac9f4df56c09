//! The matching engine: the places a block of lines could take in a file, tier by tier
//! from strictest to loosest ([`Classified`]). Which of several places counts is decided
//! in `decide` ([`crate::decide::locate`], [`crate::decide::choose`]).

use crate::locate::fold::{indent_width, is_blank, key_eq};
use crate::locate::fuzzy;

use crate::ir::plan::Occurrence;
use crate::ir::tier::{Tier, TierSet};
use crate::locate::index::{Norm, Table};
use crate::locate::query::{Found, Query, View};
use crate::text::lines::Lines;

/// The tiers compared line by line with one key each, which nest: a window that matches
/// exactly also matches ignoring trailing whitespace, …, and ignoring look-alikes.
const KEY_TIERS: TierSet = TierSet::only(Tier::Exact)
    .with(Tier::TrailingWhitespace)
    .with(Tier::Indentation)
    .with(Tier::Trimmed)
    .with(Tier::Unicode);

/// Windows that match at a key tier, each with the strictest tier it matches at. The key
/// tiers nest, so one scan with the loosest key a step needs, and a check of the few hits,
/// answers every key tier. Scans happen on demand: an exact hit never pays for the looser
/// keys. The blank-lines tier looks through a second view that skips blank lines, the
/// prefix tier compares line starts, and the fuzzy tier scores seeded windows.
pub(crate) struct Classified<'a> {
    lines: Lines<'a>,
    view: View<'a>,
    /// The view that skips blank lines, for [`Tier::BlankLines`] (built when needed).
    blank: Option<View<'a>>,
    allowed: TierSet,
    scanned: Option<Tier>,
    cands: Vec<(usize, Tier)>,
}

impl<'a> Classified<'a> {
    pub(crate) fn new(lines: Lines<'a>, q: &Query<'a>, allowed: TierSet) -> Classified<'a> {
        Classified { lines, view: View::new(lines, q), blank: None, allowed, scanned: None, cands: Vec::new() }
    }

    /// Makes sure every window matching at a key tier up to `upto` is classified.
    fn scan(&mut self, q: &Query<'_>, upto: Tier) {
        if self.scanned.is_some_and(|t| t >= upto) {
            return;
        }
        let keyed: Vec<Tier> = self.allowed.intersect(KEY_TIERS).iter().filter(|t| *t <= upto).collect();
        let Some(&loosest) = keyed.last() else { return };
        let view = &self.view;
        self.cands.clear();
        if view.fits() {
            for s in key_candidates(view, loosest) {
                if q.at_eof && !view.ends_at_eof(s) {
                    continue;
                }
                let strictest = keyed.iter().copied().find(|&t| t == loosest || window_eq(view, s, t));
                self.cands.push((s, strictest.unwrap_or(loosest)));
            }
        }
        self.scanned = Some(loosest);
    }

    /// The candidates (view position, confidence) at one tier, in file order.
    fn candidates_at(&mut self, q: &Query<'a>, tier: Tier) -> Vec<(usize, f64)> {
        let eof = |view: &View<'_>, s: usize| !q.at_eof || view.ends_at_eof(s);
        match tier {
            Tier::Fuzzy => {
                if !self.view.fits() {
                    return Vec::new();
                }
                fuzzy::candidates(&self.view, q).into_iter().filter(|&(s, _)| eof(&self.view, s)).collect()
            }
            Tier::BlankLines => {
                // A query that ignores blank lines already did at every tier.
                if q.ignore_blank {
                    return Vec::new();
                }
                let lines = self.lines;
                // Every line with text of the block stands somewhere in the region, trimmed,
                // or the tier cannot match: the longest ones are looked up first, and the
                // view (a list of the region's lines with text) is built only if they are.
                if self.blank.is_none() && absent_line(lines, q) {
                    return Vec::new();
                }
                let view = self.blank.get_or_insert_with(|| View::with_blank(lines, q, true));
                if !view.fits() {
                    return Vec::new();
                }
                let found = key_candidates(view, Tier::BlankLines);
                found.into_iter().filter(|&s| eof(view, s)).map(|s| (s, tier.confidence())).collect()
            }
            Tier::Prefix => {
                if !q.prefix || self.view.pat.len() != 1 || !self.view.fits() {
                    return Vec::new();
                }
                let found = key_candidates(&self.view, Tier::Prefix);
                found.into_iter().filter(|&s| eof(&self.view, s)).map(|s| (s, tier.confidence())).collect()
            }
            _ => self.cands.iter().filter(|(_, t)| *t <= tier).map(|&(s, _)| (s, tier.confidence())).collect(),
        }
    }

    /// The first of `tiers` (strictest first) with candidates, and those candidates. The
    /// key scans are staged: the cheap exact and trailing-whitespace keys first, the
    /// looser (costlier) keys only when those find nothing.
    pub(crate) fn first_tier(&mut self, q: &Query<'a>, tiers: TierSet) -> Option<(Tier, Vec<(usize, f64)>)> {
        let keys = tiers.intersect(KEY_TIERS);
        let strict = keys.intersect(TierSet::only(Tier::Exact).with(Tier::TrailingWhitespace)).iter().last();
        let loosest = keys.iter().last();
        tiers.iter().find_map(|tier| {
            if KEY_TIERS.contains(tier) {
                let upto = if tier <= Tier::TrailingWhitespace { strict } else { loosest };
                if let Some(upto) = upto {
                    self.scan(q, upto);
                }
            }
            let cands = self.candidates_at(q, tier);
            (!cands.is_empty()).then_some((tier, cands))
        })
    }

    pub(crate) fn view_of(&self, tier: Tier) -> &View<'a> {
        match (tier, &self.blank) {
            (Tier::BlankLines, Some(blank)) => blank,
            _ => &self.view,
        }
    }

    /// Every place at the first of `tiers` that has any (fuzzy ones at or above the
    /// threshold), whatever the occurrence rule says.
    pub(crate) fn all(&mut self, q: &Query<'a>, tiers: TierSet) -> Option<(Tier, Vec<Found>)> {
        let (tier, candidates) = self.first_tier(q, tiers)?;
        let view = self.view_of(tier);
        let found: Vec<Found> = candidates
            .into_iter()
            .filter(|&(_, c)| tier != Tier::Fuzzy || c >= q.threshold)
            .map(|(s, c)| view.found(s, q.pat.len(), tier, c))
            .collect();
        (!found.is_empty()).then_some((tier, found))
    }
}

/// Whether one of the few longest lines with text of the query's pattern is nowhere in its
/// region, trimmed (looked up through the file's trimmed hashes; `false` without them).
fn absent_line(lines: Lines<'_>, q: &Query<'_>) -> bool {
    const LOOKED_UP: usize = 3;
    let Some(index) = q.index else { return false };
    let hi = q.hi.min(lines.len());
    let lo = q.lo.min(hi);
    let mut longest: Vec<&str> = q.pat.iter().map(|p| crate::locate::fold::trim(p)).filter(|t| !t.is_empty()).collect();
    longest.sort_by_key(|t| std::cmp::Reverse(t.len()));
    let table = index.get(Norm::Trimmed, lines);
    let mut buf = String::new();
    longest.into_iter().take(LOOKED_UP).any(|t| {
        let h = Norm::Trimmed.hash(t, &mut buf);
        !table.positions(lo..hi, h).any(|p| crate::locate::fold::trim(lines.text(p)) == t)
    })
}

/// How far from its line hint [`exact_near_hint`] looks, each way. A hunk that is not
/// there exactly (re-indented, a typo) would otherwise read the whole file around its hint
/// before the full search, once per hunk: 50 such hunks in a 100,000-line file took 10 ms
/// in this scan alone. Beyond it, the full search finds the nearest exact match through
/// the file's line hashes, made once for every hunk.
pub(crate) const NEAR_HINT: usize = 1_000;

/// With a line hint, the exact match nearest to it, found by looking outward from the hint
/// (so a hunk that stands where its numbers say costs time in its offset, not in the file's
/// length). `None` when the query has no hint or ignores blank lines, when there is no exact
/// match within [`NEAR_HINT`] lines of the hint, or when two stand at the same distance: the
/// full search then decides and reports (it finds the same nearest exact match, through the
/// line hashes, where there is one farther away).
pub(crate) fn exact_near_hint(lines: Lines<'_>, q: &Query<'_>) -> Option<Found> {
    let hint = q.hint?;
    let m = q.pat.len();
    if q.ignore_blank || q.at_eof || q.occurrence == Occurrence::All || m == 0 || q.hi > lines.len() || q.hi < q.lo + m
    {
        return None;
    }
    let last = q.hi - m;
    let at = |s: usize| q.pat.iter().zip(lines.slice(s..s + m)).all(|(p, l)| l.text == *p);
    let h = hint.clamp(q.lo, last);
    for d in 0..=(last - q.lo).min(NEAR_HINT) {
        let below = h.checked_add(d).filter(|&s| s <= last);
        let above = h.checked_sub(d).filter(|&s| d > 0 && s >= q.lo);
        if below.is_none() && above.is_none() {
            break;
        }
        match (above.filter(|&s| at(s)), below.filter(|&s| at(s))) {
            (Some(_), Some(_)) => return None,
            (Some(s), None) | (None, Some(s)) => {
                let map = (s..s + m).map(Some).collect();
                return Some(Found { start: s, end: s + m, map, tier: Tier::Exact, confidence: 1.0 });
            }
            (None, None) => {}
        }
    }
    None
}

/// Whether the window at `s` matches at `tier`.
fn window_eq(view: &View<'_>, s: usize, tier: Tier) -> bool {
    view.keys.iter().enumerate().all(|(k, key)| key_eq(tier, view.file(s + k), key))
        && (tier != Tier::Indentation || constant_shift(view, s))
}

/// Every view position where the pattern matches at a line-key tier (a key tier, the
/// blank-lines tier's trimmed lines, or the prefix tier), in file order.
fn key_candidates(view: &View<'_>, tier: Tier) -> Vec<usize> {
    let m = view.pat.len();
    let n = view.idx.len();
    let keys = &view.keys;
    // Scan with the longest pattern line: the likeliest to be rare.
    let j = (0..m).max_by_key(|&k| (keys[k].trimmed.len(), usize::MAX - k)).expect("pattern is not empty");
    if let (Some(index), Some(norm)) = (view.index, Norm::of(tier)) {
        return hashed_candidates(view, tier, &index.get(norm, view.lines), norm, j);
    }
    let mut out = Vec::new();
    for p in j..n - (m - 1 - j) {
        if !key_eq(tier, view.file(p), &keys[j]) {
            continue;
        }
        let s = p - j;
        if (0..m).all(|k| k == j || key_eq(tier, view.file(s + k), &keys[k]))
            && (tier != Tier::Indentation || constant_shift(view, s))
        {
            out.push(s);
        }
    }
    out
}

/// [`key_candidates`] through the file's line hashes: one `u32` compared per line, the
/// text of a line read only where every hash of a window agrees.
fn hashed_candidates(view: &View<'_>, tier: Tier, table: &Table, norm: Norm, j: usize) -> Vec<usize> {
    let file = &table.hashes;
    let m = view.pat.len();
    let n = view.idx.len();
    let mut buf = String::new();
    let want: Vec<u64> = view.pat.iter().map(|(_, p)| norm.hash(p, &mut buf)).collect();
    let want_low: Vec<u32> = want.iter().map(|&h| crate::locate::index::low(h)).collect();
    let matches = |s: usize| {
        (0..m).all(|k| file[view.idx.at(s + k)] == want_low[k])
            && (0..m).all(|k| key_eq(tier, view.file(s + k), &view.keys[k]))
            && (tier != Tier::Indentation || constant_shift(view, s))
    };
    // The tags of the file lines the view spans, searched with `memchr`; each hit is taken
    // back to its view position (a hit a listed view does not list is a blank line, which
    // no key matches).
    let (lo, hi) = view.idx.file_span();
    table
        .positions(lo..hi, want[j])
        .filter_map(|f| view.idx.position(f))
        .filter(|&p| p >= j && p + (m - 1 - j) < n && matches(p - j))
        .map(|p| p - j)
        .collect()
}

/// Whether every non-blank pattern line sits at the same indentation offset from its
/// file line (the relative-indentation tier).
fn constant_shift(view: &View<'_>, s: usize) -> bool {
    let mut delta: Option<isize> = None;
    for (k, (_, p)) in view.pat.iter().enumerate() {
        if is_blank(p) {
            continue;
        }
        let f = view.file(s + k);
        let d = indent_width(f).0 as isize - indent_width(p).0 as isize;
        match delta {
            None => delta = Some(d),
            Some(prev) if prev != d => return false,
            Some(_) => {}
        }
    }
    true
}

/// A query over lines `0..n` with the default policy's settings, for tests.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::locate;
    use crate::locate::query::{Miss, test_lines, test_query};
    use crate::text::lines::LineText;
    use crate::text::lines::TextFile;

    fn q(pat: &[LineText], n: usize) -> Query<'_> {
        test_query(pat, n, Occurrence::Unique)
    }

    use test_lines as pat;

    #[test]
    fn exact_near_hint_looks_outward_and_leaves_ties_to_the_full_search() {
        let file = TextFile::parse("a\nx\nb\nx\nc\nx\n");
        let p = pat(&["x"]);
        let at = |hint: Option<usize>, lo: usize| {
            let q = Query { lo, hint, ..q(&p, file.len()) };
            exact_near_hint(file.lines(), &q).map(|f| (f.start, f.end, f.tier))
        };
        assert_eq!(at(Some(1), 0), Some((1, 2, Tier::Exact)));
        assert_eq!(at(Some(4), 0), None, "lines 3 and 5 are as near: a tie");
        assert_eq!(at(Some(2), 0), None, "lines 1 and 3 are as near: a tie");
        assert_eq!(at(Some(0), 0), Some((1, 2, Tier::Exact)));
        assert_eq!(at(Some(99), 0), Some((5, 6, Tier::Exact)), "a hint past the end looks back");
        assert_eq!(at(Some(0), 2), Some((3, 4, Tier::Exact)), "never before the region");
        assert_eq!(at(None, 0), None, "no hint: the full search");
        let none = pat(&["y"]);
        let q = Query { hint: Some(2), ..q(&none, file.len()) };
        assert!(exact_near_hint(file.lines(), &q).is_none());
    }

    /// Beyond [`NEAR_HINT`] lines the outward look stops, and the full search (through the
    /// line hashes) finds what it would have found: the nearest exact match, or a tie.
    #[test]
    fn far_from_the_hint_the_full_search_finds_the_same_place() {
        use std::fmt::Write as _;

        let n = 3 * NEAR_HINT;
        let numbered = |from: usize, to: usize| {
            (from..to).fold(String::new(), |mut out, i| {
                let _ = writeln!(out, "line {i}");
                out
            })
        };
        let text = numbered(0, n) + "x\n";
        let file = TextFile::parse(&(text.clone() + "tail\n"));
        let index = crate::locate::index::LineHashes::default();
        let p = pat(&["x"]);
        let far = Query { hint: Some(0), index: Some(&index), ..q(&p, file.len()) };
        assert_eq!(exact_near_hint(file.lines(), &far), None, "past the look's reach");
        let near = Query { hint: Some(n - 5), ..far };
        assert_eq!(exact_near_hint(file.lines(), &near).map(|f| f.start), Some(n));
        let got = locate(file.lines(), &far, TierSet::ALL).unwrap();
        assert_eq!((got[0].start, got[0].tier), (n, Tier::Exact));
        // Two far places at the same distance from the hint (lines 0 and n): a tie, which
        // the full search reports as such.
        let twice = TextFile::parse(&("x\n".to_string() + &numbered(1, n) + "x\n"));
        let index2 = crate::locate::index::LineHashes::default();
        let tie = Query { hint: Some(n / 2), index: Some(&index2), ..q(&p, twice.len()) };
        assert_eq!(exact_near_hint(twice.lines(), &tie), None);
        assert_eq!(
            locate(twice.lines(), &tie, TierSet::ALL),
            Err(Miss::Ambiguous(Tier::Exact, vec![(0, 1), (n, n + 1)], vec![]))
        );
    }

    #[test]
    fn exact_then_lenient_tiers() {
        let f = TextFile::parse("fn a() {\n    let x = 1;\n    x\n}\n");
        let p = pat(&["let x = 1;", "x"]);
        let got = locate(f.lines(), &q(&p, f.len()), TierSet::ALL).unwrap();
        assert_eq!((got[0].start, got[0].end, got[0].tier), (1, 3, Tier::Indentation));
        let strict = locate(f.lines(), &q(&p, f.len()), TierSet::only(Tier::Exact));
        assert_eq!(strict, Err(Miss::NotFound));
    }

    #[test]
    fn ambiguous_unique_and_first() {
        let f = TextFile::parse("alpha\nbeta\nalpha\nbeta\n");
        let p = pat(&["alpha", "beta"]);
        let mut query = q(&p, 4);
        assert_eq!(
            locate(f.lines(), &query, TierSet::ALL),
            Err(Miss::Ambiguous(Tier::Exact, vec![(0, 2), (2, 4)], vec![]))
        );
        query.occurrence = Occurrence::First;
        assert_eq!(locate(f.lines(), &query, TierSet::ALL).unwrap()[0].start, 0);
        query.hint = Some(3);
        assert_eq!(locate(f.lines(), &query, TierSet::ALL).unwrap()[0].start, 2);
    }

    #[test]
    fn a_tie_in_distance_to_the_hint_is_ambiguous_or_for_first_the_place_after_it() {
        // The block at lines 0, 8 and 12; the hint (10) is as near to 8 as to 12.
        let text: String = (0..16)
            .map(|i| if [0, 8, 12].contains(&i) { "alpha\n".to_string() } else { format!("line {i}\n") })
            .collect();
        let f = TextFile::parse(&text);
        let p = pat(&["alpha"]);
        let mut query = Query { hint: Some(10), ..q(&p, f.len()) };
        assert_eq!(
            locate(f.lines(), &query, TierSet::ALL),
            Err(Miss::Ambiguous(Tier::Exact, vec![(0, 1), (8, 9), (12, 13)], vec![]))
        );
        // An in-order search from the hint (`@@ :11`): the one at or after it, never the
        // first in the file.
        query.occurrence = Occurrence::First;
        assert_eq!(locate(f.lines(), &query, TierSet::ALL).unwrap()[0].start, 12);
        // Nearest wins, either side.
        query.hint = Some(9);
        assert_eq!(locate(f.lines(), &query, TierSet::ALL).unwrap()[0].start, 8);
        // Without a hint, the first.
        query.hint = None;
        assert_eq!(locate(f.lines(), &query, TierSet::ALL).unwrap()[0].start, 0);
    }

    #[test]
    fn weak_blocks_are_not_located_by_first() {
        let f = TextFile::parse("fn a() {\n}\nfn b() {\n}\n");
        let p = pat(&["}"]);
        let mut query = q(&p, 4);
        query.occurrence = Occurrence::First;
        assert!(matches!(locate(f.lines(), &query, TierSet::ALL), Err(Miss::Ambiguous(Tier::Exact, ..))));
        // Searching after the first function leaves one place.
        query.lo = 2;
        assert_eq!(locate(f.lines(), &query, TierSet::ALL).unwrap()[0].start, 3);
    }

    #[test]
    fn lenient_tier_requires_unique_even_with_first() {
        let f = TextFile::parse("  a\n  b\n\ta\n\tb\n");
        let p = pat(&["a", "b"]);
        let mut query = q(&p, 4);
        query.occurrence = Occurrence::First;
        assert!(matches!(locate(f.lines(), &query, TierSet::ALL), Err(Miss::Ambiguous(Tier::Indentation, ..))));
    }

    #[test]
    fn inconsistent_indentation_is_not_the_indentation_tier() {
        let f = TextFile::parse("    a\n  b\n");
        let p = pat(&["a", "b"]);
        let got = locate(f.lines(), &q(&p, 2), TierSet::ALL).unwrap();
        assert_eq!(got[0].tier, Tier::Trimmed);
    }

    #[test]
    fn ignore_blank_lines_maps_pattern_to_file() {
        let f = TextFile::parse("x\n\na\n\n\nb\ny\n");
        let p = pat(&["a", "", "b"]);
        let mut query = q(&p, f.len());
        query.ignore_blank = true;
        let got = locate(f.lines(), &query, TierSet::ALL).unwrap();
        assert_eq!((got[0].start, got[0].end), (2, 6));
        assert_eq!(got[0].map, vec![Some(2), None, Some(5)]);
    }

    #[test]
    fn at_eof_restricts_to_the_end() {
        let f = TextFile::parse("a\nb\na\n");
        let p = pat(&["a"]);
        let mut query = q(&p, 3);
        query.at_eof = true;
        assert_eq!(locate(f.lines(), &query, TierSet::ALL).unwrap()[0].start, 2);
    }
}

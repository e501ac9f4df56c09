//! Which windows of the file are worth scoring: those holding a (rare) pattern line exactly
//! ([`exact_seeds`], [`voted_windows`]), and, when a line may carry a typo, those around
//! file lines near the longest pattern lines by length and character histogram
//! ([`near_seeds`], [`near_ranked`]). No window is scored here.

use std::collections::BinaryHeap;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::distance::{Budget, Pattern, bounded_distance, histogram_distance, text_histogram};
use crate::locate::fold::trim;
use crate::locate::index::Norm;
use crate::locate::query::{Idx, View};

/// A pattern line that occurs more often than this is not used as a seed (`}` and the
/// like would seed thousands of windows that the other lines rule out anyway).
pub(super) const MAX_SEEDS_PER_LINE: usize = 64;

/// Up to this many distinct pattern lines, file lines are compared with each directly
/// rather than looked up by hash.
pub(super) const FEW_LINES: usize = 8;

/// Up to this many distinct pattern lines, [`rare_hits`] looks each one up in the index by
/// its tag byte (one `memchr` pass over the tags per text) instead of testing every file
/// line's hash against all of them: a 7-line hunk in a 100,000-line file reads 100 KB of
/// tags a few times, not 400 KB of hashes with a table lookup per line.
pub(super) const FEW_TAGGED: usize = 16;

/// How many of the longest pattern lines are also seeded by near (not equal) lines.
pub(super) const NEAR_SEED_LINES: usize = 2;

/// How many windows the closest-region search scores, best first by lines shared.
pub(super) const FEEDBACK_WINDOWS: usize = 32;

/// For feedback when no window shares a line with the pattern: the window starts whose
/// file line is nearest to one of the longest pattern lines by the cheap lower bounds
/// alone (length difference, character histograms), best first, at most
/// [`FEEDBACK_WINDOWS`]. Linear in the file's size; no edit distance is computed.
///
/// A file of many lines is read nearest length first ([`near_ranked_by_length`]), so that
/// only lines of about the seed lines' lengths are read at all.
pub(super) fn near_ranked(view: &View<'_>, pat: &[Pattern], m: usize, n: usize) -> Vec<usize> {
    let counts = view.index.map(|index| index.trimmed_chars(view.lines));
    let lengths = |p: usize| trimmed_chars(view, counts.as_deref(), p);
    let mut ranking = Ranking::new(pat, m);
    if n < BY_LENGTH_LINES || !near_ranked_by_length(view, &mut ranking, n, lengths) {
        near_ranked_in_order(view, &mut ranking, n, lengths);
    }
    ranking.starts()
}

/// From this many lines on, [`near_ranked`] reads lines nearest length first.
pub(super) const BY_LENGTH_LINES: usize = 2_048;

/// Lines longer than this (in characters, trimmed) make [`near_ranked`] read the file in
/// order: a table of every length up to theirs would cost more than it saves.
pub(super) const MAX_BUCKETED_LENGTH: usize = 1 << 16;

/// The best window starts by the cheap lower bounds, as [`near_ranked`] ranks them.
pub(super) struct Ranking<'p> {
    pat: &'p [Pattern],
    m: usize,
    /// The seed lines: the longest pattern lines, by pattern index.
    seeds: Vec<usize>,
    /// The best entries so far, the worst of them on top.
    best: BinaryHeap<Ranked>,
}

impl<'p> Ranking<'p> {
    /// A window start is ranked once per seed line at most, so the first
    /// [`FEEDBACK_WINDOWS`] distinct ones are among the best `FEEDBACK_WINDOWS` times that
    /// many entries: only those are kept.
    const KEEP: usize = FEEDBACK_WINDOWS * NEAR_SEED_LINES;

    pub(super) fn new(pat: &'p [Pattern], m: usize) -> Ranking<'p> {
        let mut order: Vec<usize> = (0..m).filter(|&k| !pat[k].chars.is_empty()).collect();
        order.sort_by_key(|&k| std::cmp::Reverse(pat[k].chars.len()));
        order.truncate(NEAR_SEED_LINES);
        Ranking { pat, m, seeds: order, best: BinaryHeap::with_capacity(Self::KEEP + 1) }
    }

    /// The rank of a line of `flen` characters against seed line `k` by length alone: a
    /// lower bound of its rank with histograms.
    fn by_length(&self, k: usize, flen: usize) -> f64 {
        let needle = self.pat[k].chars.len();
        flen.abs_diff(needle) as f64 / flen.max(needle).max(1) as f64
    }

    /// Whether an entry of rank `by_length` (or worse) can no longer be among the kept.
    fn below_all(&self, by_length: &Ranked) -> bool {
        self.best.len() == Self::KEEP && self.best.peek().is_some_and(|worst| by_length > worst)
    }

    /// Ranks view line `p` (of `flen` characters) against seed line `k`, the window
    /// starting `k` lines before it; `fhist` holds the line's histogram once read.
    fn offer(&mut self, view: &View<'_>, k: usize, p: usize, flen: usize, fhist: &mut Option<[u16; 64]>) {
        let by_length = Ranked(self.by_length(k, flen), p - k);
        if self.below_all(&by_length) {
            return;
        }
        let Pattern { chars: needle, hist, .. } = &self.pat[k];
        let fhist = fhist.get_or_insert_with(|| text_histogram(trim(view.file(p))));
        let lower = flen.abs_diff(needle.len()).max(histogram_distance(hist, fhist) / 2);
        self.best.push(Ranked(lower as f64 / flen.max(needle.len()).max(1) as f64, p - k));
        if self.best.len() > Self::KEEP {
            self.best.pop();
        }
    }

    /// Whether view line `p` can end a window that seed line `k` stands in.
    fn fits(&self, k: usize, p: usize, n: usize) -> bool {
        p >= k && p - k + self.m <= n
    }

    pub(super) fn starts(self) -> Vec<usize> {
        first_distinct(self.best.into_sorted_vec().into_iter().map(|Ranked(_, s)| s))
    }
}

/// [`near_ranked`] over every view line in order.
pub(super) fn near_ranked_in_order(
    view: &View<'_>,
    ranking: &mut Ranking<'_>,
    n: usize,
    lengths: impl Fn(usize) -> usize,
) {
    let seeds = ranking.seeds.clone();
    for p in 0..n {
        let mut flen = None;
        let mut fhist = None;
        for &k in &seeds {
            if !ranking.fits(k, p, n) {
                continue;
            }
            let flen = *flen.get_or_insert_with(|| lengths(p));
            ranking.offer(view, k, p, flen, &mut fhist);
        }
    }
}

/// [`near_ranked`] reading, for each seed line, the view lines nearest its length first,
/// and stopping where the length alone ranks every line left below the kept entries
/// (which the reading in order skips one by one). The kept entries are the same: the best
/// of one order. `false` (nothing done) when a line is too long to group lines by length.
pub(super) fn near_ranked_by_length(
    view: &View<'_>,
    ranking: &mut Ranking<'_>,
    n: usize,
    lengths: impl Fn(usize) -> usize,
) -> bool {
    // Saturated at `u32::MAX`: a length past the bucketed ones sends the file in order.
    let lengths: Vec<u32> = (0..n).map(|p| u32::try_from(lengths(p)).unwrap_or(u32::MAX)).collect();
    let longest = lengths.iter().copied().max().unwrap_or(0) as usize;
    if longest > MAX_BUCKETED_LENGTH {
        return false;
    }
    // The view lines grouped by length, in order within each length (a counting sort).
    let mut from = vec![0u32; longest + 2];
    for &len in &lengths {
        from[len as usize + 1] += 1;
    }
    for len in 0..=longest {
        from[len + 1] += from[len];
    }
    let mut at = from.clone();
    let mut order = vec![0u32; n];
    for (p, &len) in lengths.iter().enumerate() {
        let slot = &mut at[len as usize];
        order[*slot as usize] = p as u32;
        *slot += 1;
    }
    let group = |len: usize| &order[from[len] as usize..from[len + 1] as usize];
    for k in ranking.seeds.clone() {
        let needle = ranking.pat[k].chars.len();
        // Lengths at and below the needle's, and above it: each side ranks worse the
        // farther it goes, so the next length is the better of the two sides' next.
        let (mut down, mut up) = (Some(needle.min(longest)), needle + 1);
        loop {
            let below = down.map(|len| (len, ranking.by_length(k, len)));
            let above = (up <= longest).then(|| (up, ranking.by_length(k, up)));
            let Some((len, rank)) = (match (below, above) {
                (Some(b), Some(a)) => Some(if a.1 < b.1 { a } else { b }),
                (b, a) => b.or(a),
            }) else {
                break;
            };
            // Every line left ranks at least this by length alone: below every kept entry
            // when this is (whatever the start, as it is worse by rank).
            if ranking.best.len() == Ranking::KEEP && ranking.best.peek().is_some_and(|worst| rank > worst.0) {
                break;
            }
            for &p in group(len) {
                let p = p as usize;
                if ranking.fits(k, p, n) {
                    ranking.offer(view, k, p, len, &mut None);
                }
            }
            if len == up {
                up += 1;
            } else {
                down = len.checked_sub(1);
            }
        }
    }
    true
}

/// The first [`FEEDBACK_WINDOWS`] distinct window starts of a ranked list.
pub(super) fn first_distinct(ranked: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut starts: Vec<usize> = Vec::new();
    for s in ranked {
        if !starts.contains(&s) {
            starts.push(s);
            if starts.len() == FEEDBACK_WINDOWS {
                break;
            }
        }
    }
    starts
}

/// The number of characters of view line `p`, trimmed: from the file's kept counts when
/// there are some.
#[inline]
pub(super) fn trimmed_chars(view: &View<'_>, counts: Option<&[u32]>, p: usize) -> usize {
    match counts.map(|c| c[view.idx.at(p)]) {
        Some(count) if count != u32::MAX => count as usize,
        _ => trim(view.file(p)).chars().count(),
    }
}

/// Calls `visit` on the view positions of `range` whose trimmed line may be within `cap`
/// characters of `len` long, in order, until it returns `false`: through the index's kept
/// lengths in one tight pass, or on every position without them (the caller checks each
/// length either way).
pub(super) fn for_near_in_length(
    view: &View<'_>,
    counts: Option<&[u32]>,
    range: std::ops::Range<usize>,
    (len, cap): (usize, usize),
    mut visit: impl FnMut(usize) -> bool,
) {
    let near = len.saturating_sub(cap)..=len.saturating_add(cap);
    // An unknown length (`u32::MAX`) is counted by the caller.
    let may = |c: u32| c == u32::MAX || near.contains(&(c as usize));
    match (counts, &view.idx) {
        (_, _) if range.start >= range.end => {}
        (Some(counts), Idx::Range(start, _)) => {
            for (i, &c) in counts[start + range.start..start + range.end].iter().enumerate() {
                if may(c) && !visit(range.start + i) {
                    return;
                }
            }
        }
        (Some(counts), Idx::List(list, from, _)) => {
            for (i, &f) in list[from + range.start..from + range.end].iter().enumerate() {
                if may(counts[f]) && !visit(range.start + i) {
                    return;
                }
            }
        }
        (None, _) => {
            for p in range {
                if !visit(p) {
                    return;
                }
            }
        }
    }
}

/// A window start ranked by a lower bound of its distance, ordered by the bound, then the
/// start.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ranked(f64, usize);

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

/// The window starts that hold the most pattern lines exactly (trimmed), best first, at
/// most [`FEEDBACK_WINDOWS`] of them. Lines that occur more than [`MAX_SEEDS_PER_LINE`]
/// times in the file do not count. Linear in the file's size.
pub(super) fn voted_windows(view: &View<'_>, m: usize, n: usize) -> Vec<usize> {
    let mut votes: HashMap<usize, u32> = HashMap::new();
    for (k, p) in rare_hits(view, m, n) {
        *votes.entry(p - k).or_default() += 1;
    }
    let mut ranked: Vec<(usize, u32)> = votes.into_iter().collect();
    ranked.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked.into_iter().take(FEEDBACK_WINDOWS).map(|(s, _)| s).collect()
}

/// Window starts where some rare pattern line occurs exactly (trimmed).
pub(super) fn exact_seeds(view: &View<'_>, m: usize, n: usize) -> HashSet<usize> {
    rare_hits(view, m, n).into_iter().map(|(k, p)| p - k).collect()
}

/// Every (pattern line, file line) pair of equal trimmed text that can start a window,
/// for the pattern lines (not blank) that occur at most [`MAX_SEEDS_PER_LINE`] times in
/// the file. One pass over the file with a hash lookup per line: at most
/// `MAX_SEEDS_PER_LINE + 1` positions are kept per distinct pattern line.
pub(super) fn rare_hits(view: &View<'_>, m: usize, n: usize) -> Vec<(usize, usize)> {
    let mut lines: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, (_, p)) in view.pat.iter().enumerate() {
        let t = trim(p);
        if !t.is_empty() {
            lines.entry(t).or_default().push(k);
        }
    }
    let texts: Vec<&str> = lines.keys().copied().collect();
    let occurrences = match view.index {
        Some(_) if texts.len() <= FEW_TAGGED => by_tags(view, &texts),
        Some(_) => by_hashes(view, &texts),
        None => by_text(view, &texts),
    };
    let mut hits = Vec::new();
    for (line, at) in &occurrences {
        if at.len() > MAX_SEEDS_PER_LINE {
            continue;
        }
        for &p in at {
            for &k in &lines[line] {
                if p >= k && p - k + m <= n {
                    hits.push((k, p));
                }
            }
        }
    }
    hits
}

/// The view positions where each of `texts` (trimmed, distinct, not empty) stands, trimmed,
/// in order: the first `MAX_SEEDS_PER_LINE + 1` of them (one more than a seed may have).
/// Three ways, which give the same: [`by_tags`] and [`by_hashes`] through the view's
/// index, [`by_text`] without one.
pub(super) type Occurrences<'a> = HashMap<&'a str, Vec<usize>>;

/// Each text through the tags of the trimmed lines' hashes: the tag's places in the file
/// lines the view spans, then the hash's other bits, the view, the text. For a few texts.
pub(super) fn by_tags<'a>(view: &View<'_>, texts: &[&'a str]) -> Occurrences<'a> {
    let index = view.index.expect("an index");
    let table = index.get(Norm::Trimmed, view.lines);
    let (lo, hi) = view.idx.file_span();
    let mut occurrences = HashMap::new();
    let mut buf = String::new();
    for &text in texts {
        let hash = Norm::Trimmed.hash(text, &mut buf);
        let mut at = Vec::new();
        for f in table.positions(lo..hi, hash) {
            let Some(p) = view.idx.position(f) else { continue };
            if trim(view.file(p)) == text {
                at.push(p);
                if at.len() > MAX_SEEDS_PER_LINE {
                    break; // too frequent to seed
                }
            }
        }
        if !at.is_empty() {
            occurrences.insert(text, at);
        }
    }
    occurrences
}

/// Every line of the view through the trimmed lines' hashes: a bit test per line, the
/// text compared on a hit. For many texts.
pub(super) fn by_hashes<'a>(view: &View<'_>, texts: &[&'a str]) -> Occurrences<'a> {
    let index = view.index.expect("an index");
    let table = index.get(Norm::Trimmed, view.lines);
    let file = &table.hashes;
    let mut wanted = HashFilter::new(texts.iter().copied());
    // Occurrences by the text's place in the filter; a text seen too often is not
    // compared again.
    let mut seen: Vec<Vec<usize>> = vec![Vec::new(); wanted.sorted.len()];
    let region: Option<&[u32]> = match view.idx {
        Idx::Range(start, len) => Some(&file[start..start + len]),
        Idx::List(..) => None,
    };
    for p in 0..view.idx.len() {
        let h = region.map_or_else(|| file[view.idx.at(p)], |r| r[p]);
        if !wanted.may_hold(h) {
            continue;
        }
        let f = trim(view.file(p));
        let from = wanted.sorted.partition_point(|(k, _)| *k < h);
        let same_hash = wanted.sorted[from..].iter().take_while(|(k, _)| *k == h).count();
        if let Some(i) =
            (from..from + same_hash).find(|&i| seen[i].len() <= MAX_SEEDS_PER_LINE && wanted.sorted[i].1 == f)
        {
            seen[i].push(p);
            if seen[i].len() > MAX_SEEDS_PER_LINE {
                wanted.drop_text(i); // too frequent to seed: not compared again
            }
        }
    }
    seen.into_iter().enumerate().filter(|(_, at)| !at.is_empty()).map(|(i, at)| (wanted.sorted[i].1, at)).collect()
}

/// Every line of the view by its text: a few texts compared directly (cheaper than
/// hashing every file line, and still linear in the file), more through a hash map.
pub(super) fn by_text<'a>(view: &View<'_>, texts: &[&'a str]) -> Occurrences<'a> {
    let mut occurrences: Occurrences<'a> = HashMap::new();
    let lookup: HashSet<&'a str> =
        if texts.len() > FEW_LINES { texts.iter().copied().collect() } else { HashSet::new() };
    for p in 0..view.idx.len() {
        let f = trim(view.file(p));
        let key = if lookup.is_empty() { texts.iter().copied().find(|&t| t == f) } else { lookup.get(f).copied() };
        if let Some(key) = key {
            let list = occurrences.entry(key).or_default();
            if list.len() <= MAX_SEEDS_PER_LINE {
                list.push(p);
            }
        }
    }
    occurrences
}

/// A few texts by their trimmed-line hashes: a count per hash value's low bits rules out
/// most lines with one test, the sorted hashes find the texts a hit may be. A text no
/// longer wanted ([`HashFilter::drop_text`]) stops counting, so its lines are not read.
pub(super) struct HashFilter<'a> {
    live: Vec<u16>,
    /// The texts by the bits of their hashes a [`crate::locate::index::Table`] keeps.
    sorted: Vec<(u32, &'a str)>,
}

impl<'a> HashFilter<'a> {
    const BUCKETS: u32 = 1 << 15;

    fn new(texts: impl Iterator<Item = &'a str>) -> HashFilter<'a> {
        let mut buf = String::new();
        let mut sorted: Vec<(u32, &str)> =
            texts.map(|t| (crate::locate::index::low(Norm::Trimmed.hash(t, &mut buf)), t)).collect();
        sorted.sort_unstable();
        let mut live = vec![0u16; Self::BUCKETS as usize];
        for (h, _) in &sorted {
            let count = &mut live[(h % Self::BUCKETS) as usize];
            *count = count.saturating_add(1);
        }
        HashFilter { live, sorted }
    }

    #[inline]
    fn may_hold(&self, h: u32) -> bool {
        self.live[(h % Self::BUCKETS) as usize] != 0
    }

    /// Text `i` (of `sorted`) is no longer looked for. A full count stays (it may hold
    /// more texts than it tells).
    fn drop_text(&mut self, i: usize) {
        let count = &mut self.live[(self.sorted[i].0 % Self::BUCKETS) as usize];
        if *count != u16::MAX {
            *count -= 1;
        }
    }
}

/// Window starts where one of the longest pattern lines is nearly equal to a file line.
pub(super) fn near_seeds(
    view: &View<'_>,
    pat: &[Pattern],
    floor: f64,
    budget: &mut Budget,
    by_caps: bool,
) -> HashSet<usize> {
    let m = pat.len();
    let n = view.idx.len();
    let mut starts = HashSet::new();
    let mut order: Vec<usize> = (0..m).filter(|&k| !pat[k].chars.is_empty()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(pat[k].chars.len()));
    let mut buf = Vec::new();
    // Only windows where the changed lines can stand are worth seeding: scoring refuses
    // every other one.
    let counts = view.index.map(|index| index.trimmed_chars(view.lines));
    let capped = if by_caps { capped_starts(view, pat, budget) } else { None };
    // ... and whose lines' lengths alone leave them a chance (a short changed line such as
    // `}` stands in thousands of places).
    let capped = capped.map(|starts| {
        starts.into_iter().filter(|&s| lengths_allow(view, pat, s, floor, counts.as_deref())).collect::<Vec<_>>()
    });
    for &k in order.iter().take(NEAR_SEED_LINES) {
        let Pattern { chars: needle, hist, .. } = &pat[k];
        let places: Box<dyn Iterator<Item = usize>> = match &capped {
            Some(starts) => Box::new(starts.iter().map(|s| s + k)),
            None => Box::new(k..(n + k + 1).saturating_sub(m)),
        };
        for p in places {
            // A window another seed line already seeded needs no second reason.
            if starts.contains(&(p - k)) {
                continue;
            }
            let flen = trimmed_chars(view, counts.as_deref(), p);
            let longest = flen.max(needle.len());
            let limit = ((1.0 - floor) * longest as f64).floor() as usize;
            if flen.abs_diff(needle.len()) > limit {
                continue;
            }
            // Each edit changes the histograms' L1 distance by at most 2.
            let f = trim(view.file(p));
            budget.scanned += f.len() as u64;
            if histogram_distance(hist, &text_histogram(f)) / 2 > limit {
                continue;
            }
            buf.clear();
            buf.extend(f.chars());
            if bounded_distance(needle, &buf, limit, budget).is_some() {
                starts.insert(p - k);
            }
            if budget.exhausted {
                return starts;
            }
        }
    }
    starts
}

/// Whether the window at `s` can score `floor` by its lines' lengths alone, as
/// [`window_score`](super::score::window_score) tests them first: no blank line against a line with text, no changed
/// line longer or shorter than its cap allows, and length differences within the
/// distance the floor allows. A window refused here is refused there.
pub(super) fn lengths_allow(view: &View<'_>, pat: &[Pattern], s: usize, floor: f64, counts: Option<&[u32]>) -> bool {
    let mut total = 0usize;
    let mut bound = 0usize;
    for (k, p) in pat.iter().enumerate() {
        let flen = trimmed_chars(view, counts, s + k);
        if (flen == 0) != p.chars.is_empty() {
            return false;
        }
        let differ = flen.abs_diff(p.chars.len());
        if p.cap.is_some_and(|cap| differ > cap) {
            return false;
        }
        total += flen.max(p.chars.len());
        bound += differ;
    }
    bound <= ((1.0 - floor) * total as f64).floor() as usize
}

/// The window starts where the longest changed pattern line (a line the edit changes, which
/// may differ by its typo cap only) stands within its cap, in order; `None` when the pattern
/// has no such line with text. [`window_score`](super::score::window_score) refuses every other window, so seeding only
/// these finds the same matches: a file without a line near the changed one (the new side
/// of an edit not yet applied, most often) costs one pass of length tests, not an edit
/// distance per similar line.
pub(super) fn capped_starts(view: &View<'_>, pat: &[Pattern], budget: &mut Budget) -> Option<Vec<usize>> {
    let m = pat.len();
    let n = view.idx.len();
    let (k, cap) = (0..m)
        .filter_map(|k| Some((k, pat[k].cap?)))
        .filter(|&(k, _)| !pat[k].chars.is_empty())
        .max_by_key(|&(k, _)| (pat[k].chars.len(), std::cmp::Reverse(k)))?;
    let Pattern { chars: needle, hist, text, .. } = &pat[k];
    let mut starts = Vec::new();
    let mut buf = Vec::new();
    let counts = view.index.map(|index| index.trimmed_chars(view.lines));
    let range = k..(n + k + 1).saturating_sub(m);
    for_near_in_length(view, counts.as_deref(), range, (needle.len(), cap), |p| {
        if trimmed_chars(view, counts.as_deref(), p).abs_diff(needle.len()) > cap {
            return true;
        }
        let f = trim(view.file(p));
        budget.scanned += f.len() as u64;
        // An equal line (most of them, for a short changed line such as `}`) is within any
        // cap; with a cap of 0 nothing else is.
        if f == text.as_str() {
            starts.push(p - k);
            return true;
        }
        if cap == 0 || histogram_distance(hist, &text_histogram(f)) / 2 > cap {
            return true;
        }
        buf.clear();
        buf.extend(f.chars());
        if bounded_distance(needle, &buf, cap, budget).is_some() {
            starts.push(p - k);
        }
        !budget.exhausted
    });
    Some(starts)
}

//! What a search looks for and what it finds: the [`Query`] (pattern, region, occurrence
//! rule, hint), the [`View`] of the file lines and pattern lines it compares, and the
//! result, a [`Found`] block or a [`Miss`]. Every tier's search and the decisions on its
//! candidates speak these types.

use std::rc::Rc;

use crate::ir::plan::Occurrence;
use crate::ir::tier::Tier;
use crate::locate::effort::Effort;
use crate::locate::fold::{PatKey, is_blank};
use crate::locate::index::LineHashes;
use crate::text::lines::{LineText, Lines};

/// A located block.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Found {
    /// First file line of the match (0-based).
    pub start: usize,
    /// One past the last file line of the match.
    pub end: usize,
    /// For each pattern line, the file line it matched (`None`: a pattern blank line
    /// skipped because blank lines are ignored).
    pub map: Vec<Option<usize>>,
    /// The tier it matched at.
    pub tier: Tier,
    /// 0..1.
    pub confidence: f64,
}

/// Why a block was not located.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Miss {
    /// Nowhere.
    NotFound,
    /// At several places, at this tier, none preferred: the places (0-based, exclusive end),
    /// and for the fuzzy tier each place's similarity (empty for the other tiers, where
    /// every place matches equally).
    Ambiguous(Tier, Vec<(usize, usize)>, Vec<f64>),
}

/// What to look for and where.
// The flags are independent settings of one search, not the states of a machine.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone)]
pub(crate) struct Query<'a> {
    /// The pattern lines.
    pub pat: &'a [LineText],
    /// File lines `lo..hi` are searched.
    pub lo: usize,
    /// End of the searched lines.
    pub hi: usize,
    /// 0-based line the block is expected at; nearest wins among equals.
    pub hint: Option<usize>,
    /// The block must end at the last line of the file.
    pub at_eof: bool,
    /// Which occurrence counts.
    pub occurrence: Occurrence,
    /// Skip blank lines in pattern and file.
    pub ignore_blank: bool,
    /// Fuzzy threshold.
    pub threshold: f64,
    /// The policy's strictest tier: at that tier the policy's occurrence rule applies; at
    /// lenient tiers beyond it a unique (or strictly nearest-to-hint) place is required.
    pub base: Tier,
    /// The place is fixed by an earlier match (a range's end: the first after its start;
    /// an `ap` snippet: the first after its anchor), so the first place counts at every
    /// tier, however little the block says.
    pub positional: bool,
    /// A one-line pattern may match the start of a line ([`Tier::Prefix`]: Codex's
    /// `@@ def name` header).
    pub prefix: bool,
    /// Per pattern line, whether the edit changes it (a line it removes, on the old side;
    /// one it adds, on the new side): at the fuzzy tier such a line may differ by a small
    /// typo only, while context lines may drift. Empty: no line is marked.
    pub changed: &'a [bool],
    /// The hashes of the file's lines, kept in step with them, when the caller keeps
    /// them (a prefilter: every match is still decided by comparing text).
    pub index: Option<&'a LineHashes>,
    /// The plan the search is part of: its fuzzy searches share the plan's budget.
    pub effort: Option<&'a Effort>,
}

/// The file lines a query looks at, and the pattern lines it compares.
pub(crate) struct View<'a> {
    pub lines: Lines<'a>,
    /// File line indices in the search region (non-blank ones only when ignoring blanks).
    pub idx: Idx,
    /// Pattern lines compared, with their index in the pattern.
    pub pat: Vec<(usize, &'a str)>,
    /// The compared pattern lines, normalized once for every key tier.
    pub keys: Vec<PatKey<'a>>,
    /// Whether blank lines are skipped on both sides.
    pub skip_blank: bool,
    /// The hashes of `lines`, if the query has them.
    pub index: Option<&'a LineHashes>,
}

impl<'a> View<'a> {
    pub(crate) fn new(lines: Lines<'a>, q: &Query<'a>) -> View<'a> {
        View::with_blank(lines, q, q.ignore_blank)
    }

    /// The view of `q`, skipping blank lines when `skip_blank`.
    pub(crate) fn with_blank(lines: Lines<'a>, q: &Query<'a>, skip_blank: bool) -> View<'a> {
        let hi = q.hi.min(lines.len());
        let lo = q.lo.min(hi);
        let idx = if skip_blank {
            if let Some(index) = q.index {
                // The region's part of the file's kept list.
                let list = index.lines_with_text(lines);
                let from = list.partition_point(|&i| i < lo);
                let to = list.partition_point(|&i| i < hi);
                Idx::List(list, from, to - from)
            } else {
                let list: Vec<usize> = (lo..hi).filter(|&i| !is_blank(lines.text(i))).collect();
                let len = list.len();
                Idx::List(Rc::new(list), 0, len)
            }
        } else {
            Idx::Range(lo, hi - lo)
        };
        let pat = q
            .pat
            .iter()
            .enumerate()
            .filter(|(_, p)| !skip_blank || !is_blank(p))
            .map(|(i, p)| (i, p.as_str()))
            .collect::<Vec<_>>();
        let keys = pat.iter().map(|(_, p)| PatKey::new(p)).collect();
        View { lines, idx, pat, keys, skip_blank, index: q.index }
    }

    #[inline]
    pub(crate) fn file(&self, view_pos: usize) -> &'a str {
        self.lines.text(self.idx.at(view_pos))
    }

    /// Whether the pattern has lines to compare and fits in the region.
    pub(crate) fn fits(&self) -> bool {
        !self.pat.is_empty() && self.idx.len() >= self.pat.len()
    }

    /// Turns a view-space window into a match.
    pub(crate) fn found(&self, s: usize, pat_len: usize, tier: Tier, confidence: f64) -> Found {
        let mut map = vec![None; pat_len];
        for (k, (pi, _)) in self.pat.iter().enumerate() {
            map[*pi] = Some(self.idx.at(s + k));
        }
        let m = self.pat.len();
        let start = self.idx.at(s);
        let end = self.idx.at(s + m - 1) + 1;
        Found { start, end, map, tier, confidence }
    }

    /// Whether the window at `s` ends at the end of the file.
    pub(crate) fn ends_at_eof(&self, s: usize) -> bool {
        let last = self.idx.at(s + self.pat.len() - 1);
        if self.skip_blank {
            self.lines.slice(last + 1..).iter().all(|l| is_blank(l.text))
        } else {
            last + 1 == self.lines.len()
        }
    }
}

/// The file line indices a view looks at: a whole region, or the listed lines of it (the
/// non-blank ones). A region is not listed line by line: on a large file that list would
/// cost an allocation the size of the file for every query.
#[derive(Debug, Clone)]
pub(crate) enum Idx {
    /// Lines `start..start + len`.
    Range(usize, usize),
    /// The `len` lines of the list from its position `from` on, in file order.
    List(Rc<Vec<usize>>, usize, usize),
}

impl Idx {
    /// The file line at view position `i`.
    #[inline]
    pub(crate) fn at(&self, i: usize) -> usize {
        match self {
            Idx::Range(start, len) => {
                assert!(i < *len, "view position {i} out of {len}");
                start + i
            }
            Idx::List(list, from, len) => {
                assert!(i < *len, "view position {i} out of {len}");
                list[from + i]
            }
        }
    }

    /// The file lines `lo..hi` the view's lines lie in (all of them for a range, the first
    /// listed to the last for a list).
    pub(crate) fn file_span(&self) -> (usize, usize) {
        match self {
            Idx::Range(start, len) => (*start, start + len),
            Idx::List(_, _, 0) => (0, 0),
            Idx::List(list, from, len) => (list[*from], list[from + len - 1] + 1),
        }
    }

    /// The view position of file line `f`, if the view looks at it.
    #[inline]
    pub(crate) fn position(&self, f: usize) -> Option<usize> {
        match self {
            Idx::Range(start, len) => f.checked_sub(*start).filter(|p| p < len),
            Idx::List(list, from, len) => list[*from..from + len].binary_search(&f).ok(),
        }
    }

    /// How many lines the view looks at.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        match self {
            Idx::Range(_, len) => *len,
            Idx::List(_, _, len) => *len,
        }
    }
}

// Text targets (`apply/substring.rs`) and the tests.
#[cfg(any(test, feature = "text-target"))]
impl<'a> Query<'a> {
    /// A query for `pat` anywhere in a file of `len` lines, at one place, from the exact
    /// tier on, with no hint, scope or index.
    pub(crate) fn whole_file(pat: &'a [LineText], len: usize, ignore_blank: bool, threshold: f64) -> Query<'a> {
        Query {
            pat,
            lo: 0,
            hi: len,
            hint: None,
            at_eof: false,
            occurrence: Occurrence::Unique,
            ignore_blank,
            threshold,
            base: Tier::Exact,
            positional: false,
            prefix: false,
            changed: &[],
            index: None,
            effort: None,
        }
    }
}

#[cfg(test)]
pub(crate) fn test_query(pat: &[LineText], n: usize, occurrence: Occurrence) -> Query<'_> {
    Query { occurrence, ..Query::whole_file(pat, n, false, crate::ir::plan::DEFAULT_FUZZY_THRESHOLD) }
}

/// Owned pattern lines, for tests.
#[cfg(test)]
pub(crate) fn test_lines(lines: &[&str]) -> Vec<LineText> {
    lines.iter().copied().map(LineText::from).collect()
}

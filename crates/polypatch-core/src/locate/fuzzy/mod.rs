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
//!
//! [`seeds`] picks the windows, [`score`] scores them, [`distance`] compares two lines;
//! this module holds the two searches built from them, [`candidates`] (the fuzzy tier)
//! and [`closest`] (the region shown with a failure).

pub(crate) mod distance;
mod score;
mod seeds;

use crate::ir::plan::AMBIGUITY_MARGIN;
use crate::locate::effort::{Effort, MATCH_CELLS};
use crate::locate::fold::trim;
use crate::locate::query::{Query, View};
use distance::{Budget, FEEDBACK_CELLS, Pattern};
use score::{scored, window_score};
use seeds::{near_ranked, voted_windows};

/// Scores every seeded window; returns those scoring at least `threshold - margin`
/// (anything lower cannot compete with an accepted match). A search that runs out of
/// its work budget returns nothing: a partial search could miss the rival that makes
/// a match ambiguous. The budget is [`MATCH_CELLS`], or what the query's plan has left
/// when that is less ([`Effort`]); a search the plan's budget cuts short is recorded there.
pub(crate) fn candidates(view: &View<'_>, q: &Query<'_>) -> Vec<(usize, f64)> {
    if q.effort.is_some_and(Effort::skips_search) {
        return Vec::new();
    }
    let floor = (q.threshold - AMBIGUITY_MARGIN).max(0.0);
    let cells = q.effort.map_or(MATCH_CELLS, |e| e.left().min(MATCH_CELLS));
    let mut budget = Budget::new(cells);
    let found = if cells == 0 {
        budget.exhausted = true;
        Vec::new()
    } else {
        scored(view, floor, q.changed, &mut budget, true)
    };
    if let Some(effort) = q.effort {
        effort.spend(cells - budget.left + budget.scanned, budget.exhausted && cells < MATCH_CELLS);
    }
    if budget.exhausted { Vec::new() } else { found }
}

/// The region most similar to the pattern (for feedback): its view position and score,
/// and whether the search stopped early because its budget ran out.
///
/// Windows are ranked by how many of the pattern's (rare) lines they hold exactly, a
/// line-hash count over the file, and only the best few are scored. When no window shares
/// a line, the file lines nearest to the pattern's longest lines by length and character
/// histogram seed the windows instead.
pub(crate) fn closest(view: &View<'_>) -> (Option<(usize, f64)>, bool) {
    const FLOOR: f64 = 0.3;
    let m = view.pat.len();
    let n = view.idx.len();
    if m == 0 || n < m {
        return (None, false);
    }
    let pat: Vec<Pattern> = view.pat.iter().map(|(_, p)| Pattern::new(trim(p))).collect();
    let mut budget = Budget::new(FEEDBACK_CELLS);
    let best = |starts: Vec<usize>, budget: &mut Budget| {
        let mut buf = Vec::new();
        let mut best: Option<(usize, f64)> = None;
        for s in starts {
            if let Some(score) = window_score(view, &pat, s, FLOOR, usize::MAX, &mut buf, budget)
                && best.is_none_or(|(b, sb)| score.total_cmp(&sb).then(b.cmp(&s)).is_gt())
            {
                best = Some((s, score));
            }
        }
        best
    };
    let found = best(voted_windows(view, m, n), &mut budget);
    if found.is_some() {
        return (found, budget.exhausted);
    }
    let found = best(near_ranked(view, &pat, m, n), &mut budget);
    (found, budget.exhausted)
}

#[cfg(test)]
mod tests {
    use super::distance::*;
    use super::score::*;
    use super::seeds::*;
    use super::*;
    use crate::decide::locate;
    use crate::ir::plan::Occurrence;
    use crate::ir::tier::{Tier, TierSet};
    use crate::locate::query::{Miss, test_lines as lines, test_query};
    use crate::text::lines::{LineText, TextFile};

    fn query(pat: &[LineText], n: usize) -> Query<'_> {
        test_query(pat, n, Occurrence::First)
    }

    /// The optimal-string-alignment distance by the full table: the reference the banded
    /// computation is checked against.
    fn full_table(a: &[char], b: &[char]) -> usize {
        let mut table = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for (i, row) in table.iter_mut().enumerate() {
            row[0] = i;
        }
        for (j, cell) in table[0].iter_mut().enumerate() {
            *cell = j;
        }
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut best = (table[i - 1][j - 1] + cost).min(table[i - 1][j] + 1).min(table[i][j - 1] + 1);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    best = best.min(table[i - 2][j - 2] + 1);
                }
                table[i][j] = best;
            }
        }
        table[a.len()][b.len()]
    }

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn a_texts_histogram_counts_its_characters_ascii_or_not() {
        for text in ["", "let x = 1;", "\u{7f}~ \t", "naïve “quotes” — ok", "\u{40}\u{80}\u{c0}", "ÿ"] {
            assert_eq!(text_histogram(text), histogram(text.chars()), "{text:?}");
        }
    }

    fn distance(a: &str, b: &str, limit: usize) -> Option<usize> {
        bounded_distance(&chars(a), &chars(b), limit, &mut Budget::new(u64::MAX))
    }

    /// [`near_ranked`] as it was first written: every (line, seed) pair ranked, all sorted.
    fn near_ranked_by_sorting_all(view: &View<'_>, pat: &[Pattern], m: usize, n: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..m).filter(|&k| !pat[k].chars.is_empty()).collect();
        order.sort_by_key(|&k| std::cmp::Reverse(pat[k].chars.len()));
        let mut ranked: Vec<(f64, usize)> = Vec::new();
        for &k in order.iter().take(NEAR_SEED_LINES) {
            let Pattern { chars: needle, hist, .. } = &pat[k];
            for p in k..(n + k + 1).saturating_sub(m) {
                let f = trim(view.file(p));
                let flen = f.chars().count();
                let lower = flen.abs_diff(needle.len()).max(histogram_distance(hist, &histogram(f.chars())) / 2);
                ranked.push((lower as f64 / flen.max(needle.len()).max(1) as f64, p - k));
            }
        }
        ranked.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        first_distinct(ranked.into_iter().map(|(_, s)| s))
    }

    /// [`near_ranked_by_length`], whatever the number of lines.
    fn ranked_by_length(view: &View<'_>, patterns: &[Pattern]) -> Vec<usize> {
        let counts = view.index.map(|index| index.trimmed_chars(view.lines));
        let mut ranking = Ranking::new(patterns, view.pat.len());
        let lengths = |p: usize| trimmed_chars(view, counts.as_deref(), p);
        assert!(near_ranked_by_length(view, &mut ranking, view.idx.len(), lengths));
        ranking.starts()
    }

    #[test]
    fn a_big_file_is_ranked_by_length_as_sorting_every_pair_ranks_it() {
        // Lines of many lengths, blank ones among them, and patterns shorter, longer and
        // as long as any line of the file.
        let file: String = (0..3 * BY_LENGTH_LINES)
            .map(|i| match i % 7 {
                0 => String::new(),
                r => format!("{}call_{}({});\n", " ".repeat(r), i % 13, "x".repeat(i * 31 % 97)),
            })
            .map(|l| if l.is_empty() { "\n".to_string() } else { l })
            .collect();
        let lines_file = TextFile::parse(&file);
        let lines = lines_file.lines();
        for pat in [
            vec!["call_3(xxxxx);".to_string(), String::new(), "  call_9();".to_string()],
            vec!["no such line at all, and longer than every line of the file by a good margin: ".repeat(3)],
            vec!["x".to_string(), "y".to_string()],
        ] {
            let pat: Vec<LineText> = pat.iter().map(|l| LineText::from(l.as_str())).collect();
            let hashes = crate::locate::index::LineHashes::default();
            let q = Query { index: Some(&hashes), ..query(&pat, lines.len()) };
            let view = View::new(lines, &q);
            let patterns: Vec<Pattern> = view.pat.iter().map(|(_, p)| Pattern::new(trim(p))).collect();
            let (m, n) = (view.pat.len(), view.idx.len());
            let want = near_ranked_by_sorting_all(&view, &patterns, m, n);
            assert_eq!(want.len(), FEEDBACK_WINDOWS);
            assert_eq!(near_ranked(&view, &patterns, m, n), want, "{pat:?}");
        }
    }

    /// A file of lines from a small vocabulary, some with one character changed, and a
    /// pattern taken from it (or not) with a typo of its own and some lines marked changed.
    fn similar_lines() -> impl proptest::strategy::Strategy<Value = (Vec<String>, Vec<String>, Vec<bool>)> {
        use proptest::prelude::*;
        const WORDS: [&str; 6] = ["let total = 0;", "total += x;", "}", "", "return total;", "for x in xs {"];
        let line = (0..WORDS.len(), 0usize..30, proptest::bool::weighted(0.3)).prop_map(|(w, at, typo)| {
            let mut l = WORDS[w].to_string();
            if typo && !l.is_empty() {
                // A changed character, or one more character (the length tests' edge).
                let with = if at % 2 == 0 { "q" } else { "qx" };
                let at = at % l.len();
                l.replace_range(at..=at, with);
            }
            l
        });
        (proptest::collection::vec(line, 3..60), 0usize..60, 1usize..6, proptest::collection::vec(any::<bool>(), 6))
            .prop_map(|(file, at, len, changed)| {
                let len = len.min(file.len());
                let at = at % (file.len() - len + 1);
                let mut pat = file[at..at + len].to_vec();
                if let Some(l) = pat.iter_mut().find(|l| l.len() > 3) {
                    l.insert(1, 'z');
                }
                (file, pat, changed[..len].to_vec())
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Seeding near windows only where the changed lines can stand scores the same
        /// windows the same as seeding every near window; the ranking of the closest
        /// regions keeps the best few as sorting every pair does.
        #[test]
        fn the_shortcuts_find_what_the_full_searches_find((file, pat, changed) in similar_lines()) {
            let text: String = file.iter().flat_map(|l| [l.as_str(), "\n"]).collect();
            let pat: Vec<LineText> = pat.into_iter().map(LineText::from).collect();
            let lines_file = TextFile::parse(&text);
            let lines = lines_file.lines();
            // The shortcuts through the file's kept hashes and lengths, against the full
            // searches without them; over the region's lines, and over its lines that are
            // not blank (a listed view).
            let hashes = crate::locate::index::LineHashes::default();
            let q = Query { changed: &changed, index: Some(&hashes), ..query(&pat, lines.len()) };
            let plain_q = Query { index: None, ..q.clone() };
            let listed = |q| View::with_blank(lines, q, true);
            let (lview, lplain) = (listed(&q), listed(&plain_q));
            let starts = |view: &View<'_>| {
                capped_starts(view, &capped_patterns(view, &changed), &mut Budget::new(u64::MAX))
            };
            proptest::prop_assert_eq!(starts(&lview), starts(&lplain));
            let view = View::new(lines, &q);
            let plain = View::new(lines, &plain_q);
            for floor in [0.5, 0.7, 0.9] {
                let sorted = |view: &View<'_>, by_caps| {
                    let mut found = scored(view, floor, &changed, &mut Budget::new(u64::MAX), by_caps);
                    found.sort_by_key(|f| f.0);
                    found
                };
                proptest::prop_assert_eq!(sorted(&view, true), sorted(&plain, false));
            }
            let patterns: Vec<Pattern> = view.pat.iter().map(|(_, p)| Pattern::new(trim(p))).collect();
            let (m, n) = (view.pat.len(), view.idx.len());
            // The changed lines' places, through the kept lengths and by counting.
            let capped = capped_patterns(&view, &changed);
            let starts = |view: &View<'_>| capped_starts(view, &capped, &mut Budget::new(u64::MAX));
            proptest::prop_assert_eq!(starts(&view), starts(&plain));
            if m > 0 && n >= m {
                let want = near_ranked_by_sorting_all(&plain, &patterns, m, n);
                proptest::prop_assert_eq!(&near_ranked(&view, &patterns, m, n), &want);
                proptest::prop_assert_eq!(&ranked_by_length(&view, &patterns), &want);
            }
        }

        /// The three ways to find where pattern lines stand give the same places: through
        /// the tags, through every line's hash, by the text. Lines from a small set (some
        /// stand more often than a seed may, some are blank or differ by whitespace only),
        /// a region of the file, blank lines skipped or not, and more texts than the tags
        /// are used for.
        #[test]
        fn occurrences_by_tags_by_hashes_and_by_text_agree(
            file in proptest::collection::vec(
                proptest::sample::select(vec!["a", "  a", "b\t", "", "   ", "c c", "d", "é"]), 0..300),
            extra in proptest::collection::vec("[a-e ]{0,3}", 0..30),
            lo in 0usize..300,
            len in 0usize..300,
            skip_blank: bool,
        ) {
            let text: String = file.iter().flat_map(|l| [*l, "\n"]).collect();
            let lines_file = TextFile::parse(&text);
            let lines = lines_file.lines();
            let lo = lo.min(lines.len());
            let hi = (lo + len).min(lines.len());
            let mut texts: Vec<String> = ["a", "b", "c c", "d", "é", "x"].iter().map(ToString::to_string).collect();
            texts.extend(extra.iter().map(|t| trim(t).to_string()).filter(|t| !t.is_empty()));
            texts.sort();
            texts.dedup();
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            let pat = crate::locate::query::test_lines(&["a"]);
            let hashes = crate::locate::index::LineHashes::default();
            let q = Query { index: Some(&hashes), lo, hi, ignore_blank: skip_blank, ..query(&pat, lines.len()) };
            let view = View::with_blank(lines, &q, skip_blank);
            let plain_q = Query { index: None, ..q.clone() };
            let plain = View::with_blank(lines, &plain_q, skip_blank);
            let want = by_text(&plain, &texts);
            proptest::prop_assert!(want.values().all(|at| at.len() <= MAX_SEEDS_PER_LINE + 1));
            proptest::prop_assert_eq!(&by_tags(&view, &texts), &want);
            proptest::prop_assert_eq!(&by_hashes(&view, &texts), &want);
        }

        /// Over a small alphabet (many repeats, transpositions and shared affixes), the
        /// banded distance is the full table's whenever that is within the limit, and
        /// `None` exactly when it is not.
        #[test]
        fn banded_distance_is_the_full_tables_cut_off_at_the_limit(
            a in "[abc ]{0,12}",
            b in "[abc ]{0,12}",
            limit in 0usize..14,
        ) {
            let want = full_table(&chars(&a), &chars(&b));
            proptest::prop_assert_eq!(distance(&a, &b, limit), (want <= limit).then_some(want), "{:?} {:?}", a, b);
            proptest::prop_assert_eq!(want, strsim::osa_distance(&a, &b));
        }

        /// The bit-vector distance is the full table's, on short texts over a small
        /// alphabet (transpositions everywhere) and across words of 64 rows.
        #[test]
        fn bit_vector_distance_is_the_full_tables(
            a in "[abc é]{0,150}",
            b in "[abc é]{0,150}",
        ) {
            let (a, b) = (chars(&a), chars(&b));
            proptest::prop_assert_eq!(osa_distance_bits(&a, &b), full_table(&a, &b));
        }

        /// The band itself (used for lines of more than 64 characters): the full table's
        /// distance when it is within the band, `None` when it is not.
        #[test]
        fn a_band_holds_the_distance_exactly_when_it_is_within(
            a in "[abc ]{1,70}",
            b in "[abc ]{1,70}",
            extra in 0usize..12,
        ) {
            let (a, b) = (chars(&a), chars(&b));
            let k = a.len().abs_diff(b.len()).max(1) + extra;
            let want = full_table(&a, &b);
            proptest::prop_assert_eq!(banded(&a, &b, k, &mut Rows::default()), (want <= k).then_some(want));
        }

        /// Longer strings with a few edits: the same, through the widening band.
        #[test]
        fn banded_distance_on_edited_copies(
            base in "[a-e]{20,60}",
            edits in proptest::collection::vec((0usize..60, 0u8..3, "[a-f]"), 0..6),
            limit in 0usize..20,
        ) {
            let mut b = chars(&base);
            for (at, op, c) in edits {
                let at = at % (b.len() + 1);
                let c = c.chars().next().unwrap();
                match op {
                    0 => b.insert(at, c),
                    1 if at < b.len() => { b.remove(at); }
                    _ if at + 1 < b.len() => b.swap(at, at + 1),
                    _ => {}
                }
            }
            let want = full_table(&chars(&base), &b);
            let got = bounded_distance(&chars(&base), &b, limit, &mut Budget::new(u64::MAX));
            proptest::prop_assert_eq!(got, (want <= limit).then_some(want));
        }
    }

    #[test]
    fn distance_cut_off_semantics() {
        assert_eq!(distance("kitten", "sitting", 3), Some(3));
        assert_eq!(distance("kitten", "sitting", 2), None, "over the limit");
        assert_eq!(distance("abcd", "abdc", 1), Some(1), "a transposition is one edit");
        assert_eq!(distance("", "abc", 3), Some(3));
        assert_eq!(distance("abc", "", 2), None);
        assert_eq!(distance("same", "same", 0), Some(0));
        assert_eq!(distance("same", "sane", 0), None);
    }

    #[test]
    fn a_long_line_with_one_change_costs_next_to_nothing() {
        let line: Vec<char> = (0..60_000).map(|i| char::from(b'a' + (i * 7 % 26) as u8)).collect();
        let mut typo = line.clone();
        typo[30_000] = 'Z';
        let mut budget = Budget::new(1_000);
        assert_eq!(bounded_distance(&line, &typo, 1_501, &mut budget), Some(1));
        assert!(!budget.exhausted);
        // Two changes far apart: the band stays narrow, the work linear in the length.
        typo[100] = 'Y';
        let mut budget = Budget::new(1_000_000);
        assert_eq!(bounded_distance(&line, &typo, 1_501, &mut budget), Some(2));
    }

    #[test]
    fn a_spent_budget_gives_no_answer_and_says_so() {
        let a: Vec<char> = "abcdefghij".repeat(100).chars().collect();
        let b: Vec<char> = "jihgfedcba".repeat(100).chars().collect();
        let mut budget = Budget::new(5_000);
        assert_eq!(bounded_distance(&a, &b, 1_000, &mut budget), None);
        assert!(budget.exhausted);
    }

    #[test]
    fn similarity_of_long_texts_is_bounded() {
        assert_eq!(similarity("abcd", "abcd"), Some(1.0));
        assert_eq!(similarity("", ""), Some(1.0));
        let a = "x".repeat(100_000);
        let b = "y".repeat(100_000);
        assert_eq!(similarity(&a, &b), None, "too much work for feedback: no answer rather than a slow one");
    }

    #[test]
    fn one_typo_is_found_with_its_score() {
        let f = TextFile::parse("fn main() {\n    let total = compute(a, b);\n    println!(\"{total}\");\n}\n");
        let p = lines(&["let totl = compute(a, b);", "println!(\"{total}\");"]);
        let got = locate(f.lines(), &query(&p, 4), TierSet::ALL).unwrap();
        assert_eq!((got[0].start, got[0].end, got[0].tier), (1, 3, Tier::Fuzzy));
        assert!(got[0].confidence > 0.95 && got[0].confidence < 1.0, "{}", got[0].confidence);
    }

    #[test]
    fn single_line_typo_without_any_exact_line() {
        let f = TextFile::parse("alpha = 1\nbeta_value = compute_something(x)\ngamma = 3\n");
        let p = lines(&["beta_value = compute_somethng(x)"]);
        let got = locate(f.lines(), &query(&p, 3), TierSet::ALL).unwrap();
        assert_eq!((got[0].start, got[0].tier), (1, Tier::Fuzzy));
    }

    #[test]
    fn near_ties_are_ambiguous() {
        let f = TextFile::parse("value = compute(1)\nvalue = compute(2)\n");
        let p = lines(&["value = compute(3)"]);
        assert!(matches!(locate(f.lines(), &query(&p, 2), TierSet::ALL), Err(Miss::Ambiguous(Tier::Fuzzy, ..))));
    }

    #[test]
    fn a_blank_line_never_pairs_with_a_line_of_text() {
        // Short repetitive lines would score high; one of them against a blank line does
        // not count as a typo.
        let f = TextFile::parse("a\n\n\na\na\na\na = 0\na\n");
        let p = lines(&["a", "", "a", "a", "a", "a", "a = 0", "a"]);
        assert!(locate(f.lines(), &query(&p, 8), TierSet::only(Tier::Fuzzy)).is_err());
    }

    #[test]
    fn a_line_the_edit_changes_may_differ_by_a_typo_only() {
        // An unrelated file: the header matches, the line to change names another module.
        let f = TextFile::parse("# SPDX-License-Identifier: MIT\n\nfrom attr.setters import *  # noqa\n");
        let p = lines(&["# SPDX-License-Identifier: MIT", "", "from attr.filters import *  # noqa"]);
        let mut q = query(&p, 3);
        assert!(locate(f.lines(), &q, TierSet::ALL).is_ok(), "as context, the line may drift");
        q.changed = &[false, false, true];
        assert_eq!(locate(f.lines(), &q, TierSet::ALL), Err(Miss::NotFound));
        // One typo in it is still found.
        let typo = lines(&["# SPDX-License-Identifier: MIT", "", "from attr.setter import *  # noqa"]);
        let q = Query { changed: &[false, false, true], ..query(&typo, 3) };
        assert_eq!(locate(f.lines(), &q, TierSet::ALL).unwrap()[0].tier, Tier::Fuzzy);
    }

    #[test]
    fn dissimilar_is_not_found() {
        let f = TextFile::parse("completely different\ncontent here\n");
        let p = lines(&["nothing like it at all"]);
        assert_eq!(locate(f.lines(), &query(&p, 2), TierSet::ALL), Err(Miss::NotFound));
    }
}

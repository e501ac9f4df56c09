//! What a block that was not located tells the writer: the places it matched equally well,
//! or the closest region with a diff against the patch's lines ([`miss_failure`]).

use std::fmt::Write as _;

use crate::apply::report::{
    Closest, Failure, FailureKind, LineRange, MAX_CANDIDATES, MAX_EXCERPT_CHARS, clip_excerpt, clip_line, focus_pair,
    list_places,
};
use crate::ir::tier::Tier;
use crate::locate::effort::{Effort, Skip};
use crate::locate::fuzzy;
use crate::locate::query::{Found, Miss, Query, View};
use crate::text::lines::{LineText, Lines};

/// How long the line diff shown with a closest region may take; past it, `similar` gives
/// a coarser (still correct) diff.
const DIFF_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(200);

/// A failure for a block that was not located, with candidates or the closest region.
/// Every part of it is bounded: at most [`crate::MAX_CANDIDATES`] places are listed (and
/// the rest counted), excerpts are clipped, and the closest region is searched within a
/// work budget.
pub(crate) fn miss_failure(lines: Lines<'_>, q: &Query<'_>, miss: Miss, what: &str) -> Failure {
    match miss {
        Miss::Ambiguous(tier, places, scores) => {
            let total = places.len();
            let ranges: Vec<LineRange> =
                places.iter().take(MAX_CANDIDATES).map(|&(s, e)| LineRange::from_zero_based(s, e)).collect();
            let scores: Vec<f64> = scores.iter().take(MAX_CANDIDATES).map(|s| (s * 100.0).round() / 100.0).collect();
            let listed = if scores.len() == ranges.len() {
                let shown: Vec<String> =
                    ranges.iter().zip(&scores).map(|(r, s)| format!("{r} (similarity {s:.2})")).collect();
                let more =
                    if total > shown.len() { format!(", and {} more", total - shown.len()) } else { String::new() };
                format!("{}{more}", shown.join(", "))
            } else {
                list_places(&ranges, total)
            };
            let mut failure = Failure::new(
                FailureKind::Ambiguous,
                format!("the {what} match {total} places equally well ({tier} match): {listed}"),
                "add lines around the change (5 or more), or an anchor before it, so that it matches exactly one place",
            );
            failure.set_candidates(ranges);
            failure.candidate_scores = scores;
            failure.candidates_total = total;
            failure
        }
        Miss::NotFound => {
            let first = q.pat.first().map_or("", |l| l.trim());
            let mut failure = Failure::new(
                FailureKind::NotFound,
                format!(
                    "the {what} to find are not in the file (first line: `{}`)",
                    clip_line(first, MAX_EXCERPT_CHARS)
                ),
                "re-read the file and copy the context and removed lines exactly as they are now; if the change was already made, drop this edit",
            );
            if let Some(skip) = q.effort.and_then(Effort::skip) {
                let why = match skip {
                    Skip::Failed(at) => format!("{at} failed already"),
                    Skip::Budget(at) => format!("the patch's budget for searches of similar lines ran out (at {at})"),
                };
                let _ = write!(failure.next_step, " (the closest place was not looked for: {why})");
                return failure;
            }
            let whole = Query { lo: 0, hi: lines.len(), ..q.clone() };
            let view = View::new(lines, &whole);
            let (closest, stopped) = fuzzy::closest(&view);
            let stopped_note = match (stopped, closest.is_some()) {
                (false, _) => "",
                (true, true) => {
                    " (polypatch stopped comparing when its search budget for similar lines ran out: a closer place may exist)"
                }
                (true, false) => " (polypatch stopped looking for similar lines when its search budget ran out)",
            };
            if let Some((s, score)) = closest {
                let found = view.found(s, q.pat.len(), Tier::Fuzzy, score);
                let expected = q.pat.join("\n") + "\n";
                let have = lines.slice(found.start..found.end).texts().collect::<Vec<_>>().join("\n") + "\n";
                let diff = block_diff(lines, q.pat, &found);
                let similarity = fuzzy::distance::similarity(expected.trim_end(), have.trim_end()).unwrap_or(score);
                let similarity = (similarity * 100.0).round() / 100.0;
                let range = LineRange::from_zero_based(found.start, found.end);
                failure.next_step = format!(
                    "the closest place is {range} (similarity {similarity:.2}){stopped_note}; re-read those lines and copy them exactly into the patch"
                );
                failure.closest = Some(Closest { lines: range, similarity, diff: clip_excerpt(&diff) });
            } else if stopped {
                failure.next_step.push_str(stopped_note);
            }
            failure
        }
    }
}

/// The diff from the pattern's lines to the file's lines at `found` (`patch expects` /
/// `file has`), as a failure shows it.
pub(crate) fn block_diff(lines: Lines<'_>, pat: &[LineText], found: &Found) -> String {
    let have: Vec<&str> = lines.slice(found.start..found.end).texts().collect();
    let (shown_expected, shown_have) = focus_lines(pat, &have, found);
    crate::render::hunks::short_diff(&shown_expected, &shown_have, 2, ("patch expects", "file has"), DIFF_TIMEOUT).0
}

/// The pattern's lines and the file's lines at `found` as texts for the diff shown with a
/// closest region: each pattern line longer than an excerpt shows, and the file line it
/// was compared with, cut to the stretch around their first difference.
fn focus_lines(pat: &[LineText], have: &[&str], found: &Found) -> (String, String) {
    let mut expected: Vec<String> = pat.iter().map(ToString::to_string).collect();
    let mut file: Vec<String> = have.iter().map(ToString::to_string).collect();
    for (k, at) in found.map.iter().enumerate() {
        if let Some(at) = at
            && let Some(line) = file.get_mut(at - found.start)
        {
            let (a, b) = focus_pair(&expected[k], line);
            (expected[k], *line) = (a, b);
        }
    }
    (expected.join("\n") + "\n", file.join("\n") + "\n")
}

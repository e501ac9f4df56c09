//! Substring targets ([`Target::Text`], Aptix `find`): literal text that may start and end
//! inside lines. `find` and the replacement are compared and written with `\n` line
//! ends; a CRLF file is read as `\n` and written back with its own terminators.
//!
//! The rules, once:
//!
//! 1. **Exact.** The text is searched literally. [`Occurrence::Unique`]: several places
//!    are an ambiguity. [`Occurrence::First`] (Aptix `limit: once`): the first place is
//!    replaced, and with several the report carries a note naming them.
//!    [`Occurrence::All`]: every place is replaced. [`Occurrence::Exactly`]: every place,
//!    when there are exactly that many (another count is refused, naming it). An occurrence that stands inside the
//!    replacement text (a replacement that keeps the text to find and adds to it, on a
//!    re-run) is already applied: with a telling replacement (rule 4) it is reported so,
//!    with a short one it is refused, since a literal re-apply would add the same text
//!    twice; under `all` such occurrences are left as they are. Under `once`, a telling
//!    replacement standing before the first occurrence is refused with both places: after
//!    a run that replaced the first of several, applying again would change the next.
//! 2. **Lenient, only when the literal search finds nothing, and never for `all` or
//!    `exactly`.**
//!    - A `find` of several lines is matched as lines by the line engine, with the tiers,
//!      fuzzy threshold and ambiguity guard of [`Target::Lines`]: the lines it keeps in the
//!      replacement are written as the file has them, the others follow the file's
//!      indentation, and at the fuzzy tier a line the edit rewrites may differ by a typo
//!      only (so a first line that is a fragment of a longer file line is not replaced
//!      whole). A `find` ending with a newline whose replacement does not end with one is
//!      exact only: as lines it cannot be written.
//!    - A one-line `find` is searched inside lines: runs of whitespace compare equal
//!      ([`Tier::Trimmed`]), then also Unicode look-alikes ([`Tier::Unicode`]), its own
//!      leading and trailing whitespace ignored. It must match one place in the file;
//!      the fuzzy tier is never used for a line fragment (it would guess where the
//!      fragment starts and ends). A match that covers a whole line keeps the file's
//!      indentation. A one-line `find` ending with a newline matches only where it ends
//!      its line (the line's trailing whitespace goes with it); an empty replacement then
//!      removes the line, and one without a final newline is exact only.
//!    - Lenient matches need one place, whatever the occurrence rule says.
//! 3. **Already applied** is a finding, only after both searches found nothing (a text
//!    like the `find` still in the file was not replaced): the replacement stands in the
//!    file literally and is telling (rule 4). A lenient match that lies inside an
//!    occurrence of a telling replacement is already applied; one elsewhere while such a
//!    replacement also stands in the file is refused (both readings are plausible).
//! 4. **Telling replacement.** At least [`MIN_EVIDENCE_CHARS`] characters that are not
//!    whitespace; not a part of the `find` (a replacement that only deletes leaves text
//!    that stood there anyway); text of its own beyond what it shares with the `find` at
//!    both ends; and, unless the edit replaces every occurrence, found at exactly one place.
//!    A short or common replacement (`x`, `""`, `}`) proves nothing: the edit fails (or
//!    is skipped) and the failure says the replacement was seen but is not evidence.
//! 5. **Not found.** A failure naming the closest region (lines, similarity, a short
//!    diff), or with [`Missing::Skip`] / `ApplyOptions::skip_missing_text` a skipped edit
//!    whose note says what was not found. Ambiguities are never skipped.
//!
//! The search is linear in the file: one literal scan, one normalized scan per lenient
//! in-line tier, the line engine's bounded tiers, and the closest-region search within
//! its work budget. A text target searches the whole file: an anchor does not narrow it,
//! and a line hint only chooses between equal lenient matches of a several-line `find`.

use std::fmt::Write as _;

use crate::apply::miss::miss_failure;
use crate::apply::report::{
    Failure, FailureKind, LineRange, MAX_CANDIDATES, MAX_EXCERPT_CHARS, Status, clip_line, list_places,
};
use crate::apply::write::{Done, Overrides, align, apply_at, splice_lines};
use crate::decide;
use crate::ir::plan::{Action, Edit, Missing, Occurrence, Replacement, Target};
use crate::ir::tier::{Leniency, Tier, TierSet};
use crate::locate::fold::folded;
use crate::locate::index::LineHashes;
use crate::locate::query::{Miss, Query};
use crate::text::eol::Eol;
use crate::text::lines::{Line, LineText, Lines, TextFile};

/// How many non-whitespace characters a replacement needs to show, by standing in the
/// file, that the edit was already applied.
pub(crate) const MIN_EVIDENCE_CHARS: usize = 12;

/// How many bytes the check for occurrences inside their own replacement may compare
/// (`limit: all` over a very repetitive file).
const MAX_INSIDE_WORK: usize = 64_000_000;

/// The file's text with `\n` line ends, and where each line starts in it.
struct Joined {
    text: String,
    /// Byte offset of each line's start, then the text's length.
    starts: Vec<usize>,
}

impl Joined {
    fn new(lines: Lines<'_>) -> Joined {
        let mut starts = Vec::with_capacity(lines.len() + 1);
        let mut len = 0;
        let mut lf_only = true;
        for line in lines {
            starts.push(len);
            len += line.text.len() + usize::from(line.eol != Eol::None);
            lf_only &= matches!(line.eol, Eol::Lf | Eol::None);
        }
        starts.push(len);
        let mut text = String::with_capacity(len);
        if lf_only {
            // The lines as they stand: runs of the file's text copied whole, not line by
            // line (a text edit joins the file again for each edit).
            let copied: Result<(), std::convert::Infallible> = lines.try_for_each_piece(|piece| {
                text.push_str(piece);
                Ok(())
            });
            let Ok(()) = copied;
        } else {
            for line in lines {
                text.push_str(line.text);
                if line.eol != Eol::None {
                    text.push('\n');
                }
            }
        }
        debug_assert_eq!(text.len(), len);
        Joined { text, starts }
    }

    /// The line (0-based) holding byte `at`.
    fn line_of(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s <= at).saturating_sub(1)
    }

    /// The lines of the `len` bytes at `at` (at least one line).
    fn range(&self, at: usize, len: usize) -> (usize, usize) {
        let first = self.line_of(at);
        (first, self.line_of(at + len.saturating_sub(1)).max(first) + 1)
    }

    fn line_range(&self, at: usize, len: usize) -> LineRange {
        let (s, e) = self.range(at, len);
        LineRange::from_zero_based(s, e)
    }
}

/// The byte offsets of the occurrences of `needle` in `text` that do not overlap, in order
/// (as `str::match_indices` gives them), found with `memchr`'s vectorized search: a text
/// edit searches the whole file, and `str`'s search took most of an Aptix patch's time.
/// A match of UTF-8 in UTF-8 starts and ends on character boundaries.
fn find_all<'a>(text: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    memchr::memmem::find_iter(text.as_bytes(), needle.as_bytes())
}

/// The searched text and its replacement, with `\n` line ends.
struct Texts {
    find: String,
    with: String,
}

/// Applies a substring edit (rules in the module docs).
/// An edit refused because a first run and a re-run read alike: the place of the text
/// to find and the place of its replacement, and what to do if the change is not made.
fn two_readings(message: String, otherwise: &str, find_at: LineRange, with_at: LineRange) -> Failure {
    let mut failure = Failure::new(
        FailureKind::Ambiguous,
        message,
        format!("if the change is already made, drop this entry; otherwise {otherwise}"),
    );
    failure.set_candidates(vec![find_at, with_at]);
    failure
}

/// A replacement holding an elision (`// ... existing code ...`) that its find does not,
/// where the edit removes lines: written, it would replace the code the find names with
/// a comment standing for it. An edit that removes nothing (every line of the find stays)
/// only adds text, elision-like or not (a docs example with `# ...`).
fn elision_in_replacement(find: &str, with: &str) -> Result<(), Failure> {
    let lines: Vec<&str> = with.lines().collect();
    let in_find = |line: &str| find.lines().any(|f| f.trim() == line.trim());
    let removes = find.lines().any(|f| !f.trim().is_empty() && !lines.iter().any(|l| l.trim() == f.trim()));
    if !removes {
        return Ok(());
    }
    match (0..lines.len()).find(|&j| crate::apply::elision::is_elision_at(&lines, j) && !in_find(lines[j])) {
        None => Ok(()),
        Some(j) => Err(Failure::new(
            FailureKind::Elision,
            format!(
                "line {} of the replacement, `{}`, stands for code the text to find does not hold: written, it \
                 would replace that code with the comment",
                j + 1,
                clip_line(lines[j].trim(), MAX_EXCERPT_CHARS)
            ),
            "write the replacement out in full: every line that stays, as it is in the file",
        )),
    }
}

pub(crate) fn apply_text(
    file: &mut TextFile,
    hashes: &LineHashes,
    edit: &Edit,
    ov: Overrides<'_>,
    leniency: Leniency,
) -> Result<Done, Failure> {
    let Leniency { tiers, threshold, .. } = leniency;
    let Target::Text(find) = &edit.target else { unreachable!("only text targets come here") };
    let find = find.replace("\r\n", "\n");
    if find.is_empty() {
        return Err(Failure::new(FailureKind::InvalidPlan, "the text to find is empty", "give the text to replace"));
    }
    let with = match &edit.action {
        Action::Replace(rep) => rep.text.clone().unwrap_or_else(|| rep.lines.join("\n")).replace("\r\n", "\n"),
        Action::Delete => String::new(),
        Action::InsertBefore { lines } => format!("{}\n{find}", lines.join("\n")),
        Action::InsertAfter { lines } => format!("{find}\n{}", lines.join("\n")),
    };
    elision_in_replacement(&find, &with)?;
    let t = Texts { find, with };
    let joined = Joined::new(file.lines());
    let judge = !ov.fresh && edit.policy.detect_already_applied;
    let matches: Vec<usize> = find_all(&joined.text, &t.find).collect();
    if !matches.is_empty() {
        return exact(file, hashes, &joined, &t, edit.policy.occurrence, matches, judge, ov);
    }

    // Not there literally: the lenient tiers, then the evidence that it was applied.
    let evidence = if judge { Evidence::of(&joined, &t, edit.policy.occurrence) } else { Evidence::None };
    if !edit.policy.occurrence.replaces_every() {
        let lenient = Leniency { tiers: tiers.without(Tier::Exact).without(Tier::Prefix), ..leniency };
        if let Some(done) = lenient_apply(file, hashes, &joined, edit, &t, ov, lenient, &evidence)? {
            return Ok(done);
        }
    }
    if let Evidence::Telling(places) = &evidence {
        let at = joined.line_range(places[0], t.with.len());
        return Ok(Done {
            status: Status::AlreadyApplied,
            tier: Some(Tier::Exact),
            confidence: 1.0,
            lines: Some(at),
            notes: vec![format!("the text to find is not in the file and its replacement stands at {at}")],
        });
    }
    if judge
        && matches!(evidence, Evidence::None)
        && let Some(done) = loose_evidence(file.lines(), &t, tiers)
    {
        return Ok(done);
    }
    let mut failure = not_found(file.lines(), &t, edit, threshold, ov);
    if let Evidence::Weak(at, why) = &evidence {
        let at = joined.line_range(*at, t.with.len());
        let _ = write!(
            failure.message,
            "; the replacement text stands at {at}, but {why}, so it does not show that the edit was applied"
        );
    }
    if let Occurrence::Exactly(n) = edit.policy.occurrence {
        let _ = write!(failure.message, " (0 of the {n} expected occurrences found)");
    }
    if ov.skip_missing_text || edit.policy.if_missing == Missing::Skip {
        let mut note = format!("skipped: {}", failure.message);
        if let Some(c) = &failure.closest {
            let _ = write!(note, " (closest: {}, similarity {:.2})", c.lines, c.similarity);
        }
        return Ok(Done { status: Status::Skipped, tier: None, confidence: 0.0, lines: None, notes: vec![note] });
    }
    if edit.policy.if_missing == Missing::AlreadyApplied {
        return Ok(Done {
            status: Status::AlreadyApplied,
            tier: None,
            confidence: 0.0,
            lines: None,
            notes: Vec::new(),
        });
    }
    Err(failure)
}

/// The literal search found `matches` (byte offsets, in order).
#[allow(clippy::too_many_arguments, reason = "the state of one text edit, passed down once")]
fn exact(
    file: &mut TextFile,
    hashes: &LineHashes,
    joined: &Joined,
    t: &Texts,
    occurrence: Occurrence,
    mut matches: Vec<usize>,
    judge: bool,
    ov: Overrides<'_>,
) -> Result<Done, Failure> {
    let total = matches.len();
    let mut notes = Vec::new();
    match occurrence {
        Occurrence::All => {}
        Occurrence::Exactly(n) if total != n => {
            let ranges: Vec<LineRange> =
                matches.iter().take(MAX_CANDIDATES).map(|&m| joined.line_range(m, t.find.len())).collect();
            let (kind, next) = if total > n {
                (
                    FailureKind::Ambiguous,
                    "make the text to find longer so that only the places to change have it, or expect every occurrence",
                )
            } else {
                (FailureKind::NotFound, "check the text to find against the file, or expect the count found")
            };
            let mut failure = Failure::new(
                kind,
                format!("the text to find occurs {total} times, not the {n} expected: {}", list_places(&ranges, total)),
                next,
            );
            failure.set_candidates(ranges);
            failure.candidates_total = total;
            return Err(failure);
        }
        Occurrence::Exactly(_) => {}
        Occurrence::Unique if total > 1 => {
            let ranges: Vec<LineRange> =
                matches.iter().take(MAX_CANDIDATES).map(|&m| joined.line_range(m, t.find.len())).collect();
            let mut failure = Failure::new(
                FailureKind::Ambiguous,
                format!("the text to find occurs {total} times: {}", list_places(&ranges, total)),
                "make the text to find longer so it occurs once",
            );
            failure.set_candidates(ranges);
            failure.candidates_total = total;
            return Err(failure);
        }
        Occurrence::Unique => {}
        Occurrence::First | Occurrence::FirstAfterAnchor => {
            if total > 1 {
                let ranges: Vec<LineRange> =
                    matches.iter().take(MAX_CANDIDATES).map(|&m| joined.line_range(m, t.find.len())).collect();
                notes.push(format!(
                    "the text to find occurs {total} times ({}): the first was replaced; to change another, make the text to find longer, or use `limit: all` to change every one",
                    list_places(&ranges, total)
                ));
            }
            matches.truncate(1);
        }
    }
    let first = joined.line_range(matches[0], t.find.len());
    let done = |status, notes| Done { status, tier: Some(Tier::Exact), confidence: 1.0, lines: Some(first), notes };
    if t.with == t.find {
        return Ok(done(Status::AlreadyApplied, notes));
    }
    // An occurrence inside the replacement (which keeps the text to find) is already
    // replaced: applying again would add the new text twice.
    if judge && t.with.contains(&t.find) {
        // Each check compares the replacement at the few offsets where it holds the text
        // to find; the total is bounded, and past the bound nothing is guessed.
        let offsets: Vec<usize> = t.with.match_indices(&t.find).map(|(k, _)| k).collect();
        let work = matches.len().saturating_mul(offsets.len()).saturating_mul(t.with.len());
        if work > MAX_INSIDE_WORK {
            let mut failure = Failure::new(
                FailureKind::Ambiguous,
                format!(
                    "the text to find occurs {total} times, and its replacement holds it: the file is too repetitive to tell which occurrences are already replaced"
                ),
                "make the text to find longer so that it does not occur inside its replacement",
            );
            failure.candidates_total = total;
            return Err(failure);
        }
        let inside = |m: usize| {
            offsets.iter().any(|&k| m >= k && joined.text.as_bytes()[m - k..].starts_with(t.with.as_bytes()))
        };
        let (done_already, left): (Vec<usize>, Vec<usize>) = matches.iter().partition(|&&m| inside(m));
        if !done_already.is_empty() {
            if !occurrence.replaces_every() {
                return match telling(t) {
                    Ok(()) => Ok(done(Status::AlreadyApplied, notes)),
                    Err(why) => {
                        let mut failure = Failure::new(
                            FailureKind::Ambiguous,
                            format!(
                                "the text to find stands at {first} inside its own replacement, but {why}: it cannot be told whether the edit was already applied"
                            ),
                            "if the change is already made, drop this entry; otherwise make the text to find longer so that only the place to change has it",
                        );
                        failure.set_candidates(vec![first]);
                        return Err(failure);
                    }
                };
            }
            if left.is_empty() {
                return Ok(done(Status::AlreadyApplied, notes));
            }
            notes.push(format!(
                "{} of the {total} occurrences already stand inside the replacement and were left as they are",
                done_already.len()
            ));
            matches = left;
        }
    }
    // `once` after a run that replaced the first occurrence: the replacement stands
    // before the one now first, and applying would change the next one.
    if judge && matches!(occurrence, Occurrence::First | Occurrence::FirstAfterAnchor) && telling(t).is_ok() {
        let m = matches[0];
        if let Some(p) = memchr::memmem::find(&joined.text.as_bytes()[..m], t.with.as_bytes()) {
            let n = joined.line_range(p, t.with.len());
            return Err(two_readings(
                format!(
                    "the text to find stands at {first} and its replacement before it, at {n}: if an earlier run replaced the first occurrence, applying again would change the next one"
                ),
                "make the text to find longer so that only the place to change has it",
                first,
                n,
            ));
        }
    }
    replace_exact(file, hashes, joined, t, &matches, ov);
    Ok(done(Status::Applied, notes))
}

/// Replaces the text to find at each of `matches`.
/// `hashes` are kept in step with the lines.
fn replace_exact(
    file: &mut TextFile,
    hashes: &LineHashes,
    joined: &Joined,
    t: &Texts,
    matches: &[usize],
    ov: Overrides<'_>,
) {
    // Matches that share a line are rewritten together, as one segment of whole lines.
    let mut groups: Vec<(usize, usize, Vec<usize>)> = Vec::new();
    for &m in matches {
        let (l0, l1) = joined.range(m, t.find.len());
        let l1 = l1 - 1;
        match groups.last_mut() {
            Some((_, end, list)) if l0 <= *end => {
                *end = (*end).max(l1);
                list.push(m);
            }
            _ => groups.push((l0, l1, vec![m])),
        }
    }
    // The new text of lines `l0..=l1`: theirs, with the matches among them replaced.
    let segment = |l0: usize, l1: usize, list: &[usize]| {
        let mut segment = String::new();
        let mut at = joined.starts[l0];
        for &m in list {
            segment.push_str(&joined.text[at..m]);
            segment.push_str(&t.with);
            at = m + t.find.len();
        }
        segment.push_str(&joined.text[at..joined.starts[l1 + 1]]);
        segment
    };
    if let [(l0, l1, list)] = groups.as_slice() {
        // One place (the usual case): its lines are spliced in, the rest stay where they are.
        let new = segment_lines(&segment(*l0, *l1, list), file.lines().eol(*l1), ov);
        splice_lines(file, hashes, *l0..*l1 + 1, &new);
        return;
    }
    // Many places: the file is rebuilt once, not shifted once per place.
    let places: Vec<_> = groups
        .iter()
        .map(|(l0, l1, list)| (*l0..*l1 + 1, segment_lines(&segment(*l0, *l1, list), file.lines().eol(*l1), ov)))
        .collect();
    file.splice_many(places.iter().map(|(range, new)| (range.clone(), new.iter().map(|l| (l.text.as_str(), l.eol)))));
    // Changed at many places at once: the hashes are made again when next needed.
    hashes.clear();
}

/// The lines of `segment` (text with `\n` line ends) written in place of file lines whose
/// last ended with `last_eol`: that line end stays on the last new line; the others end
/// like it (or, as the file says, with the file's usual terminator).
fn segment_lines(segment: &str, last_eol: Eol, ov: Overrides<'_>) -> Vec<Line> {
    let eol = if ov.neighbour_ends && last_eol != Eol::None { last_eol } else { ov.eol };
    let ends_with_newline = segment.ends_with('\n');
    let body = segment.strip_suffix('\n').unwrap_or(segment);
    let mut new: Vec<Line> =
        if segment.is_empty() { Vec::new() } else { body.split('\n').map(|t| Line { text: t.into(), eol }).collect() };
    if let Some(last) = new.last_mut() {
        last.eol = if ends_with_newline { if last_eol == Eol::None { eol } else { last_eol } } else { Eol::None };
    }
    new
}

/// What the replacement standing in the file says.
enum Evidence {
    /// Not looked for, or not in the file.
    None,
    /// In the file at these byte offsets, and telling.
    Telling(Vec<usize>),
    /// In the file (first at this offset), but it proves nothing, for this reason.
    Weak(usize, &'static str),
}

impl Evidence {
    fn of(joined: &Joined, t: &Texts, occurrence: Occurrence) -> Evidence {
        if t.with.is_empty() {
            return Evidence::None;
        }
        let places: Vec<usize> = find_all(&joined.text, &t.with).take(2).collect();
        let Some(&first) = places.first() else { return Evidence::None };
        // A replacement of a character or two stands in most files: not worth a mention.
        if t.with.chars().filter(|c| !c.is_whitespace()).count() < 3 {
            return Evidence::None;
        }
        if let Err(why) = telling(t) {
            return Evidence::Weak(first, why);
        }
        if !occurrence.replaces_every() && places.len() > 1 {
            return Evidence::Weak(first, "it occurs more than once");
        }
        Evidence::Telling(places)
    }
}

/// A telling replacement of several lines that stands in the file only loosely (at
/// another indentation, with other whitespace, other blank lines between its lines or
/// look-alikes, never fuzzily), at one place: the edit matched loosely when it was
/// applied, and stands there now (a re-run of a `find` and replacement that both left out
/// a blank line the file has).
fn loose_evidence(lines: Lines<'_>, t: &Texts, tiers: TierSet) -> Option<Done> {
    let body = t.with.strip_suffix('\n').unwrap_or(&t.with);
    if !body.contains('\n') || telling(t).is_err() {
        return None;
    }
    let pat: Vec<LineText> = body.split('\n').map(LineText::from).collect();
    let loose = tiers.intersect(
        TierSet::only(Tier::TrailingWhitespace)
            .with(Tier::Indentation)
            .with(Tier::Trimmed)
            .with(Tier::BlankLines)
            .with(Tier::Unicode),
    );
    if loose.is_empty() {
        return None;
    }
    let q = Query::whole_file(&pat, lines.len(), false, 1.0);
    let found = decide::locate(lines, &q, loose).ok()?.into_iter().next()?;
    let at = LineRange::from_zero_based(found.start, found.end);
    Some(Done {
        status: Status::AlreadyApplied,
        tier: Some(found.tier),
        confidence: found.confidence,
        lines: Some(at),
        notes: vec![format!(
            "the text to find is not in the file and its replacement stands at {at} ({} match)",
            found.tier
        )],
    })
}

/// Whether the replacement says enough to show, by standing in the file, that the edit
/// was applied (rule 4); else why not.
fn telling(t: &Texts) -> Result<(), &'static str> {
    if t.with.chars().filter(|c| !c.is_whitespace()).count() < MIN_EVIDENCE_CHARS {
        return Err("it is too short");
    }
    if t.find.contains(&t.with) {
        return Err("it is a part of the text to find");
    }
    // What the replacement adds beyond the ends it shares with the text to find.
    let prefix = t.find.chars().zip(t.with.chars()).take_while(|(a, b)| a == b).map(|(a, _)| a.len_utf8()).sum();
    let rest_find = &t.find[prefix..];
    let rest_with = &t.with[prefix..];
    let suffix: usize = rest_find
        .chars()
        .rev()
        .zip(rest_with.chars().rev())
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len_utf8())
        .sum();
    if rest_with[..rest_with.len() - suffix].trim().is_empty() {
        return Err("it adds no text of its own to the text to find");
    }
    Ok(())
}

/// A one-line `find` matched inside a file line: the line, the byte range, the tier.
struct InLine {
    line: usize,
    start: usize,
    end: usize,
    tier: Tier,
}

/// The lenient tiers (rule 2), with the evidence of rule 3. `Ok(None)`: nothing found.
#[allow(clippy::too_many_arguments, reason = "the state of one text edit, passed down once")]
fn lenient_apply(
    file: &mut TextFile,
    hashes: &LineHashes,
    joined: &Joined,
    edit: &Edit,
    t: &Texts,
    ov: Overrides<'_>,
    Leniency { tiers, base, threshold }: Leniency,
    evidence: &Evidence,
) -> Result<Option<Done>, Failure> {
    if tiers.iter().next().is_none() {
        return Ok(None);
    }
    let body = t.find.strip_suffix('\n').unwrap_or(&t.find);
    // Where the lenient match stands, as lines, and what it means next to a telling
    // replacement in the file.
    let guard = |start: usize, end: usize, tier: Tier, confidence: f64| -> Result<Option<Done>, Failure> {
        let Evidence::Telling(places) = evidence else { return Ok(None) };
        let at = LineRange::from_zero_based(start, end);
        for &p in places {
            let (s, e) = joined.range(p, t.with.len());
            if s <= start && end <= e {
                let notes = vec![format!(
                    "the text to find matches {at} only loosely ({tier} match), inside its replacement: already applied"
                )];
                return Ok(Some(Done {
                    status: Status::AlreadyApplied,
                    tier: Some(tier),
                    confidence,
                    lines: Some(at),
                    notes,
                }));
            }
        }
        let n = joined.line_range(places[0], t.with.len());
        Err(two_readings(
            format!(
                "text like the text to find stands at {at} ({tier} match) and its replacement at {n}: it cannot be told whether the edit was already applied"
            ),
            "copy the text to find exactly as the file has it",
            at,
            n,
        ))
    };

    if !body.contains('\n') {
        // A `find` that ends with a newline ends its line; its replacement must then end
        // with one too (or be empty: the line goes), else it would join the next line.
        let to_eol = t.find.ends_with('\n');
        if to_eol && !t.with.is_empty() && !t.with.ends_with('\n') {
            return Ok(None);
        }
        let Some(found) = in_line(file.lines(), body, tiers, to_eol)? else { return Ok(None) };
        let confidence = found.tier.confidence();
        if let Some(done) = guard(found.line, found.line + 1, found.tier, confidence)? {
            return Ok(Some(done));
        }
        replace_in_line(file, hashes, t, &found, ov);
        let lines = Some(LineRange::from_zero_based(found.line, found.line + 1));
        return Ok(Some(Done {
            status: Status::Applied,
            tier: Some(found.tier),
            confidence,
            lines,
            notes: Vec::new(),
        }));
    }

    let Some((pat, new)) = as_lines(t) else { return Ok(None) };
    let kept = align(&pat, &new);
    let changed: Vec<bool> = (0..pat.len()).map(|i| !kept.contains(&Some(i))).collect();
    let q = Query {
        hint: edit.scope.line_hint.map(|n| n.saturating_sub(1)),
        base,
        changed: &changed,
        index: Some(hashes),
        effort: ov.effort,
        ..Query::whole_file(&pat, file.len(), edit.policy.ignore_blank_lines, threshold)
    };
    let found = match decide::locate(file.lines(), &q, tiers) {
        Ok(found) => found.into_iter().next().expect("located once"),
        Err(Miss::NotFound) => return Ok(None),
        Err(miss) => {
            let mut failure = miss_failure(file.lines(), &q, miss, "lines");
            failure.message = failure.message.replacen("the lines match", "the lines of the text to find match", 1);
            return Err(failure);
        }
    };
    if let Some(done) = guard(found.start, found.end, found.tier, found.confidence)? {
        return Ok(Some(done));
    }
    let as_lines = Edit {
        target: Target::Lines(pat.clone()),
        // No explicit context: `kept` is the engine's own alignment.
        action: Action::Replace(Replacement::lines(new)),
        ..edit.clone()
    };
    let mut cursor = 0;
    apply_at(file, hashes, &as_lines, &pat, &kept, &found, &mut cursor, ov).map(Some)
}

/// The text to find and its replacement as whole lines, when the replacement can be
/// written so: a `find` that ends with a newline needs a replacement that does too (or
/// none at all); a `find` that does not leaves the line end after it in place.
fn as_lines(t: &Texts) -> Option<(Vec<LineText>, Vec<LineText>)> {
    let split = |s: &str| s.split('\n').map(LineText::from).collect::<Vec<_>>();
    match t.find.strip_suffix('\n') {
        Some(body) if t.with.is_empty() => Some((split(body), Vec::new())),
        Some(body) => t.with.strip_suffix('\n').map(|w| (split(body), split(w))),
        None => Some((split(&t.find), split(&t.with))),
    }
}

/// A string with runs of whitespace collapsed to one space and, with `fold`, Unicode
/// look-alikes folded; for each of its bytes, the byte range of the source character.
struct Normal {
    text: String,
    src: Vec<(usize, usize)>,
}

impl Normal {
    fn new(s: &str, fold: bool) -> Normal {
        let mut text = String::with_capacity(s.len());
        let mut src = Vec::with_capacity(s.len());
        let mut chars = s.char_indices().peekable();
        let mut buf = [0u8; 4];
        while let Some((i, c)) = chars.next() {
            let end = i + c.len_utf8();
            let mut push = |text: &mut String, ch: char, range: (usize, usize)| {
                text.push(ch);
                src.extend(std::iter::repeat_n(range, ch.len_utf8()));
            };
            // Without folding only ASCII blanks: a special space is a look-alike.
            let as_space = |c: char| {
                if fold {
                    c.is_whitespace() || folded(c.encode_utf8(&mut [0u8; 4])).eq([' '])
                } else {
                    c == ' ' || c == '\t'
                }
            };
            if as_space(c) {
                let mut run_end = end;
                while let Some(&(j, d)) = chars.peek() {
                    if !as_space(d) {
                        break;
                    }
                    run_end = j + d.len_utf8();
                    chars.next();
                }
                push(&mut text, ' ', (i, run_end));
            } else if fold {
                for ch in folded(c.encode_utf8(&mut buf)) {
                    push(&mut text, ch, (i, end));
                }
            } else {
                push(&mut text, c, (i, end));
            }
        }
        Normal { text, src }
    }

    /// Whether normalized byte `at` starts a source character (or is the end).
    fn starts_char(&self, at: usize) -> bool {
        at == 0 || at == self.src.len() || self.src[at - 1] != self.src[at]
    }
}

/// Rule 2 for a one-line `find`: its one place inside a line, at the first tier that has
/// any; several places at that tier are an ambiguity.
fn in_line(lines: Lines<'_>, find: &str, tiers: TierSet, to_eol: bool) -> Result<Option<InLine>, Failure> {
    let find = find.trim();
    if find.is_empty() {
        return Ok(None);
    }
    for (tier, fold) in [(Tier::Trimmed, false), (Tier::Unicode, true)] {
        if !tiers.contains(tier) {
            continue;
        }
        let needle = Normal::new(find, fold).text;
        // Only zero-width characters or spaces left: nothing to look for.
        if needle.trim().is_empty() {
            continue;
        }
        let mut places: Vec<InLine> = Vec::new();
        let mut total = 0usize;
        for (i, line) in lines.iter().enumerate() {
            let norm = Normal::new(line.text, fold);
            for (at, _) in norm.text.match_indices(&needle) {
                let end = at + needle.len();
                if !(norm.starts_char(at) && norm.starts_char(end))
                    || (to_eol && !line.text[norm.src[end - 1].1..].trim().is_empty())
                {
                    continue;
                }
                total += 1;
                if places.len() <= MAX_CANDIDATES {
                    // A find that ends its line takes the line's trailing whitespace with it.
                    let stop = if to_eol { line.text.len() } else { norm.src[end - 1].1 };
                    places.push(InLine { line: i, start: norm.src[at].0, end: stop, tier });
                }
            }
        }
        match total {
            0 => {}
            1 => return Ok(places.pop()),
            _ => {
                let ranges: Vec<LineRange> = places
                    .iter()
                    .take(MAX_CANDIDATES)
                    .map(|p| LineRange::from_zero_based(p.line, p.line + 1))
                    .collect();
                let mut failure = Failure::new(
                    FailureKind::Ambiguous,
                    format!(
                        "the text to find is not in the file as written, and matches {total} places equally well ({tier} match): {}",
                        list_places(&ranges, total)
                    ),
                    "copy the text to find exactly as the file has it, long enough to occur once",
                );
                failure.set_candidates(ranges);
                failure.candidates_total = total;
                return Err(failure);
            }
        }
    }
    Ok(None)
}

/// Writes the replacement over a match inside a line. The `find`'s own leading and
/// trailing whitespace (ignored when matching) is taken off the replacement where it
/// starts and ends with the same; the replacement's further lines that start with the
/// `find`'s indentation get the file line's instead.
/// `hashes` are kept in step with the lines.
fn replace_in_line(file: &mut TextFile, hashes: &LineHashes, t: &Texts, found: &InLine, ov: Overrides<'_>) {
    let body = t.find.strip_suffix('\n').unwrap_or(&t.find);
    let lead = &body[..body.len() - body.trim_start().len()];
    let trail = &body[body.trim_end().len()..];
    let to_eol = t.find.ends_with('\n');
    if to_eol && t.with.is_empty() {
        splice_lines(file, hashes, found.line..found.line + 1, &[]);
        return;
    }
    let mut with = t.with.as_str();
    if to_eol {
        with = with.strip_suffix('\n').unwrap_or(with);
    }
    with = with.strip_prefix(lead).unwrap_or(with);
    with = with.strip_suffix(trail).unwrap_or(with);
    let text = file.lines().text(found.line);
    let indent = &text[..text.len() - text.trim_start().len()];
    let whole = found.start == indent.len() && text[found.end..].trim().is_empty();
    let mut new = String::new();
    new.push_str(&text[..found.start]);
    for (k, part) in with.split('\n').enumerate() {
        if k > 0 {
            new.push('\n');
            match part.strip_prefix(lead) {
                Some(rest) if whole && !lead.is_empty() => {
                    new.push_str(indent);
                    new.push_str(rest);
                }
                _ => new.push_str(part),
            }
        } else {
            new.push_str(part);
        }
    }
    new.push_str(&text[found.end..]);
    if whole && with.trim().is_empty() {
        new = String::new();
    }
    if file.lines().eol(found.line) != Eol::None {
        new.push('\n');
    }
    let new = segment_lines(&new, file.lines().eol(found.line), ov);
    splice_lines(file, hashes, found.line..found.line + 1, &new);
}

/// The failure for a `find` that is nowhere, with the file's closest region.
fn not_found(lines: Lines<'_>, t: &Texts, edit: &Edit, threshold: f64, ov: Overrides<'_>) -> Failure {
    let body = t.find.strip_suffix('\n').unwrap_or(&t.find);
    let pat: Vec<LineText> = body.split('\n').map(LineText::from).collect();
    let q =
        Query { effort: ov.effort, ..Query::whole_file(&pat, lines.len(), edit.policy.ignore_blank_lines, threshold) };
    let mut failure = miss_failure(lines, &q, Miss::NotFound, "lines");
    let first = pat.iter().map(|l| l.trim()).find(|l| !l.is_empty()).unwrap_or("");
    let shown = clip_line(first, MAX_EXCERPT_CHARS);
    failure.message = if pat.len() > 1 {
        format!("the text to find is not in the file, not even loosely (first line: `{shown}`)")
    } else {
        format!("the text to find is not in the file, not even loosely: `{shown}`")
    };
    if failure.closest.is_none() {
        failure.next_step = "re-read the file and copy the text to find exactly, including whitespace".to_string();
    }
    failure.next_step.push_str("; if the change was already made, drop this entry");
    failure
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_elision_in_the_replacement_is_refused_unless_the_find_holds_it() {
        let err = super::elision_in_replacement("fn a() {}\nfn b() {}\n", "// ... existing code ...\nfn b() { 1 }\n");
        assert_eq!(err.unwrap_err().kind, FailureKind::Elision);
        assert!(
            super::elision_in_replacement(
                "// ... existing code ...\nfn b() {}\n",
                "// ... existing code ...\nfn b() { 1 }\n"
            )
            .is_ok()
        );
        assert!(super::elision_in_replacement("x", "y").is_ok());
        // Nothing removed: an added example holding `# ...` is text.
        assert!(
            super::elision_in_replacement("return config\n", "return config\n\ndef f():\n    # ...\n    pass\n")
                .is_ok()
        );
    }

    use super::*;
    use crate::ir::plan::{Policy, Replacement};
    use crate::locate::index::Norm;

    fn edit(find: &str, with: &str, occurrence: Occurrence) -> Edit {
        Edit {
            target: Target::Text(find.to_string()),
            action: Action::Replace(Replacement::text(with)),
            scope: crate::ir::plan::Scope::default(),
            policy: Policy { occurrence, ..Policy::default() },
            label: String::new(),
            span: None,
        }
    }

    /// Applies `e` to `text`, with every kind of line hash made first, and checks that the
    /// edit kept them in step with the lines it changed (`LineHashes` compares what it
    /// kept with fresh hashes when asked, in debug builds).
    fn run_edit(text: &str, e: &Edit) -> (String, Result<Done, Failure>) {
        let mut f = TextFile::parse(text);
        let p = &e.policy;
        let ov = Overrides { eol: f.dominant_eol(), neighbour_ends: true, ..Overrides::default() };
        let hashes = LineHashes::default();
        let made = |hashes: &LineHashes, lines: Lines<'_>| {
            for norm in [Norm::End, Norm::Trimmed, Norm::Folded] {
                drop(hashes.get(norm, lines));
            }
            drop(hashes.trimmed_chars(lines));
            drop(hashes.lines_with_text(lines));
        };
        made(&hashes, f.lines());
        let r = apply_text(
            &mut f,
            &hashes,
            e,
            ov,
            Leniency { tiers: p.tiers, base: Tier::Exact, threshold: p.fuzzy_threshold },
        );
        made(&hashes, f.lines());
        (f.render(), r)
    }

    fn run(text: &str, find: &str, with: &str, occurrence: Occurrence) -> (String, Status) {
        let (out, r) = run_edit(text, &edit(find, with, occurrence));
        (out, r.expect("applies").status)
    }

    #[test]
    fn replaces_inside_a_line_and_across_lines() {
        assert_eq!(run("a foo b\r\nc\r\n", "foo", "bar", Occurrence::Unique).0, "a bar b\r\nc\r\n");
        assert_eq!(run("x\none\ntwo\ny", "one\ntwo", "1", Occurrence::Unique).0, "x\n1\ny");
        assert_eq!(run("a\nb\n", "a\n", "", Occurrence::Unique).0, "b\n");
        assert_eq!(run("foo foo\n", "foo", "x", Occurrence::All).0, "x x\n");
        assert_eq!(run("foo foo\n", "foo", "x", Occurrence::First).0, "x foo\n");
    }

    /// `Exactly(n)` (Gemini CLI's `expected_replacements`): n places are all replaced;
    /// another count is refused, naming the count found, and the file is left as it was;
    /// a re-run is already applied.
    #[test]
    fn exactly_n_replaces_n_and_refuses_another_count() {
        assert_eq!(
            run("foo foo\nfoo\n", "foo", "bar", Occurrence::Exactly(3)),
            ("bar bar\nbar\n".into(), Status::Applied)
        );
        for (text, found, kind) in
            [("foo foo\n", 2, FailureKind::NotFound), ("foo foo foo foo\n", 4, FailureKind::Ambiguous)]
        {
            let (out, r) = run_edit(text, &edit("foo", "bar", Occurrence::Exactly(3)));
            let Err(err) = r else { panic!("a count other than 3 applied") };
            assert_eq!(out, text);
            assert_eq!(err.kind, kind);
            assert!(
                err.message.starts_with(&format!("the text to find occurs {found} times, not the 3 expected")),
                "{}",
                err.message
            );
        }
        let (out, r) = run_edit("nothing here\n", &edit("foo", "bar", Occurrence::Exactly(2)));
        let Err(err) = r else { panic!("applied with none found") };
        assert_eq!((out.as_str(), err.kind), ("nothing here\n", FailureKind::NotFound));
        assert!(err.message.ends_with("(0 of the 2 expected occurrences found)"), "{}", err.message);
        // A re-run: the replacement stands twice, the text to find nowhere.
        let again = "let total_count = 1;\nlet total_count = 2;\n";
        let (out, status) = run(again, "let count", "let total_count", Occurrence::Exactly(2));
        assert_eq!((out.as_str(), status), (again, Status::AlreadyApplied));
    }

    #[test]
    fn crlf_file_gets_crlf_new_lines() {
        let (out, status) = run("a\r\nb\r\nc\r\n", "b\n", "b1\nb2\n", Occurrence::First);
        assert_eq!((out.as_str(), status), ("a\r\nb1\r\nb2\r\nc\r\n", Status::Applied));
    }

    #[test]
    fn ambiguous_unique() {
        let (out, r) = run_edit("foo\nfoo\n", &edit("foo", "", Occurrence::Unique));
        let err = r.err().expect("ambiguous");
        assert_eq!(err.kind, FailureKind::Ambiguous);
        assert_eq!(err.candidates.len(), 2);
        assert_eq!(out, "foo\nfoo\n");
    }

    #[test]
    fn telling_needs_length_own_text_and_not_a_part_of_find() {
        let t = |find: &str, with: &str| telling(&Texts { find: find.into(), with: with.into() });
        assert!(t("public void OldMethod()", "public void NewMethod()").is_ok());
        assert_eq!(t("a", "x"), Err("it is too short"));
        assert_eq!(t("a", ""), Err("it is too short"));
        assert_eq!(t("let total = compute(a, b);", "total = compute(a, b)"), Err("it is a part of the text to find"));
        assert_eq!(
            t("call(first_argument, second)", "call(first_argument)"),
            Err("it adds no text of its own to the text to find"),
            "a deletion"
        );
        assert_eq!(
            t("let value_name = 1;", "let value_name =   1;"),
            Err("it adds no text of its own to the text to find")
        );
    }

    #[test]
    fn normal_collapses_whitespace_and_folds() {
        let n = Normal::new("a \t b\u{2014}c", true);
        assert_eq!(n.text, "a b-c");
        assert_eq!(n.src[1], (1, 4));
        assert_eq!(n.src[3], (5, 8));
        assert!(n.starts_char(3) && n.starts_char(4));
        let n = Normal::new("x\u{2026}", true);
        assert_eq!(n.text, "x...");
        assert!(!n.starts_char(2), "inside the three dots of one character");
    }

    #[test]
    fn one_line_find_inside_a_line_at_lenient_tiers() {
        let (out, r) = run_edit("let s = \u{201C}hi\u{201D};\n", &edit("\"hi\"", "\"bye\"", Occurrence::First));
        let done = r.expect("unicode match");
        assert_eq!((done.status, done.tier), (Status::Applied, Some(Tier::Unicode)));
        assert_eq!(out, "let s = \"bye\";\n");
        let (out, r) = run_edit("if a  &&  b {\n", &edit("a && b", "a || b", Occurrence::First));
        assert_eq!(r.expect("whitespace").tier, Some(Tier::Trimmed));
        assert_eq!(out, "if a || b {\n");
    }

    #[test]
    fn whole_line_lenient_match_keeps_the_file_indentation() {
        let (out, r) =
            run_edit("fn f() {\n\tlet x = 1;\n}\n", &edit("    let x = 1;", "    let x = 2;", Occurrence::First));
        assert_eq!(r.expect("trimmed").tier, Some(Tier::Trimmed));
        assert_eq!(out, "fn f() {\n\tlet x = 2;\n}\n");
    }

    #[test]
    fn not_found_is_left_unchanged_with_the_closest_region() {
        let text = "fn main() {\n    println!(\"hello world\");\n}\n";
        let (out, r) = run_edit(text, &edit("println!(\"hello wrld\");", "x", Occurrence::First));
        let err = r.err().expect("not found");
        assert_eq!(err.kind, FailureKind::NotFound);
        assert_eq!(err.closest.as_ref().map(|c| c.lines), Some(LineRange::from_zero_based(1, 2)));
        assert_eq!(out, text);
    }
}

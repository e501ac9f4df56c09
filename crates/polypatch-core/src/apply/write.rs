//! Writing one located edit: its action applied at the block found ([`apply_at`]), the
//! line splices that keep the file's line hashes in step ([`splice_lines`]), and what an
//! applied edit reports ([`Done`]). Line targets (`modify`) and text targets (`substring`)
//! both write through here.

use crate::apply::report::{
    Closest, Failure, FailureKind, LineRange, MAX_CANDIDATES, MAX_EXCERPT_CHARS, Status, clip_excerpt, clip_line,
};
use crate::apply::shape::{self, Shaper};
use crate::decide::{
    Unlike, insertion_already_there, range_already_there, replacement_already_there, replacement_unchanged,
    unlike_removals,
};
use crate::ir::plan::{Action, Edit};
use crate::ir::tier::Tier;
use crate::locate::effort::Effort;
use crate::locate::fold::is_blank;
use crate::locate::index::LineHashes;
use crate::locate::query::Found;
use crate::text::eol::Eol;
use crate::text::lines::{Line, LineText, Lines, TextFile};

use crate::apply::miss::block_diff;

/// Options that override the edits' policies.
#[derive(Debug, Clone, Copy, Default)]
#[allow(clippy::struct_excessive_bools, reason = "independent switches, each read in one place")]
pub(crate) struct Overrides<'a> {
    pub strict: bool,
    /// [`crate::ApplyOptions::max_tier`].
    pub max_tier: Option<Tier>,
    pub fuzzy_threshold: Option<f64>,
    /// The file is known to be the one the edits were made for: nothing is already applied.
    pub fresh: bool,
    /// The plan adds a final newline (`Modify::final_newline == Some(true)`): a last line
    /// without one is not yet as the patch wants it.
    pub adds_final_newline: bool,
    /// The terminator added lines get: the file's most frequent one, found once before its
    /// edits.
    pub eol: Eol,
    /// Added lines end like the line they replace or stand next to (else always `eol`).
    pub neighbour_ends: bool,
    /// A text (substring) target that is not found, and not already applied, is skipped
    /// instead of failing (`ApplyOptions::skip_missing_text`).
    #[cfg(feature = "text-target")]
    pub skip_missing_text: bool,
    /// Every edit's removed lines may match by likeness (`ApplyOptions::allow_fuzzy_removals`).
    pub fuzzy_removals: bool,
    /// How many lines after its line number (before, if negative) the file's last edit
    /// with one was found: where a later edit's number points, the file has moved by
    /// about as much.
    pub drift: isize,
    /// The plan the edits belong to: its similarity-search budget, and whether it already
    /// failed ([`Effort`]). `None`: the edits stand alone.
    pub effort: Option<&'a Effort>,
}

impl Overrides<'_> {
    /// The terminator of a new line written in place of, or next to, file line `near`.
    pub(crate) fn eol_near(self, lines: Lines<'_>, near: Option<usize>) -> Eol {
        if self.neighbour_ends { shape::neighbour_eol(lines, near, self.eol) } else { self.eol }
    }
}

/// Replaces lines `range` of `file` by `new`, the line hashes kept in step: every edit
/// changes a file's lines through here.
pub(crate) fn splice_lines(file: &mut TextFile, hashes: &LineHashes, range: std::ops::Range<usize>, new: &[Line]) {
    let start = range.start;
    file.splice(range.clone(), new.iter().map(|line| (line.text.as_str(), line.eol)));
    hashes.splice(range, file.lines().slice(start..start + new.len()));
}

/// What applying one edit did.
pub(crate) struct Done {
    pub status: Status,
    pub tier: Option<Tier>,
    pub confidence: f64,
    pub lines: Option<LineRange>,
    pub notes: Vec<String>,
}

impl Done {
    pub(crate) fn at(status: Status, found: &Found) -> Done {
        Done {
            status,
            tier: Some(found.tier),
            confidence: found.confidence,
            lines: Some(LineRange::from_zero_based(found.start, found.end)),
            notes: Vec::new(),
        }
    }
}

/// Applies the action at a located block.
#[allow(clippy::too_many_arguments, reason = "one edit's settings, passed down once")]
pub(crate) fn apply_at(
    file: &mut TextFile,
    hashes: &LineHashes,
    edit: &Edit,
    pat: &[LineText],
    kept: &[Option<usize>],
    f: &Found,
    cursor: &mut usize,
    ov: Overrides<'_>,
) -> Result<Done, Failure> {
    let (fresh, adds_final_newline) = (ov.fresh, ov.adds_final_newline);
    match &edit.action {
        Action::Replace(rep) => {
            let shaper = Shaper::new(file.lines(), pat, f, edit.policy.indent, &rep.lines, false);
            let ends = rep.line_ends.as_ref();
            let aligned = shape::aligned_old(kept, pat.len());
            // Without the patch's terminators, a new line ends like the line it replaces
            // or, for an insertion, the kept line next to it.
            let near = |j: usize| ov.eol_near(file.lines(), f.map.get(aligned[j]).copied().flatten());
            let added = |j: usize| Line {
                text: shaper.line(aligned[j], &rep.lines[j]),
                eol: shape::line_end(ends, j, near(j)),
            };
            let (start, end, new) = if f.tier == Tier::BlankLines && !edit.policy.ignore_blank_lines {
                let shaped =
                    shape::blank_lines_replacement(file.lines(), pat, f, kept, &added).map_err(unclear_blank_lines)?;
                // Without the patch's own context marks (a find/replace pair), which new
                // line keeps which old one is a guess: another pairing (by the lines each
                // side has once) that writes other blank lines is a second reading of the
                // edit, and a refusal beats picking one.
                if rep.kept.is_none() {
                    let late = align_by_unique_lines(pat, &rep.lines);
                    // The other reading unclear is no more a confirmation than one that
                    // writes other lines.
                    if late.as_slice() != kept
                        && shape::blank_lines_replacement(file.lines(), pat, f, &late, &added)
                            .map_or(true, |other| other != shaped)
                    {
                        return Err(blank_pairing_unclear((shaped.0, shaped.1)));
                    }
                }
                shaped
            } else {
                // Kept lines as the file has them, added lines shaped.
                let new = (0..rep.lines.len())
                    .map(|j| match kept.get(j).copied().flatten().and_then(|i| f.map.get(i).copied().flatten()) {
                        Some(fi) => file.lines().owned(fi),
                        None => added(j),
                    })
                    .collect();
                (f.start, f.end, new)
            };
            let at = Found { start, end, ..f.clone() };
            // With terminators from the patch, a changed terminator is a change too.
            let unchanged =
                replacement_unchanged(file.lines(), (start, end), &new, rep.line_ends.is_some(), adds_final_newline);
            // Already applied: the patch's new side already stands where the old side was
            // found, e.g. a context-only hunk, or a replacement that keeps the old lines.
            let hint = edit.scope.line_hint.map(|n| n.saturating_sub(1));
            let skip_blank = f.tier == Tier::BlankLines || edit.policy.ignore_blank_lines;
            if unchanged
                || (!fresh && replacement_already_there(file.lines(), pat, &rep.lines, f, hint, skip_blank))
                || (!fresh && range_already_there(file.lines(), edit, f, start, &new))
            {
                *cursor = end;
                return Ok(Done::at(Status::AlreadyApplied, &at));
            }
            // Without explicit context, a removed line the edit writes back as it is loses
            // nothing.
            let written = rep.kept.is_none().then_some(rep.lines.as_slice());
            let unlike = unlike_removals(file.lines(), pat, f, kept, written);
            let notes = unlike_removed(file.lines(), pat, f, &unlike, removals_allowed(edit, ov))?;
            let n = new.len();
            splice_lines(file, hashes, start..end, &new);
            *cursor = start + n;
            Ok(Done { notes, ..Done::at(Status::Applied, &at) })
        }
        Action::Delete => {
            let unlike = unlike_removals(file.lines(), pat, f, &[], None);
            let notes = unlike_removed(file.lines(), pat, f, &unlike, removals_allowed(edit, ov))?;
            splice_lines(file, hashes, f.start..f.end, &[]);
            *cursor = f.start;
            Ok(Done { notes, ..Done::at(Status::Applied, f) })
        }
        Action::InsertBefore { lines } | Action::InsertAfter { lines } => {
            let after = matches!(edit.action, Action::InsertAfter { .. });
            let opener = after && pat.iter().rev().find(|l| !is_blank(l)).is_some_and(|l| opens_block(l));
            let shaper = Shaper::new(file.lines(), pat, f, edit.policy.indent, lines, opener);
            let near = if after { pat.len().saturating_sub(1) } else { 0 };
            let eol = ov.eol_near(file.lines(), f.map.get(near).copied().flatten());
            let new: Vec<Line> = lines.iter().map(|text| Line { text: shaper.line(near, text), eol }).collect();
            let at = if after { f.end } else { f.start };
            if insertion_already_there(file.lines(), at, &new, after) {
                *cursor = if after { f.end + new.len() } else { f.end };
                return Ok(Done::at(Status::AlreadyApplied, f));
            }
            let n = new.len();
            splice_lines(file, hashes, at..at, &new);
            *cursor = f.end + n;
            Ok(Done::at(Status::Applied, f))
        }
    }
}

/// Whether the edit's removed lines may match by likeness: its policy says so (`ApplyDiff`)
/// or the caller does.
pub(crate) fn removals_allowed(edit: &Edit, ov: Overrides<'_>) -> bool {
    edit.policy.allow_fuzzy_removals || ov.fuzzy_removals
}

/// The lines the edit removes that matched at `f` only by likeness (`unlike`): with
/// `allowed`, a note for the report on each (at most [`MAX_CANDIDATES`], the rest counted);
/// otherwise the failure that refuses the edit, showing the file's line against the
/// patch's.
pub(crate) fn unlike_removed(
    lines: Lines<'_>,
    pat: &[LineText],
    f: &Found,
    unlike: &[Unlike],
    allowed: bool,
) -> Result<Vec<String>, Failure> {
    let Some(first) = unlike.first() else { return Ok(Vec::new()) };
    let line = |u: &Unlike| {
        let (have, want) = (lines.text(u.file).trim(), pat[u.pat].trim());
        (clip_line(have, MAX_EXCERPT_CHARS), clip_line(want, MAX_EXCERPT_CHARS))
    };
    if allowed {
        let mut notes: Vec<String> = unlike
            .iter()
            .take(MAX_CANDIDATES)
            .map(|u| {
                let (have, want) = line(u);
                format!(
                    "line {} was removed though it only resembles the patch's (fuzzy removals allowed): the file had `{have}`, the patch removes `{want}`",
                    u.file + 1
                )
            })
            .collect();
        if unlike.len() > MAX_CANDIDATES {
            notes.push(format!(
                "and {} more removed lines that only resemble the patch's",
                unlike.len() - MAX_CANDIDATES
            ));
        }
        return Ok(notes);
    }
    let at = LineRange::from_zero_based(f.start, f.end);
    let (have, want) = line(first);
    let more = match unlike.len() {
        1 => String::new(),
        2 => " (and 1 more such line)".to_string(),
        n => format!(" (and {} more such lines)", n - 1),
    };
    let (file_word, patch_word) = differing_words(lines.text(first.file).trim(), pat[first.pat].trim());
    let mut failure = Failure::new(
        FailureKind::NotFound,
        format!(
            "the lines to find match {at} only by likeness (fuzzy match, similarity {:.2}), and a line the edit removes is not the file's: line {} is `{have}` where the patch removes `{want}`{more}",
            (f.confidence * 100.0).round() / 100.0,
            first.file + 1
        ),
        format!(
            "the file has `{file_word}` where the patch removes `{patch_word}`: re-read the file (it may hold a change made after the patch was written) and copy the lines to remove exactly as they are now"
        ),
    );
    failure.closest = Some(Closest {
        lines: at,
        similarity: (f.confidence * 100.0).round() / 100.0,
        diff: clip_excerpt(&block_diff(lines, pat, f)),
    });
    Err(failure)
}

/// The words where a file line and a patch line differ: the stretch between their common
/// start and end, widened to whole words (runs without whitespace), clipped for a message.
fn differing_words(file: &str, patch: &str) -> (String, String) {
    let (a, b): (Vec<char>, Vec<char>) = (file.chars().collect(), patch.chars().collect());
    let mut head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let most = a.len().min(b.len()) - head;
    let mut tail = a.iter().rev().zip(b.iter().rev()).take(most).take_while(|(x, y)| x == y).count();
    // Widened to whole words on both sides.
    while head > 0 && !a[head - 1].is_whitespace() {
        head -= 1;
    }
    while tail > 0 && !a[a.len() - tail].is_whitespace() {
        tail -= 1;
    }
    let cut = |c: &[char]| {
        clip_line(c[head..c.len() - tail].iter().collect::<String>().trim(), MAX_EXCERPT_CHARS).into_owned()
    };
    (cut(&a), cut(&b))
}

/// Whether a line opens a block its following lines are nested in (`{`, `[`, `(`, `:`).
fn opens_block(line: &str) -> bool {
    line.trim_end().ends_with(['{', '[', '(', ':'])
}

/// The patch's blank lines do not say how the edit meets the file's blank lines.
fn unclear_blank_lines((start, end): (usize, usize)) -> Failure {
    let at = LineRange::from_zero_based(start, end);
    let mut failure = Failure::new(
        FailureKind::Ambiguous,
        format!(
            "the edit removes blank lines where the file has another number of them ({at}): which ones go is unclear"
        ),
        "copy the blank lines around the change exactly as the file has them",
    );
    failure.set_candidates(vec![at]);
    failure
}

/// The patch's blank lines pair with the file's in two ways that write other lines.
fn blank_pairing_unclear((start, end): (usize, usize)) -> Failure {
    let at = LineRange::from_zero_based(start, end);
    let mut failure = Failure::new(
        FailureKind::Ambiguous,
        format!(
            "the edit's blank lines pair with the file's in more than one way ({at}): the text to find has blank lines the file lacks, and which of the new text's blank lines go with them is unclear"
        ),
        "copy the blank lines of the text to find exactly as the file has them",
    );
    failure.set_candidates(vec![at]);
    failure
}

/// [`align`] by the lines that occur once on each side first (patience diff): of several
/// pairings as short, the one a person reads, where a lone blank line does not pull a
/// `/**` or a `def` out of the lines kept.
fn align_by_unique_lines(old: &[LineText], new: &[LineText]) -> Vec<Option<usize>> {
    align_with(old, new, similar::Algorithm::Patience)
}

/// Aligns old and new lines: for each new line, the old line it keeps.
pub(crate) fn align(old: &[LineText], new: &[LineText]) -> Vec<Option<usize>> {
    align_with(old, new, similar::Algorithm::Myers)
}

fn align_with(old: &[LineText], new: &[LineText], algorithm: similar::Algorithm) -> Vec<Option<usize>> {
    let mut kept = vec![None; new.len()];
    // Myers through the one copy the engine compiles (`myers_ops`); patience only here.
    let ops = match algorithm {
        similar::Algorithm::Myers => crate::render::hunks::myers_ops(old, new, None),
        other => similar::capture_diff_slices(other, old, new),
    };
    for op in ops {
        if let similar::DiffOp::Equal { old_index, new_index, len } = op {
            for k in 0..len {
                kept[new_index + k] = Some(old_index + k);
            }
        }
    }
    kept
}

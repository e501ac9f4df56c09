//! Lower the snippets into an [`EditPlan`]: each segment between markers becomes an edit
//! whose old side the engine resolves against the file
//! ([`Target::Sketch`]).

use std::collections::HashMap;

use polypatch_core::{
    Action, Edit, EditPlan, FileEdit, FileOp, IfMissing, LineBreaks, LineText, Modify, PatchError, Replacement, Scope,
    Span, Target,
};

use crate::error::{DIALECT, MISSING_PATH, ONLY_MARKERS, error};
use crate::syntax::{Patch, Snippet};

/// Whether each line of the snippet is a marker: a comment that says code is left out
/// (`// ... existing code ...`, `# ... rest of the function ...`, `/* ... */`, `<!-- ...
/// -->`, the vocabulary of [`polypatch_core::elision`]), or a `...` line where that is
/// not code (Python's `...` statement after a line ending with `:`, a variadic `...` in a
/// parameter list).
pub(crate) fn markers(snippet: &Snippet<'_>) -> Vec<bool> {
    let lines: Vec<&str> = snippet.lines.iter().map(|l| l.0).collect();
    (0..lines.len())
        .map(|j| {
            let t = lines[j].trim();
            if matches!(t, "..." | "…" | "...." | ". . .") {
                polypatch_core::elision::is_elision_at(&lines, j)
            } else {
                polypatch_core::elision::is_elision(lines[j])
            }
        })
        .collect()
}

/// Lowers the snippets into an [`EditPlan`]; `file` is the path of snippets that name
/// none ([`ParseOptions::file`](polypatch_core::ParseOptions::file)).
///
/// - A snippet's markers cut it into segments (the runs of lines between them; blank
///   lines next to a marker belong to the segment). Each segment is an edit labelled
///   `segment K` (`snippet S, segment K` when the text holds several snippets) with a
///   [`Target::Sketch`] target: the engine finds the region of the file it shows, each
///   segment after the one before it.
/// - The first segment has `at_start` when no marker comes before it, the last `at_end`
///   when none comes after it: the snippet then starts (ends) at the file's first (last)
///   line when its first (last) line is that line, and otherwise a marker is assumed
///   there (the report says so).
/// - The snippets for one file are the edits of one [`FileOp::Modify`], in order; the
///   files apply all or nothing. Its lines end at `\n` and `\r\n`, as the snippet's
///   ([`LineBreaks::LfOrCrLf`]): a lone `\r` is text in both. A snippet without markers is the whole file: a missing
///   file is created with it ([`IfMissing::Create`]).
pub fn lower(patch: &Patch<'_>, file: Option<&str>) -> Result<EditPlan, PatchError> {
    let mut files: Vec<(&str, Vec<Edit>, Span, bool)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let several = patch.snippets.len() > 1;
    for (s, snippet) in patch.snippets.iter().enumerate() {
        let Some(path) = snippet.path.or(file) else {
            return Err(error(
                MISSING_PATH,
                "the snippet names no file: write its path in the fence's info string (```python src/app.py) or \
                 alone on the line above the fence, or name the file when applying (`--file PATH`)",
                Some(snippet.head),
            ));
        };
        let edits = segments(snippet, if several { Some(s + 1) } else { None })?;
        // A snippet without markers is the whole file: a missing file is created with it.
        let whole = !markers(snippet).iter().any(|m| *m);
        if let Some(&at) = index.get(path) {
            let (_, list, span, _) = &mut files[at];
            list.extend(edits);
            span.end = span.end.max(snippet.span.end);
        } else {
            index.insert(path, files.len());
            files.push((path, edits, snippet.span, whole));
        }
    }
    let files = files
        .into_iter()
        .map(|(path, edits, span, whole)| {
            let mut modify = Modify::new(edits);
            // The snippet's lines end at `\n` (a lone `\r` is text in them): the file's
            // too, or a line holding a lone `\r` would never match, and one written from
            // the snippet would read as two lines the next time.
            modify.line_breaks = LineBreaks::LfOrCrLf;
            if whole {
                modify.if_missing = IfMissing::Create;
            }
            FileEdit::new(path.to_owned(), FileOp::Modify(modify)).with_span(span)
        })
        .collect();
    Ok(EditPlan::new(DIALECT, files))
}

/// The edits of one snippet: one per segment between markers.
fn segments(snippet: &Snippet<'_>, number: Option<usize>) -> Result<Vec<Edit>, PatchError> {
    let marks = markers(snippet);
    let lines = &snippet.lines;
    // Runs of lines between markers: (from, to) in the snippet's lines.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    for (j, &m) in marks.iter().enumerate() {
        if m {
            runs.push((from, j));
            from = j + 1;
        }
    }
    runs.push((from, lines.len()));
    let blank = |(a, b): (usize, usize)| lines[a..b].iter().all(|(l, _)| l.trim().is_empty());
    let kept: Vec<(usize, usize)> = runs.iter().copied().filter(|r| !blank(*r)).collect();
    if kept.is_empty() {
        return Err(error(
            ONLY_MARKERS,
            "the snippet holds only markers: write the lines that change, with an unchanged line or two around them",
            Some(snippet.head),
        ));
    }
    let first_line = (0..lines.len()).find(|&j| !lines[j].0.trim().is_empty()).unwrap_or(0);
    let last_line = (0..lines.len()).rfind(|&j| !lines[j].0.trim().is_empty()).unwrap_or(0);
    let count = kept.len();
    let mut edits = Vec::with_capacity(count);
    for (k, &(a, b)) in kept.iter().enumerate() {
        let at_start = k == 0 && !marks[first_line];
        let at_end = k + 1 == count && !marks[last_line];
        let mut new = LineText::copy_all(lines[a..b].iter().map(|l| l.0));
        // A byte order mark opening the snippet is a file's mark copied with its first
        // line, not text: the file keeps its own mark (written as text, it would be the
        // mark of a new file, read back without it, and the snippet would not match its
        // own result: found by the `lazy` fuzz target).
        if k == 0
            && (a..b).contains(&first_line)
            && let Some(rest) = lines[first_line].0.strip_prefix('\u{feff}')
        {
            new[first_line - a] = LineText::from(rest);
        }
        let label = match number {
            Some(s) => format!("snippet {s}, segment {}", k + 1),
            None => format!("segment {}", k + 1),
        };
        let span = Span::new(lines[a].1.start, lines[b - 1].1.end);
        let edit = Edit::new(Target::Sketch { at_start, at_end }, Action::Replace(Replacement::lines(new)))
            .with_scope(Scope::default().with_after_previous(k > 0))
            .with_label(label)
            .with_span(span);
        edits.push(edit);
    }
    Ok(edits)
}

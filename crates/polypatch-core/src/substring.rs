//! Substring targets (Aptix `find`): literal text that may start and end inside lines.
//! Matching is exact after normalizing line endings to `\n`; lenient matching of
//! substrings belongs to the dialect that needs it.

use crate::ir::{Action, Missing, Occurrence, Policy};
use crate::report::{Failure, FailureKind, LineRange, MAX_EXCERPT_CHARS, Status, clip_line};
use crate::text::{Eol, Line, TextFile};

/// Applies a substring edit. Returns the status and the lines of the first match.
pub(crate) fn apply_text(
    file: &mut TextFile,
    find: &str,
    action: &Action,
    policy: &Policy,
) -> Result<(Status, Option<LineRange>), Failure> {
    let find = find.replace("\r\n", "\n");
    if find.is_empty() {
        return Err(Failure::new(FailureKind::InvalidPlan, "the text to find is empty", "give the text to replace"));
    }
    let replacement = match action {
        Action::Replace(rep) => rep.text.clone().unwrap_or_else(|| rep.lines.join("\n")).replace("\r\n", "\n"),
        Action::Delete => String::new(),
        Action::InsertBefore { lines } => format!("{}{find}", lines.join("\n")),
        Action::InsertAfter { lines } => format!("{find}{}", lines.join("\n")),
    };
    let mut text = String::new();
    let mut starts = Vec::with_capacity(file.lines.len() + 1);
    for line in &file.lines {
        starts.push(text.len());
        text.push_str(&line.text);
        if line.eol != Eol::None {
            text.push('\n');
        }
    }
    starts.push(text.len());
    let line_of = |byte: usize| starts.partition_point(|&s| s <= byte).saturating_sub(1);

    let mut matches: Vec<usize> = text.match_indices(&find).map(|(i, _)| i).collect();
    if matches.is_empty() {
        if !replacement.is_empty() && text.contains(&replacement) {
            return Ok((Status::AlreadyApplied, None));
        }
        return match policy.if_missing {
            Missing::Error => Err(Failure::new(
                FailureKind::NotFound,
                format!(
                    "the text to find is not in the file: `{}`",
                    clip_line(find.lines().next().unwrap_or(""), MAX_EXCERPT_CHARS)
                ),
                "re-read the file and copy the text to find exactly, including whitespace",
            )),
            Missing::Skip => Ok((Status::Skipped, None)),
            Missing::AlreadyApplied => Ok((Status::AlreadyApplied, None)),
        };
    }
    match policy.occurrence {
        Occurrence::All => {}
        Occurrence::First | Occurrence::FirstAfterAnchor => matches.truncate(1),
        Occurrence::Unique if matches.len() > 1 => {
            let ranges: Vec<LineRange> = matches
                .iter()
                .take(crate::MAX_CANDIDATES)
                .map(|&m| LineRange::from_zero_based(line_of(m), line_of(m + find.len().saturating_sub(1)) + 1))
                .collect();
            let mut failure = Failure::new(
                FailureKind::Ambiguous,
                format!("the text to find occurs {} times", matches.len()),
                "make the text to find longer so it occurs once",
            );
            failure.set_candidates(ranges);
            failure.candidates_total = matches.len();
            return Err(failure);
        }
        Occurrence::Unique => {}
    }
    let first = matches[0];
    let first_range = LineRange::from_zero_based(line_of(first), line_of(first + find.len().saturating_sub(1)) + 1);
    if replacement == find {
        return Ok((Status::AlreadyApplied, Some(first_range)));
    }
    let eol = file.dominant_eol();
    // Matches that share a line are rewritten together, as one segment of whole lines.
    let mut groups: Vec<(usize, usize, Vec<usize>)> = Vec::new();
    for &m in &matches {
        let l0 = line_of(m);
        let l1 = line_of(m + find.len() - 1).max(l0);
        match groups.last_mut() {
            Some((_, end, list)) if l0 <= *end => {
                *end = (*end).max(l1);
                list.push(m);
            }
            _ => groups.push((l0, l1, vec![m])),
        }
    }
    for (l0, l1, list) in groups.into_iter().rev() {
        let seg_end = starts[l1 + 1];
        let last_eol = file.lines[l1].eol;
        let mut segment = String::new();
        let mut at = starts[l0];
        for m in list {
            segment.push_str(&text[at..m]);
            segment.push_str(&replacement);
            at = m + find.len();
        }
        segment.push_str(&text[at..seg_end]);
        let ends_with_newline = segment.ends_with('\n');
        let body = segment.strip_suffix('\n').unwrap_or(&segment);
        let mut new: Vec<Line> = if segment.is_empty() {
            Vec::new()
        } else {
            body.split('\n').map(|t| Line { text: t.to_string(), eol }).collect()
        };
        if let Some(last) = new.last_mut() {
            last.eol = if ends_with_newline { if last_eol == Eol::None { eol } else { last_eol } } else { Eol::None };
        }
        file.lines.splice(l0..=l1, new);
    }
    Ok((Status::Applied, Some(first_range)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Replacement;

    fn run(text: &str, find: &str, with: &str, occurrence: Occurrence) -> (String, Status) {
        let mut f = TextFile::parse(text);
        let policy = Policy { occurrence, ..Policy::default() };
        let (status, _) = apply_text(&mut f, find, &Action::Replace(Replacement::text(with)), &policy).unwrap();
        (f.render(), status)
    }

    #[test]
    fn replaces_inside_a_line_and_across_lines() {
        assert_eq!(run("a foo b\r\nc\r\n", "foo", "bar", Occurrence::Unique).0, "a bar b\r\nc\r\n");
        assert_eq!(run("x\none\ntwo\ny", "one\ntwo", "1", Occurrence::Unique).0, "x\n1\ny");
        assert_eq!(run("a\nb\n", "a\n", "", Occurrence::Unique).0, "b\n");
        assert_eq!(run("foo foo\n", "foo", "x", Occurrence::All).0, "x x\n");
        assert_eq!(run("foo foo\n", "foo", "x", Occurrence::First).0, "x foo\n");
    }

    #[test]
    fn already_applied_and_ambiguous() {
        assert_eq!(run("bar\n", "foo", "bar", Occurrence::Unique).1, Status::AlreadyApplied);
        let mut f = TextFile::parse("foo\nfoo\n");
        let err = apply_text(&mut f, "foo", &Action::Delete, &Policy::default()).unwrap_err();
        assert_eq!(err.kind, FailureKind::Ambiguous);
        assert_eq!(err.candidates.len(), 2);
    }
}

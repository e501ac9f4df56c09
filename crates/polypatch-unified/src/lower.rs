//! Syntax tree → [`EditPlan`].
//!
//! One [`FileEdit`] per file section, in order (two for a binary patch of a renamed or
//! copied file: the copy or move, and the binary change). Hunks become located edits whose
//! line numbers are only hints; see the crate docs for the rules.

use polypatch_core::{
    Action, BinaryData, BinaryEdit, Content, Cutter, Edit, EditPlan, Expect, FileEdit, FileOp, IfExists, IfMissing,
    LineBreaks, LineText, Modify, Newline, ParseOptions, PatchError, Replacement, SharedText, Span, Target,
};

use crate::error::{
    BAD_STRIP, CONFLICTING_HEADERS, DIALECT, INVALID_HUNK_LINE, MISSING_PATH, NO_CONTEXT, UNSUPPORTED_SUBMODULE,
    UNSUPPORTED_SYMLINK, error, quote,
};
use crate::path::{self, PathName};
use crate::syntax::{BinaryHunk, FilePatch, Header, Hunk, LineKind, Patch};

/// Lowers a parsed diff into an [`EditPlan`].
pub fn lower(patch: &Patch<'_>, options: &ParseOptions) -> Result<EditPlan, PatchError> {
    lower_from(patch, None, options)
}

/// [`lower`] a tree parsed from `source`: the plan's lines are ranges of one shared copy
/// of it (one copy of the text in all, not one allocation per line).
#[cfg(test)]
pub(crate) fn lower_source(patch: &Patch<'_>, source: &str, options: &ParseOptions) -> Result<EditPlan, PatchError> {
    lower_from(patch, Some((source, &SharedText::new(source.to_owned()))), options)
}

/// Parses `text` and lowers it with its lines as ranges of one shared copy of it (as
/// `lower_source`, in the tests, does with a whole tree), one section at a time: each
/// section's tree is dropped once lowered, so the whole tree of a large diff is never
/// held (and the memory of one section's tree is reused for the next). The result, error
/// included, is the same: a parse error anywhere wins over a lowering error, and of
/// lowering errors the first section's.
pub(crate) fn parse_and_lower(text: &str, options: &ParseOptions) -> Result<EditPlan, PatchError> {
    let copy = SharedText::new(text.to_owned());
    let mut files = Vec::new();
    let mut lowered = Ok(());
    let skipped = crate::syntax::for_each_section(text, options, |section| {
        if lowered.is_ok() {
            lowered = lower_section(&section, Some((text, &copy)), options, &mut files);
        }
    })?;
    lowered?;
    let mut plan = EditPlan::new(DIALECT, files);
    plan.warnings = skipped;
    Ok(plan)
}

/// The text a tree was parsed from, and a shared copy of it, when known.
type Source<'s> = Option<(&'s str, &'s SharedText)>;

fn lower_from(patch: &Patch<'_>, source: Source<'_>, options: &ParseOptions) -> Result<EditPlan, PatchError> {
    let mut files = Vec::with_capacity(patch.files.len());
    for section in &patch.files {
        lower_section(section, source, options, &mut files)?;
    }
    Ok(EditPlan::new(DIALECT, files))
}

/// What the extended headers of a section say (names borrowed from the tree).
#[derive(Default)]
struct Headers<'t> {
    old_mode: Option<(u32, Span)>,
    new_mode: Option<(u32, Span)>,
    new_file: Option<(u32, Span)>,
    deleted: Option<(u32, Span)>,
    rename_from: Option<(&'t str, Span)>,
    rename_to: Option<(&'t str, Span)>,
    copy_from: Option<(&'t str, Span)>,
    copy_to: Option<(&'t str, Span)>,
    index: Option<(&'t str, &'t str, Option<u32>, Span)>,
}

impl<'t> Headers<'t> {
    fn collect(section: &'t FilePatch<'_>) -> Result<Headers<'t>, PatchError> {
        let mut h = Headers::default();
        for header in &section.headers {
            let span = header.span;
            match &header.header {
                Header::OldMode(m) => h.old_mode = Some((*m, span)),
                Header::NewMode(m) => h.new_mode = Some((*m, span)),
                Header::NewFileMode(m) => h.new_file = Some((*m, span)),
                Header::DeletedFileMode(m) => h.deleted = Some((*m, span)),
                Header::Similarity(_) | Header::Dissimilarity(_) => {}
                Header::RenameFrom(p) => h.rename_from = Some((p, span)),
                Header::RenameTo(p) => h.rename_to = Some((p, span)),
                Header::CopyFrom(p) => h.copy_from = Some((p, span)),
                Header::CopyTo(p) => h.copy_to = Some((p, span)),
                Header::Index { old, new, mode } => h.index = Some((old, new, *mode, span)),
            }
        }
        let conflict = |message: &str, span: Span| Err(error(CONFLICTING_HEADERS, message, Some(span)));
        if let (Some(_), Some((_, span))) = (&h.new_file, &h.deleted) {
            return conflict("a file cannot be both new (`new file mode`) and deleted (`deleted file mode`)", *span);
        }
        if let Some((_, span)) = h.rename_from.as_ref().or(h.rename_to.as_ref())
            && (h.copy_from.is_some() || h.copy_to.is_some())
        {
            return conflict("a file cannot be both renamed and copied", *span);
        }
        if let (Some((_, span)), None) | (None, Some((_, span))) = (&h.rename_from, &h.rename_to) {
            return conflict("`rename from` and `rename to` go together", *span);
        }
        if let (Some((_, span)), None) | (None, Some((_, span))) = (&h.copy_from, &h.copy_to) {
            return conflict("`copy from` and `copy to` go together", *span);
        }
        if let Some((_, span)) = h.new_file.or(h.deleted)
            && (h.rename_from.is_some() || h.copy_from.is_some())
        {
            return conflict("a renamed or copied file is neither new nor deleted", span);
        }
        for (mode, span) in [h.old_mode, h.new_mode, h.new_file, h.deleted].into_iter().flatten() {
            check_mode(mode, span)?;
        }
        if let Some((_, _, Some(mode), span)) = &h.index {
            check_mode(*mode, *span)?;
        }
        Ok(h)
    }
}

fn check_mode(mode: u32, span: Span) -> Result<(), PatchError> {
    match mode & 0o170_000 {
        0o120_000 => Err(error(
            UNSUPPORTED_SYMLINK,
            "the diff changes a symbolic link (mode 120000); polypatch writes regular files only",
            Some(span),
        )),
        0o160_000 => Err(error(
            UNSUPPORTED_SUBMODULE,
            "the diff changes a submodule (mode 160000), which is not a file; update it with git",
            Some(span),
        )),
        _ => Ok(()),
    }
}

/// The names of a section after stripping (borrowed from the tree): `None` is `/dev/null`.
struct Names<'t> {
    old: Option<&'t str>,
    new: Option<&'t str>,
    /// The strip level used for `---`/`+++` and `diff --git` names.
    level: usize,
}

fn section_names<'t>(section: &'t FilePatch<'_>, options: &ParseOptions) -> Result<Names<'t>, PatchError> {
    let git = section.git.as_ref();
    let git_names = git.and_then(|g| g.names.as_ref());
    let git_span = git.map(|g| g.span);
    // Each side: the `---`/`+++` name when given, else the `diff --git` name; the name is
    // `None` for `/dev/null`.
    let side = |file: Option<&'t crate::syntax::FileName>, git_name: Option<&'t String>| match (file, git_name) {
        (Some(f), _) => Some((f.name.as_path(), f.span)),
        (None, Some(name)) => Some((Some(name.as_str()), git_span.unwrap_or_default())),
        (None, None) => None,
    };
    let old = side(section.old.as_ref(), git_names.map(|n| &n.0));
    let new = side(section.new.as_ref(), git_names.map(|n| &n.1));
    let level = match options.strip {
        Some(n) => n,
        None => default_strip(section, old.and_then(|o| o.0), new.and_then(|n| n.0)),
    };
    let apply = |name: Option<(Option<&'t str>, Span)>| -> Result<Option<&'t str>, PatchError> {
        match name {
            None | Some((None, _)) => Ok(None),
            Some((Some(p), span)) => match path::strip(p, level) {
                Some(stripped) => Ok(Some(stripped)),
                None => Err(error(
                    BAD_STRIP,
                    format!("cannot strip {level} leading component(s) from {}: the name has too few", quote(p)),
                    Some(span),
                )),
            },
        }
    };
    // A side only `/dev/null` names stays `None`; a side nothing names is `None` too.
    Ok(Names { old: apply(old)?, new: apply(new)?, level })
}

/// The strip level when the options give none: 1 for `a/`/`b/` names; for a plain diff
/// also 1 when the names differ only in their first component (`diff -ru old/ new/`).
/// `old` and `new` are the `---`/`+++` names, `None` for `/dev/null` or none.
fn default_strip(section: &FilePatch<'_>, old: Option<&str>, new: Option<&str>) -> usize {
    // In a git section the `diff --git` names decide (they always carry the prefixes
    // when the diff has them); otherwise the `---`/`+++` names.
    let (old, new) = match section.git.as_ref().and_then(|g| g.names.as_ref()) {
        Some((a, b)) => (Some(a.as_str()), Some(b.as_str())),
        None => (old, new),
    };
    let plain = section.git.is_none();
    usize::from(path::has_ab_prefixes(old, new) || (plain && path::differ_in_first_component(old, new)))
}

/// A rename or copy header's name, stripped one level less than the other names (git's
/// rule: these names carry no `a/`/`b/` prefix).
fn header_name(name: &str, span: Span, level: usize) -> Result<String, PatchError> {
    let level = level.saturating_sub(1);
    path::strip(name, level).map(str::to_owned).ok_or_else(|| {
        error(
            BAD_STRIP,
            format!("cannot strip {level} leading component(s) from {}: the name has too few", quote(name)),
            Some(span),
        )
    })
}

fn lower_section(
    section: &FilePatch<'_>,
    source: Source<'_>,
    options: &ParseOptions,
    out: &mut Vec<FileEdit>,
) -> Result<(), PatchError> {
    let headers = Headers::collect(section)?;
    let names = section_names(section, options)?;
    let rename = match (&headers.rename_from, &headers.rename_to) {
        (Some((from, fs)), Some((to, ts))) => {
            Some((header_name(from, *fs, names.level)?, header_name(to, *ts, names.level)?))
        }
        _ => None,
    };
    let copy = match (&headers.copy_from, &headers.copy_to) {
        (Some((from, fs)), Some((to, ts))) => {
            Some((header_name(from, *fs, names.level)?, header_name(to, *ts, names.level)?))
        }
        _ => None,
    };
    let span = Some(section.span);
    let old_dev_null = section.old.as_ref().is_some_and(|f| f.name == PathName::DevNull);
    let new_dev_null = section.new.as_ref().is_some_and(|f| f.name == PathName::DevNull);
    let plain = section.git.is_none();
    let all_hunks = |pred: &dyn Fn(&Hunk<'_>) -> bool| !section.hunks.is_empty() && section.hunks.iter().all(pred);
    // `diff -N` dates the missing side at the epoch and gives it an empty range.
    let epoch_new = plain
        && section.old.as_ref().is_some_and(|f| f.epoch)
        && all_hunks(&|h| h.ranges.is_some_and(|r| r.old.start == 0 && r.old.count == 0));
    let epoch_deleted = plain
        && section.new.as_ref().is_some_and(|f| f.epoch)
        && all_hunks(&|h| h.ranges.is_some_and(|r| r.new.start == 0 && r.new.count == 0));
    let is_new = headers.new_file.is_some() || old_dev_null || epoch_new;
    let is_deleted = headers.deleted.is_some() || new_dev_null || epoch_deleted;
    if is_new && is_deleted {
        return Err(error(
            CONFLICTING_HEADERS,
            "the section both creates and deletes the file (`/dev/null` on both sides?)",
            span,
        ));
    }
    if headers.new_file.is_some()
        && let Some(old) = section.old.as_ref().filter(|f| f.name != PathName::DevNull)
    {
        return Err(error(
            CONFLICTING_HEADERS,
            "a new file (`new file mode`) must have `--- /dev/null` as its old name",
            Some(old.span),
        ));
    }
    if headers.deleted.is_some()
        && let Some(new) = section.new.as_ref().filter(|f| f.name != PathName::DevNull)
    {
        return Err(error(
            CONFLICTING_HEADERS,
            "a deleted file (`deleted file mode`) must have `+++ /dev/null` as its new name",
            Some(new.span),
        ));
    }

    let path = if let Some((from, _)) = &rename {
        Some(from.clone())
    } else if let Some((_, to)) = &copy {
        Some(to.clone())
    } else if is_deleted {
        names.old.or(names.new).map(str::to_owned)
    } else {
        names.new.or(names.old).map(str::to_owned)
    }
    .ok_or_else(|| {
        error(MISSING_PATH, "the section names no file; write `--- a/<path>` and `+++ b/<path>` lines", span)
    })?;

    let ids = headers.index.map(|(old, new, _, _)| (old, new));
    if let Some(binary) = &section.binary {
        let data = match &binary.forward {
            BinaryHunk::Literal(bytes) => BinaryData::Literal(bytes.clone()),
            BinaryHunk::Delta(bytes) => BinaryData::Delta(bytes.clone()),
        };
        let op = if is_deleted {
            let expect = ids.map(|(old, _)| old).filter(|id| id.len() == 40 && !is_null_id(id));
            FileOp::Delete { if_missing: IfMissing::Error, expect: expect.map(|id| Expect::GitBlob(id.to_owned())) }
        } else if let (true, BinaryData::Literal(bytes)) = (is_new, &data) {
            FileOp::Create {
                content: Content::Bytes(bytes.clone()),
                newline: None,
                if_exists: IfExists::ErrorUnlessIdentical,
                mode: headers.new_file.map(|(m, _)| m & 0o777),
            }
        } else {
            let mut binary = BinaryEdit::new(data);
            binary.old_id = ids.and_then(|(old, _)| usable_id(old));
            binary.new_id = ids.and_then(|(_, new)| usable_id(new));
            binary.create = is_new;
            binary.mode = headers.new_file.or(headers.new_mode).map(|(m, _)| m & 0o777);
            FileOp::Binary(binary)
        };
        // A binary change of a copied file: copy first, then patch the copy. Of a
        // renamed file: patch in place, then move.
        if let Some((from, to)) = &copy {
            let mut modify = Modify::default();
            modify.copy_from = Some(from.clone());
            modify.line_breaks = LineBreaks::LfOrCrLf;
            out.push(file_edit(to.clone(), FileOp::Modify(modify), span));
        }
        out.push(file_edit(path.clone(), op, span));
        if let Some((_, to)) = &rename {
            let mut modify = Modify::default();
            modify.move_to = Some(to.clone());
            modify.line_breaks = LineBreaks::LfOrCrLf;
            out.push(file_edit(path, FileOp::Modify(modify), span));
        }
        return Ok(());
    }

    let op = if is_new {
        FileOp::Create {
            content: Content::Text(new_content(section)?),
            newline: None,
            if_exists: IfExists::ErrorUnlessIdentical,
            mode: headers.new_file.map(|(m, _)| m & 0o777),
        }
    } else if is_deleted {
        FileOp::Delete { if_missing: IfMissing::Error, expect: Some(Expect::Lines(deleted_lines(section, source)?)) }
    } else {
        let mut modify = Modify::new(edits(section, source)?);
        modify.move_to = rename.map(|(_, to)| to);
        modify.copy_from = copy.map(|(from, _)| from);
        modify.mode = headers.new_mode.map(|(m, _)| m & 0o777);
        modify.if_missing = IfMissing::Error;
        modify.final_newline = final_newline(section);
        modify.line_breaks = LineBreaks::LfOrCrLf;
        modify.preimage = ids.and_then(|(old, _)| usable_id(old));
        modify.postimage = ids.and_then(|(_, new)| usable_id(new));
        FileOp::Modify(modify)
    };
    out.push(file_edit(path, op, span));
    Ok(())
}

/// A file operation written at `span` of the diff.
fn file_edit(path: String, op: FileOp, span: Option<Span>) -> FileEdit {
    let mut edit = FileEdit::new(path, op);
    edit.span = span;
    edit
}

fn is_null_id(id: &str) -> bool {
    id.bytes().all(|b| b == b'0')
}

/// A new file's content: its added lines, each with its terminator (`\r\n` where the
/// patch line ended so), the last without one when `\ No newline` follows it.
fn new_content(section: &FilePatch<'_>) -> Result<String, PatchError> {
    let mut content = String::new();
    for hunk in &section.hunks {
        for line in &hunk.lines {
            if line.kind != LineKind::Added {
                return Err(error(
                    INVALID_HUNK_LINE,
                    format!("a new file can only have added (`+`) lines, found {}", quote(&line_text(line))),
                    Some(line.span),
                ));
            }
            content.push_str(line.text);
            if !line.no_newline {
                content.push_str(if line.cr { "\r\n" } else { "\n" });
            }
        }
    }
    Ok(content)
}

/// The plan's lines of a section's hunk lines, taken in order: ranges of the shared copy
/// of the source, or else of one copy of the section's lines. No allocation per line.
enum LineTexts<'s> {
    Source(&'s str, Cutter<'s>),
    Copied(std::vec::IntoIter<LineText>),
}

impl<'s> LineTexts<'s> {
    fn new(section: &FilePatch<'_>, source: Source<'s>) -> Self {
        match source {
            Some((text, copy)) => LineTexts::Source(text, LineText::cutter(copy)),
            None => LineTexts::Copied(
                LineText::copy_all(section.hunks.iter().flat_map(|h| &h.lines).map(|l| l.text)).into_iter(),
            ),
        }
    }

    /// The text of `line`, the section's next hunk line.
    fn next(&mut self, line: &str) -> LineText {
        match self {
            LineTexts::Source(text, cut) => {
                // A line of the tree is a piece of the text it was parsed from: where it
                // starts there is its offset (a wrapped-around number for any other text,
                // which no range of the text holds).
                let start = (line.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
                match start.checked_add(line.len()) {
                    Some(end) if end <= text.len() => cut.slice(start..end),
                    _ => LineText::from(line),
                }
            }
            LineTexts::Copied(copies) => copies.next().unwrap_or_else(|| LineText::from(line)),
        }
    }
}

/// A deleted file's lines: its removed lines.
fn deleted_lines(section: &FilePatch<'_>, source: Source<'_>) -> Result<Vec<LineText>, PatchError> {
    let mut texts = LineTexts::new(section, source);
    let mut lines = Vec::new();
    for hunk in &section.hunks {
        for line in &hunk.lines {
            if line.kind != LineKind::Removed {
                return Err(error(
                    INVALID_HUNK_LINE,
                    format!("a deleted file can only have removed (`-`) lines, found {}", quote(&line_text(line))),
                    Some(line.span),
                ));
            }
            lines.push(texts.next(line.text));
        }
    }
    Ok(lines)
}

fn line_text(line: &crate::syntax::HunkLine<'_>) -> String {
    let prefix = match line.kind {
        LineKind::Context => ' ',
        LineKind::Removed => '-',
        LineKind::Added => '+',
    };
    format!("{prefix}{}", line.text)
}

/// `Some(false)` when a `\ No newline` marker follows the new side's last line,
/// `Some(true)` when one follows only the old side's, else `None`.
fn final_newline(section: &FilePatch<'_>) -> Option<bool> {
    let marked = section.hunks.iter().flat_map(|h| &h.lines).filter(|l| l.no_newline);
    let (mut old, mut new) = (false, false);
    for line in marked {
        old |= line.kind != LineKind::Added;
        new |= line.kind != LineKind::Removed;
    }
    if new {
        Some(false)
    } else if old {
        Some(true)
    } else {
        None
    }
}

fn edits(section: &FilePatch<'_>, source: Source<'_>) -> Result<Vec<Edit>, PatchError> {
    let crlf = section.hunks.iter().flat_map(|h| &h.lines).any(|l| l.cr);
    let mut texts = LineTexts::new(section, source);
    let mut offset: i128 = 0;
    let mut edits = Vec::with_capacity(section.hunks.len());
    for (i, hunk) in section.hunks.iter().enumerate() {
        // The header's counts are the body's unless the hunk was recounted: the capacities,
        // without counting (a tree built by hand may say otherwise, so the line hints below
        // use the lengths found).
        let (old_len, new_len) = match hunk.ranges {
            Some(r) if !hunk.recounted => (r.old.count.min(hunk.lines.len()), r.new.count.min(hunk.lines.len())),
            _ => (hunk.old_len(), hunk.new_len()),
        };
        let mut target = Vec::with_capacity(old_len);
        let mut new = Vec::with_capacity(new_len);
        let mut kept = Vec::with_capacity(new_len);
        // Only kept when a line of the section ends with `\r\n`.
        let mut ends = Vec::with_capacity(if crlf { new_len } else { 0 });
        let mut no_newline = false;
        for line in &hunk.lines {
            no_newline |= line.no_newline;
            let end = if line.cr { Newline::CrLf } else { Newline::Lf };
            let text = texts.next(line.text);
            match line.kind {
                LineKind::Context => {
                    kept.push(Some(target.len()));
                    target.push(text.clone());
                    new.push(text);
                    if crlf {
                        ends.push(end);
                    }
                }
                LineKind::Removed => target.push(text),
                LineKind::Added => {
                    kept.push(None);
                    new.push(text);
                    if crlf {
                        ends.push(end);
                    }
                }
            }
        }
        let line_hint = hunk.ranges.map(|r| {
            let hint = r.old.start as i128 + offset;
            usize::try_from(hint.max(1)).unwrap_or(usize::MAX)
        });
        offset += new.len() as i128 - target.len() as i128;
        let target = if !target.is_empty() {
            Target::Lines(target)
        } else if hunk.ranges.is_some_and(|r| r.old.start == 0) {
            Target::StartOfFile
        } else {
            return Err(error(
                NO_CONTEXT,
                format!(
                    "hunk {} only adds lines and has no context, so it cannot be located by content; \
                     regenerate the diff with context (diff -U3)",
                    i + 1
                ),
                Some(hunk.header_span),
            ));
        };
        let mut replacement = Replacement::lines(new).with_kept(kept);
        replacement.line_ends = crlf.then_some(ends);
        // Filled in place rather than through the builders, which move the whole edit at
        // each step.
        let mut edit = Edit::new(target, Action::Replace(replacement));
        edit.scope.after_previous = true;
        edit.scope.at_end_of_file = no_newline;
        edit.scope.line_hint = line_hint;
        edit.label = hunk_label(i + 1);
        edit.span = Some(hunk.span);
        edits.push(edit);
    }
    Ok(edits)
}

/// `hunk <n>`, written without the formatting machinery (one call per hunk of a large
/// diff).
fn hunk_label(n: usize) -> String {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let digits = std::str::from_utf8(&digits[at..]).unwrap_or_default();
    let mut label = String::with_capacity("hunk ".len() + digits.len());
    label.push_str("hunk ");
    label.push_str(digits);
    label
}

/// An `index` line's id when it can name a blob: 7 to 40 hex digits, not all zeros.
fn usable_id(id: &str) -> Option<String> {
    (id.len() >= 7 && id.len() <= 40 && id.bytes().all(|b| b.is_ascii_hexdigit()) && !is_null_id(id))
        .then(|| id.to_owned())
}

#[cfg(test)]
mod tests;

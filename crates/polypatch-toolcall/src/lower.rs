//! Lower the calls into an [`EditPlan`]: one file operation per call, in order.

use polypatch_core::{
    Action, Content, Edit, EditPlan, FileEdit, FileOp, IfExists, IfMissing, Modify, Occurrence, PatchError, Policy,
    Replacement, Scope, Span, Target, Tier, TierSet,
};

use crate::error::{DIALECT, INVALID_DIFF, error};
use crate::syntax::{Call, Calls, Count, Op, Replace, Shape};

/// Lowers the calls: each call is one [`FileEdit`] of the plan, in order (the report's
/// `files[i]` is call `i + 1`), all applied as one transaction.
///
/// - Replacements (`str_replace`, Edit, `MultiEdit`, `replace`, `edit_file`) are a
///   [`FileOp::Modify`] of [`Target::Text`] edits, applied in order, each on the result of
///   the ones before: the old text is a literal substring, found exactly, else at a
///   lenient tier that forgives whitespace, indentation, line endings or look-alike
///   characters (never by likeness alone); [`Occurrence::Unique`] unless `replace_all` /
///   `allow_multiple` ([`Occurrence::All`]) or `expected_replacements: N`
///   ([`Occurrence::Exactly`]).
/// - `create`, Write, `write_file`, `create_file`: the whole content, written over an
///   existing file (a replacement) or as a new one ([`FileOp::Replace`] that may create).
/// - An empty `old_string` (Claude Code, Gemini CLI): a new file; an existing one with
///   other content is refused.
/// - `insert`: the lines inserted after line N (0: at the top); a re-run finds them there.
///   A line past the end of the file puts them at its end (the core's rule for lines placed
///   by number alone, which AI-PATCH's `@@ :N` shares; the text editor itself refuses it).
/// - `update_file`: the V4A diff parsed and lowered by the AI-PATCH dialect
///   (`polypatch_aipatch`), its hunks labelled `hunk N` and reported at the diff.
/// - `delete_file`: the file deleted; a missing file is an error.
/// - Continue's `edit_existing_file` and Copilot's `insert_edit_into_file`: the lazy
///   snippet read whole and lowered by the lazy dialect (`polypatch_lazy`) for the path,
///   its segments labelled `segment N` and reported at the snippet.
pub fn lower(calls: &Calls) -> Result<EditPlan, PatchError> {
    let mut files = Vec::with_capacity(calls.calls.len());
    for call in &calls.calls {
        files.push(file_edit(call)?);
    }
    Ok(EditPlan::new(DIALECT, files))
}

fn file_edit(call: &Call) -> Result<FileEdit, PatchError> {
    let path = call.op.path().to_owned();
    let op = match &call.op {
        Op::Replace { edits, .. } => FileOp::Modify(Modify::new(edits.iter().map(edit).collect())),
        Op::Create { content, .. } => FileOp::Create {
            content: Content::Text(content.clone()),
            newline: None,
            if_exists: IfExists::ErrorUnlessIdentical,
            mode: None,
        },
        Op::Write { content, .. } => {
            FileOp::Replace { content: Content::Text(content.clone()), create_if_missing: true, follow_file: false }
        }
        Op::Insert { after, text, span, .. } => {
            let lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l).into()).collect();
            let mut edit = Edit::new(Target::Lines(Vec::new()), Action::InsertAfter { lines })
                .with_scope(Scope::default().with_line_hint(after + 1))
                .with_label("insert_text");
            edit.span = Some(*span);
            FileOp::Modify(Modify::new(vec![edit]))
        }
        Op::Update { diff, span, .. } => return update(call, &path, diff, *span),
        Op::Blocks { diff, span, .. } => return blocks(call, &path, diff, *span),
        Op::Lazy { snippet, span, .. } => return lazy(call, &path, snippet, *span),
        Op::Delete { .. } => FileOp::Delete { if_missing: IfMissing::Error, expect: None },
    };
    Ok(FileEdit::new(path, op).with_span(call.span))
}

fn edit(r: &Replace) -> Edit {
    let occurrence = match r.count {
        Count::One => Occurrence::Unique,
        Count::All => Occurrence::All,
        Count::Exactly(n) => Occurrence::Exactly(n),
    };
    let mut edit = Edit::new(Target::Text(r.old.clone()), Action::Replace(Replacement::text(r.new.clone())))
        .with_policy(Policy::default().with_tiers(TierSet::ALL.without(Tier::Prefix)).with_occurrence(occurrence))
        .with_label(r.label.clone());
    edit.span = Some(r.span);
    edit
}

/// An `update_file` diff, through the AI-PATCH dialect: the diff between the envelope and
/// a header of its own, parsed with that dialect's parser and lowered by its lowering.
fn update(call: &Call, path: &str, diff: &str, span: Span) -> Result<FileEdit, PatchError> {
    let (body, narrowed) = narrow_headers(diff);
    let header = "*** Begin Patch\n*** Update File: x\n";
    let text =
        format!("{header}{body}{}*** End Patch\n", if body.ends_with('\n') || body.is_empty() { "" } else { "\n" });
    let who = who(call);
    let patch = polypatch_aipatch::parse(&text).map_err(|e| {
        let line = e.span.map(|s| s.line_col(&text).0);
        let place = match line {
            Some(l) if l > 2 => format!(" at line {} of the diff", l - 2),
            _ => String::new(),
        };
        error(INVALID_DIFF, format!("{who}: the `update_file` diff is malformed{place}: {}", e.message), Some(span))
    })?;
    let plan = polypatch_aipatch::lower(&patch);
    let Some(mut file) = plan.files.into_iter().next() else {
        return Err(error(INVALID_DIFF, format!("{who}: the `update_file` diff changes nothing"), Some(span)));
    };
    path.clone_into(&mut file.path);
    file.span = Some(call.span);
    if let FileOp::Modify(m) = &mut file.op {
        for (i, edit) in m.edits.iter_mut().enumerate() {
            // Spans into the envelope: the diff's own place instead.
            edit.span = Some(span);
            if narrowed.contains(&i) {
                // Outer `@@` lines were dropped: only the last anchors the section, so it
                // must match one place after it rather than the first.
                edit.policy.occurrence = Occurrence::Unique;
            }
        }
    }
    Ok(file)
}

/// Cline's / Roo's `{"path", "diff"}`: the SEARCH/REPLACE blocks parsed and lowered by the
/// search-replace dialect for `path`; a block naming another file is refused.
fn blocks(call: &Call, path: &str, diff: &str, span: Span) -> Result<FileEdit, PatchError> {
    let who = who(call);
    let malformed = |e: PatchError| {
        let place = e.span.map(|s| format!(" at line {} of the diff", s.line_col(diff).0)).unwrap_or_default();
        error(
            INVALID_DIFF,
            format!("{who}: the `diff` SEARCH/REPLACE blocks are malformed{place}: {}", e.message),
            Some(span),
        )
    };
    let patch = polypatch_search_replace::parse(diff).map_err(malformed)?;
    let plan = polypatch_search_replace::lower(&patch, Some(path)).map_err(malformed)?;
    let mut files = plan.files.into_iter();
    let (Some(mut file), None) = (files.next(), files.next()) else {
        return Err(error(
            INVALID_DIFF,
            format!("{who}: the `diff` blocks name other files than `{path}`: send one call per file"),
            Some(span),
        ));
    };
    if file.path != path {
        return Err(error(
            INVALID_DIFF,
            format!("{who}: the `diff` blocks name `{}`, not `{path}`: send one call per file", file.path),
            Some(span),
        ));
    }
    file.span = Some(call.span);
    if let FileOp::Modify(m) = &mut file.op {
        // Spans into the diff string: the diff's own place in the JSON instead.
        for edit in &mut m.edits {
            edit.span = Some(span);
        }
    }
    Ok(file)
}

/// Continue's `changes` / Copilot's `code`: the whole string is the snippet (fences and
/// tags in it are its lines), read and lowered by the lazy dialect for `path`. A snippet
/// wrapped in a fence (the first line opens one, the last closes it) is read without the
/// two lines; for a Markdown file, whose snippet may also start and end with a fence of its
/// own, it is refused (two readings). A first-line `filepath:` comment naming another file
/// is refused.
fn lazy(call: &Call, path: &str, snippet: &str, span: Span) -> Result<FileEdit, PatchError> {
    let who = who(call);
    let field = if call.shape == Shape::Continue { "changes" } else { "code" };
    let malformed = |e: PatchError| {
        error(INVALID_DIFF, format!("{who}: the `{field}` lazy snippet is malformed: {}", e.message), Some(span))
    };
    let body = unfenced(snippet);
    if markdown(path) && body.len() != snippet.len() {
        return Err(error(
            INVALID_DIFF,
            format!(
                "{who}: the `{field}` lazy snippet for the Markdown file `{path}` starts and ends with a fence: it is \
                 unclear whether the fence lines are the file's or wrap the snippet; send the snippet without a \
                 wrapping fence (and show a line above and below a code block of the file)"
            ),
            Some(span),
        ));
    }
    let patch = polypatch_lazy::parse_bare(body).map_err(malformed)?;
    if let Some(named) = patch.snippets.first().and_then(|s| s.path)
        && named != path
        && !path.ends_with(&format!("/{named}"))
    {
        return Err(error(
            INVALID_DIFF,
            format!(
                "{who}: the `{field}` lazy snippet names `{named}` in its first line, not `{path}`: send one call per file"
            ),
            Some(span),
        ));
    }
    let plan = polypatch_lazy::lower(&patch, Some(path)).map_err(malformed)?;
    let Some(mut file) = plan.files.into_iter().next() else {
        return Err(error(INVALID_DIFF, format!("{who}: the `{field}` lazy snippet changes nothing"), Some(span)));
    };
    path.clone_into(&mut file.path);
    file.span = Some(call.span);
    if let FileOp::Modify(m) = &mut file.op {
        // Spans into the snippet string: the snippet's own place in the JSON instead.
        for edit in &mut m.edits {
            edit.span = Some(span);
        }
    }
    Ok(file)
}

/// Whether `path` names a Markdown file (`.md`, `.markdown`, `.mdx`).
fn markdown(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".markdown", ".mdx"].iter().any(|ext| lower.ends_with(ext))
}

/// `snippet` without a fence around it: when its first non-blank line opens a fence
/// (```` ``` ```` or `~~~`, any info string) and its last non-blank line closes it (the
/// same character, at least as wide, nothing after it), the lines between; else all of it.
fn unfenced(snippet: &str) -> &str {
    let fence = |line: &str| {
        let t = line.trim();
        let c = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
        let width = t.chars().take_while(|x| *x == c).count();
        (width >= 3).then_some((c, width, t[width..].trim().is_empty()))
    };
    let blank = |c: char| matches!(c, '\n' | '\r' | ' ' | '\t');
    let start = snippet.len() - snippet.trim_start_matches(blank).len();
    let trimmed = snippet.trim_matches(blank);
    let (Some(first_end), Some(last_start)) = (trimmed.find('\n'), trimmed.rfind('\n')) else { return snippet };
    let (Some((c, width, _)), Some((cc, w, bare))) = (fence(&trimmed[..first_end]), fence(&trimmed[last_start + 1..]))
    else {
        return snippet;
    };
    if c != cc || w < width || !bare {
        return snippet;
    }
    // Two fence lines and nothing between them: an empty snippet.
    if first_end == last_start {
        return "";
    }
    &snippet[start + first_end + 1..=start + last_start]
}

/// The call as errors name it: its number and tool name.
fn who(call: &Call) -> String {
    match &call.name {
        Some(name) => format!("call {} ({name})", call.number),
        None => format!("call {}", call.number),
    }
}

/// The diff with each run of `@@ <line>` headers cut to its last one (the AI-PATCH
/// grammar has one header per hunk), and the indexes of the sections so cut.
fn narrow_headers(diff: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(diff.len());
    let mut narrowed = Vec::new();
    let lines: Vec<&str> = diff.split_inclusive('\n').collect();
    let is_header = |l: &str| l.trim_end().starts_with("@@");
    let mut section = 0usize;
    let mut seen_body = false;
    for (i, line) in lines.iter().enumerate() {
        if is_header(line) {
            if lines.get(i + 1).is_some_and(|next| is_header(next)) {
                let this = if seen_body { section + 1 } else { section };
                if narrowed.last() != Some(&this) {
                    narrowed.push(this);
                }
                continue;
            }
            if seen_body {
                section += 1;
            }
            seen_body = false;
        } else if !line.trim().is_empty() && !line.starts_with("*** End of File") {
            seen_body = true;
        }
        out.push_str(line);
    }
    (out, narrowed)
}

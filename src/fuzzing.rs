//! The checks the `fuzz/` targets run, one function per target, shared with the
//! regression test (`tests/fuzz_regressions.rs`) that replays every minimized finding.
//!
//! Each function takes the fuzzer's raw bytes and panics when an invariant breaks; it
//! must never panic otherwise. Not part of the public API.

use crate::aipatch::AiPatch;
use crate::ap::Ap;
use crate::applydiff::ApplyDiff;
use crate::aptix::Aptix;
use crate::unified::Unified;
use crate::{ApplyOptions, Dialect, EditPlan, Format, MemoryFileSet, PatchError, apply, compute, detect};
use polypatch_core::{FileStore, RelPath};

/// The patch text of fuzz input: UTF-8 as is, anything else lossily (patches are text).
fn text(data: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// A span must lie inside the text, start before it ends, and cut it on char boundaries.
fn check_span(span: polypatch_core::Span, text: &str) {
    assert!(span.start <= span.end && span.end <= text.len(), "span {span:?} outside the {}-byte text", text.len());
    assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end), "span {span:?} cuts a character");
}

/// A parse error must point into the text it came from and render without panicking.
fn check_error(err: &PatchError, text: &str) {
    if let Some(span) = err.span {
        check_span(span, text);
    }
    let _ = err.to_string();
    let _ = err.render(text);
}

fn check_parse(dialect: &dyn Dialect, data: &[u8]) -> Option<EditPlan> {
    let text = text(data);
    match dialect.parse(&text) {
        Ok(plan) => {
            assert_eq!(plan.dialect, dialect.name());
            Some(plan)
        }
        Err(err) => {
            assert_eq!(err.dialect, dialect.name());
            check_error(&err, &text);
            None
        }
    }
}

/// Target `unified`: parse and lower a unified diff (default strip, and `-p0`..`-p2`).
pub fn unified(data: &[u8]) {
    if check_parse(&Unified, data).is_some() {
        let text = text(data);
        for strip in 0..3 {
            if let Err(err) = Unified.parse_with(&text, &crate::ParseOptions::default().strip(strip)) {
                check_error(&err, &text);
            }
        }
    }
}

/// Target `aipatch`: parse and lower an AI-PATCH.
pub fn aipatch(data: &[u8]) {
    check_parse(&AiPatch, data);
}

/// Target `ap`: parse and lower an `ap` YAML patch.
pub fn ap(data: &[u8]) {
    check_parse(&Ap, data);
}

/// Target `applydiff`: parse and lower an `ApplyDiff` patch. Besides the checks of every
/// parser target: an error's kind is one of the dialect's kinds; a plan's file and edit
/// spans lie inside the text; every block becomes a file operation or an edit labelled
/// with its number, in order.
pub fn applydiff(data: &[u8]) {
    use crate::applydiff::KINDS;
    let text = text(data);
    let syntax = crate::applydiff::parse(&text);
    let plan = check_parse(&ApplyDiff, data);
    match (syntax, plan) {
        (Err(err), None) => assert!(KINDS.contains(&err.kind), "unknown kind {:?}", err.kind),
        (Ok(patch), Some(plan)) => {
            assert!(!patch.blocks.is_empty(), "a patch without blocks parsed");
            let mut labels = Vec::new();
            for block in &patch.blocks {
                check_span(block.span, &text);
                check_span(block.header, &text);
                assert!(block.span.start <= block.header.start && block.header.end <= block.span.end);
                assert!(!block.path.trim().is_empty(), "a block without a path parsed");
                assert!(block.fuzz.is_none_or(|f| (0.0..=1.0).contains(&f)), "fuzz {:?}", block.fuzz);
            }
            let mut operations = 0;
            for file in &plan.files {
                if let Some(span) = file.span {
                    check_span(span, &text);
                }
                if let polypatch_core::FileOp::Modify(modify) = &file.op {
                    operations += modify.edits.len();
                    for edit in &modify.edits {
                        if let Some(span) = edit.span {
                            check_span(span, &text);
                        }
                        labels.push(edit.label.clone());
                    }
                } else {
                    operations += 1;
                }
            }
            assert_eq!(operations, patch.blocks.len(), "blocks and lowered operations differ in number");
            let numbers: Vec<usize> = labels
                .iter()
                .map(|l| l.strip_prefix("block ").and_then(|n| n.parse().ok()).expect("a block label"))
                .collect();
            // Edits of one file keep their order; their numbers are distinct.
            let mut sorted = numbers.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), numbers.len(), "two edits share a label: {labels:?}");
            assert!(numbers.iter().all(|&n| (1..=patch.blocks.len()).contains(&n)), "{labels:?}");
        }
        (syntax, plan) => panic!("parse ok {} but lower ok {}", syntax.is_ok(), plan.is_some()),
    }
}

/// Target `search_replace`: parse and lower SEARCH/REPLACE blocks (without and with a
/// caller's file). Besides the checks of every parser target: an error's kind is one of
/// the dialect's kinds; a parsed text sniffs as the dialect; every block's spans lie inside
/// the text (its path's too) and its lines hold no line break; every lowered edit is
/// labelled `block N` or `block N, piece K` with N a block's number, in order within a file;
/// with a caller's file, a text that parsed without one parses the same.
#[cfg(feature = "search-replace")]
pub fn search_replace(data: &[u8]) {
    use crate::search_replace::{KINDS, SearchReplace};
    let text = text(data);
    let syntax = crate::search_replace::parse(&text);
    let plan = check_parse(&SearchReplace, data);
    let given = SearchReplace.parse_with(&text, &crate::ParseOptions::default().file("given.txt"));
    match (&syntax, &plan) {
        (Err(err), None) => assert!(KINDS.contains(&err.kind), "unknown kind {:?}", err.kind),
        (Ok(patch), _) => {
            assert!(!patch.blocks.is_empty(), "a patch without blocks parsed");
            assert!(SearchReplace.sniff(&text) > 0, "a patch that parses does not sniff as the dialect");
            for block in &patch.blocks {
                check_span(block.span, &text);
                check_span(block.head, &text);
                assert!(block.span.start <= block.head.start && block.head.end <= block.span.end);
                if let Some(span) = block.path_span {
                    check_span(span, &text);
                    assert_eq!(Some(&text[span.start..span.end]), block.path);
                }
                let lines = block.search.iter().chain(&block.replace);
                assert!(lines.clone().all(|l| !l.contains('\n')), "a line with a line break");
            }
            if let Err(err) = &given {
                assert!(KINDS.contains(&err.kind), "unknown kind {:?}", err.kind);
                check_error(err, &text);
            }
            let Some(plan) = &plan else { return };
            assert_eq!(given.as_ref().ok(), Some(plan), "a caller's file changed a patch whose blocks name theirs");
            for file in &plan.files {
                let polypatch_core::FileOp::Modify(modify) = &file.op else { panic!("an operation other than modify") };
                let mut last = 0;
                for edit in &modify.edits {
                    if let Some(span) = edit.span {
                        check_span(span, &text);
                    }
                    let n: usize = edit
                        .label
                        .strip_prefix("block ")
                        .and_then(|l| l.split(',').next())
                        .and_then(|n| n.parse().ok())
                        .expect("a block label");
                    assert!((1..=patch.blocks.len()).contains(&n) && n >= last, "{:?}", edit.label);
                    last = n;
                }
            }
        }
        (Err(_), Some(_)) => panic!("the syntax failed but the dialect parsed"),
    }
}

/// Target `aptix`: parse and lower an Aptix JSON bundle. Besides the checks of every
/// parser target: an error's kind is one of the dialect's kinds; a bundle's span and its
/// entries' `path` spans lie inside the text; every lowered path is relative (no leading
/// `/`, no drive), without `..` or backslashes, under the bundle's `root`; a file bundle gives
/// one operation per entry (a `gitPatch` one or more), a patch bundle one edit per
/// replacement, labelled by its place in the JSON.
pub fn aptix(data: &[u8]) {
    use crate::aptix::{Body, KINDS};
    let text = text(data);
    if let Some(span) = crate::aptix::extract(&text) {
        check_span(span, &text);
    }
    let syntax = crate::aptix::parse(&text);
    let plan = check_parse(&Aptix, data);
    let (bundle, plan) = match (syntax, plan) {
        (Err(err), None) => {
            assert!(KINDS.contains(&err.kind), "unknown kind {:?}", err.kind);
            return;
        }
        (Ok(bundle), None) => {
            // Lowering fails only for a gitPatch entry.
            let err = crate::aptix::lower(&bundle).expect_err("lower failed in parse but not alone");
            assert_eq!(err.kind, crate::aptix::error::GIT_PATCH, "lowering failed with {:?}", err.kind);
            return;
        }
        (Ok(bundle), Some(plan)) => (bundle, plan),
        (Err(err), Some(_)) => panic!("the bundle is refused ({}) but the dialect parsed it", err.kind),
    };
    check_span(bundle.span, &text);
    let root: Vec<&str> = bundle.root.split('/').filter(|c| !c.is_empty() && *c != ".").collect();
    let mut edits = Vec::new();
    for file in &plan.files {
        if let Some(span) = file.span {
            check_span(span, &text);
        }
        let path = file.path.as_str();
        assert!(!path.starts_with('/') && !path.contains('\\'), "lowered path {path:?}");
        assert!(path.as_bytes().get(1) != Some(&b':'), "lowered path {path:?} has a drive");
        let parts: Vec<&str> = path.split('/').filter(|c| !c.is_empty() && *c != ".").collect();
        assert!(!parts.contains(&".."), "lowered path {path:?} has `..`");
        assert!(parts.len() >= root.len() && parts[..root.len()] == root[..], "{path:?} is not under {root:?}");
        if let polypatch_core::FileOp::Modify(modify) = &file.op {
            for edit in &modify.edits {
                if let Some(span) = edit.span {
                    check_span(span, &text);
                }
                edits.push(edit.label.clone());
            }
        }
    }
    match &bundle.body {
        Body::Files(entries) => {
            for entry in entries {
                if let Some(span) = entry.span {
                    check_span(span, &text);
                }
            }
            let git = entries.iter().filter(|e| e.operation == Some(crate::aptix::Operation::GitPatch)).count();
            assert!(plan.files.len() >= entries.len(), "fewer operations than entries");
            if git == 0 {
                assert_eq!(plan.files.len(), entries.len(), "one operation per entry");
                let labels: Vec<String> =
                    entries.iter().flat_map(|e| e.patches.iter().map(|f| f.label.clone())).collect();
                assert_eq!(edits, labels, "the edits of patch entries, in order");
            }
        }
        Body::Patches(entries) => {
            let labels: Vec<String> =
                entries.iter().flat_map(|e| e.replacements.iter().map(|f| f.label.clone())).collect();
            assert!(!labels.is_empty(), "a patch bundle without edits parsed");
            assert_eq!(edits, labels, "one edit per replacement, in order");
            for entry in entries {
                if let Some(span) = entry.span {
                    check_span(span, &text);
                }
            }
        }
        // A body a later Aptix may add: its spans are checked by its own arm then.
        _ => {}
    }
}

/// Target `toolcall`: parse and lower tool calls. Besides the checks of every parser
/// target: an error's kind is one of the dialect's kinds; the JSON's span, every call's and
/// every edit's lie inside the text; the plan has one file operation per call, on the
/// call's path, in order.
#[cfg(feature = "tool-call")]
pub fn toolcall(data: &[u8]) {
    use crate::toolcall::{KINDS, ToolCall};
    let text = text(data);
    if let Some(span) = crate::toolcall::extract(&text) {
        check_span(span, &text);
    }
    let syntax = crate::toolcall::parse(&text);
    let plan = check_parse(&ToolCall, data);
    let (calls, plan) = match (syntax, plan) {
        (Err(err), None) => {
            assert!(KINDS.contains(&err.kind), "unknown kind {:?}", err.kind);
            return;
        }
        (Ok(calls), None) => {
            // Lowering fails only for a diff, SEARCH/REPLACE blocks or a lazy snippet in a call.
            let err = crate::toolcall::lower(&calls).expect_err("lower failed in parse but not alone");
            assert_eq!(err.kind, crate::toolcall::error::INVALID_DIFF, "lowering failed with {:?}", err.kind);
            return;
        }
        (Ok(calls), Some(plan)) => (calls, plan),
        (Err(err), Some(_)) => panic!("the calls are refused ({}) but the dialect parsed them", err.kind),
    };
    check_span(calls.span, &text);
    assert_eq!(plan.files.len(), calls.calls.len(), "one file operation per call");
    for (call, file) in calls.calls.iter().zip(&plan.files) {
        check_span(call.span, &text);
        assert_eq!(file.path, call.op.path(), "the operation is on the call's path");
        if let polypatch_core::FileOp::Modify(modify) = &file.op {
            for edit in &modify.edits {
                if let Some(span) = edit.span {
                    check_span(span, &text);
                }
            }
        }
    }
}

/// Target `lazy`: a lazy snippet merged into a file. Input: the snippet text, then a NUL
/// byte and the file's content (`snippet \0 content`), written at every path the plan
/// names (`f.txt`, the caller's file, for a snippet that names none).
///
/// Checks: a refused text fails with one of the dialect's kinds and an error that points
/// into it; a plan's edits are `Target::Sketch` segments labelled `segment K` (`snippet S,
/// segment K`), numbered from 1 in order, with spans inside the text; applying does not
/// panic, a dry run writes nothing and agrees with [`compute`], a failed apply changes
/// nothing, a successful one writes exactly what `compute` computed; and applying the same
/// snippet to its result again is refused or changes nothing.
#[cfg(feature = "lazy")]
pub fn lazy(data: &[u8]) {
    use crate::lazy::{KINDS, Lazy};
    use polypatch_core::{FileOp, Target};
    let (snippet, content) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let text = text(snippet);
    let plan = match Lazy.parse_with(&text, &crate::ParseOptions::default().file("f.txt")) {
        Ok(plan) => plan,
        Err(err) => {
            assert!(KINDS.contains(&err.kind), "unknown kind {:?}", err.kind);
            check_error(&err, &text);
            return;
        }
    };
    let mut files = MemoryFileSet::new();
    let mut paths: Vec<String> = Vec::new();
    for file in &plan.files {
        let FileOp::Modify(modify) = &file.op else { panic!("an operation other than modify") };
        let mut next: Option<(Option<&str>, usize)> = None;
        for edit in &modify.edits {
            assert!(matches!(edit.target, Target::Sketch { .. }), "an edit that is not a sketch");
            if let Some(span) = edit.span {
                check_span(span, &text);
            }
            let (snippet, segment) = match edit.label.split_once(", ") {
                Some((s, k)) => (Some(s), k),
                None => (None, edit.label.as_str()),
            };
            let k: usize = segment.strip_prefix("segment ").and_then(|k| k.parse().ok()).expect("a segment label");
            match next {
                Some((s, n)) if s == snippet => assert_eq!(k, n, "segments out of order: {:?}", edit.label),
                _ => assert_eq!(k, 1, "a snippet's first segment is not 1: {:?}", edit.label),
            }
            next = Some((snippet, k + 1));
        }
        let Ok(path) = RelPath::parse(&file.path, None) else { continue };
        let path = path.as_str().to_string();
        let clash = |p: &String| p == &path || p.starts_with(&format!("{path}/")) || path.starts_with(&format!("{p}/"));
        if !paths.iter().any(clash) {
            files.insert(path.clone(), content.to_vec());
            paths.push(path);
        }
    }
    let options = ApplyOptions::default();
    if applies_as_computed(&plan, &mut files, &options) {
        let mut again = files.clone();
        if apply(&plan, &mut again, &options).is_ok() {
            assert_eq!(again, files, "the snippet applied to its own result changed it again");
        }
    }
}

/// Target `detect`: format detection picks a dialect that claims the text, with the
/// highest score, and parsing without a format goes to that dialect.
pub fn detect_format(data: &[u8]) {
    let text = text(data);
    let scores: Vec<u8> = crate::Dialects::global().iter().map(|d| d.sniff(&text)).collect();
    let best = scores.iter().copied().max().unwrap_or(0);
    if let Some(d) = detect(&text) {
        let score = d.sniff(&text);
        assert!(score > 0 && score == best, "detect chose {} ({score}) over a score of {best}", d.name());
        match crate::parse(&text, Format::Auto) {
            Ok(plan) => assert_eq!(plan.dialect, d.name()),
            Err(err) => {
                assert_eq!(err.dialect, d.name());
                check_error(&err, &text);
            }
        }
    } else {
        assert_eq!(best, 0, "detect chose nothing though a dialect scored {best}");
        let err = crate::parse(&text, Format::Auto).unwrap_err();
        check_error(&err, &text);
    }
    let all = crate::extract::detect_all(&text);
    assert_eq!(all[0].1, best, "detect_all does not put the best score first");
    assert_eq!(detect(&text).map(Dialect::name), all.first().filter(|(_, s)| *s > 0).map(|(d, _)| d.name()));
    check_extract(&text);
}

/// `extract` gives blocks in order, without overlap, each its span's text and recognised by
/// its dialect; a reply's malformed block points into the reply.
fn check_extract(text: &str) {
    let blocks = crate::extract(text);
    let mut end = 0;
    for block in &blocks {
        check_span(block.span, text);
        assert!(block.span.start >= end, "blocks overlap: {blocks:?}");
        assert_eq!(block.text, &text[block.span.start..block.span.end]);
        assert!(block.confidence > 0);
        end = block.span.end;
    }
    match crate::reply::plan_reply(text, &crate::ParseOptions::default()) {
        Ok(planned) => assert_eq!(planned.len(), blocks.len()),
        Err(crate::ReplyError::Malformed { error, .. }) => check_error(&error, text),
        Err(crate::ReplyError::NoPatch) => assert!(blocks.is_empty()),
        Err(err) => panic!("plan_reply failed with {err:?}"),
    }
}

/// Target `apply`: arbitrary patch text applied to up to three arbitrary in-memory files.
///
/// Input: one flags byte, then the patch text, then up to three files, each introduced by
/// a NUL byte and made of a path line and the content (`flags patch \0 path \n content \0
/// path \n content …`). Flags: bits 0–1 the format (detect, `ai-patch`, `unified`,
/// `ap`), bit 2 strict, bit 3 a low fuzzy threshold (0.5), bit 4 `applydiff` (whatever
/// bits 0–1 say), bit 5 `aptix` (whatever bits 0–1 and 4 say), bit 6 `search-replace`
/// (whatever the others say; the first file is the caller's file for blocks without a path).
///
/// Checks: no panic; a dry run writes nothing and agrees with [`compute`]; a failed apply
/// leaves the files as they were; a successful one writes exactly what `compute`
/// computed.
pub fn apply_patch(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else { return };
    let mut parts = rest.split(|&b| b == 0);
    let patch = text(parts.next().unwrap_or_default());
    let mut files = MemoryFileSet::new();
    let mut paths: Vec<String> = Vec::new();
    for part in parts.take(3) {
        let (path, content) = match part.iter().position(|&b| b == b'\n') {
            Some(i) => (&part[..i], &part[i + 1..]),
            None => (part, &[][..]),
        };
        let Ok(path) = RelPath::parse(&String::from_utf8_lossy(path), None) else { continue };
        let path = path.as_str().to_string();
        // A file set with both `a` and `a/b` cannot exist on disk; skip such a path.
        let clash = |p: &String| p == &path || p.starts_with(&format!("{path}/")) || path.starts_with(&format!("{p}/"));
        if paths.iter().any(clash) {
            continue;
        }
        files.insert(path.clone(), content.to_vec());
        paths.push(path);
    }
    let format = if flags & 32 != 0 {
        Format::Aptix
    } else if flags & 16 != 0 {
        Format::ApplyDiff
    } else {
        [Format::Auto, Format::AiPatch, Format::Unified, Format::Ap][usize::from(flags & 3)]
    };
    let parsed = if flags & 64 != 0 {
        // SEARCH/REPLACE blocks, by name (not in `Format`), the first file the caller's.
        let options =
            paths.first().map_or_else(crate::ParseOptions::default, |p| crate::ParseOptions::default().file(p));
        crate::Dialects::global().parse_with(&patch, "search-replace", &options)
    } else {
        crate::parse(&patch, format)
    };
    let Ok(plan) = parsed else { return };
    let mut options = ApplyOptions::default().strict(flags & 4 != 0);
    if flags & 8 != 0 {
        options.fuzzy_threshold = Some(0.5);
    }

    if applies_as_computed(&plan, &mut files, &options) {
        // Applying again must not panic; what it reports depends on the dialect.
        let _ = compute(&plan, &files, &options);
    }
}

/// Computes `plan` on `files`, dry-runs it and applies it, checking that the three agree:
/// a dry run writes nothing, an apply writes what compute computed, a failed one nothing.
/// Whether it applied.
fn applies_as_computed(plan: &EditPlan, files: &mut MemoryFileSet, options: &ApplyOptions) -> bool {
    let before = files.clone();
    let computed = compute(plan, files, options);
    if let Err(err) = &computed {
        assert!(err.commit_error.is_none(), "compute reported a commit error");
        assert!(!err.report.is_success());
        let _ = err.to_string();
    }

    let mut dry = files.clone();
    let dry_result = apply(plan, &mut dry, &options.clone().dry_run(true));
    assert_eq!(dry, before, "a dry run changed the files");
    assert_eq!(dry_result.is_ok(), computed.is_ok(), "a dry run and compute disagree");
    if let Ok(report) = &dry_result {
        assert!(report.dry_run && !report.committed);
    }

    match (apply(plan, files, options), computed) {
        (Ok(report), Ok(computed)) => {
            assert!(report.is_success() && report.committed);
            let _ = report.to_string();
            let mut expected = before;
            expected.commit(&computed.changes).expect("a memory commit cannot fail");
            assert_eq!(*files, expected, "apply wrote something other than what compute computed");
            true
        }
        (Err(err), Err(_)) => {
            assert_eq!(*files, before, "a failed apply changed the files");
            let _ = err.to_string();
            false
        }
        (result, computed) => {
            panic!("apply and compute disagree: apply ok {}, compute ok {}", result.is_ok(), computed.is_ok())
        }
    }
}

//! `--stat` and `--summary`: what a patch touches, in the form `git apply --stat` and
//! `git apply --summary` print it, from the plan alone (nothing is located or read).
//!
//! The line counts are the patch's own: a diff hunk's added and removed lines, a created
//! file's lines, a deleted file's lines when the patch writes them; for an edit that does
//! not say which of its lines stay (SEARCH/REPLACE, a substring replacement), the lines a
//! line diff of its old and new sides adds and removes. What the plan does not keep of a
//! git diff's headers (a rename's similarity, a file's old mode) is read from the diff's
//! extended header lines.

use std::fmt::Write as _;

use polypatch::EditPlan;
use polypatch::plan::{Action, Content, Expect, FileOp, LineText, Replacement, Target};

/// What one file of the patch does, for the stat and the summary.
#[derive(Debug, Default)]
#[allow(clippy::struct_excessive_bools, reason = "what git's own patch record says of a file, each read in one place")]
struct Entry {
    /// The path before (a rename's or a copy's source), when it differs.
    old: Option<String>,
    /// The path after.
    path: String,
    added: usize,
    deleted: usize,
    binary: bool,
    created: bool,
    deleted_file: bool,
    copied: bool,
    /// A git diff's `similarity index`.
    score: Option<u32>,
    /// A git diff's `old mode` (or `deleted file mode`), and the new one.
    old_mode: Option<u32>,
    new_mode: Option<u32>,
}

/// The entries of `plans` (each with the text its spans point into, when known), merged by
/// file in the order the patch first names them; `reverse`: as the inverse patch says it.
fn entries(plans: &[(&EditPlan, Option<&str>)], reverse: bool) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    for (plan, source) in plans {
        for file in &plan.files {
            let headers = match (source, file.span) {
                (Some(text), Some(span)) if plan.dialect == "unified" => Headers::read(text, span.start),
                _ => Headers::default(),
            };
            let mut entry = Entry { path: file.path.clone(), score: headers.score, ..Entry::default() };
            entry.old_mode = headers.old_mode;
            match &file.op {
                FileOp::Create { content, mode, .. } => {
                    entry.created = true;
                    entry.new_mode = mode.map(|m| 0o100_000 | m);
                    match content {
                        Content::Text(text) => entry.added = text.lines().count(),
                        _ => entry.binary = true,
                    }
                }
                FileOp::Delete { expect, .. } => {
                    entry.deleted_file = true;
                    if let Some(Expect::Lines(lines)) = expect {
                        entry.deleted = lines.len();
                    }
                }
                FileOp::Replace { content, .. } => match content {
                    Content::Text(text) => entry.added = text.lines().count(),
                    _ => entry.binary = true,
                },
                FileOp::Binary(binary) => {
                    entry.binary = true;
                    entry.created = binary.create;
                    entry.new_mode = binary.mode.map(|m| 0o100_000 | m);
                }
                FileOp::Modify(modify) => {
                    if let Some(to) = &modify.move_to {
                        entry.old = Some(std::mem::replace(&mut entry.path, to.clone()));
                    } else if let Some(from) = &modify.copy_from {
                        entry.old = Some(from.clone());
                        entry.copied = true;
                    }
                    entry.new_mode = modify.mode.map(|m| 0o100_000 | m);
                    for edit in &modify.edits {
                        let (added, deleted) = counts(&edit.target, &edit.action);
                        entry.added += added;
                        entry.deleted += deleted;
                    }
                }
                _ => {}
            }
            if reverse {
                entry = entry.reversed();
            }
            // A file several blocks or operations change is one line, as in a diff.
            match out.iter_mut().find(|e| e.path == entry.path && e.old.is_none() && entry.old.is_none()) {
                Some(same) if !entry.created && !entry.deleted_file => {
                    same.added += entry.added;
                    same.deleted += entry.deleted;
                    same.binary |= entry.binary;
                }
                _ => out.push(entry),
            }
        }
    }
    if reverse {
        // The inverse patch undoes the last file first, and git lists it so.
        out.reverse();
    }
    out
}

impl Entry {
    /// The entry of the inverse patch.
    fn reversed(mut self) -> Entry {
        std::mem::swap(&mut self.added, &mut self.deleted);
        std::mem::swap(&mut self.created, &mut self.deleted_file);
        std::mem::swap(&mut self.old_mode, &mut self.new_mode);
        if let Some(old) = self.old.take() {
            self.old = Some(std::mem::replace(&mut self.path, old));
        }
        if self.created {
            // git names no mode for a file a reversed deletion creates.
            self.new_mode = None;
        }
        self
    }
}

/// The lines an edit adds and removes.
fn counts(target: &Target, action: &Action) -> (usize, usize) {
    let target_lines: &[LineText] = match target {
        Target::Lines(lines) => lines,
        _ => &[],
    };
    match (target, action) {
        (Target::Text(find), Action::Replace(Replacement { text: Some(text), .. })) => {
            let old: Vec<&str> = find.split('\n').collect();
            let new: Vec<&str> = text.split('\n').collect();
            line_diff(&old, &new)
        }
        (_, Action::Replace(replacement)) => {
            if let Some(kept) = &replacement.kept {
                let stay = kept.iter().flatten().count();
                (kept.len() - stay, target_lines.len().saturating_sub(stay))
            } else {
                let old: Vec<&str> = target_lines.iter().map(AsRef::as_ref).collect();
                let new: Vec<&str> = replacement.lines.iter().map(AsRef::as_ref).collect();
                line_diff(&old, &new)
            }
        }
        (_, Action::InsertBefore { lines } | Action::InsertAfter { lines }) => (lines.len(), 0),
        (_, Action::Delete) => (0, target_lines.len()),
        _ => (0, 0),
    }
}

/// The lines a line diff of `old` and `new` adds and removes.
fn line_diff(old: &[&str], new: &[&str]) -> (usize, usize) {
    let (mut added, mut deleted) = (0, 0);
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, old, new) {
        match op {
            similar::DiffOp::Insert { new_len, .. } => added += new_len,
            similar::DiffOp::Delete { old_len, .. } => deleted += old_len,
            similar::DiffOp::Replace { old_len, new_len, .. } => {
                added += new_len;
                deleted += old_len;
            }
            similar::DiffOp::Equal { .. } => {}
        }
    }
    (added, deleted)
}

/// What a git diff's extended header lines say that the plan does not keep.
#[derive(Debug, Default)]
struct Headers {
    score: Option<u32>,
    old_mode: Option<u32>,
}

impl Headers {
    /// The header lines of the file section that starts at byte `start` of `text`.
    fn read(text: &str, start: usize) -> Headers {
        let mut headers = Headers::default();
        let Some(section) = text.get(start..) else { return headers };
        for (i, line) in section.lines().enumerate() {
            if (i > 0 && line.starts_with("diff --git ")) || line.starts_with("--- ") || line.starts_with("@@") {
                break;
            }
            let mode = |rest: &str| u32::from_str_radix(rest.trim(), 8).ok();
            if let Some(rest) = line.strip_prefix("similarity index ").and_then(|r| r.strip_suffix('%')) {
                headers.score = rest.trim().parse().ok();
            } else if let Some(rest) = line.strip_prefix("old mode ") {
                headers.old_mode = mode(rest);
            } else if let Some(rest) = line.strip_prefix("deleted file mode ") {
                headers.old_mode = mode(rest);
            }
        }
        headers
    }
}

/// `git apply --stat`: a line per file (its name, its changed lines, a bar of `+` and `-`
/// scaled to 70 columns), then the totals.
pub fn stat(plans: &[(&EditPlan, Option<&str>)], reverse: bool) -> String {
    let entries = entries(plans, reverse);
    let longest = entries
        .iter()
        .flat_map(|e| e.old.iter().chain(std::iter::once(&e.path)))
        .map(|name| name.chars().count())
        .max()
        .unwrap_or(0);
    let most = entries.iter().filter(|e| !e.binary).map(|e| e.added + e.deleted).max().unwrap_or(0);
    let width = longest.min(50);
    let mut out = String::new();
    for e in &entries {
        let mut name = e.path.clone();
        let length = name.chars().count();
        if length > width {
            // Cut from the front, at a `/` when there is one, as git does.
            let cut = length + 3 - width;
            let skip: String = name.chars().skip(cut).collect();
            let rest = match skip.find('/') {
                Some(at) => skip[at..].to_string(),
                None => skip,
            };
            name = format!("...{rest}");
        }
        if e.binary {
            let _ = writeln!(out, " {name:<width$} |  Bin");
            continue;
        }
        let bar = if width + most > 70 { 70 - width } else { most };
        let (mut plus, mut minus) = (e.added, e.deleted);
        // Scaled as git scales it, rounding to the nearest column.
        let scale = |n: usize| (n * bar + most / 2).checked_div(most);
        if let (Some(total), Some(added)) = (scale(e.added + e.deleted), scale(e.added)) {
            plus = added;
            minus = total - added;
        }
        let _ = writeln!(out, " {name:<width$} |{:5} {}{}", e.added + e.deleted, "+".repeat(plus), "-".repeat(minus));
    }
    let (added, deleted): (usize, usize) = entries.iter().fold((0, 0), |(a, d), e| (a + e.added, d + e.deleted));
    let files = entries.len();
    if files == 0 {
        out.push_str(" 0 files changed\n");
        return out;
    }
    let _ = write!(out, " {files} file{} changed", if files == 1 { "" } else { "s" });
    if added > 0 || deleted == 0 {
        let _ = write!(out, ", {added} insertion{}(+)", if added == 1 { "" } else { "s" });
    }
    if deleted > 0 || added == 0 {
        let _ = write!(out, ", {deleted} deletion{}(-)", if deleted == 1 { "" } else { "s" });
    }
    out.push('\n');
    out
}

/// `git apply --summary`: the files created, deleted, renamed or copied, and the modes
/// changed.
pub fn summary(plans: &[(&EditPlan, Option<&str>)], reverse: bool) -> String {
    let mut out = String::new();
    for e in entries(plans, reverse) {
        let mode_change = |out: &mut String, name: Option<&str>| {
            if let (Some(old), Some(new)) = (e.old_mode, e.new_mode)
                && old != new
            {
                let _ = write!(out, " mode change {old:06o} => {new:06o}");
                if let Some(name) = name {
                    let _ = write!(out, " {name}");
                }
                out.push('\n');
            }
        };
        if e.created || e.deleted_file {
            let what = if e.created { "create" } else { "delete" };
            let mode = if e.created { e.new_mode } else { e.old_mode };
            match mode {
                Some(mode) => writeln!(out, " {what} mode {mode:06o} {}", e.path),
                None => writeln!(out, " {what} {}", e.path),
            }
            .unwrap_or_default();
        } else if let Some(old) = &e.old {
            let what = if e.copied { "copy" } else { "rename" };
            let score = e.score.map(|s| format!(" ({s}%)")).unwrap_or_default();
            let (common, from, to) = common_folders(old, &e.path);
            if common.is_empty() {
                let _ = writeln!(out, " {what} {from} => {to}{score}");
            } else {
                let _ = writeln!(out, " {what} {common}{{{from} => {to}}}{score}");
            }
            mode_change(&mut out, None);
        } else {
            mode_change(&mut out, Some(&e.path));
        }
    }
    out
}

/// The folders `old` and `new` start with alike (with their `/`), and the rest of each.
fn common_folders<'a>(old: &'a str, new: &'a str) -> (&'a str, &'a str, &'a str) {
    let mut at = 0;
    loop {
        match (old[at..].find('/'), new[at..].find('/')) {
            (Some(a), Some(b)) if a == b && old[at..at + a] == new[at..at + b] => at += a + 1,
            _ => break,
        }
    }
    (&old[..at], &old[at..], &new[at..])
}

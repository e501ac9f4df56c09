//! `--reverse` (`-R`): a patch undone, as `patch -R` and `git apply -R` undo a diff.
//!
//! The inverse is made on the [`EditPlan`], the form every dialect lowers into, so one code
//! path serves them all: each edit's new side becomes what is looked for and its old side
//! what is written there, the files in the opposite order. An edit is inverted only when the
//! plan holds everything the inverse writes; otherwise the whole patch is refused, naming the
//! file, the edit and what the patch does not carry (a deletion without the file's content,
//! a substring replaced everywhere, a mode change whose old mode is not written, …). The
//! inverse is then located and applied like any patch: a file that changed since is refused
//! by the same rules.

use std::fmt;

use polypatch::EditPlan;
use polypatch::plan::{
    Action, Content, Edit, Expect, FileEdit, FileOp, IfExists, IfMissing, Modify, Newline, Occurrence, Replacement,
    Target,
};

/// Why a patch cannot be undone: the file, the edit (when one) and what is missing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The dialect the patch is written in.
    pub dialect: String,
    /// The file, as the patch names it.
    pub path: String,
    /// The edit's label (`hunk 2`), or its number in the file.
    pub edit: Option<String>,
    /// What the patch does not carry.
    pub reason: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot reverse this {} patch: `{}`", self.dialect, self.path)?;
        if let Some(edit) = &self.edit {
            write!(f, ", {edit}")?;
        }
        write!(f, ": {}; nothing was written (undo it from a copy of the files, or from version control)", self.reason)
    }
}

/// The plan that undoes `plan`, or why there is none. `source`: the text the plan was
/// parsed from, when known (a unified diff's deleted file is written back from it).
pub fn reverse(plan: &EditPlan, source: Option<&str>) -> Result<EditPlan, Refusal> {
    let mut files = Vec::with_capacity(plan.files.len());
    let source = source.filter(|_| plan.dialect == "unified");
    for file in plan.files.iter().rev() {
        files.push(reverse_file(file, source).map_err(|(edit, reason)| Refusal {
            dialect: plan.dialect.to_string(),
            path: file.path.clone(),
            edit,
            reason,
        })?);
    }
    let mut inverse = EditPlan::new(plan.dialect.clone(), files);
    inverse.warnings.clone_from(&plan.warnings);
    Ok(inverse)
}

/// Why one operation cannot be inverted: the edit, and the reason.
type Why = (Option<String>, String);

fn whole(reason: &str) -> Why {
    (None, reason.to_string())
}

fn reverse_file(file: &FileEdit, source: Option<&str>) -> Result<FileEdit, Why> {
    match &file.op {
        FileOp::Create { content: Content::Text(text), .. } => {
            let lines = text.lines().map(polypatch::plan::LineText::from).collect();
            let mut delete = FileEdit::delete(file.path.clone());
            if let FileOp::Delete { expect, .. } = &mut delete.op {
                *expect = Some(Expect::Lines(lines));
            }
            Ok(delete)
        }
        FileOp::Create { .. } => Err(whole("it creates a binary file, which the inverse would delete unchecked")),
        FileOp::Delete { expect: Some(Expect::Lines(lines)), .. }
            if let Some(Deleted { mode }) = source.and_then(|text| plain_deletion(text, file)) =>
        {
            let mut content = String::new();
            for line in lines {
                content.push_str(line.as_ref());
                content.push('\n');
            }
            let mut create = FileEdit::create(file.path.clone(), content);
            if let FileOp::Create { mode: to, .. } = &mut create.op {
                *to = mode;
            }
            create.span = file.span;
            Ok(create)
        }
        FileOp::Delete { .. } => Err(whole(
            "it deletes the file, and the patch does not carry its exact bytes (line ends, final newline) to \
             write it back",
        )),
        FileOp::Replace { .. } => {
            Err(whole("it replaces the whole file, and the patch does not carry the old content"))
        }
        FileOp::Binary(_) => Err(whole("a binary patch is not inverted (its reverse data is not kept)")),
        FileOp::Modify(modify) => reverse_modify(file, modify, source),
        _ => Err(whole("this operation is not inverted")),
    }
}

fn reverse_modify(file: &FileEdit, modify: &Modify, source: Option<&str>) -> Result<FileEdit, Why> {
    if modify.copy_from.is_some() {
        return Err(whole("it copies a file, and the copy's content before the patch is not known"));
    }
    if modify.mode.is_some() {
        return Err(whole("it changes the file's mode, and the patch does not say the old mode"));
    }
    if modify.post.strip_trailing_whitespace {
        return Err(whole("it strips trailing whitespace from every line, which cannot be put back"));
    }
    if modify.if_missing == IfMissing::Create {
        return Err(whole("it creates the file when missing, and whether it existed before is not known"));
    }
    let final_newline = match modify.final_newline {
        None => None,
        // `\ No newline` after the old side only: the old file ended without one.
        Some(true) => Some(false),
        // After the new side: the inverse keeps it only when the last line is one both
        // sides share (a context line).
        Some(false) => {
            let last_kept = modify.edits.last().is_some_and(|e| match &e.action {
                Action::Replace(r) => r.kept.as_ref().and_then(|k| k.last().copied()).flatten().is_some(),
                _ => false,
            });
            if last_kept {
                Some(false)
            } else if let Some(old_side) = source.and_then(|text| old_side_ends_without_newline(text, file)) {
                // The diff says it: a `\` line after a removed line marks the old side.
                Some(!old_side)
            } else {
                return Err(whole(
                    "`\\ No newline at end of file` follows the new side, and whether the old side ended with a \
                     newline is not kept",
                ));
            }
        }
    };
    let in_order = modify.edits.iter().all(|e| e.scope.after_previous);
    let mut edits = Vec::with_capacity(modify.edits.len());
    // Edits that follow each other down the file keep their order: the inverse of each
    // stands where the file has its new side, above which the inverses before it have
    // put the old sides back. Others are undone last first.
    let mut offset: isize = 0;
    for (i, edit) in modify.edits.iter().enumerate() {
        let named = || Some(if edit.label.is_empty() { format!("edit {}", i + 1) } else { edit.label.clone() });
        let (mut inverse, grown) = reverse_edit(edit).map_err(|reason| (named(), reason))?;
        if in_order {
            inverse.scope.line_hint = edit.scope.line_hint.map(|h| h.saturating_add_signed(-offset).max(1));
            offset += grown;
        } else {
            inverse.scope.after_previous = false;
        }
        edits.push(inverse);
    }
    if !in_order {
        edits.reverse();
    }
    let mut inverse = modify.clone();
    inverse.edits = edits;
    inverse.final_newline = final_newline;
    std::mem::swap(&mut inverse.preimage, &mut inverse.postimage);
    let mut path = file.path.clone();
    if let Some(to) = &modify.move_to {
        inverse.move_to = Some(std::mem::replace(&mut path, to.clone()));
        inverse.if_dest_exists = IfExists::ErrorUnlessIdentical;
    }
    let mut out = FileEdit::new(path, FileOp::Modify(inverse));
    out.span = file.span;
    Ok(out)
}

/// The inverse of one edit, and how many lines the forward edit added (negative: removed).
fn reverse_edit(edit: &Edit) -> Result<(Edit, isize), String> {
    let policy = &edit.policy;
    match policy.occurrence {
        Occurrence::All | Occurrence::Exactly(2..) => {
            return Err("it replaces every occurrence, and which of them were there before is not known".into());
        }
        _ => {}
    }
    if policy.ignore_blank_lines || policy.leading_blank_lines > 0 || policy.trailing_blank_lines > 0 {
        return Err("it matches the file ignoring blank lines, so the blank lines it removed are not known".into());
    }
    let (target, action, grown) = match (&edit.target, &edit.action) {
        (Target::Text(find), Action::Replace(Replacement { text: Some(text), .. })) => {
            if text.is_empty() {
                return Err("it deletes text, and nothing around it marks where to put it back".into());
            }
            (Target::Text(text.clone()), Action::Replace(Replacement::text(find.clone())), 0)
        }
        (Target::Lines(old), Action::Replace(replacement)) => {
            let new = &replacement.lines;
            if new.is_empty() {
                return Err("it deletes lines, and nothing around them marks where to put them back".into());
            }
            let mut back = Replacement::lines(old.clone());
            if let Some(kept) = &replacement.kept {
                let mut inverse = vec![None; old.len()];
                for (j, k) in kept.iter().enumerate() {
                    if let Some(i) = *k
                        && let Some(slot) = inverse.get_mut(i)
                    {
                        *slot = Some(j);
                    }
                }
                back = back.with_kept(inverse);
            }
            if let Some(ends) = &replacement.line_ends {
                // The old lines' own terminators are not kept: the one the new lines all
                // have, or none to say (the file's usual one) when they differ.
                match ends.first() {
                    Some(first) if ends.iter().all(|e| e == first) => {
                        back = back.with_line_ends(vec![*first; old.len()]);
                    }
                    Some(_) => return Err("its lines end in mixed ways, and the old lines' ends are not kept".into()),
                    None => {}
                }
            }
            (Target::Lines(new.clone()), Action::Replace(back), len_diff(new.len(), old.len()))
        }
        (Target::Lines(at), Action::InsertAfter { lines }) => {
            let mut both = at.clone();
            both.extend(lines.iter().cloned());
            let kept = (0..at.len()).map(Some).collect();
            (Target::Lines(both), Action::Replace(Replacement::lines(at.clone()).with_kept(kept)), lines.len() as isize)
        }
        (Target::Lines(at), Action::InsertBefore { lines }) => {
            let mut both = lines.clone();
            both.extend(at.iter().cloned());
            let kept = (lines.len()..lines.len() + at.len()).map(Some).collect();
            (Target::Lines(both), Action::Replace(Replacement::lines(at.clone()).with_kept(kept)), lines.len() as isize)
        }
        (
            Target::StartOfFile | Target::EndOfFile,
            Action::InsertBefore { lines } | Action::InsertAfter { lines } | Action::Replace(Replacement { lines, .. }),
        ) if !lines.is_empty() => {
            let mut back = Replacement::lines(Vec::new()).with_kept(Vec::new());
            if let Action::Replace(Replacement { line_ends: Some(_), .. }) = &edit.action {
                back = back.with_line_ends(Vec::<Newline>::new());
            }
            let mut inverse = Edit::new(Target::Lines(lines.clone()), Action::Replace(back));
            inverse.scope = edit.scope.clone();
            inverse.scope.at_end_of_file |= matches!(edit.target, Target::EndOfFile);
            if matches!(edit.target, Target::StartOfFile) {
                inverse.scope.line_hint = Some(1);
            }
            inverse.policy = edit.policy.clone();
            inverse.label.clone_from(&edit.label);
            inverse.span = edit.span;
            return Ok((inverse, lines.len() as isize));
        }
        (Target::Range { .. }, _) => {
            return Err("it spans a range whose middle lines the patch does not write".into());
        }
        (_, Action::Delete) => {
            return Err("it deletes lines, and nothing around them marks where to put them back".into());
        }
        _ => return Err("this kind of edit is not inverted".into()),
    };
    let mut inverse = Edit::new(target, action);
    inverse.scope = edit.scope.clone();
    inverse.policy = edit.policy.clone();
    if matches!(inverse.policy.occurrence, Occurrence::First | Occurrence::FirstAfterAnchor | Occurrence::Exactly(_)) {
        // The new side may also stand before the place it was written: the inverse must
        // find it once.
        inverse.policy.occurrence = Occurrence::Unique;
    }
    inverse.label.clone_from(&edit.label);
    inverse.span = edit.span;
    Ok((inverse, grown))
}

fn len_diff(new: usize, old: usize) -> isize {
    new as isize - old as isize
}

/// For a diff section that deletes a file: `Some` (with the file's mode, when the diff
/// says it) when its lines are the file's exact bytes: every line ends with `\n` (no
/// `\r\n`, no `\ No newline at end of file`). `None` otherwise.
fn plain_deletion(text: &str, file: &FileEdit) -> Option<Deleted> {
    let span = file.span?;
    let section = text.get(span.start..span.end)?;
    if section.contains('\r') || section.lines().any(|line| line.starts_with('\\')) {
        return None;
    }
    let mode = section
        .lines()
        .find_map(|line| line.strip_prefix("deleted file mode "))
        .and_then(|m| u32::from_str_radix(m.trim(), 8).ok())
        .map(|m| m & 0o777);
    Some(Deleted { mode })
}

/// A deleted file a diff carries exactly.
struct Deleted {
    /// Its permission bits, when the diff says them.
    mode: Option<u32>,
}

/// Whether the old side of a diff section ends without a newline (a `\ No newline at end
/// of file` line after a removed or context line); `None` when the section is not found.
fn old_side_ends_without_newline(text: &str, file: &FileEdit) -> Option<bool> {
    let span = file.span?;
    let section = text.get(span.start..span.end)?;
    let mut previous = "";
    for line in section.lines() {
        if line.starts_with('\\')
            && (previous.starts_with('-') || previous.starts_with(' '))
            && !previous.starts_with("---")
        {
            return Some(true);
        }
        previous = line;
    }
    Some(false)
}

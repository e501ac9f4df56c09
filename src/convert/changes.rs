//! The computed changes as one entry per file: created, deleted, modified or renamed,
//! with the bytes and modes on both sides.

use std::collections::HashMap;

use polypatch_core::render::{Side, text};
use polypatch_core::{ApplyReport, Change, Entry, FileDelta, FileSource};

use super::{ConvertError, Operation};

/// The changes of a computed plan as deltas, in order, a deletion and a creation that the
/// plan moved paired as one rename.
pub(crate) fn deltas<S: FileSource + ?Sized>(
    files: &S,
    changes: &[Change],
    report: &ApplyReport,
) -> Result<Vec<FileDelta>, ConvertError> {
    let mut out: Vec<FileDelta> = Vec::new();
    for change in changes {
        let path = change.path.as_str().to_owned();
        let before = match files.read(&change.path) {
            Ok(Entry::File { bytes, mode }) => Some(Side::new(bytes.into_vec(), mode)),
            Ok(_) => None,
            Err(source) => return Err(ConvertError::Read { path, source }),
        };
        let after = (change.kind.written())
            .map(|(bytes, mode)| Side::new(bytes.to_vec(), mode.or(before.as_ref().and_then(|b| b.mode))));
        out.push(FileDelta::new(path, before, after));
    }
    // Pair the moves the plan made: the source deleted, the destination created. Each
    // path's delta is found through a map, and a paired destination (neither side left)
    // is only marked, then left out in one pass: linear in the files, however many move.
    let mut at: HashMap<String, usize> = HashMap::with_capacity(out.len());
    for (i, d) in out.iter().enumerate() {
        at.entry(d.path.clone()).or_insert(i);
    }
    let mut paired = vec![false; out.len()];
    for file in &report.files {
        let Some(to) = &file.moved_to else { continue };
        let deleted = |i: &usize| out[*i].after.is_none() && out[*i].before.is_some();
        let created = |i: &usize| out[*i].before.is_none() && out[*i].after.is_some();
        let from = at.get(file.path.as_str()).copied().filter(deleted);
        let dest = at.get(to.as_str()).copied().filter(created);
        if let (Some(from), Some(dest)) = (from, dest) {
            paired[dest] = true;
            out[from].after = out[dest].after.take();
            out[from].renamed_to = Some(out[dest].path.clone());
        }
    }
    let mut paired = paired.into_iter();
    out.retain(|_| !paired.next().unwrap_or(false));
    Ok(out)
}

/// The kind of difference between what a rendering should give and what it gives.
pub(crate) fn classify(want: Option<&[u8]>, have: Option<&[u8]>) -> Operation {
    let (Some(want), Some(have)) = (want, have) else {
        return if want.is_none() { Operation::Delete } else { Operation::Edit };
    };
    let (Some(want), Some(have)) = (text(want), text(have)) else { return Operation::Binary };
    let ((want_bom, want), (have_bom, have)) = (without_bom(want), without_bom(have));
    if want_bom != have_bom && want == have {
        return Operation::ByteOrderMark;
    }
    let lf = |t: &str| t.replace("\r\n", "\n").replace('\r', "\n");
    let (want_lf, have_lf) = (lf(want), lf(have));
    if want_lf == have_lf {
        return Operation::LineEnding;
    }
    if want_lf.strip_suffix('\n').unwrap_or(&want_lf) == have_lf.strip_suffix('\n').unwrap_or(&have_lf) {
        return Operation::FinalNewline;
    }
    let stripped = |t: &str| t.lines().map(|l| l.trim_end_matches([' ', '\t'])).collect::<Vec<_>>().join("\n");
    if stripped(&want_lf) == stripped(&have_lf) {
        return Operation::TrailingWhitespace;
    }
    Operation::Edit
}

/// Whether a text starts with a byte order mark, and the text after it.
fn without_bom(text: &str) -> (bool, &str) {
    text.strip_prefix('\u{feff}').map_or((false, text), |rest| (true, rest))
}

//! Edits in the Language Server Protocol's shape: what turns a file's old text into its new
//! one, as ranges of the old text (0-based lines, characters in UTF-16 code units) and the
//! text that replaces each.

use std::ops::Range as Bytes;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// How long the line diff behind [`text_edits`] may search for the fewest edits. Past it,
/// the diff gives larger edits, still exact: this bounds the time on two texts that share
/// little, whose best diff costs the square of their sizes.
const DIFF_DEADLINE: Duration = Duration::from_secs(1);

/// A place in a text, as LSP counts it: `line` is 0-based (a line ends at `\n`, `\r\n` or
/// `\r`); `character` is the offset in the line in UTF-16 code units (an emoji outside the
/// Basic Multilingual Plane counts 2, a byte order mark 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Position {
    /// 0-based line.
    pub line: u32,
    /// UTF-16 code units from the start of the line.
    pub character: u32,
}

impl Position {
    /// The position at `character` (UTF-16 code units) of 0-based `line`.
    pub fn new(line: u32, character: u32) -> Self {
        Position { line, character }
    }
}

/// The stretch of a text from `start` up to, not including, `end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Range {
    /// The first position it covers.
    pub start: Position,
    /// The position just after it (equal to `start` for an insertion).
    pub end: Position,
}

impl Range {
    /// The range from `start` to `end`.
    pub fn new(start: Position, end: Position) -> Self {
        Range { start, end }
    }
}

/// One replacement: the text in `range` of the old text becomes `new_text` (LSP's
/// `TextEdit`; its JSON field is `newText`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TextEdit {
    /// What it replaces, in the old text.
    pub range: Range,
    /// What it puts there (empty for a deletion).
    pub new_text: String,
}

impl TextEdit {
    /// Replaces `range` with `new_text`.
    pub fn new(range: Range, new_text: impl Into<String>) -> Self {
        TextEdit { range, new_text: new_text.into() }
    }
}

/// The edits that turn `old` into `new`, as an editor applies them through its undo stack:
/// in order, not overlapping, every range in `old`'s coordinates (LSP applies a list of
/// edits to the document as it was before all of them). Lines are compared first, then
/// each changed run of lines is narrowed to the characters that differ, so changing one
/// word gives one small edit. A range never splits a `\r\n` nor a character; `old` and
/// `new` are taken as they are, a byte order mark included (U+FEFF, one unit on line 0).
///
/// Positions beyond `u32::MAX` lines or characters (a text over 4 GiB) saturate.
///
/// ```
/// use polypatch::editor::{text_edits, Position, Range, TextEdit};
///
/// let edits = text_edits("fn main() {\r\n    hi();\r\n}\r\n", "fn main() {\r\n    hello();\r\n}\r\n");
/// assert_eq!(edits, [TextEdit::new(Range::new(Position::new(1, 5), Position::new(1, 6)), "ello")]);
/// ```
pub fn text_edits(old: &str, new: &str) -> Vec<TextEdit> {
    if old == new {
        return Vec::new();
    }
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let old_starts = line_starts(&old_lines);
    let new_starts = line_starts(&new_lines);
    let ops = similar::capture_diff_slices_deadline(
        similar::Algorithm::Myers,
        &old_lines,
        &new_lines,
        Some(Instant::now() + DIFF_DEADLINE),
    );
    let positions = Positions::new(old);
    // A changed run of lines (old lines, new lines) as one edit.
    let edit = |(o, n): (Bytes<usize>, Bytes<usize>)| {
        narrowed(old, new, old_starts[o.start]..old_starts[o.end], new_starts[n.start]..new_starts[n.end], &positions)
    };
    let mut edits = Vec::new();
    // The changed run of lines being gathered.
    let mut run: Option<(Bytes<usize>, Bytes<usize>)> = None;
    for op in ops {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            edits.extend(run.take().map(edit));
        } else {
            let (o, n) = run.get_or_insert((old_range.clone(), new_range.clone()));
            o.end = old_range.end;
            n.end = new_range.end;
        }
    }
    edits.extend(run.map(edit));
    edits
}

/// The byte offset where each line starts, and the text's length after the last.
fn line_starts(lines: &[&str]) -> Vec<usize> {
    let mut starts = Vec::with_capacity(lines.len() + 1);
    let mut at = 0;
    starts.push(at);
    for line in lines {
        at += line.len();
        starts.push(at);
    }
    starts
}

/// The edit replacing old bytes `o` with new bytes `n`, without the characters both begin
/// and end with.
fn narrowed(old: &str, new: &str, o: Bytes<usize>, n: Bytes<usize>, positions: &Positions) -> TextEdit {
    let (a, b) = (&old.as_bytes()[o.clone()], &new.as_bytes()[n.clone()]);
    let mut prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    // Equal bytes before `prefix` make the byte at `prefix` a continuation byte in both
    // texts or in neither: one boundary check serves both.
    while !old.is_char_boundary(o.start + prefix) {
        prefix -= 1;
    }
    let room = a.len().min(b.len()) - prefix;
    let mut suffix = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count().min(room);
    // The suffix's bytes are the same in both texts: so is whether it starts a character.
    while !old.is_char_boundary(o.end - suffix) {
        suffix -= 1;
    }
    let (mut start, mut end) = (o.start + prefix, o.end - suffix);
    let (mut new_start, mut new_end) = (n.start + prefix, n.end - suffix);
    // A `\r\n` is one line break: a range starts before it or after it, never between
    // (the byte widened over is in the common prefix or suffix, the same in both texts).
    if start > 0 && old.as_bytes()[start - 1] == b'\r' && old.as_bytes().get(start) == Some(&b'\n') {
        start -= 1;
        new_start -= 1;
    }
    if end > 0 && old.as_bytes()[end - 1] == b'\r' && old.as_bytes().get(end) == Some(&b'\n') {
        end += 1;
        new_end += 1;
    }
    TextEdit::new(Range::new(positions.at(start), positions.at(end)), &new[new_start..new_end])
}

/// Byte offsets of a text as LSP positions.
struct Positions<'a> {
    text: &'a str,
    /// Where each line starts: after each `\n`, each `\r\n` and each lone `\r`.
    starts: Vec<usize>,
}

impl<'a> Positions<'a> {
    fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        for (i, &byte) in bytes.iter().enumerate() {
            if byte == b'\n' || (byte == b'\r' && bytes.get(i + 1) != Some(&b'\n')) {
                starts.push(i + 1);
            }
        }
        Positions { text, starts }
    }

    /// The position of byte `offset` (a character boundary, not inside a `\r\n`).
    fn at(&self, offset: usize) -> Position {
        let line = self.starts.partition_point(|&start| start <= offset) - 1;
        let character: usize = self.text[self.starts[line]..offset].chars().map(char::len_utf16).sum();
        Position::new(saturate(line), saturate(character))
    }
}

fn saturate(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

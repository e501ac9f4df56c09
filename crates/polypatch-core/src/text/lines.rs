//! Text files as lines with their own line terminators, so that editing one line never
//! changes another line's ending, a missing final newline stays missing, and a UTF-8 BOM
//! survives.

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, Range, RangeBounds};

#[cfg(feature = "serde")]
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::text::eol::{Eol, LineBreaks};
use crate::text::shared::SharedText;

/// One line: its text without terminator, and the terminator (closed: a line is these
/// two, so not `#[non_exhaustive]`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct Line {
    /// The text, without the terminator.
    pub text: LineText,
    /// The terminator.
    pub eol: Eol,
}

/// The text of one line of a patch, without its terminator: a range of the patch's text,
/// which all of its lines share, or a text of its own.
///
/// A parsed patch keeps one copy of its text, not one allocation per line; cloning a line
/// counts a reference. (A file's lines are read through the file: [`TextFile::line`].)
/// It reads as a `str` (through [`Deref`]), compares, hashes, prints and serializes as its
/// text, whatever it is made of.
///
/// ```
/// use polypatch_core::{LineText, SharedText};
///
/// let patch = SharedText::new("-one\n+two\n".to_string());
/// let lines = LineText::slices(&patch, [1..4, 6..9]);
/// assert_eq!(lines[1], "two");
/// assert_eq!(lines[1], LineText::from("two".to_string()));
/// assert_eq!(lines[1].len(), 3);
/// ```
#[derive(Clone)]
pub struct LineText {
    /// The text this one is a range of.
    buf: SharedText,
    /// Where the range starts, in bytes.
    start: u32,
    /// The range's length, or [`WHOLE`]: all of `buf`.
    len: u32,
}

/// The length of a [`LineText`] that is all of its buffer (a text of its own, of any length).
const WHOLE: u32 = u32::MAX;

impl LineText {
    /// The text `buf[range]`, sharing `buf` instead of copying it: many lines cut from one
    /// text (a parsed patch's lines) cost one allocation in all, and each
    /// clone of a line only counts a reference. A range that does not fit the offsets a
    /// line keeps (past 4 GiB) gets a copy of its own; either way the line reads, compares
    /// and serializes as its text.
    ///
    /// ```
    /// use polypatch_core::{LineText, SharedText};
    ///
    /// let patch = SharedText::new("-old\n+new\n".to_string());
    /// let old = LineText::slice(&patch, 1..4);
    /// assert_eq!(old, "old");
    /// assert_eq!(LineText::slice(&patch, 6..9), LineText::from("new"));
    /// ```
    ///
    /// # Panics
    ///
    /// When `range` is not a range of `buf` on character boundaries, as `&buf[range]`
    /// does.
    #[inline]
    pub fn slice(buf: &SharedText, range: Range<usize>) -> LineText {
        check_range(buf, &range, "LineText::slice");
        LineText::shared(buf, range.start, range.end)
    }

    /// [`LineText::slice`]s of `buf`, one per range, counting their references to `buf`
    /// at once rather than one by one: the way to cut many lines from one text.
    ///
    /// ```
    /// use polypatch_core::{LineText, SharedText};
    ///
    /// let patch = SharedText::new("-old\n+new\n".to_string());
    /// assert_eq!(LineText::slices(&patch, [1..4, 6..9]), ["old", "new"]);
    /// ```
    ///
    /// # Panics
    ///
    /// When a range is not a range of `buf` on character boundaries, as `&buf[range]`
    /// does.
    pub fn slices<I>(buf: &SharedText, ranges: I) -> Vec<LineText>
    where
        I: IntoIterator<Item = Range<usize>>,
    {
        let mut cut = Cutter { buf, who: "LineText::slices" };
        ranges.into_iter().map(|range| cut.slice(range)).collect()
    }

    /// A cutter of many [`LineText::slice`]s of `buf` one at a time, counting their
    /// references to `buf` in batches rather than one by one (for a parser that cuts
    /// lines as it goes; [`LineText::slices`] when the ranges are at hand).
    ///
    /// ```
    /// use polypatch_core::{LineText, SharedText};
    ///
    /// let patch = SharedText::new("-old\n+new\n".to_string());
    /// let mut cut = LineText::cutter(&patch);
    /// let (old, new) = (cut.slice(1..4), cut.slice(6..9));
    /// assert_eq!([old, new], ["old", "new"]);
    /// ```
    pub fn cutter(buf: &SharedText) -> Cutter<'_> {
        Cutter { buf, who: "Cutter::slice" }
    }

    /// Copies `lines` into one buffer they all share ([`LineText::slice`]s of it): one
    /// allocation for them all instead of one each.
    ///
    /// ```
    /// use polypatch_core::LineText;
    ///
    /// let lines = LineText::copy_all(["fn f() {", "}"]);
    /// assert_eq!(lines, ["fn f() {", "}"]);
    /// ```
    pub fn copy_all<'a, I>(lines: I) -> Vec<LineText>
    where
        I: IntoIterator<Item = &'a str>,
        I::IntoIter: Clone,
    {
        let lines = lines.into_iter();
        let (count, len) = lines.clone().fold((0, 0), |(n, len), line| (n + 1, len + line.len()));
        let mut buf = String::with_capacity(len);
        lines.clone().for_each(|line| buf.push_str(line));
        let buf = SharedText::new(buf);
        let mut out = Vec::with_capacity(count);
        let mut at = 0;
        for line in lines.take(count) {
            out.push(LineText::shared(&buf, at, at + line.len()));
            at += line.len();
        }
        out
    }

    /// `buf[start..end]`, sharing `buf`; a range past what the offsets hold (a file over
    /// 4 GiB) gets a copy of its own.
    #[inline]
    fn shared(buf: &SharedText, start: usize, end: usize) -> LineText {
        match (u32::try_from(start), u32::try_from(end - start)) {
            (Ok(start), Ok(len)) if len != WHOLE => LineText { buf: buf.clone(), start, len },
            _ => LineText::copied(buf, start, end),
        }
    }

    /// A copy of `buf[start..end]` of its own: a range past 4 GiB.
    #[cold]
    #[inline(never)]
    fn copied(buf: &SharedText, start: usize, end: usize) -> LineText {
        LineText::from(&buf[start..end])
    }

    /// The text.
    #[inline]
    pub fn as_str(&self) -> &str {
        if self.len == WHOLE {
            return &self.buf;
        }
        let start = self.start as usize;
        &self.buf[start..start + self.len as usize]
    }

    /// The text, to change in place: a text shared with other lines is copied first (the
    /// other lines keep theirs).
    pub fn to_mut(&mut self) -> &mut String {
        if self.len != WHOLE || self.buf.get_mut().is_none() {
            *self = LineText::from(self.as_str());
        }
        self.buf.get_mut().expect("a text of its own that was just made has one handle")
    }

    /// Shortens the text to `len` bytes, as [`String::truncate`] does, without copying a
    /// shared text.
    ///
    /// # Panics
    ///
    /// When `len` is not on a character boundary, as [`String::truncate`].
    pub fn truncate(&mut self, len: usize) {
        if len >= self.as_str().len() {
            return;
        }
        match u32::try_from(len) {
            Ok(short) if self.len != WHOLE && self.as_str().is_char_boundary(len) => self.len = short,
            _ => self.to_mut().truncate(len),
        }
    }

    /// The text as a `String` (without a copy when the text is its own and not shared).
    pub fn into_string(self) -> String {
        if self.len == WHOLE {
            return self.buf.into_string();
        }
        self.as_str().to_string()
    }

    /// Whether the text is a range of a buffer (a parsed patch's text) rather than a text
    /// of its own.
    #[cfg(test)]
    fn is_range(&self) -> bool {
        self.len != WHOLE
    }
}

/// Cuts [`LineText`]s from one [`SharedText`] ([`LineText::cutter`]).
pub struct Cutter<'a> {
    buf: &'a SharedText,
    /// The function named in a panic.
    who: &'static str,
}

/// Panics, naming `who`, when `range` is not a range of `buf` on character boundaries.
#[inline]
#[track_caller]
fn check_range(buf: &SharedText, range: &Range<usize>, who: &str) {
    assert!(
        buf.get(range.clone()).is_some(),
        "{who}: {range:?} is not a range of the {}-byte text on character boundaries",
        buf.len()
    );
}

impl Cutter<'_> {
    /// `buf[range]`, as [`LineText::slice`] cuts it.
    ///
    /// # Panics
    ///
    /// When `range` is not a range of the text on character boundaries, as `&buf[range]`
    /// does.
    #[inline]
    pub fn slice(&mut self, range: Range<usize>) -> LineText {
        check_range(self.buf, &range, self.who);
        LineText::shared(self.buf, range.start, range.end)
    }
}

impl fmt::Debug for Cutter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cutter").field("len", &self.buf.len()).finish_non_exhaustive()
    }
}

impl Default for LineText {
    fn default() -> Self {
        LineText::from(String::new())
    }
}

impl Deref for LineText {
    type Target = str;

    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for LineText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for LineText {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for LineText {
    fn from(text: String) -> Self {
        LineText { buf: SharedText::new(text), start: 0, len: WHOLE }
    }
}

impl From<&str> for LineText {
    fn from(text: &str) -> Self {
        LineText::from(text.to_string())
    }
}

impl From<&String> for LineText {
    fn from(text: &String) -> Self {
        LineText::from(text.as_str())
    }
}

impl From<LineText> for String {
    fn from(text: LineText) -> Self {
        text.into_string()
    }
}

impl PartialEq for LineText {
    #[inline]
    fn eq(&self, other: &LineText) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for LineText {}

impl PartialEq<str> for LineText {
    #[inline]
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for LineText {
    #[inline]
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for LineText {
    #[inline]
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<LineText> for str {
    fn eq(&self, other: &LineText) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<LineText> for &str {
    fn eq(&self, other: &LineText) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<LineText> for String {
    fn eq(&self, other: &LineText) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialOrd for LineText {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for LineText {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

/// Hashes as its text does, so that a `str` finds it in a map.
impl Hash for LineText {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for LineText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for LineText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(feature = "serde")]
impl Serialize for LineText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(feature = "serde")]
impl<'de> Deserialize<'de> for LineText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(LineText::from)
    }
}

/// A decoded text file: its lines, each a range of the text that was read or of the texts
/// written into it since, with its own terminator.
///
/// The lines hold no reference to a text of their own: a file of a hundred thousand
/// lines is one shared text (counted once, however many lines it has), one buffer of the
/// texts edits wrote, and a list of ranges. A line is read through its file
/// ([`TextFile::line`], [`TextFile::lines`]).
///
/// ```
/// use polypatch_core::{Eol, TextFile};
///
/// let mut file = TextFile::parse("one\ntwo\r\n");
/// assert_eq!(file.line(1).text, "two");
/// assert_eq!(file.line(1).eol, Eol::CrLf);
/// file.set_text(0, "1");
/// assert_eq!(file.render(), "1\ntwo\r\n");
/// ```
#[derive(Clone, Default)]
pub struct TextFile {
    /// The text that was read: the unchanged lines are ranges of it.
    text: SharedText,
    /// The texts written since, each followed by its terminator: the other lines' ranges.
    added: String,
    /// Where each line is.
    at: Vec<At>,
    /// Whether the file started with a UTF-8 byte order mark.
    pub bom: bool,
    /// How many of the first lines are still as they were read: one run of the text that
    /// was read, each line followed there by its terminator (no other line was put before
    /// them, and none of them was changed). Writing or comparing the file takes them as
    /// one piece without looking at each. May exceed the number of lines.
    head: usize,
    /// How many of the last lines are still as they were read, as [`TextFile::head`] for
    /// the first ones.
    tail: usize,
    /// No line ends with `\r` or `\r\n` (the text read had no `\r`, and no line written
    /// since ends so): the file's dominant terminator is `\n` without counting.
    lf_only: bool,
}

/// Where one line of a [`TextFile`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct At {
    /// Where its text starts, in bytes.
    start: usize,
    /// Where its text ends (its terminator is not part of it).
    end: usize,
    /// Its terminator.
    eol: Eol,
    /// A range of the texts written since ([`TextFile::added`]), not of the file's text.
    added: bool,
}

/// One line of a [`TextFile`], as read through it: its text without terminator, and the
/// terminator (closed, as [`Line`] is).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LineRef<'a> {
    /// The text, without the terminator.
    pub text: &'a str,
    /// The terminator.
    pub eol: Eol,
}

impl From<LineRef<'_>> for Line {
    fn from(line: LineRef<'_>) -> Line {
        Line { text: LineText::from(line.text), eol: line.eol }
    }
}

/// The lines of a [`TextFile`], or a run of them ([`Lines::slice`]): a view that reads
/// each line without copying it. Cheap to copy.
#[derive(Clone, Copy)]
pub struct Lines<'a> {
    text: &'a str,
    /// The same text, shared: what [`Lines::owned`] cuts an unchanged line from.
    shared: &'a SharedText,
    added: &'a str,
    at: &'a [At],
}

impl<'a> Lines<'a> {
    /// How many lines.
    #[inline]
    pub fn len(&self) -> usize {
        self.at.len()
    }

    /// Whether there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// The text of line `i` (from 0), without its terminator.
    ///
    /// # Panics
    ///
    /// When there is no line `i`, as indexing a slice does.
    #[inline]
    pub fn text(&self, i: usize) -> &'a str {
        self.text_at(&self.at[i])
    }

    #[inline]
    fn text_at(&self, at: &At) -> &'a str {
        let buf = if at.added { self.added } else { self.text };
        &buf[at.start..at.end]
    }

    /// The terminator of line `i` (from 0).
    ///
    /// # Panics
    ///
    /// When there is no line `i`, as indexing a slice does.
    #[inline]
    pub fn eol(&self, i: usize) -> Eol {
        self.at[i].eol
    }

    /// Line `i` (from 0).
    ///
    /// # Panics
    ///
    /// When there is no line `i`, as indexing a slice does.
    #[inline]
    pub fn line(&self, i: usize) -> LineRef<'a> {
        let at = &self.at[i];
        LineRef { text: self.text_at(at), eol: at.eol }
    }

    /// Line `i` (from 0) as a [`Line`] of its own: a line of the text that was read shares
    /// that text (a count of it, no copy), a line written since gets a copy. Kept lines an
    /// edit writes back cost no allocation each.
    ///
    /// # Panics
    ///
    /// When there is no line `i`, as indexing a slice does.
    pub(crate) fn owned(&self, i: usize) -> Line {
        let at = &self.at[i];
        let text =
            if at.added { LineText::from(self.text_at(at)) } else { LineText::shared(self.shared, at.start, at.end) };
        Line { text, eol: at.eol }
    }

    /// Line `i` (from 0), if there is one.
    #[inline]
    pub fn get(&self, i: usize) -> Option<LineRef<'a>> {
        (i < self.len()).then(|| self.line(i))
    }

    /// The first line, if any.
    pub fn first(&self) -> Option<LineRef<'a>> {
        self.get(0)
    }

    /// The last line, if any.
    pub fn last(&self) -> Option<LineRef<'a>> {
        self.len().checked_sub(1).map(|i| self.line(i))
    }

    /// The lines of `range` (from 0, end excluded).
    ///
    /// # Panics
    ///
    /// When `range` is not a range of the lines, as slicing a slice does.
    #[inline]
    #[must_use]
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Lines<'a> {
        let range = (range.start_bound().cloned(), range.end_bound().cloned());
        Lines { at: &self.at[range], ..*self }
    }

    /// Whether the texts the lines are ranges of are all ASCII (so every line is).
    pub(crate) fn all_ascii(&self) -> bool {
        self.text.is_ascii() && self.added.is_ascii()
    }

    /// The lines in order.
    #[inline]
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = LineRef<'a>> + ExactSizeIterator + Clone + 'a {
        let view = *self;
        self.at.iter().map(move |at| LineRef { text: view.text_at(at), eol: at.eol })
    }

    /// The lines' texts in order, without their terminators.
    #[inline]
    pub fn texts(&self) -> impl DoubleEndedIterator<Item = &'a str> + ExactSizeIterator + Clone + 'a {
        let view = *self;
        self.at.iter().map(move |at| view.text_at(at))
    }

    /// The text and terminator of each line, handed to `piece` in order and without a copy:
    /// each run of lines that still stand one after the other in their buffer (terminators
    /// included) as one slice of it. Empty pieces are left out. Stops at the first error
    /// `piece` returns.
    #[cfg(feature = "text-target")]
    pub(crate) fn try_for_each_piece<E>(&self, mut piece: impl FnMut(&'a str) -> Result<(), E>) -> Result<(), E> {
        let mut emit = |text: &'a str| if text.is_empty() { Ok(()) } else { piece(text) };
        let run = self.gather(None, &mut emit)?;
        self.flush(run, &mut emit)
    }

    /// [`Lines::try_for_each_piece`]'s walk, from the run gathered before these lines
    /// (`run`): hands on every piece it completes and returns the run still open.
    fn gather<E>(&self, mut run: Run, emit: &mut Emit<'a, '_, E>) -> Result<Run, E> {
        for at in self.at {
            let buf = if at.added { self.added } else { self.text };
            // Matched as patterns, not compared as slices: no `memcmp` call per line.
            let follows = matches!(
                (at.eol, &buf.as_bytes()[at.end..]),
                (Eol::None, _) | (Eol::Lf, [b'\n', ..]) | (Eol::Cr, [b'\r', ..]) | (Eol::CrLf, [b'\r', b'\n', ..])
            );
            let with_eol = at.end + at.eol.as_str().len();
            match &mut run {
                Some((added, _, end)) if follows && *added == at.added && *end == at.start => *end = with_eol,
                _ => {
                    self.flush(run.take(), emit)?;
                    if follows {
                        run = Some((at.added, at.start, with_eol));
                    } else {
                        emit(&buf[at.start..at.end])?;
                        emit(at.eol.as_str())?;
                    }
                }
            }
        }
        Ok(run)
    }

    /// Hands on the run gathered, if any.
    fn flush<E>(&self, run: Run, emit: &mut Emit<'a, '_, E>) -> Result<(), E> {
        match run {
            Some((added, start, end)) => emit(&(if added { self.added } else { self.text })[start..end]),
            None => Ok(()),
        }
    }
}

/// A run of lines that stand one after the other in one buffer, gathered into one piece:
/// whether the buffer is the texts written since, and where the run starts and ends in it.
type Run = Option<(bool, usize, usize)>;

/// Where [`Lines::gather`] hands its pieces: called through a pointer, so that the walk is
/// compiled once per error type, not once per caller's closure (a call per piece, and
/// pieces are runs of lines).
type Emit<'a, 'f, E> = dyn FnMut(&'a str) -> Result<(), E> + 'f;

impl fmt::Debug for Lines<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for Lines<'a> {
    type Item = LineRef<'a>;
    type IntoIter = LinesIter<'a>;

    fn into_iter(self) -> LinesIter<'a> {
        LinesIter { lines: self, front: 0, back: self.len() }
    }
}

/// The lines of a [`Lines`] view in order (`for line in file.lines()`), without an
/// allocation.
#[derive(Clone)]
pub struct LinesIter<'a> {
    lines: Lines<'a>,
    /// The next line from the front, and one past the next from the back.
    front: usize,
    back: usize,
}

impl<'a> Iterator for LinesIter<'a> {
    type Item = LineRef<'a>;

    #[inline]
    fn next(&mut self) -> Option<LineRef<'a>> {
        (self.front < self.back).then(|| {
            self.front += 1;
            self.lines.line(self.front - 1)
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.back - self.front;
        (left, Some(left))
    }
}

impl DoubleEndedIterator for LinesIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        (self.front < self.back).then(|| {
            self.back -= 1;
            self.lines.line(self.back)
        })
    }
}

impl ExactSizeIterator for LinesIter<'_> {}

const BOM: &str = "\u{feff}";

impl TextFile {
    /// Splits UTF-8 text into lines. `\r\n`, `\n` and a lone `\r` all end a line, each
    /// line remembers which (Codex treats a lone `\r` as a line end too).
    pub fn parse(text: &str) -> TextFile {
        TextFile::parse_with(text, LineBreaks::Any)
    }

    /// Splits UTF-8 text into lines; with [`LineBreaks::LfOrCrLf`] a lone `\r` is part of
    /// the line's text, as git sees it.
    pub fn parse_with(text: &str, breaks: LineBreaks) -> TextFile {
        TextFile::parse_shared(&SharedText::new(text.to_string()), breaks)
    }

    /// Splits UTF-8 text into lines as [`TextFile::parse_with`] does, without copying it:
    /// every line is a range of `text`.
    pub fn parse_shared(text: &SharedText, breaks: LineBreaks) -> TextFile {
        let lone_cr = breaks == LineBreaks::Any;
        let bom = text.starts_with(BOM);
        let bytes = text.as_bytes();
        // Room for lines of 32 bytes on average, without a pass to count them (reading the
        // text twice costs more than growing the list now and then).
        let mut at = Vec::with_capacity(bytes.len() / 32 + 1);
        let mut start = if bom { BOM.len() } else { 0 };
        let line = |start, end, eol| At { start, end, eol, added: false };
        let lf_only = memchr::memchr(b'\r', &bytes[start..]).is_none();
        if lf_only {
            // Every line ends at a `\n` (most files): found a block at a time, not with a
            // search per line.
            let from = start;
            crate::text::newlines::for_each_newline(&bytes[from..], |i| {
                let i = from + i;
                at.push(line(start, i, Eol::Lf));
                start = i + 1;
            });
        } else {
            for i in memchr::memchr2_iter(b'\n', b'\r', bytes) {
                if i < start {
                    continue; // the `\n` of a `\r\n` already consumed (or the mark's bytes)
                }
                let (eol, next) = if bytes[i] == b'\n' {
                    (Eol::Lf, i + 1)
                } else if bytes.get(i + 1) == Some(&b'\n') {
                    (Eol::CrLf, i + 2)
                } else if !lone_cr {
                    continue;
                } else {
                    (Eol::Cr, i + 1)
                };
                at.push(line(start, i, eol));
                start = next;
            }
        }
        if start < text.len() {
            at.push(line(start, text.len(), Eol::None));
        }
        let n = at.len();
        TextFile { text: text.clone(), added: String::new(), at, bom, head: n, tail: n, lf_only }
    }

    /// Decodes bytes; `None` when they are not UTF-8.
    pub fn decode(bytes: &[u8]) -> Option<TextFile> {
        TextFile::decode_with(bytes, LineBreaks::Any)
    }

    /// Decodes bytes with the given line breaks; `None` when they are not UTF-8.
    pub fn decode_with(bytes: &[u8], breaks: LineBreaks) -> Option<TextFile> {
        std::str::from_utf8(bytes).ok().map(|t| TextFile::parse_with(t, breaks))
    }

    /// Makes a file of `lines`, each a text and its terminator.
    ///
    /// ```
    /// use polypatch_core::{Eol, TextFile};
    ///
    /// let file = TextFile::from_lines([("a", Eol::Lf), ("b", Eol::None)]);
    /// assert_eq!(file.render(), "a\nb");
    /// ```
    pub fn from_lines<'n>(lines: impl IntoIterator<Item = (&'n str, Eol)>) -> TextFile {
        let mut file = TextFile::default();
        file.splice(0..0, lines);
        file
    }

    /// The lines.
    #[inline]
    pub fn lines(&self) -> Lines<'_> {
        Lines { text: &self.text, shared: &self.text, added: &self.added, at: &self.at }
    }

    /// How many lines. A file ending with a newline has no empty last line.
    #[inline]
    pub fn len(&self) -> usize {
        self.at.len()
    }

    /// Whether the file has no line (it is empty, or holds only a byte order mark).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// Line `i` (from 0).
    ///
    /// # Panics
    ///
    /// When there is no line `i`, as indexing a slice does.
    #[inline]
    pub fn line(&self, i: usize) -> LineRef<'_> {
        self.lines().line(i)
    }

    /// Where `text` and then `eol` are written into the texts written since: its range
    /// there.
    fn add(&mut self, text: &str, eol: Eol) -> At {
        self.lf_only &= matches!(eol, Eol::Lf | Eol::None);
        let start = self.added.len();
        self.added.push_str(text);
        self.added.push_str(eol.as_str());
        At { start, end: start + text.len(), eol, added: true }
    }

    /// Replaces the lines of `range` with `new` (each a text and its terminator), as
    /// [`Vec::splice`] does.
    ///
    /// # Panics
    ///
    /// When `range` is not a range of the lines.
    pub fn splice<'n>(&mut self, range: Range<usize>, new: impl IntoIterator<Item = (&'n str, Eol)>) {
        self.touch(&range);
        let new: Vec<At> = new.into_iter().map(|(text, eol)| self.add(text, eol)).collect();
        self.at.splice(range, new);
    }

    /// Lines `range` are about to change (removed, replaced, or new lines put there): the
    /// lines before it and after it are all that can still be as they were read.
    fn touch(&mut self, range: &Range<usize>) {
        self.head = self.head.min(range.start);
        self.tail = self.tail.min(self.at.len().saturating_sub(range.end));
    }

    /// Replaces the lines of each range with its new lines (texts and terminators), as one
    /// [`TextFile::splice`] per range would, in one pass over the lines: the ranges in
    /// order, none overlapping another.
    ///
    /// # Panics
    ///
    /// When a range is not a range of the lines, or starts before the previous one ends.
    #[cfg(feature = "text-target")]
    pub(crate) fn splice_many<'n, I>(&mut self, places: impl IntoIterator<Item = (Range<usize>, I)>)
    where
        I: IntoIterator<Item = (&'n str, Eol)>,
    {
        let old = std::mem::take(&mut self.at);
        let mut at = Vec::with_capacity(old.len());
        let mut next = 0;
        for (range, new) in places {
            self.head = self.head.min(range.start);
            self.tail = self.tail.min(old.len().saturating_sub(range.end));
            at.extend_from_slice(&old[next..range.start]);
            for (text, eol) in new {
                at.push(self.add(text, eol));
            }
            next = range.end;
        }
        at.extend_from_slice(&old[next..]);
        self.at = at;
    }

    /// Inserts a line before line `i` (at the end for `i` = [`TextFile::len`]).
    ///
    /// # Panics
    ///
    /// When `i` is past the end.
    pub fn insert(&mut self, i: usize, text: &str, eol: Eol) {
        self.splice(i..i, [(text, eol)]);
    }

    /// Adds a line at the end.
    pub fn push(&mut self, text: &str, eol: Eol) {
        let at = self.add(text, eol);
        self.tail = 0;
        self.at.push(at);
    }

    /// Removes line `i`.
    ///
    /// # Panics
    ///
    /// When there is no line `i`.
    pub fn remove(&mut self, i: usize) {
        self.touch(&(i..i + 1));
        self.at.remove(i);
    }

    /// Gives line `i` the text `text`, keeping its terminator.
    ///
    /// # Panics
    ///
    /// When there is no line `i`.
    pub fn set_text(&mut self, i: usize, text: &str) {
        let eol = self.at[i].eol;
        self.touch(&(i..i + 1));
        self.at[i] = self.add(text, eol);
    }

    /// Gives line `i` the terminator `eol`.
    ///
    /// # Panics
    ///
    /// When there is no line `i`.
    pub fn set_eol(&mut self, i: usize, eol: Eol) {
        if self.at[i].eol != eol {
            self.lf_only &= matches!(eol, Eol::Lf | Eol::None);
            self.touch(&(i..i + 1));
            self.at[i].eol = eol;
        }
    }

    /// Shortens the text of line `i` to `len` bytes, as [`String::truncate`] does (a
    /// longer `len` changes nothing), without copying it.
    ///
    /// # Panics
    ///
    /// When there is no line `i`, or `len` is not on a character boundary of its text.
    pub fn truncate_text(&mut self, i: usize, len: usize) {
        let text = self.line(i).text;
        if len < text.len() {
            assert!(text.is_char_boundary(len), "assertion failed: self.is_char_boundary(new_len)");
            self.touch(&(i..i + 1));
            self.at[i].end = self.at[i].start + len;
        }
    }

    /// The file's bytes.
    pub fn render(&self) -> String {
        // The pieces first (runs of lines, few for an edited file), so that the lines are
        // walked once, not once more to size the result.
        let mut pieces = Vec::new();
        let gathered: Result<(), std::convert::Infallible> = self.try_for_each_piece(|piece| {
            pieces.push(piece);
            Ok(())
        });
        let Ok(()) = gathered;
        let mut out = String::with_capacity(pieces.iter().map(|p| p.len()).sum());
        for piece in pieces {
            out.push_str(piece);
        }
        out
    }

    /// The file's bytes, as [`TextFile::render`] gives them, handed to `piece` in order
    /// and without a copy: the byte order mark, then each run of lines that still stand
    /// one after the other in the text that was read or in the texts written since
    /// (terminators included) as one slice of it, and a line cut short or given another
    /// terminator as its text and then its terminator. Empty pieces are left out. Stops at
    /// the first error `piece` returns, and returns it.
    ///
    /// Writing a file this way costs no copy of it: an edited file's unchanged lines are
    /// still ranges of the text that was read.
    ///
    /// ```
    /// use polypatch_core::TextFile;
    ///
    /// let mut file = TextFile::parse("one\ntwo\nthree\r\nfour\n");
    /// file.set_text(1, "2");
    /// let mut pieces = Vec::new();
    /// file.try_for_each_piece(|p| Ok::<_, ()>(pieces.push(p))).unwrap();
    /// assert_eq!(pieces, ["one\n", "2\n", "three\r\nfour\n"]);
    /// assert_eq!(pieces.concat(), file.render());
    /// ```
    pub fn try_for_each_piece<'a, E>(&'a self, mut piece: impl FnMut(&'a str) -> Result<(), E>) -> Result<(), E> {
        self.each_piece(&mut piece)
    }

    /// [`TextFile::try_for_each_piece`]'s walk, compiled once per error type.
    fn each_piece<'a, E>(&'a self, piece: &mut Emit<'a, '_, E>) -> Result<(), E> {
        if self.bom {
            piece(BOM)?;
        }
        // The first and last lines still as they were read are one run each, taken
        // whole; only the lines between are walked (an edit's lines, for a small edit).
        let n = self.at.len();
        let head = self.head.min(n);
        let tail = self.tail.min(n - head);
        let lines = self.lines();
        let with_eol = |at: &At| at.end + at.eol.as_str().len();
        let mut emit = |text: &'a str| if text.is_empty() { Ok(()) } else { piece(text) };
        let run = (head > 0).then(|| (false, self.at[0].start, with_eol(&self.at[head - 1])));
        let mut run = lines.slice(head..n - tail).gather(run, &mut emit)?;
        if tail > 0 {
            let (start, end) = (self.at[n - tail].start, with_eol(&self.at[n - 1]));
            run = match run {
                Some((false, from, to)) if to == start => Some((false, from, end)),
                open => {
                    lines.flush(open, &mut emit)?;
                    Some((false, start, end))
                }
            };
        }
        lines.flush(run, &mut emit)
    }

    /// The terminator new lines get: the most frequent one in the file (the first seen on
    /// a tie), `\n` for a file without any.
    pub fn dominant_eol(&self) -> Eol {
        if self.lf_only {
            // Only `\n` and unterminated lines: `\n` whether or not there is any.
            return Eol::Lf;
        }
        let mut counts = [0usize; 3];
        let mut first = [usize::MAX; 3];
        for (i, at) in self.at.iter().enumerate() {
            let k = match at.eol {
                Eol::Lf => 0,
                Eol::CrLf => 1,
                Eol::Cr => 2,
                Eol::None => continue,
            };
            counts[k] += 1;
            first[k] = first[k].min(i);
        }
        let best = (0..3).max_by(|&a, &b| counts[a].cmp(&counts[b]).then(first[b].cmp(&first[a]))).unwrap_or(0);
        if counts[best] == 0 {
            return Eol::Lf;
        }
        [Eol::Lf, Eol::CrLf, Eol::Cr][best]
    }

    /// Whether some line satisfies `open` (given its index and terminator), where `open`
    /// holds only for lines without a terminator: lines still as they were read are not
    /// asked one by one, since of a run of them only the last can lack one.
    pub(crate) fn any_unterminated(&self, open: impl Fn(usize, Eol) -> bool) -> bool {
        let n = self.at.len();
        let head = self.head.min(n);
        let tail = self.tail.min(n - head);
        let ask = |i: usize| open(i, self.at[i].eol);
        (head > 0 && ask(head - 1)) || (head..n - tail).any(ask) || (tail > 0 && ask(n - 1))
    }

    /// Whether the file is empty or its last line ends with a terminator.
    pub fn ends_with_newline(&self) -> bool {
        self.at.last().is_none_or(|l| l.eol != Eol::None)
    }

    /// The texts of the lines.
    pub fn texts(&self) -> Vec<&str> {
        self.lines().texts().collect()
    }
}

/// Files are equal when their lines (texts and terminators) and marks are, wherever the
/// lines' texts are kept.
impl PartialEq for TextFile {
    fn eq(&self, other: &TextFile) -> bool {
        self.bom == other.bom && self.len() == other.len() && self.lines().iter().eq(other.lines().iter())
    }
}

impl Eq for TextFile {}

impl fmt::Debug for TextFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The lines as they read, not where their texts are kept.
        f.debug_struct("TextFile").field("lines", &self.lines()).field("bom", &self.bom).finish_non_exhaustive()
    }
}

/// The character standing for byte `0x80 + k` of text that is not UTF-8 is
/// `RAW_BASE + 0x80 + k`: the last 128 code points of plane 16's private use area.
const RAW_BASE: u32 = 0x10_FF00;

/// The character that stands for a byte that is not part of UTF-8 text.
fn raw_char(byte: u8) -> char {
    char::from_u32(RAW_BASE + u32::from(byte)).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// The byte a character stands for, when it stands for one.
pub(crate) fn raw_byte(c: char) -> Option<u8> {
    let n = u32::from(c);
    (n >= RAW_BASE + 0x80).then(|| u8::try_from(n - RAW_BASE).unwrap_or(0))
}

/// Bytes as text, without loss: UTF-8 sequences are their characters, and every other byte
/// (a Latin-1 `é`, `0xE9`) is one character of U+10FF80..=U+10FFFF standing for it. A
/// character of that range that the bytes hold as UTF-8 is written as its four bytes'
/// characters, so [`encode_lossless`] always gives the bytes back and two texts are equal
/// exactly when their bytes are. Valid UTF-8 without such characters comes back borrowed.
///
/// ```
/// use polypatch_core::{decode_lossless, encode_lossless};
/// let bytes = b"caf\xe9 \xc3\xa9\n";
/// let text = decode_lossless(bytes);
/// assert_eq!(text.chars().count(), 7);
/// assert_eq!(encode_lossless(&text), &bytes[..]);
/// ```
pub fn decode_lossless(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes)
        && !holds_raw_bytes(text)
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(bytes.len() + bytes.len() / 2);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if raw_byte(c).is_some() {
                out.extend(c.to_string().bytes().map(raw_char));
            } else {
                out.push(c);
            }
        }
        out.extend(chunk.invalid().iter().copied().map(raw_char));
    }
    Cow::Owned(out)
}

/// The bytes of text from [`decode_lossless`] (or of any text: without characters that
/// stand for bytes, its UTF-8).
pub fn encode_lossless(text: &str) -> Cow<'_, [u8]> {
    if !holds_raw_bytes(text) {
        return Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len());
    let mut buf = [0u8; 4];
    for c in text.chars() {
        match raw_byte(c) {
            Some(b) => out.push(b),
            None => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
        }
    }
    Cow::Owned(out)
}

/// Whether text holds characters that stand for bytes that are not UTF-8.
pub fn holds_raw_bytes(text: &str) -> bool {
    // Those characters are U+10FF80..=U+10FFFF, in UTF-8 `F4 8F BE ..` and `F4 8F BF ..`;
    // `F4` only ever starts a character. A search for that byte, not a decoding of every
    // character: a patch's lines and a file's text are checked on every apply.
    let bytes = text.as_bytes();
    memchr::memchr_iter(0xF4, bytes).any(|i| matches!(bytes.get(i + 1..i + 3), Some([0x8F, 0xBE | 0xBF])))
}

/// Text for a message: every character that stands for a byte shown as `\xNN`.
pub fn show_raw_bytes(text: &str) -> Cow<'_, str> {
    if !holds_raw_bytes(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match raw_byte(c) {
            Some(b) => {
                let _ = std::fmt::Write::write_fmt(&mut out, format_args!("\\x{b:02x}"));
            }
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lossless_text_gives_the_bytes_back_and_compares_as_bytes() {
        let samples: [&[u8]; 6] = [
            b"plain\n",
            b"caf\xe9\r\n",
            b"\xef\xbb\xbfbom and caf\xc3\xa9",
            b"\xff\xfe\x80\xc3",
            "stands for a byte: \u{10ffe9}".as_bytes(),
            b"\xf4\x8f\xbf",
        ];
        for bytes in samples {
            let text = decode_lossless(bytes);
            assert_eq!(&*encode_lossless(&text), bytes, "{bytes:?}");
        }
        // Latin-1 é and UTF-8 é are different text; a real U+10FFE9 is not the byte 0xE9.
        assert_ne!(decode_lossless(b"\xe9"), decode_lossless("\u{e9}".as_bytes()));
        assert_ne!(decode_lossless(b"\xe9"), decode_lossless("\u{10ffe9}".as_bytes()));
        assert!(matches!(decode_lossless("caf\u{e9}".as_bytes()), Cow::Borrowed(_)));
        assert_eq!(show_raw_bytes(&decode_lossless(b"caf\xe9")), "caf\\xe9");
    }

    #[test]
    fn round_trips_every_ending() {
        for text in ["", "a", "a\n", "a\r\nb\r\n", "one\r\ntwo\rthree\nfour\r\n", "\u{feff}x\ny", "\n\n", "\r"] {
            assert_eq!(TextFile::parse(text).render(), text, "{text:?}");
        }
    }

    /// Lines as a plain byte-by-byte reading gives them: the reference for both of
    /// `parse_shared`'s paths (a text without `\r`, split at its `\n` found a block at a
    /// time, and any other).
    fn reference_split(text: &str, breaks: LineBreaks) -> (bool, Vec<(String, Eol)>) {
        let bom = text.starts_with(BOM);
        let body = if bom { &text[BOM.len()..] } else { text };
        let bytes = body.as_bytes();
        let (mut lines, mut start, mut i) = (Vec::new(), 0, 0);
        while i < bytes.len() {
            let (eol, width) = match (bytes[i], bytes.get(i + 1)) {
                (b'\n', _) => (Some(Eol::Lf), 1),
                (b'\r', Some(b'\n')) => (Some(Eol::CrLf), 2),
                (b'\r', _) if breaks == LineBreaks::Any => (Some(Eol::Cr), 1),
                _ => (None, 1),
            };
            if let Some(eol) = eol {
                lines.push((body[start..i].to_string(), eol));
                start = i + width;
            }
            i += width;
        }
        if start < bytes.len() {
            lines.push((body[start..].to_string(), Eol::None));
        }
        (bom, lines)
    }

    proptest::proptest! {
        // Not under Miri: proptest reads the current directory for its regression file,
        // which Miri's isolation refuses (the newline search itself runs there in
        // `newlines::tests`).
        #[test]
        #[cfg_attr(miri, ignore)]
        fn parse_shared_splits_as_a_plain_reading(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec!["a", "xyz", "\n", "\n", "\r", "\r\n", "é", " ", "\n\n\n"]), 0..400),
            long in 0usize..200,
            bom: bool,
            any: bool,
        ) {
            // Long runs of text between newlines cross the 64-byte chunks and 2 KiB blocks.
            let mut text = String::from(if bom { BOM } else { "" });
            for (k, piece) in pieces.iter().enumerate() {
                text.push_str(piece);
                if k % 7 == 0 {
                    text.push_str(&"w".repeat(long));
                }
            }
            let breaks = if any { LineBreaks::Any } else { LineBreaks::LfOrCrLf };
            let file = TextFile::parse_shared(&SharedText::new(text.clone()), breaks);
            let got: Vec<(String, Eol)> = file.lines().iter().map(|l| (l.text.to_string(), l.eol)).collect();
            proptest::prop_assert_eq!((file.bom, got), reference_split(&text, breaks));
            proptest::prop_assert_eq!(file.render(), text);
        }

        /// A file's pieces, its first and last lines as read taken whole, are the pieces
        /// of a walk over every line, after any changes: the lines kept as read are only
        /// the ones no change reached. So are its dominant terminator and whether a line
        /// lacks one, which do not look at every line either.
        #[test]
        #[cfg_attr(miri, ignore)]
        fn pieces_skip_only_lines_no_change_reached(
            lines in proptest::collection::vec(
                proptest::sample::select(vec!["a\n", "bc\r\n", "\n", "d\r", "é\n", "x"]), 0..40),
            changes in proptest::collection::vec((0u8..8, 0usize..50, 0usize..4, 0u8..4), 0..6),
            bom: bool,
        ) {
            let text = format!("{}{}", if bom { BOM } else { "" }, lines.concat());
            let mut file = TextFile::parse_shared(&SharedText::new(text), LineBreaks::Any);
            let eols = [Eol::Lf, Eol::CrLf, Eol::Cr, Eol::None];
            for (kind, at, count, eol) in changes {
                let n = file.len();
                let i = at % (n + 1);
                let end = (i + count).min(n);
                let eol = eols[usize::from(eol)];
                match kind {
                    0 => file.splice(i..end, [("new", eol), ("", Eol::Lf)].into_iter().take(count % 3)),
                    1 => file.insert(i, "ins", eol),
                    2 => file.push("pushed", eol),
                    3 if i < n => file.remove(i),
                    4 if i < n => file.set_text(i, "set"),
                    5 if i < n => file.set_eol(i, eol),
                    6 if i < n => file.truncate_text(i, 0),
                    7 => file.splice_many([(i..i, vec![("m", eol)]), (end..end, vec![("m2", Eol::Lf)])]),
                    _ => {}
                }
            }
            // The terminator counted over every line, and every line asked.
            let mut counts = [(0usize, usize::MAX); 3];
            for (i, line) in file.lines().iter().enumerate() {
                if let Some(k) = [Eol::Lf, Eol::CrLf, Eol::Cr].iter().position(|e| *e == line.eol) {
                    counts[k] = (counts[k].0 + 1, counts[k].1.min(i));
                }
            }
            let best = (0..3).max_by(|&a, &b| counts[a].0.cmp(&counts[b].0).then(counts[b].1.cmp(&counts[a].1)));
            let counted = best.filter(|&k| counts[k].0 > 0).map_or(Eol::Lf, |k| [Eol::Lf, Eol::CrLf, Eol::Cr][k]);
            proptest::prop_assert_eq!(file.dominant_eol(), counted);
            let last = file.len().saturating_sub(1);
            for last_too in [false, true] {
                let open = |i: usize, eol: Eol| eol == Eol::None && (i < last || last_too);
                let asked = (0..file.len()).any(|i| open(i, file.line(i).eol));
                proptest::prop_assert_eq!(file.any_unterminated(open), asked);
            }
            let mut walked: Vec<&str> = if file.bom { vec![BOM] } else { Vec::new() };
            file.lines()
                .try_for_each_piece(|p| {
                    walked.push(p);
                    Ok::<_, ()>(())
                })
                .unwrap();
            proptest::prop_assert_eq!(pieces(&file), walked);
        }
    }

    /// The byte search finds exactly the characters that stand for bytes, wherever they
    /// stand, among every character there is.
    #[test]
    fn holds_raw_bytes_is_the_characters_that_stand_for_bytes() {
        let mut buf = [0u8; 4];
        for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
            let alone = c.encode_utf8(&mut buf);
            let expected = raw_byte(c).is_some();
            assert_eq!(holds_raw_bytes(alone), expected, "{c:?}");
            assert_eq!(holds_raw_bytes(&format!("ab{c}\u{10ff7f}é")), expected, "{c:?}");
        }
        assert!(!holds_raw_bytes(""));
        assert!(holds_raw_bytes("\u{10ff7f}\u{10ff80}"));
    }

    #[test]
    fn splits_lone_cr() {
        let f = TextFile::parse("one\r\ntwo\rthree\nfour");
        assert_eq!(f.texts(), ["one", "two", "three", "four"]);
        assert_eq!(f.line(1).eol, Eol::Cr);
        assert_eq!(f.line(3).eol, Eol::None);
        assert!(!f.ends_with_newline());
    }

    #[test]
    fn dominant_eol_prefers_majority_then_first() {
        assert_eq!(TextFile::parse("a\r\nb\r\nc\n").dominant_eol(), Eol::CrLf);
        assert_eq!(TextFile::parse("a\nb\r\n").dominant_eol(), Eol::Lf);
        assert_eq!(TextFile::parse("a").dominant_eol(), Eol::Lf);
    }

    #[test]
    fn line_texts_are_ranges_of_one_buffer_and_compare_as_text() {
        let buf = SharedText::new("alpha\nbeta\r\ngamma".to_string());
        let lines = LineText::slices(&buf, [0..5, 6..10, 12..17]);
        assert!(lines.iter().all(LineText::is_range));
        let owned = LineText::from("beta".to_string());
        assert!(!owned.is_range());
        // Shared and owned texts are equal exactly when their text is, and hash alike.
        assert_eq!(lines[1], owned);
        assert_eq!(lines[1], "beta");
        assert_eq!(lines[1], *"beta");
        assert_eq!(lines[1], "beta".to_string());
        assert_eq!("beta", lines[1]);
        assert_eq!("beta".to_string(), lines[1]);
        assert_ne!(lines[0], owned);
        let hash = |t: &dyn Fn(&mut std::collections::hash_map::DefaultHasher)| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            t(&mut h);
            h.finish()
        };
        assert_eq!(hash(&|h| lines[1].hash(h)), hash(&|h| owned.hash(h)));
        assert_eq!(hash(&|h| lines[1].hash(h)), hash(&|h| "beta".hash(h)));
        let set: std::collections::HashSet<LineText> = lines.iter().cloned().collect();
        assert!(set.contains("gamma") && set.contains(&owned));
        // It reads, prints and converts as its text.
        assert_eq!(lines[2].len(), 5);
        assert!(lines[2].starts_with("gam"));
        assert_eq!(format!("{}|{:?}", lines[0], lines[0]), "alpha|\"alpha\"");
        assert_eq!(String::from(lines[2].clone()), "gamma");
        assert_eq!(LineText::from("x").into_string(), "x");
        assert_eq!(LineText::default(), "");
        assert!(lines[0] < owned && owned < lines[2]);
    }

    #[test]
    fn a_file_holds_one_count_of_its_text_and_its_lines_none() {
        let mut text = SharedText::new("a\nb\r\nc".to_string());
        let mut f = TextFile::parse_shared(&text, LineBreaks::Any);
        assert!(text.get_mut().is_none(), "the file shares the text");
        assert!(std::ptr::eq(f.text.as_str(), text.as_str()), "without a copy");
        // Lines read through the file, whatever changed them.
        f.insert(1, "y", Eol::Lf);
        f.push("own", Eol::Lf);
        f.truncate_text(0, 0);
        assert_eq!(f.render(), "\ny\nb\r\ncown\n");
        assert_eq!(f.len(), 5);
        assert_eq!(f.line(4), LineRef { text: "own", eol: Eol::Lf });
        assert_eq!(f.lines().get(5), None);
        assert_eq!(f.lines().last(), Some(LineRef { text: "own", eol: Eol::Lf }));
        assert_eq!(f.lines().slice(1..3).texts().collect::<Vec<_>>(), ["y", "b"]);
        assert_eq!(format!("{:?}", f.lines().slice(3..4)), r#"[LineRef { text: "c", eol: None }]"#);
        // Copies share the text too, and equal files compare equal wherever their lines are.
        let g = f.clone();
        assert_eq!(f, g);
        let same = [("", Eol::Lf), ("y", Eol::Lf), ("b", Eol::CrLf), ("c", Eol::None), ("own", Eol::Lf)];
        assert_eq!(f, TextFile::from_lines(same));
        assert_ne!(f, TextFile::parse(&f.render()), "the same bytes, other lines");
        drop((f, g));
        assert!(text.get_mut().is_some(), "every count given back");
        // A line is 24 bytes: two offsets and its terminator, no pointer to a text.
        assert_eq!(std::mem::size_of::<At>(), 24);
    }

    #[test]
    fn a_for_loop_over_the_lines_reads_them_as_iter_does() {
        let f = TextFile::parse("a\nb\r\nc");
        let looped: Vec<LineRef<'_>> = f.lines().into_iter().collect();
        assert_eq!(looped, f.lines().iter().collect::<Vec<_>>());
        let mut both = f.lines().into_iter();
        assert_eq!(both.len(), 3);
        assert_eq!(both.next_back().map(|l| l.text), Some("c"));
        assert_eq!(both.next().map(|l| l.text), Some("a"));
        assert_eq!(
            (both.len(), both.next().map(|l| l.eol), both.next(), both.next_back()),
            (1, Some(Eol::CrLf), None, None)
        );
    }

    #[test]
    fn splicing_many_places_is_splicing_each() {
        let text = "0\n1\n2\n3\n4\n5\n";
        let mut many = TextFile::parse(text);
        many.splice_many([
            (1..2, vec![("one", Eol::Lf), ("uno", Eol::CrLf)]),
            (3..5, vec![]),
            (6..6, vec![("end", Eol::None)]),
        ]);
        let mut each = TextFile::parse(text);
        each.splice(6..6, [("end", Eol::None)]);
        each.splice(3..5, []);
        each.splice(1..2, [("one", Eol::Lf), ("uno", Eol::CrLf)]);
        assert_eq!(many, each);
        assert_eq!(many.render(), "0\none\nuno\r\n2\n5\nend");
        let from = TextFile::from_lines([("a", Eol::CrLf), ("b", Eol::None)]);
        assert_eq!(from.render(), "a\r\nb");
        let mut set = TextFile::parse("x\ny");
        set.set_eol(1, Eol::CrLf);
        set.remove(0);
        assert_eq!(set.render(), "y\r\n");
    }

    #[test]
    #[should_panic(expected = "is not a range of the 2-byte text on character boundaries")]
    fn slices_refuse_a_range_inside_a_character() {
        let _ = LineText::slices(&SharedText::new("é".to_string()), [0..2, 0..1]);
    }

    #[cfg(feature = "serde")]
    #[test]
    fn line_texts_serialize_as_strings() {
        let f = TextFile::parse("one\ntwo");
        let lines: Vec<Line> = f.lines().iter().map(Line::from).collect();
        let json = serde_json::to_string(&lines).unwrap();
        assert_eq!(json, r#"[{"text":"one","eol":"Lf"},{"text":"two","eol":"None"}]"#);
        let back: Vec<Line> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, lines);
        assert_eq!(serde_json::to_string(&LineText::from("q\"")).unwrap(), r#""q\"""#);
        assert!(serde_json::from_str::<LineText>("1").is_err());
    }

    #[test]
    fn a_slice_is_a_range_of_the_buffer_and_reads_compares_and_serializes_as_its_text() {
        let buf = SharedText::new("-old\n+new\n 🦀 end".to_string());
        let old = LineText::slice(&buf, 1..4);
        assert!(old.is_range() && SharedText::ptr_eq(&old.buf, &buf));
        assert_eq!(old, "old");
        assert_eq!(old, LineText::from("old".to_string()));
        assert_eq!(old.as_str(), "old");
        assert!(LineText::slice(&buf, 6..9) < old, "\"new\" sorts before \"old\"");
        let hash = |t: &LineText| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            t.hash(&mut h);
            h.finish()
        };
        assert_eq!(hash(&old), hash(&LineText::from("old")));
        // As a plain string, both ways.
        #[cfg(feature = "serde")]
        {
            assert_eq!(serde_json::to_string(&old).unwrap(), r#""old""#);
            let back: LineText = serde_json::from_str(r#""old""#).unwrap();
            assert_eq!(back, old);
            assert_eq!(serde_json::to_string(&vec![old.clone(), back]).unwrap(), r#"["old","old"]"#);
        }
        // An empty range, anywhere; the line at the end of the buffer; the whole buffer.
        for at in [0, 4, 5, buf.len()] {
            let empty = LineText::slice(&buf, at..at);
            assert!(empty.is_range() && empty.is_empty());
            assert_eq!(empty, "");
            assert_eq!(empty, LineText::default());
        }
        let last = LineText::slice(&buf, 11..buf.len());
        assert_eq!(last, "🦀 end");
        assert_eq!(LineText::slice(&buf, 0..buf.len()), buf.as_str());
        // A slice lives on when the caller's handle on the buffer is gone.
        drop(buf);
        assert_eq!(last.into_string(), "🦀 end");
    }

    #[test]
    #[should_panic(expected = "not a range of the 3-byte text")]
    fn a_slice_past_the_buffer_panics_at_once() {
        let _ = LineText::slice(&SharedText::new("abc".to_string()), 2..4);
    }

    #[test]
    #[should_panic(expected = "on character boundaries")]
    fn a_slice_inside_a_character_panics_at_once() {
        let _ = LineText::slice(&SharedText::new("é".to_string()), 0..1);
    }

    #[test]
    fn copied_lines_share_one_buffer() {
        let lines = LineText::copy_all(["fn f() {", "", "    body", "}"]);
        assert_eq!(lines, ["fn f() {", "", "    body", "}"]);
        assert!(lines.iter().all(|l| l.is_range() && SharedText::ptr_eq(&l.buf, &lines[0].buf)));
        assert_eq!(lines[0].buf.as_str(), "fn f() {    body}");
        assert!(LineText::copy_all(std::iter::empty::<&str>()).is_empty());
    }

    #[test]
    fn editing_a_line_leaves_the_shared_buffer_and_its_neighbours_alone() {
        let mut f = TextFile::parse("first\n  middle  \nlast\n");
        let before = f.text.clone();
        f.set_text(1, &format!("{}!", f.line(1).text));
        f.truncate_text(0, 3);
        f.truncate_text(2, 10); // past the end: nothing changes
        assert_eq!(f.texts(), ["fir", "  middle  !", "last"]);
        assert!(!f.at[0].added && !f.at[2].added && f.at[1].added);
        assert_eq!(f.text, before, "the text read stays as it was");
        f.truncate_text(1, 8);
        f.set_text(1, &format!(">{}", f.line(1).text));
        assert_eq!(f.line(1).text, ">  middle");
        // Lines spliced in between ranges of the buffer render in place.
        f.insert(1, "new", Eol::CrLf);
        assert_eq!(f.render(), "fir\nnew\r\n>  middle\nlast\n");
        let mut g = TextFile::parse("caf\u{e9} \u{e9}t\u{e9}\n");
        g.truncate_text(0, 3);
        assert_eq!(g.line(0).text, "caf");
        assert!(!g.at[0].added);
    }

    #[test]
    fn rendering_copies_runs_of_the_buffer_and_nothing_else() {
        let naive = |f: &TextFile| {
            let mut out = String::from(if f.bom { BOM } else { "" });
            for line in f.lines() {
                out.push_str(line.text);
                out.push_str(line.eol.as_str());
            }
            out
        };
        let text = "\u{feff}a\r\nbb\n\nc\rdd\r\n\r\ne\r\r\nf";
        // Every change a run must stop at: a reordered, dropped, truncated or written
        // line, a changed terminator, lines written one after the other.
        let changes: [&dyn Fn(&mut TextFile); 9] = [
            &|_| {},
            &|f| {
                f.touch(&(1..3)); // what every change through the file's methods says
                f.at.swap(1, 2);
            },
            &|f| f.remove(2),
            &|f| f.truncate_text(1, 1),
            &|f| f.set_eol(0, Eol::Lf),
            &|f| f.set_eol(3, Eol::CrLf),
            &|f| f.set_text(4, "dd"),
            &|f| f.insert(2, "y", Eol::Lf),
            &|f| {
                f.splice(1..3, [("p", Eol::Lf), ("q", Eol::CrLf)]);
                f.set_eol(1, Eol::None);
            },
        ];
        for breaks in [LineBreaks::Any, LineBreaks::LfOrCrLf] {
            for (i, change) in changes.iter().enumerate() {
                let mut f = TextFile::parse_with(text, breaks);
                change(&mut f);
                assert_eq!(f.render(), naive(&f), "change {i}, {breaks:?}");
                assert_eq!(pieces(&f).concat(), naive(&f), "change {i}, {breaks:?}");
            }
        }
    }

    /// The pieces [`TextFile::try_for_each_piece`] gives, in order.
    fn pieces(f: &TextFile) -> Vec<&str> {
        let mut out = Vec::new();
        f.try_for_each_piece(|p| {
            out.push(p);
            Ok::<_, ()>(())
        })
        .unwrap();
        out
    }

    #[test]
    fn pieces_are_unchanged_lines_as_runs_of_their_buffer_and_other_lines_alone() {
        let text = "\u{feff}a\r\nbb\n\nc\rdd\r\n\r\ne\r\r\nf";
        for breaks in [LineBreaks::Any, LineBreaks::LfOrCrLf] {
            // Unchanged, the lines are one run after the mark; a line an edit wrote parts it.
            let mut f = TextFile::parse_with(text, breaks);
            assert_eq!(pieces(&f), [BOM, &text[BOM.len()..]]);
            f.set_text(1, "BB");
            assert_eq!(pieces(&f)[..4], [BOM, "a\r\n", "BB\n", &text[BOM.len() + 6..]]);
            assert_eq!(pieces(&f).len(), 4);
            // Lines written one after the other are one run of the written texts.
            for i in 0..f.len() {
                let same = f.line(i).text.to_string();
                f.set_text(i, &same);
            }
            assert_eq!(pieces(&f), [BOM, &text[BOM.len()..].replace("bb", "BB")]);
            // A line cut short: its text and its terminator apart, none empty.
            f.truncate_text(2, 0);
            f.truncate_text(3, 0);
            assert!(pieces(&f).iter().all(|p| !p.is_empty()));
            assert_eq!(pieces(&f).concat(), f.render());
        }
        assert!(pieces(&TextFile::parse("")).is_empty());
        // The first error stops the walk and comes back.
        let mut seen = 0;
        let mut g = TextFile::parse("a\nb\n");
        g.set_eol(0, Eol::CrLf);
        assert_eq!(
            g.try_for_each_piece(|_| {
                seen += 1;
                Err(seen)
            }),
            Err(1)
        );
        assert_eq!(seen, 1);
    }

    #[test]
    #[should_panic(expected = "is_char_boundary")]
    fn truncating_inside_a_character_panics_as_a_string_does() {
        TextFile::parse("caf\u{e9}").truncate_text(0, 4);
    }

    #[test]
    fn shared_parsing_round_trips_every_ending_byte_for_byte() {
        let samples = [
            "",
            "a",
            "a\n",
            "\r\n",
            "a\r\nb\r\n",
            "one\r\ntwo\rthree\nfour\r\n",
            "lone\rcr\r",
            "\u{feff}",
            "\u{feff}x\r\ny",
            "\u{feff}\u{feff}x\n",
            "no final newline",
            "\n\n\r\r\n",
            "caf\u{e9}\r\n\u{1f600}\n",
        ];
        for text in samples {
            for breaks in [LineBreaks::Any, LineBreaks::LfOrCrLf] {
                let shared = SharedText::new(text.to_string());
                let f = TextFile::parse_shared(&shared, breaks);
                assert_eq!(f, TextFile::parse_with(text, breaks), "{text:?}");
                assert_eq!(f.render(), text, "{text:?} {breaks:?}");
                assert_eq!(TextFile::decode_with(text.as_bytes(), breaks).unwrap().render(), text);
            }
        }
        // git's view: a lone `\r` is text, and the mark stays out of the first line.
        let f = TextFile::parse_with("\u{feff}a\rb\r\n", LineBreaks::LfOrCrLf);
        assert!(f.bom);
        assert_eq!(f.texts(), ["a\rb"]);
        assert_eq!(f.line(0).eol, Eol::CrLf);
    }

    #[test]
    fn bom_is_kept_out_of_lines() {
        let f = TextFile::parse("\u{feff}a\n");
        assert!(f.bom);
        assert_eq!(f.texts(), ["a"]);
    }
}

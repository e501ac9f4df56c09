//! A model's reply split into lines, as the facade's `extract` reads it: what
//! [`Dialect::bare_block`](crate::Dialect::bare_block) looks at to tell where a block
//! written outside a fence ends.

use std::cell::{Cell, OnceCell};
use std::collections::BTreeMap;

use crate::ir::span::Span;

/// A reply split into lines once, with the lookups a dialect's
/// [`bare_block`](crate::Dialect::bare_block) needs: each line's text, and where a JSON
/// value that starts a line closes ([`ReplyLines::json_end`], shared by the dialects whose
/// blocks are JSON objects).
///
/// Lines are numbered from 0; a line's text has no line break (nor the `\r` of a CRLF).
///
/// ```
/// use polypatch_core::ReplyLines;
///
/// let lines = ReplyLines::new("Here:\r\n{\"a\": [1,\n 2]}\nDone.\n");
/// assert_eq!(lines.len(), 4);
/// assert_eq!(lines.line(0), "Here:");
/// // The object on line 1 closes on line 2: it spans lines 1..3.
/// assert_eq!(lines.json_end(1, lines.len()), Some(3));
/// // Not when the lines looked at stop before its close.
/// assert_eq!(lines.json_end(1, 2), None);
/// ```
#[derive(Debug)]
pub struct ReplyLines<'a> {
    text: &'a str,
    lines: Vec<LineAt>,
    /// For each line that starts with `{`, the byte of the bracket that closes it
    /// ([`ReplyLines::json_closes`]); computed on the first [`ReplyLines::json_end`].
    json: OnceCell<Vec<Option<usize>>>,
    /// Bytes looked at ([`ReplyLines::bytes_read`]).
    read: Cell<usize>,
}

/// A line of the reply: its bytes without the line break (`start..end`), and where the
/// next line starts.
#[derive(Debug, Clone, Copy)]
struct LineAt {
    start: usize,
    end: usize,
    next: usize,
}

impl<'a> ReplyLines<'a> {
    /// `text` split into lines (at `\n`; a `\r` before it is not part of the line). A last
    /// line without a line break is a line; an empty text has none.
    pub fn new(text: &'a str) -> Self {
        // One pass of `memchr` over the whole reply: a search started at each line costs
        // more than the line itself on a diff's short lines.
        let bytes = text.as_bytes();
        let line = |start: usize, end: usize, next: usize| {
            let end = if end > start && bytes[end - 1] == b'\r' { end - 1 } else { end };
            LineAt { start, end, next }
        };
        let mut lines = Vec::new();
        let mut start = 0;
        for newline in memchr::memchr_iter(b'\n', bytes) {
            lines.push(line(start, newline, newline + 1));
            start = newline + 1;
        }
        if start < text.len() {
            lines.push(line(start, text.len(), text.len()));
        }
        ReplyLines { text, lines, json: OnceCell::new(), read: Cell::new(0) }
    }

    /// The whole text.
    #[inline]
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// How many lines there are.
    #[inline]
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether there are no lines (an empty text).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Line `i` without its line break. Panics when `i >= self.len()`.
    #[inline]
    pub fn line(&self, i: usize) -> &'a str {
        let line = self.lines[i];
        self.charge(line.next - line.start + 1);
        &self.text[line.start..line.end]
    }

    /// The bytes of lines `a..b`, line breaks included; empty at the start of line `a`
    /// (or at the end of the text) when `a >= b`.
    #[inline]
    pub fn span(&self, a: usize, b: usize) -> Span {
        let start = self.lines.get(a).map_or(self.text.len(), |l| l.start);
        let end = if b > a { self.lines[b - 1].next } else { start };
        Span::new(start, end)
    }

    /// The 0-based number of the line that holds byte `at`: how many line breaks come
    /// before it (the end of a text whose last line has no line break is on that line).
    pub fn line_at(&self, at: usize) -> usize {
        let k = self.lines.partition_point(|l| l.next <= at);
        if at >= self.text.len() && k > 0 && !self.text.ends_with('\n') { k - 1 } else { k }
    }

    /// One past the last line of the JSON value that starts line `i` (a line whose first
    /// byte is `{`), when it closes before line `to`: brackets (`{}` and `[]` alike) are
    /// counted outside strings from that `{` on, and the first that brings the count back
    /// to 0 closes it. A string may run over a line break, as a model writes one by
    /// mistake: the value then ends where its brackets say, and its parse error points at
    /// the line break. `None` for a line that does not start with `{`.
    ///
    /// All lines' closes are found in one pass over the text, on the first call: asking
    /// for every line costs time linear in the text's size, not by its square.
    pub fn json_end(&self, i: usize, to: usize) -> Option<usize> {
        let at = self.json.get_or_init(|| self.json_closes()).get(i).copied().flatten()?;
        let limit = self.lines.get(to).map_or(self.text.len(), |l| l.start);
        (at < limit).then(|| self.line_at(at) + 1)
    }

    /// Bytes looked at so far: each line read (with its line break, and one for the call)
    /// and each byte of the JSON pass. The extractor's tests bound it by the text's size.
    pub fn bytes_read(&self) -> usize {
        self.read.get()
    }

    #[inline]
    fn charge(&self, bytes: usize) {
        self.read.set(self.read.get() + bytes);
    }

    /// For each line that starts with `{`, the byte of the bracket that closes it
    /// ([`ReplyLines::json_end`]).
    ///
    /// One pass for all lines, not one from each: counts that start outside a string where
    /// another count is outside a string too follow the same brackets from there on, so one
    /// count (a lane) serves them all, each line waiting for the lane to come back to the
    /// depth it started at. The lanes differ only in where they are inside a string: at
    /// most two are needed (one outside a string, one in), and two that come to the same
    /// state (an escaped quote in one, a quote in the other) go on as one.
    fn json_closes(&self) -> Vec<Option<usize>> {
        let bytes = self.text.as_bytes();
        let mut closes = vec![None; self.lines.len()];
        let mut lanes: Vec<Lane> = Vec::new();
        for (k, line) in self.lines.iter().enumerate() {
            if bytes[line.start] == b'{' {
                // The count from this line starts outside a string: on the lane outside one
                // here, or on a new one.
                let lane = lanes.iter().position(|lane| lane.quote == Quote::Out).unwrap_or_else(|| {
                    lanes.push(Lane::default());
                    lanes.len() - 1
                });
                lanes[lane].wait(k);
            }
            if lanes.is_empty() {
                continue;
            }
            self.charge(line.next - line.start);
            for (at, &b) in bytes.iter().enumerate().take(line.next).skip(line.start) {
                for lane in &mut lanes {
                    lane.step(b, at, &mut closes);
                }
                if let [a, b] = lanes.as_mut_slice()
                    && a.quote == b.quote
                {
                    let b = lanes.pop().expect("two lanes");
                    let a = lanes.pop().expect("two lanes");
                    lanes.push(a.merge(b));
                }
            }
            // A lane no line waits on any more serves nothing.
            lanes.retain(|lane| lane.pending > 0);
        }
        closes
    }
}

/// Where a count of JSON brackets is: outside a string, in one, or after a backslash in one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Quote {
    #[default]
    Out,
    In,
    Escaped,
}

/// One count of brackets ([`ReplyLines::json_closes`]) and the lines waiting on it.
#[derive(Debug, Default)]
struct Lane {
    quote: Quote,
    /// Brackets opened less brackets closed since the lane began (below 0 when it began
    /// inside a value).
    depth: i64,
    /// The lines waiting on the lane, by the depth at which their value closes.
    waiting: BTreeMap<i64, Vec<usize>>,
    /// How many lines are waiting.
    pending: usize,
}

impl Lane {
    /// Line `k`, whose `{` is the lane's next byte, waits for its close.
    fn wait(&mut self, k: usize) {
        self.waiting.entry(self.depth).or_default().push(k);
        self.pending += 1;
    }

    /// The lane after byte `b`, at `at`: a line whose value this byte closes gets its close.
    fn step(&mut self, b: u8, at: usize, closes: &mut [Option<usize>]) {
        self.quote = match self.quote {
            Quote::Escaped => Quote::In,
            Quote::In => match b {
                b'\\' => Quote::Escaped,
                b'"' => Quote::Out,
                _ => Quote::In,
            },
            Quote::Out if b == b'"' => Quote::In,
            Quote::Out => {
                match b {
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' => {
                        self.depth -= 1;
                        if let Some(done) = self.waiting.remove(&self.depth) {
                            self.pending -= done.len();
                            for k in done {
                                closes[k] = Some(at);
                            }
                        }
                    }
                    _ => {}
                }
                Quote::Out
            }
        };
    }

    /// The lane `self` and `other` go on as, now that they are in the same state: the one
    /// with fewer waiting lines joins the other, its depths moved to the other's count.
    fn merge(mut self, mut other: Lane) -> Lane {
        if self.pending < other.pending {
            std::mem::swap(&mut self, &mut other);
        }
        let shift = self.depth - other.depth;
        for (depth, lines) in other.waiting {
            self.waiting.entry(depth + shift).or_default().extend(lines);
        }
        self.pending += other.pending;
        self
    }
}

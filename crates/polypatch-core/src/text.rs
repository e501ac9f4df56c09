//! Text files as lines with their own line terminators, so that editing one line never
//! changes another line's ending, a missing final newline stays missing, and a UTF-8 BOM
//! survives.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::ir::{LineBreaks, Newline};

/// A line terminator.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Eol {
    /// `\n`
    #[default]
    Lf,
    /// `\r\n`
    CrLf,
    /// `\r` alone
    Cr,
    /// The last line of a file that does not end with a newline.
    None,
}

impl Eol {
    /// The terminator's bytes.
    pub fn as_str(self) -> &'static str {
        match self {
            Eol::Lf => "\n",
            Eol::CrLf => "\r\n",
            Eol::Cr => "\r",
            Eol::None => "",
        }
    }
}

impl From<Newline> for Eol {
    fn from(n: Newline) -> Eol {
        match n {
            Newline::Lf => Eol::Lf,
            Newline::CrLf => Eol::CrLf,
            Newline::Cr => Eol::Cr,
        }
    }
}

/// One line: its text without terminator, and the terminator.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Line {
    /// The text, without the terminator.
    pub text: String,
    /// The terminator.
    pub eol: Eol,
}

/// A decoded text file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TextFile {
    /// The lines. A file ending with a newline has no empty last line here.
    pub lines: Vec<Line>,
    /// Whether the file started with a UTF-8 byte order mark.
    pub bom: bool,
}

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
        let lone_cr = breaks == LineBreaks::Any;
        let (bom, text) = match text.strip_prefix(BOM) {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let bytes = text.as_bytes();
        let mut lines = Vec::with_capacity(memchr::memchr_iter(b'\n', bytes).count() + 1);
        let mut start = 0;
        for i in memchr::memchr2_iter(b'\n', b'\r', bytes) {
            if i < start {
                continue; // the `\n` of a `\r\n` already consumed
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
            lines.push(Line { text: text[start..i].to_string(), eol });
            start = next;
        }
        if start < text.len() {
            lines.push(Line { text: text[start..].to_string(), eol: Eol::None });
        }
        TextFile { lines, bom }
    }

    /// Decodes bytes; `None` when they are not UTF-8.
    pub fn decode(bytes: &[u8]) -> Option<TextFile> {
        TextFile::decode_with(bytes, LineBreaks::Any)
    }

    /// Decodes bytes with the given line breaks; `None` when they are not UTF-8.
    pub fn decode_with(bytes: &[u8], breaks: LineBreaks) -> Option<TextFile> {
        std::str::from_utf8(bytes).ok().map(|t| TextFile::parse_with(t, breaks))
    }

    /// The file's bytes.
    pub fn render(&self) -> String {
        let len: usize = self.lines.iter().map(|l| l.text.len() + 2).sum();
        let mut out = String::with_capacity(len + 3);
        if self.bom {
            out.push_str(BOM);
        }
        for line in &self.lines {
            out.push_str(&line.text);
            out.push_str(line.eol.as_str());
        }
        out
    }

    /// The terminator new lines get: the most frequent one in the file (the first seen on
    /// a tie), `\n` for a file without any.
    pub fn dominant_eol(&self) -> Eol {
        let mut counts = [0usize; 3];
        let mut first = [usize::MAX; 3];
        for (i, line) in self.lines.iter().enumerate() {
            let k = match line.eol {
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

    /// Whether the file is empty or its last line ends with a terminator.
    pub fn ends_with_newline(&self) -> bool {
        self.lines.last().is_none_or(|l| l.eol != Eol::None)
    }

    /// The texts of the lines.
    pub fn texts(&self) -> Vec<&str> {
        self.lines.iter().map(|l| l.text.as_str()).collect()
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
        && !text.chars().any(|c| raw_byte(c).is_some())
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
    if !text.chars().any(|c| raw_byte(c).is_some()) {
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
    text.chars().any(|c| raw_byte(c).is_some())
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

    #[test]
    fn splits_lone_cr() {
        let f = TextFile::parse("one\r\ntwo\rthree\nfour");
        assert_eq!(f.texts(), ["one", "two", "three", "four"]);
        assert_eq!(f.lines[1].eol, Eol::Cr);
        assert_eq!(f.lines[3].eol, Eol::None);
        assert!(!f.ends_with_newline());
    }

    #[test]
    fn dominant_eol_prefers_majority_then_first() {
        assert_eq!(TextFile::parse("a\r\nb\r\nc\n").dominant_eol(), Eol::CrLf);
        assert_eq!(TextFile::parse("a\nb\r\n").dominant_eol(), Eol::Lf);
        assert_eq!(TextFile::parse("a").dominant_eol(), Eol::Lf);
    }

    #[test]
    fn bom_is_kept_out_of_lines() {
        let f = TextFile::parse("\u{feff}a\n");
        assert!(f.bom);
        assert_eq!(f.texts(), ["a"]);
    }
}

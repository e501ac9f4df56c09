//! The data of `GIT binary patch` blocks: git's base85 lines and zlib.
//!
//! A block is a header line (`literal <size>` or `delta <size>`), data lines, and an
//! empty line. Each data line encodes at most 52 bytes of the zlib-deflated payload: a
//! length character (`A`–`Z` for 1–26 bytes, `a`–`z` for 27–52 bytes), then five base85
//! characters for every group of four bytes (big-endian, the last group padded with
//! zeros). [`decode`] turns the data lines back into the inflated payload; [`encode`] and
//! [`encode_block`] write them the way `git diff --binary` does.
//!
//! ```
//! use polypatch_unified::binary;
//!
//! let block = binary::encode_block(b"\x00\x01binary\xff");
//! assert!(block.starts_with("literal 9\n"));
//! assert!(block.ends_with("\n\n"));
//! let lines: Vec<&str> = block.lines().skip(1).take_while(|l| !l.is_empty()).collect();
//! assert_eq!(binary::decode(&lines, 9).unwrap(), b"\x00\x01binary\xff");
//! ```

use std::fmt;

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

/// git's base85 alphabet (`base85.c`): digits, upper case, lower case, then 23 symbols.
const ALPHABET: &[u8; 85] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

/// The most bytes one data line carries (`z`).
const MAX_LINE_BYTES: usize = 52;

/// Binary data that cannot be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BinaryError {
    /// What is wrong, lowercase.
    pub message: String,
    /// The index of the offending line in the block (0-based).
    pub line: usize,
}

impl BinaryError {
    fn new(line: usize, message: impl Into<String>) -> Self {
        BinaryError { message: message.into(), line }
    }
}

impl fmt::Display for BinaryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "binary data line {}: {}", self.line + 1, self.message)
    }
}

impl std::error::Error for BinaryError {}

/// Each byte's base85 value, or [`NOT_BASE85`]: one lookup per character of a data line
/// (a whole release's diff carries hundreds of kilobytes of them).
const DIGITS: [u8; 256] = {
    let mut table = [NOT_BASE85; 256];
    let mut i = 0;
    while i < ALPHABET.len() {
        table[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// A byte that is not a base85 character, in [`DIGITS`].
const NOT_BASE85: u8 = 0xff;

/// The value of a base85 character, if it is one.
fn digit(c: u8) -> Option<u32> {
    let value = DIGITS[usize::from(c)];
    (value != NOT_BASE85).then_some(u32::from(value))
}

/// The number of payload bytes a length character announces.
fn line_length(c: u8) -> Option<usize> {
    match c {
        b'A'..=b'Z' => Some(usize::from(c - b'A') + 1),
        b'a'..=b'z' => Some(usize::from(c - b'a') + 27),
        _ => None,
    }
}

/// Decodes one data line (without its `\n`), appending its bytes to `out`.
fn decode_line(line: &str, index: usize, out: &mut Vec<u8>) -> Result<(), BinaryError> {
    let bytes = line.as_bytes();
    let Some(&first) = bytes.first() else {
        return Err(BinaryError::new(index, "empty data line"));
    };
    let Some(len) = line_length(first) else {
        return Err(BinaryError::new(
            index,
            format!("bad length character {:?}: expected `A`-`Z` or `a`-`z`", char::from(first)),
        ));
    };
    let data = &bytes[1..];
    let expected = len.div_ceil(4) * 5;
    if data.len() != expected {
        return Err(BinaryError::new(
            index,
            format!(
                "length character {:?} announces {len} bytes, which take {expected} base85 characters, but the line has {}",
                char::from(first),
                data.len()
            ),
        ));
    }
    let mut remaining = len;
    for group in data.chunks_exact(5) {
        let mut acc: u32 = 0;
        for &c in group {
            let Some(d) = digit(c) else {
                return Err(BinaryError::new(
                    index,
                    format!("bad base85 character {:?}", String::from_utf8_lossy(&[c])),
                ));
            };
            let Some(next) = acc.checked_mul(85).and_then(|a| a.checked_add(d)) else {
                return Err(BinaryError::new(index, "base85 group overflows 32 bits"));
            };
            acc = next;
        }
        let take = remaining.min(4);
        out.extend_from_slice(&acc.to_be_bytes()[..take]);
        remaining -= take;
    }
    Ok(())
}

/// Decodes the base85 lines of one `literal <size>` / `delta <size>` block (each line:
/// a length character `A`–`Z`/`a`–`z`, then base85) and inflates them; the result must be
/// `size` bytes long.
///
/// Lines are given without their `\n`. Every malformed input is an error naming the
/// offending line (for zlib errors, the line holding the byte where inflating failed;
/// for a wrong size, the last line). Data after the end of the zlib stream is an error
/// too (git ignores it; no diff git writes has any).
///
/// ```
/// use polypatch_unified::binary::decode;
///
/// // From `git diff --binary` for a new file holding one NUL byte.
/// assert_eq!(decode(&["IcmZPo000310RR91"], 1).unwrap(), b"\0");
/// assert_eq!(decode(&["IcmZPo000310RR91"], 2).unwrap_err().line, 0);
/// assert_eq!(decode(&["IcmZPo000310RR9\""], 1).unwrap_err().line, 0);
/// ```
pub fn decode(lines: &[&str], size: usize) -> Result<Vec<u8>, BinaryError> {
    if lines.is_empty() {
        return Err(BinaryError::new(0, "no data lines"));
    }
    let mut deflated = Vec::new();
    // The offset in `deflated` where each line's bytes end, to name the line of a zlib error.
    let mut ends = Vec::with_capacity(lines.len());
    for (index, line) in lines.iter().enumerate() {
        decode_line(line, index, &mut deflated)?;
        ends.push(deflated.len());
    }
    let line_of = |offset: usize| ends.iter().position(|&end| offset < end).unwrap_or(lines.len() - 1);
    let last = lines.len() - 1;

    let mut inflater = Decompress::new(true);
    // Never reserve more than the data can explain up front: `size` comes from the patch.
    let mut out = Vec::with_capacity(size.min(deflated.len().saturating_mul(8)).saturating_add(1));
    loop {
        let consumed = inflater.total_in() as usize;
        let produced = out.len();
        if out.len() == out.capacity() {
            out.reserve(out.capacity().clamp(64, 1 << 20));
        }
        let status = inflater
            .decompress_vec(&deflated[consumed..], &mut out, FlushDecompress::None)
            .map_err(|err| BinaryError::new(line_of(inflater.total_in() as usize), format!("bad zlib data: {err}")))?;
        if out.len() > size {
            return Err(BinaryError::new(last, format!("data inflates to more than the announced {size} bytes")));
        }
        match status {
            Status::StreamEnd => break,
            Status::Ok | Status::BufError => {
                // The output always has room here, so no progress means the input ran out.
                if inflater.total_in() as usize == consumed && out.len() == produced {
                    return Err(BinaryError::new(last, "truncated zlib data"));
                }
            }
        }
    }
    let consumed = inflater.total_in() as usize;
    if consumed < deflated.len() {
        let extra = deflated.len() - consumed;
        let noun = if extra == 1 { "byte" } else { "bytes" };
        return Err(BinaryError::new(
            line_of(consumed),
            format!("{extra} {noun} of data after the end of the zlib stream"),
        ));
    }
    if out.len() != size {
        return Err(BinaryError::new(
            last,
            format!("data inflates to {} bytes, but the block announces {size}", out.len()),
        ));
    }
    Ok(out)
}

/// Deflates `data` and encodes it as base85 lines, each ending with `\n`, as git writes
/// them: 52 bytes of deflated data per line, the last line shorter.
///
/// The zlib stream is valid but not necessarily byte-identical to git's (a different
/// deflate implementation); every decoder, git's included, reads it back.
///
/// ```
/// use polypatch_unified::binary::{decode, encode};
///
/// let text = encode(b"abc");
/// let lines: Vec<&str> = text.lines().collect();
/// assert_eq!(decode(&lines, 3).unwrap(), b"abc");
/// ```
pub fn encode(data: &[u8]) -> String {
    encode_raw(&deflate(data))
}

/// One whole `literal <len>` block: the header line, the data lines of [`encode`] and the
/// empty line that ends a block, as it follows `GIT binary patch` in a git diff.
///
/// ```
/// let block = polypatch_unified::binary::encode_block(b"");
/// assert_eq!(block, "literal 0\nHcmV?d00001\n\n");
/// ```
pub fn encode_block(data: &[u8]) -> String {
    format!("literal {}\n{}\n", data.len(), encode(data))
}

fn deflate(data: &[u8]) -> Vec<u8> {
    // git deflates binary patches at its default `core.compression` level, best speed.
    let mut compressor = Compress::new(Compression::fast(), true);
    let mut out = Vec::with_capacity(data.len() / 2 + 64);
    loop {
        if out.len() == out.capacity() {
            out.reserve(out.capacity().max(64));
        }
        let consumed = compressor.total_in() as usize;
        // Compressing into a Vec with spare room cannot fail: the only errors are misuse.
        let status =
            compressor.compress_vec(&data[consumed..], &mut out, FlushCompress::Finish).unwrap_or(Status::BufError);
        if status == Status::StreamEnd {
            return out;
        }
    }
}

/// Encodes `bytes` as git's base85 lines as they are, without deflating them (each line a
/// length character and at most 52 bytes, `\n`-terminated): what [`encode`] writes after
/// compressing. Raw lines are what a binary block's decoder reads before inflating.
pub fn encode_raw(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() / 4 * 5 + bytes.len() / MAX_LINE_BYTES * 2 + 8);
    for chunk in bytes.chunks(MAX_LINE_BYTES) {
        let n = chunk.len();
        let length = if n <= 26 { b'A' + n as u8 - 1 } else { b'a' + (n - 27) as u8 };
        out.push(char::from(length));
        for group in chunk.chunks(4) {
            let mut word = [0u8; 4];
            word[..group.len()].copy_from_slice(group);
            let mut value = u32::from_be_bytes(word);
            let mut digits = [0u8; 5];
            for d in digits.iter_mut().rev() {
                *d = ALPHABET[(value % 85) as usize];
                value /= 85;
            }
            out.extend(digits.iter().map(|&d| char::from(d)));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_cover_the_alphabet() {
        for (i, &c) in ALPHABET.iter().enumerate() {
            assert_eq!(digit(c), Some(i as u32));
        }
        assert_eq!(digit(b'"'), None);
        assert_eq!(digit(b' '), None);
        // Every other byte is no digit, the 0xff the table uses for "none" included.
        let others = (0..=255u8).filter(|c| !ALPHABET.contains(c));
        assert_eq!(others.clone().count(), 256 - 85);
        for c in others {
            assert_eq!(digit(c), None, "{c:#04x}");
        }
    }

    #[test]
    fn length_characters() {
        assert_eq!(line_length(b'A'), Some(1));
        assert_eq!(line_length(b'Z'), Some(26));
        assert_eq!(line_length(b'a'), Some(27));
        assert_eq!(line_length(b'z'), Some(52));
        assert_eq!(line_length(b'0'), None);
    }

    #[test]
    fn lines_hold_at_most_52_bytes() {
        let text = encode_raw(&[7u8; 105]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with('z') && lines[0].len() == 1 + 65);
        assert!(lines[1].starts_with('z'));
        assert!(lines[2].starts_with('A') && lines[2].len() == 6);
    }
}

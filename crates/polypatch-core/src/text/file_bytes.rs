//! A file's content as a plan computes it: bytes read or given whole, or the lines of an
//! edited text file, which become bytes only where something reads them whole.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, BufWriter, IoSlice, Write};
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use crate::text::eol::LineBreaks;
use crate::text::lines::{TextFile, decode_lossless, encode_lossless};
use crate::text::shared::SharedText;

/// A file's content: what [`crate::ChangeKind::Write`] writes.
///
/// It reads as bytes (it derefs to `[u8]`) and compares with bytes, whatever it is made
/// of. A file the engine edited is kept as its lines until it is written: most of them
/// are still ranges of the text that was read, so [`FileBytes::write_to`] hands those
/// ranges to the writer as they are and the new content is never built in memory (a copy
/// the size of the file, and its page faults). Comparisons (`==` with bytes or another
/// `FileBytes`), [`FileBytes::len`], [`FileBytes::to_vec`] and [`FileBytes::write_to`]
/// walk the lines without keeping a copy; reading the bytes whole ([`Deref`],
/// [`FileBytes::as_bytes`]) builds them once, on first use, and keeps them. Cloning is
/// cheap: clones share the content (and the bytes, once built).
///
/// ```
/// use polypatch_core::{compute, ApplyOptions, ChangeKind, Edit, EditPlan, FileEdit, MemoryFileSet};
///
/// let files = MemoryFileSet::new().with("a.txt", "one\ntwo\nthree\n");
/// let plan = EditPlan::new("", vec![FileEdit::modify("a.txt", vec![Edit::replace(["two"], ["2"])])]);
/// let computed = compute(&plan, &files, &ApplyOptions::default()).unwrap();
/// let ChangeKind::Write { bytes, .. } = &computed.changes[0].kind else { panic!("a write") };
/// assert_eq!(*bytes, b"one\n2\nthree\n"); // compared without building the bytes
/// let mut out = Vec::new();
/// bytes.write_to(&mut out).unwrap(); // written from the lines
/// assert_eq!(out, b"one\n2\nthree\n");
/// assert_eq!(&bytes[..4], b"one\n"); // read whole: built once, then kept
/// ```
#[derive(Clone)]
pub struct FileBytes(Repr);

#[derive(Clone)]
enum Repr {
    /// Bytes at hand.
    Whole(Whole),
    /// The lines of an edited text file.
    Lines(Arc<Lines>),
}

/// Bytes at hand.
#[derive(Clone)]
enum Whole {
    /// UTF-8 text, checked once, so that a file's lines can be ranges of it.
    Text(SharedText),
    /// Bytes that are not UTF-8.
    Bytes(Arc<Vec<u8>>),
}

impl Whole {
    /// UTF-8 bytes as text, others as bytes.
    fn new(bytes: Vec<u8>) -> Whole {
        match String::from_utf8(bytes) {
            Ok(text) => Whole::Text(SharedText::new(text)),
            Err(e) => Whole::Bytes(Arc::new(e.into_bytes())),
        }
    }

    fn as_bytes(&self) -> &[u8] {
        match self {
            Whole::Text(text) => text.as_bytes(),
            Whole::Bytes(bytes) => bytes,
        }
    }

    /// The bytes, without a copy when nothing else holds them.
    fn into_vec(self) -> Vec<u8> {
        match self {
            Whole::Text(text) => text.into_string().into_bytes(),
            Whole::Bytes(bytes) => Arc::try_unwrap(bytes).unwrap_or_else(|b| b.as_ref().clone()),
        }
    }
}

struct Lines {
    file: TextFile,
    /// The text stands for bytes ([`decode_lossless`]): each piece is written through
    /// [`encode_lossless`].
    lossless: bool,
    /// The bytes, once something read them whole.
    whole: OnceLock<Whole>,
}

impl Lines {
    /// Hands the bytes to `piece` in order, runs of unchanged lines as one piece each.
    fn try_for_each_piece<E>(&self, mut piece: impl FnMut(&[u8]) -> Result<(), E>) -> Result<(), E> {
        if self.lossless {
            self.file.try_for_each_piece(|text| piece(&encode_lossless(text)))
        } else {
            self.file.try_for_each_piece(|text| piece(text.as_bytes()))
        }
    }

    /// The number of bytes.
    fn len(&self) -> usize {
        let mut len = 0;
        let _ = self.try_for_each_piece(|piece| {
            len += piece.len();
            Ok::<_, ()>(())
        });
        len
    }

    /// The bytes in one vector.
    fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        let _ = self.try_for_each_piece(|piece| {
            out.extend_from_slice(piece);
            Ok::<_, ()>(())
        });
        out
    }
}

/// Pieces handed to one vectored write at the most: Linux's `IOV_MAX`.
const BATCH: usize = 1024;

/// The buffer the lines of a file that is not UTF-8 are encoded into on their way out.
const WRITE_BUFFER: usize = 64 * 1024;

impl FileBytes {
    /// The lines of an edited text file; `lossless` when their text stands for bytes that
    /// are not all UTF-8 ([`decode_lossless`]).
    pub(crate) fn from_lines(file: TextFile, lossless: bool) -> FileBytes {
        FileBytes(Repr::Lines(Arc::new(Lines { file, lossless, whole: OnceLock::new() })))
    }

    /// The bytes, when they are at hand without building them; otherwise the lines.
    /// The bytes, when they are at hand (not an edited file's lines, never read whole).
    #[cfg(feature = "disk")]
    pub(crate) fn at_hand(&self) -> Option<&[u8]> {
        self.settled().ok()
    }

    fn settled(&self) -> Result<&[u8], &Lines> {
        match &self.0 {
            Repr::Whole(whole) => Ok(whole.as_bytes()),
            Repr::Lines(lines) => lines.whole.get().map(Whole::as_bytes).ok_or(lines),
        }
    }

    /// The content as text or bytes: lines are built into bytes once, on first use.
    fn whole(&self) -> &Whole {
        match &self.0 {
            Repr::Whole(whole) => whole,
            Repr::Lines(lines) => lines.whole.get_or_init(|| {
                if lines.lossless {
                    Whole::new(lines.to_vec())
                } else {
                    Whole::Text(SharedText::new(lines.file.render()))
                }
            }),
        }
    }

    /// The bytes, built from the lines on first use (see the type's documentation).
    pub fn as_bytes(&self) -> &[u8] {
        self.whole().as_bytes()
    }

    /// The content as UTF-8 text, when it is.
    pub(crate) fn text(&self) -> Option<&SharedText> {
        match self.whole() {
            Whole::Text(text) => Some(text),
            Whole::Bytes(_) => None,
        }
    }

    /// The lines of the content read without loss ([`decode_lossless`]), as git compares
    /// them: ranges of the content itself when it is UTF-8 text.
    pub(crate) fn lossless_lines(&self, breaks: LineBreaks) -> TextFile {
        match (decode_lossless(self.as_bytes()), self.text()) {
            (Cow::Borrowed(_), Some(shared)) => TextFile::parse_shared(shared, breaks),
            (text, _) => TextFile::parse_with(&text, breaks),
        }
    }

    /// Hands the bytes to `piece` in order, in as few pieces as there are (one, for bytes
    /// at hand); stops at the first error.
    fn try_for_each_piece<E>(&self, mut piece: impl FnMut(&[u8]) -> Result<(), E>) -> Result<(), E> {
        match self.settled() {
            Ok([]) => Ok(()),
            Ok(bytes) => piece(bytes),
            Err(lines) => lines.try_for_each_piece(piece),
        }
    }

    /// The length in bytes (without building the bytes).
    pub fn len(&self) -> usize {
        match self.settled() {
            Ok(bytes) => bytes.len(),
            Err(lines) => lines.len(),
        }
    }

    /// Whether the content is empty (without building the bytes).
    pub fn is_empty(&self) -> bool {
        self.try_for_each_piece(|_| Err(())).is_ok()
    }

    /// Writes the bytes to `out`: the bytes in one `write_all`, or the lines of an edited
    /// file in vectored writes of up to 1,024 pieces (runs of unchanged lines as they
    /// stand in the text that was read, without a copy). Lines whose text stands for bytes
    /// that are not UTF-8 are encoded into a buffer on their way out. Does not flush `out`.
    ///
    /// # Errors
    ///
    /// The first error of `out`; part of the content may have been written.
    pub fn write_to<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        let lines = match self.settled() {
            Ok(bytes) => return out.write_all(bytes),
            Err(lines) => lines,
        };
        if lines.lossless {
            let mut out = BufWriter::with_capacity(WRITE_BUFFER, out);
            lines.try_for_each_piece(|piece| out.write_all(piece))?;
            return out.flush();
        }
        let mut batch = Vec::with_capacity(BATCH);
        lines.file.try_for_each_piece(|piece| {
            batch.push(IoSlice::new(piece.as_bytes()));
            if batch.len() < BATCH {
                return Ok(());
            }
            write_all_vectored(out, &mut batch)
        })?;
        write_all_vectored(out, &mut batch)
    }

    /// The same content as bytes at hand: itself (a shared clone) when it already is, or
    /// the lines of an edited file built into bytes, once (kept here too, so a later read
    /// does not build them again). The result holds neither the lines nor the text they
    /// were cut from: what a store that keeps files in memory wants to hold.
    pub(crate) fn built(&self) -> FileBytes {
        match &self.0 {
            Repr::Whole(_) => self.clone(),
            Repr::Lines(_) => FileBytes(Repr::Whole(self.whole().clone())),
        }
    }

    /// A copy of the bytes, built from the lines without keeping them here.
    pub fn to_vec(&self) -> Vec<u8> {
        match self.settled() {
            Ok(bytes) => bytes.to_vec(),
            Err(lines) => lines.to_vec(),
        }
    }

    /// The bytes, without a copy when nothing else holds them.
    pub fn into_vec(self) -> Vec<u8> {
        match self.0 {
            Repr::Whole(whole) => whole.into_vec(),
            Repr::Lines(lines) => match Arc::try_unwrap(lines) {
                Ok(mut lines) => match lines.whole.take() {
                    Some(whole) => whole.into_vec(),
                    None => lines.to_vec(),
                },
                Err(lines) => lines.whole.get().map_or_else(|| lines.to_vec(), |whole| whole.as_bytes().to_vec()),
            },
        }
    }

    /// Whether `other` is this very content (one a clone of the other), not only equal
    /// bytes: a comparison made with one holds for the other.
    pub(crate) fn is_same_content(&self, other: &FileBytes) -> bool {
        match (&self.0, &other.0) {
            (Repr::Lines(a), Repr::Lines(b)) => Arc::ptr_eq(a, b),
            (Repr::Whole(Whole::Text(a)), Repr::Whole(Whole::Text(b))) => SharedText::ptr_eq(a, b),
            (Repr::Whole(Whole::Bytes(a)), Repr::Whole(Whole::Bytes(b))) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// The content as a `String`, when it is UTF-8 text; otherwise the content itself,
    /// unchanged. Text at hand is handed over (without a copy when nothing else holds it)
    /// and an edited text file's lines are joined once, neither checked again: only the
    /// bytes of a file edited byte for byte (not UTF-8 when it was read) are checked.
    ///
    /// ```
    /// use polypatch_core::FileBytes;
    ///
    /// assert_eq!(FileBytes::from("one\n").into_string().ok().as_deref(), Some("one\n"));
    /// assert!(FileBytes::from(&b"caf\xe9"[..]).into_string().is_err());
    /// ```
    pub fn into_string(self) -> Result<String, FileBytes> {
        match self.0 {
            Repr::Whole(Whole::Text(text)) => Ok(text.into_string()),
            Repr::Whole(Whole::Bytes(_)) => Err(self),
            Repr::Lines(lines) => match lines.whole.get() {
                Some(Whole::Text(text)) => Ok(text.as_str().to_string()),
                Some(Whole::Bytes(_)) => Err(FileBytes(Repr::Lines(lines))),
                None if lines.lossless => String::from_utf8(lines.to_vec()).map_err(|_| FileBytes(Repr::Lines(lines))),
                None => Ok(lines.file.render()),
            },
        }
    }

    /// Whether the content is `other`, compared piece by piece: the lines of an edited
    /// file are not built into bytes for it.
    fn eq_bytes(&self, other: &[u8]) -> bool {
        let mut rest = other;
        let same = self.try_for_each_piece(|piece| {
            // A piece that is these very bytes (an edited file's unchanged lines, compared
            // with the text they were read from) is equal without reading it.
            let here = rest.get(..piece.len()).ok_or(())?;
            if std::ptr::eq(here, piece) || here == piece {
                rest = &rest[piece.len()..];
                Ok(())
            } else {
                Err(())
            }
        });
        same.is_ok() && rest.is_empty()
    }
}

/// Writes every byte of `pieces` to `out` (as the unstable `Write::write_all_vectored`
/// does), and empties `pieces`.
fn write_all_vectored<W: Write + ?Sized>(out: &mut W, pieces: &mut Vec<IoSlice<'_>>) -> io::Result<()> {
    let mut rest = &mut pieces[..];
    while !rest.is_empty() {
        match out.write_vectored(rest) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
            Ok(n) => IoSlice::advance_slices(&mut rest, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    pieces.clear();
    Ok(())
}

impl Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl AsRef<[u8]> for FileBytes {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

/// UTF-8 bytes are kept as text (checked once here), so that the file's lines can be
/// ranges of them.
impl From<Vec<u8>> for FileBytes {
    fn from(bytes: Vec<u8>) -> FileBytes {
        FileBytes(Repr::Whole(Whole::new(bytes)))
    }
}

impl From<&[u8]> for FileBytes {
    fn from(bytes: &[u8]) -> FileBytes {
        FileBytes::from(bytes.to_vec())
    }
}

impl<const N: usize> From<&[u8; N]> for FileBytes {
    fn from(bytes: &[u8; N]) -> FileBytes {
        FileBytes::from(bytes.to_vec())
    }
}

impl From<String> for FileBytes {
    fn from(text: String) -> FileBytes {
        FileBytes(Repr::Whole(Whole::Text(SharedText::new(text))))
    }
}

impl From<&str> for FileBytes {
    fn from(text: &str) -> FileBytes {
        FileBytes::from(text.to_string())
    }
}

impl From<FileBytes> for Vec<u8> {
    fn from(bytes: FileBytes) -> Vec<u8> {
        bytes.into_vec()
    }
}

impl PartialEq for FileBytes {
    fn eq(&self, other: &FileBytes) -> bool {
        match (&self.0, &other.0) {
            (Repr::Lines(a), Repr::Lines(b)) if Arc::ptr_eq(a, b) => true,
            _ => match (self.settled(), other.settled()) {
                (Ok(a), Ok(b)) => a == b,
                (Ok(a), Err(_)) => other.eq_bytes(a),
                (Err(_), Ok(b)) => self.eq_bytes(b),
                // Two edited files: one is built, the other compared with it piece by piece.
                (Err(_), Err(_)) => self.eq_bytes(other.as_bytes()),
            },
        }
    }
}

impl Eq for FileBytes {}

impl PartialEq<[u8]> for FileBytes {
    fn eq(&self, other: &[u8]) -> bool {
        self.eq_bytes(other)
    }
}

impl PartialEq<&[u8]> for FileBytes {
    fn eq(&self, other: &&[u8]) -> bool {
        self.eq_bytes(other)
    }
}

impl<const N: usize> PartialEq<[u8; N]> for FileBytes {
    fn eq(&self, other: &[u8; N]) -> bool {
        self.eq_bytes(other)
    }
}

impl<const N: usize> PartialEq<&[u8; N]> for FileBytes {
    fn eq(&self, other: &&[u8; N]) -> bool {
        self.eq_bytes(*other)
    }
}

impl PartialEq<Vec<u8>> for FileBytes {
    fn eq(&self, other: &Vec<u8>) -> bool {
        self.eq_bytes(other)
    }
}

impl PartialEq<FileBytes> for [u8] {
    fn eq(&self, other: &FileBytes) -> bool {
        other.eq_bytes(self)
    }
}

impl PartialEq<FileBytes> for Vec<u8> {
    fn eq(&self, other: &FileBytes) -> bool {
        other.eq_bytes(self)
    }
}

/// Shows the bytes as a byte string (`b"..."`), without keeping them built.
impl fmt::Debug for FileBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.settled() {
            Ok(bytes) => write!(f, "b\"{}\"", bytes.escape_ascii()),
            Err(lines) => write!(f, "b\"{}\"", lines.to_vec().escape_ascii()),
        }
    }
}

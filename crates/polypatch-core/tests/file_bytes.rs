//! An edited file's new content is kept as its lines until it is written
//! ([`polypatch_core::FileBytes`]): whatever reads it (the commit's streamed write, a
//! comparison, a later edit of the same file, a copy) sees exactly the bytes a rendered
//! copy would hold.

use std::fmt::Write as _;
use std::io::{self, IoSlice};

mod common;

use polypatch_core::{
    Action, ApplyOptions, ChangeKind, Content, DiskFileSet, Durability, Edit, EditPlan, FailureKind, FileBytes,
    FileEdit, FileOp, IfExists, LineBreaks, MemoryFileSet, Modify, Occurrence, Policy, PostProcess, Replacement, Scope,
    Status, Target, apply, compute, decode_lossless,
};

/// An edit from diff-style lines (` ` context, `-` removed, `+` added), each line read from
/// bytes without loss.
fn hunk(lines: &[&[u8]]) -> Edit {
    let texts: Vec<String> = lines.iter().map(|l| decode_lossless(l).into_owned()).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let (old, new, kept) = common::sides(&refs);
    Edit::new(Target::Lines(old), Action::Replace(Replacement::lines(new).with_kept(kept)))
        .with_scope(Scope::default().with_after_previous(true))
        .with_policy(Policy::default().with_occurrence(Occurrence::First))
}

/// A modify of `path`; `git` reads it as a diff does (byte for byte, also a file that is
/// not UTF-8).
fn modify(path: &str, edits: Vec<Edit>, git: bool) -> FileEdit {
    let mut m = Modify::new(edits);
    if git {
        m.line_breaks = LineBreaks::LfOrCrLf;
    }
    FileEdit::new(path, FileOp::Modify(m))
}

/// `n` lines `{word} {i}`, each ended by `eol`.
fn numbered(word: &str, n: usize, eol: &str) -> String {
    (0..n).fold(String::new(), |mut out, i| {
        let _ = write!(out, "{word} {i}{eol}");
        out
    })
}

fn plan(files: Vec<FileEdit>) -> EditPlan {
    EditPlan::new("test", files)
}

/// The new content of the one file `plan` writes.
fn written(files: &MemoryFileSet, plan: &EditPlan) -> FileBytes {
    let computed = compute(plan, files, &ApplyOptions::default()).unwrap();
    let [change] = computed.changes.as_slice() else { panic!("one change: {:?}", computed.changes) };
    change.kind.written().expect("a write").0.clone()
}

/// Every way of reading `bytes` gives `want`, and comparisons agree with it.
fn check_reads(bytes: &FileBytes, want: &[u8], what: &str) {
    // Before the bytes are built: streamed, measured, copied and compared from the lines.
    let mut streamed = Vec::new();
    bytes.write_to(&mut streamed).unwrap();
    assert_eq!(streamed, want, "{what}: streamed");
    assert_eq!(bytes.len(), want.len(), "{what}: len");
    assert_eq!(bytes.is_empty(), want.is_empty(), "{what}: is_empty");
    assert_eq!(bytes.to_vec(), want, "{what}: to_vec");
    assert!(*bytes == *want, "{what}: ==");
    assert!(*want == *bytes, "{what}: == from the other side");
    let mut longer = want.to_vec();
    longer.push(b'\n');
    assert!(*bytes != longer && *bytes != want[..want.len().saturating_sub(1)] || want.is_empty(), "{what}: !=");
    if let Some(last) = want.len().checked_sub(1) {
        let mut other = want.to_vec();
        other[last] ^= 1;
        assert!(*bytes != other, "{what}: a changed last byte");
        let mut other = want.to_vec();
        other[0] ^= 1;
        assert!(*bytes != other, "{what}: a changed first byte");
    }
    assert_eq!(format!("{bytes:?}"), format!("b\"{}\"", want.escape_ascii()), "{what}: debug");
    // Built once, then read whole; the streamed write still gives the same bytes.
    assert_eq!(&**bytes, want, "{what}: rendered");
    assert_eq!(bytes.as_bytes(), want, "{what}: as_bytes");
    let mut again = Vec::new();
    bytes.write_to(&mut again).unwrap();
    assert_eq!(again, want, "{what}: written after rendering");
    assert_eq!(bytes.clone().into_vec(), want, "{what}: into_vec");
}

/// Applies `plan` to a file set holding `path` as `before`, in memory and on disk (with and
/// without syncs, alone and with a second file, so both the one-rename commit and the
/// journaled one write it), and checks that every way of reading the result gives `want`.
fn check(path: &str, before: &[u8], plan: &EditPlan, want: &[u8]) {
    let what = format!("{before:?}");
    let files = MemoryFileSet::new().with(path, before);
    check_reads(&written(&files, plan), want, &what);
    let mut memory = files.clone();
    apply(plan, &mut memory, &ApplyOptions::default()).unwrap();
    assert_eq!(memory.get(path), Some(want), "{what}: in memory");
    for policy in [Durability::None, Durability::Full] {
        for other in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join(path), before).unwrap();
            let mut plan = plan.clone();
            if other {
                plan.files.push(FileEdit::new(
                    "other.txt",
                    FileOp::Create {
                        content: Content::Text("other\n".into()),
                        newline: None,
                        if_exists: IfExists::Error,
                        mode: None,
                    },
                ));
            }
            let mut disk = DiskFileSet::new(dir.path()).unwrap().durability(policy);
            apply(&plan, &mut disk, &ApplyOptions::default()).unwrap();
            assert_eq!(std::fs::read(dir.path().join(path)).unwrap(), want, "{what}: on disk, {policy:?}, {other}");
        }
    }
}

/// A file before, a line of it, the line that replaces it, and the file after.
type Case<'a> = (&'a [u8], &'a [u8], &'a [u8], &'a [u8]);

#[test]
fn every_kind_of_text_file_is_written_byte_for_byte() {
    let one = |old: &[u8], new: &[u8]| {
        let mut minus = b"-".to_vec();
        minus.extend_from_slice(old);
        let mut plus = b"+".to_vec();
        plus.extend_from_slice(new);
        (minus, plus)
    };
    // (before, line replaced, its replacement, after), each with matching text and as git.
    let cases: [Case<'_>; 7] = [
        (b"a\nb\nc\n", b"b", b"B", b"a\nB\nc\n"),
        (b"a\r\nb\r\nc\r\n", b"b", b"B", b"a\r\nB\r\nc\r\n"),
        (b"a\nb\r\nc\n\r\nd", b"c", b"C", b"a\nb\r\nC\n\r\nd"),
        (b"a\nb\nc", b"c", b"C", b"a\nb\nC"),
        (b"a\nb\nc", b"a", b"A", b"A\nb\nc"),
        (b"\xef\xbb\xbfa\r\nb\r\n", b"b", b"B", b"\xef\xbb\xbfa\r\nB\r\n"),
        (b"\xef\xbb\xbfa\nb\n", b"a", b"A", b"\xef\xbb\xbfA\nb\n"),
    ];
    for (before, old, new, after) in cases {
        let (minus, plus) = one(old, new);
        for git in [false, true] {
            check("f.txt", before, &plan(vec![modify("f.txt", vec![hunk(&[&minus, &plus])], git)]), after);
        }
    }
    // A lone `\r` ends a line only when the file is read as text (not as git reads it).
    check("f.txt", b"a\rb\rc\r", &plan(vec![modify("f.txt", vec![hunk(&[b"-b", b"+B"])], false)]), b"a\rB\rc\r");
    // Every line one an edit wrote; every line deleted.
    let all = plan(vec![modify("f.txt", vec![hunk(&[b"-a", b"-b", b"+x", b"+y", b"+z"])], false)]);
    check("f.txt", b"a\r\nb\r\n", &all, b"x\r\ny\r\nz\r\n");
    check("f.txt", b"a\nb\n", &plan(vec![modify("f.txt", vec![hunk(&[b"-a", b"-b"])], false)]), b"");
    // An empty file that gets lines.
    let append = Edit::new(Target::EndOfFile, Action::InsertAfter { lines: vec!["first".into(), "second".into()] });
    check("f.txt", b"", &plan(vec![modify("f.txt", vec![append], false)]), b"first\nsecond\n");
    // Two edits far apart in a larger file: three runs of its buffer around them.
    let before = numbered("line", 2000, "\r\n");
    let after = before.replace("line 10\r\n", "TEN\r\n").replace("line 1990\r\n", "1990\r\nadded\r\n");
    let edits = vec![hunk(&[b" line 9", b"-line 10", b"+TEN"]), hunk(&[b"-line 1990", b"+1990", b"+added"])];
    check("f.txt", before.as_bytes(), &plan(vec![modify("f.txt", edits, false)]), after.as_bytes());
}

#[test]
fn a_file_that_is_not_utf8_is_written_byte_for_byte() {
    // Latin-1 text, a BOM's bytes, bytes that are not UTF-8 in the lines a diff wrote.
    let before = b"\xef\xbb\xbfcaf\xe9\r\nb\xe0\nplain\nz\xff";
    let edits =
        vec![hunk(&[b" \xef\xbb\xbfcaf\xe9", b"-b\xe0", b"+B\xc0", b"+new \xfe"]), hunk(&[b"-z\xff", b"+Z\xff"])];
    check(
        "l.txt",
        before,
        &plan(vec![modify("l.txt", edits, true)]),
        b"\xef\xbb\xbfcaf\xe9\r\nB\xc0\nnew \xfe\nplain\nZ\xff",
    );
    // A UTF-8 file, a diff that writes bytes that are not UTF-8 (and some that happen to be).
    let edits = vec![hunk(&[b" caf\xc3\xa9", b"-b", b"+b\xe9", b"+\xc3\xa9 read as bytes"])];
    check(
        "u.txt",
        b"caf\xc3\xa9\nb\nc\n",
        &plan(vec![modify("u.txt", edits, true)]),
        b"caf\xc3\xa9\nb\xe9\n\xc3\xa9 read as bytes\nc\n",
    );
}

#[test]
fn later_edits_of_one_file_in_one_plan_see_the_earlier_ones() {
    let before = numbered("row", 500, "\n");
    let p = plan(vec![
        modify("a.txt", vec![hunk(&[b"-row 100", b"+ROW 100"])], false),
        modify("a.txt", vec![hunk(&[b" ROW 100", b"-row 101", b"+ROW 101"])], false),
        modify("a.txt", vec![hunk(&[b"-row 400", b"+ROW 400"])], true),
    ]);
    let after =
        before.replace("row 100\n", "ROW 100\n").replace("row 101\n", "ROW 101\n").replace("row 400\n", "ROW 400\n");
    check("a.txt", before.as_bytes(), &p, after.as_bytes());
    // A whole-file replace or a create that matches the edited content is already applied;
    // one that does not is written.
    let files = MemoryFileSet::new().with("a.txt", before.as_str());
    let same = |after: &str| FileOp::Replace {
        content: Content::Text(after.into()),
        create_if_missing: false,
        follow_file: false,
    };
    let create = |after: &str| FileOp::Create {
        content: Content::Text(after.into()),
        newline: None,
        if_exists: IfExists::ErrorUnlessIdentical,
        mode: None,
    };
    let edit = modify("a.txt", vec![hunk(&[b"-row 100", b"+ROW 100"])], false);
    let edited = before.replace("row 100\n", "ROW 100\n");
    for op in [same(&edited), create(&edited)] {
        let report =
            apply(&plan(vec![edit.clone(), FileEdit::new("a.txt", op)]), &mut files.clone(), &ApplyOptions::default())
                .unwrap();
        assert_eq!(report.files[1].status, Status::AlreadyApplied);
    }
    let shorter = &edited[..edited.len() - 1];
    let report =
        compute(&plan(vec![edit.clone(), FileEdit::new("a.txt", same(shorter))]), &files, &ApplyOptions::default())
            .unwrap();
    assert_eq!(report.report.files[1].status, Status::Located);
    let ChangeKind::Write { bytes, .. } = &report.changes[0].kind else { panic!("a write") };
    assert_eq!(*bytes, shorter.as_bytes());
    let err = compute(&plan(vec![edit, FileEdit::new("a.txt", create(shorter))]), &files, &ApplyOptions::default())
        .unwrap_err();
    assert_eq!(err.report.files[1].failure.as_ref().unwrap().kind, FailureKind::FileExists);
}

#[test]
fn a_move_or_copy_onto_a_file_compares_it_with_the_edited_lines() {
    let before = numbered("item", 300, "\n");
    let after = before.replace("item 150\n", "ITEM 150\n");
    // The destination holds the result, or nearly: one byte short, one byte more, one other.
    let nearly = [
        (after.clone(), true),
        (after[..after.len() - 1].to_string(), false),
        (format!("{after}\n"), false),
        (after.replace("item 299", "item 298"), false),
        (after.replace("item 0", "Item 0"), false),
    ];
    for (dest, identical) in nearly {
        for copy in [false, true] {
            let mut m = Modify::new(vec![hunk(&[b"-item 150", b"+ITEM 150"])]);
            m.if_dest_exists = IfExists::ErrorUnlessIdentical;
            let fe = if copy {
                m.copy_from = Some("a.txt".into());
                FileEdit::new("dest.txt", FileOp::Modify(m))
            } else {
                m.move_to = Some("dest.txt".into());
                FileEdit::new("a.txt", FileOp::Modify(m))
            };
            let mut files = MemoryFileSet::new().with("a.txt", before.as_str()).with("dest.txt", dest.as_str());
            let result = apply(&plan(vec![fe]), &mut files, &ApplyOptions::default());
            assert_eq!(result.is_ok(), identical, "{copy} {:?}", &dest[dest.len() - 12..]);
            let want = if identical { after.as_str() } else { dest.as_str() };
            assert_eq!(files.get_str("dest.txt"), Some(want));
            assert_eq!(files.get("a.txt").is_some(), copy || !identical);
        }
    }
}

#[test]
fn file_bytes_made_from_bytes_read_and_compare_as_them() {
    for bytes in [&b""[..], b"text\n", b"caf\xe9", b"\xef\xbb\xbf\r\n"] {
        let made = [FileBytes::from(bytes.to_vec()), FileBytes::from(bytes)];
        for b in &made {
            check_reads(b, bytes, "made");
        }
        assert_eq!(made[0], made[1]);
        assert_eq!(Vec::from(made[0].clone()), bytes);
    }
    assert_eq!(FileBytes::from("é"), FileBytes::from(String::from("é")));
    assert_ne!(FileBytes::from("é"), FileBytes::from(&b"\xe9"[..]));
}

/// A writer that takes at most `step` bytes a call and is interrupted every third call;
/// past `fail_at` bytes it fails, or takes nothing (`zero`).
struct Trickle {
    out: Vec<u8>,
    step: usize,
    calls: usize,
    fail_at: usize,
    zero: bool,
}

impl Trickle {
    fn new(step: usize) -> Trickle {
        Trickle { out: Vec::new(), step, calls: 0, fail_at: usize::MAX, zero: false }
    }

    /// How many bytes the next call takes, or its error.
    fn room(&mut self) -> io::Result<usize> {
        self.calls += 1;
        if self.calls.is_multiple_of(3) {
            return Err(io::ErrorKind::Interrupted.into());
        }
        match self.fail_at.checked_sub(self.out.len()) {
            Some(0) | None if self.zero => Ok(0),
            Some(0) | None => Err(io::Error::other("disk full")),
            Some(left) => Ok(self.step.min(left)),
        }
    }
}

impl io::Write for Trickle {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.room()?.min(buf.len());
        self.out.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        let mut room = self.room()?;
        let mut n = 0;
        for buf in bufs {
            let take = room.min(buf.len());
            self.out.extend_from_slice(&buf[..take]);
            (n, room) = (n + take, room - take);
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_file_of_many_pieces_is_written_whole_through_short_and_interrupted_writes() {
    // Trailing blanks stripped from every other line: every line a piece of its own, and
    // its terminator another, thousands of pieces in all (several vectored batches).
    let before = (0..3000).fold(String::new(), |mut out, i| {
        let _ = write!(out, "line {i}{}\r\n", if i % 2 == 0 { "  " } else { "" });
        out
    });
    let after = before.replace("  \r\n", "\r\n");
    let mut m = Modify::new(Vec::new());
    m.post = PostProcess::strip_trailing_whitespace();
    let files = MemoryFileSet::new().with("f.txt", before.as_str());
    let bytes = written(&files, &plan(vec![FileEdit::new("f.txt", FileOp::Modify(m))]));
    for step in [1, 7, 4096, usize::MAX] {
        let mut out = Trickle::new(step);
        bytes.write_to(&mut out).unwrap();
        assert_eq!(out.out, after.as_bytes(), "{step}");
    }
    // An error comes back; a writer that takes nothing is an error too.
    for zero in [false, true] {
        let mut out = Trickle { fail_at: 1000, zero, ..Trickle::new(100) };
        let err = bytes.write_to(&mut out).unwrap_err();
        assert_eq!(err.kind(), if zero { io::ErrorKind::WriteZero } else { io::ErrorKind::Other });
        assert_eq!(out.out, after.as_bytes()[..1000]);
    }
    check_reads(&bytes, after.as_bytes(), "many pieces");
    // Lines whose text stands for bytes that are not UTF-8 go out through a buffer.
    let latin: Vec<u8> = before.bytes().map(|b| if b == b'e' { 0xe9 } else { b }).collect();
    let want: Vec<u8> = after.bytes().map(|b| if b == b'e' { 0xe9 } else { b }).collect();
    let mut m = Modify::new(Vec::new());
    m.post = PostProcess::strip_trailing_whitespace();
    m.line_breaks = LineBreaks::LfOrCrLf;
    let files = MemoryFileSet::new().with("l.txt", latin);
    let bytes = written(&files, &plan(vec![FileEdit::new("l.txt", FileOp::Modify(m))]));
    let mut out = Trickle::new(7);
    bytes.write_to(&mut out).unwrap();
    assert_eq!(out.out, want);
    check_reads(&bytes, &want, "many pieces, not UTF-8");
}

//! Git's binary formats that applying needs: blob ids and the delta encoding of
//! `GIT binary patch` `delta` hunks.

/// The git blob id of `bytes`: the SHA-1 of `blob <len>\0` followed by the bytes, in hex.
///
/// ```
/// // `git hash-object /dev/null`
/// assert_eq!(polypatch_core::binary::git_blob_id(b""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
/// // `printf 'hello\n' | git hash-object --stdin`
/// assert_eq!(polypatch_core::binary::git_blob_id(b"hello\n"), "ce013625030ba8dba906f756967f9e9ca394464a");
/// ```
pub fn git_blob_id(bytes: &[u8]) -> String {
    use sha1::Digest as _;
    use std::fmt::Write as _;
    let mut hash = sha1::Sha1::new();
    hash.update(format!("blob {}\0", bytes.len()).as_bytes());
    hash.update(bytes);
    let mut hex = String::with_capacity(40);
    for byte in hash.finalize() {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// Whether `id` (full or abbreviated hex, at least 7 digits) names the blob `bytes`.
/// An id of only zeros names the empty, missing file: it matches empty `bytes`.
pub fn blob_id_matches(id: &str, bytes: &[u8]) -> bool {
    id_names(id, &git_blob_id(bytes), bytes.is_empty())
}

/// Whether `id` (full or abbreviated hex, at least 7 digits) names the blob whose full id
/// is `blob` (as [`git_blob_id`] gives it; `empty`: the blob has no bytes), so that one
/// hash serves several comparisons.
pub fn id_names(id: &str, blob: &str, empty: bool) -> bool {
    if id.len() < 7 || id.len() > 40 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return false;
    }
    if id.bytes().all(|b| b == b'0') {
        return empty;
    }
    blob.get(..id.len()).is_some_and(|prefix| prefix.eq_ignore_ascii_case(id))
}

/// A git delta that cannot be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DeltaError(pub String);

/// The two sizes a git delta's header announces: the base's and the result's.
///
/// ```
/// assert_eq!(polypatch_core::binary::delta_sizes(&[5, 8, 0x90, 5]).unwrap(), (5, 8));
/// ```
pub fn delta_sizes(delta: &[u8]) -> Result<(usize, usize), DeltaError> {
    let mut pos = 0;
    let base = varint(delta, &mut pos)?;
    let result = varint(delta, &mut pos)?;
    Ok((base, result))
}

/// The little-endian base-128 number at `pos` (a delta header's size), advancing `pos`.
fn varint(delta: &[u8], pos: &mut usize) -> Result<usize, DeltaError> {
    let err = |m: &str| DeltaError(m.to_string());
    let mut value = 0usize;
    let mut shift = 0u32;
    loop {
        let byte = *delta.get(*pos).ok_or_else(|| err("the delta ends inside its header"))?;
        *pos += 1;
        if shift > 56 {
            return Err(err("the delta's header holds a size too large"));
        }
        value |= usize::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
}

/// Applies a git delta (base size, result size, then copy and insert instructions) to
/// `base`. The result never grows past the size the header announces (callers that take
/// deltas from untrusted patches check that size first: [`delta_sizes`]).
///
/// ```
/// use polypatch_core::binary::apply_git_delta;
/// // base size 5, result size 8: copy 5 bytes from offset 0, then insert "!!!".
/// let delta = [5, 8, 0x90, 5, 3, b'!', b'!', b'!'];
/// assert_eq!(apply_git_delta(b"hello", &delta).unwrap(), b"hello!!!");
/// ```
pub fn apply_git_delta(base: &[u8], delta: &[u8]) -> Result<Vec<u8>, DeltaError> {
    let err = |m: &str| DeltaError(m.to_string());
    let mut pos = 0usize;
    let base_size = varint(delta, &mut pos)?;
    let result_size = varint(delta, &mut pos)?;
    if base_size != base.len() {
        return Err(DeltaError(format!(
            "the delta was made for a file of {base_size} bytes, the file has {} bytes",
            base.len()
        )));
    }
    // The header's size is a claim: reserve at most 64 MiB for it up front, grow by what
    // the instructions really produce.
    let mut out = Vec::with_capacity(result_size.min(64 << 20));
    while pos < delta.len() {
        let cmd = delta[pos];
        pos += 1;
        if cmd & 0x80 != 0 {
            let mut field = |bits: u8, first: u32| -> Result<usize, DeltaError> {
                let mut value = 0usize;
                for i in 0..bits {
                    if cmd & (1 << (first + u32::from(i))) != 0 {
                        let byte = *delta.get(pos).ok_or_else(|| err("the delta ends inside a copy instruction"))?;
                        pos += 1;
                        value |= usize::from(byte) << (8 * i);
                    }
                }
                Ok(value)
            };
            let offset = field(4, 0)?;
            let mut size = field(3, 4)?;
            if size == 0 {
                size = 0x10000;
            }
            let end = offset.checked_add(size).filter(|&e| e <= base.len()).ok_or_else(|| {
                DeltaError(format!("the delta copies bytes {offset}..{} of a {}-byte file", offset + size, base.len()))
            })?;
            out.extend_from_slice(&base[offset..end]);
        } else if cmd != 0 {
            let n = usize::from(cmd);
            let data = delta.get(pos..pos + n).ok_or_else(|| err("the delta ends inside an insert instruction"))?;
            out.extend_from_slice(data);
            pos += n;
        } else {
            return Err(err("the delta holds the reserved instruction 0"));
        }
        if out.len() > result_size {
            return Err(err("the delta produces more bytes than its header says"));
        }
    }
    if out.len() != result_size {
        return Err(DeltaError(format!("the delta produced {} bytes, its header says {result_size}", out.len())));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_ids_are_gits() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(git_blob_id(b"hello\n"), "ce013625030ba8dba906f756967f9e9ca394464a");
        assert!(blob_id_matches("ce01362", b"hello\n"));
        assert!(blob_id_matches("CE013625030BA8DBA906F756967F9E9CA394464A", b"hello\n"));
        assert!(!blob_id_matches("ce0136", b"hello\n"), "fewer than 7 digits names nothing");
        assert!(!blob_id_matches("ce01362x", b"hello\n"));
        assert!(!blob_id_matches("e69de29", b"hello\n"));
        assert!(blob_id_matches("0000000", b""));
        assert!(!blob_id_matches("0000000", b"x"));
    }

    #[test]
    fn delta_copies_and_inserts() {
        // Copy with a two-byte offset and a one-byte size, then insert.
        let base: Vec<u8> = (0..=255u8).cycle().take(600).collect();
        // Base size 600 (varint 0xd8 0x04), result size 6; copy offset 0x012c (bits 0 and 1),
        // size 4 (bit 4); insert 2 bytes.
        let mut d = vec![0xd8, 0x04, 6];
        d.extend_from_slice(&[0b1001_0011, 0x2c, 0x01, 0x04, 2, b'x', b'y']);
        assert_eq!(apply_git_delta(&base, &d).unwrap(), [base[300], base[301], base[302], base[303], b'x', b'y']);
    }

    #[test]
    fn delta_size_zero_means_64_kib() {
        let base = vec![7u8; 0x10000];
        let d = [0x80, 0x80, 0x04, 0x80, 0x80, 0x04, 0x80];
        assert_eq!(apply_git_delta(&base, &d).unwrap(), base);
    }

    #[test]
    fn malformed_deltas_are_errors() {
        let base = b"hello";
        for d in [
            &[][..],
            &[5],
            &[4, 5, 0x90, 5],
            &[5, 5, 0],
            &[5, 5, 0x90],
            &[5, 5, 0x91, 1, 5],
            &[5, 5, 3, b'a'],
            &[5, 6, 0x90, 5],
            &[5, 4, 0x90, 5],
            &[5, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        ] {
            assert!(apply_git_delta(base, d).is_err(), "{d:?}");
        }
    }
}

//! Finding every `\n` of a text, in order, for splitting a file into lines.
//!
//! Calling `memchr` once per line costs a call and a mispredicted branch at every line's
//! end, which for a file of short lines was most of the time it took to split it (about
//! 6 ns a line: 0.6 ms for a 100,000-line file, issue 14). Here the text is read 64 bytes
//! at a time into a bit mask of its `\n` bytes (SSE2 compares, part of every x86-64
//! processor), the mask's positions are written out without a branch per position, a
//! block of 2 KiB at a time, and the caller then walks the positions of a block in a loop
//! whose branches are predictable: about half the time. Elsewhere, `memchr` as before.
//!
//! The one `unsafe` operation is calling a function compiled with the `sse2` target
//! feature, which is sound where the target has that feature for every function (the
//! `cfg` below); the function itself reads the text through safe slices only. Its tests
//! compare it with a plain scan, and run under Miri with the `shared` module's
//! (`cargo +nightly miri test -p polypatch-core --lib -- newlines::`).

#![allow(unsafe_code)]

/// Calls `found` with the position of every `\n` in `bytes`, in increasing order.
#[inline]
pub(crate) fn for_each_newline(bytes: &[u8], mut found: impl FnMut(usize)) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        let (chunks, rest) = bytes.as_chunks::<CHUNK>();
        let mut at = [0u32; BLOCK * CHUNK + CHUNK];
        let mut base = 0;
        for block in chunks.chunks(BLOCK) {
            // SAFETY: `sse2` is enabled for the whole target (the `cfg` above), so the
            // processor running this code has it; `sse2::positions` is safe code otherwise.
            let n = unsafe { sse2::positions(block, &mut at) };
            for &p in &at[..n] {
                found(base + p as usize);
            }
            base += block.len() * CHUNK;
        }
        for i in memchr::memchr_iter(b'\n', rest) {
            found(base + i);
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    for i in memchr::memchr_iter(b'\n', bytes) {
        found(i);
    }
}

/// Bytes read into one mask.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
const CHUNK: usize = 64;
/// Chunks whose positions are gathered before the caller walks them (2 KiB of text).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
const BLOCK: usize = 32;

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_movemask_epi8, _mm_set_epi64x, _mm_set1_epi8};

    use super::{BLOCK, CHUNK};

    /// Writes the offset of every `\n` of `block` (at most [`BLOCK`] chunks) into `at`,
    /// from the block's start, in order, and returns how many there are.
    ///
    /// Each chunk's positions are written eight at a time whether or not there are eight
    /// (the count says how many are real; the rest are overwritten by the next chunk), so
    /// that there is no branch per position; `at` has a chunk's worth of room past the
    /// last one a block can fill.
    #[target_feature(enable = "sse2")]
    pub(super) fn positions(block: &[[u8; CHUNK]], at: &mut [u32; BLOCK * CHUNK + CHUNK]) -> usize {
        let newline = _mm_set1_epi8(b'\n' as i8);
        let mut n = 0;
        let mut offset = 0u32;
        for chunk in block.iter().take(BLOCK) {
            let mut mask = 0u64;
            for (k, lane) in chunk.as_chunks::<16>().0.iter().enumerate() {
                // Loaded through an integer: no pointer, so no `unsafe` load.
                let v = u128::from_le_bytes(*lane);
                let x = _mm_set_epi64x((v >> 64) as i64, v as i64);
                let bits = _mm_movemask_epi8(_mm_cmpeq_epi8(x, newline)) as u16;
                mask |= u64::from(bits) << (16 * k);
            }
            let count = mask.count_ones() as usize;
            let out = &mut at[n..n + CHUNK];
            for slot in &mut out[..8] {
                *slot = offset + mask.trailing_zeros();
                mask &= mask.wrapping_sub(1);
            }
            let mut k = 8;
            while mask != 0 {
                out[k] = offset + mask.trailing_zeros();
                mask &= mask.wrapping_sub(1);
                k += 1;
            }
            n += count;
            offset += CHUNK as u32;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::for_each_newline;

    fn found(bytes: &[u8]) -> Vec<usize> {
        let mut out = Vec::new();
        for_each_newline(bytes, |i| out.push(i));
        out
    }

    fn plain(bytes: &[u8]) -> Vec<usize> {
        bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i).collect()
    }

    #[test]
    fn every_newline_in_order() {
        // Lengths around the chunk (64) and block (2,048) edges, dense and sparse newlines.
        let mut cases: Vec<Vec<u8>> = vec![Vec::new(), b"\n".to_vec(), b"abc".to_vec()];
        for len in [1, 15, 16, 63, 64, 65, 127, 128, 129, 2047, 2048, 2049, 4096 + 70] {
            cases.push(vec![b'\n'; len]);
            cases.push(vec![b'x'; len]);
            cases.push((0..len).map(|i| if i % 7 == 3 { b'\n' } else { b'a' }).collect());
            cases.push((0..len).map(|i| if i % 2 == 0 { b'\n' } else { b'\r' }).collect());
            let mut last = vec![b'y'; len];
            last[len - 1] = b'\n';
            cases.push(last);
        }
        // Bytes that differ from `\n` in one bit, and bytes with the high bit set.
        cases.push((0..=255u8).cycle().take(9000).collect());
        for bytes in &cases {
            assert_eq!(found(bytes), plain(bytes), "{} bytes", bytes.len());
        }
    }

    #[test]
    fn a_chunk_of_only_newlines_after_a_sparse_one() {
        // Every slot of the scratch array written: 64 positions in a chunk.
        let mut bytes = vec![b'a'; 64];
        bytes.extend(vec![b'\n'; 64 * 70]);
        bytes.extend(b"tail\nend");
        assert_eq!(found(&bytes), plain(&bytes));
    }
}

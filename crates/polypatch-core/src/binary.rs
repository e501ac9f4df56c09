//! Git's binary formats that applying needs: blob ids and the delta encoding of
//! `GIT binary patch` `delta` hunks.

/// The git blob id of `bytes`: the SHA-1 of `blob <len>\0` followed by the bytes, in hex.
pub fn git_blob_id(bytes: &[u8]) -> String {
    todo!()
}

/// Whether `id` (full or abbreviated hex, at least 7 digits) names the blob `bytes`.
/// An id of only zeros names the empty, missing file.
pub fn blob_id_matches(id: &str, bytes: &[u8]) -> bool {
    todo!()
}

/// A git delta that cannot be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DeltaError(pub String);

/// Applies a git delta (base size, result size, then copy and insert instructions) to
/// `base`.
pub fn apply_git_delta(base: &[u8], delta: &[u8]) -> Result<Vec<u8>, DeltaError> {
    todo!()
}

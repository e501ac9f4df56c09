//! The data of `GIT binary patch` blocks: git's base85 lines and zlib. (Owned by the
//! binary/generate work.)

/// Binary data that cannot be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinaryError {
    /// What is wrong, lowercase.
    pub message: String,
    /// The index of the offending line in the block (0-based).
    pub line: usize,
}

/// Decodes the base85 lines of one `literal <size>` / `delta <size>` block (each line:
/// a length character `A`–`Z`/`a`–`z`, then base85) and inflates them; the result must be
/// `size` bytes long.
pub fn decode(lines: &[&str], size: usize) -> Result<Vec<u8>, BinaryError> {
    let _ = (lines, size);
    todo!()
}

/// Deflates `data` and encodes it as base85 lines, each ending with `\n`, as git writes
/// them.
pub fn encode(data: &[u8]) -> String {
    let _ = data;
    todo!()
}

pub mod binary;
pub(crate) mod eol;
pub(crate) mod file_bytes;
pub(crate) mod lines;
pub(crate) mod newlines;
pub(crate) mod shared;

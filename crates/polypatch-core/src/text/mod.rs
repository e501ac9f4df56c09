//! Text and bytes, below every other stage: a file as lines that keep their own
//! terminators ([`lines`]), the line-ending types, all in one place ([`eol`]), the shared
//! buffer the lines of one file point into ([`shared`]), file content as bytes, built from
//! the lines only when written ([`file_bytes`]), the fast scan for line ends
//! ([`newlines`]), and git's binary formats (blob ids, deltas: [`binary`]). Nothing here
//! knows patches or matching.

pub mod binary;
pub(crate) mod eol;
pub(crate) mod file_bytes;
pub(crate) mod lines;
pub(crate) mod newlines;
pub(crate) mod shared;

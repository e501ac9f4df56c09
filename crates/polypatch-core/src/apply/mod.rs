pub(crate) mod compute;
pub mod elision;
pub(crate) mod miss;
pub(crate) mod modify;
pub(crate) mod report;
pub(crate) mod shape;
pub(crate) mod substring;
pub(crate) mod write;

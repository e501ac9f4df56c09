pub(crate) mod effort;
pub(crate) mod engine;
pub(crate) mod fold;
pub(crate) mod fuzzy;
pub(crate) mod index;
pub(crate) mod query;

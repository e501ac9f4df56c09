pub(crate) mod dialect;
pub(crate) mod error_kind;
pub(crate) mod plan;
pub(crate) mod span;
pub(crate) mod tier;

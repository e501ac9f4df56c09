//! Apply: a plan computed in memory, then committed. [`compute`] runs the plan's file
//! operations (create, delete, rename, binary) and hands each modified file's edits to
//! [`modify`], which locates each edit in turn and decides what it means (line targets), or
//! passes it to [`substring`] (text targets). Both write through [`write`](mod@write) (the
//! action at the place found, new lines shaped after the file's indentation and line
//! endings by [`shape`]) and explain a place not found through [`miss`]; [`elision`]
//! refuses content that elides code, and [`report`] is what an apply tells its caller.
//! Nothing is written until every edit is located: then [`crate::FileStore::commit`]
//! writes all or none.

pub(crate) mod compute;
pub mod elision;
pub(crate) mod miss;
pub(crate) mod modify;
pub(crate) mod report;
pub(crate) mod shape;
// The lazy dialect's merge (`Target::Sketch`), the `lazy` feature.
#[cfg(feature = "lazy")]
pub(crate) mod sketch;
// Text (substring) targets (`Target::Text`), the `text-target` feature.
#[cfg(feature = "text-target")]
pub(crate) mod substring;
pub(crate) mod write;

pub(crate) mod disk;
pub(crate) mod fileset;

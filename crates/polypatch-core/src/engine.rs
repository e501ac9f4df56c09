pub(crate) fn _x() {}

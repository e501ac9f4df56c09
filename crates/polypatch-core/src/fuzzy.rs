pub(crate) fn _y() {}

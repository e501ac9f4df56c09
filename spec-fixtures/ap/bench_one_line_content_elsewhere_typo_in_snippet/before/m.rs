#[macro_export]
macro_rules! a { () => {} }

#[macro_export(local_inner_macros)]
macro_rules! b { () => {} }

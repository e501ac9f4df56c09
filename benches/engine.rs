//! Benchmarks of the facade (placeholder until the criterion groups are written).

fn main() {}

fn a() {}

fn b() {}

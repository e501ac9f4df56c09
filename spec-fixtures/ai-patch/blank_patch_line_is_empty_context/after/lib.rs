fn a() {}

fn b() { todo!() }

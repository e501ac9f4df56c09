pub fn run() {} // archived

fn keep_me() {}
fn other() {}

fn keep() {
}

fn also_keep() {
}

fn keep() {
}

fn old() {
    work();
}

fn also_keep() {
}

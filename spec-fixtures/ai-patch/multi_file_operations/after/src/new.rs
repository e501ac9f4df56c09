pub fn run() {
    println!("new");
}

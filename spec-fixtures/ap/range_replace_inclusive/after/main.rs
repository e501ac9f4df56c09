fn main() {
    setup();
    let sum = 3;
    println!("{sum}");
}

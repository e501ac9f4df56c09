fn main() {   
    let x = 2;
    println!("{x}");
}

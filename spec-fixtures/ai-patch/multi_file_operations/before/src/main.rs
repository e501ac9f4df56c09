mod old;

fn main() {
    old::run();
}

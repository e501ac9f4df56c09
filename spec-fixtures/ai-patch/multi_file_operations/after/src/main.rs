mod new;

fn main() {
    new::run();
}

fn run() {
    step_one();
    step_two();
}

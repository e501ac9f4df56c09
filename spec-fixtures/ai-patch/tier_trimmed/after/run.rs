fn run() {
    step_one_fast();
    step_two();
}

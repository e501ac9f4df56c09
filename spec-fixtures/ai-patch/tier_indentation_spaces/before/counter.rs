impl Counter {
    fn next(&mut self) -> u32 {
        self.n += 1;
        self.n
    }
}

impl Counter {
    fn next(&mut self) -> u32 {
        self.n += self.step;
        if self.n > self.max {
            self.n = 0;
        }
        self.n
    }
}

pub fn helper() -> u8 {
    2
}

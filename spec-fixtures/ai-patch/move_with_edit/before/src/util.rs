pub fn helper() -> u8 {
    1
}

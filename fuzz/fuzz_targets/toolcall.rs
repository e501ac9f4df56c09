#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| polypatch::fuzzing::toolcall(data));

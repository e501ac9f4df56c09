//! Git blob ids against `git hash-object`.
//!
//! A test binary of its own: it starts `git`, and a child process holds copies of the
//! parent's open files between its start and its `exec`. In the library's test binary,
//! where the commit tests run in parallel threads, a child started at the wrong moment
//! held a crashed commit's journal, with its lock, while recovery looked at it, and the
//! recovery test saw that commit as still running (seen once on a clean clone).

use polypatch_core::binary::git_blob_id;

#[test]
fn blob_ids_of_many_blocks_are_gits() {
    // Lengths around SHA-1's 64-byte blocks and its padding, and a large blob, against
    // `git hash-object` (on every machine this project builds on).
    let data: Vec<u8> = (0..200_003u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    for len in [55, 56, 63, 64, 65, 119, 120, 1_000, 200_003] {
        let bytes = &data[..len];
        let mut git = std::process::Command::new("git")
            .args(["hash-object", "--stdin"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("git runs");
        std::io::Write::write_all(&mut git.stdin.take().expect("stdin"), bytes).expect("written");
        let out = git.wait_with_output().expect("git answers");
        assert_eq!(git_blob_id(bytes), String::from_utf8_lossy(&out.stdout).trim(), "{len} bytes");
    }
}

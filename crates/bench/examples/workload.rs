//! A fixed workload for instruction counting, so changes can be compared
//! without timing noise:
//!
//! `valgrind --tool=callgrind target/release/examples/workload [SIZE] [COUNT]`
//!
//! Seals and opens COUNT messages of SIZE bytes with AES-128-GCM-SIV and
//! AES-256-GCM-SIV on the selected backend.

use std::hint::black_box;

fn main() {
    let mut args = std::env::args().skip(1);
    let size: usize = args.next().map_or(16, |s| s.parse().unwrap());
    let count: usize = args.next().map_or(10_000, |s| s.parse().unwrap());
    let c128 = gcmsiv::Aes128GcmSiv::new(&[1; 16]);
    let c256 = gcmsiv::Aes256GcmSiv::new(&[2; 32]);
    let mut buf = vec![0u8; size];
    for i in 0..count {
        let nonce = [i as u8; 12];
        let tag = c128.encrypt_in_place_detached(&nonce, b"", &mut buf).unwrap();
        c128.decrypt_in_place_detached(&nonce, b"", &mut buf, &tag).unwrap();
        let tag = c256.encrypt_in_place_detached(&nonce, b"", &mut buf).unwrap();
        c256.decrypt_in_place_detached(&nonce, b"", &mut buf, &tag).unwrap();
        black_box(&buf);
    }
}

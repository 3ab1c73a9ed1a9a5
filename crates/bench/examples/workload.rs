//! A fixed workload for instruction counting, so changes can be compared
//! without timing noise:
//!
//! `valgrind --tool=callgrind target/release/examples/workload [SIZE] [COUNT]`
//!
//! Seals and opens COUNT messages of SIZE bytes with AES-128-GCM-SIV and
//! AES-256-GCM-SIV on the selected backend; with a third argument `gcm`,
//! with AES-128-GCM and AES-256-GCM (12-byte IVs) instead.

use std::hint::black_box;

fn main() {
    let mut args = std::env::args().skip(1);
    let size: usize = args.next().map_or(16, |s| s.parse().unwrap());
    let count: usize = args.next().map_or(10_000, |s| s.parse().unwrap());
    let mut buf = vec![0u8; size];
    if args.next().as_deref() == Some("gcm") {
        let g128 = gcmsiv::Aes128Gcm::new(&[1; 16]);
        let g256 = gcmsiv::Aes256Gcm::new(&[2; 32]);
        for i in 0..count {
            let iv = [i as u8; 12];
            let tag = g128.encrypt_in_place_detached(&iv, b"", &mut buf).unwrap();
            g128.decrypt_in_place_detached(&iv, b"", &mut buf, tag.as_ref()).unwrap();
            let tag = g256.encrypt_in_place_detached(&iv, b"", &mut buf).unwrap();
            g256.decrypt_in_place_detached(&iv, b"", &mut buf, tag.as_ref()).unwrap();
            black_box(&buf);
        }
        return;
    }
    let c128 = gcmsiv::Aes128GcmSiv::new(&[1; 16]);
    let c256 = gcmsiv::Aes256GcmSiv::new(&[2; 32]);
    for i in 0..count {
        let nonce = [i as u8; 12];
        let tag = c128.encrypt_in_place_detached(&nonce, b"", &mut buf).unwrap();
        c128.decrypt_in_place_detached(&nonce, b"", &mut buf, &tag).unwrap();
        let tag = c256.encrypt_in_place_detached(&nonce, b"", &mut buf).unwrap();
        c256.decrypt_in_place_detached(&nonce, b"", &mut buf, &tag).unwrap();
        black_box(&buf);
    }
}

//! Streaming throughput of one file (256 MiB by default; first argument in
//! MiB), 64 KiB chunks, AES-256-GCM-SIV, all in memory: the Rust library's
//! `Encryptor` and `Decryptor`, beside the C ABI's encryptor and decryptor
//! (push 1 MiB of plaintext or 256 KiB of file, drain into a buffer, as the Go binding does), and a
//! 64 KiB random-access read through `gcmsiv_reader_*`.
//!
//! `cargo run --release -p gcmsiv-c --example stream_speed [MiB]`

use gcmsiv_c::*;
use gcmsiv_stream::{Decryptor, Encryptor, MasterKey, Options, Secret};
use std::io::{Read, Write};
use std::time::Instant;

fn mbps(bytes: usize, secs: f64) -> f64 {
    bytes as f64 / secs / 1e6
}

fn check(rc: i32) {
    assert_eq!(rc, GCMSIV_OK, "status {rc}");
}

fn main() {
    let mib: usize = std::env::args().nth(1).map_or(256, |a| a.parse().expect("MiB"));
    let pt: Vec<u8> = (0..mib << 20).map(|i| (i * 31 + (i >> 12)) as u8).collect();
    let key = [7u8; 32];
    let secret = Secret::Key(MasterKey::from_bytes(&key));
    let options = Options::new();

    // Best of five timed rounds: the machine may be shared.
    let mut best = [f64::MAX; 5];
    for round in 0..6 {
        // Round 0 checks every byte (and is not counted); the others only time.
        let checking = round == 0;
        let t = Instant::now();
        let mut enc = Encryptor::new(Vec::with_capacity(pt.len() + (4 << 20)), &secret, &options).unwrap();
        for piece in pt.chunks(1 << 20) {
            enc.write_all(piece).unwrap();
        }
        let file = enc.finish().unwrap();
        let rust_enc = t.elapsed().as_secs_f64();

        let t = Instant::now();
        let mut dec = Decryptor::new(std::io::Cursor::new(&file), &secret).unwrap();
        // Read into one buffer (the C ABI's the same).
        let mut buf = vec![0u8; 1 << 20];
        let mut at = 0;
        loop {
            let n = dec.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            assert!(!checking || buf[..n] == pt[at..at + n]);
            at += n;
        }
        let rust_dec = t.elapsed().as_secs_f64();
        assert_eq!(at, pt.len());

        // The C ABI, as a binding drives it.
        let mut s = std::ptr::null_mut();
        // SAFETY (all below): live handles, buffers as their lengths say.
        unsafe { check(gcmsiv_secret_new_key(&mut s, key.as_ptr(), 32)) };
        let mut buf = vec![0u8; 256 << 10];
        let t = Instant::now();
        let mut e = std::ptr::null_mut();
        let mut cfile = Vec::with_capacity(pt.len() + (4 << 20));
        unsafe {
            check(gcmsiv_encryptor_new(&mut e, 0, 0, s));
            let mut drain = |e: *mut GcmsivEncryptor| {
                while gcmsiv_encryptor_pending(e) > 0 {
                    let mut n = 0;
                    check(gcmsiv_encryptor_drain(e, buf.as_mut_ptr(), buf.len(), &mut n));
                    cfile.extend_from_slice(&buf[..n]);
                }
            };
            for piece in pt.chunks(1 << 20) {
                check(gcmsiv_encryptor_push(e, piece.as_ptr(), piece.len()));
                drain(e);
            }
            check(gcmsiv_encryptor_finish(e));
            drain(e);
            gcmsiv_encryptor_free(e);
        }
        let c_enc = t.elapsed().as_secs_f64();

        let t = Instant::now();
        let mut d = std::ptr::null_mut();
        let mut at = 0;
        let mut buf = vec![0u8; 1 << 20];
        unsafe {
            check(gcmsiv_decryptor_new(&mut d, s));
            for piece in cfile.chunks(256 << 10) {
                check(gcmsiv_decryptor_push(d, piece.as_ptr(), piece.len()));
                while gcmsiv_decryptor_pending(d) > 0 {
                    let mut n = 0;
                    check(gcmsiv_decryptor_drain(d, buf.as_mut_ptr(), buf.len(), &mut n));
                    assert!(!checking || buf[..n] == pt[at..at + n]);
                    at += n;
                }
            }
            check(gcmsiv_decryptor_finish(d));
            gcmsiv_decryptor_free(d);
        }
        let c_dec = t.elapsed().as_secs_f64();
        assert_eq!(at, pt.len());

        // 64 KiB ranges at 64 KiB-aligned offsets across the file, each from
        // opening the file on (header, final chunk, then the range): the mean.
        let t = Instant::now();
        let (mut at, mut n, mut plen) = (0u64, 0u64, 0u64);
        let mut out = vec![0u8; 65536];
        let mut got = 0;
        const RANGES: u64 = 32;
        for k in 0..RANGES {
            let offset = (pt.len() as u64 / RANGES * k) & !0xffff;
            let mut r = std::ptr::null_mut();
            unsafe {
                check(gcmsiv_reader_new(&mut r, cfile.as_ptr(), 86, cfile.len() as u64, s));
                check(gcmsiv_reader_final_chunk(r, &mut at, &mut n));
                check(gcmsiv_reader_verify_final(r, cfile.as_ptr().add(at as usize), n as usize, &mut plen));
                check(gcmsiv_reader_span(r, offset, 65536, &mut at, &mut n));
                check(gcmsiv_reader_read(
                    out.as_mut_ptr(),
                    out.len(),
                    &mut got,
                    cfile.as_ptr().add(at as usize),
                    n as usize,
                    offset,
                    65536,
                    r,
                ));
                gcmsiv_reader_free(r);
            }
            assert_eq!(n, 65536 + 20, "one chunk read");
            assert!(!checking || out[..got] == pt[offset as usize..offset as usize + 65536]);
        }
        let range = t.elapsed().as_secs_f64() / RANGES as f64;
        // SAFETY: made above, not used again.
        unsafe { gcmsiv_secret_free(s) };

        if checking {
            continue;
        }
        for (b, t) in best.iter_mut().zip([rust_enc, c_enc, rust_dec, c_dec, range]) {
            *b = b.min(t);
        }
    }
    let [rust_enc, c_enc, rust_dec, c_dec, range] = best;
    println!("{mib} MiB, 64 KiB chunks, AES-256-GCM-SIV, in memory, best of 5:");
    println!(
        "  Rust Encryptor {:6.0} MB/s   C ABI encryptor {:6.0} MB/s",
        mbps(pt.len(), rust_enc),
        mbps(pt.len(), c_enc)
    );
    println!(
        "  Rust Decryptor {:6.0} MB/s   C ABI decryptor {:6.0} MB/s",
        mbps(pt.len(), rust_dec),
        mbps(pt.len(), c_dec)
    );
    println!(
        "  one 64 KiB range (open the file, verify its final chunk, read one chunk): {:.0} us",
        range * 1e6
    );
}

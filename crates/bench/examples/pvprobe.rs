//! A probe of the bulk passes on the selected backend, without the benchmark's
//! harness around them: the best of 2000 calls, TSC cycles per byte, for the
//! hazmat POLYVAL, GCM seals in place (the stitched CTR + GHASH pass),
//! GCM-SIV seals in place, and GCM-SIV opens of a buffer whose tag does not match (the stitched CTR +
//! POLYVAL pass, then the buffer wiped: the wipe is timed too).
//!
//! `cargo run --release -p gcmsiv-bench --example pvprobe [SIZE]`

/// One call on a buffer.
type Call = Box<dyn Fn(&mut [u8])>;

fn best(size: usize, mut f: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..2000 {
        // SAFETY: RDTSC exists on every x86-64 CPU.
        let t = unsafe { core::arch::x86_64::_rdtsc() };
        f();
        // SAFETY: as above.
        let c = (unsafe { core::arch::x86_64::_rdtsc() } - t) as f64 / size as f64;
        best = best.min(c);
    }
    best
}

fn main() {
    let size: usize = std::env::args().nth(1).map_or(16384, |s| s.parse().unwrap());
    let mut data = vec![0x5au8; size];
    let polyval = best(size, || {
        let mut p = gcmsiv::hazmat::Polyval::new(&[7; 16]);
        p.update_padded(&data);
        std::hint::black_box(p.finalize());
    });
    let mut line = format!("{size} B: POLYVAL {polyval:.3}");
    for bits in [128, 256] {
        let key = [3u8; 32];
        // The three calls timed, for one key size's types.
        macro_rules! calls {
            ($gcm:ty, $siv:ty, $key:expr) => {{
                let g = <$gcm>::new($key);
                let s = <$siv>::new($key);
                let t = s.clone();
                let calls: (Call, Call, Call) = (
                    Box::new(move |b| {
                        let _ = std::hint::black_box(g.encrypt_in_place_detached(&[1; 12], b"", b));
                    }),
                    Box::new(move |b| {
                        let _ = std::hint::black_box(s.decrypt_in_place_detached(&[1; 12], b"", b, &[0; 16]));
                    }),
                    Box::new(move |b| {
                        let _ = std::hint::black_box(t.encrypt_in_place_detached(&[1; 12], b"", b));
                    }),
                );
                calls
            }};
        }
        let (gcm, siv, seal) = if bits == 128 {
            calls!(gcmsiv::Aes128Gcm, gcmsiv::Aes128GcmSiv, key[..16].try_into().unwrap())
        } else {
            calls!(gcmsiv::Aes256Gcm, gcmsiv::Aes256GcmSiv, &key)
        };
        let g = best(size, || gcm(&mut data));
        let s = best(size, || siv(&mut data));
        let t = best(size, || seal(&mut data));
        line += &format!(", AES-{bits}: GCM seal {g:.3}, GCM-SIV seal {t:.3}, failed open {s:.3}");
    }
    println!("{line}");
}

//! A probe of the bulk passes on the selected backend, without the benchmark's
//! harness around them: the best of 2000 calls, TSC cycles per byte, for the
//! hazmat POLYVAL, GCM seals in place (the stitched CTR + GHASH pass),
//! GCM-SIV seals in place, and GCM-SIV opens in place (the stitched CTR + POLYVAL pass and the
//! tag check; each timed open is of a buffer sealed again, untimed, just before).
//!
//! `cargo run --release -p gcmsiv-bench --example pvprobe [SIZE]`

/// A GCM seal in place.
type Call = Box<dyn Fn(&mut [u8])>;
/// A GCM-SIV seal in place, returning the tag.
type Seal = Box<dyn Fn(&mut [u8]) -> [u8; 16]>;
/// A GCM-SIV open in place with the tag.
type Open = Box<dyn Fn(&mut [u8], &[u8; 16])>;

fn best(size: usize, f: impl FnMut()) -> f64 {
    best_after(size, || {}, f)
}

/// [`best`], running `setup` untimed before each call.
fn best_after(size: usize, mut setup: impl FnMut(), mut f: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..2000 {
        setup();
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
                let calls: (Call, Open, Seal) = (
                    Box::new(move |b| {
                        let _ = std::hint::black_box(g.encrypt_in_place_detached(&[1; 12], b"", b));
                    }),
                    Box::new(move |b, tag| s.decrypt_in_place_detached(&[1; 12], b"", b, tag).unwrap()),
                    Box::new(move |b| {
                        std::hint::black_box(t.encrypt_in_place_detached(&[1; 12], b"", b).unwrap())
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
        // Each open is of the plaintext sealed again just before.
        let plain = data.clone();
        let state = std::cell::RefCell::new((plain.clone(), [0u8; 16]));
        let s = best_after(
            size,
            || {
                let (d, tag) = &mut *state.borrow_mut();
                d.copy_from_slice(&plain);
                *tag = seal(d);
            },
            || {
                let (d, tag) = &mut *state.borrow_mut();
                siv(d, tag);
            },
        );
        let t = best(size, || {
            seal(&mut data);
        });
        line += &format!(", AES-{bits}: GCM seal {g:.3}, GCM-SIV seal {t:.3}, open {s:.3}");
    }
    println!("{line}");
}

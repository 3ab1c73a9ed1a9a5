//! Tests that hold the tiers to one another: each wide pass, at 256 and at
//! 512 bits, against the `ni` tier's 128-bit pass (and through them the
//! batch groups and whole messages, in `group.rs` and the crate's tests).
//! Here, above the tiers, because they compare them.

use super::aes::Schedule;
use super::bulk::ctr32;
use super::clmul::{Powers, absorb_padded};
use super::cpu::Width;
use super::ni::Ni;
use super::pass128::Stitch;
use super::pass256::{ALIGN_FROM, polyval_chunks_with};
use super::tier::Tier;
use super::vaes::Keys512;
use super::vaes::pairs;
use super::vaes256::Vaes256;
use super::vaes512::Vaes512;
use super::vaes512::polyval_chunks_zmm;
use super::{Aes128, Aes256, Features};
use crate::backend::BlockCipher;
use crate::backend::InOut;
use core::arch::x86_64::*;

/// Runs `$e` with `$t` the VAES tier of `$features` (as `impls.rs` picks it).
macro_rules! on_vaes_tier {
    ($features:expr, $t:ident => $e:expr) => {
        match $features.width() {
            Width::W128 => unreachable!("a VAES tier"),
            Width::W256 => {
                type $t = Vaes256;
                $e
            }
            Width::W512 => {
                type $t = Vaes512;
                $e
            }
        }
    };
}

/// POLYVAL two blocks per instruction (and, where the CPU has AVX-512,
/// four, from `vaes512`'s `ZMM_FROM` bytes) equals POLYVAL one block per
/// instruction, with and without a length block, from a nonzero state.
#[test]
fn wide_polyval_equals_narrow_polyval() {
    let Some(detected) = Features::detect_widest() else {
        return; // this CPU has no VPCLMULQDQ: nothing to compare
    };
    let data: std::vec::Vec<u8> = (0..9000u32).map(|i| (i * 11 + 5) as u8).collect();
    for seed in 1..4u8 {
        let h: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(seed).wrapping_add(seed * 29));
        // SAFETY: `detect_wide` found every feature these functions enable.
        let outs = unsafe {
            let powers = Powers::new(_mm_loadu_si128(h.as_ptr().cast()));
            let start = _mm_set_epi64x(seed as i64 * 77, 12345);
            let lengths = _mm_set_epi64x(8 * 1100, 8 * seed as i64);
            let mut outs = std::vec::Vec::new();
            let lens = [
                0, 15, 16, 127, 128, 129, 255, 256, 257, 1023, 1024, 1100, 1280, 4095, 4096, 4097, 4224,
                4352, 8321, 9000,
            ];
            for len in lens {
                for last in [None, Some(lengths)] {
                    let a = absorb_padded(start, &powers, &data[..len], last);
                    for features in [detected.at_256(), detected] {
                        let (t, done) = on_vaes_tier!(features, T => {
                            T::polyval_chunks::<false>(start, &powers, &data[..len])
                        });
                        let b = absorb_padded(t, &powers, &data[done..len], last);
                        let (mut x, mut y) = ([0u8; 16], [0u8; 16]);
                        _mm_storeu_si128(x.as_mut_ptr().cast(), a);
                        _mm_storeu_si128(y.as_mut_ptr().cast(), b);
                        outs.push((len, last.is_some(), x, y));
                    }
                }
            }
            // GHASH's byte order: four blocks per instruction against two.
            if detected.width() == Width::W512 {
                for len in [256, 512, 4096, 4224, 8960] {
                    let a = polyval_chunks_with::<true>(start, pairs(&powers), &data[..len]);
                    let (t, done) = polyval_chunks_zmm::<true>(start, &powers, &data[..len]);
                    let b = polyval_chunks_with::<true>(t, pairs(&powers), &data[done..len]);
                    assert_eq!(a.1, len);
                    assert_eq!(done + b.1, len);
                    let (mut x, mut y) = ([0u8; 16], [0u8; 16]);
                    _mm_storeu_si128(x.as_mut_ptr().cast(), a.0);
                    _mm_storeu_si128(y.as_mut_ptr().cast(), b.0);
                    outs.push((len, true, x, y));
                }
            }
            outs
        };
        for (len, last, x, y) in outs {
            assert_eq!(x, y, "POLYVAL, seed {seed}, len {len}, length block {last}");
        }
    }
}

/// The `ni` tier's pass with `n` and tier `T`'s with `w` (the same key), on
/// `data.0` and `data.1`, from the states `s.0` and `s.1`: the bytes each
/// processed. The `ni` tier's runs in place, `T`'s out of place (from a
/// copy of `data.1` into `data.1`), so the two shapes are held to each
/// other too.
///
/// # Safety
/// The CPU supports `T`'s features.
#[allow(clippy::too_many_arguments)]
unsafe fn both<T: Tier, const NR: usize>(
    n: &Schedule<NR>,
    w: &Schedule<NR>,
    counter: &[u8; 16],
    data: (&mut [u8], &mut [u8]),
    s: (&mut __m128i, &mut __m128i),
    powers: &Powers,
    mode: Stitch,
    public: bool,
) -> (usize, usize) {
    let input = data.1.to_vec();
    let data = (InOut::in_place(data.0), InOut::new(&input, data.1));
    // SAFETY: the caller found every feature these enable.
    unsafe {
        if mode == Stitch::SivOpen {
            (
                Ni::ctr_stitched::<NR, false, false>(n, counter, data.0, s.0, powers, mode, None, None),
                T::ctr_stitched::<NR, false, false>(w, counter, data.1, s.1, powers, mode, None, None),
            )
        } else if public {
            // As AES-GCM runs it: with the key's broadcast round keys
            // where its tier keeps them.
            // SAFETY (`empty`): filled just below.
            let mut keys = T::KEYS512.then(|| Keys512::<NR>::empty());
            if let Some(keys) = &mut keys {
                keys.fill(&w.rk);
            }
            (
                Ni::ctr_stitched::<NR, true, true>(n, counter, data.0, s.0, powers, mode, None, None),
                T::ctr_stitched::<NR, true, true>(w, counter, data.1, s.1, powers, mode, keys.as_ref(), None),
            )
        } else {
            (
                Ni::ctr_stitched::<NR, true, false>(n, counter, data.0, s.0, powers, mode, None, None),
                T::ctr_stitched::<NR, true, false>(w, counter, data.1, s.1, powers, mode, None, None),
            )
        }
    }
}

/// The stitched CTR+hash pass two blocks per instruction equals the one
/// block per instruction pass, in every mode (GCM-SIV open, GCM seal and
/// open), for both key sizes, counters that wrap, and several lengths
/// (from 16 KiB, an open builds its broadcast round keys for the call;
/// GCM with a public counter passes the key's own).
#[test]
fn wide_stitched_equals_narrow_stitched() {
    let (Some(narrow), Some(wide)) = (Features::detect(), Features::detect_widest()) else {
        return; // this CPU has no VAES: nothing to compare
    };
    let data: std::vec::Vec<u8> = (0..17000u32).map(|i| (i * 5 + 1) as u8).collect();
    // Both 32-bit counters near 2^32; then GCM's lowest counter byte where
    // its chunks' counters start just below, at and just past the values
    // whose chunk does not carry out of it (the 512-bit pass keeps the
    // next chunk's counters byte-reversed only while none does).
    let counters: [[u8; 16]; 6] = [
        [0xfd, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0xff, 0xff, 0xfc],
        [2, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 2],
        [0xe0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0xff, 0xe0],
        [0xe1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0xff, 0xe1],
        [0xf0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0xff, 0xf0],
        [0xf1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0xff, 0xf1],
    ];
    // With AVX-512, both the 512-bit pass and the 256-bit one alone.
    let widths = [wide.at_256(), wide];
    for (mode, wide, counter) in [Stitch::SivOpen, Stitch::GcmSeal, Stitch::GcmOpen]
        .into_iter()
        .flat_map(|m| widths.map(|w| (m, w)))
        .flat_map(|(m, w)| counters.iter().map(move |c| (m, w, c)))
    {
        // GCM's counter both as a public one (96-bit IV: the shortcut)
        // and as a secret one (no branch on its value).
        let publics: &[bool] = if mode == Stitch::SivOpen { &[false] } else { &[true, false] };
        for (key_len, &public) in [16usize, 32].into_iter().flat_map(|k| publics.iter().map(move |p| (k, p)))
        {
            let key: std::vec::Vec<u8> = (0..key_len as u8).map(|i| i ^ 0x33).collect();
            for len in [
                0, 127, 128, 129, 256, 300, 1023, 1024, 1100, 1280, 1536, 4095, 4096, 4097, 4224, 4352, 4480,
                5000, 8191, 9000, 16384, 17000,
            ] {
                // 16 bytes past a 64-byte boundary below `ALIGN_FROM`, on
                // one from it: there the wide pass takes a buffer 16
                // bytes off apart and so processes other bytes than the
                // narrow one (the offset tests in `tests/backends.rs` and
                // `tests/gcm.rs` cover that path, whole messages against
                // other backends).
                let off = if len < ALIGN_FROM { 16 } else { 0 };
                let (mut store_a, mut store_b) = (std::vec![0u8; len + 80], std::vec![0u8; len + 80]);
                let oa = store_a.as_ptr().align_offset(64) + off;
                let ob = store_b.as_ptr().align_offset(64) + off;
                let (a, b) = (&mut store_a[oa..oa + len], &mut store_b[ob..ob + len]);
                a.copy_from_slice(&data[..len]);
                b.copy_from_slice(&data[..len]);
                // SAFETY: `detect_wide` found every feature these enable.
                let (sa, sb, da, db) = unsafe {
                    let powers = Powers::new(_mm_set_epi64x(0x0123_4567_89ab_cdef, 0x7766_5544_3322_1100));
                    let (mut sa, mut sb) = (_mm_set_epi64x(5, 9), _mm_set_epi64x(5, 9));
                    // The same call on both key sizes' schedules.
                    macro_rules! on {
                        ($aes:ident, $n:literal) => {{
                            let k: &[u8; $n] = key[..].try_into().unwrap();
                            on_vaes_tier!(wide, T => both::<T, _>(
                                &$aes::new(narrow, k),
                                &$aes::new(wide, k),
                                counter,
                                (&mut *a, &mut *b),
                                (&mut sa, &mut sb),
                                &powers,
                                mode,
                                public,
                            ))
                        }};
                    }
                    let (da, db) = if key_len == 16 { on!(Aes128, 16) } else { on!(Aes256, 32) };
                    let (mut x, mut y) = ([0u8; 16], [0u8; 16]);
                    _mm_storeu_si128(x.as_mut_ptr().cast(), sa);
                    _mm_storeu_si128(y.as_mut_ptr().cast(), sb);
                    (x, y, da, db)
                };
                let what = std::format!("{mode:?}, key {key_len}, public {public}, len {len}, {wide:?}");
                assert_eq!(da, db, "{what}: bytes processed");
                assert_eq!(a, b, "{what}: output");
                assert_eq!(sa, sb, "{what}: hash state");
            }
        }
    }
}

/// CTR two blocks per instruction equals CTR one block per instruction,
/// for both counters (GCM-SIV's little-endian one and GCM's big-endian
/// one), at lengths around the chunk size and with counters about to wrap.
#[test]
fn wide_ctr_equals_narrow_ctr() {
    let (Some(narrow), Some(wide)) = (Features::detect(), Features::detect_widest()) else {
        return; // this CPU has no VAES: nothing to compare
    };
    let counters: [[u8; 16]; 7] = [
        [0; 16],
        core::array::from_fn(|i| (i as u8).wrapping_mul(37) | 0x80),
        // Both 32-bit counters near 2^32: the first chunk wraps them.
        [0xfb, 0xff, 0xff, 0xff, 5, 6, 7, 8, 9, 10, 11, 12, 0xff, 0xff, 0xff, 0xfa],
        // GCM's lowest counter byte at the last value whose 512-bit
        // chunk (sixteen blocks), then 256-bit chunk (eight), does not
        // carry out of it, and one past: the one-shuffle case's edges.
        [0xf0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x10, 0xff, 0xf0],
        [0xf1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x10, 0xff, 0xf1],
        [0xf8, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x10, 0xfe, 0xf8],
        [0xf9, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x10, 0xfe, 0xf9],
    ];
    let data: std::vec::Vec<u8> = (0..1100u32).map(|i| (i * 7 + 3) as u8).collect();
    // With AVX-512, both the 512-bit pass and the 256-bit one alone.
    for (key_len, wide) in [16usize, 32].into_iter().flat_map(|k| [(k, wide.at_256()), (k, wide)]) {
        let key: std::vec::Vec<u8> = (0..key_len as u8).collect();
        for counter in &counters {
            for len in [0, 1, 15, 16, 127, 128, 129, 255, 256, 257, 383, 384, 511, 512, 640, 1024, 1100] {
                let mut a = data[..len].to_vec();
                let mut b = data[..len].to_vec();
                let mut c = data[..len].to_vec();
                let mut d = data[..len].to_vec();
                let mut e = data[..len].to_vec();
                // The same calls on both key sizes' schedules.
                macro_rules! on {
                    ($aes:ident) => {{
                        let (n, w) = (
                            $aes::new(narrow, key[..].try_into().unwrap()),
                            $aes::new(wide, key[..].try_into().unwrap()),
                        );
                        n.ctr32le(counter, &mut a);
                        w.ctr32le(counter, &mut b);
                        n.ctr32be(counter, &mut c);
                        w.ctr32be(counter, &mut d);
                        // SAFETY: `detect_wide` found every feature it enables.
                        let input = e.clone();
                        on_vaes_tier!(wide, T => unsafe { ctr32::<T, _, true, true>(&w, counter, InOut::new(&input, &mut e)) });
                    }};
                }
                if key_len == 16 {
                    on!(Aes128);
                } else {
                    on!(Aes256);
                }
                assert_eq!(
                    a, b,
                    "little-endian counter, key {key_len}, len {len}, counter {counter:02x?}, {wide:?}"
                );
                assert_eq!(
                    c, d,
                    "big-endian counter, key {key_len}, len {len}, counter {counter:02x?}, {wide:?}"
                );
                assert_eq!(
                    c, e,
                    "public big-endian counter, key {key_len}, len {len}, counter {counter:02x?}, {wide:?}"
                );
                if len > 0 {
                    assert_ne!(a, data[..len], "CTR changed nothing");
                }
            }
        }
    }
}

//! Hardware output equals portable output, at the lengths and misalignments
//! where kernels change paths; every backend wipes on failure.

mod common;

use common::{Siv, backends, pattern};
use gcmsiv::Backend;

const LENGTHS: &[usize] = &[
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 127, 128, 129, 130, 131, 8191, 8192, 8193,
    8208,
];

/// The test-only width cap this build was made with (the `gcmsiv_max_width`
/// cfg, from `GCMSIV_MAX_WIDTH` at build time), in bits.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const WIDTH_CAP: u32 = if cfg!(gcmsiv_max_width = "128") {
    128
} else if cfg!(gcmsiv_max_width = "256") {
    256
} else {
    512
};

#[test]
fn hardware_backend_is_used_where_the_cpu_has_it() {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let hw = has!("aes") && has!("pclmulqdq") && has!("ssse3") && has!("sse4.1");
        // VAES and VPCLMULQDQ need AVX2 and the AVX state, not AVX-512.
        let wide =
            WIDTH_CAP >= 256 && hw && has!("avx") && has!("avx2") && has!("vaes") && has!("vpclmulqdq");
        let zmm = WIDTH_CAP >= 512 && wide && has!("avx512f") && has!("avx512bw") && has!("avx512vl");
        assert_eq!(backends().contains(&Backend::AesNiClmul), hw);
        assert_eq!(backends().contains(&Backend::AesNiVaes), wide);
        let chosen = gcmsiv::Aes128GcmSiv::new(&[0; 16]).backend();
        let fastest = if wide { Backend::AesNiVaes } else { Backend::AesNiClmul };
        if cfg!(feature = "force-portable") || !hw {
            assert_eq!(chosen, Backend::Portable);
        } else {
            assert_eq!(chosen, fastest, "the fastest backend the CPU has must be chosen");
        }
        for b in backends() {
            assert_eq!(gcmsiv::Aes256GcmSiv::with_backend(&[0; 32], b).unwrap().backend(), b);
            assert_eq!(gcmsiv::Aes128Gcm::with_backend(&[0; 16], 16, b).unwrap().backend(), b);
        }
        // 512-bit registers wherever the CPU has AVX-512, but on Intel Ice
        // Lake and Tiger Lake (family 6, the models below), where they lower
        // the clock. Read here from CPUID directly, not from the crate.
        // SAFETY: CPUID exists on every x86-64 CPU (a safe function in recent Rust).
        #[allow(unused_unsafe)]
        let (leaf0, eax) = unsafe { (std::arch::x86_64::__cpuid(0), std::arch::x86_64::__cpuid(1).eax) };
        let intel = &[leaf0.ebx, leaf0.edx, leaf0.ecx].map(u32::to_le_bytes).concat() == b"GenuineIntel";
        let model = (eax >> 4 & 0xf) | (eax >> 16 & 0xf) << 4;
        let family = eax >> 8 & 0xf;
        let slow_zmm = intel && family == 6 && [0x6A, 0x6C, 0x7D, 0x7E, 0x9D, 0x8C, 0x8D].contains(&model);
        let bits = if zmm && !slow_zmm { 512 } else { 256 };
        assert_eq!(Backend::AesNiVaes.register_bits(), bits);
        assert_eq!(Backend::AesNiClmul.register_bits(), 128);
        assert_eq!(Backend::Portable.register_bits(), 64);
        if wide {
            assert_eq!(Backend::AesNiVaes.to_string(), format!("aesni-vaes ({bits}-bit)"));
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        use std::arch::is_aarch64_feature_detected as has;
        let hw = has!("aes") && has!("pmull");
        assert_eq!(backends().contains(&Backend::Armv8AesPmull), hw);
        let chosen = gcmsiv::Aes128GcmSiv::new(&[0; 16]).backend();
        if cfg!(feature = "force-portable") || !hw {
            assert_eq!(chosen, Backend::Portable);
        } else {
            assert_eq!(chosen, Backend::Armv8AesPmull, "the CPU's AES and PMULL must be chosen");
        }
        for b in backends() {
            assert_eq!(gcmsiv::Aes256GcmSiv::with_backend(&[0; 32], b).unwrap().backend(), b);
            assert_eq!(gcmsiv::Aes128Gcm::with_backend(&[0; 16], 16, b).unwrap().backend(), b);
        }
        assert_eq!(Backend::Armv8AesPmull.register_bits(), 128);
        assert_eq!(Backend::Portable.register_bits(), 64);
    }
    // No x86-64 backend off x86-64, and no AArch64 one off AArch64.
    let here: &[Backend] = if cfg!(target_arch = "x86_64") {
        &[Backend::Portable, Backend::AesNiClmul, Backend::AesNiVaes]
    } else if cfg!(target_arch = "aarch64") {
        &[Backend::Portable, Backend::Armv8AesPmull]
    } else {
        &[Backend::Portable]
    };
    assert!(backends().iter().all(|b| here.contains(b)), "{:?}", backends());
}

#[test]
fn backends_agree_at_boundary_lengths_and_misalignments() {
    let all = backends();
    for key_len in [16, 32] {
        let key = pattern(key_len, 3);
        let ciphers: Vec<Siv> = all.iter().map(|&b| Siv::new(&key, b)).collect();
        for &len in LENGTHS {
            for aad_len in [0, 1, 16, 17, len] {
                for misalign in 0..4 {
                    let nonce: [u8; 12] = pattern(12, len as u8).try_into().unwrap();
                    let mut pt_buf = vec![0u8; len + misalign];
                    pt_buf[misalign..].copy_from_slice(&pattern(len, 7));
                    let pt = &pt_buf[misalign..];
                    let aad = pattern(aad_len, 9);
                    let reference = ciphers[0].encrypt(&nonce, &aad, pt).unwrap();
                    for (c, b) in ciphers.iter().zip(&all) {
                        // Seal in place at the same misalignment.
                        let mut buf = pt_buf.clone();
                        let tag = c.encrypt_in_place_detached(&nonce, &aad, &mut buf[misalign..]).unwrap();
                        assert_eq!(buf[misalign..], reference[..len], "{b:?} len {len} misalign {misalign}");
                        assert_eq!(tag, reference[len..], "{b:?} len {len}");
                        let r = c.decrypt_in_place_detached(&nonce, &aad, &mut buf[misalign..], &tag);
                        assert_eq!(r, Ok(()));
                        assert_eq!(&buf[misalign..], pt, "{b:?} len {len} misalign {misalign}");
                    }
                }
            }
        }
    }
}

/// Large messages at every 16-byte offset from a 64-byte boundary, and one
/// odd offset: where a message starts 16 bytes past a 32-byte boundary (as
/// large heap buffers do), the wide passes take its first block on their
/// own. Up to 64 KiB against the portable backend, on one core and all
/// cores; 1 MiB (pieces past that threshold on all cores) against the same
/// backend at offset 0.
#[test]
fn backends_agree_at_every_offset_of_large_messages() {
    let all = backends();
    for key_len in [16, 32] {
        let key = pattern(key_len, 6);
        for len in [8176, 8192, 8208, 8432, 32768, 32784, 33008, 65636, (1 << 20) + 48] {
            let pt = pattern(len, 8);
            let nonce: [u8; 12] = pattern(12, len as u8).try_into().unwrap();
            let portable = (len <= 65636)
                .then(|| Siv::new(&key, Backend::Portable).encrypt(&nonce, b"ad", &pt).unwrap());
            for &backend in &all {
                if portable.is_none() && backend == Backend::Portable {
                    continue;
                }
                for (name, c) in Siv::variants(&key, backend) {
                    let reference =
                        portable.clone().unwrap_or_else(|| c.encrypt(&nonce, b"ad", &pt).unwrap());
                    let mut store = vec![0u8; len + 128];
                    for offset in [0, 5, 16, 32, 48] {
                        let start = store.as_ptr().align_offset(64) + offset;
                        let buf = &mut store[start..start + len];
                        buf.copy_from_slice(&pt);
                        let tag = c.encrypt_in_place_detached(&nonce, b"ad", buf).unwrap();
                        let what = format!("{name} key {key_len} len {len} offset {offset}");
                        assert!(buf[..] == reference[..len], "{what}: ciphertext");
                        assert_eq!(tag[..], reference[len..], "{what}: tag");
                        assert_eq!(c.decrypt_in_place_detached(&nonce, b"ad", buf, &tag), Ok(()), "{what}");
                        assert!(buf[..] == pt[..], "{what}: plaintext");
                    }
                }
            }
        }
    }
}

/// (ciphertext, tag, AAD, nonce) given to decryption.
type Case<'a> = (&'a [u8], [u8; 16], &'a [u8], [u8; 12]);

#[test]
fn every_backend_wipes_output_on_failure() {
    for backend in backends() {
        for key_len in [16, 32] {
            let c = Siv::new(&pattern(key_len, 1), backend);
            let nonce = [5u8; 12];
            for len in [1, 15, 16, 17, 200, 8193] {
                let pt = pattern(len, 2);
                let sealed = c.encrypt(&nonce, b"aad", &pt).unwrap();
                let (ct, tag) = sealed.split_at(len);
                let tag: [u8; 16] = tag.try_into().unwrap();
                // Tamper with each part in turn: ciphertext, tag, AAD, nonce.
                let mut bad_tag = tag;
                bad_tag[0] ^= 1;
                let mut bad_ct = ct.to_vec();
                bad_ct[len / 2] ^= 0x40;
                let cases: [Case; 4] = [
                    (&bad_ct, tag, b"aad", nonce),
                    (ct, bad_tag, b"aad", nonce),
                    (ct, tag, b"aaD", nonce),
                    (ct, tag, b"aad", [6u8; 12]),
                ];
                for (i, (ct_in, tag_in, aad, n)) in cases.iter().enumerate() {
                    let mut buf = ct_in.to_vec();
                    let r = c.decrypt_in_place_detached(n, aad, &mut buf, tag_in);
                    assert_eq!(r, Err(gcmsiv::Error::Authentication), "{backend:?} case {i}");
                    assert_eq!(
                        &buf, ct_in,
                        "{backend:?} case {i}: in-place buffer is not the ciphertext again"
                    );

                    let mut joined = ct_in.to_vec();
                    joined.extend_from_slice(tag_in);
                    let mut out = vec![0xAAu8; len + 3];
                    let r = c.decrypt_into(n, aad, &joined, &mut out);
                    assert_eq!(r, Err(gcmsiv::Error::Authentication));
                    assert!(
                        out[..len].iter().all(|&b| b == 0),
                        "{backend:?} case {i}: into-buffer output not wiped"
                    );
                    assert!(out[len..].iter().all(|&b| b == 0xAA), "bytes past the plaintext are untouched");
                }
            }
        }
    }
}

/// Past the short kernels, sealing takes one kernel whose last aggregated
/// POLYVAL step gathers the whole blocks left after the eight-block steps,
/// the partial block and the length block (nine of them at most, then split):
/// every tail shape, after zero, one and two whole chunks, with AAD lengths
/// that give the AAD's own steps each shape too.
#[test]
fn backends_agree_at_every_tail_past_the_short_kernels() {
    let lengths: Vec<usize> = (112..=400).chain([1023, 1024, 1025, 1136, 1151]).collect();
    agree_at(&lengths, &[0, 1, 15, 16, 17, 127, 128, 129, 143, 144, 200], 5);
}

/// Where the CPU has AVX-512, a message of 1 KiB or more ends inside the
/// 512-bit pass: a tail of more than 176 bytes as one more 256-byte chunk
/// under a mask, its blocks moved up within the registers to meet their
/// powers of H beside the length block (sixteen blocks take the length
/// block apart); shorter ones through the narrower passes
/// ([`common::wide_tail_lengths`]), with and without AAD.
#[test]
fn backends_agree_at_every_tail_of_the_wide_passes() {
    agree_at(&common::wide_tail_lengths(), &[0, 17], 21);
}

/// Associated data takes the widest pass a backend has, as the message
/// does: AAD of every length that ends inside the wide passes
/// ([`common::wide_tail_lengths`] and the lengths about a 128- and 256-byte
/// chunk), beside no message, a short one and a long one.
#[test]
fn backends_agree_with_associated_data_through_the_wide_passes() {
    let mut aad_lengths = common::wide_tail_lengths();
    aad_lengths.extend([129, 255, 256, 257, 383, 384, 385, 511, 512, 513]);
    agree_at(&[0, 17, 300], &aad_lengths, 33);
}

/// Every backend seals each length with each AAD length as the first one
/// (the portable backend) does, opens it, and rejects it with a flipped tag
/// bit; both key sizes.
fn agree_at(lengths: &[usize], aad_lengths: &[usize], seed: u8) {
    let all = backends();
    for key_len in [16, 32] {
        let key = pattern(key_len, seed);
        let ciphers: Vec<Siv> = all.iter().map(|&b| Siv::new(&key, b)).collect();
        for &len in lengths {
            for &aad_len in aad_lengths {
                let nonce: [u8; 12] = pattern(12, (len + aad_len) as u8).try_into().unwrap();
                let pt = pattern(len, seed.wrapping_add(6));
                let aad = pattern(aad_len, seed.wrapping_add(8));
                let reference = ciphers[0].encrypt(&nonce, &aad, &pt).unwrap();
                for (c, b) in ciphers.iter().zip(&all) {
                    let sealed = c.encrypt(&nonce, &aad, &pt).unwrap();
                    assert_eq!(sealed, reference, "{b:?} key {key_len} len {len} aad {aad_len}");
                    assert_eq!(
                        c.decrypt(&nonce, &aad, &sealed).unwrap(),
                        pt,
                        "{b:?} len {len} aad {aad_len}"
                    );
                    let mut forged = sealed;
                    forged[len] ^= 1;
                    assert!(c.decrypt(&nonce, &aad, &forged).is_err(), "{b:?} len {len} aad {aad_len}");
                }
            }
        }
    }
}

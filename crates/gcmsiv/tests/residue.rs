//! What a call leaves behind: after making a key (through
//! `gcmsiv::scrubbed`), sealing or opening returns, the stack
//! memory its frames used holds no copy of the key schedules (the
//! key-generating key's and the per-nonce encryption key's round keys, and
//! the decryption round keys an open makes from the latter), of
//! the per-nonce authentication key H, or of its powers H^2..H^16 (each
//! reveals H). The same for AES-GCM: its key schedule, H and the POLYVAL key
//! and powers derived from it.
//!
//! The check runs the call, then copies the stack just below the caller's
//! frame (where the call's frames were) and searches it for every one of those
//! 16-byte values, computed here independently (FIPS 197 key expansion of the
//! keys that `hazmat::DeriveRecordKeys` returns). A kernel that lets the
//! compiler copy a schedule to the stack, or moves one out of the type that
//! wipes it, fails here. (The portable backend keeps its round keys bitsliced,
//! so for it the search covers only byte-order copies.)
//!
//! What stays in registers and what is spilled is the optimizer's choice, so
//! the property is one of optimized builds: the checks run in the release
//! profile (`cargo test --release`, as `scripts/test.sh` does) and are
//! ignored in unoptimized test builds, where values that an optimized build
//! keeps in registers pass through the stack.

// The stack helpers are written for x86-64 and AArch64 (elsewhere
// `residue_elsewhere.rs` reports the check as ignored, not passed).
#![cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]

mod common;
// The stack helpers, shared with gcmsiv-stream's residue test.
mod stack;

use common::{Siv, backends, pattern};
use gcmsiv::hazmat::DeriveRecordKeys;
use gcmsiv::{Aes128Gcm, Aes128GcmSiv, Aes256Gcm, Aes256GcmSiv, Backend, BatchItem, Error, Tag};
use stack::run_and_snapshot;

/// How far below the caller's stack pointer to look: more than the deepest
/// call's frames.
const DEPTH: usize = 64 * 1024;

/// Multiplication in FIPS 197's GF(2^8).
fn gf_mul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            p ^= a;
        }
        a = (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 };
        b >>= 1;
    }
    p
}

/// FIPS 197 S-box, computed: the inverse in GF(2^8) then the affine map.
fn sbox() -> [u8; 256] {
    let mut s = [0u8; 256];
    for (x, out) in s.iter_mut().enumerate() {
        let inv = (1..=255u8).find(|&y| gf_mul(x as u8, y) == 1).unwrap_or(0);
        *out = inv ^ inv.rotate_left(1) ^ inv.rotate_left(2) ^ inv.rotate_left(3) ^ inv.rotate_left(4) ^ 0x63;
    }
    s
}

/// FIPS 197 Cipher: `block` encrypted under the round keys `rk`.
fn aes_encrypt(rk: &[[u8; 16]], block: &[u8; 16]) -> [u8; 16] {
    let s = sbox();
    let xtime = |a: u8| (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 };
    let mut st: [u8; 16] = core::array::from_fn(|i| block[i] ^ rk[0][i]);
    let nr = rk.len() - 1;
    for (r, key) in rk.iter().enumerate().skip(1) {
        let sub = st.map(|b| s[b as usize]);
        // ShiftRows: row `i % 4` of column `i / 4` comes from column `i / 4 + row`.
        st = core::array::from_fn(|i| sub[i % 4 + 4 * ((i / 4 + i % 4) % 4)]);
        if r < nr {
            for c in 0..4 {
                let a: [u8; 4] = st[4 * c..4 * c + 4].try_into().unwrap();
                let t = a[0] ^ a[1] ^ a[2] ^ a[3];
                for i in 0..4 {
                    st[4 * c + i] = a[i] ^ t ^ xtime(a[i] ^ a[(i + 1) % 4]);
                }
            }
        }
        for (x, k) in st.iter_mut().zip(key) {
            *x ^= k;
        }
    }
    st
}

/// FIPS 197 InvMixColumns of a block: the middle round keys of the
/// equivalent inverse cipher are the encryption round keys put through it
/// (what decrypting a received tag under the record key makes).
fn inv_mix_columns(b: &[u8; 16]) -> [u8; 16] {
    core::array::from_fn(|i| {
        let a = |k: usize| b[4 * (i / 4) + (i % 4 + k) % 4];
        gf_mul(a(0), 14) ^ gf_mul(a(1), 11) ^ gf_mul(a(2), 13) ^ gf_mul(a(3), 9)
    })
}

#[test]
fn inv_mix_columns_here_undoes_a_known_mix_columns() {
    // MixColumns takes the column db 13 53 45 to 8e 4d a1 bc.
    let mixed: [u8; 16] = hex::decode("8e4da1bc".repeat(4)).unwrap().try_into().unwrap();
    assert_eq!(inv_mix_columns(&mixed).to_vec(), hex::decode("db135345".repeat(4)).unwrap());
}

/// FIPS 197 KeyExpansion: every round key of `key` (16 or 32 bytes).
fn round_keys(key: &[u8]) -> Vec<[u8; 16]> {
    let s = sbox();
    let nk = key.len() / 4;
    let nr = nk + 6;
    let mut w: Vec<[u8; 4]> = key.chunks(4).map(|c| c.try_into().unwrap()).collect();
    let mut rcon = 1u8;
    for i in nk..4 * (nr + 1) {
        let mut t = w[i - 1];
        if i % nk == 0 {
            t = [s[t[1] as usize] ^ rcon, s[t[2] as usize], s[t[3] as usize], s[t[0] as usize]];
            rcon = (rcon << 1) ^ if rcon & 0x80 != 0 { 0x1b } else { 0 };
        } else if nk > 6 && i % nk == 4 {
            t = t.map(|b| s[b as usize]);
        }
        let prev = w[i - nk];
        w.push(core::array::from_fn(|j| prev[j] ^ t[j]));
    }
    w.chunks(4).map(|c| core::array::from_fn(|j| c[j / 4][j % 4])).collect()
}

#[test]
fn aes_here_matches_fips_197() {
    // FIPS 197 Appendix C.1 and C.3.
    let pt: [u8; 16] = hex::decode("00112233445566778899aabbccddeeff").unwrap().try_into().unwrap();
    let k128: Vec<u8> = (0..16).collect();
    assert_eq!(
        aes_encrypt(&round_keys(&k128), &pt).to_vec(),
        hex::decode("69c4e0d86a7b0430d8cdb78070b4c55a").unwrap()
    );
    let k256: Vec<u8> = (0..32).collect();
    assert_eq!(
        aes_encrypt(&round_keys(&k256), &pt).to_vec(),
        hex::decode("8ea2b7ca516745bfeafc49904b496089").unwrap()
    );
}

#[test]
fn key_expansion_here_matches_fips_197() {
    // FIPS 197 Appendix A.1 and A.3: the last round key.
    let k128 = hex::decode("2b7e151628aed2a6abf7158809cf4f3c").unwrap();
    assert_eq!(round_keys(&k128)[10].to_vec(), hex::decode("d014f9a8c9ee2589e13f0cc8b6630ca6").unwrap());
    let k256 = hex::decode("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4").unwrap();
    assert_eq!(round_keys(&k256)[14].to_vec(), hex::decode("fe4890d1e6188d0b046df344706c631e").unwrap());
}

/// The secrets to look for, with a name for each.
fn secrets(key: &[u8], nonce: &[u8; 12]) -> Vec<(String, [u8; 16])> {
    let (h, k) = match key.len() {
        16 => {
            let keys = Aes128GcmSiv::new(key.try_into().unwrap()).derive_record_keys(nonce);
            (*keys.authentication_key(), keys.encryption_key().to_vec())
        }
        _ => {
            let keys = Aes256GcmSiv::new(key.try_into().unwrap()).derive_record_keys(nonce);
            (*keys.authentication_key(), keys.encryption_key().to_vec())
        }
    };
    let mut out = powers("H", &h);
    let record = round_keys(&k);
    for (i, rk) in record.iter().enumerate() {
        out.push((format!("record round key {i}"), *rk));
    }
    for (i, rk) in record.iter().enumerate().take(record.len() - 1).skip(1) {
        out.push((format!("record decryption round key {i}"), inv_mix_columns(rk)));
    }
    // Round 0 of the key-generating key is the key itself, which the test holds.
    for (i, rk) in round_keys(key).into_iter().enumerate().skip(key.len() / 16) {
        out.push((format!("key-generating round key {i}"), rk));
    }
    out
}

/// `h` and H^2..H^16 in the dot-product sense (H^(k+1) = dot(H^k, H) =
/// POLYVAL_H(H^k)), the tables the bulk kernels build (H^9..H^16 for the 512-bit passes): each reveals H.
fn powers(name: &str, h: &[u8; 16]) -> Vec<(String, [u8; 16])> {
    let mut out = vec![(name.to_string(), *h)];
    let mut power = *h;
    for k in 2..=16 {
        let mut p = gcmsiv::hazmat::Polyval::new(h);
        p.update_padded(&power);
        power = p.finalize();
        out.push((format!("{name}^{k}"), power));
    }
    out
}

/// AES-GCM's secrets: the key schedule past round 0, H = AES_K(0^128), and
/// the POLYVAL key mulX_POLYVAL(ByteReverse(H)) (RFC 8452 Appendix A) with
/// its powers.
fn gcm_secrets(key: &[u8]) -> Vec<(String, [u8; 16])> {
    let rk = round_keys(key);
    let h = aes_encrypt(&rk, &[0; 16]);
    let mut reversed = h;
    reversed.reverse();
    let x = u128::from_le_bytes(reversed);
    let mul_x = (x << 1) ^ if x >> 127 == 1 { 0xc200_0000_0000_0000_0000_0000_0000_0001 } else { 0 };
    let mut out = vec![("GHASH H".to_string(), h)];
    out.extend(powers("POLYVAL key", &mul_x.to_le_bytes()));
    for (i, k) in rk.into_iter().enumerate().skip(key.len() / 16) {
        out.push((format!("round key {i}"), k));
    }
    out
}

/// AES-GCM of either key size, sealing and opening in place (kept in a `Box`).
#[allow(clippy::large_enum_variant)]
enum GcmCipher {
    Aes128(Aes128Gcm),
    Aes256(Aes256Gcm),
}

impl GcmCipher {
    fn new(key: &[u8], backend: Backend) -> Self {
        match key.len() {
            16 => GcmCipher::Aes128(Aes128Gcm::with_backend(key.try_into().unwrap(), 16, backend).unwrap()),
            _ => GcmCipher::Aes256(Aes256Gcm::with_backend(key.try_into().unwrap(), 16, backend).unwrap()),
        }
    }

    fn encrypt_in_place_detached(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Tag {
        match self {
            GcmCipher::Aes128(c) => c.encrypt_in_place_detached(nonce, aad, buf).unwrap(),
            GcmCipher::Aes256(c) => c.encrypt_in_place_detached(nonce, aad, buf).unwrap(),
        }
    }

    fn decrypt_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &Tag,
    ) -> Result<(), Error> {
        match self {
            GcmCipher::Aes128(c) => c.decrypt_in_place_detached(nonce, aad, buf, tag.as_bytes()),
            GcmCipher::Aes256(c) => c.decrypt_in_place_detached(nonce, aad, buf, tag.as_bytes()),
        }
    }
}

/// Every secret found in `stack`, by name.
fn found(stack: &[u8], secrets: &[(String, [u8; 16])]) -> Vec<String> {
    secrets.iter().filter(|(_, s)| stack.windows(16).any(|w| w == s)).map(|(n, _)| n.clone()).collect()
}

/// Seals and opens at lengths that take each kernel (short, long, stitched
/// tail), each call checked on its own.
#[test]
#[cfg_attr(debug_assertions, ignore = "a property of optimized builds: run with --release")]
fn no_key_schedule_or_hash_key_is_left_on_the_stack() {
    let mut stack = vec![0u8; DEPTH];
    let mut failures = Vec::new();
    for backend in backends() {
        for key_len in [16, 32] {
            let key = pattern(key_len, 11);
            let nonce: [u8; 12] = pattern(12, 5).try_into().unwrap();
            let wanted = secrets(&key, &nonce);
            // On the heap: the key object itself holds the schedule.
            let cipher = Box::new(Siv::new(&key, backend));
            // Every block count of the short kernels, both sides of the
            // boundary to the long kernel, and long messages with a tail.
            for len in
                [0, 1, 16, 32, 48, 64, 80, 96, 100, 112, 128, 129, 300, 1024, 1500, 4100, 17_000, 17_100]
            {
                for aad_len in [0, 20, 128] {
                    let aad = pattern(aad_len, 1);
                    let mut buf = pattern(len, 2);
                    let mut tag = [0u8; 16];
                    let mut result = Ok(());
                    let mut check = |what: &str, stack: &mut Vec<u8>, f: &mut dyn FnMut()| {
                        run_and_snapshot(f, stack);
                        let hits = found(stack, &wanted);
                        if !hits.is_empty() {
                            failures
                                .push(format!("{backend:?} AES-{} {what} len {len}: {hits:?}", 8 * key_len));
                        }
                    };
                    check("seal", &mut stack, &mut || {
                        tag = cipher.encrypt_in_place_detached(&nonce, &aad, &mut buf).unwrap();
                    });
                    check("open", &mut stack, &mut || {
                        result = cipher.decrypt_in_place_detached(&nonce, &aad, &mut buf, &tag);
                    });
                    assert_eq!(result, Ok(()));
                    assert_eq!(buf, pattern(len, 2));
                }
            }
        }
    }
    assert!(failures.is_empty(), "secrets left on the stack:\n{}", failures.join("\n"));
}

/// `h` squared again and again: H^2, H^4, ... H^(2^20), the powers the
/// join of the all-cores path multiplies partial sums by.
fn squares(name: &str, h: &[u8; 16]) -> Vec<(String, [u8; 16])> {
    let mut out = Vec::new();
    let mut power = *h;
    for k in 1..=20 {
        let mut p = gcmsiv::hazmat::Polyval::new(&power);
        p.update_padded(&power);
        power = p.finalize();
        out.push((format!("{name}^(2^{k})"), power));
    }
    out
}

/// The all-cores path (threshold 0), in a pool of one thread so that every
/// piece runs on the stack searched: its record keys, round keys and the
/// powers of H its join uses are not left behind either.
#[test]
#[cfg(feature = "parallel")]
#[cfg_attr(debug_assertions, ignore = "a property of optimized builds: run with --release")]
fn the_all_cores_path_leaves_no_key_schedule_or_hash_key_on_the_stack() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let mut stack = vec![0u8; DEPTH];
    let mut failures = Vec::new();
    for backend in backends() {
        for key_len in [16, 32] {
            let key = pattern(key_len, 12);
            let nonce: [u8; 12] = pattern(12, 6).try_into().unwrap();
            let mut wanted = secrets(&key, &nonce);
            let h = wanted[0].1;
            wanted.extend(squares("H", &h));
            let cipher = Box::new(Siv::new(&key, backend).all_cores());
            for len in [4096, 65_536 + 100] {
                let mut buf = pattern(len, 3);
                let mut tag = [0u8; 16];
                let mut result = Ok(());
                pool.install(|| {
                    for (what, seal) in [("seal", true), ("open", false)] {
                        run_and_snapshot(
                            &mut || {
                                if seal {
                                    tag = cipher.encrypt_in_place_detached(&nonce, b"", &mut buf).unwrap();
                                } else {
                                    result = cipher.decrypt_in_place_detached(&nonce, b"", &mut buf, &tag);
                                }
                            },
                            &mut stack,
                        );
                        let hits = found(&stack, &wanted);
                        if !hits.is_empty() {
                            failures
                                .push(format!("{backend:?} AES-{} {what} len {len}: {hits:?}", 8 * key_len));
                        }
                    }
                });
                assert_eq!(result, Ok(()));
                assert_eq!(buf, pattern(len, 3));
            }
        }
    }
    assert!(failures.is_empty(), "secrets left on the stack:\n{}", failures.join("\n"));
}

#[test]
#[cfg_attr(debug_assertions, ignore = "a property of optimized builds: run with --release")]
fn gcm_leaves_no_key_schedule_or_hash_key_on_the_stack() {
    let mut stack = vec![0u8; DEPTH];
    let mut failures = Vec::new();
    for backend in backends() {
        for key_len in [16, 32] {
            let key = pattern(key_len, 19);
            let wanted = gcm_secrets(&key);
            let cipher = Box::new(GcmCipher::new(&key, backend));
            for nonce_len in [12, 16] {
                let nonce = pattern(nonce_len, 4);
                for len in [0, 16, 100, 300, 1024, 1500, 4100, 17_000, 17_100] {
                    let aad = pattern(20, 1);
                    let mut buf = pattern(len, 2);
                    let mut tag = None;
                    let mut result = Ok(());
                    let mut check = |what: &str, stack: &mut Vec<u8>, f: &mut dyn FnMut()| {
                        run_and_snapshot(f, stack);
                        let hits = found(stack, &wanted);
                        if !hits.is_empty() {
                            failures.push(format!(
                                "{backend:?} AES-{}-GCM {what} nonce {nonce_len} len {len}: {hits:?}",
                                8 * key_len
                            ));
                        }
                    };
                    check("seal", &mut stack, &mut || {
                        tag = Some(cipher.encrypt_in_place_detached(&nonce, &aad, &mut buf));
                    });
                    let sealed = tag.take().unwrap();
                    check("open", &mut stack, &mut || {
                        result = cipher.decrypt_in_place_detached(&nonce, &aad, &mut buf, &sealed);
                    });
                    assert_eq!(result, Ok(()));
                    assert_eq!(buf, pattern(len, 2));
                }
            }
        }
    }
    assert!(failures.is_empty(), "secrets left on the stack:\n{}", failures.join("\n"));
}

#[test]
#[cfg_attr(debug_assertions, ignore = "a property of optimized builds: run with --release")]
fn batches_leave_no_key_schedule_on_the_stack() {
    let mut stack = vec![0u8; DEPTH];
    let mut failures = Vec::new();
    for backend in backends() {
        let key = pattern(16, 13);
        let cipher =
            Box::new(Aes128GcmSiv::with_backend(key.as_slice().try_into().unwrap(), backend).unwrap());
        // 24: a group of sixteen (where the backend takes them) and one of eight.
        let nonces: Vec<[u8; 12]> = (0..24u8).map(|i| [i; 12]).collect();
        let wanted: Vec<_> = nonces.iter().flat_map(|n| secrets(&key, n)).collect();
        for len in [16, 64, 200, 500, 700, 1024] {
            let mut bufs: Vec<Vec<u8>> = (0..24).map(|i| pattern(len, i)).collect();
            let mut items: Vec<BatchItem> =
                nonces.iter().zip(&mut bufs).map(|(n, b)| BatchItem::new(n, b"", b)).collect();
            let mut results = vec![Ok(()); items.len()];
            run_and_snapshot(&mut || cipher.encrypt_batch(&mut items).unwrap(), &mut stack);
            let hits = found(&stack, &wanted);
            if !hits.is_empty() {
                failures.push(format!("{backend:?} batch seal len {len}: {hits:?}"));
            }
            run_and_snapshot(&mut || cipher.decrypt_batch(&mut items, &mut results).unwrap(), &mut stack);
            let hits = found(&stack, &wanted);
            if !hits.is_empty() {
                failures.push(format!("{backend:?} batch open len {len}: {hits:?}"));
            }
            assert!(results.iter().all(|r| r.is_ok()));
        }
    }
    assert!(failures.is_empty(), "secrets left on the stack:\n{}", failures.join("\n"));
}

/// The key-generating key's round keys past round 0 (which is the key the
/// caller holds): what an AES-GCM-SIV key object holds.
fn key_schedule(key: &[u8]) -> Vec<(String, [u8; 16])> {
    round_keys(key)
        .into_iter()
        .enumerate()
        .skip(key.len() / 16)
        .map(|(i, rk)| (format!("key-generating round key {i}"), rk))
        .collect()
}

/// Key creation through [`gcmsiv::scrubbed`], as the bindings and the C ABI
/// make their keys: `Cipher::new` (and the typed constructors) into a `Box`
/// or an `Arc`. The schedule, and for AES-GCM H and the powers of the
/// POLYVAL key, are built by value and moved; the scrub must leave none of
/// them on the stack.
#[test]
#[cfg_attr(debug_assertions, ignore = "a property of optimized builds: run with --release")]
fn key_creation_through_scrubbed_leaves_no_key_schedule_on_the_stack() {
    use gcmsiv::{Algorithm, Cipher};
    let mut stack = vec![0u8; DEPTH];
    let mut failures = Vec::new();
    for backend in backends() {
        for algorithm in
            [Algorithm::Aes128GcmSiv, Algorithm::Aes256GcmSiv, Algorithm::Aes128Gcm, Algorithm::Aes256Gcm]
        {
            let key = pattern(algorithm.key_len(), 23);
            let wanted =
                if algorithm.is_nonce_misuse_resistant() { key_schedule(&key) } else { gcm_secrets(&key) };
            let mut boxed = None;
            run_and_snapshot(
                &mut || {
                    boxed = Some(
                        gcmsiv::scrubbed(|| Cipher::new(algorithm, &key, 16, backend).map(Box::new)).unwrap(),
                    );
                },
                &mut stack,
            );
            let hits = found(&stack, &wanted);
            if !hits.is_empty() {
                failures.push(format!("{backend:?} {algorithm:?} Cipher::new into a Box: {hits:?}"));
            }
            let mut shared = None;
            run_and_snapshot(
                &mut || {
                    shared = Some(
                        gcmsiv::scrubbed(|| {
                            Cipher::new(algorithm, &key, 16, backend).map(std::sync::Arc::new)
                        })
                        .unwrap(),
                    );
                },
                &mut stack,
            );
            let hits = found(&stack, &wanted);
            if !hits.is_empty() {
                failures.push(format!("{backend:?} {algorithm:?} Cipher::new into an Arc: {hits:?}"));
            }
            // The key made works (and is the one searched for).
            let (mut buf, mut tag) = (pattern(40, 1), [0u8; 16]);
            let cipher = boxed.unwrap();
            cipher.encrypt_in_place_detached(&[3; 12], b"", &mut buf, &mut tag).unwrap();
            shared.unwrap().decrypt_in_place_detached(&[3; 12], b"", &mut buf, &tag).unwrap();
            assert_eq!(buf, pattern(40, 1));
        }
        let key = pattern(32, 24);
        let wanted = key_schedule(&key);
        let mut typed = None;
        run_and_snapshot(
            &mut || {
                typed = Some(gcmsiv::scrubbed(|| {
                    Box::new(Aes256GcmSiv::with_backend(key.as_slice().try_into().unwrap(), backend).unwrap())
                }));
            },
            &mut stack,
        );
        let hits = found(&stack, &wanted);
        if !hits.is_empty() {
            failures.push(format!("{backend:?} Aes256GcmSiv::with_backend into a Box: {hits:?}"));
        }
    }
    assert!(failures.is_empty(), "secrets left on the stack:\n{}", failures.join("\n"));
}

/// The control for the test above: the same keys made without
/// [`gcmsiv::scrubbed`] do leave copies that the search finds (with the
/// compilers measured: on x86-64 the whole schedule, and for AES-GCM H's
/// POLYVAL key with its powers; SECURITY.md has the counts), so the search
/// looks where key creation leaves them. If an optimizer stops leaving any,
/// this fails, and the test above no longer shows anything: look again.
#[test]
#[cfg_attr(debug_assertions, ignore = "a property of optimized builds: run with --release")]
fn the_check_finds_what_key_creation_leaves_without_the_scrub() {
    use gcmsiv::{Algorithm, Cipher};
    let mut stack = vec![0u8; DEPTH];
    let mut seen = Vec::new();
    for backend in backends() {
        for algorithm in [Algorithm::Aes256GcmSiv, Algorithm::Aes256Gcm] {
            let key = pattern(32, 25);
            let wanted =
                if algorithm.is_nonce_misuse_resistant() { key_schedule(&key) } else { gcm_secrets(&key) };
            let mut boxed = None;
            run_and_snapshot(
                &mut || boxed = Some(Box::new(Cipher::new(algorithm, &key, 16, backend).unwrap())),
                &mut stack,
            );
            let hits = found(&stack, &wanted);
            eprintln!(
                "without the scrub, {backend:?} {algorithm:?}: {} of {} found",
                hits.len(),
                wanted.len()
            );
            seen.extend(hits);
            assert!(boxed.is_some());
        }
    }
    assert!(!seen.is_empty(), "key creation left nothing even without the scrub");
}

#[test]
fn the_check_finds_a_schedule_copied_to_the_stack() {
    // A stand-in for a leaky kernel: a round key copied into a stack array
    // that nobody wipes. The check must see it.
    let key = pattern(16, 17);
    let nonce = [9u8; 12];
    let wanted = secrets(&key, &nonce);
    let rk = wanted[3].1;
    #[inline(never)]
    fn leaky(rk: &[u8; 16]) {
        let mut copy = [[0u8; 16]; 4];
        copy[2] = *rk;
        std::hint::black_box(&mut copy);
    }
    let mut stack = vec![0u8; DEPTH];
    run_and_snapshot(&mut || leaky(&rk), &mut stack);
    assert_eq!(found(&stack, &wanted), vec![wanted[3].0.clone()]);
}

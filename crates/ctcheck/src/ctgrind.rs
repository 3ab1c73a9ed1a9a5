//! ctgrind (Adam Langley, 2010): mark secrets as undefined for Valgrind's
//! Memcheck, run the code, and let Memcheck report every conditional jump,
//! conditional move or memory address computed from them.
//!
//! Memcheck's definedness tracking follows data flow bit by bit, so anything
//! derived from an "undefined" secret is undefined too, and Memcheck complains
//! the moment control flow or an address depends on it. Arithmetic on secrets is
//! fine; branching or indexing on them is exactly what a constant-time
//! implementation must not do.
//!
//! Covered: AES-128/256-GCM-SIV seal and open, AES-128/256-GCM seal and open
//! (96-bit and other IV lengths, full and truncated tags), GMAC compute and
//! verify, and AES-128/256-GCM-SIV batches, on every backend the CPU has; and
//! the C ABI's key set-up, combined calls and batches for all four
//! algorithms (what the Go binding runs).
//!
//! Secrets marked here: the key (before the cipher is constructed, so the key
//! schedule, GCM's hash key and every GCM-SIV per-nonce record key are
//! covered), the plaintext before sealing, and the ciphertext and tag before
//! opening or verifying. Nonces and associated data (GMAC's data included) are
//! public. Outputs are declassified before the harness compares them.
//!
//! The one expected report is the branch on the tag-check result in
//! `gcmsiv::verify::release`, the one function every decryption and
//! verification ends in (public: it is the return value), or its batch form
//! `gcmsiv::verify::release_group` (the same branch once per item of a batch's
//! group). It is suppressed by `ctgrind.supp` next to this crate's manifest,
//! matched only when one of the two is the innermost frame, which needs debug
//! line tables; see the crate README.
//! The run prints how many decryptions it made (batch items and GMAC
//! verifications counted one by one), which must equal the number of suppressed
//! errors (`ctgrind.sh` checks it): one more secret-dependent branch in
//! `release` itself would show up there.

use crate::common::{Cipher, GcmCipher, Mac, Rng, backends, leaky_tag_eq};
use crate::valgrind;
use gcmsiv::{Aes128Gcm, Aes128GcmSiv, Aes256Gcm, Aes256GcmSiv, Backend, BatchItem, Error, Tag};
use std::process::ExitCode;
use std::time::Instant;

/// Message lengths: empty, around one block, a few blocks, past the 8-block
/// (128-byte) stride wide backends use, and a long one.
const LENGTHS: [usize; 8] = [0, 1, 15, 16, 17, 64, 200, 1000];
/// Associated data lengths: none, and a length that is not a multiple of 16.
const AAD_LENS: [usize; 2] = [0, 21];

/// AES-GCM IV lengths: 12 bytes, the fast path (J0 = IV || 0^31 || 1), and
/// lengths whose J0 is GHASH of the IV under the secret hash key: shorter than
/// a block, half a block, and several blocks with a partial last one.
const GCM_IV_LENS: [usize; 4] = [12, 1, 8, 60];
/// AES-GCM tag lengths: full, the shortest SP 800-38D allows without
/// conditions, and the two "hazardous" short ones.
const GCM_TAG_LENS: [usize; 4] = [16, 12, 8, 4];
/// GMAC data lengths (the data is authenticated, not encrypted, so public).
const GMAC_LENGTHS: [usize; 6] = [0, 1, 16, 17, 64, 200];

/// Batch sizes: less than one group of four (the batch code's lane count for
/// longer items), one group, groups with a remainder, two groups, one group of
/// eight (the fused kernels' group), and eight with a remainder.
const BATCH_SIZES: std::ops::RangeInclusive<usize> = 1..=9;
/// Lengths of batch items, dealt out in rotation: all at most 256 bytes, the
/// largest a lane takes, so whole groups of four take the interleaved path.
const BATCH_LENGTHS: [usize; 12] = [0, 1, 15, 16, 17, 32, 63, 64, 100, 129, 255, 256];
/// Associated data lengths of batch items, in rotation (up to 256 too).
const BATCH_AAD_LENS: [usize; 5] = [0, 5, 16, 21, 256];
/// Lengths of the items of batches that fit the fused group kernels (at most
/// 128 bytes of message and of AAD), mixed within each group.
const SHORT_LENGTHS: [usize; 7] = [0, 1, 16, 17, 64, 100, 128];
const SHORT_AAD_LENS: [usize; 3] = [0, 13, 128];

/// How a batch's item lengths are chosen.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// From [`BATCH_LENGTHS`] and [`BATCH_AAD_LENS`], in rotation.
    Dealt,
    /// As `Dealt`, but item `.0` has `.1` bytes.
    Long(usize, usize),
    /// From [`SHORT_LENGTHS`] and [`SHORT_AAD_LENS`]: the group kernels.
    Short,
    /// Every item with `.0` bytes of AAD and `.1` of message: the group
    /// kernels' equal-length steps.
    Equal(usize, usize),
}

/// One extra batch: `LONG_BATCH.0` items, item `LONG_BATCH.1` of
/// `LONG_BATCH.2` bytes. Its group (items 4..8) goes through the one-message
/// path, the group before it through the interleaved one.
const LONG_BATCH: (usize, usize, usize) = (9, 5, 1000);

/// Names the debug info must contain (see [`debug_info_names`]): the function
/// the suppression matches, and gcmsiv's generic code (present only when the
/// library was built with line tables, which describe inlined functions).
const DEBUG_INFO_NAMES: [&[u8]; 2] = [b"release", b"open_in_place<gcmsiv::"];

/// `ctcheck ctgrind [--self-test-leak]`.
pub fn run(self_test_leak: bool) -> ExitCode {
    let on_valgrind = valgrind::running_on_valgrind() > 0;
    if on_valgrind {
        println!("ctgrind: running under Valgrind: secrets are marked undefined for Memcheck");
    } else {
        println!(
            "ctgrind: NOT running under Valgrind: client requests are no-ops, so this run only checks \
             that the harness works. For the constant-time check run it under \
             `valgrind --error-exitcode=1 --suppressions=<crate>/ctgrind.supp`."
        );
    }
    if !valgrind::SUPPORTED {
        eprintln!("ctgrind: client requests are implemented for x86-64 only; nothing checked");
        return ExitCode::from(2);
    }
    if self_test_leak {
        return self_test(on_valgrind);
    }

    match debug_info_names(&DEBUG_INFO_NAMES) {
        Ok(true) => println!("ctgrind: debug line tables present: inlined frames are visible to Valgrind"),
        Ok(false) | Err(_) if !on_valgrind => {
            println!("ctgrind: note: no debug line tables; they are required under Valgrind (see README)")
        }
        Ok(false) => {
            eprintln!(
                "ctgrind: this binary has no debug line tables naming `gcmsiv::verify::release`. Without \
                 them Valgrind cannot tell code inlined into `release` from `release` itself, so the \
                 tag-check suppression could hide a real leak in an inlined callee. Use \
                 `crates/ctcheck/ctgrind.sh`, or rebuild with \
                 `cargo build -p ctcheck --release --config 'profile.release.debug=\"line-tables-only\"'`."
            );
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("ctgrind: cannot read this binary's debug info ({e}); refusing to run under Valgrind");
            return ExitCode::from(2);
        }
    }

    let start = Instant::now();
    let mut rng = Rng::from_seed(0x6374_6772_696e_6421);
    let mut failures = 0usize;
    let mut opens = 0usize;
    for backend in backends() {
        for result in [
            check_cipher::<Aes128GcmSiv>(backend, &mut rng, on_valgrind, &mut opens),
            check_cipher::<Aes256GcmSiv>(backend, &mut rng, on_valgrind, &mut opens),
            check_batches::<Aes128GcmSiv>(backend, &mut rng, on_valgrind, &mut opens),
            check_batches::<Aes256GcmSiv>(backend, &mut rng, on_valgrind, &mut opens),
            check_gcm::<Aes128Gcm>(backend, &mut rng, on_valgrind, &mut opens),
            check_gcm::<Aes256Gcm>(backend, &mut rng, on_valgrind, &mut opens),
            check_gmac::<Aes128Gcm>(backend, &mut rng, on_valgrind, &mut opens),
            check_gmac::<Aes256Gcm>(backend, &mut rng, on_valgrind, &mut opens),
            check_c_abi(gcmsiv_c::GCMSIV_AES_128_GCM_SIV, 16, backend, &mut rng, on_valgrind, &mut opens),
            check_c_abi(gcmsiv_c::GCMSIV_AES_256_GCM_SIV, 16, backend, &mut rng, on_valgrind, &mut opens),
            check_c_abi(gcmsiv_c::GCMSIV_AES_128_GCM, 16, backend, &mut rng, on_valgrind, &mut opens),
            check_c_abi(gcmsiv_c::GCMSIV_AES_256_GCM, 12, backend, &mut rng, on_valgrind, &mut opens),
        ] {
            match result {
                Ok(line) => println!("ctgrind: {line}"),
                Err(e) => {
                    failures += 1;
                    println!("ctgrind: FAILED: {e}");
                }
            }
        }
    }
    let errors = valgrind::count_errors();
    println!("ctgrind: done in {:.1} s", start.elapsed().as_secs_f64());
    if on_valgrind {
        println!("ctgrind: Memcheck errors reported (suppressed ones excluded): {errors}; expected 0");
        println!(
            "ctgrind: decryptions: {opens}; expected suppressed errors: {opens} (the tag-check branch in \
             verify::release or release_group, once per decryption, GMAC verification or opened batch item; \
             compare with \
             \"suppressed: N from M\" in Valgrind's ERROR SUMMARY)"
        );
    }
    if failures > 0 || errors > 0 {
        println!("ctgrind: FAIL");
        ExitCode::FAILURE
    } else if on_valgrind {
        println!("ctgrind: PASS: no secret-dependent branch or memory index outside the tag-check result");
        ExitCode::SUCCESS
    } else {
        println!("ctgrind: harness OK (nothing was checked for constant time: not under Valgrind)");
        ExitCode::SUCCESS
    }
}

/// Seals and opens (valid and tampered tag) every length, with and without
/// associated data, on one backend and key size.
///
/// Counts the decryptions in `opens`: each must produce exactly one
/// (suppressed) report, the branch on the tag-check result.
fn check_cipher<C: Cipher>(
    backend: Backend,
    rng: &mut Rng,
    on_valgrind: bool,
    opens: &mut usize,
) -> Result<String, String> {
    let who = format!("{} {}", C::NAME, backend.name());
    let mut calls = 0usize;
    for len in LENGTHS {
        for aad_len in AAD_LENS {
            let case = format!("{who}, {len}-byte message, {aad_len}-byte AAD");
            let fail = |what: &str| format!("{case}: {what}");
            let mut key = vec![0u8; C::KEY_LEN];
            rng.fill(&mut key);
            let nonce: [u8; 12] = rng.bytes();
            let mut aad = vec![0u8; aad_len];
            rng.fill(&mut aad);
            let mut plaintext = vec![0u8; len];
            rng.fill(&mut plaintext);

            // Reference output, computed with nothing marked.
            let reference = C::with_backend(&key, backend).map_err(|e| fail(&e.to_string()))?;
            let mut expected_ciphertext = plaintext.clone();
            let expected_tag =
                reference.seal(&nonce, &aad, &mut expected_ciphertext).map_err(|e| fail(&e.to_string()))?;
            drop(reference);

            // The checked run: the key is secret before the key schedule exists.
            valgrind::mark_secret(&mut key[..]);
            let cipher = C::with_backend(&key, backend).map_err(|e| fail(&e.to_string()))?;

            // Seal a secret plaintext.
            let mut buffer = plaintext.clone();
            valgrind::mark_secret(&mut buffer[..]);
            let mut tag = cipher.seal(&nonce, &aad, &mut buffer).map_err(|e| fail(&e.to_string()))?;
            calls += 1;
            expect_secret(on_valgrind, "tag", &tag).map_err(|e| fail(&e))?;
            expect_secret(on_valgrind, "ciphertext", &buffer).map_err(|e| fail(&e))?;
            valgrind::declassify(&mut tag);
            valgrind::declassify(&mut buffer[..]);
            if tag != expected_tag || buffer != expected_ciphertext {
                return Err(fail("seal output differs from the reference"));
            }

            // Open a secret ciphertext and tag.
            valgrind::mark_secret(&mut buffer[..]);
            valgrind::mark_secret(&mut tag);
            let mut opened = cipher.open(&nonce, &aad, &mut buffer, &tag);
            calls += 1;
            *opens += 1;
            // The result went through the tag-check branch, so it is defined
            // already; declassifying it makes the harness independent of that.
            valgrind::declassify(&mut opened);
            expect_secret(on_valgrind, "plaintext", &buffer).map_err(|e| fail(&e))?;
            valgrind::declassify(&mut buffer[..]);
            if opened != Ok(()) || buffer != plaintext {
                return Err(fail("open of a valid ciphertext failed or returned the wrong plaintext"));
            }

            // Open with a tampered (secret) tag: a one-bit change whose position
            // varies with the case.
            let mut buffer = expected_ciphertext.clone();
            let mut bad_tag = expected_tag;
            bad_tag[(len + aad_len) % 16] ^= 1 << (len % 8);
            valgrind::mark_secret(&mut buffer[..]);
            valgrind::mark_secret(&mut bad_tag);
            let mut opened = cipher.open(&nonce, &aad, &mut buffer, &bad_tag);
            calls += 1;
            *opens += 1;
            valgrind::declassify(&mut opened);
            valgrind::declassify(&mut buffer[..]);
            if opened != Err(Error::Authentication) || buffer != expected_ciphertext {
                return Err(fail("a tampered tag was not rejected with the ciphertext put back"));
            }
        }
    }
    Ok(format!(
        "{who}: {calls} seal/open calls ({} lengths x {} AAD lengths x seal, open, open-tampered): ok",
        LENGTHS.len(),
        AAD_LENS.len()
    ))
}

/// The C ABI (`crates/gcmsiv-c`, which the Go binding calls): one algorithm
/// and tag length on one backend, through `gcmsiv_key_new_ex`, the combined
/// `gcmsiv_encrypt` and `gcmsiv_decrypt` (into a separate buffer and in
/// place, valid and tampered), and a batch of nine with three tampered, every
/// length with and without associated data. The ABI adds checks, copies and
/// a wipe on failure around the core: none may branch on or index with a
/// secret. The reference is the Rust `Cipher` with nothing marked. Counts
/// the decryptions (batch items one by one) in `opens`.
fn check_c_abi(
    algorithm: core::ffi::c_int,
    tag_len: usize,
    backend: Backend,
    rng: &mut Rng,
    on_valgrind: bool,
    opens: &mut usize,
) -> Result<String, String> {
    use gcmsiv_c::*;
    let (rust_algorithm, key_len) = match algorithm {
        GCMSIV_AES_128_GCM_SIV => (gcmsiv::Algorithm::Aes128GcmSiv, 16),
        GCMSIV_AES_256_GCM_SIV => (gcmsiv::Algorithm::Aes256GcmSiv, 32),
        GCMSIV_AES_128_GCM => (gcmsiv::Algorithm::Aes128Gcm, 16),
        _ => (gcmsiv::Algorithm::Aes256Gcm, 32),
    };
    let backend_code = match backend {
        Backend::Portable => GCMSIV_BACKEND_PORTABLE,
        Backend::AesNiClmul => GCMSIV_BACKEND_AESNI_CLMUL,
        _ => GCMSIV_BACKEND_AESNI_VAES,
    };
    let who = format!("C ABI {rust_algorithm:?} ({tag_len}-byte tags) {}", backend.name());
    let mut calls = 0usize;
    for len in LENGTHS {
        for aad_len in AAD_LENS {
            let case = format!("{who}, {len}-byte message, {aad_len}-byte AAD");
            let fail = |what: &str| format!("{case}: {what}");
            let mut key = vec![0u8; key_len];
            rng.fill(&mut key);
            let nonce: [u8; 12] = rng.bytes();
            let aad = random_vec(rng, aad_len);
            let plaintext = random_vec(rng, len);

            // Reference: the Rust API, nothing marked.
            let reference = gcmsiv::Cipher::new(rust_algorithm, &key, tag_len, backend)
                .map_err(|e| fail(&e.to_string()))?;
            let mut expected = plaintext.clone();
            expected.resize(len + tag_len, 0);
            let (body, tag) = expected.split_at_mut(len);
            reference.encrypt_in_place_detached(&nonce, &aad, body, tag).map_err(|e| fail(&e.to_string()))?;
            drop(reference);

            // The checked run: the key secret before the C call sets it up.
            valgrind::mark_secret(&mut key[..]);
            let mut handle: *mut GcmsivKey = core::ptr::null_mut();
            // SAFETY: pointers with their lengths, a writable handle slot.
            let code = unsafe {
                gcmsiv_key_new_ex(&mut handle, algorithm, key.as_ptr(), key.len(), tag_len, backend_code)
            };
            if code != GCMSIV_OK {
                return Err(fail(&format!("gcmsiv_key_new_ex: {code}")));
            }
            let result =
                c_abi_case(handle, &nonce, &aad, &plaintext, &expected, on_valgrind, opens, &mut calls);
            // SAFETY: the handle from gcmsiv_key_new_ex, freed once.
            unsafe { gcmsiv_key_free(handle) };
            result.map_err(|e| fail(&e))?;
        }
    }
    // A batch of nine short messages with three tampered (AES-GCM keys run
    // them one by one through the same ABI).
    let mut key = vec![0u8; key_len];
    rng.fill(&mut key);
    let reference = gcmsiv::Cipher::new(rust_algorithm, &key, tag_len, backend).map_err(|e| e.to_string())?;
    let nonces: Vec<[u8; 12]> = (0..9).map(|_| rng.bytes()).collect();
    let texts: Vec<Vec<u8>> =
        (0..9).map(|i| random_vec(rng, [0, 1, 16, 17, 64, 16, 16, 100, 33][i])).collect();
    let aad = random_vec(rng, 21);
    valgrind::mark_secret(&mut key[..]);
    let mut handle: *mut GcmsivKey = core::ptr::null_mut();
    // SAFETY: as above.
    let code =
        unsafe { gcmsiv_key_new_ex(&mut handle, algorithm, key.as_ptr(), key.len(), tag_len, backend_code) };
    if code != GCMSIV_OK {
        return Err(format!("{who} batch: gcmsiv_key_new_ex: {code}"));
    }
    let result = c_abi_batch(handle, &reference, tag_len, &nonces, &texts, &aad, on_valgrind, opens);
    // SAFETY: as above.
    unsafe { gcmsiv_key_free(handle) };
    result.map_err(|e| format!("{who} batch: {e}"))?;
    calls += 3;
    Ok(format!(
        "{who}: {calls} calls ({} lengths x {} AAD lengths x encrypt, decrypt to another buffer and in \
         place, decrypt tampered; batches of nine): ok",
        LENGTHS.len(),
        AAD_LENS.len()
    ))
}

/// One message through the C calls under `handle` (its key marked secret):
/// an encryption of the secret plaintext, decryptions of the secret sealed
/// message into another buffer and in place, and of a tampered one.
#[allow(clippy::too_many_arguments)]
fn c_abi_case(
    handle: *mut gcmsiv_c::GcmsivKey,
    nonce: &[u8; 12],
    aad: &[u8],
    plaintext: &[u8],
    expected: &[u8],
    on_valgrind: bool,
    opens: &mut usize,
    calls: &mut usize,
) -> Result<(), String> {
    use gcmsiv_c::*;
    let len = plaintext.len();
    let mut message = plaintext.to_vec();
    valgrind::mark_secret(&mut message[..]);
    let mut sealed = vec![0u8; expected.len()];
    let mut written = 0usize;
    // SAFETY: pointers with their lengths, the live key.
    let code = unsafe {
        gcmsiv_encrypt(
            sealed.as_mut_ptr(),
            sealed.len(),
            &mut written,
            message.as_ptr(),
            len,
            aad.as_ptr(),
            aad.len(),
            nonce.as_ptr(),
            12,
            handle,
        )
    };
    *calls += 1;
    expect_secret(on_valgrind, "sealed", &sealed)?;
    valgrind::declassify(&mut sealed[..]);
    if code != GCMSIV_OK || written != expected.len() || sealed != expected {
        return Err(format!("gcmsiv_encrypt: {code}, or output other than the reference"));
    }
    for in_place in [false, true] {
        valgrind::mark_secret(&mut sealed[..]);
        let mut out = vec![0u8; len];
        let target = if in_place { sealed.as_mut_ptr() } else { out.as_mut_ptr() };
        // SAFETY: as above (in place: the output is the input, as the ABI allows).
        let code = unsafe {
            gcmsiv_decrypt(
                target,
                sealed.len(),
                &mut written,
                sealed.as_ptr(),
                sealed.len(),
                aad.as_ptr(),
                aad.len(),
                nonce.as_ptr(),
                12,
                handle,
            )
        };
        *calls += 1;
        *opens += 1;
        let opened = if in_place { &mut sealed[..len] } else { &mut out[..] };
        expect_secret(on_valgrind, "opened", opened)?;
        valgrind::declassify(opened);
        if code != GCMSIV_OK || written != len || opened != plaintext {
            return Err(format!("gcmsiv_decrypt (in place: {in_place}): {code}, or the wrong plaintext"));
        }
        sealed.copy_from_slice(expected);
    }
    let mut forged = expected.to_vec();
    forged[len + (len % (expected.len() - len))] ^= 1; // a tag byte
    valgrind::mark_secret(&mut forged[..]);
    let mut out = vec![0x55u8; len];
    // SAFETY: as above.
    let code = unsafe {
        gcmsiv_decrypt(
            out.as_mut_ptr(),
            out.len(),
            &mut written,
            forged.as_ptr(),
            forged.len(),
            aad.as_ptr(),
            aad.len(),
            nonce.as_ptr(),
            12,
            handle,
        )
    };
    *calls += 1;
    *opens += 1;
    valgrind::declassify(&mut out[..]);
    if code != GCMSIV_ERR_AUTHENTICATION || written != 0 || out.iter().any(|&b| b != 0) {
        return Err(format!("a forgery gave {code}, or left bytes in the output"));
    }
    Ok(())
}

/// A batch through `gcmsiv_encrypt_batch` and `gcmsiv_decrypt_batch` (items
/// 1, 4 and 7 tampered on the way back), checked against the Rust `Cipher`.
#[allow(clippy::too_many_arguments)]
fn c_abi_batch(
    handle: *mut gcmsiv_c::GcmsivKey,
    reference: &gcmsiv::Cipher,
    tag_len: usize,
    nonces: &[[u8; 12]],
    texts: &[Vec<u8>],
    aad: &[u8],
    on_valgrind: bool,
    opens: &mut usize,
) -> Result<(), String> {
    use gcmsiv_c::*;
    let mut data: Vec<Vec<u8>> = texts.to_vec();
    for d in &mut data {
        valgrind::mark_secret(&mut d[..]);
    }
    let item = |i: usize, d: &mut Vec<u8>| GcmsivBatchItem {
        npub: nonces[i].as_ptr(),
        npub_len: 12,
        ad: aad.as_ptr(),
        ad_len: aad.len(),
        data: d.as_mut_ptr(),
        data_len: d.len(),
        tag: [0; 16],
        status: 0,
    };
    let mut items: Vec<GcmsivBatchItem> = data.iter_mut().enumerate().map(|(i, d)| item(i, d)).collect();
    // SAFETY: items pointing at live buffers of their lengths; the live key.
    let code = unsafe { gcmsiv_encrypt_batch(items.as_mut_ptr(), items.len(), handle) };
    let mut tags: Vec<[u8; 16]> = items.iter().map(|it| it.tag).collect();
    drop(items);
    for (i, (d, t)) in data.iter_mut().zip(&mut tags).enumerate() {
        expect_secret(on_valgrind, "batch ciphertext", d)?;
        valgrind::declassify(&mut d[..]);
        valgrind::declassify(&mut t[..]);
        let mut want = texts[i].clone();
        let mut want_tag = [0u8; 16];
        reference
            .encrypt_in_place_detached(&nonces[i], aad, &mut want, &mut want_tag[..tag_len])
            .map_err(|e| e.to_string())?;
        if code != GCMSIV_OK || *d != want || t[..tag_len] != want_tag[..tag_len] {
            return Err(format!("item {i}: gcmsiv_encrypt_batch {code}, or output other than the reference"));
        }
    }
    let sealed = data.clone();
    for (i, t) in tags.iter_mut().enumerate() {
        if i % 3 == 1 {
            t[i % tag_len] ^= 1;
        }
    }
    for d in &mut data {
        valgrind::mark_secret(&mut d[..]);
    }
    let mut items: Vec<GcmsivBatchItem> = data.iter_mut().enumerate().map(|(i, d)| item(i, d)).collect();
    for (it, t) in items.iter_mut().zip(&tags) {
        it.tag = *t;
        valgrind::mark_secret(&mut it.tag);
    }
    // SAFETY: as above.
    let code = unsafe { gcmsiv_decrypt_batch(items.as_mut_ptr(), items.len(), handle) };
    *opens += items.len();
    let statuses: Vec<i32> = items.iter().map(|it| it.status).collect();
    drop(items);
    for (i, d) in data.iter_mut().enumerate() {
        valgrind::declassify(&mut d[..]);
        let (want_status, want) =
            if i % 3 == 1 { (GCMSIV_ERR_AUTHENTICATION, &sealed[i]) } else { (GCMSIV_OK, &texts[i]) };
        if code != GCMSIV_OK || statuses[i] != want_status || d != want {
            return Err(format!("item {i}: gcmsiv_decrypt_batch {code}, status {}", statuses[i]));
        }
    }
    Ok(())
}

/// AES-GCM: seals and opens (valid and tampered tag) every length, with and
/// without associated data, for every IV length and tag length, on one backend
/// and key size. Counts the decryptions in `opens`.
fn check_gcm<G: GcmCipher>(
    backend: Backend,
    rng: &mut Rng,
    on_valgrind: bool,
    opens: &mut usize,
) -> Result<String, String> {
    let who = format!("{} {}", G::NAME, backend.name());
    let mut cases = 0usize;
    for len in LENGTHS {
        for aad_len in AAD_LENS {
            for iv_len in GCM_IV_LENS {
                for tag_len in GCM_TAG_LENS {
                    let shape = GcmCase { len, aad_len, iv_len, tag_len };
                    check_gcm_case::<G>(backend, shape, rng, on_valgrind).map_err(|e| {
                        format!(
                            "{who}, {len}-byte message, {aad_len}-byte AAD, {iv_len}-byte IV, \
                             {tag_len}-byte tag: {e}"
                        )
                    })?;
                    cases += 1;
                }
            }
        }
    }
    // Each case: one seal and two decryptions.
    *opens += 2 * cases;
    Ok(format!(
        "{who}: {} seal/open calls, {} of them decryptions ({} lengths x {} AAD lengths x IV lengths {:?} x \
         tag lengths {:?} x seal, open, open-tampered): ok",
        3 * cases,
        2 * cases,
        LENGTHS.len(),
        AAD_LENS.len(),
        GCM_IV_LENS,
        GCM_TAG_LENS
    ))
}

/// The lengths of one AES-GCM case.
#[derive(Clone, Copy)]
struct GcmCase {
    len: usize,
    aad_len: usize,
    iv_len: usize,
    tag_len: usize,
}

/// One AES-GCM case: seal, open, open with a tampered tag (two decryptions).
fn check_gcm_case<G: GcmCipher>(
    backend: Backend,
    GcmCase { len, aad_len, iv_len, tag_len }: GcmCase,
    rng: &mut Rng,
    on_valgrind: bool,
) -> Result<(), String> {
    let key = random_vec(rng, G::KEY_LEN);
    let nonce = random_vec(rng, iv_len);
    let aad = random_vec(rng, aad_len);
    let plaintext = random_vec(rng, len);

    // Reference output, computed with nothing marked.
    let reference = G::with_backend(&key, tag_len, backend).map_err(|e| e.to_string())?;
    let mut expected_ciphertext = plaintext.clone();
    let expected_tag = reference
        .seal(&nonce, &aad, &mut expected_ciphertext)
        .map_err(|e| e.to_string())?
        .as_bytes()
        .to_vec();
    drop(reference);

    let cipher = secret_key_gcm::<G>(key, tag_len, backend)?;

    // Seal a secret plaintext.
    let mut buffer = plaintext.clone();
    valgrind::mark_secret(&mut buffer[..]);
    let sealed = cipher.seal(&nonce, &aad, &mut buffer).map_err(|e| e.to_string())?;
    let mut tag = declassify_tag(on_valgrind, sealed, tag_len)?;
    expect_secret(on_valgrind, "ciphertext", &buffer)?;
    valgrind::declassify(&mut buffer[..]);
    if tag != expected_tag || buffer != expected_ciphertext {
        return Err("seal output differs from the reference".into());
    }

    // Open a secret ciphertext and tag.
    valgrind::mark_secret(&mut buffer[..]);
    valgrind::mark_secret(&mut tag[..]);
    let mut opened = cipher.open(&nonce, &aad, &mut buffer, &tag);
    valgrind::declassify(&mut opened);
    expect_secret(on_valgrind, "plaintext", &buffer)?;
    valgrind::declassify(&mut buffer[..]);
    if opened != Ok(()) || buffer != plaintext {
        return Err("open of a valid ciphertext failed or returned the wrong plaintext".into());
    }

    // Open with a tampered (secret) tag: one bit, within the tag's length, at a
    // position that varies with the case.
    let mut buffer = expected_ciphertext.clone();
    let mut bad_tag = expected_tag;
    bad_tag[(len + aad_len + iv_len) % tag_len] ^= 1 << ((len + iv_len) % 8);
    valgrind::mark_secret(&mut buffer[..]);
    valgrind::mark_secret(&mut bad_tag[..]);
    let mut opened = cipher.open(&nonce, &aad, &mut buffer, &bad_tag);
    valgrind::declassify(&mut opened);
    valgrind::declassify(&mut buffer[..]);
    if opened != Err(Error::Authentication) || buffer != expected_ciphertext {
        return Err("a tampered tag was not rejected with the ciphertext put back".into());
    }
    Ok(())
}

/// GMAC: computes and verifies (valid and tampered tag) tags of public data
/// under a secret key, for every IV length and tag length. Counts the
/// verifications in `opens`.
fn check_gmac<G: GcmCipher>(
    backend: Backend,
    rng: &mut Rng,
    on_valgrind: bool,
    opens: &mut usize,
) -> Result<String, String> {
    let who = format!("{} {}", G::MAC_NAME, backend.name());
    let (mut calls, mut verifications) = (0usize, 0usize);
    for len in GMAC_LENGTHS {
        for iv_len in GCM_IV_LENS {
            for tag_len in GCM_TAG_LENS {
                let case = format!("{who}, {len}-byte data, {iv_len}-byte IV, {tag_len}-byte tag");
                let fail = |what: &str| format!("{case}: {what}");
                let key = random_vec(rng, G::KEY_LEN);
                let nonce = random_vec(rng, iv_len);
                let data = random_vec(rng, len);

                let reference =
                    G::with_backend(&key, tag_len, backend).map_err(|e| fail(&e.to_string()))?.into_mac();
                let expected_tag =
                    reference.compute(&nonce, &data).map_err(|e| fail(&e.to_string()))?.as_bytes().to_vec();
                drop(reference);

                let mac = secret_key_gcm::<G>(key, tag_len, backend).map_err(|e| fail(&e))?.into_mac();

                let computed = mac.compute(&nonce, &data).map_err(|e| fail(&e.to_string()))?;
                calls += 1;
                let mut tag = declassify_tag(on_valgrind, computed, tag_len).map_err(|e| fail(&e))?;
                if tag != expected_tag {
                    return Err(fail("compute output differs from the reference"));
                }

                valgrind::mark_secret(&mut tag[..]);
                let mut verified = mac.verify(&nonce, &data, &tag);
                calls += 1;
                verifications += 1;
                valgrind::declassify(&mut verified);
                if verified != Ok(()) {
                    return Err(fail("a valid tag did not verify"));
                }

                let mut bad_tag = expected_tag;
                bad_tag[(len + iv_len) % tag_len] ^= 1 << (len % 8);
                valgrind::mark_secret(&mut bad_tag[..]);
                let mut verified = mac.verify(&nonce, &data, &bad_tag);
                calls += 1;
                verifications += 1;
                valgrind::declassify(&mut verified);
                if verified != Err(Error::Authentication) {
                    return Err(fail("a tampered tag was not rejected"));
                }
            }
        }
    }
    *opens += verifications;
    Ok(format!(
        "{who}: {calls} compute/verify calls, {verifications} of them verifications ({} data lengths x IV \
         lengths {:?} x tag lengths {:?} x compute, verify, verify-tampered): ok",
        GMAC_LENGTHS.len(),
        GCM_IV_LENS,
        GCM_TAG_LENS
    ))
}

/// The bytes of a GCM or GMAC tag computed from secrets, declassified, after
/// checking (under Memcheck) that exactly `tag_len` bytes of the `Tag` value
/// are secret: its tag bytes, and not its zero padding or its length.
///
/// The whole `Tag` is declassified *before* `as_bytes` is called, because
/// `as_bytes` bounds-checks the tag's public length field and rustc may load
/// that field together with the adjacent last tag byte and compare the 16-bit
/// word (`cmp $0x1100`, i.e. "length >= 17"). The outcome does not depend on
/// the tag byte, but Memcheck tracks definedness, not values, and would report
/// the harness's own `as_bytes` call (see the README).
fn declassify_tag(on_valgrind: bool, mut tag: Tag, tag_len: usize) -> Result<Vec<u8>, String> {
    if on_valgrind {
        let vbits = valgrind::undefined_bits_of(&tag)
            .ok_or("tag: Memcheck did not answer GET_VBITS; run with --tool=memcheck")?;
        let secret = vbits.iter().filter(|&&v| v != 0).count();
        if secret != tag_len {
            return Err(format!(
                "tag: {secret} of the {} bytes of the Tag value are secret after the secret run, expected \
                 {tag_len} (the tag bytes): the secrets did not reach the tag, or reached its length",
                vbits.len()
            ));
        }
    }
    valgrind::declassify(&mut tag);
    let bytes = tag.as_bytes().to_vec();
    if bytes.len() != tag_len {
        return Err(format!("tag: {} bytes, expected {tag_len}", bytes.len()));
    }
    Ok(bytes)
}

/// Marks `key` secret, then builds the GCM key from it (so the key schedule and
/// the hash key H = AES_K(0) are computed on secrets).
fn secret_key_gcm<G: GcmCipher>(mut key: Vec<u8>, tag_len: usize, backend: Backend) -> Result<G, String> {
    valgrind::mark_secret(&mut key[..]);
    G::with_backend(&key, tag_len, backend).map_err(|e| e.to_string())
}

/// One batch to check: its items' nonces, associated data and plaintexts.
struct Batch {
    nonces: Vec<[u8; 12]>,
    aads: Vec<Vec<u8>>,
    plaintexts: Vec<Vec<u8>>,
}

impl Batch {
    /// `n` items with lengths dealt from [`BATCH_LENGTHS`] and
    /// [`BATCH_AAD_LENS`] (starting at an offset that depends on `n`), and
    /// optionally one item of a given length.
    fn new(rng: &mut Rng, n: usize, shape: Shape) -> Self {
        // (AAD length, message length) of item i.
        let lens = |i: usize| match shape {
            Shape::Long(index, len) if index == i => (BATCH_AAD_LENS[(n + i) % BATCH_AAD_LENS.len()], len),
            Shape::Dealt | Shape::Long(..) => (
                BATCH_AAD_LENS[(n + i) % BATCH_AAD_LENS.len()],
                BATCH_LENGTHS[(3 * n + i) % BATCH_LENGTHS.len()],
            ),
            Shape::Short => {
                (SHORT_AAD_LENS[i % SHORT_AAD_LENS.len()], SHORT_LENGTHS[(n + i) % SHORT_LENGTHS.len()])
            }
            Shape::Equal(aad, len) => (aad, len),
        };
        Batch {
            nonces: (0..n).map(|_| rng.bytes()).collect(),
            aads: (0..n).map(|i| random_vec(rng, lens(i).0)).collect(),
            plaintexts: (0..n).map(|i| random_vec(rng, lens(i).1)).collect(),
        }
    }

    /// Items over `buffers` (each marked secret) with `tags` (marked secret too).
    fn items<'a>(&'a self, buffers: &'a mut [Vec<u8>], tags: Option<&[[u8; 16]]>) -> Vec<BatchItem<'a>> {
        buffers
            .iter_mut()
            .enumerate()
            .map(|(i, buffer)| {
                valgrind::mark_secret(&mut buffer[..]);
                let mut item = BatchItem::new(&self.nonces[i], &self.aads[i], buffer);
                if let Some(tags) = tags {
                    item.tag = tags[i];
                    valgrind::mark_secret(&mut item.tag);
                }
                item
            })
            .collect()
    }
}

/// Whether item `i` of an `n`-item batch gets a tampered tag in the second
/// decryption: every third item, shifted with `n`, and the middle one (so each
/// batch has at least one, and most have valid items too).
fn tampered(i: usize, n: usize) -> bool {
    (i + n) % 3 == 1 || i == n / 2
}

/// AES-GCM-SIV batches of 1 to 9 items (and one with a long item): one
/// `encrypt_batch` of secret plaintexts, one `decrypt_batch` of the secret
/// ciphertexts and tags, one with some tags tampered. The reference is the
/// one-message API (a separate code path) with nothing marked. Every opened
/// item counts as one decryption in `opens`.
fn check_batches<C: Cipher>(
    backend: Backend,
    rng: &mut Rng,
    on_valgrind: bool,
    opens: &mut usize,
) -> Result<String, String> {
    let who = format!("{} {} batches", C::NAME, backend.name());
    let (mut batches, mut items_opened) = (0usize, 0usize);
    let shapes = BATCH_SIZES.map(|n| (n, Shape::Dealt)).chain([
        (LONG_BATCH.0, Shape::Long(LONG_BATCH.1, LONG_BATCH.2)),
        (8, Shape::Short),
        (12, Shape::Short),
        (8, Shape::Equal(0, 16)),
        (12, Shape::Equal(21, 100)),
        // A whole group of sixteen (AES-256's group without VAES), and two
        // of eight with one item left (AES-128's).
        (16, Shape::Equal(13, 64)),
        (17, Shape::Equal(0, 128)),
    ]);
    for (n, shape) in shapes {
        let case = format!("{who}, {n} items, {shape:?}");
        let fail = |what: &str| format!("{case}: {what}");
        let key = random_vec(rng, C::KEY_LEN);
        let batch = Batch::new(rng, n, shape);

        // Reference, one message at a time, nothing marked.
        let reference = C::with_backend(&key, backend).map_err(|e| fail(&e.to_string()))?;
        let mut expected_ciphertexts = batch.plaintexts.clone();
        let mut expected_tags = Vec::with_capacity(n);
        for (i, ciphertext) in expected_ciphertexts.iter_mut().enumerate() {
            let tag = reference
                .seal(&batch.nonces[i], &batch.aads[i], ciphertext)
                .map_err(|e| fail(&e.to_string()))?;
            expected_tags.push(tag);
        }
        drop(reference);

        let mut key = key;
        valgrind::mark_secret(&mut key[..]);
        let cipher = C::with_backend(&key, backend).map_err(|e| fail(&e.to_string()))?;

        // Seal secret plaintexts.
        let mut buffers = batch.plaintexts.clone();
        let mut items = batch.items(&mut buffers, None);
        cipher.seal_batch(&mut items).map_err(|e| fail(&e.to_string()))?;
        for (i, item) in items.iter_mut().enumerate() {
            expect_secret(on_valgrind, "tag", &item.tag).map_err(|e| fail(&format!("item {i}: {e}")))?;
            expect_secret(on_valgrind, "ciphertext", item.buffer)
                .map_err(|e| fail(&format!("item {i}: {e}")))?;
            valgrind::declassify(&mut item.tag);
            valgrind::declassify(item.buffer);
            if item.tag != expected_tags[i] || *item.buffer != expected_ciphertexts[i][..] {
                return Err(fail(&format!("item {i}: batch seal output differs from the one-message seal")));
            }
        }
        drop(items);

        // Open secret ciphertexts and tags: all valid, then some tampered.
        for tamper in [false, true] {
            let mut tags = expected_tags.clone();
            for (i, tag) in tags.iter_mut().enumerate() {
                if tamper && tampered(i, n) {
                    tag[(i + n) % 16] ^= 1 << (i % 8);
                }
            }
            let mut buffers = expected_ciphertexts.clone();
            let mut items = batch.items(&mut buffers, Some(&tags));
            let mut results = vec![Ok(()); n];
            cipher.open_batch(&mut items, &mut results).map_err(|e| fail(&e.to_string()))?;
            items_opened += n;
            valgrind::declassify(&mut results[..]);
            for (i, (item, result)) in items.iter_mut().zip(&results).enumerate() {
                if tamper && tampered(i, n) {
                    valgrind::declassify(item.buffer);
                    if *result != Err(Error::Authentication) || *item.buffer != expected_ciphertexts[i][..] {
                        return Err(fail(&format!(
                            "item {i}: a tampered tag was not rejected with its ciphertext put back"
                        )));
                    }
                } else {
                    expect_secret(on_valgrind, "plaintext", item.buffer)
                        .map_err(|e| fail(&format!("item {i}: {e}")))?;
                    valgrind::declassify(item.buffer);
                    if *result != Ok(()) || *item.buffer != batch.plaintexts[i][..] {
                        return Err(fail(&format!(
                            "item {i}: open of a valid item failed or returned the wrong plaintext"
                        )));
                    }
                }
            }
        }
        batches += 1;
    }
    *opens += items_opened;
    Ok(format!(
        "{who}: {batches} batches ({}..={} items, lengths up to 256 bytes; {} items with item {} of {} \
         bytes; groups of 8 and 12 short items, mixed and equal lengths; 16 and 17 of equal lengths) x encrypt, decrypt, decrypt with tampered items; {items_opened} items opened: ok",
        BATCH_SIZES.start(),
        BATCH_SIZES.end(),
        LONG_BATCH.0,
        LONG_BATCH.1,
        LONG_BATCH.2
    ))
}

fn random_vec(rng: &mut Rng, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill(&mut v);
    v
}

/// Under Memcheck, checks that every byte of an output is (at least partly)
/// undefined, i.e. that the secrets really flowed into it. Without this a broken
/// client request would make the whole check pass vacuously.
fn expect_secret(on_valgrind: bool, what: &str, bytes: &[u8]) -> Result<(), String> {
    if !on_valgrind {
        return Ok(());
    }
    match valgrind::undefined_bits(bytes) {
        // Not Memcheck (another Valgrind tool): nothing is tracked.
        None => Err(format!("{what}: Memcheck did not answer GET_VBITS; run with --tool=memcheck")),
        Some(vbits) => match vbits.iter().position(|&v| v == 0) {
            Some(i) => Err(format!(
                "{what}: byte {i} is fully defined after the secret run, so the secrets did not reach it \
                 and the check would be vacuous"
            )),
            None => Ok(()),
        },
    }
}

/// `--self-test-leak`: branch on a secret and index memory with a secret, so
/// that Memcheck must report two errors (and Valgrind exit non-zero).
fn self_test(on_valgrind: bool) -> ExitCode {
    let mut rng = Rng::from_seed(0x6c65_616b);
    let public_tag: [u8; 16] = rng.bytes();
    let mut secret_tag = public_tag;
    secret_tag[15] ^= 1;
    valgrind::mark_secret(&mut secret_tag);

    println!("ctgrind self-test: early-exit comparison of a secret tag (secret-dependent branch)");
    let mut equal = leaky_tag_eq(&public_tag, &secret_tag);
    valgrind::declassify(&mut equal);

    println!("ctgrind self-test: table lookup indexed by a secret byte (secret-dependent address)");
    let table: [u8; 256] = std::array::from_fn(|i| (i as u8).wrapping_mul(167).wrapping_add(13));
    let table = std::hint::black_box(&table);
    let mut looked_up = table[usize::from(secret_tag[0])];
    valgrind::declassify(&mut looked_up);
    println!("ctgrind self-test: (results, declassified: equal = {equal}, lookup = {looked_up})");

    let errors = valgrind::count_errors();
    if !on_valgrind {
        println!("ctgrind self-test: not under Valgrind, nothing to detect; run it under Valgrind");
        ExitCode::SUCCESS
    } else if errors > 0 {
        println!(
            "ctgrind self-test: Memcheck reported {errors} error(s): the harness detects leaks. \
             Exiting 1, as a leaky implementation would."
        );
        ExitCode::FAILURE
    } else {
        println!("ctgrind self-test: FAILED: Memcheck reported nothing; the client requests are not working");
        ExitCode::SUCCESS
    }
}

/// Whether this executable's DWARF string table (`.debug_str`) contains every
/// one of `names`, a cheap proof that the gcmsiv code was built with (at least)
/// line tables, which describe inlined functions too.
fn debug_info_names(names: &[&[u8]]) -> Result<bool, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let data = std::fs::read(&exe).map_err(|e| e.to_string())?;
    let section = elf_section(&data, b".debug_str").ok_or("not a readable ELF64 little-endian file")?;
    Ok(section.is_some_and(|s| names.iter().all(|name| s.windows(name.len()).any(|w| w == *name))))
}

/// The contents of the named section of an ELF64 little-endian file: `None` if
/// the file cannot be parsed, `Some(None)` if there is no such (uncompressed)
/// section.
fn elf_section<'a>(data: &'a [u8], wanted: &[u8]) -> Option<Option<&'a [u8]>> {
    let bytes = |off: u64, len: u64| -> Option<&'a [u8]> {
        let start = usize::try_from(off).ok()?;
        data.get(start..start.checked_add(usize::try_from(len).ok()?)?)
    };
    let u16_at = |off: u64| bytes(off, 2).map(|b| u64::from(u16::from_le_bytes([b[0], b[1]])));
    let u32_at = |off: u64| bytes(off, 4).map(|b| u64::from(u32::from_le_bytes(b.try_into().unwrap())));
    let u64_at = |off: u64| bytes(off, 8).map(|b| u64::from_le_bytes(b.try_into().unwrap()));

    if bytes(0, 6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    let (shoff, shentsize, shnum, shstrndx) = (u64_at(0x28)?, u16_at(0x3a)?, u16_at(0x3c)?, u16_at(0x3e)?);
    let header = |i: u64| shoff.checked_add(i.checked_mul(shentsize)?);
    let names_hdr = header(shstrndx)?;
    let names = bytes(u64_at(names_hdr + 0x18)?, u64_at(names_hdr + 0x20)?)?;
    for i in 0..shnum {
        let h = header(i)?;
        let name_off = usize::try_from(u32_at(h)?).ok()?;
        let name = names.get(name_off..)?.split(|&b| b == 0).next()?;
        const SHF_COMPRESSED: u64 = 0x800;
        if name == wanted && u64_at(h + 8)? & SHF_COMPRESSED == 0 {
            return Some(Some(bytes(u64_at(h + 0x18)?, u64_at(h + 0x20)?)?));
        }
    }
    Some(None)
}

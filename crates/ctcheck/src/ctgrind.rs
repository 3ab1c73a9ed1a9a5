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
//! verify, and AES-128/256-GCM-SIV batches, on every backend the CPU has.
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

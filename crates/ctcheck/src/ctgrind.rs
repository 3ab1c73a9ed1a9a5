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
//! Secrets marked here: the key (before the cipher is constructed, so the key
//! schedule and every per-nonce record key are covered), the plaintext before
//! sealing, and the ciphertext and tag before opening. Outputs are declassified
//! before the harness compares them.
//!
//! The one expected report is `open_in_place`'s branch on the tag-check result
//! (public: it is the return value). It is suppressed by `ctgrind.supp` next to
//! this crate's manifest, matched only when `open_in_place` is the innermost
//! frame, which needs debug line tables; see the crate README. The run prints
//! how many decryptions it made, which must equal the number of suppressed
//! errors (`ctgrind.sh` checks it): one more secret-dependent branch in
//! `open_in_place` itself would show up there.

use crate::common::{Cipher, Rng, backends, leaky_tag_eq};
use crate::valgrind;
use gcmsiv::{Aes128GcmSiv, Aes256GcmSiv, Backend, Error};
use std::process::ExitCode;
use std::time::Instant;

/// Message lengths: empty, around one block, a few blocks, past the 8-block
/// (128-byte) stride wide backends use, and a long one.
const LENGTHS: [usize; 8] = [0, 1, 15, 16, 17, 64, 200, 1000];
/// Associated data lengths: none, and a length that is not a multiple of 16.
const AAD_LENS: [usize; 2] = [0, 21];

/// The name Memcheck's suppression matches, looked for in the debug info.
const TAG_CHECK_FUNCTION: &[u8] = b"open_in_place";

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

    match debug_info_names(TAG_CHECK_FUNCTION) {
        Ok(true) => println!("ctgrind: debug line tables present: inlined frames are visible to Valgrind"),
        Ok(false) | Err(_) if !on_valgrind => {
            println!("ctgrind: note: no debug line tables; they are required under Valgrind (see README)")
        }
        Ok(false) => {
            eprintln!(
                "ctgrind: this binary has no debug line tables naming `open_in_place`. Without them \
                 Valgrind cannot tell code inlined into `open_in_place` from `open_in_place` itself, so \
                 the tag-check suppression could hide a real leak in an inlined callee (or not match at \
                 all). Use `crates/ctcheck/ctgrind.sh`, or rebuild with \
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
            "ctgrind: decryptions: {opens}; expected suppressed errors: {opens} (the tag-check branch, \
             once per decryption; compare with \"suppressed: N from M\" in Valgrind's ERROR SUMMARY)"
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
            if opened != Err(Error::Authentication) || buffer.iter().any(|&b| b != 0) {
                return Err(fail("a tampered tag was not rejected with a zeroed buffer"));
            }
        }
    }
    Ok(format!(
        "{who}: {calls} seal/open calls ({} lengths x {} AAD lengths x seal, open, open-tampered): ok",
        LENGTHS.len(),
        AAD_LENS.len()
    ))
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

/// Whether this executable's DWARF string table (`.debug_str`) contains `name`,
/// a cheap proof that the gcmsiv code was built with (at least) line tables,
/// which describe inlined functions too.
fn debug_info_names(name: &[u8]) -> Result<bool, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let data = std::fs::read(&exe).map_err(|e| e.to_string())?;
    let section = elf_section(&data, b".debug_str").ok_or("not a readable ELF64 little-endian file")?;
    Ok(section.is_some_and(|s| s.windows(name.len()).any(|w| w == name)))
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

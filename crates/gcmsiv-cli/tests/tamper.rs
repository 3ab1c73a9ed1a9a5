//! Everything an attacker or a bad disk can do to a file is detected, reported with
//! the right message and exit status 1, and never releases unauthenticated plaintext.

mod common;

use std::fs;

use common::*;

/// 1 KiB chunks: multi-chunk files stay small.
const EXP: &str = "10";
const CHUNK: usize = 1024;

fn multi_chunk(scratch: &Scratch) -> (Vec<u8>, Vec<u8>) {
    let plain = data(5 * CHUNK + 100);
    let sealed = scratch.encrypt(&plain, scratch.secret(), &["--chunk-size-exp", EXP]);
    (plain, sealed)
}

/// Decrypts `sealed` to stdout; asserts exit 1, `message`, and that exactly the
/// first `good` bytes of `plain` were released.
#[track_caller]
fn assert_rejected(scratch: &Scratch, sealed: &[u8], plain: &[u8], good: usize, message: &str) {
    let out = scratch.decrypt_stdout(sealed, scratch.secret());
    assert_fails(&out, 1, message);
    assert!(out.stdout == plain[..good], "released {} bytes, expected the first {good}", out.stdout.len());
}

#[test]
fn wrong_key_and_wrong_passphrase_are_reported_as_such() {
    let scratch = Scratch::new();
    let other = Scratch::new();
    let (_, sealed) = multi_chunk(&scratch);
    let out = other.decrypt_stdout(&sealed, other.secret());
    assert_fails(&out, 1, "wrong key or corrupted header");
    assert!(out.stdout.is_empty());

    let sealed = scratch.encrypt(b"hello", Secret::Passphrase("right"), &[]);
    let out = scratch.decrypt_stdout(&sealed, Secret::Passphrase("wrong"));
    assert_fails(&out, 1, "wrong passphrase or corrupted header");
    let out = scratch.decrypt_stdout(&sealed, scratch.secret());
    assert_fails(&out, 1, "encrypted with a passphrase: decrypt it with -p");
    let sealed = scratch.encrypt(b"hello", scratch.secret(), &[]);
    let out = scratch.decrypt_stdout(&sealed, Secret::Passphrase("right"));
    assert_fails(&out, 1, "encrypted with a key file: decrypt it with -k");
}

#[test]
fn every_single_bit_flip_in_a_small_file_is_rejected() {
    let scratch = Scratch::new();
    let plain = b"a small secrets file: API_TOKEN=t0ps3cret\n";
    let sealed = scratch.encrypt(plain, scratch.secret(), &[]);
    assert_eq!(sealed.len(), HEADER_LEN + plain.len() + CHUNK_OVERHEAD);
    let flips: Vec<(usize, u8)> = (0..sealed.len()).flat_map(|i| (0..8).map(move |b| (i, b))).collect();
    // Under emulation one flip in nine: every bit position, eight bytes in nine.
    let flips = emulation::thin("single bit flips", flips, 9, |_| false);
    // Two workers: the machine has two cores, and each run is a process start.
    std::thread::scope(|s| {
        for share in flips.chunks(flips.len().div_ceil(2)) {
            let (scratch, sealed) = (&scratch, &sealed);
            s.spawn(move || {
                for &(byte, bit) in share {
                    let mut bad = sealed.clone();
                    bad[byte] ^= 1 << bit;
                    let out = scratch.decrypt_stdout(&bad, scratch.secret());
                    assert_eq!(
                        out.status.code(),
                        Some(1),
                        "flip of bit {bit} of byte {byte}: {}",
                        stderr(&out)
                    );
                    assert!(out.stdout.is_empty(), "flip of bit {bit} of byte {byte} released plaintext");
                }
            });
        }
    });
}

#[test]
fn bit_flips_in_the_framing_of_a_multi_chunk_file_are_rejected() {
    let scratch = Scratch::new();
    let (plain, sealed) = multi_chunk(&scratch);
    let stride = CHUNK + CHUNK_OVERHEAD;
    for chunk in 0..6 {
        let start = HEADER_LEN + chunk * stride;
        let len = if chunk < 5 { stride } else { 100 + CHUNK_OVERHEAD };
        // The length word, the first and last ciphertext bytes, and the tag's last byte.
        let positions =
            [start, start + 1, start + 2, start + 3, start + 4, start + len - 17, start + len - 1];
        for byte in positions {
            for bit in [0, 7] {
                let mut bad = sealed.clone();
                bad[byte] ^= 1 << bit;
                let out = scratch.decrypt_stdout(&bad, scratch.secret());
                assert_eq!(out.status.code(), Some(1), "chunk {chunk}, byte {byte}, bit {bit}");
                assert!(
                    out.stdout == plain[..chunk * CHUNK],
                    "chunk {chunk}: only earlier chunks are released"
                );
            }
        }
    }
}

#[test]
fn truncation_at_every_chunk_boundary_and_inside_chunks() {
    let scratch = Scratch::new();
    let (plain, sealed) = multi_chunk(&scratch);
    let stride = CHUNK + CHUNK_OVERHEAD;
    for chunk in 0..6 {
        let start = HEADER_LEN + chunk * stride;
        // At the boundary, inside the length word, inside the body, one byte short.
        let next = (start + stride).min(sealed.len());
        for cut in [start, start + 2, start + 4, (start + next) / 2, next - 1] {
            assert_rejected(&scratch, &sealed[..cut], &plain, chunk * CHUNK, "file is truncated");
        }
    }
    // Under emulation every fourth cut of the header, and its first bytes (the magic).
    for cut in emulation::thin("cuts in the header", (0..HEADER_LEN).collect(), 4, |&cut| cut < 8) {
        let message = if cut < 6 { "not a gcmsiv file" } else { "file is truncated (incomplete header)" };
        assert_rejected(&scratch, &sealed[..cut], &plain, 0, message);
    }
}

#[test]
fn chunks_swapped_duplicated_or_dropped() {
    let scratch = Scratch::new();
    let (plain, sealed) = multi_chunk(&scratch);
    let (header, chunks) = split_chunks(&sealed);
    assert_eq!(chunks.len(), 6);
    let mut swapped = chunks.clone();
    swapped.swap(1, 2);
    assert_rejected(
        &scratch,
        &join_chunks(&header, &swapped),
        &plain,
        CHUNK,
        "chunk 1 failed authentication",
    );
    let mut duplicated = chunks.clone();
    duplicated.insert(3, chunks[2].clone());
    assert_rejected(
        &scratch,
        &join_chunks(&header, &duplicated),
        &plain,
        3 * CHUNK,
        "chunk 3 failed authentication",
    );
    let mut dropped = chunks.clone();
    dropped.remove(2);
    assert_rejected(
        &scratch,
        &join_chunks(&header, &dropped),
        &plain,
        2 * CHUNK,
        "chunk 2 failed authentication",
    );
    let mut dropped_final = chunks.clone();
    dropped_final.pop();
    assert_rejected(&scratch, &join_chunks(&header, &dropped_final), &plain, 5 * CHUNK, "file is truncated");
    let mut final_early = chunks.clone();
    final_early.swap(4, 5);
    assert_rejected(
        &scratch,
        &join_chunks(&header, &final_early),
        &plain,
        4 * CHUNK,
        "chunk 4 failed authentication",
    );

    // A chunk from another file under the same key, at the same position.
    let (_, other) = split_chunks(&multi_chunk(&scratch).1);
    let mut spliced = chunks.clone();
    spliced[1] = other[1].clone();
    assert_rejected(
        &scratch,
        &join_chunks(&header, &spliced),
        &plain,
        CHUNK,
        "chunk 1 failed authentication",
    );
    // The other file's header with this file's chunks.
    let (other_header, _) = split_chunks(&multi_chunk(&scratch).1);
    assert_rejected(
        &scratch,
        &join_chunks(&other_header, &chunks),
        &plain,
        0,
        "chunk 0 failed authentication",
    );
}

#[test]
fn trailing_data_after_the_final_chunk() {
    let scratch = Scratch::new();
    let (plain, sealed) = multi_chunk(&scratch);
    let (_, chunks) = split_chunks(&sealed);
    let garbage: [&[u8]; 4] = [b"\0", b"x", &[0xa5; 5000], &chunks[5]];
    for extra in garbage {
        let mut bad = sealed.clone();
        bad.extend_from_slice(extra);
        // The final chunk is authenticated and released; the trailing data is then an error.
        assert_rejected(&scratch, &bad, &plain, plain.len(), "trailing data after the final chunk");
    }
    let empty = scratch.encrypt(b"", scratch.secret(), &[]);
    let mut bad = empty.clone();
    bad.push(0);
    assert_rejected(&scratch, &bad, b"", 0, "trailing data after the final chunk");
}

/// Armor without its END line, from standard input to standard output: the
/// final chunk authenticated, but the armor around it did not end, so none of
/// it is released; only the whole chunks before it are.
#[test]
fn armor_without_its_end_line_releases_nothing_of_the_final_chunk() {
    let scratch = Scratch::new();
    for len in [100, 5 * CHUNK + 100] {
        let plain = data(len);
        let armored = scratch.encrypt(&plain, scratch.secret(), &["--chunk-size-exp", EXP, "--armor"]);
        let text = std::str::from_utf8(&armored).unwrap();
        let last_line = text.trim_end().rfind('\n').unwrap() + 1;
        assert!(text[last_line..].starts_with("-----END"));
        let before_final = (len - 1) / CHUNK * CHUNK;
        assert_rejected(&scratch, &armored[..last_line], &plain, before_final, "malformed armor");
        let spoiled = [&armored[..], b"more\n"].concat();
        assert_rejected(&scratch, &spoiled, &plain, before_final, "malformed armor");
    }
}

#[test]
fn non_gcmsiv_inputs_and_unknown_versions() {
    let scratch = Scratch::new();
    for junk in [&b""[..], b"hello world\n", b"GCMSI", &[0u8; 200], &data(5000)] {
        assert_rejected(&scratch, junk, b"", 0, "not a gcmsiv file");
    }
    let mut future = scratch.encrypt(b"hello", scratch.secret(), &[]);
    future[6] = 3;
    assert_rejected(&scratch, &future, b"", 0, "unsupported format version 3");
    future[7] = 99;
    assert_rejected(&scratch, &future, b"", 0, "unsupported format version 3");

    let mut hostile = scratch.encrypt(b"hello", Secret::Passphrase("pw"), &[]);
    hostile[10..14].copy_from_slice(&u32::MAX.to_be_bytes());
    let out = scratch.decrypt_stdout(&hostile, Secret::Passphrase("pw"));
    assert_fails(&out, 1, "over the limits");
}

#[test]
fn failed_decryption_to_a_file_leaves_nothing() {
    let scratch = Scratch::new();
    let (_, sealed) = multi_chunk(&scratch);
    let bad = scratch.write("bad.gcmsiv", &sealed[..sealed.len() - 1]);
    let before = scratch.listing();
    let mut cmd = gcmsiv();
    cmd.args(["decrypt", "-k"]).arg(&scratch.key).arg("-o").arg(scratch.path("out.bin")).arg(&bad);
    assert_fails(&run(cmd), 1, "file is truncated");
    assert_eq!(scratch.listing(), before, "no output and no temporary file");

    // A pre-existing output survives a failed --force decryption.
    fs::write(scratch.path("out.bin"), b"precious").unwrap();
    let mut cmd = gcmsiv();
    cmd.args(["decrypt", "--force", "-k"]).arg(&scratch.key).arg("-o").arg(scratch.path("out.bin")).arg(&bad);
    assert_fails(&run(cmd), 1, "file is truncated");
    assert_eq!(fs::read(scratch.path("out.bin")).unwrap(), b"precious");
}

//! One message on all cores gives exactly the one-core result, for any split,
//! on every target: natively, under qemu for the other architectures
//! (`scripts/test-cross.sh`) and, for the small cases, under Miri
//! (`scripts/miri.sh`).
//!
//! A case costs tens of times more under an emulator, so where
//! `GCMSIV_EMULATED=1` the tests that loop take fewer lengths and calls,
//! enough for each to finish within a minute under qemu.
#![cfg(feature = "parallel")]

mod common;

use common::{backends, emulated, pattern};
use gcmsiv::{Aes128GcmSiv, Aes256GcmSiv, Error};

fn check_lengths(threads: usize, lengths: &[usize]) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    for backend in backends() {
        let one = Aes256GcmSiv::with_backend(&[9; 32], backend).unwrap().with_parallel_threshold(None);
        let all = one.clone().with_parallel_threshold(Some(0));
        let one128 = Aes128GcmSiv::with_backend(&[8; 16], backend).unwrap().with_parallel_threshold(None);
        let all128 = one128.clone().with_parallel_threshold(Some(0));
        for &len in lengths {
            let msg = pattern(len, 1);
            for aad in [&b""[..], b"header", &pattern(100, 3)] {
                let expected = one.encrypt(&[1; 12], aad, &msg).unwrap();
                let sealed = pool.install(|| all.encrypt(&[1; 12], aad, &msg).unwrap());
                assert_eq!(sealed, expected, "{backend:?} {threads} threads, len {len}");
                assert_eq!(pool.install(|| all.decrypt(&[1; 12], aad, &sealed)).unwrap(), msg);
                let expected = one128.encrypt(&[2; 12], aad, &msg).unwrap();
                assert_eq!(pool.install(|| all128.encrypt(&[2; 12], aad, &msg).unwrap()), expected);
                let mut bad = expected.clone();
                bad[len / 2] ^= 1;
                let tampered = bad.clone();
                let (ct, tag) = bad.split_at_mut(len);
                let tag: [u8; 16] = (&*tag).try_into().unwrap();
                let r = pool.install(|| all128.decrypt_in_place_detached(&[2; 12], aad, ct, &tag));
                assert_eq!(r, Err(Error::Authentication));
                assert_eq!(ct, &tampered[..len], "the ciphertext again");
            }
        }
    }
}

#[test]
fn any_split_matches_one_core() {
    let mut lengths =
        vec![0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 100, 255, 256, 257, 4095, 4096, 4097, 65_551];
    // The longest take most of the time; under emulation 65,551 bytes (9 to 41
    // pieces, the last not whole blocks) stands for them.
    if !emulated() {
        lengths.extend([40_000, 100_003, 300_007]);
    }
    for threads in [1, 2, 3, 5] {
        check_lengths(threads, &lengths);
    }
}

/// Seals `len` bytes in place with `cipher` as issue 48's report did
/// (`encrypt_in_place_detached`, nonce of zeroes, no AAD) from each of
/// `pools` (`None`: from this thread, outside any pool, as a program's main
/// thread calls), compares with the same key on one core and opens it again;
/// with `forge`, a forged ciphertext must fail and be put back. Big buffers
/// are compared with `assert!`, which does not print them.
fn seal_and_open_in_place(
    cipher: &Aes128GcmSiv,
    len: usize,
    pools: &[Option<&rayon::ThreadPool>],
    forge: bool,
) {
    let nonce = [0; 12];
    let msg = pattern(len, len as u8);
    let mut expected = msg.clone();
    let one = cipher.clone().with_parallel_threshold(None);
    let expected_tag = one.encrypt_in_place_detached(&nonce, b"", &mut expected).unwrap();
    for pool in pools {
        let install = |f: &mut (dyn FnMut() + Send)| match pool {
            Some(pool) => pool.install(f),
            None => f(),
        };
        let threads = pool.map_or(rayon::current_num_threads(), |p| p.current_num_threads());
        let mut sealed = msg.clone();
        let mut tag = [0; 16];
        install(&mut || tag = cipher.encrypt_in_place_detached(&nonce, b"", &mut sealed).unwrap());
        assert!(
            tag == expected_tag && sealed == expected,
            "{len} bytes, {threads} threads: not the one-core ciphertext"
        );
        let mut opened = sealed.clone();
        install(&mut || cipher.decrypt_in_place_detached(&nonce, b"", &mut opened, &tag).unwrap());
        assert!(opened == msg, "{len} bytes, {threads} threads: not the plaintext again");
        if forge && len > 0 {
            let mut forged = sealed;
            forged[len / 2] ^= 1;
            let copy = forged.clone();
            let mut r = Ok(());
            install(&mut || r = cipher.decrypt_in_place_detached(&nonce, b"", &mut forged, &tag));
            assert_eq!(r, Err(Error::Authentication), "{len} bytes, {threads} threads, forged");
            assert!(forged == copy, "{len} bytes, {threads} threads, forged: not the ciphertext again");
        }
    }
}

/// Messages one byte below, at, one and 13 bytes above a threshold the
/// key sets (one core below it, all cores from it), from a pool of one
/// thread (no helper: the caller alone, as under `RAYON_NUM_THREADS=1`) and
/// of two. The thresholds are small enough for emulators and Miri: 64
/// bytes split into four pieces, 4 KiB and 64 KiB into eight or sixteen
/// (and one more, not whole blocks, above them).
#[test]
fn messages_around_a_small_threshold() {
    let thresholds: &[usize] = if cfg!(miri) { &[64] } else { &[64, 4096, 65_536] };
    // Miri, where each call takes seconds, takes only sizes on the
    // all-cores path, the first and one with a piece not whole blocks.
    let lengths = |t: usize| if cfg!(miri) { vec![t, t + 13] } else { vec![t - 1, t, t + 1, t + 13] };
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for backend in backends() {
        for &threshold in thresholds {
            let cipher = Aes128GcmSiv::with_backend(&[1; 16], backend)
                .unwrap()
                .with_parallel_threshold(Some(threshold));
            for &len in &lengths(threshold) {
                seal_and_open_in_place(&cipher, len, &[Some(&one), Some(&two)], true);
            }
        }
    }
}

/// Issue 48's case on every target: with the default threshold, messages
/// one byte below it, at it and 13 bytes above, called from outside the
/// pool (rayon's global pool, one thread per core, does the work) and from
/// a pool of one thread. Under emulation, where a 4 MiB pass takes
/// seconds, only the size, without the forgery (the small
/// threshold's test forges).
#[test]
fn messages_around_the_default_threshold() {
    let threshold = Aes128GcmSiv::DEFAULT_PARALLEL_THRESHOLD;
    let lengths =
        if emulated() { vec![threshold + 13] } else { vec![threshold - 1, threshold, threshold + 13] };
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    for backend in backends() {
        let cipher = Aes128GcmSiv::with_backend(&[1; 16], backend).unwrap();
        for &len in &lengths {
            seal_and_open_in_place(&cipher, len, &[None, Some(&one)], !emulated());
        }
    }
}

/// The caller never waits for a helper that has not started: with every
/// thread of the global pool blocked, a call from outside the pool still
/// finishes (alone), and the helpers that start late find nothing to do.
/// (A plain rayon scope would wait here until the pool is free.)
#[test]
fn finishes_when_no_helper_can_start() {
    use std::sync::mpsc;
    use std::time::Duration;
    let threads = rayon::current_num_threads();
    let (release, blocked) = mpsc::channel::<()>();
    let blocked = std::sync::Arc::new(std::sync::Mutex::new(blocked));
    let (started, wait_started) = mpsc::channel();
    for _ in 0..threads {
        let (started, blocked) = (started.clone(), blocked.clone());
        rayon::spawn(move || {
            started.send(()).unwrap();
            let _ = blocked.lock().unwrap().recv();
        });
    }
    for _ in 0..threads {
        wait_started.recv().unwrap();
    }
    let msg = pattern(300_000, 4);
    let m = msg.clone();
    let (done, wait_done) = mpsc::channel();
    std::thread::spawn(move || {
        let all = Aes128GcmSiv::new(&[5; 16]).with_parallel_threshold(Some(0));
        let sealed = all.encrypt(&[6; 12], b"x", &m).unwrap();
        let opened = all.decrypt(&[6; 12], b"x", &sealed).unwrap();
        done.send((sealed, opened)).unwrap();
    });
    let outcome = wait_done.recv_timeout(Duration::from_secs(60));
    for _ in 0..threads {
        release.send(()).unwrap();
    }
    let (sealed, opened) = outcome.expect("the call waited for a helper that could not start");
    let expected =
        Aes128GcmSiv::new(&[5; 16]).with_parallel_threshold(None).encrypt(&[6; 12], b"x", &msg).unwrap();
    assert_eq!(sealed, expected);
    assert_eq!(opened, msg);
}

/// Helpers that linger after a call join the next one, whichever thread
/// makes it: several threads outside the pool and jobs inside it call at
/// once and one after another, with pauses shorter and longer than the
/// linger time, and every result is the one-core result.
#[test]
fn concurrent_callers_share_lingering_helpers() {
    use rayon::prelude::*;
    let one = Aes128GcmSiv::new(&[6; 16]).with_parallel_threshold(None);
    let all = one.clone().with_parallel_threshold(Some(0));
    let check = |caller: usize, i: usize| {
        let len = 1000 + 7919 * ((caller * 31 + i) % 40);
        let msg = pattern(len, (caller + i) as u8);
        let nonce = [(caller * 16 + i) as u8; 12];
        let expected = one.encrypt(&nonce, b"aad", &msg).unwrap();
        assert_eq!(all.encrypt(&nonce, b"aad", &msg).unwrap(), expected, "caller {caller}, call {i}");
        assert_eq!(all.decrypt(&nonce, b"aad", &expected).unwrap(), msg, "caller {caller}, call {i}");
        if i % 5 == 4 {
            std::thread::sleep(std::time::Duration::from_micros(300 * (i as u64 % 7)));
        }
    };
    // Under emulation fewer calls, still with pauses shorter (i = 9: 600
    // microseconds) and longer (i = 4: 1.2 ms) than the linger time.
    let calls = if emulated() { 10 } else { 30 };
    std::thread::scope(|s| {
        for caller in 0..3 {
            s.spawn(move || (0..calls).for_each(|i| check(caller, i)));
        }
        s.spawn(|| (0..2 * calls).into_par_iter().for_each(|i| check(3 + i % 2, i)));
    });
}

//! One message on all cores gives exactly the one-core result, for any split.
#![cfg(feature = "parallel")]

mod common;

use common::{backends, pattern};
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
    let lengths = [
        0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 100, 255, 256, 257, 4095, 4096, 4097, 40_000, 65_551, 100_003,
        300_007,
    ];
    for threads in [1, 2, 3, 5] {
        check_lengths(threads, &lengths);
    }
}

#[test]
fn large_messages_use_the_default_threshold() {
    let c = Aes128GcmSiv::new(&[4; 16]);
    let msg = pattern(Aes128GcmSiv::DEFAULT_PARALLEL_THRESHOLD + 13, 2);
    let sealed = c.encrypt(&[3; 12], b"a", &msg).unwrap();
    let sequential = c.clone().with_parallel_threshold(None).encrypt(&[3; 12], b"a", &msg).unwrap();
    assert_eq!(sealed, sequential);
    assert_eq!(c.decrypt(&[3; 12], b"a", &sealed).unwrap(), msg);
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
    std::thread::scope(|s| {
        for caller in 0..3 {
            s.spawn(move || (0..30).for_each(|i| check(caller, i)));
        }
        s.spawn(|| (0..60).into_par_iter().for_each(|i| check(3 + i % 2, i)));
    });
}

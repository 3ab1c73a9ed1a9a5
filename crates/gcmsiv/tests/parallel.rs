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
                let (ct, tag) = bad.split_at_mut(len);
                let tag: [u8; 16] = (&*tag).try_into().unwrap();
                let r = pool.install(|| all128.decrypt_in_place_detached(&[2; 12], aad, ct, &tag));
                assert_eq!(r, Err(Error::Authentication));
                assert!(ct.iter().all(|&b| b == 0), "wiped");
            }
        }
    }
}

#[test]
fn any_split_matches_one_core() {
    let lengths = [0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 100, 255, 256, 257, 4095, 4096, 4097, 65_551];
    for threads in [1, 2, 3, 5] {
        check_lengths(threads, &lengths);
    }
}

#[test]
fn large_messages_use_the_default_threshold() {
    let c = Aes128GcmSiv::new(&[4; 16]);
    let msg = pattern((1 << 20) + 13, 2);
    let sealed = c.encrypt(&[3; 12], b"a", &msg).unwrap();
    let sequential = c.clone().with_parallel_threshold(None).encrypt(&[3; 12], b"a", &msg).unwrap();
    assert_eq!(sealed, sequential);
    assert_eq!(c.decrypt(&[3; 12], b"a", &sealed).unwrap(), msg);
}

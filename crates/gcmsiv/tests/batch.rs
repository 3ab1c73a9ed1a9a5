//! Batches give exactly what one call per message gives, on every backend.

mod common;

use common::{backends, pattern};
use gcmsiv::{Aes128GcmSiv, Aes256GcmSiv, Backend, BatchItem, Error};
use proptest::prelude::*;

/// One cipher of either key size, for batch tests.
#[allow(clippy::large_enum_variant)]
enum Cipher {
    A128(Aes128GcmSiv),
    A256(Aes256GcmSiv),
}

impl Cipher {
    fn new(key: &[u8], backend: Backend) -> Self {
        match key.len() {
            16 => Cipher::A128(Aes128GcmSiv::with_backend(key.try_into().unwrap(), backend).unwrap()),
            _ => Cipher::A256(Aes256GcmSiv::with_backend(key.try_into().unwrap(), backend).unwrap()),
        }
    }
    fn seal(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        match self {
            Cipher::A128(c) => c.encrypt_in_place_detached(nonce, aad, buf).unwrap(),
            Cipher::A256(c) => c.encrypt_in_place_detached(nonce, aad, buf).unwrap(),
        }
    }
    fn seal_batch(&self, items: &mut [BatchItem<'_>]) -> Result<(), Error> {
        match self {
            Cipher::A128(c) => c.encrypt_batch(items),
            Cipher::A256(c) => c.encrypt_batch(items),
        }
    }
    fn open_batch(
        &self,
        items: &mut [BatchItem<'_>],
        results: &mut [Result<(), Error>],
    ) -> Result<(), Error> {
        match self {
            Cipher::A128(c) => c.decrypt_batch(items, results),
            Cipher::A256(c) => c.decrypt_batch(items, results),
        }
    }
}

/// Seals `lens.len()` messages in one batch and one by one, and checks they
/// agree; then opens the batch with the items in `tamper` corrupted.
fn check(key: &[u8], lens: &[(usize, usize)], tamper: &[usize]) {
    for backend in backends() {
        let c = Cipher::new(key, backend);
        let nonces: Vec<[u8; 12]> =
            (0..lens.len()).map(|i| pattern(12, i as u8).try_into().unwrap()).collect();
        let aads: Vec<Vec<u8>> =
            lens.iter().enumerate().map(|(i, &(a, _))| pattern(a, 100u8.wrapping_add(i as u8))).collect();
        let plain: Vec<Vec<u8>> =
            lens.iter().enumerate().map(|(i, &(_, m))| pattern(m, 200u8.wrapping_add(i as u8))).collect();
        let expected: Vec<(Vec<u8>, [u8; 16])> = (0..lens.len())
            .map(|i| {
                let mut b = plain[i].clone();
                let t = c.seal(&nonces[i], &aads[i], &mut b);
                (b, t)
            })
            .collect();
        let mut bufs = plain.clone();
        let mut items: Vec<BatchItem> = (0..lens.len())
            .zip(bufs.iter_mut())
            .map(|(i, b)| BatchItem::new(&nonces[i], &aads[i], b))
            .collect();
        c.seal_batch(&mut items).unwrap();
        for (i, it) in items.iter().enumerate() {
            assert_eq!((it.buffer.to_vec(), it.tag), expected[i], "{backend:?} item {i} of {lens:?}");
        }
        for &t in tamper {
            items[t].tag[t % 16] ^= 1;
        }
        let mut results = vec![Ok(()); items.len()];
        c.open_batch(&mut items, &mut results).unwrap();
        for (i, it) in items.iter().enumerate() {
            if tamper.contains(&i) {
                assert_eq!(results[i], Err(Error::Authentication));
                assert_eq!(it.buffer, expected[i].0.as_slice(), "failed item {i}: its ciphertext again");
            } else {
                assert_eq!(results[i], Ok(()), "{backend:?} item {i}");
                assert_eq!(it.buffer, plain[i].as_slice());
            }
        }
    }
}

#[test]
fn batches_match_single_calls() {
    let short: Vec<(usize, usize)> =
        (0..13).map(|i| (i % 3 * 7, [0, 1, 15, 16, 17, 31, 32, 33, 64, 100, 200, 256, 255][i])).collect();
    check(&[1; 16], &short, &[]);
    check(&[2; 32], &short, &[0, 5, 12]);
    // Long items mixed in take the one-message path inside the batch.
    check(&[3; 16], &[(0, 16), (300, 16), (0, 257), (16, 5000), (1, 1), (0, 0)], &[3]);
    check(&[4; 32], &[], &[]);
}

/// Batches of equal-length records: the group kernels' common case, where
/// every lane takes the same POLYVAL steps. Twenty-eight items: a group of
/// sixteen (where the backend takes them), one of eight and one of four.
#[test]
fn equal_length_batches_match_single_calls() {
    for (key, aad_len) in
        [(&[5u8; 16][..], 0), (&[6; 32], 0), (&[7; 16], 13), (&[8; 32], 16), (&[9; 16], 128)]
    {
        for m in 0..=129 {
            check(key, &[(aad_len, m); 28], &[1, 9, 20, 27]);
        }
    }
}

/// Batches past the one-message fused kernel (128 bytes), up to and past the
/// longest a group kernel takes (256 bytes with one lane per register, 512
/// with lanes in pairs): lengths across every block boundary there, AAD
/// that alone crosses the limits, groups of equal lengths and of mixed ones
/// (a group with one lane too long goes one message at a time).
#[test]
fn longer_batches_match_single_calls() {
    let lens = (130..=520).step_by(13).chain([144, 255, 256, 257, 271, 511, 512, 513]);
    for (i, m) in lens.enumerate() {
        let key: &[u8] = if i % 2 == 0 { &[10; 16] } else { &[11; 32] };
        check(key, &[(i % 3 * 5, m); 20], &[2, 17]);
    }
    for aad in [200, 255, 256, 257, 511, 512, 513] {
        check(&[12; 16], &[(aad, 40); 16], &[0]);
        check(&[13; 32], &[(aad, 300); 8], &[7]);
    }
    let mixed: Vec<(usize, usize)> =
        (0..40).map(|i| (i % 4 * 9, [16, 300, 129, 256, 257, 512, 513, 1, 64, 400][i % 10])).collect();
    check(&[14; 16], &mixed, &[3, 4, 5, 6, 39]);
    check(&[15; 32], &mixed[..24], &[0, 23]);
    let ragged: Vec<(usize, usize)> = (0..32).map(|i| (0, 16 * i + i % 5)).collect();
    check(&[16; 16], &ragged, &[31]);
}

/// Batches that mix short records with longer ones of differing lengths, so
/// that most groups are turned down and split into quads and single calls,
/// at counts that leave every kind of remainder; tampered items among them
/// fail alone.
#[test]
fn mixed_short_and_long_items_match_single_calls() {
    for (n, key) in [(75usize, &[17u8; 16][..]), (75, &[18; 32]), (89, &[19; 16]), (89, &[20; 32])] {
        let lens: Vec<(usize, usize)> =
            (0..n).map(|i| if i % 2 == 0 { (i % 3, i % 41) } else { (i % 5, 150 + 7 * i) }).collect();
        let tamper: Vec<usize> = [0, 2, 31, 33, 62, 70, 88].into_iter().filter(|&t| t < n).collect();
        check(key, &lens, &tamper);
    }
    // Every item short but with ragged lengths: groups of unequal lanes.
    let all_short: Vec<(usize, usize)> = (0..53).map(|i| (i % 7 * 20, i * 2 % 129)).collect();
    check(&[21; 16], &all_short, &[5, 52]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn random_batches(
        key in prop_oneof![prop::collection::vec(any::<u8>(), 16), prop::collection::vec(any::<u8>(), 32)],
        lens in prop::collection::vec((0usize..80, 0usize..300), 0..19),
        tamper in prop::collection::vec(0usize..19, 0..4),
    ) {
        let mut tamper: Vec<usize> = tamper.into_iter().filter(|&t| t < lens.len()).collect();
        tamper.sort_unstable();
        tamper.dedup();
        check(&key, &lens, &tamper);
    }
}

#[test]
fn misuse_is_reported_before_any_work() {
    let c = Aes128GcmSiv::new(&[0; 16]);
    let mut a = [1u8; 4];
    let mut b = [2u8; 4];
    let mut items = [BatchItem::new(&[0; 12], b"", &mut a), BatchItem::new(&[1; 12], b"", &mut b)];
    let mut results = [Ok(())];
    assert_eq!(
        c.decrypt_batch(&mut items, &mut results),
        Err(Error::BufferTooSmall { needed: 2, actual: 1 })
    );
    assert_eq!(items[0].buffer, &[1u8; 4], "nothing touched");
    assert_eq!(results, [Err(Error::Authentication)], "a refused call leaves no result reading as authentic");
}

/// `BatchItem`'s `Debug` shows lengths, never the buffer, nonce or tag.
#[test]
fn batch_item_debug_shows_no_contents() {
    let mut secret = *b"secret plaintext";
    let mut item = BatchItem::new(&[0xAB; 12], b"header", &mut secret);
    item.tag = [0xCD; 16];
    let shown = format!("{item:?}");
    assert!(shown.contains("16"), "{shown}");
    for leak in ["115", "secret", "171", "205", "AB", "CD", "ab", "cd"] {
        assert!(!shown.contains(leak), "{shown} shows {leak}");
    }
}

/// The fused short-message kernels (one message, and a batch's groups of
/// four) against the portable backend, which runs the mode step by step: every
/// message length up to 129 bytes with AAD lengths around every block boundary
/// up to 129, both key sizes, every backend, and
/// for each a tampered copy that must be rejected with its ciphertext put back.
#[test]
fn short_messages_match_the_step_by_step_mode_at_every_length() {
    for key in [pattern(16, 41), pattern(32, 42)] {
        let reference = Cipher::new(&key, Backend::Portable);
        for backend in backends() {
            let c = Cipher::new(&key, backend);
            for aad_len in (0..=17usize).chain([31, 32, 33, 63, 64, 65, 127, 128, 129]) {
                let lens: Vec<usize> = (0..=129).collect();
                let nonces: Vec<[u8; 12]> =
                    lens.iter().map(|&m| pattern(12, (aad_len * 7 + m) as u8).try_into().unwrap()).collect();
                let aad = pattern(aad_len, aad_len as u8);
                let plain: Vec<Vec<u8>> = lens.iter().map(|&m| pattern(m, m as u8 ^ 0x5a)).collect();
                let expected: Vec<(Vec<u8>, [u8; 16])> = lens
                    .iter()
                    .map(|&m| {
                        let mut b = plain[m].clone();
                        let t = reference.seal(&nonces[m], &aad, &mut b);
                        (b, t)
                    })
                    .collect();
                for &m in &lens {
                    let mut b = plain[m].clone();
                    let t = c.seal(&nonces[m], &aad, &mut b);
                    assert_eq!((&b, t), (&expected[m].0, expected[m].1), "{backend:?} aad {aad_len} msg {m}");
                }
                // In order, groups of eight hold eight consecutive lengths
                // (shorter lanes padded); rotated by 124, the first group
                // mixes fused-size lanes with longer ones and splits in two.
                for shift in [0, 124] {
                    let order: Vec<usize> = (0..lens.len()).map(|i| (i + shift) % lens.len()).collect();
                    let mut bufs: Vec<Vec<u8>> = order.iter().map(|&m| plain[m].clone()).collect();
                    let mut items: Vec<BatchItem> = bufs
                        .iter_mut()
                        .zip(&order)
                        .map(|(b, &m)| BatchItem::new(&nonces[m], &aad, b))
                        .collect();
                    c.seal_batch(&mut items).unwrap();
                    for (it, &m) in items.iter().zip(&order) {
                        assert_eq!(
                            (it.buffer.to_vec(), it.tag),
                            expected[m],
                            "{backend:?} batch aad {aad_len} msg {m} shift {shift}"
                        );
                    }
                    // Tamper with every third item: those fail and hold their
                    // ciphertext again, the rest open.
                    for (it, &m) in items.iter_mut().zip(&order) {
                        if m % 3 == 1 {
                            it.tag[m % 16] ^= 0x80;
                        }
                    }
                    let mut results = vec![Ok(()); items.len()];
                    c.open_batch(&mut items, &mut results).unwrap();
                    for ((it, &m), r) in items.iter().zip(&order).zip(&results) {
                        if m % 3 == 1 {
                            assert_eq!(*r, Err(Error::Authentication), "{backend:?} aad {aad_len} msg {m}");
                            assert_eq!(
                                it.buffer,
                                expected[m].0.as_slice(),
                                "{backend:?} msg {m}: ciphertext again"
                            );
                        } else {
                            assert_eq!(*r, Ok(()), "{backend:?} aad {aad_len} msg {m}");
                            assert_eq!(it.buffer, plain[m].as_slice());
                        }
                    }
                }
            }
        }
    }
}

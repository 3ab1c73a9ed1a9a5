//! A column of short values under one key, the way `gcmsiv.arrow` encrypts one: values
//! side by side in one buffer, each with its own nonce, sealed and opened through the batch
//! API in groups of 256, on one thread. Values per second: the baseline the Python
//! package's `encrypt_array` is measured against (bindings/python/bench/bench_arrow.py).

use std::time::Instant;

const VALUES: usize = 1 << 20;
const GROUP: usize = 256;

/// Values per second of the batch API over a column of `VALUES` values of `len` bytes.
fn rate(cipher: &gcmsiv::Aes256GcmSiv, len: usize, rounds: usize) -> (f64, f64) {
    let nonces: Vec<[u8; 12]> =
        (0..VALUES as u64).map(|i| std::array::from_fn(|b| (i >> (b % 8 * 8)) as u8)).collect();
    let mut data = vec![0x5au8; VALUES * len];
    let mut tags = vec![[0u8; 16]; VALUES];
    let mut results = vec![Ok(()); GROUP];
    let (mut seal_best, mut open_best) = (f64::MAX, f64::MAX);
    for _ in 0..rounds {
        let start = Instant::now();
        for ((chunk, nonces), tags) in
            data.chunks_mut(GROUP * len).zip(nonces.chunks(GROUP)).zip(tags.chunks_mut(GROUP))
        {
            let mut items: Vec<gcmsiv::BatchItem<'_>> = chunk
                .chunks_mut(len)
                .zip(nonces)
                .map(|(value, nonce)| gcmsiv::BatchItem::new(nonce, b"", value))
                .collect();
            cipher.encrypt_batch(&mut items).unwrap();
            for (item, tag) in items.iter().zip(tags.iter_mut()) {
                *tag = item.tag;
            }
        }
        seal_best = seal_best.min(start.elapsed().as_secs_f64());
        let start = Instant::now();
        for ((chunk, nonces), tags) in
            data.chunks_mut(GROUP * len).zip(nonces.chunks(GROUP)).zip(tags.chunks(GROUP))
        {
            let mut items: Vec<gcmsiv::BatchItem<'_>> = chunk
                .chunks_mut(len)
                .zip(nonces)
                .zip(tags)
                .map(|((value, nonce), tag)| gcmsiv::BatchItem::with_tag(nonce, b"", value, *tag))
                .collect();
            cipher.decrypt_batch(&mut items, &mut results[..]).unwrap();
            assert!(results[..items.len()].iter().all(Result::is_ok));
        }
        open_best = open_best.min(start.elapsed().as_secs_f64());
    }
    (VALUES as f64 / seal_best, VALUES as f64 / open_best)
}

/// Prints values per second for each size (best of `rounds`), AES-256-GCM-SIV.
pub fn print(sizes: &[usize], rounds: usize) {
    let cipher = gcmsiv::Aes256GcmSiv::with_backend(&[0x42; 32], crate::backend()).unwrap();
    println!(
        "\n## A column of {VALUES} values, AES-256-GCM-SIV batch API in groups of {GROUP}, one thread (values/s, best of {rounds})"
    );
    println!("| bytes | seal | open |\n|---|---|---|");
    for &len in sizes {
        let (seal, open) = rate(&cipher, len, rounds);
        println!("| {len} | {:.2} M | {:.2} M |", seal / 1e6, open / 1e6);
    }
}

//! A column of short values under one key, the way `gcmsiv.arrow` encrypts one: values
//! side by side in one buffer, each with its own nonce, sealed and opened through the batch
//! API in groups of 256, on one thread. Values per second: the baseline the Python
//! package's `encrypt_array` is measured against (bindings/python/bench/bench_arrow.py).

/// This thread's CPU time in seconds: what a column takes on one core even when other jobs
/// share the machine (wall-clock time counts their turns too). The Python benchmark times
/// `encrypt_array` on one thread the same way (`time.thread_time`).
fn thread_cpu_seconds() -> f64 {
    #[cfg(target_os = "linux")]
    {
        let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `now` is a valid timespec for the call to write.
        let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
        assert_eq!(status, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
        now.tv_sec as f64 + now.tv_nsec as f64 * 1e-9
    }
    #[cfg(not(target_os = "linux"))]
    {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        START.get_or_init(std::time::Instant::now).elapsed().as_secs_f64()
    }
}

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
        let start = thread_cpu_seconds();
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
        seal_best = seal_best.min(thread_cpu_seconds() - start);
        let start = thread_cpu_seconds();
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
        open_best = open_best.min(thread_cpu_seconds() - start);
    }
    (VALUES as f64 / seal_best, VALUES as f64 / open_best)
}

/// Prints values per second for each size (best of `rounds`), AES-256-GCM-SIV.
pub fn print(sizes: &[usize], rounds: usize) {
    let cipher = gcmsiv::Aes256GcmSiv::with_backend(&[0x42; 32], crate::backend()).unwrap();
    println!(
        "\n## A column of {VALUES} values, AES-256-GCM-SIV batch API in groups of {GROUP}, one thread (values per second of CPU time, best of {rounds})"
    );
    println!("| bytes | seal | open |\n|---|---|---|");
    for &len in sizes {
        let (seal, open) = rate(&cipher, len, rounds);
        println!("| {len} | {:.2} M | {:.2} M |", seal / 1e6, open / 1e6);
    }
}

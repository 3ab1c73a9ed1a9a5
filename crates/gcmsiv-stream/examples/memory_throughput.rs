//! Streaming throughput of the library in memory, the baseline the bindings'
//! stream benchmarks (bindings/node/bench/stream.js, the Java binding's
//! StreamBench) compare with: `MIB` MiB (default 256) of plaintext held in
//! memory, through `Encryptor` (written in 1 MiB pieces) and `Decryptor`
//! (read in 1 MiB pieces), 64 KiB chunks, AES-256-GCM-SIV, all cores. The
//! encryptor writes into a `Vec` (as a binding's stream hands out its output)
//! and, as a second figure, into `io::sink()` (the library alone).
//!
//! ```sh
//! cargo run --release -p gcmsiv-stream --example memory_throughput [MIB]
//! ```

use std::io::{Read, Write};
use std::time::Instant;

use gcmsiv_stream::{Decryptor, Encryptor, MasterKey, Options, Secret};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mib: usize = std::env::args().nth(1).map_or(Ok(256), |s| s.parse())?;
    let plaintext = vec![0x5au8; mib << 20];
    let secret = Secret::Key(MasterKey::from_bytes(&[7; 32]));
    let options = Options::new();
    let mut best = (f64::MAX, f64::MAX, f64::MAX);
    let mut file = Vec::new();
    for _ in 0..3 {
        let start = Instant::now();
        let mut encryptor = Encryptor::new(
            Vec::with_capacity(plaintext.len() + (plaintext.len() >> 10) + 4096),
            &secret,
            &options,
        )?;
        for piece in plaintext.chunks(1 << 20) {
            encryptor.write_all(piece)?;
        }
        file = encryptor.finish()?;
        best.0 = best.0.min(start.elapsed().as_secs_f64());

        let start = Instant::now();
        let mut encryptor = Encryptor::new(std::io::sink(), &secret, &options)?;
        for piece in plaintext.chunks(1 << 20) {
            encryptor.write_all(piece)?;
        }
        encryptor.finish()?;
        best.2 = best.2.min(start.elapsed().as_secs_f64());

        let start = Instant::now();
        let mut decryptor = Decryptor::new(&file[..], &secret)?;
        let mut buf = vec![0u8; 1 << 20];
        let mut total = 0;
        loop {
            let n = decryptor.read(&mut buf)?;
            if n == 0 {
                break;
            }
            total += n;
        }
        assert_eq!(total, plaintext.len());
        best.1 = best.1.min(start.elapsed().as_secs_f64());
    }
    let mb = plaintext.len() as f64 / 1e6;
    println!(
        "rust Encryptor: {:.0} MB/s into a Vec, {:.0} MB/s into io::sink; Decryptor: {:.0} MB/s \
         ({mib} MiB in memory, best of 3, file {} bytes)",
        mb / best.0,
        mb / best.2,
        mb / best.1,
        file.len()
    );
    Ok(())
}

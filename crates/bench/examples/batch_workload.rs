//! A fixed batch workload for instruction counting:
//! `valgrind --tool=callgrind target/release/examples/batch_workload [SIZE] [ROUNDS]`

fn main() {
    let mut args = std::env::args().skip(1);
    let size: usize = args.next().map_or(16, |s| s.parse().unwrap());
    let rounds: usize = args.next().map_or(1000, |s| s.parse().unwrap());
    let c = gcmsiv::Aes128GcmSiv::new(&[1; 16]);
    let nonces: Vec<[u8; 12]> = (0..64).map(|i| [i as u8; 12]).collect();
    let mut bufs = vec![vec![0u8; size]; 64];
    for _ in 0..rounds {
        let mut items: Vec<gcmsiv::BatchItem> =
            nonces.iter().zip(bufs.iter_mut()).map(|(n, b)| gcmsiv::BatchItem::new(n, b"", b)).collect();
        c.encrypt_batch(&mut items).unwrap();
        std::hint::black_box(&items);
    }
}

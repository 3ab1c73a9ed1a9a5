// Temporary probe: POLYVAL throughput through hazmat on the selected backend.
fn main() {
    let data = vec![0x5au8; 16384];
    let mut best = f64::MAX;
    for _ in 0..2000 {
        let mut p = gcmsiv::hazmat::Polyval::new(&[7; 16]);
        let t = unsafe { core::arch::x86_64::_rdtsc() };
        p.update_padded(&data);
        std::hint::black_box(p.finalize());
        let c = (unsafe { core::arch::x86_64::_rdtsc() } - t) as f64 / data.len() as f64;
        best = best.min(c);
    }
    println!(
        "POLYVAL 16 KiB: {best:.3} c/B {:02x?}",
        &gcmsiv::hazmat::Polyval::new(&[7; 16]).finalize()[..2]
    );
}

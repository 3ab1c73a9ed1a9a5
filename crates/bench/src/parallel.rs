//! One large message on one core and on all cores (GB/s and speedup).

use crate::tsc;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

pub fn print(ghz: f64, rounds: usize) {
    println!(
        "\n## One large message on all cores ({} threads): c/B, GB/s, speedup",
        rayon::current_num_threads()
    );
    println!("The control seals (or seals and opens) independent halves on the pool: the most any split");
    println!("could gain at that moment. This machine's cores are shared, so both vary from run to run.");
    println!(
        "| key | bytes | op | one core c/B | all cores c/B | all cores GB/s | speedup | control speedup |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for key_bits in [128, 256] {
        for size in [1usize << 20, 4 << 20, 16 << 20] {
            let one128 = gcmsiv::Aes128GcmSiv::with_backend(&[1; 16], crate::backend())
                .unwrap()
                .with_parallel_threshold(None);
            let one256 = gcmsiv::Aes256GcmSiv::with_backend(&[1; 32], crate::backend())
                .unwrap()
                .with_parallel_threshold(None);
            let seal = |all: bool, buf: &mut [u8]| -> [u8; 16] {
                let t = if all { Some(0) } else { None };
                match key_bits {
                    128 => one128
                        .clone()
                        .with_parallel_threshold(t)
                        .encrypt_in_place_detached(&[0; 12], b"", buf),
                    _ => one256
                        .clone()
                        .with_parallel_threshold(t)
                        .encrypt_in_place_detached(&[0; 12], b"", buf),
                }
                .unwrap()
            };
            let open = |all: bool, buf: &mut [u8], tag: &[u8; 16]| {
                let t = if all { Some(0) } else { None };
                match key_bits {
                    128 => one128
                        .clone()
                        .with_parallel_threshold(t)
                        .decrypt_in_place_detached(&[0; 12], b"", buf, tag),
                    _ => one256
                        .clone()
                        .with_parallel_threshold(t)
                        .decrypt_in_place_detached(&[0; 12], b"", buf, tag),
                }
                .unwrap()
            };
            let control = |buf: &mut [u8], seal_op: bool| {
                use rayon::prelude::*;
                let part = size.div_ceil(rayon::current_num_threads());
                buf.par_chunks_mut(part).for_each(|c| {
                    let tag = seal(false, c);
                    if !seal_op {
                        open(false, c, &tag);
                    }
                });
            };
            let mut buf = vec![3u8; size];
            let r = rounds.min(21);
            for op in ["seal", "open"] {
                let mut s = [Vec::new(), Vec::new(), Vec::new()];
                for round in 0..r {
                    for k in 0..3 {
                        let which = (k + round) % 3;
                        if which == 2 {
                            // The control's open includes a seal of each half;
                            // count it as two operations' worth of bytes.
                            let start = tsc();
                            control(&mut buf, op == "seal");
                            let ops = if op == "seal" { 1.0 } else { 2.0 };
                            s[2].push((tsc() - start) as f64 / (ops * size as f64));
                            continue;
                        }
                        let all = which == 1;
                        let tag = if op == "open" { seal(false, &mut buf) } else { [0; 16] };
                        let start = tsc();
                        if op == "seal" {
                            std::hint::black_box(seal(all, &mut buf));
                        } else {
                            open(all, &mut buf, &tag);
                        }
                        s[which].push((tsc() - start) as f64 / size as f64);
                    }
                }
                let [one, all, ctl] = s.map(median);
                println!(
                    "| AES-{key_bits} | {size} | {op} | {one:.2} | {all:.2} | {:.2} | {:.2}x | {:.2}x |",
                    ghz / all,
                    one / all,
                    one / ctl
                );
            }
        }
    }
}

//! One large message on one core and on all cores (GB/s and speedup).
//!
//! Three ways of calling: one call at a time, right after one-core work and
//! less than a millisecond after the pool last worked (a helper that
//! lingers after a call is still awake); one call after 10 ms of idle (every
//! helper asleep: the first call of a burst); and a stream of calls back to
//! back (a bulk job).

use crate::tsc;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// After a cold call: the helper it woke arrives late (about 2 ms after
/// 10 ms of idle on this VM), after the call is over, and the next call
/// would find the pool half awake. Wait that out, then make one untimed
/// call, so the next measurements start from a pool that has just worked
/// (what "one call" means: a call soon after others).
fn settle(buf: &mut [u8], call: impl Fn(&mut [u8]) -> [u8; 16]) {
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_millis(3) {
        std::hint::spin_loop();
    }
    std::hint::black_box(call(buf));
}

/// Calls timed together in the stream columns.
const STREAM: usize = 4;

pub fn print(ghz: f64, rounds: usize) {
    println!(
        "\n## One large message on all cores ({} threads): c/B, GB/s, speedup",
        rayon::current_num_threads()
    );
    println!("\"One call\" times a single call right after one-core work; \"cold\" one after 10 ms of idle;");
    println!(
        "\"stream\" times {STREAM} calls back to back (all cores; and with the default threshold, which"
    );
    println!("takes 1-4 MiB calls to all cores only in a burst). The control seals (or seals and opens)");
    println!("independent halves with a plain rayon split: what the pool gave at that moment.");
    println!(
        "| key | bytes | op | one core c/B | all cores, one call c/B | speedup | cold call speedup | all cores, stream c/B | stream GB/s | stream speedup | default threshold, stream speedup | control speedup |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for key_bits in [128, 256] {
        for size in [1usize << 20, 4 << 20, 16 << 20] {
            let one128 = gcmsiv::Aes128GcmSiv::with_backend(&[1; 16], crate::backend())
                .unwrap()
                .with_parallel_threshold(None);
            let one256 = gcmsiv::Aes256GcmSiv::with_backend(&[1; 32], crate::backend())
                .unwrap()
                .with_parallel_threshold(None);
            let all128 = one128.clone().with_parallel_threshold(Some(0));
            let all256 = one256.clone().with_parallel_threshold(Some(0));
            // The default threshold, with its burst rule: a key left as made (a
            // threshold set to the same value would be exact, without it).
            let def128 = gcmsiv::Aes128GcmSiv::with_backend(&[1; 16], crate::backend()).unwrap();
            let def256 = gcmsiv::Aes256GcmSiv::with_backend(&[1; 32], crate::backend()).unwrap();
            // Who: one core, all cores, or the default threshold's choice.
            #[derive(Clone, Copy, PartialEq)]
            enum Who {
                One,
                All,
                Default,
            }
            let seal_by = |who: Who, buf: &mut [u8]| -> [u8; 16] {
                match (key_bits, who) {
                    (128, Who::One) => one128.encrypt_in_place_detached(&[0; 12], b"", buf),
                    (128, Who::All) => all128.encrypt_in_place_detached(&[0; 12], b"", buf),
                    (128, Who::Default) => def128.encrypt_in_place_detached(&[0; 12], b"", buf),
                    (_, Who::One) => one256.encrypt_in_place_detached(&[0; 12], b"", buf),
                    (_, Who::All) => all256.encrypt_in_place_detached(&[0; 12], b"", buf),
                    (_, Who::Default) => def256.encrypt_in_place_detached(&[0; 12], b"", buf),
                }
                .unwrap()
            };
            let open_by = |who: Who, buf: &mut [u8], tag: &[u8; 16]| {
                match (key_bits, who) {
                    (128, Who::One) => one128.decrypt_in_place_detached(&[0; 12], b"", buf, tag),
                    (128, Who::All) => all128.decrypt_in_place_detached(&[0; 12], b"", buf, tag),
                    (128, Who::Default) => def128.decrypt_in_place_detached(&[0; 12], b"", buf, tag),
                    (_, Who::One) => one256.decrypt_in_place_detached(&[0; 12], b"", buf, tag),
                    (_, Who::All) => all256.decrypt_in_place_detached(&[0; 12], b"", buf, tag),
                    (_, Who::Default) => def256.decrypt_in_place_detached(&[0; 12], b"", buf, tag),
                }
                .unwrap()
            };
            let seal = |all: bool, buf: &mut [u8]| seal_by(if all { Who::All } else { Who::One }, buf);
            let open = |all: bool, buf: &mut [u8], tag: &[u8; 16]| {
                open_by(if all { Who::All } else { Who::One }, buf, tag)
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
            let mut bufs = vec![vec![3u8; size]; STREAM];
            // What each open starts from: one ciphertext (every buffer holds
            // the same plaintext, and the nonce is the same), copied back
            // before each open. Copying rather than sealing again keeps the
            // set-up short: an untimed one-core seal of 4 MiB takes longer
            // than the helpers linger after a call, so the timed open would
            // find them asleep and measure a half-cold call.
            let mut ciphertext = bufs[0].clone();
            let tag = seal(false, &mut ciphertext);
            let r = rounds.min(21);
            for op in ["seal", "open"] {
                // one core, all cores one call, all cores stream, control,
                // all cores after idle, default threshold stream
                let mut s = [Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new()];
                for round in 0..r {
                    for k in 0..6 {
                        let which = (k + round) % 6;
                        match which {
                            0 | 1 | 4 => {
                                let all = which != 0;
                                if op == "open" {
                                    bufs[0].copy_from_slice(&ciphertext);
                                }
                                if which == 4 {
                                    std::thread::sleep(std::time::Duration::from_millis(10));
                                }
                                let start = tsc();
                                if op == "seal" {
                                    std::hint::black_box(seal(all, &mut bufs[0]));
                                } else {
                                    open(all, &mut bufs[0], &tag);
                                }
                                s[which].push((tsc() - start) as f64 / size as f64);
                                if which == 4 {
                                    settle(&mut bufs[1], |b| seal(true, b));
                                }
                            }
                            2 | 5 => {
                                let who = if which == 2 { Who::All } else { Who::Default };
                                if op == "open" {
                                    for b in bufs.iter_mut() {
                                        b.copy_from_slice(&ciphertext);
                                    }
                                }
                                let start = tsc();
                                for b in bufs.iter_mut() {
                                    if op == "seal" {
                                        std::hint::black_box(seal_by(who, b));
                                    } else {
                                        open_by(who, b, &tag);
                                    }
                                }
                                s[which].push((tsc() - start) as f64 / (STREAM * size) as f64);
                            }
                            3 => {
                                // The control's open includes a seal of each
                                // half; count it as two operations' worth.
                                let start = tsc();
                                control(&mut bufs[0], op == "seal");
                                let ops = if op == "seal" { 1.0 } else { 2.0 };
                                s[3].push((tsc() - start) as f64 / (ops * size as f64));
                            }
                            _ => unreachable!(),
                        }
                    }
                }
                let [one, all, stream, ctl, cold, default] = s.map(median);
                println!(
                    "| AES-{key_bits} | {size} | {op} | {one:.2} | {all:.2} | {:.2}x | {:.2}x | {stream:.2} | {:.2} | {:.2}x | {:.2}x | {:.2}x |",
                    one / all,
                    one / cold,
                    ghz / stream,
                    one / stream,
                    one / default,
                    one / ctl
                );
            }
        }
    }
}

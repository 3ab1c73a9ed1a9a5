//! One large message on one core and on all cores (GB/s and speedup).
//!
//! Three ways of calling: one call at a time, right after one-core work and
//! less than a millisecond after the pool last worked (a helper that
//! lingers after a call is still awake); one call after 10 ms of idle (every
//! helper asleep: the first call of a burst); and a stream of calls back to
//! back (a bulk job). Beside them, what the cores gave at that moment to
//! independent messages ([`IndependentParts`]): on a shared host the second
//! core is not always a whole core, and the speedups move with it.

use crate::tsc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

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

/// One thread's share of [`IndependentParts`]: `Step::Prepare` (untimed: the
/// part's buffer is written, with plaintext or its ciphertext), then
/// `Step::Run`.
type Task = Box<dyn FnMut(Step) + Send>;

#[derive(Clone, Copy)]
enum Step {
    Prepare { seal: bool },
    Run { seal: bool },
}

/// A part of `len` bytes sealed or opened on one core, as a message of its
/// own with its own buffer.
fn part_task(
    len: usize,
    seal: impl Fn(&mut [u8]) -> [u8; 16] + Send + 'static,
    open: impl Fn(&mut [u8], &[u8; 16]) + Send + 'static,
) -> Task {
    let mut ciphertext = vec![3u8; len];
    let tag = seal(&mut ciphertext);
    let mut buf = ciphertext.clone();
    Box::new(move |step| match step {
        // Written just before, as the one-core call's buffer is, so that
        // the part is hot in its own core's cache.
        Step::Prepare { seal: true } => buf.fill(3),
        Step::Prepare { seal: false } => buf.copy_from_slice(&ciphertext),
        Step::Run { seal: true } => {
            std::hint::black_box(seal(&mut buf));
        }
        Step::Run { seal: false } => open(&mut buf, &tag),
    })
}

/// What the cores give at a moment, as a reference for one message on all
/// cores. Every thread seals (or opens) a part of its own as a message of
/// its own, each on a core of its own and already running when the clock
/// starts: no wake-up, no shared hash, no partial sums to join, each part
/// written just before by its own thread (hot in its own core's cache,
/// where one message's pieces are hot in the caller's). Each thread's speed
/// is timed alone, and the reference is the time the whole would take at
/// the sum of those speeds: a split that keeps every core busy to the end
/// (as one message's pieces do, claimed as cores free up) at the speed each
/// core gave then. On a shared host the cores' speeds differ from moment to
/// moment, so a fixed split into equal parts, timed to its slowest, would
/// read lower than the one-message path it is there to judge. Not a bound:
/// measured at other moments than the call it is set beside.
struct IndependentParts {
    /// The caller's part, and its length.
    first: (Task, usize),
    shared: Arc<Signals>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

#[derive(Default)]
struct Signals {
    /// Measurement number; `usize::MAX`: stop.
    posted: AtomicUsize,
    seal: AtomicBool,
    /// Threads prepared and spinning, for the latest post.
    ready: AtomicUsize,
    go: AtomicBool,
    /// Each thread's bytes and TSC cycles, for the latest post.
    done: std::sync::Mutex<Vec<(usize, u64)>>,
}

impl IndependentParts {
    /// One task per thread, with the length of its part; the first runs on
    /// the caller.
    fn new(mut tasks: Vec<(Task, usize)>) -> Self {
        let first = tasks.remove(0);
        let shared = Arc::new(Signals::default());
        let threads = tasks
            .into_iter()
            .enumerate()
            .map(|(i, (mut task, len))| {
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || {
                    pin::to(Some(i + 1));
                    let mut seen = 0;
                    loop {
                        let post = shared.posted.load(Ordering::Acquire);
                        if post == usize::MAX {
                            return;
                        }
                        if post == seen {
                            std::thread::park();
                            continue;
                        }
                        seen = post;
                        let seal = shared.seal.load(Ordering::Relaxed);
                        task(Step::Prepare { seal });
                        shared.ready.fetch_add(1, Ordering::AcqRel);
                        while !shared.go.load(Ordering::Acquire) {
                            std::hint::spin_loop();
                        }
                        let start = tsc();
                        task(Step::Run { seal });
                        let cycles = tsc() - start;
                        shared.done.lock().unwrap().push((len, cycles));
                    }
                })
            })
            .collect();
        IndependentParts { first, shared, threads }
    }

    /// The reference's TSC cycles for the whole (see [`IndependentParts`]).
    fn run(&mut self, seal: bool) -> f64 {
        // The caller on the first core for the measurement, each thread on
        // a core of its own: left to the scheduler, a thread woken for a
        // short measurement often shares the caller's core.
        pin::to(Some(0));
        let s = &*self.shared;
        s.ready.store(0, Ordering::Relaxed);
        s.done.lock().unwrap().clear();
        s.go.store(false, Ordering::Relaxed);
        s.seal.store(seal, Ordering::Relaxed);
        s.posted.fetch_add(1, Ordering::AcqRel);
        for t in &self.threads {
            t.thread().unpark();
        }
        let (first, first_len) = &mut self.first;
        first(Step::Prepare { seal });
        let others = self.threads.len();
        while s.ready.load(Ordering::Acquire) < others {
            std::thread::yield_now();
        }
        // Helpers lingering from an earlier call (1 ms) leave the cores
        // while every thread here spins.
        let warm = std::time::Instant::now();
        while warm.elapsed() < std::time::Duration::from_millis(2) {
            std::hint::spin_loop();
        }
        let start = tsc();
        s.go.store(true, Ordering::Release);
        first(Step::Run { seal });
        let mine = tsc() - start;
        while s.done.lock().unwrap().len() < others {
            std::thread::yield_now();
        }
        pin::to(None);
        let done = s.done.lock().unwrap();
        let bytes_per_cycle: f64 =
            done.iter().chain([(*first_len, mine)].iter()).map(|&(len, c)| len as f64 / c as f64).sum();
        let total: usize = done.iter().map(|d| d.0).sum::<usize>() + *first_len;
        total as f64 / bytes_per_cycle
    }
}

impl Drop for IndependentParts {
    fn drop(&mut self) {
        self.shared.posted.store(usize::MAX, Ordering::Release);
        for t in self.threads.drain(..) {
            t.thread().unpark();
            t.join().unwrap();
        }
    }
}

/// Which core the calling thread runs on: `Some(k)`, the `k`-th (modulo
/// their count) of the cores the process was allowed at its first call
/// here; `None`, any of those. Linux only; a no-op elsewhere, where the
/// reference's threads go where the scheduler puts them.
mod pin {
    #[cfg(target_os = "linux")]
    pub fn to(core: Option<usize>) {
        use std::sync::OnceLock;
        static ALLOWED: OnceLock<Vec<usize>> = OnceLock::new();
        let size = core::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: `cpu_set_t` is a plain bitmask, which these calls fill and read.
        unsafe {
            let allowed = ALLOWED.get_or_init(|| {
                let mut set: libc::cpu_set_t = core::mem::zeroed();
                libc::sched_getaffinity(0, size, &mut set);
                (0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).collect()
            });
            if allowed.is_empty() {
                return;
            }
            let mut set: libc::cpu_set_t = core::mem::zeroed();
            match core {
                Some(k) => libc::CPU_SET(allowed[k % allowed.len()], &mut set),
                None => allowed.iter().for_each(|&c| libc::CPU_SET(c, &mut set)),
            }
            libc::sched_setaffinity(0, size, &set);
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub fn to(_core: Option<usize>) {}
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
    println!("takes 1-4 MiB calls to all cores only in a burst). \"Independent parts\" seals (or opens) one");
    println!("part per core as messages of their own, on threads already running and each timed alone:");
    println!("what the cores gave at that moment (see `IndependentParts`); the last column is the one");
    println!("call's speed as a share of it.");
    println!(
        "| key | bytes | op | one core c/B | all cores, one call c/B | speedup | cold call speedup | all cores, stream c/B | stream GB/s | stream speedup | default threshold, stream speedup | independent parts speedup | one call / independent parts |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
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
            // The reference: the message's bytes cut into one part per
            // thread, each part a message of its own on a thread of its own.
            let threads = rayon::current_num_threads().max(1);
            let part = size.div_ceil(threads);
            let tasks: Vec<(Task, usize)> = (0..threads)
                .map(|t| {
                    let len = part.min(size - t * part);
                    let (k128, k256) = (one128.clone(), one256.clone());
                    let (o128, o256) = (one128.clone(), one256.clone());
                    let task = part_task(
                        len,
                        move |b| match key_bits {
                            128 => k128.encrypt_in_place_detached(&[0; 12], b"", b).unwrap(),
                            _ => k256.encrypt_in_place_detached(&[0; 12], b"", b).unwrap(),
                        },
                        move |b, tag| match key_bits {
                            128 => o128.decrypt_in_place_detached(&[0; 12], b"", b, tag).unwrap(),
                            _ => o256.decrypt_in_place_detached(&[0; 12], b"", b, tag).unwrap(),
                        },
                    );
                    (task, len)
                })
                .collect();
            let mut parts = IndependentParts::new(tasks);
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
                // one core, all cores one call, all cores stream, independent parts,
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
                                s[3].push(parts.run(op == "seal") / size as f64);
                            }
                            _ => unreachable!(),
                        }
                    }
                }
                let [one, all, stream, parts, cold, default] = s.map(median);
                println!(
                    "| AES-{key_bits} | {size} | {op} | {one:.2} | {all:.2} | {:.2}x | {:.2}x | {stream:.2} | {:.2} | {:.2}x | {:.2}x | {:.2}x | {:.0}% |",
                    one / all,
                    one / cold,
                    ghz / stream,
                    one / stream,
                    one / default,
                    one / parts,
                    100.0 * parts / all
                );
            }
        }
    }
}

//! Work on pieces of one message shared between the calling thread and
//! helpers from rayon's pool (feature `parallel`), without ever waiting for a
//! helper that has not started.
//!
//! rayon's own scopes wait for every job they spawn to finish, so a caller
//! outside the pool waits for the pool to wake; on a virtual machine that can
//! take milliseconds, longer than the whole message takes one core. Here the
//! caller starts on the items at once and helpers join when they arrive. A
//! helper runs the caller's closure, which borrows the caller's stack, from a
//! `'static` pool job: the one `unsafe` outside the SIMD backend, a lifetime
//! erasure whose protocol is in [`for_each`].
//!
//! Waking a thread that has gone to sleep costs tens of microseconds, and
//! milliseconds after a longer idle (PERFORMANCE-HISTORY.md, `pieces.rs`): as
//! long as a 1 MiB message takes one core. So the threads on both ends wait for
//! each other by spinning for a short while before they sleep. The caller
//! spins for its helpers to finish their last piece ([`SPIN`]), and a helper
//! that is done lingers ([`LINGER`]), spinning and running any other pool
//! job that comes, for the next call to join at once. A stream of large
//! calls (a file, a bulk job) then finds its helpers awake; the cost is at
//! most [`LINGER`] of one otherwise idle core's time after the last call.

use crate::buffers::scrub_stack;
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// How long a helper that has finished stays awake for the next call: long
/// enough for a caller that does a few hundred microseconds of other work
/// (reads the next megabytes of a file, say) between calls.
const LINGER: Duration = Duration::from_millis(1);

/// How long the caller spins for helpers in the middle of a piece before it
/// sleeps: longer than a piece takes (at most 256 KiB; most calls' pieces
/// are smaller; PERFORMANCE-HISTORY.md, `pieces.rs`).
const SPIN: Duration = Duration::from_micros(100);

/// `pause`s between two looks of a spinning thread at what it waits for.
const PAUSES: usize = 4;

/// The call taking helpers now, for lingering helpers to join.
static POSTED: Mutex<Option<Arc<Shared>>> = Mutex::new(None);

/// Counts posts to [`POSTED`]: a lingering helper watches it without a lock.
static POSTS: AtomicUsize = AtomicUsize::new(0);

/// Helpers lingering now: a call spawns only as many as that leaves missing.
static LINGERING: AtomicUsize = AtomicUsize::new(0);

std::thread_local! {
    /// Set while this thread lingers: a pool job run meanwhile that helps
    /// another call does not linger in turn.
    static IN_LINGER: Cell<bool> = const { Cell::new(false) };
}

/// Whether a helper is lingering now: a call made at once would be joined
/// without waking anyone (and costs the caller nothing more than posting).
pub(crate) fn helper_awake() -> bool {
    LINGERING.load(Ordering::Relaxed) > 0
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The caller's work loop with its lifetime erased, so that a `'static`
/// pool job can run it; [`for_each`] holds the safety argument.
///
/// A wide pointer, the closure's address and its vtable's: two words, 8
/// bytes aligned to 4 on 32-bit targets and 16 aligned to 8 on 64-bit ones.
/// It is only ever copied whole (never split, packed or turned into an
/// integer), so nothing here depends on the word size.
#[derive(Clone, Copy)]
struct Work(*const (dyn Fn() + Sync + 'static));

// SAFETY: the pointee is `Sync`, so it may be called from any thread; how
// long it lives is [`for_each`]'s protocol. Sending assumes nothing of size
// or alignment: the two-word pointer moves whole, under `state`'s lock, on
// 32-bit and 64-bit targets alike.
unsafe impl Send for Work {}

struct Shared {
    state: Mutex<State>,
    left: Condvar,
    /// `state.inside`, mirrored (changed under the lock) for the caller to
    /// spin on without taking the lock the leaving helper needs.
    inside_now: AtomicUsize,
}

struct State {
    /// `None` once the caller has stopped taking helpers.
    work: Option<Work>,
    /// Helpers inside the work loop now.
    inside: usize,
    /// Whether a helper's task panicked ([`help`] catches it), for the
    /// caller to re-raise: a call must never return as if every item were
    /// done.
    panicked: bool,
    /// Whether the caller sleeps on `left` (past its spin): only then does
    /// the last helper out notify it, a system call that the caller, when
    /// spinning, would otherwise wait out to take the lock.
    waiting: bool,
}

/// Runs `task` exactly once for each item of `items`, on the calling
/// thread and on up to `helpers` jobs of rayon's pool, and returns when all
/// are done. The caller claims items from the front and helpers from the
/// back, one at a time, so that two passes over the same pieces mostly
/// touch each piece on the same core; the caller never waits for a helper
/// that has not started, only for those in the middle of an item.
pub(crate) fn for_each<I>(items: I, helpers: usize, task: impl Fn(I::Item) + Sync)
where
    I: DoubleEndedIterator + Send,
{
    let items = Mutex::new(items);
    let front = || {
        // The claim is its own statement, so the lock is not held during `task`.
        loop {
            let Some(item) = lock(&items).next() else { return };
            task(item);
        }
    };
    if helpers == 0 {
        return front();
    }
    let back = || {
        // The claim is its own statement, so the lock is not held during `task`.
        loop {
            let Some(item) = lock(&items).next_back() else { return };
            task(item);
        }
    };
    let work: *const (dyn Fn() + Sync + '_) = &back;
    // SAFETY: only the lifetime bound changes. A helper gets the pointer
    // only under `state`'s lock while `work` is `Some`, and counts itself in
    // `inside` under the same lock; `Closing` (on return and on unwind alike)
    // sets `work` to `None` and waits for `inside` to reach zero before this
    // frame, which owns the closure and everything it borrows, ends. Both
    // types are the same wide pointer but for that bound: one size (8 bytes
    // on 32-bit targets, 16 on 64-bit; `transmute` does not compile for
    // types whose sizes differ on the target), one layout and alignment.
    let work = Work(unsafe {
        core::mem::transmute::<*const (dyn Fn() + Sync + '_), *const (dyn Fn() + Sync + 'static)>(work)
    });
    let shared = Arc::new(Shared {
        state: Mutex::new(State { work: Some(work), inside: 0, panicked: false, waiting: false }),
        left: Condvar::new(),
        inside_now: AtomicUsize::new(0),
    });
    let closing = Closing(&shared);
    *lock(&POSTED) = Some(Arc::clone(&shared));
    let post = POSTS.fetch_add(1, Ordering::Release) + 1;
    // Helpers lingering (and not running another pool job, this call
    // included) join by themselves: spawn only the rest.
    for _ in LINGERING.load(Ordering::Relaxed).min(helpers)..helpers {
        let shared = Arc::clone(&shared);
        rayon::spawn(move || {
            help(&shared);
            drop(shared);
            linger(post);
        });
    }
    front();
    drop(closing);
    // Every helper has left (Closing waited for them).
    if lock(&shared.state).panicked {
        panic!("a task of this call panicked on a helper thread");
    }
}

/// A helper's turn at a call: enters only while the caller takes helpers.
fn help(shared: &Shared) {
    let work = {
        let mut state = lock(&shared.state);
        let Some(work) = state.work else { return };
        state.inside += 1;
        shared.inside_now.store(state.inside, Ordering::Relaxed);
        work
    };
    let leaving = Leaving(shared);
    // A panic in a task stops here and is handed to the caller, which
    // re-raises it; in a spawned job it would abort the process (or, under a
    // pool with a panic handler, vanish).
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: taken while the caller still took helpers, and counted in
        // `inside`, so the closure outlives this call. The pointer was made
        // from a reference (`&back` in `for_each`): non-null and aligned for
        // the closure on every target.
        unsafe { (*work.0)() }
    }));
    if outcome.is_err() {
        lock(&shared.state).panicked = true;
    }
    // Out of the call first (the caller may be waiting), then the scrub.
    drop(leaving);
    scrub_stack();
}

/// Stays awake for [`LINGER`] after the last call joined, for the next to
/// join at once; runs other pool jobs meanwhile. `seen` is the last post
/// this helper knows of.
fn linger(mut seen: usize) {
    if IN_LINGER.with(Cell::get) {
        return;
    }
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            LINGERING.fetch_sub(1, Ordering::Relaxed);
            IN_LINGER.with(|f| f.set(false));
        }
    }
    IN_LINGER.with(|f| f.set(true));
    LINGERING.fetch_add(1, Ordering::Relaxed);
    let _leave = Leave;
    let mut until = Instant::now() + LINGER;
    let mut looks = 0u32;
    loop {
        let post = POSTS.load(Ordering::Acquire);
        if post != seen {
            seen = post;
            let posted = lock(&POSTED).clone();
            if let Some(shared) = posted {
                help(&shared);
            }
            until = Instant::now() + LINGER;
        } else if Instant::now() >= until {
            return;
        } else {
            looks = looks.wrapping_add(1);
            // Other pool jobs only every sixteenth look: while it may run
            // one (however long) this helper is not counted, and calls
            // meanwhile spawn helpers of their own; looking for them as often
            // as for calls leaves it uncounted so often that lone calls of
            // 1-4 MiB stay on one core (PERFORMANCE-HISTORY.md, `pieces.rs`).
            let ran = looks.is_multiple_of(YIELD_EVERY) && {
                LINGERING.fetch_sub(1, Ordering::Relaxed);
                let ran = rayon::yield_now() == Some(rayon::Yield::Executed);
                LINGERING.fetch_add(1, Ordering::Relaxed);
                ran
            };
            if !ran {
                for _ in 0..PAUSES {
                    core::hint::spin_loop();
                }
            }
        }
    }
}

/// How many looks for a new call a lingering helper makes between two
/// looks for other pool jobs ([`linger`]).
const YIELD_EVERY: u32 = 16;

/// The caller's end of [`for_each`]: no helper may start after it, and it
/// waits for those inside to finish their item.
struct Closing<'a>(&'a Shared);

impl Drop for Closing<'_> {
    fn drop(&mut self) {
        {
            let mut posted = lock(&POSTED);
            if posted.as_ref().is_some_and(|p| core::ptr::eq(Arc::as_ptr(p), self.0)) {
                *posted = None;
            }
        }
        let mut state = lock(&self.0.state);
        state.work = None;
        // Spin first: a helper inside is in its last piece, and sleeping
        // costs a wake-up that can take longer than that piece. The spin
        // reads the mirror, not the lock, and looks every few `pause`s, so
        // that it sees the helper leave soon after it does
        // (PERFORMANCE-HISTORY.md, `pieces.rs`).
        if state.inside > 0 {
            drop(state);
            let until = Instant::now() + SPIN;
            while self.0.inside_now.load(Ordering::Acquire) > 0 && Instant::now() < until {
                for _ in 0..PAUSES {
                    core::hint::spin_loop();
                }
            }
            state = lock(&self.0.state);
        }
        state.waiting = true;
        while state.inside > 0 {
            state = self.0.left.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// A helper's exit from the work loop, also when unwinding.
struct Leaving<'a>(&'a Shared);

impl Drop for Leaving<'_> {
    fn drop(&mut self) {
        let wake = {
            let mut state = lock(&self.0.state);
            state.inside -= 1;
            self.0.inside_now.store(state.inside, Ordering::Release);
            state.inside == 0 && state.waiting
        };
        // After the lock is released, so that the caller, woken, need not
        // wait for it.
        if wake {
            self.0.left.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::for_each;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// Every item runs exactly once, some of them on a helper: the path
    /// through the lifetime erasure, which Miri checks (`scripts/miri.sh`).
    #[test]
    fn each_item_runs_once_some_on_a_helper() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        // The helper may arrive after the caller has done every item: try
        // until one ran on it.
        let helped = (0..50).any(|_| {
            let runs: [AtomicUsize; 16] = core::array::from_fn(|_| AtomicUsize::new(0));
            let on_helper = AtomicBool::new(false);
            pool.install(|| {
                let caller = std::thread::current().id();
                for_each(runs.iter(), 1, |item| {
                    item.fetch_add(1, Ordering::Relaxed);
                    if std::thread::current().id() != caller {
                        on_helper.store(true, Ordering::Relaxed);
                    }
                    std::thread::sleep(std::time::Duration::from_micros(200));
                });
            });
            assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1), "an item ran twice or never");
            on_helper.load(Ordering::Relaxed)
        });
        assert!(helped, "no item ever ran on a helper");
    }

    /// A task that panics on a helper makes the call panic, in a pool whose
    /// panic handler would swallow it and in one without a handler (where a
    /// panic in a spawned job aborts the process): the call never returns as
    /// if every item were done, and the process goes on.
    #[test]
    fn a_helper_panic_reaches_the_caller() {
        let swallowing =
            rayon::ThreadPoolBuilder::new().num_threads(2).panic_handler(|_| {}).build().unwrap();
        let plain = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        for pool in [&swallowing, &plain] {
            assert!(helper_panic_is_raised(pool), "no item ever ran on a helper");
        }
    }

    /// Whether a helper's panic reached the caller (false if no item ran on
    /// a helper in any try).
    fn helper_panic_is_raised(pool: &rayon::ThreadPool) -> bool {
        // The helper may not arrive before the caller has done every item:
        // try until one item ran on it.
        for _ in 0..50 {
            let on_helper = AtomicBool::new(false);
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.install(|| {
                    let caller = std::thread::current().id();
                    for_each(0..64, 1, |_| {
                        if std::thread::current().id() != caller {
                            on_helper.store(true, Ordering::Relaxed);
                            panic!("task on a helper");
                        }
                        std::thread::sleep(std::time::Duration::from_micros(200));
                    });
                })
            }));
            if on_helper.load(Ordering::Relaxed) {
                assert!(result.is_err(), "the helper's panic was lost");
                return true;
            }
        }
        false
    }
}

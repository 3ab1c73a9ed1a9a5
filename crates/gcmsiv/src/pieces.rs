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

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The caller's work loop with its lifetime erased, so that a `'static`
/// pool job can run it; [`for_each`] holds the safety argument.
#[derive(Clone, Copy)]
struct Work(*const (dyn Fn() + Sync + 'static));

// SAFETY: the pointee is `Sync`, so it may be called from any thread; how
// long it lives is [`for_each`]'s protocol.
unsafe impl Send for Work {}

struct Shared {
    state: Mutex<State>,
    left: Condvar,
}

struct State {
    /// `None` once the caller has stopped taking helpers.
    work: Option<Work>,
    /// Helpers inside the work loop now.
    inside: usize,
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
    // frame, which owns the closure and everything it borrows, ends.
    let work = Work(unsafe {
        core::mem::transmute::<*const (dyn Fn() + Sync + '_), *const (dyn Fn() + Sync + 'static)>(work)
    });
    let shared =
        Arc::new(Shared { state: Mutex::new(State { work: Some(work), inside: 0 }), left: Condvar::new() });
    let closing = Closing(&shared);
    for _ in 0..helpers {
        let shared = Arc::clone(&shared);
        rayon::spawn(move || {
            let work = {
                let mut state = lock(&shared.state);
                let Some(work) = state.work else { return };
                state.inside += 1;
                work
            };
            let _leaving = Leaving(&shared);
            // SAFETY: taken while the caller still took helpers, and counted
            // in `inside`, so the closure outlives this call.
            unsafe { (*work.0)() }
        });
    }
    front();
    drop(closing);
}

/// The caller's end of [`for_each`]: no helper may start after it, and it
/// waits for those inside to finish their item.
struct Closing<'a>(&'a Shared);

impl Drop for Closing<'_> {
    fn drop(&mut self) {
        let mut state = lock(&self.0.state);
        state.work = None;
        while state.inside > 0 {
            state = self.0.left.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// A helper's exit from the work loop, also when unwinding.
struct Leaving<'a>(&'a Shared);

impl Drop for Leaving<'_> {
    fn drop(&mut self) {
        let mut state = lock(&self.0.state);
        state.inside -= 1;
        if state.inside == 0 {
            self.0.left.notify_all();
        }
    }
}

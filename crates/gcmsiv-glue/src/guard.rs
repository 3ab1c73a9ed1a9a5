//! The one panic guard. A panic that unwinds out of a native call aborts the
//! process (an `extern "C"` function) or corrupts the runtime that called it
//! (the JVM, V8); native code that no framework wraps runs under [`guard`]
//! instead, and a panic (an internal error; none is known) fails that call.

use crate::failure::Failure;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Runs `work` and returns its value, or [`Failure::INTERNAL`] if it
/// panicked: the unwind stops here.
///
/// `work`'s captures are taken as unwind-safe: the call that panicked fails,
/// its binding discards or wipes what it was writing (each says how), and
/// keys are only read. The panic's payload is dropped here too, under a
/// guard of its own: one whose destructor panics again is leaked instead.
#[inline]
pub fn guard<T>(work: impl FnOnce() -> T) -> Result<T, Failure> {
    catch_unwind(AssertUnwindSafe(work)).map_err(|payload| {
        if let Err(again) = catch_unwind(AssertUnwindSafe(|| drop(payload))) {
            core::mem::forget(again);
        }
        Failure::INTERNAL
    })
}

#[cfg(test)]
mod tests {
    use super::guard;
    use crate::Failure;

    #[test]
    fn a_panic_is_an_internal_failure() {
        assert_eq!(guard(|| 7), Ok(7));
        assert_eq!(guard(|| -> u8 { panic!("a test's panic") }), Err(Failure::INTERNAL));
    }
}

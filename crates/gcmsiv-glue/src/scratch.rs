//! A thread's scratch buffer, for decryptions that must not run in the
//! caller's memory: the core writes plaintext before it checks the tag, and
//! another thread may read a Java array, or a Python buffer while the GIL is
//! released. The decryption runs here and the binding copies the plaintext
//! out only if it is authentic.

use std::cell::RefCell;

/// A thread keeps its scratch buffer between calls up to this size: a fresh
/// buffer of a few MiB costs about as much in page faults as the decryption.
pub const SCRATCH_KEEP: usize = 4 << 20;

std::thread_local! {
    /// Zeroes between calls: each use wipes what it used.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on `len` bytes of this thread's scratch buffer (zeroes), wiped
/// after, also if `f` panics; `None` if that memory cannot be had (the
/// buffer is grown with a fallible reservation, for the binding to raise its
/// out-of-memory error).
pub fn with_scratch<T>(len: usize, f: impl FnOnce(&mut [u8]) -> T) -> Option<T> {
    /// Wipes its bytes when dropped, and lets a buffer above the kept size go.
    struct Used<'a>(&'a mut Vec<u8>, usize);
    impl Drop for Used<'_> {
        fn drop(&mut self) {
            wipe(&mut self.0[..self.1]);
            if self.0.len() > SCRATCH_KEEP {
                *self.0 = Vec::new();
            }
        }
    }
    let mut fresh = Vec::new();
    SCRATCH.with(|cell| {
        let mut kept = cell.try_borrow_mut();
        let buf = match kept.as_deref_mut() {
            Ok(buf) => buf,
            Err(_) => &mut fresh, // reentered (no binding does): a buffer of its own
        };
        if buf.len() < len {
            buf.try_reserve_exact(len - buf.len()).ok()?;
            buf.resize(len, 0);
        }
        let used = Used(buf, len);
        Some(f(&mut used.0[..len]))
    })
}

/// Zeroes `buf` (plaintext, or a copy of it): a plain fill that the
/// `black_box` after it keeps. Byte-wise volatile stores cost a cycle or more
/// a byte, as much as the cipher itself on short messages. `black_box` is
/// documented as best effort; the fill is in the generated code today, and
/// the plaintext wiped here has another copy in the caller's memory anyway.
#[inline]
pub fn wipe(buf: &mut [u8]) {
    buf.fill(0);
    core::hint::black_box(&*buf);
}

#[cfg(test)]
mod tests {
    use super::{SCRATCH, SCRATCH_KEEP, with_scratch};

    /// Zeroes in, zeroes left; a large buffer let go, a small one kept.
    #[test]
    fn wiped_after_use_and_capped() {
        assert_eq!(with_scratch(100, |s| s.iter().all(|&b| b == 0)), Some(true));
        with_scratch(100, |s| s.fill(0xa5));
        SCRATCH.with(|c| assert!(c.borrow().len() == 100 && c.borrow().iter().all(|&b| b == 0)));
        with_scratch(SCRATCH_KEEP + 1, |s| s[SCRATCH_KEEP] = 1);
        SCRATCH.with(|c| assert!(c.borrow().is_empty()));
        let nested = with_scratch(8, |outer| {
            outer[0] = 1;
            with_scratch(8, |inner| inner[0] == 0)
        });
        assert_eq!(nested, Some(Some(true)));
        assert_eq!(with_scratch(usize::MAX, |_| ()), None);
    }

    /// A panic inside still leaves zeroes.
    #[test]
    fn wiped_after_a_panic() {
        let caught = std::panic::catch_unwind(|| {
            with_scratch(64, |s| {
                s.fill(7);
                panic!("a test's panic")
            })
        });
        assert!(caught.is_err());
        SCRATCH.with(|c| assert!(c.borrow().iter().all(|&b| b == 0)));
    }
}

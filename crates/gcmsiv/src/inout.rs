//! A message's bytes as a kernel reads and writes them: one buffer (in
//! place) or an input and an output of the same length (out of place).
//!
//! Out of place, a pass that reads the input and writes the output in the
//! same instructions does the work of one in-place pass; copying the input
//! into the output first and then working in place costs a load and a store
//! of every byte more (0.05 cycles per byte at 16 KiB, about a sixth of a
//! whole seal on a VAES core). The kernels that can do it take an
//! [`InOut`]; the others, and the paths that run the mode's steps one by
//! one, take [`InOut::into_in_place`], which makes the copy.

use core::marker::PhantomData;

/// The input and the output of one pass: the same bytes, or two slices of
/// one length that share no byte (a `&[u8]` and a `&mut [u8]` cannot).
/// Whoever holds it may read the input until the output's byte at the same
/// offset has been written, and write the output; the raw pointers are for
/// the kernels' loads and stores.
pub(crate) struct InOut<'a> {
    input: *const u8,
    output: *mut u8,
    len: usize,
    _borrows: PhantomData<(&'a [u8], &'a mut [u8])>,
}

impl<'a> InOut<'a> {
    /// `buffer` read and written in place.
    pub(crate) fn in_place(buffer: &'a mut [u8]) -> Self {
        let output = buffer.as_mut_ptr();
        InOut { input: output, output, len: buffer.len(), _borrows: PhantomData }
    }

    /// `input` read, `output` written: the same length (callers check it;
    /// a mismatch is a bug of ours, so it panics).
    pub(crate) fn new(input: &'a [u8], output: &'a mut [u8]) -> Self {
        assert_eq!(input.len(), output.len(), "out-of-place lengths");
        InOut { input: input.as_ptr(), output: output.as_mut_ptr(), len: input.len(), _borrows: PhantomData }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    // Used by the kernels that read and write in one pass (x86-64's).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the input is the output.
    pub(crate) fn is_in_place(&self) -> bool {
        core::ptr::eq(self.input, self.output)
    }

    // Used by the kernels that read and write in one pass (x86-64's).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    /// The input, before anything is written (in place, the output's bytes).
    pub(crate) fn input(&self) -> &[u8] {
        // SAFETY: `input` and `len` come from a slice borrowed for 'a; the
        // `&self` borrow keeps every write through `self` away while this
        // lives.
        unsafe { core::slice::from_raw_parts(self.input, self.len) }
    }

    /// The output (in place, the input's bytes too).
    pub(crate) fn output(&mut self) -> &mut [u8] {
        // SAFETY: `output` and `len` come from a `&mut [u8]` borrowed for
        // 'a; the `&mut self` borrow keeps every other access through
        // `self` away while this lives.
        unsafe { core::slice::from_raw_parts_mut(self.output, self.len) }
    }

    /// The output with the input copied into it (nothing to copy in place):
    /// for the kernels and steps that work in place.
    pub(crate) fn into_in_place(self) -> &'a mut [u8] {
        if !self.is_in_place() {
            // SAFETY: two slices of `len` bytes borrowed for 'a, apart
            // (`new`'s `&` and `&mut`).
            unsafe { core::ptr::copy_nonoverlapping(self.input, self.output, self.len) };
        }
        // SAFETY: as in `output`; `self` is consumed.
        unsafe { core::slice::from_raw_parts_mut(self.output, self.len) }
    }

    // Used by the kernels that read and write in one pass (x86-64's).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    /// The first `mid` bytes and the rest, each an `InOut` of its own.
    pub(crate) fn split_at(self, mid: usize) -> (InOut<'a>, InOut<'a>) {
        assert!(mid <= self.len, "split past the end");
        // SAFETY: both offsets lie within the slices (mid <= len).
        let (input, output) = unsafe { (self.input.add(mid), self.output.add(mid)) };
        (
            InOut { input: self.input, output: self.output, len: mid, _borrows: PhantomData },
            InOut { input, output, len: self.len - mid, _borrows: PhantomData },
        )
    }

    /// A shorter borrow of the same bytes, for a call that does not
    /// consume `self`.
    pub(crate) fn reborrow(&mut self) -> InOut<'_> {
        InOut { input: self.input, output: self.output, len: self.len, _borrows: PhantomData }
    }

    // Used by the kernels that read and write in one pass (x86-64's).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    /// The input's first byte, for a kernel's loads.
    pub(crate) fn input_ptr(&self) -> *const u8 {
        self.input
    }

    // Used by the kernels that read and write in one pass (x86-64's).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    /// The output's first byte, for a kernel's stores (and the loads of
    /// what it wrote).
    pub(crate) fn output_ptr(&mut self) -> *mut u8 {
        self.output
    }
}

#[cfg(test)]
mod tests {
    use super::InOut;

    #[test]
    fn in_place_and_out_of_place_hand_out_the_right_bytes() {
        let mut buffer = *b"abcdef";
        let mut data = InOut::in_place(&mut buffer);
        assert!(data.is_in_place());
        assert_eq!(data.input(), b"abcdef");
        data.output()[0] = b'x';
        assert_eq!(data.input(), b"xbcdef", "in place, the input is the output");
        let (mut head, tail) = data.split_at(2);
        head.output().copy_from_slice(b"12");
        assert_eq!(tail.into_in_place(), b"cdef");
        assert_eq!(&buffer, b"12cdef");

        let input = *b"ghijkl";
        let mut output = [0u8; 6];
        let mut data = InOut::new(&input, &mut output);
        assert!(!data.is_in_place());
        let (head, mut tail) = data.reborrow().split_at(4);
        assert_eq!((head.len(), tail.len()), (4, 2));
        assert_eq!(tail.input(), b"kl");
        tail.output().copy_from_slice(b"99");
        // The copy fills the output from the input, and writes nothing else.
        assert_eq!(head.into_in_place(), b"ghij");
        assert_eq!(data.output(), b"ghij99");
        assert_eq!(&input, b"ghijkl");
    }

    #[test]
    #[should_panic(expected = "out-of-place lengths")]
    fn lengths_must_match() {
        let _ = InOut::new(&[0; 3], &mut [0; 4]);
    }
}

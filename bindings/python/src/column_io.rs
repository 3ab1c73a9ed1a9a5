//! The Arrow layout of a variable-length column, read and written: a validity bitmap
//! (bit `offset + i`, least significant bit first; absent when no value is null), `len + 1`
//! little-endian offsets of 32 or 64 bits from slot `offset` on, and the values' bytes
//! (value `i` is `data[offsets[offset + i]..offsets[offset + i + 1]]`). Every input is
//! checked whole before any work: offsets in order and inside the data, lengths inside
//! RFC 8452's limits and the result's offset width.

use gcmsiv::{A_MAX, NONCE_LEN, P_MAX, TAG_LEN};
use std::mem::MaybeUninit;
use std::ops::Range;

/// A mistake in the input, found before any work: raised as `ValueError`, or as
/// `OverflowError` for a length over RFC 8452's limits (`too_long`, as the package's other
/// calls).
pub(crate) struct BadInput {
    pub(crate) message: String,
    pub(crate) too_long: bool,
}

#[allow(non_snake_case)]
fn BadInput(message: String) -> BadInput {
    BadInput { message, too_long: false }
}

fn too_long(message: String) -> BadInput {
    BadInput { message, too_long: true }
}

/// The width of a column's offsets: Binary and String (32 bits), or LargeBinary and
/// LargeString (64 bits). A result has its input's width.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Width {
    Bits32,
    Bits64,
}

impl Width {
    pub(crate) fn bytes(self) -> usize {
        match self {
            Width::Bits32 => 4,
            Width::Bits64 => 8,
        }
    }

    /// The largest offset, hence the most bytes a column's data may hold.
    fn max(self) -> u64 {
        match self {
            Width::Bits32 => i32::MAX as u64,
            Width::Bits64 => i64::MAX as u64,
        }
    }

    fn read(self, buffer: &[u8], slot: usize) -> i64 {
        let at = slot * self.bytes();
        match self {
            Width::Bits32 => i64::from(i32::from_le_bytes(buffer[at..at + 4].try_into().expect("4 bytes"))),
            Width::Bits64 => i64::from_le_bytes(buffer[at..at + 8].try_into().expect("8 bytes")),
        }
    }
}

/// Where a column's values are: `len + 1` offsets into one data buffer (Binary, String and
/// their large forms), or 16-byte views (BinaryView, StringView: Polars' layout), each
/// value's length then its bytes inline (up to 12) or a prefix, a buffer's index and an
/// offset into it.
#[derive(Clone)]
pub(crate) enum Layout<'a> {
    Offsets { offsets: &'a [u8], width: Width, data: &'a [u8] },
    Views { views: &'a [u8], buffers: Vec<&'a [u8]> },
}

/// Longest value a view holds inline.
const VIEW_INLINE: usize = 12;
const VIEW_LEN: usize = 16;

/// One variable-length column, its layout checked ([`Column::new`]).
#[derive(Clone)]
pub(crate) struct Column<'a> {
    layout: Layout<'a>,
    validity: Option<&'a [u8]>,
    offset: usize,
    len: usize,
}

fn read_i32(buffer: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(buffer[at..at + 4].try_into().expect("4 bytes"))
}

impl<'a> Column<'a> {
    /// Checks the buffers against Arrow's layout. `what` names the column in errors.
    pub(crate) fn new(
        what: &str,
        layout: Layout<'a>,
        validity: Option<&'a [u8]>,
        offset: usize,
        len: usize,
    ) -> Result<Self, BadInput> {
        let bad = |why: &str| Err(BadInput(format!("{what} is not a valid Arrow array: {why}")));
        let Some(end) = offset.checked_add(len) else { return bad("its length overflows") };
        if validity.is_some_and(|v| v.len() < end.div_ceil(8)) {
            return bad("its validity bitmap is too short");
        }
        let column = Column { layout, validity, offset, len };
        if len == 0 {
            return Ok(column);
        }
        match &column.layout {
            Layout::Offsets { offsets, width, data } => {
                if offsets.len() / width.bytes() <= end {
                    return bad("its offsets buffer is too short");
                }
                let first = column.raw(0);
                if first < 0 {
                    return bad("an offset is negative");
                }
                // In order and inside the data: then every value is, and `for_each`
                // may slice without a second look.
                let mut previous = first;
                let mut ordered = true;
                let raw = &offsets[offset * width.bytes()..(end + 1) * width.bytes()];
                match width {
                    Width::Bits32 => raw.chunks_exact(4).for_each(|b| {
                        let next = i64::from(i32::from_le_bytes(b.try_into().expect("4 bytes")));
                        ordered &= next >= previous;
                        previous = next;
                    }),
                    Width::Bits64 => raw.chunks_exact(8).for_each(|b| {
                        let next = i64::from_le_bytes(b.try_into().expect("8 bytes"));
                        ordered &= next >= previous;
                        previous = next;
                    }),
                }
                if !ordered || previous as u64 > data.len() as u64 {
                    return bad("its offsets decrease or point past its data");
                }
            }
            Layout::Views { views, buffers } => {
                if views.len() / VIEW_LEN < end {
                    return bad("its views buffer is too short");
                }
                // Only values that are not null are ever read.
                for i in (0..len).filter(|&i| column.is_valid(i)) {
                    let at = (offset + i) * VIEW_LEN;
                    let length = read_i32(views, at);
                    if length < 0 {
                        return bad("a view's length is negative");
                    }
                    if length as usize > VIEW_INLINE {
                        let (index, start) = (read_i32(views, at + 8), read_i32(views, at + 12));
                        let fits = usize::try_from(index)
                            .ok()
                            .and_then(|b| buffers.get(b))
                            .is_some_and(|b| start >= 0 && start as u64 + length as u64 <= b.len() as u64);
                        if !fits {
                            return bad("a view points past its data");
                        }
                    }
                }
            }
        }
        Ok(column)
    }

    fn raw(&self, i: usize) -> i64 {
        match &self.layout {
            Layout::Offsets { offsets, width, .. } => width.read(offsets, self.offset + i),
            Layout::Views { .. } => unreachable!("internal error: offsets of a view column"),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_valid(&self, i: usize) -> bool {
        let bit = self.offset + i;
        self.validity.is_none_or(|v| v[bit / 8] >> (bit % 8) & 1 == 1)
    }

    /// Value `i`, which is not null (a null's bytes are never read).
    pub(crate) fn value(&self, i: usize) -> &'a [u8] {
        match &self.layout {
            // Offsets checked non-negative, in order and inside the data in `new`.
            Layout::Offsets { data, .. } => &data[self.raw(i) as usize..self.raw(i + 1) as usize],
            Layout::Views { views, buffers } => {
                let at = (self.offset + i) * VIEW_LEN;
                let length = read_i32(views, at) as usize;
                if length <= VIEW_INLINE {
                    &views[at + 4..at + 4 + length]
                } else {
                    let (index, start) =
                        (read_i32(views, at + 8) as usize, read_i32(views, at + 12) as usize);
                    &buffers[index][start..start + length]
                }
            }
        }
    }

    /// Calls `f(i, value)` for each `i` in `range` in order, `None` for a null: the loop
    /// every pass over a column runs, with the layout matched once rather than per value
    /// (matched per value, it costs as much as the cipher on short values).
    #[inline(always)]
    pub(crate) fn for_each(&self, range: Range<usize>, mut f: impl FnMut(usize, Option<&'a [u8]>)) {
        if range.is_empty() {
            return;
        }
        let valid = |i: usize| self.is_valid(i);
        match &self.layout {
            Layout::Offsets { offsets, width: Width::Bits32, data } => {
                let starts = offsets[(self.offset + range.start) * 4..(self.offset + range.end + 1) * 4]
                    .chunks_exact(4)
                    .map(|b| i32::from_le_bytes(b.try_into().expect("4 bytes")) as usize);
                each_offset(range, starts, data, valid, f)
            }
            Layout::Offsets { offsets, width: Width::Bits64, data } => {
                let starts = offsets[(self.offset + range.start) * 8..(self.offset + range.end + 1) * 8]
                    .chunks_exact(8)
                    .map(|b| i64::from_le_bytes(b.try_into().expect("8 bytes")) as usize);
                each_offset(range, starts, data, valid, f)
            }
            Layout::Views { .. } => {
                for i in range {
                    f(i, valid(i).then(|| self.value(i)));
                }
            }
        }
    }
}

/// [`Column::for_each`] over offsets (`starts`: `range.len() + 1` of them, checked in
/// [`Column::new`]).
#[inline(always)]
fn each_offset<'a>(
    range: Range<usize>,
    mut starts: impl Iterator<Item = usize>,
    data: &'a [u8],
    valid: impl Fn(usize) -> bool,
    mut f: impl FnMut(usize, Option<&'a [u8]>),
) {
    let mut start = starts.next().expect("internal error: offsets of a range");
    for (i, end) in range.zip(starts) {
        f(i, valid(i).then(|| &data[start..end]));
        start = end;
    }
}

/// The associated data of each value: one for all, or a column's value of the same row.
pub(crate) enum Aad<'a> {
    Scalar(&'a [u8]),
    Column(Column<'a>),
}

impl<'a> Aad<'a> {
    pub(crate) fn get(&self, i: usize) -> &'a [u8] {
        match self {
            Aad::Scalar(aad) => aad,
            Aad::Column(column) => column.value(i),
        }
    }
}

/// What a result holds: its data's length and its number of nulls.
pub(crate) struct Sizes {
    pub(crate) data: usize,
    pub(crate) nulls: usize,
}

/// Checks value `i` (`len` bytes; `at` in the caller's numbering) and its associated data:
/// the length of its result.
fn check_one(mode: Mode, seal: bool, len: u64, aad: &Aad<'_>, i: usize, at: usize) -> Result<u64, BadInput> {
    let out = if seal {
        if len > P_MAX {
            return Err(too_long(format!(
                "value {at} is {len} bytes, over RFC 8452's limit of 2^36 bytes (64 GiB)"
            )));
        }
        len + mode.overhead() as u64
    } else {
        let body = len.checked_sub(mode.overhead() as u64).ok_or_else(|| {
            BadInput(format!(
                "value {at} is {len} bytes, shorter than {} ({}): not a value encrypted in {} mode",
                mode.overhead(),
                match mode {
                    Mode::Random => "nonce + tag",
                    Mode::Deterministic => "a tag",
                },
                mode.name(),
            ))
        })?;
        if body > P_MAX {
            return Err(too_long(format!(
                "value {at} is {len} bytes, over RFC 8452's limit of 2^36 bytes (64 GiB) of plaintext and its overhead"
            )));
        }
        body
    };
    if let Aad::Column(column) = aad {
        if !column.is_valid(i) {
            return Err(BadInput(format!("associated_data[{at}] is null where the value is not")));
        }
        let aad_len = column.value(i).len() as u64;
        if aad_len > A_MAX {
            return Err(too_long(format!(
                "the associated data of value {at} is {aad_len} bytes, over RFC 8452's limit of 2^36 bytes (64 GiB)"
            )));
        }
    }
    Ok(out)
}

/// Checks every value (and its associated data) of a seal (`seal`) or an open before any
/// work, and sizes the result. `base` is the index of `values`' first value in what the
/// caller passed (a chunk's place in a chunked array), for the errors.
pub(crate) fn check(
    mode: Mode,
    seal: bool,
    values: &Column<'_>,
    aad: &Aad<'_>,
    base: usize,
    width: Width,
) -> Result<Sizes, BadInput> {
    if let Aad::Column(column) = aad
        && column.len() != values.len()
    {
        return Err(BadInput(format!(
            "associated_data has {} values where the array has {}",
            column.len(),
            values.len()
        )));
    }
    let mut sizes = Sizes { data: 0, nulls: 0 };
    let mut total: u64 = 0;
    let mut refused = None;
    values.for_each(0..values.len(), |i, value| {
        if refused.is_some() {
            return;
        }
        match value {
            None => sizes.nulls += 1,
            Some(value) => match check_one(mode, seal, value.len() as u64, aad, i, base + i) {
                Ok(out) => total += out,
                Err(bad) => refused = Some(bad),
            },
        }
    });
    if let Some(bad) = refused {
        return Err(bad);
    }
    if total > width.max() {
        return Err(BadInput(format!(
            "the result would hold {total} bytes, more than an array with 32-bit offsets can \
             (2^31 - 1): pass a large_binary array (array.cast(pyarrow.large_binary())), or smaller chunks"
        )));
    }
    sizes.data = total as usize;
    Ok(sizes)
}

/// How values are encrypted.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Random,
    Deterministic,
}

impl Mode {
    /// Bytes a stored value holds beyond its plaintext.
    pub(crate) fn overhead(self) -> usize {
        match self {
            Mode::Random => NONCE_LEN + TAG_LEN,
            Mode::Deterministic => TAG_LEN,
        }
    }
}

impl Mode {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Mode::Random => "random",
            Mode::Deterministic => "deterministic",
        }
    }
}

/// Writes the result's offsets (`values.len() + 1` of `width`, from 0): each non-null
/// value's length `plus` or `minus` its mode's overhead, each null's zero. Returns them.
pub(crate) fn write_offsets<'o>(
    values: &Column<'_>,
    mode: Mode,
    seal: bool,
    width: Width,
    out: &'o mut [MaybeUninit<u8>],
) -> &'o [u8] {
    let w = width.bytes();
    assert_eq!(out.len(), (values.len() + 1) * w, "internal error: offsets buffer size");
    let out = crate::buffer::init_zero(out);
    let overhead = mode.overhead();
    let mut at = 0usize;
    let mut put = |i: usize, at: usize| match width {
        Width::Bits32 => out[i * 4..i * 4 + 4].copy_from_slice(&(at as i32).to_le_bytes()),
        Width::Bits64 => out[i * 8..i * 8 + 8].copy_from_slice(&(at as i64).to_le_bytes()),
    };
    put(0, 0);
    values.for_each(0..values.len(), |i, value| {
        if let Some(value) = value {
            at += if seal { value.len() + overhead } else { value.len() - overhead };
        }
        put(i + 1, at);
    });
    out
}

/// Reads offset `i` of a result's offsets buffer.
pub(crate) fn offset_at(offsets: &[u8], width: Width, i: usize) -> usize {
    width.read(offsets, i) as usize
}

/// Writes a result's validity bitmap: value `i` valid where it is in `values` and not in
/// `failed` (sorted indices). Bits past the last value are zero.
pub(crate) fn write_validity(values: &Column<'_>, failed: &[usize], out: &mut [MaybeUninit<u8>]) {
    assert_eq!(out.len(), values.len().div_ceil(8), "internal error: bitmap size");
    let out = crate::buffer::init_zero(out);
    for i in 0..values.len() {
        if values.is_valid(i) {
            out[i / 8] |= 1 << (i % 8);
        }
    }
    for &i in failed {
        out[i / 8] &= !(1 << (i % 8));
    }
}

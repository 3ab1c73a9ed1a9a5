//! The 128-bit primitives of the batch groups: `L` messages side by side, one
//! lane per register. Round keys of every lane in one array
//! ([`LaneKeyMemory`], lent by the batch call and wiped once), AES rounds
//! under per-lane keys read straight from it (`lanes4!`), key expansion four
//! lanes per instruction, CTR one block of every lane at a time, and POLYVAL
//! by Horner's rule over each lane ([`GroupHash`]). The traits [`LaneKeys`]
//! and [`LaneHash`] are what `vaes.rs` implements for lanes in pairs and
//! quads; `group.rs` drives them.

use super::aes::RCON;
use super::array;
use super::clmul::{clmul_at, dot, fold_halves, reduce_karatsuba};
use super::load::{load_padded, load_partial, store_partial};
use super::siv_blocks::lengths;
use crate::backend::Block;
use core::arch::x86_64::*;
use core::mem::MaybeUninit;
use zeroize::Zeroize;

/// Round keys of each lane (entries past NR unused): lane `l`'s round key `r`
/// is 240 l + 16 r bytes from the start. Left uninitialized, not zeroed (2 KB
/// of stores per group): key expansion writes rounds 0..=NR of every lane
/// before anything reads them, and nothing reads past NR.
pub(super) type Schedules<const L: usize> = [[MaybeUninit<__m128i>; 15]; L];

/// Bytes of round keys of the largest group: [`Schedules`] of
/// [`WIDE_GROUP`](crate::backend::WIDE_GROUP) lanes, or the same lanes in
/// pairs (`vaes.rs`).
pub(super) const LANE_KEY_BYTES: usize = crate::backend::WIDE_GROUP * 15 * 16;

/// The memory a batch call lends each of its groups for their round keys
/// ([`LaneKeys::place`]). Each group's key expansion writes every entry it
/// later reads, so the groups share it without clearing it in between, and
/// it is wiped once, as the batch call returns (a wipe after each group
/// costs one store per round key and lane).
#[repr(C, align(32))]
pub(crate) struct LaneKeyMemory {
    bytes: [MaybeUninit<u8>; LANE_KEY_BYTES],
    /// Bytes from the start that a group may have written.
    used: usize,
}

impl Default for LaneKeyMemory {
    /// Uninitialized (nothing written, nothing to wipe).
    fn default() -> Self {
        LaneKeyMemory { bytes: [MaybeUninit::uninit(); LANE_KEY_BYTES], used: 0 }
    }
}

impl Drop for LaneKeyMemory {
    fn drop(&mut self) {
        self.bytes[..self.used].zeroize();
    }
}

/// One AES instruction (`pxor` for round 0, `aesenc`, `aesenclast`) on four
/// blocks, block `i` with the round key `240 i` bytes past `$key`: the same
/// round of four consecutive lanes. One `asm!` block so the four stay side by
/// side (the compiler's scheduler otherwise groups rounds block by block), with
/// the round keys as memory operands (16-byte aligned, as `__m128i` is).
macro_rules! lanes4 {
    ($ins:literal, $b:expr, $key:expr) => {{
        let b: &mut [__m128i; 4] = $b;
        let key: &MaybeUninit<__m128i> = $key;
        // SAFETY: reads the round keys at 0, 240, 480 and 720 bytes from
        // `key`, inside the four rows of the schedules array it points into
        // (each caller passes row 0 of four rows of a `Schedules`), written by
        // key expansion before any round runs; registers otherwise; every
        // caller enables AES-NI.
        unsafe {
            core::arch::asm!(
                concat!($ins, " {b0}, xmmword ptr [{k}]"),
                concat!($ins, " {b1}, xmmword ptr [{k} + 240]"),
                concat!($ins, " {b2}, xmmword ptr [{k} + 480]"),
                concat!($ins, " {b3}, xmmword ptr [{k} + 720]"),
                k = in(reg) key.as_ptr(),
                b0 = inout(xmm_reg) b[0],
                b1 = inout(xmm_reg) b[1],
                b2 = inout(xmm_reg) b[2],
                b3 = inout(xmm_reg) b[3],
                options(readonly, nostack, preserves_flags),
            )
        }
    }};
}

/// One AES instruction (`aesenc`, `aesenclast`) on sixteen blocks under one
/// round key, read from memory: with every vector register holding a block,
/// the AES units see sixteen independent chains, twice the eight their
/// latency needs, so one chain's ramp-down overlaps the next one's ramp-up.
macro_rules! blocks16 {
    ($ins:literal, $b:expr, $key:expr) => {{
        let b: &mut [__m128i; 16] = $b;
        let key: &__m128i = $key;
        // SAFETY: reads the 16 bytes of `key`; registers otherwise; every
        // caller enables AES-NI.
        unsafe {
            core::arch::asm!(
                concat!($ins, " {b0}, xmmword ptr [{k}]"),
                concat!($ins, " {b1}, xmmword ptr [{k}]"),
                concat!($ins, " {b2}, xmmword ptr [{k}]"),
                concat!($ins, " {b3}, xmmword ptr [{k}]"),
                concat!($ins, " {b4}, xmmword ptr [{k}]"),
                concat!($ins, " {b5}, xmmword ptr [{k}]"),
                concat!($ins, " {b6}, xmmword ptr [{k}]"),
                concat!($ins, " {b7}, xmmword ptr [{k}]"),
                concat!($ins, " {b8}, xmmword ptr [{k}]"),
                concat!($ins, " {b9}, xmmword ptr [{k}]"),
                concat!($ins, " {b10}, xmmword ptr [{k}]"),
                concat!($ins, " {b11}, xmmword ptr [{k}]"),
                concat!($ins, " {b12}, xmmword ptr [{k}]"),
                concat!($ins, " {b13}, xmmword ptr [{k}]"),
                concat!($ins, " {b14}, xmmword ptr [{k}]"),
                concat!($ins, " {b15}, xmmword ptr [{k}]"),
                k = in(reg) key,
                b0 = inout(xmm_reg) b[0],
                b1 = inout(xmm_reg) b[1],
                b2 = inout(xmm_reg) b[2],
                b3 = inout(xmm_reg) b[3],
                b4 = inout(xmm_reg) b[4],
                b5 = inout(xmm_reg) b[5],
                b6 = inout(xmm_reg) b[6],
                b7 = inout(xmm_reg) b[7],
                b8 = inout(xmm_reg) b[8],
                b9 = inout(xmm_reg) b[9],
                b10 = inout(xmm_reg) b[10],
                b11 = inout(xmm_reg) b[11],
                b12 = inout(xmm_reg) b[12],
                b13 = inout(xmm_reg) b[13],
                b14 = inout(xmm_reg) b[14],
                b15 = inout(xmm_reg) b[15],
                options(readonly, nostack, preserves_flags),
            )
        }
    }};
}

/// Round `r` of AES on one block per lane, each under its lane's schedule.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn round_lanes<const NR: usize, const L: usize>(
    x: &mut [__m128i; L],
    rk: &Schedules<L>,
    r: usize,
) {
    for (b, k) in x.chunks_exact_mut(4).zip(rk.chunks_exact(4)) {
        let b: &mut [__m128i; 4] = b.try_into().expect("four lanes");
        let k: &[[MaybeUninit<__m128i>; 15]; 4] = k.try_into().expect("four lanes");
        if r == 0 {
            lanes4!("pxor", b, &k[0][0]);
        } else if r < NR {
            lanes4!("aesenc", b, &k[0][r]);
        } else {
            lanes4!("aesenclast", b, &k[0][NR]);
        }
    }
}

/// AES of one block per lane, each under its lane's schedule.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn encrypt_lanes<const NR: usize, const L: usize>(x: &mut [__m128i; L], rk: &Schedules<L>) {
    // On a local copy: the rounds' `asm!` reads memory (the round keys), so
    // blocks behind a reference would be stored back before every round.
    let mut y = *x;
    round_lanes::<NR, L>(&mut y, rk, 0);
    for r in 1..NR {
        round_lanes::<NR, L>(&mut y, rk, r);
    }
    round_lanes::<NR, L>(&mut y, rk, NR);
    *x = y;
}

/// A 4x4 transpose of 32-bit words: register `j` of the result holds word `j`
/// of each input, in order (and back again: it is its own inverse).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn transpose(x: [__m128i; 4]) -> [__m128i; 4] {
    let t0 = _mm_unpacklo_epi32(x[0], x[1]);
    let t1 = _mm_unpacklo_epi32(x[2], x[3]);
    let t2 = _mm_unpackhi_epi32(x[0], x[1]);
    let t3 = _mm_unpackhi_epi32(x[2], x[3]);
    [
        _mm_unpacklo_epi64(t0, t1),
        _mm_unpackhi_epi64(t0, t1),
        _mm_unpacklo_epi64(t2, t3),
        _mm_unpackhi_epi64(t2, t3),
    ]
}

/// `pshufb` masks that place word `c` of a register in column `c` of an AES
/// state pre-shifted by the inverse of ShiftRows, rotated (RotWord) or not:
/// `aesenclast` of the result is then SubWord(RotWord(word c)) (or SubWord)
/// in every column `c` at once, XORed with its round key (Rcon or zero).
/// Byte `r + 4c` (row `r`, column `c`) takes byte `(r + 1) % 4` (or `r`) of
/// word `(c - r) mod 4`.
pub(super) const fn sub_word_mask(rotate: bool) -> [u8; 16] {
    let mut m = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        let (r, c) = (i % 4, i / 4);
        m[i] = (4 * ((c + 4 - r) % 4) + if rotate { (r + 1) % 4 } else { r }) as u8;
        i += 1;
    }
    m
}

/// Registers of a transposed key expansion: register `j` of a quad holds
/// word `j` of four lanes' keys (`__m128i`), or of four lane pairs'
/// (`__m256i`, `vaes.rs`). The methods are used only inside functions that
/// enable the instructions they need.
pub(super) trait Words: Copy {
    /// All zero.
    fn zero() -> Self;
    /// `a ^ b`.
    ///
    /// # Safety
    /// The caller enables the implementation's features.
    unsafe fn xor(self, other: Self) -> Self;
    /// SubWord(RotWord(w)) ^ Rcon (or SubWord(w) with `rotate` false and
    /// `rcon` 0) of the last word of each lane, in every word.
    ///
    /// # Safety
    /// As [`Words::xor`].
    unsafe fn sub_word(self, rotate: bool, rcon: i32) -> Self;
    /// The 4x4 transpose of 32-bit words (in each 128-bit half).
    ///
    /// # Safety
    /// As [`Words::xor`].
    unsafe fn transpose(x: [Self; 4]) -> [Self; 4];
}

impl Words for __m128i {
    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { _mm_setzero_si128() }
    }
    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { _mm_xor_si128(self, other) }
    }
    #[inline(always)]
    unsafe fn sub_word(self, rotate: bool, rcon: i32) -> Self {
        // SAFETY: 16 readable bytes; the caller enables SSSE3 and AES-NI.
        unsafe {
            let mask = _mm_loadu_si128(sub_word_mask(rotate).as_ptr().cast());
            _mm_aesenclast_si128(_mm_shuffle_epi8(self, mask), _mm_set1_epi32(rcon))
        }
    }
    #[inline(always)]
    unsafe fn transpose(x: [Self; 4]) -> [Self; 4] {
        // SAFETY: as above.
        unsafe { transpose(x) }
    }
}

/// Key expansion (FIPS 197) of `quads` quads of lanes, transposed: `k0[q]`
/// holds the first key block of quad `q`'s four lanes (or pairs), `k1[q]`
/// the second (AES-256). Each round key of a quad goes to `put(q, r,
/// keys)`, keys in lane order.
///
/// Transposed, register `j` holds word `j` of each lane's key, so one
/// `aesenclast` does the lanes' SubWord and four XORs their prefix sums,
/// where lane by lane each takes a dozen instructions. The round keys are
/// transposed back to be stored and used.
///
/// Each quad's expansion is one chain of dependent steps; the quads run
/// side by side, round by round, so the core has chains to overlap.
/// Nothing rides on it (the tags or first counter blocks did once, which
/// kept one chain per quad): what needs the round keys afterwards runs with
/// every lane in flight.
///
/// # Safety
/// The caller enables `W`'s features.
#[inline(always)]
pub(super) unsafe fn expand_transposed<W: Words, const NR: usize, const Q: usize>(
    quads: usize,
    k0: &[[W; 4]; Q],
    k1: &[[W; 4]; Q],
    mut put: impl FnMut(usize, usize, [W; 4]),
) {
    debug_assert!(quads <= Q);
    // SAFETY (the whole body): the caller enables `W`'s features.
    unsafe {
        // w_{j} ^= t, then each word takes the previous one's new value: the
        // prefix XOR of the key schedule, four lanes at once.
        let chain = |w: &mut [W; 4], t: W| {
            w[0] = w[0].xor(t);
            w[1] = w[1].xor(w[0]);
            w[2] = w[2].xor(w[1]);
            w[3] = w[3].xor(w[2]);
        };
        let (mut w, mut v) = ([[W::zero(); 4]; Q], [[W::zero(); 4]; Q]);
        for q in 0..quads {
            put(q, 0, k0[q]);
            w[q] = W::transpose(k0[q]);
            if NR == 14 {
                put(q, 1, k1[q]);
                v[q] = W::transpose(k1[q]);
            }
        }
        if NR == 10 {
            for (r, &rcon) in (1..=NR).zip(&RCON) {
                for (q, w) in w[..quads].iter_mut().enumerate() {
                    let t = w[3].sub_word(true, rcon);
                    chain(w, t);
                    put(q, r, W::transpose(*w));
                }
            }
        } else {
            for r in 2..=NR {
                for q in 0..quads {
                    // FIPS 197 for Nk = 8: SubWord(RotWord) with Rcon for
                    // even round keys, SubWord alone for odd ones.
                    if r % 2 == 0 {
                        let t = v[q][3].sub_word(true, RCON[r / 2 - 1]);
                        chain(&mut w[q], t);
                        put(q, r, W::transpose(w[q]));
                    } else {
                        let t = w[q][3].sub_word(false, 0);
                        chain(&mut v[q], t);
                        put(q, r, W::transpose(v[q]));
                    }
                }
            }
        }
    }
}

/// Key expansion of each lane's record key (`k[l]`: one block for AES-128,
/// two for AES-256) into `rk`, the quads of lanes in lockstep
/// ([`expand_transposed`]).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn expand_lanes<const NR: usize, const L: usize>(k: &[[__m128i; 2]; L], rk: &mut Schedules<L>) {
    pub(super) const MAX_QUADS: usize = crate::backend::WIDE_GROUP / 4;
    debug_assert!(L.is_multiple_of(4) && L / 4 <= MAX_QUADS);
    let block = |b: usize| -> [[__m128i; 4]; MAX_QUADS] {
        array(|q| array(|i| if 4 * q < L { k[4 * q + i][b] } else { k[0][b] }))
    };
    let (k0, k1) = (block(0), block(1));
    let put = |q: usize, r: usize, keys: [__m128i; 4]| {
        for (schedule, key) in rk[4 * q..4 * q + 4].iter_mut().zip(keys) {
            schedule[r].write(key);
        }
    };
    // SAFETY: this function enables SSSE3 and AES-NI.
    unsafe { expand_transposed::<__m128i, NR, MAX_QUADS>(L / 4, &k0, &k1, put) }
}

/// XORs `keystream` into block `j` of `data`, if it has one (the last may be partial).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn xor_block(data: &mut [u8], j: usize, keystream: __m128i) {
    let Some(rest) = data.get_mut(16 * j..) else { return };
    if rest.len() >= 16 {
        let p = rest.as_mut_ptr().cast::<__m128i>();
        // SAFETY: 16 readable and writable bytes; SSE2 is part of x86-64.
        unsafe { _mm_storeu_si128(p, _mm_xor_si128(_mm_loadu_si128(p), keystream)) };
    } else if !rest.is_empty() {
        store_partial(rest, _mm_xor_si128(load_partial(rest), keystream));
    }
}

/// CTR over each lane's data from `ctr0[l]` (the tag with its top bit set)
/// under its schedule, one block of every lane at a time.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn ctr_lanes<const NR: usize, const L: usize>(
    rk: &Schedules<L>,
    ctr0: &[__m128i; L],
    data: &mut [&mut [u8]; L],
) {
    let blocks = data.iter().map(|d| d.len().div_ceil(16)).max().unwrap_or(0);
    for j in 0..blocks {
        let step = _mm_setr_epi32(j as i32, 0, 0, 0);
        let mut ks: [__m128i; L] = array(|l| _mm_add_epi32(ctr0[l], step));
        encrypt_lanes::<NR, L>(&mut ks, rk);
        for (d, k) in data.iter_mut().zip(&ks) {
            xor_block(d, j, *k);
        }
    }
}

/// A group's round keys and the AES rounds that read them: one row per lane
/// and one block per instruction ([`Schedules`], any CPU with AES-NI), or
/// lanes in pairs and two blocks per instruction
/// (`PairSchedules` (`vaes.rs`), `aesni-vaes`). The
/// group's steps (`group.rs`, `seal_with`) are written once over it.
///
/// # Safety
/// Implementors are arrays of `MaybeUninit` (valid for any bytes, written
/// or not), as [`LaneKeys::place`] assumes.
pub(super) unsafe trait LaneKeys<const NR: usize, const L: usize> {
    /// POLYVAL of the lanes, laid out as the round keys are.
    type Hash: LaneHash<L>;
    /// Whether the lanes' POLYVAL may run four lanes per instruction where
    /// the CPU has AVX-512 (`vaes.rs`, `group_hash_zmm`).
    const QUADS: bool = false;
    /// The round keys' storage in `memory`, not yet written here (anything
    /// an earlier group left): every entry read is written by
    /// [`Self::expand`] first. Wiped as `memory` drops.
    fn place(memory: &mut LaneKeyMemory) -> &mut Self
    where
        Self: Sized,
    {
        const { assert!(size_of::<Self>() <= LANE_KEY_BYTES && align_of::<Self>() <= 32) };
        memory.used = memory.used.max(size_of::<Self>());
        // SAFETY: in bounds and aligned (checked above); valid for any
        // bytes (the trait's contract); the borrow of `memory` is exclusive.
        unsafe { &mut *memory.bytes.as_mut_ptr().cast::<Self>() }
    }
    /// Key expansion of each lane's record key (`k[l]`: one block for
    /// AES-128, two for AES-256).
    ///
    /// # Safety
    /// The CPU must support the implementation's features.
    unsafe fn expand(&mut self, k: &[[__m128i; 2]; L]);
    /// AES of one block per lane, each under its lane's keys.
    ///
    /// # Safety
    /// As [`Self::expand`], which must have run.
    unsafe fn encrypt(&self, x: &mut [__m128i; L]);
    /// CTR over each lane's data from `ctr0[l]` (the tag with its top bit set).
    ///
    /// # Safety
    /// As [`Self::encrypt`].
    unsafe fn ctr(&self, ctr0: &[__m128i; L], data: &mut [&mut [u8]; L]);
}

// SAFETY: an array of `MaybeUninit`.
unsafe impl<const NR: usize, const L: usize> LaneKeys<NR, L> for Schedules<L> {
    type Hash = Lanes<L>;
    #[inline(always)]
    unsafe fn expand(&mut self, k: &[[__m128i; 2]; L]) {
        // SAFETY: the caller's CPU supports AES-NI and the rest of the set.
        unsafe { expand_lanes::<NR, L>(k, self) }
    }
    #[inline(always)]
    unsafe fn encrypt(&self, x: &mut [__m128i; L]) {
        // SAFETY: as above; expanded.
        unsafe { encrypt_lanes::<NR, L>(x, self) }
    }
    #[inline(always)]
    unsafe fn ctr(&self, ctr0: &[__m128i; L], data: &mut [&mut [u8]; L]) {
        // SAFETY: as above; expanded.
        unsafe { ctr_lanes::<NR, L>(self, ctr0, data) }
    }
}

/// POLYVAL(H_l, AAD_l padded, message_l padded, length block_l) for each lane by
/// Horner's rule, the lanes' multiplications interleaved. Shorter lanes are
/// padded with leading zero blocks, which leave the accumulator at zero, so
/// every lane takes the same steps.
///
/// # Safety
/// The CPU must support the enabled features.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn polyval_unequal<const L: usize>(
    h: &[__m128i; L],
    aads: &[&[u8]; L],
    msgs: &[&mut [u8]; L],
) -> [__m128i; L] {
    let mut s = [_mm_setzero_si128(); L];
    let aad_blocks: [usize; L] = array(|l| aads[l].len().div_ceil(16));
    let counts: [usize; L] = array(|l| aad_blocks[l] + msgs[l].len().div_ceil(16) + 1);
    let most = counts.iter().copied().max().unwrap_or(0);
    for j in 0..most {
        for l in 0..L {
            let Some(i) = (j + counts[l]).checked_sub(most) else { continue };
            let x = if i < aad_blocks[l] {
                load_padded(&aads[l][16 * i..aads[l].len().min(16 * i + 16)])
            } else if i + 1 < counts[l] {
                let m = 16 * (i - aad_blocks[l]);
                load_padded(&msgs[l][m..msgs[l].len().min(m + 16)])
            } else {
                lengths(aads[l].len(), msgs[l].len())
            };
            s[l] = dot(_mm_xor_si128(s[l], x), h[l]);
        }
    }
    s
}

/// Where block `j` of each lane's POLYVAL input comes from when every lane
/// has `a` bytes of AAD and `m` of message: `(true, offset, n)` for AAD
/// bytes, `(false, offset, n)` for message bytes (`n` at most 16, the last
/// block of each zero-padded), `None` for the length block.
#[inline(always)]
pub(super) fn source(j: usize, a: usize, m: usize) -> Option<(bool, usize, usize)> {
    let aad_blocks = a.div_ceil(16);
    if j < aad_blocks {
        Some((true, 16 * j, (a - 16 * j).min(16)))
    } else if 16 * (j - aad_blocks) < m {
        let off = 16 * (j - aad_blocks);
        Some((false, off, (m - off).min(16)))
    } else {
        None
    }
}

/// The keys and accumulators of POLYVAL for a group's lanes: one lane per
/// register (`Lanes`) or lanes in pairs (`vaes.rs`). The keys are wiped when
/// it is dropped.
pub(super) trait LaneHash<const L: usize>: Sized {
    /// Accumulators at zero under each lane's `h[l]`.
    ///
    /// # Safety
    /// The CPU must support the implementation's features.
    unsafe fn new(h: &[__m128i; L]) -> Self;
    /// One Horner step in every lane: `s_l = (s_l ^ x(l)) * H_l`.
    ///
    /// # Safety
    /// As [`LaneHash::new`].
    unsafe fn absorb(&mut self, x: impl Fn(usize) -> __m128i);
    /// Each lane's accumulator.
    ///
    /// # Safety
    /// As [`LaneHash::new`].
    unsafe fn sums(&self) -> [__m128i; L];
}

/// POLYVAL(H_l, AAD_l, message_l, length block) for a group's lanes, a
/// block of every lane at a time (all the lanes' chains side by side). When
/// every lane has the same AAD and message lengths (a batch of equal
/// records, the common case), each block is the same step for every lane,
/// without per-lane decisions; otherwise [`polyval_unequal`] runs at once.
pub(super) enum GroupHash<'a, const L: usize, H> {
    /// Equal lengths: `done` of the lanes' blocks absorbed so far.
    Equal {
        lanes: H,
        aad: [*const u8; L],
        msg: [*const u8; L],
        a: usize,
        m: usize,
        done: usize,
        inputs: core::marker::PhantomData<&'a [u8]>,
    },
    /// Unequal lengths, already hashed.
    Done([__m128i; L]),
}

impl<'a, const L: usize, H: LaneHash<L>> GroupHash<'a, L, H> {
    /// Ready to hash each lane's AAD and message under its `h[l]`.
    ///
    /// # Safety
    /// The CPU must support `H`'s features and the baseline set.
    #[inline(always)]
    pub(super) unsafe fn new(h: &[__m128i; L], aads: &'a [&'a [u8]; L], msgs: &'a [&'a mut [u8]; L]) -> Self {
        let (a, m) = (aads[0].len(), msgs[0].len());
        if !(aads.iter().all(|x| x.len() == a) && msgs.iter().all(|x| x.len() == m)) {
            // SAFETY: the caller's CPU supports the baseline set.
            return Self::Done(unsafe { polyval_unequal(h, aads, msgs) });
        }
        Self::Equal {
            // SAFETY: as the caller's.
            lanes: unsafe { H::new(h) },
            // Raw pointers, not an array of slices: the slices cost copies and
            // bounds checks in the unrolled loop.
            aad: array(|l| aads[l].as_ptr()),
            msg: array(|l| msgs[l].as_ptr()),
            a,
            m,
            done: 0,
            inputs: core::marker::PhantomData,
        }
    }

    /// Blocks per lane, length block included (0 once hashed).
    #[inline(always)]
    pub(super) fn blocks(&self) -> usize {
        match self {
            Self::Equal { a, m, .. } => a.div_ceil(16) + m.div_ceil(16) + 1,
            Self::Done(_) => 0,
        }
    }

    /// Absorbs every lane's blocks up to `upto`.
    ///
    /// # Safety
    /// As [`Self::new`].
    #[inline(always)]
    pub(super) unsafe fn run_to(&mut self, upto: usize) {
        let blocks = self.blocks();
        let Self::Equal { lanes, aad, msg, a, m, done, .. } = self else { return };
        while *done < upto.min(blocks) {
            // SAFETY (all): the caller's features; every lane has `a` bytes
            // of AAD and `m` of message, and `source` stays inside them.
            unsafe {
                match source(*done, *a, *m) {
                    Some((is_aad, off, n)) => {
                        let input = if is_aad { &*aad } else { &*msg };
                        if n == 16 {
                            lanes.absorb(|l| _mm_loadu_si128(input[l].add(off).cast()));
                        } else {
                            lanes.absorb(|l| load_partial(core::slice::from_raw_parts(input[l].add(off), n)));
                        }
                    }
                    None => {
                        let lengths = lengths(*a, *m);
                        lanes.absorb(|_| lengths);
                    }
                }
            }
            *done += 1;
        }
    }

    /// Absorbs what is left and returns each lane's POLYVAL (the keys are
    /// wiped as `self` drops).
    ///
    /// # Safety
    /// As [`Self::new`].
    #[inline(always)]
    pub(super) unsafe fn finish(mut self) -> [__m128i; L] {
        // SAFETY: as the caller's.
        unsafe {
            self.run_to(usize::MAX);
            match &self {
                Self::Equal { lanes, .. } => lanes.sums(),
                Self::Done(s) => *s,
            }
        }
    }
}

/// One Horner step by Karatsuba: three multiplications rather than four,
/// with `hf` the halves of `h` folded once. The keys are read from memory by
/// the multiplications ([`clmul_at`]): held in registers, eight lanes' keys
/// and accumulators do not fit, and the spilled copies were not wiped.
#[inline(always)]
pub(super) fn karatsuba_step(s: &mut __m128i, x: __m128i, h: &__m128i, hf: &__m128i) {
    // SAFETY: inlined only into functions that enable PCLMULQDQ.
    unsafe {
        let a = _mm_xor_si128(*s, x);
        let lo = clmul_at::<0x00>(a, h);
        let hi = clmul_at::<0x11>(a, h);
        *s = reduce_karatsuba(lo, hi, clmul_at::<0x00>(fold_halves(a), hf));
    }
}

/// [`LaneHash`] one lane per register: each lane's H and folded H, and its
/// accumulator.
pub(super) struct Lanes<const L: usize> {
    h: [__m128i; L],
    hf: [__m128i; L],
    s: [__m128i; L],
}

impl<const L: usize> LaneHash<L> for Lanes<L> {
    #[inline(always)]
    unsafe fn new(h: &[__m128i; L]) -> Self {
        // SAFETY: as the caller's (SSE2 at least).
        unsafe { Self { h: *h, hf: array(|l| fold_halves(h[l])), s: [_mm_setzero_si128(); L] } }
    }

    #[inline(always)]
    unsafe fn absorb(&mut self, x: impl Fn(usize) -> __m128i) {
        // Every lane's step side by side: L chains of multiplications, as
        // many as fill the multiplier.
        for l in 0..L {
            karatsuba_step(&mut self.s[l], x(l), &self.h[l], &self.hf[l]);
        }
    }

    #[inline(always)]
    unsafe fn sums(&self) -> [__m128i; L] {
        self.s
    }
}

impl<const L: usize> Drop for Lanes<L> {
    fn drop(&mut self) {
        self.h.zeroize();
        self.hf.zeroize();
    }
}

/// The lanes' blocks as bytes.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn blocks<const L: usize>(x: &[__m128i; L]) -> [Block; L] {
    let mut out = [[0u8; 16]; L];
    for (o, x) in out.iter_mut().zip(x) {
        // SAFETY: 16 writable bytes.
        unsafe { _mm_storeu_si128(o.as_mut_ptr().cast(), *x) };
    }
    out
}

pub(super) use blocks16;

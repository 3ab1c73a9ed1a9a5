//! The 512-bit passes of the `vaes512` tier, four blocks per instruction:
//! CTR, POLYVAL's aggregated step sixteen blocks per reduction, and the two
//! stitched in one pass (GCM-SIV decryption, GCM both ways). Each takes the
//! whole 256-byte chunks of its input and returns how far it got; the tier
//! (`mod.rs`) runs the shared 256-bit passes (`pass256.rs`) for the rest.
//!
//! Every function here carries the 256-bit set of target features and
//! AVX-512 F, BW and VL; callers reach it only through a key whose
//! [`Features`](super::super::Features) name the `vaes512` tier.

use super::super::aes::Schedule;
use super::super::array;
use super::super::clmul::Powers;
use super::super::load::byte_reverse_mask;
use super::super::pass128::Stitch;
use super::super::vaes::{Keys512, encrypt_chunk};
use super::zmm::*;
use crate::backend::{Block, InOut};
use core::arch::x86_64::*;

/// `pass256.rs`'s `ctr32_ymm` over whole 256-byte chunks (input to
/// output), four registers of four blocks (limits table: 0.117 against 0.120 c/B for AES-128, 0.163
/// against 0.173 for AES-256). Returns the bytes processed.
///
/// # Safety
/// The CPU must support the enabled features.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn ctr32_zmm<const NR: usize, const BE: bool, const PUBLIC: bool>(
    key: &Schedule<NR>,
    counter: &Block,
    mut data: InOut<'_>,
) -> usize {
    let chunks = data.len() / 256;
    let mut counters = ChunkCounters::<BE, PUBLIC>::new(counter_quad::<BE>(counter));
    let (input, output) = (data.input_ptr(), data.output_ptr());
    for c in 0..chunks {
        let mut b = counters.next();
        encrypt_chunk!(round4x4, "vpxorq", &mut b, &key.rk, NR);
        for (k, x) in b.iter().enumerate() {
            // SAFETY: register k of chunk c, inside the input and the
            // output (c < chunks).
            unsafe {
                let at = 256 * c + 64 * k;
                let x = _mm512_xor_si512(_mm512_loadu_si512(input.add(at).cast()), *x);
                _mm512_storeu_si512(output.add(at).cast(), x);
            }
        }
    }
    chunks * 256
}

/// A 512-bit pass that finishes a message (see `Tier::ctr_stitched`)
/// takes a tail longer than this as one more chunk under a mask. Shorter
/// tails take a 128-byte chunk of the 256-bit pass (from 128 bytes) and
/// then `blocks.rs`'s `stitched_tail`, which run AES on the blocks there
/// are rather than on sixteen: the masked chunk pays from about 176 bytes.
const FINAL_CHUNK_FROM: usize = 176;

/// `pass256.rs`'s `polyval_chunks_ymm` four blocks per instruction (512-bit registers),
/// sixteen blocks per reduction. Each 256-byte chunk's blocks are multiplied
/// by H^16..H^1 without the running sum S, whose product S H^16 is taken
/// apart (one 128-bit Karatsuba product) and added before the reduction:
/// the chain from one chunk's S to the next is then that product and the
/// reduction, not the sixteen-block sum and its 512-to-128-bit folding
/// (0.126 c/B at 16 KiB against 0.139 with S in the first block). The
/// stitched pass, whose chunks take longer, adds S to the first block
/// instead: three products fewer per chunk.
/// Returns S and the bytes absorbed (whole 256-byte chunks).
///
/// # Safety
/// The CPU must support the enabled features (AVX-512 F, BW and VL besides).
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
pub(in super::super) unsafe fn polyval_chunks_zmm<const REVERSED: bool>(
    mut s: __m128i,
    powers: &Powers,
    blocks: &[u8],
) -> (__m128i, usize) {
    let chunks = blocks.len() / 256;
    if chunks == 0 {
        return (s, 0);
    }
    let p = blocks.as_ptr();
    let sixteen = Sixteen::new(powers);
    for c in 0..chunks {
        // SAFETY: chunk c lies inside `blocks` (c < chunks).
        s = unsafe { sixteen.absorb::<REVERSED>(s, p.add(256 * c)) };
    }
    (s, chunks * 256)
}

/// `pass256.rs`'s `ctr_stitched_wide` over whole 256-byte chunks with 512-bit
/// registers, for CPUs with AVX-512: CTR of sixteen blocks in four
/// registers ([`round4x4!`]) and POLYVAL's sixteen-block step as in
/// [`polyval_chunks_zmm`] (four blocks per `vpclmulqdq`, which on Zen 4
/// issues as often as a 256-bit one), the four products between the
/// first rounds. A pass that hashes its output hashes one chunk (256
/// bytes) behind CTR. Returns the bytes processed, and whether the pass
/// finished the message (with `lengths`, when its tail was long enough
/// for [`final_ctr_zmm`]: the length block absorbed too);
/// otherwise the caller goes on from counter + bytes / 16.
///
/// # Safety
/// The CPU must support the enabled features.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn ctr_stitched_zmm<const NR: usize, const BE: bool, const PUBLIC: bool>(
    key: &Schedule<NR>,
    counter: &Block,
    data: InOut<'_>,
    state: &mut __m128i,
    powers: &Powers,
    mode: Stitch,
    keys: Option<&Keys512<NR>>,
    lengths: Option<__m128i>,
) -> (usize, bool) {
    let chunks = data.len() / 256;
    if chunks == 0 {
        return (0, false);
    }
    let mut built;
    let keys = match keys {
        Some(keys) => Some(keys),
        None if data.len() >= KEYS512_FROM => {
            // SAFETY: filled on the next line.
            built = unsafe { Keys512::<NR>::empty() };
            built.fill(&key.rk);
            Some(&built)
        }
        None => None,
    };
    // SAFETY (both): as this function's contract.
    unsafe {
        match keys {
            Some(keys) => {
                stitched_zmm_chunks::<NR, BE, PUBLIC, _>(keys, counter, data, state, powers, mode, lengths)
            }
            None => {
                stitched_zmm_chunks::<NR, BE, PUBLIC, _>(key, counter, data, state, powers, mode, lengths)
            }
        }
    }
}

/// [`ctr_stitched_zmm`]'s loop over the whole chunks, the round
/// keys read from `keys`; with `lengths`, the message's tail and its
/// length block as well when the tail is long enough (see
/// [`ctr_stitched_zmm`]).
///
/// # Safety
/// The CPU must support the enabled features.
#[allow(clippy::too_many_arguments)]
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
unsafe fn stitched_zmm_chunks<const NR: usize, const BE: bool, const PUBLIC: bool, K: ZmmKeys>(
    keys: &K,
    counter: &Block,
    mut data: InOut<'_>,
    state: &mut __m128i,
    powers: &Powers,
    mode: Stitch,
    lengths: Option<__m128i>,
) -> (usize, bool) {
    let chunks = data.len() / 256;
    let hash_output = mode.hashes_output();
    let reversed = mode.reversed();
    let mut counters = ChunkCounters::<BE, PUBLIC>::new(counter_quad::<BE>(counter));
    let sixteen = Sixteen::new(powers);
    let (input, output) = (data.input_ptr(), data.output_ptr());
    let mut s = *state;
    let lag = usize::from(hash_output);
    for c in 0..chunks {
        let b = counters.next();
        // SAFETY: c < chunks: the chunk lies inside the input and the
        // output, and so does the output's one `lag` before it when c >= lag.
        unsafe {
            let (i, o) = (input.add(256 * c), output.add(256 * c));
            s = if c < lag {
                stitched_chunk_zmm::<NR, false, K>(keys, b, i, o, i, s, &sixteen, reversed)
            } else {
                let hashed = if hash_output { o.sub(256 * lag).cast_const() } else { i };
                stitched_chunk_zmm::<NR, true, K>(keys, b, i, o, hashed, s, &sixteen, reversed)
            };
        }
    }
    // A tail past FINAL_CHUNK_FROM, when finishing: its CTR first,
    // which does not wait for the hash below.
    let rest = data.len() - 256 * chunks;
    let last = match lengths {
        // SAFETY: the `rest` bytes after the whole chunks lie inside the
        // input and the output.
        Some(_) if rest > FINAL_CHUNK_FROM => Some(unsafe {
            let (i, o) = (input.add(256 * chunks), output.add(256 * chunks));
            final_ctr_zmm::<NR, K>(keys, counters.next(), i, o, rest, mode)
        }),
        _ => None,
    };
    if hash_output && chunks > 0 {
        // SAFETY: the last chunk of the output, not yet hashed.
        s = unsafe {
            let last = output.add(256 * (chunks - 1)).cast_const();
            if reversed { sixteen.absorb::<true>(s, last) } else { sixteen.absorb::<false>(s, last) }
        };
    }
    let (Some(len), Some(x)) = (lengths, last) else {
        *state = s;
        return (chunks * 256, false);
    };
    *state = sixteen.absorb_final(s, x, rest.div_ceil(16), len);
    (data.len(), true)
}

/// CTR of the last `n` bytes of a message (177 to 255) from `input` to
/// `output` (the same address in place), as one 256-byte chunk under a
/// mask (counter blocks `b`): the bytes past `n` are neither read nor
/// written. Returns the blocks the pass hashes (output or input, by `mode`;
/// byte-reversed for GCM), zero past `n` as POLYVAL pads them, for
/// [`Sixteen::absorb_final`].
///
/// # Safety
/// `input` must point to `n` readable bytes and `output` to `n` writable
/// ones; the CPU must support the enabled features.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
unsafe fn final_ctr_zmm<const NR: usize, K: ZmmKeys>(
    keys: &K,
    mut b: [__m512i; 4],
    input: *const u8,
    output: *mut u8,
    n: usize,
    mode: Stitch,
) -> [__m512i; 4] {
    debug_assert!((FINAL_CHUNK_FROM + 1..256).contains(&n));
    // Register q's bytes inside the message.
    let mask = |q: usize| -> __mmask64 {
        match n.saturating_sub(64 * q) {
            0 => 0,
            have if have >= 64 => !0,
            have => (1 << have) - 1,
        }
    };
    // A masked load or store touches only the bytes its mask selects (the
    // others may lie past the end of the buffer: the address is formed
    // with `wrapping_add` and never used for them).
    // SAFETY: the selected bytes lie inside the `n` bytes at `input`.
    let input: [__m512i; 4] =
        array(|q| unsafe { _mm512_maskz_loadu_epi8(mask(q), input.wrapping_add(64 * q).cast()) });
    // SAFETY (the three): this function enables AVX-512 F and VAES.
    unsafe { keys.first(&mut b) };
    for r in 1..NR {
        unsafe { keys.middle(&mut b, r) };
    }
    unsafe { keys.last(&mut b) };
    let reverse4 = _mm512_broadcast_i32x4(byte_reverse_mask());
    array(|q| {
        // The key stream past `n` never leaves the register: zeroed here.
        let out = _mm512_maskz_mov_epi8(mask(q), _mm512_xor_si512(b[q], input[q]));
        // SAFETY: as the loads. (A masked store costs more than a plain
        // one: registers wholly inside the tail take a plain one.)
        unsafe {
            match mask(q) {
                0 => {}
                m if m == !0 => _mm512_storeu_si512(output.add(64 * q).cast(), out),
                m => _mm512_mask_storeu_epi8(output.wrapping_add(64 * q).cast(), m, out),
            }
        }
        let x = if mode.hashes_output() { out } else { input[q] };
        if mode.reversed() { _mm512_shuffle_epi8(x, reverse4) } else { x }
    })
}

/// CTR of a 256-byte chunk from `input` to `output` (the same address in
/// place; counter blocks `b`, from [`ChunkCounters`]) with, if `HASH`,
/// the chunk at `hashed` absorbed into `s`, one quad product after each of
/// the first four rounds. Returns the new `s`.
///
/// S goes in with the chunk's first block, as in the 256-bit pass, not
/// as a product of its own as in [`polyval_chunks_zmm`]: a chunk here is
/// long enough (the AES rounds) to hide the longer chain from one S to
/// the next, and three products are saved.
///
/// # Safety
/// `input`, `output` and `hashed` must each point to a whole chunk inside
/// the data; the CPU must support the enabled features.
#[allow(clippy::too_many_arguments)]
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
unsafe fn stitched_chunk_zmm<const NR: usize, const HASH: bool, K: ZmmKeys>(
    keys: &K,
    mut b: [__m512i; 4],
    input: *const u8,
    output: *mut u8,
    hashed: *const u8,
    s: __m128i,
    sixteen: &Sixteen,
    reversed: bool,
) -> __m128i {
    let reverse4 = _mm512_broadcast_i32x4(byte_reverse_mask());
    // SAFETY (the three): this function enables AVX-512 F and VAES.
    unsafe { keys.first(&mut b) };
    let mut sums = (_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512());
    for r in 1..NR {
        unsafe { keys.middle(&mut b, r) };
        if HASH && r <= 4 {
            // Quads 1, 2, 3, then 0, which carries S: three rounds more
            // for the previous chunk's reduction to finish.
            let q = r % 4;
            // SAFETY: quad q of the chunk at `hashed` (caller's contract).
            let x = unsafe { _mm512_loadu_si512(hashed.add(64 * q).cast()) };
            let x = if reversed { _mm512_shuffle_epi8(x, reverse4) } else { x };
            let x = if q == 0 { _mm512_xor_si512(x, _mm512_zextsi128_si512(s)) } else { x };
            sixteen.product(x, q, &mut sums);
        }
    }
    unsafe { keys.last(&mut b) };
    // `b` ends up holding this pass's output, already in the data: no
    // keystream is left behind.
    for (k, x) in b.iter_mut().enumerate() {
        // SAFETY: register k of this chunk (caller's contract).
        unsafe {
            *x = _mm512_xor_si512(*x, _mm512_loadu_si512(input.add(64 * k).cast()));
            _mm512_storeu_si512(output.add(64 * k).cast(), *x);
        }
    }
    if HASH { sixteen.reduce(sums) } else { s }
}

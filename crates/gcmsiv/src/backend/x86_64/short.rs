//! Short messages in one kernel: RFC 8452 section 4 for one message of at most
//! [`SHORT_MAX`] bytes with at most as much AAD.
//!
//! A short message costs its set-up, and the set-up is a chain of dependent AES
//! rounds: derivation, key expansion, tag, first counter blocks. Run as the
//! mode's separate steps, each step stores its result and the next reloads it,
//! and the core never sees the chain whole. Here the record keys stay in
//! registers, and the tag's rounds run as the key expansion produces each round
//! key (seal), or the CTR rounds do (open: the counter is the received tag).
//! This is one of the two places outside `siv.rs` that spell out the mode's
//! steps (with `group.rs`, its batch counterpart), for speed alone: the tests
//! hold it to the step-by-step path at every length up to [`SHORT_MAX`], on
//! both sides, and to every vector file.
//!
//! The same file holds AES-GCM's short kernel ([`gcm_one`]: SP
//! 800-38D with a 96-bit IV, message and AAD of at most [`SHORT_MAX`] bytes
//! each), the one place outside `gcm.rs` that
//! spells out GCM's steps: E(J0) and the counter blocks in flight together,
//! GHASH over the ciphertext in registers, no step through memory. The tests
//! hold them to an independent implementation at every length up to
//! [`SHORT_MAX`] and past it, and to every GCM vector file.
//!
//! What is wiped: the round keys, the one secret this kernel puts in memory on
//! purpose. Values the kernel holds in registers (derivation blocks,
//! keystream) are not copied to memory to be wiped: that copy would be the
//! only place they reached memory. (The GCM kernels put nothing secret in
//! memory: the key schedule and the powers of H belong to the key.)
//!
//! The kernels are written once and compiled twice (`kernels!`): module
//! [`sse`] with the features the `aesni-clmul` backend requires, module
//! [`avx`] with AVX besides, which all three tiers use where the CPU has
//! it (`Features::avx`: every CPU with VAES, and most without since 2011); the
//! SSE forms remain for CPUs without AVX. A short message is mostly set-up,
//! dependent steps on a few registers, and the two-operand SSE forms need a
//! register copy before many of them: AVX's three-operand forms need none. (The `asm!` blocks the kernels share with the
//! rest of the backend, round keys read as memory operands in `aes.rs`, come
//! in both encodings, and the AVX module takes the VEX ones: a legacy-SSE
//! instruction beside the YMM stores the compiler makes there costs a merge
//! of the registers' upper halves on Intel cores.) Longer messages take the
//! SSE helpers (`long.rs`), which gain nothing in AVX's form.

use super::aes::{
    RCON, Schedule, aesdec_imc_at, aesdeclast_at, derivation_blocks, prefix_xor, sub_rot_word, sub_word,
    xor_at,
};
use super::array;
use super::blocks::{RoundKeys, unroll};
use super::clmul::{Powers, aggregate, aggregate_with, clmul128, dot_chained as dot, powers_up_to, reduce};
use super::load::byte_reverse_mask;
use super::load::{load_opaque, load_padded};
use super::siv_blocks::{counter0, lengths, tag_input};
use crate::backend::SivLayout;
use crate::backend::{Block, SHORT_MAX};
use core::arch::x86_64::*;
use zeroize::Zeroize;

/// Makes `x` exist at this point of the program. Without it the compiler
/// sinks the derivation of the encryption key below the POLYVAL that needs
/// only H, and the two chains, which should overlap, run one after the other.
#[inline]
fn here(x: &mut __m128i) {
    // SAFETY: an empty instruction string: no memory, stack or flags touched.
    // Not `pure`, so it keeps its place among the other side effects.
    unsafe { core::arch::asm!("/* {0} */", inout(xmm_reg) * x, options(nomem, nostack, preserves_flags)) };
}

/// Every function of this file that uses these instructions, with `$features`
/// as its target features: expanded once per feature set (modules [`sse`] and
/// [`avx`]). Outside it only what needs no target features (`here`, `unroll!`).
macro_rules! kernels {
    ($features:literal) => {
        /// Round `r` of AES on `B` blocks that ride on the key expansion, under
        /// `key`, round key `r` just made. One rider (the tag when sealing, the one
        /// CTR block of a 16-byte open) takes it from its register: through memory
        /// the tag's chain waited for each store to be read back. More riders
        /// (the CTR blocks when opening) read it
        /// from the schedule, as [`round`] does: beside two or more of them the
        /// compiler spilled round keys held in registers.
        #[inline]
        #[target_feature(enable = $features)]
        fn round_with<const NR: usize, const B: usize>(
            x: &mut [__m128i; B],
            key: __m128i,
            rk: &RoundKeys,
            r: usize,
        ) {
            if B > 1 {
                return round::<NR, B>(x, rk, r);
            }
            for b in x.iter_mut() {
                *b = if r == 0 {
                    _mm_xor_si128(*b, key)
                } else if r == NR {
                    _mm_aesenclast_si128(*b, key)
                } else {
                    _mm_aesenc_si128(*b, key)
                };
            }
        }

        /// AES decryption of one block under the schedule `rk` (FIPS 197's
        /// equivalent inverse cipher, its round keys made on the way from `rk`).
        #[inline]
        #[target_feature(enable = $features)]
        pub(crate) fn decrypt<const NR: usize>(x: __m128i, rk: &RoundKeys) -> __m128i {
            let mut x = xor_at(x, &rk[NR]);
            unroll! { R in [13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1] {
                if R < NR {
                    x = aesdec_imc_at(x, &rk[R]);
                }
            } };
            aesdeclast_at(x, &rk[0])
        }

        /// What an open returns for the caller to compare with the received tag:
        /// `received` itself exactly when the tag is authentic. It is when
        /// AES(`tag_input`) = `received`, that is when `tag_input` =
        /// AES^-1(`received`) = `decrypted`: the tag's rounds then need only the
        /// round keys and the received tag, and run beside CTR and POLYVAL rather
        /// than after them, at the end of the open's chain of dependent steps.
        #[inline]
        #[target_feature(enable = $features)]
        pub(crate) fn verdict_block(received: __m128i, decrypted: __m128i, tag_input: __m128i) -> Block {
            to_block(_mm_xor_si128(received, _mm_xor_si128(decrypted, tag_input)))
        }

        /// Key expansion of the record key (`k`: one block for AES-128, two for
        /// AES-256) into `rk`, with `riders` encrypted under it, each round as soon as
        /// its round key exists.
        #[inline]
        #[target_feature(enable = $features)]
        pub(crate) fn expand_riding<const NR: usize, const B: usize>(
            k: [__m128i; 2],
            rk: &mut RoundKeys,
            riders: &mut [__m128i; B],
        ) {
            rk[0] = k[0];
            rk[1] = k[1];
            round_with::<NR, B>(riders, k[0], rk, 0);
            if NR == 10 {
                unroll! { I in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] {
                    rk[I + 1] = _mm_xor_si128(prefix_xor(rk[I]), sub_rot_word(rk[I], RCON[I]));
                    round_with::<NR, B>(riders, rk[I + 1], rk, I + 1);
                } };
            } else {
                round_with::<NR, B>(riders, k[1], rk, 1);
                unroll! { R in [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14] {
                    // FIPS 197 for Nk = 8: SubWord(RotWord) with Rcon for even round
                    // keys, SubWord alone for odd ones.
                    let sub = if R.is_multiple_of(2) {
                        sub_rot_word(rk[R - 1], RCON[R / 2 - 1])
                    } else {
                        sub_word(rk[R - 1])
                    };
                    rk[R] = _mm_xor_si128(prefix_xor(rk[R - 2]), sub);
                    round_with::<NR, B>(riders, rk[R], rk, R);
                } };
            }
        }

        /// [`expand_riding`] of a record key that waited in `rk[0..2]` (the seals
        /// park it there, in wiped memory, while POLYVAL runs): reloaded opaquely,
        /// so that the compiler does not keep the copy it stored in registers
        /// across the hash and spill them.
        #[inline]
        #[target_feature(enable = $features)]
        pub(crate) fn expand_parked<const NR: usize, const B: usize>(
            rk: &mut RoundKeys,
            riders: &mut [__m128i; B],
        ) {
            let k = [load_opaque(&rk[0]), load_opaque(&rk[1])];
            expand_riding::<NR, B>(k, rk, riders);
        }

        /// POLYVAL(H, AAD padded, message padded, length block `len`) by Horner's rule.
        ///
        /// # Safety
        /// The CPU must support the enabled features.
        #[inline]
        #[target_feature(enable = $features)]
        unsafe fn polyval_one(h: __m128i, aad: &[u8], msg: &[u8], len: __m128i) -> __m128i {
            let mut s = _mm_setzero_si128();
            for chunk in aad.chunks(16) {
                s = dot(_mm_xor_si128(s, load_padded(chunk)), h);
            }
            for chunk in msg.chunks(16) {
                s = dot(_mm_xor_si128(s, load_padded(chunk)), h);
            }
            dot(_mm_xor_si128(s, len), h)
        }

        /// POLYVAL(H, AAD padded, message padded, length block `len`) as two interleaved
        /// chains by Horner's rule in H^2: one for the blocks whose power of H is
        /// even, one for the odd ones. Each chain is half as long, so for four blocks
        /// or more this finishes sooner than [`polyval_one`] (one multiplication
        /// more: H^2), which matters when sealing, where the tag waits for it.
        ///
        /// # Safety
        /// The CPU must support the enabled features.
        #[inline]
        #[target_feature(enable = $features)]
        unsafe fn polyval_two_chains(h: __m128i, aad: &[u8], msg: &[u8], len: __m128i) -> __m128i {
            // X_i (i from 0) is multiplied by H^(m - i) in the sum.
            let m = aad.len().div_ceil(16) + msg.len().div_ceil(16) + 1;
            let h2 = dot(h, h);
            let (mut even, mut odd) = (_mm_setzero_si128(), _mm_setzero_si128());
            let mut last = _mm_setzero_si128();
            for (i, chunk) in aad.chunks(16).chain(msg.chunks(16)).enumerate() {
                let x = load_padded(chunk);
                if i + 2 == m {
                    last = x;
                } else if (m - i).is_multiple_of(2) {
                    even = dot(_mm_xor_si128(even, x), h2);
                } else {
                    odd = dot(_mm_xor_si128(odd, x), h2);
                }
            }
            // The last block has H^2, the length block H^1: one reduction for both.
            let (lo_e, hi_e) = clmul128(_mm_xor_si128(even, last), h2);
            let (lo_o, hi_o) = clmul128(_mm_xor_si128(odd, len), h);
            reduce((_mm_xor_si128(lo_e, lo_o), _mm_xor_si128(hi_e, hi_o)))
        }

        /// [`polyval_two_chains`] from four blocks on (where the tag waits less
        /// for it), [`polyval_one`] below.
        ///
        /// # Safety
        /// The CPU must support the enabled features.
        #[inline]
        #[target_feature(enable = $features)]
        unsafe fn polyval_short(h: __m128i, aad: &[u8], msg: &[u8], len: __m128i) -> __m128i {
            // SAFETY (both): same features.
            if aad.len().div_ceil(16) + msg.len().div_ceil(16) >= 3 {
                unsafe { polyval_two_chains(h, aad, msg, len) }
            } else {
                unsafe { polyval_one(h, aad, msg, len) }
            }
        }

        /// `B` counter blocks from `tag`: its top bit set, the first 32 bits a
        /// little-endian counter (wrapping modulo 2^32).
        #[inline]
        #[target_feature(enable = $features)]
        fn counters<const B: usize>(tag: __m128i) -> [__m128i; B] {
            let ctr0 = counter0(tag);
            array(|j| _mm_add_epi32(ctr0, _mm_setr_epi32(j as i32, 0, 0, 0)))
        }

        pub(crate) fn to_block(x: __m128i) -> Block {
            let mut b = [0u8; 16];
            // SAFETY: 16 writable bytes; SSE2 is part of x86-64.
            unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), x) };
            b
        }

        /// Encryption's CTR: `B` blocks from the tag under the finished schedule.
        #[inline]
        #[target_feature(enable = $features)]
        fn seal_ctr<const NR: usize, const B: usize>(rk: &RoundKeys, tag: __m128i, data: &mut [u8]) {
            let mut ks = counters::<B>(tag);
            // SAFETY: this function enables AES-NI.
            unsafe { encrypt::<NR, B>(&mut ks, rk) };
            xor_keystream(data, &ks);
        }

        /// Decryption of `B` blocks (at least one), returning S_s of POLYVAL.
        ///
        /// The counter is the received tag, so the CTR rounds run as the round keys
        /// appear. POLYVAL then waits only for one step: before the CTR, while the
        /// AES units work, the powers of H and the AAD's part are ready, and the
        /// plaintext blocks and the length block go in as one aggregated sum,
        /// S = dot(Y ^ P_1, H^(B+1)) ^ dot(P_2, H^B) ^ ... ^ dot(L, H) with Y the
        /// AAD's POLYVAL, instead of B + 1 dependent steps of Horner's rule.
        ///
        /// # Safety
        /// The CPU must support the enabled features.
        #[inline]
        #[target_feature(enable = $features)]
        unsafe fn open_blocks<const NR: usize, const B: usize>(
            h: __m128i,
            k: [__m128i; 2],
            rk: &mut RoundKeys,
            received: __m128i,
            aad: &[u8],
            data: &mut [u8],
        ) -> __m128i {
            // Up to four blocks, the powers stay in registers. Past that, with the
            // CTR blocks beside them, the compiler spilled some to the stack, where
            // nothing wiped them: they go in a table (wiped on drop), read by the
            // multiplications themselves.
            let registers = B < 5;
            let (hp, hx) = if registers {
                powers_up_to(h, B + 1)
            } else {
                ([_mm_setzero_si128(); 8], [_mm_setzero_si128(); 8])
            };
            let table = if registers { None } else { Some(Powers::new(h)) };
            let mut y = _mm_setzero_si128();
            for chunk in aad.chunks(16) {
                y = dot(_mm_xor_si128(y, load_padded(chunk)), h);
            }
            let mut ks = counters::<B>(received);
            expand_riding::<NR, B>(k, rk, &mut ks);
            let p = xor_keystream(data, &ks);
            let len = lengths(aad.len(), data.len());
            match &table {
                None => {
                    let mut x = [len; 9];
                    x[..B].copy_from_slice(&p);
                    aggregate_with(y, &x[..=B], &hp, &hx)
                }
                Some(t) => absorb_with_length(y, p, len, t),
            }
        }

        /// CTR over the tail (1 to 127 bytes) of a long seal past its bulk pass,
        /// from the little-endian counter block `counter`, in registers (the bulk
        /// entry points' set-up costs more than such a tail's bytes).
        ///
        /// # Safety
        /// The CPU must support the enabled features.
        #[inline]
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn seal_tail<const NR: usize>(rk: &RoundKeys, counter: __m128i, data: &mut [u8]) {
            // SAFETY (each arm): same features; 1 to 8 blocks.
            by_blocks! { data.len(), B => {
                unsafe { ctr_blocks::<NR, B>(rk, counter, data) };
            } }
        }

        /// Zeroes the round keys in use (the rest were never written).
        #[inline]
        fn wipe<const NR: usize>(rk: &mut RoundKeys) {
            for key in &mut rk[..=NR] {
                key.zeroize();
            }
        }

        /// Record-key derivation (RFC 8452 section 4) for `nonce` with `key` as
        /// the key-generating key: `NB` blocks in flight. Returns H and the
        /// encryption key (one or two blocks).
        #[inline]
        #[target_feature(enable = $features)]
        pub(crate) fn derive_one<const NR: usize, const NB: usize>(
            key: &Schedule<NR>,
            nonce: &[u8; 12],
        ) -> (__m128i, [__m128i; 2]) {
            let mut b = derivation_blocks::<NB>(nonce);
            key.encrypt_n(&mut b);
            let pair = |i: usize| _mm_unpacklo_epi64(b[i], b[i + 1]);
            let mut h = pair(0);
            let mut k = [pair(2), if NB == 6 { pair(4) } else { _mm_setzero_si128() }];
            here(&mut h);
            here(&mut k[0]);
            here(&mut k[1]);
            (h, k)
        }

        /// Seals a short message in place and returns its tag.
        ///
        /// # Safety
        /// The CPU must support the enabled features; the message and the AAD at
        /// most [`SHORT_MAX`] bytes each.
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn seal_one<const NR: usize, const NB: usize>(
            key: &Schedule<NR>,
            nonce: &[u8; 12],
            aad: &[u8],
            data: &mut [u8],
        ) -> Block {
            let (h, k) = derive_one::<NR, NB>(key, nonce);
            // The record key waits for POLYVAL in the schedule (wiped below), not
            // in registers: the call would spill them to the stack.
            let mut rk = [_mm_setzero_si128(); 15];
            rk[..2].copy_from_slice(&k);
            // SAFETY: same features.
            let s = unsafe { polyval_short(h, aad, data, lengths(aad.len(), data.len())) };
            let mut tag = [tag_input(s, nonce)];
            expand_parked::<NR, 1>(&mut rk, &mut tag);
            if !data.is_empty() {
                by_blocks! { data.len(), B => seal_ctr::<NR, B>(&rk, tag[0], data) };
            }
            wipe::<NR>(&mut rk);
            to_block(tag[0])
        }

        /// Opens a short message in place (CTR from the received `tag`) and
        /// returns [`verdict_block`]: `tag` itself exactly when it is authentic;
        /// the caller compares.
        ///
        /// # Safety
        /// As [`seal_one`].
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn open_one<const NR: usize, const NB: usize>(
            key: &Schedule<NR>,
            nonce: &[u8; 12],
            aad: &[u8],
            data: &mut [u8],
            tag: &Block,
        ) -> Block {
            let (h, k) = derive_one::<NR, NB>(key, nonce);
            // SAFETY: 16 readable bytes.
            let received = unsafe { _mm_loadu_si128(tag.as_ptr().cast()) };
            let mut rk = [_mm_setzero_si128(); 15];
            let s = if data.is_empty() {
                expand_riding::<NR, 0>(k, &mut rk, &mut []);
                // SAFETY: same features.
                unsafe { polyval_one(h, aad, data, lengths(aad.len(), data.len())) }
            } else {
                // SAFETY (each arm): same features.
                by_blocks! { data.len(), B => unsafe {
                    open_blocks::<NR, B>(h, k, &mut rk, received, aad, data)
                } }
            };
            // After POLYVAL in program order, yet run beside it and the CTR,
            // since it waits for neither. Placed right after the key expansion,
            // its chain of rounds would hold up the work behind it.
            let decrypted = decrypt::<NR>(received, &rk);
            wipe::<NR>(&mut rk);
            verdict_block(received, decrypted, tag_input(s, nonce))
        }

        /// The layout's blocks in registers: H, the length block, the nonce
        /// block, and the masks of the tag input and the first counter.
        #[inline]
        #[target_feature(enable = $features)]
        fn layout_blocks(h: &Block, layout: &SivLayout) -> [__m128i; 6] {
            let blocks = [
                h,
                &layout.length_block,
                &layout.nonce_xor,
                &layout.tag_mask,
                &layout.counter_and,
                &layout.counter_or,
            ];
            // SAFETY: 16 readable bytes each.
            array(|i| unsafe { _mm_loadu_si128(blocks[i].as_ptr().cast()) })
        }

        /// A short seal of the GCM-SIV family before RFC 8452 (the `research`
        /// feature; POLYVAL's order) under `key`, the message's AES key, and the
        /// POLYVAL key `h`: [`seal_one`]'s POLYVAL, tag and CTR, in registers,
        /// with the tag input and the first counter made by `layout`'s masks
        /// (which `research/siv.rs` makes for each variant, from the same rules
        /// as its step-by-step path).
        ///
        /// # Safety
        /// The CPU must support the enabled features; the message and the AAD at
        /// most [`SHORT_MAX`] bytes each.
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn seal_layout<const NR: usize>(
            key: &Schedule<NR>,
            h: &Block,
            layout: &SivLayout,
            aad: &[u8],
            data: &mut [u8],
        ) -> Block {
            let [h, len, nonce, tag_mask, counter_and, counter_or] = layout_blocks(h, layout);
            // SAFETY: same features.
            let s = unsafe { polyval_short(h, aad, data, len) };
            let mut tag = [_mm_and_si128(_mm_xor_si128(s, nonce), tag_mask)];
            // SAFETY: same features.
            unsafe { encrypt::<NR, 1>(&mut tag, &key.rk) };
            if !data.is_empty() {
                let counter = _mm_or_si128(_mm_and_si128(tag[0], counter_and), counter_or);
                // SAFETY: same features; 1 to 128 bytes.
                unsafe { seal_tail::<NR>(&key.rk, counter, data) };
            }
            to_block(tag[0])
        }

        /// The open of [`seal_layout`]: CTR from the received `tag`'s counter,
        /// then POLYVAL over the plaintext; returns the tag the plaintext should
        /// have, for the caller to compare (and to put the ciphertext back on a
        /// mismatch).
        ///
        /// # Safety
        /// As [`seal_layout`].
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn open_layout<const NR: usize>(
            key: &Schedule<NR>,
            h: &Block,
            layout: &SivLayout,
            aad: &[u8],
            data: &mut [u8],
            tag: &Block,
        ) -> Block {
            let [h, len, nonce, tag_mask, counter_and, counter_or] = layout_blocks(h, layout);
            if !data.is_empty() {
                // SAFETY: 16 readable bytes.
                let received = unsafe { _mm_loadu_si128(tag.as_ptr().cast()) };
                let counter = _mm_or_si128(_mm_and_si128(received, counter_and), counter_or);
                // SAFETY: same features; 1 to 128 bytes.
                unsafe { seal_tail::<NR>(&key.rk, counter, data) };
            }
            // SAFETY: same features.
            let s = unsafe { polyval_short(h, aad, data, len) };
            let mut expected = [_mm_and_si128(_mm_xor_si128(s, nonce), tag_mask)];
            // SAFETY: same features.
            unsafe { encrypt::<NR, 1>(&mut expected, &key.rk) };
            to_block(expected[0])
        }

        /// GCM's pre-counter block for a 96-bit IV (IV || 0^31 || 1) plus `n`: the
        /// last 32 bits a big-endian counter (SP 800-38D section 7.1; `n` at most 8,
        /// so it never wraps).
        #[inline]
        #[target_feature(enable = $features)]
        pub(crate) fn gcm_counter(iv: &[u8; 12], n: u32) -> __m128i {
            // Loaded as 8 + 4 bytes into registers, as in `tag_input`.
            let lo = u64::from_le_bytes(iv[..8].try_into().expect("8 bytes"));
            let word = u32::from_le_bytes(iv[8..].try_into().expect("4 bytes"));
            let hi = u64::from(word) | u64::from((1 + n).swap_bytes()) << 32;
            _mm_set_epi64x(hi as i64, lo as i64)
        }

        /// GCM's length block, [len(A)]_64 || [len(C)]_64 (big-endian bit counts),
        /// byte-reversed as GHASH's blocks are for POLYVAL.
        #[inline]
        #[target_feature(enable = $features)]
        pub(crate) fn gcm_lengths(aad: usize, ct: usize) -> __m128i {
            _mm_set_epi64x((aad as u64 * 8) as i64, (ct as u64 * 8) as i64)
        }

        /// GCM's full tag: E(J0) XOR GHASH, the hash `s` in POLYVAL's byte order
        /// (reversed back here).
        #[inline]
        #[target_feature(enable = $features)]
        pub(crate) fn gcm_tag(ej0: __m128i, s: __m128i) -> Block {
            to_block(_mm_xor_si128(ej0, _mm_shuffle_epi8(s, byte_reverse_mask())))
        }

        /// GHASH (RFC 8452 Appendix A: POLYVAL of the byte-reversed blocks under the
        /// key whose table is `powers`) of `aad` (zero-padded), the `B` ciphertext
        /// blocks `ct` (zero-padded, in registers) and the length block of `aad` and
        /// `ct_len` bytes: S in POLYVAL's byte order. The AAD in one aggregated step,
        /// then the ciphertext and the length block in another (two for eight
        /// blocks), with `B` a constant so that the blocks stay in registers.
        ///
        /// Always inlined, as [`xor_keystream`] is (so without target features of
        /// its own; its callers enable them): left to the compiler, it stayed out of
        /// line at some block counts, its arrays passed through memory.
        ///
        /// # Safety
        /// Only for inlining into functions that enable PCLMULQDQ and SSSE3.
        #[inline(always)]
        unsafe fn ghash_short<const B: usize>(
            powers: &Powers,
            aad: &[u8],
            ct: &[__m128i; B],
            ct_len: usize,
        ) -> __m128i {
            debug_assert!(aad.len() <= SHORT_MAX && B <= SHORT_MAX / 16);
            // SAFETY: inlined into callers that enable the features these need.
            unsafe {
                let reverse = byte_reverse_mask();
                let mut s = _mm_setzero_si128();
                if !aad.is_empty() {
                    let mut a = [_mm_setzero_si128(); SHORT_MAX / 16];
                    for (x, chunk) in a.iter_mut().zip(aad.chunks(16)) {
                        *x = _mm_shuffle_epi8(load_padded(chunk), reverse);
                    }
                    s = aggregate(s, &a[..aad.len().div_ceil(16)], powers);
                }
                let mut x = [gcm_lengths(aad.len(), ct_len); SHORT_MAX / 16 + 1];
                for (x, c) in x.iter_mut().zip(ct) {
                    *x = _mm_shuffle_epi8(*c, reverse);
                }
                if B == SHORT_MAX / 16 {
                    aggregate(aggregate(s, &x[..B], powers), &x[B..], powers)
                } else {
                    aggregate(s, &x[..=B], powers)
                }
            }
        }

        /// GCM-AE (`OPEN` false) or GCM-AD (`OPEN` true) of `data`, `B` blocks
        /// (`B1` = `B` + 1), in place, with a 96-bit IV: returns the full tag (the
        /// one the data should have, when opening). E(J0) and the keystream blocks
        /// are encrypted side by side; GHASH takes the ciphertext from registers, the
        /// ciphertext the seal just made or the one the open read before the AES
        /// rounds (it needs no AES, so it runs beside them).
        ///
        /// One function per block count, with every block array local to it: with
        /// the hash and the keystream in helpers of their own, the compiler kept
        /// some of them out of line, passing the arrays through memory (`memcpy`
        /// calls), and a 64-byte open took twice a 48-byte one.
        ///
        /// # Safety
        /// The CPU must support the enabled features; `data` holds more than
        /// 16 (`B` - 1) and at most 16 `B` bytes (none if `B` is 0); the AAD at most
        /// [`SHORT_MAX`] bytes.
        #[inline]
        #[target_feature(enable = $features)]
        unsafe fn gcm_blocks<const NR: usize, const B: usize, const B1: usize, const OPEN: bool>(
            rk: &RoundKeys,
            powers: &Powers,
            iv: &[u8; 12],
            aad: &[u8],
            data: &mut [u8],
        ) -> Block {
            debug_assert!(B1 == B + 1 && data.len().div_ceil(16) == B);
            let opened = if OPEN {
                let ct: [__m128i; B] = array(|j| load_padded(&data[16 * j..data.len().min(16 * j + 16)]));
                // SAFETY: this function enables the features.
                Some(unsafe { ghash_short(powers, aad, &ct, data.len()) })
            } else {
                None
            };
            let mut blocks: [__m128i; B1] = array(|j| gcm_counter(iv, j as u32));
            // SAFETY: this function enables AES-NI.
            unsafe { encrypt::<NR, B1>(&mut blocks, rk) };
            let ks: [__m128i; B] = array(|j| blocks[1 + j]);
            let ct = if B == 0 { ks } else { xor_keystream(data, &ks) };
            let s = match opened {
                Some(s) => s,
                // SAFETY: as above.
                None => unsafe { ghash_short(powers, aad, &ct, data.len()) },
            };
            gcm_tag(blocks[0], s)
        }

        /// GCM-AE (SP 800-38D section 7.1), or with `OPEN` GCM-AD, of a short
        /// message with a 96-bit IV under the schedule `key`, `powers` the table of
        /// its POLYVAL key ([`gcm_blocks`]; step by step, J0's block, CTR, GHASH
        /// and the length block each go through memory). Sealing encrypts
        /// `data` in place and returns the full
        /// tag; opening decrypts it in place and returns the full tag it should
        /// have (the caller compares, and puts the ciphertext back on a mismatch).
        ///
        /// # Safety
        /// The CPU must support the enabled features; the message and the AAD at
        /// most [`SHORT_MAX`] bytes each.
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn gcm_one<const NR: usize, const OPEN: bool>(
            key: &Schedule<NR>,
            powers: &Powers,
            iv: &[u8; 12],
            aad: &[u8],
            data: &mut [u8],
        ) -> Block {
            // SAFETY (both): same features; `data` has the blocks named.
            if data.is_empty() {
                return unsafe { gcm_blocks::<NR, 0, 1, OPEN>(&key.rk, powers, iv, aad, data) };
            }
            by_blocks! { data.len(), B, B1 => unsafe {
                gcm_blocks::<NR, B, B1, OPEN>(&key.rk, powers, iv, aad, data)
            } }
        }
    };
}

/// The kernels with AES-NI, PCLMULQDQ, SSSE3 and SSE4.1: the one-message
/// kernels of CPUs without AVX, and the helpers the long and batch kernels
/// share.
pub(super) mod sse {
    use super::super::blocks::sse::*;
    use super::*;
    kernels!("aes,pclmulqdq,ssse3,sse4.1");
}

/// The same kernels with AVX too: the one-message kernels where the CPU has it.
pub(super) mod avx {
    // Only the one-message kernels are used from here; the helpers the long and
    // batch kernels share come from `sse`.
    #![allow(dead_code)]
    use super::super::aes::{
        aesdec_imc_at_vex as aesdec_imc_at, aesdeclast_at_vex as aesdeclast_at, xor_at_vex as xor_at,
    };
    use super::super::blocks::avx::*;
    use super::super::clmul::aggregate_vex as aggregate;
    use super::super::load::load_opaque_vex as load_opaque;
    use super::*;
    kernels!("aes,pclmulqdq,ssse3,sse4.1,avx");
}

pub(super) use sse::{
    decrypt, derive_one, expand_parked, expand_riding, gcm_counter, gcm_lengths, gcm_tag, seal_tail,
    to_block, verdict_block,
};

/// [`sse::seal_one`], or [`avx::seal_one`] where `key`'s features cover AVX.
///
/// # Safety
/// As [`sse::seal_one`], but for the CPU: `key.features` is the proof of its
/// support, for either expansion.
#[inline]
pub(super) unsafe fn seal_one<const NR: usize, const NB: usize>(
    key: &Schedule<NR>,
    nonce: &[u8; 12],
    aad: &[u8],
    data: &mut [u8],
) -> Block {
    // SAFETY (both): the caller's lengths and the schedule's proof of CPU
    // support, which covers AVX where `avx()` says so (`Features`).
    if key.features.avx() {
        unsafe { avx::seal_one::<NR, NB>(key, nonce, aad, data) }
    } else {
        unsafe { sse::seal_one::<NR, NB>(key, nonce, aad, data) }
    }
}

/// [`sse::open_one`], or [`avx::open_one`] where `key`'s features cover AVX
/// (their parameters, on purpose: this only picks the expansion).
///
/// # Safety
/// As [`sse::open_one`], but for the CPU: `key.features` is the proof of its
/// support, for either expansion.
#[inline]
pub(super) unsafe fn open_one<const NR: usize, const NB: usize>(
    key: &Schedule<NR>,
    nonce: &[u8; 12],
    aad: &[u8],
    data: &mut [u8],
    tag: &Block,
) -> Block {
    // SAFETY (both): as in `seal_one`.
    if key.features.avx() {
        unsafe { avx::open_one::<NR, NB>(key, nonce, aad, data, tag) }
    } else {
        unsafe { sse::open_one::<NR, NB>(key, nonce, aad, data, tag) }
    }
}

/// [`sse::seal_layout`], or [`avx::seal_layout`] where `key`'s features cover AVX.
///
/// # Safety
/// As [`sse::seal_layout`], but for the CPU: `key.features` is the proof of
/// its support, for either expansion.
#[inline]
pub(super) unsafe fn seal_layout<const NR: usize>(
    key: &Schedule<NR>,
    h: &Block,
    layout: &SivLayout,
    aad: &[u8],
    data: &mut [u8],
) -> Block {
    // SAFETY (both): as in `seal_one`.
    if key.features.avx() {
        unsafe { avx::seal_layout::<NR>(key, h, layout, aad, data) }
    } else {
        unsafe { sse::seal_layout::<NR>(key, h, layout, aad, data) }
    }
}

/// [`sse::open_layout`], or [`avx::open_layout`] where `key`'s features cover AVX.
///
/// # Safety
/// As [`seal_layout`].
#[inline]
pub(super) unsafe fn open_layout<const NR: usize>(
    key: &Schedule<NR>,
    h: &Block,
    layout: &SivLayout,
    aad: &[u8],
    data: &mut [u8],
    tag: &Block,
) -> Block {
    // SAFETY (both): as in `seal_one`.
    if key.features.avx() {
        unsafe { avx::open_layout::<NR>(key, h, layout, aad, data, tag) }
    } else {
        unsafe { sse::open_layout::<NR>(key, h, layout, aad, data, tag) }
    }
}

/// [`sse::gcm_one`], or [`avx::gcm_one`] where `key`'s features cover AVX.
///
/// # Safety
/// As [`sse::gcm_one`], but for the CPU: `key.features` is the proof of its
/// support, for either expansion.
#[inline]
pub(super) unsafe fn gcm_one<const NR: usize, const OPEN: bool>(
    key: &Schedule<NR>,
    powers: &Powers,
    iv: &[u8; 12],
    aad: &[u8],
    data: &mut [u8],
) -> Block {
    // SAFETY (both): as in `seal_one`.
    if key.features.avx() {
        unsafe { avx::gcm_one::<NR, OPEN>(key, powers, iv, aad, data) }
    } else {
        unsafe { sse::gcm_one::<NR, OPEN>(key, powers, iv, aad, data) }
    }
}

#[cfg(test)]
mod tests {
    use super::super::aes::Schedule;
    use super::super::clmul::Powers;
    use super::super::{Aes128, Aes256, Features};
    use super::{avx, sse};
    use core::arch::x86_64::_mm_loadu_si128;
    use std::vec::Vec;

    /// The SSE expansion of the kernels gives, byte for byte, what the AVX
    /// expansion gives, on any CPU with AVX: both backends take the AVX one
    /// there, so this is where the SSE one (what CPUs without AVX run) is
    /// tested. Every message length the kernels take, with AAD of several
    /// lengths; seal, open (authentic and not) and GCM both ways.
    #[test]
    fn avx_kernels_equal_sse_kernels() {
        let Some(features) = Features::detect() else {
            return; // no AES-NI: neither expansion runs here
        };
        if !features.avx() {
            return; // no AVX: the suite runs the SSE expansion itself
        }
        compare::<10, 4>(&Aes128::new(features, &[7; 16]));
        compare::<14, 6>(&Aes256::new(features, &[9; 32]));
    }

    fn compare<const NR: usize, const NB: usize>(key: &Schedule<NR>) {
        let bytes: Vec<u8> = (0..256u32).map(|i| (i * 13 + 5) as u8).collect();
        let h: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(29) ^ 0x5a);
        // SAFETY (every call below): `Features::detect` found AES-NI,
        // PCLMULQDQ, SSSE3, SSE4.1 and (checked above) AVX; the
        // messages and the AAD are at most `SHORT_MAX` bytes.
        let powers = unsafe { Powers::new(_mm_loadu_si128(h.as_ptr().cast())) };
        for aad_len in [0, 1, 15, 16, 17, 63, 128] {
            let aad = &bytes[128..128 + aad_len];
            for len in 0..=128 {
                let nonce: [u8; 12] = core::array::from_fn(|i| (i + len + aad_len) as u8);
                let (mut a, mut b) = (bytes[..len].to_vec(), bytes[..len].to_vec());
                let tag_a = unsafe { sse::seal_one::<NR, NB>(key, &nonce, aad, &mut a) };
                let tag_b = unsafe { avx::seal_one::<NR, NB>(key, &nonce, aad, &mut b) };
                assert_eq!((tag_a, &a), (tag_b, &b), "seal, {len} B, AAD {aad_len} B");
                let mut wrong = tag_a;
                wrong[len % 16] ^= 1;
                for tag in [tag_a, wrong] {
                    let (mut x, mut y) = (a.clone(), a.clone());
                    let va = unsafe { sse::open_one::<NR, NB>(key, &nonce, aad, &mut x, &tag) };
                    let vb = unsafe { avx::open_one::<NR, NB>(key, &nonce, aad, &mut y, &tag) };
                    assert_eq!((va, &x), (vb, &y), "open, {len} B, AAD {aad_len} B");
                }
                let (mut x, mut y) = (bytes[..len].to_vec(), bytes[..len].to_vec());
                let ga = unsafe { sse::gcm_one::<NR, false>(key, &powers, &nonce, aad, &mut x) };
                let gb = unsafe { avx::gcm_one::<NR, false>(key, &powers, &nonce, aad, &mut y) };
                assert_eq!((ga, &x), (gb, &y), "GCM seal, {len} B, AAD {aad_len} B");
                let ga = unsafe { sse::gcm_one::<NR, true>(key, &powers, &nonce, aad, &mut x) };
                let gb = unsafe { avx::gcm_one::<NR, true>(key, &powers, &nonce, aad, &mut y) };
                assert_eq!((ga, &x), (gb, &y), "GCM open, {len} B, AAD {aad_len} B");
                compare_layout(key, &h, aad, &bytes[..len]);
            }
        }
    }

    /// The research variants' kernels, the same way, with masks that change
    /// every block they touch (a counter field replaced, a nonce XORed).
    fn compare_layout<const NR: usize>(key: &Schedule<NR>, h: &[u8; 16], aad: &[u8], msg: &[u8]) {
        let mut counter_and = [0xff; 16];
        counter_and[..4].fill(0);
        let mut counter_or = [0; 16];
        counter_or[15] = 0x80;
        counter_or[0] = 1;
        let mut tag_mask = [0xff; 16];
        tag_mask[15] = 0x7f;
        let layout = super::SivLayout {
            length_block: core::array::from_fn(|i| (msg.len() + i) as u8),
            nonce_xor: core::array::from_fn(|i| (3 * i + aad.len()) as u8),
            tag_mask,
            counter_and,
            counter_or,
        };
        let (mut a, mut b) = (msg.to_vec(), msg.to_vec());
        // SAFETY (all four): as in `compare`.
        let tag_a = unsafe { sse::seal_layout::<NR>(key, h, &layout, aad, &mut a) };
        let tag_b = unsafe { avx::seal_layout::<NR>(key, h, &layout, aad, &mut b) };
        assert_eq!((tag_a, &a), (tag_b, &b), "layout seal, {} B, AAD {} B", msg.len(), aad.len());
        let ea = unsafe { sse::open_layout::<NR>(key, h, &layout, aad, &mut a, &tag_a) };
        let eb = unsafe { avx::open_layout::<NR>(key, h, &layout, aad, &mut b, &tag_b) };
        assert_eq!((ea, &a), (eb, &b), "layout open, {} B, AAD {} B", msg.len(), aad.len());
        assert_eq!((ea, a.as_slice()), (tag_a, msg), "the open undoes the seal");
    }
}

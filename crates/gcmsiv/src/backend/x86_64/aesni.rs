//! AES-128 and AES-256 with AES-NI: key expansion, eight blocks in flight for
//! bulk work, and CTR with a 32-bit little-endian counter.

use super::super::Block;
use super::{Features, Polyval};
use core::arch::x86_64::*;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Blocks kept in flight: enough to cover the latency of `aesenc` on current cores.
const WIDTH: usize = 8;

/// An expanded key: round keys 0..=NR (unused tail entries stay zero).
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct Schedule<const NR: usize> {
    rk: [__m128i; 15],
    #[zeroize(skip)]
    features: Features,
}

/// XORs the three left shifts of `k` by 4, 8 and 12 bytes into `k`: the running
/// XOR of the previous round key's words in FIPS 197 KeyExpansion.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn prefix_xor(mut k: __m128i) -> __m128i {
    k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
    k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
    _mm_xor_si128(k, _mm_slli_si128::<4>(k))
}

/// # Safety
/// `key` must be at least 16 bytes; the CPU must support the enabled features.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn expand128(key: &[u8]) -> [__m128i; 15] {
    let mut rk = [_mm_setzero_si128(); 15];
    // SAFETY: the caller guarantees 16 readable bytes; loadu has no alignment need.
    let mut k = unsafe { _mm_loadu_si128(key.as_ptr().cast()) };
    rk[0] = k;
    macro_rules! round {
        ($i:literal, $rcon:literal) => {
            let t = _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<$rcon>(k));
            k = _mm_xor_si128(prefix_xor(k), t);
            rk[$i] = k;
        };
    }
    round!(1, 0x01);
    round!(2, 0x02);
    round!(3, 0x04);
    round!(4, 0x08);
    round!(5, 0x10);
    round!(6, 0x20);
    round!(7, 0x40);
    round!(8, 0x80);
    round!(9, 0x1b);
    round!(10, 0x36);
    rk
}

/// # Safety
/// `key` must be at least 32 bytes; the CPU must support the enabled features.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn expand256(key: &[u8]) -> [__m128i; 15] {
    let mut rk = [_mm_setzero_si128(); 15];
    // SAFETY: the caller guarantees 32 readable bytes.
    let (mut k0, mut k1) =
        unsafe { (_mm_loadu_si128(key.as_ptr().cast()), _mm_loadu_si128(key.as_ptr().add(16).cast())) };
    rk[0] = k0;
    rk[1] = k1;
    // Even round keys: SubWord(RotWord) of k1's last word, with Rcon.
    macro_rules! even {
        ($i:literal, $rcon:literal) => {
            let t = _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<$rcon>(k1));
            k0 = _mm_xor_si128(prefix_xor(k0), t);
            rk[$i] = k0;
        };
    }
    // Odd round keys: SubWord alone, FIPS 197's "i mod Nk = 4" case for Nk = 8.
    macro_rules! odd {
        ($i:literal) => {
            let t = _mm_shuffle_epi32::<0xaa>(_mm_aeskeygenassist_si128::<0>(k0));
            k1 = _mm_xor_si128(prefix_xor(k1), t);
            rk[$i] = k1;
        };
    }
    even!(2, 0x01);
    odd!(3);
    even!(4, 0x02);
    odd!(5);
    even!(6, 0x04);
    odd!(7);
    even!(8, 0x08);
    odd!(9);
    even!(10, 0x10);
    odd!(11);
    even!(12, 0x20);
    odd!(13);
    even!(14, 0x40);
    rk
}

impl<const NR: usize> Schedule<NR> {
    /// Encrypts `N` independent blocks, interleaving their rounds.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) fn encrypt_n<const N: usize>(&self, b: &mut [__m128i; N]) {
        for x in b.iter_mut() {
            *x = _mm_xor_si128(*x, self.rk[0]);
        }
        for r in 1..NR {
            for x in b.iter_mut() {
                *x = _mm_aesenc_si128(*x, self.rk[r]);
            }
        }
        for x in b.iter_mut() {
            *x = _mm_aesenclast_si128(*x, self.rk[NR]);
        }
    }

    /// # Safety
    /// The CPU must support the enabled features.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    unsafe fn encrypt_blocks(&self, blocks: &mut [Block]) {
        let mut chunks = blocks.chunks_exact_mut(WIDTH);
        for chunk in &mut chunks {
            // SAFETY: each block is 16 readable and writable bytes.
            let mut b: [__m128i; WIDTH] =
                core::array::from_fn(|i| unsafe { _mm_loadu_si128(chunk[i].as_ptr().cast()) });
            self.encrypt_n(&mut b);
            for (out, x) in chunk.iter_mut().zip(b) {
                // SAFETY: as above.
                unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), x) };
            }
        }
        for block in chunks.into_remainder() {
            // SAFETY: 16 bytes.
            let mut b = [unsafe { _mm_loadu_si128(block.as_ptr().cast()) }];
            self.encrypt_n(&mut b);
            // SAFETY: 16 bytes.
            unsafe { _mm_storeu_si128(block.as_mut_ptr().cast(), b[0]) };
        }
    }

    /// # Safety
    /// The CPU must support the enabled features.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    unsafe fn ctr32le(&self, counter: &Block, data: &mut [u8]) {
        // SAFETY: 16 readable bytes.
        let ctr0 = unsafe { _mm_loadu_si128(counter.as_ptr().cast()) };
        // Lane 0 is the little-endian 32-bit counter; `add_epi32` wraps it
        // modulo 2^32 and leaves the other 96 bits alone.
        let mut next = 0i32;
        let mut counters = || {
            let b: [__m128i; WIDTH] = core::array::from_fn(|k| {
                _mm_add_epi32(ctr0, _mm_setr_epi32(next.wrapping_add(k as i32), 0, 0, 0))
            });
            next = next.wrapping_add(WIDTH as i32);
            b
        };
        let mut chunks = data.chunks_exact_mut(16 * WIDTH);
        for chunk in &mut chunks {
            let mut ks = counters();
            self.encrypt_n(&mut ks);
            for (k, x) in ks.iter().enumerate() {
                let p = chunk[16 * k..].as_mut_ptr().cast::<__m128i>();
                // SAFETY: the chunk holds 16 * WIDTH bytes, so p..p+16 is in bounds.
                unsafe { _mm_storeu_si128(p, _mm_xor_si128(_mm_loadu_si128(p), *x)) };
            }
        }
        let tail = chunks.into_remainder();
        if !tail.is_empty() {
            let mut ks = counters();
            self.encrypt_n(&mut ks);
            let mut buf = [0u8; 16 * WIDTH];
            for (k, x) in ks.iter().enumerate() {
                // SAFETY: buf holds WIDTH blocks.
                unsafe { _mm_storeu_si128(buf[16 * k..].as_mut_ptr().cast(), *x) };
            }
            for (d, k) in tail.iter_mut().zip(buf.iter()) {
                *d ^= k;
            }
            buf.zeroize();
            ks.zeroize();
        }
    }
}

macro_rules! aesni_aes {
    ($name:ident, $key_len:literal, $nr:literal, $expand:ident, $doc:literal) => {
        #[doc = $doc]
        #[derive(Clone, Zeroize, ZeroizeOnDrop)]
        pub(crate) struct $name(pub(super) Schedule<$nr>);

        impl $name {
            pub(crate) fn new(features: Features, key: &[u8; $key_len]) -> Self {
                // SAFETY: `features` proves CPU support; the key has $key_len bytes.
                let rk = unsafe { $expand(key) };
                $name(Schedule { rk, features })
            }
        }

        impl crate::backend::Aes for $name {
            const KEY_LEN: usize = $key_len;
            type Polyval = Polyval;

            fn rekey(&self, key: &[u8]) -> Self {
                let key: &[u8; $key_len] = key.try_into().expect("internal error: record key length");
                $name::new(self.0.features, key)
            }
            fn polyval(&self, h: &Block) -> Polyval {
                Polyval::new(self.0.features, h)
            }
            fn encrypt_blocks(&self, blocks: &mut [Block]) {
                // SAFETY: a schedule holds the Features proof of CPU support.
                unsafe { self.0.encrypt_blocks(blocks) }
            }
            fn ctr32le(&self, counter: &Block, data: &mut [u8]) {
                // SAFETY: a schedule holds the Features proof of CPU support.
                unsafe { self.0.ctr32le(counter, data) }
            }
        }
    };
}

aesni_aes!(Aes128, 16, 10, expand128, "AES-128 with AES-NI.");
aesni_aes!(Aes256, 32, 14, expand256, "AES-256 with AES-NI.");

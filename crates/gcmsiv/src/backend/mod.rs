//! Backends: the block cipher and the universal hash the modes are written over.
//!
//! A backend is chosen once, when a key is made ([`Backend::select`]), and the key
//! keeps it: no per-call or per-block CPU detection. Each backend is a pair of
//! types: a key schedule implementing [`BlockCipher`], [`Hashes`],
//! [`FusedKernels`] and [`BatchKernels`] (together, [`Aes`]), and a hash state
//! implementing [`Polyval`]. `unsafe` and `#[target_feature]` appear only below
//! this folder.

pub(crate) mod soft;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)] // The one place intrinsics live; see its module docs.
pub(crate) mod x86_64;
#[cfg(target_arch = "aarch64")]
#[allow(unsafe_code)] // The one place intrinsics live; see its module docs.
pub(crate) mod aarch64;
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(crate) mod none;

// `hw`: this target's hardware backends, behind one interface: `Features`
// (the proof a CPU gives, `Copy`), `detect` (the proof for one `Backend` of
// this target, or `None`), `Aes128`, `Aes256` and `Polyval` (made by
// `FromProof`). Everything above the backends reaches hardware through this
// name only, so a target's backend is one folder and one line here.

#[cfg(target_arch = "x86_64")]
pub(crate) use x86_64 as hw;

#[cfg(target_arch = "aarch64")]
pub(crate) use aarch64 as hw;

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(crate) use none as hw;

pub(crate) use crate::inout::InOut;

use zeroize::Zeroize;

/// `core::array::from_fn` for the kernels and the batch code: always
/// inlined, a plain loop, so that `f`, a closure (which in a kernel takes on
/// the kernel's target features), is inlined in every build. `from_fn` and
/// `[T; N]::map` reach the closure through layers of generic helpers
/// without those features; in a build with several codegen units (Cargo's
/// default for a dependency in release mode) those stayed out of line and
/// the kernels made a call per block: GCM opens of 16-128 bytes 25-110%
/// slower, batches of 16-byte messages about 70% slower than with one unit
/// (and gathering a batch group's arguments by `map`, 4-9% slower).
///
/// As `from_fn`, it calls `f` once for each index, in order from 0 (the batch
/// code relies on it to hand out an iterator's items); if `f` panics, the
/// elements made so far are leaked, not dropped.
#[inline(always)]
#[allow(unsafe_code)] // One `transmute_copy` of a fully written array.
pub(crate) fn array<T, const N: usize>(mut f: impl FnMut(usize) -> T) -> [T; N] {
    let mut out = [const { core::mem::MaybeUninit::<T>::uninit() }; N];
    // An index over a constant range: no iterator's layers in between.
    #[allow(clippy::needless_range_loop)]
    for i in 0..N {
        out[i].write(f(i));
    }
    // SAFETY: every element was written above, and an array of
    // `MaybeUninit<T>` has the layout of an array of `T`.
    unsafe { core::mem::transmute_copy(&out) }
}

/// One 16-byte AES block / POLYVAL field element, in the byte order of the spec.
pub(crate) type Block = [u8; 16];

/// The smaller fused call of a batch: the rest of a batch after its groups of
/// [`GROUP`], or half of a group whose messages do not all fit.
pub(crate) const QUAD: usize = 4;

/// Short messages (see [`SHORT_MAX`]) a batch hands to one fused kernel call:
/// eight, so each step of the set-up has eight independent chains.
pub(crate) const GROUP: usize = 8;

/// A batch's larger fused group ([`BatchKernels::wide_groups`]): sixteen lanes. Where
/// the backend runs two lanes per instruction, eight registers of lane pairs,
/// so each step again has eight independent chains (with eight lanes the
/// pairs left half of them idle: 20% slower); x86-64 without VAES takes it
/// for AES-256 too.
pub(crate) const WIDE_GROUP: usize = 16;

/// Messages and AAD up to this long may take x86-64's fused short-message
/// kernel (inside [`FusedKernels::seal_fused`] and [`FusedKernels::open_fused`]).
pub(crate) const SHORT_MAX: usize = 128;

/// The groups a backend's group kernel pays for ([`BatchKernels::lane_limits`]):
/// messages and AADs all of the same lengths up to `equal_max` bytes, and, if
/// `mixed_short`, all short (up to [`SHORT_MAX`]) at any mix of lengths.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LaneLimits {
    pub(crate) equal_max: usize,
    pub(crate) mixed_short: bool,
}

/// One message's layout in the GCM-SIV family before RFC 8452 (the
/// `research` feature's variants in POLYVAL's order), for a backend's short
/// kernels ([`FusedKernels::seal_layout`]) to run the steps without knowing
/// the variant: S = POLYVAL(H, pad(A) || pad(M) || `length_block`); the tag
/// is AES((S xor `nonce_xor`) and `tag_mask`); the first counter block is
/// (tag and `counter_and`) or `counter_or`, its first 32 bits a little-endian
/// counter. Nothing in it is secret.
// Compiled in every build, so that the backends do not change with the
// `research` feature; only the research module builds one (and only x86-64's
// short kernels read it), so other builds see it unused.
#[allow(dead_code)]
pub(crate) struct SivLayout {
    pub(crate) length_block: Block,
    pub(crate) nonce_xor: Block,
    pub(crate) tag_mask: Block,
    pub(crate) counter_and: Block,
    pub(crate) counter_or: Block,
}

/// What the modes ask of a backend, in four parts, each building on the one
/// before: the block cipher ([`BlockCipher`]), the universal hashes keyed on
/// the same backend ([`Hashes`]), fused kernels for whole passes and
/// messages ([`FusedKernels`], each optional: the mode runs the steps one by
/// one where a backend has none), and batch groups ([`BatchKernels`],
/// optional too). `Aes` names them all.
pub(crate) trait Aes: BatchKernels {}
impl<T: BatchKernels> Aes for T {}

/// An expanded AES key schedule (AES-128 or AES-256) on one backend, and CTR
/// over it.
///
/// Implementations are constant-time with respect to the key and the data.
pub(crate) trait BlockCipher: Sized + Zeroize {
    /// Key length in bytes: 16 or 32.
    const KEY_LEN: usize;

    /// Expands `key` (exactly `KEY_LEN` bytes) on the same backend as `self`.
    ///
    /// This is how per-nonce record keys stay on the backend the user's key chose.
    fn rekey(&self, key: &[u8]) -> Self;

    /// Encrypts each block in place; the blocks are independent, so backends
    /// keep several in flight.
    fn encrypt_blocks(&self, blocks: &mut [Block]);

    /// Encrypts one block in place.
    fn encrypt_block(&self, block: &mut Block) {
        self.encrypt_blocks(core::slice::from_mut(block));
    }

    /// XORs `data` with the keystream AES(counter_i), where counter_0 = `counter`
    /// and the first 32 bits, read little-endian, are incremented modulo 2^32 for
    /// each block (RFC 8452 section 4: "the counter is a 32-bit little-endian
    /// integer"). The other 96 bits never change.
    fn ctr32le(&self, counter: &Block, data: &mut [u8]);

    /// XORs `data` with the keystream of SP 800-38D's GCTR: counter_0 =
    /// `counter`, and inc32 increments the last 32 bits, read big-endian,
    /// modulo 2^32.
    fn ctr32be(&self, counter: &Block, data: &mut [u8]);
}

/// POLYVAL and GHASH keyed on the same backend as the block cipher.
pub(crate) trait Hashes: BlockCipher {
    /// The POLYVAL implementation of the same backend.
    type Polyval: Polyval;

    /// A POLYVAL instance keyed with `h`, on the same backend as `self`.
    fn polyval(&self, h: &Block) -> Self::Polyval;

    /// What a backend precomputes once per GCM key for GHASH (for example the
    /// powers of its key); each message's hash state is a plain
    /// [`Hashes::Polyval`] used together with it.
    type GhashTable: Clone + Zeroize;

    /// The table for the POLYVAL key `h` (already mulX(ByteReverse(H))).
    fn ghash_table(&self, h: &Block) -> Self::GhashTable;

    /// [`Polyval::update_padded_reversed`] with the key's table at hand.
    fn ghash_update(table: &Self::GhashTable, hash: &mut Self::Polyval, data: &[u8]) {
        let _ = table;
        hash.update_padded_reversed(data);
    }
}

/// Fused kernels: a whole pass (CTR with the hash beside it), the record
/// keys, or a whole message in one call. Every method has a default that
/// runs the steps one by one, or returns `None` and leaves them to the mode.
pub(crate) trait FusedKernels: Hashes {
    /// GCM encryption's pass: CTR (as [`BlockCipher::ctr32be`]), then GHASH
    /// of the ciphertext through `hash` (see [`Polyval::update_padded_reversed`]).
    fn ctr32be_then_ghash(
        &self,
        counter: &Block,
        data: &mut [u8],
        hash: &mut Self::Polyval,
        table: &Self::GhashTable,
    ) {
        self.ctr32be(counter, data);
        Self::ghash_update(table, hash, data);
    }

    /// GCM decryption's pass: GHASH of the ciphertext, then CTR.
    fn ghash_then_ctr32be(
        &self,
        counter: &Block,
        data: &mut [u8],
        hash: &mut Self::Polyval,
        table: &Self::GhashTable,
    ) {
        Self::ghash_update(table, hash, data);
        self.ctr32be(counter, data);
    }

    /// GCM-SIV decryption's pass over the ciphertext: CTR on `data` (as
    /// [`BlockCipher::ctr32le`]) and POLYVAL over the resulting plaintext,
    /// zero-padded to whole blocks.
    fn ctr32le_then_polyval(&self, counter: &Block, data: &mut [u8], hash: &mut Self::Polyval) {
        self.ctr32le(counter, data);
        hash.update_padded(data);
    }

    /// RFC 8452 section 4 for this key as the key-generating key, in the
    /// backend's own kernel (the derived keys kept in registers): the record
    /// encryption key (on the same backend) and POLYVAL keyed with the record
    /// authentication key; or `None` if the backend has no such kernel, and
    /// the mode derives them from bytes itself.
    #[inline]
    fn derive_record_keys_fused(&self, nonce: &[u8; 12]) -> Option<(Self, Self::Polyval)> {
        let _ = nonce;
        None
    }

    /// RFC 8452 section 4's encryption of one message of any length, with
    /// this key as the key-generating key, in the backend's own kernels (on
    /// x86-64: one fused kernel up to [`SHORT_MAX`] bytes of message and of
    /// AAD, the long-message kernel past that): returns the tag, or `None`
    /// (nothing touched) if the backend has none and the mode should run step
    /// by step. `data` is the plaintext and the ciphertext's place: one
    /// buffer, or two ([`InOut`]), which a kernel that can reads and writes
    /// in one pass.
    fn seal_fused(&self, nonce: &[u8; 12], aad: &[u8], data: InOut<'_>) -> Option<Block> {
        let _ = (nonce, aad, data);
        None
    }

    /// Decryption's counterpart of [`FusedKernels::seal_fused`], any length:
    /// CTR from the received `tag`, then a block equal to `tag` exactly when
    /// `tag` is the one the plaintext should have (that tag itself, or, on
    /// x86-64, a block made from the received tag decrypted under the record
    /// key; the caller compares in constant time and releases), or `None` as
    /// there.
    fn open_fused(&self, nonce: &[u8; 12], aad: &[u8], data: InOut<'_>, tag: &Block) -> Option<Block> {
        let _ = (nonce, aad, data, tag);
        None
    }

    /// A pre-RFC 8452 GCM-SIV seal ([`SivLayout`]) of a message and AAD of
    /// at most [`SHORT_MAX`] bytes each, under this key as the message's AES
    /// key and `h` as the POLYVAL key, in the backend's short kernel: the tag,
    /// or `None` (nothing touched) if the backend has none or the lengths are
    /// past it, and the mode runs step by step.
    // Only the research module calls it (see [`SivLayout`]).
    #[allow(dead_code)]
    fn seal_layout(&self, h: &Block, layout: &SivLayout, aad: &[u8], data: &mut [u8]) -> Option<Block> {
        let _ = (h, layout, aad, data);
        None
    }

    /// The open of [`FusedKernels::seal_layout`]: CTR from the received
    /// `tag`'s counter, then the tag the plaintext should have (the caller
    /// compares, and puts the ciphertext back on a mismatch), or `None` as
    /// there.
    // Only the research module calls it (see [`SivLayout`]).
    #[allow(dead_code)]
    fn open_layout(
        &self,
        h: &Block,
        layout: &SivLayout,
        aad: &[u8],
        data: &mut [u8],
        tag: &Block,
    ) -> Option<Block> {
        let _ = (h, layout, aad, data, tag);
        None
    }

    /// SP 800-38D with a 96-bit IV in the backend's own fused kernels, any
    /// length: GCM-AE encrypts `data` in place and returns the full 16-byte
    /// tag; with `OPEN`, GCM-AD decrypts it in place and returns the full tag
    /// the ciphertext should have (the caller compares, and puts the
    /// ciphertext back on a mismatch). `None` (nothing touched) if the backend
    /// has no such kernel, and the mode runs step by step. `table` is this
    /// key's GHASH table ([`Hashes::ghash_table`]).
    fn gcm_fused<const OPEN: bool>(
        &self,
        table: &Self::GhashTable,
        iv: &[u8; 12],
        aad: &[u8],
        data: InOut<'_>,
    ) -> Option<Block> {
        let _ = (table, iv, aad, data);
        None
    }
}

/// Batch groups: the set-up steps of several messages side by side. Optional:
/// without them a batch runs one message at a time.
pub(crate) trait BatchKernels: FusedKernels {
    /// Memory a batch call lends each of its groups for the lanes' round
    /// keys, wiped once when it drops (see [`BatchKernels::seal_lanes`]).
    type LaneKeys: Default;

    /// Whether batches should hand [`WIDE_GROUP`] messages to one
    /// [`BatchKernels::seal_lanes`] call rather than [`GROUP`].
    fn wide_groups(&self) -> bool {
        false
    }

    /// Which groups [`BatchKernels::seal_lanes`] (`seal`) or
    /// [`BatchKernels::open_lanes`] should be given ([`LaneLimits`]), or
    /// `None` if the backend has no group kernel. The kernels are correct at
    /// any lengths; past these limits one message at a time is the faster.
    /// The caller decides from this before it gathers a group's arguments
    /// (gathering them only to be turned down cost batches of 1 KiB opens
    /// 3-4%).
    fn lane_limits(&self, seal: bool) -> Option<LaneLimits> {
        let _ = seal;
        None
    }

    /// [`FusedKernels::seal_fused`] for `L` messages at once (`L` a multiple
    /// of [`QUAD`]; lengths as [`BatchKernels::lane_limits`] allows, which the
    /// caller checks), their set-up steps side by side: the tags, or `None`
    /// (nothing touched) if the backend has no such kernel. The round keys go
    /// to `keys`, which the groups of one batch share.
    fn seal_lanes<const L: usize>(
        &self,
        nonces: [&[u8; 12]; L],
        aads: [&[u8]; L],
        data: [&mut [u8]; L],
        keys: &mut Self::LaneKeys,
    ) -> Option<[Block; L]> {
        let _ = (nonces, aads, data, keys);
        None
    }

    /// [`FusedKernels::open_fused`] for `L` messages at once, as
    /// [`BatchKernels::seal_lanes`].
    fn open_lanes<const L: usize>(
        &self,
        nonces: [&[u8; 12]; L],
        aads: [&[u8]; L],
        data: [&mut [u8]; L],
        tags: &[Block; L],
        keys: &mut Self::LaneKeys,
    ) -> Option<[Block; L]> {
        let _ = (nonces, aads, data, tags, keys);
        None
    }
}

/// POLYVAL (RFC 8452 section 3) keyed with H, accumulating whole blocks.
///
/// Field elements are 16-byte strings read little-endian: bit `i` of byte `j` is
/// the coefficient of x^(8j + i), modulo x^128 + x^127 + x^126 + x^121 + 1.
pub(crate) trait Polyval: Zeroize {
    /// Absorbs `blocks`, whose length is a multiple of 16.
    fn update_blocks(&mut self, blocks: &[u8]);

    /// Absorbs `data`, zero-padding a final partial block.
    fn update_padded(&mut self, data: &[u8]) {
        let whole = data.len() - data.len() % 16;
        self.update_blocks(&data[..whole]);
        if whole < data.len() {
            let mut last = [0u8; 16];
            last[..data.len() - whole].copy_from_slice(&data[whole..]);
            self.update_blocks(&last);
            last.zeroize();
        }
    }

    /// Absorbs `data` as GHASH would see it: each (zero-padded) block is
    /// byte-reversed before it enters POLYVAL. With the key mulX(ByteReverse(H)),
    /// the byte-reversed result is GHASH (RFC 8452 Appendix A).
    fn update_padded_reversed(&mut self, data: &[u8]) {
        let mut block = [0u8; 16];
        for chunk in data.chunks(16) {
            block = [0u8; 16];
            block[..chunk.len()].copy_from_slice(chunk);
            block.reverse();
            self.update_blocks(&block);
        }
        block.zeroize();
    }

    /// The current accumulator S_j.
    fn finalize(&self) -> Block;

    /// dot(a, b) = a * b * x^-128 in this hash's field (RFC 8452 section 3).
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    fn dot(&self, a: &Block, b: &Block) -> Block;

    /// The key H.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    fn key(&self) -> Block;

    /// H^n in the dot-product sense (dot(S, H^n) is S followed by n zero
    /// blocks), for n >= 1. POLYVAL is Horner's rule, so this is how partial
    /// sums computed in parallel are joined. Square-and-multiply over the
    /// bits of n, which is a length and public.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    fn power(&self, n: u64) -> Block {
        debug_assert!(n >= 1);
        let mut power = self.key();
        let mut result: Option<Block> = None;
        let mut e = n;
        while e > 0 {
            if e & 1 == 1 {
                result = Some(match result {
                    None => power,
                    Some(r) => self.dot(&r, &power),
                });
            }
            power = self.dot(&power, &power);
            e >>= 1;
        }
        power.zeroize();
        result.unwrap_or_default()
    }

    /// Replaces the accumulator.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    fn set_state(&mut self, s: &Block);
}

/// `counter` advanced by `n` blocks under GCM-SIV's counter (the first 32
/// bits, little-endian, modulo 2^32).
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
pub(crate) fn counter_add_le32(counter: &Block, n: u32) -> Block {
    let mut c = *counter;
    let low = u32::from_le_bytes(c[..4].try_into().unwrap()).wrapping_add(n);
    c[..4].copy_from_slice(&low.to_le_bytes());
    c
}

/// `counter` advanced by `n` blocks under GCM's inc32 (the last 32 bits,
/// big-endian, modulo 2^32).
pub(crate) fn counter_add_be32(counter: &Block, n: u32) -> Block {
    let mut c = *counter;
    let low = u32::from_be_bytes(c[12..].try_into().unwrap()).wrapping_add(n);
    c[12..].copy_from_slice(&low.to_be_bytes());
    c
}

/// What a hardware backend's constructors require: proof that the CPU has
/// its features, from [`Backend::proof`] alone.
pub(crate) type HardwareProof = hw::Features;

/// A hardware key schedule or hash state, made from the proof that the CPU
/// runs it (the portable types need none: they have plain `new`).
pub(crate) trait FromProof<Key: ?Sized> {
    fn from_proof(proof: HardwareProof, key: &Key) -> Self;
}

/// The backends this build knows; which of them a key uses is decided once.
/// Every list of them ([`Backend::ALL`], [`Backend::available`], names,
/// widths, the C ABI's numbers) comes from one table in the crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// Constant-time portable code: bitsliced AES and a carry-less multiply built
    /// from masked integer multiplies. Always available.
    Portable,
    /// x86-64 AES-NI and PCLMULQDQ (with SSSE3 and SSE4.1); where the CPU also
    /// has AVX, the kernels for messages of up to 128 bytes use its
    /// three-operand forms.
    AesNiClmul,
    /// [`Backend::AesNiClmul`] with VAES, VPCLMULQDQ and AVX2 as well (AMD
    /// Zen 3 and later, Intel Ice Lake and Alder Lake and later): the bulk CTR
    /// and POLYVAL passes run two blocks per instruction in 256-bit registers,
    /// and, where the CPU also has AVX-512 F, BW and VL (AMD Zen 4 and later,
    /// Intel Sapphire Rapids and later), four per instruction in 512-bit
    /// registers for inputs of 1 KiB and more (CTR from 256 bytes). Intel Ice
    /// Lake and Tiger Lake keep to 256 bits: 512-bit instructions lower their
    /// clock. [`Backend::register_bits`] says which width this CPU runs.
    AesNiVaes,
    /// AArch64 with the ARMv8 Cryptographic Extension: AESE/AESMC for AES and
    /// PMULL/PMULL2 (64x64-bit carry-less multiply) for POLYVAL and GHASH, in
    /// 128-bit NEON registers (every ARMv8 server and laptop core: Neoverse,
    /// Apple M, Cortex-A53 and later with the extension).
    Armv8AesPmull,
}

/// One row of [`TABLE`].
struct Row {
    backend: Backend,
    /// The short name reports, the C ABI and the bindings use.
    name: &'static str,
    /// The widest registers its kernels use where the CPU does not say
    /// otherwise (the hardware module's `Features::register_bits` does).
    register_bits: u32,
}

/// Every backend, portable first and, on each target, faster ones later:
/// the one list of backends.
const TABLE: [Row; 4] = [
    Row { backend: Backend::Portable, name: "portable", register_bits: 64 },
    Row { backend: Backend::AesNiClmul, name: "aesni-clmul", register_bits: 128 },
    Row { backend: Backend::AesNiVaes, name: "aesni-vaes", register_bits: 256 },
    Row { backend: Backend::Armv8AesPmull, name: "armv8-aes-pmull", register_bits: 128 },
];

impl Backend {
    /// Every backend this build knows, on any CPU, in the table's order (the
    /// C ABI numbers them from 1 in this order).
    pub const ALL: [Backend; TABLE.len()] = {
        let mut all = [Backend::Portable; TABLE.len()];
        let mut i = 0;
        while i < TABLE.len() {
            all[i] = TABLE[i].backend;
            i += 1;
        }
        all
    };

    fn row(self) -> &'static Row {
        TABLE.iter().find(|row| row.backend == self).expect("internal error: every backend has a row")
    }

    /// The fastest backend this CPU supports, or [`Backend::Portable`] when the
    /// crate is built with the `force-portable` feature.
    pub fn select() -> Self {
        if cfg!(feature = "force-portable") {
            return Backend::Portable;
        }
        Self::available().into_iter().flatten().next_back().unwrap_or(Backend::Portable)
    }

    /// Every backend usable on this CPU, portable first, fastest last (`None`
    /// for the others, in [`Backend::ALL`]'s places). Tests run each of them.
    pub fn available() -> [Option<Backend>; TABLE.len()] {
        Self::ALL.map(Backend::if_supported)
    }

    /// `Some(self)` if this CPU can run the backend.
    pub fn if_supported(self) -> Option<Self> {
        self.proof().ok().map(|_| self)
    }

    /// The one place a backend becomes what its constructors require:
    /// `None` for the portable backend, which needs no proof, or the proof
    /// that this CPU has the hardware backend's features. Every key, hash and
    /// test that picks a backend asks here, so none can disagree on it.
    pub(crate) fn proof(self) -> Result<Option<HardwareProof>, crate::Error> {
        match self {
            Backend::Portable => Ok(None),
            // Miri runs no CPU detection and no intrinsics: under it
            // (scripts/miri.sh) the portable backend is the only one.
            _ if cfg!(miri) => Err(crate::Error::BackendUnavailable),
            _ => hw::detect(self).map(Some).ok_or(crate::Error::BackendUnavailable),
        }
    }

    /// Runs `job` on a key schedule of `key` (16 or 32 bytes) on this
    /// backend: how code that picks a backend at run time (the research
    /// variants, the tests) gets a schedule, without matching on proofs.
    // Only the research module and the tests call it: a plain allow, so that
    // nothing here changes with the `research` feature.
    #[allow(dead_code)]
    pub(crate) fn on_schedule<J: OnSchedule>(self, key: &[u8], job: J) -> Result<J::Output, crate::Error> {
        let bad_length = crate::Error::InvalidKeyLength {
            expected: if key.len() < 16 { 16 } else { 32 },
            actual: key.len(),
        };
        Ok(match (self.proof()?, key.len()) {
            (None, 16) => job.run(soft::Aes128::new(key.try_into().map_err(|_| bad_length)?)),
            (None, 32) => job.run(soft::Aes256::new(key.try_into().map_err(|_| bad_length)?)),
            (Some(proof), 16) => {
                job.run(hw::Aes128::from_proof(proof, key.try_into().map_err(|_| bad_length)?))
            }
            (Some(proof), 32) => {
                job.run(hw::Aes256::from_proof(proof, key.try_into().map_err(|_| bad_length)?))
            }
            _ => return Err(bad_length),
        })
    }

    /// A short name for reports: `"portable"`, `"aesni-clmul"`, `"aesni-vaes"`
    /// or `"armv8-aes-pmull"`.
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The backend named `name` (as [`Backend::name`] gives it).
    pub fn from_name(name: &str) -> Option<Self> {
        TABLE.iter().find(|row| row.name == name).map(|row| row.backend)
    }

    /// The widest vector registers this backend's kernels use on this CPU:
    /// 64 for the portable backend (general-purpose registers), 128 for
    /// [`Backend::AesNiClmul`] and [`Backend::Armv8AesPmull`], 256 or 512 for
    /// [`Backend::AesNiVaes`] (512 where the CPU has AVX-512 and runs it at
    /// full clock; 256 where the CPU lacks the backend).
    pub fn register_bits(self) -> u32 {
        match self.proof() {
            Ok(Some(proof)) => proof.register_bits(),
            _ => self.row().register_bits,
        }
    }
}

/// Something done with a key schedule of either size on any backend
/// ([`Backend::on_schedule`]): a generic closure.
// Used with [`Backend::on_schedule`] only (see there).
#[allow(dead_code)]
pub(crate) trait OnSchedule {
    type Output;
    fn run<A: Aes + Send + Sync + 'static>(self, aes: A) -> Self::Output
    where
        A::GhashTable: Send + Sync;
}

/// The name and the register width, as `aesni-vaes (512-bit)`: what reports
/// and `--version` lines print.
impl core::fmt::Display for Backend {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} ({}-bit)", self.name(), self.register_bits())
    }
}

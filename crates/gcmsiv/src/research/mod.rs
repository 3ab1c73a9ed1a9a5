//! The seed papers' own systems, before RFC 8452: **historical, for research
//! only, not for production.** (Feature `research`, off by default.)
//!
//! The crate implements RFC 8452. The papers it started from describe the
//! schemes on the way to it, which no other library implements:
//!
//! - 000, Gueron and Lindell, "GCM-SIV: Full Nonce Misuse-Resistant
//!   Authenticated Encryption at Under One Cycle per Byte" (CCS 2015, revised
//!   2017): GCM-SIV with two keys and with one, over GHASH;
//! - the AES-GCM-SIV drafts of 2016: draft-gueron-gcmsiv-00,
//!   draft-irtf-cfrg-gcmsiv-01 (= 004, the CFRG slides of May 2016) and -02;
//! - 002, Gueron and Lindell, "Better Bounds for Block Cipher Modes of
//!   Operation via Nonce-Based Key Derivation" (CCS 2017): its DeriveKey
//!   applied to CTR and to AES-GCM.
//!
//! [`Variant`] names the eleven of them (and GCM-SIV+, which 002 measures),
//! each with the choice it makes where its source is ambiguous;
//! [`SeedCipher`] seals and opens with any of them, on every backend (the
//! crate's own AES, POLYVAL, GHASH and CTR, fused and wide where the RFC
//! path is); [`Intermediates`] gives the values the authors' printouts list;
//! [`bounds`] recomputes 002's usage table; [`AesParts`] gives the two
//! pieces 002 times alone (key expansion with a few blocks, static-key CTR). The specification they follow is
//! the project's seed SPEC.md; `vectors/seed_variants.json` holds the
//! published vectors (and computed ones for the readings nobody published).
//!
//! These formats are obsolete: they were replaced because of weaknesses
//! (000's static keys limit the data per key to about 2^48 blocks; the
//! drafts' static hash key let whoever chooses the key force H = 0, which -02
//! fixed). There are no usage limits here beyond each spec's lengths, no key
//! commitment, and no interoperability promise beyond the vectors. Use
//! [`Aes128GcmSiv`](crate::Aes128GcmSiv) or
//! [`Aes256GcmSiv`](crate::Aes256GcmSiv) for data.
//!
//! # The ambiguities of 000, and how each is resolved
//!
//! | | what 000 leaves open | here |
//! |---|---|---|
//! | A1 | bit and byte order (it names GHASH and GCM's encoding only) | two readings: [`Variant::GcmSiv2015TwoKeyPaper`] takes GCM's order throughout; [`Variant::GcmSiv2015TwoKey`] the authors' 2015 code (POLYVAL, LE, message length first), the only one with vectors |
//! | A2 | section 4.2 clears the tag input's top bit and sets the counter's; section 5.1 says the reverse | section 4.2, as every code version and draft |
//! | A3 | "the n-k-1 most significant bits of T followed by k zeroes, and the most significant bit is set to 1" | overwrite: T with its top bit set and its counter field replaced (004's `1 \|\| TAG[126:32] \|\| ...` confirms) |
//! | A4 | the nonce has 127 bits | 16 bytes are taken; the masked bit is ignored (two nonces that differ only there give the same output) |
//! | A5 | the first counter value | 0 in the paper reading, 1 in the authors' code reading |
//! | A6 | the one-key constant 0^127 \|\| 1 | `b[15] = 1` in the paper reading, `b[0] = 1` in the code reading |
//! | A7 | section 3.1 prints `I * 2^(n-k)` for the counter | `I1 * 2^k + j`, as intended |
//! | A8 | 2^k or 2^k - 1 blocks | P_MAX = 2^36 bytes; the counter wraps modulo 2^32 past that in the code reading (its first block uses 1) |
//! | A9 | section 5.1's multiplication count ignores the separate padding | the hash pads A and M separately, as GCM's encoding does |
//! | A10-A12 | a table misnamed, the bound's factor, T and T' swapped | documentation only (docs/SEEDS.md) |
//!
//! And 002: whether CTR's DeriveKey makes 2 or 4 blocks (4 here, as its
//! Figure 1), the counter's byte order (N || BE32(j) from 0), and whether
//! AES-GCM's hash key is the derived K1 ([`Variant::GcmDeriveKeyA`], section
//! 4's words) or AES_K2(0) ([`Variant::GcmDeriveKeyB`], Appendix B's).
//!
//! ```
//! use gcmsiv::research::{SeedCipher, Variant};
//! // 000's two-key GCM-SIV, the authors' README example (2016-04-04).
//! let key = hex("0300000000000000000000000000000001000000000000000000000000000000");
//! let cipher = SeedCipher::new(Variant::GcmSiv2015TwoKey, &key).unwrap();
//! let nonce = hex("03000000000000000000000000000000");
//! let msg = hex("02000000000000000000000000000000030000000000000000000000000000000400");
//! let sealed = cipher.seal(&nonce, &hex("010000000000000000000000"), &msg).unwrap();
//! assert_eq!(sealed[msg.len()..], hex("7b01c2703733cd550145d99f1e36a3b0"));
//! assert_eq!(cipher.open(&nonce, &hex("010000000000000000000000"), &sealed).unwrap(), msg);
//! # fn hex(s: &str) -> Vec<u8> { (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect() }
//! ```

pub mod bounds;
mod derive_key;
mod parts;
mod siv;

pub use parts::AesParts;

use crate::Error;
use crate::aes_gcm::Tag;
use crate::backend::{Aes, Backend, Block, OnSchedule};
use crate::limits::{A_MAX, GCM_A_MAX, Limits, NONCE_LEN, P_MAX};
use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;
use derive_key::{DeriveKeyMode, Scheme};
use siv::{Convention, HashKey, KeySchedule, RecordKeyRule, SivMode};
use zeroize::{Zeroize, Zeroizing};

/// The seeds' variants. Each is historical and not for production; each
/// entry says where it comes from, how its key and nonce are laid out, and
/// what it resolves where its source is ambiguous. [`Variant::name`] gives
/// the name the vectors and `examples/research_vectors.rs` use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Variant {
    /// `gcm-siv-2015-two-key`: 000's two-key GCM-SIV (section 4.2) as the
    /// authors' 2015 code computes it (the reading with published vectors,
    /// A1): S = POLYVAL(K1, pad(A) || pad(M) || LE64(8|M|) || LE64(8|A|)),
    /// the message length first; T = AES-128_K2((S xor N) with 0x80 of byte
    /// 15 cleared); CTR from T with 0x80 of byte 15 set and LE32(j) in bytes
    /// 0..4 from j = 1 (A5). Key K1 || K2 (32 bytes), nonce 16 bytes (A4).
    GcmSiv2015TwoKey,
    /// `gcm-siv-2015-one-key`: 000's single-key GCM-SIV (section 4.3), code
    /// reading: K1 = AES_K0(0^128), K2 = AES_K0(01 00..00) (A6: the 1 in
    /// byte 0), derived once per key, then [`Variant::GcmSiv2015TwoKey`].
    /// Key K0 (16 bytes), nonce 16.
    GcmSiv2015OneKey,
    /// `gcm-siv-2015-two-key-paper`: 000's two-key GCM-SIV as its text reads
    /// with GCM's conventions (A1), which no code ever published: S =
    /// GHASH(K1, pad(A) || pad(M) || BE64(8|A|) || BE64(8|M|)); T =
    /// AES-128_K2((S xor N) with 0x80 of byte 0 cleared); CTR (GCM's inc32)
    /// from T with 0x80 of byte 0 set and bytes 12..16 zero (A3, A5). Key
    /// K1 || K2 (32 bytes), nonce 16 (A4).
    GcmSiv2015TwoKeyPaper,
    /// `gcm-siv-2015-one-key-paper`: the same with K1 = AES_K0(0^128) (which
    /// is AES-GCM's H for K0) and K2 = AES_K0(00..00 01) (A6: the 1 in byte
    /// 15, GCM's order). Key K0 (16 bytes), nonce 16.
    GcmSiv2015OneKeyPaper,
    /// `draft-gueron-00`: draft-gueron-gcmsiv-00 (March 2016, unchanged to
    /// draft-irtf-cfrg-gcmsiv-00): POLYVAL under a static H, the length
    /// block AAD first; record key RK = AES_K(N) (AES-256: AES_K(N with byte
    /// 0 & 0xfe) || AES_K(N with byte 0 | 0x01)); T = AES_RK((S xor N) with
    /// bit 127 cleared); CTR from T with bit 127 set and LE32(j) in bytes
    /// 0..4 from 0. Key H || K (32 or 48 bytes), nonce 16.
    DraftGueron00,
    /// `draft-gueron-00-one-key`: the authors' April 2016 one-key form of
    /// draft-gueron-00: H = AES_K0(0^128), K = AES_K0(LE128(1)) (AES-256:
    /// || AES_K0(LE128(2))), derived once per key. Key K0 (16 or 32
    /// bytes), nonce 16.
    DraftGueron00OneKey,
    /// `draft-irtf-01`: draft-irtf-cfrg-gcmsiv-01 (May 2016), the algorithm
    /// of 004's slides: draft-gueron-00 with the AES-256 record key a
    /// cascade (RK[16..32] = AES_K(N), RK[0..16] = AES_K(RK[16..32])) and the
    /// counter continuing from the tag's first 32 bits (mod 2^32) instead of
    /// zeroing them. Key H || K (32 or 48 bytes), nonce 16.
    DraftIrtf01,
    /// `draft-irtf-02`: draft-irtf-cfrg-gcmsiv-02 (August 2016): one key K;
    /// a per-nonce hash key HK = AES_K(N), the record key from HK by -01's
    /// rule, and the nonce no longer XORed into S (it defeats the attack
    /// where whoever picks the key forces H = 0). Key 16 or 32 bytes,
    /// nonce 16.
    DraftIrtf02,
    /// `ctr-derive-key`: 002's CTR with DeriveKey: (K1, K2) = DeriveKey(K,
    /// N), which is RFC 8452 section 4's derivation (four or six blocks, as
    /// 002's Figure 1; 002 does not say whether CTR needs K1), and the
    /// keystream AES_K2(N || BE32(j)) from j = 0 (002 fixes neither order
    /// nor start). No associated data, no tag: not authenticated
    /// encryption. Key 16 or 32 bytes, nonce 12.
    CtrDeriveKey,
    /// `gcm-derive-key-a`: 002's AES-GCM with DeriveKey as its section 4
    /// reads: AES-GCM (SP 800-38D, 96-bit IV N) under K2 with the GHASH key
    /// H = K1. Key 16 or 32 bytes, nonce 12.
    GcmDeriveKeyA,
    /// `gcm-derive-key-b`: the reading of 002's Appendix B analysis: plain
    /// AES-GCM under K2 (H = AES_K2(0^128)), bit for bit
    /// [`Aes128Gcm`](crate::Aes128Gcm) under K2. Key 16 or 32 bytes, nonce 12.
    GcmDeriveKeyB,
    /// `gcm-siv-plus`: 002's "GCM-SIV+" (its footnote 7): draft-irtf-01's
    /// layout with static keys and no record key (the counter from the tag),
    /// what 002's Table 3 most likely measured as "GCM-SIV" without
    /// DeriveKey. No published vectors; draft-irtf-01 with RK replaced by K.
    /// Key H || K (32 or 48 bytes), nonce 16, whose bit 127 (0x80 of byte
    /// 15) is masked off and so ignored, as in 000 (A4): without a record
    /// key nothing else reads it.
    GcmSivPlus,
}

/// Everything that tells one variant from another, in one row of [`SPECS`]:
/// its name, its key and nonce layout, and how its keys and mode are built.
/// (Its sources and readings are its doc comment on [`Variant`].)
struct Spec {
    variant: Variant,
    name: &'static str,
    /// The key lengths it takes, in bytes.
    key_lens: &'static [usize],
    nonce_len: usize,
    build: Build,
}

/// Where a variant's hash key and AES key come from, given the key bytes.
#[derive(Clone, Copy)]
enum Keys {
    /// H is the key's first 16 bytes, the AES key the rest.
    Prefix,
    /// The key is K0; H = AES_K0(c_0) and the AES key AES_K0(c_1) (||
    /// AES_K0(c_2)), with the constant's 1 in byte 15 (`gcm_order`) or in
    /// byte 0 ([`derive_blocks`]).
    FromK0 { gcm_order: bool },
}

/// How a variant's mode is made.
#[derive(Clone, Copy)]
enum Build {
    /// Static H and AES key: 000, GCM-SIV+.
    Static { convention: Convention, keys: Keys, limits: &'static Limits },
    /// A static H and a per-nonce AES key made from the nonce under K:
    /// draft-gueron-00 and -01.
    RecordKey { convention: Convention, keys: Keys, rule: RecordKeyRule, limits: &'static Limits },
    /// Per-nonce hash and record keys from one key: draft-irtf-02.
    HashAndRecordKey { convention: Convention, limits: &'static Limits },
    /// RFC 8452's DeriveKey, then CTR or AES-GCM under the derived keys: 002.
    DeriveKey(Scheme),
}

/// 000 (2015): a 16-byte nonce (its masked bit ignored), 2^32 blocks of
/// plaintext in the 32-bit counter field (P_MAX = 2^36, 000 section 4.1); 000
/// states no AAD limit, so RFC 8452's A_MAX = 2^36 is kept.
const GCM_SIV_2015: Limits =
    Limits { nonce_min: 16, nonce_max: 16, aad_max: A_MAX, plaintext_max: P_MAX, ciphertext_max: P_MAX };

/// The 2016 drafts (draft-gueron-gcmsiv-00 to draft-irtf-cfrg-gcmsiv-02):
/// 16-byte nonce, P_MAX = 2^36, A_MAX = 2^61 - 1.
const GCM_SIV_DRAFTS: Limits =
    Limits { nonce_min: 16, nonce_max: 16, aad_max: GCM_A_MAX, plaintext_max: P_MAX, ciphertext_max: P_MAX };

/// CTR with 002's DeriveKey (and the static-key CTR of [`AesParts`]): a 12-byte nonce, no associated data at all
/// (A_MAX = 0), 2^32 blocks from counter 0.
const CTR_DERIVE_KEY: Limits = Limits {
    nonce_min: NONCE_LEN,
    nonce_max: NONCE_LEN as u64,
    aad_max: 0,
    plaintext_max: P_MAX,
    ciphertext_max: P_MAX,
};

/// Every variant, in [`Variant`]'s order (the seeds' specification's, GCM-SIV+
/// last): the one table the variant's methods and [`SeedCipher`] read.
const SPECS: [Spec; 12] = {
    use siv::{AUTHORS_CODE_2015, DRAFT_GUERON_00, DRAFT_IRTF_01, DRAFT_IRTF_02, PAPER_2015};
    const TWO: &[usize] = &[32];
    const ONE: &[usize] = &[16];
    const PREFIXED: &[usize] = &[32, 48];
    const ANY: &[usize] = &[16, 32];
    const fn row(
        variant: Variant,
        name: &'static str,
        key_lens: &'static [usize],
        nonce_len: usize,
        build: Build,
    ) -> Spec {
        Spec { variant, name, key_lens, nonce_len, build }
    }
    const fn code_2015(keys: Keys) -> Build {
        Build::Static { convention: AUTHORS_CODE_2015, keys, limits: &GCM_SIV_2015 }
    }
    [
        row(Variant::GcmSiv2015TwoKey, "gcm-siv-2015-two-key", TWO, 16, code_2015(Keys::Prefix)),
        row(
            Variant::GcmSiv2015OneKey,
            "gcm-siv-2015-one-key",
            ONE,
            16,
            code_2015(Keys::FromK0 { gcm_order: false }),
        ),
        row(
            Variant::GcmSiv2015TwoKeyPaper,
            "gcm-siv-2015-two-key-paper",
            TWO,
            16,
            Build::Static { convention: PAPER_2015, keys: Keys::Prefix, limits: &GCM_SIV_2015 },
        ),
        row(
            Variant::GcmSiv2015OneKeyPaper,
            "gcm-siv-2015-one-key-paper",
            ONE,
            16,
            Build::Static {
                convention: PAPER_2015,
                keys: Keys::FromK0 { gcm_order: true },
                limits: &GCM_SIV_2015,
            },
        ),
        row(
            Variant::DraftGueron00,
            "draft-gueron-00",
            PREFIXED,
            16,
            Build::RecordKey {
                convention: DRAFT_GUERON_00,
                keys: Keys::Prefix,
                rule: RecordKeyRule::Pair,
                limits: &GCM_SIV_DRAFTS,
            },
        ),
        row(
            Variant::DraftGueron00OneKey,
            "draft-gueron-00-one-key",
            ANY,
            16,
            Build::RecordKey {
                convention: DRAFT_GUERON_00,
                keys: Keys::FromK0 { gcm_order: false },
                rule: RecordKeyRule::Pair,
                limits: &GCM_SIV_DRAFTS,
            },
        ),
        row(
            Variant::DraftIrtf01,
            "draft-irtf-01",
            PREFIXED,
            16,
            Build::RecordKey {
                convention: DRAFT_IRTF_01,
                keys: Keys::Prefix,
                rule: RecordKeyRule::Cascade,
                limits: &GCM_SIV_DRAFTS,
            },
        ),
        row(
            Variant::DraftIrtf02,
            "draft-irtf-02",
            ANY,
            16,
            Build::HashAndRecordKey { convention: DRAFT_IRTF_02, limits: &GCM_SIV_DRAFTS },
        ),
        row(Variant::CtrDeriveKey, "ctr-derive-key", ANY, 12, Build::DeriveKey(Scheme::Ctr)),
        row(Variant::GcmDeriveKeyA, "gcm-derive-key-a", ANY, 12, Build::DeriveKey(Scheme::GcmA)),
        row(Variant::GcmDeriveKeyB, "gcm-derive-key-b", ANY, 12, Build::DeriveKey(Scheme::GcmB)),
        row(
            Variant::GcmSivPlus,
            "gcm-siv-plus",
            PREFIXED,
            16,
            Build::Static { convention: DRAFT_IRTF_01, keys: Keys::Prefix, limits: &GCM_SIV_DRAFTS },
        ),
    ]
};

impl Variant {
    /// Every variant, in the order of the seeds' specification (GCM-SIV+ last).
    pub const ALL: [Variant; 12] = {
        let mut all = [Variant::GcmSivPlus; 12];
        let mut i = 0;
        while i < SPECS.len() {
            // The table's rows are in the enum's order: `spec` indexes by it.
            assert!(SPECS[i].variant as usize == i);
            all[i] = SPECS[i].variant;
            i += 1;
        }
        all
    };

    /// This variant's row of [`SPECS`].
    fn spec(self) -> &'static Spec {
        &SPECS[self as usize]
    }

    /// The variant's name in the vectors and the JSON-lines contract.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The variant of that name, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.name() == name)
    }

    /// The key lengths it takes, in bytes.
    pub fn key_lens(self) -> &'static [usize] {
        self.spec().key_lens
    }

    /// The nonce length, in bytes: 16 for the GCM-SIV family, 12 for 002's schemes.
    pub fn nonce_len(self) -> usize {
        self.spec().nonce_len
    }

    /// The tag length, in bytes: 16, or 0 for [`Variant::CtrDeriveKey`].
    pub fn tag_len(self) -> usize {
        if matches!(self.spec().build, Build::DeriveKey(Scheme::Ctr)) { 0 } else { 16 }
    }

    /// Whether the key holds a static hash key H in front of the AES key.
    fn has_hash_key_prefix(self) -> bool {
        matches!(
            self.spec().build,
            Build::Static { keys: Keys::Prefix, .. } | Build::RecordKey { keys: Keys::Prefix, .. }
        )
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The intermediate values of one seal, as the authors' printouts and the
/// drafts list them (each `None` where the variant has no such value).
/// For checking an implementation against the vectors, step by step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Intermediates {
    /// The key the hash (POLYVAL or GHASH) ran under for this message.
    pub hash_key: Option<Vec<u8>>,
    /// The static AES key (the second key part, or the one-key variants' derived one).
    pub aes_key: Option<Vec<u8>>,
    /// The per-nonce AES key (the drafts' record key).
    pub record_encryption_key: Option<Vec<u8>>,
    /// The last hash block (the bit lengths).
    pub length_block: Option<Block>,
    /// The whole hash input: pad(A) || pad(M) || the length block.
    pub hash_input: Option<Vec<u8>>,
    /// The hash output S.
    pub hash_result: Option<Block>,
    /// S xor N, before masking.
    pub hash_result_xor_nonce: Option<Block>,
    /// The block the tag is the AES encryption of.
    pub tag_input: Option<Block>,
    /// The tag.
    pub tag: Option<Block>,
    /// The counter block of the first message block.
    pub initial_counter: Block,
    /// AES of [`Intermediates::initial_counter`] under the message's AES key.
    pub first_keystream_block: Block,
    /// DeriveKey's K1 (002's schemes).
    pub derived_k1: Option<Vec<u8>>,
    /// DeriveKey's K2 (002's schemes).
    pub derived_k2: Option<Vec<u8>>,
}

/// One variant's mode on one backend, behind one object-safe interface: the
/// family's code is generic over the backend, and this is where a key's
/// backend and AES key size are fixed, once.
trait Engine: Send + Sync {
    fn seal(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8]) -> Result<Block, Error>;
    fn open(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8], tag: &Block) -> Result<(), Error>;
    fn intermediates(&self, nonce: &[u8], aad: &[u8], msg: &[u8]) -> Result<Intermediates, Error>;
}

/// The nonce as the array a family takes (its length checked by [`SeedCipher`]).
fn nonce_array<const N: usize>(nonce: &[u8]) -> Result<&[u8; N], Error> {
    nonce.try_into().map_err(|_| Error::InvalidNonceLength { expected: N, actual: nonce.len() })
}

impl<A: Aes + Send + Sync> Engine for SivMode<A>
where
    A::GhashTable: Send + Sync,
{
    fn seal(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8]) -> Result<Block, Error> {
        self.seal_in_place(nonce_array(nonce)?, aad, buffer)
    }
    fn open(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8], tag: &Block) -> Result<(), Error> {
        self.open_in_place(nonce_array(nonce)?, aad, buffer, tag)
    }
    fn intermediates(&self, nonce: &[u8], aad: &[u8], msg: &[u8]) -> Result<Intermediates, Error> {
        SivMode::intermediates(self, nonce_array(nonce)?, aad, msg)
    }
}

impl<A: Aes + Send + Sync> Engine for DeriveKeyMode<A> {
    fn seal(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8]) -> Result<Block, Error> {
        self.seal_in_place(nonce_array(nonce)?, aad, buffer)
    }
    fn open(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8], tag: &Block) -> Result<(), Error> {
        self.open_in_place(nonce_array(nonce)?, aad, buffer, tag)
    }
    fn intermediates(&self, nonce: &[u8], aad: &[u8], msg: &[u8]) -> Result<Intermediates, Error> {
        DeriveKeyMode::intermediates(self, nonce_array(nonce)?, aad, msg)
    }
}

/// `count` blocks AES_K0(c_i) with c_i = LE128(i) (byte 0 = i; the code
/// reading and draft-gueron-00-one-key) or, with `gcm_order`, byte 15 = i.
fn derive_blocks<A: Aes>(k0: &A, first: u8, count: usize, gcm_order: bool) -> Zeroizing<[u8; 32]> {
    let mut blocks = Zeroizing::new([[0u8; 16]; 2]);
    for (i, b) in blocks[..count].iter_mut().enumerate() {
        b[if gcm_order { 15 } else { 0 }] = first + i as u8;
    }
    k0.encrypt_blocks(&mut blocks[..count]);
    let mut out = Zeroizing::new([0u8; 32]);
    out[..16].copy_from_slice(&blocks[0]);
    out[16..].copy_from_slice(&blocks[1]);
    out
}

/// The first counter block of CTR with DeriveKey, and of the static-key CTR
/// it is measured against: N || BE32(0).
fn ctr_counter(nonce: &[u8; crate::NONCE_LEN]) -> Block {
    let mut c = [0u8; 16];
    c[..crate::NONCE_LEN].copy_from_slice(nonce);
    c
}

/// A 16- or 32-byte AES key in the 32 bytes the modes keep.
fn padded(key: &[u8]) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    bytes[..key.len()].copy_from_slice(key);
    bytes
}

/// The variant's mode over the AES key `aes` (K, K2 or K0) and, for the
/// [`Keys::Prefix`] layouts, the static hash key `h`: its [`Build`], carried
/// out.
fn mode<A: Aes + Send + Sync + 'static>(
    variant: Variant,
    aes: A,
    aes_bytes: &[u8],
    h: Option<&Block>,
) -> Box<dyn Engine>
where
    A::GhashTable: Send + Sync,
{
    // The hash key and the AES key (with its bytes, for the intermediates).
    let keys = |keys: Keys, aes: A| -> (Zeroizing<Block>, A, Zeroizing<[u8; 32]>) {
        match keys {
            Keys::Prefix => {
                (Zeroizing::new(*h.expect("a prefixed key's H")), aes, Zeroizing::new(padded(aes_bytes)))
            }
            Keys::FromK0 { gcm_order } => {
                let hk = derive_blocks(&aes, 0, 1, gcm_order);
                let k = derive_blocks(&aes, 1, A::KEY_LEN / 16, gcm_order);
                let h = Zeroizing::new(<Block>::try_from(&hk[..16]).expect("16 bytes"));
                (h, aes.rekey(&k[..A::KEY_LEN]), Zeroizing::new(padded(&k[..A::KEY_LEN])))
            }
        }
    };
    match variant.spec().build {
        Build::Static { convention, keys: k, limits } => {
            let (h, aes, bytes) = keys(k, aes);
            let hash = HashKey::new(&aes, &h, convention.order);
            Box::new(SivMode::new(convention, KeySchedule::Static { hash, aes }, Some(*bytes), limits))
        }
        Build::RecordKey { convention, keys: k, rule, limits } => {
            let (h, key, bytes) = keys(k, aes);
            let hash = HashKey::new(&key, &h, convention.order);
            Box::new(SivMode::new(
                convention,
                KeySchedule::RecordKey { hash, key, rule },
                Some(*bytes),
                limits,
            ))
        }
        Build::HashAndRecordKey { convention, limits } => {
            Box::new(SivMode::new(convention, KeySchedule::HashAndRecordKey { key: aes }, None, limits))
        }
        Build::DeriveKey(scheme) => Box::new(DeriveKeyMode::new(aes, scheme)),
    }
}

/// A cipher for one of the seeds' variants: **historical, not for
/// production** (see the [module docs](self) and each [`Variant`]).
///
/// The key's backend is chosen once, when it is made, as for the crate's
/// own types; every variant runs on every backend. Keys are wiped on drop,
/// and `Debug` prints only the variant and the backend. A failed open
/// releases nothing: in place, the buffer holds the ciphertext again; the
/// allocating [`SeedCipher::open`] returns only the error.
pub struct SeedCipher {
    variant: Variant,
    backend: Backend,
    engine: Box<dyn Engine>,
}

impl fmt::Debug for SeedCipher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SeedCipher").field("variant", &self.variant).field("backend", &self.backend).finish()
    }
}

impl SeedCipher {
    /// A cipher for `variant` under `key` ([`Variant::key_lens`]) on the
    /// fastest backend this CPU has.
    pub fn new(variant: Variant, key: &[u8]) -> Result<Self, Error> {
        Self::with_backend(variant, key, Backend::select())
    }

    /// The same on a chosen backend; [`Error::BackendUnavailable`] if the
    /// CPU lacks it.
    pub fn with_backend(variant: Variant, key: &[u8], backend: Backend) -> Result<Self, Error> {
        let lens = variant.key_lens();
        if !lens.contains(&key.len()) {
            let expected = *lens.iter().find(|&&l| l > key.len()).unwrap_or(&lens[lens.len() - 1]);
            return Err(Error::InvalidKeyLength { expected, actual: key.len() });
        }
        let (h, aes) = if variant.has_hash_key_prefix() {
            let (h, k) = key.split_at(16);
            (Some(Zeroizing::new(<Block>::try_from(h).expect("16 bytes"))), k)
        } else {
            (None, key)
        };
        let h = h.as_deref();
        struct Job<'a> {
            variant: Variant,
            aes: &'a [u8],
            h: Option<&'a Block>,
        }
        impl OnSchedule for Job<'_> {
            type Output = Box<dyn Engine>;
            fn run<A: Aes + Send + Sync + 'static>(self, schedule: A) -> Box<dyn Engine>
            where
                A::GhashTable: Send + Sync,
            {
                mode(self.variant, schedule, self.aes, self.h)
            }
        }
        let engine = backend.on_schedule(aes, Job { variant, aes, h })?;
        Ok(SeedCipher { variant, backend, engine })
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The backend this key runs on.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Checks the nonce length before any work.
    fn check_nonce(&self, nonce: &[u8]) -> Result<(), Error> {
        let expected = self.variant.nonce_len();
        if nonce.len() != expected {
            return Err(Error::InvalidNonceLength { expected, actual: nonce.len() });
        }
        Ok(())
    }

    /// Encrypts `buffer` in place and returns the tag ([`Variant::tag_len`]
    /// bytes: empty for CTR with DeriveKey).
    pub fn seal_in_place_detached(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8]) -> Result<Tag, Error> {
        self.check_nonce(nonce)?;
        Ok(Tag::truncate(self.engine.seal(nonce, aad, buffer)?, self.variant.tag_len()))
    }

    /// Decrypts `buffer` in place if `tag` verifies; otherwise `buffer`
    /// holds the ciphertext again and the result is
    /// [`Error::Authentication`]. (CTR with DeriveKey verifies nothing:
    /// `tag` must be empty.)
    pub fn open_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buffer: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        self.check_nonce(nonce)?;
        let expected = self.variant.tag_len();
        if tag.len() != expected {
            return Err(Error::InvalidTagLength { expected, actual: tag.len() });
        }
        let mut full = [0u8; 16];
        full[..expected].copy_from_slice(tag);
        self.engine.open(nonce, aad, buffer, &full)
    }

    /// Encrypts `plaintext`: ciphertext || tag.
    pub fn seal(&self, nonce: &[u8], aad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>, Error> {
        let mut out = Vec::with_capacity(plaintext.len() + 16);
        out.extend_from_slice(plaintext);
        // A refused call (misuse) leaves no copy of the plaintext behind.
        let tag = self.seal_in_place_detached(nonce, aad, &mut out).inspect_err(|_| out.zeroize())?;
        out.extend_from_slice(tag.as_bytes());
        Ok(out)
    }

    /// Decrypts ciphertext || tag; on failure nothing is returned but the error.
    pub fn open(&self, nonce: &[u8], aad: &[u8], sealed: &[u8]) -> Result<Vec<u8>, Error> {
        let tag_len = self.variant.tag_len();
        if sealed.len() < tag_len {
            return Err(Error::CiphertextTooShort);
        }
        let (ct, tag) = sealed.split_at(sealed.len() - tag_len);
        // On failure `out` holds the ciphertext again: nothing to wipe.
        let mut out = ct.to_vec();
        self.open_in_place_detached(nonce, aad, &mut out, tag)?;
        Ok(out)
    }

    /// The intermediate values of sealing (`aad`, `msg`) under `nonce`.
    pub fn intermediates(&self, nonce: &[u8], aad: &[u8], msg: &[u8]) -> Result<Intermediates, Error> {
        self.check_nonce(nonce)?;
        self.engine.intermediates(nonce, aad, msg)
    }
}

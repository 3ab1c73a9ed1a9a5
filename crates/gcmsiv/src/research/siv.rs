//! The GCM-SIV family before RFC 8452 (000's two readings, GCM-SIV+ and the
//! 2016 drafts), written once: every variant is one [`Convention`] (how the
//! hash, the tag input and the counter are laid out) and one [`KeySchedule`]
//! (where each message's hash key and AES key come from), run by one seal
//! and one open over the backend traits.

use super::Intermediates;
use crate::Error;
use crate::backend::{Aes, Block, Polyval, SHORT_MAX, SivLayout};
use crate::gcm::{byte_reverse, mul_x_polyval};
use crate::limits::Limits;
use alloc::vec::Vec;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// The field, bit order and counter position a variant computes in
/// (000's ambiguity A1: 000 names GHASH and GCM's encoding but no byte order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// POLYVAL over the blocks as they are; LE64 lengths; the top bit is
    /// 0x80 of byte 15; a 32-bit little-endian counter in bytes 0..4 (the
    /// authors' code, the drafts, RFC 8452).
    Polyval,
    /// GHASH (SP 800-38D); BE64 lengths; the top bit is 0x80 of byte 0; a
    /// 32-bit big-endian counter in bytes 12..16 (GCM's `inc32`).
    Gcm,
}

/// Which length the length block holds first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lengths {
    /// AAD, then message: GCM, every draft, RFC 8452.
    AadFirst,
    /// Message, then AAD: the authors' 2015 code.
    MessageFirst,
}

/// Where the counter of the first message block comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Counter {
    /// The tag with its top bit set and its 32-bit counter field replaced
    /// by `first` (000: 0 in its text, 1 in the 2015 code, ambiguity A5;
    /// draft-gueron-00: 0).
    Zeroed { first: u32 },
    /// The tag with its top bit set, the counter field continuing from the
    /// tag's own bits (draft-irtf-01 on, 002's "GCM-SIV+").
    FromTag,
}

/// One variant's layout: everything but its keys.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Convention {
    pub(crate) order: Order,
    pub(crate) lengths: Lengths,
    pub(crate) counter: Counter,
    /// Whether the nonce is XORed into the hash output (all but -02).
    pub(crate) nonce_xor: bool,
}

/// 000 as the authors' 2015 code computes it (SPEC 1.4).
pub(crate) const AUTHORS_CODE_2015: Convention = Convention {
    order: Order::Polyval,
    lengths: Lengths::MessageFirst,
    counter: Counter::Zeroed { first: 1 },
    nonce_xor: true,
};
/// 000 as its text reads with GCM's conventions (SPEC 1.2).
pub(crate) const PAPER_2015: Convention = Convention {
    order: Order::Gcm,
    lengths: Lengths::AadFirst,
    counter: Counter::Zeroed { first: 0 },
    nonce_xor: true,
};
/// draft-gueron-gcmsiv-00 (and unchanged to draft-irtf-cfrg-gcmsiv-00).
pub(crate) const DRAFT_GUERON_00: Convention = Convention {
    order: Order::Polyval,
    lengths: Lengths::AadFirst,
    counter: Counter::Zeroed { first: 0 },
    nonce_xor: true,
};
/// draft-irtf-cfrg-gcmsiv-01 (= 004), and 002's GCM-SIV+ with static keys.
pub(crate) const DRAFT_IRTF_01: Convention = Convention {
    order: Order::Polyval,
    lengths: Lengths::AadFirst,
    counter: Counter::FromTag,
    nonce_xor: true,
};
/// draft-irtf-cfrg-gcmsiv-02: no nonce XOR (the nonce keys the hash instead).
pub(crate) const DRAFT_IRTF_02: Convention = Convention { nonce_xor: false, ..DRAFT_IRTF_01 };

impl Convention {
    /// The byte holding the top bit that separates tag inputs from counters
    /// (A2, A3: cleared in the tag input, set in every counter).
    fn top_byte(&self) -> usize {
        match self.order {
            Order::Polyval => 15,
            Order::Gcm => 0,
        }
    }

    /// The last hash block: the bit lengths of AAD and message.
    pub(crate) fn length_block(&self, aad_len: usize, msg_len: usize) -> Block {
        let (a, m) = ((aad_len as u64) * 8, (msg_len as u64) * 8);
        let (first, second) = match self.lengths {
            Lengths::AadFirst => (a, m),
            Lengths::MessageFirst => (m, a),
        };
        let mut b = [0u8; 16];
        match self.order {
            Order::Polyval => {
                b[..8].copy_from_slice(&first.to_le_bytes());
                b[8..].copy_from_slice(&second.to_le_bytes());
            }
            Order::Gcm => {
                b[..8].copy_from_slice(&first.to_be_bytes());
                b[8..].copy_from_slice(&second.to_be_bytes());
            }
        }
        b
    }

    /// S xor N (when the variant XORs the nonce), before masking.
    fn xor_nonce(&self, s: &Block, nonce: &Block) -> Block {
        let n = if self.nonce_xor { u128::from_le_bytes(*nonce) } else { 0 };
        (u128::from_le_bytes(*s) ^ n).to_le_bytes()
    }

    /// The tag input is S xor N and this: the top bit cleared (A4: the
    /// nonce bit it covers is ignored).
    fn tag_mask(&self) -> Block {
        let mut m = [0xff; 16];
        m[self.top_byte()] = 0x7f;
        m
    }

    /// The first counter block is (tag and the first) or the second: the
    /// top bit set, and for [`Counter::Zeroed`] the counter field replaced.
    fn counter_masks(&self) -> (Block, Block) {
        let (mut and, mut or) = ([0xff; 16], [0; 16]);
        or[self.top_byte()] = 0x80;
        if let Counter::Zeroed { first } = self.counter {
            let (field, value) = match self.order {
                Order::Polyval => (0..4, first.to_le_bytes()),
                Order::Gcm => (12..16, first.to_be_bytes()),
            };
            and[field.clone()].fill(0);
            or[field].copy_from_slice(&value);
        }
        (and, or)
    }

    /// The block the tag is the encryption of.
    fn tag_input(&self, s_xor_nonce: &Block) -> Block {
        and(s_xor_nonce, &self.tag_mask())
    }

    /// The counter block of the first message block.
    pub(crate) fn initial_counter(&self, tag: &Block) -> Block {
        let (keep, set) = self.counter_masks();
        (u128::from_le_bytes(and(tag, &keep)) | u128::from_le_bytes(set)).to_le_bytes()
    }

    /// The message's steps as masks, for the backends' short kernels, which
    /// take POLYVAL's order only and lengths up to [`SHORT_MAX`] (`None`
    /// otherwise, before any work: longer messages run step by step).
    fn layout(&self, nonce: &Block, aad_len: usize, msg_len: usize) -> Option<SivLayout> {
        if aad_len > SHORT_MAX || msg_len > SHORT_MAX || self.order != Order::Polyval {
            return None;
        }
        let (counter_and, counter_or) = self.counter_masks();
        Some(SivLayout {
            length_block: self.length_block(aad_len, msg_len),
            nonce_xor: if self.nonce_xor { *nonce } else { [0; 16] },
            tag_mask: self.tag_mask(),
            counter_and,
            counter_or,
        })
    }
}

/// `a` and `b`, bit by bit.
fn and(a: &Block, b: &Block) -> Block {
    (u128::from_le_bytes(*a) & u128::from_le_bytes(*b)).to_le_bytes()
}

/// A hash key made ready once: POLYVAL's H as it is, or GHASH's H turned
/// into its POLYVAL key with the backend's table (RFC 8452 Appendix A, as
/// `gcm.rs` does).
#[derive(Zeroize, ZeroizeOnDrop)]
pub(crate) struct HashKey<A: Aes> {
    /// The key as the variant's spec writes it (intermediates).
    h: Block,
    polyval_key: Block,
    /// GHASH's table; `None` for POLYVAL.
    table: Option<A::GhashTable>,
}

impl<A: Aes> HashKey<A> {
    pub(crate) fn new(cipher: &A, h: &Block, order: Order) -> Self {
        match order {
            Order::Polyval => HashKey { h: *h, polyval_key: *h, table: None },
            Order::Gcm => {
                let polyval_key = mul_x_polyval(&byte_reverse(*h));
                HashKey { h: *h, polyval_key, table: Some(cipher.ghash_table(&polyval_key)) }
            }
        }
    }

    fn start(&self, cipher: &A) -> A::Polyval {
        cipher.polyval(&self.polyval_key)
    }

    /// Absorbs `data`, zero-padded to whole blocks.
    fn update(&self, state: &mut A::Polyval, data: &[u8]) {
        match &self.table {
            None => state.update_padded(data),
            Some(table) => A::ghash_update(table, state, data),
        }
    }

    fn result(&self, state: &A::Polyval) -> Block {
        match self.table {
            None => state.finalize(),
            Some(_) => byte_reverse(state.finalize()),
        }
    }

    /// The keystream from `counter` XORed into `data`: the counter of the
    /// hash's order.
    fn ctr(&self, cipher: &A, counter: &Block, data: &mut [u8]) {
        match self.table {
            None => cipher.ctr32le(counter, data),
            Some(_) => cipher.ctr32be(counter, data),
        }
    }

    /// Decryption's pass: CTR, and the hash over the plaintext it gives, in
    /// the backend's stitched kernel (GCM encryption's, for the GCM order).
    fn ctr_then_hash(&self, cipher: &A, counter: &Block, data: &mut [u8], state: &mut A::Polyval) {
        match &self.table {
            None => cipher.ctr32le_then_polyval(counter, data, state),
            Some(table) => cipher.ctr32be_then_ghash(counter, data, state, table),
        }
    }
}

/// How a per-nonce AES key is made from the static key K and a block X
/// (the nonce, or -02's per-nonce hash key). AES-128: AES_K(X) for both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RecordKeyRule {
    /// draft-gueron-00's AES-256 pair: AES_K(X with byte 0 & 0xfe) ||
    /// AES_K(X with byte 0 | 0x01).
    Pair,
    /// draft-irtf-01 and -02's AES-256 cascade: RK[16..32] = AES_K(X),
    /// RK[0..16] = AES_K(RK[16..32]).
    Cascade,
}

/// The per-nonce AES key as bytes (the first `A::KEY_LEN` count).
fn record_key<A: Aes>(key: &A, rule: RecordKeyRule, x: &Block) -> Zeroizing<[u8; 32]> {
    let mut rk = Zeroizing::new([0u8; 32]);
    let mut b = Zeroizing::new([*x; 2]);
    match (A::KEY_LEN, rule) {
        (16, _) => key.encrypt_block(&mut b[0]),
        (_, RecordKeyRule::Pair) => {
            b[0][0] &= 0xfe;
            b[1][0] |= 0x01;
            key.encrypt_blocks(&mut b[..]);
        }
        (_, RecordKeyRule::Cascade) => {
            key.encrypt_block(&mut b[1]);
            b[0] = b[1];
            key.encrypt_block(&mut b[0]);
        }
    }
    rk[..16].copy_from_slice(&b[0]);
    rk[16..].copy_from_slice(&b[1]);
    rk
}

/// Where each message's keys come from.
#[derive(Zeroize, ZeroizeOnDrop)]
pub(crate) enum KeySchedule<A: Aes> {
    /// 000 and GCM-SIV+: a static hash key and a static AES key.
    Static { hash: HashKey<A>, aes: A },
    /// draft-gueron-00 and -01: a static hash key; the AES key of each
    /// message made from the nonce under K.
    RecordKey {
        hash: HashKey<A>,
        key: A,
        #[zeroize(skip)]
        rule: RecordKeyRule,
    },
    /// draft-irtf-02: HK = AES_K(N) keys POLYVAL; RK from HK by the cascade.
    HashAndRecordKey { key: A },
}

/// One message's keys, as the mode and the intermediates see them.
struct MessageKeys<'a, A: Aes> {
    aes: &'a A,
    hash: &'a HashKey<A>,
    record_key: Option<&'a [u8]>,
}

/// A variant of the family: its layout, its keys, its limits, and the
/// static key bytes its intermediates print.
#[derive(Zeroize, ZeroizeOnDrop)]
pub(crate) struct SivMode<A: Aes> {
    #[zeroize(skip)]
    convention: Convention,
    keys: KeySchedule<A>,
    /// The static AES key as bytes (intermediates), if the variant has one.
    aes_key: Option<[u8; 32]>,
    #[zeroize(skip)]
    limits: &'static Limits,
}

impl<A: Aes> SivMode<A> {
    pub(crate) fn new(
        convention: Convention,
        keys: KeySchedule<A>,
        aes_key: Option<[u8; 32]>,
        limits: &'static Limits,
    ) -> Self {
        SivMode { convention, keys, aes_key, limits }
    }

    /// Runs `f` with the keys of the message under `nonce`; per-nonce keys
    /// are wiped when it returns.
    fn with_message_keys<R>(&self, nonce: &Block, f: impl FnOnce(MessageKeys<'_, A>) -> R) -> R {
        match &self.keys {
            KeySchedule::Static { hash, aes } => f(MessageKeys { aes, hash, record_key: None }),
            KeySchedule::RecordKey { hash, key, rule } => {
                let rk = record_key(key, *rule, nonce);
                let aes = key.rekey(&rk[..A::KEY_LEN]);
                f(MessageKeys { aes: &aes, hash, record_key: Some(&rk[..A::KEY_LEN]) })
            }
            KeySchedule::HashAndRecordKey { key } => {
                let mut hk = Zeroizing::new(*nonce);
                key.encrypt_block(&mut hk);
                let rk = record_key(key, RecordKeyRule::Cascade, &hk);
                let aes = key.rekey(&rk[..A::KEY_LEN]);
                let hash = HashKey::new(key, &hk, Order::Polyval);
                f(MessageKeys { aes: &aes, hash: &hash, record_key: Some(&rk[..A::KEY_LEN]) })
            }
        }
    }

    /// The hash's final block, then S xor N, masked and encrypted: the tag.
    fn finish_tag(
        &self,
        keys: &MessageKeys<'_, A>,
        state: &mut A::Polyval,
        lens: (usize, usize),
        nonce: &Block,
    ) -> Block {
        keys.hash.update(state, &self.convention.length_block(lens.0, lens.1));
        let mut t = self.convention.tag_input(&self.convention.xor_nonce(&keys.hash.result(state), nonce));
        keys.aes.encrypt_block(&mut t);
        t
    }

    /// Seals `buffer` in place: the hash over the plaintext, the tag, then
    /// CTR from the tag (two passes: the counter needs the whole hash); in
    /// the backend's short kernel where it has one and the lengths fit.
    pub(crate) fn seal_in_place(&self, nonce: &Block, aad: &[u8], buffer: &mut [u8]) -> Result<Block, Error> {
        self.limits.check_seal(nonce.len(), aad.len(), buffer.len())?;
        let layout = self.convention.layout(nonce, aad.len(), buffer.len());
        Ok(self.with_message_keys(nonce, |keys| {
            let short =
                layout.as_ref().and_then(|l| keys.aes.seal_layout(&keys.hash.polyval_key, l, aad, buffer));
            if let Some(tag) = short {
                return tag;
            }
            let mut state = keys.hash.start(keys.aes);
            keys.hash.update(&mut state, aad);
            keys.hash.update(&mut state, buffer);
            let tag = self.finish_tag(&keys, &mut state, (aad.len(), buffer.len()), nonce);
            keys.hash.ctr(keys.aes, &self.convention.initial_counter(&tag), buffer);
            state.zeroize();
            tag
        }))
    }

    /// Opens `buffer` in place in one stitched pass (CTR and the hash of the
    /// plaintext it yields), or the backend's short kernel; on a mismatch the
    /// ciphertext is put back.
    pub(crate) fn open_in_place(
        &self,
        nonce: &Block,
        aad: &[u8],
        buffer: &mut [u8],
        tag: &Block,
    ) -> Result<(), Error> {
        self.limits.check_open(nonce.len(), aad.len(), buffer.len())?;
        let layout = self.convention.layout(nonce, aad.len(), buffer.len());
        self.with_message_keys(nonce, |keys| {
            let counter = self.convention.initial_counter(tag);
            let restore = |b: &mut [u8]| keys.hash.ctr(keys.aes, &counter, b);
            let short = layout
                .as_ref()
                .and_then(|l| keys.aes.open_layout(&keys.hash.polyval_key, l, aad, buffer, tag));
            if let Some(expected) = short {
                return crate::verify::release_if_tags_match(&expected, tag, buffer, restore);
            }
            let mut state = keys.hash.start(keys.aes);
            keys.hash.update(&mut state, aad);
            keys.hash.ctr_then_hash(keys.aes, &counter, buffer, &mut state);
            let expected = self.finish_tag(&keys, &mut state, (aad.len(), buffer.len()), nonce);
            state.zeroize();
            crate::verify::release_if_tags_match(&expected, tag, buffer, restore)
        })
    }

    /// Every intermediate value of sealing (`aad`, `msg`) under `nonce`, from
    /// the same keys and helpers as [`Self::seal_in_place`].
    pub(crate) fn intermediates(
        &self,
        nonce: &Block,
        aad: &[u8],
        msg: &[u8],
    ) -> Result<Intermediates, Error> {
        self.limits.check_seal(nonce.len(), aad.len(), msg.len())?;
        Ok(self.with_message_keys(nonce, |keys| {
            let c = &self.convention;
            let length_block = c.length_block(aad.len(), msg.len());
            let mut input = Vec::with_capacity(aad.len() + msg.len() + 48);
            for part in [aad, msg] {
                input.extend_from_slice(part);
                input.resize(input.len().next_multiple_of(16), 0);
            }
            input.extend_from_slice(&length_block);
            let mut state = keys.hash.start(keys.aes);
            keys.hash.update(&mut state, &input);
            let s = keys.hash.result(&state);
            state.zeroize();
            let s_xor_nonce = c.xor_nonce(&s, nonce);
            let tag_input = c.tag_input(&s_xor_nonce);
            let mut tag = tag_input;
            keys.aes.encrypt_block(&mut tag);
            let initial_counter = c.initial_counter(&tag);
            let mut first_keystream_block = initial_counter;
            keys.aes.encrypt_block(&mut first_keystream_block);
            Intermediates {
                hash_key: Some(keys.hash.h.to_vec()),
                aes_key: self.aes_key.map(|k| k[..A::KEY_LEN].to_vec()),
                record_encryption_key: keys.record_key.map(<[u8]>::to_vec),
                length_block: Some(length_block),
                hash_input: Some(input),
                hash_result: Some(s),
                hash_result_xor_nonce: c.nonce_xor.then_some(s_xor_nonce),
                tag_input: Some(tag_input),
                tag: Some(tag),
                initial_counter,
                first_keystream_block,
                derived_k1: None,
                derived_k2: None,
            }
        }))
    }
}

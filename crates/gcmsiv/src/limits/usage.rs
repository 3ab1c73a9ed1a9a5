//! How much one key may protect: the security bounds of the papers behind
//! RFC 8452, each theorem's whole sum, term by term, and the one question
//! users ask of them, [`messages_per_key_log2`]: how many messages of a
//! given size one key may seal before the attacker's advantage could
//! exceed 2^-32 (the figure NIST's and RFC 8452 section 9's advice keep).
//!
//! The theorems, and where they are printed:
//!
//! - [`rfc8452`]: AES-GCM-SIV (nonce-derived keys), Gueron and Lindell,
//!   "Better Bounds for Block Cipher Modes of Operation via Nonce-Based Key
//!   Derivation" (CCS 2017), Theorem 6.2 (chosen nonces, repeated or not)
//!   and, for random nonces, Theorem 3.2 applied to it (of which Theorem 6.4
//!   keeps two terms); RFC 8452 section 9 summarises it.
//! - [`gcm_siv_2015`]: the static-key GCM-SIV of Gueron and Lindell, "GCM-SIV:
//!   Full Nonce Misuse-Resistant Authenticated Encryption at Under One Cycle
//!   per Byte" (CCS 2015), Theorems 4.2 (three keys) and 4.3 (two keys): RFC
//!   8452 without the key derivation.
//! - [`ctr`] and [`gcm`]: CTR and AES-GCM without and with the 2017 paper's
//!   key derivation, its sections 5.1-5.4 and Appendix B, with unique or
//!   random 96-bit nonces.
//!
//! Every bound assumes what its paper assumes, and these choices are ours:
//!
//! - AES is an ideal cipher (the 2017 paper's Assumption 1): the terms for
//!   distinguishing AES from a random permutation (`AdvPRP_AES`) are 0.
//! - The attacker evaluates AES at most 2^[`OFFLINE_AES_LOG2`] times itself
//!   (T_E, a key search), and the keys are 128-bit: AES-256's bounds are
//!   lower, so AES-128's hold for both.
//! - A message is up to `len` bytes of plaintext and associated data
//!   together; all of it is counted as plaintext (the worst case: associated
//!   data costs no AES block). It is b = ceil(len / 16) blocks, and m the
//!   least with b < 2^m (the papers' "messages of less than 2^m blocks");
//!   associated data has less than 2^m blocks too (the papers' 2^a).
//! - A message costs b + 1 AES blocks under its derived key (CTR and the tag,
//!   the 2017 paper section 6.1), b + 1 under AES-GCM's key (CTR and the
//!   mask).
//! - [`NonceUse::AtMost`]: every message may have a nonce of its own, so N,
//!   the distinct nonces, is counted as the messages (at most that), and a
//!   nonce's blocks as r messages' (at most that).
//! - Random nonces are 96 bits, and Theorem 3.2's rule: no nonce is drawn
//!   four times (its probability is a term of the sum), so at most three
//!   messages share one.
//! - Forgery attempts (decryption queries) are [`Usage::forgeries`], none in
//!   [`messages_per_key_log2`]. Each is made under a nonce already used, no
//!   nonce gets more of them than its messages, and a failed one counts
//!   against the bound as much as a successful one would.
//!
//! Everything is computed in `f64`: the terms are powers of two times small
//! constants, and the limit is a comparison, so no rounding decides a figure.

/// The attacker's own AES evaluations, T_E, as a power of two: 2^80, far
/// beyond any key search done. Its term, 5 T_E / 2^129 for AES-GCM-SIV,
/// is 2^-46.7: it takes under 0.01% of the 2^-32 budget.
pub const OFFLINE_AES_LOG2: i32 = 80;

/// The advantage the limits keep: 2^-32.
pub const ADVANTAGE_LOG2: i32 = -32;

/// How the nonces of one key's messages are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NonceUse {
    /// 96 random bits each, from a good random source.
    Random,
    /// Chosen by the caller, no nonce used for more than this many
    /// messages: 1 is a nonce per message (a counter), more is nonce misuse
    /// (RFC 8452 section 9 tabulates 256 and 1,024).
    AtMost(u64),
    /// One nonce for every message (deterministic encryption).
    Single,
}

/// What one key does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Usage {
    /// Messages sealed under the key.
    pub messages: f64,
    /// The longest message, plaintext and associated data together, in bytes.
    pub len: u64,
    /// How the nonces are chosen.
    pub nonces: NonceUse,
    /// Forgery attempts: decryption queries of ciphertexts the key did not
    /// make.
    pub forgeries: f64,
}

/// One term of a bound: what it counts, and its value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Term {
    /// The term as the paper prints it, with what it counts.
    pub name: &'static str,
    /// Its value for the usage given.
    pub value: f64,
}

const MAX_TERMS: usize = 8;

/// A theorem's whole sum for one usage, term by term.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    /// The theorem, and the paper it is from.
    pub theorem: &'static str,
    terms: [Term; MAX_TERMS],
    len: usize,
}

impl Bound {
    const fn new(theorem: &'static str) -> Self {
        Bound { theorem, terms: [Term { name: "", value: 0.0 }; MAX_TERMS], len: 0 }
    }

    const fn term(mut self, name: &'static str, value: f64) -> Self {
        self.terms[self.len] = Term { name, value };
        self.len += 1;
        self
    }

    /// The terms, in the theorem's order.
    pub fn terms(&self) -> &[Term] {
        &self.terms[..self.len]
    }

    /// The bound on the attacker's advantage: the terms' sum, at most 1.
    pub const fn advantage(&self) -> f64 {
        let mut sum = 0.0;
        let mut i = 0;
        while i < self.len {
            sum += self.terms[i].value;
            i += 1;
        }
        sum.min(1.0)
    }

    /// Whether the advantage stays at most 2^[`ADVANTAGE_LOG2`].
    pub const fn within_limit(&self) -> bool {
        self.advantage() <= pow2(ADVANTAGE_LOG2)
    }
}

/// 2^e, exactly, for e in -1022..=1023.
const fn pow2(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}

/// x^2.
const fn sq(x: f64) -> f64 {
    x * x
}

/// The quantities every theorem reads from a usage.
struct Counts {
    /// Messages, q_E.
    q: f64,
    /// Blocks of the longest message, b.
    b: f64,
    /// 2^m: a message has less than 2^m blocks.
    two_m: f64,
    /// Most messages under one nonce.
    per_nonce: f64,
    /// Distinct nonces, N (at most the messages).
    nonces: f64,
    /// Forgery attempts, and the most under one nonce.
    forgeries: f64,
    forgeries_per_nonce: f64,
}

impl Counts {
    const fn of(u: &Usage) -> Counts {
        let blocks = u.len.div_ceil(16);
        let two_m = pow2((u64::BITS - blocks.leading_zeros()) as i32);
        let q = u.messages;
        let (per_nonce, nonces) = match u.nonces {
            NonceUse::Random => (3.0f64.min(q), q),
            NonceUse::AtMost(r) => ((r as f64).min(q), q),
            NonceUse::Single => (q, 1.0f64.min(q)),
        };
        let forgeries_per_nonce = u.forgeries.min(per_nonce);
        Counts { q, b: blocks as f64, two_m, per_nonce, nonces, forgeries: u.forgeries, forgeries_per_nonce }
    }

    /// The most AES blocks under one nonce's key, its messages' and
    /// forgeries', each message b blocks and one more (the tag, or GCM's
    /// mask).
    const fn b_max(&self) -> f64 {
        (self.per_nonce + self.forgeries_per_nonce) * (self.b + 1.0)
    }
}

/// T_E, the attacker's own AES evaluations.
const fn offline() -> f64 {
    pow2(OFFLINE_AES_LOG2)
}

/// 2κ for AES-128 keys, in the three-way key-collision terms.
const TWO_KAPPA: i32 = 256;

/// AES-GCM-SIV as RFC 8452 specifies it: the 2017 paper's Theorem 6.2 for
/// chosen nonces, and for random ones Theorem 3.2 applied to it (three
/// messages at most under a nonce, and the chance of a fourth as a term).
pub const fn rfc8452(u: &Usage) -> Bound {
    let c = Counts::of(u);
    let theorem = match u.nonces {
        NonceUse::Random => "2017 paper, Theorems 3.2 and 6.2 (random nonces; Theorem 6.4 keeps two terms)",
        _ => "2017 paper, Theorem 6.2",
    };
    let counters = match u.nonces {
        // Q_E^i <= 3 and their sum is q: sum (Q_E^i)^2 <= 3q.
        NonceUse::Random => c.per_nonce * c.q,
        // At most r per nonce: sum (Q_E^i)^2 <= r * q.
        NonceUse::AtMost(_) => c.per_nonce * c.q,
        NonceUse::Single => sq(c.q),
    };
    let bound = Bound::new(theorem)
        .term("DeriveKey, 3N / 2^96", 3.0 * c.nonces * pow2(-96))
        .term(
            "three derived keys alike, N^3 / (3 * 2^(2k))",
            c.nonces * sq(c.nonces) / 3.0 * pow2(-TWO_KAPPA),
        )
        .term("derived keys as PRFs, N * B_max^2 / 2^129", c.nonces * sq(c.b_max()) * pow2(-129))
        .term("the attacker's own AES, 5 T_E / 2^(k+1)", 5.0 * offline() * pow2(-129))
        .term("forgeries, (2^a + 2^m) * sum Q_D^i / 2^128", 2.0 * c.two_m * c.forgeries * pow2(-128))
        .term("counter collisions, sum (Q_E^i)^2 / 2^(126 - m)", counters * c.two_m * pow2(-126));
    match u.nonces {
        NonceUse::Random => {
            bound.term("a nonce drawn four times, Q_E^4 / (24 * 2^288)", sq(sq(c.q)) / 24.0 * pow2(-288))
        }
        _ => bound,
    }
}

/// The static-key GCM-SIV of 2015 (RFC 8452 without its key derivation),
/// two keys (Theorem 4.3) or three (Theorem 4.2): the PRF term is AES's
/// switching lemma over its q_f <= 2(q_E + q_d) + L/n calls, the hash's
/// collision term, and the counters' (k = 32 bits of counter). Nonces do
/// not enter: any may repeat.
pub const fn gcm_siv_2015(u: &Usage, keys: u32) -> Bound {
    let c = Counts::of(u);
    let calls = 2.0 * (c.q + c.forgeries) + (c.q + c.forgeries) * c.b;
    let prf = 2.0 * sq(calls) * pow2(-129);
    let queries = sq(c.q + c.forgeries);
    if keys == 3 {
        Bound::new("2015 paper, Theorem 4.2 (three keys)")
            .term("AES as a PRF, 2 Adv_prf = 2 q_f^2 / 2^129", prf)
            .term(
                "hash collisions, ((ceil(M/n) + 1)(q_E + q_D)^2 + q_d) / 2^128",
                ((c.b + 1.0) * queries + c.forgeries) * pow2(-128),
            )
            .term("counter collisions, q_E^2 / 2^(n-k)", sq(c.q) * pow2(-96))
    } else {
        Bound::new("2015 paper, Theorem 4.3 (two keys)")
            .term("AES as a PRF, 2 Adv_prf = 2 q_f^2 / 2^129", prf)
            .term("hash collisions, (ceil(M/n) + 1)(q_E + q_D)^2 / 2^127", (c.b + 1.0) * queries * pow2(-127))
            .term("counter collisions, q_E^2 / 2^(n-k-2)", sq(c.q) * pow2(-94))
    }
}

/// A nonce-based mode that a repeated nonce breaks: its advantage is 1
/// when the usage repeats one.
const fn repeats(u: &Usage) -> bool {
    match u.nonces {
        NonceUse::Random => false,
        NonceUse::AtMost(r) => r > 1 && u.messages > 1.0,
        NonceUse::Single => u.messages > 1.0,
    }
}

/// DeriveKey's advantage (the 2017 paper's Lemma 4.1), halved as Theorem
/// 3.1 adds it, and its PRF term (Theorem 2.2's Eq. 5 with mu = 1), halved.
const fn derive_key_terms(bound: Bound, nonces: f64, b_max: f64) -> Bound {
    let kdf = (36.0 * sq(nonces) * pow2(-129)).min(6.0 * nonces * pow2(-96)).min(1.0);
    bound
        .term("DeriveKey, min(36N^2 / 2^129, 6N / 2^96) / 2", kdf / 2.0)
        .term(
            "three derived keys alike, N^3 / (6 * 2^(2k)) / 2",
            nonces * sq(nonces) / 6.0 * pow2(-TWO_KAPPA) / 2.0,
        )
        .term("derived keys as PRFs, N * B_max^2 / 2^128 / 2", nonces * sq(b_max) * pow2(-128) / 2.0)
        .term("the attacker's own AES, T_E / 2^k / 2", offline() * pow2(-128) / 2.0)
}

/// CTR (CPA security, no forgeries), 96-bit nonces, without or with the
/// 2017 paper's DeriveKey: its sections 5.1 (unique nonces) and 5.2
/// (random ones). A repeated chosen nonce is a break.
pub const fn ctr(u: &Usage, derive_key: bool) -> Bound {
    let c = Counts::of(u);
    let random = matches!(u.nonces, NonceUse::Random);
    let name = match (derive_key, random) {
        (false, false) => "2017 paper, section 5.1: CTR, unique nonces",
        (false, true) => "2017 paper, section 5.2: CTR, random nonces",
        (true, false) => "2017 paper, section 5.1, Eq. 10: CTR with DeriveKey, unique nonces",
        (true, true) => "2017 paper, section 5.2: CTR with DeriveKey, random nonces",
    };
    let mut bound = Bound::new(name);
    if repeats(u) {
        return bound.term("a repeated nonce: the keystream repeats", 1.0);
    }
    if random {
        bound = bound.term("two messages under one nonce, q^2 / 2^97", sq(c.q) * pow2(-97));
    }
    if derive_key {
        derive_key_terms(bound, c.q, c.b)
    } else {
        bound.term("all blocks under one key, (sum B_i)^2 / 2^129", sq(c.q * c.b) * pow2(-129))
    }
}

/// AES-GCM, 96-bit nonces, without or with the 2017 paper's DeriveKey: its
/// Appendix B (unique nonces; section 5.3 sums it up) and section 5.4
/// (random ones, "analogous": section 5.2's nonce-collision term added). A
/// repeated chosen nonce is a break.
pub const fn gcm(u: &Usage, derive_key: bool) -> Bound {
    let c = Counts::of(u);
    let random = matches!(u.nonces, NonceUse::Random);
    let name = match (derive_key, random) {
        (false, false) => "2017 paper, Appendix B: AES-GCM, unique nonces",
        (false, true) => "2017 paper, section 5.4: AES-GCM, random nonces",
        (true, false) => "2017 paper, Appendix B: AES-GCM with DeriveKey, unique nonces",
        (true, true) => "2017 paper, section 5.4: AES-GCM with DeriveKey, random nonces",
    };
    let mut bound = Bound::new(name);
    if repeats(u) {
        return bound.term("a repeated nonce: the keystream and the hash key leak", 1.0);
    }
    if random {
        bound = bound.term("two messages under one nonce, q^2 / 2^97", sq(c.q) * pow2(-97));
    }
    // Each nonce seals one message; a forgery under it runs its CTR and
    // mask blocks too (at most one counted per nonce, as for RFC 8452).
    let per_nonce = (1.0 + c.forgeries.min(1.0)) * (c.b + 1.0);
    let all = (c.q + c.forgeries) * (c.b + 1.0);
    bound = if derive_key {
        derive_key_terms(bound, c.q, per_nonce)
    } else {
        bound.term("all blocks under one key, (sum (B_i + 1))^2 / 2^129", sq(all) * pow2(-129))
    };
    bound.term("forgeries, sum Q_D^i * (2^a + 2^m) / 2^128", c.forgeries * 2.0 * c.two_m * pow2(-128))
}

/// log2 of the most messages one key may seal with RFC 8452, each message's
/// plaintext and associated data together at most `len` bytes and the nonces
/// chosen as `nonces`, for an advantage of at most 2^-32, rounded down to a
/// power of two: [`rfc8452`]'s whole sum, no forgery attempts counted, and
/// the assumptions above. 0 when not even one message stays within it
/// (never, for lengths RFC 8452 allows).
pub const fn messages_per_key_log2(len: u64, nonces: NonceUse) -> u32 {
    // The advantage grows with the messages, so the first that fails ends it.
    let mut k = 1;
    while k <= 128 {
        let u = Usage { messages: pow2(k as i32), len, nonces, forgeries: 0.0 };
        if !rfc8452(&u).within_limit() {
            return k - 1;
        }
        k += 1;
    }
    128
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(log2_messages: i32, len: u64, nonces: NonceUse) -> Usage {
        Usage { messages: pow2(log2_messages), len, nonces, forgeries: 0.0 }
    }

    #[test]
    fn each_figure_is_the_largest_power_of_two_within_the_bound() {
        for nonces in [NonceUse::Random, NonceUse::Single, NonceUse::AtMost(256), NonceUse::AtMost(1024)] {
            for len in [0, 16, 17, 1 << 10, 1 << 14, 1 << 16, 1 << 20, 1 << 24, 1 << 32, 1 << 36] {
                let k = messages_per_key_log2(len, nonces) as i32;
                assert!(rfc8452(&usage(k, len, nonces)).within_limit(), "{nonces:?} {len}");
                assert!(!rfc8452(&usage(k + 1, len, nonces)).within_limit(), "{nonces:?} {len}");
            }
        }
    }

    #[test]
    fn short_random_nonce_messages_are_limited_by_the_key_derivation() {
        // 3N / 2^96 <= 2^-32 alone gives N <= 2^64 / 3.
        let b = rfc8452(&usage(62, 16, NonceUse::Random));
        assert_eq!(b.terms()[0].value, 3.0 * pow2(-34));
        assert!(b.terms()[1..].iter().all(|t| t.value < pow2(-44)), "{b:?}");
        assert_eq!(messages_per_key_log2(16, NonceUse::Random), 62);
    }

    #[test]
    fn the_sum_is_the_terms_and_at_most_one() {
        let b = rfc8452(&usage(100, 1 << 20, NonceUse::Single));
        assert_eq!(b.advantage(), 1.0);
        let b = gcm_siv_2015(&usage(20, 1024, NonceUse::Single), 2);
        assert_eq!(b.advantage(), b.terms().iter().map(|t| t.value).sum::<f64>());
    }

    #[test]
    fn a_repeated_nonce_breaks_ctr_and_gcm_but_not_gcm_siv() {
        for dk in [false, true] {
            assert_eq!(ctr(&usage(2, 64, NonceUse::AtMost(2)), dk).advantage(), 1.0);
            assert_eq!(gcm(&usage(2, 64, NonceUse::Single), dk).advantage(), 1.0);
        }
        assert!(rfc8452(&usage(2, 64, NonceUse::Single)).within_limit());
    }

    #[test]
    fn derive_key_lets_ctr_and_gcm_go_past_the_birthday_bound() {
        // The 2017 paper section 5.1: 2^48 messages of 2^16 blocks break
        // basic CTR and stay near 2^-46 with DeriveKey.
        let u = usage(48, 1 << 20, NonceUse::AtMost(1));
        assert!(ctr(&u, false).advantage() >= 0.5);
        let with = ctr(&u, true).advantage();
        assert!(with > pow2(-47) && with < pow2(-45), "{with:e}");
        assert!(gcm(&u, true).within_limit() && !gcm(&u, false).within_limit());
    }

    #[test]
    fn forgeries_count() {
        let quiet = usage(40, 1024, NonceUse::AtMost(1));
        let forged = Usage { forgeries: pow2(40), ..quiet };
        assert!(rfc8452(&forged).advantage() > rfc8452(&quiet).advantage());
        for dk in [false, true] {
            assert!(gcm(&forged, dk).advantage() > gcm(&quiet, dk).advantage());
        }
    }
}

//! 002's usage bounds for AES-GCM-SIV (Theorem 6.2, Corollary 6.3 and
//! Theorem 6.4), recomputed: its Table 2 of example parameters that keep
//! the adversary's advantage within 2^-32, with the paper's printed
//! exponents beside ours. Analytic, and historical: RFC 8452 section 9 has
//! the limits to use.
//!
//! Everything is a power of two, so every term is an exact integer exponent:
//! with N = 2^n nonces (keys derived), Q = 2^q messages per nonce, and
//! messages of up to 2^m blocks,
//!
//! - the key-derivation term N * B_max^2 / 2^129, B_max = Q * 2^m the blocks
//!   under one derived key: n + 2(q + m) - 129;
//! - the nonce-repeat term sum_i (Q_E^i)^2 / 2^(126 - m) = N * Q^2 / 2^(126-m):
//!   n + 2q - 126 + m.
//!
//! 11 of the table's 14 nonce rows recompute exactly. Three do not: (2^32, 1,
//! 2^30) matches only with Q = 2; (1, 2^31, 2^16) recomputes to 2^-35 and
//! 2^-48 (printed 2^-34, 2^-47); (2^64, 2^15, "1") matches only with
//! 2^m = 2. The two random-IV rows match Theorem 6.4 with B_max = 2^(m+3),
//! consistent with its allowance for up to 3 colliding IVs, rounded up.

/// One row of 002's Table 2, exponents of two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// log2 of N, the nonces (derived keys).
    pub nonces: i32,
    /// log2 of Q_E^i, the messages per nonce; `None` for the random-IV rows.
    pub per_nonce: Option<i32>,
    /// m: messages of up to 2^m blocks.
    pub blocks: i32,
    /// The paper's printed exponent of N * B_max^2 / 2^129.
    pub paper_key_term: i32,
    /// The paper's printed exponent of the nonce-repeat term (`None` for random IVs).
    pub paper_nonce_term: Option<i32>,
}

const fn row(nonces: i32, per_nonce: i32, blocks: i32, key: i32, nonce: i32) -> Row {
    Row { nonces, per_nonce: Some(per_nonce), blocks, paper_key_term: key, paper_nonce_term: Some(nonce) }
}

/// 002's Table 2 as printed (its "1" for 2^m read as m = 0).
pub const TABLE_2: [Row; 16] = [
    row(45, 10, 16, -32, -45),
    row(32, 15, 16, -35, -48),
    row(25, 6, 30, -32, -59),
    row(32, 0, 30, -35, -62),
    row(0, 31, 16, -34, -47),
    row(42, 8, 16, -39, -52),
    row(64, 10, 3, -39, -39),
    row(64, 15, 0, -33, -31),
    row(64, 8, 8, -33, -38),
    row(48, 10, 14, -33, -44),
    row(48, 8, 16, -33, -46),
    row(64, 10, 10, -25, -32),
    row(48, 10, 16, -29, -42),
    row(32, 10, 24, -29, -50),
    Row { nonces: 64, per_nonce: None, blocks: 12, paper_key_term: -35, paper_nonce_term: None },
    Row { nonces: 48, per_nonce: None, blocks: 20, paper_key_term: -35, paper_nonce_term: None },
];

/// The advantage 002 allows: 2^-32.
pub const LIMIT: i32 = -32;

/// log2 of N * B_max^2 / 2^129, the key-derivation term.
pub const fn key_term(nonces: i32, log2_blocks_per_key: i32) -> i32 {
    nonces + 2 * log2_blocks_per_key - 129
}

/// log2 of N * Q^2 / 2^(126 - m), the nonce-repeat term.
pub const fn nonce_term(nonces: i32, per_nonce: i32, blocks: i32) -> i32 {
    nonces + 2 * per_nonce - 126 + blocks
}

/// Our exponents for `row`: (key term, nonce-repeat term). Random-IV rows
/// take B_max = 2^(m+3) (Theorem 6.4 with up to 3 colliding IVs, rounded up).
pub const fn recompute(row: &Row) -> (i32, Option<i32>) {
    match row.per_nonce {
        Some(q) => (key_term(row.nonces, q + row.blocks), Some(nonce_term(row.nonces, q, row.blocks))),
        None => (key_term(row.nonces, row.blocks + 3), None),
    }
}

/// Whether both of our terms stay within [`LIMIT`].
pub const fn within_limit(row: &Row) -> bool {
    let (key, nonce) = recompute(row);
    key <= LIMIT
        && match nonce {
            Some(n) => n <= LIMIT,
            None => true,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eleven_nonce_rows_and_both_random_iv_rows_recompute_exactly() {
        let differ: std::vec::Vec<usize> = TABLE_2
            .iter()
            .enumerate()
            .filter(|(_, r)| recompute(r) != (r.paper_key_term, r.paper_nonce_term))
            .map(|(i, _)| i)
            .collect();
        // (2^32, 1, 2^30), (1, 2^31, 2^16), (2^64, 2^15, 1).
        assert_eq!(differ, [3, 4, 7]);
        assert_eq!(recompute(&TABLE_2[3]), (-37, Some(-64)));
        assert_eq!(recompute(&TABLE_2[4]), (-35, Some(-48)));
        // With Q = 2 and with 2^m = 2, the paper's values come back.
        assert_eq!(recompute(&Row { per_nonce: Some(1), ..TABLE_2[3] }), (-35, Some(-62)));
        assert_eq!(recompute(&Row { blocks: 1, ..TABLE_2[7] }), (-33, Some(-31)));
    }

    #[test]
    fn over_the_limit_as_recomputed() {
        let over: std::vec::Vec<usize> = (0..TABLE_2.len()).filter(|&i| !within_limit(&TABLE_2[i])).collect();
        // The paper marks row 7 over too (2^-31): only with 2^m = 2 is it.
        assert_eq!(over, [11, 12, 13]);
        assert!(!within_limit(&Row { blocks: 1, ..TABLE_2[7] }));
    }
}

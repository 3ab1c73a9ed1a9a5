//! The portable backend: constant-time, always compiled, always tested.
//!
//! Variable-time table lookups are avoided entirely: AES is bitsliced (four blocks
//! per pass, the S-box computed as a GF(2^8) inversion by an addition chain) and
//! POLYVAL multiplies with masked integer multiplications (the BearSSL `ctmul64`
//! technique). Neither branches on nor indexes memory by secret data.

mod aes;
mod polyval;

pub(crate) use aes::{Aes128, Aes256};
pub(crate) use polyval::Polyval;

//! Targets without a hardware backend: the portable one is all there is.
//! The names every hardware module gives ([`super::hw`]) exist here too, so
//! the code above compiles unchanged; no proof can be made, so none of them
//! is ever constructed through it.

use super::{Backend, Block, FromProof, soft};

/// A proof no CPU can give.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Features {}

impl Features {
    pub(crate) fn register_bits(self) -> u32 {
        match self {}
    }
}

/// No backend of this target needs a proof: there is none.
pub(crate) fn detect(_: Backend) -> Option<Features> {
    None
}

pub(crate) type Aes128 = soft::Aes128;
pub(crate) type Aes256 = soft::Aes256;
pub(crate) type Polyval = soft::Polyval;

impl FromProof<[u8; 16]> for soft::Aes128 {
    fn from_proof(proof: Features, _: &[u8; 16]) -> Self {
        match proof {}
    }
}

impl FromProof<[u8; 32]> for soft::Aes256 {
    fn from_proof(proof: Features, _: &[u8; 32]) -> Self {
        match proof {}
    }
}

impl FromProof<Block> for soft::Polyval {
    fn from_proof(proof: Features, _: &Block) -> Self {
        match proof {}
    }
}

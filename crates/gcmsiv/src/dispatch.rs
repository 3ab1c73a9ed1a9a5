//! The one place a key's backend is matched on: each public type holds a
//! [`Dispatch`] of its mode object, built once when the key is made.

use crate::backend::HardwareProof;

/// A mode object on the portable backend or on a hardware one (which one it
/// was built for is kept beside it).
#[derive(Clone)]
pub(crate) enum Dispatch<P, H> {
    Portable(P),
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Hardware(H, crate::Backend),
}

/// Runs `$body` with `$core` bound to the active backend's mode object.
macro_rules! dispatch {
    (mut $self:expr, $core:ident => $body:expr) => {
        match &mut $self.inner {
            $crate::dispatch::Dispatch::Portable($core) => $body,
            $crate::dispatch::Dispatch::Hardware($core, _) => $body,
        }
    };
    ($self:expr, $core:ident => $body:expr) => {
        match &$self.inner {
            $crate::dispatch::Dispatch::Portable($core) => $body,
            $crate::dispatch::Dispatch::Hardware($core, _) => $body,
        }
    };
}
pub(crate) use dispatch;

/// The hardware backend's types, and how they are made from a proof.
pub(crate) use crate::backend::{FromProof, hw};

impl<P, H> Dispatch<P, H> {
    /// Builds the mode object for `backend`, or fails if the CPU lacks it.
    pub(crate) fn build(
        backend: crate::Backend,
        portable: impl FnOnce() -> P,
        hardware: impl FnOnce(HardwareProof) -> H,
    ) -> Result<Self, crate::Error> {
        Ok(match backend.proof()? {
            None => Dispatch::Portable(portable()),
            Some(proof) => Dispatch::Hardware(hardware(proof), backend),
        })
    }

    /// The backend this object runs on.
    pub(crate) fn backend(&self) -> crate::Backend {
        match self {
            Dispatch::Portable(_) => crate::Backend::Portable,
            Dispatch::Hardware(_, backend) => *backend,
        }
    }
}

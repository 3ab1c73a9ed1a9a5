//! The one mapping from the core's [`Error`] to what a binding raises. No
//! binding matches on `Error`: each turns a [`Failure`]'s [`Kind`] or
//! [`Class`] into its own exception or status, with the [`Failure`]'s
//! message.

use core::fmt;
use gcmsiv::Error;

/// What went wrong, in the kinds a caller can act on: the C ABI's status
/// codes are these, one for one, and the Node.js package's error codes are
/// their [`Kind::code`]s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The ciphertext, tag, nonce, associated data or key is wrong: every
    /// authentication failure, with nothing more said.
    Authentication,
    /// A key of a length the algorithm does not take.
    KeyLength,
    /// A nonce of a length the algorithm does not take.
    NonceLength,
    /// A tag length the algorithm does not allow, or a received tag of
    /// another length than the key's.
    TagLength,
    /// Plaintext, associated data or ciphertext over the algorithm's limits.
    TooLong,
    /// A ciphertext shorter than a tag.
    TooShort,
    /// An output buffer too small for the result.
    BufferTooSmall,
    /// A backend this CPU or build does not run.
    BackendUnavailable,
    /// The operating system's random number generator failed.
    RandomSource,
    /// A panic caught by [`crate::guard()`], or an error of the core this
    /// crate does not know yet (`Error` is non-exhaustive).
    Internal,
}

/// What a caller is to make of a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// Not authentic: the one opaque failure of every decryption.
    Authentication,
    /// A mistake of the caller's (lengths, limits, backend), refused before
    /// any work.
    Misuse,
    /// A bug of ours.
    Internal,
}

impl Kind {
    /// The stable code of this kind: `ERR_GCMSIV_` and the kind's name, as
    /// the Node.js package's `GcmsivError.code`.
    pub const fn code(self) -> &'static str {
        match self {
            Kind::Authentication => "ERR_GCMSIV_AUTHENTICATION",
            Kind::KeyLength => "ERR_GCMSIV_KEY_LENGTH",
            Kind::NonceLength => "ERR_GCMSIV_NONCE_LENGTH",
            Kind::TagLength => "ERR_GCMSIV_TAG_LENGTH",
            Kind::TooLong => "ERR_GCMSIV_TOO_LONG",
            Kind::TooShort => "ERR_GCMSIV_TOO_SHORT",
            Kind::BufferTooSmall => "ERR_GCMSIV_BUFFER_TOO_SMALL",
            Kind::BackendUnavailable => "ERR_GCMSIV_BACKEND_UNAVAILABLE",
            Kind::RandomSource => "ERR_GCMSIV_RANDOM_SOURCE",
            Kind::Internal => "ERR_GCMSIV_INTERNAL",
        }
    }

    /// Whether this kind is an authentication failure, misuse or a bug.
    pub const fn class(self) -> Class {
        match self {
            Kind::Authentication => Class::Authentication,
            Kind::Internal | Kind::RandomSource => Class::Internal,
            _ => Class::Misuse,
        }
    }

    fn of(error: Error) -> Kind {
        match error {
            Error::Authentication => Kind::Authentication,
            Error::InvalidKeyLength { .. } => Kind::KeyLength,
            Error::InvalidNonceLength { .. } => Kind::NonceLength,
            Error::InvalidTagLength { .. } => Kind::TagLength,
            Error::PlaintextTooLong | Error::AadTooLong | Error::CiphertextTooLong => Kind::TooLong,
            Error::CiphertextTooShort => Kind::TooShort,
            Error::BufferTooSmall { .. } => Kind::BufferTooSmall,
            Error::BackendUnavailable => Kind::BackendUnavailable,
            Error::RandomSource => Kind::RandomSource,
            _ => Kind::Internal,
        }
    }
}

/// A failed call: an error of the core, or a panic. Its `Display` is the
/// message to show: the core's (`invalid nonce length: expected 12 bytes,
/// got 8`), or `internal error`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Failure {
    kind: Kind,
    /// `None` for a panic.
    error: Option<Error>,
}

impl Failure {
    /// A panic (see [`crate::guard()`]).
    pub const INTERNAL: Failure = Failure { kind: Kind::Internal, error: None };

    /// What kind of failure this is.
    pub fn kind(self) -> Kind {
        self.kind
    }

    /// The kind's stable code (see [`Kind::code`]).
    pub fn code(self) -> &'static str {
        self.kind.code()
    }

    /// The kind's class (see [`Kind::class`]).
    pub fn class(self) -> Class {
        self.kind.class()
    }
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Failure { kind: Kind::of(error), error: Some(error) }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.error {
            Some(error) => error.fmt(f),
            None => f.write_str("internal error"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Class, Failure, Kind};
    use gcmsiv::Error;

    #[test]
    fn kinds_codes_and_messages() {
        let f = Failure::from(Error::Authentication);
        assert_eq!(
            (f.kind(), f.class(), f.code()),
            (Kind::Authentication, Class::Authentication, "ERR_GCMSIV_AUTHENTICATION")
        );
        assert_eq!(f.to_string(), "authentication failed");
        let f = Failure::from(Error::InvalidNonceLength { expected: 12, actual: 8 });
        assert_eq!((f.kind(), f.class()), (Kind::NonceLength, Class::Misuse));
        assert_eq!(f.to_string(), "invalid nonce length: expected 12 bytes, got 8");
        for e in [Error::PlaintextTooLong, Error::AadTooLong, Error::CiphertextTooLong] {
            assert_eq!(Failure::from(e).code(), "ERR_GCMSIV_TOO_LONG");
        }
        assert_eq!(Failure::from(Error::CiphertextTooShort).class(), Class::Misuse);
        assert_eq!(
            (Failure::INTERNAL.code(), Failure::INTERNAL.class()),
            ("ERR_GCMSIV_INTERNAL", Class::Internal)
        );
        assert_eq!(Failure::INTERNAL.to_string(), "internal error");
    }
}

//! Public-key recipients (docs/FORMAT.md, version 2): identities (private keys)
//! and recipients (their public keys) of two kinds, their text forms (Bech32,
//! as age writes them), and the stanza that wraps a file's key to one recipient
//! with HPKE (RFC 9180, base mode). The primitives all come from well-kept
//! crates: `hpke` for X25519, ML-KEM-768 and X-Wing, ChaCha20-Poly1305 and
//! HKDF; `bech32` for the strings. This module writes none of them.
//!
//! - [`RecipientKind::X25519`]: DHKEM(X25519, HKDF-SHA256), KEM id 0x0020.
//! - [`RecipientKind::Hybrid`]: MLKEM768-X25519 (X-Wing, KEM id 0x647a), secure
//!   if either ML-KEM-768 or X25519 is: what age 1.3 calls post-quantum.
//!
//! Both with HKDF-SHA256 and ChaCha20-Poly1305 as HPKE's KDF and AEAD.

use std::fmt;
use std::io::Read;
use std::path::Path;

use bech32::primitives::checksum::Checksum;
use bech32::primitives::decode::CheckedHrpstring;
use bech32::primitives::gf32::Fe32;
use bech32::primitives::gf32_ext::Fe1024;
use bech32::{Hrp, encode_lower};
use hpke::aead::ChaCha20Poly1305;
use hpke::kdf::HkdfSha256;
use hpke::kem::{X25519HkdfSha256, XWing};
use hpke::rand_core::{Infallible, TryCryptoRng, TryRng};
use hpke::{Deserializable, Kem, OpModeR, OpModeS, Serializable};
use zeroize::Zeroizing;

use crate::error::Error;

/// The longest identity string: `gcmsiv-secret-key-pq-`, the separator, 52
/// characters of data and 6 of checksum.
const IDENTITY_STRING_ROOM: usize = 21 + 1 + 52 + 6;

/// Bytes of a file key, the secret every stanza wraps.
pub const FILE_KEY_LEN: usize = 32;
/// A wrapped file key: HPKE's ChaCha20-Poly1305 ciphertext of the 32-byte file
/// key and its 16-byte tag.
pub const WRAPPED_LEN: usize = FILE_KEY_LEN + 16;
/// Bytes of a private key of either kind (an X25519 scalar, an X-Wing seed).
pub const IDENTITY_LEN: usize = 32;
/// Largest identity file read.
pub const IDENTITY_FILE_MAX: u64 = 1 << 16;
/// Largest recipients file read.
pub const RECIPIENTS_FILE_MAX: u64 = 1 << 22;

/// HPKE's `info` for every stanza: the context string of the format's key wrap.
const HPKE_INFO: &[u8] = b"gcmsiv v2 file key";

/// The two kinds of recipient, each a stanza type byte of the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecipientKind {
    /// X25519 (DHKEM(X25519, HKDF-SHA256)): type `01`.
    X25519,
    /// ML-KEM-768 with X25519 (X-Wing): type `02`, post-quantum.
    Hybrid,
}

impl RecipientKind {
    /// The stanza's type byte.
    pub fn id(self) -> u8 {
        match self {
            RecipientKind::X25519 => 1,
            RecipientKind::Hybrid => 2,
        }
    }

    /// The kind with this type byte.
    pub fn from_id(id: u8) -> Option<Self> {
        match id {
            1 => Some(RecipientKind::X25519),
            2 => Some(RecipientKind::Hybrid),
            _ => None,
        }
    }

    /// Bytes of HPKE's encapsulated key (`enc`) in a stanza of this kind.
    pub fn enc_len(self) -> usize {
        match self {
            RecipientKind::X25519 => <X25519HkdfSha256 as Kem>::EncappedKey::size(),
            RecipientKind::Hybrid => <XWing as Kem>::EncappedKey::size(),
        }
    }

    /// Bytes of a whole stanza of this kind: type, `enc`, wrapped key.
    pub fn stanza_len(self) -> usize {
        1 + self.enc_len() + WRAPPED_LEN
    }

    /// Bytes of a public key of this kind.
    pub fn public_len(self) -> usize {
        match self {
            RecipientKind::X25519 => <X25519HkdfSha256 as Kem>::PublicKey::size(),
            RecipientKind::Hybrid => <XWing as Kem>::PublicKey::size(),
        }
    }

    fn recipient_hrp(self) -> &'static str {
        match self {
            RecipientKind::X25519 => "gcmsiv",
            RecipientKind::Hybrid => "gcmsivpq",
        }
    }

    fn identity_hrp(self) -> &'static str {
        match self {
            RecipientKind::X25519 => "gcmsiv-secret-key-",
            RecipientKind::Hybrid => "gcmsiv-secret-key-pq-",
        }
    }
}

impl fmt::Display for RecipientKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RecipientKind::X25519 => "X25519",
            RecipientKind::Hybrid => "ML-KEM-768 + X25519",
        })
    }
}

/// Bech32's checksum (BIP 173) without its length limit of 90 (or 1023)
/// characters: a hybrid public key is 1216 bytes, about 1950 characters. age
/// lifts the limit the same way. Past 1023 characters the checksum still
/// catches a typo with probability 1 - 2^-30; it no longer guarantees to catch
/// every four errors.
enum Bech32Long {}

impl Checksum for Bech32Long {
    type MidstateRepr = u32;
    type CorrectionField = Fe1024;
    const ROOT_GENERATOR: Self::CorrectionField = Fe1024::new([Fe32::P, Fe32::X]);
    const ROOT_EXPONENTS: core::ops::RangeInclusive<usize> = 24..=26;
    const CODE_LENGTH: usize = usize::MAX;
    const CHECKSUM_LENGTH: usize = 6;
    // BIP 173's generator, shifted as the crate's `Checksum` documents.
    const GENERATOR_SH: [u32; 5] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3];
    const TARGET_RESIDUE: u32 = 1;
}

/// Decodes a Bech32 string into its prefix (lowercase) and bytes; no secret in
/// the error.
fn bech32_decode(text: &str) -> Result<(Hrp, Zeroizing<Vec<u8>>), &'static str> {
    let checked =
        CheckedHrpstring::new::<Bech32Long>(text).map_err(|_| "not a valid Bech32 string (a typo?)")?;
    Ok((checked.hrp(), Zeroizing::new(checked.byte_iter().collect())))
}

/// A recipient: the public key a file is encrypted to. Its text form is Bech32,
/// `gcmsiv1...` (X25519) or `gcmsivpq1...` (hybrid).
#[derive(Clone, PartialEq, Eq)]
pub struct Recipient {
    kind: RecipientKind,
    public: Vec<u8>,
}

impl Recipient {
    /// The kind of key.
    pub fn kind(&self) -> RecipientKind {
        self.kind
    }

    /// Parses a recipient string (either case, as Bech32 allows; not mixed).
    pub fn parse(text: &str) -> Result<Self, &'static str> {
        let (hrp, bytes) = bech32_decode(text.trim())?;
        let kind = [RecipientKind::X25519, RecipientKind::Hybrid]
            .into_iter()
            .find(|k| hrp.as_str().eq_ignore_ascii_case(k.recipient_hrp()))
            .ok_or(if hrp.as_str().to_ascii_lowercase().starts_with("gcmsiv-secret-key") {
                "this is an identity (a private key), not a recipient: never share it"
            } else {
                "not a gcmsiv recipient (it starts with neither gcmsiv1 nor gcmsivpq1)"
            })?;
        if bytes.len() != kind.public_len() {
            return Err("the recipient's key has the wrong length");
        }
        let recipient = Recipient { kind, public: bytes.to_vec() };
        // Check that the KEM accepts the key now, not when a file is written:
        // one trial encapsulation. Every 32 bytes decode as an X25519 point,
        // but for a point of small order (u = 0, 1, ...) the Diffie-Hellman
        // output is all zeros whatever the ephemeral scalar (clamping makes
        // it a multiple of the cofactor), and HPKE refuses it (RFC 9180
        // section 7.1.4): so a fixed ephemeral key finds every such point,
        // and the trial's output is thrown away.
        let mut trial = Vec::with_capacity(kind.stanza_len());
        recipient
            .wrap_with(&[0; FILE_KEY_LEN], b"", &mut Prefetched::fixed(), &mut trial)
            .map_err(|_| "the recipient's key is not a valid public key (a point of small order?)")?;
        Ok(recipient)
    }

    /// Parses a recipients file: one recipient a line; empty lines and lines
    /// starting with `#` are comments. The error names the line.
    pub fn parse_list(text: &str) -> Result<Vec<Self>, String> {
        parse_lines(text, Recipient::parse)
    }

    /// Reads a recipients file (at most [`RECIPIENTS_FILE_MAX`] bytes).
    pub fn load_list(path: impl AsRef<Path>) -> Result<Vec<Self>, Error> {
        let text = read_text(path.as_ref(), RECIPIENTS_FILE_MAX, "recipients file")?;
        Recipient::parse_list(&text).map_err(Error::Recipients)
    }

    /// Wraps `file_key` to this recipient: a stanza (type, HPKE `enc`, the
    /// wrapped key), with `aad` (the header's fixed fields) as HPKE's
    /// associated data.
    pub(crate) fn wrap(&self, file_key: &[u8; FILE_KEY_LEN], aad: &[u8]) -> Result<Vec<u8>, Error> {
        let mut stanza = Vec::with_capacity(self.kind.stanza_len());
        // A key that `parse` accepted encapsulates; should HPKE refuse one
        // anyway, the caller gets an error, not a panic.
        self.wrap_with(file_key, aad, &mut Prefetched::new()?, &mut stanza)
            .map_err(|_| Error::Recipients(format!("{self}: the key is not a valid public key")))?;
        debug_assert_eq!(stanza.len(), self.kind.stanza_len());
        Ok(stanza)
    }

    /// Appends the stanza to `out`, with the encapsulation's randomness from `rng`.
    fn wrap_with(
        &self,
        file_key: &[u8; FILE_KEY_LEN],
        aad: &[u8],
        rng: &mut Prefetched,
        out: &mut Vec<u8>,
    ) -> Result<(), hpke::HpkeError> {
        out.push(self.kind.id());
        match self.kind {
            RecipientKind::X25519 => seal::<X25519HkdfSha256>(&self.public, file_key, aad, rng, out),
            RecipientKind::Hybrid => seal::<XWing>(&self.public, file_key, aad, rng, out),
        }
    }
}

fn seal<K: Kem>(
    public: &[u8],
    file_key: &[u8],
    aad: &[u8],
    rng: &mut Prefetched,
    out: &mut Vec<u8>,
) -> Result<(), hpke::HpkeError> {
    let public = K::PublicKey::from_bytes(public)?;
    let (enc, wrapped) = hpke::single_shot_seal_with_rng::<ChaCha20Poly1305, HkdfSha256, K>(
        &OpModeS::Base,
        &public,
        HPKE_INFO,
        file_key,
        aad,
        rng,
    )?;
    out.extend_from_slice(&enc.to_bytes());
    out.extend_from_slice(&wrapped);
    Ok(())
}

impl fmt::Display for Recipient {
    /// The Bech32 string, lowercase.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hrp = Hrp::parse(self.kind.recipient_hrp()).expect("internal error: valid prefix");
        f.write_str(&encode_lower::<Bech32Long>(hrp, &self.public).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Recipient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Recipient({self})")
    }
}

/// An identity: the private key that opens files encrypted to its
/// [`Recipient`]. Its text form is Bech32 in capitals,
/// `GCMSIV-SECRET-KEY-1...` or `GCMSIV-SECRET-KEY-PQ-1...`; the 32 bytes are
/// zeroized on drop and never printed by `Debug`. They live in one heap
/// allocation of their own, written in place: moving an identity (into a
/// list that grows, out of a function) copies a pointer, never the secret,
/// so no freed memory is left holding it.
#[derive(Clone)]
pub struct Identity {
    kind: RecipientKind,
    secret: Box<Zeroizing<[u8; IDENTITY_LEN]>>,
}

impl Identity {
    /// A new identity from the operating system's random generator.
    pub fn generate(kind: RecipientKind) -> Result<Self, Error> {
        let mut secret = Box::new(Zeroizing::new([0u8; IDENTITY_LEN]));
        getrandom::fill(secret.as_mut_slice()).map_err(|_| Error::Random)?;
        Ok(Identity { kind, secret })
    }

    /// The kind of key.
    pub fn kind(&self) -> RecipientKind {
        self.kind
    }

    /// The public recipient of this identity.
    pub fn recipient(&self) -> Recipient {
        let public = match self.kind {
            RecipientKind::X25519 => public_of::<X25519HkdfSha256>(&self.secret),
            RecipientKind::Hybrid => public_of::<XWing>(&self.secret),
        };
        Recipient { kind: self.kind, public }
    }

    /// The identity string (capitals). Keep it secret.
    pub fn to_secret_string(&self) -> Zeroizing<String> {
        let hrp = Hrp::parse(self.kind.identity_hrp()).expect("internal error: valid prefix");
        // Written into room for the whole string, so that it never grows (a
        // growing string would leave copies of its first part behind).
        let mut text = Zeroizing::new(String::with_capacity(IDENTITY_STRING_ROOM));
        bech32::encode_upper_to_fmt::<Bech32Long, String>(&mut text, hrp, self.secret.as_slice())
            .expect("internal error: Bech32");
        debug_assert!(text.len() <= IDENTITY_STRING_ROOM);
        text
    }

    /// The text of an identity file: comments saying what it is and its
    /// recipient, then the identity line.
    pub fn to_identity_file(&self) -> Zeroizing<String> {
        let mut text = Zeroizing::new(String::with_capacity(2400));
        text.push_str(
            "# gcmsiv identity (docs/FORMAT.md). Keep it secret: it decrypts every file encrypted to it.\n",
        );
        text.push_str(&format!("# kind: {}\n", self.kind));
        text.push_str(&format!("# recipient: {}\n", self.recipient()));
        text.push_str(&self.to_secret_string());
        text.push('\n');
        text
    }

    /// Parses one identity string. The error never quotes it.
    pub fn parse(text: &str) -> Result<Self, &'static str> {
        let (hrp, bytes) = bech32_decode(text.trim())?;
        let kind = [RecipientKind::X25519, RecipientKind::Hybrid]
            .into_iter()
            .find(|k| hrp.as_str().eq_ignore_ascii_case(k.identity_hrp()))
            .ok_or("not a gcmsiv identity (it does not start with GCMSIV-SECRET-KEY-)")?;
        if bytes.len() != IDENTITY_LEN {
            return Err("the identity's key has the wrong length");
        }
        let mut secret = Box::new(Zeroizing::new([0u8; IDENTITY_LEN]));
        secret.copy_from_slice(&bytes);
        Ok(Identity { kind, secret })
    }

    /// Parses an identity file: identity lines, and comments (empty lines and
    /// lines starting with `#`). At least one identity; the error names the line
    /// and never quotes it.
    pub fn parse_list(text: &str) -> Result<Vec<Self>, String> {
        let identities = parse_lines(text, Identity::parse)?;
        if identities.is_empty() {
            return Err("it holds no identity".into());
        }
        Ok(identities)
    }

    /// Reads an identity file (at most [`IDENTITY_FILE_MAX`] bytes).
    pub fn load_list(path: impl AsRef<Path>) -> Result<Vec<Self>, Error> {
        let text = read_text(path.as_ref(), IDENTITY_FILE_MAX, "identity file")?;
        Identity::parse_list(&text).map_err(Error::Identities)
    }

    /// The file key in `stanza` if it was wrapped to this identity (with the
    /// same `aad`); `None` for another identity's stanza or a damaged one.
    pub(crate) fn unwrap(&self, stanza: &[u8], aad: &[u8]) -> Option<Zeroizing<[u8; FILE_KEY_LEN]>> {
        let (&kind, rest) = stanza.split_first()?;
        if kind != self.kind.id() || rest.len() != self.kind.enc_len() + WRAPPED_LEN {
            return None;
        }
        let (enc, wrapped) = rest.split_at(self.kind.enc_len());
        let key = match self.kind {
            RecipientKind::X25519 => open::<X25519HkdfSha256>(&self.secret, enc, wrapped, aad)?,
            RecipientKind::Hybrid => open::<XWing>(&self.secret, enc, wrapped, aad)?,
        };
        let mut file_key = Zeroizing::new([0u8; FILE_KEY_LEN]);
        file_key.copy_from_slice(key.get(..FILE_KEY_LEN).filter(|k| k.len() == key.len())?);
        Some(file_key)
    }
}

fn public_of<K: Kem>(secret: &[u8; IDENTITY_LEN]) -> Vec<u8> {
    let private = K::PrivateKey::from_bytes(secret).expect("internal error: any 32 bytes are a private key");
    K::sk_to_pk(&private).to_bytes().to_vec()
}

fn open<K: Kem>(
    secret: &[u8; IDENTITY_LEN],
    enc: &[u8],
    wrapped: &[u8],
    aad: &[u8],
) -> Option<Zeroizing<Vec<u8>>> {
    let private = K::PrivateKey::from_bytes(secret).ok()?;
    let enc = K::EncappedKey::from_bytes(enc).ok()?;
    hpke::single_shot_open::<ChaCha20Poly1305, HkdfSha256, K>(
        &OpModeR::Base,
        &private,
        &enc,
        HPKE_INFO,
        wrapped,
        aad,
    )
    .ok()
    .map(Zeroizing::new)
}

impl fmt::Debug for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Identity({}, ..)", self.kind)
    }
}

/// Parses every line of an identity or recipients file that is not a comment
/// (empty, or starting with `#`); the error names the line, never quoting it.
fn parse_lines<T>(text: &str, parse: fn(&str) -> Result<T, &'static str>) -> Result<Vec<T>, String> {
    let mut items = Vec::with_capacity(text.lines().count());
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        items.push(parse(line).map_err(|why| format!("line {}: {why}", number + 1))?);
    }
    Ok(items)
}

/// Reads a small text file; errors never quote it.
fn read_text(path: &Path, max: u64, what: &'static str) -> Result<Zeroizing<String>, Error> {
    let file = std::fs::File::open(path).map_err(Error::Read)?;
    // For identities, room for the most the file may hold, so the buffer
    // never grows: a growing buffer would free the old one, identities and
    // all, without wiping it. (Recipients are public.)
    let room = match what {
        "identity file" => usize::try_from(max + 1).expect("internal error: limits fit in memory"),
        _ => 4096,
    };
    let mut bytes = Zeroizing::new(Vec::with_capacity(room));
    file.take(max + 1).read_to_end(&mut bytes).map_err(Error::Read)?;
    if bytes.len() as u64 > max {
        return Err(Error::Invalid(match what {
            "identity file" => "the identity file is too large (over 64 KiB)",
            _ => "the recipients file is too large (over 4 MiB)",
        }));
    }
    let text = std::str::from_utf8(&bytes).map_err(|_| Error::Invalid("the file is not UTF-8 text"))?;
    Ok(Zeroizing::new(text.to_owned()))
}

/// The randomness of one encapsulation, taken from the operating system up
/// front so that a failure is an error rather than a panic inside HPKE (whose
/// generator must be infallible). An encapsulation draws 32 bytes (X25519's
/// ephemeral key) or 64 (X-Wing's); more is an internal error.
struct Prefetched {
    bytes: Zeroizing<[u8; 64]>,
    used: usize,
}

impl Prefetched {
    fn new() -> Result<Self, Error> {
        let mut bytes = Zeroizing::new([0u8; 64]);
        getrandom::fill(bytes.as_mut_slice()).map_err(|_| Error::Random)?;
        Ok(Prefetched { bytes, used: 0 })
    }

    /// Fixed bytes, for the trial encapsulation that checks a key when it is
    /// parsed (whose output nobody sees).
    fn fixed() -> Self {
        Prefetched { bytes: Zeroizing::new([0x5a; 64]), used: 0 }
    }
}

impl TryRng for Prefetched {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        let mut word = [0u8; 4];
        self.try_fill_bytes(&mut word)?;
        Ok(u32::from_le_bytes(word))
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        let mut word = [0u8; 8];
        self.try_fill_bytes(&mut word)?;
        Ok(u64::from_le_bytes(word))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        let end = self.used + dst.len();
        assert!(end <= self.bytes.len(), "internal error: an encapsulation drew more than 64 random bytes");
        dst.copy_from_slice(&self.bytes[self.used..end]);
        self.used = end;
        Ok(())
    }
}

impl TryCryptoRng for Prefetched {}

#[cfg(test)]
mod tests {
    use super::*;

    const KINDS: [RecipientKind; 2] = [RecipientKind::X25519, RecipientKind::Hybrid];

    #[test]
    fn sizes_are_the_documented_ones() {
        assert_eq!((RecipientKind::X25519.enc_len(), RecipientKind::X25519.public_len()), (32, 32));
        assert_eq!((RecipientKind::Hybrid.enc_len(), RecipientKind::Hybrid.public_len()), (1120, 1216));
        assert_eq!(RecipientKind::X25519.stanza_len(), 81);
        assert_eq!(RecipientKind::Hybrid.stanza_len(), 1169);
    }

    #[test]
    fn strings_round_trip_and_have_their_prefixes() {
        for kind in KINDS {
            let identity = Identity::generate(kind).unwrap();
            let recipient = identity.recipient();
            let text = recipient.to_string();
            let prefix = if kind == RecipientKind::X25519 { "gcmsiv1" } else { "gcmsivpq1" };
            assert!(text.starts_with(prefix), "{text}");
            assert_eq!(Recipient::parse(&text).unwrap(), recipient);
            assert_eq!(Recipient::parse(&text.to_uppercase()).unwrap(), recipient);
            let secret = identity.to_secret_string();
            assert!(secret.starts_with(if kind == RecipientKind::X25519 {
                "GCMSIV-SECRET-KEY-1"
            } else {
                "GCMSIV-SECRET-KEY-PQ-1"
            }));
            let parsed = Identity::parse(&secret).unwrap();
            assert_eq!(**parsed.secret, **identity.secret);
            assert_eq!(parsed.recipient(), recipient);
            let file = identity.to_identity_file();
            let listed = Identity::parse_list(&file).unwrap();
            assert_eq!(listed.len(), 1);
            assert_eq!(listed[0].recipient(), recipient);
            assert!(!format!("{identity:?}").contains(&secret[20..30]));
        }
    }

    #[test]
    fn a_typo_is_caught() {
        let text = Identity::generate(RecipientKind::X25519).unwrap().recipient().to_string();
        for at in [7, 20, text.len() - 1] {
            let mut bytes = text.clone().into_bytes();
            bytes[at] = if bytes[at] == b'q' { b'p' } else { b'q' };
            assert!(Recipient::parse(std::str::from_utf8(&bytes).unwrap()).is_err());
        }
        let pq = Identity::generate(RecipientKind::Hybrid).unwrap().recipient().to_string();
        let mut bytes = pq.into_bytes();
        let at = bytes.len() / 2;
        bytes[at] = if bytes[at] == b'q' { b'p' } else { b'q' };
        assert!(Recipient::parse(std::str::from_utf8(&bytes).unwrap()).is_err());
    }

    /// The X25519 points of small order (the u-coordinates of curve25519's
    /// eight-torsion points that fit in 32 bytes, and their non-canonical
    /// twins above p): each decodes, and each is refused when parsed, so
    /// that no writer ever reaches HPKE with one.
    #[test]
    fn x25519_points_of_small_order_are_refused() {
        // p = 2^255 - 19 is ed ff .. ff 7f, little-endian.
        let near_p = |low: u8| {
            let mut u = [0xff; 32];
            u[0] = low;
            u[31] = 0x7f;
            u
        };
        let mut one = [0u8; 32];
        one[0] = 1;
        let small = [
            [0u8; 32],
            one,
            // The two points of order 8.
            hex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"),
            hex("5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157"),
            // p and p + 1: 0 and 1 again, unreduced.
            near_p(0xed),
            near_p(0xee),
        ];
        let hrp = Hrp::parse("gcmsiv").unwrap();
        for point in small {
            let text = encode_lower::<Bech32Long>(hrp, &point).unwrap();
            assert_eq!(bech32_decode(&text).unwrap().1.as_slice(), point, "decodes");
            let err = Recipient::parse(&text).unwrap_err();
            assert!(err.contains("not a valid public key"), "{err}");
        }
        // A good key still parses after the trial encapsulation.
        let good = Identity::generate(RecipientKind::X25519).unwrap().recipient();
        assert_eq!(Recipient::parse(&good.to_string()).unwrap(), good);
    }

    fn hex(text: &str) -> [u8; 32] {
        core::array::from_fn(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).unwrap())
    }

    #[test]
    fn identities_are_not_recipients_and_lists_name_the_line() {
        let identity = Identity::generate(RecipientKind::X25519).unwrap();
        let err = Recipient::parse(&identity.to_secret_string()).unwrap_err();
        assert!(err.contains("identity"));
        let list = format!("# team\n\n{}\nnot-a-key\n", identity.recipient());
        let err = Recipient::parse_list(&list).unwrap_err();
        assert!(err.starts_with("line 4:"), "{err}");
        assert!(Identity::parse_list("# nothing\n").is_err());
        assert!(Identity::parse(&identity.recipient().to_string()).is_err());
    }

    #[test]
    fn stanzas_open_only_with_their_identity_and_context() {
        for kind in KINDS {
            let identity = Identity::generate(kind).unwrap();
            let other = Identity::generate(kind).unwrap();
            let file_key = [7u8; FILE_KEY_LEN];
            let stanza = identity.recipient().wrap(&file_key, b"header").unwrap();
            assert_eq!(stanza.len(), kind.stanza_len());
            assert_eq!(*identity.unwrap(&stanza, b"header").unwrap(), file_key);
            assert!(other.unwrap(&stanza, b"header").is_none());
            assert!(identity.unwrap(&stanza, b"other header").is_none());
            for at in [0, 1, stanza.len() - 1] {
                let mut bad = stanza.clone();
                bad[at] ^= 1;
                assert!(identity.unwrap(&bad, b"header").is_none(), "{kind} byte {at}");
            }
            // A fresh encapsulation every time: nothing links two stanzas to one recipient.
            assert_ne!(identity.recipient().wrap(&file_key, b"header").unwrap(), stanza);
        }
    }
}

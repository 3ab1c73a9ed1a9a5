//! The byte layout of the format (docs/FORMAT.md): the header of version 1
//! (key file or passphrase) and of version 2 (public-key recipients), the
//! framing of each chunk (the same in both), and where each chunk lies in a
//! file. No keys here; see `keys.rs` for what is derived from them.

use crate::error::DecodeError;
use crate::recipients::RecipientKind;

/// "GCMSIV": the first six bytes of every file.
pub const MAGIC: &[u8; 6] = b"GCMSIV";
/// The format version of files encrypted with a key file or a passphrase.
pub const VERSION: u8 = 1;
/// The format version of files encrypted to public-key recipients.
pub const VERSION_RECIPIENTS: u8 = 2;
/// Version 1 header bytes covered by the header MAC: everything before it.
pub const MAC_OFFSET: usize = 54;
/// Version 1 header size: the MAC'd fields and the 32-byte HMAC-SHA-256.
pub const HEADER_LEN: usize = MAC_OFFSET + MAC_LEN;
/// Version 2 header bytes before the stanzas: magic to stanza count. HPKE's
/// associated data for every stanza.
pub const V2_FIXED_LEN: usize = 44;
/// Most stanzas (recipients) a version 2 header may hold.
pub const MAX_STANZAS: usize = 256;
/// The longest header of either version: 256 hybrid stanzas.
pub const MAX_HEADER_LEN: usize = V2_FIXED_LEN + MAX_STANZAS * 1169 + MAC_LEN;
/// HMAC-SHA-256 output.
pub const MAC_LEN: usize = 32;
/// Per-file random salt.
pub const SALT_LEN: usize = 32;
/// The length word `W` in front of every chunk.
pub const WORD_LEN: usize = 4;
/// AES-GCM-SIV tag at the end of every chunk.
pub const TAG_LEN: usize = gcmsiv::TAG_LEN;
/// Bit of `W` set on the final chunk.
const LAST_BIT: u32 = 1 << 31;

/// Bytes around each chunk's plaintext in the file: its length word and its tag.
pub const CHUNK_OVERHEAD: usize = WORD_LEN + TAG_LEN;

/// Chunk size exponents a version 1 reader accepts: 1 KiB to 1 MiB.
pub const CHUNK_EXP_MIN: u8 = 10;
/// See [`CHUNK_EXP_MIN`].
pub const CHUNK_EXP_MAX: u8 = 20;
/// 64 KiB chunks, what writers should use.
pub const CHUNK_EXP_DEFAULT: u8 = 16;

/// The AEAD, numbered as in the IANA AEAD registry (RFC 8452 section 8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Algorithm {
    /// AEAD_AES_128_GCM_SIV, id 30.
    Aes128GcmSiv,
    /// AEAD_AES_256_GCM_SIV, id 31: what writers use unless told otherwise.
    #[default]
    Aes256GcmSiv,
}

impl Algorithm {
    /// The header byte.
    pub fn id(self) -> u8 {
        match self {
            Algorithm::Aes128GcmSiv => 30,
            Algorithm::Aes256GcmSiv => 31,
        }
    }

    /// The algorithm with this header byte.
    pub fn from_id(id: u8) -> Option<Self> {
        match id {
            30 => Some(Algorithm::Aes128GcmSiv),
            31 => Some(Algorithm::Aes256GcmSiv),
            _ => None,
        }
    }

    /// AES key length in bytes.
    pub fn key_len(self) -> usize {
        match self {
            Algorithm::Aes128GcmSiv => 16,
            Algorithm::Aes256GcmSiv => 32,
        }
    }
}

/// Argon2id cost, as recorded in a passphrase-mode header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Argon2Cost {
    /// Memory in KiB (`m`).
    pub memory_kib: u32,
    /// Passes over memory (`t`).
    pub iterations: u32,
    /// Lanes (`p`).
    pub lanes: u32,
}

impl Argon2Cost {
    /// RFC 9106 section 4, second recommended option: 64 MiB, 3 passes, 4 lanes.
    pub const DEFAULT: Argon2Cost = Argon2Cost { memory_kib: 64 * 1024, iterations: 3, lanes: 4 };
    /// OWASP's minimum for Argon2id (19 MiB, 2 passes, 1 lane): writers below it
    /// get a warning from the tool.
    pub const OWASP_MIN: Argon2Cost = Argon2Cost { memory_kib: 19 * 1024, iterations: 2, lanes: 1 };
    /// Largest memory a reader runs: 1 GiB.
    pub const MAX_MEMORY_KIB: u32 = 1 << 20;
    /// Most passes a reader runs.
    pub const MAX_ITERATIONS: u32 = 16;
    /// Most lanes a reader runs.
    pub const MAX_LANES: u32 = 16;

    /// Whether a reader may run this cost: Argon2id's own minimums and the format's
    /// upper limits, checked before any memory is allocated.
    pub fn check(self) -> Result<(), DecodeError> {
        let Argon2Cost { memory_kib, iterations, lanes } = self;
        if iterations == 0 || lanes == 0 || u64::from(memory_kib) < 8 * u64::from(lanes) {
            return Err(DecodeError::CorruptHeader("Argon2id cost below its minimum"));
        }
        if memory_kib > Self::MAX_MEMORY_KIB || iterations > Self::MAX_ITERATIONS || lanes > Self::MAX_LANES {
            return Err(DecodeError::CostTooHigh { memory_kib, iterations, lanes });
        }
        Ok(())
    }
}

/// How the user's secret is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyMode {
    /// A key file holding a 32-byte master secret.
    KeyFile,
    /// A passphrase stretched with Argon2id at this cost.
    Passphrase(Argon2Cost),
    /// A random file key wrapped to public-key recipients (format version 2).
    Recipients,
}

/// One recipient's stanza in a version 2 header: its type byte, HPKE's
/// encapsulated key and the wrapped file key, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stanza {
    /// The recipient's kind (the type byte).
    pub kind: RecipientKind,
    /// The stanza's bytes, type byte first.
    pub bytes: Vec<u8>,
}

/// The header fields before the MAC.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The AEAD of every chunk.
    pub algorithm: Algorithm,
    /// How the secret is given.
    pub key_mode: KeyMode,
    /// `e`: chunks hold `2^e` plaintext bytes.
    pub chunk_exp: u8,
    /// The per-file salt of HKDF (and of Argon2id).
    pub salt: [u8; SALT_LEN],
    /// Version 2: one stanza per recipient; empty in version 1.
    pub stanzas: Vec<Stanza>,
}

impl Header {
    /// Plaintext bytes in every chunk but the final one.
    pub fn chunk_size(&self) -> usize {
        1 << self.chunk_exp
    }

    /// The format version: 2 for recipients, else 1.
    pub fn version(&self) -> u8 {
        if self.key_mode == KeyMode::Recipients { VERSION_RECIPIENTS } else { VERSION }
    }

    /// The whole header's size in bytes, its MAC included.
    pub fn encoded_len(&self) -> usize {
        match self.key_mode {
            KeyMode::Recipients => {
                V2_FIXED_LEN + self.stanzas.iter().map(|s| s.bytes.len()).sum::<usize>() + MAC_LEN
            }
            _ => HEADER_LEN,
        }
    }

    /// Version 2's fixed fields, bytes 0..44: magic to stanza count (HPKE's
    /// associated data for each stanza).
    pub fn fixed_fields(&self) -> [u8; V2_FIXED_LEN] {
        self.fixed_fields_for(self.stanzas.len())
    }

    /// [`Header::fixed_fields`] for a header that will hold `count` stanzas.
    pub(crate) fn fixed_fields_for(&self, count: usize) -> [u8; V2_FIXED_LEN] {
        let mut out = [0u8; V2_FIXED_LEN];
        out[..6].copy_from_slice(MAGIC);
        out[6] = VERSION_RECIPIENTS;
        out[7] = self.algorithm.id();
        out[8] = 3;
        out[9] = self.chunk_exp;
        out[10..42].copy_from_slice(&self.salt);
        let count = u16::try_from(count).expect("internal error: stanza count");
        out[42..44].copy_from_slice(&count.to_be_bytes());
        out
    }

    /// The header bytes before the MAC: what the MAC covers.
    pub fn encode(&self) -> Vec<u8> {
        if self.key_mode == KeyMode::Recipients {
            let mut out = Vec::with_capacity(self.encoded_len());
            out.extend_from_slice(&self.fixed_fields());
            for stanza in &self.stanzas {
                out.extend_from_slice(&stanza.bytes);
            }
            return out;
        }
        let mut out = vec![0u8; MAC_OFFSET];
        out[..6].copy_from_slice(MAGIC);
        out[6] = VERSION;
        out[7] = self.algorithm.id();
        let cost = match self.key_mode {
            KeyMode::Passphrase(cost) => {
                out[8] = 2;
                cost
            }
            _ => {
                out[8] = 1;
                Argon2Cost { memory_kib: 0, iterations: 0, lanes: 0 }
            }
        };
        out[9] = self.chunk_exp;
        out[10..14].copy_from_slice(&cost.memory_kib.to_be_bytes());
        out[14..18].copy_from_slice(&cost.iterations.to_be_bytes());
        out[18..22].copy_from_slice(&cost.lanes.to_be_bytes());
        out[22..54].copy_from_slice(&self.salt);
        out
    }

    /// How many bytes the header starting with `prefix` has, as far as
    /// `prefix` tells: its whole length once `prefix` reaches every length
    /// field, else a length `prefix` must reach to tell more (always more than
    /// `prefix.len()`). Checks the magic, the version and, in version 2, the
    /// stanza count and types, so that a hostile header is refused before its
    /// bytes are read. A reader calls it until the result is at most what it
    /// has, then [`Header::parse`]s that many bytes.
    pub fn needed(prefix: &[u8]) -> Result<usize, DecodeError> {
        let seen = prefix.len().min(MAGIC.len());
        if prefix[..seen] != MAGIC[..seen] {
            return Err(DecodeError::NotGcmsiv);
        }
        match prefix.get(6) {
            None => Ok(7),
            Some(&VERSION) => Ok(HEADER_LEN),
            Some(&VERSION_RECIPIENTS) if prefix.len() < V2_FIXED_LEN => Ok(V2_FIXED_LEN),
            Some(&VERSION_RECIPIENTS) => {
                let count = usize::from(u16::from_be_bytes([prefix[42], prefix[43]]));
                if count == 0 {
                    return Err(DecodeError::CorruptHeader("no recipient stanza"));
                }
                if count > MAX_STANZAS {
                    return Err(DecodeError::TooManyStanzas(count));
                }
                let mut at = V2_FIXED_LEN;
                for _ in 0..count {
                    let Some(&kind) = prefix.get(at) else { return Ok(at + 1) };
                    let kind = RecipientKind::from_id(kind)
                        .ok_or(DecodeError::CorruptHeader("unknown stanza type"))?;
                    at += kind.stanza_len();
                }
                Ok(at + MAC_LEN)
            }
            Some(&other) => Err(DecodeError::UnsupportedVersion(other)),
        }
    }

    /// Checks 1 to 5 of docs/FORMAT.md on the bytes read from the start of a file
    /// (the whole header, as [`Header::needed`] tells; more is ignored). Returns
    /// the fields and the MAC, which the caller verifies once it has the key.
    pub fn parse(bytes: &[u8]) -> Result<(Header, [u8; MAC_LEN]), DecodeError> {
        if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
            return Err(DecodeError::NotGcmsiv);
        }
        let len = Self::needed(bytes)?;
        if bytes.len() < len {
            return Err(DecodeError::TruncatedHeader);
        }
        let bytes = &bytes[..len];
        let algorithm =
            Algorithm::from_id(bytes[7]).ok_or(DecodeError::CorruptHeader("unknown algorithm"))?;
        let chunk_exp = bytes[9];
        if !(CHUNK_EXP_MIN..=CHUNK_EXP_MAX).contains(&chunk_exp) {
            return Err(DecodeError::CorruptHeader("chunk size out of range"));
        }
        let mut salt = [0u8; SALT_LEN];
        let mut mac = [0u8; MAC_LEN];
        mac.copy_from_slice(&bytes[len - MAC_LEN..]);
        if bytes[6] == VERSION_RECIPIENTS {
            if bytes[8] != 3 {
                return Err(DecodeError::CorruptHeader("unknown key mode"));
            }
            salt.copy_from_slice(&bytes[10..42]);
            let mut stanzas = Vec::new();
            let mut at = V2_FIXED_LEN;
            while at < len - MAC_LEN {
                let kind = RecipientKind::from_id(bytes[at]).expect("internal error: checked by needed");
                stanzas.push(Stanza { kind, bytes: bytes[at..at + kind.stanza_len()].to_vec() });
                at += kind.stanza_len();
            }
            let header = Header { algorithm, key_mode: KeyMode::Recipients, chunk_exp, salt, stanzas };
            return Ok((header, mac));
        }
        let be32 = |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        let cost = Argon2Cost { memory_kib: be32(10), iterations: be32(14), lanes: be32(18) };
        let key_mode = match bytes[8] {
            1 if cost == (Argon2Cost { memory_kib: 0, iterations: 0, lanes: 0 }) => KeyMode::KeyFile,
            1 => return Err(DecodeError::CorruptHeader("passphrase cost in a key-file header")),
            2 => {
                cost.check()?;
                KeyMode::Passphrase(cost)
            }
            _ => return Err(DecodeError::CorruptHeader("unknown key mode")),
        };
        salt.copy_from_slice(&bytes[22..54]);
        Ok((Header { algorithm, key_mode, chunk_exp, salt, stanzas: Vec::new() }, mac))
    }
}

/// The length word `W` of a chunk holding `len` plaintext bytes.
pub fn chunk_word(len: usize, last: bool) -> [u8; WORD_LEN] {
    let len = u32::try_from(len).expect("internal error: chunk longer than the format allows");
    (len | if last { LAST_BIT } else { 0 }).to_be_bytes()
}

/// Reads chunk `index`'s length word: its plaintext length and whether it is the
/// final chunk, or why it cannot be a valid word for this chunk size.
pub fn parse_chunk_word(
    word: [u8; WORD_LEN],
    index: u64,
    chunk_size: usize,
) -> Result<(usize, bool), DecodeError> {
    let word = u32::from_be_bytes(word);
    let last = word & LAST_BIT != 0;
    let len = (word & !LAST_BIT) as usize;
    let valid = if last { len <= chunk_size && (len > 0 || index == 0) } else { len == chunk_size };
    if valid { Ok((len, last)) } else { Err(DecodeError::BadChunkLength(index)) }
}

/// Where each chunk lies in a file, from the size of its payload (the bytes after
/// the header): every chunk but the final one stores `C` plaintext bytes, so
/// the offset of chunk `i` and the plaintext length follow from the size alone.
/// Nothing here is authenticated: a reader checks the final chunk's length word
/// and tag before it trusts the length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Bytes of the header, where the first chunk starts.
    pub header_len: u64,
    /// `C`.
    pub chunk_size: usize,
    /// Index of the final chunk (the number of chunks less one).
    pub final_index: u64,
    /// Plaintext bytes in the final chunk, if the size is whole chunks.
    pub final_len: Option<usize>,
}

impl Geometry {
    /// The layout of a file of `file_len` bytes whose header has `header_len`;
    /// `None` if it cannot hold even an empty final chunk.
    pub fn of_file(file_len: u64, header_len: usize, chunk_size: usize) -> Option<Self> {
        let header_len = header_len as u64;
        let rest = file_len.checked_sub(header_len)?.checked_sub(CHUNK_OVERHEAD as u64)?;
        let slot = (chunk_size + CHUNK_OVERHEAD) as u64;
        let (final_index, left) = (rest / slot, (rest % slot) as usize);
        let final_len = (left <= chunk_size).then_some(left);
        Some(Geometry { header_len, chunk_size, final_index, final_len })
    }

    /// Where chunk `index` starts in the file (its length word).
    pub fn offset(&self, index: u64) -> u64 {
        self.header_len + index * (self.chunk_size + CHUNK_OVERHEAD) as u64
    }

    /// The plaintext length, if the size is whole chunks.
    pub fn plaintext_len(&self) -> Option<u64> {
        Some(self.final_index * self.chunk_size as u64 + self.final_len? as u64)
    }
}

/// The STREAM nonce: the chunk index as an 11-byte big-endian integer, then the
/// final-chunk flag.
pub fn chunk_nonce(index: u64, last: bool) -> [u8; gcmsiv::NONCE_LEN] {
    let mut nonce = [0u8; gcmsiv::NONCE_LEN];
    nonce[3..11].copy_from_slice(&index.to_be_bytes());
    nonce[11] = u8::from(last);
    nonce
}

/// A chunk's associated data: the header MAC, then the chunk's length word.
pub fn chunk_aad(header_mac: &[u8; MAC_LEN], word: [u8; WORD_LEN]) -> [u8; MAC_LEN + WORD_LEN] {
    let mut aad = [0u8; MAC_LEN + WORD_LEN];
    aad[..MAC_LEN].copy_from_slice(header_mac);
    aad[MAC_LEN..].copy_from_slice(&word);
    aad
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(key_mode: KeyMode) -> Header {
        Header {
            algorithm: Algorithm::Aes256GcmSiv,
            key_mode,
            chunk_exp: 16,
            salt: [7; SALT_LEN],
            stanzas: Vec::new(),
        }
    }

    fn full(header: &Header) -> Vec<u8> {
        let mut bytes = header.encode().to_vec();
        bytes.extend_from_slice(&[9; MAC_LEN]);
        bytes
    }

    #[test]
    fn header_round_trips_in_both_modes() {
        for mode in [KeyMode::KeyFile, KeyMode::Passphrase(Argon2Cost::DEFAULT)] {
            let header = sample(mode);
            assert_eq!(Header::parse(&full(&header)), Ok((header, [9; MAC_LEN])));
        }
    }

    #[test]
    fn header_layout_matches_the_spec() {
        let bytes = full(&sample(KeyMode::Passphrase(Argon2Cost::DEFAULT)));
        assert_eq!(bytes.len(), 86);
        assert_eq!(&bytes[..10], b"GCMSIV\x01\x1f\x02\x10");
        assert_eq!(&bytes[10..22], &[0, 1, 0, 0, 0, 0, 0, 3, 0, 0, 0, 4]);
    }

    #[test]
    fn header_errors_come_in_spec_order() {
        let good = full(&sample(KeyMode::KeyFile));
        assert_eq!(Header::parse(b"GCMSI"), Err(DecodeError::NotGcmsiv));
        assert_eq!(Header::parse(b"PK\x03\x04 zip"), Err(DecodeError::NotGcmsiv));
        assert_eq!(Header::parse(b"GCMSIV"), Err(DecodeError::TruncatedHeader));
        assert_eq!(Header::parse(b"GCMSIV\x03"), Err(DecodeError::UnsupportedVersion(3)));
        assert_eq!(Header::parse(b"GCMSIV\x02"), Err(DecodeError::TruncatedHeader));
        assert_eq!(Header::parse(&good[..85]), Err(DecodeError::TruncatedHeader));
        let with = |at: usize, value: u8| {
            let mut bytes = good.clone();
            bytes[at] = value;
            Header::parse(&bytes)
        };
        assert_eq!(with(7, 29), Err(DecodeError::CorruptHeader("unknown algorithm")));
        assert_eq!(with(8, 3), Err(DecodeError::CorruptHeader("unknown key mode")));
        assert_eq!(with(9, 9), Err(DecodeError::CorruptHeader("chunk size out of range")));
        assert_eq!(with(9, 21), Err(DecodeError::CorruptHeader("chunk size out of range")));
        assert!(matches!(with(13, 1), Err(DecodeError::CorruptHeader(_))));
    }

    fn recipients_header(kinds: &[RecipientKind]) -> Header {
        let stanzas = kinds
            .iter()
            .enumerate()
            .map(|(i, &kind)| {
                let mut bytes = vec![i as u8; kind.stanza_len()];
                bytes[0] = kind.id();
                Stanza { kind, bytes }
            })
            .collect();
        Header { stanzas, ..sample(KeyMode::Recipients) }
    }

    #[test]
    fn version_2_headers_round_trip_and_have_the_documented_layout() {
        let header =
            recipients_header(&[RecipientKind::X25519, RecipientKind::Hybrid, RecipientKind::X25519]);
        let bytes = full(&header);
        assert_eq!(bytes.len(), 44 + 81 + 1169 + 81 + 32);
        assert_eq!(header.encoded_len(), bytes.len());
        assert_eq!(&bytes[..10], b"GCMSIV\x02\x1f\x03\x10");
        assert_eq!(&bytes[10..42], &[7; 32]);
        assert_eq!(&bytes[42..44], &[0, 3]);
        assert_eq!((bytes[44], bytes[44 + 81], bytes[44 + 81 + 1169]), (1, 2, 1));
        assert_eq!(Header::parse(&bytes), Ok((header.clone(), [9; MAC_LEN])));
        // Trailing bytes (the payload) are not the header's.
        let mut longer = bytes.clone();
        longer.extend_from_slice(b"payload");
        assert_eq!(Header::parse(&longer), Ok((header, [9; MAC_LEN])));
        for cut in 0..bytes.len() {
            let expected = if cut < 6 { DecodeError::NotGcmsiv } else { DecodeError::TruncatedHeader };
            assert_eq!(Header::parse(&bytes[..cut]), Err(expected), "cut at {cut}");
        }
    }

    #[test]
    fn needed_walks_the_header_one_length_field_at_a_time() {
        let bytes = full(&recipients_header(&[RecipientKind::Hybrid, RecipientKind::X25519]));
        let mut have = 0;
        let mut steps = Vec::new();
        loop {
            let need = Header::needed(&bytes[..have]).unwrap();
            if need <= have {
                break;
            }
            steps.push(need);
            have = need;
        }
        assert_eq!(steps, [7, 44, 45, 45 + 1169, bytes.len()]);
        assert_eq!(Header::needed(&full(&sample(KeyMode::KeyFile))[..7]), Ok(86));
    }

    #[test]
    fn hostile_recipient_headers_are_refused_before_their_stanzas_arrive() {
        let bytes = full(&recipients_header(&[RecipientKind::X25519]));
        let with_count = |count: u16| {
            let mut fixed = bytes[..44].to_vec();
            fixed[42..44].copy_from_slice(&count.to_be_bytes());
            Header::needed(&fixed)
        };
        assert_eq!(with_count(0), Err(DecodeError::CorruptHeader("no recipient stanza")));
        assert_eq!(with_count(257), Err(DecodeError::TooManyStanzas(257)));
        assert_eq!(with_count(u16::MAX), Err(DecodeError::TooManyStanzas(65535)));
        assert_eq!(with_count(256), Ok(45));
        let mut unknown = bytes.clone();
        unknown[44] = 3;
        assert_eq!(Header::parse(&unknown), Err(DecodeError::CorruptHeader("unknown stanza type")));
        let mut mode = bytes.clone();
        mode[8] = 1;
        assert_eq!(Header::parse(&mode), Err(DecodeError::CorruptHeader("unknown key mode")));
        let mut exp = bytes;
        exp[9] = 21;
        assert_eq!(Header::parse(&exp), Err(DecodeError::CorruptHeader("chunk size out of range")));
        let largest = recipients_header(&[RecipientKind::Hybrid; MAX_STANZAS]);
        assert_eq!(largest.encoded_len(), MAX_HEADER_LEN);
    }

    #[test]
    fn hostile_argon2_costs_are_refused_before_any_work() {
        let with = |cost| Header::parse(&full(&sample(KeyMode::Passphrase(cost))));
        let over = |memory_kib, iterations, lanes| {
            let cost = Argon2Cost { memory_kib, iterations, lanes };
            assert_eq!(with(cost), Err(DecodeError::CostTooHigh { memory_kib, iterations, lanes }));
        };
        over(u32::MAX, 3, 4);
        over((1 << 20) + 1, 1, 1);
        over(1 << 20, 17, 1);
        over(1 << 20, 1, 17);
        assert!(with(Argon2Cost { memory_kib: 1 << 20, iterations: 16, lanes: 16 }).is_ok());
        for (m, t, p) in [(8, 0, 1), (8, 1, 0), (15, 1, 2)] {
            let cost = Argon2Cost { memory_kib: m, iterations: t, lanes: p };
            assert!(matches!(with(cost), Err(DecodeError::CorruptHeader(_))));
        }
    }

    #[test]
    fn chunk_words_accept_only_canonical_lengths() {
        let c = 1024;
        assert_eq!(parse_chunk_word(chunk_word(c, false), 3, c), Ok((c, false)));
        assert_eq!(parse_chunk_word(chunk_word(c, true), 3, c), Ok((c, true)));
        assert_eq!(parse_chunk_word(chunk_word(1, true), 3, c), Ok((1, true)));
        assert_eq!(parse_chunk_word(chunk_word(0, true), 0, c), Ok((0, true)));
        assert_eq!(parse_chunk_word(chunk_word(0, true), 1, c), Err(DecodeError::BadChunkLength(1)));
        assert_eq!(parse_chunk_word(chunk_word(c - 1, false), 2, c), Err(DecodeError::BadChunkLength(2)));
        assert_eq!(parse_chunk_word(chunk_word(c + 1, true), 2, c), Err(DecodeError::BadChunkLength(2)));
        assert_eq!(parse_chunk_word([0x40, 0, 4, 0], 2, c), Err(DecodeError::BadChunkLength(2)));
    }

    #[test]
    fn geometry_follows_from_the_payload_size() {
        let c = 1024;
        let slot = (c + CHUNK_OVERHEAD) as u64;
        assert_eq!(Geometry::of_file(HEADER_LEN as u64 + 19, HEADER_LEN, c), None);
        let empty = Geometry::of_file(HEADER_LEN as u64 + 20, HEADER_LEN, c).unwrap();
        assert_eq!((empty.final_index, empty.final_len, empty.plaintext_len()), (0, Some(0), Some(0)));
        let one = Geometry::of_file(HEADER_LEN as u64 + slot, HEADER_LEN, c).unwrap();
        assert_eq!((one.final_index, one.plaintext_len()), (0, Some(1024)));
        let many = Geometry::of_file(HEADER_LEN as u64 + 3 * slot + 20 + 5, HEADER_LEN, c).unwrap();
        assert_eq!((many.final_index, many.final_len, many.plaintext_len()), (3, Some(5), Some(3077)));
        assert_eq!(many.offset(2), 86 + 2 * slot);
        let torn =
            Geometry::of_file(HEADER_LEN as u64 + 2 * slot + 20 + c as u64 + 1, HEADER_LEN, c).unwrap();
        assert_eq!((torn.final_index, torn.final_len), (2, None));
    }

    #[test]
    fn nonce_is_an_11_byte_counter_and_a_flag() {
        assert_eq!(chunk_nonce(0, false), [0; 12]);
        assert_eq!(chunk_nonce(0x0102, true), [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 1]);
        assert_eq!(chunk_nonce(u64::MAX, false)[3..11], [0xff; 8]);
    }
}

//! One file's state, for its writer or its reader: the header, the payload
//! cipher and the header MAC that every chunk's associated data holds. Made
//! either from a secret and fresh salt (writing) or from the header bytes and
//! a secret, after the header MAC verified (reading).

use std::io::Read;

use crate::error::{DecodeError, Error};
use crate::format::HEADER_LEN as HEADER_LEN_V1;
use crate::format::{
    Algorithm, Argon2Cost, CHUNK_EXP_DEFAULT, CHUNK_EXP_MAX, CHUNK_EXP_MIN, Header, KeyMode, MAC_LEN,
    SALT_LEN,
};
use crate::keys::{PayloadCipher, Secret};

/// How a writer lays out a new file: the algorithm, the chunk size, the
/// passphrase cost (for a passphrase secret), and whether chunks are sealed on
/// all cores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    algorithm: Algorithm,
    chunk_exp: u8,
    cost: Argon2Cost,
    parallel: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            algorithm: Algorithm::default(),
            chunk_exp: CHUNK_EXP_DEFAULT,
            cost: Argon2Cost::DEFAULT,
            parallel: true,
        }
    }
}

impl Options {
    /// AES-256-GCM-SIV, 64 KiB chunks, Argon2id at RFC 9106's second
    /// recommended cost, all cores.
    pub fn new() -> Self {
        Self::default()
    }

    /// The AEAD of the chunks.
    pub fn algorithm(mut self, algorithm: Algorithm) -> Self {
        self.algorithm = algorithm;
        self
    }

    /// Plaintext bytes per chunk: a power of two from 1 KiB to 1 MiB.
    pub fn chunk_size(mut self, bytes: usize) -> Result<Self, Error> {
        let exp = bytes.trailing_zeros();
        if !bytes.is_power_of_two() || !(u32::from(CHUNK_EXP_MIN)..=u32::from(CHUNK_EXP_MAX)).contains(&exp) {
            return Err(Error::Invalid("the chunk size must be a power of two from 1 KiB to 1 MiB"));
        }
        self.chunk_exp = exp as u8;
        Ok(self)
    }

    /// The Argon2id cost recorded for a passphrase: within Argon2id's minimums
    /// and the format's caps (1 GiB, 16 passes, 16 lanes).
    pub fn argon2_cost(mut self, cost: Argon2Cost) -> Result<Self, Error> {
        cost.check().map_err(|_| {
            Error::Invalid(
                "Argon2id cost out of range: memory 8 x lanes to 1048576 KiB, 1 to 16 passes, 1 to 16 lanes",
            )
        })?;
        self.cost = cost;
        Ok(self)
    }

    /// Whether batches of chunks are sealed and opened on rayon's thread pool
    /// (the default), or all on the calling thread.
    pub fn parallel(mut self, parallel: bool) -> Self {
        self.parallel = parallel;
        self
    }

    /// Plaintext bytes per chunk.
    pub fn get_chunk_size(&self) -> usize {
        1 << self.chunk_exp
    }

    /// Whether chunks run on all cores.
    pub fn is_parallel(&self) -> bool {
        self.parallel
    }
}

/// What a file's writer or reader holds.
#[derive(Clone)]
pub(crate) struct Session {
    pub header: Header,
    /// Bytes of the header: where the first chunk starts.
    pub header_len: usize,
    pub cipher: Box<PayloadCipher>,
    pub header_mac: [u8; MAC_LEN],
}

impl Session {
    /// A new file's session and its header bytes: fresh salt, the secret's
    /// keys (Argon2id for a passphrase, a wrapped random file key for
    /// recipients) and the header MAC.
    pub fn create(secret: &Secret, options: &Options) -> Result<(Self, Vec<u8>), Error> {
        let mut salt = [0u8; SALT_LEN];
        getrandom::fill(&mut salt).map_err(|_| Error::Random)?;
        let mut header = Header {
            algorithm: options.algorithm,
            key_mode: secret.key_mode(options.cost),
            chunk_exp: options.chunk_exp,
            salt,
            stanzas: Vec::new(),
        };
        let keys = secret.new_file_keys(&mut header)?;
        let mut bytes = header.encode();
        let header_mac = gcmsiv::scrubbed(|| keys.header_mac(&bytes));
        bytes.extend_from_slice(&header_mac);
        Ok((Session { header_len: bytes.len(), header, cipher: keys.payload, header_mac }, bytes))
    }

    /// Reads and checks the header from the start of `input` (checks 1 to 6 of
    /// docs/FORMAT.md), consuming exactly its bytes.
    pub fn read(input: &mut impl Read, secret: &Secret) -> Result<Self, Error> {
        let mut head = Vec::with_capacity(HEADER_LEN_V1);
        loop {
            let need = Header::needed(&head)?;
            if need <= head.len() {
                break;
            }
            let have = head.len();
            head.resize(need, 0);
            let got = read_full(input, &mut head[have..]).map_err(Error::read)?;
            if got < need - have {
                head.truncate(have + got);
                // The checks in order: a truncated header, unless what arrived
                // is already wrong.
                return Err(Header::parse(&head).err().unwrap_or(DecodeError::TruncatedHeader).into());
            }
        }
        Self::from_header_bytes(&head, secret)
    }

    /// Checks 1 to 6 of docs/FORMAT.md on the first bytes of a file (the whole
    /// header, as [`Header::needed`] tells).
    pub fn from_header_bytes(head: &[u8], secret: &Secret) -> Result<Self, Error> {
        let (header, mac) = Header::parse(head)?;
        let keys = secret.file_keys(&header)?;
        let header_len = header.encoded_len();
        let fields = &head[..header_len - MAC_LEN];
        let verified = gcmsiv::scrubbed(|| keys.verify_header(fields, &mac));
        if !verified {
            return Err(match header.key_mode {
                KeyMode::Recipients => DecodeError::HeaderMac,
                KeyMode::Passphrase(_) => DecodeError::WrongKey { passphrase: true },
                KeyMode::KeyFile => DecodeError::WrongKey { passphrase: false },
            }
            .into());
        }
        Ok(Session { header_len, header, cipher: keys.payload, header_mac: mac })
    }

    /// Plaintext bytes in every chunk but the final one.
    pub fn chunk_size(&self) -> usize {
        self.header.chunk_size()
    }
}

/// Fills `buf` from `input` until it is full or the input ends; returns the count.
pub fn read_full(input: &mut (impl Read + ?Sized), buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

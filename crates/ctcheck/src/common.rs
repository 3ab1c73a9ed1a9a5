//! What both checks share: one interface over the two key sizes of each mode
//! (AES-GCM-SIV with its batches, AES-GCM with GMAC), the list of backends, and
//! a small random generator (the checks need unpredictable classes and inputs,
//! not cryptographic randomness).

use gcmsiv::{
    Aes128Gcm, Aes128GcmSiv, Aes128Gmac, Aes256Gcm, Aes256GcmSiv, Aes256Gmac, Backend, BatchItem, Error, Tag,
};

/// The detached in-place and batch API of one AES-GCM-SIV key size.
pub trait Cipher: Sized {
    /// "AES-128-GCM-SIV" or "AES-256-GCM-SIV".
    const NAME: &'static str;
    /// Key length in bytes.
    const KEY_LEN: usize;
    /// A cipher for `key` (exactly `KEY_LEN` bytes) on `backend`.
    fn with_backend(key: &[u8], backend: Backend) -> Result<Self, Error>;
    /// `encrypt_in_place_detached`.
    fn seal(&self, nonce: &[u8; 12], aad: &[u8], buffer: &mut [u8]) -> Result<[u8; 16], Error>;
    /// `decrypt_in_place_detached`.
    fn open(&self, nonce: &[u8; 12], aad: &[u8], buffer: &mut [u8], tag: &[u8; 16]) -> Result<(), Error>;
    /// `encrypt_batch`.
    fn seal_batch(&self, items: &mut [BatchItem<'_>]) -> Result<(), Error>;
    /// `decrypt_batch`.
    fn open_batch(&self, items: &mut [BatchItem<'_>], results: &mut [Result<(), Error>])
    -> Result<(), Error>;
}

macro_rules! impl_cipher {
    ($ty:ident, $name:literal) => {
        impl Cipher for $ty {
            const NAME: &'static str = $name;
            const KEY_LEN: usize = $ty::KEY_LEN;
            fn with_backend(key: &[u8], backend: Backend) -> Result<Self, Error> {
                let key = key
                    .try_into()
                    .map_err(|_| Error::InvalidKeyLength { expected: $ty::KEY_LEN, actual: key.len() })?;
                $ty::with_backend(key, backend)
            }
            fn seal(&self, nonce: &[u8; 12], aad: &[u8], buffer: &mut [u8]) -> Result<[u8; 16], Error> {
                self.encrypt_in_place_detached(nonce, aad, buffer)
            }
            fn open(
                &self,
                nonce: &[u8; 12],
                aad: &[u8],
                buffer: &mut [u8],
                tag: &[u8; 16],
            ) -> Result<(), Error> {
                self.decrypt_in_place_detached(nonce, aad, buffer, tag)
            }
            fn seal_batch(&self, items: &mut [BatchItem<'_>]) -> Result<(), Error> {
                self.encrypt_batch(items)
            }
            fn open_batch(
                &self,
                items: &mut [BatchItem<'_>],
                results: &mut [Result<(), Error>],
            ) -> Result<(), Error> {
                self.decrypt_batch(items, results)
            }
        }
    };
}

impl_cipher!(Aes128GcmSiv, "AES-128-GCM-SIV");
impl_cipher!(Aes256GcmSiv, "AES-256-GCM-SIV");

/// The detached in-place API of one AES-GCM key size, and its GMAC.
pub trait GcmCipher: Sized {
    /// "AES-128-GCM" or "AES-256-GCM".
    const NAME: &'static str;
    /// "AES-128-GMAC" or "AES-256-GMAC".
    const MAC_NAME: &'static str;
    /// Key length in bytes.
    const KEY_LEN: usize;
    /// The GMAC type of this key size.
    type Mac: Mac;
    /// A cipher for `key` (exactly `KEY_LEN` bytes) with `tag_len`-byte tags on
    /// `backend`.
    fn with_backend(key: &[u8], tag_len: usize, backend: Backend) -> Result<Self, Error>;
    /// `encrypt_in_place_detached`.
    fn seal(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8]) -> Result<Tag, Error>;
    /// `decrypt_in_place_detached`.
    fn open(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8], tag: &[u8]) -> Result<(), Error>;
    /// GMAC around this key (`from_gcm`).
    fn into_mac(self) -> Self::Mac;
}

/// GMAC: `compute` and `verify`.
pub trait Mac {
    /// `compute`.
    fn compute(&self, nonce: &[u8], data: &[u8]) -> Result<Tag, Error>;
    /// `verify`.
    fn verify(&self, nonce: &[u8], data: &[u8], tag: &[u8]) -> Result<(), Error>;
}

macro_rules! impl_gcm {
    ($ty:ident, $mac:ident, $name:literal, $mac_name:literal) => {
        impl GcmCipher for $ty {
            const NAME: &'static str = $name;
            const MAC_NAME: &'static str = $mac_name;
            const KEY_LEN: usize = $ty::KEY_LEN;
            type Mac = $mac;
            fn with_backend(key: &[u8], tag_len: usize, backend: Backend) -> Result<Self, Error> {
                let key = key
                    .try_into()
                    .map_err(|_| Error::InvalidKeyLength { expected: $ty::KEY_LEN, actual: key.len() })?;
                // 4- and 8-byte tags through the constructor named for the hazard.
                if tag_len == 4 || tag_len == 8 {
                    $ty::with_backend_short_tag_hazardous(key, tag_len, backend)
                } else {
                    $ty::with_backend(key, tag_len, backend)
                }
            }
            fn seal(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8]) -> Result<Tag, Error> {
                self.encrypt_in_place_detached(nonce, aad, buffer)
            }
            fn open(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8], tag: &[u8]) -> Result<(), Error> {
                self.decrypt_in_place_detached(nonce, aad, buffer, tag)
            }
            fn into_mac(self) -> $mac {
                $mac::from_gcm(self)
            }
        }

        impl Mac for $mac {
            fn compute(&self, nonce: &[u8], data: &[u8]) -> Result<Tag, Error> {
                $mac::compute(self, nonce, data)
            }
            fn verify(&self, nonce: &[u8], data: &[u8], tag: &[u8]) -> Result<(), Error> {
                $mac::verify(self, nonce, data, tag)
            }
        }
    };
}

impl_gcm!(Aes128Gcm, Aes128Gmac, "AES-128-GCM", "AES-128-GMAC");
impl_gcm!(Aes256Gcm, Aes256Gmac, "AES-256-GCM", "AES-256-GMAC");

/// Every backend this CPU can run, portable first.
pub fn backends() -> Vec<Backend> {
    Backend::available().into_iter().flatten().collect()
}

/// xoshiro256** (Blackman, Vigna), seeded through SplitMix64.
pub struct Rng([u64; 4]);

impl Rng {
    /// A generator whose whole sequence follows from `seed`.
    pub fn from_seed(seed: u64) -> Self {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        Rng([next(), next(), next(), next()])
    }

    /// A generator seeded from the clock and address-space layout.
    pub fn from_entropy() -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        let local = 0u8;
        let addr = &local as *const u8 as u64;
        Self::from_seed(nanos ^ addr.rotate_left(32) ^ u64::from(std::process::id()))
    }

    /// 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.0;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Fills `out` with random bytes.
    pub fn fill(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(8) {
            chunk.copy_from_slice(&self.next_u64().to_le_bytes()[..chunk.len()]);
        }
    }

    /// `N` random bytes.
    pub fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        self.fill(&mut out);
        out
    }

    /// A random byte other than zero.
    pub fn nonzero_byte(&mut self) -> u8 {
        loop {
            let b = self.next_u64() as u8;
            if b != 0 {
                return b;
            }
        }
    }
}

/// A deliberately variable-time tag comparison: returns at the first byte that
/// differs, like a naive `memcmp`. Both self-tests use it to show that the
/// checks catch a leak. `black_box` keeps the compiler from turning the loop
/// into a branch-free vector compare.
#[inline(never)]
pub fn leaky_tag_eq(a: &[u8; 16], b: &[u8; 16]) -> bool {
    for (x, y) in a.iter().zip(b) {
        if std::hint::black_box(*x) != std::hint::black_box(*y) {
            return false;
        }
    }
    true
}

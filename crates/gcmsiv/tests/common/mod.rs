//! Shared test support: the generic vector-file reader and the backend list.
#![allow(dead_code)]

use gcmsiv::Backend;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// The vector folder: `$GCMSIV_VECTORS`, or the repository's `vectors/`.
pub fn vectors_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("GCMSIV_VECTORS") {
        return PathBuf::from(dir);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

/// Parses one vector file. A missing file fails the test: vectors are not optional.
pub fn load(name: &str) -> Value {
    let path = vectors_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {} ({e}); set GCMSIV_VECTORS", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One vector: fields are read through it, and every field must be read or
/// explicitly ignored before it is dropped (so a new field is never skipped silently).
pub struct Record {
    pub name: String,
    fields: Map<String, Value>,
    used: RefCell<BTreeSet<String>>,
}

impl Record {
    pub fn new(name: impl Into<String>, value: &Value) -> Self {
        let fields = value.as_object().expect("vector is an object").clone();
        Record { name: name.into(), fields, used: RefCell::new(BTreeSet::new()) }
    }

    fn get(&self, key: &str) -> &Value {
        self.used.borrow_mut().insert(key.to_string());
        self.fields.get(key).unwrap_or_else(|| panic!("{}: no field {key}", self.name))
    }

    pub fn has(&self, key: &str) -> bool {
        self.fields.contains_key(key)
    }

    pub fn hex(&self, key: &str) -> Vec<u8> {
        let s = self.get(key).as_str().unwrap_or_else(|| panic!("{}: {key} is not a string", self.name));
        hex::decode(s).unwrap_or_else(|e| panic!("{}: {key}: {e}", self.name))
    }

    pub fn opt_hex(&self, key: &str) -> Option<Vec<u8>> {
        match self.get(key) {
            Value::Null => None,
            _ => Some(self.hex(key)),
        }
    }

    pub fn str(&self, key: &str) -> String {
        self.get(key).as_str().unwrap_or_else(|| panic!("{}: {key} is not a string", self.name)).to_string()
    }

    pub fn u64(&self, key: &str) -> u64 {
        self.get(key).as_u64().unwrap_or_else(|| panic!("{}: {key} is not a number", self.name))
    }

    pub fn value(&self, key: &str) -> Value {
        self.get(key).clone()
    }

    /// Marks fields as deliberately unused (descriptive ones such as comments).
    pub fn ignore(&self, keys: &[&str]) {
        for k in keys {
            if self.fields.contains_key(*k) {
                self.used.borrow_mut().insert(k.to_string());
            }
        }
    }
}

impl Drop for Record {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        let used = self.used.borrow();
        let unused: Vec<_> = self.fields.keys().filter(|k| !used.contains(*k)).collect();
        assert!(unused.is_empty(), "{}: fields never checked: {unused:?}", self.name);
    }
}

/// The records of an array field of a file.
pub fn records(file: &Value, field: &str, id_key: &str) -> Vec<Record> {
    file[field]
        .as_array()
        .unwrap_or_else(|| panic!("no array {field}"))
        .iter()
        .map(|v| {
            let id = v.get(id_key).map(|i| i.to_string()).unwrap_or_default();
            Record::new(format!("{field}/{id}"), v)
        })
        .collect()
}

/// Whether the tests run under an emulator (qemu running another
/// architecture's build): `GCMSIV_EMULATED=1`, which `scripts/test-cross.sh`
/// and CI set. A case costs tens of times more there, so tests that loop over
/// many take fewer; the environment says so rather than the target, since the
/// same target also runs natively.
pub fn emulated() -> bool {
    std::env::var_os("GCMSIV_EMULATED").is_some_and(|v| v == "1")
}

/// Every backend this machine can run; tests loop over all of them.
pub fn backends() -> Vec<Backend> {
    let all: Vec<Backend> = Backend::available().into_iter().flatten().collect();
    assert!(all.contains(&Backend::Portable));
    all
}

/// The AES-GCM-SIV ciphers of both key sizes behind one interface, for tests
/// that run the same checks on both.
#[allow(clippy::large_enum_variant)]
pub enum Siv {
    A128(gcmsiv::Aes128GcmSiv),
    A256(gcmsiv::Aes256GcmSiv),
}

impl Siv {
    pub fn new(key: &[u8], backend: Backend) -> Self {
        match key.len() {
            16 => Siv::A128(gcmsiv::Aes128GcmSiv::with_backend(key.try_into().unwrap(), backend).unwrap()),
            32 => Siv::A256(gcmsiv::Aes256GcmSiv::with_backend(key.try_into().unwrap(), backend).unwrap()),
            n => panic!("key length {n}"),
        }
    }

    /// The same key with every message forced onto the all-cores path.
    #[cfg(feature = "parallel")]
    pub fn all_cores(self) -> Self {
        match self {
            Siv::A128(c) => Siv::A128(c.with_parallel_threshold(Some(0))),
            Siv::A256(c) => Siv::A256(c.with_parallel_threshold(Some(0))),
        }
    }

    /// Both ways to run each backend: one core, and (with the `parallel`
    /// feature) all cores.
    pub fn variants(key: &[u8], backend: Backend) -> Vec<(String, Self)> {
        let mut v = vec![(format!("{backend:?}"), Siv::new(key, backend))];
        #[cfg(feature = "parallel")]
        v.push((format!("{backend:?} all cores"), Siv::new(key, backend).all_cores()));
        v
    }

    pub fn encrypt(&self, nonce: &[u8; 12], aad: &[u8], pt: &[u8]) -> Result<Vec<u8>, gcmsiv::Error> {
        match self {
            Siv::A128(c) => c.encrypt(nonce, aad, pt),
            Siv::A256(c) => c.encrypt(nonce, aad, pt),
        }
    }

    pub fn decrypt(&self, nonce: &[u8; 12], aad: &[u8], ct: &[u8]) -> Result<Vec<u8>, gcmsiv::Error> {
        match self {
            Siv::A128(c) => c.decrypt(nonce, aad, ct),
            Siv::A256(c) => c.decrypt(nonce, aad, ct),
        }
    }

    pub fn encrypt_in_place_detached(
        &self,
        nonce: &[u8; 12],
        aad: &[u8],
        buf: &mut [u8],
    ) -> Result<[u8; 16], gcmsiv::Error> {
        match self {
            Siv::A128(c) => c.encrypt_in_place_detached(nonce, aad, buf),
            Siv::A256(c) => c.encrypt_in_place_detached(nonce, aad, buf),
        }
    }

    pub fn decrypt_in_place_detached(
        &self,
        nonce: &[u8; 12],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8; 16],
    ) -> Result<(), gcmsiv::Error> {
        match self {
            Siv::A128(c) => c.decrypt_in_place_detached(nonce, aad, buf, tag),
            Siv::A256(c) => c.decrypt_in_place_detached(nonce, aad, buf, tag),
        }
    }

    pub fn encrypt_into(
        &self,
        nonce: &[u8; 12],
        aad: &[u8],
        pt: &[u8],
        out: &mut [u8],
    ) -> Result<usize, gcmsiv::Error> {
        match self {
            Siv::A128(c) => c.encrypt_into(nonce, aad, pt, out),
            Siv::A256(c) => c.encrypt_into(nonce, aad, pt, out),
        }
    }

    pub fn decrypt_into(
        &self,
        nonce: &[u8; 12],
        aad: &[u8],
        ct: &[u8],
        out: &mut [u8],
    ) -> Result<usize, gcmsiv::Error> {
        match self {
            Siv::A128(c) => c.decrypt_into(nonce, aad, ct, out),
            Siv::A256(c) => c.decrypt_into(nonce, aad, ct, out),
        }
    }
}

/// Message lengths that end inside the 512-bit passes (CPUs with AVX-512)
/// with every tail: each length after four whole 256-byte chunks (1024 to
/// 1300 bytes), and the tails at the boundaries of the masked last chunk
/// (more than 176 bytes; from 241, sixteen blocks, no room is left for the
/// length block) after 8, 32 and 129 chunks.
pub fn wide_tail_lengths() -> Vec<usize> {
    (1024..=1300)
        .chain(
            [127, 128, 129, 143, 144, 176, 177, 200, 239, 240, 241, 254, 255]
                .iter()
                .flat_map(|r| [2048 + r, 8192 + r, 33024 + r]),
        )
        .collect()
}

/// A deterministic byte pattern for bulk tests.
pub fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 8) as u8).collect()
}

/// The AES-GCM ciphers of both key sizes behind one interface.
#[allow(clippy::large_enum_variant)]
pub enum Gcm {
    A128(gcmsiv::Aes128Gcm),
    A256(gcmsiv::Aes256Gcm),
}

impl Gcm {
    /// Any tag length the crate offers: 4 and 8 bytes through the hazardous
    /// constructors.
    pub fn new(key: &[u8], tag_len: usize, backend: Backend) -> Self {
        let short = tag_len == 4 || tag_len == 8;
        match key.len() {
            16 => {
                let key = key.try_into().unwrap();
                Gcm::A128(if short {
                    gcmsiv::Aes128Gcm::with_backend_short_tag_hazardous(key, tag_len, backend).unwrap()
                } else {
                    gcmsiv::Aes128Gcm::with_backend(key, tag_len, backend).unwrap()
                })
            }
            32 => {
                let key = key.try_into().unwrap();
                Gcm::A256(if short {
                    gcmsiv::Aes256Gcm::with_backend_short_tag_hazardous(key, tag_len, backend).unwrap()
                } else {
                    gcmsiv::Aes256Gcm::with_backend(key, tag_len, backend).unwrap()
                })
            }
            n => panic!("key length {n}"),
        }
    }

    pub fn encrypt(&self, nonce: &[u8], aad: &[u8], pt: &[u8]) -> Result<Vec<u8>, gcmsiv::Error> {
        match self {
            Gcm::A128(c) => c.encrypt(nonce, aad, pt),
            Gcm::A256(c) => c.encrypt(nonce, aad, pt),
        }
    }

    pub fn decrypt(&self, nonce: &[u8], aad: &[u8], ct: &[u8]) -> Result<Vec<u8>, gcmsiv::Error> {
        match self {
            Gcm::A128(c) => c.decrypt(nonce, aad, ct),
            Gcm::A256(c) => c.decrypt(nonce, aad, ct),
        }
    }

    pub fn encrypt_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
    ) -> Result<Vec<u8>, gcmsiv::Error> {
        match self {
            Gcm::A128(c) => c.encrypt_in_place_detached(nonce, aad, buf).map(|t| t.as_bytes().to_vec()),
            Gcm::A256(c) => c.encrypt_in_place_detached(nonce, aad, buf).map(|t| t.as_bytes().to_vec()),
        }
    }

    pub fn decrypt_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), gcmsiv::Error> {
        match self {
            Gcm::A128(c) => c.decrypt_in_place_detached(nonce, aad, buf, tag),
            Gcm::A256(c) => c.decrypt_in_place_detached(nonce, aad, buf, tag),
        }
    }

    pub fn encrypt_into(
        &self,
        nonce: &[u8],
        aad: &[u8],
        pt: &[u8],
        out: &mut [u8],
    ) -> Result<usize, gcmsiv::Error> {
        match self {
            Gcm::A128(c) => c.encrypt_into(nonce, aad, pt, out),
            Gcm::A256(c) => c.encrypt_into(nonce, aad, pt, out),
        }
    }

    pub fn decrypt_into(
        &self,
        nonce: &[u8],
        aad: &[u8],
        ct: &[u8],
        out: &mut [u8],
    ) -> Result<usize, gcmsiv::Error> {
        match self {
            Gcm::A128(c) => c.decrypt_into(nonce, aad, ct, out),
            Gcm::A256(c) => c.decrypt_into(nonce, aad, ct, out),
        }
    }
}

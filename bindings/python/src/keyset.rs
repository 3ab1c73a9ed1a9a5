//! `gcmsiv.Keyset`: Tink keysets (the `gcmsiv-keyset` crate), read and written
//! in Tink's JSON and binary formats, in the clear only where the caller names
//! it, rotated, and used to encrypt and decrypt as Tink's AEAD primitive does.

use std::path::PathBuf;

use gcmsiv_keyset::{Format, Keyset, Template, key_file_kek};
use gcmsiv_stream::MasterKey;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::InvalidTag;
use crate::buffer::ByteView;

/// A keyset error as Python's: a ciphertext no key opens is `InvalidTag` (its
/// message names the key when the ciphertext's key is disabled or missing);
/// every other failure, `ValueError`.
fn error(err: gcmsiv_keyset::Error) -> PyErr {
    use gcmsiv_keyset::Error as E;
    match err {
        E::Authentication | E::KeyNotEnabled { .. } | E::KeyNotFound { .. } => {
            InvalidTag::new_err(err.to_string())
        }
        other => PyValueError::new_err(other.to_string()),
    }
}

fn template(name: &str) -> PyResult<Template> {
    Template::from_tink_name(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown template {name:?}: AES128_GCM_SIV, AES256_GCM_SIV, AES128_GCM, AES256_GCM, each optionally _RAW"
        ))
    })
}

/// The key-encryption key of an encrypted keyset: a key file's (as `gcmsiv
/// keyset --master-key`), or the 32 bytes of an AES-256-GCM-SIV key (as Tink's
/// `AES256_GCM_SIV_RAW` key-encryption keyset).
fn kek(master_key: Option<ByteView<'_>>, master_key_file: Option<PathBuf>) -> PyResult<gcmsiv::Aes256GcmSiv> {
    match (master_key, master_key_file) {
        (Some(key), None) => {
            if key.len() != 32 {
                return Err(PyValueError::new_err("master_key must be 32 bytes (an AES-256-GCM-SIV key)"));
            }
            let mut bytes = zeroize::Zeroizing::new([0u8; 32]);
            key.copy_to(0, &mut bytes[..]);
            Ok(gcmsiv::Aes256GcmSiv::new(&bytes))
        }
        (None, Some(path)) => {
            let key =
                MasterKey::load(&path).map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?;
            Ok(key_file_kek(key.as_bytes()))
        }
        _ => Err(PyValueError::new_err("give exactly one of master_key and master_key_file")),
    }
}

/// A Tink keyset of AES-GCM-SIV and AES-GCM keys: one primary key encrypts,
/// every enabled key decrypts what it encrypted, found by the ciphertext's
/// 5-byte prefix (and RAW keys by trial), so keys rotate without re-encrypting
/// old data. Cleartext keysets only through the ``*_cleartext_*`` methods; the
/// others are encrypted under a master key.
#[pyclass(module = "gcmsiv", name = "Keyset", frozen)]
pub struct PyKeyset(std::sync::RwLock<Keyset>);

impl PyKeyset {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, Keyset> {
        self.0.read().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Keyset> {
        self.0.write().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[pymethods]
impl PyKeyset {
    /// A new keyset of one key made from Tink's template of that name
    /// (``"AES256_GCM_SIV"``, ``"AES128_GCM_RAW"``, ...), its primary.
    #[staticmethod]
    #[pyo3(signature = (template_name = "AES256_GCM_SIV"))]
    fn generate(template_name: &str) -> PyResult<Self> {
        Ok(PyKeyset(std::sync::RwLock::new(Keyset::generate(template(template_name)?).map_err(error)?)))
    }

    /// A keyset from Tink's cleartext JSON (``CleartextKeysetHandle``'s).
    #[staticmethod]
    fn from_tink_json(text: &str) -> PyResult<Self> {
        Ok(PyKeyset(std::sync::RwLock::new(Keyset::from_cleartext_json(text).map_err(error)?)))
    }

    /// A keyset from Tink's cleartext binary (protobuf) form.
    #[staticmethod]
    fn from_tink_binary(data: ByteView<'_>) -> PyResult<Self> {
        let bytes = zeroize::Zeroizing::new(data.snapshot().into_owned());
        Ok(PyKeyset(std::sync::RwLock::new(Keyset::from_cleartext(&bytes, Format::Binary).map_err(error)?)))
    }

    /// A keyset from Tink's ``EncryptedKeyset`` (JSON or binary, told apart by
    /// its first byte), encrypted under ``master_key`` (32 bytes) or the key of
    /// ``master_key_file`` (a gcmsiv key file).
    #[staticmethod]
    #[pyo3(signature = (data, *, master_key = None, master_key_file = None))]
    fn from_encrypted(
        data: ByteView<'_>,
        master_key: Option<ByteView<'_>>,
        master_key_file: Option<PathBuf>,
    ) -> PyResult<Self> {
        let kek = kek(master_key, master_key_file)?;
        let bytes = data.snapshot();
        let keyset = Keyset::from_encrypted(&bytes, Format::detect(&bytes), &kek, b"").map_err(error)?;
        Ok(PyKeyset(std::sync::RwLock::new(keyset)))
    }

    /// Tink's cleartext JSON of this keyset: its keys in the clear.
    fn to_tink_json(&self) -> String {
        self.read().to_cleartext_json().to_string()
    }

    /// Tink's cleartext binary form: its keys in the clear.
    fn to_tink_binary<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.read().to_cleartext_binary())
    }

    /// Tink's ``EncryptedKeyset`` of this keyset, as JSON (``binary=False``) or
    /// binary, under ``master_key`` or ``master_key_file``.
    #[pyo3(signature = (*, master_key = None, master_key_file = None, binary = false))]
    fn to_encrypted<'py>(
        &self,
        py: Python<'py>,
        master_key: Option<ByteView<'_>>,
        master_key_file: Option<PathBuf>,
        binary: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let kek = kek(master_key, master_key_file)?;
        let format = if binary { Format::Binary } else { Format::Json };
        let out = self.read().to_encrypted(format, &kek, b"").map_err(error)?;
        Ok(PyBytes::new(py, &out))
    }

    /// Encrypts with the primary key: its prefix, a random nonce, the
    /// ciphertext and the tag, as Tink's AEAD primitive writes them.
    #[pyo3(signature = (plaintext, associated_data = None))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        plaintext: ByteView<'_>,
        associated_data: Option<ByteView<'_>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (pt, ad) =
            (plaintext.snapshot(), associated_data.map(|a| a.snapshot().into_owned()).unwrap_or_default());
        let out = self.read().encrypt(&pt, &ad).map_err(error)?;
        Ok(PyBytes::new(py, &out))
    }

    /// Decrypts what any enabled key of the keyset encrypted; ``InvalidTag``
    /// otherwise (naming the key when the ciphertext's key is disabled or gone).
    #[pyo3(signature = (ciphertext, associated_data = None))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        ciphertext: ByteView<'_>,
        associated_data: Option<ByteView<'_>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (ct, ad) =
            (ciphertext.snapshot(), associated_data.map(|a| a.snapshot().into_owned()).unwrap_or_default());
        let out = zeroize::Zeroizing::new(self.read().decrypt(&ct, &ad).map_err(error)?);
        Ok(PyBytes::new(py, &out))
    }

    /// Adds a key made from the template of that name; returns its id.
    #[pyo3(signature = (template_name = "AES256_GCM_SIV"))]
    fn add(&self, template_name: &str) -> PyResult<u32> {
        self.write().add(template(template_name)?).map_err(error)
    }

    /// Makes an enabled key the primary, the one that encrypts.
    fn set_primary(&self, key_id: u32) -> PyResult<()> {
        self.write().set_primary(key_id).map_err(error)
    }

    /// Disables a key (not the primary): it decrypts nothing until enabled again.
    fn disable(&self, key_id: u32) -> PyResult<()> {
        self.write().disable(key_id).map_err(error)
    }

    /// Enables a disabled key again.
    fn enable(&self, key_id: u32) -> PyResult<()> {
        self.write().enable(key_id).map_err(error)
    }

    /// Destroys a key's material (wiped); its id stays, marked destroyed.
    fn destroy(&self, key_id: u32) -> PyResult<()> {
        self.write().destroy(key_id).map_err(error)
    }

    /// Removes a key from the keyset altogether.
    fn delete(&self, key_id: u32) -> PyResult<()> {
        self.write().delete(key_id).map_err(error)
    }

    /// The primary key's id.
    #[getter]
    fn primary_key_id(&self) -> u32 {
        self.read().primary_key_id()
    }

    /// Each key's ``(key_id, status, output_prefix, algorithm, is_primary)``:
    /// status ``"ENABLED"``, ``"DISABLED"`` or ``"DESTROYED"``; prefix ``"TINK"``,
    /// ``"LEGACY"``, ``"CRUNCHY"`` or ``"RAW"``; algorithm ``None`` once destroyed.
    fn keys(&self) -> Vec<(u32, String, String, Option<String>, bool)> {
        self.read()
            .keys()
            .into_iter()
            .map(|k| {
                (
                    k.key_id,
                    k.status.tink_name().to_owned(),
                    k.prefix.tink_name().to_owned(),
                    k.algorithm.map(|a| format!("{a:?}")),
                    k.is_primary,
                )
            })
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "<gcmsiv.Keyset of {} keys, primary {}>",
            self.read().keys().len(),
            self.read().primary_key_id()
        )
    }
}

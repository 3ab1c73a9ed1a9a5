//! The RustCrypto `aead` traits (feature `aead`), so code written against the
//! `aes-gcm-siv` crate runs unchanged on this one.

use crate::{Aes128Gcm, Aes128GcmSiv, Aes256Gcm, Aes256GcmSiv};
use aead::consts::{U12, U16, U32};
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, Nonce, Tag, TagPosition};

/// Whether a key makes the 16-byte tags the traits fix.
trait FullTags {
    fn full_tags(&self) -> bool;
}

impl FullTags for Aes128GcmSiv {
    fn full_tags(&self) -> bool {
        true
    }
}

impl FullTags for Aes256GcmSiv {
    fn full_tags(&self) -> bool {
        true
    }
}

impl FullTags for Aes128Gcm {
    fn full_tags(&self) -> bool {
        self.tag_len() == 16
    }
}

impl FullTags for Aes256Gcm {
    fn full_tags(&self) -> bool {
        self.tag_len() == 16
    }
}

macro_rules! aead_traits {
    ($name:ident, $key_size:ty) => {
        impl KeySizeUser for $name {
            type KeySize = $key_size;
        }

        impl KeyInit for $name {
            fn new(key: &Key<Self>) -> Self {
                $name::new(&key.0)
            }
        }

        impl AeadCore for $name {
            type NonceSize = U12;
            type TagSize = U16;
            const TAG_POSITION: TagPosition = TagPosition::Postfix;
        }

        impl AeadInOut for $name {
            fn encrypt_inout_detached(
                &self,
                nonce: &Nonce<Self>,
                associated_data: &[u8],
                buffer: InOutBuf<'_, '_, u8>,
            ) -> aead::Result<Tag<Self>> {
                // A GCM key made with a shorter tag is refused before any work
                // (the traits' tag size is fixed at 16): encrypting first would
                // leave ciphertext in a buffer the caller believes untouched.
                if !self.full_tags() {
                    return Err(aead::Error);
                }
                let buffer = buffer.into_out_with_copied_in();
                let tag = self
                    .encrypt_in_place_detached(&nonce.0, associated_data, buffer)
                    .map_err(|_| aead::Error)?;
                Tag::<Self>::try_from(tag.as_ref()).map_err(|_| aead::Error)
            }

            fn decrypt_inout_detached(
                &self,
                nonce: &Nonce<Self>,
                associated_data: &[u8],
                buffer: InOutBuf<'_, '_, u8>,
                tag: &Tag<Self>,
            ) -> aead::Result<()> {
                if !self.full_tags() {
                    return Err(aead::Error);
                }
                let buffer = buffer.into_out_with_copied_in();
                self.decrypt_in_place_detached(&nonce.0, associated_data, buffer, &tag.0)
                    .map_err(|_| aead::Error)
            }
        }
    };
}

aead_traits!(Aes128GcmSiv, U16);
aead_traits!(Aes256GcmSiv, U32);
// AES-GCM with 12-byte nonces and 16-byte tags, as the `aes-gcm` crate's
// `Aes128Gcm`/`Aes256Gcm`. A key made with a shorter tag refuses these traits
// (every call returns `aead::Error`).
aead_traits!(Aes128Gcm, U16);
aead_traits!(Aes256Gcm, U32);

#[cfg(test)]
mod tests {
    use super::*;
    use aead::Aead;

    #[test]
    fn drop_in_for_aes_gcm_siv() {
        let key = Key::<Aes256GcmSiv>::from([3u8; 32]);
        let ours = <Aes256GcmSiv as KeyInit>::new(&key);
        let theirs = <aes_gcm_siv::Aes256GcmSiv as aes_gcm_siv::KeyInit>::new(&key);
        let nonce = Nonce::<Aes256GcmSiv>::from([9u8; 12]);
        let sealed = Aead::encrypt(&ours, &nonce, &b"message"[..]).unwrap();
        assert_eq!(sealed, Aead::encrypt(&theirs, &nonce, &b"message"[..]).unwrap());
        assert_eq!(Aead::decrypt(&ours, &nonce, sealed.as_slice()).unwrap(), b"message");
        let mut bad = sealed.clone();
        bad[0] ^= 1;
        assert!(Aead::decrypt(&ours, &nonce, bad.as_slice()).is_err());

        let gcm = <Aes128Gcm as KeyInit>::new(&Key::<Aes128Gcm>::from([5u8; 16]));
        let theirs = <aes_gcm::Aes128Gcm as aes_gcm::KeyInit>::new(&Key::<Aes128Gcm>::from([5u8; 16]));
        let n = Nonce::<Aes128Gcm>::from([1u8; 12]);
        assert_eq!(
            Aead::encrypt(&gcm, &n, &b"gcm"[..]).unwrap(),
            Aead::encrypt(&theirs, &n, &b"gcm"[..]).unwrap()
        );

        let mut buf = std::vec::Vec::from(&b"in place"[..]);
        let k128 = <Aes128GcmSiv as KeyInit>::new_from_slice(&[1u8; 16]).unwrap();
        k128.encrypt_in_place(&nonce, b"ad", &mut buf).unwrap();
        k128.decrypt_in_place(&nonce, b"ad", &mut buf).unwrap();
        assert_eq!(buf, b"in place");

        // A failed open in place leaves the buffer as the `aes-gcm-siv` crate
        // does: the ciphertext again, not plaintext.
        let theirs128 =
            <aes_gcm_siv::Aes128GcmSiv as aes_gcm_siv::KeyInit>::new_from_slice(&[1u8; 16]).unwrap();
        k128.encrypt_in_place(&nonce, b"ad", &mut buf).unwrap();
        let tampered = buf.clone();
        let mut theirs_buf = buf.clone();
        assert!(k128.decrypt_in_place(&nonce, b"AD", &mut buf).is_err());
        assert!(aead::AeadInOut::decrypt_in_place(&theirs128, &nonce, b"AD", &mut theirs_buf).is_err());
        assert_eq!(buf, tampered);
        assert_eq!(buf, theirs_buf);

        // A GCM key with 12-byte tags refuses the traits before touching the buffer.
        let short = Aes128Gcm::with_tag_len(&[5u8; 16], 12).unwrap();
        let secret = b"top secret, and longer than a tag";
        let mut buf = std::vec::Vec::from(&secret[..]);
        assert!(short.encrypt_in_place(&n, b"", &mut buf).is_err());
        assert_eq!(buf, secret);
        assert!(short.decrypt_in_place(&n, b"", &mut buf).is_err());
        assert_eq!(buf, secret);
    }
}

//! The RustCrypto `aead` traits (feature `aead`), so code written against the
//! `aes-gcm-siv` crate runs unchanged on this one.

use crate::{Aes128Gcm, Aes128GcmSiv, Aes256Gcm, Aes256GcmSiv};
use aead::consts::{U12, U16, U32};
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, Nonce, Tag, TagPosition};

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
                let buffer = buffer.into_out_with_copied_in();
                let tag = self
                    .encrypt_in_place_detached(&nonce.0, associated_data, buffer)
                    .map_err(|_| aead::Error)?;
                // A GCM key made with a shorter tag fails here: the traits'
                // tag size is fixed at 16.
                Tag::<Self>::try_from(tag.as_ref()).map_err(|_| aead::Error)
            }

            fn decrypt_inout_detached(
                &self,
                nonce: &Nonce<Self>,
                associated_data: &[u8],
                buffer: InOutBuf<'_, '_, u8>,
                tag: &Tag<Self>,
            ) -> aead::Result<()> {
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
    }
}

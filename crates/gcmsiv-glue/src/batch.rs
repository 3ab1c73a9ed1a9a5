//! Many messages in one call, each sealed or opened in place, for the
//! bindings' batch calls. AES-GCM-SIV keys go through [`Cipher`]'s batch
//! path (several messages' set-up interleaved). AES-GCM keys go one message
//! at a time here, not through [`Cipher::encrypt_batch`]: a [`BatchItem`]
//! holds a 12-byte nonce, and the bindings take GCM nonces of other lengths.

use gcmsiv::{BatchItem, Cipher, Error, NONCE_LEN, TAG_LEN};

/// One message of a batch, its body sealed or opened in place.
pub struct Message<'a> {
    /// This message's nonce.
    pub nonce: &'a [u8],
    /// This message's associated data.
    pub aad: &'a [u8],
    /// Plaintext in and ciphertext out when sealing; the reverse when opening.
    pub body: &'a mut [u8],
    /// [`Cipher::tag_len`] bytes: written by sealing, read by opening.
    pub tag: &'a mut [u8],
}

/// Refuses a tag slot of another length than `cipher`'s tags.
fn check_tag(cipher: &Cipher, tag: &[u8]) -> Result<(), Error> {
    if tag.len() == cipher.tag_len() {
        Ok(())
    } else {
        Err(Error::InvalidTagLength { expected: cipher.tag_len(), actual: tag.len() })
    }
}

/// AES-GCM: refuses misuse anywhere in the batch before any message is
/// touched, each message's lengths as a seal's ([`Cipher::check_lengths`])
/// or an open's ([`Cipher::check_open_lengths`]) call checks them, and its
/// tag's.
fn check(cipher: &Cipher, messages: &[Message<'_>], seal: bool) -> Result<(), Error> {
    messages.iter().try_for_each(|m| {
        if seal {
            cipher.check_lengths(m.nonce.len(), m.aad.len(), m.body.len())?;
        } else {
            cipher.check_open_lengths(m.nonce.len(), m.aad.len(), m.body.len())?;
        }
        check_tag(cipher, m.tag)
    })
}

/// AES-GCM-SIV: refuses a wrong nonce or tag length anywhere in the batch,
/// so that the items can be made; [`Cipher::encrypt_batch`] and
/// [`Cipher::decrypt_batch`] check the other lengths before any work.
#[inline]
fn check_siv(cipher: &Cipher, messages: &[Message<'_>]) -> Result<(), Error> {
    let tag_len = cipher.tag_len();
    match messages.iter().find(|m| m.nonce.len() != NONCE_LEN || m.tag.len() != tag_len) {
        None => Ok(()),
        Some(m) => gcmsiv::nonce_from_slice(m.nonce).and_then(|_| check_tag(cipher, m.tag)),
    }
}

/// A nonce [`check_siv`] found 12 bytes long.
fn nonce12(nonce: &[u8]) -> &[u8; NONCE_LEN] {
    nonce.try_into().expect("internal error: a checked nonce length")
}

/// Seals every message in place, each tag into its slot. Misuse anywhere is
/// refused before any message is touched.
pub fn seal_batch(cipher: &Cipher, messages: &mut [Message<'_>]) -> Result<(), Error> {
    if !cipher.algorithm().is_nonce_misuse_resistant() {
        check(cipher, messages, true)?;
        return messages
            .iter_mut()
            .try_for_each(|m| cipher.encrypt_in_place_detached(m.nonce, m.aad, m.body, m.tag));
    }
    check_siv(cipher, messages)?;
    let mut tags = Vec::with_capacity(messages.len());
    let mut items: Vec<BatchItem<'_>> = messages
        .iter_mut()
        .map(|m| {
            tags.push(&mut *m.tag);
            BatchItem::new(nonce12(m.nonce), m.aad, m.body)
        })
        .collect();
    cipher.encrypt_batch(&mut items)?;
    for (item, tag) in items.iter().zip(tags) {
        tag.copy_from_slice(&item.tag);
    }
    Ok(())
}

/// Opens every message in place: whether each was authentic, in order. A
/// message that was not holds its ciphertext again, and the others are not
/// affected. Misuse anywhere is refused before any message is touched.
pub fn open_batch(cipher: &Cipher, messages: &mut [Message<'_>]) -> Result<Vec<bool>, Error> {
    let results = if cipher.algorithm().is_nonce_misuse_resistant() {
        check_siv(cipher, messages)?;
        let mut items: Vec<BatchItem<'_>> = messages
            .iter_mut()
            .map(|m| {
                let mut tag = [0u8; TAG_LEN];
                tag.copy_from_slice(m.tag);
                BatchItem::with_tag(nonce12(m.nonce), m.aad, m.body, tag)
            })
            .collect();
        let mut results = vec![Err(Error::Authentication); items.len()];
        cipher.decrypt_batch(&mut items, &mut results)?;
        results
    } else {
        check(cipher, messages, false)?;
        let open = |m: &mut Message<'_>| cipher.decrypt_in_place_detached(m.nonce, m.aad, m.body, m.tag);
        messages.iter_mut().map(open).collect()
    };
    // Each result is authentic or not: misuse was refused before any work.
    if let Some(&Err(misuse)) = results.iter().find(|r| r.is_err_and(|e| e != Error::Authentication)) {
        return Err(misuse);
    }
    Ok(results.iter().map(Result::is_ok).collect())
}

#[cfg(test)]
mod tests {
    use super::{Message, open_batch, seal_batch};
    use gcmsiv::{Algorithm, Backend, Cipher, Error};

    fn messages<'a>(
        nonces: &'a [Vec<u8>],
        bodies: &'a mut [Vec<u8>],
        tags: &'a mut [Vec<u8>],
    ) -> Vec<Message<'a>> {
        let parts = nonces.iter().zip(bodies.iter_mut()).zip(tags.iter_mut());
        parts.map(|((nonce, body), tag)| Message { nonce, aad: b"ad", body, tag }).collect()
    }

    /// The same bytes as one call a message, a bad tag failing only its own
    /// message, on both algorithms (GCM with nonces of other lengths).
    #[test]
    fn as_single_calls() {
        for (algorithm, nonce_lens) in
            [(Algorithm::Aes256GcmSiv, [12; 9]), (Algorithm::Aes128Gcm, [8, 12, 1, 12, 60, 12, 12, 12, 13])]
        {
            let cipher =
                Cipher::new(algorithm, &[7; 32][..algorithm.key_len()], 16, Backend::select()).unwrap();
            let nonces: Vec<Vec<u8>> =
                nonce_lens.iter().enumerate().map(|(i, &n)| vec![i as u8; n]).collect();
            let plain: Vec<Vec<u8>> = (0..nonces.len()).map(|i| vec![i as u8; 3 + 15 * i]).collect();
            let (mut bodies, mut tags) = (plain.clone(), vec![vec![0u8; 16]; nonces.len()]);
            seal_batch(&cipher, &mut messages(&nonces, &mut bodies, &mut tags)).unwrap();
            for ((nonce, (body, tag)), p) in nonces.iter().zip(bodies.iter().zip(&tags)).zip(&plain) {
                let (mut one, mut one_tag) = (p.clone(), [0u8; 16]);
                cipher.encrypt_in_place_detached(nonce, b"ad", &mut one, &mut one_tag).unwrap();
                assert_eq!((body, &tag[..]), (&one, &one_tag[..]));
            }
            tags[4][0] ^= 1;
            let sealed = bodies.clone();
            let authentic = open_batch(&cipher, &mut messages(&nonces, &mut bodies, &mut tags)).unwrap();
            assert_eq!(authentic, (0..nonces.len()).map(|i| i != 4).collect::<Vec<_>>());
            assert_eq!(bodies[4], sealed[4], "the ciphertext again");
            assert!((0..nonces.len()).all(|i| i == 4 || bodies[i] == plain[i]));
        }
    }

    /// A bad nonce or tag length in the last message: refused, nothing touched.
    #[test]
    fn misuse_before_any_work() {
        let cipher = Cipher::new(Algorithm::Aes128GcmSiv, &[7; 16], 16, Backend::select()).unwrap();
        let nonces = vec![vec![0u8; 12], vec![0u8; 8]];
        let (mut bodies, mut tags) = (vec![vec![1u8; 5]; 2], vec![vec![0u8; 16]; 2]);
        let refused = seal_batch(&cipher, &mut messages(&nonces, &mut bodies, &mut tags));
        assert_eq!(refused, Err(Error::InvalidNonceLength { expected: 12, actual: 8 }));
        assert_eq!((bodies[0].as_slice(), tags[0].as_slice()), (&[1u8; 5][..], &[0u8; 16][..]));
        let nonces = vec![vec![0u8; 12]; 2];
        tags[1].pop();
        let refused = open_batch(&cipher, &mut messages(&nonces, &mut bodies, &mut tags));
        assert_eq!(refused, Err(Error::InvalidTagLength { expected: 16, actual: 15 }));
        assert_eq!(bodies[0], [1u8; 5]);
    }
}

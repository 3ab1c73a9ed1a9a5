//! Nonce-managed messages: the library draws each nonce (12 random bytes
//! from the operating system) and places it in front of the ciphertext, so
//! that callers never handle one: `gcmsiv_encrypt_random_nonce`,
//! `gcmsiv_decrypt_random_nonce`, and their batch forms. The shape of Go's
//! proposed `NewGCMSIV` (`NonceSize() == 0`) and aws-lc-rs's
//! `RandomizedNonceKey`; the core crate's `random_nonce` module says why it
//! is safe for AES-GCM-SIV far past AES-GCM's 2^32 messages per key.
//!
//! The single-message calls are the detached calls of [`crate::aead`] with
//! the nonce and the tag placed around the body, so that their overlap
//! checks, copies and wipes are the same code. A sealed message shorter than
//! a nonce and a tag is an authentication failure, not misuse: an attacker
//! chooses that length. Uses [`crate::aead`], [`crate::key`] and
//! [`crate::ffi`].

use crate::aead::{open_detached, report_len, seal_detached};
use crate::ffi::{
    GCMSIV_ERR_AUTHENTICATION, GCMSIV_ERR_BUFFER_TOO_SMALL, GCMSIV_ERR_INTERNAL, GCMSIV_ERR_NULL_POINTER,
    GCMSIV_ERR_OVERLAP, GCMSIV_ERR_RANDOM_SOURCE, GCMSIV_ERR_TOO_LONG, GCMSIV_OK, clear_of, guarded, output,
    status, wipe,
};
use crate::key::{GcmsivKey, key_ref};
use core::ffi::c_int;
use gcmsiv::NONCE_LEN;
use gcmsiv_glue::{Message, open_batch, seal_batch};

/// Fills `nonces` from the operating system, as the core's random-nonce
/// calls do.
fn draw(nonces: &mut [u8]) -> Result<(), c_int> {
    getrandom::fill(nonces).map_err(|_| GCMSIV_ERR_RANDOM_SOURCE)
}

/// Bytes a sealed message has beyond its plaintext: the nonce and the key's
/// tag (28 with 16-byte tags); 0 for NULL.
///
/// # Safety
/// `key` is NULL or a live key.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_random_nonce_overhead(key: *const GcmsivKey) -> usize {
    // SAFETY: the caller's contract.
    unsafe { key_ref(key) }.map_or(0, |k| NONCE_LEN + k.tag_len())
}

/// Seals `m` under a fresh random nonce: writes nonce || ciphertext || tag
/// (`m_len` + [`gcmsiv_random_nonce_overhead`] bytes) to `c`, its length to
/// `*c_len` (if not NULL; 0 on failure). In place: `m` may be `c + 12` (the
/// plaintext placed after room for the nonce); otherwise `c` must not
/// overlap `m` or `ad`.
///
/// # Safety
/// Each pointer with a length covers that many bytes (readable, or
/// writable for `c`); `c_len` is NULL or writable; `key` is a live key.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_encrypt_random_nonce(
    c: *mut u8,
    c_cap: usize,
    c_len: *mut usize,
    m: *const u8,
    m_len: usize,
    ad: *const u8,
    ad_len: usize,
    key: *const GcmsivKey,
) -> c_int {
    // SAFETY: `c_len` is NULL or writable by the contract.
    unsafe { report_len(c_len, 0) };
    let checked = || {
        // SAFETY: the caller's contract.
        let key = unsafe { key_ref(key) }?;
        key.check_seal(NONCE_LEN, ad_len, m_len)?;
        let sealed_len = m_len.checked_add(NONCE_LEN + key.tag_len()).ok_or(GCMSIV_ERR_TOO_LONG)?;
        if c_cap < sealed_len {
            return Err(GCMSIV_ERR_BUFFER_TOO_SMALL);
        }
        if c.is_null() {
            return Err(GCMSIV_ERR_NULL_POINTER);
        }
        // The nonce's bytes are written too: they may hold no input.
        clear_of(c, NONCE_LEN, &[(m, m_len), (ad, ad_len)])?;
        Ok((key, sealed_len))
    };
    let (key, sealed_len) = match checked() {
        Ok(ok) => ok,
        Err(code) => return code,
    };
    let mut nonce = [0u8; NONCE_LEN];
    if let Err(code) = draw(&mut nonce) {
        return code;
    }
    let (body, tag) = (c.wrapping_add(NONCE_LEN), c.wrapping_add(NONCE_LEN + m_len));
    // SAFETY: `c` covers `sealed_len` writable bytes: nonce, body, tag; the
    // nonce is a local, which no output overlaps.
    let code = unsafe { seal_detached(key, body, tag, m, m_len, ad, ad_len, nonce.as_ptr(), NONCE_LEN) };
    if code == GCMSIV_OK {
        // SAFETY: the nonce's 12 bytes of `c`, checked clear of every input.
        unsafe { crate::ffi::copy_out(&nonce, c) };
        // SAFETY: as for the first report.
        unsafe { report_len(c_len, sealed_len) };
    }
    code
}

/// Opens nonce || ciphertext || tag from `c` into `m` (`c_len` -
/// [`gcmsiv_random_nonce_overhead`] bytes), writing that length to
/// `*m_len` (if not NULL). Input shorter than the overhead, and anything
/// that does not authenticate, is `GCMSIV_ERR_AUTHENTICATION`, with `*m_len`
/// 0 and no plaintext released: `m` is zeroed, or, in place (`m` = `c +
/// 12`), holds the ciphertext again. `m` must not otherwise overlap `c` or
/// `ad`.
///
/// # Safety
/// As [`gcmsiv_encrypt_random_nonce`], with `m` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_decrypt_random_nonce(
    m: *mut u8,
    m_cap: usize,
    m_len: *mut usize,
    c: *const u8,
    c_len: usize,
    ad: *const u8,
    ad_len: usize,
    key: *const GcmsivKey,
) -> c_int {
    // SAFETY: `m_len` is NULL or writable by the contract.
    unsafe { report_len(m_len, 0) };
    let checked = || {
        // SAFETY: the caller's contract.
        let key = unsafe { key_ref(key) }?;
        if c.is_null() && c_len > 0 {
            return Err(GCMSIV_ERR_NULL_POINTER);
        }
        // An attacker sets this length: too short is not authentic.
        let body_len = c_len.checked_sub(NONCE_LEN + key.tag_len()).ok_or(GCMSIV_ERR_AUTHENTICATION)?;
        key.check_open(NONCE_LEN, ad_len, body_len)?;
        if m_cap < body_len {
            return Err(GCMSIV_ERR_BUFFER_TOO_SMALL);
        }
        if m.is_null() && body_len > 0 {
            return Err(GCMSIV_ERR_NULL_POINTER);
        }
        Ok((key, body_len))
    };
    let (key, body_len) = match checked() {
        Ok(ok) => ok,
        Err(code) => return code,
    };
    let (body, tag) = (c.wrapping_add(NONCE_LEN), c.wrapping_add(NONCE_LEN + body_len));
    // SAFETY: `c` covers `c_len` readable bytes: nonce, body, tag. The
    // output may be the body itself (in place), which the detached call
    // allows; it checks every other overlap, the nonce's included.
    let code = unsafe { open_detached(key, m, body, body_len, tag, key.tag_len(), ad, ad_len, c, NONCE_LEN) };
    if code == GCMSIV_OK {
        // SAFETY: as for the first report.
        unsafe { report_len(m_len, body_len) };
    }
    code
}

/// One message of a nonce-managed batch (`gcmsiv_sealed_item` in the
/// header): one buffer holding nonce || body || tag, sealed or opened in
/// place.
#[repr(C)]
pub struct GcmsivSealedItem {
    /// `ad_len` bytes of associated data.
    pub ad: *const u8,
    pub ad_len: usize,
    /// Sealing: the plaintext at `sealed + 12`, with room for the nonce
    /// before it and the tag after (`sealed_len` = plaintext +
    /// overhead). Opening: nonce || ciphertext || tag; the plaintext is
    /// left at `sealed + 12`.
    pub sealed: *mut u8,
    pub sealed_len: usize,
    /// Set by the call: `GCMSIV_OK`, `GCMSIV_ERR_AUTHENTICATION`, or the
    /// call's own status when it fails as a whole.
    pub status: c_int,
}

/// Whether an item's buffer shares a byte with another item's, with the
/// items array, or with any item's associated data.
fn sealed_conflicts(items: &[GcmsivSealedItem]) -> bool {
    let mut spans: Vec<(usize, usize)> = items
        .iter()
        .filter(|i| i.sealed_len > 0)
        .map(|i| (i.sealed as usize, (i.sealed as usize).saturating_add(i.sealed_len)))
        .collect();
    spans.sort_unstable();
    if spans.windows(2).any(|w| w[1].0 < w[0].1) {
        return true;
    }
    let array = items.as_ptr() as usize;
    let mut reads = vec![(array, array.saturating_add(core::mem::size_of_val(items)))];
    reads.extend(
        items
            .iter()
            .filter(|i| i.ad_len > 0)
            .map(|i| (i.ad as usize, (i.ad as usize).saturating_add(i.ad_len))),
    );
    reads.iter().any(|&(start, end)| {
        let i = spans.partition_point(|s| s.1 <= start);
        spans.get(i).is_some_and(|s| s.0 < end)
    })
}

/// # Safety
/// `items` is NULL with `count` 0, or covers `count` writable items.
unsafe fn sealed_items<'a>(
    items: *mut GcmsivSealedItem,
    count: usize,
) -> Result<&'a mut [GcmsivSealedItem], c_int> {
    // SAFETY: the caller's contract.
    unsafe { crate::ffi::items_mut(items, count) }
}

/// The batch after its items were checked: each buffer split into nonce,
/// body and tag, the nonces drawn (sealing: one system call for all), and
/// the glue's batch run (AES-GCM-SIV through the core's interleaved path).
/// Opening, an item shorter than the overhead is not authentic; it takes no
/// part in the batch.
fn run_batch(key: &GcmsivKey, items: &mut [GcmsivSealedItem], seal: bool) -> Result<Vec<c_int>, c_int> {
    let overhead = NONCE_LEN + key.tag_len();
    let mut codes = vec![GCMSIV_OK; items.len()];
    for (item, code) in items.iter().zip(&mut codes) {
        match item.sealed_len.checked_sub(overhead) {
            Some(body) if seal => key.check_seal(NONCE_LEN, item.ad_len, body)?,
            Some(body) => key.check_open(NONCE_LEN, item.ad_len, body)?,
            None if seal => return Err(GCMSIV_ERR_BUFFER_TOO_SMALL),
            None => *code = GCMSIV_ERR_AUTHENTICATION,
        }
    }
    if sealed_conflicts(items) {
        return Err(GCMSIV_ERR_OVERLAP);
    }
    let mut nonces = vec![0u8; NONCE_LEN * items.len()];
    if seal {
        draw(&mut nonces)?;
    }
    let mut messages = Vec::with_capacity(items.len());
    for ((item, nonce), code) in items.iter().zip(nonces.chunks_exact_mut(NONCE_LEN)).zip(&codes) {
        if *code != GCMSIV_OK {
            continue;
        }
        // SAFETY: the caller's contract for the item; the buffers share no
        // byte with one another, the associated data or the items (checked
        // above), so this is the only view of it.
        let buffer = unsafe { output(item.sealed, item.sealed_len) }?;
        // SAFETY: the same for the associated data, which is only read.
        let aad = unsafe { crate::ffi::input(item.ad, item.ad_len) }?;
        let (head, rest) = buffer.split_at_mut(NONCE_LEN);
        let (body, tag) = rest.split_at_mut(rest.len() - key.tag_len());
        if seal {
            head.copy_from_slice(nonce);
        } else {
            nonce.copy_from_slice(head);
        }
        messages.push((nonce as &[u8], aad, body, tag));
    }
    let mut batch: Vec<Message<'_>> =
        messages.into_iter().map(|(nonce, aad, body, tag)| Message { nonce, aad, body, tag }).collect();
    if seal {
        seal_batch(&key.cipher, &mut batch).map_err(status)?;
    } else {
        let authentic = open_batch(&key.cipher, &mut batch).map_err(status)?;
        let mut verdicts = authentic.into_iter();
        for code in codes.iter_mut().filter(|c| **c == GCMSIV_OK) {
            if !verdicts.next().unwrap_or(false) {
                *code = GCMSIV_ERR_AUTHENTICATION;
            }
        }
    }
    Ok(codes)
}

/// Seals or opens a batch: every item checked before any is touched, each
/// item's status set; a panic wipes what an open may have left.
///
/// # Safety
/// `items` covers `count` items whose pointers are as their lengths say.
unsafe fn batch(items: *mut GcmsivSealedItem, count: usize, key: *const GcmsivKey, seal: bool) -> c_int {
    let code = guarded(|| {
        // SAFETY: the caller's contract: `count` items, ours for the call.
        let items = unsafe { sealed_items(items, count) }?;
        // SAFETY: the caller's contract.
        let result = unsafe { key_ref(key) }.and_then(|key| run_batch(key, items, seal));
        match result {
            Ok(codes) => {
                items.iter_mut().zip(codes).for_each(|(item, code)| item.status = code);
                Ok(())
            }
            Err(code) => {
                items.iter_mut().for_each(|item| item.status = code);
                Err(code)
            }
        }
    });
    if code == GCMSIV_ERR_INTERNAL {
        // SAFETY: as above; the panic ended every borrow of the items.
        if let Ok(items) = unsafe { sealed_items(items, count) } {
            for item in items {
                item.status = GCMSIV_ERR_INTERNAL;
                if !seal {
                    // SAFETY: the item's buffer, as its length says.
                    unsafe { wipe(item.sealed, item.sealed_len) };
                }
            }
        }
    }
    code
}

/// Seals `count` messages in place, each under its own random nonce (one
/// system call for the batch): each item's buffer holds its plaintext at
/// `sealed + 12` and receives nonce || ciphertext || tag. Misuse anywhere
/// (an item shorter than the overhead, overlapping buffers) fails the whole
/// call before any item is touched.
///
/// # Safety
/// `items` covers `count` items whose pointers are as their lengths say.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_encrypt_random_nonce_batch(
    items: *mut GcmsivSealedItem,
    count: usize,
    key: *const GcmsivKey,
) -> c_int {
    // SAFETY: the same contract.
    unsafe { batch(items, count, key, true) }
}

/// Opens `count` nonce-managed messages in place (the plaintext left at
/// `sealed + 12`). Returns `GCMSIV_OK` when the call ran: each item's
/// status then says whether it was authentic (an item shorter than the
/// overhead is not; a failed item holds its ciphertext again).
///
/// # Safety
/// As [`gcmsiv_encrypt_random_nonce_batch`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_decrypt_random_nonce_batch(
    items: *mut GcmsivSealedItem,
    count: usize,
    key: *const GcmsivKey,
) -> c_int {
    // SAFETY: the same contract.
    unsafe { batch(items, count, key, false) }
}

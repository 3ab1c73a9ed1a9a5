//! Many messages per call under one key (`gcmsiv_encrypt_batch`,
//! `gcmsiv_decrypt_batch`), each in place with its own nonce, associated
//! data and status: AES-GCM-SIV keys through the core's batch path, AES-GCM
//! keys one message at a time. Uses [`crate::key`], [`crate::sizes`] and
//! [`crate::ffi`].

use crate::ffi;
use crate::ffi::{
    GCMSIV_ERR_AUTHENTICATION, GCMSIV_ERR_INTERNAL, GCMSIV_ERR_OVERLAP, GCMSIV_OK, guarded, input, output,
    status, wipe,
};
use crate::key::{GcmsivKey, key_ref};
use crate::sizes::TAG_MAX;
use core::ffi::c_int;
use gcmsiv::{BatchItem, Error};

/// One message of a batch (`gcmsiv_batch_item` in the header).
#[repr(C)]
pub struct GcmsivBatchItem {
    /// `npub_len` bytes of nonce.
    pub npub: *const u8,
    pub npub_len: usize,
    /// `ad_len` bytes of associated data.
    pub ad: *const u8,
    pub ad_len: usize,
    /// `data_len` bytes, encrypted or decrypted in place.
    pub data: *mut u8,
    pub data_len: usize,
    /// The tag: written by a seal, read by an open (the key's tag length).
    pub tag: [u8; TAG_MAX],
    /// Set by `gcmsiv_decrypt_batch`: 0, or `GCMSIV_ERR_AUTHENTICATION`.
    pub status: c_int,
}

/// Whether a batch's buffers conflict: two items' data sharing a byte, an
/// item's data sharing one with the items array or with any item's nonce or
/// associated data (which may share bytes with one another: one nonce array
/// for many items, say), or a nonce or associated data inside the items array
/// (`array`, `items.len()` items long), which the call writes (statuses,
/// tags). The data spans are sorted (already so, usually: a check of order
/// comes first), and each other span is looked up among them by binary
/// search.
fn batch_conflicts(array: *const GcmsivBatchItem, items: &[GcmsivBatchItem]) -> bool {
    let mut data: Vec<(usize, usize)> = items
        .iter()
        .filter(|i| i.data_len > 0)
        .map(|i| (i.data as usize, (i.data as usize).saturating_add(i.data_len)))
        .collect();
    if !data.is_sorted() {
        data.sort_unstable();
    }
    if data.windows(2).any(|w| w[1].0 < w[0].1) {
        return true;
    }
    // The data span, if any, that ends after `start`, checked against `end`.
    let hits = |start: usize, end: usize| {
        let i = data.partition_point(|d| d.1 <= start);
        data.get(i).is_some_and(|d| d.0 < end)
    };
    let array = (array as usize, (array as usize).saturating_add(core::mem::size_of_val(items)));
    if hits(array.0, array.1) {
        return true;
    }
    items.iter().any(|i| {
        let span = |p: *const u8, len: usize| {
            let (start, end) = (p as usize, (p as usize).saturating_add(len));
            len > 0 && (hits(start, end) || (start < array.1 && array.0 < end))
        };
        span(i.npub, i.npub_len) || span(i.ad, i.ad_len)
    })
}

/// One item's buffers as slices: nonce, associated data, data.
type Views<'a> = (&'a [u8], &'a [u8], &'a mut [u8]);

/// Runs a batch of `count` items under `key`: AES-GCM-SIV keys through the
/// core's batch path (several messages' set-up interleaved), AES-GCM keys
/// one message at a time. Every pointer and length is checked before any
/// item is touched; on misuse every item's status is the call's.
///
/// The items are copied out of the caller's array first and written back
/// (status, and a seal's tag) through raw pointers at the end: no reference
/// to the array is held while the buffers its items point to are read, and
/// no nonce or associated data may lie inside it (refused as overlap), so
/// the writes cannot change what the call reads.
///
/// # Safety
/// `items` covers `count` items whose pointers are as their lengths say.
unsafe fn batch(items: *mut GcmsivBatchItem, count: usize, key: *const GcmsivKey, seal: bool) -> c_int {
    let code = guarded(|| {
        // SAFETY: the caller's contract: `count` items, ours for the call.
        let copies = unsafe { read_items(items, count) }?;
        let run = || -> Result<Vec<(c_int, [u8; TAG_MAX])>, c_int> {
            // SAFETY: the caller's contract.
            let key = unsafe { key_ref(key) }?;
            for item in &copies {
                if seal {
                    key.check_seal(item.npub_len, item.ad_len, item.data_len)?;
                } else {
                    key.check_open(item.npub_len, item.ad_len, item.data_len)?;
                }
            }
            if batch_conflicts(items, &copies) {
                return Err(GCMSIV_ERR_OVERLAP);
            }
            let mut views: Vec<Views<'_>> = Vec::with_capacity(copies.len());
            for item in &copies {
                // SAFETY: the caller's contract for each item; the data
                // buffers share no byte with one another, the other buffers
                // or the items array, and nothing is read from the array
                // (checked above).
                views.push(unsafe {
                    (
                        input(item.npub, item.npub_len)?,
                        input(item.ad, item.ad_len)?,
                        output(item.data, item.data_len)?,
                    )
                });
            }
            let tags: Vec<[u8; TAG_MAX]> = copies.iter().map(|i| i.tag).collect();
            let cipher = &key.cipher;
            if cipher.algorithm().is_nonce_misuse_resistant() {
                siv_batch(views, tags, seal, |i| cipher.encrypt_batch(i), |i, r| cipher.decrypt_batch(i, r))
            } else {
                gcm_batch(key, views, tags, seal)
            }
        };
        match run() {
            Ok(outcomes) => {
                for (i, (code, tag)) in outcomes.into_iter().enumerate() {
                    // SAFETY: item `i` of the caller's array; no view of any
                    // buffer is left.
                    unsafe { write_item(items, i, code, seal.then_some(&tag)) };
                }
                Ok(())
            }
            Err(code) => {
                // SAFETY: as above.
                (0..copies.len()).for_each(|i| unsafe { write_item(items, i, code, None) });
                Err(code)
            }
        }
    });
    if code == GCMSIV_ERR_INTERNAL {
        // A panic: no item counts as done, and none may hold plaintext that
        // a cut-short open left unauthenticated.
        // SAFETY: the caller's contract, as above (the panic ended every
        // view of the buffers).
        if let Ok(copies) = unsafe { read_items(items, count) } {
            for (i, item) in copies.iter().enumerate() {
                // SAFETY: as above.
                unsafe { write_item(items, i, GCMSIV_ERR_INTERNAL, None) };
                if !seal {
                    // SAFETY: the item's data, as its length says.
                    unsafe { wipe(item.data, item.data_len) };
                }
            }
        }
    }
    code
}

/// The core's batch calls over `views`, with each item's `tags` (read by
/// an open). Returns each item's status and tag (written by a seal).
fn siv_batch(
    views: Vec<Views<'_>>,
    tags: Vec<[u8; TAG_MAX]>,
    seal: bool,
    encrypt: impl FnOnce(&mut [BatchItem<'_>]) -> Result<(), Error>,
    decrypt: impl FnOnce(&mut [BatchItem<'_>], &mut [Result<(), Error>]) -> Result<(), Error>,
) -> Result<Vec<(c_int, [u8; TAG_MAX])>, c_int> {
    let nonces: Vec<[u8; gcmsiv::NONCE_LEN]> = views
        .iter()
        .map(|(npub, ..)| gcmsiv::nonce_from_slice(npub).copied().map_err(status))
        .collect::<Result<_, _>>()?;
    let mut core_items: Vec<BatchItem<'_>> = views
        .into_iter()
        .zip(&nonces)
        .zip(tags)
        .map(|(((_, ad, data), nonce), tag)| BatchItem::with_tag(nonce, ad, data, tag))
        .collect();
    let mut results = vec![Ok(()); core_items.len()];
    if seal {
        encrypt(&mut core_items).map_err(status)?;
    } else {
        decrypt(&mut core_items, &mut results).map_err(status)?;
    }
    Ok(core_items
        .iter()
        .zip(results)
        .map(|(item, result)| (result.map_or_else(status, |()| GCMSIV_OK), item.tag))
        .collect())
}

/// AES-GCM batches (lengths already checked): one message at a time.
fn gcm_batch(
    key: &GcmsivKey,
    views: Vec<Views<'_>>,
    mut tags: Vec<[u8; TAG_MAX]>,
    seal: bool,
) -> Result<Vec<(c_int, [u8; TAG_MAX])>, c_int> {
    let tag_len = key.tag_len();
    let mut outcomes = Vec::with_capacity(views.len());
    for ((npub, ad, data), tag) in views.into_iter().zip(&mut tags) {
        let code = if seal {
            key.seal(npub, ad, data, &mut tag[..tag_len])?;
            GCMSIV_OK
        } else {
            match key.open(npub, ad, data, &tag[..tag_len]) {
                Ok(()) => GCMSIV_OK,
                Err(GCMSIV_ERR_AUTHENTICATION) => GCMSIV_ERR_AUTHENTICATION,
                Err(other) => return Err(other),
            }
        };
        outcomes.push((code, *tag));
    }
    Ok(outcomes)
}

/// A copy of each of the `count` items at `items`, read without a
/// reference to the array.
///
/// # Safety
/// `items` is NULL with `count` 0, or covers `count` readable items.
unsafe fn read_items(items: *const GcmsivBatchItem, count: usize) -> Result<Vec<GcmsivBatchItem>, c_int> {
    // SAFETY: the caller's contract; an item is plain data (pointers,
    // lengths, bytes), valid for any bits C wrote.
    unsafe { ffi::read_items(items, count) }
}

/// Sets item `i`'s status, and its tag if `tag` is given, through the raw
/// pointer (the rest of the item is left as it is).
///
/// # Safety
/// `items` covers at least `i + 1` writable items, and no reference to
/// them is live.
unsafe fn write_item(items: *mut GcmsivBatchItem, i: usize, status: c_int, tag: Option<&[u8; TAG_MAX]>) {
    // SAFETY: the caller's contract; the offsets are the fields' own.
    unsafe {
        ffi::write_field(items, i, core::mem::offset_of!(GcmsivBatchItem, status), status);
        if let Some(tag) = tag {
            ffi::write_field(items, i, core::mem::offset_of!(GcmsivBatchItem, tag), *tag);
        }
    }
}

/// Seals `count` messages in place, each with its own nonce and associated
/// data, writing each item's tag. Misuse (a bad length anywhere) is
/// reported before any item is touched.
///
/// # Safety
/// `items` covers `count` items whose pointers are as their lengths say,
/// with pairwise disjoint data buffers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_encrypt_batch(
    items: *mut GcmsivBatchItem,
    count: usize,
    key: *const GcmsivKey,
) -> c_int {
    // SAFETY: the same contract.
    unsafe { batch(items, count, key, true) }
}

/// Opens `count` messages in place. Returns `GCMSIV_OK` when the call ran
/// (each item's `status` then says whether it was authentic: a failed item
/// holds its ciphertext again, and the others are unaffected), or a misuse
/// error before any item is touched.
///
/// # Safety
/// As [`gcmsiv_encrypt_batch`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_decrypt_batch(
    items: *mut GcmsivBatchItem,
    count: usize,
    key: *const GcmsivKey,
) -> c_int {
    // SAFETY: the same contract.
    unsafe { batch(items, count, key, false) }
}

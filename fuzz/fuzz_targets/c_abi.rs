//! The C ABI as C calls it, under AddressSanitizer (cargo fuzz's default):
//! keys of any algorithm, length, tag length and backend number; the
//! combined, detached and batch calls with arbitrary lengths, NULL pointers,
//! and buffers cut from one arena at arbitrary offsets, so that outputs
//! overlap inputs (exactly, which in-place calls allow, or partly, which
//! must be refused), and batch nonces and associated data may point into the
//! items array. Every pointer given covers the length given with it (the
//! header's contract), so any read or write outside is the library's, and
//! ASan reports it. Beyond not crashing:
//!
//! - every status is one of the header's;
//! - NULL with a nonzero length is `GCMSIV_ERR_NULL_POINTER`, never a read;
//! - a call that succeeds had no forbidden overlap, and its result opens
//!   again (or seals again to the same bytes) through fresh buffers;
//! - a failed combined decryption reports length 0 and leaves a separate
//!   output zeroed.

#![no_main]

use arbitrary::Arbitrary;
use core::ptr::{null, null_mut};
use gcmsiv_c::*;
use libfuzzer_sys::fuzz_target;

const ARENA: usize = 2048;

#[derive(Arbitrary, Debug, Clone, Copy)]
struct Span {
    null: bool,
    offset: u16,
    len: u16,
}

#[derive(Arbitrary, Debug)]
enum Op {
    Encrypt { c: Span, m: Span, ad: Span, npub: Span },
    Decrypt { m: Span, c: Span, ad: Span, npub: Span },
    EncryptDetached { c: Span, mac: Span, m: Span, ad: Span, npub: Span },
    DecryptDetached { m: Span, c: Span, mac: Span, ad: Span, npub: Span },
    Batch { seal: bool, items: Vec<Item> },
}

#[derive(Arbitrary, Debug)]
struct Item {
    npub: Span,
    ad: Span,
    data: Span,
    tag: [u8; 16],
    /// Point the nonce (1) or the associated data (2) into the items array.
    into_items: u8,
}

#[derive(Arbitrary, Debug)]
struct Input {
    algorithm: i8,
    key: [u8; 32],
    key_len: u8,
    key_null: bool,
    tag_len: u8,
    backend: i8,
    short_tag: bool,
    arena: Vec<u8>,
    ops: Vec<Op>,
}

/// A span of the arena as (pointer, length): NULL keeps a small length (so
/// that a NULL with a length is tried), otherwise the span is clipped into
/// the arena.
fn place(arena: &mut [u8], s: Span) -> (*mut u8, usize) {
    if s.null {
        return (null_mut(), usize::from(s.len % 4));
    }
    let offset = usize::from(s.offset) % (arena.len() + 1);
    let len = usize::from(s.len).min(arena.len() - offset);
    (arena.as_mut_ptr().wrapping_add(offset), len)
}

fn overlap(a: (*mut u8, usize), b: (*mut u8, usize)) -> bool {
    let (a0, b0) = (a.0 as usize, b.0 as usize);
    a.1 > 0 && b.1 > 0 && a0 < b0 + b.1 && b0 < a0 + a.1
}

/// Overlap other than exact: what an in-place call may not do.
fn partial(a: (*mut u8, usize), b: (*mut u8, usize)) -> bool {
    overlap(a, b) && a.0 != b.0
}

/// The bytes of a span (none for NULL, which the calls refuse with a length).
fn copy(s: (*mut u8, usize)) -> Vec<u8> {
    if s.1 == 0 || s.0.is_null() {
        Vec::new()
    } else {
        unsafe { core::slice::from_raw_parts(s.0, s.1) }.to_vec()
    }
}

const STATUSES: core::ops::RangeInclusive<i32> = GCMSIV_ERR_INTERNAL..=GCMSIV_OK;

/// Seal through fresh buffers (the reference for the calls on the arena).
fn fresh_seal(key: *const GcmsivKey, m: &[u8], ad: &[u8], npub: &[u8], tag_len: usize) -> Option<Vec<u8>> {
    let mut c = vec![0u8; m.len() + tag_len];
    let mut c_len = 0;
    let code = unsafe {
        gcmsiv_encrypt(
            c.as_mut_ptr(),
            c.len(),
            &mut c_len,
            m.as_ptr(),
            m.len(),
            ad.as_ptr(),
            ad.len(),
            npub.as_ptr(),
            npub.len(),
            key,
        )
    };
    (code == GCMSIV_OK).then_some(c)
}

fn fresh_open(key: *const GcmsivKey, c: &[u8], ad: &[u8], npub: &[u8]) -> Option<Vec<u8>> {
    let mut m = vec![0u8; c.len()];
    let mut m_len = 0;
    let code = unsafe {
        gcmsiv_decrypt(
            m.as_mut_ptr(),
            m.len(),
            &mut m_len,
            c.as_ptr(),
            c.len(),
            ad.as_ptr(),
            ad.len(),
            npub.as_ptr(),
            npub.len(),
            key,
        )
    };
    (code == GCMSIV_OK).then(|| m[..m_len].to_vec())
}

fuzz_target!(|input: Input| {
    let mut arena = input.arena;
    arena.truncate(ARENA);
    let key_len = usize::from(input.key_len % 40);
    let key_ptr = if input.key_null { null() } else { input.key.as_ptr() };
    let key_len = if input.key_null { key_len % 4 } else { key_len.min(32) };
    let mut key = null_mut();
    let algorithm = i32::from(input.algorithm % 6);
    let tag_len = usize::from(input.tag_len % 20);
    let backend = i32::from(input.backend % 5);
    let code = unsafe {
        if input.short_tag {
            gcmsiv_key_new_gcm_short_tag_hazardous(&mut key, algorithm, key_ptr, key_len, tag_len, backend)
        } else {
            gcmsiv_key_new_ex(&mut key, algorithm, key_ptr, key_len, tag_len, backend)
        }
    };
    assert!(STATUSES.contains(&code));
    assert_eq!(code == GCMSIV_OK, !key.is_null());
    if input.key_null && key_len > 0 {
        assert_eq!(code, GCMSIV_ERR_NULL_POINTER);
    }
    let tag = unsafe { gcmsiv_key_tag_bytes(key) };

    for op in input.ops.iter().take(16) {
        match *op {
            Op::Encrypt { c, m, ad, npub } => {
                let (c, m, ad, npub) = (
                    place(&mut arena, c),
                    place(&mut arena, m),
                    place(&mut arena, ad),
                    place(&mut arena, npub),
                );
                let (m0, ad0, n0) = (copy(m), copy(ad), copy(npub));
                let mut c_len = usize::MAX;
                let code = unsafe {
                    gcmsiv_encrypt(c.0, c.1, &mut c_len, m.0, m.1, ad.0, ad.1, npub.0, npub.1, key)
                };
                assert!(STATUSES.contains(&code));
                if code == GCMSIV_OK {
                    assert_eq!(c_len, m.1 + tag);
                    let out = (c.0, c_len);
                    assert!(!partial(out, m) && !overlap(out, ad) && !overlap(out, npub), "overlap accepted");
                    let sealed = copy((c.0, c_len));
                    assert_eq!(fresh_seal(key, &m0, &ad0, &n0, tag).as_ref(), Some(&sealed));
                    assert_eq!(fresh_open(key, &sealed, &ad0, &n0), Some(m0));
                } else {
                    assert_eq!(c_len, 0);
                }
            }
            Op::Decrypt { m, c, ad, npub } => {
                let (m, c, ad, npub) = (
                    place(&mut arena, m),
                    place(&mut arena, c),
                    place(&mut arena, ad),
                    place(&mut arena, npub),
                );
                let (c0, ad0, n0) = (copy(c), copy(ad), copy(npub));
                let mut m_len = usize::MAX;
                let code = unsafe {
                    gcmsiv_decrypt(m.0, m.1, &mut m_len, c.0, c.1, ad.0, ad.1, npub.0, npub.1, key)
                };
                assert!(STATUSES.contains(&code));
                if code == GCMSIV_OK {
                    let out = (m.0, m_len);
                    assert!(!partial(out, c) && !overlap(out, ad) && !overlap(out, npub), "overlap accepted");
                    let plain = copy((m.0, m_len));
                    assert_eq!(fresh_seal(key, &plain, &ad0, &n0, tag), Some(c0));
                } else {
                    assert_eq!(m_len, 0);
                    if code == GCMSIV_ERR_AUTHENTICATION && !overlap(m, c) {
                        let body = c.1 - tag;
                        assert!(copy((m.0, body)).iter().all(|&b| b == 0), "a failed open left bytes in m");
                    }
                }
            }
            Op::EncryptDetached { c, mac, m, ad, npub } => {
                let (c, mac, m, ad, npub) = (
                    place(&mut arena, c),
                    place(&mut arena, mac),
                    place(&mut arena, m),
                    place(&mut arena, ad),
                    place(&mut arena, npub),
                );
                // The output covers the message's length (the contract).
                let c = (c.0, if c.0.is_null() { c.1 } else { c.1.min(m.1) });
                if !c.0.is_null() && c.1 < m.1 {
                    continue;
                }
                let (m0, ad0, n0) = (copy(m), copy(ad), copy(npub));
                let code = unsafe {
                    gcmsiv_encrypt_detached(c.0, mac.0, mac.1, m.0, m.1, ad.0, ad.1, npub.0, npub.1, key)
                };
                assert!(STATUSES.contains(&code));
                if code == GCMSIV_OK {
                    let body = (c.0, m.1);
                    assert!(
                        !partial(body, m) && !overlap(body, ad) && !overlap(mac, ad) && !overlap(mac, body),
                        "overlap accepted"
                    );
                    let sealed = [copy(body), copy(mac)].concat();
                    assert_eq!(fresh_seal(key, &m0, &ad0, &n0, tag), Some(sealed));
                }
            }
            Op::DecryptDetached { m, c, mac, ad, npub } => {
                let (m, c, mac, ad, npub) = (
                    place(&mut arena, m),
                    place(&mut arena, c),
                    place(&mut arena, mac),
                    place(&mut arena, ad),
                    place(&mut arena, npub),
                );
                if !m.0.is_null() && m.1 < c.1 {
                    continue;
                }
                let (c0, mac0, ad0, n0) = (copy(c), copy(mac), copy(ad), copy(npub));
                let code = unsafe {
                    gcmsiv_decrypt_detached(m.0, c.0, c.1, mac.0, mac.1, ad.0, ad.1, npub.0, npub.1, key)
                };
                assert!(STATUSES.contains(&code));
                if code == GCMSIV_OK {
                    let plain = copy((m.0, c.1));
                    assert_eq!(fresh_seal(key, &plain, &ad0, &n0, tag), Some([c0, mac0].concat()));
                }
            }
            Op::Batch { seal, ref items } => batch(&mut arena, key, seal, items, tag),
        }
    }
    unsafe { gcmsiv_key_free(key) };
});

fn batch(arena: &mut [u8], key: *const GcmsivKey, seal: bool, specs: &[Item], tag: usize) {
    let specs = &specs[..specs.len().min(24)];
    let mut items: Vec<GcmsivBatchItem> = specs
        .iter()
        .map(|s| {
            let (npub, ad, data) = (place(arena, s.npub), place(arena, s.ad), place(arena, s.data));
            GcmsivBatchItem {
                npub: npub.0,
                npub_len: npub.1,
                ad: ad.0,
                ad_len: ad.1,
                data: data.0,
                data_len: data.1,
                tag: s.tag,
                status: 7,
            }
        })
        .collect();
    let base = items.as_mut_ptr();
    let array = (base.cast::<u8>(), core::mem::size_of_val(&items[..]));
    let mut inside = false;
    for (i, s) in specs.iter().enumerate() {
        // A span inside the array, a few bytes into item `i`'s neighbour.
        let target =
            base.wrapping_add((i + 1) % specs.len()).cast::<u8>().wrapping_add(usize::from(s.tag[0] % 8));
        unsafe {
            match s.into_items % 3 {
                1 => {
                    (*base.add(i)).npub = target;
                    (*base.add(i)).npub_len = (*base.add(i)).npub_len.min(16);
                    inside |= (*base.add(i)).npub_len > 0;
                }
                2 => {
                    (*base.add(i)).ad = target;
                    (*base.add(i)).ad_len = (*base.add(i)).ad_len.min(16);
                    inside |= (*base.add(i)).ad_len > 0;
                }
                _ => {}
            }
        }
    }
    let before: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> = (0..specs.len())
        .map(|i| unsafe {
            let it = &*base.add(i);
            if inside {
                (vec![], vec![], vec![])
            } else {
                (
                    copy((it.npub as *mut u8, it.npub_len)),
                    copy((it.ad as *mut u8, it.ad_len)),
                    copy((it.data, it.data_len)),
                )
            }
        })
        .collect();
    let code = unsafe {
        if seal {
            gcmsiv_encrypt_batch(base, specs.len(), key)
        } else {
            gcmsiv_decrypt_batch(base, specs.len(), key)
        }
    };
    assert!(STATUSES.contains(&code));
    for i in 0..specs.len() {
        let it = unsafe { &*base.add(i) };
        assert!(STATUSES.contains(&it.status), "item {i} status {}", it.status);
        if code != GCMSIV_OK {
            assert_eq!(it.status, code, "a failed call sets every status to its own");
        }
    }
    if code == GCMSIV_OK {
        assert!(!inside, "a nonce or associated data inside the items array was accepted");
        for (i, (npub, ad, data)) in before.iter().enumerate() {
            let it = unsafe { &*base.add(i) };
            assert!(!overlap((it.data, it.data_len), array), "data over the items array accepted");
            let now = copy((it.data, it.data_len));
            if seal {
                let one = fresh_seal(key, data, ad, npub, tag).expect("the batch sealed it");
                assert_eq!([&now[..], &it.tag[..tag]].concat(), one, "batch item {i}");
            } else if it.status == GCMSIV_OK {
                assert_eq!(
                    fresh_seal(key, &now, ad, npub, tag).as_deref(),
                    Some(&[&data[..], &specs[i].tag[..tag]].concat()[..])
                );
            } else {
                assert_eq!(it.status, GCMSIV_ERR_AUTHENTICATION);
                assert_eq!(&now, data, "a failed item holds its ciphertext");
            }
        }
    }
    drop(items);
}

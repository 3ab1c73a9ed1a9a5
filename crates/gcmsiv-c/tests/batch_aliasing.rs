//! The batch calls and the items array they are given: a nonce or associated
//! data inside the array (which the call writes: statuses, tags) is refused
//! before any item is touched, and a valid batch is read and written back
//! through raw pointers only. Small enough for Miri, which checks the calls'
//! aliasing (`scripts/miri.sh`: the portable backend, no file access).

use core::ptr::null_mut;
use gcmsiv_c::*;

const KEY: [u8; 16] = [7; 16];

struct Key(*mut GcmsivKey);

impl Key {
    fn new(algorithm: i32, key_len: usize) -> Key {
        let mut k = null_mut();
        let code = unsafe { gcmsiv_key_new(&mut k, algorithm, [7u8; 32].as_ptr(), key_len) };
        assert_eq!(code, GCMSIV_OK);
        Key(k)
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        unsafe { gcmsiv_key_free(self.0) };
    }
}

fn item(npub: *const u8, ad: *const u8, ad_len: usize, data: &mut [u8]) -> GcmsivBatchItem {
    GcmsivBatchItem {
        npub,
        npub_len: 12,
        ad,
        ad_len,
        data: data.as_mut_ptr(),
        data_len: data.len(),
        tag: [0; 16],
        status: 99,
    }
}

/// A nonce, then associated data, pointing into the items array (at another
/// item's tag, which a seal writes; at the item's own status): the call
/// fails with `GCMSIV_ERR_OVERLAP`, every status says so, no data changes.
#[test]
fn a_nonce_or_associated_data_inside_the_items_array_is_refused() {
    let nonce = [1u8; 12];
    for algorithm in [GCMSIV_AES_128_GCM_SIV, GCMSIV_AES_128_GCM] {
        let key = Key::new(algorithm, KEY.len());
        for (seal, target) in [(true, "nonce"), (false, "nonce"), (true, "ad"), (false, "ad")] {
            let mut a = [3u8; 20];
            let mut b = [4u8; 5];
            let mut items = vec![
                item(nonce.as_ptr(), nonce.as_ptr(), 0, &mut a),
                item(nonce.as_ptr(), nonce.as_ptr(), 0, &mut b),
            ];
            // Every pointer into the array comes from this one, as C's would.
            let base = items.as_mut_ptr();
            unsafe {
                if target == "nonce" {
                    (*base).npub = (&raw const (*base.add(1)).tag).cast::<u8>();
                } else {
                    (*base.add(1)).ad = (&raw const (*base.add(1)).status).cast::<u8>();
                    (*base.add(1)).ad_len = 4;
                }
            }
            let code = unsafe {
                if seal { gcmsiv_encrypt_batch(base, 2, key.0) } else { gcmsiv_decrypt_batch(base, 2, key.0) }
            };
            assert_eq!(code, GCMSIV_ERR_OVERLAP, "{target} (seal: {seal})");
            unsafe {
                assert_eq!(((*base).status, (*base.add(1)).status), (GCMSIV_ERR_OVERLAP, GCMSIV_ERR_OVERLAP));
                assert_eq!((*base.add(1)).tag, [0; 16], "no tag written");
            }
            assert_eq!((a, b), ([3; 20], [4; 5]), "no data touched");
        }
    }
}

/// A batch that runs: each item as one call would seal it, back again on
/// opening, one forged item failing alone; statuses and tags written back.
#[test]
fn a_batch_reads_and_writes_its_items_in_place() {
    let nonces = [[1u8; 12], [2u8; 12], [3u8; 12]];
    let ads: [&[u8]; 3] = [b"", b"header", b"h"];
    let plain: [&[u8]; 3] = [b"", b"seventeen bytes!!", b"abc"];
    for algorithm in [GCMSIV_AES_128_GCM_SIV, GCMSIV_AES_128_GCM] {
        let key = Key::new(algorithm, KEY.len());
        let mut data: Vec<Vec<u8>> = plain.iter().map(|p| p.to_vec()).collect();
        let mut items: Vec<GcmsivBatchItem> = data
            .iter_mut()
            .zip(nonces.iter().zip(ads))
            .map(|(d, (n, ad))| item(n.as_ptr(), ad.as_ptr(), ad.len(), d))
            .collect();
        let base = items.as_mut_ptr();
        assert_eq!(unsafe { gcmsiv_encrypt_batch(base, 3, key.0) }, GCMSIV_OK);
        for i in 0..3 {
            let mut one = vec![0u8; plain[i].len() + 16];
            let mut len = 0;
            let code = unsafe {
                gcmsiv_encrypt(
                    one.as_mut_ptr(),
                    one.len(),
                    &mut len,
                    plain[i].as_ptr(),
                    plain[i].len(),
                    ads[i].as_ptr(),
                    ads[i].len(),
                    nonces[i].as_ptr(),
                    12,
                    key.0,
                )
            };
            assert_eq!(code, GCMSIV_OK);
            let item = unsafe { &*base.add(i) };
            let sealed = unsafe { core::slice::from_raw_parts(item.data, item.data_len) };
            assert_eq!([sealed, &item.tag[..]].concat(), one, "item {i}");
        }
        unsafe { (*base.add(1)).tag[0] ^= 1 };
        assert_eq!(unsafe { gcmsiv_decrypt_batch(base, 3, key.0) }, GCMSIV_OK);
        let statuses: Vec<i32> = (0..3).map(|i| unsafe { (*base.add(i)).status }).collect();
        assert_eq!(statuses, [GCMSIV_OK, GCMSIV_ERR_AUTHENTICATION, GCMSIV_OK]);
        drop(items);
        assert_eq!(data[0], plain[0]);
        assert_ne!(data[1], plain[1], "the forged item holds its ciphertext");
        assert_eq!(data[2], plain[2]);
    }
}

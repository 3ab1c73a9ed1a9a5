//! A fixed workload for instruction counts where no timer means anything (a
//! target under emulation): `n` seals or opens of one message, by this crate or
//! by RustCrypto's `aes-gcm-siv` / `aes-gcm`, after the same set-up whatever
//! `n` is, so that the difference between two runs' counts is `n` operations'.
//!
//!     gcmsiv-count LIB ALG OP BITS SIZE AAD N TOTAL
//!
//! LIB `ours` or `rustcrypto`; ALG `siv` (AES-GCM-SIV) or `gcm` (AES-GCM,
//! 96-bit nonce); OP `seal` or `open`; BITS 128 or 256; SIZE and AAD the
//! plaintext's and associated data's bytes; N operations of the TOTAL prepared
//! (an open decrypts one prepared ciphertext each, so that no copy is counted).
//! scripts/instructions-aarch64.sh runs it under qemu and prints the table.

use std::hint::black_box;
use std::process::exit;

/// One AEAD, in place with a detached tag.
trait Aead {
    fn seal(&self, buf: &mut [u8]) -> [u8; 16];
    fn open(&self, buf: &mut [u8], tag: &[u8; 16]) -> bool;
}

const NONCE: [u8; 12] = [9; 12];

macro_rules! ours {
    ($t:ty) => {
        impl Aead for ($t, Vec<u8>) {
            fn seal(&self, buf: &mut [u8]) -> [u8; 16] {
                let tag = self.0.encrypt_in_place_detached(&NONCE, &self.1, buf).expect("seal");
                let mut out = [0u8; 16];
                out.copy_from_slice(tag.as_ref());
                out
            }
            fn open(&self, buf: &mut [u8], tag: &[u8; 16]) -> bool {
                self.0.decrypt_in_place_detached(&NONCE, &self.1, buf, tag).is_ok()
            }
        }
    };
}
ours!(gcmsiv::Aes128GcmSiv);
ours!(gcmsiv::Aes256GcmSiv);
ours!(gcmsiv::Aes128Gcm);
ours!(gcmsiv::Aes256Gcm);

macro_rules! rustcrypto {
    ($krate:ident :: $t:ident) => {
        impl Aead for ($krate::$t, Vec<u8>) {
            fn seal(&self, buf: &mut [u8]) -> [u8; 16] {
                use $krate::aead::AeadInOut;
                self.0.encrypt_inout_detached(&NONCE.into(), &self.1, buf.into()).expect("seal").into()
            }
            fn open(&self, buf: &mut [u8], tag: &[u8; 16]) -> bool {
                use $krate::aead::AeadInOut;
                self.0.decrypt_inout_detached(&NONCE.into(), &self.1, buf.into(), tag.into()).is_ok()
            }
        }
    };
}
rustcrypto!(aes_gcm_siv::Aes128GcmSiv);
rustcrypto!(aes_gcm_siv::Aes256GcmSiv);
rustcrypto!(aes_gcm::Aes128Gcm);
rustcrypto!(aes_gcm::Aes256Gcm);

fn usage() -> ! {
    eprintln!("usage: gcmsiv-count ours|rustcrypto siv|gcm seal|open 128|256 SIZE AAD N TOTAL");
    exit(2)
}

fn number(arg: &str) -> usize {
    arg.parse().unwrap_or_else(|_| usage())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [lib, alg, op, bits, size, aad, n, total] = args.as_slice() else { usage() };
    let (size, n, total) = (number(size), number(n), number(total));
    let aad = vec![0xa5u8; number(aad)];
    if n > total {
        usage();
    }
    let key = [7u8; 32];
    let aead: Box<dyn Aead> = {
        use aes_gcm_siv::aead::KeyInit;
        match (lib.as_str(), alg.as_str(), bits.as_str()) {
            ("ours", "siv", "128") => {
                Box::new((gcmsiv::Aes128GcmSiv::new(key[..16].try_into().expect("16")), aad))
            }
            ("ours", "siv", "256") => Box::new((gcmsiv::Aes256GcmSiv::new(&key), aad)),
            ("ours", "gcm", "128") => {
                Box::new((gcmsiv::Aes128Gcm::new(key[..16].try_into().expect("16")), aad))
            }
            ("ours", "gcm", "256") => Box::new((gcmsiv::Aes256Gcm::new(&key), aad)),
            ("rustcrypto", "siv", "128") => {
                Box::new((aes_gcm_siv::Aes128GcmSiv::new_from_slice(&key[..16]).expect("16"), aad))
            }
            ("rustcrypto", "siv", "256") => {
                Box::new((aes_gcm_siv::Aes256GcmSiv::new_from_slice(&key).expect("32"), aad))
            }
            ("rustcrypto", "gcm", "128") => {
                Box::new((aes_gcm::Aes128Gcm::new_from_slice(&key[..16]).expect("16"), aad))
            }
            ("rustcrypto", "gcm", "256") => {
                Box::new((aes_gcm::Aes256Gcm::new_from_slice(&key).expect("32"), aad))
            }
            _ => usage(),
        }
    };
    // The same set-up whatever n is: TOTAL ciphertexts (for opens) or one
    // buffer (for seals), and one seal to fault everything in.
    let mut buf = vec![0x5au8; size];
    let tag = aead.seal(&mut buf.clone());
    let mut prepared = Vec::new();
    if op == "open" {
        let mut ct = buf.clone();
        let t = aead.seal(&mut ct);
        assert_eq!(t, tag, "deterministic");
        prepared = (0..total).map(|_| ct.clone()).collect();
    }
    match op.as_str() {
        "seal" => {
            for _ in 0..n {
                black_box(aead.seal(black_box(&mut buf)));
            }
        }
        "open" => {
            for ct in prepared.iter_mut().take(n) {
                assert!(aead.open(black_box(ct), &tag), "open");
            }
        }
        _ => usage(),
    }
    black_box(&prepared);
}

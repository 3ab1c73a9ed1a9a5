//! Many short messages under one key: cycles per message for our batch call,
//! our one-call-per-message path, and aws-lc-rs one call at a time.

use crate::tsc;

const MESSAGES: usize = 64;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

type SealBatch<'a> = Box<dyn Fn(&mut [gcmsiv::BatchItem<'_>]) + 'a>;
type OpenBatch<'a> = Box<dyn Fn(&mut [gcmsiv::BatchItem<'_>], &mut [Result<(), gcmsiv::Error>]) + 'a>;
type SealOne<'a> = Box<dyn Fn(&[u8; 12], &mut [u8]) -> [u8; 16] + 'a>;
type OpenOne<'a> = Box<dyn Fn(&[u8; 12], &mut [u8], &[u8; 16]) -> bool + 'a>;

/// Prints the table for AES-`key_bits`-GCM-SIV seal and open.
pub fn print(key_bits: usize, rounds: usize) {
    let key = [0x42u8; 32];
    let ours128;
    let ours256;
    let (seal_batch, open_batch, seal_one, open_one): (SealBatch, OpenBatch, SealOne, OpenOne);
    if key_bits == 128 {
        ours128 =
            gcmsiv::Aes128GcmSiv::with_backend(key[..16].try_into().unwrap(), crate::backend()).unwrap();
        let c = &ours128;
        seal_batch = Box::new(move |items| c.encrypt_batch(items).unwrap());
        open_batch = Box::new(move |items, r| c.decrypt_batch(items, r).unwrap());
        seal_one = Box::new(move |n, b| c.encrypt_in_place_detached(n, b"", b).unwrap());
        open_one = Box::new(move |n, b, t| c.decrypt_in_place_detached(n, b"", b, t).is_ok());
    } else {
        ours256 = gcmsiv::Aes256GcmSiv::with_backend(&key, crate::backend()).unwrap();
        let c = &ours256;
        seal_batch = Box::new(move |items| c.encrypt_batch(items).unwrap());
        open_batch = Box::new(move |items, r| c.decrypt_batch(items, r).unwrap());
        seal_one = Box::new(move |n, b| c.encrypt_in_place_detached(n, b"", b).unwrap());
        open_one = Box::new(move |n, b, t| c.decrypt_in_place_detached(n, b"", b, t).is_ok());
    }
    let alg =
        if key_bits == 128 { &aws_lc_rs::aead::AES_128_GCM_SIV } else { &aws_lc_rs::aead::AES_256_GCM_SIV };
    let aws = aws_lc_rs::aead::LessSafeKey::new(
        aws_lc_rs::aead::UnboundKey::new(alg, &key[..key_bits / 8]).unwrap(),
    );

    println!("\n## AES-{key_bits}-GCM-SIV, {MESSAGES} short messages per call: TSC cycles per message");
    println!(
        "| bytes | op | ours batch | ours 1 by 1 | aws-lc-rs 1 by 1 | batch vs aws-lc-rs | batch vs ours 1 by 1 |"
    );
    println!("|---|---|---|---|---|---|---|");
    // Equal lengths (a batch of like records), then mixes of 16 to 128 bytes
    // (every one short) and of 16 to 512.
    let mut cases: Vec<(String, Vec<usize>)> =
        [16usize, 32, 64, 200, 512, 1024].iter().map(|&n| (n.to_string(), vec![n; MESSAGES])).collect();
    cases.push((
        "16-128 mixed".into(),
        (0..MESSAGES).map(|i| [16, 64, 32, 128, 48, 100, 80, 20][i % 8]).collect(),
    ));
    cases.push((
        "16-512 mixed".into(),
        (0..MESSAGES).map(|i| [16, 512, 64, 300, 32, 200, 128, 450][i % 8]).collect(),
    ));
    for (size, lens) in &cases {
        let nonces: Vec<[u8; 12]> = (0..MESSAGES).map(|i| [i as u8; 12]).collect();
        let mut bufs: Vec<Vec<u8>> = lens.iter().map(|&n| vec![7u8; n]).collect();
        let mut tags = vec![[0u8; 16]; MESSAGES];
        let mut sealed: Vec<Vec<u8>> = Vec::new();
        for i in 0..MESSAGES {
            let mut b = bufs[i].clone();
            tags[i] = seal_one(&nonces[i], &mut b);
            sealed.push(b);
        }
        let mut results = vec![Ok(()); MESSAGES];
        let mut aws_buf: Vec<Vec<u8>> =
            sealed.iter().zip(&tags).map(|(c, t)| [c.as_slice(), t].concat()).collect();
        for seal in [true, false] {
            let mut samples = [Vec::new(), Vec::new(), Vec::new()];
            for round in 0..rounds {
                for k in 0..3 {
                    let which = (k + round) % 3;
                    if !seal {
                        for (b, s) in bufs.iter_mut().zip(&sealed) {
                            b.copy_from_slice(s);
                        }
                        for (a, (c, t)) in aws_buf.iter_mut().zip(sealed.iter().zip(&tags)) {
                            a[..c.len()].copy_from_slice(c);
                            a[c.len()..].copy_from_slice(t);
                        }
                    }
                    let start = tsc();
                    match (which, seal) {
                        (0, _) => {
                            let mut items: Vec<gcmsiv::BatchItem> = nonces
                                .iter()
                                .zip(bufs.iter_mut())
                                .zip(&tags)
                                .map(|((n, b), t)| gcmsiv::BatchItem::with_tag(n, b"", b, *t))
                                .collect();
                            if seal {
                                seal_batch(&mut items);
                            } else {
                                open_batch(&mut items, &mut results);
                            }
                        }
                        (1, true) => {
                            for (n, b) in nonces.iter().zip(bufs.iter_mut()) {
                                std::hint::black_box(seal_one(n, b));
                            }
                        }
                        (1, false) => {
                            for ((n, b), t) in nonces.iter().zip(bufs.iter_mut()).zip(&tags) {
                                assert!(open_one(n, b, t));
                            }
                        }
                        (_, true) => {
                            for (n, b) in nonces.iter().zip(bufs.iter_mut()) {
                                let nonce = aws_lc_rs::aead::Nonce::assume_unique_for_key(*n);
                                let tag =
                                    aws.seal_in_place_separate_tag(nonce, aws_lc_rs::aead::Aad::empty(), b);
                                let _ = std::hint::black_box(tag.unwrap());
                            }
                        }
                        (_, false) => {
                            for (n, b) in nonces.iter().zip(aws_buf.iter_mut()) {
                                let nonce = aws_lc_rs::aead::Nonce::assume_unique_for_key(*n);
                                assert!(aws.open_in_place(nonce, aws_lc_rs::aead::Aad::empty(), b).is_ok());
                            }
                        }
                    }
                    samples[which].push((tsc() - start) as f64 / MESSAGES as f64);
                }
            }
            if !seal {
                assert!(results.iter().all(|r| r.is_ok()));
            }
            let [b, o, a] = samples.map(median);
            let op = if seal { "seal" } else { "open" };
            println!("| {size} | {op} | {b:.0} | {o:.0} | {a:.0} | {:.2}x | {:.2}x |", a / b, o / b);
        }
    }
}

//! The file format's readers on arbitrary files (docs/FORMAT.md; the seed
//! corpus is the committed format vectors, so mutations start from valid
//! files whose header MAC verifies and reach the chunks):
//!
//! - no reader panics, hangs or allocates past its bounds (a batch of at most
//!   a few MiB);
//! - every in-order reader (`Decryptor` on all cores and on one, `decrypt`,
//!   `OpenStream` fed in pieces) releases the same bytes and gives the same
//!   verdict; random access (`SeekableDecryptor`, `RandomAccess`) agrees with
//!   them whenever it accepts the file;
//! - nothing unauthenticated is released: when the input starts with the
//!   header of a committed vector, whatever comes out is a prefix of that
//!   vector's plaintext (a chunk that authenticates under that file's keys is
//!   the chunk that was written), and exactly the plaintext if a reader
//!   reports success.
//!
//! The first input byte chooses the piece size `OpenStream` is fed in; the rest
//! is the file. The secret is the vectors' key file for version 1 headers
//! (passphrase-mode headers fail with the wrong key mode before Argon2id, so no
//! input costs seconds), and the vectors' identities (X25519 and hybrid) for
//! version 2 headers, so mutated stanzas reach HPKE.

#![no_main]

use std::io::{Cursor, Read};

use gcmsiv_stream::{
    Decryptor, Identity, MasterKey, OpenStream, RandomAccess, Secret, SeekableDecryptor, decrypt,
};
use libfuzzer_sys::fuzz_target;

const KEY: &str = include_str!("../../vectors/format/key.txt");
const IDENTITIES: [&str; 2] =
    [include_str!("../../vectors/format/alice.id"), include_str!("../../vectors/format/bob.pq.id")];

/// The committed key-file and recipient vectors and their plaintexts.
const KNOWN: [(&[u8], &[u8]); 8] = [
    (
        include_bytes!("../../vectors/format/hello.to-x25519.gcmsiv"),
        include_bytes!("../../vectors/format/hello.txt"),
    ),
    (
        include_bytes!("../../vectors/format/empty.to-x25519.gcmsiv"),
        include_bytes!("../../vectors/format/empty.txt"),
    ),
    (
        include_bytes!("../../vectors/format/chunks.to-hybrid.gcmsiv"),
        include_bytes!("../../vectors/format/chunks.txt"),
    ),
    (
        include_bytes!("../../vectors/format/exact.to-team-aes128.gcmsiv"),
        include_bytes!("../../vectors/format/exact.bin"),
    ),
    (
        include_bytes!("../../vectors/format/chunks.key-aes256.gcmsiv"),
        include_bytes!("../../vectors/format/chunks.txt"),
    ),
    (
        include_bytes!("../../vectors/format/exact.key-aes128.gcmsiv"),
        include_bytes!("../../vectors/format/exact.bin"),
    ),
    (
        include_bytes!("../../vectors/format/hello.key-aes128.gcmsiv"),
        include_bytes!("../../vectors/format/hello.txt"),
    ),
    (
        include_bytes!("../../vectors/format/empty.key-aes256.gcmsiv"),
        include_bytes!("../../vectors/format/empty.txt"),
    ),
];

/// A header's length as it says (bounded by the format), or the whole input.
fn header_len(file: &[u8]) -> usize {
    let mut have = 0;
    loop {
        match gcmsiv_stream::Header::needed(&file[..have]) {
            Ok(need) if need <= have => return have,
            Ok(need) if need <= file.len() => have = need,
            _ => return file.len(),
        }
    }
}

/// What an in-order reader released and whether it called the file whole.
type Verdict = (Vec<u8>, bool);

fn decryptor(file: &[u8], secret: &Secret, parallel: bool) -> Verdict {
    let mut out = Vec::new();
    let Ok(reader) = Decryptor::new(file, secret) else { return (out, false) };
    let mut reader = reader.parallel(parallel);
    let mut buf = [0u8; 777];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return (out, true),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(_) => return (out, false),
        }
    }
}

fn pushed(file: &[u8], secret: &Secret, piece: usize) -> Verdict {
    let mut stream = OpenStream::new(secret);
    let mut out = Vec::new();
    for part in file.chunks(piece) {
        if stream.push(part, &mut out).is_err() {
            return (out, false);
        }
    }
    let ok = stream.finish().is_ok();
    (out, ok)
}

fuzz_target!(|data: &[u8]| {
    let Some((&choice, file)) = data.split_first() else { return };
    let secret = if file.get(6) == Some(&2) {
        Secret::Identities(
            IDENTITIES
                .iter()
                .flat_map(|text| Identity::parse_list(text).expect("the vectors' identities"))
                .collect(),
        )
    } else {
        Secret::Key(MasterKey::from_key_file(KEY).expect("the vectors' key file"))
    };
    let piece = [1, 7, 100, 1024, 5000, usize::MAX][usize::from(choice) % 6];

    let verdicts = [
        decryptor(file, &secret, true),
        decryptor(file, &secret, false),
        pushed(file, &secret, piece),
        match decrypt(file, Vec::new(), &secret) {
            Ok((out, _)) => (out, true),
            Err(_) => {
                let mut partial = Vec::new();
                let _ = Decryptor::new(file, &secret).and_then(|d| d.decrypt_to(&mut partial));
                (partial, false)
            }
        },
    ];
    for verdict in &verdicts[1..] {
        assert_eq!(verdict, &verdicts[0], "the in-order readers disagree");
    }
    let (released, whole) = &verdicts[0];

    let head = header_len(file);
    if let Some((_, plaintext)) = KNOWN
        .iter()
        .find(|(known, _)| known.len() >= head && known[..head] == file[..head] && header_len(known) == head)
    {
        assert!(plaintext.starts_with(released), "released bytes that were never written");
        if *whole {
            assert_eq!(released, plaintext);
        }
    }

    // Random access agrees whenever it accepts the file.
    if let Ok(mut reader) = SeekableDecryptor::new(Cursor::new(file), &secret) {
        let mut all = Vec::new();
        let read_ok = reader.read_to_end(&mut all).is_ok();
        assert!(released.starts_with(&all) || all.starts_with(released));
        if read_ok {
            assert_eq!(all.len() as u64, reader.len());
            if *whole {
                assert_eq!(&all, released);
            }
        }
        if *whole {
            assert!(read_ok, "random access failed on a whole file");
        }
    } else {
        assert!(!whole, "random access refused a whole file");
    }
    if let Ok(mut access) = RandomAccess::new(&file[..head], file.len() as u64, &secret) {
        let (at, len) = access.final_chunk();
        if let Ok(total) = access.verify_final(&file[at as usize..(at + len) as usize]) {
            if let Some(span) = access.span(total / 3, total) {
                let stored = &file[span.file_offset as usize..(span.file_offset + span.file_len) as usize];
                let mut out = Vec::new();
                if access.open(span.first_chunk, stored, &mut out).is_ok() && *whole {
                    assert_eq!(&out[span.skip as usize..], &released[(total / 3) as usize..]);
                }
            }
        } else {
            assert!(!whole, "random access refused a whole file's final chunk");
        }
    }
});

//! The library's readers and writers against each other, the committed format
//! vectors, and every way of breaking a file: whatever the reader, nothing
//! unauthenticated comes out, and failures are the format's.

#[path = "../../gcmsiv-cli/tests/common/emulation.rs"]
mod emulation;
#[path = "../../gcmsiv-cli/tests/common/manifest.rs"]
mod manifest;

use std::io::{self, Cursor, Read, Seek, SeekFrom, Write};

use gcmsiv_stream::armor::{ArmorError, MaybeArmored};
use gcmsiv_stream::format::{CHUNK_OVERHEAD, HEADER_LEN, MAX_HEADER_LEN};
use gcmsiv_stream::{
    Algorithm, Argon2Cost, DecodeError, Decryptor, Encryptor, Error, Identity, MasterKey, OpenStream,
    Options, RandomAccess, RecipientKind, SealStream, Secret, SeekableDecryptor, decrypt, encrypt,
};
use proptest::prelude::*;

const C: usize = 1024;

fn key(byte: u8) -> Secret {
    Secret::Key(MasterKey::from_bytes(&[byte; 32]))
}

fn options() -> Options {
    Options::new().chunk_size(C).unwrap()
}

fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 131 + i / 251) as u8).collect()
}

/// Lengths around chunk boundaries: empty, one, two and many chunks.
const LENGTHS: [usize; 11] =
    [0, 1, C - 1, C, C + 1, 2 * C - 1, 2 * C, 2 * C + 1, 3 * C + 17, 40 * C, 40 * C + 5];

/// A file written through the `Write` adapter in pieces of `piece` bytes.
fn write_in_pieces(plaintext: &[u8], piece: usize, options: &Options) -> Vec<u8> {
    let mut encryptor = Encryptor::new(Vec::new(), &key(1), options).unwrap();
    for part in plaintext.chunks(piece.max(1)) {
        encryptor.write_all(part).unwrap();
    }
    encryptor.finish().unwrap()
}

/// Every reader's output for `file`: in order (parallel and not), whole-file,
/// pipelined, and random access read start to end.
fn read_all_ways(file: &[u8], secret: &Secret) -> Vec<Result<Vec<u8>, String>> {
    let mut outs = Vec::new();
    for parallel in [true, false] {
        let mut out = Vec::new();
        let result = Decryptor::new(file, secret)
            .map_err(|e| e.to_string())
            .and_then(|d| d.parallel(parallel).read_to_end(&mut out).map_err(|e| e.to_string()));
        outs.push(result.map(|_| out));
    }
    outs.push(decrypt(file, Vec::new(), secret).map(|(out, _)| out).map_err(|e| e.to_string()));
    outs.push(
        Decryptor::new(Cursor::new(file.to_vec()), secret)
            .and_then(|d| d.decrypt_to_pipelined(Vec::new(), |_| {}))
            .map_err(|e| e.to_string()),
    );
    let mut out = Vec::new();
    let seekable = SeekableDecryptor::new(Cursor::new(file), secret)
        .map_err(|e| e.to_string())
        .and_then(|mut d| d.read_to_end(&mut out).map_err(|e| e.to_string()));
    outs.push(seekable.map(|_| out));
    for piece in [1, 7, 1000, 1 << 20] {
        outs.push(push_in_pieces(file, secret, piece).1.map_err(|e| e.to_string()));
    }
    outs.push(random_access_all(file, secret).map_err(|e| e.to_string()));
    outs
}

/// What an `OpenStream` fed `piece` bytes at a time releases, and its verdict.
fn push_in_pieces(file: &[u8], secret: &Secret, piece: usize) -> (Vec<u8>, Result<Vec<u8>, Error>) {
    let mut stream = OpenStream::new(secret);
    let mut out = Vec::new();
    for part in file.chunks(piece) {
        if let Err(e) = stream.push(part, &mut out) {
            assert!(stream.push(b"", &mut Vec::new()).is_err(), "a failed stream keeps failing");
            return (out, Err(e));
        }
    }
    match stream.finish() {
        Ok(()) => (out.clone(), Ok(out)),
        Err(e) => (out, Err(e)),
    }
}

/// The whole plaintext through `RandomAccess`, as a binding would read it.
fn random_access_all(file: &[u8], secret: &Secret) -> Result<Vec<u8>, Error> {
    let mut access = RandomAccess::new(&file[..file.len().min(MAX_HEADER_LEN)], file.len() as u64, secret)?;
    let (at, len) = access.final_chunk();
    let total = access.verify_final(&file[at as usize..(at + len) as usize])?;
    let mut out = Vec::new();
    if let Some(span) = access.span(0, total) {
        let stored = &file[span.file_offset as usize..(span.file_offset + span.file_len) as usize];
        access.open(span.first_chunk, stored, &mut out)?;
    }
    Ok(out)
}

#[test]
fn every_writer_and_every_reader_agree_at_every_length() {
    for len in LENGTHS {
        let plaintext = pattern(len);
        let mut files = vec![
            write_in_pieces(&plaintext, 1 << 20, &options()),
            write_in_pieces(&plaintext, 7, &options()),
            write_in_pieces(&plaintext, C, &options().parallel(false)),
            encrypt(&mut &plaintext[..], Vec::new(), &key(1), &options()).unwrap().0,
        ];
        let encryptor = Encryptor::new(Vec::new(), &key(1), &options()).unwrap();
        files.push(encryptor.encrypt_from_pipelined(Cursor::new(plaintext.clone()), |_| {}).unwrap());
        for piece in [1, 1000, 3 << 20] {
            let mut stream = SealStream::new(&key(1), &options()).unwrap();
            let mut file = Vec::new();
            for part in plaintext.chunks(piece) {
                stream.push(part, &mut file).unwrap();
            }
            stream.finish(&mut file).unwrap();
            files.push(file);
        }
        // Some bytes through `write`, the rest from a reader.
        let mut encryptor = Encryptor::new(Vec::new(), &key(1), &options()).unwrap();
        encryptor.write_all(&plaintext[..len / 3]).unwrap();
        files.push(encryptor.encrypt_from(&mut &plaintext[len / 3..]).unwrap().0);
        let chunks = len.div_ceil(C).max(1);
        for file in &files {
            assert_eq!(file.len(), HEADER_LEN + len + chunks * CHUNK_OVERHEAD, "length {len}");
            for out in read_all_ways(file, &key(1)) {
                assert_eq!(out.as_deref(), Ok(&plaintext[..]), "length {len}");
            }
        }
    }
}

#[test]
fn the_committed_vectors_read_as_the_manifest_says() {
    for vector in manifest::load() {
        check_vector(&vector, vector.read("file"));
    }
}

#[test]
fn the_committed_version_2_and_armored_vectors_read_as_their_manifest_says() {
    for vector in manifest::load_recipients() {
        let stored = vector.read("file");
        let mut file = Vec::new();
        match MaybeArmored::new(&stored[..]).and_then(|mut r| r.read_to_end(&mut file)) {
            Ok(_) => check_vector(&vector, file),
            Err(e) => {
                assert!(ArmorError::from_io(&e).is_some(), "{}: {e}", vector.name());
                assert!(vector.get("error").unwrap().contains("malformed armor"), "{}", vector.name());
            }
        }
    }
}

fn check_vector(vector: &manifest::Vector, file: Vec<u8>) {
    {
        let secret = match (vector.get("key"), vector.get("passphrase"), vector.get("identity")) {
            (Some(_), _, _) => Secret::Key(
                MasterKey::from_key_file(&String::from_utf8(vector.read("key")).unwrap()).unwrap(),
            ),
            (_, Some(pass), _) => Secret::passphrase(pass),
            (_, _, Some(files)) => Secret::Identities(
                files
                    .split(',')
                    .flat_map(|f| Identity::load_list(manifest::dir().join(f)).unwrap())
                    .collect(),
            ),
            _ => unreachable!(),
        };
        if vector.get("plaintext").is_some() {
            let plaintext = vector.read("plaintext");
            for out in read_all_ways(&file, &secret) {
                assert_eq!(out.as_deref(), Ok(&plaintext[..]), "{}", vector.name());
            }
            let decryptor = Decryptor::new(&file[..], &secret).unwrap();
            let algorithm = if vector.get("algorithm") == Some("aes128") {
                Algorithm::Aes128GcmSiv
            } else {
                Algorithm::Aes256GcmSiv
            };
            assert_eq!(decryptor.header().algorithm, algorithm);
            assert_eq!(decryptor.header().chunk_size().to_string(), vector.get("chunk_size").unwrap());
        } else {
            let error = vector.get("error").unwrap();
            let released = vector.released();
            // The streaming readers release exactly the authenticated prefix, then fail.
            let mut out = Vec::new();
            let failure = match Decryptor::new(&file[..], &secret) {
                Ok(mut d) => d.read_to_end(&mut out).unwrap_err().to_string(),
                Err(e) => e.to_string(),
            };
            assert!(failure.contains(error), "{}: {failure}", vector.name());
            assert_eq!(out, released, "{}", vector.name());
            let mut sink = Vec::new();
            let failure =
                Decryptor::new(&file[..], &secret).and_then(|d| d.decrypt_to(&mut sink)).unwrap_err();
            assert!(failure.to_string().contains(error), "{}: {failure}", vector.name());
            assert_eq!(sink, released, "{}", vector.name());
            assert_seekable_fails(&file, &secret, &released);
        }
    }
}

/// What each in-order reader releases from `file` before it fails, or `None`
/// if it succeeds: each must be whole authenticated chunks of `plaintext`.
fn released_prefixes(file: &[u8], secret: &Secret, plaintext: &[u8]) -> Vec<Option<usize>> {
    let mut results = Vec::new();
    for parallel in [true, false] {
        let mut out = Vec::new();
        let ok = match Decryptor::new(file, secret) {
            Ok(d) => {
                let mut d = d.parallel(parallel);
                // Small reads, so that errors come between chunks.
                let mut buf = [0u8; 100];
                loop {
                    match d.read(&mut buf) {
                        Ok(0) => break true,
                        Ok(n) => out.extend_from_slice(&buf[..n]),
                        Err(e) => {
                            assert_eq!(e.kind(), io::ErrorKind::InvalidData);
                            assert!(DecodeError::from_io(&e).is_some());
                            // A failed reader keeps failing.
                            assert!(d.read(&mut buf).is_err());
                            break false;
                        }
                    }
                }
            }
            Err(_) => false,
        };
        assert!(plaintext.starts_with(&out), "released bytes that are not the plaintext");
        results.push((!ok).then_some(out.len()));
    }
    for piece in [7, 1 << 20] {
        let (out, verdict) = push_in_pieces(file, secret, piece);
        assert!(plaintext.starts_with(&out), "pushed: released bytes that are not the plaintext");
        results.push(verdict.is_err().then_some(out.len()));
    }
    if let Ok(out) = random_access_all(file, secret) {
        assert_eq!(out, plaintext);
    }
    let mut sink = Vec::new();
    let pipelined = Decryptor::new(Cursor::new(file.to_vec()), secret)
        .and_then(|d| d.decrypt_to_pipelined(Vec::new(), |_| {}));
    match pipelined {
        Ok(out) => {
            assert_eq!(out, plaintext);
            results.push(None);
        }
        Err(_) => {
            let partial = Decryptor::new(file, secret).and_then(|d| d.decrypt_to(&mut sink));
            assert!(partial.is_err());
            assert!(plaintext.starts_with(&sink));
            results.push(Some(sink.len()));
        }
    }
    for released in results.iter().flatten() {
        // Whole chunks; all of it only when what failed follows the final chunk.
        assert!(*released % C == 0 || *released == plaintext.len(), "released part of a chunk: {released}");
    }
    results
}

#[test]
fn truncation_at_every_byte_fails_and_releases_only_whole_chunks() {
    let plaintext = pattern(3 * C + 100);
    let file = write_in_pieces(&plaintext, 1 << 20, &options());
    // Under emulation every 16th cut, and every cut of the header and around each
    // chunk's start (its length word) and end.
    let edges: Vec<usize> = chunk_ranges(&file).iter().flat_map(|r| [r.start, r.end]).collect();
    let near_an_edge = |&cut: &usize| cut <= HEADER_LEN || edges.iter().any(|&e| cut.abs_diff(e) <= 4);
    for cut in emulation::thin("truncations", (0..file.len()).collect(), 16, near_an_edge) {
        let results = released_prefixes(&file[..cut], &key(1), &plaintext);
        assert!(results.iter().all(Option::is_some), "cut at {cut} decrypted");
        let err = Decryptor::new(&file[..cut], &key(1)).and_then(|d| d.decrypt_to(io::sink())).unwrap_err();
        let expected = if cut < HEADER_LEN { "truncated (incomplete header)" } else { "truncated" };
        assert!(err.to_string().contains(expected) || cut < 6, "cut {cut}: {err}");
        assert!(SeekableDecryptor::new(Cursor::new(&file[..cut]), &key(1)).is_err(), "cut {cut}");
    }
}

#[test]
fn every_bit_flip_fails() {
    let plaintext = pattern(2 * C + 10);
    let file = write_in_pieces(&plaintext, 1 << 20, &options());
    let positions = (0..file.len()).step_by(7).chain([file.len() - 1]).collect();
    // Under emulation the header's positions and every fifth of the others.
    for at in emulation::thin("bit flip positions", positions, 5, |&at| at < HEADER_LEN) {
        for bit in [0, 7] {
            let mut bad = file.clone();
            bad[at] ^= 1 << bit;
            let results = released_prefixes(&bad, &key(1), &plaintext);
            assert!(results.iter().all(Option::is_some), "flip at {at} decrypted");
            // Random access either refuses the file or fails on the chunk it
            // touches; it never returns other bytes.
            if let Ok(mut reader) = SeekableDecryptor::new(Cursor::new(&bad), &key(1)) {
                let mut out = vec![0u8; plaintext.len()];
                match reader.read_at(0, &mut out) {
                    Ok(n) => assert_ne!(&out[..n], &plaintext[..], "flip at {at} read back whole"),
                    Err(e) => assert!(DecodeError::from_io(&e).is_some()),
                }
                for (i, chunk) in out.chunks(C).enumerate() {
                    let expected = &plaintext[i * C..(i * C + chunk.len()).min(plaintext.len())];
                    assert!(
                        chunk == expected || chunk.iter().all(|&b| b == 0),
                        "flip at {at}: chunk {i} released"
                    );
                }
            }
        }
    }
}

fn chunk_ranges(file: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    let mut at = HEADER_LEN;
    while at < file.len() {
        let word = u32::from_be_bytes(file[at..at + 4].try_into().unwrap());
        let end = at + CHUNK_OVERHEAD + (word & 0x7fff_ffff) as usize;
        ranges.push(at..end);
        at = end;
    }
    ranges
}

#[test]
fn reordered_duplicated_dropped_spliced_and_trailing_fail() {
    let plaintext = pattern(3 * C + 5);
    let file = write_in_pieces(&plaintext, 1 << 20, &options());
    let other = write_in_pieces(&plaintext, 1 << 20, &options());
    let chunks = chunk_ranges(&file);
    assert_eq!(chunks.len(), 4);
    let build = |order: &[usize], from_other: Option<usize>| {
        let mut out = file[..HEADER_LEN].to_vec();
        for &i in order {
            let source = if from_other == Some(i) { &other } else { &file };
            out.extend_from_slice(&source[chunks[i].clone()]);
        }
        out
    };
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (build(&[1, 0, 2, 3], None), "chunk 0 failed authentication"),
        (build(&[0, 0, 2, 3], None), "chunk 1 failed authentication"),
        (build(&[0, 2, 3], None), "chunk 1 failed authentication"),
        (build(&[0, 1, 2], None), "truncated"),
        (build(&[0, 1, 2, 3], Some(2)), "chunk 2 failed authentication"),
        (build(&[0, 1, 2, 3, 3], None), "trailing data"),
        ([file.clone(), vec![0]].concat(), "trailing data"),
    ];
    for (bad, expected) in cases {
        let results = released_prefixes(&bad, &key(1), &plaintext);
        assert!(results.iter().all(Option::is_some), "{expected}");
        let err = decrypt(&bad[..], io::sink(), &key(1)).unwrap_err();
        assert!(err.to_string().contains(expected), "{err} is not {expected}");
        assert_seekable_fails(&bad, &key(1), &plaintext);
    }
}

/// Random access refuses `file` when it is made (the header, and the final
/// chunk, are checked first), or when it reaches the chunk that fails; what it
/// reads before is a prefix of `plaintext`.
fn assert_seekable_fails(file: &[u8], secret: &Secret, plaintext: &[u8]) {
    if let Ok(mut reader) = SeekableDecryptor::new(Cursor::new(file), secret) {
        let mut out = Vec::new();
        let err = reader.read_to_end(&mut out).unwrap_err();
        assert!(DecodeError::from_io(&err).is_some(), "{err}");
        assert!(plaintext.starts_with(&out));
    }
}

#[test]
fn wrong_secrets_fail_before_any_chunk() {
    let file = write_in_pieces(b"secret", 1 << 20, &options());
    let wrong = |secret: &Secret| match Decryptor::new(&file[..], secret) {
        Err(Error::Decode(err)) => err,
        other => panic!("{other:?}"),
    };
    assert_eq!(wrong(&key(2)), DecodeError::WrongKey { passphrase: false });
    assert!(wrong(&key(2)).is_authentication());
    assert_eq!(wrong(&Secret::passphrase("pw")), DecodeError::WrongKeyMode { file_uses_passphrase: false });

    let cheap = Argon2Cost { memory_kib: 64, iterations: 1, lanes: 1 };
    let options = options().argon2_cost(cheap).unwrap();
    let mut encryptor = Encryptor::new(Vec::new(), &Secret::passphrase("correct"), &options).unwrap();
    encryptor.write_all(b"secret").unwrap();
    let file = encryptor.finish().unwrap();
    let mut out = Vec::new();
    Decryptor::new(&file[..], &Secret::passphrase(b"correct")).unwrap().read_to_end(&mut out).unwrap();
    assert_eq!(out, b"secret");
    match Decryptor::new(&file[..], &Secret::passphrase("Correct")) {
        Err(Error::Decode(err)) => assert_eq!(err, DecodeError::WrongKey { passphrase: true }),
        other => panic!("{other:?}"),
    }
    match Decryptor::new(&file[..], &key(1)) {
        Err(Error::Decode(err)) => assert_eq!(err, DecodeError::WrongKeyMode { file_uses_passphrase: true }),
        other => panic!("{other:?}"),
    }
}

#[test]
fn options_refuse_what_the_format_does_not_allow() {
    for size in [0, 512, 1000, 3 << 10, 2 << 20] {
        assert!(matches!(Options::new().chunk_size(size), Err(Error::Invalid(_))), "{size}");
    }
    for size in [1 << 10, 1 << 16, 1 << 20] {
        assert_eq!(Options::new().chunk_size(size).unwrap().get_chunk_size(), size);
    }
    for (m, t, p) in [(8, 0, 1), (15, 1, 2), ((1 << 20) + 1, 1, 1), (64, 17, 1), (1024, 1, 17)] {
        let cost = Argon2Cost { memory_kib: m, iterations: t, lanes: p };
        assert!(matches!(Options::new().argon2_cost(cost), Err(Error::Invalid(_))));
    }
    assert!(MasterKey::from_slice(&[0; 31]).is_err());
    assert!(Encryptor::new(Vec::new(), &Secret::passphrase(""), &Options::new()).is_err());
}

#[test]
fn an_unfinished_encryptor_leaves_a_truncated_file() {
    let mut out = Vec::new();
    {
        let mut encryptor = Encryptor::new(&mut out, &key(1), &options()).unwrap();
        encryptor.write_all(&pattern(5 * C)).unwrap();
        encryptor.flush().unwrap();
        // Dropped without `finish`.
    }
    let err = decrypt(&out[..], io::sink(), &key(1)).unwrap_err();
    assert!(matches!(err, Error::Decode(DecodeError::Truncated)), "{err}");
}

/// A writer that fails after `budget` bytes.
#[derive(Debug)]
struct Failing {
    budget: usize,
}

impl Write for Failing {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.budget == 0 {
            return Err(io::Error::other("disk full"));
        }
        let n = buf.len().min(self.budget);
        self.budget -= n;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn write_errors_are_reported_and_poison_the_encryptor() {
    let mut encryptor = Encryptor::new(Failing { budget: HEADER_LEN + 100 }, &key(1), &options()).unwrap();
    // More than a batch, so that a batch is written.
    let err = encryptor.write_all(&pattern(3 << 20)).unwrap_err();
    assert_eq!(err.to_string(), "disk full");
    assert!(encryptor.write(b"x").is_err());
    assert!(encryptor.finish().is_err());
    assert!(matches!(Encryptor::new(Failing { budget: 10 }, &key(1), &options()), Err(Error::Write(_))));
    let err = encrypt(&mut &pattern(10 * C)[..], Failing { budget: 3000 }, &key(1), &options()).unwrap_err();
    assert!(matches!(err, Error::Write(_)));
    let encryptor = Encryptor::new(Failing { budget: 3000 }, &key(1), &options()).unwrap();
    let err = encryptor.encrypt_from_pipelined(Cursor::new(pattern(10 * C)), |_| {}).unwrap_err();
    assert!(matches!(err, Error::Write(_)));
}

#[test]
fn seeking_behaves_as_on_a_regular_file() {
    let plaintext = pattern(5 * C + 3);
    let file = write_in_pieces(&plaintext, 1 << 20, &options());
    let mut reader = SeekableDecryptor::new(Cursor::new(file), &key(1)).unwrap();
    assert_eq!(reader.len(), plaintext.len() as u64);
    let mut buf = [0u8; 10];
    assert_eq!(reader.seek(SeekFrom::End(-4)).unwrap(), plaintext.len() as u64 - 4);
    assert_eq!(reader.read(&mut buf).unwrap(), 4);
    assert_eq!(&buf[..4], &plaintext[plaintext.len() - 4..]);
    assert_eq!(reader.read(&mut buf).unwrap(), 0);
    assert_eq!(reader.seek(SeekFrom::Start(1 << 40)).unwrap(), 1 << 40);
    assert_eq!(reader.read(&mut buf).unwrap(), 0);
    let err = reader.seek(SeekFrom::Current(-(1 << 41))).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    assert_eq!(reader.stream_position().unwrap(), 1 << 40);
    reader.seek(SeekFrom::Start(C as u64 - 2)).unwrap();
    reader.read_exact(&mut buf).unwrap();
    assert_eq!(buf, plaintext[C - 2..C + 8]);
    assert_eq!(reader.read_at(3 * C as u64, &mut buf).unwrap(), 10);
    assert_eq!(buf, plaintext[3 * C..3 * C + 10]);
    assert_eq!(reader.stream_position().unwrap(), C as u64 + 8);
    let empty = write_in_pieces(b"", 1, &options());
    let mut reader = SeekableDecryptor::new(Cursor::new(empty), &key(1)).unwrap();
    assert!(reader.is_empty());
    assert_eq!(reader.read(&mut buf).unwrap(), 0);
}

/// Counts the bytes read from the source.
struct Metered<R> {
    inner: R,
    read: u64,
}

impl<R: Read> Read for Metered<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

impl<R: Seek> Seek for Metered<R> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.inner.seek(to)
    }
}

#[test]
fn random_access_reads_only_the_chunks_it_needs() {
    let plaintext = pattern(200 * C);
    let file = write_in_pieces(&plaintext, 1 << 20, &options());
    let mut reader = SeekableDecryptor::new(Metered { inner: Cursor::new(file), read: 0 }, &key(1)).unwrap();
    let mut buf = vec![0u8; C];
    reader.read_at(100 * C as u64, &mut buf).unwrap();
    assert_eq!(buf, plaintext[100 * C..101 * C]);
    let metered = reader.into_inner();
    // The header, the final chunk, and the one chunk read.
    assert_eq!(metered.read, (HEADER_LEN + 2 * (C + CHUNK_OVERHEAD)) as u64);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_reads_return_the_plaintext(len in 0usize..6 * C, reads in prop::collection::vec((0u64..7 * C as u64, 0usize..3 * C), 1..8)) {
        let plaintext = pattern(len);
        let file = write_in_pieces(&plaintext, 333, &options());
        let mut reader = SeekableDecryptor::new(Cursor::new(file), &key(1)).unwrap();
        for (offset, want) in reads {
            let mut buf = vec![0u8; want];
            let n = reader.read_at(offset, &mut buf).unwrap();
            let start = (offset as usize).min(len);
            let end = (start + want).min(len);
            prop_assert_eq!(&buf[..n], &plaintext[start..end]);
            reader.seek(SeekFrom::Start(offset)).unwrap();
            let mut streamed = Vec::new();
            (&mut reader).take(want as u64).read_to_end(&mut streamed).unwrap();
            prop_assert_eq!(&streamed[..], &plaintext[start..end]);
        }
    }
}

#[test]
fn files_to_recipients_read_through_every_reader() {
    let x = Identity::generate(RecipientKind::X25519).unwrap();
    let pq = Identity::generate(RecipientKind::Hybrid).unwrap();
    let stranger = Identity::generate(RecipientKind::X25519).unwrap();
    // Both kinds in one file: only when asked for by name.
    let both = vec![x.recipient(), pq.recipient()];
    let refused = encrypt(&mut &b"hi"[..], Vec::new(), &Secret::Recipients(both.clone()), &options());
    assert!(matches!(&refused, Err(Error::Invalid(why)) if why.contains("quantum")), "{refused:?}");
    let mixed_identities = Secret::Identities(vec![x.clone(), pq.clone()]);
    assert!(matches!(
        encrypt(&mut &b"hi"[..], Vec::new(), &mixed_identities, &options()),
        Err(Error::Invalid(_))
    ));
    let to = Secret::MixedRecipients(both);
    for len in [0, 1, C, 3 * C + 17] {
        let plaintext = pattern(len);
        let file = encrypt(&mut &plaintext[..], Vec::new(), &to, &options()).unwrap().0;
        assert_eq!(file.len(), 44 + 81 + 1169 + 32 + len + len.div_ceil(C).max(1) * CHUNK_OVERHEAD);
        for identity in [&x, &pq] {
            for out in read_all_ways(&file, &Secret::Identities(vec![stranger.clone(), identity.clone()])) {
                assert_eq!(out.as_deref(), Ok(&plaintext[..]), "length {len}");
            }
        }
        for out in read_all_ways(&file, &Secret::Identities(vec![stranger.clone()])) {
            assert!(out.unwrap_err().contains("no identity matched"));
        }
        for out in read_all_ways(&file, &key(1)) {
            assert!(out.unwrap_err().contains("encrypted to recipients"));
        }
    }
    // A writer given identities encrypts to their recipients; a reader given
    // recipients is refused; passphrase and key files stay version 1.
    let file =
        encrypt(&mut &b"hi"[..], Vec::new(), &Secret::Identities(vec![pq.clone()]), &options()).unwrap().0;
    assert_eq!((file[6], file[43], file[44]), (2, 1, 2));
    let refused = Decryptor::new(&file[..], &Secret::Recipients(vec![pq.recipient()])).unwrap_err();
    assert!(matches!(refused, Error::Invalid(_)), "{refused:?}");
    let v1 = write_in_pieces(b"hi", 7, &options());
    let err = Decryptor::new(&v1[..], &Secret::Identities(vec![x.clone()])).unwrap_err();
    assert!(
        matches!(err, Error::Decode(DecodeError::NotForIdentities { file_uses_passphrase: false })),
        "{err:?}"
    );
    assert!(Encryptor::new(Vec::new(), &Secret::Recipients(Vec::new()), &options()).is_err());
    assert!(Encryptor::new(Vec::new(), &Secret::Recipients(vec![x.recipient(); 257]), &options()).is_err());
}

/// Bytes after the final chunk are `TrailingData` for every reader: the
/// streaming reader; `SeekableDecryptor` and `RandomAccess` when the bytes are
/// in the file and still within the final chunk's slot (beyond it, the size
/// points at a chunk that is not there, and that chunk's error comes first);
/// and `RandomAccess::verify_final` given more than `final_chunk` named.
#[test]
fn trailing_bytes_are_trailing_data_for_every_reader() {
    fn decode<T>(result: Result<T, Error>, what: &str) -> DecodeError {
        match result {
            Err(Error::Decode(err)) => err,
            Err(other) => panic!("{what}: {other:?}"),
            Ok(_) => panic!("{what}: trailing bytes accepted"),
        }
    }
    for len in [0, 5, C, 3 * C + 5] {
        let plaintext = pattern(len);
        let file = write_in_pieces(&plaintext, 1 << 20, &options());
        let final_stored = (file.len() - HEADER_LEN - 1) % (C + CHUNK_OVERHEAD) + 1;
        for extra in [1, 15, 16, 20, 100, C - 5, C + 20, 3 * C] {
            let bad = [&file[..], &vec![0xa5; extra]].concat();
            let what = format!("{len} bytes, {extra} more");
            let expected = decode(decrypt(&bad[..], io::sink(), &key(1)), &what);
            assert_eq!(expected, DecodeError::TrailingData, "{what}");
            let seekable = decode(SeekableDecryptor::new(Cursor::new(&bad), &key(1)), &what);
            let random = decode(random_access_all(&bad, &key(1)), &what);
            if final_stored + extra <= C + CHUNK_OVERHEAD {
                assert_eq!((&seekable, &random), (&expected, &expected), "{what}");
            }

            let header = &file[..file.len().min(MAX_HEADER_LEN)];
            let mut access = RandomAccess::new(header, file.len() as u64, &key(1)).unwrap();
            let (at, _) = access.final_chunk();
            let verified = access.verify_final(&bad[at as usize..]);
            assert_eq!(decode(verified, &format!("verify_final, {what}")), expected);
            assert_eq!(access.len(), None, "{what}");
        }
    }
}

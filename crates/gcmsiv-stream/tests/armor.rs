//! The ASCII armor (docs/FORMAT.md, "ASCII armor"): what the writer writes,
//! line by line, against an independent Base64 encoder; round trips at every
//! small length and around line boundaries, through writers fed in odd pieces
//! and readers fed a byte at a time; every malformed input refused with a
//! message that names the fault; and gcmsiv files, armored or not, decrypting
//! to the same bytes through `MaybeArmored`.

use std::io::{self, Cursor, Read, Write};

use base64ct::{Base64, Encoding};
use gcmsiv_stream::armor::{
    ArmorError, ArmoredReader, ArmoredWriter, BEGIN, COLUMNS, END, MAX_WHITESPACE, MaybeArmored, is_armored,
};
use gcmsiv_stream::{DecodeError, Decryptor, Error, MasterKey, Options, Secret, decrypt, encrypt};

fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 131 + i / 251) as u8).collect()
}

/// The armor of `data`, written in pieces of `piece` bytes.
fn armor_in_pieces(data: &[u8], piece: usize) -> Vec<u8> {
    let mut writer = ArmoredWriter::new(Vec::new());
    for part in data.chunks(piece) {
        writer.write_all(part).unwrap();
    }
    writer.finish().unwrap()
}

/// A reader that hands out at most one byte per call (as a pipe may).
struct OneByte<R>(R);

impl<R: Read> Read for OneByte<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(1);
        self.0.read(&mut buf[..n])
    }
}

/// Everything an `ArmoredReader` over `input` gives, read into buffers of `out` bytes.
fn dearmor(input: impl Read, out: usize) -> io::Result<Vec<u8>> {
    let mut reader = ArmoredReader::new(input);
    let mut data = Vec::new();
    let mut buf = vec![0; out];
    loop {
        match reader.read(&mut buf)? {
            0 => return Ok(data),
            n => data.extend_from_slice(&buf[..n]),
        }
    }
}

/// `data` in standard Base64 with padding, by RustCrypto's encoder.
fn base64(data: &[u8]) -> String {
    let mut text = vec![0; Base64::encoded_len(data)];
    Base64::encode(data, &mut text).unwrap().to_string()
}

/// What the writer must write for `data`, built from `base64ct` (an encoder
/// independent of the one the module uses) and the format's layout.
fn expected_armor(data: &[u8]) -> Vec<u8> {
    let body = base64(data);
    let mut text = format!("{BEGIN}\n");
    for line in body.as_bytes().chunks(COLUMNS) {
        text.push_str(std::str::from_utf8(line).unwrap());
        text.push('\n');
    }
    text.push_str(END);
    text.push('\n');
    text.into_bytes()
}

/// Lengths around every line boundary (48 bytes a line) up to 40 lines.
fn boundary_lengths() -> Vec<usize> {
    let mut lengths: Vec<usize> = (0..200).collect();
    for lines in 1..=40 {
        lengths.extend([48 * lines - 2, 48 * lines - 1, 48 * lines, 48 * lines + 1, 48 * lines + 2]);
    }
    lengths.sort();
    lengths.dedup();
    lengths
}

#[test]
fn armor_writer_matches_an_independent_encoder() {
    for len in boundary_lengths() {
        let data = pattern(len);
        let text = armor_in_pieces(&data, 7);
        assert_eq!(text, expected_armor(&data), "length {len}");
        let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
        let body = &lines[1..lines.len() - 2];
        assert_eq!(body.is_empty(), len == 0, "no body line exactly for no bytes");
        if let Some((last, full)) = body.split_last() {
            assert!(full.iter().all(|line| line.len() == COLUMNS), "length {len}");
            assert!(!last.is_empty() && last.len() <= COLUMNS, "length {len}");
        }
    }
    // RFC 4648's vectors, section 10.
    for (data, base64) in [("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foobar", "Zm9vYmFy")] {
        let text = armor_in_pieces(data.as_bytes(), 1);
        assert_eq!(String::from_utf8(text).unwrap(), format!("{BEGIN}\n{base64}\n{END}\n"));
    }
}

#[test]
fn armor_round_trips_at_every_small_length_and_around_lines() {
    for len in boundary_lengths() {
        let data = pattern(len);
        for piece in [1, 5, 47, 48, 49, 1000] {
            let text = armor_in_pieces(&data, piece);
            assert_eq!(text, expected_armor(&data), "length {len}, pieces of {piece}");
        }
        let text = expected_armor(&data);
        for out in [1, 3, 48, 4096] {
            assert_eq!(dearmor(&text[..], out).unwrap(), data, "length {len}, reads of {out}");
        }
        assert_eq!(dearmor(OneByte(&text[..]), 5).unwrap(), data, "length {len}, one byte at a time");
    }
}

#[test]
fn armor_round_trips_several_mib() {
    let data = pattern(5 * (1 << 20) + 12_345);
    let reference = expected_armor(&data);
    // Pieces smaller than a line, around the writer's 64 KiB batch, and larger.
    for piece in [1, 47, 4099, 65_536, 100_003, data.len()] {
        assert!(armor_in_pieces(&data, piece) == reference, "pieces of {piece}");
    }
    let mut decoded = Vec::new();
    ArmoredReader::new(&reference[..]).read_to_end(&mut decoded).unwrap();
    assert!(decoded == data);
    assert!(dearmor(OneByte(&reference[..]), 4096).unwrap() == data);
    // Through io::copy, as the tool's pipes would.
    let mut writer = ArmoredWriter::new(Vec::new());
    io::copy(&mut ArmoredReader::new(&reference[..]), &mut writer).unwrap();
    assert!(writer.finish().unwrap() == reference);
}

#[test]
fn armor_allows_crlf_whitespace_around_and_an_end_line_without_line_end() {
    let data = pattern(100);
    let lf = String::from_utf8(expected_armor(&data)).unwrap();
    let crlf = lf.replace('\n', "\r\n");
    let no_final_lf = lf.strip_suffix('\n').unwrap().to_string();
    let spaced = format!(" \n\t\r\n{}{lf} \t\n\r\n", " ".repeat(3));
    let most_whitespace = format!("{}{lf}{}", "\n".repeat(MAX_WHITESPACE), " ".repeat(MAX_WHITESPACE - 1));
    let end_then_spaces = lf.replace(&format!("{END}\n"), &format!("{END}  \n"));
    for (what, text) in [
        ("CRLF", crlf.as_str()),
        ("END at the end of the input", no_final_lf.as_str()),
        ("whitespace around", spaced.as_str()),
        ("the most whitespace around", most_whitespace.as_str()),
        ("spaces after END", end_then_spaces.as_str()),
    ] {
        assert_eq!(dearmor(text.as_bytes(), 64).unwrap(), data, "{what}");
        assert_eq!(dearmor(OneByte(text.as_bytes()), 7).unwrap(), data, "{what}, one byte at a time");
    }
    let empty = format!("{BEGIN}\n{END}\n");
    assert_eq!(dearmor(empty.as_bytes(), 8).unwrap(), b"", "no body line: zero bytes");
}

/// The armor error `text` gives, read whole and a byte at a time; checks that
/// it is InvalidData carrying an `ArmorError`, that both ways agree, and that
/// the reader keeps failing.
fn armor_error(text: &[u8]) -> String {
    let mut messages = Vec::new();
    for one_byte in [false, true] {
        let input: Box<dyn Read> =
            if one_byte { Box::new(OneByte(Cursor::new(text.to_vec()))) } else { Box::new(text) };
        let mut reader = ArmoredReader::new(input);
        let err = reader.read_to_end(&mut Vec::new()).expect_err("malformed armor must be refused");
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        let armor = ArmorError::from_io(&err).expect("an ArmorError inside");
        assert_eq!(err.to_string(), format!("malformed armor: {}", armor.reason()));
        let again = reader.read(&mut [0; 16]).expect_err("a failed reader keeps failing");
        assert_eq!(again.to_string(), err.to_string());
        messages.push(err.to_string());
    }
    assert_eq!(messages[0], messages[1], "the same error however the input arrives");
    messages.pop().unwrap()
}

#[test]
fn malformed_armor_is_refused_with_a_message_naming_the_fault() {
    let data = pattern(100); // Two full lines (96 bytes) and a last line of 4 bytes.
    let good = String::from_utf8(expected_armor(&data)).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    assert_eq!(lines.len(), 5);
    let join = |lines: &[&str]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    let (l1, l2, l3) = (lines[1], lines[2], lines[3]);
    let long = format!("{l1}A");
    let short_first = &l1[..60];
    let padded_full = base64(&pattern(47));
    assert_eq!(padded_full.len(), COLUMNS);
    let cases: Vec<(&str, String, &str)> = vec![
        ("empty input", String::new(), "the input is empty"),
        ("only whitespace", " \n\n ".into(), "only whitespace"),
        ("wrong BEGIN", good.replace("GCMSIV", "AGE"), "line 1 is not the BEGIN line"),
        ("BEGIN with a trailing space", good.replacen('\n', " \n", 1), "line 1 is not the BEGIN line"),
        ("garbage before BEGIN", format!("hello\n{good}"), "line 1 is not the BEGIN line"),
        ("a long first line", "x".repeat(10_000), "line 1 is not the BEGIN line"),
        ("binary", "GCMSIV\u{1}\u{0}".into(), "line 1 is not the BEGIN line"),
        ("BEGIN after a blank line", format!("\n\n--{good}"), "line 3 is not the BEGIN line"),
        (
            "too much whitespace before",
            format!("{}{good}", " ".repeat(MAX_WHITESPACE + 1)),
            "more than 1024 bytes of whitespace before the BEGIN line",
        ),
        ("BEGIN alone", BEGIN.into(), "ends after the BEGIN line"),
        ("BEGIN and no more", format!("{BEGIN}\n"), "ends after line 1 without the END line"),
        ("no END line", join(&lines[..4]), "ends after line 4 without the END line (truncated armor)"),
        ("cut inside the END line", good[..good.len() - 10].into(), "ends inside line 5"),
        ("cut inside a body line", good[..BEGIN.len() + 1 + 30].into(), "ends inside line 2"),
        ("wrong END", good.replace("END GCMSIV", "END AGE"), "line 5 is neither Base64 nor the END line"),
        (
            "END with text after it",
            good.replace(END, &format!("{END}x")),
            "line 5 is neither Base64 nor the END line",
        ),
        ("data after END", format!("{good}\n x"), "data after the END line (line 5), on line 7"),
        ("a second armor after END", format!("{good}{good}"), "data after the END line (line 5), on line 6"),
        (
            "too much whitespace after",
            format!("{good}{}", "\n".repeat(MAX_WHITESPACE)),
            "more than 1024 bytes of whitespace after the END line",
        ),
        ("a line too long", join(&[BEGIN, &long, l2, l3, END]), "line 2 is longer than 64 characters"),
        ("a very long line", join(&[BEGIN, &"A".repeat(1000), END]), "line 2 is longer than 64 characters"),
        (
            "a short line in the middle",
            join(&[BEGIN, short_first, l2, l3, END]),
            "line 2 is shorter than 64 characters but is not the last line",
        ),
        ("a line after the short last one", join(&[BEGIN, l1, l2, l3, l3, END]), "line 4 is shorter than 64"),
        (
            "a line after a padded full one",
            join(&[BEGIN, &padded_full, l3, END]),
            "line 2 is padded but is not the last line",
        ),
        ("an empty line", join(&[BEGIN, l1, "", l2, l3, END]), "line 3 is empty"),
        ("a blank line before END", join(&[BEGIN, l1, l2, l3, "", END]), "line 5 is empty"),
        ("an empty line for no bytes", join(&[BEGIN, "", END]), "line 2 is empty"),
        ("a line of spaces", join(&[BEGIN, "    ", END]), "line 2 contains byte 0x20, which is not Base64"),
        ("a bad character", join(&[BEGIN, &l1.replacen('A', "*", 1), l2, l3, END]), "line 2 contains '*'"),
        ("the URL-safe alphabet", join(&[BEGIN, "-_8=", END]), "line 2 is neither Base64"),
        ("a URL-safe character", join(&[BEGIN, "Zm_v", END]), "line 2 contains '_'"),
        ("a non-ASCII byte", format!("{BEGIN}\nZm9v\u{e9}\n{END}\n"), "line 2 contains byte 0xc3"),
        ("a tab", join(&[BEGIN, "Zm9v\t", END]), "line 2 contains byte 0x09"),
        ("padding in the middle", join(&[BEGIN, "Zg==Zm8=", END]), "line 2 has padding ('=') before its end"),
        ("padding then data", join(&[BEGIN, "Zm=v", END]), "line 2 has padding ('=') before its end"),
        ("three padding characters", join(&[BEGIN, "Z===", END]), "more than two padding characters"),
        ("no padding", join(&[BEGIN, "Zg", END]), "line 2 is 2 characters long, not a multiple of 4"),
        ("a lone character", join(&[BEGIN, "Zm9vY", END]), "not a multiple of 4"),
        ("non-canonical bits (two pads)", join(&[BEGIN, "Zh==", END]), "line 2 ends in non-canonical Base64"),
        ("non-canonical bits (one pad)", join(&[BEGIN, "Zm9=", END]), "line 2 ends in non-canonical Base64"),
        (
            "a CRLF line among LF",
            good.replacen(&format!("{l2}\n"), &format!("{l2}\r\n"), 1),
            "line 3 ends with CRLF",
        ),
        (
            "an LF line among CRLF",
            good.replace('\n', "\r\n").replacen(&format!("{l2}\r\n"), &format!("{l2}\n"), 1),
            "line 3 ends with LF but the BEGIN line with CRLF",
        ),
        ("a lone CR", good.replacen(&format!("{l2}\n"), &format!("{l2}\r{l3}\n"), 1), "line 3 is longer"),
    ];
    for (what, text, expected) in cases {
        let message = armor_error(text.as_bytes());
        assert!(message.starts_with("malformed armor: "), "{what}: {message}");
        assert!(message.contains(expected), "{what}: {message:?} does not say {expected:?}");
    }
}

#[test]
fn every_cut_of_the_armor_is_refused() {
    for len in [0, 1, 47, 48, 100] {
        let text = expected_armor(&pattern(len));
        // Only the final LF may go (the END line may end the input).
        for cut in 0..text.len() - 1 {
            let message = armor_error(&text[..cut]);
            assert!(
                message.contains("truncated armor")
                    || message.contains("empty")
                    || message.contains("not the BEGIN"),
                "length {len}, cut at {cut}: {message}"
            );
        }
    }
}

#[test]
fn armor_garbage_read_before_refusing_is_bounded() {
    /// An endless input of one byte, counting what was read.
    struct Endless(u8, usize);
    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(100);
            buf[..n].fill(self.0);
            self.1 += n;
            Ok(n)
        }
    }
    for byte in [b'x', b' ', b'\n', b'A'] {
        let mut input = Endless(byte, 0);
        let err = ArmoredReader::new(OneByte(&mut input)).read(&mut [0; 64]).unwrap_err();
        assert!(ArmorError::from_io(&err).is_some(), "{err}");
        assert!(input.1 <= MAX_WHITESPACE + 2 * COLUMNS, "read {} bytes of garbage", input.1);
    }
    // An endless body of full lines is read line by line, as it comes: no
    // bound, but constant memory and no error until it ends.
    let mut text = format!("{BEGIN}\n").into_bytes();
    text.extend(format!("{}\n", "A".repeat(64)).repeat(10).as_bytes());
    let mut reader = ArmoredReader::new(&text[..]);
    let mut out = [0u8; 480];
    reader.read_exact(&mut out).unwrap();
    assert_eq!(out, [0; 480]);
}

#[test]
fn writer_flush_writes_only_whole_lines_and_drop_leaves_truncated_armor() {
    let mut writer = ArmoredWriter::new(Vec::new());
    writer.write_all(&pattern(100)).unwrap();
    writer.flush().unwrap();
    let flushed = writer.get_ref().clone();
    assert_eq!(flushed, expected_armor(&pattern(100))[..BEGIN.len() + 1 + 2 * 65]);
    drop(writer);
    assert!(armor_error(&flushed).contains("truncated armor"));
}

#[test]
fn armor_writer_errors_take_nothing() {
    /// Accepts `left` bytes, then fails.
    struct Failing {
        left: usize,
    }
    impl Write for Failing {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.left == 0 {
                return Err(io::Error::other("disk full"));
            }
            let n = buf.len().min(self.left);
            self.left -= n;
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut writer = ArmoredWriter::new(Failing { left: 10 });
    let data = pattern(1 << 20);
    let taken = writer.write(&data).unwrap();
    assert!(taken > 0 && taken < data.len(), "a batch at a time: {taken}");
    let err = writer.write(&data[taken..]).unwrap_err();
    assert_eq!(err.to_string(), "disk full");
    assert!(writer.finish().is_err());
}

#[test]
fn armor_detection() {
    assert!(is_armored(BEGIN.as_bytes()));
    assert!(is_armored(b" \r\n\t-"));
    assert!(!is_armored(b""));
    assert!(!is_armored(b"  \n"));
    assert!(!is_armored(gcmsiv_stream::format::MAGIC), "a binary file is never armor");
    assert!(!is_armored(b"GCMSIV\x01"));
    assert!(!is_armored(b" GCMSIV"));
    let cases: [(&[u8], bool); 5] =
        [(&b""[..], false), (b"   ", false), (b"GCMSIV", false), (b"\n\n-----BEGIN", true), (b"-", true)];
    for (input, armored) in cases {
        let reader = MaybeArmored::new(OneByte(input)).unwrap();
        assert_eq!(reader.is_armored(), armored, "{input:?}");
    }
    // Past the most leading whitespace allowed, nothing is armor: the bytes
    // pass through, whitespace and all.
    let input = format!("{}-----BEGIN", " ".repeat(MAX_WHITESPACE + 1));
    let mut reader = MaybeArmored::new(input.as_bytes()).unwrap();
    assert!(!reader.is_armored());
    let mut out = Vec::new();
    reader.read_to_end(&mut out).unwrap();
    assert_eq!(out, input.as_bytes());
    // Binary input of any length passes through unchanged, however it arrives.
    for len in [0, 1, 5, 6, 1025, 100_000] {
        let data: Vec<u8> = b"GCMSIV".iter().copied().chain(pattern(len)).collect();
        for one_byte in [false, true] {
            let input: Box<dyn Read> =
                if one_byte { Box::new(OneByte(&data[..])) } else { Box::new(&data[..]) };
            let mut out = Vec::new();
            MaybeArmored::new(input).unwrap().read_to_end(&mut out).unwrap();
            assert!(out == data, "length {len}");
        }
    }
}

#[test]
fn armored_and_binary_gcmsiv_files_decrypt_to_the_same_bytes() {
    let secret = Secret::Key(MasterKey::generate().unwrap());
    let options = Options::new().chunk_size(1024).unwrap();
    for len in [0, 1, 1023, 1024, 5000, 300_000] {
        let plaintext = pattern(len);
        let (binary, _) = encrypt(&mut &plaintext[..], Vec::new(), &secret, &options).unwrap();
        let (armored, _) =
            encrypt(&mut &plaintext[..], ArmoredWriter::new(Vec::new()), &secret, &options).unwrap();
        let armored = armored.finish().unwrap();
        assert!(armored.is_ascii() && armored.starts_with(BEGIN.as_bytes()));
        let with_whitespace = [b"\r\n  ".as_slice(), &armored, b"\n\n"].concat();
        for (what, file) in
            [("binary", &binary), ("armored", &armored), ("armored, spaced", &with_whitespace)]
        {
            for one_byte in [false, true] {
                let input: Box<dyn Read + Send> = if one_byte {
                    Box::new(OneByte(Cursor::new(file.clone())))
                } else {
                    Box::new(Cursor::new(file.clone()))
                };
                let reader = MaybeArmored::new(input).unwrap();
                assert_eq!(reader.is_armored(), what != "binary");
                let (out, n) = decrypt(reader, Vec::new(), &secret).unwrap();
                assert_eq!(n, len as u64);
                assert!(out == plaintext, "{what}, length {len}");
            }
        }
        // The pipelined decryptor takes it too (Send + 'static).
        let reader = MaybeArmored::new(Cursor::new(armored.clone())).unwrap();
        let out = Decryptor::new(reader, &secret).unwrap().decrypt_to_pipelined(Vec::new(), |_| {}).unwrap();
        assert!(out == plaintext);
    }
}

#[test]
fn a_broken_armored_file_fails_with_the_armor_error_or_the_format_error() {
    let secret = Secret::Key(MasterKey::generate().unwrap());
    let options = Options::new().chunk_size(1024).unwrap();
    let plaintext = pattern(5000);
    let (armored, _) =
        encrypt(&mut &plaintext[..], ArmoredWriter::new(Vec::new()), &secret, &options).unwrap();
    let armored = armored.finish().unwrap();
    let read =
        |file: &[u8]| decrypt(MaybeArmored::new(file).unwrap(), Vec::new(), &secret).map(|(out, _)| out);

    // Malformed armor: the reader's error, inside Error::Read.
    let lines: Vec<&[u8]> = armored.split(|&b| b == b'\n').collect();
    let mut short = lines.clone();
    short[40] = &lines[40][..60];
    for file in [armored[..armored.len() - 20].to_vec(), short.join(&b'\n'), [&armored[..], b"x"].concat()] {
        match read(&file) {
            Err(Error::Read(err)) => assert!(ArmorError::from_io(&err).is_some(), "{err}"),
            other => panic!("expected a malformed-armor error, got {other:?}"),
        }
    }
    // Well-formed armor of a tampered file: the format's error.
    let mut tampered = armored.clone();
    let at = BEGIN.len() + 1 + 65 * 30 + 10;
    tampered[at] = if tampered[at] == b'A' { b'B' } else { b'A' };
    match read(&tampered) {
        Err(Error::Decode(err)) => assert!(matches!(err, DecodeError::ChunkAuthentication(_)), "{err}"),
        other => panic!("expected an authentication failure, got {other:?}"),
    }
    // The armor's own Base64 holds the binary file.
    let mut binary = Vec::new();
    ArmoredReader::new(&armored[..]).read_to_end(&mut binary).unwrap();
    assert!(binary.starts_with(b"GCMSIV"));
    assert!(read(&binary).unwrap() == plaintext);
}

/// A writer whose bytes stay readable after a failed pipelined decryption.
#[derive(Clone, Debug, Default)]
struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Armor whose END line is missing, or followed by data: every reader stops
/// with the armor's error, and releases nothing of the final chunk (it
/// authenticated, but the input around the file did not end cleanly), only
/// the whole chunks before it.
#[test]
fn a_broken_end_of_armor_holds_the_final_chunk_back() {
    let secret = Secret::Key(MasterKey::generate().unwrap());
    let options = Options::new().chunk_size(1024).unwrap();
    for len in [0, 100, 1024, 5000, 70_000] {
        let plaintext = pattern(len);
        let (armored, _) =
            encrypt(&mut &plaintext[..], ArmoredWriter::new(Vec::new()), &secret, &options).unwrap();
        let armored = armored.finish().unwrap();
        let without_end = &armored[..armored.len() - END.len() - 1];
        assert!(without_end.ends_with(b"\n") && !without_end.ends_with(b"-\n"));
        let before_final = len.saturating_sub(1) / 1024 * 1024;
        let files = [without_end.to_vec(), [&armored[..], b"data\n"].concat()];
        for (what, file) in ["no END line", "data after the END line"].iter().zip(&files) {
            let is_armor_error = |err: &Error| match err {
                Error::Read(e) => ArmorError::from_io(e).is_some(),
                _ => false,
            };
            for parallel in [true, false] {
                let mut out = Vec::new();
                let reader = MaybeArmored::new(&file[..]).unwrap();
                let err = Decryptor::new(reader, &secret)
                    .unwrap()
                    .parallel(parallel)
                    .decrypt_to(&mut out)
                    .unwrap_err();
                assert!(is_armor_error(&err), "{what}: {err}");
                assert!(out == plaintext[..before_final], "{what}, {len}: released {} bytes", out.len());

                let mut out = Vec::new();
                let reader = MaybeArmored::new(&file[..]).unwrap();
                let mut decryptor = Decryptor::new(reader, &secret).unwrap().parallel(parallel);
                let err = decryptor.read_to_end(&mut out).unwrap_err();
                assert!(ArmorError::from_io(&err).is_some(), "{what}: {err}");
                assert!(out == plaintext[..before_final], "{what}, {len}: read {} bytes", out.len());
            }
            let out = Shared::default();
            let reader = MaybeArmored::new(Cursor::new(file.clone())).unwrap();
            let err = Decryptor::new(reader, &secret)
                .unwrap()
                .decrypt_to_pipelined(out.clone(), |_| {})
                .unwrap_err();
            assert!(is_armor_error(&err), "{what}: {err}");
            let out = out.0.lock().unwrap();
            assert!(*out == plaintext[..before_final], "{what}, {len}: piped {} bytes", out.len());
        }
    }
}

//! ASCII armor (docs/FORMAT.md, "ASCII armor"): any bytes as strict PEM-style
//! Base64, for channels that carry only text, as age's armor does.
//!
//! ```text
//! -----BEGIN GCMSIV ENCRYPTED FILE-----
//! R0NNU0lWAQ...  (standard Base64 with padding, 64 characters a line)
//! -----END GCMSIV ENCRYPTED FILE-----
//! ```
//!
//! - [`ArmoredWriter`]: a [`Write`] adapter that armors what it is given
//!   (call [`ArmoredWriter::finish`]).
//! - [`ArmoredReader`]: a [`Read`] adapter that decodes armor strictly: every
//!   deviation from what [`ArmoredWriter`] writes, apart from the whitespace
//!   the format allows around the armor and CRLF line ends, is an
//!   [`io::ErrorKind::InvalidData`] error carrying an [`ArmorError`].
//! - [`MaybeArmored`] and [`is_armored`]: decrypting either kind of file, from
//!   any reader (no seeking: standard input works).
//!
//! Both adapters work in constant memory, whatever the length. The armor knows
//! nothing of the gcmsiv format: it carries any bytes.
//!
//! ```
//! use std::io::{Read, Write};
//! use gcmsiv_stream::armor::{ArmoredReader, ArmoredWriter};
//!
//! let mut writer = ArmoredWriter::new(Vec::new());
//! writer.write_all(b"any bytes")?;
//! let text = writer.finish()?;
//! assert_eq!(
//!     text,
//!     b"-----BEGIN GCMSIV ENCRYPTED FILE-----\nYW55IGJ5dGVz\n-----END GCMSIV ENCRYPTED FILE-----\n"
//! );
//! let mut bytes = Vec::new();
//! ArmoredReader::new(&text[..]).read_to_end(&mut bytes)?;
//! assert_eq!(bytes, b"any bytes");
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fmt;
use std::io::{self, Read, Write};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

/// The line that opens the armor.
pub const BEGIN: &str = "-----BEGIN GCMSIV ENCRYPTED FILE-----";

/// The line that closes the armor.
pub const END: &str = "-----END GCMSIV ENCRYPTED FILE-----";

/// Base64 characters on every line of the armor but the last (which holds 1 to 64).
pub const COLUMNS: usize = 64;

/// The most whitespace a reader accepts before the BEGIN line, and after the
/// END line (its line end included), in bytes: a bound on the garbage read
/// before an input is refused.
pub const MAX_WHITESPACE: usize = 1024;

/// Bytes a full line encodes.
const LINE_BYTES: usize = COLUMNS / 4 * 3;

/// The most a line may hold with its CR, plus one to tell that it is longer.
const LINE_CAP: usize = COLUMNS + 2;

/// The writer's output buffer: 1024 lines (64 KiB of input), written at once.
const OUT_CAP: usize = 1024 * (COLUMNS + 1);

/// The reader's input buffer; at least [`MAX_WHITESPACE`] + 1, so that
/// [`MaybeArmored`] can look past the most leading whitespace allowed.
const IN_CAP: usize = 16 * 1024;

/// Why an armored input was refused: the reason names the line (counted from
/// 1, from the start of the input) and what is wrong with it. It travels inside
/// an [`io::ErrorKind::InvalidData`] error; [`ArmorError::from_io`] gets it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArmorError {
    reason: String,
}

impl ArmorError {
    fn new(reason: String) -> Self {
        ArmorError { reason }
    }

    /// What is wrong, without the "malformed armor: " prefix of the message.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The `ArmorError` inside an I/O error returned by this module's readers,
    /// if there is one.
    pub fn from_io(err: &io::Error) -> Option<&ArmorError> {
        err.get_ref()?.downcast_ref::<ArmorError>()
    }
}

impl fmt::Display for ArmorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed armor: {}", self.reason)
    }
}

impl std::error::Error for ArmorError {}

impl From<ArmorError> for io::Error {
    /// An [`io::ErrorKind::InvalidData`] error carrying the `ArmorError`.
    fn from(err: ArmorError) -> Self {
        io::Error::new(io::ErrorKind::InvalidData, err)
    }
}

/// Whether an input that starts with `prefix` is armored: its first byte that
/// is not ASCII whitespace is `-` (the start of [`BEGIN`]). A binary gcmsiv
/// file starts with `GCMSIV`, so it never is. A prefix that is empty or all
/// whitespace is not armored; give at least [`MAX_WHITESPACE`] + 1 bytes (or
/// the whole input, if shorter) to decide as [`MaybeArmored`] does.
pub fn is_armored(prefix: &[u8]) -> bool {
    prefix.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'-')
}

/// A [`Write`] adapter that writes what it is given as armor to the inner
/// writer: the [`BEGIN`] line, the bytes in standard Base64 with padding
/// (RFC 4648, section 4) in lines of [`COLUMNS`] characters, the last line
/// holding the rest (1 to 64 characters; no body line at all for no bytes),
/// then the [`END`] line. Every line ends with LF.
///
/// Lines go to the inner writer in batches of up to 64 KiB of text; the armor
/// is complete only after [`ArmoredWriter::finish`]. A writer dropped without
/// it leaves armor without its END line (and possibly without its last lines),
/// which [`ArmoredReader`] refuses as truncated. After an error from the inner
/// writer, the armor written so far is incomplete: discard it.
pub struct ArmoredWriter<W: Write> {
    inner: W,
    /// Input bytes that do not yet fill a line.
    pending: [u8; LINE_BYTES],
    pending_len: usize,
    /// Complete lines not yet written to `inner`.
    out: Vec<u8>,
}

impl<W: Write> ArmoredWriter<W> {
    /// A writer that armors into `inner`. The [`BEGIN`] line goes out with the
    /// first batch of lines (at the latest, with [`ArmoredWriter::finish`]).
    pub fn new(inner: W) -> Self {
        let mut out = Vec::with_capacity(OUT_CAP);
        out.extend_from_slice(BEGIN.as_bytes());
        out.push(b'\n');
        ArmoredWriter { inner, pending: [0; LINE_BYTES], pending_len: 0, out }
    }

    /// The inner writer.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// Writes the last line (the bytes that did not fill a line, if any) and
    /// the [`END`] line, flushes, and returns the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        if self.pending_len > 0 {
            let pending = self.pending;
            self.push_line(&pending[..self.pending_len]);
        }
        self.out.extend_from_slice(END.as_bytes());
        self.out.push(b'\n');
        self.write_out()?;
        self.inner.flush()?;
        Ok(self.inner)
    }

    /// Room in the output buffer for another line.
    fn has_room(&self) -> bool {
        self.out.len() + COLUMNS < OUT_CAP
    }

    /// Appends `bytes` (1 to [`LINE_BYTES`]) as one line of Base64 to the output buffer.
    fn push_line(&mut self, bytes: &[u8]) {
        let start = self.out.len();
        let len = bytes.len().div_ceil(3) * 4;
        self.out.resize(start + len, 0);
        STANDARD
            .encode_slice(bytes, &mut self.out[start..])
            .expect("internal error: a line's Base64 fits its buffer");
        self.out.push(b'\n');
    }

    fn write_out(&mut self) -> io::Result<()> {
        self.inner.write_all(&self.out)?;
        self.out.clear();
        Ok(())
    }
}

impl<W: Write> Write for ArmoredWriter<W> {
    /// Takes as much of `buf` as fits the output buffer (writing the buffer
    /// out first if it is full), so an error means nothing of `buf` was taken.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if !self.has_room() {
            self.write_out()?;
        }
        let mut rest = buf;
        if self.pending_len > 0 {
            let take = rest.len().min(LINE_BYTES - self.pending_len);
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&rest[..take]);
            self.pending_len += take;
            rest = &rest[take..];
            if self.pending_len < LINE_BYTES {
                return Ok(buf.len());
            }
            let pending = self.pending;
            self.push_line(&pending);
            self.pending_len = 0;
        }
        while rest.len() >= LINE_BYTES && self.has_room() {
            self.push_line(&rest[..LINE_BYTES]);
            rest = &rest[LINE_BYTES..];
        }
        if rest.len() < LINE_BYTES {
            self.pending[..rest.len()].copy_from_slice(rest);
            self.pending_len = rest.len();
            rest = &[];
        }
        Ok(buf.len() - rest.len())
    }

    /// Writes the complete lines so far and flushes the inner writer; bytes
    /// that do not yet fill a line stay (a line is never split).
    fn flush(&mut self) -> io::Result<()> {
        self.write_out()?;
        self.inner.flush()
    }
}

impl<W: Write> fmt::Debug for ArmoredWriter<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArmoredWriter").finish_non_exhaustive()
    }
}

/// A buffered reader that can look ahead without consuming (for
/// [`MaybeArmored`]) and hand out whole lines (for [`ArmoredReader`]).
struct Input<R> {
    inner: R,
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
}

impl<R: Read> Input<R> {
    fn new(inner: R) -> Self {
        Input { inner, buf: vec![0; IN_CAP].into_boxed_slice(), pos: 0, end: 0 }
    }

    fn buffered(&self) -> &[u8] {
        &self.buf[self.pos..self.end]
    }

    fn consume(&mut self, n: usize) {
        self.pos += n;
    }

    /// Reads more after what is buffered (which must not fill the buffer);
    /// false at the end of the input.
    fn fill_more(&mut self) -> io::Result<bool> {
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
        }
        debug_assert!(self.end < self.buf.len());
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Reads through: what is buffered first, then straight from the inner reader.
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.pos < self.end {
            let n = out.len().min(self.end - self.pos);
            out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
            self.pos += n;
            return Ok(n);
        }
        self.inner.read(out)
    }
}

/// How reading a line ended.
enum LineEnd {
    /// At an LF (not part of the line).
    Lf,
    /// At the end of the input, after at least one byte.
    Eof,
    /// Longer than [`LINE_CAP`] - 1 bytes; the line holds its first [`LINE_CAP`].
    TooLong,
}

/// Where the reader is.
enum State {
    /// Before the BEGIN line.
    Start,
    /// After the BEGIN line: body lines or the END line next.
    Body,
    /// After the END line and the whitespace that follows: the end.
    Done,
    /// Refused; every later read returns this error again.
    Refused(ArmorError),
    /// The inner reader failed; every later read returns an error like it.
    Failed(io::ErrorKind, String),
}

/// A [`Read`] adapter that decodes the armor the inner reader holds (see
/// docs/FORMAT.md, "ASCII armor"), strictly:
///
/// - up to [`MAX_WHITESPACE`] bytes of ASCII whitespace, then the [`BEGIN`]
///   line, exactly;
/// - body lines of exactly [`COLUMNS`] characters of the standard Base64
///   alphabet, except the last, which may be shorter (never empty); padding
///   (`=`) only at the end of the last line, and canonical (the unused bits of
///   the last character zero);
/// - the [`END`] line, then up to [`MAX_WHITESPACE`] bytes of ASCII whitespace
///   (the END line's line end included) and nothing else;
/// - lines end with LF, or all with CRLF (the BEGIN line's line end sets
///   which); the END line may end at the end of the input instead.
///
/// No body line at all is the armor of zero bytes. Anything else, an input
/// that ends before the END line included (truncated armor), is an
/// [`io::ErrorKind::InvalidData`] error carrying an [`ArmorError`] that names
/// the line. Errors are final: later reads return the same error again.
///
/// Decoded bytes are released line by line, as they are read: a caller that
/// needs the whole armor to be well-formed learns it at the end of the input.
/// The gcmsiv decryptors read past the file's final chunk before they release
/// it, so they hold that chunk back until the END line has been checked. The reader
/// parses the BEGIN line at the first read, not when it is made.
pub struct ArmoredReader<R: Read> {
    input: Input<R>,
    state: State,
    /// Whether lines end with CRLF (set by the BEGIN line).
    crlf: bool,
    /// The number of the line read last (counted from 1).
    line_number: u64,
    /// The line read last, and its length.
    line: [u8; LINE_CAP],
    line_len: usize,
    /// The last body line read ended the Base64 (it was short or padded):
    /// the END line must follow.
    ended: Option<(u64, &'static str)>,
    /// Decoded bytes not yet read.
    decoded: [u8; LINE_BYTES],
    decoded_pos: usize,
    decoded_len: usize,
}

impl<R: Read> ArmoredReader<R> {
    /// A reader that decodes the armor `inner` holds.
    pub fn new(inner: R) -> Self {
        Self::from_input(Input::new(inner))
    }

    fn from_input(input: Input<R>) -> Self {
        ArmoredReader {
            input,
            state: State::Start,
            crlf: false,
            line_number: 0,
            line: [0; LINE_CAP],
            line_len: 0,
            ended: None,
            decoded: [0; LINE_BYTES],
            decoded_pos: 0,
            decoded_len: 0,
        }
    }

    /// Reads the next line into `self.line`; `None` at the end of the input.
    fn next_line(&mut self) -> io::Result<Option<LineEnd>> {
        self.line_len = 0;
        loop {
            if self.input.buffered().is_empty() && !self.input.fill_more()? {
                if self.line_len == 0 {
                    return Ok(None);
                }
                self.line_number += 1;
                return Ok(Some(LineEnd::Eof));
            }
            let available = self.input.buffered();
            let window = &available[..available.len().min(LINE_CAP - self.line_len)];
            let (take, lf) = match window.iter().position(|&b| b == b'\n') {
                Some(i) => (i, true),
                None => (window.len(), false),
            };
            self.line[self.line_len..self.line_len + take].copy_from_slice(&window[..take]);
            self.line_len += take;
            self.input.consume(take + lf as usize);
            if lf {
                self.line_number += 1;
                return Ok(Some(LineEnd::Lf));
            }
            if self.line_len == LINE_CAP {
                self.line_number += 1;
                return Ok(Some(LineEnd::TooLong));
            }
        }
    }

    /// Skips leading whitespace and reads the BEGIN line.
    fn begin(&mut self) -> Result<(), Fault> {
        let mut skipped = 0;
        loop {
            if self.input.buffered().is_empty() && !self.input.fill_more()? {
                return Err(armor(if skipped == 0 {
                    "the input is empty (no BEGIN line)".to_string()
                } else {
                    "the input holds only whitespace (no BEGIN line)".to_string()
                }));
            }
            let available = self.input.buffered();
            let n = available.iter().take_while(|b| b.is_ascii_whitespace()).count();
            let more = n < available.len();
            self.line_number += available[..n].iter().filter(|&&b| b == b'\n').count() as u64;
            self.input.consume(n);
            skipped += n;
            if skipped > MAX_WHITESPACE {
                return Err(armor(format!(
                    "more than {MAX_WHITESPACE} bytes of whitespace before the BEGIN line"
                )));
            }
            if more {
                break;
            }
        }
        let end = self.next_line()?;
        let line = &self.line[..self.line_len];
        let (content, crlf) = match line.strip_suffix(b"\r") {
            Some(content) => (content, true),
            None => (line, false),
        };
        if content != BEGIN.as_bytes() {
            return Err(armor(format!("line {} is not the BEGIN line {BEGIN}", self.line_number)));
        }
        if !matches!(end, Some(LineEnd::Lf)) {
            return Err(armor(format!(
                "the input ends after the BEGIN line, on line {} (truncated armor)",
                self.line_number
            )));
        }
        self.crlf = crlf;
        Ok(())
    }

    /// Whether the line read last is the END line followed only by whitespace
    /// (the rest of it included); if so, reads the whitespace after it.
    fn end(&mut self, line_end: &LineEnd) -> Result<bool, Fault> {
        let line = &self.line[..self.line_len];
        let Some(rest) = line.strip_prefix(END.as_bytes()) else {
            return Ok(false);
        };
        if !rest.iter().all(u8::is_ascii_whitespace) {
            return Ok(false);
        }
        let line_number = self.line_number;
        let mut trailing = rest.len() + matches!(line_end, LineEnd::Lf) as usize;
        let mut newlines = matches!(line_end, LineEnd::Lf) as u64;
        loop {
            if trailing > MAX_WHITESPACE {
                return Err(armor(format!(
                    "more than {MAX_WHITESPACE} bytes of whitespace after the END line (line {line_number})"
                )));
            }
            if self.input.buffered().is_empty() && !self.input.fill_more()? {
                return Ok(true);
            }
            let available = self.input.buffered();
            if let Some(i) = available.iter().position(|b| !b.is_ascii_whitespace()) {
                newlines += available[..i].iter().filter(|&&b| b == b'\n').count() as u64;
                return Err(armor(format!(
                    "data after the END line (line {line_number}), on line {}",
                    line_number + newlines
                )));
            }
            trailing += available.len();
            newlines += available.iter().filter(|&&b| b == b'\n').count() as u64;
            let n = available.len();
            self.input.consume(n);
        }
    }

    /// Reads the next body line and decodes it, or the END line.
    fn body_line(&mut self) -> Result<(), Fault> {
        let Some(line_end) = self.next_line()? else {
            return Err(armor(format!(
                "the input ends after line {} without the END line (truncated armor)",
                self.line_number
            )));
        };
        if self.end(&line_end)? {
            self.state = State::Done;
            return Ok(());
        }
        let n = self.line_number;
        if let LineEnd::Eof = line_end {
            return Err(armor(format!(
                "the input ends inside line {n}, without the END line (truncated armor)"
            )));
        }
        if self.line[..self.line_len].first() == Some(&b'-') {
            return Err(armor(format!("line {n} is neither Base64 nor the END line {END}")));
        }
        if let LineEnd::TooLong = line_end {
            return Err(armor(format!("line {n} is longer than {COLUMNS} characters")));
        }
        let mut len = self.line_len;
        let cr = len > 0 && self.line[len - 1] == b'\r';
        if cr != self.crlf {
            let (this, begin) = if cr { ("CRLF", "LF") } else { ("LF", "CRLF") };
            return Err(armor(format!(
                "line {n} ends with {this} but the BEGIN line with {begin} (mixed line ends)"
            )));
        }
        len -= cr as usize;
        let line = &self.line[..len];
        if line.is_empty() {
            return Err(armor(format!("line {n} is empty")));
        }
        if let Some((last, why)) = self.ended {
            return Err(armor(format!(
                "line {last} is {why} but is not the last line: line {n} is not the END line {END}"
            )));
        }
        if len > COLUMNS {
            return Err(armor(format!("line {n} is longer than {COLUMNS} characters")));
        }
        match STANDARD.decode_slice(line, &mut self.decoded) {
            Ok(decoded) => self.decoded_len = decoded,
            Err(_) => return Err(armor(not_base64(n, line))),
        }
        self.decoded_pos = 0;
        if len < COLUMNS {
            self.ended = Some((n, "shorter than 64 characters"));
        } else if line[len - 1] == b'=' {
            self.ended = Some((n, "padded"));
        }
        Ok(())
    }

    fn advance(&mut self) -> Result<(), Fault> {
        match self.state {
            State::Start => {
                self.begin()?;
                self.state = State::Body;
                Ok(())
            }
            State::Body => self.body_line(),
            State::Done | State::Refused(_) | State::Failed(..) => Ok(()),
        }
    }
}

/// Why `line` (line `n`, 1 to [`COLUMNS`] characters) is not canonical
/// padded Base64.
fn not_base64(n: u64, line: &[u8]) -> String {
    let len = line.len();
    if let Some(&b) =
        line.iter().find(|&&b| !(b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'='))
    {
        let what = if b.is_ascii_graphic() { format!("'{}'", b as char) } else { format!("byte 0x{b:02x}") };
        return format!("line {n} contains {what}, which is not Base64");
    }
    let data_len = line.iter().position(|&b| b == b'=').unwrap_or(len);
    if line[data_len..].iter().any(|&b| b != b'=') {
        return format!("line {n} has padding ('=') before its end");
    }
    if len - data_len > 2 {
        return format!("line {n} has more than two padding characters ('=')");
    }
    if !len.is_multiple_of(4) {
        return format!(
            "line {n} is {len} characters long, not a multiple of 4 (Base64 cut short or unpadded)"
        );
    }
    format!("line {n} ends in non-canonical Base64 (nonzero bits after the last byte)")
}

/// What stops a reader: the armor, or the inner reader.
enum Fault {
    Armor(ArmorError),
    Io(io::Error),
}

impl From<io::Error> for Fault {
    fn from(err: io::Error) -> Self {
        Fault::Io(err)
    }
}

fn armor(reason: String) -> Fault {
    Fault::Armor(ArmorError::new(reason))
}

impl<R: Read> ArmoredReader<R> {
    /// The error a reader that stopped returns again.
    fn stored_error(&self) -> Option<io::Error> {
        match &self.state {
            State::Refused(err) => Some(err.clone().into()),
            State::Failed(kind, message) => Some(io::Error::new(*kind, message.clone())),
            State::Start | State::Body | State::Done => None,
        }
    }
}

impl<R: Read> Read for ArmoredReader<R> {
    /// Fills `out` with as many lines' bytes as fit; an error comes at the
    /// first call that has no bytes to give before it.
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let mut filled = 0;
        while filled < out.len() {
            if self.decoded_pos < self.decoded_len {
                let n = (out.len() - filled).min(self.decoded_len - self.decoded_pos);
                out[filled..filled + n]
                    .copy_from_slice(&self.decoded[self.decoded_pos..self.decoded_pos + n]);
                self.decoded_pos += n;
                filled += n;
                continue;
            }
            match self.state {
                State::Start | State::Body => {}
                State::Done | State::Refused(_) | State::Failed(..) => break,
            }
            match self.advance() {
                Ok(()) => {}
                Err(Fault::Armor(err)) => self.state = State::Refused(err),
                Err(Fault::Io(err)) => self.state = State::Failed(err.kind(), err.to_string()),
            }
        }
        match self.stored_error() {
            Some(err) if filled == 0 => Err(err),
            _ => Ok(filled),
        }
    }
}

impl<R: Read> fmt::Debug for ArmoredReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArmoredReader").field("line", &self.line_number).finish_non_exhaustive()
    }
}

/// A reader of either kind of input: armor, decoded as [`ArmoredReader`]
/// does, or anything else, passed through unchanged (a binary gcmsiv file,
/// which the decryptor then checks). Which one is decided when it is made, by
/// [`is_armored`] on up to the first [`MAX_WHITESPACE`] + 1 bytes, which it
/// reads ahead without seeking (so standard input works).
///
/// ```
/// use std::io::Read;
/// use gcmsiv_stream::armor::MaybeArmored;
///
/// let armored: &[u8] = b"-----BEGIN GCMSIV ENCRYPTED FILE-----\nR0NNU0lW\n-----END GCMSIV ENCRYPTED FILE-----\n";
/// for input in [armored, b"GCMSIV"] {
///     let mut reader = MaybeArmored::new(input)?;
///     let mut bytes = Vec::new();
///     reader.read_to_end(&mut bytes)?;
///     assert_eq!(bytes, b"GCMSIV");
/// }
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct MaybeArmored<R: Read> {
    kind: Kind<R>,
}

enum Kind<R: Read> {
    Binary(Input<R>),
    Armored(Box<ArmoredReader<R>>),
}

impl<R: Read> MaybeArmored<R> {
    /// Reads ahead in `inner` until the first byte that is not ASCII
    /// whitespace (or [`MAX_WHITESPACE`] + 1 bytes of whitespace, or the end of
    /// the input) and decides. Fails only if reading fails.
    pub fn new(inner: R) -> io::Result<Self> {
        let mut input = Input::new(inner);
        loop {
            let available = input.buffered();
            if available.len() > MAX_WHITESPACE || available.iter().any(|b| !b.is_ascii_whitespace()) {
                break;
            }
            if !input.fill_more()? {
                break;
            }
        }
        let prefix = input.buffered();
        let kind = if is_armored(&prefix[..prefix.len().min(MAX_WHITESPACE + 1)]) {
            Kind::Armored(Box::new(ArmoredReader::from_input(input)))
        } else {
            Kind::Binary(input)
        };
        Ok(MaybeArmored { kind })
    }

    /// Whether the input is armor.
    pub fn is_armored(&self) -> bool {
        matches!(self.kind, Kind::Armored(_))
    }
}

impl<R: Read> Read for MaybeArmored<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        match &mut self.kind {
            Kind::Binary(input) => input.read(out),
            Kind::Armored(reader) => reader.read(out),
        }
    }
}

impl<R: Read> fmt::Debug for MaybeArmored<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MaybeArmored").field("armored", &self.is_armored()).finish_non_exhaustive()
    }
}

//go:build cgo && !purego && linux && (amd64 || arm64)

package gcmsiv

/*
#include <stdlib.h>
#include "gcmsiv.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// Files in the gcmsiv format (docs/FORMAT.md: a key-committing header, then
// the plaintext in chunks sealed with AES-GCM-SIV in the STREAM
// construction), the same bytes the gcmsiv tool and every other binding
// read and write, through the C ABI's streaming calls. Memory stays bounded
// whatever the file's size: a writer or reader holds at most one push and
// one batch of chunks (about 2 MiB).

// ErrFormat is wrapped by every error for a file that is not a valid gcmsiv
// file: not in the format, a version this library does not read, a corrupted
// header field or chunk length, trailing data, a file made for the other kind
// of secret, or one that ends early (ErrTruncated, which wraps ErrFormat
// too). A file that does not authenticate (a wrong key or passphrase, a
// forged, reordered or spliced chunk) is ErrOpen instead, as for one message.
var ErrFormat = errors.New("gcmsiv: not a valid gcmsiv file")

// ErrTruncated is wrapped by the error for a file that ends before its final
// chunk; errors.Is(err, ErrFormat) holds for it too.
var ErrTruncated = errors.New("gcmsiv: file is truncated")

// ErrClosed is returned by a FileWriter, FileReader or FileReaderAt used
// after Close.
var ErrClosed = errors.New("gcmsiv: file writer or reader is closed")

// FileError is a failure of the file format's calls, with the library's
// message ("chunk 3 failed authentication", "trailing data after the final
// chunk"), which never says anything about the secret. It wraps ErrOpen,
// ErrFormat (and ErrTruncated), or, for bad arguments, the *Error with the C
// ABI's status.
type FileError struct {
	Message string
	errs    []error
}

func (e *FileError) Error() string   { return "gcmsiv: " + e.Message }
func (e *FileError) Unwrap() []error { return e.errs }

// fileCall runs a streaming call and turns its status into an error, with the
// message the C ABI keeps per OS thread (read on the same thread).
func fileCall(op string, call func() C.int) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rc := call()
	if rc == C.GCMSIV_OK {
		return nil
	}
	msg := C.GoString(C.gcmsiv_stream_error_message())
	switch rc {
	case C.GCMSIV_ERR_AUTHENTICATION:
		return &FileError{Message: msg, errs: []error{ErrOpen}}
	case C.GCMSIV_ERR_FORMAT:
		return &FileError{Message: msg, errs: []error{ErrFormat}}
	case C.GCMSIV_ERR_TRUNCATED:
		return &FileError{Message: msg, errs: []error{ErrTruncated, ErrFormat}}
	}
	return &FileError{Message: op + ": " + msg, errs: []error{&Error{Code: int(rc), Op: op}}}
}

// Secret is what a file is encrypted to: a 32-byte key (FileKey, or
// ParseKeyFile for a key file's text) or a passphrase (Passphrase),
// stretched with Argon2id at the cost the file's header records.
//
// Files to public keys (format version 2) take Recipients to write and
// Identities to read.
type Secret struct {
	kind  int // 1 key, 2 key file text, 3 passphrase, 4 recipients, 5 mixed recipients, 6 identities
	bytes []byte
}

// RecipientKind is the kind of a public-key recipient and its identity.
type RecipientKind int

const (
	// X25519 recipients (gcmsiv1...).
	X25519 RecipientKind = 1
	// Hybrid is ML-KEM-768 with X25519 (gcmsivpq1...): safe if either holds,
	// against a quantum computer too.
	Hybrid RecipientKind = 2
)

// Recipients is a secret that writes files to the public keys in text, a
// recipients file's text: one gcmsiv1... or gcmsivpq1... string a line, empty
// lines and # comments allowed, 1 to 256 of them. Such a secret cannot read
// files. Both kinds together are refused when a file is made (such a file is
// only as safe as X25519 against a quantum computer); MixedRecipients allows
// it. The error names the line.
func Recipients(text string) (Secret, error) { return checked(Secret{kind: 4, bytes: []byte(text)}) }

// MixedRecipients is Recipients allowing X25519 and hybrid recipients in one
// file, knowingly (docs/FORMAT.md, "Mixed recipients").
func MixedRecipients(text string) (Secret, error) {
	return checked(Secret{kind: 5, bytes: []byte(text)})
}

// Identities is a secret that reads files encrypted to the recipients of the
// identities in text, an identity file's text (GCMSIV-SECRET-KEY-... lines;
// empty lines and # comments allowed); the bytes are copied. A writer given
// identities encrypts to their recipients. The error names the line and never
// quotes it. A file none of them can open fails with ErrOpen ("no identity
// matched").
func Identities(text []byte) (Secret, error) {
	return checked(Secret{kind: 6, bytes: append([]byte(nil), text...)})
}

// checked is s if the C library accepts it.
func checked(s Secret) (Secret, error) {
	c, err := s.make()
	if err != nil {
		s.Wipe()
		return Secret{}, err
	}
	C.gcmsiv_secret_free(c)
	return s, nil
}

// GenerateIdentity makes a new identity of kind from the operating system's
// random generator: its identity string (keep it secret; Identities reads it)
// and its recipient string (give it to those who will encrypt to you).
func GenerateIdentity(kind RecipientKind) (identity []byte, recipient string, err error) {
	identity = make([]byte, int(C.gcmsiv_identity_max_bytes()))
	var n C.size_t
	err = fileCall("identity", func() C.int {
		return C.gcmsiv_identity_generate(C.int(kind), ptr(identity), C.size_t(len(identity)), &n)
	})
	if err != nil {
		return nil, "", err
	}
	identity = identity[:n]
	recipient, err = IdentityRecipient(identity)
	if err != nil {
		clear(identity)
		return nil, "", err
	}
	return identity, recipient, nil
}

// IdentityRecipient is the recipient string of one identity string.
func IdentityRecipient(identity []byte) (string, error) {
	out := make([]byte, int(C.gcmsiv_recipient_max_bytes()))
	var n C.size_t
	err := fileCall("identity", func() C.int {
		return C.gcmsiv_identity_recipient(ptr(identity), C.size_t(len(identity)), ptr(out), C.size_t(len(out)), &n)
	})
	runtime.KeepAlive(identity)
	if err != nil {
		return "", err
	}
	return string(out[:n]), nil
}

// FileKey is a 32-byte key, what a gcmsiv key file holds (the bytes are
// copied).
func FileKey(key []byte) Secret { return Secret{kind: 1, bytes: append([]byte(nil), key...)} }

// Passphrase is a passphrase secret (the bytes are copied; UTF-8 for text).
func Passphrase(passphrase []byte) Secret {
	return Secret{kind: 3, bytes: append([]byte(nil), passphrase...)}
}

// ParseKeyFile reads the key a gcmsiv key file's text holds (as `gcmsiv
// keygen` writes it); the error says what is wrong without quoting the text.
func ParseKeyFile(text []byte) (Secret, error) {
	s := Secret{kind: 2, bytes: append([]byte(nil), text...)}
	c, err := s.make()
	if err != nil {
		return Secret{}, err
	}
	C.gcmsiv_secret_free(c)
	return s, nil
}

// Wipe zeroes the secret's bytes (shared by every copy of this Secret), once
// no writer or reader is still to be made from it: those made already keep
// their own copy in the C library, zeroized when they are closed.
func (s Secret) Wipe() { clear(s.bytes) }

// make builds the C secret; the caller frees it.
func (s Secret) make() (*C.gcmsiv_secret, error) {
	var c *C.gcmsiv_secret
	err := fileCall("secret", func() C.int {
		p, n := ptr(s.bytes), C.size_t(len(s.bytes))
		switch s.kind {
		case 1:
			return C.gcmsiv_secret_new_key(&c, p, n)
		case 2:
			return C.gcmsiv_secret_new_key_file(&c, p, n)
		case 3:
			return C.gcmsiv_secret_new_passphrase(&c, p, n)
		case 4, 5:
			return C.gcmsiv_secret_new_recipients(&c, p, n, C.int(s.kind-4))
		case 6:
			return C.gcmsiv_secret_new_identities(&c, p, n)
		}
		return C.gcmsiv_secret_new_key(&c, nil, 0)
	})
	runtime.KeepAlive(s.bytes)
	return c, err
}

// with runs f on the C secret, freed (zeroized) after.
func (s Secret) with(f func(*C.gcmsiv_secret) error) error {
	c, err := s.make()
	if err != nil {
		return err
	}
	defer C.gcmsiv_secret_free(c)
	return f(c)
}

// FileAlgorithm is the AEAD of a file's chunks.
type FileAlgorithm int

const (
	// FileAES256GCMSIV is AEAD_AES_256_GCM_SIV, what writers use by default.
	FileAES256GCMSIV FileAlgorithm = C.GCMSIV_AES_256_GCM_SIV
	// FileAES128GCMSIV is AEAD_AES_128_GCM_SIV.
	FileAES128GCMSIV FileAlgorithm = C.GCMSIV_AES_128_GCM_SIV
)

// Argon2Cost is the Argon2id cost a passphrase is stretched with when a file
// is written (recorded in its header, which readers follow within fixed
// caps): memory 8 x Lanes to 1048576 KiB, 1 to 16 passes, 1 to 16 lanes.
// The zero value is the default: RFC 9106's second recommendation, 64 MiB, 3
// passes, 4 lanes.
type Argon2Cost struct {
	MemoryKiB  uint32
	Iterations uint32
	Lanes      uint32
}

// FileOptions lays out a new file; nil or the zero value is AES-256-GCM-SIV,
// 64 KiB chunks and the default Argon2id cost.
type FileOptions struct {
	Algorithm FileAlgorithm // 0: FileAES256GCMSIV
	ChunkSize int           // plaintext bytes per chunk, a power of two from 1 KiB to 1 MiB; 0: 64 KiB
	Argon2    Argon2Cost    // for a passphrase; zero: the default
}

// pushMax is the most plaintext or file bytes one push takes, so that the
// output waiting to be drained stays bounded.
const pushMax = 1 << 20

// FileWriter encrypts what is written to it into a gcmsiv file written to
// the underlying writer. Close must be called: it writes the final chunk,
// without which every reader reports the file truncated. Close does not
// close the underlying writer. Not safe for concurrent use.
type FileWriter struct {
	dst    io.Writer
	enc    *C.gcmsiv_encryptor
	buf    []byte
	err    error
	closed bool
}

// NewFileWriter starts a file encrypted to secret, written to dst as it
// goes (the header with the first Write, or Close).
func NewFileWriter(dst io.Writer, secret Secret, opts *FileOptions) (*FileWriter, error) {
	if opts == nil {
		opts = &FileOptions{}
	}
	if opts.ChunkSize < 0 {
		return nil, &FileError{Message: "negative chunk size", errs: []error{&Error{Code: C.GCMSIV_ERR_INVALID, Op: "file writer"}}}
	}
	w := &FileWriter{dst: dst, buf: make([]byte, 256<<10)}
	err := secret.with(func(s *C.gcmsiv_secret) error {
		return fileCall("file writer", func() C.int {
			a := opts.Argon2
			return C.gcmsiv_encryptor_new_ex(&w.enc, C.int(opts.Algorithm), C.size_t(opts.ChunkSize),
				C.uint32_t(a.MemoryKiB), C.uint32_t(a.Iterations), C.uint32_t(a.Lanes), s)
		})
	})
	if err != nil {
		return nil, err
	}
	runtime.SetFinalizer(w, (*FileWriter).free)
	return w, nil
}

func (w *FileWriter) free() {
	if w.enc != nil {
		C.gcmsiv_encryptor_free(w.enc)
		w.enc = nil
	}
	runtime.SetFinalizer(w, nil)
}

// drain writes every pending file byte to dst.
func (w *FileWriter) drain() error {
	for C.gcmsiv_encryptor_pending(w.enc) > 0 {
		var n C.size_t
		if err := fileCall("drain", func() C.int {
			return C.gcmsiv_encryptor_drain(w.enc, ptr(w.buf), C.size_t(len(w.buf)), &n)
		}); err != nil {
			return err
		}
		if _, err := w.dst.Write(w.buf[:n]); err != nil {
			return err
		}
	}
	return nil
}

// Write encrypts p; the chunks it completes are written to the underlying
// writer (a batch at a time). An error from the underlying writer stops the
// file for good.
func (w *FileWriter) Write(p []byte) (int, error) {
	if w.closed {
		return 0, ErrClosed
	}
	if w.err != nil {
		return 0, w.err
	}
	done := 0
	for done < len(p) {
		piece := p[done:min(len(p), done+pushMax)]
		if err := fileCall("write", func() C.int {
			return C.gcmsiv_encryptor_push(w.enc, ptr(piece), C.size_t(len(piece)))
		}); err != nil {
			w.err = err
			return done, err
		}
		done += len(piece)
		if err := w.drain(); err != nil {
			w.err = err
			return done, err
		}
	}
	return done, nil
}

// Close seals the final chunk and writes the rest of the file, then frees
// the writer's keys (zeroized). A second Close returns the first one's
// result.
func (w *FileWriter) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.err == nil {
		w.err = fileCall("close", func() C.int { return C.gcmsiv_encryptor_finish(w.enc) })
		if w.err == nil {
			w.err = w.drain()
		}
	}
	w.free()
	return w.err
}

// FileReader decrypts a gcmsiv file read from the underlying reader. Read
// returns only plaintext of chunks that authenticated, and io.EOF only after
// the file's final chunk: a file cut short is an error wrapping ErrTruncated,
// a forged or reordered chunk ErrOpen, trailing data and other flaws
// ErrFormat. The plaintext before a failure has been returned by then; an
// application that must not act on part of a file should wait for io.EOF.
// Not safe for concurrent use.
type FileReader struct {
	src  io.Reader
	dec  *C.gcmsiv_decryptor
	in   []byte
	err  error
	done bool
}

// NewFileReader starts reading a file encrypted to secret from src (the
// header is read, and checked, by the first Read).
func NewFileReader(src io.Reader, secret Secret) (*FileReader, error) {
	r := &FileReader{src: src, in: make([]byte, 256<<10)}
	err := secret.with(func(s *C.gcmsiv_secret) error {
		return fileCall("file reader", func() C.int { return C.gcmsiv_decryptor_new(&r.dec, s) })
	})
	if err != nil {
		return nil, err
	}
	runtime.SetFinalizer(r, (*FileReader).Close)
	return r, nil
}

// Read reads authenticated plaintext into p.
func (r *FileReader) Read(p []byte) (int, error) {
	if r.dec == nil {
		return 0, ErrClosed
	}
	for {
		if C.gcmsiv_decryptor_pending(r.dec) > 0 && len(p) > 0 {
			var n C.size_t
			err := fileCall("read", func() C.int {
				return C.gcmsiv_decryptor_drain(r.dec, ptr(p), C.size_t(len(p)), &n)
			})
			return int(n), err
		}
		if r.err != nil {
			return 0, r.err
		}
		if r.done {
			return 0, io.EOF
		}
		if len(p) == 0 {
			return 0, nil
		}
		n, err := r.src.Read(r.in)
		if n > 0 {
			r.err = fileCall("read", func() C.int {
				return C.gcmsiv_decryptor_push(r.dec, ptr(r.in[:n]), C.size_t(n))
			})
		}
		if r.err != nil {
			continue
		}
		switch {
		case err == io.EOF:
			if r.err = fileCall("read", func() C.int { return C.gcmsiv_decryptor_finish(r.dec) }); r.err == nil {
				r.done = true
			}
		case err != nil:
			r.err = err
		}
	}
}

// Close frees the reader, wiping the plaintext it held. It does not close
// the underlying reader.
func (r *FileReader) Close() error {
	if r.dec != nil {
		C.gcmsiv_decryptor_free(r.dec)
		r.dec = nil
	}
	runtime.SetFinalizer(r, nil)
	return nil
}

// FileReaderAt reads any range of a gcmsiv file's plaintext, authenticating
// only the chunks it touches: a 64 KiB range of a file with 64 KiB chunks
// costs one or two chunks' work, whatever the file's size. Safe for
// concurrent use, as io.ReaderAt asks (if the source is). For a seekable
// reader: io.NewSectionReader(f, 0, f.Size()).
type FileReaderAt struct {
	mu   sync.RWMutex // Close against reads in flight
	src  io.ReaderAt
	rd   *C.gcmsiv_reader
	size int64
}

// NewFileReaderAt opens the gcmsiv file of encSize bytes readable from src:
// it checks the header and authenticates the final chunk (which fixes the
// plaintext's size, Size), as age's DecryptReaderAt does.
func NewFileReaderAt(src io.ReaderAt, encSize int64, secret Secret) (*FileReaderAt, error) {
	if encSize < 0 {
		return nil, errors.New("gcmsiv: negative file size")
	}
	// The header's length, from its first bytes (86 for a file to a key or
	// passphrase; longer to recipients): read until the library says it has
	// all of it, or the file ends (a short header is the library's to report).
	var head []byte
	for want := min(encSize, 7); ; {
		buf := make([]byte, want-int64(len(head)))
		got, err := src.ReadAt(buf, int64(len(head)))
		if got < len(buf) && err != nil && err != io.EOF {
			return nil, err
		}
		head = append(head, buf[:got]...)
		if got < len(buf) || want == encSize {
			break
		}
		var needed C.size_t
		if err := fileCall("file reader", func() C.int {
			return C.gcmsiv_file_header_needed(ptr(head), C.size_t(len(head)), &needed)
		}); err != nil {
			return nil, err
		}
		if int64(needed) <= want {
			break
		}
		want = min(encSize, int64(needed))
	}
	f := &FileReaderAt{src: src}
	err := secret.with(func(s *C.gcmsiv_secret) error {
		return fileCall("file reader", func() C.int {
			return C.gcmsiv_reader_new(&f.rd, ptr(head), C.size_t(len(head)), C.uint64_t(encSize), s)
		})
	})
	if err != nil {
		return nil, err
	}
	runtime.SetFinalizer(f, (*FileReaderAt).Close)
	var at, n, plen C.uint64_t
	if err := fileCall("file reader", func() C.int { return C.gcmsiv_reader_final_chunk(f.rd, &at, &n) }); err != nil {
		f.Close()
		return nil, err
	}
	stored, err := f.readStored(int64(at), int64(n))
	if err == nil {
		err = fileCall("file reader", func() C.int {
			return C.gcmsiv_reader_verify_final(f.rd, ptr(stored), C.size_t(len(stored)), &plen)
		})
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	f.size = int64(plen)
	return f, nil
}

// readStored reads n stored bytes at off; a source shorter than its size
// says is a truncated file.
func (f *FileReaderAt) readStored(off, n int64) ([]byte, error) {
	stored := make([]byte, n)
	got, err := f.src.ReadAt(stored, off)
	if got == len(stored) {
		return stored, nil
	}
	if err == io.EOF || err == nil {
		return nil, &FileError{Message: "file is truncated (shorter than its size)", errs: []error{ErrTruncated, ErrFormat}}
	}
	return nil, err
}

// Size is the plaintext's length.
func (f *FileReaderAt) Size() int64 { return f.size }

// readWindow is the most plaintext one call of the reader opens (a bound on
// the stored bytes held at once).
const readWindow = 4 << 20

// ReadAt reads len(p) bytes of plaintext at off, or up to the end (then with
// io.EOF), as io.ReaderAt. A negative offset is an error; at or past the end
// it returns 0, io.EOF. Bytes that do not authenticate are an error wrapping
// ErrOpen (or ErrFormat), and p then holds only plaintext that did.
func (f *FileReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("gcmsiv: negative offset")
	}
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.rd == nil {
		return 0, ErrClosed
	}
	n := 0
	for n < len(p) && off+int64(n) < f.size {
		at := off + int64(n)
		want := min(len(p)-n, readWindow, int(f.size-at))
		var fo, fl C.uint64_t
		if err := fileCall("read", func() C.int {
			return C.gcmsiv_reader_span(f.rd, C.uint64_t(at), C.uint64_t(want), &fo, &fl)
		}); err != nil {
			return n, err
		}
		stored, err := f.readStored(int64(fo), int64(fl))
		if err != nil {
			return n, err
		}
		var got C.size_t
		out := p[n : n+want]
		if err := fileCall("read", func() C.int {
			return C.gcmsiv_reader_read(ptr(out), C.size_t(len(out)), &got, ptr(stored), C.size_t(len(stored)),
				C.uint64_t(at), C.uint64_t(want), f.rd)
		}); err != nil {
			return n, err
		}
		if int(got) != want {
			return n, fmt.Errorf("gcmsiv: internal error: read %d of %d bytes", got, want)
		}
		n += want
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Close frees the reader; ReadAt returns ErrClosed after.
func (f *FileReaderAt) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rd != nil {
		C.gcmsiv_reader_free(f.rd)
		f.rd = nil
	}
	runtime.SetFinalizer(f, nil)
	return nil
}

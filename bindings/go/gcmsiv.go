// Package gcmsiv is AES-GCM-SIV (RFC 8452) and AES-GCM (NIST SP 800-38D) for
// Go, on the gcmsiv library's C ABI: the same code, vectors and speed as the
// Rust crate (AES-NI, PCLMULQDQ, VAES and VPCLMULQDQ kernels chosen at run
// time, a constant-time portable fallback).
//
// Every cipher implements crypto/cipher.AEAD, so it drops in where
// cipher.NewGCM's result is used. AES-GCM-SIV is the nonce-misuse-resistant
// one: a repeated nonce reveals only whether two messages (with their
// associated data) were identical, where a repeated AES-GCM nonce leaks the
// XOR of the messages and lets an attacker forge. Usage limits, from RFC 8452
// section 9: with random 12-byte nonces, 2^53 messages of up to 16 MiB under
// one AES-GCM-SIV key (2^32 for AES-GCM, SP 800-38D); at most 2^36 bytes
// (64 GiB) per message.
//
// # Build
//
// On linux/amd64 and linux/arm64 with cgo the package links the C ABI's static
// library that ships inside the module (prebuilt/linux_amd64 and
// prebuilt/linux_arm64, built by the repository's
// scripts/go-prebuilt.sh, which CI checks is current): `go get` and `go build`
// need a C compiler, as cgo does, and no Rust toolchain.
//
// Everywhere else (other platforms, CGO_ENABLED=0, or the purego build tag)
// the package is pure Go: the same API and the same results (it passes the same
// vector tests), on the standard library's crypto/aes and a POLYVAL written in
// Go. It is slower (no fused or wide kernels, one block at a time), reports the
// backend "purego", and its constant-time properties are those of crypto/aes on
// that platform: hardware AES where Go has it (amd64, arm64, s390x, ppc64le),
// Go's generic table-based AES elsewhere, which is not constant-time. Its
// POLYVAL and tag comparison are constant-time. Go cannot promise to zeroize
// the AES key schedules the standard library keeps.
package gcmsiv

import (
	"cmp"
	"crypto/cipher"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"unsafe"
)

// Version is the gcmsiv release this module belongs to (the repository's one
// version, kept in step by scripts/version.py).
const Version = "0.1.0"

// Algorithms, as the C ABI numbers them.
const (
	aes128GCMSIV = 1
	aes256GCMSIV = 2
	aes128GCM    = 3
	aes256GCM    = 4
)

// Backend chooses the code a key runs on; Auto picks the fastest there is.
type Backend int

// The C ABI's backends (numbered as there), and PureGo, this package's own
// Go code where the C library is not linked.
const (
	Auto       Backend = 0
	Portable   Backend = 1
	AesNiClmul Backend = 2
	AesNiVaes  Backend = 3
	// Armv8AesPmull is AArch64's AES and PMULL (the ARMv8 Cryptographic Extension).
	Armv8AesPmull Backend = 4
	PureGo        Backend = -1
)

// String is the backend's name as the C library gives it ("portable",
// "aesni-clmul", ...; the library's list, not one spelled out here), "auto",
// or "purego". A build without the C library knows no numbered backend's name.
func (b Backend) String() string {
	switch b {
	case Auto:
		return "auto"
	case PureGo:
		return "purego"
	}
	if name := backendName(b); name != "" {
		return name
	}
	return fmt.Sprintf("Backend(%d)", int(b))
}

// Available reports whether this build runs the backend on this CPU.
func (b Backend) Available() bool { return backendAvailable(b) }

// Backends lists the backends this build runs on this CPU, slowest first:
// with the C library, those of its list (gcmsiv_backend_count) the CPU runs,
// in the library's order (portable first); in a pure-Go build, purego alone.
func Backends() []Backend {
	var out []Backend
	for _, b := range backendList() {
		if b.Available() {
			out = append(out, b)
		}
	}
	return out
}

// ErrOpen is every authentication failure: wrong key, nonce, data or tag.
// Nothing more is said, and no plaintext is released.
var ErrOpen = errors.New("gcmsiv: message authentication failed")

// The C ABI's status codes (GCMSIV_OK, GCMSIV_ERR_*), which Error.Code holds.
const (
	statusOK                 = 0
	statusAuthentication     = -1
	statusKeyLength          = -2
	statusNonceLength        = -3
	statusTagLength          = -4
	statusTooLong            = -5
	statusTooShort           = -6
	statusBufferTooSmall     = -7
	statusBackendUnavailable = -8
	statusAlgorithm          = -9
	statusNullPointer        = -10
	statusOverlap            = -11
	statusInternal           = -12
	statusRandomSource       = -13
	// The file format's (streaming; the C library's build only).
	statusFormat    = -14
	statusTruncated = -15
	statusInvalid   = -16
	statusState     = -17
)

// statusText is gcmsiv_strerror's text for each status (a test compares the
// two where the C library is linked).
var statusText = map[int]string{
	statusOK:                 "success",
	statusAuthentication:     "authentication failed",
	statusKeyLength:          "invalid key length",
	statusNonceLength:        "invalid nonce length",
	statusTagLength:          "invalid tag length",
	statusTooLong:            "input longer than the algorithm allows",
	statusTooShort:           "ciphertext shorter than the authentication tag",
	statusBufferTooSmall:     "output buffer too small",
	statusBackendUnavailable: "backend not supported on this CPU",
	statusAlgorithm:          "unknown algorithm",
	statusNullPointer:        "NULL pointer for a non-empty buffer or a required argument",
	statusOverlap:            "input and output overlap without being the same buffer",
	statusInternal:           "internal error",
	statusRandomSource:       "the operating system's random number generator failed",
	statusFormat:             "not a gcmsiv file, or a corrupted one",
	statusTruncated:          "the file is truncated (it ends before its final chunk)",
	statusInvalid:            "an argument the file format does not allow",
	statusState:              "call out of order (drain pending output first, or the stream is finished)",
}

// Error is misuse reported before any work (a wrong length, an input over
// the limits): Code is the C ABI's status.
type Error struct {
	Code int
	Op   string
}

func (e *Error) Error() string {
	text, ok := statusText[e.Code]
	if !ok {
		text = "unknown status code"
	}
	return fmt.Sprintf("gcmsiv: %s: %s", e.Op, text)
}

func status(op string, rc int) error {
	switch rc {
	case statusOK:
		return nil
	case statusAuthentication:
		return ErrOpen
	default:
		return &Error{Code: rc, Op: op}
	}
}

// AEAD is a key of one algorithm; safe for concurrent use. It implements
// cipher.AEAD. Close frees (and zeroizes) it at once; otherwise the garbage
// collector does.
type AEAD struct {
	mu        sync.RWMutex // Close against calls in flight
	key       keyHandle    // nil once closed
	nonceSize int
	tagSize   int
}

var _ cipher.AEAD = (*AEAD)(nil)

func newAEAD(alg int, key []byte, tagSize, nonceSize int, backend Backend, short bool) (*AEAD, error) {
	k, tagBytes, rc := newKey(alg, key, tagSize, backend, short)
	if err := status("key", rc); err != nil {
		return nil, err
	}
	a := &AEAD{key: k, nonceSize: nonceSize, tagSize: tagBytes}
	runtime.SetFinalizer(a, (*AEAD).Close)
	return a, nil
}

// NewAESGCMSIV returns AES-GCM-SIV with a 16- or 32-byte key.
func NewAESGCMSIV(key []byte) (*AEAD, error) { return NewAESGCMSIVWithBackend(key, Auto) }

// NewAESGCMSIVWithBackend is NewAESGCMSIV on a chosen backend.
func NewAESGCMSIVWithBackend(key []byte, backend Backend) (*AEAD, error) {
	alg := aes128GCMSIV
	if len(key) == 32 {
		alg = aes256GCMSIV
	}
	return newAEAD(alg, key, 16, 12, backend, false)
}

// NewAESGCM returns AES-GCM with a 16- or 32-byte key, 12-byte nonces and
// 16-byte tags, as cipher.NewGCM.
func NewAESGCM(key []byte) (*AEAD, error) { return NewAESGCMWithOptions(key, 12, 16, Auto) }

// NewAESGCMWithOptions is AES-GCM with another nonce size (any length from 1
// byte; 12 is the one to use) or tag size (12 to 16 bytes), on a backend.
func NewAESGCMWithOptions(key []byte, nonceSize, tagSize int, backend Backend) (*AEAD, error) {
	if nonceSize < 1 {
		return nil, &Error{Code: statusNonceLength, Op: "key"}
	}
	return newAEAD(gcmAlg(key), key, tagSize, nonceSize, backend, false)
}

// NewAESGCMShortTagHazardous is AES-GCM with 4- or 8-byte tags. Hazardous:
// SP 800-38D Appendix C allows them only with a bound on each message's length
// and on the failed decryptions per key, which the caller must enforce.
func NewAESGCMShortTagHazardous(key []byte, nonceSize, tagSize int, backend Backend) (*AEAD, error) {
	if nonceSize < 1 {
		return nil, &Error{Code: statusNonceLength, Op: "key"}
	}
	return newAEAD(gcmAlg(key), key, tagSize, nonceSize, backend, true)
}

func gcmAlg(key []byte) int {
	if len(key) == 32 {
		return aes256GCM
	}
	return aes128GCM
}

// Close frees the key now, zeroizing it; the AEAD must not be used after.
func (a *AEAD) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.key != nil {
		freeKey(a.key)
		a.key = nil
	}
	runtime.SetFinalizer(a, nil)
}

// Backend names the code the key runs on: "portable", "aesni-clmul" or
// "aesni-vaes" with the C library, "purego" without it.
func (a *AEAD) Backend() string {
	var name string
	a.with(func(k keyHandle) { name = keyBackend(k) })
	return name
}

// BackendBits is the width of the widest vector registers the key's backend
// uses on this CPU: 64 (portable, purego), 128 (aesni-clmul), 256 or 512
// (aesni-vaes: 512 where the CPU has AVX-512 and runs it at full clock).
func (a *AEAD) BackendBits() int {
	var bits int
	a.with(func(k keyHandle) { bits = keyBackendBits(k) })
	return bits
}

// BackendDescription is the backend's name with its width, as
// "aesni-vaes (512-bit)", the form the Rust library and the CLI print.
func (a *AEAD) BackendDescription() string {
	return fmt.Sprintf("%s (%d-bit)", a.Backend(), a.BackendBits())
}

// NonceSize is the nonce length Seal and Open take.
func (a *AEAD) NonceSize() int { return a.nonceSize }

// Overhead is the tag length.
func (a *AEAD) Overhead() int { return a.tagSize }

// with runs f on the key, which Close cannot free meanwhile; it panics if the
// key is closed (the read lock released either way).
func (a *AEAD) with(f func(keyHandle)) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.key == nil {
		panic("gcmsiv: AEAD used after Close")
	}
	f(a.key)
}

// sliceForAppend extends in by n bytes: head is the whole, tail the new part
// (the standard library's idiom for Seal and Open).
func sliceForAppend(in []byte, n int) (head, tail []byte) {
	if total := len(in) + n; cap(in) >= total {
		head = in[:total]
	} else {
		head = make([]byte, total)
		copy(head, in)
	}
	tail = head[len(in):]
	return
}

// anyOverlap reports whether x and y share memory.
func anyOverlap(x, y []byte) bool {
	if len(x) == 0 || len(y) == 0 {
		return false
	}
	xs, ys := uintptr(unsafe.Pointer(&x[0])), uintptr(unsafe.Pointer(&y[0]))
	return xs < ys+uintptr(len(y)) && ys < xs+uintptr(len(x))
}

// batchOverlaps reports whether two items' Data share memory (a sweep over
// them sorted by start). Nonces and associated data may share memory with
// anything: every input is copied in before any output is written.
func batchOverlaps(items []BatchItem) bool {
	type span struct{ start, end uintptr }
	spans := make([]span, 0, len(items))
	for i := range items {
		if d := items[i].Data; len(d) > 0 {
			p := uintptr(unsafe.Pointer(&d[0]))
			spans = append(spans, span{p, p + uintptr(len(d))})
		}
	}
	slices.SortFunc(spans, func(x, y span) int { return cmp.Compare(x.start, y.start) })
	for i := 1; i < len(spans); i++ {
		if spans[i].start < spans[i-1].end {
			return true
		}
	}
	return false
}

// inexactOverlap reports whether x and y share memory at different offsets.
func inexactOverlap(x, y []byte) bool {
	return anyOverlap(x, y) && &x[0] != &y[0]
}

// checkBuffers panics, as cipher.AEAD implementations do, when out shares
// memory with input other than at the same start, or with the nonce or the
// additional data at all.
func checkBuffers(out, input, nonce, additionalData []byte) {
	if inexactOverlap(out, input) || anyOverlap(out, nonce) || anyOverlap(out, additionalData) {
		panic("gcmsiv: invalid buffer overlap")
	}
}

// Seal encrypts and authenticates plaintext and additionalData, appending
// ciphertext || tag to dst. As cipher.AEAD's Seal, it panics on a nonce of the
// wrong length or buffers that overlap other than exactly (plaintext may start
// where the appended bytes do: in place).
func (a *AEAD) Seal(dst, nonce, plaintext, additionalData []byte) []byte {
	if len(nonce) != a.nonceSize {
		panic("gcmsiv: incorrect nonce length given to Seal")
	}
	ret, out := sliceForAppend(dst, len(plaintext)+a.tagSize)
	checkBuffers(out, plaintext, nonce, additionalData)
	var rc int
	a.with(func(k keyHandle) { rc = keySeal(k, out, nonce, plaintext, additionalData) })
	if err := status("seal", rc); err != nil {
		panic(err) // only inputs over the limits (2^36 bytes) get here
	}
	return ret
}

// Open authenticates and decrypts ciphertext (with its tag), appending the
// plaintext to dst. If it is not authentic, Open returns ErrOpen and releases
// nothing: the bytes it would have appended are zeroed, or, decrypting in
// place (dst[len(dst):] starting where ciphertext does), the ciphertext is
// there again. Inputs over the limits are an *Error; a nonce of the wrong
// length or inexactly overlapping buffers panic, as in cipher.AEAD.
func (a *AEAD) Open(dst, nonce, ciphertext, additionalData []byte) ([]byte, error) {
	if len(nonce) != a.nonceSize {
		panic("gcmsiv: incorrect nonce length given to Open")
	}
	if len(ciphertext) < a.tagSize {
		return nil, ErrOpen
	}
	ret, out := sliceForAppend(dst, len(ciphertext)-a.tagSize)
	checkBuffers(out, ciphertext, nonce, additionalData)
	var rc int
	a.with(func(k keyHandle) { rc = keyOpen(k, out, nonce, ciphertext, additionalData) })
	if err := status("open", rc); err != nil {
		return nil, err
	}
	return ret, nil
}

// BatchItem is one message of a batch: Data is encrypted or decrypted in
// place; Tag is written by SealBatch and read by OpenBatch (the first
// Overhead() bytes); Err is set by OpenBatch (nil or ErrOpen).
type BatchItem struct {
	Nonce          []byte
	AdditionalData []byte
	Data           []byte
	Tag            [16]byte
	Err            error
}

// SealBatch seals many independent messages under this key in one call. For
// AES-GCM-SIV keys on the C library the per-message set-up of several short
// messages runs interleaved: on CPUs with VAES about twice the messages per
// second of one call each for 16- to 64-byte messages. Misuse anywhere (a
// nonce of the wrong length; Data sharing memory with another item's Data)
// fails the whole call before any item is touched, with the error in every
// item's Err too. With the C library each item's bytes are copied in and out
// of one buffer around the call, which costs less than the cgo calls it saves
// for short messages.
func (a *AEAD) SealBatch(items []BatchItem) error { return a.batch(items, true) }

// OpenBatch opens many messages in one call. It returns an error only for
// misuse (before any item is touched); each item's Err says whether it was
// authentic, and an item that was not holds its ciphertext again.
func (a *AEAD) OpenBatch(items []BatchItem) error { return a.batch(items, false) }

func (a *AEAD) batch(items []BatchItem, seal bool) (err error) {
	if len(items) == 0 {
		return nil
	}
	// On misuse every item carries the call's error: none passes for authentic.
	defer func() {
		if err != nil {
			for i := range items {
				items[i].Err = err
			}
		}
	}()
	for i := range items {
		if len(items[i].Nonce) != a.nonceSize {
			return &Error{Code: statusNonceLength, Op: "batch"}
		}
	}
	if batchOverlaps(items) {
		return &Error{Code: statusOverlap, Op: "batch"}
	}
	a.with(func(k keyHandle) { err = keyBatch(k, items, seal) })
	return err
}

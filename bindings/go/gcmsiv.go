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
// section 9: with random 12-byte nonces, 2^48 messages of up to 32 MiB under
// one AES-GCM-SIV key (2^32 for AES-GCM, SP 800-38D); at most 2^36 bytes
// (64 GiB) per message.
//
// Build: the package links the static library of the repository's
// crates/gcmsiv-c, built first with `cargo build --release -p gcmsiv-c` from
// the repository root.
package gcmsiv

/*
#cgo CFLAGS: -I${SRCDIR}/../../crates/gcmsiv-c/include
#cgo LDFLAGS: ${SRCDIR}/../../target/release/libgcmsiv_c.a -lpthread -ldl -lm
#include <stdlib.h>
#include "gcmsiv.h"
*/
import "C"

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

// Algorithms, as the C ABI numbers them.
const (
	aes128GCMSIV = C.GCMSIV_AES_128_GCM_SIV
	aes256GCMSIV = C.GCMSIV_AES_256_GCM_SIV
	aes128GCM    = C.GCMSIV_AES_128_GCM
	aes256GCM    = C.GCMSIV_AES_256_GCM
)

// Backend chooses the code a key runs on; Auto picks the fastest this CPU has.
type Backend int

const (
	Auto       Backend = C.GCMSIV_BACKEND_AUTO
	Portable   Backend = C.GCMSIV_BACKEND_PORTABLE
	AesNiClmul Backend = C.GCMSIV_BACKEND_AESNI_CLMUL
	AesNiVaes  Backend = C.GCMSIV_BACKEND_AESNI_VAES
)

func (b Backend) String() string {
	switch b {
	case Auto:
		return "auto"
	case Portable:
		return "portable"
	case AesNiClmul:
		return "aesni-clmul"
	case AesNiVaes:
		return "aesni-vaes"
	}
	return fmt.Sprintf("Backend(%d)", int(b))
}

// Available reports whether this CPU runs the backend.
func (b Backend) Available() bool { return C.gcmsiv_backend_available(C.int(b)) == 1 }

// Backends lists the backends this CPU runs, portable first, fastest last.
func Backends() []Backend {
	var out []Backend
	for _, b := range []Backend{Portable, AesNiClmul, AesNiVaes} {
		if b.Available() {
			out = append(out, b)
		}
	}
	return out
}

// ErrOpen is every authentication failure: wrong key, nonce, data or tag.
// Nothing more is said, and no plaintext is released.
var ErrOpen = errors.New("gcmsiv: message authentication failed")

// Error is misuse reported by the library before any work (a wrong length,
// an input over the limits): Code is the C ABI's status.
type Error struct {
	Code int
	Op   string
}

func (e *Error) Error() string {
	return fmt.Sprintf("gcmsiv: %s: %s", e.Op, C.GoString(C.gcmsiv_strerror(C.int(e.Code))))
}

func status(op string, rc C.int) error {
	switch rc {
	case C.GCMSIV_OK:
		return nil
	case C.GCMSIV_ERR_AUTHENTICATION:
		return ErrOpen
	default:
		return &Error{Code: int(rc), Op: op}
	}
}

// AEAD is a key of one algorithm; safe for concurrent use. It implements
// cipher.AEAD. Close frees (and zeroizes) it at once; otherwise the garbage
// collector does.
type AEAD struct {
	mu        sync.RWMutex // Close against calls in flight
	key       *C.gcmsiv_key
	nonceSize int
	tagSize   int
}

var _ cipher.AEAD = (*AEAD)(nil)

func newAEAD(alg C.int, key []byte, tagSize, nonceSize int, backend Backend, short bool) (*AEAD, error) {
	var k *C.gcmsiv_key
	var rc C.int
	if short {
		rc = C.gcmsiv_key_new_gcm_short_tag_hazardous(&k, alg, ptr(key), C.size_t(len(key)), C.size_t(tagSize), C.int(backend))
	} else {
		rc = C.gcmsiv_key_new_ex(&k, alg, ptr(key), C.size_t(len(key)), C.size_t(tagSize), C.int(backend))
	}
	runtime.KeepAlive(key)
	if err := status("key", rc); err != nil {
		return nil, err
	}
	a := &AEAD{key: k, nonceSize: nonceSize, tagSize: int(C.gcmsiv_key_tag_bytes(k))}
	runtime.SetFinalizer(a, (*AEAD).Close)
	return a, nil
}

// NewAESGCMSIV returns AES-GCM-SIV with a 16- or 32-byte key.
func NewAESGCMSIV(key []byte) (*AEAD, error) { return NewAESGCMSIVWithBackend(key, Auto) }

// NewAESGCMSIVWithBackend is NewAESGCMSIV on a chosen backend.
func NewAESGCMSIVWithBackend(key []byte, backend Backend) (*AEAD, error) {
	alg := C.int(aes128GCMSIV)
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
		return nil, &Error{Code: C.GCMSIV_ERR_NONCE_LENGTH, Op: "key"}
	}
	return newAEAD(gcmAlg(key), key, tagSize, nonceSize, backend, false)
}

// NewAESGCMShortTagHazardous is AES-GCM with 4- or 8-byte tags. Hazardous:
// SP 800-38D Appendix C allows them only with a bound on each message's length
// and on the failed decryptions per key, which the caller must enforce.
func NewAESGCMShortTagHazardous(key []byte, nonceSize, tagSize int, backend Backend) (*AEAD, error) {
	if nonceSize < 1 {
		return nil, &Error{Code: C.GCMSIV_ERR_NONCE_LENGTH, Op: "key"}
	}
	return newAEAD(gcmAlg(key), key, tagSize, nonceSize, backend, true)
}

func gcmAlg(key []byte) C.int {
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
		C.gcmsiv_key_free(a.key)
		a.key = nil
	}
	runtime.SetFinalizer(a, nil)
}

// Backend names the code the key runs on: "portable", "aesni-clmul" or "aesni-vaes".
func (a *AEAD) Backend() string {
	var name string
	a.with(func(k *C.gcmsiv_key) { name = C.GoString(C.gcmsiv_key_backend(k)) })
	return name
}

// BackendBits is the width of the widest vector registers the key's backend
// uses on this CPU: 64 (portable), 128 (aesni-clmul), 256 or 512 (aesni-vaes:
// 512 where the CPU has AVX-512 and runs it at full clock).
func (a *AEAD) BackendBits() int {
	var bits int
	a.with(func(k *C.gcmsiv_key) { bits = int(C.gcmsiv_key_backend_bits(k)) })
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
func (a *AEAD) with(f func(*C.gcmsiv_key)) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.key == nil {
		panic("gcmsiv: AEAD used after Close")
	}
	f(a.key)
}

// ptr is the address of b's first byte, or nil for an empty slice (the C ABI
// takes NULL for empty inputs).
func ptr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0]))
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
	var rc C.int
	a.with(func(k *C.gcmsiv_key) {
		rc = C.gcmsiv_encrypt(ptr(out), C.size_t(len(out)), nil, ptr(plaintext), C.size_t(len(plaintext)),
			ptr(additionalData), C.size_t(len(additionalData)), ptr(nonce), C.size_t(len(nonce)), k)
	})
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
	var rc C.int
	a.with(func(k *C.gcmsiv_key) {
		rc = C.gcmsiv_decrypt(ptr(out), C.size_t(len(out)), nil, ptr(ciphertext), C.size_t(len(ciphertext)),
			ptr(additionalData), C.size_t(len(additionalData)), ptr(nonce), C.size_t(len(nonce)), k)
	})
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
// AES-GCM-SIV keys the per-message set-up of several short messages runs
// interleaved: on CPUs with VAES about twice the messages per second of one
// call each for 16- to 64-byte messages. Misuse anywhere (a nonce of the wrong
// length; Data sharing memory with another item's Data) fails the whole call
// before any item is touched, with the error in every item's Err too. Each
// item's bytes are copied in and out of one buffer around the call, which
// costs less than the cgo calls it saves for short messages.
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
			return &Error{Code: C.GCMSIV_ERR_NONCE_LENGTH, Op: "batch"}
		}
	}
	if batchOverlaps(items) {
		return &Error{Code: C.GCMSIV_ERR_OVERLAP, Op: "batch"}
	}
	// Every item's bytes are copied into one arena, pinned once, which the
	// C items (in C memory) point into: pinning each slice instead cost more
	// than the call for short messages. The arena is zeroed after use (it
	// held plaintext).
	total := 0
	for i := range items {
		total += len(items[i].Nonce) + len(items[i].AdditionalData) + len(items[i].Data)
	}
	arena := make([]byte, total+1)
	defer clear(arena)
	var pinner runtime.Pinner
	pinner.Pin(&arena[0])
	defer pinner.Unpin()
	size := C.size_t(len(items)) * C.size_t(unsafe.Sizeof(C.gcmsiv_batch_item{}))
	cItems := (*C.gcmsiv_batch_item)(C.calloc(1, size))
	if cItems == nil {
		panic("gcmsiv: out of memory")
	}
	defer C.free(unsafe.Pointer(cItems))
	view := unsafe.Slice(cItems, len(items))
	next := 0
	place := func(b []byte) (*C.uint8_t, C.size_t) {
		if len(b) == 0 {
			return nil, 0
		}
		at := arena[next : next+len(b)]
		copy(at, b)
		next += len(b)
		return (*C.uint8_t)(unsafe.Pointer(&at[0])), C.size_t(len(b))
	}
	for i := range items {
		it := &items[i]
		c := &view[i]
		c.npub, c.npub_len = place(it.Nonce)
		c.ad, c.ad_len = place(it.AdditionalData)
		c.data, c.data_len = place(it.Data)
		*(*[16]byte)(unsafe.Pointer(&c.tag)) = it.Tag
	}
	var rc C.int
	a.with(func(k *C.gcmsiv_key) {
		if seal {
			rc = C.gcmsiv_encrypt_batch(cItems, C.size_t(len(items)), k)
		} else {
			rc = C.gcmsiv_decrypt_batch(cItems, C.size_t(len(items)), k)
		}
	})
	if err := status("batch", rc); err != nil {
		return err
	}
	for i := range items {
		it := &items[i]
		if len(it.Data) > 0 {
			copy(it.Data, unsafe.Slice((*byte)(unsafe.Pointer(view[i].data)), len(it.Data)))
		}
		it.Err = status("open", view[i].status)
		if seal {
			it.Tag = *(*[16]byte)(unsafe.Pointer(&view[i].tag))
		}
	}
	return nil
}

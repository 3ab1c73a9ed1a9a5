//go:build cgo && !purego && linux && (amd64 || arm64)

package gcmsiv

/*
#include <stdlib.h>
#include "gcmsiv.h"
*/
import "C"

import (
	"crypto/cipher"
	"runtime"
	"unsafe"
)

// RandomNonceAEAD is an AEAD that manages its own nonces, the shape of the Go
// proposal golang/go#54364 and of crypto/cipher.NewGCMWithRandomNonce:
// NonceSize() is 0, Seal draws 12 random bytes from the operating system and
// returns nonce || ciphertext || tag (Overhead() is 28 with 16-byte tags),
// Open takes that back. Callers never handle a nonce.
//
// For AES-GCM-SIV this is safe far beyond AES-GCM's 2^32 messages per key: a
// repeated nonce reveals only that two messages (with their associated data)
// were equal, and RFC 8452 section 9 bounds an attacker's advantage at 2^-32
// for up to 2^62 messages of up to 64 KiB each (2^53 of up to 16 MiB) under
// one key. With AES-GCM (NewAESGCMWithRandomNonce), keep to 2^32 messages per
// key (SP 800-38D). Safe for concurrent use.
type RandomNonceAEAD struct {
	aead *AEAD
}

var _ cipher.AEAD = (*RandomNonceAEAD)(nil)

// NewAESGCMSIVWithRandomNonce is AES-GCM-SIV with a 16- or 32-byte key that
// picks its own nonces.
func NewAESGCMSIVWithRandomNonce(key []byte) (*RandomNonceAEAD, error) {
	a, err := NewAESGCMSIV(key)
	if err != nil {
		return nil, err
	}
	return &RandomNonceAEAD{aead: a}, nil
}

// NewAESGCMWithRandomNonce is AES-GCM with a 16- or 32-byte key and 16-byte
// tags that picks its own 12-byte nonces (at most 2^32 messages per key).
func NewAESGCMWithRandomNonce(key []byte) (*RandomNonceAEAD, error) {
	a, err := NewAESGCM(key)
	if err != nil {
		return nil, err
	}
	return &RandomNonceAEAD{aead: a}, nil
}

// NonceSize is 0: Seal and Open take no nonce.
func (r *RandomNonceAEAD) NonceSize() int { return 0 }

// Overhead is the nonce and the tag: 28 bytes.
func (r *RandomNonceAEAD) Overhead() int { return 12 + r.aead.tagSize }

// Close frees (and zeroizes) the key now.
func (r *RandomNonceAEAD) Close() { r.aead.Close() }

// Backend names the code the key runs on.
func (r *RandomNonceAEAD) Backend() string { return r.aead.Backend() }

// Seal appends nonce || ciphertext || tag to dst, the nonce fresh from the
// operating system's random number generator. nonce must be empty. In place:
// plaintext may start 12 bytes after dst's end (dst[len(dst)+12:]); any other
// overlap panics, as does a failure of the random number generator.
func (r *RandomNonceAEAD) Seal(dst, nonce, plaintext, additionalData []byte) []byte {
	if len(nonce) != 0 {
		panic("gcmsiv: a nonce given to a RandomNonceAEAD's Seal")
	}
	ret, out := sliceForAppend(dst, len(plaintext)+r.Overhead())
	if len(plaintext) > 0 && anyOverlap(out, plaintext) && &out[12] != &plaintext[0] || anyOverlap(out, additionalData) {
		panic("gcmsiv: invalid buffer overlap")
	}
	var rc C.int
	r.aead.with(func(k *C.gcmsiv_key) {
		rc = C.gcmsiv_encrypt_random_nonce(ptr(out), C.size_t(len(out)), nil, ptr(plaintext), C.size_t(len(plaintext)),
			ptr(additionalData), C.size_t(len(additionalData)), k)
	})
	if err := status("seal", int(rc)); err != nil {
		panic(err) // inputs over the limits (2^36 bytes), or no randomness
	}
	return ret
}

// Open authenticates and decrypts nonce || ciphertext || tag, appending the
// plaintext to dst. nonce must be empty. Input shorter than the overhead, and
// anything not authentic, is ErrOpen, and nothing is released (the bytes it
// would have appended are zeroed). In place: the plaintext may go where the
// ciphertext is (dst[len(dst):] starting at sealed[12:]).
func (r *RandomNonceAEAD) Open(dst, nonce, sealed, additionalData []byte) ([]byte, error) {
	if len(nonce) != 0 {
		panic("gcmsiv: a nonce given to a RandomNonceAEAD's Open")
	}
	if len(sealed) < r.Overhead() {
		return nil, ErrOpen
	}
	ret, out := sliceForAppend(dst, len(sealed)-r.Overhead())
	if len(out) > 0 && anyOverlap(out, sealed) && &out[0] != &sealed[12] || anyOverlap(out, additionalData) {
		panic("gcmsiv: invalid buffer overlap")
	}
	var rc C.int
	r.aead.with(func(k *C.gcmsiv_key) {
		rc = C.gcmsiv_decrypt_random_nonce(ptr(out), C.size_t(len(out)), nil, ptr(sealed), C.size_t(len(sealed)),
			ptr(additionalData), C.size_t(len(additionalData)), k)
	})
	if err := status("open", int(rc)); err != nil {
		return nil, err
	}
	return ret, nil
}

// SealBatch seals many messages in one call, each under its own random nonce
// (one system call for all of them; for AES-GCM-SIV the per-message set-up of
// short messages runs interleaved). additionalData is nil or has one entry
// per plaintext. The results are fresh slices.
func (r *RandomNonceAEAD) SealBatch(plaintexts, additionalData [][]byte) ([][]byte, error) {
	out, _, err := r.batch(plaintexts, additionalData, true)
	return out, err
}

// OpenBatch opens many sealed messages in one call: for each, the plaintext
// (nil if it was not authentic) and nil or ErrOpen. The error is for misuse
// only.
func (r *RandomNonceAEAD) OpenBatch(sealed, additionalData [][]byte) ([][]byte, []error, error) {
	return r.batch(sealed, additionalData, false)
}

func (r *RandomNonceAEAD) batch(inputs, additionalData [][]byte, seal bool) ([][]byte, []error, error) {
	if additionalData != nil && len(additionalData) != len(inputs) {
		return nil, nil, &Error{Code: statusTooShort, Op: "batch: one associated data per message"}
	}
	if len(inputs) == 0 {
		return [][]byte{}, []error{}, nil
	}
	over := r.Overhead()
	// One arena, pinned once, holds every buffer and associated data; the C
	// items (in C memory) point into it. Zeroed after use (it held plaintext).
	total := 0
	for i, in := range inputs {
		total += len(in) + over
		if additionalData != nil {
			total += len(additionalData[i])
		}
	}
	arena := make([]byte, total+1)
	defer clear(arena)
	var pinner runtime.Pinner
	pinner.Pin(&arena[0])
	defer pinner.Unpin()
	size := C.size_t(len(inputs)) * C.size_t(unsafe.Sizeof(C.gcmsiv_sealed_item{}))
	cItems := (*C.gcmsiv_sealed_item)(C.calloc(1, size))
	if cItems == nil {
		panic("gcmsiv: out of memory")
	}
	defer C.free(unsafe.Pointer(cItems))
	view := unsafe.Slice(cItems, len(inputs))
	bufs := make([][]byte, len(inputs))
	next := 0
	for i, in := range inputs {
		n := len(in)
		if seal {
			n += over
		}
		buf := arena[next : next+n]
		next += n
		if seal {
			copy(buf[12:], in)
		} else {
			copy(buf, in)
		}
		bufs[i] = buf
		if len(buf) > 0 {
			view[i].sealed, view[i].sealed_len = (*C.uint8_t)(unsafe.Pointer(&buf[0])), C.size_t(len(buf))
		}
		if additionalData != nil && len(additionalData[i]) > 0 {
			ad := arena[next : next+len(additionalData[i])]
			next += len(ad)
			copy(ad, additionalData[i])
			view[i].ad, view[i].ad_len = (*C.uint8_t)(unsafe.Pointer(&ad[0])), C.size_t(len(ad))
		}
	}
	var rc C.int
	r.aead.with(func(k *C.gcmsiv_key) {
		if seal {
			rc = C.gcmsiv_encrypt_random_nonce_batch(cItems, C.size_t(len(inputs)), k)
		} else {
			rc = C.gcmsiv_decrypt_random_nonce_batch(cItems, C.size_t(len(inputs)), k)
		}
	})
	if err := status("batch", int(rc)); err != nil {
		return nil, nil, err
	}
	results := make([][]byte, len(inputs))
	errs := make([]error, len(inputs))
	for i, buf := range bufs {
		if errs[i] = status("open", int(view[i].status)); errs[i] != nil {
			continue
		}
		if seal {
			results[i] = append([]byte(nil), buf...)
		} else {
			results[i] = append([]byte{}, buf[12:len(buf)-r.aead.tagSize]...)
		}
	}
	return results, errs, nil
}

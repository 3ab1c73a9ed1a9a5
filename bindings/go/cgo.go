//go:build cgo && !purego && linux && (amd64 || arm64)

package gcmsiv

// The C library: the static library of the repository's crates/gcmsiv-c,
// prebuilt for linux/amd64 and linux/arm64 inside this module
// (scripts/go-prebuilt.sh), picked by GOARCH.

/*
#cgo CFLAGS: -I${SRCDIR}/prebuilt
#cgo linux,amd64 LDFLAGS: ${SRCDIR}/prebuilt/linux_amd64/libgcmsiv_c.a
#cgo linux,arm64 LDFLAGS: ${SRCDIR}/prebuilt/linux_arm64/libgcmsiv_c.a
#cgo LDFLAGS: -lpthread -ldl -lm
#include <stdlib.h>
#include "gcmsiv.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// The numbers gcmsiv.go gives the C ABI's constants, checked here at compile
// time: each array length is zero only if the two agree.
var (
	_ [aes128GCMSIV - C.GCMSIV_AES_128_GCM_SIV]struct{}
	_ [C.GCMSIV_AES_128_GCM_SIV - aes128GCMSIV]struct{}
	_ [aes256GCMSIV - C.GCMSIV_AES_256_GCM_SIV]struct{}
	_ [C.GCMSIV_AES_256_GCM_SIV - aes256GCMSIV]struct{}
	_ [aes128GCM - C.GCMSIV_AES_128_GCM]struct{}
	_ [C.GCMSIV_AES_128_GCM - aes128GCM]struct{}
	_ [aes256GCM - C.GCMSIV_AES_256_GCM]struct{}
	_ [C.GCMSIV_AES_256_GCM - aes256GCM]struct{}
	_ [Auto - C.GCMSIV_BACKEND_AUTO]struct{}
	_ [C.GCMSIV_BACKEND_AUTO - Auto]struct{}
	_ [Portable - C.GCMSIV_BACKEND_PORTABLE]struct{}
	_ [C.GCMSIV_BACKEND_PORTABLE - Portable]struct{}
	_ [AesNiClmul - C.GCMSIV_BACKEND_AESNI_CLMUL]struct{}
	_ [C.GCMSIV_BACKEND_AESNI_CLMUL - AesNiClmul]struct{}
	_ [AesNiVaes - C.GCMSIV_BACKEND_AESNI_VAES]struct{}
	_ [C.GCMSIV_BACKEND_AESNI_VAES - AesNiVaes]struct{}
	_ [Armv8AesPmull - C.GCMSIV_BACKEND_ARMV8_AES_PMULL]struct{}
	_ [C.GCMSIV_BACKEND_ARMV8_AES_PMULL - Armv8AesPmull]struct{}
	_ [statusAuthentication - C.GCMSIV_ERR_AUTHENTICATION]struct{}
	_ [C.GCMSIV_ERR_AUTHENTICATION - statusAuthentication]struct{}
	_ [statusInternal - C.GCMSIV_ERR_INTERNAL]struct{}
	_ [C.GCMSIV_ERR_INTERNAL - statusInternal]struct{}
	_ [statusRandomSource - C.GCMSIV_ERR_RANDOM_SOURCE]struct{}
	_ [C.GCMSIV_ERR_RANDOM_SOURCE - statusRandomSource]struct{}
)

type keyHandle = *C.gcmsiv_key

func backendAvailable(b Backend) bool {
	if b == PureGo {
		return false
	}
	return C.gcmsiv_backend_available(C.int(b)) == 1
}

// backendList is the C library's list of backends, numbered from 1.
func backendList() []Backend {
	n := int(C.gcmsiv_backend_count())
	out := make([]Backend, 0, n)
	for i := 1; i <= n; i++ {
		out = append(out, Backend(i))
	}
	return out
}

// backendName is the C library's name for a numbered backend ("" if none).
func backendName(b Backend) string {
	if b < 1 {
		return ""
	}
	return C.GoString(C.gcmsiv_backend_name(C.int(b)))
}

// cStrerror is the C library's text for a status (the tests compare it with statusText).
func cStrerror(code int) string { return C.GoString(C.gcmsiv_strerror(C.int(code))) }

func newKey(alg int, key []byte, tagSize int, backend Backend, short bool) (keyHandle, int, int) {
	if backend == PureGo {
		return nil, 0, statusBackendUnavailable
	}
	var k *C.gcmsiv_key
	var rc C.int
	if short {
		rc = C.gcmsiv_key_new_gcm_short_tag_hazardous(&k, C.int(alg), ptr(key), C.size_t(len(key)), C.size_t(tagSize), C.int(backend))
	} else {
		rc = C.gcmsiv_key_new_ex(&k, C.int(alg), ptr(key), C.size_t(len(key)), C.size_t(tagSize), C.int(backend))
	}
	runtime.KeepAlive(key)
	if rc != C.GCMSIV_OK {
		return nil, 0, int(rc)
	}
	return k, int(C.gcmsiv_key_tag_bytes(k)), int(rc)
}

func freeKey(k keyHandle) { C.gcmsiv_key_free(k) }

func keyBackend(k keyHandle) string { return C.GoString(C.gcmsiv_key_backend(k)) }

func keyBackendBits(k keyHandle) int { return int(C.gcmsiv_key_backend_bits(k)) }

// ptr is the address of b's first byte, or nil for an empty slice (the C ABI
// takes NULL for empty inputs).
func ptr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0]))
}

func keySeal(k keyHandle, out, nonce, plaintext, additionalData []byte) int {
	return int(C.gcmsiv_encrypt(ptr(out), C.size_t(len(out)), nil, ptr(plaintext), C.size_t(len(plaintext)),
		ptr(additionalData), C.size_t(len(additionalData)), ptr(nonce), C.size_t(len(nonce)), k))
}

func keyOpen(k keyHandle, out, nonce, ciphertext, additionalData []byte) int {
	return int(C.gcmsiv_decrypt(ptr(out), C.size_t(len(out)), nil, ptr(ciphertext), C.size_t(len(ciphertext)),
		ptr(additionalData), C.size_t(len(additionalData)), ptr(nonce), C.size_t(len(nonce)), k))
}

func keyBatch(k keyHandle, items []BatchItem, seal bool) error {
	// Every item's bytes are copied into one arena, pinned once, which the
	// C items (in C memory) point into: pinning each slice instead costs more
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
	if seal {
		rc = C.gcmsiv_encrypt_batch(cItems, C.size_t(len(items)), k)
	} else {
		rc = C.gcmsiv_decrypt_batch(cItems, C.size_t(len(items)), k)
	}
	if err := status("batch", int(rc)); err != nil {
		return err
	}
	for i := range items {
		it := &items[i]
		if len(it.Data) > 0 {
			copy(it.Data, unsafe.Slice((*byte)(unsafe.Pointer(view[i].data)), len(it.Data)))
		}
		it.Err = status("open", int(view[i].status))
		if seal {
			it.Tag = *(*[16]byte)(unsafe.Pointer(&view[i].tag))
		}
	}
	return nil
}

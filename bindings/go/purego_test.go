//go:build !cgo || purego || !linux || !(amd64 || arm64)

package gcmsiv

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"math/rand"
	"testing"
)

// Without the C library every key runs the Go code, and asking for one of
// the C library's backends is an error, never a silent substitute.
func TestPureGoOnly(t *testing.T) {
	if got := Backends(); len(got) != 1 || got[0] != PureGo {
		t.Fatalf("backends %v", got)
	}
	for _, b := range []Backend{Portable, AesNiClmul, AesNiVaes} {
		var e *Error
		if _, err := NewAESGCMSIVWithBackend(make([]byte, 16), b); err == nil || !asError(err, &e) || e.Code != statusBackendUnavailable {
			t.Fatalf("%s: %v", b, err)
		}
	}
	a, err := NewAESGCMSIV(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.BackendDescription() != "purego (64-bit)" {
		t.Fatal(a.BackendDescription())
	}
}

func asError(err error, e **Error) bool {
	x, ok := err.(*Error)
	*e = x
	return ok
}

// POLYVAL's field: dot(a, x^128) = a (x^128 is the Montgomery one), and
// mulX agrees with dot by x^129.
func TestPolyvalField(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	// x^128 mod p = x^127 + x^126 + x^121 + 1.
	one := [2]uint64{1, 0xc200000000000000}
	for i := 0; i < 1000; i++ {
		a := [2]uint64{rng.Uint64(), rng.Uint64()}
		if got := dot(a, one); got != a {
			t.Fatalf("dot(%x, x^128) = %x", a, got)
		}
		if got, want := mulX(a), dot(a, mulX(one)); got != want {
			t.Fatalf("mulX(%x) = %x, dot gives %x", a, got, want)
		}
	}
}

// In place, a failed AES-GCM-SIV Open puts the ciphertext back, and a failed
// AES-GCM Open leaves it untouched.
func TestFailedOpenInPlace(t *testing.T) {
	for _, newKey := range []func([]byte) (*AEAD, error){NewAESGCMSIV, NewAESGCM} {
		a, _ := newKey(make([]byte, 16))
		nonce := make([]byte, 12)
		sealed := a.Seal(nil, nonce, bytes.Repeat([]byte("x"), 40), nil)
		sealed[3] ^= 1
		buf := append([]byte(nil), sealed...)
		if _, err := a.Open(buf[:0], nonce, buf, nil); err != ErrOpen {
			t.Fatal(err)
		}
		if !bytes.Equal(buf, sealed) {
			t.Fatal("the ciphertext is not back in place")
		}
		a.Close()
	}
}

// AES-GCM with long and odd nonces and every tag size against the standard
// library (an independent GHASH).
func TestGCMOptionsAgainstStandardLibrary(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	key := make([]byte, 16)
	rng.Read(key)
	block, _ := aes.NewCipher(key)
	for _, nonceSize := range []int{8, 12, 13, 16, 60} {
		for tagSize := 12; tagSize <= 16; tagSize++ {
			std, err := cipher.NewGCMWithNonceSize(block, nonceSize)
			if err != nil {
				t.Fatal(err)
			}
			ours, err := NewAESGCMWithOptions(key, nonceSize, tagSize, Auto)
			if err != nil {
				t.Fatal(err)
			}
			nonce, pt, aad := make([]byte, nonceSize), make([]byte, 77), make([]byte, 19)
			rng.Read(nonce)
			rng.Read(pt)
			want := std.Seal(nil, nonce, pt, aad)
			want = want[:len(pt)+tagSize]
			if got := ours.Seal(nil, nonce, pt, aad); !bytes.Equal(got, want) {
				t.Fatalf("nonce %d tag %d: %x, want %x", nonceSize, tagSize, got, want)
			}
			ours.Close()
		}
	}
}

package gcmsiv

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"errors"
	"testing"
)

// fuzzKey is key cut or padded to 16 or 32 bytes (by the low bit of size).
func fuzzKey(size uint8, key []byte) []byte {
	n := 16
	if size&1 == 1 {
		n = 32
	}
	out := make([]byte, n)
	copy(out, key)
	return out
}

// fuzzNonce is nonce cut or padded to 12 bytes.
func fuzzNonce(nonce []byte) []byte {
	out := make([]byte, 12)
	copy(out, nonce)
	return out
}

// FuzzOpen opens arbitrary (possibly forged) ciphertexts under arbitrary
// keys, nonces and associated data, with AES-GCM-SIV and AES-GCM on every
// backend: every failure is ErrOpen; a separate output of a failed open is
// zeroed and an in-place one holds the ciphertext again; what opens is what
// Seal makes (both are deterministic for a nonce); every backend gives the
// same verdict; AES-GCM agrees with crypto/cipher's. `go test` runs the
// seeds below and testdata/fuzz/FuzzOpen (crashers found become files
// there); `go test -fuzz=FuzzOpen` (scripts/fuzz.sh) searches. Go's fuzzer
// sees the coverage of the Go code only: the library behind cgo is
// fuzzed with coverage by the Rust targets in fuzz/.
func FuzzOpen(f *testing.F) {
	key := bytes.Repeat([]byte{7}, 32)
	nonce := make([]byte, 12)
	siv, err := NewAESGCMSIV(key)
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range []int{0, 1, 16, 17, 64, 129} {
		msg := bytes.Repeat([]byte{byte(n)}, n)
		sealed := siv.Seal(nil, nonce, msg, []byte("ad"))
		f.Add(uint8(1), key, nonce, []byte("ad"), sealed)
		forged := bytes.Clone(sealed)
		forged[len(forged)-1] ^= 1
		f.Add(uint8(1), key, nonce, []byte("ad"), forged)
	}
	siv.Close()
	f.Add(uint8(0), key[:16], nonce, []byte{}, make([]byte, 15))
	f.Add(uint8(0), key[:16], nonce, []byte{}, make([]byte, 16))

	f.Fuzz(func(t *testing.T, size uint8, rawKey, rawNonce, ad, sealed []byte) {
		key, nonce := fuzzKey(size, rawKey), fuzzNonce(rawNonce)
		block, err := aes.NewCipher(key)
		if err != nil {
			t.Fatal(err)
		}
		std, err := cipher.NewGCM(block)
		if err != nil {
			t.Fatal(err)
		}
		stdPlain, stdErr := std.Open(nil, nonce, sealed, ad)
		for _, backend := range Backends() {
			for _, gcm := range []bool{false, true} {
				var a *AEAD
				if gcm {
					a, err = NewAESGCMWithOptions(key, 12, 16, backend)
				} else {
					a, err = NewAESGCMSIVWithBackend(key, backend)
				}
				if err != nil {
					t.Fatal(err)
				}
				plain, err := a.Open([]byte("prefix"), nonce, sealed, ad)
				if err != nil && !errors.Is(err, ErrOpen) {
					t.Fatalf("%v gcm=%v: %v, not ErrOpen", backend, gcm, err)
				}
				if gcm && (err == nil) != (stdErr == nil) {
					t.Fatalf("%v: verdict %v, crypto/cipher's %v", backend, err, stdErr)
				}
				if err == nil {
					plain = plain[len("prefix"):]
					if gcm && !bytes.Equal(plain, stdPlain) {
						t.Fatalf("%v: plaintext differs from crypto/cipher's", backend)
					}
					if again := a.Seal(nil, nonce, plain, ad); !bytes.Equal(again, sealed) {
						t.Fatalf("%v gcm=%v: opened, but Seal makes other bytes", backend, gcm)
					}
				}
				// In place: on failure the ciphertext is back.
				buf := bytes.Clone(sealed)
				_, inPlaceErr := a.Open(buf[:0], nonce, buf, ad)
				if (inPlaceErr == nil) != (err == nil) {
					t.Fatalf("%v gcm=%v: in place %v, separate %v", backend, gcm, inPlaceErr, err)
				}
				if inPlaceErr != nil && !bytes.Equal(buf, sealed) {
					t.Fatalf("%v gcm=%v: a failed in-place open changed the ciphertext", backend, gcm)
				}
				// Into a separate buffer with room: nothing released.
				if err != nil && len(sealed) >= 16 {
					out := bytes.Repeat([]byte{0xa5}, len(sealed))
					if _, err := a.Open(out[:0], nonce, sealed, ad); err == nil {
						t.Fatal("verdict changed")
					}
					if !bytes.Equal(out[:len(sealed)-16], make([]byte, len(sealed)-16)) {
						t.Fatalf("%v gcm=%v: a failed open left bytes in its output", backend, gcm)
					}
				}
				a.Close()
			}
		}
	})
}

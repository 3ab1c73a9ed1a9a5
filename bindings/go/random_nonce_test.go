//go:build cgo && !purego && linux && (amd64 || arm64)

package gcmsiv

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"errors"
	"testing"
)

func randomNonceAEADs(t *testing.T) map[string]*RandomNonceAEAD {
	out := map[string]*RandomNonceAEAD{}
	for _, n := range []int{16, 32} {
		key := bytes.Repeat([]byte{byte(n)}, n)
		siv, err := NewAESGCMSIVWithRandomNonce(key)
		if err != nil {
			t.Fatal(err)
		}
		gcm, err := NewAESGCMWithRandomNonce(key)
		if err != nil {
			t.Fatal(err)
		}
		out["siv"+string(rune('0'+n/16))] = siv
		out["gcm"+string(rune('0'+n/16))] = gcm
	}
	return out
}

func TestRandomNonceAEAD(t *testing.T) {
	for name, a := range randomNonceAEADs(t) {
		if a.NonceSize() != 0 || a.Overhead() != 28 {
			t.Fatalf("%s: sizes %d, %d", name, a.NonceSize(), a.Overhead())
		}
		for _, n := range []int{0, 1, 15, 16, 17, 255, 8192, 8193} {
			pt := testPlain(n)
			ad := []byte("header")
			s1 := a.Seal(nil, nil, pt, ad)
			s2 := a.Seal([]byte("prefix"), nil, pt, ad)
			if len(s1) != n+28 || !bytes.Equal(s2[:6], []byte("prefix")) || bytes.Equal(s1[:12], s2[6:18]) {
				t.Fatalf("%s %d: sealed %d bytes, nonces %x %x", name, n, len(s1), s1[:12], s2[6:18])
			}
			got, err := a.Open(nil, nil, s1, ad)
			if err != nil || !bytes.Equal(got, pt) {
				t.Fatalf("%s %d: %v", name, n, err)
			}
			// The same bytes as the nonce-taking AEAD under that nonce.
			plain, err := a.aead.Open(nil, s1[:12], s1[12:], ad)
			if err != nil || !bytes.Equal(plain, pt) {
				t.Fatalf("%s %d: not nonce || Seal(nonce): %v", name, n, err)
			}
			for at := 0; at < len(s1); at += 1 + len(s1)/40 {
				bad := bytes.Clone(s1)
				bad[at] ^= 0x20
				dst := make([]byte, 0, len(s1))
				if out, err := a.Open(dst, nil, bad, ad); out != nil || !errors.Is(err, ErrOpen) {
					t.Fatalf("%s %d: flip at %d: %v", name, n, at, err)
				}
				if !bytes.Equal(dst[:cap(dst)][:n], make([]byte, n)) {
					t.Fatalf("%s %d: plaintext released", name, n)
				}
			}
			for cut := 0; cut < 28; cut++ {
				if _, err := a.Open(nil, nil, s1[:cut], ad); err != ErrOpen {
					t.Fatalf("%s: %d bytes: %v", name, cut, err)
				}
			}
			if _, err := a.Open(nil, nil, s1, []byte("other")); err != ErrOpen {
				t.Fatalf("%s: other ad: %v", name, err)
			}
			// In place: plaintext at buf[12:], plaintext back at sealed[12:].
			buf := make([]byte, n+28)
			copy(buf[12:], pt)
			sealed := a.Seal(buf[:0], nil, buf[12:12+n], ad)
			opened, err := a.Open(sealed[12:12], nil, sealed, ad)
			if err != nil || !bytes.Equal(opened, pt) {
				t.Fatalf("%s %d in place: %v", name, n, err)
			}
		}
		shouldPanic(t, func() { a.Seal(nil, make([]byte, 12), nil, nil) })
		shouldPanic(t, func() { _, _ = a.Open(nil, make([]byte, 12), make([]byte, 40), nil) })
		buf := make([]byte, 100)
		shouldPanic(t, func() { a.Seal(buf[:0], nil, buf[5:20], nil) })
	}
}

func shouldPanic(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	f()
}

// AES-GCM's random-nonce messages open with the standard library.
func TestRandomNonceGCMAgainstStdlib(t *testing.T) {
	key := bytes.Repeat([]byte{9}, 32)
	a, _ := NewAESGCMWithRandomNonce(key)
	block, _ := aes.NewCipher(key)
	std, _ := cipher.NewGCM(block)
	pt := testPlain(1000)
	s := a.Seal(nil, nil, pt, []byte("ad"))
	got, err := std.Open(nil, s[:12], s[12:], []byte("ad"))
	if err != nil || !bytes.Equal(got, pt) {
		t.Fatal(err)
	}
}

func TestRandomNonceBatch(t *testing.T) {
	for name, a := range randomNonceAEADs(t) {
		var pts, ads [][]byte
		for i := 0; i < 20; i++ {
			pts = append(pts, testPlain(i*13))
			ads = append(ads, bytes.Repeat([]byte{byte(i)}, i%3))
		}
		sealed, err := a.SealBatch(pts, ads)
		if err != nil {
			t.Fatal(err)
		}
		for i := range pts {
			got, err := a.Open(nil, nil, sealed[i], ads[i])
			if err != nil || !bytes.Equal(got, pts[i]) {
				t.Fatalf("%s item %d opens alone: %v", name, i, err)
			}
		}
		sealed[4][20] ^= 1
		sealed[7] = sealed[7][:27]
		opened, errs, err := a.OpenBatch(sealed, ads)
		if err != nil {
			t.Fatal(err)
		}
		for i := range pts {
			bad := i == 4 || i == 7
			if bad != (errs[i] == ErrOpen) || bad != (opened[i] == nil) || !bad && !bytes.Equal(opened[i], pts[i]) {
				t.Fatalf("%s item %d: %v", name, i, errs[i])
			}
		}
		if _, err := a.SealBatch(pts, ads[:3]); err == nil {
			t.Fatal("mismatched associated data")
		}
		if out, err := a.SealBatch(pts, nil); err != nil || len(out) != len(pts) {
			t.Fatal(err)
		}
		if out, _, err := a.OpenBatch(nil, nil); err != nil || len(out) != 0 {
			t.Fatal(err)
		}
	}
}

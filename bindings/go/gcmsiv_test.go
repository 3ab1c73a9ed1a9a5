package gcmsiv

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// vectorsDir is $GCMSIV_VECTORS, or ../shared/vectors beside the checkout.
func vectorsDir() string {
	if d := os.Getenv("GCMSIV_VECTORS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "vectors")
}

func load(t *testing.T, name string, into any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(vectorsDir(), name))
	if err != nil {
		t.Fatalf("vectors are not optional: %v (set GCMSIV_VECTORS)", err)
	}
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// check runs one vector through Seal and Open (separate buffers and in place),
// and a tampered copy through Open.
func check(t *testing.T, name string, a *AEAD, nonce, aad, pt, sealed []byte, valid bool) {
	t.Helper()
	if valid {
		if got := a.Seal(nil, nonce, pt, aad); !bytes.Equal(got, sealed) {
			t.Fatalf("%s on %s: Seal %x, want %x", name, a.Backend(), got, sealed)
		}
		buf := append(make([]byte, 0, len(pt)+a.Overhead()), pt...)
		if got := a.Seal(buf[:0], nonce, buf, aad); !bytes.Equal(got, sealed) {
			t.Fatalf("%s: Seal in place", name)
		}
		got, err := a.Open([]byte("prefix"), nonce, sealed, aad)
		if err != nil || !bytes.Equal(got, append([]byte("prefix"), pt...)) {
			t.Fatalf("%s on %s: Open %x, %v", name, a.Backend(), got, err)
		}
		sealed = append([]byte(nil), sealed...)
		sealed[len(sealed)/2] ^= 0x20
	}
	out := make([]byte, len(sealed))
	for i := range out {
		out[i] = 0xa5
	}
	if got, err := a.Open(out[:0], nonce, sealed, aad); !errors.Is(err, ErrOpen) || got != nil {
		t.Fatalf("%s on %s: a forgery opened: %v", name, a.Backend(), err)
	}
	for i := 0; i < len(sealed)-a.Overhead(); i++ {
		if out[i] != 0 {
			t.Fatalf("%s: a failed Open left bytes in its output", name)
		}
	}
	inPlace := append([]byte(nil), sealed...)
	if _, err := a.Open(inPlace[:0], nonce, inPlace, aad); !errors.Is(err, ErrOpen) || !bytes.Equal(inPlace, sealed) {
		t.Fatalf("%s: a failed Open in place must put the ciphertext back", name)
	}
}

type rfcVector struct {
	ID, Key, Nonce, AAD, Plaintext, Ciphertext, Result string
}

func TestRFC8452AndBoringSSL(t *testing.T) {
	var rfc struct {
		Vectors           []rfcVector
		AdditionalVectors []rfcVector `json:"additional_vectors"`
	}
	var boring struct{ Vectors []rfcVector }
	load(t, "rfc8452.json", &rfc)
	load(t, "boringssl_gcm_siv.json", &boring)
	all := append(append(rfc.Vectors, rfc.AdditionalVectors...), boring.Vectors...)
	if len(all) != 51+179 {
		t.Fatalf("%d vectors", len(all))
	}
	for _, backend := range Backends() {
		for _, v := range all {
			a, err := NewAESGCMSIVWithBackend(unhex(t, v.Key), backend)
			if err != nil {
				t.Fatal(err)
			}
			check(t, v.ID, a, unhex(t, v.Nonce), unhex(t, v.AAD), unhex(t, v.Plaintext), unhex(t, v.Ciphertext), v.Result == "valid")
			a.Close()
		}
	}
}

type wycheproof struct {
	TestGroups []struct {
		KeySize, IvSize, TagSize int
		Tests                    []struct {
			TcID                               int
			Key, Iv, Aad, Msg, Ct, Tag, Result string
		}
	}
}

func TestWycheproof(t *testing.T) {
	for _, file := range []string{"wycheproof_aes_gcm_siv.json", "wycheproof_aes_gcm.json"} {
		var w wycheproof
		load(t, file, &w)
		siv := file == "wycheproof_aes_gcm_siv.json"
		for _, backend := range Backends() {
			run, skipped := 0, 0
			for _, g := range w.TestGroups {
				for _, tc := range g.Tests {
					if g.KeySize == 192 {
						skipped++
						continue
					}
					run++
					key, iv := unhex(t, tc.Key), unhex(t, tc.Iv)
					var a *AEAD
					var err error
					if siv {
						a, err = NewAESGCMSIVWithBackend(key, backend)
					} else if len(iv) == 0 {
						// A zero-length IV is misuse, refused when the key is made.
						if _, err = NewAESGCMWithOptions(key, 0, 16, backend); err == nil {
							t.Fatalf("%s %d: a zero-length IV accepted", file, tc.TcID)
						}
						continue
					} else {
						a, err = NewAESGCMWithOptions(key, len(iv), 16, backend)
					}
					if err != nil {
						t.Fatal(err)
					}
					sealed := append(unhex(t, tc.Ct), unhex(t, tc.Tag)...)
					name := fmt.Sprintf("%s tcId %d", file, tc.TcID)
					check(t, name, a, iv, unhex(t, tc.Aad), unhex(t, tc.Msg), sealed, tc.Result == "valid")
					a.Close()
				}
			}
			if siv && run != 202 || !siv && run+skipped != 316 {
				t.Fatalf("%s: %d run, %d skipped", file, run, skipped)
			}
		}
	}
}

func TestNISTGCM(t *testing.T) {
	var f struct {
		Vectors []struct {
			ID, Key, Iv, Aad, Ciphertext, Tag, Result string
			Plaintext                                 *string
			KeyBits                                   int `json:"key_bits"`
		}
	}
	load(t, "gcm_nist.json", &f)
	for _, backend := range Backends() {
		run := 0
		for _, v := range f.Vectors {
			if v.KeyBits == 192 {
				continue
			}
			run++
			key, iv, tag := unhex(t, v.Key), unhex(t, v.Iv), unhex(t, v.Tag)
			var a *AEAD
			var err error
			if len(tag) >= 12 {
				a, err = NewAESGCMWithOptions(key, len(iv), len(tag), backend)
			} else {
				a, err = NewAESGCMShortTagHazardous(key, len(iv), len(tag), backend)
			}
			if err != nil {
				t.Fatal(err)
			}
			var pt []byte
			if v.Plaintext != nil {
				pt = unhex(t, *v.Plaintext)
			}
			check(t, v.ID, a, iv, unhex(t, v.Aad), pt, append(unhex(t, v.Ciphertext), tag...), v.Result == "valid")
			a.Close()
		}
		if run != 140 {
			t.Fatalf("%d NIST vectors run", run)
		}
	}
}

// Against Go's own AES-GCM, an independent implementation: random keys,
// nonces, lengths around the kernels' block boundaries, every backend.
func TestAgainstStandardLibraryGCM(t *testing.T) {
	rng := rand.New(rand.NewSource(8452))
	lengths := []int{0, 1, 15, 16, 17, 63, 64, 127, 128, 129, 255, 256, 511, 512, 1023, 1024, 4096, 8191, 8192, 8193, 8208, 70000}
	for _, backend := range Backends() {
		for _, keyLen := range []int{16, 32} {
			for _, n := range lengths {
				key, nonce := make([]byte, keyLen), make([]byte, 12)
				pt, aad := make([]byte, n), make([]byte, rng.Intn(40))
				rng.Read(key)
				rng.Read(nonce)
				rng.Read(pt)
				rng.Read(aad)
				block, _ := aes.NewCipher(key)
				std, _ := cipher.NewGCM(block)
				ours, err := NewAESGCMWithOptions(key, 12, 16, backend)
				if err != nil {
					t.Fatal(err)
				}
				want := std.Seal(nil, nonce, pt, aad)
				if got := ours.Seal(nil, nonce, pt, aad); !bytes.Equal(got, want) {
					t.Fatalf("%s, %d-byte key, %d bytes: differs from crypto/cipher", backend, keyLen, n)
				}
				if got, err := ours.Open(nil, nonce, want, aad); err != nil || !bytes.Equal(got, pt) {
					t.Fatalf("%s: Open of crypto/cipher's output", backend)
				}
				ours.Close()
			}
		}
	}
}

// Every backend gives the same bytes as the portable one, and messages
// round-trip, at lengths around every kernel boundary.
func TestBackendsAgree(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, keyLen := range []int{16, 32} {
		key := make([]byte, keyLen)
		rng.Read(key)
		ref, _ := NewAESGCMSIVWithBackend(key, Portable)
		for n := 0; n < 300; n += 1 + n/16 {
			pt, nonce, aad := make([]byte, n), make([]byte, 12), make([]byte, n%33)
			rng.Read(pt)
			rng.Read(nonce)
			want := ref.Seal(nil, nonce, pt, aad)
			for _, backend := range Backends() {
				a, _ := NewAESGCMSIVWithBackend(key, backend)
				if got := a.Seal(nil, nonce, pt, aad); !bytes.Equal(got, want) {
					t.Fatalf("%s differs from portable at %d bytes", backend, n)
				}
				if got, err := a.Open(nil, nonce, want, aad); err != nil || !bytes.Equal(got, pt) {
					t.Fatalf("%s: round trip at %d bytes", backend, n)
				}
				a.Close()
			}
		}
	}
}

func TestMisuse(t *testing.T) {
	if _, err := NewAESGCMSIV(make([]byte, 24)); err == nil {
		t.Fatal("a 24-byte key accepted")
	}
	var e *Error
	if _, err := NewAESGCMSIV(nil); !errors.As(err, &e) || e.Code != -2 {
		t.Fatalf("key error: %v", err)
	}
	if _, err := NewAESGCMWithOptions(make([]byte, 16), 12, 11, Auto); err == nil {
		t.Fatal("an 11-byte tag accepted")
	}
	a, _ := NewAESGCMSIV(make([]byte, 16))
	defer a.Close()
	mustPanic(t, "short nonce", func() { a.Seal(nil, make([]byte, 11), nil, nil) })
	mustPanic(t, "overlap", func() {
		buf := make([]byte, 64)
		a.Seal(buf[:1], make([]byte, 12), buf[:16], nil)
	})
	mustPanic(t, "additional data inside the output", func() {
		buf := make([]byte, 64)
		a.Seal(buf[:0], make([]byte, 12), make([]byte, 16), buf[8:12])
	})
	mustPanic(t, "nonce inside the output", func() {
		buf := make([]byte, 64)
		a.Open(buf[:0], buf[4:16], make([]byte, 32), nil)
	})
	if _, err := a.Open(nil, make([]byte, 12), make([]byte, 15), nil); !errors.Is(err, ErrOpen) {
		t.Fatal("a ciphertext shorter than a tag")
	}
	b, _ := NewAESGCMSIV(make([]byte, 16))
	b.Close()
	b.Close() // twice is fine
	mustPanic(t, "use after Close", func() { b.Seal(nil, make([]byte, 12), nil, nil) })
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatalf("%s: no panic", what)
		}
	}()
	f()
}

func TestBatch(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, backend := range Backends() {
		for _, newKey := range []func([]byte, Backend) (*AEAD, error){
			NewAESGCMSIVWithBackend,
			func(k []byte, b Backend) (*AEAD, error) { return NewAESGCMWithOptions(k, 12, 16, b) },
		} {
			key := make([]byte, 32)
			rng.Read(key)
			a, err := newKey(key, backend)
			if err != nil {
				t.Fatal(err)
			}
			items := make([]BatchItem, 50)
			plain := make([][]byte, len(items))
			for i := range items {
				n := []int{0, 16, 32, 64, 100, 1000}[i%6]
				plain[i] = make([]byte, n)
				rng.Read(plain[i])
				items[i] = BatchItem{Nonce: []byte{byte(i), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, AdditionalData: []byte{byte(i)}, Data: append([]byte(nil), plain[i]...)}
			}
			if err := a.SealBatch(items); err != nil {
				t.Fatal(err)
			}
			for i, it := range items {
				one := a.Seal(nil, it.Nonce, plain[i], it.AdditionalData)
				if !bytes.Equal(append(append([]byte(nil), it.Data...), it.Tag[:]...), one) {
					t.Fatalf("%s: batch item %d differs from one Seal", backend, i)
				}
			}
			items[7].Tag[3] ^= 1
			sealed7 := append([]byte(nil), items[7].Data...)
			if err := a.OpenBatch(items); err != nil {
				t.Fatal(err)
			}
			for i, it := range items {
				if i == 7 {
					if !errors.Is(it.Err, ErrOpen) || !bytes.Equal(it.Data, sealed7) {
						t.Fatalf("the tampered item: %v", it.Err)
					}
				} else if it.Err != nil || !bytes.Equal(it.Data, plain[i]) {
					t.Fatalf("item %d: %v", i, it.Err)
				}
			}
			items[3].Nonce = items[3].Nonce[:5]
			before := append([]byte(nil), items[0].Data...)
			if err := a.OpenBatch(items); err == nil {
				t.Fatal("a batch with a short nonce ran")
			}
			for i, it := range items {
				if it.Err == nil {
					t.Fatalf("item %d reads authentic after a refused call", i)
				}
			}
			if !bytes.Equal(items[0].Data, before) {
				t.Fatal("a refused batch touched an item")
			}
			// Another item's data as associated data: refused by the C ABI.
			items[3].Nonce = items[2].Nonce
			items[4].AdditionalData = items[9].Data[:1]
			var e *Error
			if err := a.SealBatch(items); !errors.As(err, &e) || e.Code != -11 {
				t.Fatalf("overlap in a batch: %v", err)
			}
			a.Close()
		}
	}
}

// Close while other goroutines use the key: calls in flight finish, later
// ones panic with "used after Close", and the race detector sees no race.
func TestCloseDuringUse(t *testing.T) {
	a, _ := NewAESGCMSIV(make([]byte, 16))
	var wg sync.WaitGroup
	started := make(chan struct{}, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil && r != "gcmsiv: AEAD used after Close" {
					t.Errorf("unexpected panic: %v", r)
				}
			}()
			started <- struct{}{}
			for {
				a.Seal(nil, make([]byte, 12), make([]byte, 100), nil)
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-started
	}
	a.Close()
	wg.Wait()
	if !strings.Contains(recoverPanic(func() { a.Backend() }), "after Close") {
		t.Fatal("Backend after Close")
	}
}

func recoverPanic(f func()) (msg string) {
	defer func() { msg = fmt.Sprint(recover()) }()
	f()
	return
}

// Many goroutines on one key (run with -race).
func TestConcurrentUse(t *testing.T) {
	a, _ := NewAESGCMSIV(make([]byte, 32))
	defer a.Close()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			nonce := make([]byte, 12)
			nonce[0] = byte(g)
			for i := 0; i < 200; i++ {
				pt := bytes.Repeat([]byte{byte(i)}, i)
				got, err := a.Open(nil, nonce, a.Seal(nil, nonce, pt, nil), nil)
				if err != nil || !bytes.Equal(got, pt) {
					t.Error("round trip under concurrency")
					return
				}
			}
		}(g)
	}
	wg.Wait()
}

// Ours (AES-GCM-SIV and AES-GCM) beside the standard library's AES-GCM, per
// message size: go test -bench . -run XXX
func BenchmarkSeal(b *testing.B) {
	key := make([]byte, 16)
	block, _ := aes.NewCipher(key)
	std, _ := cipher.NewGCM(block)
	siv, _ := NewAESGCMSIV(key)
	gcm, _ := NewAESGCM(key)
	defer siv.Close()
	defer gcm.Close()
	for _, n := range []int{16, 64, 1024, 16384} {
		for _, c := range []struct {
			name string
			aead cipher.AEAD
		}{{"gcmsiv-siv", siv}, {"gcmsiv-gcm", gcm}, {"stdlib-gcm", std}} {
			b.Run(fmt.Sprintf("%s/%d", c.name, n), func(b *testing.B) {
				nonce, pt := make([]byte, 12), make([]byte, n)
				out := make([]byte, 0, n+16)
				b.SetBytes(int64(n))
				for i := 0; i < b.N; i++ {
					c.aead.Seal(out, nonce, pt, nil)
				}
			})
		}
	}
}

// 64 messages of 16 bytes: one SealBatch call against 64 Seal calls (ns/op is per message).
func BenchmarkSealBatch16(b *testing.B) {
	siv, _ := NewAESGCMSIV(make([]byte, 16))
	defer siv.Close()
	items := make([]BatchItem, 64)
	for i := range items {
		items[i] = BatchItem{Nonce: make([]byte, 12), Data: make([]byte, 16)}
	}
	b.Run("batch", func(b *testing.B) {
		for i := 0; i < b.N; i += len(items) {
			if err := siv.SealBatch(items); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("one-by-one", func(b *testing.B) {
		out := make([]byte, 0, 32)
		for i := 0; i < b.N; i++ {
			siv.Seal(out, items[0].Nonce, items[0].Data, nil)
		}
	})
}

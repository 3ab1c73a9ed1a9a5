//go:build cgo && !purego && linux && (amd64 || arm64)

package gcmsiv_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"

	gcmsiv "github.com/gcmsiv/gcmsiv/bindings/go"
)

// Write a file, read it back, and read a range of it.
func ExampleNewFileWriter() {
	key := make([]byte, 32) // what a key file holds: keep it secret
	rand.Read(key)
	secret := gcmsiv.FileKey(key)

	var file bytes.Buffer // any io.Writer: an *os.File, a network stream
	w, err := gcmsiv.NewFileWriter(&file, secret, &gcmsiv.FileOptions{ChunkSize: 1024})
	if err != nil {
		panic(err)
	}
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(w, "line %04d\n", i)
	}
	if err := w.Close(); err != nil { // writes the final chunk
		panic(err)
	}

	r, _ := gcmsiv.NewFileReader(bytes.NewReader(file.Bytes()), secret)
	plain, err := io.ReadAll(r) // io.EOF only after the final chunk authenticated
	fmt.Println(len(plain), err)

	ra, _ := gcmsiv.NewFileReaderAt(bytes.NewReader(file.Bytes()), int64(file.Len()), secret)
	line := make([]byte, 10)
	ra.ReadAt(line, 500*10) // authenticates only the chunk it touches
	fmt.Printf("%q of %d\n", line, ra.Size())

	forged := bytes.Clone(file.Bytes())
	forged[2000] ^= 1
	r, _ = gcmsiv.NewFileReader(bytes.NewReader(forged), secret)
	_, err = io.ReadAll(r)
	fmt.Println(errors.Is(err, gcmsiv.ErrOpen), err)
	// Output:
	// 10000 <nil>
	// "line 0500\n" of 10000
	// true gcmsiv: file is corrupted: chunk 1 failed authentication
}

// An AEAD that picks its own nonces: NonceSize() is 0.
func ExampleNewAESGCMSIVWithRandomNonce() {
	key := make([]byte, 32)
	rand.Read(key)
	aead, _ := gcmsiv.NewAESGCMSIVWithRandomNonce(key)
	sealed := aead.Seal(nil, nil, []byte("attack at dawn"), []byte("header")) // nonce || ciphertext || tag
	plain, err := aead.Open(nil, nil, sealed, []byte("header"))
	fmt.Println(aead.NonceSize(), len(sealed)-len(plain), string(plain), err)
	// Output: 0 28 attack at dawn <nil>
}

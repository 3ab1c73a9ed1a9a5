//go:build cgo && !purego && linux && (amd64 || arm64)

package gcmsiv

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"testing/quick"
)

// formatDir is the file-format vectors: $GCMSIV_VECTORS/format, or the
// repository's.
func formatDir(t *testing.T) string {
	dir := os.Getenv("GCMSIV_VECTORS")
	if dir == "" {
		dir = filepath.Join("..", "..", "vectors")
	}
	dir = filepath.Join(dir, "format")
	if _, err := os.Stat(filepath.Join(dir, "manifest.txt")); err != nil {
		t.Fatalf("the format vectors are not optional: %v (set GCMSIV_VECTORS)", err)
	}
	return dir
}

type formatVector map[string]string

func readManifest(t *testing.T, dir string) []formatVector {
	return readVectors(t, dir, "manifest.txt")
}

func readVectors(t *testing.T, dir, name string) []formatVector {
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []formatVector
	var cur formatVector
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, " = ")
		if !ok {
			continue
		}
		if k == "file" {
			cur = formatVector{}
			out = append(out, cur)
		}
		cur[k] = v
	}
	return out
}

func mustRead(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readAll reads r to its end or first error, returning what it released.
func readAll(r io.Reader) ([]byte, error) {
	var out bytes.Buffer
	_, err := io.Copy(&out, r)
	return out.Bytes(), err
}

// Every vector of the manifest through FileReader (whole, one byte at a
// time, and in odd pieces) and FileReaderAt.
func TestFileVectors(t *testing.T) {
	dir := formatDir(t)
	vectors := readManifest(t, dir)
	if len(vectors) < 10 {
		t.Fatalf("only %d vectors", len(vectors))
	}
	// Files to recipients (format version 2), but the ASCII-armored ones:
	// armor is the tool's and the Rust library's; this package reads the
	// binary format.
	v2 := 0
	for _, v := range readVectors(t, dir, "recipients.txt") {
		if !strings.HasSuffix(v["file"], ".asc") {
			vectors = append(vectors, v)
			v2++
		}
	}
	if v2 < 15 {
		t.Fatalf("only %d vectors to recipients", v2)
	}
	for i, v := range vectors {
		t.Run(fmt.Sprintf("%d-%s", i, v["file"]), func(t *testing.T) {
			var secret Secret
			if v["identity"] != "" {
				var text []byte
				for _, name := range strings.Split(v["identity"], ",") {
					text = append(text, mustRead(t, filepath.Join(dir, strings.TrimSpace(name)))...)
					text = append(text, '\n')
				}
				var err error
				if secret, err = Identities(text); err != nil {
					t.Fatal(err)
				}
			} else if v["key"] != "" {
				var err error
				if secret, err = ParseKeyFile(mustRead(t, filepath.Join(dir, v["key"]))); err != nil {
					t.Fatal(err)
				}
			} else {
				secret = Passphrase([]byte(v["passphrase"]))
			}
			file := mustRead(t, filepath.Join(dir, v["file"]))
			var want []byte
			if v["plaintext"] != "" {
				want = mustRead(t, filepath.Join(dir, v["plaintext"]))
			} else if rel := v["released"]; rel != "nothing" {
				name, n, _ := strings.Cut(strings.TrimSuffix(rel, "]"), "[..")
				cut, err := strconv.Atoi(n)
				if err != nil {
					t.Fatalf("released = %q", rel)
				}
				want = mustRead(t, filepath.Join(dir, name))[:cut]
			}
			auth := strings.Contains(v["error"], "wrong") || strings.Contains(v["error"], "failed authentication") ||
				strings.Contains(v["error"], "no identity matched") || strings.Contains(v["error"], "MAC does not verify")
			check := func(how string, err error) {
				t.Helper()
				if v["plaintext"] != "" {
					if err != nil {
						t.Fatalf("%s: %v", how, err)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), v["error"]) {
					t.Fatalf("%s: error %v, want %q", how, err, v["error"])
				}
				if errors.Is(err, ErrOpen) != auth || errors.Is(err, ErrFormat) == auth {
					t.Fatalf("%s: %v classed wrong (authentication: %v)", how, err, auth)
				}
			}
			for _, src := range []struct {
				name string
				r    func() io.Reader
			}{
				{"whole", func() io.Reader { return bytes.NewReader(file) }},
				{"one byte", func() io.Reader { return iotest.OneByteReader(bytes.NewReader(file)) }},
				{"half", func() io.Reader { return iotest.HalfReader(bytes.NewReader(file)) }},
				{"data with EOF", func() io.Reader { return iotest.DataErrReader(bytes.NewReader(file)) }},
			} {
				r, err := NewFileReader(src.r(), secret)
				if err != nil {
					t.Fatal(err)
				}
				got, err := readAll(r)
				check(src.name, err)
				if !bytes.Equal(got, want) {
					t.Fatalf("%s: released %d bytes, want %d", src.name, len(got), len(want))
				}
				r.Close()
			}
			ra, err := NewFileReaderAt(bytes.NewReader(file), int64(len(file)), secret)
			if err == nil {
				got := make([]byte, ra.Size())
				_, err = ra.ReadAt(got, 0)
				if err == nil && v["plaintext"] != "" {
					if !bytes.Equal(got, want) {
						t.Fatal("ReaderAt: wrong plaintext")
					}
					rng := rand.New(rand.NewSource(int64(i)))
					for k := 0; k < 100 && len(want) > 0; k++ {
						off, n := rng.Intn(len(want)), rng.Intn(3000)
						checkRange(t, ra, want, int64(off), n)
					}
				}
				ra.Close()
			}
			if v["plaintext"] == "" && err == nil {
				t.Fatal("ReaderAt accepted a bad file")
			}
			if v["plaintext"] != "" {
				check("ReaderAt", err)
			} else if errors.Is(err, ErrOpen) != auth && !errors.Is(err, ErrFormat) {
				t.Fatalf("ReaderAt: %v", err)
			}
		})
	}
}

func checkRange(t *testing.T, ra *FileReaderAt, want []byte, off int64, n int) {
	t.Helper()
	buf := make([]byte, n)
	got, err := ra.ReadAt(buf, off)
	end := min(int(off)+n, len(want))
	wantN := max(0, end-int(off))
	if got != wantN || !bytes.Equal(buf[:got], want[min(int(off), len(want)):end]) {
		t.Fatalf("ReadAt(%d, %d): %d bytes, want %d", n, off, got, wantN)
	}
	if (got < n) != (err == io.EOF) || (err != nil && err != io.EOF) {
		t.Fatalf("ReadAt(%d, %d): %d bytes, error %v", n, off, got, err)
	}
}

func testPlain(n int) []byte {
	p := make([]byte, n)
	rand.New(rand.NewSource(int64(n))).Read(p)
	return p
}

var testKey = FileKey(bytes.Repeat([]byte{0x42}, 32))

// encryptFile writes pt through a FileWriter in writes of the given sizes (in
// rotation).
func encryptFile(t *testing.T, pt []byte, secret Secret, opts *FileOptions, sizes ...int) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := NewFileWriter(&out, secret, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(sizes) == 0 {
		sizes = []int{1, 1000, 65537}
	}
	for at, k := 0, 0; at < len(pt); k++ {
		n := min(sizes[k%len(sizes)], len(pt)-at)
		if m, err := w.Write(pt[at : at+n]); err != nil || m != n {
			t.Fatalf("Write: %d, %v", m, err)
		}
		at += n
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// Empty, one, two and many chunks, both algorithms, every reader.
func TestFileRoundTrip(t *testing.T) {
	for _, alg := range []FileAlgorithm{FileAES256GCMSIV, FileAES128GCMSIV} {
		for _, n := range []int{0, 1, 1023, 1024, 1025, 2047, 2048, 2049, 10*1024 + 17, 3<<20 + 5} {
			opts := &FileOptions{Algorithm: alg, ChunkSize: 1024}
			pt := testPlain(n)
			file := encryptFile(t, pt, testKey, opts)
			chunks := max(1, (n+1023)/1024)
			if len(file) != 86+n+20*chunks {
				t.Fatalf("%d bytes: file of %d", n, len(file))
			}
			r, err := NewFileReader(bytes.NewReader(file), testKey)
			if err != nil {
				t.Fatal(err)
			}
			got, err := readAll(r)
			if err != nil || !bytes.Equal(got, pt) {
				t.Fatalf("%d bytes: %v", n, err)
			}
			ra, err := NewFileReaderAt(bytes.NewReader(file), int64(len(file)), testKey)
			if err != nil || ra.Size() != int64(n) {
				t.Fatalf("ReaderAt of %d: %v", n, err)
			}
			rng := rand.New(rand.NewSource(int64(n)))
			for k := 0; k < 40; k++ {
				checkRange(t, ra, pt, int64(rng.Intn(n+2)), rng.Intn(5000))
			}
			checkRange(t, ra, pt, 0, n)
			ra.Close()
		}
	}
}

// A file written by the C ABI's library in one call per byte count reads back
// through io.Copy, and a passphrase file round trips.
func TestFilePassphraseAndDefaults(t *testing.T) {
	pt := testPlain(200000)
	secret := Passphrase([]byte("correct horse"))
	file := encryptFile(t, pt, secret, &FileOptions{Argon2: Argon2Cost{MemoryKiB: 64, Iterations: 1, Lanes: 1}})
	r, _ := NewFileReader(bytes.NewReader(file), secret)
	if got, err := readAll(r); err != nil || !bytes.Equal(got, pt) {
		t.Fatal(err)
	}
	// The other kind of secret is a format error; a wrong passphrase an authentication failure.
	r, _ = NewFileReader(bytes.NewReader(file), testKey)
	if _, err := readAll(r); !errors.Is(err, ErrFormat) {
		t.Fatalf("key for a passphrase file: %v", err)
	}
	r, _ = NewFileReader(bytes.NewReader(file), Passphrase([]byte("correct horsf")))
	if _, err := readAll(r); !errors.Is(err, ErrOpen) {
		t.Fatalf("wrong passphrase: %v", err)
	}
	// Defaults: 64 KiB chunks, AES-256-GCM-SIV (header bytes 7 and 9).
	file = encryptFile(t, pt, testKey, nil)
	if file[7] != 31 || file[9] != 16 {
		t.Fatalf("header %x", file[:10])
	}
}

// Every truncation, bit flip and trailing byte of a three-chunk file fails
// with the right class, and what was released is a prefix of whole chunks.
func TestFileTampering(t *testing.T) {
	pt := testPlain(2500)
	file := encryptFile(t, pt, testKey, &FileOptions{ChunkSize: 1024})
	try := func(what string, bad []byte, want ...error) {
		t.Helper()
		r, _ := NewFileReader(iotest.HalfReader(bytes.NewReader(bad)), testKey)
		got, err := readAll(r)
		matched := false
		for _, w := range want {
			matched = matched || errors.Is(err, w)
		}
		if !matched {
			t.Fatalf("%s: %v, want one of %v", what, err, want)
		}
		if len(got)%1024 != 0 && len(got) != len(pt) || !bytes.Equal(got, pt[:len(got)]) {
			t.Fatalf("%s: released %d bytes that are not whole authenticated chunks", what, len(got))
		}
		ra, err := NewFileReaderAt(bytes.NewReader(bad), int64(len(bad)), testKey)
		if err == nil {
			buf := make([]byte, ra.Size())
			_, err = ra.ReadAt(buf, 0)
		}
		if err == nil || !(errors.Is(err, ErrOpen) || errors.Is(err, ErrFormat)) {
			t.Fatalf("%s: ReaderAt: %v", what, err)
		}
	}
	for cut := 0; cut < len(file); cut++ {
		if cut < 6 {
			try(fmt.Sprint("cut ", cut), file[:cut], ErrFormat)
		} else {
			try(fmt.Sprint("cut ", cut), file[:cut], ErrTruncated)
		}
	}
	for at := 0; at < len(file); at++ {
		bad := bytes.Clone(file)
		bad[at] ^= 1 << (at % 8)
		try(fmt.Sprint("flip ", at), bad, ErrOpen, ErrFormat)
	}
	for extra := 1; extra < 20; extra++ {
		try(fmt.Sprint("trailing ", extra), append(bytes.Clone(file), make([]byte, extra)...), ErrFormat)
	}
	// Chunks 0 and 1 swapped.
	c0, c1 := file[86:86+1044], file[86+1044:86+2088]
	swapped := append(append(append(bytes.Clone(file[:86]), c1...), c0...), file[86+2088:]...)
	try("swapped", swapped, ErrOpen)
}

// The property: any plaintext, chunk size and write pattern round trips, and
// any range reads back.
func TestFileProperty(t *testing.T) {
	prop := func(seed int64, size uint32, exp uint8, piece uint16, off, n uint32) bool {
		chunk := 1 << (10 + exp%5)
		pt := make([]byte, size%50000)
		rand.New(rand.NewSource(seed)).Read(pt)
		file := encryptFile(t, pt, testKey, &FileOptions{ChunkSize: chunk}, int(piece%5000)+1, 1)
		r, _ := NewFileReader(iotest.HalfReader(bytes.NewReader(file)), testKey)
		got, err := readAll(r)
		if err != nil || !bytes.Equal(got, pt) {
			return false
		}
		ra, err := NewFileReaderAt(bytes.NewReader(file), int64(len(file)), testKey)
		if err != nil {
			return false
		}
		defer ra.Close()
		o, l := int(off)%(len(pt)+10), int(n%20000)
		buf := make([]byte, l)
		m, _ := ra.ReadAt(buf, int64(o))
		return bytes.Equal(buf[:m], pt[min(o, len(pt)):min(o+l, len(pt))])
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 60}); err != nil {
		t.Fatal(err)
	}
}

// ReaderAt: io.ReaderAt's contract, concurrent reads (under -race), Close.
func TestFileReaderAtContract(t *testing.T) {
	pt := testPlain(300000)
	file := encryptFile(t, pt, testKey, &FileOptions{ChunkSize: 4096})
	ra, err := NewFileReaderAt(bytes.NewReader(file), int64(len(file)), testKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ra.ReadAt(make([]byte, 3), -1); err == nil {
		t.Fatal("negative offset")
	}
	if n, err := ra.ReadAt(make([]byte, 3), int64(len(pt))+5); n != 0 || err != io.EOF {
		t.Fatalf("past the end: %d, %v", n, err)
	}
	if n, err := ra.ReadAt(nil, 5); n != 0 || err != nil {
		t.Fatalf("empty read: %d, %v", n, err)
	}
	checkRange(t, ra, pt, 0, 9<<20) // more than a window, cut at the end
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(g)))
			for k := 0; k < 50; k++ {
				off, n := rng.Intn(len(pt)), rng.Intn(20000)
				buf := make([]byte, n)
				m, _ := ra.ReadAt(buf, int64(off))
				if !bytes.Equal(buf[:m], pt[off:off+m]) || m != min(n, len(pt)-off) {
					t.Errorf("concurrent ReadAt(%d, %d)", n, off)
				}
			}
		}(g)
	}
	wg.Wait()
	// Seek and read through io.SectionReader; a seek past the end reads nothing.
	sr := io.NewSectionReader(ra, 0, ra.Size())
	if _, err := sr.Seek(123456, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 1000)
	if _, err := io.ReadFull(sr, head); err != nil || !bytes.Equal(head, pt[123456:124456]) {
		t.Fatalf("section reader: %v", err)
	}
	if _, err := sr.Seek(int64(len(pt))+100, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if n, err := sr.Read(head); n != 0 || err != io.EOF {
		t.Fatalf("past the end: %d, %v", n, err)
	}
	// The source shorter than its stated size: truncated.
	short := bytes.NewReader(file[:len(file)-100])
	if _, err := NewFileReaderAt(short, int64(len(file)), testKey); !errors.Is(err, ErrTruncated) {
		t.Fatalf("short source: %v", err)
	}
	ra.Close()
	ra.Close()
	if _, err := ra.ReadAt(make([]byte, 3), 0); err != ErrClosed {
		t.Fatalf("after Close: %v", err)
	}
}

type failingWriter struct{ after int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.after -= len(p); f.after < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// Misuse and closed streams are clear errors.
func TestFileMisuse(t *testing.T) {
	var code *Error
	if _, err := NewFileWriter(io.Discard, testKey, &FileOptions{ChunkSize: 1000}); !errors.As(err, &code) ||
		code.Code != -16 {
		t.Fatalf("chunk size 1000: %v", err)
	}
	if _, err := NewFileWriter(io.Discard, testKey, &FileOptions{Algorithm: 3}); err == nil {
		t.Fatal("an AES-GCM file")
	}
	if _, err := NewFileWriter(io.Discard, FileKey(make([]byte, 31)), nil); err == nil {
		t.Fatal("a 31-byte key")
	}
	if _, err := NewFileWriter(io.Discard, Passphrase(nil), nil); err == nil {
		t.Fatal("an empty passphrase")
	}
	wiped := FileKey(bytes.Repeat([]byte{1}, 32))
	copied := wiped
	wiped.Wipe()
	if !bytes.Equal(copied.bytes, make([]byte, 32)) {
		t.Fatal("Wipe")
	}
	if _, err := ParseKeyFile([]byte("not a key file")); err == nil || !strings.Contains(err.Error(), "key file") {
		t.Fatalf("ParseKeyFile: %v", err)
	}
	if _, err := NewFileWriter(io.Discard, testKey, &FileOptions{Argon2: Argon2Cost{MemoryKiB: 1 << 21, Iterations: 1, Lanes: 1}}); err == nil {
		t.Fatal("a cost over the cap")
	}
	w, _ := NewFileWriter(&failingWriter{after: 10}, testKey, &FileOptions{ChunkSize: 1024})
	if _, err := w.Write(make([]byte, 5000)); err == nil {
		t.Fatal("the underlying writer's error")
	}
	if _, err := w.Write([]byte{1}); err == nil || w.Close() == nil {
		t.Fatal("the error sticks")
	}
	w, _ = NewFileWriter(io.Discard, testKey, nil)
	if w.Close() != nil || w.Close() != nil {
		t.Fatal("Close twice")
	}
	if _, err := w.Write([]byte{1}); err != ErrClosed {
		t.Fatalf("Write after Close: %v", err)
	}
	r, _ := NewFileReader(bytes.NewReader(nil), testKey)
	r.Close()
	if _, err := r.Read(make([]byte, 4)); err != ErrClosed {
		t.Fatalf("Read after Close: %v", err)
	}
}

// go test -run XXX -bench File -benchtime 3x: one 256 MiB file through the
// writer and the reader (in memory), and one 64 KiB range of it.
func BenchmarkFile(b *testing.B) {
	pt := make([]byte, 256<<20)
	rand.New(rand.NewSource(1)).Read(pt)
	var file bytes.Buffer
	b.Run("write", func(b *testing.B) {
		b.SetBytes(int64(len(pt)))
		for i := 0; i < b.N; i++ {
			file.Reset()
			w, _ := NewFileWriter(&file, testKey, nil)
			for at := 0; at < len(pt); at += 1 << 20 {
				w.Write(pt[at : at+1<<20])
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
	buf := make([]byte, 1<<20)
	b.Run("read", func(b *testing.B) {
		b.SetBytes(int64(len(pt)))
		for i := 0; i < b.N; i++ {
			r, _ := NewFileReader(bytes.NewReader(file.Bytes()), testKey)
			total := 0
			for {
				n, err := r.Read(buf)
				total += n
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			if total != len(pt) {
				b.Fatal(total)
			}
		}
	})
	b.Run("range64KiB", func(b *testing.B) {
		buf := make([]byte, 65536)
		for i := 0; i < b.N; i++ {
			ra, err := NewFileReaderAt(bytes.NewReader(file.Bytes()), int64(file.Len()), testKey)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := ra.ReadAt(buf, 128<<20); err != nil {
				b.Fatal(err)
			}
			ra.Close()
		}
	})
}

// The file format's status texts are the C library's too.
func TestFileStatusTextMatchesC(t *testing.T) {
	for code := statusFormat; code >= statusState-1; code-- {
		got, ok := statusText[code]
		if !ok {
			got = "unknown status code"
		}
		if want := cStrerror(code); got != want {
			t.Errorf("status %d: %q here, %q in C", code, got, want)
		}
	}
}

// Files to recipients: generated identities of both kinds, a file to each,
// mixed kinds refused unless asked for, the wrong identity and a key refused,
// and random access over the longer header.
func TestFileRecipients(t *testing.T) {
	alice, aliceR, err := GenerateIdentity(X25519)
	if err != nil || !strings.HasPrefix(aliceR, "gcmsiv1") {
		t.Fatalf("X25519 identity: %q, %v", aliceR, err)
	}
	bob, bobR, err := GenerateIdentity(Hybrid)
	if err != nil || !strings.HasPrefix(bobR, "gcmsivpq1") {
		t.Fatalf("hybrid identity: %v", err)
	}
	carol, _, err := GenerateIdentity(X25519)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := IdentityRecipient(alice); err != nil || r != aliceR {
		t.Fatalf("IdentityRecipient: %q, %v", r, err)
	}
	if _, _, err := GenerateIdentity(RecipientKind(9)); err == nil {
		t.Fatal("kind 9 accepted")
	}
	if _, err := Recipients("gcmsiv1qqqq\n"); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("bad recipient: %v", err)
	}
	if _, err := Identities([]byte(aliceR)); err == nil {
		t.Fatal("a recipient read as an identity")
	}
	team := "# team\n" + aliceR + "\n" + bobR + "\n"
	refused, err := Recipients(team)
	if err != nil {
		t.Fatal(err)
	}
	var sink bytes.Buffer
	if w, err := NewFileWriter(&sink, refused, nil); err == nil {
		w.Close()
		t.Fatal("X25519 and hybrid recipients mixed silently")
	}
	mixed, err := MixedRecipients(team)
	if err != nil {
		t.Fatal(err)
	}
	toAlice, err := Recipients(aliceR)
	if err != nil {
		t.Fatal(err)
	}
	pt := testPlain(200000)
	opts := &FileOptions{ChunkSize: 4096}
	file := encryptFile(t, pt, toAlice, opts)
	teamFile := encryptFile(t, pt, mixed, nil)
	read := func(secret []byte, f []byte) ([]byte, error) {
		s, err := Identities(secret)
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewFileReader(bytes.NewReader(f), s)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		return readAll(r)
	}
	if got, err := read(alice, file); err != nil || !bytes.Equal(got, pt) {
		t.Fatalf("alice: %v", err)
	}
	if got, err := read(bob, teamFile); err != nil || !bytes.Equal(got, pt) {
		t.Fatalf("bob, mixed file: %v", err)
	}
	if got, err := read(append(append([]byte(nil), carol...), append([]byte("\n"), alice...)...), teamFile); err != nil || !bytes.Equal(got, pt) {
		t.Fatalf("carol and alice: %v", err)
	}
	if got, err := read(carol, file); !errors.Is(err, ErrOpen) || len(got) != 0 || !strings.Contains(err.Error(), "no identity matched") {
		t.Fatalf("carol: %d bytes, %v", len(got), err)
	}
	r, err := NewFileReader(bytes.NewReader(file), testKey)
	if err == nil {
		_, err = readAll(r)
		r.Close()
	}
	if !errors.Is(err, ErrFormat) {
		t.Fatalf("a key for a file to recipients: %v", err)
	}
	s, _ := Identities(alice)
	ra, err := NewFileReaderAt(bytes.NewReader(file), int64(len(file)), s)
	if err != nil || ra.Size() != int64(len(pt)) {
		t.Fatalf("ReaderAt over a version 2 header: %v", err)
	}
	defer ra.Close()
	checkRange(t, ra, pt, 70000, 9000)
	checkRange(t, ra, pt, 199990, 100)
}

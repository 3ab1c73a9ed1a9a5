//go:build cgo && !purego && linux && amd64

// Command interop is the Go binding's entry point for the cross-language
// test of the gcmsiv file format:
//
//	interop encrypt <keyhex> <chunk_size> <aes128|aes256> <in> <out>
//	interop decrypt <keyhex> <in> <out>
//	interop range <keyhex> <in> <offset> <length> <out>
//
// encrypt writes through gcmsiv.FileWriter, in writes of 1, 1000 and 65537
// bytes in rotation; decrypt reads through gcmsiv.FileReader and writes
// exactly what it released; range reads through gcmsiv.FileReaderAt. Exit 0,
// or 1 with one line on stderr starting "authentication:" or "format:".
package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	gcmsiv "github.com/gcmsiv/gcmsiv/bindings/go"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func usage() int {
	fmt.Fprintln(os.Stderr, "usage: interop encrypt KEYHEX CHUNK_SIZE aes128|aes256 IN OUT\n"+
		"       interop decrypt KEYHEX IN OUT\n       interop range KEYHEX IN OFFSET LENGTH OUT")
	return 2
}

// report prints the failure's class and message; 1 for the file's, 2 for the rest.
func report(err error) int {
	switch {
	case errors.Is(err, gcmsiv.ErrOpen):
		fmt.Fprintln(os.Stderr, "authentication:", err)
		return 1
	case errors.Is(err, gcmsiv.ErrFormat):
		fmt.Fprintln(os.Stderr, "format:", err)
		return 1
	}
	fmt.Fprintln(os.Stderr, "error:", err)
	return 2
}

// secretOf reads the secret argument: a key as 64 hex digits, or
// recipients=PATH or identities=PATH (a recipients or identity file).
func secretOf(arg string) (gcmsiv.Secret, error) {
	if path, ok := strings.CutPrefix(arg, "recipients="); ok {
		text, err := os.ReadFile(path)
		if err != nil {
			return gcmsiv.Secret{}, err
		}
		return gcmsiv.Recipients(string(text))
	}
	if path, ok := strings.CutPrefix(arg, "identities="); ok {
		text, err := os.ReadFile(path)
		if err != nil {
			return gcmsiv.Secret{}, err
		}
		return gcmsiv.Identities(text)
	}
	key, err := hex.DecodeString(arg)
	if err != nil || len(key) != 32 {
		return gcmsiv.Secret{}, fmt.Errorf("not a key")
	}
	return gcmsiv.FileKey(key), nil
}

func run(args []string) int {
	if len(args) < 2 {
		return usage()
	}
	secret, err := secretOf(args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "error: the secret must be 64 hex digits, recipients=PATH or identities=PATH:", err)
		return 2
	}
	switch {
	case args[0] == "encrypt" && len(args) == 6:
		chunk, err := strconv.Atoi(args[2])
		alg := map[string]gcmsiv.FileAlgorithm{"aes128": gcmsiv.FileAES128GCMSIV, "aes256": gcmsiv.FileAES256GCMSIV}[args[3]]
		if err != nil || alg == 0 {
			return usage()
		}
		return withFiles(args[4], args[5], func(in *os.File, out *os.File) error {
			return encrypt(in, out, secret, &gcmsiv.FileOptions{Algorithm: alg, ChunkSize: chunk})
		})
	case args[0] == "decrypt" && len(args) == 4:
		return withFiles(args[2], args[3], func(in *os.File, out *os.File) error {
			r, err := gcmsiv.NewFileReader(in, secret)
			if err != nil {
				return err
			}
			defer r.Close()
			_, err = io.Copy(out, r)
			return err
		})
	case args[0] == "range" && len(args) == 6:
		offset, err1 := strconv.ParseInt(args[3], 10, 64)
		length, err2 := strconv.ParseInt(args[4], 10, 64)
		if err1 != nil || err2 != nil || length < 0 {
			return usage()
		}
		return withFiles(args[2], args[5], func(in *os.File, out *os.File) error {
			info, err := in.Stat()
			if err != nil {
				return err
			}
			r, err := gcmsiv.NewFileReaderAt(in, info.Size(), secret)
			if err != nil {
				return err
			}
			defer r.Close()
			buf := make([]byte, max(0, min(length, r.Size()-offset)))
			n, err := r.ReadAt(buf, offset)
			if err != nil && !(err == io.EOF && n == len(buf)) {
				return err
			}
			_, err = out.Write(buf[:n])
			return err
		})
	}
	return usage()
}

// encrypt writes the plaintext in pieces of 1, 1000 and 65537 bytes in turn.
func encrypt(in io.Reader, out io.Writer, secret gcmsiv.Secret, opts *gcmsiv.FileOptions) error {
	w, err := gcmsiv.NewFileWriter(out, secret, opts)
	if err != nil {
		return err
	}
	buf := make([]byte, 65537)
	for k := 0; ; k++ {
		n, err := io.ReadFull(in, buf[:[]int{1, 1000, 65537}[k%3]])
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return w.Close()
		}
		if err != nil {
			return err
		}
	}
}

func withFiles(inPath, outPath string, f func(in, out *os.File) error) int {
	in, err := os.Open(inPath)
	if err != nil {
		return report(err)
	}
	defer in.Close()
	out, err := os.Create(outPath)
	if err != nil {
		return report(err)
	}
	err = f(in, out)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return report(err)
	}
	return 0
}

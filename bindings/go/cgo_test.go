//go:build cgo && !purego && linux && (amd64 || arm64)

package gcmsiv

import "testing"

// The C library is linked: its backends, never the Go code.
func TestLinksTheCLibrary(t *testing.T) {
	if PureGo.Available() || !Portable.Available() {
		t.Fatalf("backends %v: the C library is not the one in use", Backends())
	}
	a, err := NewAESGCMSIVWithBackend(make([]byte, 16), PureGo)
	if err == nil {
		a.Close()
		t.Fatal("purego accepted where the C library is linked")
	}
}

// The Go table of status texts is the C library's.
func TestStatusTextMatchesC(t *testing.T) {
	for code := statusOK; code >= statusRandomSource-1; code-- {
		want := cStrerror(code)
		got, ok := statusText[code]
		if !ok {
			got = "unknown status code"
		}
		if got != want {
			t.Errorf("status %d: %q here, %q in C", code, got, want)
		}
	}
}

// The list comes from the C library: every backend it numbers has its name,
// the constants name the same backends as its header, and the CPU's own
// (what Auto picks) is among those listed.
func TestBackendsFromC(t *testing.T) {
	list := backendList()
	if len(list) < 4 {
		t.Fatalf("the C library lists %d backends", len(list))
	}
	for _, b := range list {
		if backendName(b) == "" {
			t.Errorf("backend %d has no name", int(b))
		}
	}
	for b, want := range map[Backend]string{Portable: "portable", AesNiClmul: "aesni-clmul", AesNiVaes: "aesni-vaes", Armv8AesPmull: "armv8-aes-pmull"} {
		if b.String() != want {
			t.Errorf("%d is %q in C, %q here", int(b), b.String(), want)
		}
	}
	if got := Backends(); len(got) == 0 || got[0] != Portable {
		t.Errorf("Backends() = %v: portable first", got)
	}
}

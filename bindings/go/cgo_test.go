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

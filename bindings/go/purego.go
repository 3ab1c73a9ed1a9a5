//go:build !cgo || purego || !linux || !(amd64 || arm64)

package gcmsiv

// The pure-Go implementation: AES-GCM-SIV (RFC 8452 section 4) and AES-GCM
// (NIST SP 800-38D) on crypto/aes and polyval.go, for every build without the
// C library. Slower than the C library (one AES block at a time, no fused or
// wide kernels); see the package documentation for what is constant-time.

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
)

// Limits, as the Rust core names them (crates/gcmsiv/src/limits.rs).
const (
	sivMaxPlaintext = 1 << 36    // P_MAX, RFC 8452 section 6
	sivMaxAAD       = 1 << 36    // A_MAX
	gcmMaxPlaintext = 1<<36 - 32 // SP 800-38D section 5.2.1.1
	gcmMaxAAD       = 1<<61 - 1  // bytes
	gcmMaxNonce     = 1<<61 - 1  // bytes
	gcmMinNonce     = 1          // bytes
	tagMax          = 16         // bytes
	sivNonceSize    = 12         // bytes
)

// goKey is one key of one algorithm.
type goKey struct {
	siv     bool
	key     []byte       // AES-GCM-SIV: the key-generating key, wiped on Close
	block   cipher.Block // AES-GCM-SIV: under key (for the record keys); AES-GCM: the key
	h       [2]uint64    // AES-GCM: GHASH's H as a POLYVAL key (mulX(ByteReverse(H)))
	tagSize int
}

type keyHandle = *goKey

func backendAvailable(b Backend) bool { return b == PureGo }

// backendList: without the C library, this package's own Go code alone.
func backendList() []Backend { return []Backend{PureGo} }

// backendName: without the C library there is no list to name from.
func backendName(Backend) string { return "" }

func newKey(alg int, key []byte, tagSize int, backend Backend, short bool) (keyHandle, int, int) {
	switch alg {
	case aes128GCMSIV, aes256GCMSIV, aes128GCM, aes256GCM:
	default:
		return nil, 0, statusAlgorithm
	}
	if len(key) != 16 && len(key) != 32 {
		return nil, 0, statusKeyLength
	}
	siv := alg == aes128GCMSIV || alg == aes256GCMSIV
	switch {
	case siv && tagSize != 16,
		!siv && short && tagSize != 4 && tagSize != 8,
		!siv && !short && (tagSize < 12 || tagSize > 16):
		return nil, 0, statusTagLength
	}
	if backend != Auto && backend != PureGo {
		return nil, 0, statusBackendUnavailable
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, 0, statusKeyLength
	}
	k := &goKey{siv: siv, block: block, tagSize: tagSize}
	if siv {
		k.key = append([]byte(nil), key...)
	} else {
		var h [16]byte
		block.Encrypt(h[:], h[:])
		k.h = ghashKey(h)
		clear(h[:])
	}
	return k, tagSize, statusOK
}

func freeKey(k keyHandle) {
	clear(k.key)
	k.h = [2]uint64{}
	k.block = nil
}

func keyBackend(keyHandle) string { return "purego" }

func keyBackendBits(keyHandle) int { return 64 }

func keySeal(k keyHandle, out, nonce, plaintext, aad []byte) int {
	if k.siv {
		if uint64(len(plaintext)) > sivMaxPlaintext || uint64(len(aad)) > sivMaxAAD {
			return statusTooLong
		}
		var tag [16]byte
		sivSeal(k, out[:len(plaintext)], &tag, nonce, plaintext, aad)
		copy(out[len(plaintext):], tag[:])
		return statusOK
	}
	if uint64(len(plaintext)) > gcmMaxPlaintext || uint64(len(aad)) > gcmMaxAAD || uint64(len(nonce)) > gcmMaxNonce {
		return statusTooLong
	}
	var tag [16]byte
	gcmSeal(k, out[:len(plaintext)], &tag, nonce, plaintext, aad)
	copy(out[len(plaintext):], tag[:k.tagSize])
	return statusOK
}

func keyOpen(k keyHandle, out, nonce, ciphertext, aad []byte) int {
	body, tag := ciphertext[:len(ciphertext)-k.tagSize], ciphertext[len(ciphertext)-k.tagSize:]
	var ok bool
	if k.siv {
		if uint64(len(body)) > sivMaxPlaintext || uint64(len(aad)) > sivMaxAAD {
			return statusTooLong
		}
		ok = sivOpen(k, out, nonce, body, tag, aad)
	} else {
		if uint64(len(body)) > gcmMaxPlaintext || uint64(len(aad)) > gcmMaxAAD || uint64(len(nonce)) > gcmMaxNonce {
			return statusTooLong
		}
		ok = gcmOpen(k, out, nonce, body, tag, aad)
	}
	if !ok {
		return statusAuthentication
	}
	return statusOK
}

// keyBatch runs the items one by one (the C library interleaves them; here
// there is nothing to gain). Each item's Data is sealed or opened in place.
func keyBatch(k keyHandle, items []BatchItem, seal bool) error {
	for i := range items {
		it := &items[i]
		if seal {
			if rc := sealDetached(k, it.Data, &it.Tag, it.Nonce, it.Data, it.AdditionalData); rc != statusOK {
				return &Error{Code: rc, Op: "batch"}
			}
			continue
		}
		body := it.Data
		var rc int
		if k.siv {
			if uint64(len(body)) > sivMaxPlaintext || uint64(len(it.AdditionalData)) > sivMaxAAD {
				return &Error{Code: statusTooLong, Op: "batch"}
			}
		} else if uint64(len(body)) > gcmMaxPlaintext || uint64(len(it.AdditionalData)) > gcmMaxAAD {
			return &Error{Code: statusTooLong, Op: "batch"}
		}
		if k.siv {
			rc = statusAuthentication
			if sivOpen(k, body, it.Nonce, body, it.Tag[:k.tagSize], it.AdditionalData) {
				rc = statusOK
			}
		} else {
			rc = statusAuthentication
			if gcmOpen(k, body, it.Nonce, body, it.Tag[:k.tagSize], it.AdditionalData) {
				rc = statusOK
			}
		}
		it.Err = status("open", rc)
	}
	return nil
}

// sealDetached seals plaintext into out (the same length) and the tag.
func sealDetached(k keyHandle, out []byte, tag *[16]byte, nonce, plaintext, aad []byte) int {
	if k.siv {
		if uint64(len(plaintext)) > sivMaxPlaintext || uint64(len(aad)) > sivMaxAAD {
			return statusTooLong
		}
		sivSeal(k, out, tag, nonce, plaintext, aad)
		return statusOK
	}
	if uint64(len(plaintext)) > gcmMaxPlaintext || uint64(len(aad)) > gcmMaxAAD {
		return statusTooLong
	}
	gcmSeal(k, out, tag, nonce, plaintext, aad)
	for i := k.tagSize; i < 16; i++ {
		tag[i] = 0
	}
	return statusOK
}

// AES-GCM-SIV, RFC 8452 section 4.

// sivRecordKeys derives the per-nonce message-authentication key (a POLYVAL
// key) and message-encryption key (an AES key) from the key-generating key:
// the first 8 bytes of AES(K, LE32(i) || nonce) for i = 0, 1 (authentication)
// and 2, 3 (and 4, 5 for AES-256) (encryption).
func sivRecordKeys(k keyHandle, nonce []byte) (auth [2]uint64, enc cipher.Block) {
	var in, out [16]byte
	var material [48]byte
	n := 2 + len(k.key)/8 // 4 blocks for AES-128, 6 for AES-256
	copy(in[4:], nonce)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(in[:4], uint32(i))
		k.block.Encrypt(out[:], in[:])
		copy(material[8*i:], out[:8])
	}
	auth = [2]uint64{binary.LittleEndian.Uint64(material[0:]), binary.LittleEndian.Uint64(material[8:])}
	encKey := material[16 : 16+len(k.key)]
	enc, err := aes.NewCipher(encKey)
	if err != nil {
		panic("gcmsiv: internal error: record key length")
	}
	clear(material[:])
	clear(out[:])
	return auth, enc
}

// sivTag computes the tag over aad and plaintext: POLYVAL over the padded
// aad, the padded plaintext and the length block, XORed with the nonce, the
// top bit cleared, encrypted under the message-encryption key.
func sivTag(auth [2]uint64, enc cipher.Block, nonce, plaintext, aad []byte) [16]byte {
	var p polyval
	p.init(auth)
	p.updatePadded(aad)
	p.updatePadded(plaintext)
	var lengths [16]byte
	binary.LittleEndian.PutUint64(lengths[:8], uint64(len(aad))*8)
	binary.LittleEndian.PutUint64(lengths[8:], uint64(len(plaintext))*8)
	p.updateBlock(lengths[:])
	s := p.sum()
	for i := 0; i < sivNonceSize; i++ {
		s[i] ^= nonce[i]
	}
	s[15] &= 0x7f
	var tag [16]byte
	enc.Encrypt(tag[:], s[:])
	p.wipe()
	return tag
}

// ctr32 XORs in with the keystream AES(counter), AES(counter + 1), ...,
// where the counter is the 32 bits at counter[at:at+4] in the given byte
// order and wraps modulo 2^32: AES-GCM-SIV's little-endian first word
// (RFC 8452 section 4), AES-GCM's big-endian last one (SP 800-38D's inc32).
func ctr32(enc cipher.Block, out, in []byte, counter [16]byte, at int, order binary.ByteOrder) {
	var ks [16]byte
	c := order.Uint32(counter[at:])
	for len(in) > 0 {
		order.PutUint32(counter[at:], c)
		enc.Encrypt(ks[:], counter[:])
		n := subtle.XORBytes(out, in, ks[:])
		out, in = out[n:], in[n:]
		c++
	}
	clear(ks[:])
}

func ctr32le(enc cipher.Block, out, in []byte, counter [16]byte) {
	ctr32(enc, out, in, counter, 0, binary.LittleEndian)
}

func ctr32be(enc cipher.Block, out, in []byte, counter [16]byte) {
	ctr32(enc, out, in, counter, 12, binary.BigEndian)
}

func sivSeal(k keyHandle, out []byte, tag *[16]byte, nonce, plaintext, aad []byte) {
	auth, enc := sivRecordKeys(k, nonce)
	*tag = sivTag(auth, enc, nonce, plaintext, aad)
	counter := *tag
	counter[15] |= 0x80
	ctr32le(enc, out, plaintext, counter)
}

// sivOpen decrypts body into out and checks the tag in constant time. If the
// tag is wrong, out is zeroed, or, in place, holds the ciphertext again.
func sivOpen(k keyHandle, out, nonce, body, tag, aad []byte) bool {
	auth, enc := sivRecordKeys(k, nonce)
	var counter [16]byte
	copy(counter[:], tag)
	counter[15] |= 0x80
	ctr32le(enc, out, body, counter)
	want := sivTag(auth, enc, nonce, out[:len(body)], aad)
	if subtle.ConstantTimeCompare(want[:], tag) == 1 {
		return true
	}
	// Take the plaintext back: in place (out and body the same memory), the
	// keystream applied again restores the ciphertext; otherwise out is zeroed.
	if out = out[:len(body)]; len(out) > 0 && &out[0] == &body[0] {
		ctr32le(enc, out, out, counter)
	} else {
		clear(out)
	}
	return false
}

// AES-GCM, NIST SP 800-38D, with GHASH computed by POLYVAL (RFC 8452
// Appendix A: GHASH(H, X) = ByteReverse(POLYVAL(mulX(ByteReverse(H)),
// ByteReverse(X_1), ...))).

// ghashKey turns GHASH's H into the equivalent POLYVAL key.
func ghashKey(h [16]byte) [2]uint64 {
	r := reverse16(h)
	return mulX([2]uint64{binary.LittleEndian.Uint64(r[:8]), binary.LittleEndian.Uint64(r[8:])})
}

func reverse16(b [16]byte) [16]byte {
	var r [16]byte
	for i := range b {
		r[i] = b[15-i]
	}
	return r
}

// ghash is GHASH over pad(a) || pad(c) || BE64(bits of a) || BE64(bits of c),
// fed to POLYVAL one byte-reversed block at a time.
func ghash(h [2]uint64, a, c []byte) [16]byte {
	var p polyval
	p.init(h)
	ghashPadded(&p, a)
	ghashPadded(&p, c)
	var lengths [16]byte
	binary.BigEndian.PutUint64(lengths[:8], uint64(len(a))*8)
	binary.BigEndian.PutUint64(lengths[8:], uint64(len(c))*8)
	r := reverse16(lengths)
	p.updateBlock(r[:])
	s := p.sum()
	p.wipe()
	return reverse16(s)
}

func ghashPadded(p *polyval, data []byte) {
	for len(data) > 0 {
		var block [16]byte
		n := copy(block[:], data)
		data = data[n:]
		r := reverse16(block)
		p.updateBlock(r[:])
	}
}

// gcmJ0 is the pre-counter block: the nonce || 0^31 || 1 for 12-byte nonces,
// else GHASH(pad(nonce) || 0^64 || BE64(bits of nonce)), which is ghash with
// no associated data and the nonce in the ciphertext's place.
func gcmJ0(k keyHandle, nonce []byte) [16]byte {
	if len(nonce) == 12 {
		var j0 [16]byte
		copy(j0[:], nonce)
		j0[15] = 1
		return j0
	}
	return ghash(k.h, nil, nonce)
}

// gcmTag is the full 16-byte tag: AES(J0) XOR GHASH(aad, ciphertext).
func gcmTag(k keyHandle, j0 [16]byte, aad, ciphertext []byte) [16]byte {
	var tag [16]byte
	k.block.Encrypt(tag[:], j0[:])
	s := ghash(k.h, aad, ciphertext)
	subtle.XORBytes(tag[:], tag[:], s[:])
	return tag
}

func inc32(j0 [16]byte) [16]byte {
	binary.BigEndian.PutUint32(j0[12:], binary.BigEndian.Uint32(j0[12:])+1)
	return j0
}

func gcmSeal(k keyHandle, out []byte, tag *[16]byte, nonce, plaintext, aad []byte) {
	j0 := gcmJ0(k, nonce)
	ctr32be(k.block, out, plaintext, inc32(j0))
	*tag = gcmTag(k, j0, aad, out[:len(plaintext)])
}

// gcmOpen checks the tag over the ciphertext before decrypting; on failure
// nothing is decrypted, out is zeroed (or, in place, left as it was).
func gcmOpen(k keyHandle, out, nonce, body, tag, aad []byte) bool {
	j0 := gcmJ0(k, nonce)
	want := gcmTag(k, j0, aad, body)
	if subtle.ConstantTimeCompare(want[:len(tag)], tag) != 1 {
		if len(out) == 0 || len(body) == 0 || &out[0] != &body[0] {
			clear(out[:len(body)])
		}
		return false
	}
	ctr32be(k.block, out, body, inc32(j0))
	return true
}

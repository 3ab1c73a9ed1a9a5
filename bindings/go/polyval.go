//go:build !cgo || purego || !linux || !(amd64 || arm64)

package gcmsiv

import (
	"encoding/binary"
	"math/bits"
)

// POLYVAL (RFC 8452 section 3) in constant time, for the pure-Go build.
//
// Field elements are 128-bit polynomials over GF(2) held as two uint64s, lo
// and hi: bit i of the little-endian 16-byte block is the coefficient of x^i
// (RFC 8452's byte and bit order), and the field is GF(2)[x] modulo
// x^128 + x^127 + x^126 + x^121 + 1. POLYVAL multiplies with
// dot(a, b) = a * b * x^-128: carry-less products, then a Montgomery
// reduction that clears the low 128 bits.
//
// The carry-less 64x64 product uses integer multiplication with "holes":
// each operand is split into four masks keeping every fourth bit, so the
// carries of the integer products land in the bits masked away (at most 16
// terms add up in any bit position, which three spare bits hold). Integer
// multiplication takes the same time for all operands on the CPUs Go targets,
// so no secret reaches a branch or a memory address. The idea is BearSSL's
// ctmul64; the code is our own.

type polyval struct {
	h [2]uint64 // the key
	s [2]uint64 // the running sum
}

func (p *polyval) init(h [2]uint64) { p.h, p.s = h, [2]uint64{} }

// updateBlock absorbs one 16-byte block: s = dot(s + x, h).
func (p *polyval) updateBlock(block []byte) {
	p.s[0] ^= binary.LittleEndian.Uint64(block[:8])
	p.s[1] ^= binary.LittleEndian.Uint64(block[8:16])
	p.s = dot(p.s, p.h)
}

// updatePadded absorbs data zero-padded to a whole number of blocks.
func (p *polyval) updatePadded(data []byte) {
	for len(data) >= 16 {
		p.updateBlock(data[:16])
		data = data[16:]
	}
	if len(data) > 0 {
		var block [16]byte
		copy(block[:], data)
		p.updateBlock(block[:])
		clear(block[:])
	}
}

func (p *polyval) sum() [16]byte {
	var out [16]byte
	binary.LittleEndian.PutUint64(out[:8], p.s[0])
	binary.LittleEndian.PutUint64(out[8:], p.s[1])
	return out
}

func (p *polyval) wipe() { p.h, p.s = [2]uint64{}, [2]uint64{} }

// bmul64 is the low 64 bits of the carry-less product of x and y.
func bmul64(x, y uint64) uint64 {
	const m0, m1, m2, m3 = 0x1111111111111111, 0x2222222222222222, 0x4444444444444444, 0x8888888888888888
	x0, x1, x2, x3 := x&m0, x&m1, x&m2, x&m3
	y0, y1, y2, y3 := y&m0, y&m1, y&m2, y&m3
	z0 := (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1)
	z1 := (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2)
	z2 := (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3)
	z3 := (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0)
	return (z0 & m0) | (z1 & m1) | (z2 & m2) | (z3 & m3)
}

// clmul64 is the 128-bit carry-less product of x and y: the high half is the
// low half of the product of the bit-reversed operands, reversed, shifted by
// one (the product has 127 bits).
func clmul64(x, y uint64) (lo, hi uint64) {
	return bmul64(x, y), bits.Reverse64(bmul64(bits.Reverse64(x), bits.Reverse64(y))) >> 1
}

// dot is a * b * x^-128 in POLYVAL's field.
func dot(a, b [2]uint64) [2]uint64 {
	// The 256-bit product z3:z2:z1:z0, by Karatsuba.
	l0, l1 := clmul64(a[0], b[0])
	h0, h1 := clmul64(a[1], b[1])
	m0, m1 := clmul64(a[0]^a[1], b[0]^b[1])
	m0 ^= l0 ^ h0
	m1 ^= l1 ^ h1
	z0, z1, z2, z3 := l0, l1^m0, h0^m1, h1

	// Montgomery reduction: add z0 * p, which clears bits 0-63 (p's constant
	// term) and adds z0 * (x^121 + x^126 + x^127 + x^128) above; then the
	// same for bits 64-127 with the updated z1. What is left, divided by
	// x^128, is z3:z2.
	z1 ^= z0<<57 ^ z0<<62 ^ z0<<63
	z2 ^= z0 ^ z0>>7 ^ z0>>2 ^ z0>>1
	z2 ^= z1<<57 ^ z1<<62 ^ z1<<63
	z3 ^= z1 ^ z1>>7 ^ z1>>2 ^ z1>>1
	return [2]uint64{z2, z3}
}

// mulX is a * x in POLYVAL's field (RFC 8452 Appendix A's mulX_POLYVAL):
// a shift left by one, reduced by x^127 + x^126 + x^121 + 1 if a bit fell out.
func mulX(a [2]uint64) [2]uint64 {
	carry := -(a[1] >> 63) // all ones if bit 127 was set, else zero
	lo := a[0]<<1 ^ (carry & 1)
	hi := (a[1]<<1 | a[0]>>63) ^ (carry & 0xc200000000000000)
	return [2]uint64{lo, hi}
}

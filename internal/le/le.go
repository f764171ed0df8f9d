// Package le packs Go slices into the little-endian byte layouts GL buffer
// uploads take (the applications above gl.Context — scenes, benchmarks,
// test runners — build vertex and index data with it).
package le

import (
	"encoding/binary"
	"math"
)

// Float32s returns f as little-endian IEEE 754 bytes.
func Float32s(f []float32) []byte {
	b := make([]byte, 4*len(f))
	for i, v := range f {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// Uint32s returns u as little-endian bytes.
func Uint32s(u []uint32) []byte {
	b := make([]byte, 4*len(u))
	for i, v := range u {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

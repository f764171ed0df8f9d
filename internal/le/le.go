// Package le packs Go slices into the little-endian byte layouts GL buffer
// uploads take (the applications above gl.Context — scenes, benchmarks,
// test runners — build vertex and index data with it). It forwards to the
// exported helpers of package gl, which applications outside the module use.
package le

import "github.com/tilegpu/tilegpu/gl"

// Float32s returns f as little-endian IEEE 754 bytes.
func Float32s(f []float32) []byte { return gl.Float32Bytes(f...) }

// Uint32s returns u as little-endian bytes.
func Uint32s(u []uint32) []byte { return gl.Uint32Bytes(u...) }

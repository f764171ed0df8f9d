//go:build !amd64 || purego

package qpu

// Without assembly the lane kernels are kernels_gen.go's unrolled Go.

func vfadd(a, b, r *[Lanes]uint32) { kfadd(a, b, r) }
func vfsub(a, b, r *[Lanes]uint32) { kfsub(a, b, r) }
func vfmul(a, b, r *[Lanes]uint32) { kfmul(a, b, r) }
func viadd(a, b, r *[Lanes]uint32) { kiadd(a, b, r) }
func visub(a, b, r *[Lanes]uint32) { kisub(a, b, r) }
func viand(a, b, r *[Lanes]uint32) { kiand(a, b, r) }
func vior(a, b, r *[Lanes]uint32)  { kior(a, b, r) }
func vixor(a, b, r *[Lanes]uint32) { kixor(a, b, r) }
func vrecip(r, out *[Lanes]uint32) { krecip(r, out) }
func vrsqrt(r, out *[Lanes]uint32) { krsqrt(r, out) }

const simdKernels = false

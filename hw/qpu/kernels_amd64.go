//go:build amd64 && !purego

package qpu

// SSE2 lane kernels (kernels_amd64.s): the same results as kernels_gen.go's.

//go:noescape
func vfadd(a, b, r *[Lanes]uint32)

//go:noescape
func vfsub(a, b, r *[Lanes]uint32)

//go:noescape
func vfmul(a, b, r *[Lanes]uint32)

//go:noescape
func viadd(a, b, r *[Lanes]uint32)

//go:noescape
func visub(a, b, r *[Lanes]uint32)

//go:noescape
func viand(a, b, r *[Lanes]uint32)

//go:noescape
func vior(a, b, r *[Lanes]uint32)

//go:noescape
func vixor(a, b, r *[Lanes]uint32)

// vrecip and vrsqrt: the SFU's RECIP and RECIPSQRT (krecip, krsqrt).
//
//go:noescape
func vrecip(r, out *[Lanes]uint32)

//go:noescape
func vrsqrt(r, out *[Lanes]uint32)

const simdKernels = true

package qpu

import (
	"math"
	"math/bits"
	"unsafe"

	"github.com/tilegpu/tilegpu/hw/isa"
)

//go:generate go run gen_kernels.go

// Every op is one loop over the 16 lanes (the compiler removes the bounds
// checks because all operands are *[Lanes]uint32), or for the common
// lane-wise ops an unrolled kernel from kernels_gen.go. Every op reads lane
// l of its operands before writing lane l of r and touches no other lane,
// except FDX/FDY, so r may alias an operand for all other ops. Float results
// go through an explicit float32 conversion so no platform fuses them into
// FMAs. The commonest float and integer ops run as SSE2 kernels on amd64
// (kernels_amd64.s, the v* functions), kernels_gen.go's elsewhere.

// fl views a lane array as float32s. Loading floats directly avoids a
// general-register→XMM move per lane (measured: about 1.5x on FADD/FMUL).
func fl(p *[Lanes]uint32) *[Lanes]float32 { return (*[Lanes]float32)(unsafe.Pointer(p)) }

// fmin and fmax are IEEE 754-2008 minNum/maxNum (docs/hardware.md): when
// exactly one operand is NaN the result is the other operand, and −0
// orders below +0.
func fmin(a, b float32) float32 {
	switch {
	case a < b:
		return a
	case b < a:
		return b
	case a != a:
		return b
	case b != b:
		return a
	}
	return ff(fb(a) | fb(b)) // equal: −0 wins over +0
}

func fmax(a, b float32) float32 {
	switch {
	case a > b:
		return a
	case b > a:
		return b
	case a != a:
		return b
	case b != b:
		return a
	}
	return ff(fb(a) & fb(b)) // equal: +0 wins over −0
}

// ftoi converts with truncation, saturating, NaN to 0.
func ftoi(x float32) uint32 {
	switch {
	case x != x:
		return 0
	case x >= 2147483648:
		return math.MaxInt32
	case x <= -2147483648:
		return 1 << 31
	}
	return uint32(int32(x))
}

func floor32(x float32) float32 { return float32(math.Floor(float64(x))) }

func execAdd(op isa.AddOp, a, b, r *[Lanes]uint32, fragment bool) {
	switch op {
	case isa.OpFADD:
		vfadd(a, b, r)
	case isa.OpFSUB:
		vfsub(a, b, r)
	case isa.OpFMIN:
		af, bf, rf := fl(a), fl(b), fl(r)
		for l := range rf {
			rf[l] = fmin(af[l], bf[l])
		}
	case isa.OpFMAX:
		af, bf, rf := fl(a), fl(b), fl(r)
		for l := range rf {
			rf[l] = fmax(af[l], bf[l])
		}
	case isa.OpFMINABS:
		for l := range r {
			r[l] = fb(fmin(ff(a[l]&0x7fffffff), ff(b[l]&0x7fffffff)))
		}
	case isa.OpFMAXABS:
		for l := range r {
			r[l] = fb(fmax(ff(a[l]&0x7fffffff), ff(b[l]&0x7fffffff)))
		}
	case isa.OpFTOI:
		af := fl(a)
		for l := range r {
			r[l] = ftoi(af[l])
		}
	case isa.OpITOF:
		rf := fl(r)
		for l := range rf {
			rf[l] = float32(int32(a[l]))
		}
	case isa.OpADD:
		viadd(a, b, r)
	case isa.OpSUB:
		visub(a, b, r)
	case isa.OpSHR:
		kishr(a, b, r)
	case isa.OpASR:
		kiasr(a, b, r)
	case isa.OpROR:
		for l := range r {
			r[l] = bits.RotateLeft32(a[l], -int(b[l]&31))
		}
	case isa.OpSHL:
		kishl(a, b, r)
	case isa.OpMIN:
		for l := range r {
			r[l] = uint32(min(int32(a[l]), int32(b[l])))
		}
	case isa.OpMAX:
		for l := range r {
			r[l] = uint32(max(int32(a[l]), int32(b[l])))
		}
	case isa.OpAND:
		viand(a, b, r)
	case isa.OpOR:
		if a == b { // "or x, y, y" is the compiler's mov: x|x = x, copied
			*r = *a
			return
		}
		vior(a, b, r)
	case isa.OpXOR:
		vixor(a, b, r)
	case isa.OpNOT:
		kinot(a, r)
	case isa.OpCLZ:
		for l := range r {
			r[l] = uint32(bits.LeadingZeros32(a[l]))
		}
	case isa.OpFFLOOR:
		for l := range r {
			r[l] = fb(floor32(ff(a[l])))
		}
	case isa.OpFCEIL:
		for l := range r {
			r[l] = fb(float32(math.Ceil(float64(ff(a[l])))))
		}
	case isa.OpFTRUNC:
		for l := range r {
			r[l] = fb(float32(math.Trunc(float64(ff(a[l])))))
		}
	case isa.OpFFRACT:
		for l := range r {
			x := ff(a[l])
			r[l] = fb(float32(x - floor32(x)))
		}
	case isa.OpFDX:
		if !fragment {
			*r = zeroes
			return
		}
		for l := range r {
			r[l] = fb(float32(ff(a[l|1]) - ff(a[l&^1])))
		}
	case isa.OpFDY:
		if !fragment {
			*r = zeroes
			return
		}
		for l := range r {
			r[l] = fb(float32(ff(a[l|2]) - ff(a[l&^2])))
		}
	case isa.OpFSIGN:
		for l := range r {
			x := ff(a[l])
			var s float32
			if x > 0 {
				s = 1
			} else if x < 0 {
				s = -1
			}
			r[l] = fb(s)
		}
	case isa.OpFABS:
		kfabsBits(a, r)
	case isa.OpFNEG:
		kfnegBits(a, r)
	}
}

func execMul(op isa.MulOp, a, b, r *[Lanes]uint32) {
	switch op {
	case isa.OpFMUL, isa.OpFMULABS:
		vfmul(a, b, r)
	case isa.OpMUL24:
		kmul24(a, b, r)
	case isa.OpMOV:
		*r = *a
	}
}

// krecip and krsqrt are the SFU's RECIP and RECIPSQRT per lane (every lane;
// the caller zeroes the masked-off ones): 1/x in float32, and 1/sqrt(x)
// computed in float64 and rounded once to float32. vrecip and vrsqrt are
// the same in SSE2 on amd64 (kernels_amd64.s).
func krecip(r, out *[Lanes]uint32) {
	for l := range r {
		out[l] = fb(1 / ff(r[l]))
	}
}

func krsqrt(r, out *[Lanes]uint32) {
	for l := range r {
		out[l] = fb(float32(1 / math.Sqrt(float64(ff(r[l])))))
	}
}

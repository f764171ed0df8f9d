package qpu

import (
	"math"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// Texture formats other than RGBA8888 (hardware.md §6.2.1): 16-bit
// packed colour (GL's UNSIGNED_SHORT_* layouts), DEPTH24 (the Z24S8
// depth/stencil surface layout, sampled as depth) and RGBA16F (four
// IEEE half floats, values outside [0,1] kept). They take the general
// per-lane path (sampleLanes → sampleLevelFormat), so the RGBA8888 fast
// paths stay as they are.

// texelBytes is the size of one texel of a format.
func texelBytes(f cl.TextureFormat) int {
	switch f {
	case cl.TextureFormatRGB565, cl.TextureFormatRGBA4444, cl.TextureFormatRGBA5551:
		return 2
	case cl.TextureFormatRGBA16F:
		return 8
	}
	return 4
}

// knownTextureFormat reports whether the TMU samples format f.
func knownTextureFormat(f cl.TextureFormat) bool {
	return f <= cl.TextureFormatRGBA16F
}

// texelFormat reads and converts texel (i, j) of a level at base.
func (u *TMU) texelFormat(base uint32, w, i, j int) ([4]float32, error) {
	f := u.d.Format
	va := base + uint32((j*w+i)*texelBytes(f))
	word, ok := u.pages.word(va &^ 3)
	if !ok {
		return [4]float32{}, &Fault{VA: va &^ 3}
	}
	switch f {
	case cl.TextureFormatRGB565, cl.TextureFormatRGBA4444, cl.TextureFormatRGBA5551:
		v := word >> (8 * (va & 2)) & 0xFFFF
		switch f {
		case cl.TextureFormatRGB565:
			return [4]float32{unormBits(v>>11, 5), unormBits(v>>5&63, 6), unormBits(v&31, 5), 1}, nil
		case cl.TextureFormatRGBA4444:
			return [4]float32{unormBits(v>>12, 4), unormBits(v>>8&15, 4), unormBits(v>>4&15, 4), unormBits(v&15, 4)}, nil
		}
		return [4]float32{unormBits(v>>11, 5), unormBits(v>>6&31, 5), unormBits(v>>1&31, 5), float32(v & 1)}, nil
	case cl.TextureFormatDepth24:
		d := float32(float64(word&0xFFFFFF) / 0xFFFFFF)
		return [4]float32{d, d, d, 1}, nil
	case cl.TextureFormatRGBA16F:
		hi, ok := u.pages.word(va + 4)
		if !ok {
			return [4]float32{}, &Fault{VA: va + 4}
		}
		return [4]float32{halfToFloat(uint16(word)), halfToFloat(uint16(word >> 16)), halfToFloat(uint16(hi)), halfToFloat(uint16(hi >> 16))}, nil
	}
	v := word
	return [4]float32{unorm8[v&0xff], unorm8[v>>8&0xff], unorm8[v>>16&0xff], unorm8[v>>24]}, nil
}

// unormBits is an n-bit unsigned normalised value as a float.
func unormBits(v uint32, n uint) float32 {
	return float32(v) / float32(uint32(1)<<n-1)
}

// sampleLevelFormat is sampleLevel for the formats of texelFormat:
// nearest, or the bilinear weights of sampleLevel over four texels.
func (u *TMU) sampleLevelFormat(n, f int, s, t float32, linear bool) ([4]float32, error) {
	w, h := u.lw[n], u.lh[n]
	base := u.d.Address + uint32(f)*u.d.FaceStride + u.loff[n]
	x := float32(s * float32(w))
	y := float32(t * float32(h))
	if !linear {
		u.texels++
		i := wrap(texelIndex(x), w, u.d.WrapS)
		j := wrap(texelIndex(y), h, u.d.WrapT)
		return u.texelFormat(base, w, i, j)
	}
	u.texels += 4
	ia, ib, ja, jb, wq := u.bilinearFootprint(x, y, w, h)
	var tx [4][4]float32
	for k, ij := range [4][2]int{{ia, ja}, {ib, ja}, {ia, jb}, {ib, jb}} {
		v, err := u.texelFormat(base, w, ij[0], ij[1])
		if err != nil {
			return [4]float32{}, err
		}
		tx[k] = v
	}
	return filter4(&wq, &tx), nil
}

// halfToFloat converts an IEEE 754 binary16 value to float32 (exactly:
// every half is a float32).
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h >> 10 & 0x1F)
	man := uint32(h & 0x3FF)
	switch {
	case exp == 0x1F: // Inf, NaN
		return math.Float32frombits(sign | 0xFF<<23 | man<<13)
	case exp == 0:
		if man == 0 {
			return math.Float32frombits(sign)
		}
		// subnormal: man·2⁻²⁴
		v := float32(man) / (1 << 24)
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}

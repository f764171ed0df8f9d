package pipe

import (
	"encoding/binary"
	"math"
)

// ColorBits returns the bits of the R, G, B and A channels of a colour
// format (GL's RED_BITS ... ALPHA_BITS); zeros for other formats.
func (f Format) ColorBits() [4]int {
	switch f {
	case FormatRGBA8:
		return [4]int{8, 8, 8, 8}
	case FormatRGBX8:
		return [4]int{8, 8, 8, 0}
	case FormatRGB565:
		return [4]int{5, 6, 5, 0}
	case FormatRGBA4:
		return [4]int{4, 4, 4, 4}
	case FormatRGB5A1:
		return [4]int{5, 5, 5, 1}
	case FormatRGBA16F:
		return [4]int{16, 16, 16, 16}
	}
	return [4]int{}
}

// packed16 describes the 16-bit formats: channel shifts in the u16.
func (f Format) packed16() (bits, shift [4]uint, ok bool) {
	switch f {
	case FormatRGB565:
		return [4]uint{5, 6, 5, 0}, [4]uint{11, 5, 0, 0}, true
	case FormatRGBA4:
		return [4]uint{4, 4, 4, 4}, [4]uint{12, 8, 4, 0}, true
	case FormatRGB5A1:
		return [4]uint{5, 5, 5, 1}, [4]uint{11, 6, 1, 0}, true
	}
	return
}

// ToRGBA8 converts n pixels of colour format f in src to RGBA8 in dst
// (4n bytes). Channels a format lacks read as 1 (alpha) — as GL reads
// them; half floats are clamped to [0,1]. It reports false for a format
// that is not a colour format.
func (f Format) ToRGBA8(dst, src []byte, n int) bool {
	switch f {
	case FormatRGBA8:
		copy(dst[:4*n], src)
		return true
	case FormatRGBX8:
		copy(dst[:4*n], src)
		for i := 3; i < 4*n; i += 4 {
			dst[i] = 255
		}
		return true
	case FormatRGBA16F:
		for i := 0; i < 4*n; i++ {
			x := HalfToFloat(binary.LittleEndian.Uint16(src[2*i:]))
			dst[i] = uint8(math.Round(float64(min(max(x, 0), 1)) * 255))
		}
		return true
	}
	bits, shift, ok := f.packed16()
	if !ok {
		return false
	}
	for i := 0; i < n; i++ {
		v := uint32(binary.LittleEndian.Uint16(src[2*i:]))
		for c := 0; c < 4; c++ {
			if bits[c] == 0 {
				dst[4*i+c] = 255
				continue
			}
			m := uint32(1)<<bits[c] - 1
			dst[4*i+c] = uint8((v>>shift[c]&m*255 + m/2) / m)
		}
	}
	return true
}

// FromRGBA8 converts n RGBA8 pixels to colour format f, rounding each
// channel to the format's bits (round(v·(2ⁿ−1)/255)). It reports false
// for a format that is not a colour format.
func (f Format) FromRGBA8(dst, src []byte, n int) bool {
	switch f {
	case FormatRGBA8:
		copy(dst[:4*n], src)
		return true
	case FormatRGBX8:
		copy(dst[:4*n], src)
		for i := 3; i < 4*n; i += 4 {
			dst[i] = 255
		}
		return true
	case FormatRGBA16F:
		for i := 0; i < 4*n; i++ {
			binary.LittleEndian.PutUint16(dst[2*i:], FloatToHalf(float32(src[i])/255))
		}
		return true
	}
	bits, shift, ok := f.packed16()
	if !ok {
		return false
	}
	for i := 0; i < n; i++ {
		var v uint32
		for c := 0; c < 4; c++ {
			if bits[c] != 0 {
				m := uint32(1)<<bits[c] - 1
				v |= (uint32(src[4*i+c])*m + 127) / 255 << shift[c]
			}
		}
		binary.LittleEndian.PutUint16(dst[2*i:], uint16(v))
	}
	return true
}

// HalfToFloat converts an IEEE 754 binary16 value to float32 (exact).
func HalfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h >> 10 & 0x1F)
	man := uint32(h & 0x3FF)
	switch {
	case exp == 0x1F:
		return math.Float32frombits(sign | 0xFF<<23 | man<<13)
	case exp == 0:
		v := float32(man) / (1 << 24)
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}

// FloatToHalf converts a float32 to the nearest binary16 (ties to even);
// values beyond the half range become ±Inf, NaN stays NaN.
func FloatToHalf(x float32) uint16 {
	b := math.Float32bits(x)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xFF) - 127
	man := b & 0x7FFFFF
	switch {
	case exp == 128: // Inf, NaN
		if man != 0 {
			return sign | 0x7E00
		}
		return sign | 0x7C00
	case exp > 15:
		return sign | 0x7C00
	case exp >= -14: // normal half
		h := uint32(exp+15)<<10 | man>>13
		rest := man & 0x1FFF
		if rest > 0x1000 || (rest == 0x1000 && h&1 != 0) {
			h++ // may carry into the exponent: still correct (up to Inf)
		}
		return sign | uint16(h)
	case exp >= -25: // subnormal half: man·2^(exp) with the implicit 1
		m := man | 0x800000
		sh := uint(-exp - 14 + 13)
		h := m >> sh
		rest := m & (1<<sh - 1)
		half := uint32(1) << (sh - 1)
		if rest > half || (rest == half && h&1 != 0) {
			h++
		}
		return sign | uint16(h)
	}
	return sign
}

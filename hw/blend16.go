package hw

import (
	"github.com/tilegpu/tilegpu/hw/qpu"
)

// The colour write of a whole fragment batch at once: blend and colour
// mask for the 16 lanes as channel-by-channel loops over lanes (structure
// of arrays) instead of blendColor per lane. Every lane computes exactly
// blendColor's float32 operations in the same order (clamp, factors,
// equation, unorm8), so the bits are the same; blend16_test.go checks it
// for every equation, factor and mask. The combining step (equation,
// clamp, round to 8 bits) runs four lanes at a time in SSE2 on amd64
// (combineLanes).

// blendLanes is the scratch of one batch's colour write.
type blendLanes struct {
	src, dst [4][qpu.Lanes]float32 // clamped source, destination channels
	fs, fd   [qpu.Lanes]float32    // the current channel's factors
	px       [qpu.Lanes]uint32     // destination pixels in, results out
	out      [qpu.Lanes]uint32     // the blended channels, packed
}

// colorLanes replaces bl.px[l] by what blendPixel(l, bl.px[l]) returns,
// for all 16 lanes of the batch.
func (w *worker) colorLanes(bl *blendLanes) {
	s := &w.st
	prepareLanes(&w.batch.Color, &bl.px, &bl.src, &bl.dst)
	if !s.blend {
		packLanes(&bl.src, &bl.out)
	} else {
		for c := range 4 {
			eq, sf, df := s.eqRGB, s.srcRGB, s.dstRGB
			if c == 3 {
				eq, sf, df = s.eqA, s.srcA, s.dstA
			}
			if eq != 3 && eq != 4 { // MIN and MAX ignore the factors
				factorLanes(sf, c, bl, &s.blendConst, &bl.fs)
				factorLanes(df, c, bl, &s.blendConst, &bl.fd)
			}
			combineLanes(&bl.src[c], &bl.fs, &bl.dst[c], &bl.fd, eq, &bl.out, uint(8*c))
		}
	}
	var keep uint32 // destination bits the colour mask keeps
	for c := range 4 {
		if !s.colorMask[c] {
			keep |= 0xFF << (8 * c)
		}
	}
	for l := range qpu.Lanes {
		bl.px[l] = bl.px[l]&keep | bl.out[l]&^keep
	}
}

// factorLanes is blendFactor f of channel c for every lane.
func factorLanes(f uint32, c int, bl *blendLanes, k *[4]float32, out *[qpu.Lanes]float32) {
	switch f {
	case 0:
		*out = [qpu.Lanes]float32{}
	case 1:
		for l := range out {
			out[l] = 1
		}
	case 2:
		*out = bl.src[c]
	case 3:
		for l, v := range &bl.src[c] {
			out[l] = 1 - v
		}
	case 4:
		*out = bl.dst[c]
	case 5:
		for l, v := range &bl.dst[c] {
			out[l] = 1 - v
		}
	case 6:
		*out = bl.src[3]
	case 7:
		for l, v := range &bl.src[3] {
			out[l] = 1 - v
		}
	case 8:
		*out = bl.dst[3]
	case 9:
		for l, v := range &bl.dst[3] {
			out[l] = 1 - v
		}
	case 10, 11, 12, 13:
		kc := c
		if f >= 12 {
			kc = 3
		}
		v := clamp01(k[kc])
		if f == 11 || f == 13 {
			v = 1 - v
		}
		for l := range out {
			out[l] = v
		}
	case 14:
		if c == 3 {
			for l := range out {
				out[l] = 1
			}
			return
		}
		for l := range out {
			out[l] = min(bl.src[3][l], 1-bl.dst[3][l])
		}
	default:
		*out = [qpu.Lanes]float32{}
	}
}

// combineLanesGo is combineLanes in Go: out[l] |= unorm8(v) << shift with
// v blendColor's equation eq of s, fs, d, fd in lane l.
func combineLanesGo(s, fs, d, fd *[qpu.Lanes]float32, eq uint32, out *[qpu.Lanes]uint32, shift uint) {
	if shift == 0 {
		*out = [qpu.Lanes]uint32{}
	}
	for l := range qpu.Lanes {
		var v float32
		switch eq {
		case 1:
			v = s[l]*fs[l] - d[l]*fd[l]
		case 2:
			v = d[l]*fd[l] - s[l]*fs[l]
		case 3:
			v = min(s[l], d[l])
		case 4:
			v = max(s[l], d[l])
		default:
			v = s[l]*fs[l] + d[l]*fd[l]
		}
		out[l] |= unorm8(v) << shift
	}
}

// prepareLanesGo clamps the batch's colours into src and unpacks the
// destination pixels' channels into dst, as blendColor reads them.
func prepareLanesGo(color *[4][qpu.Lanes]float32, px *[qpu.Lanes]uint32, src, dst *[4][qpu.Lanes]float32) {
	for c := range 4 {
		for l := range qpu.Lanes {
			src[c][l] = clamp01(color[c][l])
		}
	}
	for c := range 4 {
		shift := 8 * c
		for l := range qpu.Lanes {
			dst[c][l] = unorm8Float[px[l]>>shift&0xFF]
		}
	}
}

// packLanesGo converts the batch's colours to RGBA8 pixels, lane by lane
// as unorm8 does.
func packLanesGo(color *[4][qpu.Lanes]float32, out *[qpu.Lanes]uint32) {
	for l := range qpu.Lanes {
		out[l] = unorm8(color[0][l]) | unorm8(color[1][l])<<8 | unorm8(color[2][l])<<16 | unorm8(color[3][l])<<24
	}
}

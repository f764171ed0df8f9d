package hw

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// fmtCase describes a colour format independently of format.go: bits per
// channel and the GL packed layout of a 16-bit pixel.
type fmtCase struct {
	name  string
	f     cl.ColorFormat
	bits  [4]int
	shift [4]int // 16-bit formats: channel shift in the u16
	bytes int
}

var fmtCases = []fmtCase{
	{"RGBA8888", cl.ColorFormatRGBA8888, [4]int{8, 8, 8, 8}, [4]int{}, 4},
	{"RGB565", cl.ColorFormatRGB565, [4]int{5, 6, 5, 0}, [4]int{11, 5, 0, 0}, 2},
	{"RGBA4444", cl.ColorFormatRGBA4444, [4]int{4, 4, 4, 4}, [4]int{12, 8, 4, 0}, 2},
	{"RGBA5551", cl.ColorFormatRGBA5551, [4]int{5, 5, 5, 1}, [4]int{11, 6, 1, 0}, 2},
	{"RGBX8888", cl.ColorFormatRGBX8888, [4]int{8, 8, 8, 0}, [4]int{}, 4},
}

// channels decodes pixel i of a surface in the format into per-channel
// integers at the format's precision (a channel without bits reads as
// max, i.e. 1.0, returned as -1 to be told apart).
func (fc fmtCase) channels(mem []byte, i int) [4]int {
	var out [4]int
	if fc.bytes == 2 {
		v := int(binary.LittleEndian.Uint16(mem[2*i:]))
		for c := 0; c < 4; c++ {
			if fc.bits[c] == 0 {
				out[c] = -1
				continue
			}
			out[c] = v >> fc.shift[c] & (1<<fc.bits[c] - 1)
		}
		return out
	}
	for c := 0; c < 4; c++ {
		out[c] = int(mem[4*i+c])
	}
	if fc.bits[3] == 0 {
		if out[3] != 255 {
			out[3] = -2 // an RGBX pixel must hold alpha 255 in memory
		} else {
			out[3] = -1
		}
	}
	return out
}

// want is round(clamp(v)·(2ⁿ−1)) per channel, -1 for a channel without bits.
func (fc fmtCase) want(v [4]float64) [4]int {
	var out [4]int
	for c := 0; c < 4; c++ {
		if fc.bits[c] == 0 {
			out[c] = -1
			continue
		}
		x := math.Min(math.Max(v[c], 0), 1)
		out[c] = int(math.Floor(x*float64(int(1)<<fc.bits[c]-1) + 0.5))
	}
	return out
}

func TestColorFormatTables(t *testing.T) {
	for _, fc := range fmtCases {
		f := &colorFormats[fc.f]
		if f.bytes != fc.bytes {
			t.Fatalf("%s: %d bytes, want %d", fc.name, f.bytes, fc.bytes)
		}
		// Every 8-bit value rounds to the nearest n-bit level; rounding is
		// idempotent, and pack ∘ unpack is the identity on packed values.
		for c := 0; c < 4; c++ {
			n := fc.bits[c]
			for v := 0; v < 256; v++ {
				px := uint32(v) << (8 * c)
				q := f.quantize(px) >> (8 * c) & 0xFF
				if n == 0 {
					if q != 255 {
						t.Fatalf("%s channel %d: %d quantized to %d, want 255 (no bits reads 1)", fc.name, c, v, q)
					}
					continue
				}
				m := float64(int(1)<<n - 1)
				level := math.Floor(float64(v)/255*m + 0.5)
				if want := math.Floor(level/m*255 + 0.5); float64(q) != want {
					t.Fatalf("%s channel %d: %d quantized to %d, want %v", fc.name, c, v, q, want)
				}
				if f.quantize(f.quantize(px)) != f.quantize(px) {
					t.Fatalf("%s: quantize not idempotent at %#x", fc.name, px)
				}
			}
		}
		if fc.bytes == 2 {
			for p := uint32(0); p < 1<<16; p++ {
				if fc.bits[3] == 0 && p&^0xFFFF != 0 {
					continue
				}
				keep := uint32(0)
				for c := 0; c < 4; c++ {
					keep |= (1<<fc.bits[c] - 1) << fc.shift[c]
				}
				if got := f.pack(f.unpack(p)); got != p&keep {
					t.Fatalf("%s: pack(unpack(%#04x)) = %#04x", fc.name, p, got)
				}
			}
		}
	}
}

// fmtSize is the framebuffer of the rendering tests: 2×1 tiles.
const fmtSize = 96

func fmtQuad(r, g, b, a float32) []testVertex {
	return solid(r, g, b, a, []testVertex{
		{x: -1, y: -1, w: 1}, {x: 1, y: -1, w: 1}, {x: 1, y: 1, w: 1},
		{x: -1, y: -1, w: 1}, {x: 1, y: 1, w: 1}, {x: -1, y: 1, w: 1},
	})
}

// TestColorFormatRender renders into every colour format and reads the
// memory surface: plain writes round to the format's bits, values outside
// [0,1] clamp, the clear colour rounds, blending reads the stored
// (rounded) destination, a channel without bits holds 1.0 (also as
// destination alpha), and pixels a draw does not touch survive a load and
// store bit-exactly.
func TestColorFormatRender(t *testing.T) {
	add := []cl.Record{cl.BlendConfig{Enable: true, SrcRGB: cl.BlendFactorOne, DstRGB: cl.BlendFactorOne, SrcAlpha: cl.BlendFactorOne, DstAlpha: cl.BlendFactorOne}}
	over := []cl.Record{cl.BlendConfig{Enable: true, SrcRGB: cl.BlendFactorSrcAlpha, DstRGB: cl.BlendFactorOneMinusSrcAlpha, SrcAlpha: cl.BlendFactorOne, DstAlpha: cl.BlendFactorZero}}
	dstAlpha := []cl.Record{cl.BlendConfig{Enable: true, SrcRGB: cl.BlendFactorDstAlpha, DstRGB: cl.BlendFactorZero, SrcAlpha: cl.BlendFactorOne, DstAlpha: cl.BlendFactorZero}}
	for _, fc := range fmtCases {
		t.Run(fc.name, func(t *testing.T) {
			check := func(what string, mem []byte, want [4]int) {
				t.Helper()
				for _, i := range []int{0, fmtSize*fmtSize/2 + 70, fmtSize*fmtSize - 1} {
					if got := fc.channels(mem, i); got != want {
						t.Fatalf("%s: pixel %d = %v, want %v", what, i, got, want)
					}
				}
			}
			k := newTestKernel(t, 2, 32<<20)
			// Clear colour (0.3, 0.6, 0.2, 0.7) as RGBA8 rounds again to the format.
			clearRGBA8 := [4]float64{77, 153, 51, 179}
			res := k.renderFrame(&testFrame{width: fmtSize, height: fmtSize, format: fc.f,
				clear: 77 | 153<<8 | 51<<16 | 179<<24})
			check("clear", res.color, fc.want([4]float64{clearRGBA8[0] / 255, clearRGBA8[1] / 255, clearRGBA8[2] / 255, clearRGBA8[3] / 255}))

			// A plain write with out-of-range values: clamped, then rounded.
			res = k.renderFrame(&testFrame{width: fmtSize, height: fmtSize, format: fc.f,
				draws: []testDraw{{mode: cl.PrimTriangles, verts: fmtQuad(1.5, -0.25, 0.43, 0.61)}}})
			check("write", res.color, fc.want([4]float64{1, 0, 0.43, 0.61}))

			// Ten additive layers of 0.02: each write rounds, so in a
			// format whose step is above 0.04 nothing accumulates; in 8
			// bits every layer adds round(0.02·255) = 5.
			var layers []testDraw
			for n := 0; n < 10; n++ {
				layers = append(layers, testDraw{mode: cl.PrimTriangles, verts: fmtQuad(0.02, 0.02, 0.02, 0.02), state: add})
			}
			res = k.renderFrame(&testFrame{width: fmtSize, height: fmtSize, format: fc.f, draws: layers})
			var acc [4]float64
			for c := 0; c < 4; c++ {
				if fc.bits[c] == 0 {
					continue
				}
				m := float64(int(1)<<fc.bits[c] - 1)
				for n := 0; n < 10; n++ {
					acc[c] = math.Floor((acc[c]+0.02)*m+0.5) / m // what the format stores after each layer
				}
			}
			check("additive layers", res.color, fc.want(acc))

			// "Over" blending of a half-transparent colour onto a stored colour.
			res = k.renderFrame(&testFrame{width: fmtSize, height: fmtSize, format: fc.f,
				draws: []testDraw{
					{mode: cl.PrimTriangles, verts: fmtQuad(0.9, 0.1, 0.55, 1)},
					{mode: cl.PrimTriangles, verts: fmtQuad(0.2, 0.8, 0.3, 0.35), state: over},
				}})
			var blended [4]float64
			for c, s := range [3]float64{0.2, 0.8, 0.3} {
				if fc.bits[c] == 0 {
					continue
				}
				m := float64(int(1)<<fc.bits[c] - 1)
				d := math.Floor([3]float64{0.9, 0.1, 0.55}[c]*m+0.5) / m
				blended[c] = s*0.35 + d*0.65
			}
			blended[3] = 0.35
			got := fc.channels(res.color, 5)
			want := fc.want(blended)
			for c := 0; c < 4; c++ {
				// The blend result is rounded to 8 bits before the format's
				// rounding: one step of slack at 8 bits only.
				if d := got[c] - want[c]; d < -1 || d > 1 || (d != 0 && fc.bits[c] < 8) {
					t.Fatalf("over: pixel = %v, want %v", got, want)
				}
			}

			// DST_ALPHA of a format without alpha bits is 1.
			res = k.renderFrame(&testFrame{width: fmtSize, height: fmtSize, format: fc.f, clear: 0x40000000,
				draws: []testDraw{{mode: cl.PrimTriangles, verts: fmtQuad(1, 1, 1, 1), state: dstAlpha}}})
			da := 64.0 / 255
			if fc.bits[3] == 0 {
				da = 1
			} else {
				m := float64(int(1)<<fc.bits[3] - 1)
				da = math.Floor(da*m+0.5) / m
			}
			check("dst alpha", res.color, fc.want([4]float64{da, da, da, 1}))

			// Load and store: a surface of varied packed pixels, a draw
			// covering only the left half; the right half is unchanged.
			mem := make([]byte, fmtSize*fmtSize*4)
			for i := range mem {
				mem[i] = byte(i*7 + i/3)
			}
			if fc.bits[3] == 0 && fc.bytes == 4 {
				for i := 3; i < len(mem); i += 4 {
					mem[i] = 255
				}
			}
			left := solid(0, 0, 1, 1, []testVertex{{x: -1, y: -1, w: 1}, {x: 0, y: -1, w: 1}, {x: 0, y: 1, w: 1}, {x: -1, y: -1, w: 1}, {x: 0, y: 1, w: 1}, {x: -1, y: 1, w: 1}})
			res = k.renderFrame(&testFrame{width: fmtSize, height: fmtSize, format: fc.f, load: mem,
				draws: []testDraw{{mode: cl.PrimTriangles, verts: left}}})
			for y := 0; y < fmtSize; y++ {
				for x := 0; x < fmtSize; x++ {
					i := y*fmtSize + x
					if x >= fmtSize/2 {
						if got, want := fc.channels(res.color, i), fc.channels(mem, i); got != want {
							t.Fatalf("load/store: pixel (%d,%d) = %v, want %v (unchanged)", x, y, got, want)
						}
					} else if got, want := fc.channels(res.color, i), fc.want([4]float64{0, 0, 1, 1}); got != want {
						t.Fatalf("load/store: drawn pixel (%d,%d) = %v, want %v", x, y, got, want)
					}
				}
			}
		})
	}
}

// TestColorFormatMSAA: with 4× MSAA and RGBA4444, each sample holds a
// 4-bit level and the stored pixel is the resolved coverage rounded once
// to 4 bits: round(covered/4 · 15) for white over black.
func TestColorFormatMSAA(t *testing.T) {
	tri := [3][2]float64{{3.25, 2.5}, {61.75, 17.125}, {20.5, 60.875}}
	var vs []testVertex
	for _, p := range tri {
		vs = append(vs, testVertex{x: toNDC(p[0]), y: toNDC(p[1]), w: 1})
	}
	k := newTestKernel(t, 2, 32<<20)
	res := k.renderFrame(&testFrame{width: msaaSize, height: msaaSize, msaa: true, format: cl.ColorFormatRGBA4444,
		clear: 0xFF000000, draws: []testDraw{{mode: cl.PrimTriangles, verts: solid(1, 1, 1, 1, vs)}}})
	fc := fmtCases[2]
	partial := 0
	for y := 0; y < msaaSize; y++ {
		for x := 0; x < msaaSize; x++ {
			covered, ambiguous := 0, false
			for _, p := range samplePos {
				in, d := sampleInside(tri, float64(x)+float64(p[0])/256, float64(y)+float64(p[1])/256)
				ambiguous = ambiguous || d < 1e-9
				if in {
					covered++
				}
			}
			if ambiguous {
				continue
			}
			v := float64(covered) / 4
			want := fc.want([4]float64{v, v, v, 1})
			if got := fc.channels(res.color, y*msaaSize+x); got != want {
				t.Fatalf("pixel (%d,%d): %v, want %v (%d of 4 samples)", x, y, got, want, covered)
			}
			if covered > 0 && covered < 4 {
				partial++
			}
		}
	}
	if partial < 50 {
		t.Fatalf("only %d partly covered pixels", partial)
	}
}

package gles_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/gl"
)

// expandTo8 is what an 8-bit read of value v stored with n bits returns:
// round(round(v·(2ⁿ−1))·255/(2ⁿ−1)); a channel without bits reads 255.
func expandTo8(v float64, n int) byte {
	if n == 0 {
		return 255
	}
	m := float64(int(1)<<n - 1)
	level := math.Floor(math.Min(math.Max(v, 0), 1)*m + 0.5)
	return byte(math.Floor(level*255/m + 0.5))
}

// wantRGBA is expandTo8 of each channel; the values are GL's float32
// inputs (0.7 is 0.69999999 and rounds to 10 in 4 bits, not 11).
func wantRGBA(v [4]float64, bits [4]int) [4]byte {
	var out [4]byte
	for c := range out {
		out[c] = expandTo8(float64(float32(v[c])), bits[c])
	}
	return out
}

const colorFS = `precision mediump float; uniform vec4 u_color; void main() { gl_FragColor = u_color; }`

// TestColorBufferRealBits: renderbuffers and textures of the low-bit
// formats report their bits and store them: clears, plain writes (clamped
// first), and blending that accumulates only what the format can hold
// read back as the format's values — with dithering enabled (the GL
// default), since the implementation does not dither.
func TestColorBufferRealBits(t *testing.T) {
	ctx, g := newStack(t, 8, 8, 1)
	p := program(t, g, `attribute vec2 a_pos; void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }`, colorFS)
	loc := g.GetUniformLocation(p, "u_color")
	quad(g, -1, 1)
	rbo := func(f gl.Enum) func() {
		return func() {
			rb := g.CreateRenderbuffer()
			g.BindRenderbuffer(gl.RENDERBUFFER, rb)
			g.RenderbufferStorage(gl.RENDERBUFFER, f, 8, 8)
			g.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, rb)
		}
	}
	tex := func(f, ty gl.Enum) func() {
		return func() {
			tx := g.CreateTexture()
			g.BindTexture(gl.TEXTURE_2D, tx)
			g.TexImage2D(gl.TEXTURE_2D, 0, int(f), 8, 8, f, ty, nil)
			g.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tx, 0)
		}
	}
	for _, tc := range []struct {
		name   string
		attach func()
		bits   [4]int
	}{
		{"rbo RGB565", rbo(gl.RGB565), [4]int{5, 6, 5, 0}},
		{"rbo RGBA4", rbo(gl.RGBA4), [4]int{4, 4, 4, 4}},
		{"rbo RGB5_A1", rbo(gl.RGB5_A1), [4]int{5, 5, 5, 1}},
		{"rbo RGB8", rbo(gl.RGB8_OES), [4]int{8, 8, 8, 0}},
		{"rbo RGBA8", rbo(gl.RGBA8_OES), [4]int{8, 8, 8, 8}},
		{"tex RGB 565", tex(gl.RGB, gl.UNSIGNED_SHORT_5_6_5), [4]int{5, 6, 5, 0}},
		{"tex RGBA 4444", tex(gl.RGBA, gl.UNSIGNED_SHORT_4_4_4_4), [4]int{4, 4, 4, 4}},
		{"tex RGBA 5551", tex(gl.RGBA, gl.UNSIGNED_SHORT_5_5_5_1), [4]int{5, 5, 5, 1}},
		{"tex RGB", tex(gl.RGB, gl.UNSIGNED_BYTE), [4]int{8, 8, 8, 0}},
		{"tex RGBA", tex(gl.RGBA, gl.UNSIGNED_BYTE), [4]int{8, 8, 8, 8}},
	} {
		fb := g.CreateFramebuffer()
		g.BindFramebuffer(gl.FRAMEBUFFER, fb)
		tc.attach()
		if st := g.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
			t.Fatalf("%s: status %#x", tc.name, st)
		}
		var got [4]int
		for c, pname := range []gl.Enum{gl.RED_BITS, gl.GREEN_BITS, gl.BLUE_BITS, gl.ALPHA_BITS} {
			var v [1]int32
			g.GetIntegerv(v[:], pname)
			got[c] = int(v[0])
		}
		if got != tc.bits {
			t.Errorf("%s: RED/GREEN/BLUE/ALPHA_BITS %v, want %v", tc.name, got, tc.bits)
		}
		if tc.name[:3] == "rbo" {
			for c, pname := range []gl.Enum{gl.RENDERBUFFER_RED_SIZE, gl.RENDERBUFFER_GREEN_SIZE, gl.RENDERBUFFER_BLUE_SIZE, gl.RENDERBUFFER_ALPHA_SIZE} {
				got[c] = g.GetRenderbufferParameteri(gl.RENDERBUFFER, pname)
			}
			if got != tc.bits {
				t.Errorf("%s: RENDERBUFFER_*_SIZE %v, want %v", tc.name, got, tc.bits)
			}
		}
		check := func(what string, want [4]byte) {
			t.Helper()
			px := pixels(t, ctx, 8, 8)
			for _, i := range []int{0, 27, 63} {
				if got := [4]byte(px[4*i : 4*i+4]); got != want {
					t.Fatalf("%s: %s: pixel %d = %v, want %v", tc.name, what, i, got, want)
				}
			}
		}
		g.Disable(gl.BLEND)
		g.ClearColor(0.3, 0.6, 0.2, 0.7)
		g.Clear(gl.COLOR_BUFFER_BIT)
		check("clear", wantRGBA([4]float64{0.3, 0.6, 0.2, 0.7}, tc.bits))
		// The implementation read format of a 16-bit buffer is its own
		// packed layout, and ReadPixels returns the stored levels.
		var rf, rt [1]int32
		g.GetIntegerv(rf[:], gl.IMPLEMENTATION_COLOR_READ_FORMAT)
		g.GetIntegerv(rt[:], gl.IMPLEMENTATION_COLOR_READ_TYPE)
		level := func(v float64, n int) uint16 {
			return uint16(math.Floor(float64(float32(v))*float64(int(1)<<n-1) + 0.5))
		}
		r, gr, bl, al := level(0.3, tc.bits[0]), level(0.6, tc.bits[1]), level(0.2, tc.bits[2]), level(0.7, tc.bits[3])
		wantFormat, wantType, packed := gl.Enum(gl.RGBA), gl.Enum(gl.UNSIGNED_BYTE), uint16(0)
		switch tc.bits {
		case [4]int{5, 6, 5, 0}:
			wantFormat, wantType, packed = gl.RGB, gl.UNSIGNED_SHORT_5_6_5, r<<11|gr<<5|bl
		case [4]int{4, 4, 4, 4}:
			wantType, packed = gl.UNSIGNED_SHORT_4_4_4_4, r<<12|gr<<8|bl<<4|al
		case [4]int{5, 5, 5, 1}:
			wantType, packed = gl.UNSIGNED_SHORT_5_5_5_1, r<<11|gr<<6|bl<<1|al
		}
		if gl.Enum(rf[0]) != wantFormat || gl.Enum(rt[0]) != wantType {
			t.Errorf("%s: implementation read format %#x type %#x, want %#x %#x", tc.name, rf[0], rt[0], wantFormat, wantType)
		} else if wantType != gl.UNSIGNED_BYTE {
			buf := make([]byte, 8*8*2)
			g.ReadPixels(buf, 0, 0, 8, 8, wantFormat, wantType)
			checkGL(t, ctx, tc.name+": ReadPixels in the implementation format")
			if got := binary.LittleEndian.Uint16(buf[2*27:]); got != packed {
				t.Errorf("%s: packed ReadPixels %#04x, want %#04x", tc.name, got, packed)
			}
		}

		g.Uniform4f(loc, 1.5, -0.5, 0.43, 0.61)
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		check("clamped write", wantRGBA([4]float64{1, 0, 0.43, 0.61}, tc.bits))

		// Ten additive layers of 0.02 onto 0: each layer's sum is stored
		// at the format's precision before the next reads it.
		g.ClearColor(0, 0, 0, 0)
		g.Clear(gl.COLOR_BUFFER_BIT)
		g.Enable(gl.BLEND)
		g.BlendFunc(gl.ONE, gl.ONE)
		g.Uniform4f(loc, 0.02, 0.02, 0.02, 0.02)
		for n := 0; n < 10; n++ {
			g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		}
		var acc [4]float64
		for c, n := range tc.bits {
			if n == 0 {
				continue
			}
			m := float64(int(1)<<n - 1)
			for k := 0; k < 10; k++ {
				acc[c] = math.Floor((acc[c]+0.02)*m+0.5) / m
			}
		}
		check("additive layers", wantRGBA(acc, tc.bits))
		g.Disable(gl.BLEND)
		checkGL(t, ctx, tc.name)
		g.BindFramebuffer(gl.FRAMEBUFFER, gl.Framebuffer{})
	}
}

const texFS = `precision mediump float; uniform sampler2D u_tex; uniform vec4 u_scale, u_bias; varying vec2 v_uv;
void main() { gl_FragColor = texture2D(u_tex, v_uv) * u_scale + u_bias; }`
const texVS = `attribute vec2 a_pos; varying vec2 v_uv; void main() { v_uv = a_pos * 0.5 + 0.5; gl_Position = vec4(a_pos, 0.0, 1.0); }`

// sampleTexture draws the bound TEXTURE_2D over a w×h framebuffer
// (texel centres at pixel centres when the sizes match) and returns the
// pixels, rgba·scale + bias.
func sampleTexture(t *testing.T, ctx *tilegpu.Context, w, h int, scale, bias [4]float32) []byte {
	t.Helper()
	g := ctx.GL()
	p := program(t, g, texVS, texFS)
	g.Uniform1i(g.GetUniformLocation(p, "u_tex"), 0)
	g.Uniform4f(g.GetUniformLocation(p, "u_scale"), scale[0], scale[1], scale[2], scale[3])
	g.Uniform4f(g.GetUniformLocation(p, "u_bias"), bias[0], bias[1], bias[2], bias[3])
	quad(g, -1, 1)
	g.BindFramebuffer(gl.FRAMEBUFFER, gl.Framebuffer{})
	g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	checkGL(t, ctx, "sampling draw")
	return pixels(t, ctx, w, h)
}

func u16le(vs ...uint16) []byte {
	b := make([]byte, 2*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint16(b[2*i:], v)
	}
	return b
}

// TestLowBitTextureSampling: a 16-bit texture rendered to through an FBO
// is sampled back with the bits it stored.
func TestLowBitTextureSampling(t *testing.T) {
	ctx, g := newStack(t, 4, 1, 1)
	tx := g.CreateTexture()
	g.BindTexture(gl.TEXTURE_2D, tx)
	// 4×1 RGB565 texels: red 1/31, green 40/63, blue 31/31, white.
	g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGB, 4, 1, gl.RGB, gl.UNSIGNED_SHORT_5_6_5, u16le(1<<11, 40<<5, 31, 0xFFFF))
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	px := sampleTexture(t, ctx, 4, 1, [4]float32{1, 1, 1, 1}, [4]float32{})
	want := [][4]byte{{expandTo8(1./31, 5), 0, 0, 255}, {0, expandTo8(40./63, 6), 0, 255}, {0, 0, 255, 255}, {255, 255, 255, 255}}
	for i, w := range want {
		if got := [4]byte(px[4*i : 4*i+4]); got != w {
			t.Errorf("texel %d sampled %v, want %v", i, got, w)
		}
	}
}

// TestDepthTexture: OES_depth_texture and OES_packed_depth_stencil.
// Uploaded depth samples as (d, d, d, 1); depth rendered through an FBO
// into a depth texture samples back; a packed depth/stencil texture is
// the stencil attachment too; the extension's restrictions are errors.
func TestDepthTexture(t *testing.T) {
	ctx, g := newStack(t, 4, 1, 1)
	tx := g.CreateTexture()
	g.BindTexture(gl.TEXTURE_2D, tx)
	g.TexImage2D(gl.TEXTURE_2D, 0, gl.DEPTH_COMPONENT, 4, 1, gl.DEPTH_COMPONENT, gl.UNSIGNED_SHORT, u16le(0, 0x4000, 0xC000, 0xFFFF))
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	checkGL(t, ctx, "depth TexImage2D")
	px := sampleTexture(t, ctx, 4, 1, [4]float32{1, 1, 1, 1}, [4]float32{})
	for i, d := range []float64{0, 0x4000 / 65535., 0xC000 / 65535., 1} {
		w := byte(math.Floor(d*255 + 0.5))
		if got := [4]byte(px[4*i : 4*i+4]); got != [4]byte{w, w, w, 255} {
			t.Errorf("depth texel %d sampled %v, want (%d, %d, %d, 255)", i, got, w, w, w)
		}
	}

	// Render depth: a quad whose NDC z runs -1 → 1 across x, depth test
	// ALWAYS, into a 4×1 DEPTH_STENCIL texture; then a stencil-tested
	// colour draw through the same texture as stencil attachment.
	ds := g.CreateTexture()
	g.BindTexture(gl.TEXTURE_2D, ds)
	g.TexImage2D(gl.TEXTURE_2D, 0, gl.DEPTH_STENCIL_OES, 4, 1, gl.DEPTH_STENCIL_OES, gl.UNSIGNED_INT_24_8_OES, nil)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	color := g.CreateRenderbuffer()
	g.BindRenderbuffer(gl.RENDERBUFFER, color)
	g.RenderbufferStorage(gl.RENDERBUFFER, gl.RGBA8_OES, 4, 1)
	fb := g.CreateFramebuffer()
	g.BindFramebuffer(gl.FRAMEBUFFER, fb)
	g.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, color)
	g.FramebufferTexture2D(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.TEXTURE_2D, ds, 0)
	g.FramebufferTexture2D(gl.FRAMEBUFFER, gl.STENCIL_ATTACHMENT, gl.TEXTURE_2D, ds, 0)
	if st := g.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
		t.Fatalf("depth/stencil texture FBO status %#x", st)
	}
	var bits [2]int32
	g.GetIntegerv(bits[:1], gl.DEPTH_BITS)
	g.GetIntegerv(bits[1:], gl.STENCIL_BITS)
	if bits[0] == 0 || bits[1] != 8 {
		t.Errorf("DEPTH_BITS %d STENCIL_BITS %d with a DEPTH_STENCIL texture", bits[0], bits[1])
	}
	p := program(t, g, `attribute vec2 a_pos; void main() { gl_Position = vec4(a_pos, a_pos.x, 1.0); }`, colorFS)
	quad(g, -1, 1)
	g.ClearDepthf(1)
	g.ClearStencil(0)
	g.Clear(gl.DEPTH_BUFFER_BIT | gl.STENCIL_BUFFER_BIT | gl.COLOR_BUFFER_BIT)
	g.Enable(gl.DEPTH_TEST)
	g.DepthFunc(gl.ALWAYS)
	g.Enable(gl.STENCIL_TEST)
	g.StencilFunc(gl.ALWAYS, 5, 0xFF)
	g.StencilOp(gl.KEEP, gl.KEEP, gl.REPLACE)
	g.Uniform4f(g.GetUniformLocation(p, "u_color"), 1, 1, 1, 1)
	quad(g, -1, 0) // left half: stencil 5
	g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	quad(g, -1, 1)
	g.StencilFunc(gl.EQUAL, 5, 0xFF)
	g.StencilOp(gl.KEEP, gl.KEEP, gl.KEEP)
	g.Disable(gl.DEPTH_TEST)
	g.Uniform4f(g.GetUniformLocation(p, "u_color"), 0, 1, 0, 1)
	g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	checkGL(t, ctx, "depth/stencil texture draws")
	px = pixels(t, ctx, 4, 1)
	for i := 0; i < 4; i++ {
		want := [4]byte{0, 0, 0, 0} // cleared, stencil 0: not drawn
		if i < 2 {
			want = [4]byte{0, 255, 0, 255}
		}
		if got := [4]byte(px[4*i : 4*i+4]); got != want {
			t.Errorf("stencil through the texture: pixel %d = %v, want %v", i, got, want)
		}
	}
	g.Disable(gl.STENCIL_TEST)
	// Sample the depth the left half wrote: window z = (x_ndc+1)/2 at the
	// pixel centres x_ndc = -0.75, -0.25; the right half kept the clear (1).
	g.BindTexture(gl.TEXTURE_2D, ds)
	px = sampleTexture(t, ctx, 4, 1, [4]float32{1, 1, 1, 1}, [4]float32{})
	for i, d := range []float64{0.125, 0.375, 1, 1} {
		w := float64(px[4*i])
		if math.Abs(w-d*255) > 1 || px[4*i+1] != px[4*i] || px[4*i+3] != 255 {
			t.Errorf("rendered depth texel %d sampled %v, want about %.1f", i, px[4*i:4*i+4], d*255)
		}
	}

	// Restrictions of OES_depth_texture.
	for _, tc := range []struct {
		name string
		call func()
		want gl.Enum
	}{
		{"level 1", func() {
			g.TexImage2D(gl.TEXTURE_2D, 1, gl.DEPTH_COMPONENT, 2, 1, gl.DEPTH_COMPONENT, gl.UNSIGNED_SHORT, nil)
		}, gl.INVALID_OPERATION},
		{"cube face", func() {
			c := g.CreateTexture()
			g.BindTexture(gl.TEXTURE_CUBE_MAP, c)
			g.TexImage2D(gl.TEXTURE_CUBE_MAP_POSITIVE_X, 0, gl.DEPTH_COMPONENT, 2, 2, gl.DEPTH_COMPONENT, gl.UNSIGNED_INT, nil)
		}, gl.INVALID_OPERATION},
		{"depth with UNSIGNED_BYTE", func() {
			g.TexImage2D(gl.TEXTURE_2D, 0, gl.DEPTH_COMPONENT, 2, 1, gl.DEPTH_COMPONENT, gl.UNSIGNED_BYTE, nil)
		}, gl.INVALID_OPERATION},
		{"DEPTH_STENCIL with UNSIGNED_SHORT", func() {
			g.TexImage2D(gl.TEXTURE_2D, 0, gl.DEPTH_STENCIL_OES, 2, 1, gl.DEPTH_STENCIL_OES, gl.UNSIGNED_SHORT, nil)
		}, gl.INVALID_OPERATION},
		{"RGBA with UNSIGNED_INT", func() {
			g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 2, 1, gl.RGBA, gl.UNSIGNED_INT, nil)
		}, gl.INVALID_OPERATION},
		{"GenerateMipmap", func() {
			g.BindTexture(gl.TEXTURE_2D, tx)
			g.GenerateMipmap(gl.TEXTURE_2D)
		}, gl.INVALID_OPERATION},
	} {
		tc.call()
		if e := g.GetError(); e != tc.want {
			t.Errorf("%s: error %#x, want %#x", tc.name, e, tc.want)
		}
	}
	// A depth texture is no colour attachment.
	g.BindFramebuffer(gl.FRAMEBUFFER, fb)
	g.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tx, 0)
	if st := g.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_INCOMPLETE_ATTACHMENT {
		t.Errorf("depth texture as colour attachment: status %#x", st)
	}
	g.BindFramebuffer(gl.FRAMEBUFFER, gl.Framebuffer{})
}

// TestHalfFloatTexture: OES_texture_half_float keeps values outside [0,1]
// (read through scale and bias), filters them linearly
// (OES_texture_half_float_linear), expands LUMINANCE, and is not
// colour-renderable.
func TestHalfFloatTexture(t *testing.T) {
	ctx, g := newStack(t, 4, 1, 1)
	h := func(x float32) uint16 { // exact for these values
		switch x {
		case 2:
			return 0x4000
		case -1:
			return 0xBC00
		case 0.5:
			return 0x3800
		case 1:
			return 0x3C00
		case -2:
			return 0xC000
		case 4:
			return 0x4400
		}
		return 0
	}
	tx := g.CreateTexture()
	g.BindTexture(gl.TEXTURE_2D, tx)
	g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 4, 1, gl.RGBA, 0x8D61, u16le(
		h(2), h(-1), h(0.5), h(1), h(-2), h(4), h(0), h(0.5), h(1), h(1), h(1), h(1), h(0), h(0), h(0), h(0)))
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
	checkGL(t, ctx, "half-float TexImage2D")
	// rgba·0.125 + 0.5: texel 0 → (0.75, 0.375, 0.5625, 0.625).
	scale, bias := [4]float32{0.125, 0.125, 0.125, 0.125}, [4]float32{0.5, 0.5, 0.5, 0.5}
	px := sampleTexture(t, ctx, 4, 1, scale, bias)
	b := func(v float64) byte { return byte(math.Floor(v*255 + 0.5)) }
	for i, w := range [][4]float64{{2, -1, 0.5, 1}, {-2, 4, 0, 0.5}, {1, 1, 1, 1}, {0, 0, 0, 0}} {
		want := [4]byte{b(w[0]/8 + 0.5), b(w[1]/8 + 0.5), b(w[2]/8 + 0.5), b(w[3]/8 + 0.5)}
		if got := [4]byte(px[4*i : 4*i+4]); got != want {
			t.Errorf("half texel %d sampled %v, want %v", i, got, want)
		}
	}
	// Linear: the midpoint of texels 0 and 1 (shifted by half a pixel
	// through a 2-texel-wide draw is awkward; instead magnify 4 texels to
	// 4 pixels with LINEAR: pixel 0 and texel 0 share their centre).
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR)
	g.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, 4, 1, gl.RGBA, 0x8D61, u16le(
		h(4), h(4), h(4), h(4), h(-2), h(-2), h(-2), h(-2), h(4), h(4), h(4), h(4), h(-2), h(-2), h(-2), h(-2)))
	checkGL(t, ctx, "half-float TexSubImage2D")
	px = sampleTexture(t, ctx, 4, 1, scale, bias)
	if px[0] != b(4./8+0.5) || px[4] != b(-2./8+0.5) {
		t.Errorf("linear half texels at their centres: %d %d", px[0], px[4])
	}
	// LUMINANCE expands to (L, L, L, 1).
	g.TexImage2D(gl.TEXTURE_2D, 0, gl.LUMINANCE, 1, 1, gl.LUMINANCE, 0x8D61, u16le(h(-2)))
	px = sampleTexture(t, ctx, 4, 1, scale, bias)
	if got := [4]byte(px[:4]); got != [4]byte{b(0.25), b(0.25), b(0.25), b(0.625)} {
		t.Errorf("half LUMINANCE sampled %v", got)
	}
	// Not colour-renderable.
	fb := g.CreateFramebuffer()
	g.BindFramebuffer(gl.FRAMEBUFFER, fb)
	g.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tx, 0)
	if st := g.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_INCOMPLETE_ATTACHMENT {
		t.Errorf("half-float texture as colour attachment: status %#x", st)
	}
	g.BindFramebuffer(gl.FRAMEBUFFER, gl.Framebuffer{})
	// BGRA with HALF_FLOAT is no valid pair.
	g.TexImage2D(gl.TEXTURE_2D, 0, 0x80E1, 1, 1, 0x80E1, 0x8D61, nil)
	if e := g.GetError(); e != gl.INVALID_OPERATION {
		t.Errorf("BGRA half float: error %#x, want INVALID_OPERATION", e)
	}
}

// TestSizedBGRA8Texture: TexImage2D accepts the sized BGRA8_EXT internal
// format with BGRA_EXT data, and the texture is colour-renderable.
func TestSizedBGRA8Texture(t *testing.T) {
	ctx, g := newStack(t, 4, 4, 1)
	tx := g.CreateTexture()
	g.BindTexture(gl.TEXTURE_2D, tx)
	g.TexImage2D(gl.TEXTURE_2D, 0, 0x93A1, 4, 4, 0x80E1, gl.UNSIGNED_BYTE, nil)
	checkGL(t, ctx, "TexImage2D BGRA8_EXT")
	fb := g.CreateFramebuffer()
	g.BindFramebuffer(gl.FRAMEBUFFER, fb)
	g.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tx, 0)
	if st := g.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
		t.Errorf("BGRA8_EXT texture: status %#x", st)
	}
	// BGRA8_EXT with RGBA data is a mismatch.
	g.TexImage2D(gl.TEXTURE_2D, 0, 0x93A1, 4, 4, gl.RGBA, gl.UNSIGNED_BYTE, nil)
	if e := g.GetError(); e != gl.INVALID_VALUE && e != gl.INVALID_OPERATION {
		t.Errorf("BGRA8_EXT with RGBA data: error %#x", e)
	}
}

// TestFboColorAttachmentsNV: COLOR_ATTACHMENT1..3 (NV_fbo_color_attachments)
// take part in completeness and queries; drawing goes to attachment 0.
func TestFboColorAttachmentsNV(t *testing.T) {
	ctx, g := newStack(t, 4, 4, 1)
	var maxAtt [1]int32
	g.GetIntegerv(maxAtt[:], 0x8CDF)
	checkGL(t, ctx, "MAX_COLOR_ATTACHMENTS_NV")
	if maxAtt[0] != 4 {
		t.Fatalf("MAX_COLOR_ATTACHMENTS_NV %d", maxAtt[0])
	}
	rb := func(f gl.Enum, w, h int) gl.Renderbuffer {
		r := g.CreateRenderbuffer()
		g.BindRenderbuffer(gl.RENDERBUFFER, r)
		g.RenderbufferStorage(gl.RENDERBUFFER, f, w, h)
		return r
	}
	c0, c1 := rb(gl.RGBA8_OES, 4, 4), rb(gl.RGB565, 4, 4)
	fb := g.CreateFramebuffer()
	g.BindFramebuffer(gl.FRAMEBUFFER, fb)
	g.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, c0)
	g.FramebufferRenderbuffer(gl.FRAMEBUFFER, 0x8CE1, gl.RENDERBUFFER, c1)
	if st := g.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
		t.Fatalf("two colour attachments: status %#x", st)
	}
	if name := g.GetFramebufferAttachmentParameteri(gl.FRAMEBUFFER, 0x8CE1, gl.FRAMEBUFFER_ATTACHMENT_OBJECT_NAME); name != int(c1.Value) {
		t.Errorf("attachment 1 names %d, want %d", name, c1.Value)
	}
	g.ClearColor(0, 1, 0, 1)
	g.Clear(gl.COLOR_BUFFER_BIT)
	if px := pixels(t, ctx, 4, 4); [4]byte(px[:4]) != [4]byte{0, 255, 0, 255} {
		t.Errorf("attachment 0 after clear: %v", px[:4])
	}
	// A depth format on a colour attachment, or a size mismatch, is incomplete.
	g.FramebufferRenderbuffer(gl.FRAMEBUFFER, 0x8CE3, gl.RENDERBUFFER, rb(gl.DEPTH_COMPONENT16, 4, 4))
	if st := g.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_INCOMPLETE_ATTACHMENT {
		t.Errorf("depth renderbuffer on COLOR_ATTACHMENT3: status %#x", st)
	}
	g.FramebufferRenderbuffer(gl.FRAMEBUFFER, 0x8CE3, gl.RENDERBUFFER, rb(gl.RGBA4, 2, 4))
	if st := g.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_INCOMPLETE_DIMENSIONS {
		t.Errorf("2×4 COLOR_ATTACHMENT3 beside 4×4: status %#x", st)
	}
	// COLOR_ATTACHMENT4 is beyond the maximum.
	g.FramebufferRenderbuffer(gl.FRAMEBUFFER, 0x8CE4, gl.RENDERBUFFER, c1)
	if e := g.GetError(); e != gl.INVALID_ENUM {
		t.Errorf("COLOR_ATTACHMENT4: error %#x, want INVALID_ENUM", e)
	}
	g.BindFramebuffer(gl.FRAMEBUFFER, gl.Framebuffer{})
}

// TestMixedTypeMipLevels: a mip chain whose levels use half-float and
// UNSIGNED_BYTE types of one format is complete (ES 2.0 compares formats,
// not types); the other levels are converted into level 0's storage.
func TestMixedTypeMipLevels(t *testing.T) {
	ctx, g := newStack(t, 2, 1, 1)
	p := program(t, g, texVS, `precision mediump float; uniform sampler2D u_tex; varying vec2 v_uv;
void main() { gl_FragColor = texture2D(u_tex, v_uv, 10.0); }`) // bias: the last level
	g.Uniform1i(g.GetUniformLocation(p, "u_tex"), 0)
	quad(g, -1, 1)
	const quarter = 0x3400 // 0.25 as binary16
	for _, tc := range []struct {
		name   string
		define func()
		want   byte
	}{
		{"bytes, then half level 1", func() {
			g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 2, 2, gl.RGBA, gl.UNSIGNED_BYTE, make([]byte, 16))
			g.TexImage2D(gl.TEXTURE_2D, 1, gl.RGBA, 1, 1, gl.RGBA, 0x8D61, u16le(quarter, quarter, quarter, quarter))
		}, 64},
		{"half, then byte level 1", func() {
			g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 2, 2, gl.RGBA, 0x8D61, make([]byte, 32))
			g.TexImage2D(gl.TEXTURE_2D, 1, gl.RGBA, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, []byte{128, 128, 128, 128})
		}, 128},
		{"half level 1 first, then byte level 0", func() {
			g.TexImage2D(gl.TEXTURE_2D, 1, gl.RGBA, 1, 1, gl.RGBA, 0x8D61, u16le(quarter, quarter, quarter, quarter))
			g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 2, 2, gl.RGBA, gl.UNSIGNED_BYTE, make([]byte, 16))
		}, 64},
	} {
		tx := g.CreateTexture()
		g.BindTexture(gl.TEXTURE_2D, tx)
		g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST_MIPMAP_NEAREST)
		g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
		tc.define()
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		checkGL(t, ctx, tc.name)
		if px := pixels(t, ctx, 2, 1); [4]byte(px[:4]) != [4]byte{tc.want, tc.want, tc.want, tc.want} {
			t.Errorf("%s: sampled %v, want %d (an incomplete texture reads 0, 0, 0, 255)", tc.name, px[:4], tc.want)
		}
	}
}

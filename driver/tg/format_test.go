package tg

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/pipe"
)

// TestColorTargetFormats: a job's colour target carries the resource's
// format and row pitch; a format the tile buffer cannot render is refused.
func TestColorTargetFormats(t *testing.T) {
	for _, tt := range []struct {
		f      pipe.Format
		want   cl.ColorFormat
		stride uint32
	}{
		{pipe.FormatRGBA8, cl.ColorFormatRGBA8888, 33 * 4},
		{pipe.FormatRGBX8, cl.ColorFormatRGBX8888, 33 * 4},
		{pipe.FormatRGB565, cl.ColorFormatRGB565, 33 * 2},
		{pipe.FormatRGBA4, cl.ColorFormatRGBA4444, 33 * 2},
		{pipe.FormatRGB5A1, cl.ColorFormatRGBA5551, 33 * 2},
	} {
		r := newRig(t, "fs")
		color, err := r.s.newResource(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: tt.f, Width: 33, Height: 5, Levels: 1})
		if err != nil {
			t.Fatal(err)
		}
		r.c.SetFramebufferState(&pipe.FramebufferState{Width: 33, Height: 5, Color: pipe.Surface{Resource: color}})
		r.c.Clear(pipe.ClearColor, [4]float32{1, 0, 0, 1}, 1, 0)
		if _, err := r.c.Flush(); err != nil {
			t.Fatal(err)
		}
		if len(r.ws.submits) != 1 {
			t.Fatalf("format %d: %d submissions", tt.f, len(r.ws.submits))
		}
		if got := r.ws.submits[0].Color; got.Format != tt.want || got.Stride != tt.stride {
			t.Errorf("format %d: colour target format %d stride %d, want %d and %d", tt.f, got.Format, got.Stride, tt.want, tt.stride)
		}
	}
	r := newRig(t, "fs")
	half, err := r.s.newResource(pipe.ResourceTemplate{Target: pipe.TargetTexture2D, Format: pipe.FormatRGBA16F, Width: 4, Height: 4, Levels: 1})
	if err != nil {
		t.Fatal(err)
	}
	r.c.SetFramebufferState(&pipe.FramebufferState{Width: 4, Height: 4, Color: pipe.Surface{Resource: half}})
	r.c.Clear(pipe.ClearColor, [4]float32{1, 0, 0, 1}, 1, 0)
	if _, err := r.c.Flush(); err == nil || !strings.Contains(err.Error(), "not a colour render target") {
		t.Errorf("rendering to RGBA16F: %v", err)
	}
}

// TestTextureDescriptorFormats: sampler views name the TMU format of
// their resource; a depth/stencil resource is sampled as DEPTH24.
func TestTextureDescriptorFormats(t *testing.T) {
	for _, tt := range []struct {
		f    pipe.Format
		want cl.TextureFormat
	}{
		{pipe.FormatRGBA8, cl.TextureFormatRGBA8888},
		{pipe.FormatRGBX8, cl.TextureFormatRGBA8888},
		{pipe.FormatRGB565, cl.TextureFormatRGB565},
		{pipe.FormatRGBA4, cl.TextureFormatRGBA4444},
		{pipe.FormatRGB5A1, cl.TextureFormatRGBA5551},
		{pipe.FormatZ24S8, cl.TextureFormatDepth24},
		{pipe.FormatRGBA16F, cl.TextureFormatRGBA16F},
	} {
		r := newRig(t, "tex")
		tex, err := r.s.newResource(pipe.ResourceTemplate{Target: pipe.TargetTexture2D, Format: tt.f, Width: 8, Height: 8, Levels: 4})
		if err != nil {
			t.Fatal(err)
		}
		r.c.SetSamplerViews([]pipe.SamplerView{r.c.CreateSamplerView(tex, pipe.SamplerViewTemplate{Levels: 4, Swizzle: pipe.IdentitySwizzle})})
		r.c.BindSamplerStates([]pipe.SamplerHandle{r.c.CreateSamplerState(&pipe.SamplerState{MinFilter: pipe.FilterLinearMipmapLinear, MagFilter: pipe.FilterLinear})})
		if err := r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.c.Flush(); err != nil {
			t.Fatal(err)
		}
		s := r.ws.submits[len(r.ws.submits)-1]
		found := false
		for _, rl := range s.Relocs {
			if rl.Space == SpaceUniforms && rl.Target == TargetBO && s.BOs[rl.BOIndex].Handle == tex.bo.Handle {
				var td cl.TextureDescriptor
				if err := td.Unpack(s.Uniforms[rl.Offset:]); err != nil {
					t.Fatal(err)
				}
				if td.Format != tt.want || td.Levels != 4 {
					t.Errorf("format %d: descriptor format %d levels %d, want %d and 4", tt.f, td.Format, td.Levels, tt.want)
				}
				found = true
			}
		}
		if !found {
			t.Fatalf("format %d: no texture descriptor addressing the texture", tt.f)
		}
	}
}

// TestGenerateMipmapFormats: the box filter works in each colour format
// (16-bit formats rounded back to their bits, half floats unclamped).
func TestGenerateMipmapFormats(t *testing.T) {
	r := newRig(t, "fs")
	u16 := func(vs ...uint16) []byte {
		b := make([]byte, 2*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint16(b[2*i:], v)
		}
		return b
	}
	h := pipe.FloatToHalf
	for _, tt := range []struct {
		f          pipe.Format
		level0     []byte // 2×2
		wantLevel1 []byte
	}{
		// R: 31, 0, 31, 0 → 15.5·255/31 = 127.5 → 128 at 8 bits → round(128·31/255) = 16.
		{pipe.FormatRGB565, u16(0xF800, 0, 0xF800, 0), u16(16 << 11)},
		{pipe.FormatRGBA4, u16(0xF00F, 0x0F0F, 0x00FF, 0x000F), u16(0x444F)},
		{pipe.FormatRGBA16F, u16(h(4), h(-2), 0, h(1), h(0), h(2), 0, h(1), h(4), h(0), 0, h(1), h(0), h(0), h(8), h(1)),
			u16(h(2), h(0), h(2), h(1))},
	} {
		tex, err := r.s.newResource(pipe.ResourceTemplate{Target: pipe.TargetTexture2D, Format: tt.f, Width: 2, Height: 2, Levels: 2})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.c.TextureWrite(tex, 0, 0, 0, 0, 2, 2, tt.level0); err != nil {
			t.Fatal(err)
		}
		if err := r.c.GenerateMipmap(tex, 0); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(tt.wantLevel1))
		if err := r.c.ResourceRead(tex, 0, 1, 0, 0, 1, 1, got); err != nil {
			t.Fatal(err)
		}
		if string(got) != string(tt.wantLevel1) {
			t.Errorf("format %d: level 1 = %x, want %x", tt.f, got, tt.wantLevel1)
		}
	}
	zs, _ := r.s.newResource(pipe.ResourceTemplate{Target: pipe.TargetTexture2D, Format: pipe.FormatZ24S8, Width: 2, Height: 2, Levels: 2})
	if err := r.c.GenerateMipmap(zs, 0); err == nil {
		t.Error("GenerateMipmap of a depth texture succeeded")
	}
}

// TestClearColorRoundsOnce: the clear colour of a low-bit target is
// rounded once to the target's bits. R = 0.11216 in 5 bits is level 3
// (3.477); rounded to 8 bits first (29) it would become level 4.
func TestClearColorRoundsOnce(t *testing.T) {
	r := newRig(t, "fs")
	color, err := r.s.newResource(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: pipe.FormatRGB565, Width: 4, Height: 4, Levels: 1})
	if err != nil {
		t.Fatal(err)
	}
	r.c.SetFramebufferState(&pipe.FramebufferState{Width: 4, Height: 4, Color: pipe.Surface{Resource: color}})
	r.c.Clear(pipe.ClearColor, [4]float32{0.11216, 1, 0.5, 0.25}, 1, 0)
	if _, err := r.c.Flush(); err != nil {
		t.Fatal(err)
	}
	// R: level 3 → round(3·255/31) = 25; G: 255; B: level round(15.5) = 16
	// → round(16·255/31) = 132; A: no bits → 255.
	if got, want := r.ws.submits[0].ClearColor, uint32(25|255<<8|132<<16|255<<24); got != want {
		t.Errorf("clear colour %#08x, want %#08x", got, want)
	}
}

package gles

import (
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// OES_required_internalformat: sized internal formats specify textures
// from the format/type combinations of the extension's table 3.3 (dEQP's
// clip_control depth-mode cases create their read-back texture with
// RGBA8); other combinations are INVALID_OPERATION, unknown formats
// INVALID_VALUE.
func TestSizedInternalFormats(t *testing.T) {
	c, _ := newTestContext(t)
	tex := c.CreateTexture()
	c.BindTexture(gl.TEXTURE_2D, tex)
	tests := []struct {
		ifmt       gl.Enum
		format, ty gl.Enum
		data       []byte
		want       gl.Enum
		bits       [4]int // RED..ALPHA_BITS of the image as a colour attachment (0: not checked)
	}{
		{gl.RGBA8_OES, gl.RGBA, gl.UNSIGNED_BYTE, []byte{1, 2, 3, 4}, gl.NO_ERROR, [4]int{8, 8, 8, 8}},
		{gl.RGB8_OES, gl.RGB, gl.UNSIGNED_BYTE, []byte{1, 2, 3}, gl.NO_ERROR, [4]int{8, 8, 8, 0}},
		{gl.RGB565, gl.RGB, gl.UNSIGNED_SHORT_5_6_5, []byte{0, 0}, gl.NO_ERROR, [4]int{5, 6, 5, 0}},
		{gl.RGBA4, gl.RGBA, gl.UNSIGNED_BYTE, []byte{1, 2, 3, 4}, gl.NO_ERROR, [4]int{8, 8, 8, 8}}, // at least 4 bits each
		{luminance8OES, gl.LUMINANCE, gl.UNSIGNED_BYTE, []byte{7}, gl.NO_ERROR, [4]int{}},
		{gl.DEPTH_COMPONENT16, gl.DEPTH_COMPONENT, gl.UNSIGNED_SHORT, []byte{0, 0}, gl.NO_ERROR, [4]int{}},
		{gl.RGBA8_OES, gl.RGB, gl.UNSIGNED_BYTE, []byte{1, 2, 3}, gl.INVALID_OPERATION, [4]int{}},
		{gl.RGB565, gl.RGB, gl.UNSIGNED_SHORT_4_4_4_4, []byte{0, 0}, gl.INVALID_OPERATION, [4]int{}},
		{gl.DEPTH24_STENCIL8_OES, gl.DEPTH_COMPONENT, gl.UNSIGNED_INT, []byte{0, 0, 0, 0}, gl.INVALID_OPERATION, [4]int{}},
		{0x8059 /* RGB10_A2: not in ES 2.0's table */, gl.RGBA, gl.UNSIGNED_BYTE, []byte{1, 2, 3, 4}, gl.INVALID_VALUE, [4]int{}},
		{0x81A7 /* DEPTH_COMPONENT32_OES: needs OES_depth32 */, gl.DEPTH_COMPONENT, gl.UNSIGNED_INT, []byte{0, 0, 0, 0}, gl.INVALID_VALUE, [4]int{}},
	}
	fb := c.CreateFramebuffer()
	for _, tc := range tests {
		c.BindFramebuffer(gl.FRAMEBUFFER, gl.Framebuffer{})
		c.TexImage2D(gl.TEXTURE_2D, 0, int(tc.ifmt), 1, 1, tc.format, tc.ty, tc.data)
		if e := c.GetError(); e != tc.want {
			t.Errorf("TexImage2D(%#x, %#x, %#x): error %#x, want %#x", tc.ifmt, tc.format, tc.ty, e, tc.want)
			continue
		}
		if tc.bits == [4]int{} {
			continue
		}
		c.BindFramebuffer(gl.FRAMEBUFFER, fb)
		c.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0)
		if st := c.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
			t.Errorf("%#x texture as colour attachment: status %#x", tc.ifmt, st)
			continue
		}
		var got [4]int
		for i, p := range []gl.Enum{gl.RED_BITS, gl.GREEN_BITS, gl.BLUE_BITS, gl.ALPHA_BITS} {
			got[i] = c.GetInteger(p)
		}
		if got != tc.bits {
			t.Errorf("%#x texture: RED..ALPHA_BITS %v, want %v", tc.ifmt, got, tc.bits)
		}
	}
	if !c.hasExtension("GL_OES_required_internalformat") {
		t.Error("extension not advertised")
	}
}

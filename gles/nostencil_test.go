package gles

import (
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// A default framebuffer whose Z24S8 buffer is depth only (an EGL config
// with depth 24 and stencil 0) has no stencil buffer as far as GL goes.
func TestDefaultFramebufferWithoutStencil(t *testing.T) {
	for _, tc := range []struct {
		noStencil   bool
		stencilBits int
		stencilTest bool
	}{
		{noStencil: false, stencilBits: 8, stencilTest: true},
		{noStencil: true, stencilBits: 0, stencilTest: false},
	} {
		c, _ := newTestContext(t)
		dfb := c.dfb
		dfb.NoStencil = tc.noStencil
		c.SetDefaultFramebuffer(dfb)
		if got := c.GetInteger(gl.STENCIL_BITS); got != tc.stencilBits {
			t.Errorf("NoStencil=%v: STENCIL_BITS %d, want %d", tc.noStencil, got, tc.stencilBits)
		}
		if got := c.GetInteger(gl.DEPTH_BITS); got != 24 {
			t.Errorf("NoStencil=%v: DEPTH_BITS %d, want 24", tc.noStencil, got)
		}
		c.Enable(gl.STENCIL_TEST)
		if got := c.dsaState().StencilEnable; got != tc.stencilTest {
			t.Errorf("NoStencil=%v: stencil test enabled in the hardware state: %v, want %v", tc.noStencil, got, tc.stencilTest)
		}
		c.Destroy()
	}
}

package gles

import (
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

func TestBGRATextureAndRenderbuffer(t *testing.T) {
	c, _ := newTestContext(t)
	tex := c.CreateTexture()
	c.BindTexture(gl.TEXTURE_2D, tex)
	c.TexImage2D(gl.TEXTURE_2D, 0, int(bgraEXT), 2, 1, bgraEXT, gl.UNSIGNED_BYTE, []byte{10, 20, 30, 40, 50, 60, 70, 80})
	c.TexImage2D(gl.TEXTURE_2D, 1, int(bgraEXT), 1, 1, bgraEXT, gl.UNSIGNED_SHORT_4_4_4_4, []byte{0, 0})
	if e := c.GetError(); e != gl.INVALID_OPERATION {
		t.Errorf("BGRA with a packed type: error %#x, want INVALID_OPERATION", e)
	}
	fb := c.CreateFramebuffer()
	c.BindFramebuffer(gl.FRAMEBUFFER, fb)
	c.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0)
	if st := c.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
		t.Fatalf("BGRA texture attachment: status %#x", st)
	}
	px := make([]byte, 8)
	c.ReadPixels(px, 0, 0, 2, 1, gl.RGBA, gl.UNSIGNED_BYTE)
	if want := []byte{30, 20, 10, 40, 70, 60, 50, 80}; string(px) != string(want) {
		t.Errorf("BGRA texels read back as RGBA %v, want %v", px, want)
	}
	for _, f := range []gl.Enum{bgraEXT, bgra8EXT} {
		rb := c.CreateRenderbuffer()
		c.BindRenderbuffer(gl.RENDERBUFFER, rb)
		c.RenderbufferStorage(gl.RENDERBUFFER, f, 4, 4)
		c.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, rb)
		if st := c.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE || c.GetRenderbufferParameteri(gl.RENDERBUFFER, gl.RENDERBUFFER_ALPHA_SIZE) != 8 {
			t.Errorf("BGRA renderbuffer %#x: status %#x", f, st)
		}
	}
	if e := c.GetError(); e != gl.NO_ERROR {
		t.Errorf("error %#x", e)
	}
	if !c.hasExtension("GL_EXT_texture_format_BGRA8888") {
		t.Error("extension not advertised")
	}
}

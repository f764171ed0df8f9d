package cmdbuf

import (
	"bytes"
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// TestAsyncTokensAcrossWrap: async tokens are ordinary tokens, so they
// order correctly across the 2^31 wrap: uploads issued on both sides of it
// each pass only when waited for (or when a later token is), and the
// texture, read back through a framebuffer, holds the last upload. The
// 4 KiB transfer buffer makes each 32×32 RGBA upload go in bands whose
// blocks are freed pending tokens across the wrap.
func TestAsyncTokensAcrossWrap(t *testing.T) {
	s, err := NewService(ServiceConfig{MemorySize: 64 << 20, Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tr, _ := NewInProcess(s)
	c, err := NewClient(tr, Options{Width: 1, Height: 1, TransferSize: 4096, MaxTransferSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const size = 32
	tex := c.CreateTexture()
	c.BindTexture(gl.TEXTURE_2D, tex)
	c.TexImage2D(gl.TEXTURE_2D, 0, int(gl.RGBA), size, size, gl.RGBA, gl.UNSIGNED_BYTE, nil)
	fb := c.CreateFramebuffer()
	c.BindFramebuffer(gl.FRAMEBUFFER, fb)
	c.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0)
	c.Finish()

	c.token = tokenMask - 20
	c.lastToken = c.token
	px := make([]byte, size*size*4)
	var toks []uint32
	for i := range 12 {
		for j := range px {
			px[j] = byte(i*31 + j)
		}
		tok := c.AsyncTexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, size, size, gl.RGBA, gl.UNSIGNED_BYTE, px)
		if c.TokenPassed(tok) {
			t.Fatalf("upload %d: token %d passed before the service saw it (last %d)", i, tok, c.lastToken)
		}
		toks = append(toks, tok)
		if i == 5 {
			c.WaitForToken(tok)
			for _, old := range toks {
				if !c.TokenPassed(old) {
					t.Errorf("token %d not passed after waiting for the later %d", old, tok)
				}
			}
		}
	}
	if toks[0] < tokenMask-20 || toks[len(toks)-1] > 1000 {
		t.Fatalf("tokens %v do not cross the 2^31 wrap", toks)
	}
	last := toks[len(toks)-1]
	c.WaitForToken(last)
	for _, tk := range toks {
		if !c.TokenPassed(tk) {
			t.Errorf("token %d not passed after waiting for %d", tk, last)
		}
	}
	got := make([]byte, len(px))
	c.ReadPixels(got, 0, 0, size, size, gl.RGBA, gl.UNSIGNED_BYTE)
	if !bytes.Equal(got, px) {
		t.Error("the texture does not hold the last asynchronous upload")
	}
	if e := c.GetError(); e != gl.NO_ERROR || c.Err() != nil {
		t.Fatalf("GL error 0x%x, %v", e, c.Err())
	}
}

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

// TestAsyncUploadIsDeferred: an upload that needs conversion is handed to
// a worker (the decoder does not store it within its command), commands
// that cannot observe textures run while it is pending, and the next
// command that can observe one stores it first. The decoder is driven
// directly while its session is idle.
func TestAsyncUploadIsDeferred(t *testing.T) {
	s, err := NewService(ServiceConfig{MemorySize: 64 << 20, Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tr, _ := NewInProcess(s)
	c, err := NewClient(tr, Options{Width: 1, Height: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const size = 16
	tex := c.CreateTexture()
	c.BindTexture(gl.TEXTURE_2D, tex)
	c.TexImage2D(gl.TEXTURE_2D, 0, int(gl.RGB), size, size, gl.RGB, gl.UNSIGNED_BYTE, nil)
	fb := c.CreateFramebuffer()
	c.BindFramebuffer(gl.FRAMEBUFFER, fb)
	c.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0)
	c.Finish() // the session is idle and every transfer-buffer block free

	s.mu.Lock()
	var d *decoder
	for _, ss := range s.sessions {
		d = ss.dec
	}
	s.mu.Unlock()
	rgb := c.tb.mem[:size*size*3]
	want := make([]byte, 0, size*size*4)
	for i := range size * size {
		rgb[3*i], rgb[3*i+1], rgb[3*i+2] = byte(i), byte(i*3), byte(i*7)
		want = append(want, byte(i), byte(i*3), byte(i*7), 255)
	}
	upload := []uint32{header(12, CmdAsyncTexSubImage2D), uint32(gl.TEXTURE_2D), 0, 0, 0, size, size,
		uint32(gl.RGB), uint32(gl.UNSIGNED_BYTE), uint32(len(rgb)), c.tb.id, 0}
	if err := d.execute(CmdAsyncTexSubImage2D, upload); err != nil {
		t.Fatal(err)
	}
	if n := len(d.async.pending); n != 1 {
		t.Fatalf("%d uploads pending after the command, want 1 (handed to a worker)", n)
	}
	clearColor := []uint32{header(5, CmdClearColor), 0, 0, 0, 0}
	if err := d.execute(CmdClearColor, clearColor); err != nil {
		t.Fatal(err)
	}
	if n := len(d.async.pending); n != 1 {
		t.Fatalf("%d uploads pending after ClearColor, want 1", n)
	}
	// What process does before a command that may observe a texture.
	if asyncIndependent[CmdReadPixels] || asyncIndependent[CmdDrawArrays] || asyncIndependent[CmdClear] {
		t.Fatal("ReadPixels, DrawArrays or Clear would run with uploads pending")
	}
	d.finishUploads()
	if n := len(d.async.pending); n != 0 {
		t.Fatalf("%d uploads pending after finishUploads", n)
	}
	got := make([]byte, len(want))
	c.ReadPixels(got, 0, 0, size, size, gl.RGBA, gl.UNSIGNED_BYTE)
	if !bytes.Equal(got, want) {
		t.Error("the texture does not hold the converted upload")
	}
	if e := c.GetError(); e != gl.NO_ERROR || c.Err() != nil {
		t.Fatalf("GL error 0x%x, %v", e, c.Err())
	}

	// An upload in the stored layout is stored at once, but after the
	// pending ones: into an RGBA image, a 4-4-4-4 upload (converted on a
	// worker) and then an RGBA/UNSIGNED_BYTE one of the same rectangle
	// leave the second's pixels.
	tex2 := c.CreateTexture()
	c.BindTexture(gl.TEXTURE_2D, tex2)
	c.TexImage2D(gl.TEXTURE_2D, 0, int(gl.RGBA), size, size, gl.RGBA, gl.UNSIGNED_BYTE, nil)
	c.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex2, 0)
	c.Finish()
	packed := c.tb.mem[:size*size*2]
	for i := range packed {
		packed[i] = byte(i * 5)
	}
	rgba := c.tb.mem[4096 : 4096+size*size*4]
	for i := range rgba {
		rgba[i] = byte(255 - i)
	}
	want = append(want[:0], rgba...)
	first := []uint32{header(12, CmdAsyncTexSubImage2D), uint32(gl.TEXTURE_2D), 0, 0, 0, size, size,
		uint32(gl.RGBA), uint32(gl.UNSIGNED_SHORT_4_4_4_4), uint32(len(packed)), c.tb.id, 0}
	second := []uint32{header(12, CmdAsyncTexSubImage2D), uint32(gl.TEXTURE_2D), 0, 0, 0, size, size,
		uint32(gl.RGBA), uint32(gl.UNSIGNED_BYTE), uint32(len(rgba)), c.tb.id, 4096}
	if err := d.execute(CmdAsyncTexSubImage2D, first); err != nil {
		t.Fatal(err)
	}
	if n := len(d.async.pending); n != 1 {
		t.Fatalf("%d uploads pending after a 4-4-4-4 upload, want 1", n)
	}
	if err := d.execute(CmdAsyncTexSubImage2D, second); err != nil {
		t.Fatal(err)
	}
	if n := len(d.async.pending); n != 0 {
		t.Fatalf("%d uploads pending after an upload in the stored layout, want 0", n)
	}
	c.ReadPixels(got, 0, 0, size, size, gl.RGBA, gl.UNSIGNED_BYTE)
	if !bytes.Equal(got, want) {
		t.Error("the earlier asynchronous upload overwrote the later one")
	}
	if e := c.GetError(); e != gl.NO_ERROR || c.Err() != nil {
		t.Fatalf("GL error 0x%x, %v", e, c.Err())
	}
}

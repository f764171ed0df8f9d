package gles

import (
	"testing"
	"unsafe"

	"github.com/tilegpu/tilegpu/driver/tg"
	"github.com/tilegpu/tilegpu/driver/tg/tgtest"
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/pipe"
)

// Tests of what the C ABI adds (share.go, native.go) on the in-memory driver;
// native_stack_test.go draws with client arrays through the whole stack.

func newTestScreen(t *testing.T) *tg.Screen {
	t.Helper()
	s, err := tg.NewScreen(tgtest.NewWinsys(), tgtest.Compiler{}, tg.ScreenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestShareGroupSharesObjectsNotFramebuffers(t *testing.T) {
	s := newTestScreen(t)
	a, err := NewShared(s.NewContext(), DefaultFramebuffer{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewShared(s.NewContext(), DefaultFramebuffer{}, a)
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewShared(s.NewContext(), DefaultFramebuffer{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tex := a.CreateTexture()
	a.BindTexture(gl.TEXTURE_2D, tex)
	a.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 2, 2, gl.RGBA, gl.UNSIGNED_BYTE, make([]byte, 16))
	buf := a.CreateBuffer()
	a.BindBuffer(gl.ARRAY_BUFFER, buf)
	prog := a.CreateProgram()
	fb := a.CreateFramebuffer()
	a.BindFramebuffer(gl.FRAMEBUFFER, fb)
	if !b.IsTexture(tex) || !b.IsBuffer(buf) || !b.IsProgram(prog) {
		t.Fatal("a shared context does not see the texture, buffer and program")
	}
	if b.IsFramebuffer(fb) {
		t.Error("framebuffer objects are per context, but b sees a's")
	}
	if other.IsTexture(tex) || other.IsBuffer(buf) {
		t.Error("a context outside the share group sees its objects")
	}
	if n := b.CreateBuffer(); n.Value == buf.Value {
		t.Errorf("b's new buffer reuses name %d", n.Value)
	}
	a.Destroy() // b still holds the share group
	if !b.IsTexture(tex) || b.textures[tex.Value].res == nil {
		t.Error("destroying one context of a share group freed its objects")
	}
	b.Destroy()
	other.Destroy()
	if _, err := NewShared(newTestScreen(t).NewContext(), DefaultFramebuffer{}, other); err == nil {
		t.Error("a share group across two screens was accepted")
	}
}

func TestSurfacelessContext(t *testing.T) {
	s := newTestScreen(t)
	c, err := NewShared(s.NewContext(), DefaultFramebuffer{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Destroy()
	if st := c.CheckFramebufferStatus(gl.FRAMEBUFFER); st != framebufferUndefined {
		t.Errorf("framebuffer 0 without a surface: status %#x, want FRAMEBUFFER_UNDEFINED_OES", st)
	}
	c.Clear(gl.COLOR_BUFFER_BIT)
	if e := c.GetError(); e != gl.INVALID_FRAMEBUFFER_OPERATION {
		t.Errorf("Clear without a framebuffer: error %#x", e)
	}
	if got := c.GetInteger(gl.VIEWPORT); got != 0 {
		t.Errorf("viewport before any surface: %d", got)
	}
	color, err := s.ResourceCreate(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: pipe.FormatRGBA8, Width: 20, Height: 10, Levels: 1})
	if err != nil {
		t.Fatal(err)
	}
	c.SetDefaultFramebuffer(DefaultFramebuffer{Width: 20, Height: 10, Color: color})
	vp := make([]int32, c.StateSize(gl.VIEWPORT))
	c.GetIntegerv(vp, gl.VIEWPORT)
	if len(vp) != 4 || vp[2] != 20 || vp[3] != 10 {
		t.Errorf("viewport after the first surface: %v, want [0 0 20 10]", vp)
	}
	if st := c.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
		t.Errorf("status with a surface: %#x", st)
	}
	c.Viewport(1, 2, 3, 4)
	c.SetDefaultFramebuffer(DefaultFramebuffer{Width: 20, Height: 10, Color: color})
	c.GetIntegerv(vp, gl.VIEWPORT)
	if vp[0] != 1 || vp[3] != 4 {
		t.Errorf("a later surface reset the viewport: %v", vp)
	}
}

func TestStateSizes(t *testing.T) {
	c, _ := newTestContext(t)
	for _, tc := range []struct {
		pname gl.Enum
		want  int
	}{{gl.VIEWPORT, 4}, {gl.DEPTH_RANGE, 2}, {gl.COLOR_WRITEMASK, 4}, {gl.MAX_VIEWPORT_DIMS, 2}, {gl.DEPTH_FUNC, 1}, {0x1234, 0}} {
		if got := c.StateSize(tc.pname); got != tc.want {
			t.Errorf("StateSize(%#x) = %d, want %d", tc.pname, got, tc.want)
		}
	}
	if e := c.GetError(); e != gl.NO_ERROR {
		t.Errorf("StateSize recorded error %#x", e)
	}
}

func TestPixelDataSize(t *testing.T) {
	c, _ := newTestContext(t)
	for _, tc := range []struct {
		w, h      int
		format, t gl.Enum
		align     int32
		want      int
	}{
		{3, 2, gl.RGB, gl.UNSIGNED_BYTE, 4, 12 + 9},
		{3, 2, gl.RGB, gl.UNSIGNED_BYTE, 1, 18},
		{5, 3, gl.RGB, gl.UNSIGNED_SHORT_5_6_5, 8, 16*2 + 10},
		{4, 4, gl.RGBA, gl.UNSIGNED_BYTE, 4, 64},
		{4, 4, gl.RGBA, gl.FLOAT, 4, 0},
		{0, 4, gl.RGBA, gl.UNSIGNED_BYTE, 4, 0},
	} {
		c.PixelStorei(gl.UNPACK_ALIGNMENT, tc.align)
		if got := c.PixelDataSize(tc.w, tc.h, tc.format, tc.t, false); got != tc.want {
			t.Errorf("%dx%d %#x/%#x align %d: %d bytes, want %d", tc.w, tc.h, tc.format, tc.t, tc.align, got, tc.want)
		}
	}
}

func TestVertexAttribPointerNative(t *testing.T) {
	c, _ := newTestContext(t)
	data := make([]float32, 8)
	ptr := unsafe.Pointer(&data[0])
	c.VertexAttribPointerNative(gl.Attrib{Value: 1}, 2, gl.FLOAT, false, 0, ptr)
	if got := c.GetVertexAttribPointer(gl.Attrib{Value: 1}, gl.VERTEX_ATTRIB_ARRAY_POINTER); got != ptr {
		t.Errorf("client pointer %p, want %p", got, ptr)
	}
	b := c.CreateBuffer()
	c.BindBuffer(gl.ARRAY_BUFFER, b)
	c.VertexAttribPointerNative(gl.Attrib{Value: 1}, 2, gl.FLOAT, false, 0, unsafe.Add(unsafe.Pointer(nil), 12))
	if got := uintptr(c.GetVertexAttribPointer(gl.Attrib{Value: 1}, gl.VERTEX_ATTRIB_ARRAY_POINTER)); got != 12 {
		t.Errorf("buffer offset read back as %d, want 12", got)
	}
	c.VertexAttribPointerNative(gl.Attrib{Value: 99}, 2, gl.FLOAT, false, 0, ptr)
	if e := c.GetError(); e != gl.INVALID_VALUE {
		t.Errorf("attribute 99: error %#x", e)
	}
	c.GetVertexAttribPointer(gl.Attrib{Value: 0}, gl.VERTEX_ATTRIB_ARRAY_SIZE)
	if e := c.GetError(); e != gl.INVALID_ENUM {
		t.Errorf("bad pname: error %#x", e)
	}
	c.ShaderBinary(nil, 0x1234, nil)
	if e := c.GetError(); e != gl.INVALID_ENUM {
		t.Errorf("ShaderBinary: error %#x, want INVALID_ENUM (no formats)", e)
	}
}

// dEQP-GLES2.functional.fbo.api.attach_names: a name from
// glGenRenderbuffers that was never bound is no renderbuffer yet.
func TestFramebufferRenderbufferUnboundName(t *testing.T) {
	c, _ := newTestContext(t)
	fb := c.CreateFramebuffer()
	c.BindFramebuffer(gl.FRAMEBUFFER, fb)
	rb := c.CreateRenderbuffer()
	c.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, rb)
	if e := c.GetError(); e != gl.INVALID_OPERATION {
		t.Errorf("attaching a generated, never bound renderbuffer name: error %#x, want INVALID_OPERATION", e)
	}
	c.BindRenderbuffer(gl.RENDERBUFFER, rb)
	c.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, rb)
	if e := c.GetError(); e != gl.NO_ERROR {
		t.Errorf("attaching a bound renderbuffer: error %#x", e)
	}
}

// dEQP-GLES2.functional.negative_api.buffer.buffer_sub_data_size_offset:
// the range is checked from the size argument, also with a NULL pointer.
func TestBufferSubDataNativeRange(t *testing.T) {
	c, _ := newTestContext(t)
	b := c.CreateBuffer()
	c.BindBuffer(gl.ARRAY_BUFFER, b)
	c.BufferInit(gl.ARRAY_BUFFER, 10, gl.STATIC_DRAW)
	data := make([]byte, 16)
	for _, tc := range []struct {
		offset, size int
		ptr          unsafe.Pointer
		want         gl.Enum
	}{
		{1, 15, nil, gl.INVALID_VALUE}, {8, 8, nil, gl.INVALID_VALUE}, {-1, 1, nil, gl.INVALID_VALUE},
		{1, -1, nil, gl.INVALID_VALUE}, {2, 8, unsafe.Pointer(&data[0]), gl.NO_ERROR}, {0, 10, nil, gl.NO_ERROR},
		{10, 0, unsafe.Pointer(&data[0]), gl.NO_ERROR},
	} {
		c.BufferSubDataNative(gl.ARRAY_BUFFER, tc.offset, tc.size, tc.ptr)
		if e := c.GetError(); e != tc.want {
			t.Errorf("offset %d size %d: error %#x, want %#x", tc.offset, tc.size, e, tc.want)
		}
	}
}

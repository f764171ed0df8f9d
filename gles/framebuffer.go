package gles

import (
	"github.com/tilegpu/tilegpu/gl"

	"github.com/tilegpu/tilegpu/pipe"
)

// renderbuffer is a GL renderbuffer object.
type renderbuffer struct {
	name   uint32
	bound  bool
	format gl.Enum // internal format as requested; 0 before storage
	w, h   int
	res    pipe.Resource
	// samples is RENDERBUFFER_SAMPLES_EXT: 0, or 4 for a multisampled
	// renderbuffer (rendered with four samples, stored resolved).
	samples int
}

func (r *renderbuffer) release(c *Context) {
	if r.res != nil {
		c.screen.ResourceDestroy(r.res)
		r.res = nil
	}
}

// Attachment points of a framebuffer object.
const (
	attColor = iota
	attDepth
	attStencil
	// COLOR_ATTACHMENT1..3 of NV_fbo_color_attachments (colorattach.go):
	// part of completeness, never drawn to (ES 2.0 draws to attachment 0).
	attColor1
	attColor2
	attColor3
	numAttachments
)

type attachment struct {
	rb   *renderbuffer
	tex  *texture
	face int
	// samples is TEXTURE_SAMPLES_EXT of a texture attached with
	// FramebufferTexture2DMultisampleEXT (0 or 4).
	samples int
}

func (a attachment) empty() bool { return a.rb == nil && a.tex == nil }

// framebuffer is a GL framebuffer object.
type framebuffer struct {
	name  uint32
	bound bool
	att   [numAttachments]attachment
	zs    *zsCombined // split depth and stencil renderbuffers (zsplit.go)
}

// renderbuffer formats (RGBA8_OES, RGB8_OES, DEPTH_COMPONENT24_OES and
// DEPTH24_STENCIL8_OES come from extensions this implementation exposes).
func rbFormatKind(f gl.Enum) (color, depth, stencil, ok bool) {
	switch f {
	case gl.RGBA4, gl.RGB565, gl.RGB5_A1, gl.RGBA8_OES, gl.RGB8_OES, bgraEXT, bgra8EXT:
		return true, false, false, true
	case gl.DEPTH_COMPONENT16, gl.DEPTH_COMPONENT24_OES:
		return false, true, false, true
	case gl.STENCIL_INDEX8:
		return false, false, true, true
	case gl.DEPTH24_STENCIL8_OES:
		return false, true, true, true
	}
	return false, false, false, false
}

// CreateRenderbuffer returns a new renderbuffer name.
func (c *Context) CreateRenderbuffer() gl.Renderbuffer {
	n := c.genName()
	c.rbs[n] = &renderbuffer{name: n}
	return gl.Renderbuffer{Value: n}
}

// IsRenderbuffer reports whether rb names a renderbuffer that has been bound.
func (c *Context) IsRenderbuffer(rb gl.Renderbuffer) bool {
	x := c.rbs[rb.Value]
	return x != nil && x.bound
}

// BindRenderbuffer binds a renderbuffer (creating it if the name is new).
func (c *Context) BindRenderbuffer(target gl.Enum, rb gl.Renderbuffer) {
	if target != gl.RENDERBUFFER {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	if rb.Value == 0 {
		c.renderbuffer = nil
		return
	}
	x := c.rbs[rb.Value]
	if x == nil {
		x = &renderbuffer{name: rb.Value}
		c.rbs[rb.Value] = x
		c.nextName = max(c.nextName, rb.Value+1)
	}
	x.bound = true
	c.renderbuffer = x
}

// DeleteRenderbuffer deletes a renderbuffer, detaching it from the bound framebuffer.
func (c *Context) DeleteRenderbuffer(v gl.Renderbuffer) {
	x := c.rbs[v.Value]
	if x == nil || v.Value == 0 {
		return
	}
	if c.renderbuffer == x {
		c.renderbuffer = nil
	}
	if fb := c.drawFB; fb != nil {
		c.writeBackZS(fb)
		for i := range fb.att {
			if fb.att[i].rb == x {
				fb.att[i] = attachment{}
			}
		}
	}
	c.releaseUnlessAttached(nil, x)
	delete(c.rbs, v.Value)
}

// RenderbufferStorage allocates the bound renderbuffer's image. Colour
// formats are stored with their own bits (formats.go), depth and stencil
// formats as depth24+stencil8.
func (c *Context) RenderbufferStorage(target, internalFormat gl.Enum, width, height int) {
	c.renderbufferStorage(target, 0, internalFormat, width, height)
}

// renderbufferStorage is RenderbufferStorage and
// RenderbufferStorageMultisampleEXT (samples already validated: 0 or 4).
func (c *Context) renderbufferStorage(target gl.Enum, samples int, internalFormat gl.Enum, width, height int) {
	if target != gl.RENDERBUFFER {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	color, _, _, ok := rbFormatKind(internalFormat)
	if !ok {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	maxSize := c.screen.GetParam(pipe.ParamMaxRenderbufferSize)
	if width < 0 || height < 0 || width > maxSize || height > maxSize {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	rb := c.renderbuffer
	if rb == nil {
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	if c.drawFB != nil {
		c.writeBackZS(c.drawFB) // the other renderbuffer of a split pair keeps its contents
	}
	var res pipe.Resource
	if width > 0 && height > 0 {
		t := pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: pipe.FormatZ24S8, Width: width, Height: height, Levels: 1, Bind: pipe.BindDepthStencil}
		if color {
			t.Format, t.Bind = rbStoreFormat(internalFormat), pipe.BindRenderTarget
		} else {
			t.Samples = samples // the driver keeps every sample of depth/stencil
		}
		var err error
		if res, err = c.screen.ResourceCreate(t); err != nil {
			c.recordError(gl.OUT_OF_MEMORY)
			return
		}
	}
	rb.release(c)
	rb.format, rb.w, rb.h, rb.res, rb.samples = internalFormat, width, height, res, samples
}

// GetRenderbufferParameteri reads a parameter of the bound renderbuffer.
func (c *Context) GetRenderbufferParameteri(target, pname gl.Enum) int {
	if target != gl.RENDERBUFFER {
		c.recordError(gl.INVALID_ENUM)
		return 0
	}
	rb := c.renderbuffer
	if rb == nil {
		c.recordError(gl.INVALID_OPERATION)
		return 0
	}
	color, depth, stencil, _ := rbFormatKind(rb.format)
	bitsOf := func(ok bool, n int) int {
		if ok && rb.format != 0 {
			return n
		}
		return 0
	}
	switch pname {
	case gl.RENDERBUFFER_WIDTH:
		return rb.w
	case gl.RENDERBUFFER_HEIGHT:
		return rb.h
	case gl.RENDERBUFFER_INTERNAL_FORMAT:
		if rb.format == 0 {
			return int(gl.RGBA4)
		}
		return int(rb.format)
	case gl.RENDERBUFFER_RED_SIZE, gl.RENDERBUFFER_GREEN_SIZE, gl.RENDERBUFFER_BLUE_SIZE, gl.RENDERBUFFER_ALPHA_SIZE:
		if !color || rb.format == 0 {
			return 0
		}
		return rbStoreFormat(rb.format).ColorBits()[pname-gl.RENDERBUFFER_RED_SIZE]
	case gl.RENDERBUFFER_DEPTH_SIZE:
		return bitsOf(depth, 24)
	case gl.RENDERBUFFER_STENCIL_SIZE:
		return bitsOf(stencil, 8)
	case renderbufferSamplesEXT:
		return rb.samples
	}
	c.recordError(gl.INVALID_ENUM)
	return 0
}

// CreateFramebuffer returns a new framebuffer name.
func (c *Context) CreateFramebuffer() gl.Framebuffer {
	n := c.genName()
	c.fbos[n] = &framebuffer{name: n}
	return gl.Framebuffer{Value: n}
}

// IsFramebuffer reports whether fb names a framebuffer that has been bound.
func (c *Context) IsFramebuffer(fb gl.Framebuffer) bool {
	x := c.fbos[fb.Value]
	return x != nil && x.bound
}

// BindFramebuffer binds a framebuffer object; 0 binds the default framebuffer.
func (c *Context) BindFramebuffer(target gl.Enum, fb gl.Framebuffer) {
	if target != gl.FRAMEBUFFER {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	if c.drawFB != nil && c.drawFB.zs != nil && c.drawFB.name != fb.Value {
		c.writeBackZS(c.drawFB)
	}
	if fb.Value == 0 {
		c.drawFB = nil
		return
	}
	x := c.fbos[fb.Value]
	if x == nil {
		x = &framebuffer{name: fb.Value}
		c.fbos[fb.Value] = x
		c.nextName = max(c.nextName, fb.Value+1)
	}
	x.bound = true
	c.drawFB = x
}

// DeleteFramebuffer deletes a framebuffer; if bound, framebuffer 0 is bound.
func (c *Context) DeleteFramebuffer(v gl.Framebuffer) {
	x := c.fbos[v.Value]
	if x == nil || v.Value == 0 {
		return
	}
	if c.drawFB == x {
		c.drawFB = nil
	}
	c.releaseZS(x)
	delete(c.fbos, v.Value)
}

func attachmentIndex(a gl.Enum) int {
	switch a {
	case gl.COLOR_ATTACHMENT0:
		return attColor
	case colorAttachment1NV, colorAttachment1NV + 1, colorAttachment1NV + 2:
		return attColor1 + int(a-colorAttachment1NV)
	case gl.DEPTH_ATTACHMENT:
		return attDepth
	case gl.STENCIL_ATTACHMENT:
		return attStencil
	}
	return -1
}

// FramebufferRenderbuffer attaches a renderbuffer (0 detaches).
func (c *Context) FramebufferRenderbuffer(target, attachment, rbTarget gl.Enum, rb gl.Renderbuffer) {
	ai := attachmentIndex(attachment)
	if target != gl.FRAMEBUFFER || ai < 0 || rbTarget != gl.RENDERBUFFER {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	fb := c.drawFB
	if fb == nil {
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	c.writeBackZS(fb)
	if rb.Value == 0 {
		fb.att[ai] = attachmentZero()
		return
	}
	x := c.rbs[rb.Value]
	if x == nil || !x.bound { // a generated name is not a renderbuffer until bound (ES 2.0 §4.4.3)
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	fb.att[ai].rb, fb.att[ai].tex, fb.att[ai].face = x, nil, 0
}

func attachmentZero() attachment { return attachment{} }

// FramebufferTexture2D attaches level 0 of a texture image (0 detaches).
func (c *Context) FramebufferTexture2D(target, attachment, texTarget gl.Enum, t gl.Texture, level int) {
	ai := attachmentIndex(attachment)
	if target != gl.FRAMEBUFFER || ai < 0 {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	face := 0
	switch {
	case texTarget == gl.TEXTURE_2D:
	case texTarget >= gl.TEXTURE_CUBE_MAP_POSITIVE_X && texTarget <= gl.TEXTURE_CUBE_MAP_NEGATIVE_Z:
		face = int(texTarget - gl.TEXTURE_CUBE_MAP_POSITIVE_X)
	default:
		if t.Value != 0 {
			c.recordError(gl.INVALID_ENUM)
			return
		}
	}
	fb := c.drawFB
	if fb == nil {
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	c.writeBackZS(fb)
	if t.Value == 0 {
		fb.att[ai] = attachmentZero()
		return
	}
	if level != 0 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	x := c.textures[t.Value]
	if x == nil {
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	isCube := texTarget != gl.TEXTURE_2D
	if (isCube && x.target != gl.TEXTURE_CUBE_MAP) || (!isCube && x.target != gl.TEXTURE_2D) {
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	fb.att[ai].rb, fb.att[ai].tex, fb.att[ai].face, fb.att[ai].samples = nil, x, face, 0
}

// image returns an attachment's resource, size and kind.
func (a attachment) image() (res pipe.Resource, w, h int, color, depth, stencil bool) {
	if a.rb != nil {
		color, depth, stencil, _ = rbFormatKind(a.rb.format)
		return a.rb.res, a.rb.w, a.rb.h, color, depth, stencil
	}
	if a.tex != nil {
		if len(a.tex.levels[a.face]) == 0 || !a.tex.levels[a.face][0].inRes {
			return nil, 0, 0, false, false, false
		}
		lv := a.tex.levels[a.face][0]
		// Colour-renderable: RGB, RGBA, BGRA of 8 bits or fewer (not half
		// floats); depth textures are depth (and stencil) attachments.
		renderable := (lv.format == gl.RGB || lv.format == gl.RGBA || lv.format == bgraEXT) && classOf(lv.sf) == classRGBA8
		return a.tex.res, lv.w, lv.h, renderable, isDepthFormat(lv.format), lv.format == gl.DEPTH_STENCIL_OES
	}
	return nil, 0, 0, false, false, false
}

// status computes framebuffer completeness (ES 2.0 §4.4.5).
func (fb *framebuffer) status() gl.Enum {
	w, h, found := -1, -1, false
	for i, a := range fb.att {
		if a.empty() {
			continue
		}
		found = true
		res, aw, ah, color, depth, stencil := a.image()
		if res == nil || aw == 0 || ah == 0 {
			return gl.FRAMEBUFFER_INCOMPLETE_ATTACHMENT
		}
		if (isColorAttachment(i) && !color) || (i == attDepth && !depth) || (i == attStencil && !stencil) {
			return gl.FRAMEBUFFER_INCOMPLETE_ATTACHMENT
		}
		if w >= 0 && (aw != w || ah != h) {
			return gl.FRAMEBUFFER_INCOMPLETE_DIMENSIONS
		}
		w, h = aw, ah
	}
	if !found {
		return gl.FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT
	}
	if _, ok := fb.samples(); !ok {
		return framebufferIncompleteMultisampleEXT
	}
	// The hardware has one depth/stencil surface: separate depth and
	// stencil renderbuffers are combined (zsplit.go); other pairs cannot be.
	d, s := fb.att[attDepth], fb.att[attStencil]
	if !d.empty() && !s.empty() && (d.rb != s.rb || d.tex != s.tex) && (d.rb == nil || s.rb == nil) {
		return gl.FRAMEBUFFER_UNSUPPORTED
	}
	return gl.FRAMEBUFFER_COMPLETE
}

// CheckFramebufferStatus reports the bound framebuffer's completeness.
func (c *Context) CheckFramebufferStatus(target gl.Enum) gl.Enum {
	if target != gl.FRAMEBUFFER {
		c.recordError(gl.INVALID_ENUM)
		return 0
	}
	if c.drawFB == nil {
		if c.dfb.Color == nil {
			return framebufferUndefined // surfaceless: no default framebuffer
		}
		return gl.FRAMEBUFFER_COMPLETE
	}
	return c.drawFB.status()
}

// checkFramebufferComplete records INVALID_FRAMEBUFFER_OPERATION when the
// bound framebuffer cannot be drawn to or read from.
func (c *Context) checkFramebufferComplete() bool {
	if (c.drawFB == nil && c.dfb.Color == nil) || (c.drawFB != nil && c.drawFB.status() != gl.FRAMEBUFFER_COMPLETE) {
		c.recordError(gl.INVALID_FRAMEBUFFER_OPERATION)
		return false
	}
	return true
}

// framebufferState describes the bound (complete) framebuffer to the driver.
func (c *Context) framebufferState() (pipe.FramebufferState, bool) {
	fb := c.drawFB
	if fb == nil {
		s := pipe.FramebufferState{Width: c.dfb.Width, Height: c.dfb.Height, Color: pipe.Surface{Resource: c.dfb.Color}, Samples: c.dfb.Samples}
		if c.dfb.DepthStencil != nil {
			s.ZS = pipe.Surface{Resource: c.dfb.DepthStencil}
		}
		return s, true
	}
	var s pipe.FramebufferState
	for i, a := range fb.att {
		if a.empty() {
			continue
		}
		res, w, h, _, _, _ := a.image()
		s.Width, s.Height = w, h
		surf := pipe.Surface{Resource: res, Face: a.face}
		switch i {
		case attColor:
			s.Color = surf
		case attDepth, attStencil:
			s.ZS = surf
		}
	}
	if d, st, ok := splitZS(fb); ok {
		s.ZS = pipe.Surface{Resource: c.combinedZS(fb, d, st)}
	}
	s.Samples, _ = fb.samples()
	return s, true
}

// hasDepth / hasStencil report whether the bound framebuffer has those buffers.
func (c *Context) fbBits() (depth, stencil bool) {
	if c.drawFB == nil {
		return c.dfb.DepthStencil != nil, c.dfb.DepthStencil != nil && !c.dfb.NoStencil
	}
	_, _, _, _, d, _ := c.drawFB.att[attDepth].image()
	_, _, _, _, ds, s := c.drawFB.att[attStencil].image()
	return d || ds, s
}

// GetFramebufferAttachmentParameteri reads an attachment parameter of the
// bound framebuffer object.
func (c *Context) GetFramebufferAttachmentParameteri(target, attachment, pname gl.Enum) int {
	ai := attachmentIndex(attachment)
	if target != gl.FRAMEBUFFER || ai < 0 {
		c.recordError(gl.INVALID_ENUM)
		return 0
	}
	fb := c.drawFB
	if fb == nil {
		c.recordError(gl.INVALID_OPERATION)
		return 0
	}
	a := fb.att[ai]
	switch pname {
	case gl.FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE:
		switch {
		case a.rb != nil:
			return int(gl.RENDERBUFFER)
		case a.tex != nil:
			return int(gl.TEXTURE)
		}
		return int(gl.NONE)
	case gl.FRAMEBUFFER_ATTACHMENT_OBJECT_NAME:
		switch {
		case a.rb != nil:
			return int(a.rb.name)
		case a.tex != nil:
			return int(a.tex.name)
		}
	case gl.FRAMEBUFFER_ATTACHMENT_TEXTURE_LEVEL:
		if a.tex != nil {
			return 0
		}
	case gl.FRAMEBUFFER_ATTACHMENT_TEXTURE_CUBE_MAP_FACE:
		if a.tex != nil {
			if a.tex.target == gl.TEXTURE_CUBE_MAP {
				return int(gl.TEXTURE_CUBE_MAP_POSITIVE_X) + a.face
			}
			return 0
		}
	case framebufferAttachmentTextureSamplesEXT:
		if a.tex != nil {
			return a.samples
		}
	}
	c.recordError(gl.INVALID_ENUM)
	return 0
}

// readFramebufferRGBA reads a rectangle of the bound framebuffer's colour
// buffer as RGBA8 rows, bottom row first; pixels outside the framebuffer
// read as zero.
func (c *Context) readFramebufferRGBA(x, y, w, h int) []byte {
	out := make([]byte, w*h*4)
	s, _ := c.framebufferState()
	if s.Color.Resource == nil {
		return out
	}
	x0, y0 := max(x, 0), max(y, 0)
	x1, y1 := min(x+w, s.Width), min(y+h, s.Height)
	if x1 <= x0 || y1 <= y0 {
		return out
	}
	cw, ch := x1-x0, y1-y0
	f := s.Color.Resource.Template().Format
	raw := make([]byte, cw*ch*f.BytesPerPixel())
	if err := c.pipe.ResourceRead(s.Color.Resource, s.Color.Face, s.Color.Level, x0, y0, cw, ch, raw); err != nil {
		c.recordError(gl.OUT_OF_MEMORY)
		return out
	}
	buf := raw
	if f != pipe.FormatRGBA8 {
		buf = make([]byte, cw*ch*4)
		f.ToRGBA8(buf, raw, cw*ch) // formats.go: the colour buffer's own bits
	}
	for row := 0; row < ch; row++ {
		dst := ((y0-y+row)*w + (x0 - x)) * 4
		copy(out[dst:dst+cw*4], buf[row*cw*4:])
	}
	if !c.colorHasAlpha() { // noalpha.go
		for i := 3; i < len(out); i += 4 {
			out[i] = 255
		}
	}
	return out
}

// ReadPixels reads a rectangle of the colour buffer. Supported: RGBA /
// UNSIGNED_BYTE, and the implementation read format (formats.go: the
// packed 16-bit type of a 16-bit colour buffer). Rows are written
// bottom row first with PACK_ALIGNMENT padding, as GL specifies.
func (c *Context) ReadPixels(dst []byte, x, y, width, height int, format, ty gl.Enum) {
	if format == bgraEXT { // EXT_read_format_bgra (readbgra.go)
		c.readPixelsBGRA(dst, x, y, width, height, ty)
		return
	}
	if !isBaseFormat(format) || (ty != gl.UNSIGNED_BYTE && ty != gl.UNSIGNED_SHORT_5_6_5 && ty != gl.UNSIGNED_SHORT_4_4_4_4 && ty != gl.UNSIGNED_SHORT_5_5_5_1) {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	if width < 0 || height < 0 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	if f, t := c.implReadFormat(); format == f && ty == t && t != gl.UNSIGNED_BYTE {
		c.readPixelsPacked(dst, x, y, width, height, ty) // formats.go
		return
	}
	if format != gl.RGBA || ty != gl.UNSIGNED_BYTE {
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	stride, ok := c.readPixelsDest(dst, width, height, 4)
	if !ok {
		return
	}
	px := c.readFramebufferRGBA(x, y, width, height)
	for row := 0; row < height; row++ {
		copy(dst[row*stride:row*stride+width*4], px[row*width*4:])
	}
}

// releaseUnlessAttached frees a deleted texture's or renderbuffer's storage,
// unless a framebuffer that is not bound still has it attached: ES 2.0
// §4.4.3 keeps such images alive until the application detaches them. Those
// are freed with the context.
func (c *Context) releaseUnlessAttached(t *texture, rb *renderbuffer) {
	for _, fb := range c.fbos {
		for _, a := range fb.att {
			if (t != nil && a.tex == t) || (rb != nil && a.rb == rb) {
				c.orphans = append(c.orphans, attachment{tex: t, rb: rb})
				return
			}
		}
	}
	if t != nil {
		t.release(c)
	}
	if rb != nil {
		rb.release(c)
	}
}

// readPixelsDest checks ReadPixels' framebuffer and destination for
// width×height pixels of bpp bytes (PACK_ALIGNMENT rows) and returns the
// row stride; ok is false when there is nothing to read (an incomplete
// framebuffer or a short destination, its error recorded, or no pixels).
func (c *Context) readPixelsDest(dst []byte, width, height, bpp int) (stride int, ok bool) {
	if !c.checkFramebufferComplete() {
		return 0, false
	}
	stride = (width*bpp + c.packAlign - 1) / c.packAlign * c.packAlign
	if height > 0 && len(dst) < stride*(height-1)+width*bpp {
		c.recordError(gl.INVALID_VALUE)
		return 0, false
	}
	return stride, width != 0 && height != 0
}

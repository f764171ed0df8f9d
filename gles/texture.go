package gles

import (
	"encoding/binary"
	"math/bits"

	"github.com/tilegpu/tilegpu/gl"

	"github.com/tilegpu/tilegpu/pipe"
)

// texture is a GL texture object. All faces and levels live in one pipe
// resource sized from level 0 (of face 0) with a full mip chain.
type texture struct {
	name   uint32
	target gl.Enum // 0 until first bound
	levels [6][]texLevel

	minFilter, magFilter gl.Enum
	wrapS, wrapT         gl.Enum

	res               pipe.Resource
	resW, resH, resLv int
	resSF             pipe.Format // the resource's format (formats.go)

	view    pipe.SamplerView
	viewKey pipe.SamplerViewTemplate
}

// texLevel is what GL knows about one image of a texture.
type texLevel struct {
	w, h   int
	format gl.Enum     // base internal format: ALPHA, LUMINANCE, LUMINANCE_ALPHA, RGB, RGBA, DEPTH_COMPONENT, DEPTH_STENCIL_OES
	sf     pipe.Format // storage format of the image as specified (formats.go); its class is the form of pending
	// compressed is the compressed internal format the image was
	// specified with (ETC1, DXT1; 0: uncompressed), which
	// CompressedTexSubImage2D must match.
	compressed gl.Enum
	defined    bool
	inRes      bool // the image is stored in res (its size matches the resource's chain)
	// pending holds the texels (in the intermediate form of sf's class,
	// formats.go) of a defined image that is not in res
	// (a level specified before level 0, or one the current level 0 does
	// not fit): stored when a level 0 it fits arrives. Mip levels may be
	// specified in any order.
	pending []byte
}

func newTexture(name uint32) *texture {
	return &texture{name: name, minFilter: gl.NEAREST_MIPMAP_LINEAR, magFilter: gl.LINEAR, wrapS: gl.REPEAT, wrapT: gl.REPEAT}
}

func (t *texture) release(c *Context) {
	if t.view != nil {
		c.pipe.DeleteSamplerView(t.view)
		t.view = nil
	}
	if t.res != nil {
		c.screen.ResourceDestroy(t.res)
		t.res = nil
	}
}

func (t *texture) numFaces() int {
	if t.target == gl.TEXTURE_CUBE_MAP {
		return 6
	}
	return 1
}

func (t *texture) level(face, level int) *texLevel {
	for len(t.levels[face]) <= level {
		t.levels[face] = append(t.levels[face], texLevel{})
	}
	return &t.levels[face][level]
}

// defaultTexture returns texture object 0 of a target.
func (c *Context) defaultTexture(target gl.Enum) *texture {
	if target == gl.TEXTURE_CUBE_MAP {
		return c.defaultCube
	}
	return c.default2D
}

// CreateTexture returns a new texture name.
func (c *Context) CreateTexture() gl.Texture {
	n := c.genName()
	c.textures[n] = newTexture(n)
	return gl.Texture{Value: n}
}

// IsTexture reports whether t names a texture that has been bound.
func (c *Context) IsTexture(t gl.Texture) bool {
	x := c.textures[t.Value]
	return x != nil && x.target != 0
}

// ActiveTexture selects the texture unit that BindTexture and texture
// parameter calls affect.
func (c *Context) ActiveTexture(texture gl.Enum) {
	u := int(texture) - int(gl.TEXTURE0)
	if u < 0 || u >= len(c.units) {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	c.activeUnit = u
}

// BindTexture binds a texture to the active unit; 0 binds the target's
// default texture object.
func (c *Context) BindTexture(target gl.Enum, t gl.Texture) {
	if target != gl.TEXTURE_2D && target != gl.TEXTURE_CUBE_MAP {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	u := &c.units[c.activeUnit]
	slot := &u.tex2D
	if target == gl.TEXTURE_CUBE_MAP {
		slot = &u.cube
	}
	if t.Value == 0 {
		*slot = c.defaultTexture(target)
		return
	}
	x := c.textures[t.Value]
	if x == nil {
		x = newTexture(t.Value)
		c.textures[t.Value] = x
		c.nextName = max(c.nextName, t.Value+1)
	}
	if x.target != 0 && x.target != target {
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	x.target = target
	*slot = x
}

// DeleteTexture deletes a texture, unbinding it from every unit and
// detaching it from the bound framebuffer.
func (c *Context) DeleteTexture(v gl.Texture) {
	x := c.textures[v.Value]
	if x == nil || v.Value == 0 {
		return
	}
	for i := range c.units {
		if c.units[i].tex2D == x {
			c.units[i].tex2D = c.default2D
		}
		if c.units[i].cube == x {
			c.units[i].cube = c.defaultCube
		}
	}
	if fb := c.drawFB; fb != nil {
		for i := range fb.att {
			if fb.att[i].tex == x {
				fb.att[i] = attachment{}
			}
		}
	}
	c.releaseUnlessAttached(x, nil)
	delete(c.textures, v.Value)
}

// texTarget resolves a TexImage target to the texture bound on the active
// unit and the face index. ok is false (error recorded) for a bad target.
func (c *Context) texTarget(target gl.Enum) (*texture, int, bool) {
	u := c.units[c.activeUnit]
	switch {
	case target == gl.TEXTURE_2D:
		return u.tex2D, 0, true
	case target >= gl.TEXTURE_CUBE_MAP_POSITIVE_X && target <= gl.TEXTURE_CUBE_MAP_NEGATIVE_Z:
		return u.cube, int(target - gl.TEXTURE_CUBE_MAP_POSITIVE_X), true
	}
	c.recordError(gl.INVALID_ENUM)
	return nil, 0, false
}

// paramTarget resolves a TexParameter/GenerateMipmap target.
func (c *Context) paramTarget(target gl.Enum) (*texture, bool) {
	u := c.units[c.activeUnit]
	switch target {
	case gl.TEXTURE_2D:
		return u.tex2D, true
	case gl.TEXTURE_CUBE_MAP:
		return u.cube, true
	}
	c.recordError(gl.INVALID_ENUM)
	return nil, false
}

func isBaseFormat(f gl.Enum) bool {
	switch f {
	case gl.ALPHA, gl.LUMINANCE, gl.LUMINANCE_ALPHA, gl.RGB, gl.RGBA, bgraEXT:
		return true
	}
	return false
}

// checkFormatType validates a format/type pair of pixel data: INVALID_ENUM
// for unknown enums, INVALID_OPERATION for a packed type with the wrong format.
func (c *Context) checkFormatType(format, ty gl.Enum) bool {
	if ok, handled := c.checkExtFormatType(format, ty); handled { // formats.go
		return ok
	}
	if !isBaseFormat(format) {
		c.recordError(gl.INVALID_ENUM)
		return false
	}
	switch ty {
	case gl.UNSIGNED_BYTE:
		return true
	case gl.UNSIGNED_SHORT_5_6_5:
		if format != gl.RGB {
			c.recordError(gl.INVALID_OPERATION)
			return false
		}
		return true
	case gl.UNSIGNED_SHORT_4_4_4_4, gl.UNSIGNED_SHORT_5_5_5_1:
		if format != gl.RGBA {
			c.recordError(gl.INVALID_OPERATION)
			return false
		}
		return true
	}
	c.recordError(gl.INVALID_ENUM)
	return false
}

func (c *Context) maxLevel() int {
	return bits.Len(uint(c.screen.GetParam(pipe.ParamMaxTextureSize))) - 1
}

// checkImageArgs validates level and size of a TexImage call.
func (c *Context) checkImageArgs(target gl.Enum, level, width, height int) bool {
	maxSize := c.screen.GetParam(pipe.ParamMaxTextureSize)
	if level < 0 || level > c.maxLevel() || width < 0 || height < 0 ||
		width > maxSize>>level || height > maxSize>>level {
		c.recordError(gl.INVALID_VALUE)
		return false
	}
	if target != gl.TEXTURE_2D && width != height {
		c.recordError(gl.INVALID_VALUE)
		return false
	}
	return true
}

// TexImage2D specifies one image of the bound texture.
func (c *Context) TexImage2D(target gl.Enum, level int, internalFormat int, width, height int, format gl.Enum, ty gl.Enum, data []byte) {
	t, face, ok := c.texTarget(target)
	if !ok || !c.checkFormatType(format, ty) || !c.checkImageArgs(target, level, width, height) {
		return
	}
	ifmt := gl.Enum(internalFormat)
	if ifmt == bgra8EXT && format == bgraEXT {
		ifmt = bgraEXT // the sized BGRA8_EXT of EXT_texture_format_BGRA8888 (revision 1.1 and later)
	}
	if base, sized, match := unsizedFormat(ifmt, format, ty); sized {
		if !match {
			c.recordError(gl.INVALID_OPERATION) // OES_required_internalformat's table 3.3
			return
		}
		ifmt = base
	}
	if !isBaseFormat(ifmt) && !isDepthFormat(ifmt) {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	if ifmt != format {
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	if isDepthFormat(format) && (target != gl.TEXTURE_2D || level != 0) {
		c.recordError(gl.INVALID_OPERATION) // OES_depth_texture: 2D, level 0 only
		return
	}
	var texels []byte
	if data != nil {
		var ok bool
		if texels, ok = c.unpackTexels(data, width, height, format, ty); !ok {
			c.recordError(gl.INVALID_VALUE)
			return
		}
	}
	c.defineImage(t, face, level, width, height, format, texStoreFormat(format, ty), texels)
}

// defineImage records a new image of storage format sf and stores its
// texels (sf's intermediate form; nil: undefined contents).
func (c *Context) defineImage(t *texture, face, level, width, height int, format gl.Enum, sf pipe.Format, texels []byte) {
	lv := t.level(face, level)
	*lv = texLevel{w: width, h: height, format: format, sf: sf, defined: true}
	if width == 0 || height == 0 {
		return
	}
	if level == 0 && (t.res == nil || t.resW != width || t.resH != height || t.resSF != sf) {
		levels := bits.Len(uint(max(width, height)))
		tt := pipe.TargetTexture2D
		if t.target == gl.TEXTURE_CUBE_MAP {
			tt = pipe.TargetTextureCube
		}
		res, err := c.screen.ResourceCreate(pipe.ResourceTemplate{Target: tt, Format: sf, Width: width, Height: height,
			Levels: levels, Bind: pipe.BindSamplerView | pipe.BindRenderTarget})
		if err != nil {
			c.recordError(gl.OUT_OF_MEMORY)
			lv.defined = false
			return
		}
		if t.view != nil {
			c.pipe.DeleteSamplerView(t.view)
			t.view = nil
		}
		// Images stored in the old resource move to CPU memory, and every
		// image that fits the new chain moves into the new resource.
		for f := range t.levels {
			for l := range t.levels[f] {
				o := &t.levels[f][l]
				if o.inRes && (f != face || l != 0) && t.res != nil {
					if buf, err := c.readTexels(t.res, t.resSF, f, l, 0, 0, o.w, o.h); err == nil {
						o.pending = convertClass(buf, classOf(t.resSF), classOf(o.sf), o.w*o.h)
					}
				}
				o.inRes = false
			}
		}
		if t.res != nil {
			c.screen.ResourceDestroy(t.res)
		}
		t.res, t.resW, t.resH, t.resLv, t.resSF = res, width, height, levels, sf
		for f := range t.levels {
			for l := range t.levels[f] {
				o := &t.levels[f][l]
				if o.defined && o.pending != nil && (f != face || l != 0) && l < levels &&
					max(width>>l, 1) == o.w && max(height>>l, 1) == o.h && compatibleClass(classOf(o.sf), classOf(sf)) {
					if err := c.writeTexels(res, sf, f, l, 0, 0, o.w, o.h, convertClass(o.pending, classOf(o.sf), classOf(sf), o.w*o.h)); err != nil {
						c.recordError(gl.OUT_OF_MEMORY)
					}
					o.inRes, o.pending = true, nil
				}
			}
		}
	}
	if t.res == nil || level >= t.resLv || max(t.resW>>level, 1) != width || max(t.resH>>level, 1) != height || !compatibleClass(classOf(sf), classOf(t.resSF)) {
		// Not storable now (no level 0 yet, or inconsistent with it: the
		// texture is incomplete); kept for a level 0 it will fit.
		if texels != nil {
			lv.pending = append([]byte(nil), texels...)
		}
		return
	}
	lv.inRes = true
	if texels != nil {
		texels = convertClass(texels, classOf(sf), classOf(t.resSF), width*height)
		if err := c.writeTexels(t.res, t.resSF, face, level, 0, 0, width, height, texels); err != nil {
			c.recordError(gl.OUT_OF_MEMORY)
		}
	}
}

// TexSubImage2D replaces a rectangle of a defined image.
func (c *Context) TexSubImage2D(target gl.Enum, level int, x, y, width, height int, format, ty gl.Enum, data []byte) {
	t, face, ok := c.subImageTarget(target, level, x, y, width, height, format, ty)
	if !ok {
		return
	}
	texels, ok := c.unpackTexels(data, width, height, format, ty)
	if !ok {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	lvClass := classOf(t.levels[face][level].sf)
	c.storeSubImage(t, face, level, x, y, width, height, convertClass(texels, classOf(texStoreFormat(format, ty)), lvClass, width*height))
}

// TexSubImage2DUnpacked is TexSubImage2D for pixels already converted by
// UnpackRGBA (tightly packed RGBA8): the GL validation and errors are
// TexSubImage2D's for format/ty, only the conversion is skipped. The
// cmdbuf service converts asynchronous uploads on a worker goroutine and
// stores them through this on the context's own goroutine.
func (c *Context) TexSubImage2DUnpacked(target gl.Enum, level int, x, y, width, height int, format, ty gl.Enum, rgba []byte) {
	t, face, ok := c.subImageTarget(target, level, x, y, width, height, format, ty)
	if !ok {
		return
	}
	if len(rgba) != width*height*4 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	c.storeSubImage(t, face, level, x, y, width, height, convertClass(rgba, classRGBA8, classOf(t.levels[face][level].sf), width*height))
}

// storeSubImage writes validated texels (the intermediate form of the
// level's class, formats.go) into a level: into the resource, or into the
// CPU copy of an image kept until a level 0 it fits arrives (mip levels
// may be specified in any order).
func (c *Context) storeSubImage(t *texture, face, level, x, y, width, height int, texels []byte) {
	if lv := &t.levels[face][level]; !lv.inRes {
		n := classOf(lv.sf).texelSize()
		for row := 0; row < height; row++ {
			copy(lv.pending[((y+row)*lv.w+x)*n:], texels[row*width*n:(row+1)*width*n])
		}
		return
	}
	texels = convertClass(texels, classOf(t.levels[face][level].sf), classOf(t.resSF), width*height)
	if err := c.writeTexels(t.res, t.resSF, face, level, x, y, width, height, texels); err != nil {
		c.recordError(gl.OUT_OF_MEMORY)
	}
}

// subImageTarget validates a TexSubImage2D and returns the texture and
// face to write; ok is false when there is nothing to write (a GL error
// was recorded, the rectangle is empty, or the image is not stored).
func (c *Context) subImageTarget(target gl.Enum, level int, x, y, width, height int, format, ty gl.Enum) (t *texture, face int, ok bool) {
	t, face, ok = c.texTarget(target)
	if !ok || !c.checkFormatType(format, ty) {
		return nil, 0, false
	}
	if level < 0 || level > c.maxLevel() || width < 0 || height < 0 {
		c.recordError(gl.INVALID_VALUE)
		return nil, 0, false
	}
	if t == nil || level >= len(t.levels[face]) || !t.levels[face][level].defined {
		c.recordError(gl.INVALID_OPERATION)
		return nil, 0, false
	}
	lv := t.levels[face][level]
	if x < 0 || y < 0 || x+width > lv.w || y+height > lv.h {
		c.recordError(gl.INVALID_VALUE)
		return nil, 0, false
	}
	if format != lv.format {
		c.recordError(gl.INVALID_OPERATION)
		return nil, 0, false
	}
	if width == 0 || height == 0 || (!lv.inRes && lv.pending == nil) {
		return nil, 0, false
	}
	return t, face, true
}

// CopyTexImage2D defines an image from the read framebuffer.
func (c *Context) CopyTexImage2D(target gl.Enum, level int, internalformat gl.Enum, x, y, width, height, border int) {
	t, face, ok := c.texTarget(target)
	if !ok {
		return
	}
	if !isBaseFormat(internalformat) {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	if border != 0 || !c.checkImageArgs(target, level, width, height) {
		if border != 0 {
			c.recordError(gl.INVALID_VALUE)
		}
		return
	}
	if t == nil {
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	if !c.checkFramebufferComplete() {
		return
	}
	rgba := c.readFramebufferRGBA(x, y, width, height)
	convertStoredRGBA(rgba, internalformat)
	c.defineImage(t, face, level, width, height, internalformat, texStoreFormat(internalformat, gl.UNSIGNED_BYTE), rgba)
}

// CopyTexSubImage2D replaces a rectangle of an image from the read framebuffer.
func (c *Context) CopyTexSubImage2D(target gl.Enum, level, xoffset, yoffset, x, y, width, height int) {
	t, face, ok := c.texTarget(target)
	if !ok {
		return
	}
	if level < 0 || level > c.maxLevel() || width < 0 || height < 0 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	if t == nil || level >= len(t.levels[face]) || !t.levels[face][level].defined {
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	lv := t.levels[face][level]
	if xoffset < 0 || yoffset < 0 || xoffset+width > lv.w || yoffset+height > lv.h {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	if isDepthFormat(lv.format) {
		c.recordError(gl.INVALID_OPERATION) // no colour → depth copies
		return
	}
	if !c.checkFramebufferComplete() || width == 0 || height == 0 || !lv.inRes {
		return
	}
	rgba := c.readFramebufferRGBA(x, y, width, height)
	convertStoredRGBA(rgba, lv.format)
	texels := convertClass(rgba, classRGBA8, classOf(t.resSF), width*height)
	if err := c.writeTexels(t.res, t.resSF, face, level, xoffset, yoffset, width, height, texels); err != nil {
		c.recordError(gl.OUT_OF_MEMORY)
	}
}

// convertStoredRGBA turns framebuffer RGBA into the stored form of a base
// format (LUMINANCE keeps R, ALPHA keeps A).
func convertStoredRGBA(p []byte, format gl.Enum) {
	for i := 0; i+3 < len(p); i += 4 {
		r, a := p[i], p[i+3]
		switch format {
		case gl.RGB:
			p[i+3] = 255
		case gl.LUMINANCE:
			p[i+1], p[i+2], p[i+3] = r, r, 255
		case gl.LUMINANCE_ALPHA:
			p[i+1], p[i+2] = r, r
		case gl.ALPHA:
			p[i], p[i+1], p[i+2], p[i+3] = 0, 0, 0, a
		}
	}
}

func isMipmapFilter(f gl.Enum) bool {
	return f != gl.NEAREST && f != gl.LINEAR
}

// GenerateMipmap computes levels 1.. of the bound texture from level 0.
func (c *Context) GenerateMipmap(target gl.Enum) {
	t, ok := c.paramTarget(target)
	if !ok {
		return
	}
	// OES_texture_npot lifts ES 2.0's power-of-two requirement.
	if t == nil || t.res == nil || !t.baseComplete() || isDepthFormat(t.levels[0][0].format) {
		c.recordError(gl.INVALID_OPERATION) // (OES_depth_texture: depth textures have no mipmaps)
		return
	}
	for f := 0; f < t.numFaces(); f++ {
		base := t.levels[f][0]
		for l := 1; l < t.resLv; l++ {
			*t.level(f, l) = texLevel{w: max(t.resW>>l, 1), h: max(t.resH>>l, 1), format: base.format, sf: base.sf, defined: true, inRes: true}
		}
		if err := c.pipe.GenerateMipmap(t.res, f); err != nil {
			c.recordError(gl.OUT_OF_MEMORY)
			return
		}
	}
}

// baseComplete reports whether level 0 of every face is defined, stored,
// and (for cube maps) square with matching sizes and formats.
func (t *texture) baseComplete() bool {
	if t.res == nil {
		return false
	}
	var first texLevel
	for f := 0; f < t.numFaces(); f++ {
		if len(t.levels[f]) == 0 {
			return false
		}
		lv := t.levels[f][0]
		if !lv.defined || !lv.inRes || lv.w == 0 {
			return false
		}
		if f == 0 {
			first = lv
		} else if lv.w != first.w || lv.h != first.h || lv.format != first.format {
			return false
		}
	}
	return true
}

// complete reports texture completeness (ES 2.0 §3.7.10, §3.8.2).
func (t *texture) complete() bool {
	if !t.baseComplete() {
		return false
	}
	// With OES_texture_npot, non-power-of-two textures may repeat and be
	// mipmapped (ES 2.0 §3.8.2 would make them incomplete): the TMU wraps
	// by any size and the level chain is floor(size/2^n).
	if !isMipmapFilter(t.minFilter) {
		return true
	}
	format := t.levels[0][0].format
	for f := 0; f < t.numFaces(); f++ {
		if len(t.levels[f]) < t.resLv {
			return false
		}
		for l := 1; l < t.resLv; l++ {
			lv := t.levels[f][l]
			if !lv.defined || !lv.inRes || lv.format != format { // (inRes: stored, converted to the resource's format)
				return false
			}
		}
	}
	return true
}

// samplerView returns the view to sample t with, or nil when t is incomplete.
func (c *Context) samplerView(t *texture) pipe.SamplerView {
	if t == nil || !t.complete() {
		return nil
	}
	key := pipe.SamplerViewTemplate{Levels: 1, Swizzle: pipe.IdentitySwizzle}
	if isMipmapFilter(t.minFilter) {
		key.Levels = t.resLv
	}
	switch t.levels[0][0].format {
	case gl.RGB, gl.LUMINANCE:
		key.Swizzle[3] = pipe.SwizzleOne
	}
	if t.view == nil || t.viewKey != key {
		if t.view != nil {
			c.pipe.DeleteSamplerView(t.view)
		}
		t.view, t.viewKey = c.pipe.CreateSamplerView(t.res, key), key
	}
	return t.view
}

var texFilters = map[gl.Enum]pipe.Filter{
	gl.NEAREST: pipe.FilterNearest, gl.LINEAR: pipe.FilterLinear,
	gl.NEAREST_MIPMAP_NEAREST: pipe.FilterNearestMipmapNearest, gl.LINEAR_MIPMAP_NEAREST: pipe.FilterLinearMipmapNearest,
	gl.NEAREST_MIPMAP_LINEAR: pipe.FilterNearestMipmapLinear, gl.LINEAR_MIPMAP_LINEAR: pipe.FilterLinearMipmapLinear,
}

// samplerState converts the texture's parameters.
func (t *texture) samplerState() pipe.SamplerState {
	wrap := func(w gl.Enum) pipe.Wrap {
		switch w {
		case gl.CLAMP_TO_EDGE:
			return pipe.WrapClampToEdge
		case gl.MIRRORED_REPEAT:
			return pipe.WrapMirroredRepeat
		}
		return pipe.WrapRepeat
	}
	return pipe.SamplerState{WrapS: wrap(t.wrapS), WrapT: wrap(t.wrapT), MinFilter: texFilters[t.minFilter], MagFilter: texFilters[t.magFilter]}
}

// TexParameteri sets a texture parameter.
func (c *Context) TexParameteri(target, pname gl.Enum, param int) {
	t, ok := c.paramTarget(target)
	if !ok {
		return
	}
	p := gl.Enum(param)
	valid := false
	switch pname {
	case gl.TEXTURE_MIN_FILTER:
		switch p {
		case gl.NEAREST, gl.LINEAR, gl.NEAREST_MIPMAP_NEAREST, gl.LINEAR_MIPMAP_NEAREST, gl.NEAREST_MIPMAP_LINEAR, gl.LINEAR_MIPMAP_LINEAR:
			valid = true
		}
	case gl.TEXTURE_MAG_FILTER:
		valid = p == gl.NEAREST || p == gl.LINEAR
	case gl.TEXTURE_WRAP_S, gl.TEXTURE_WRAP_T:
		valid = p == gl.REPEAT || p == gl.CLAMP_TO_EDGE || p == gl.MIRRORED_REPEAT
	}
	if !valid {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	switch pname {
	case gl.TEXTURE_MIN_FILTER:
		t.minFilter = p
	case gl.TEXTURE_MAG_FILTER:
		t.magFilter = p
	case gl.TEXTURE_WRAP_S:
		t.wrapS = p
	case gl.TEXTURE_WRAP_T:
		t.wrapT = p
	}
}

// TexParameterf sets a texture parameter from a float.
func (c *Context) TexParameterf(target, pname gl.Enum, param float32) {
	c.TexParameteri(target, pname, int(param))
}

// TexParameterfv sets a texture parameter from params[0].
func (c *Context) TexParameterfv(target, pname gl.Enum, params []float32) {
	if len(params) == 0 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	c.TexParameteri(target, pname, int(params[0]))
}

// TexParameteriv sets a texture parameter from params[0].
func (c *Context) TexParameteriv(target, pname gl.Enum, params []int32) {
	if len(params) == 0 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	c.TexParameteri(target, pname, int(params[0]))
}

// GetTexParameteriv reads a texture parameter.
func (c *Context) GetTexParameteriv(dst []int32, target, pname gl.Enum) {
	t, ok := c.paramTarget(target)
	if !ok {
		return
	}
	var v gl.Enum
	switch pname {
	case gl.TEXTURE_MIN_FILTER:
		v = t.minFilter
	case gl.TEXTURE_MAG_FILTER:
		v = t.magFilter
	case gl.TEXTURE_WRAP_S:
		v = t.wrapS
	case gl.TEXTURE_WRAP_T:
		v = t.wrapT
	default:
		c.recordError(gl.INVALID_ENUM)
		return
	}
	if len(dst) > 0 {
		dst[0] = int32(v)
	}
}

// GetTexParameterfv reads a texture parameter as a float.
func (c *Context) GetTexParameterfv(dst []float32, target, pname gl.Enum) {
	var v [1]int32
	c.GetTexParameteriv(v[:], target, pname)
	if len(dst) > 0 {
		dst[0] = float32(v[0])
	}
}

// unpackToRGBA converts client pixel data (rows padded to the unpack
// alignment, first row = row 0) to tightly packed RGBA8. Data already in
// the stored layout is returned as it is (the driver copies it).
func (c *Context) unpackToRGBA(data []byte, w, h int, format, ty gl.Enum) ([]byte, bool) {
	if format == gl.RGBA && ty == gl.UNSIGNED_BYTE && w*4%c.unpackAlign == 0 {
		if h > 0 && len(data) < w*h*4 {
			return nil, false
		}
		return data[:w*h*4], true
	}
	return UnpackRGBA(nil, data, w, h, format, ty, c.unpackAlign)
}

// UnpackRGBA converts w×h client pixels of format/ty (rows padded to align
// bytes, as GL_UNPACK_ALIGNMENT says) to tightly packed RGBA8, the layout
// textures are stored in, writing into dst's memory when it is large
// enough; the result never aliases data. It reports false when data is
// too short. It touches no Context state, so a worker goroutine may run it
// while the context is used elsewhere (cmdbuf's asynchronous uploads).
func UnpackRGBA(dst, data []byte, w, h int, format, ty gl.Enum, align int) ([]byte, bool) {
	bpp := 0
	switch ty {
	case gl.UNSIGNED_SHORT_5_6_5, gl.UNSIGNED_SHORT_4_4_4_4, gl.UNSIGNED_SHORT_5_5_5_1:
		bpp = 2
	default:
		switch format {
		case gl.ALPHA, gl.LUMINANCE:
			bpp = 1
		case gl.LUMINANCE_ALPHA:
			bpp = 2
		case gl.RGB:
			bpp = 3
		case gl.RGBA, bgraEXT:
			bpp = 4
		}
	}
	if w < 0 || h < 0 || align < 1 {
		return nil, false
	}
	rowBytes := w * bpp
	stride := (rowBytes + align - 1) / align * align
	if h > 0 && len(data) < stride*(h-1)+rowBytes {
		return nil, false
	}
	n := w * h * 4
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	out := dst[:n]
	if format == gl.RGBA && ty == gl.UNSIGNED_BYTE {
		for y := 0; y < h; y++ {
			copy(out[y*w*4:(y+1)*w*4], data[y*stride:])
		}
		return out, true
	}
	// One loop per layout: the switch runs per row, not per pixel.
	for y := 0; y < h; y++ {
		src := data[y*stride : y*stride+rowBytes]
		dst := out[y*w*4 : (y+1)*w*4]
		switch {
		case ty == gl.UNSIGNED_SHORT_5_6_5:
			for x := 0; x < w; x++ {
				v := uint16(src[2*x]) | uint16(src[2*x+1])<<8
				d := dst[x*4 : x*4+4]
				d[0], d[1], d[2], d[3] = expand(v>>11, 5), expand(v>>5&63, 6), expand(v&31, 5), 255
			}
		case ty == gl.UNSIGNED_SHORT_4_4_4_4:
			for x := 0; x < w; x++ {
				v := uint16(src[2*x]) | uint16(src[2*x+1])<<8
				d := dst[x*4 : x*4+4]
				d[0], d[1], d[2], d[3] = expand(v>>12, 4), expand(v>>8&15, 4), expand(v>>4&15, 4), expand(v&15, 4)
			}
		case ty == gl.UNSIGNED_SHORT_5_5_5_1:
			for x := 0; x < w; x++ {
				v := uint16(src[2*x]) | uint16(src[2*x+1])<<8
				d := dst[x*4 : x*4+4]
				d[0], d[1], d[2], d[3] = expand(v>>11, 5), expand(v>>6&31, 5), expand(v>>1&31, 5), expand(v&1, 1)
			}
		case format == bgraEXT:
			for x := 0; x < w; x++ {
				s := src[x*4 : x*4+4 : x*4+4]
				d := dst[x*4 : x*4+4]
				d[0], d[1], d[2], d[3] = s[2], s[1], s[0], s[3]
			}
		case format == gl.RGB:
			for x := 0; x < w; x++ {
				s := src[x*3 : x*3+3 : x*3+3]
				binary.LittleEndian.PutUint32(dst[x*4:], uint32(s[0])|uint32(s[1])<<8|uint32(s[2])<<16|0xFF<<24)
			}
		case format == gl.LUMINANCE:
			for x, l := range src[:w] {
				d := dst[x*4 : x*4+4]
				d[0], d[1], d[2], d[3] = l, l, l, 255
			}
		case format == gl.LUMINANCE_ALPHA:
			for x := 0; x < w; x++ {
				d, l := dst[x*4:x*4+4], src[2*x]
				d[0], d[1], d[2], d[3] = l, l, l, src[2*x+1]
			}
		case format == gl.ALPHA:
			for x, a := range src[:w] {
				d := dst[x*4 : x*4+4]
				d[0], d[1], d[2], d[3] = 0, 0, 0, a
			}
		default:
			clear(dst) // no such layout (the caller validated format and type)
		}
	}
	return out, true
}

// expand widens an n-bit unsigned normalised value to 8 bits.
func expand(v uint16, n uint) byte {
	maxV := uint32(1)<<n - 1
	return byte((uint32(v)*255 + maxV/2) / maxV)
}

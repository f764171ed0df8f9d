package gles

import (
	"math"
	"strings"

	"github.com/tilegpu/tilegpu/gl"

	"github.com/tilegpu/tilegpu/pipe"
)

// baseExtensions are the extensions gles itself implements, each checked by
// a test that uses it through the whole stack: UNSIGNED_INT indices
// (DrawElements), the RGB8/RGBA8, DEPTH_COMPONENT24 and DEPTH24_STENCIL8
// renderbuffer formats (one Z24S8 surface serves as depth and stencil
// attachment), and NPOT textures with REPEAT/MIRRORED_REPEAT wrapping,
// mipmaps and GenerateMipmap (levels are floor(size/2^n), as the extension
// specifies).
const baseExtensions = "GL_OES_element_index_uint GL_OES_rgb8_rgba8 GL_OES_depth24 GL_OES_packed_depth_stencil GL_OES_texture_npot GL_OES_compressed_ETC1_RGB8_texture GL_EXT_texture_compression_dxt1 GL_EXT_texture_format_BGRA8888 GL_EXT_debug_marker GL_OES_vertex_array_object GL_ANGLE_instanced_arrays GL_EXT_read_format_bgra GL_EXT_discard_framebuffer GL_OES_mapbuffer GL_EXT_blend_minmax GL_EXT_multisampled_render_to_texture GL_OES_depth_texture GL_OES_texture_half_float GL_OES_texture_half_float_linear GL_NV_fbo_color_attachments GL_OES_required_internalformat"

// derivativesProbe is a fragment shader that uses every function of
// GL_OES_standard_derivatives; the extension is advertised when the
// screen's compiler accepts it.
const derivativesProbe = `#extension GL_OES_standard_derivatives : require
precision mediump float;
varying vec2 v;
void main() { gl_FragColor = vec4(dFdx(v.x), dFdy(v.y), fwidth(v)); }
`

// extensionString returns GL_EXTENSIONS, probing the compiler once.
func (c *Context) extensionString() string {
	if c.extensions == "" {
		c.extensions = baseExtensions
		if c.screen.CompileShader(pipe.StageFragment, derivativesProbe).OK() {
			c.extensions += " GL_OES_standard_derivatives"
		}
		c.extensions += " GL_EXT_clip_control"
		if _, ok := c.queryContext(); ok {
			c.extensions += " GL_EXT_occlusion_query_boolean"
		}
	}
	return c.extensions
}

// hasExtension reports whether GL_EXTENSIONS lists name.
func (c *Context) hasExtension(name string) bool {
	for _, e := range strings.Fields(c.extensionString()) {
		if e == name {
			return true
		}
	}
	return false
}

// state returns the value of a GetIntegerv/GetFloatv/GetBooleanv query.
// normalized marks colour-like values that GetIntegerv maps to the full
// integer range (ES 2.0 §6.1.2).
func (c *Context) state(pname gl.Enum) (v []float64, normalized, ok bool) {
	i := func(xs ...int) []float64 {
		out := make([]float64, len(xs))
		for k, x := range xs {
			out[k] = float64(x)
		}
		return out
	}
	e := func(x gl.Enum) []float64 { return []float64{float64(x)} }
	b := func(xs ...bool) []float64 {
		out := make([]float64, len(xs))
		for k, x := range xs {
			out[k] = float64(glBool(x))
		}
		return out
	}
	f := func(xs ...float32) []float64 {
		out := make([]float64, len(xs))
		for k, x := range xs {
			out[k] = float64(x)
		}
		return out
	}
	name := func(n uint32) []float64 { return []float64{float64(n)} }
	hasDepth, hasStencil := c.fbBits()
	if v, ok := c.extensionState(pname); ok { // vao.go
		return v, false, true
	}
	switch pname {
	case gl.ACTIVE_TEXTURE:
		return e(gl.TEXTURE0 + gl.Enum(c.activeUnit)), false, true
	case gl.ALIASED_LINE_WIDTH_RANGE:
		return f(1, 64), false, true
	case gl.ALIASED_POINT_SIZE_RANGE:
		return f(1, 64), false, true
	case gl.RED_BITS, gl.GREEN_BITS, gl.BLUE_BITS, gl.ALPHA_BITS:
		return i(c.colorBits()[pname-gl.RED_BITS]), false, true
	case gl.DEPTH_BITS:
		if hasDepth {
			return i(24), false, true
		}
		return i(0), false, true
	case gl.STENCIL_BITS:
		if hasStencil {
			return i(8), false, true
		}
		return i(0), false, true
	case gl.ARRAY_BUFFER_BINDING:
		if c.arrayBuffer != nil {
			return name(c.arrayBuffer.name), false, true
		}
		return i(0), false, true
	case gl.ELEMENT_ARRAY_BUFFER_BINDING:
		if c.elementBuffer != nil {
			return name(c.elementBuffer.name), false, true
		}
		return i(0), false, true
	case gl.BLEND:
		return b(c.enables[gl.BLEND]), false, true
	case gl.BLEND_COLOR:
		return f(c.blendColor[:]...), true, true
	case gl.BLEND_EQUATION_RGB:
		return e(c.blendEq[0]), false, true
	case gl.BLEND_EQUATION_ALPHA:
		return e(c.blendEq[1]), false, true
	case gl.BLEND_SRC_RGB:
		return e(c.blendFunc[0]), false, true
	case gl.BLEND_DST_RGB:
		return e(c.blendFunc[1]), false, true
	case gl.BLEND_SRC_ALPHA:
		return e(c.blendFunc[2]), false, true
	case gl.BLEND_DST_ALPHA:
		return e(c.blendFunc[3]), false, true
	case gl.COLOR_CLEAR_VALUE:
		return f(c.clearColor[:]...), true, true
	case gl.COLOR_WRITEMASK:
		return b(c.colorMask[:]...), false, true
	case gl.CULL_FACE:
		return b(c.enables[gl.CULL_FACE]), false, true
	case gl.CULL_FACE_MODE:
		return e(c.cullFace), false, true
	case gl.CURRENT_PROGRAM:
		if c.current != nil {
			return name(c.current.name), false, true
		}
		return i(0), false, true
	case gl.DEPTH_CLEAR_VALUE:
		return f(c.clearDepth), true, true
	case gl.DEPTH_FUNC:
		return e(c.depthFunc), false, true
	case gl.DEPTH_RANGE:
		return f(c.depthRange[:]...), true, true
	case gl.DEPTH_TEST:
		return b(c.enables[gl.DEPTH_TEST]), false, true
	case gl.DEPTH_WRITEMASK:
		return b(c.depthMask), false, true
	case gl.DITHER:
		return b(c.enables[gl.DITHER]), false, true
	case gl.FRAMEBUFFER_BINDING:
		if c.drawFB != nil {
			return name(c.drawFB.name), false, true
		}
		return i(0), false, true
	case gl.FRONT_FACE:
		return e(c.frontFace), false, true
	case gl.GENERATE_MIPMAP_HINT:
		return e(c.hints[gl.GENERATE_MIPMAP_HINT]), false, true
	case gl.FRAGMENT_SHADER_DERIVATIVE_HINT_OES:
		if !c.hasExtension("GL_OES_standard_derivatives") {
			return nil, false, false
		}
		return e(c.hints[gl.FRAGMENT_SHADER_DERIVATIVE_HINT_OES]), false, true
	case maxColorAttachmentsNV: // colorattach.go
		return i(numColorAttachments), false, true
	case gl.IMPLEMENTATION_COLOR_READ_FORMAT:
		f, _ := c.implReadFormat()
		return e(f), false, true
	case gl.IMPLEMENTATION_COLOR_READ_TYPE:
		_, t := c.implReadFormat()
		return e(t), false, true
	case gl.LINE_WIDTH:
		return f(c.lineWidth), false, true
	case gl.MAX_COMBINED_TEXTURE_IMAGE_UNITS:
		return i(len(c.units)), false, true
	case gl.MAX_TEXTURE_IMAGE_UNITS:
		return i(min(c.screen.GetParam(pipe.ParamMaxTextureUnits), len(c.units))), false, true
	case gl.MAX_VERTEX_TEXTURE_IMAGE_UNITS:
		return i(min(c.screen.GetParam(pipe.ParamMaxVertexTextureUnits), len(c.units))), false, true
	case gl.MAX_CUBE_MAP_TEXTURE_SIZE, gl.MAX_TEXTURE_SIZE:
		return i(c.screen.GetParam(pipe.ParamMaxTextureSize)), false, true
	case gl.MAX_RENDERBUFFER_SIZE:
		return i(c.screen.GetParam(pipe.ParamMaxRenderbufferSize)), false, true
	case gl.MAX_VIEWPORT_DIMS:
		m := c.screen.GetParam(pipe.ParamMaxViewportSize)
		return i(m, m), false, true
	case gl.MAX_VERTEX_ATTRIBS:
		return i(maxVertexAttribs), false, true
	case gl.MAX_VERTEX_UNIFORM_VECTORS:
		return i(c.screen.GetParam(pipe.ParamMaxVertexUniformVectors)), false, true
	case gl.MAX_FRAGMENT_UNIFORM_VECTORS:
		return i(c.screen.GetParam(pipe.ParamMaxFragmentUniformVectors)), false, true
	case gl.MAX_VARYING_VECTORS:
		return i(c.screen.GetParam(pipe.ParamMaxVaryingVectors)), false, true
	case gl.NUM_COMPRESSED_TEXTURE_FORMATS:
		return i(len(compressedFormats)), false, true
	case gl.COMPRESSED_TEXTURE_FORMATS:
		out := make([]float64, len(compressedFormats))
		for k, f := range compressedFormats {
			out[k] = float64(f)
		}
		return out, false, true
	case gl.NUM_SHADER_BINARY_FORMATS:
		return i(0), false, true
	case gl.SHADER_BINARY_FORMATS:
		return []float64{}, false, true
	case gl.PACK_ALIGNMENT:
		return i(c.packAlign), false, true
	case gl.UNPACK_ALIGNMENT:
		return i(c.unpackAlign), false, true
	case gl.POLYGON_OFFSET_FACTOR:
		return f(c.polyOffset[0]), false, true
	case gl.POLYGON_OFFSET_UNITS:
		return f(c.polyOffset[1]), false, true
	case gl.POLYGON_OFFSET_FILL:
		return b(c.enables[gl.POLYGON_OFFSET_FILL]), false, true
	case gl.RENDERBUFFER_BINDING:
		if c.renderbuffer != nil {
			return name(c.renderbuffer.name), false, true
		}
		return i(0), false, true
	case gl.SAMPLES:
		return i(c.drawSamples()), false, true
	case gl.SAMPLE_BUFFERS:
		if c.drawSamples() > 0 {
			return i(1), false, true
		}
		return i(0), false, true
	case maxSamplesEXT:
		return i(4), false, true
	case gl.SAMPLE_COVERAGE_VALUE:
		return f(c.sampleCov), false, true
	case gl.SAMPLE_COVERAGE_INVERT:
		return b(c.sampleInvert), false, true
	case gl.SAMPLE_ALPHA_TO_COVERAGE, gl.SAMPLE_COVERAGE, gl.SCISSOR_TEST, gl.STENCIL_TEST:
		return b(c.enables[pname]), false, true
	case gl.SCISSOR_BOX:
		return i(c.scissorBox[:]...), false, true
	case gl.SHADER_COMPILER:
		return b(true), false, true
	case gl.STENCIL_CLEAR_VALUE:
		return i(c.clearStencil), false, true
	case gl.STENCIL_FUNC:
		return e(c.stencil[0].fn), false, true
	case gl.STENCIL_REF:
		return i(c.stencil[0].ref), false, true
	case gl.STENCIL_VALUE_MASK:
		return []float64{float64(c.stencil[0].valueMask)}, false, true
	case gl.STENCIL_WRITEMASK:
		return []float64{float64(c.stencil[0].writeMask)}, false, true
	case gl.STENCIL_FAIL:
		return e(c.stencil[0].fail), false, true
	case gl.STENCIL_PASS_DEPTH_FAIL:
		return e(c.stencil[0].zfail), false, true
	case gl.STENCIL_PASS_DEPTH_PASS:
		return e(c.stencil[0].zpass), false, true
	case gl.STENCIL_BACK_FUNC:
		return e(c.stencil[1].fn), false, true
	case gl.STENCIL_BACK_REF:
		return i(c.stencil[1].ref), false, true
	case gl.STENCIL_BACK_VALUE_MASK:
		return []float64{float64(c.stencil[1].valueMask)}, false, true
	case gl.STENCIL_BACK_WRITEMASK:
		return []float64{float64(c.stencil[1].writeMask)}, false, true
	case gl.STENCIL_BACK_FAIL:
		return e(c.stencil[1].fail), false, true
	case gl.STENCIL_BACK_PASS_DEPTH_FAIL:
		return e(c.stencil[1].zfail), false, true
	case gl.STENCIL_BACK_PASS_DEPTH_PASS:
		return e(c.stencil[1].zpass), false, true
	case gl.SUBPIXEL_BITS:
		return i(4), false, true
	case gl.RESET_NOTIFICATION_STRATEGY:
		// GL_KHR_robustness: a reset loses the context (robust.go).
		return e(gl.LOSE_CONTEXT_ON_RESET), false, true
	case gl.CONTEXT_ROBUST_ACCESS:
		// Out-of-bounds accesses never reach another context's memory, but
		// they are not guaranteed to read zero: no robust buffer access.
		return i(0), false, true
	case gl.TEXTURE_BINDING_2D:
		if t := c.units[c.activeUnit].tex2D; t != nil {
			return name(t.name), false, true
		}
		return i(0), false, true
	case gl.TEXTURE_BINDING_CUBE_MAP:
		if t := c.units[c.activeUnit].cube; t != nil {
			return name(t.name), false, true
		}
		return i(0), false, true
	case gl.VIEWPORT:
		return i(c.viewport[:]...), false, true
	}
	return nil, false, false
}

// GetIntegerv reads state as integers.
func (c *Context) GetIntegerv(dst []int32, pname gl.Enum) {
	v, norm, ok := c.state(pname)
	if !ok {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	for k := 0; k < len(v) && k < len(dst); k++ {
		if norm {
			// Map [-1,1] linearly onto the full int32 range.
			dst[k] = int32(math.Max(math.Min(math.Round((v[k]*float64(math.MaxUint32)-1)/2), math.MaxInt32), math.MinInt32))
		} else {
			dst[k] = int32(int64(math.Round(v[k])))
		}
	}
}

// GetInteger reads one integer state value.
func (c *Context) GetInteger(pname gl.Enum) int {
	var v [4]int32
	c.GetIntegerv(v[:], pname)
	return int(v[0])
}

// GetFloatv reads state as floats.
func (c *Context) GetFloatv(dst []float32, pname gl.Enum) {
	v, _, ok := c.state(pname)
	if !ok {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	for k := 0; k < len(v) && k < len(dst); k++ {
		dst[k] = float32(v[k])
	}
}

// GetBooleanv reads state as booleans.
func (c *Context) GetBooleanv(dst []bool, pname gl.Enum) {
	v, _, ok := c.state(pname)
	if !ok {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	for k := 0; k < len(v) && k < len(dst); k++ {
		dst[k] = v[k] != 0
	}
}

// GetString returns VENDOR, RENDERER, VERSION, SHADING_LANGUAGE_VERSION or EXTENSIONS.
func (c *Context) GetString(pname gl.Enum) string {
	switch pname {
	case gl.VENDOR:
		return "tilegpu"
	case gl.RENDERER:
		return "tilegpu TG (virtual tile-based GPU)"
	case gl.VERSION:
		return "OpenGL ES 2.0 tilegpu"
	case gl.SHADING_LANGUAGE_VERSION:
		return "OpenGL ES GLSL ES 1.00 tilegpu"
	case gl.EXTENSIONS:
		return c.extensionString()
	}
	c.recordError(gl.INVALID_ENUM)
	return ""
}

package cmdbuf

import (
	"strings"

	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/gles"
)

// Asynchronous texture upload (AsyncTexSubImage2D, Chromium's
// AsyncTexImage2DCHROMIUM / async pixel transfers, background/004).
//
// gles is single-threaded per context, so the work is split: a worker
// goroutine reads the pixels from the client's transfer buffer and
// converts them to the stored layout (tightly packed RGBA8, gles.UnpackRGBA,
// which touches no context state) into service staging memory; the
// decoder goroutine, the only one that calls gles, later stores the
// converted pixels into the texture (gles.TexSubImage2DUnpacked: the GL
// validation and errors of TexSubImage2D, without the conversion). Until
// then the decoder keeps executing commands that can neither observe nor
// change a texture image (asyncIndependent); any other command, and the
// end of every batch the decoder executes, first completes the pending
// uploads in order. The session publishes its token only after a batch,
// so a token the client inserts after an asynchronous upload passes only
// once the texture holds the pixels and the worker has stopped reading the
// transfer buffer: that token is the upload's async token, and the
// transfer-buffer block is freed pending it like any other.
type asyncUpload struct {
	target, binding gl.Enum // the image's target; the binding point it is looked up at
	tex             uint32  // service name of the texture bound when the command was decoded
	level, x, y     int
	w, h            int
	format, ty      gl.Enum
	align           int
	data            []byte // the client's transfer-buffer range (read by the worker only)
	rgba            []byte // converted pixels (staging memory)
	ok              bool   // the data was long enough
	done            chan struct{}
}

// Bounds on what one client's decoder lets run ahead of it: pending
// uploads, and the staging bytes they hold.
const (
	maxPendingUploads = 16
	maxStagingBytes   = 64 << 20
)

// asyncState is the decoder's asynchronous-upload state.
type asyncState struct {
	pending []*asyncUpload
	staged  int      // staging bytes held by pending uploads
	free    [][]byte // staging memory to reuse
	// inline makes uploads complete within their command (replay, whose
	// memory records may overwrite a range a worker would still read).
	inline bool
}

// asyncIndependent[id] is true for commands that can neither observe nor
// change a texture's image or lifetime, so they may run while uploads are
// pending: state setting, texture bindings (an upload holds its texture by
// name), uniforms, vertex attributes, buffers, shaders and
// programs (a draw samples textures, Clear may write one through a
// framebuffer, and every query waits so that results stay exact).
var asyncIndependent = func() []bool {
	m := make([]bool, len(commandTable))
	for _, name := range []string{
		"Noop", "SetToken", "SetBucketSize", "SetBucketData", "SetBucketDataImmediate", "AsyncTexSubImage2D",
		"ActiveTexture", "AttachShader", "BindAttribLocation", "BindBuffer", "BindTexture", "BlendColor", "BlendEquation",
		"BlendEquationSeparate", "BlendFunc", "BlendFuncSeparate", "BufferData", "BufferInit", "BufferSubData",
		"ClearColor", "ClearDepthf", "ClearStencil", "ColorMask", "CompileShader", "CullFace", "DepthFunc",
		"DepthMask", "DepthRangef", "DetachShader", "Disable", "DisableVertexAttribArray", "Enable",
		"EnableVertexAttribArray", "FrontFace", "Hint", "LineWidth", "PixelStorei", "PolygonOffset",
		"SampleCoverage", "Scissor", "ShaderSource", "StencilFunc", "StencilFuncSeparate", "StencilMask",
		"StencilMaskSeparate", "StencilOp", "StencilOpSeparate", "UseProgram", "VertexAttribPointer", "Viewport",
	} {
		id, ok := commandByName(name)
		if !ok {
			panic("cmdbuf: asyncIndependent names unknown command " + name)
		}
		m[id] = true
	}
	for id := range m {
		if info, ok := Info(CommandID(id)); ok && (strings.HasPrefix(info.Name, "Uniform") || strings.HasPrefix(info.Name, "VertexAttrib")) {
			m[id] = true
		}
	}
	return m
}()

// commandByName finds a command id in the generated table.
func commandByName(name string) (CommandID, bool) {
	for id := range CommandID(len(commandTable)) {
		if info, ok := Info(id); ok && info.Name == name {
			return id, true
		}
	}
	return 0, false
}

// cubeFace reports whether target is a cube-map face.
func cubeFace(target gl.Enum) bool {
	return target >= gl.TEXTURE_CUBE_MAP_POSITIVE_X && target <= gl.TEXTURE_CUBE_MAP_NEGATIVE_Z
}

// asyncFormat reports whether format/ty is a combination ES 2.0 accepts
// for uploads (the others take the synchronous path, where gles raises
// its own error).
func asyncFormat(format, ty gl.Enum) bool {
	switch ty {
	case gl.UNSIGNED_BYTE:
		switch format {
		case gl.ALPHA, gl.LUMINANCE, gl.LUMINANCE_ALPHA, gl.RGB, gl.RGBA:
			return true
		}
	case gl.UNSIGNED_SHORT_5_6_5:
		return format == gl.RGB
	case gl.UNSIGNED_SHORT_4_4_4_4, gl.UNSIGNED_SHORT_5_5_5_1:
		return format == gl.RGBA
	}
	return false
}

func (d *decoder) doAsyncTexSubImage2D(target gl.Enum, level, x, y, w, h int, format, ty gl.Enum, size uint32, data []byte) error {
	binding := gl.Enum(gl.TEXTURE_BINDING_2D)
	if cubeFace(target) {
		binding = gl.TEXTURE_BINDING_CUBE_MAP
	} else if target != gl.TEXTURE_2D {
		binding = 0
	}
	var tex [1]int32
	if binding != 0 {
		d.gl.GetIntegerv(tex[:], binding)
	}
	// Anything unusual (a bad target or format, no texture bound, an
	// empty or oversized rectangle) runs synchronously, after the pending
	// uploads: gles decides, and reports the GL error in order.
	if d.async.inline || binding == 0 || tex[0] == 0 || !asyncFormat(format, ty) || w <= 0 || h <= 0 ||
		int64(w)*int64(h)*4 > maxStagingBytes {
		d.finishUploads()
		d.gl.TexSubImage2D(target, level, x, y, w, h, format, ty, data)
		return nil
	}
	var align [1]int32
	d.gl.GetIntegerv(align[:], gl.UNPACK_ALIGNMENT)
	if format == gl.RGBA && ty == gl.UNSIGNED_BYTE && (w*4)%int(align[0]) == 0 {
		// Already the stored layout: storing it is one copy, on this
		// goroutine either way (a worker would only add a copy into
		// staging memory). Earlier uploads go first.
		d.finishUploads()
		d.gl.TexSubImage2D(target, level, x, y, w, h, format, ty, data)
		return nil
	}
	if len(d.async.pending) >= maxPendingUploads || d.async.staged+w*h*4 > maxStagingBytes {
		d.finishUploads()
	}
	u := &asyncUpload{target: target, binding: binding, tex: uint32(tex[0]), level: level, x: x, y: y, w: w, h: h,
		format: format, ty: ty, align: int(align[0]), data: data, done: make(chan struct{})}
	n := w * h * 4
	for i, b := range d.async.free {
		if cap(b) >= n {
			u.rgba = b
			d.async.free = append(d.async.free[:i], d.async.free[i+1:]...)
			break
		}
	}
	d.async.pending = append(d.async.pending, u)
	d.async.staged += n
	go u.convert()
	return nil
}

// convert runs on the worker goroutine: it reads only u.data (client
// memory the client leaves alone until the upload's token passes) and
// writes only u.rgba.
func (u *asyncUpload) convert() {
	u.rgba, u.ok = gles.UnpackRGBA(u.rgba, u.data, u.w, u.h, u.format, u.ty, u.align)
	close(u.done)
}

// finishUploads waits for the pending uploads and stores them, oldest
// first, into the textures they were issued for (the decoder goroutine).
func (d *decoder) finishUploads() {
	if len(d.async.pending) == 0 {
		return
	}
	for _, u := range d.async.pending {
		<-u.done
		var prev [1]int32
		d.gl.GetIntegerv(prev[:], u.binding)
		bind := gl.Enum(gl.TEXTURE_2D)
		if u.binding == gl.TEXTURE_BINDING_CUBE_MAP {
			bind = gl.TEXTURE_CUBE_MAP
		}
		if uint32(prev[0]) != u.tex {
			d.gl.BindTexture(bind, gl.Texture{Value: u.tex})
		}
		rgba := u.rgba
		if !u.ok {
			rgba = nil // too little data: TexSubImage2D's INVALID_VALUE
		}
		d.gl.TexSubImage2DUnpacked(u.target, u.level, u.x, u.y, u.w, u.h, u.format, u.ty, rgba)
		if uint32(prev[0]) != u.tex {
			d.gl.BindTexture(bind, gl.Texture{Value: uint32(prev[0])})
		}
		if u.rgba != nil && len(d.async.free) < 4 {
			d.async.free = append(d.async.free, u.rgba[:0])
		}
		u.data, u.rgba = nil, nil
	}
	clear(d.async.pending)
	d.async.pending = d.async.pending[:0]
	d.async.staged = 0
}

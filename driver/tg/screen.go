package tg

import (
	"fmt"
	"time"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/pipe"
)

// Limits of the TG hardware as the driver exposes them. The shader limits
// are the compiler's (compiler/glsl's gl_Max* constants, which Link
// enforces and shaders read), so that GL queries and shaders agree; the
// texture unit table serves every stage, so its size is the combined count.
const (
	maxTextureSize  = 4096 // u16 descriptor fields allow more; 4096² RGBA8 is 64 MiB, plenty for ES 2.0 use
	maxTextureUnits = glsl.MaxCombinedTextureImageUnits
	maxFBSize       = 4096
)

// ScreenOptions configure a Screen.
type ScreenOptions struct {
	// Now is the clock of the BO cache; nil means time.Now. Tests inject one.
	Now func() time.Time
	// DrawMarkers puts a MARKER record carrying the draw id (the
	// context's draw count, from 1) before each draw in the binning list;
	// the binner copies it into the tile lists and the hardware keeps the
	// last one each unit passed (docs/hardware.md §4.1), for crash dumps.
	DrawMarkers bool
}

// Screen is the TG driver's pipe.Screen. It is safe for concurrent use.
type Screen struct {
	ws       Winsys
	compiler ShaderCompiler
	bos      *boCache
	numCores int
	numQPUs  int

	drawMarkers bool
}

var _ pipe.Screen = (*Screen)(nil)

// NewScreen creates the driver's screen over a kernel file and a compiler.
func NewScreen(ws Winsys, sc ShaderCompiler, opts ScreenOptions) (*Screen, error) {
	if ws == nil || sc == nil {
		return nil, fmt.Errorf("tg: NewScreen needs a winsys and a compiler")
	}
	s := &Screen{ws: ws, compiler: sc, bos: newBOCache(ws, opts.Now), drawMarkers: opts.DrawMarkers}
	if v, err := ws.GetParam(KernelParamNumCores); err == nil {
		s.numCores = int(v)
	}
	s.numQPUs = 1
	if v, err := ws.GetParam(KernelParamNumQPUs); err == nil && v > 0 {
		s.numQPUs = int(v)
	}
	return s, nil
}

// GetParam implements pipe.Screen.
func (s *Screen) GetParam(p pipe.Param) int {
	counter := func(k KernelParam) int {
		v, err := s.ws.GetParam(k)
		if err != nil {
			return 0
		}
		return int(v)
	}
	switch p {
	case pipe.ParamMaxTextureSize:
		return maxTextureSize
	case pipe.ParamMaxTextureUnits:
		return glsl.MaxTextureImageUnits
	case pipe.ParamMaxVertexTextureUnits:
		return glsl.MaxVertexTextureImageUnits
	case pipe.ParamMaxCombinedTextureUnits:
		return glsl.MaxCombinedTextureImageUnits
	case pipe.ParamMaxVertexAttribs:
		return glsl.MaxVertexAttribs
	case pipe.ParamMaxViewportSize, pipe.ParamMaxRenderbufferSize:
		return maxFBSize
	case pipe.ParamMaxVertexUniformVectors:
		return glsl.MaxVertexUniformVectors
	case pipe.ParamMaxFragmentUniformVectors:
		return glsl.MaxFragmentUniformVectors
	case pipe.ParamMaxVaryingVectors:
		return glsl.MaxVaryingVectors
	case pipe.ParamNumCores:
		return s.numCores
	case pipe.ParamQPUInstructions:
		return counter(KernelParamQPUInstructions)
	case pipe.ParamTriangles:
		return counter(KernelParamTriangles)
	case pipe.ParamFragments:
		return counter(KernelParamFragments)
	case pipe.ParamVertices:
		return counter(KernelParamVertices)
	case pipe.ParamTiles:
		return counter(KernelParamTiles)
	}
	return 0
}

// BOCacheStats reports the BO cache's state.
func (s *Screen) BOCacheStats() CacheStats { return s.bos.stats() }

// CompileShader implements pipe.Screen.
func (s *Screen) CompileShader(stage pipe.ShaderStage, source string) pipe.CompiledShader {
	return s.compiler.Compile(stage, source)
}

// LinkProgram implements pipe.Screen.
func (s *Screen) LinkProgram(vs, fs pipe.CompiledShader, bindings map[string]int) pipe.LinkedProgram {
	return s.compiler.Link(vs, fs, bindings)
}

// ContextCreate implements pipe.Screen.
func (s *Screen) ContextCreate() (pipe.Context, error) { return newContext(s), nil }

// NewContext is ContextCreate with the concrete type.
func (s *Screen) NewContext() *Context { return newContext(s) }

// Destroy frees the BO cache. Resources and contexts must be destroyed first.
func (s *Screen) Destroy() { s.bos.close() }

// Resource is a TG resource: a BO and the layout of its levels (level n of
// face f at f·faceStride + the sizes of levels 0..n−1, rows packed, row 0
// first). A resource may be used by the contexts of its screen, but by one
// goroutine at a time.
type Resource struct {
	tmpl       pipe.ResourceTemplate
	bo         *BO
	size       uint32   // bytes of data (≤ bo.Size)
	levelOff   []uint32 // byte offset of each level within a face
	faceStride uint32
	faces      int

	// renderTarget is set once a job has rendered to the resource: the GPU
	// writes it, so CPU writes must wait rather than rename.
	renderTarget bool
	// stencilWritten is set once anything may have written non-zero
	// stencil values (a Z24S8 surface), so a depth-only clear must keep them.
	stencilWritten bool
	// maxIndex caches the largest index of index ranges (indexed draws).
	maxIndex map[indexRange]uint32
}

type indexRange struct {
	offset, count, size int
}

var _ pipe.Resource = (*Resource)(nil)

// Template implements pipe.Resource.
func (r *Resource) Template() pipe.ResourceTemplate { return r.tmpl }

// BO returns the resource's current buffer object.
func (r *Resource) BO() *BO { return r.bo }

// levelSize returns the width and height of a mip level.
func (r *Resource) levelSize(level int) (int, int) {
	w, h := r.tmpl.Width>>level, r.tmpl.Height>>level
	return max(w, 1), max(h, 1)
}

// levelStride is the row pitch of a level in bytes.
func (r *Resource) levelStride(level int) uint32 {
	w, _ := r.levelSize(level)
	return uint32(w * r.tmpl.Format.BytesPerPixel() * r.samples())
}

// samples is 4 for a resource that keeps four samples per pixel
// (16-byte pixels: sample s at +4s), 1 otherwise.
func (r *Resource) samples() int {
	if r.tmpl.Samples == 4 {
		return 4
	}
	return 1
}

// imageOffset is the byte offset of a face's level.
func (r *Resource) imageOffset(face, level int) uint32 {
	return uint32(face)*r.faceStride + r.levelOff[level]
}

// ResourceCreate implements pipe.Screen.
func (s *Screen) ResourceCreate(t pipe.ResourceTemplate) (pipe.Resource, error) {
	return s.newResource(t)
}

func (s *Screen) newResource(t pipe.ResourceTemplate) (*Resource, error) {
	r := &Resource{tmpl: t, faces: 1}
	switch t.Target {
	case pipe.TargetBuffer:
		if t.Width < 0 || t.Width > 1<<30 {
			return nil, fmt.Errorf("tg: buffer size %d out of range", t.Width)
		}
		r.size = uint32(t.Width)
		r.levelOff = []uint32{0}
		r.tmpl.Height, r.tmpl.Levels = 1, 1
	case pipe.TargetTexture2D, pipe.TargetTextureCube, pipe.TargetRenderbuffer:
		bpp := t.Format.BytesPerPixel()
		if bpp == 0 {
			return nil, fmt.Errorf("tg: resource format %d is not supported", t.Format)
		}
		switch {
		case t.Samples == 4 && t.Target == pipe.TargetRenderbuffer && t.Format == pipe.FormatZ24S8:
			bpp *= 4 // every sample (hardware AllSamples layout)
		case t.Samples > 1:
			return nil, fmt.Errorf("tg: %d samples per pixel: only 4-sample depth/stencil renderbuffers keep their samples", t.Samples)
		}
		if t.Width < 1 || t.Height < 1 || t.Width > maxTextureSize || t.Height > maxTextureSize {
			return nil, fmt.Errorf("tg: resource size %dx%d out of range 1..%d", t.Width, t.Height, maxTextureSize)
		}
		if t.Levels < 1 {
			r.tmpl.Levels = 1
		}
		if t.Target == pipe.TargetTextureCube {
			if t.Width != t.Height {
				return nil, fmt.Errorf("tg: cube map faces must be square, have %dx%d", t.Width, t.Height)
			}
			r.faces = 6
		}
		var off uint32
		for l := 0; l < r.tmpl.Levels; l++ {
			r.levelOff = append(r.levelOff, off)
			w, h := r.levelSize(l)
			off += uint32(w * h * bpp)
		}
		// Faces start 64-byte aligned so every level address stays word aligned.
		r.faceStride = (off + 63) &^ 63
		r.size = r.faceStride * uint32(r.faces)
	default:
		return nil, fmt.Errorf("tg: resource target %d is not supported", t.Target)
	}
	bo, err := s.bos.alloc(r.size, resourceName(t))
	if err != nil {
		return nil, err
	}
	clear(bo.Map)
	r.bo = bo
	return r, nil
}

func resourceName(t pipe.ResourceTemplate) string {
	switch t.Target {
	case pipe.TargetBuffer:
		return "buffer"
	case pipe.TargetRenderbuffer:
		return "renderbuffer"
	}
	return "texture"
}

// ResourceDestroy implements pipe.Screen. Jobs that still use the resource
// keep its BO alive until they are submitted; the Resource must not be
// passed to the driver again.
func (s *Screen) ResourceDestroy(pr pipe.Resource) {
	r, ok := pr.(*Resource)
	if !ok || r == nil || r.bo == nil {
		return
	}
	r.bo.Release()
	r.bo = nil
}

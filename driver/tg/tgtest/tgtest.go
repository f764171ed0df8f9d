// Package tgtest provides test doubles for the TG driver's two lower
// interfaces: Winsys, an in-memory kernel that records submissions, and
// Compiler, a declarations-only "compiler" that reports the attributes and
// uniforms a GLSL source declares. With them the driver and the GL state
// tracker above it can be tested without the kernel, the hardware or the
// real shader compiler. Nothing here renders pixels.
//
// Both types are safe for use by one goroutine at a time only.
package tgtest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tilegpu/tilegpu/driver/tg"
	"github.com/tilegpu/tilegpu/pipe"
)

// Winsys is an in-memory tg.Winsys.
type Winsys struct {
	next    uint32
	BOs     map[uint32][]byte
	Submits []*tg.Submit
}

var _ tg.Winsys = (*Winsys)(nil)

// NewWinsys returns an empty in-memory kernel.
func NewWinsys() *Winsys { return &Winsys{BOs: map[uint32][]byte{}} }

// CreateBO implements tg.Winsys.
func (w *Winsys) CreateBO(size uint32) (uint32, []byte, error) {
	w.next++
	m := make([]byte, size)
	w.BOs[w.next] = m
	return w.next, m, nil
}

// CloseBO implements tg.Winsys.
func (w *Winsys) CloseBO(h uint32) error {
	if _, ok := w.BOs[h]; !ok {
		return fmt.Errorf("tgtest: no BO %d", h)
	}
	delete(w.BOs, h)
	return nil
}

// Submit implements tg.Winsys by recording a copy of the submission.
func (w *Winsys) Submit(s *tg.Submit) (uint64, error) {
	cp := *s
	w.Submits = append(w.Submits, &cp)
	return uint64(len(w.Submits)), nil
}

// Wait implements tg.Winsys; every fence has signalled.
func (w *Winsys) Wait(uint64, time.Duration) error { return nil }

// WaitBO implements tg.Winsys; every BO is idle.
func (w *Winsys) WaitBO(uint32, time.Duration) error { return nil }

// GetParam implements tg.Winsys.
func (w *Winsys) GetParam(p tg.KernelParam) (uint64, error) {
	switch p {
	case tg.KernelParamNumCores:
		return 1, nil
	case tg.KernelParamNumQPUs:
		return 4, nil
	}
	return 0, nil
}

// Compiler is a tg.ShaderCompiler that only reads declarations. A source
// containing the word "#error" fails to compile with that line as its log.
type Compiler struct{}

var _ tg.ShaderCompiler = Compiler{}

type shader struct {
	stage  pipe.ShaderStage
	ok     bool
	log    string
	decls  []decl
	source string
}

type decl struct {
	qual, typ, name string
	size            int // 0: not an array
}

func (s *shader) Stage() pipe.ShaderStage { return s.stage }
func (s *shader) OK() bool                { return s.ok }
func (s *shader) Log() string             { return s.log }

var declRE = regexp.MustCompile(`(?m)^\s*(attribute|uniform)\s+(?:(?:lowp|mediump|highp)\s+)?(\w+)\s+(\w+)\s*(?:\[\s*(\d+)\s*\])?\s*;`)

// Compile implements tg.ShaderCompiler.
func (Compiler) Compile(stage pipe.ShaderStage, src string) pipe.CompiledShader {
	s := &shader{stage: stage, ok: true, source: src}
	if i := strings.Index(src, "#error"); i >= 0 {
		s.ok = false
		line := src[i:]
		if j := strings.IndexByte(line, '\n'); j >= 0 {
			line = line[:j]
		}
		s.log = "ERROR: 0:1: " + line + "\n"
		return s
	}
	for _, m := range declRE.FindAllStringSubmatch(src, -1) {
		d := decl{qual: m[1], typ: m[2], name: m[3]}
		if m[4] != "" {
			d.size, _ = strconv.Atoi(m[4])
		}
		s.decls = append(s.decls, d)
	}
	return s
}

// GL type enums and slot counts of the declared types.
var glTypes = map[string]struct {
	enum  uint32
	slots int
}{
	"float": {0x1406, 1}, "vec2": {0x8B50, 2}, "vec3": {0x8B51, 3}, "vec4": {0x8B52, 4},
	"int": {0x1404, 1}, "ivec2": {0x8B53, 2}, "ivec3": {0x8B54, 3}, "ivec4": {0x8B55, 4},
	"bool": {0x8B56, 1}, "bvec2": {0x8B57, 2}, "bvec3": {0x8B58, 3}, "bvec4": {0x8B59, 4},
	"mat2": {0x8B5A, 4}, "mat3": {0x8B5B, 9}, "mat4": {0x8B5C, 16},
	"sampler2D": {0x8B5E, 1}, "samplerCube": {0x8B60, 1},
}

// Program is a linked declarations-only program.
type Program struct {
	attrs, unifs []pipe.ActiveVariable
	storage      int
}

var _ tg.LinkedProgram = (*Program)(nil)

func (p *Program) OK() bool                          { return true }
func (p *Program) Log() string                       { return "" }
func (p *Program) Attributes() []pipe.ActiveVariable { return p.attrs }
func (p *Program) Uniforms() []pipe.ActiveVariable   { return p.unifs }
func (p *Program) StorageSize() int                  { return p.storage }

// Variant returns empty code whose uniform streams read every storage slot
// and one texture per sampler slot, and reads every attribute.
func (p *Program) Variant(tg.VariantKey) (*tg.Variant, error) {
	var u []tg.UniformEntry
	for _, v := range p.unifs {
		info := glTypes[typeName(v.Type)]
		for k := 0; k < max(v.Size, 1)*info.slots; k++ {
			kind := tg.UniformStorage
			if v.Type == 0x8B5E || v.Type == 0x8B60 {
				kind = tg.UniformTexture
			}
			u = append(u, tg.UniformEntry{Kind: kind, Index: uint32(v.Storage + k)})
		}
	}
	var attrs []int
	for _, a := range p.attrs {
		attrs = append(attrs, a.Location)
	}
	return &tg.Variant{
		VS: &tg.Binary{Code: []uint64{0}}, CS: &tg.Binary{Code: []uint64{0}},
		FS: &tg.Binary{Code: []uint64{0}, Uniforms: u}, Attributes: attrs, FSThreaded: true,
	}, nil
}

func typeName(enum uint32) string {
	for k, v := range glTypes {
		if v.enum == enum {
			return k
		}
	}
	return ""
}

// Link implements tg.ShaderCompiler: attributes get bound locations or the
// lowest free ones, uniforms consecutive locations and storage slots.
func (Compiler) Link(vs, fs pipe.CompiledShader, bindings map[string]int) tg.LinkedProgram {
	p := &Program{}
	used := map[int]bool{}
	for _, l := range bindings {
		used[l] = true
	}
	seen := map[string]bool{}
	loc := 0
	for _, sh := range []pipe.CompiledShader{vs, fs} {
		s, ok := sh.(*shader)
		if !ok {
			continue
		}
		for _, d := range s.decls {
			info, known := glTypes[d.typ]
			if !known || seen[d.qual+d.name] {
				continue
			}
			seen[d.qual+d.name] = true
			if d.qual == "attribute" {
				l, ok := bindings[d.name]
				if !ok {
					for l = 0; used[l]; l++ {
					}
					used[l] = true
				}
				p.attrs = append(p.attrs, pipe.ActiveVariable{Name: d.name, Type: info.enum, Size: 1, Location: l})
				continue
			}
			name, size := d.name, 1
			if d.size > 0 {
				name, size = d.name+"[0]", d.size
			}
			p.unifs = append(p.unifs, pipe.ActiveVariable{Name: name, Type: info.enum, Size: size, Location: loc, Storage: p.storage})
			loc += size
			p.storage += size * info.slots
		}
	}
	return p
}

package tg

import (
	"fmt"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/pipe"
)

// fakeWinsys is an in-memory kernel: BOs are Go slices, submissions are
// recorded, and BOs can be marked busy.
type fakeWinsys struct {
	next      uint32
	bos       map[uint32][]byte
	closed    []uint32
	busy      map[uint32]bool
	submits   []*Submit
	limit     int // bytes of live BOs allowed; 0 = unlimited
	liveBytes int
	fenceErr  map[uint64]error // Wait's result per fence (nil: success)
}

func newFakeWinsys() *fakeWinsys {
	return &fakeWinsys{bos: map[uint32][]byte{}, busy: map[uint32]bool{}}
}

func (w *fakeWinsys) CreateBO(size uint32) (uint32, []byte, error) {
	if w.limit > 0 && w.liveBytes+int(size) > w.limit {
		return 0, nil, fmt.Errorf("fake: %w", ErrNoMemory)
	}
	w.next++
	m := make([]byte, size)
	w.bos[w.next] = m
	w.liveBytes += int(size)
	return w.next, m, nil
}

func (w *fakeWinsys) CloseBO(h uint32) error {
	m, ok := w.bos[h]
	if !ok {
		return fmt.Errorf("fake: no BO %d", h)
	}
	w.liveBytes -= len(m)
	delete(w.bos, h)
	w.closed = append(w.closed, h)
	return nil
}

func (w *fakeWinsys) Submit(s *Submit) (uint64, error) {
	cp := *s
	w.submits = append(w.submits, &cp)
	return uint64(len(w.submits)), nil
}

func (w *fakeWinsys) Wait(f uint64, _ time.Duration) error { return w.fenceErr[f] }

func (w *fakeWinsys) WaitBO(h uint32, timeout time.Duration) error {
	if w.busy[h] {
		return fmt.Errorf("fake: BO %d busy", h)
	}
	return nil
}

func (w *fakeWinsys) GetParam(p KernelParam) (uint64, error) {
	switch p {
	case KernelParamNumCores:
		return 2, nil
	case KernelParamNumQPUs:
		return 8, nil
	}
	return 0, fmt.Errorf("fake: no param %d", p)
}

// fakeCompiler links every program to one variant that reads attribute
// location 0 and four storage slots per stage, plus a texture on the
// storage slot 4 when the fragment source says "tex".
type fakeCompiler struct {
	variants int
	// edit, when set, changes each variant before it is returned.
	edit func(*Variant)
}

type fakeShader struct {
	stage pipe.ShaderStage
	src   string
}

func (s *fakeShader) Stage() pipe.ShaderStage { return s.stage }
func (s *fakeShader) OK() bool                { return true }
func (s *fakeShader) Log() string             { return "" }

type fakeProgram struct {
	c   *fakeCompiler
	tex bool
}

func (p *fakeProgram) OK() bool    { return true }
func (p *fakeProgram) Log() string { return "" }
func (p *fakeProgram) Attributes() []pipe.ActiveVariable {
	return []pipe.ActiveVariable{{Name: "a_pos", Type: 0x8B52, Size: 1, Location: 0}}
}
func (p *fakeProgram) Uniforms() []pipe.ActiveVariable {
	return []pipe.ActiveVariable{{Name: "u_color", Type: 0x8B52, Size: 1, Location: 0, Storage: 0}}
}
func (p *fakeProgram) StorageSize() int { return 5 }

func (p *fakeProgram) Variant(key VariantKey) (*Variant, error) {
	p.c.variants++
	u := []UniformEntry{{Kind: UniformStorage, Index: 0}, {Kind: UniformStorage, Index: 1}, {Kind: UniformStorage, Index: 2}, {Kind: UniformStorage, Index: 3}}
	fs := append([]UniformEntry(nil), u...)
	if p.tex {
		fs = append(fs, UniformEntry{Kind: UniformTexture, Index: 4})
	}
	v := &Variant{
		VS:         &Binary{Code: []uint64{1, 2, 3}, Uniforms: u},
		CS:         &Binary{Code: []uint64{4, 5}, Uniforms: u[:1]},
		FS:         &Binary{Code: []uint64{6}, Uniforms: fs},
		Attributes: []int{0},
		FSThreaded: true,
	}
	if p.c.edit != nil {
		p.c.edit(v)
	}
	return v, nil
}

func (c *fakeCompiler) Compile(stage pipe.ShaderStage, src string) pipe.CompiledShader {
	return &fakeShader{stage, src}
}

func (c *fakeCompiler) Link(vs, fs pipe.CompiledShader, _ map[string]int) LinkedProgram {
	return &fakeProgram{c: c, tex: fs.(*fakeShader).src == "tex"}
}

// fakeClock is a settable clock for the BO cache.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// rig is a context with a framebuffer, a program, a vertex buffer and a
// vertex layout, ready to draw.
type rig struct {
	ws    *fakeWinsys
	s     *Screen
	c     *Context
	color *Resource
	zs    *Resource
	vb    *Resource
	clock *fakeClock
}

func newRig(t *testing.T, fsSrc string) *rig {
	t.Helper()
	return newRigWith(t, fsSrc, nil)
}

// newRigWith is newRig with a compiler whose variants edit changes.
func newRigWith(t *testing.T, fsSrc string, edit func(*Variant)) *rig {
	t.Helper()
	ws := newFakeWinsys()
	clock := &fakeClock{t: time.Unix(1000, 0)}
	s, err := NewScreen(ws, &fakeCompiler{edit: edit}, ScreenOptions{Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	c := s.NewContext()
	color, err := s.newResource(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: pipe.FormatRGBA8, Width: 100, Height: 70, Levels: 1})
	if err != nil {
		t.Fatal(err)
	}
	zs, err := s.newResource(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: pipe.FormatZ24S8, Width: 100, Height: 70, Levels: 1})
	if err != nil {
		t.Fatal(err)
	}
	vb, err := s.newResource(pipe.ResourceTemplate{Target: pipe.TargetBuffer, Width: 3 * 8})
	if err != nil {
		t.Fatal(err)
	}
	c.SetFramebufferState(&pipe.FramebufferState{Width: 100, Height: 70, Color: pipe.Surface{Resource: color}, ZS: pipe.Surface{Resource: zs}})
	c.SetViewportState(&pipe.ViewportState{Scale: [3]float32{50, 35, 0.5}, Translate: [3]float32{50, 35, 0.5}})
	lp := s.LinkProgram(s.CompileShader(pipe.StageVertex, "vs"), s.CompileShader(pipe.StageFragment, fsSrc), nil)
	ph, err := c.CreateProgramState(lp)
	if err != nil {
		t.Fatal(err)
	}
	c.BindProgramState(ph)
	c.SetVertexBuffers([]pipe.VertexBuffer{{Resource: vb, Stride: 8}})
	c.BindVertexElementsState(c.CreateVertexElementsState([]pipe.VertexElement{{Type: pipe.VertexFloat, Components: 2}}))
	c.SetUniformStorage([]uint32{1, 2, 3, 4, 0})
	return &rig{ws: ws, s: s, c: c, color: color, zs: zs, vb: vb, clock: clock}
}

// opcodes decodes a binning control list into its record opcodes.
func opcodes(t *testing.T, bcl []byte) []uint8 {
	t.Helper()
	var ops []uint8
	for off := 0; off < len(bcl); {
		n, ok := cl.RecordSize(bcl[off])
		if !ok {
			t.Fatalf("bin CL offset %d: unknown opcode %d", off, bcl[off])
		}
		ops = append(ops, bcl[off])
		off += n
	}
	return ops
}

func opNames(ops []uint8) []string {
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = cl.RecordLayout(op).Name
	}
	return out
}

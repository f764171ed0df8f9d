package difftest

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strings"

	"github.com/tilegpu/tilegpu/compiler/backend"
	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
	"github.com/tilegpu/tilegpu/hw/qpu"
)

// Lanes is the batch width every check runs.
const Lanes = qpu.Lanes

// Inputs are the values one check feeds the shader: per-lane varyings and
// window coordinates, and uniforms shared by all lanes.
type Inputs struct {
	VA, VB      [Lanes][4]float32
	FragCoord   [Lanes][4]float32
	FrontFacing [Lanes]bool
	U           [4]float32
	UA          [4]float32
	UI          int32
}

// extremeFloats are the inputs where comparisons of a − b and float
// quotients of integers go wrong: infinities (equal ones subtract to NaN),
// NaN, signed zeros, the largest finite values, denormals, and integers
// beyond 2^24 and near 2^31 (which int() turns into large ints).
var extremeFloats = []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 0, float32(math.Copysign(0, -1)),
	math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, -1e-40, 16777216, 16777218, -33554436,
	2147483520, -2147483648, 1e20}

// extremeInts are uniform ints at the ends of the int32 range and beyond
// 2^24.
var extremeInts = []int32{math.MaxInt32, math.MinInt32, math.MinInt32 + 1, 1<<24 + 1, -(1<<24 + 3), 1 << 30, 46341, -3}

// NewInputs returns inputs chosen by seed. Lanes get different values:
// small binary fractions, integers and zeros (where floor, fract, step and
// comparisons change), and values that are not exactly representable.
// Every third seed also mixes in extremeFloats and extremeInts (issue 10:
// infinities, NaN and large integers must compare and divide the same on
// the hardware as in the IR).
func NewInputs(seed int64) *Inputs {
	r := rand.New(rand.NewSource(seed))
	extreme := seed%3 == 0
	// A few extreme values per seed, each used often, so that two
	// operands are often the same infinity.
	var pool [3]float32
	for i := range pool {
		pool[i] = extremeFloats[r.Intn(len(extremeFloats))]
	}
	val := func() float32 {
		if extreme && r.Intn(2) == 0 {
			return pool[r.Intn(len(pool))]
		}
		switch r.Intn(6) {
		case 0:
			return float32(r.Intn(9) - 4)
		case 1:
			return 0
		case 2:
			return float32(r.Float64()*8 - 4)
		}
		return float32(r.Intn(129)-64) / 16
	}
	in := &Inputs{UI: int32(r.Intn(11) - 5)}
	if extreme {
		in.UI = extremeInts[r.Intn(len(extremeInts))]
	}
	for l := 0; l < Lanes; l++ {
		for c := 0; c < 4; c++ {
			in.VA[l][c], in.VB[l][c] = val(), val()
		}
		// A 4×4 block of pixels as in hardware.md §7.3.
		q := l >> 2
		x := 2*(q&1) + l&1
		y := 2*(q>>1) + (l>>1)&1
		in.FragCoord[l] = [4]float32{float32(x) + 0.5, float32(y) + 0.5, float32(r.Intn(256)) / 256, 1 / float32(1+r.Intn(8))}
		in.FrontFacing[l] = r.Intn(2) == 0
	}
	for c := 0; c < 4; c++ {
		in.U[c], in.UA[c] = val(), val()
	}
	return in
}

// Mismatch is a disagreement between the oracle and the compiled code (or
// between the IR before and after the passes), with everything needed to
// reproduce and diagnose it.
type Mismatch struct {
	Stage    string // "passes" (IR before vs after the passes) or "backend" (IR vs machine code)
	Source   string
	IRBefore string // ir.Dump straight from the AST
	IRAfter  string // ir.Dump of the scalar IR the backend compiled
	Listing  string // allocated QIR and disassembly (backend.Binary.Listing)
	Lanes    []LaneDiff

	// listing makes Listing when a failure is reported (formatting it
	// for every program was a tenth of Check's time).
	listing func() string
}

// LaneDiff is one lane whose results differ.
type LaneDiff struct {
	Lane      int
	What      string // "color.r".."color.a" or "discard"
	Want, Got string
	Inputs    string
}

func (m *Mismatch) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "difftest: %s mismatch in %d lane result(s)\n", m.Stage, len(m.Lanes))
	for _, d := range m.Lanes {
		fmt.Fprintf(&b, "  lane %2d %s: want %s, got %s   [%s]\n", d.Lane, d.What, d.Want, d.Got, d.Inputs)
	}
	b.WriteString(m.context())
	return b.String()
}

// context is the source and whichever dumps exist.
func (m *Mismatch) context() string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- GLSL ---\n%s", m.Source)
	if m.IRBefore != "" && m.Stage != "backend" {
		fmt.Fprintf(&b, "--- IR before passes ---\n%s", m.IRBefore)
	}
	if m.IRAfter != "" {
		fmt.Fprintf(&b, "--- IR after passes ---\n%s", m.IRAfter)
	}
	if m.Listing != "" {
		fmt.Fprintf(&b, "--- code ---\n%s", m.Listing)
	}
	return b.String()
}

// Summary is the first line of Error plus the differing lanes, without the
// dumps.
func (m *Mismatch) Summary() string {
	s := m.Error()
	if i := strings.Index(s, "--- GLSL"); i >= 0 {
		return s[:i]
	}
	return s
}

// Check compiles src (a fragment shader over the inputs Generate uses)
// through the real pipeline, runs it on hw/qpu with in, and compares every
// lane with ir.Interpret. It returns nil when all agree, a *Mismatch when
// they differ, and another error when a stage rejects the program.
func Check(src string, in *Inputs) error {
	unit, errs := glsl.Parse(glsl.Fragment, src)
	if errs != nil {
		return fmt.Errorf("difftest: front end rejected the program:\n%s--- GLSL ---\n%s", errs.InfoLog(), src)
	}
	f, err := ir.FromAST(unit)
	if err != nil {
		return fmt.Errorf("difftest: %v\n--- GLSL ---\n%s", err, src)
	}
	// Dumps are slow, so they are made only on failure (lowering is
	// deterministic: the IR before the passes is lowered again).
	m := &Mismatch{Source: src}
	fail := func(what string, err error) error {
		if f0, err := ir.FromAST(unit); err == nil {
			m.IRBefore = ir.Dump(f0)
		}
		m.IRAfter = ir.Dump(f)
		if m.listing != nil {
			m.Listing = m.listing()
		}
		if err == nil {
			return m
		}
		return fmt.Errorf("difftest: %s: %v\n%s", what, err, m.context())
	}
	layout := ir.SequentialLayout(f)

	before, err := ir.Interpret(f, varEnv(in))
	if err != nil {
		return fail("interpret before passes", err)
	}
	if err := ir.Run(f, ir.Options{Layout: layout}); err != nil {
		return fail("passes", err)
	}
	if err := ir.Verify(f, ir.FormScalar); err != nil {
		return fmt.Errorf("difftest: IR after passes is not in scalar form: %v\n%s--- IR ---\n%s", err, src, ir.Dump(f))
	}
	env := loweredEnv(in, layout)
	after, err := ir.Interpret(f, env)
	if err != nil {
		return fail("interpret after passes", err)
	}
	beforeColor := before.Vars["gl_FragColor"]
	for l := 0; l < Lanes; l++ {
		if before.Discarded[l] != after.Discarded[l] {
			m.Lanes = append(m.Lanes, LaneDiff{l, "discard", fmt.Sprint(before.Discarded[l]), fmt.Sprint(after.Discarded[l]), in.lane(l)})
			continue
		}
		if before.Discarded[l] {
			continue
		}
		for c := 0; c < 4; c++ {
			var want uint32
			if l < len(beforeColor) {
				want = beforeColor[l][c]
			}
			got := word(after, l, c)
			if !sameFloat(want, got, 0) {
				m.Lanes = append(m.Lanes, LaneDiff{l, "color." + "rgba"[c:c+1], fmtF(want), fmtF(got), in.lane(l)})
			}
		}
	}
	if len(m.Lanes) > 0 {
		m.Stage = "passes"
		return fail("", nil)
	}

	opts := backend.Options{Stage: ir.Fragment, Threaded: true}
	bin, err := backend.Compile(f, opts)
	if err == nil && bin.Stats.Spills > 0 {
		// As compiler.Program.Variant does: threaded only without spills.
		opts.Threaded = false
		bin, err = backend.Compile(f, opts)
	}
	if err != nil {
		return fail("backend", err)
	}
	if mutateCode != nil {
		mutateCode(bin.Code)
	}
	m.listing = bin.Listing
	// A two-thread shader runs as thread 1, the upper register-file half:
	// it fails if the allocator used more than A0–A15/B0–B15.
	thread := 0
	if opts.Threaded {
		thread = 1
	}
	b, err := execute(bin, in, env, thread)
	if err != nil {
		return fail("qpu", err)
	}
	approx := approximateOutputs(f)
	for l := 0; l < Lanes; l++ {
		killed := b.Kill&(1<<l) != 0
		if killed != after.Discarded[l] {
			m.Lanes = append(m.Lanes, LaneDiff{l, "discard", fmt.Sprint(after.Discarded[l]), fmt.Sprint(killed), in.lane(l)})
			continue
		}
		if killed {
			continue
		}
		for c := 0; c < 4; c++ {
			want := word(after, l, c)
			got := math.Float32bits(b.Color[c][l])
			tol := 0.0
			if approx[c] {
				tol = sfuTolerance
			}
			if !sameFloat(want, got, tol) {
				m.Lanes = append(m.Lanes, LaneDiff{l, "color." + "rgba"[c:c+1], fmtF(want), fmtF(got), in.lane(l)})
			}
		}
	}
	if len(m.Lanes) > 0 {
		m.Stage = "backend"
		return fail("", nil)
	}
	return checkPreShader(f, opts, in, env, thread, b, m, fail)
}

// checkPreShader moves f's uniform-only work into a pre-shader
// (ir.HoistUniformExprs, as compiler.Program.Variant does with
// Key.PreShader), evaluates it on the CPU, runs the rest on hw/qpu and
// requires every output word to be bit-identical to the run without the
// pre-shader (want), with no SFU tolerance: the CPU must compute exactly
// what the shader did (+0 and −0 differ here).
func checkPreShader(f *ir.Func, opts backend.Options, in *Inputs, env *ir.Env, thread int, want *qpu.Batch, m *Mismatch, fail func(string, error) error) error {
	pre := ir.HoistUniformExprs(f, 0)
	if pre == nil {
		return nil
	}
	bin, err := backend.Compile(f, opts)
	if err != nil {
		return fail("backend (with pre-shader)", err)
	}
	m.listing = func() string { return bin.Listing() + "; pre-shader\n" + pre.String() }
	derived := make([]uint32, pre.Len())
	pre.Eval(env.Storage, make([]uint32, pre.ValueWords()), derived)
	penv := *env
	penv.Derived = derived
	b, err := execute(bin, in, &penv, thread)
	if err != nil {
		return fail("qpu (with pre-shader)", err)
	}
	for l := 0; l < Lanes; l++ {
		if killed, wasKilled := b.Kill&(1<<l) != 0, want.Kill&(1<<l) != 0; killed != wasKilled {
			m.Lanes = append(m.Lanes, LaneDiff{l, "discard", fmt.Sprint(wasKilled), fmt.Sprint(killed), in.lane(l)})
			continue
		}
		if want.Kill&(1<<l) != 0 {
			continue
		}
		for c := 0; c < 4; c++ {
			w, g := math.Float32bits(want.Color[c][l]), math.Float32bits(b.Color[c][l])
			// Bit-identical; two NaNs match whatever their payloads.
			if w != g && !(math.IsNaN(float64(want.Color[c][l])) && math.IsNaN(float64(b.Color[c][l]))) {
				m.Lanes = append(m.Lanes, LaneDiff{l, "color." + "rgba"[c:c+1], fmtF(w), fmtF(g), in.lane(l)})
			}
		}
	}
	if len(m.Lanes) > 0 {
		m.Stage = "pre-shader"
		return fail("", nil)
	}
	return nil
}

// mutateCode, when set (by tests), alters the machine code before it
// runs, to prove that Check catches wrong code.
var mutateCode func(code []uint64)

// sfuTolerance is the relative difference allowed in an output word that
// depends on an SFU op. hardware.md §7.1 makes this implementation's SFU
// exact-rounded, so equal results are expected; 2^-16 leaves room for a
// table-driven SFU (real hardware's are good to about 2^-22 per op) while
// still catching any wrong operand or register.
const sfuTolerance = 1.0 / (1 << 16)

func word(r *ir.Result, lane, c int) uint32 {
	if lane < len(r.Outputs) && c < len(r.Outputs[lane]) {
		return r.Outputs[lane][c]
	}
	return 0
}

// sameFloat compares two float bit patterns: NaN equals NaN, +0 equals −0,
// and with tol > 0 a relative (or, near 0, absolute) difference up to tol
// is accepted.
func sameFloat(a, b uint32, tol float64) bool {
	fa, fb := float64(math.Float32frombits(a)), float64(math.Float32frombits(b))
	switch {
	case math.IsNaN(fa) || math.IsNaN(fb):
		return math.IsNaN(fa) && math.IsNaN(fb)
	case fa == fb:
		return true
	case tol == 0 || math.IsInf(fa, 0) || math.IsInf(fb, 0):
		return false
	}
	return math.Abs(fa-fb) <= tol*math.Max(1, math.Max(math.Abs(fa), math.Abs(fb)))
}

func fmtF(bits uint32) string {
	return fmt.Sprintf("%g (%#08x)", math.Float32frombits(bits), bits)
}

// lane describes the inputs of lane l for a report.
func (in *Inputs) lane(l int) string {
	return fmt.Sprintf("va=%v vb=%v fragcoord=%v front=%v", in.VA[l], in.VB[l], in.FragCoord[l], in.FrontFacing[l])
}

// approximateOutputs reports, per colour word, whether its value depends
// (through data or through the conditions of the Ifs and Loops that
// produce it) on an SFU op.
func approximateOutputs(f *ir.Func) [4]bool {
	tainted := map[*ir.Instr]bool{}
	var walk func(nodes []ir.Node, ctl bool)
	// Iterate to a fixed point: loop phis feed back.
	changed := true
	mark := func(in *ir.Instr, t bool) {
		if t && !tainted[in] {
			tainted[in] = true
			changed = true
		}
	}
	argsTainted := func(in *ir.Instr) bool {
		switch in.Op {
		case ir.OpRcp, ir.OpRsq, ir.OpExp2, ir.OpLog2:
			return true
		}
		for _, a := range in.Args {
			if tainted[a] {
				return true
			}
		}
		return false
	}
	var outs [4]bool
	walk = func(nodes []ir.Node, ctl bool) {
		for _, n := range nodes {
			switch n := n.(type) {
			case *ir.Block:
				for _, in := range n.Instrs {
					t := argsTainted(in)
					if in.Op == ir.OpStoreOutput && in.Index < 4 && (t || ctl) {
						outs[in.Index] = true
					}
					mark(in, t)
				}
			case *ir.If:
				c := ctl || tainted[n.Cond]
				walk(n.Then, c)
				walk(n.Else, c)
				for _, p := range n.Phis {
					mark(p, c || argsTainted(p))
				}
			case *ir.Loop:
				for _, p := range n.Phis {
					mark(p, argsTainted(p))
				}
				c := ctl || tainted[n.Cond]
				walk(n.Body, c)
				for _, p := range n.Phis {
					mark(p, c || argsTainted(p))
				}
			}
		}
	}
	for changed {
		changed = false
		walk(f.Body, false)
	}
	return outs
}

// varEnv is the interpreter's environment for the IR before I/O lowering.
func varEnv(in *Inputs) *ir.Env {
	env := &ir.Env{Lanes: Lanes, Vars: map[string][][]uint32{}}
	va, vb := make([][]uint32, Lanes), make([][]uint32, Lanes)
	for l := 0; l < Lanes; l++ {
		va[l], vb[l] = floatBits(in.VA[l][:]), floatBits(in.VB[l][:])
	}
	env.Vars["va"], env.Vars["vb"] = va, vb
	env.Vars["u"] = [][]uint32{floatBits(in.U[:])}
	env.Vars["ua"] = [][]uint32{floatBits(in.UA[:])}
	env.Vars["ui"] = [][]uint32{{uint32(in.UI)}}
	env.FragCoord = in.FragCoord[:]
	env.FrontFacing = in.FrontFacing[:]
	return env
}

func floatBits(fs []float32) []uint32 {
	out := make([]uint32, len(fs))
	for i, f := range fs {
		out[i] = math.Float32bits(f)
	}
	return out
}

// loweredEnv is the environment for the IR after I/O lowering under
// layout, and the uniform storage it implies.
func loweredEnv(in *Inputs, layout *ir.IOLayout) *ir.Env {
	env := &ir.Env{Lanes: Lanes, StorageAddress: storageVA}
	env.FragCoord = in.FragCoord[:]
	env.FrontFacing = in.FrontFacing[:]
	nv := 0
	for _, idx := range layout.Varyings {
		for _, i := range idx {
			nv = max(nv, i+1)
		}
	}
	env.Varyings = make([][]float32, Lanes)
	for l := range env.Varyings {
		v := make([]float32, nv)
		for name, src := range map[string][4]float32{"va": in.VA[l], "vb": in.VB[l]} {
			for c, i := range layout.Varyings[name] {
				if i >= 0 {
					v[i] = src[c]
				}
			}
		}
		env.Varyings[l] = v
	}
	ns := 0
	for name, base := range layout.Uniforms {
		ns = max(ns, base+map[string]int{"u": 4, "ua": 4, "ui": 1}[name])
	}
	storage := make([]uint32, ns)
	put := func(name string, bits []uint32) {
		if base, ok := layout.Uniforms[name]; ok {
			copy(storage[base:], bits)
		}
	}
	put("u", floatBits(in.U[:]))
	put("ua", floatBits(in.UA[:]))
	put("ui", []uint32{uint32(in.UI)})
	env.Storage = storage
	return env
}

// The fake address space of one run.
const (
	codeVA    = 0x10000
	uniformVA = 0x20000
	storageVA = 0x30000
	scratchVA = 0x40000
	qpuNumber = 2
)

// memory is a sparse word-addressed memory: exactly the words the program
// may touch exist; anything else is a page fault.
type memory map[uint32]uint32

func (m memory) Read32(va uint32) (uint32, bool) {
	v, ok := m[va]
	return v, ok
}

func (m memory) Write32(va uint32, v uint32) bool {
	if _, ok := m[va]; !ok {
		return false
	}
	m[va] = v
	return true
}

var errNoTexture = errors.New("texture fetch in a program without textures")

// execute runs bin on one 16-lane fragment batch as thread (0 or 1).
func execute(bin *backend.Binary, in *Inputs, env *ir.Env, thread int) (*qpu.Batch, error) {
	storage := env.Storage
	mem := memory{}
	for i, w := range bin.Code {
		mem[codeVA+uint32(8*i)] = uint32(w)
		mem[codeVA+uint32(8*i)+4] = uint32(w >> 32)
	}
	for i, v := range storage {
		mem[storageVA+uint32(4*i)] = v
	}
	for i := uint32(0); i < (qpuNumber+1)*bin.ScratchBytesPerThread/4; i++ {
		mem[scratchVA+4*i] = 0xdeadbeef
	}
	for i, e := range bin.Uniforms {
		var v uint32
		switch e.Kind {
		case ir.UniformStorage:
			if int(e.Index) >= len(storage) {
				return nil, fmt.Errorf("uniform stream entry %d reads storage slot %d of %d", i, e.Index, len(storage))
			}
			v = storage[e.Index]
		case ir.UniformConstant:
			v = e.Value
		case ir.UniformDerived:
			if int(e.Index) >= len(env.Derived) {
				return nil, fmt.Errorf("uniform stream entry %d reads derived word %d of %d", i, e.Index, len(env.Derived))
			}
			v = env.Derived[e.Index]
		case ir.UniformStorageAddress:
			v = storageVA
		case ir.UniformScratchAddress:
			v = scratchVA
		case ir.UniformStreamAddress:
			v = uniformVA
		default:
			return nil, fmt.Errorf("uniform stream entry %d: %v: %w", i, e, errNoTexture)
		}
		mem[uniformVA+uint32(4*i)] = v
	}
	fetch := func(va uint32) (uint64, bool) {
		lo, ok1 := mem[va]
		hi, ok2 := mem[va+4]
		return uint64(hi)<<32 | uint64(lo), ok1 && ok2
	}
	prog, err := qpu.Load(fetch, codeVA)
	if err != nil {
		return nil, err
	}
	b := &qpu.Batch{Stage: qpu.StageFragment, UniformsVA: uniformVA, QPUNumber: qpuNumber, LaneMask: 0xffff, Thread: thread}
	nv := len(env.Varyings[0])
	b.Varyings = make([]float32, nv*Lanes)
	for l, vs := range env.Varyings {
		for i, v := range vs {
			b.Varyings[i*Lanes+l] = v
		}
	}
	for l := 0; l < Lanes; l++ {
		fc := in.FragCoord[l]
		b.FragX[l], b.FragY[l], b.FragZ[l], b.FragW[l] = fc[0], fc[1], fc[2], fc[3]
		if in.FrontFacing[l] {
			b.FrontFacing[l] = 1
		}
	}
	core := qpu.NewCore(mem)
	if err := core.Run(prog, b); err != nil {
		return nil, err
	}
	return b, nil
}

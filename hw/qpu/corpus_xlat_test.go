package qpu_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/compiler"
	"github.com/tilegpu/tilegpu/compiler/backend"
	"github.com/tilegpu/tilegpu/compiler/difftest"
	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/glsl/deqptest"
	"github.com/tilegpu/tilegpu/compiler/ir"
	"github.com/tilegpu/tilegpu/hw/qpu"
)

// The machine code the compiler really produces, run with the interpreter
// and with its translation: the dEQP GLES2 corpus (every program that
// links, all three stages), the bench scenes' shaders and the compiler
// difftest generator's programs.

const deqpDir = "../../testdata/deqp-gles2"

// Memory map of the runs.
const (
	mBase    = 0x100000
	mSize    = 0x40000
	mCode    = 0x100000 // up to 128 KiB of code
	mUnif    = 0x120000
	mStorage = 0x128000 // uniform storage block (UniformStorageAddress)
	mScratch = 0x130000 // spill area, writable
	mTex     = 0x13c000 // texture descriptor and texels
)

type mem struct{ data []byte }

func (m *mem) in(va uint32) bool { return va >= mBase && uint64(va)+4 <= mBase+uint64(len(m.data)) }

func (m *mem) Read32(va uint32) (uint32, bool) {
	if !m.in(va) {
		return 0, false
	}
	return binary.LittleEndian.Uint32(m.data[va-mBase:]), true
}

func (m *mem) Write32(va uint32, v uint32) bool {
	if !m.in(va) || va < mUnif {
		return false
	}
	binary.LittleEndian.PutUint32(m.data[va-mBase:], v)
	return true
}

func (m *mem) put(va uint32, vals ...uint32) {
	for k, v := range vals {
		binary.LittleEndian.PutUint32(m.data[va-mBase+uint32(4*k):], v)
	}
}

func (m *mem) fetch(va uint32) (uint64, bool) {
	lo, ok1 := m.Read32(va)
	hi, ok2 := m.Read32(va + 4)
	return uint64(hi)<<32 | uint64(lo), ok1 && ok2
}

func smallFloat(rng *rand.Rand) uint32 {
	if rng.Intn(8) == 0 {
		return uint32(rng.Intn(8)) // small integers for int uniforms and indices
	}
	return math.Float32bits(float32(rng.NormFloat64() * 2))
}

// setupRun loads code into fresh memory and fills its uniform stream and
// a batch with random inputs (seeded by len(code)).
func setupRun(t testing.TB, code []uint64, unifs []ir.UniformEntry, stage qpu.Stage, thread int) (*mem, *qpu.Program, *qpu.Batch) {
	return setupRunSeed(t, "program", code, unifs, stage, thread, int64(len(code)))
}

func setupRunSeed(t testing.TB, name string, code []uint64, unifs []ir.UniformEntry, stage qpu.Stage, thread int, seed int64) (*mem, *qpu.Program, *qpu.Batch) {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	m := &mem{data: make([]byte, mSize)}
	if len(code)*8 > mUnif-mCode {
		t.Fatalf("%s: %d instructions do not fit", name, len(code))
	}
	for k, w := range code {
		m.put(mCode+uint32(8*k), uint32(w), uint32(w>>32))
	}
	for k := uint32(0); k < 1024; k++ {
		m.put(mStorage+4*k, smallFloat(rng))
	}
	m.put(mTex, mTex+0x100, 2|2<<16, 1<<8|0x15<<16, 0, 0x688)
	for k := uint32(0); k < 16; k++ {
		m.put(mTex+0x100+4*k, rng.Uint32())
	}
	for k, u := range unifs {
		var v uint32
		switch u.Kind {
		case ir.UniformStorage:
			v = smallFloat(rng)
		case ir.UniformConstant:
			v = u.Value
		case ir.UniformTexture:
			v = mTex
		case ir.UniformStorageAddress:
			v = mStorage
		case ir.UniformScratchAddress:
			v = mScratch
		case ir.UniformStreamAddress:
			v = mUnif
		}
		m.put(mUnif+uint32(4*k), v)
	}
	p, err := qpu.Load(m.fetch, mCode)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b := &qpu.Batch{Stage: stage, UniformsVA: mUnif, QPUNumber: uint32(rng.Intn(4)), Thread: thread, LaneMask: 0xffff,
		VPMIn: make([]float32, 64*qpu.Lanes), VPMOut: make([]float32, 64*qpu.Lanes), Varyings: make([]float32, 64*qpu.Lanes)}
	for _, s := range [][]float32{b.VPMIn, b.Varyings, b.FragX[:], b.FragY[:], b.FragZ[:], b.FragW[:]} {
		for k := range s {
			s[k] = math.Float32frombits(smallFloat(rng))
		}
	}
	for l := range b.FrontFacing {
		b.FrontFacing[l] = uint32(rng.Intn(2))
	}
	return m, p, b
}

// runBoth loads code, fills its uniform stream and random inputs, and
// runs it both ways with DiffRun.
func runBoth(t *testing.T, name string, code []uint64, unifs []ir.UniformEntry, stage qpu.Stage, thread int, seed int64) {
	t.Helper()
	m, p, b := setupRunSeed(t, name, code, unifs, stage, thread, seed)
	mi := &mem{data: bytes.Clone(m.data)}
	// The seed rotates the translation's mode: native code (AVX2 where
	// the CPU has it), native SSE2, and no native code.
	mode := qpu.XlatMode(uint64(seed) % uint64(qpu.NumXlatModes))
	diff, err := qpu.DiffRunMode(p, mi, m, qpu.CloneBatch(b), b, qpu.DefaultStepLimit, mode)
	if diff != "" {
		t.Fatalf("%s: translation and interpreter differ:\n%s", name, diff)
	}
	if !bytes.Equal(mi.data, m.data) {
		t.Fatalf("%s: translation and interpreter leave different memory", name)
	}
	if err != nil {
		t.Errorf("%s: %v", name, err) // compiled code with sane inputs runs
	}
}

// runVariant runs every stage of a linked program both ways.
func runVariant(t *testing.T, name, vs, fs string, seed int64) bool {
	t.Helper()
	v := compiler.CompileShader(compiler.Vertex, vs)
	f := compiler.CompileShader(compiler.Fragment, fs)
	if !v.OK || !f.OK {
		return false
	}
	prog := compiler.Link(v, f, nil)
	if !prog.OK {
		return false
	}
	vr, err := prog.Variant(compiler.Key{})
	if err != nil {
		return false // a documented compile failure (e.g. too many registers): nothing to run
	}
	fsThread := 0
	if vr.FSThreaded {
		fsThread = 1
	}
	runBoth(t, name+" (vertex)", vr.VS.Code, vr.VS.Uniforms, qpu.StageVertex, 0, seed)
	runBoth(t, name+" (coordinate)", vr.CS.Code, vr.CS.Uniforms, qpu.StageCoordinate, 0, seed+1)
	runBoth(t, name+" (fragment)", vr.FS.Code, vr.FS.Uniforms, qpu.StageFragment, fsThread, seed+2)
	return true
}

func TestTranslateBenchShaders(t *testing.T) {
	sh := bench.Shaders()
	for _, pair := range [][2]string{{"VS_FLAT", "FS_FLAT"}, {"VS_FLAT", "FS_TEX"}, {"VS_PHONG", "FS_PHONG"}} {
		for seed := int64(0); seed < 20; seed++ {
			if !runVariant(t, pair[0]+"+"+pair[1], sh[pair[0]], sh[pair[1]], seed*3) {
				t.Fatalf("%s+%s does not build", pair[0], pair[1])
			}
		}
	}
}

func TestTranslateDEQPCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(deqpDir, "*.test"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no dEQP corpus in %s (%v)", deqpDir, err)
	}
	built, seed := 0, int64(0)
	for _, path := range files {
		cases, err := deqptest.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := range cases {
			for _, p := range cases[i].Programs() {
				seed += 3
				if testing.Short() && seed%5 != 0 {
					continue
				}
				if runVariant(t, filepath.Base(path)+": "+p.Name, p.Vertex, p.Fragment, seed) {
					built++
				}
			}
		}
	}
	if built < 100 {
		t.Fatalf("only %d corpus programs built", built)
	}
	t.Logf("%d programs, three stages each, agree", built)
}

// TestTranslateDifftestPrograms compiles the difftest generator's
// fragment shaders as difftest.Check does (threaded unless that spills)
// and runs them both ways.
func TestTranslateDifftestPrograms(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 40
	}
	for seed := int64(0); seed < int64(n); seed++ {
		rng := rand.New(rand.NewSource(seed))
		data := make([]byte, 256)
		rng.Read(data)
		src := difftest.Generate(data)
		unit, errs := glsl.Parse(glsl.Fragment, src)
		if errs != nil {
			t.Fatalf("seed %d: generated shader does not parse:\n%s", seed, errs.InfoLog())
		}
		f, err := ir.FromAST(unit)
		if err != nil {
			t.Fatal(err)
		}
		if err := ir.Run(f, ir.Options{Layout: ir.SequentialLayout(f)}); err != nil {
			t.Fatal(err)
		}
		opts := backend.Options{Stage: ir.Fragment, Threaded: true}
		bin, err := backend.Compile(f, opts)
		if err == nil && bin.Stats.Spills > 0 {
			opts.Threaded = false
			bin, err = backend.Compile(f, opts)
		}
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		thread := 0
		if opts.Threaded {
			thread = 1
		}
		runBoth(t, "difftest seed "+strconv.FormatInt(seed, 10), bin.Code, bin.Uniforms, qpu.StageFragment, thread, seed)
	}
}

// BenchmarkBenchShaders runs the bench scenes' shaders, compiled by the
// compiler, on one core, interpreted, translated without native code and
// translated with native code (where the build has it): one op is one
// 16-lane batch (FS_TEX includes its texture fetch on a 2×2 texture).
func BenchmarkBenchShaders(b *testing.B) {
	sh := bench.Shaders()
	for _, c := range []struct{ name, vs, fs string }{
		{"FS_FLAT", "VS_FLAT", "FS_FLAT"}, {"FS_TEX", "VS_FLAT", "FS_TEX"},
		{"VS_PHONG", "VS_PHONG", "FS_PHONG"}, {"FS_PHONG", "VS_PHONG", "FS_PHONG"},
	} {
		v := compiler.CompileShader(compiler.Vertex, sh[c.vs])
		f := compiler.CompileShader(compiler.Fragment, sh[c.fs])
		vr, err := compiler.Link(v, f, nil).Variant(compiler.Key{})
		if err != nil {
			b.Fatal(err)
		}
		bin, stage, thread := vr.FS, qpu.StageFragment, 0
		if vr.FSThreaded {
			thread = 1
		}
		if c.name[0] == 'V' {
			bin, stage, thread = vr.VS, qpu.StageVertex, 0
		}
		for _, mode := range []string{"interpreted", "translated", "native"} {
			interpreted := mode == "interpreted"
			b.Run(c.name+"/"+mode, func(b *testing.B) {
				m, p, bt := setupRun(b, bin.Code, bin.Uniforms, stage, thread)
				if !interpreted {
					qpu.Translate(p)
				}
				core := qpu.NewCore(m)
				core.Interpreted = interpreted
				core.NoNative = mode == "translated" // "native": native code where the build has it
				core.RetainPages(true)
				var instrs uint64
				for i := 0; i < b.N; i++ {
					if err := core.Run(p, bt); err != nil {
						b.Fatal(err)
					}
					instrs += bt.Instructions
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(instrs), "ns/instr")
			})
		}
	}
}

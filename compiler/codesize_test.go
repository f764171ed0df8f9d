package compiler

import (
	"flag"
	"path/filepath"
	"sort"
	"testing"

	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/compiler/glsl/deqptest"
)

// deqpCorpus names a directory of dEQP GLES2 shader-library files whose
// instruction count TestCodeSize also reports. Tests read only the
// repository by default; the measurement for the README is
//
//	go test -run CodeSize -v ./compiler -args -deqp=$PWD/../shared/conformance/deqp-gles2
var deqpCorpus = flag.String("deqp", "", "also report the instruction count of the dEQP `DIR`'s programs")

// sizeKeys are the variants TestCodeSize measures: the plain program (the
// zero Key), with the pre-shader, and the key driver/tg uses for a
// triangle draw (pre-shader, no points).
var sizeKeys = []struct {
	name string
	key  Key
}{{"plain", Key{}}, {"pre-shader", Key{PreShader: true}}, {"triangles", Key{PreShader: true, NoPoints: true}}}

// variantSize is the size of one variant: machine instructions per stage,
// uniform stream words per draw (all stages) and pre-shader outputs.
type variantSize struct{ vs, cs, fs, uniforms, derived int }

func (s variantSize) instructions() int { return s.vs + s.cs + s.fs }

// variantInstructions links vs and fs and returns the size of each
// sizeKeys variant, or ok false when it does not build.
func variantInstructions(vsSrc, fsSrc string) (sizes []variantSize, ok bool) {
	vs, fs := CompileShader(Vertex, vsSrc), CompileShader(Fragment, fsSrc)
	p := Link(vs, fs, nil)
	if !p.OK {
		return nil, false
	}
	for _, k := range sizeKeys {
		v, err := p.Variant(k.key)
		if err != nil {
			return nil, false
		}
		sizes = append(sizes, variantSize{v.VS.Stats.Instructions, v.CS.Stats.Instructions, v.FS.Stats.Instructions,
			len(v.VS.Uniforms) + len(v.CS.Uniforms) + len(v.FS.Uniforms), v.PreShader.Len()})
	}
	return sizes, true
}

// TestCodeSize logs the instruction counts the README reports: each bench
// program's default variant and, with -deqp, the sum over every dEQP
// program that builds. It fails when a program that should build does not.
func TestCodeSize(t *testing.T) {
	src := bench.Shaders()
	for _, p := range []struct{ name, vs, fs string }{
		{"flat", src["VS_FLAT"], src["FS_FLAT"]},
		{"tex", src["VS_FLAT"], src["FS_TEX"]},
		{"phong", src["VS_PHONG"], src["FS_PHONG"]},
	} {
		sizes, ok := variantInstructions(p.vs, p.fs)
		if !ok {
			t.Errorf("bench program %s does not build", p.name)
			continue
		}
		for i, s := range sizes {
			t.Logf("bench %s, %s: VS %d, CS %d, FS %d instructions; %d uniform words per draw, %d derived by the pre-shader",
				p.name, sizeKeys[i].name, s.vs, s.cs, s.fs, s.uniforms, s.derived)
		}
	}
	if *deqpCorpus == "" {
		return
	}
	files, _ := filepath.Glob(filepath.Join(*deqpCorpus, "*.test"))
	if len(files) == 0 {
		t.Fatalf("no dEQP files in %s", *deqpCorpus)
	}
	sort.Strings(files)
	programs := 0
	sum := make([]variantSize, len(sizeKeys))
	for _, file := range files {
		cases, err := deqptest.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			if c.Expect != deqptest.Pass && c.Expect != deqptest.BuildSuccessful {
				continue
			}
			for _, prog := range c.Programs() {
				sizes, ok := variantInstructions(prog.Vertex, prog.Fragment)
				if !ok {
					t.Errorf("%s: %s.%s does not build", filepath.Base(file), c.Group, prog.Name)
					continue
				}
				programs++
				for i, s := range sizes {
					sum[i].vs += s.vs
					sum[i].cs += s.cs
					sum[i].fs += s.fs
					sum[i].uniforms += s.uniforms
					sum[i].derived += s.derived
				}
			}
		}
	}
	for i, s := range sum {
		t.Logf("dEQP corpus, %s: %d programs, %d instructions (VS %d + CS %d + FS %d); %d uniform words per draw, %d derived",
			sizeKeys[i].name, programs, s.instructions(), s.vs, s.cs, s.fs, s.uniforms, s.derived)
	}
}

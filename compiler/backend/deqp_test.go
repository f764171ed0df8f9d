package backend

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/glsl/deqptest"
	"github.com/tilegpu/tilegpu/compiler/ir"
)

// deqpDir is the dEQP GLES2 shader library carried by the repository
// (testdata/deqp-gles2, Apache-2.0: see its LICENSE, NOTICE and SOURCE).
const deqpDir = "../../testdata/deqp-gles2"

// deqpEnv gives a lowered shader random but reproducible inputs.
func deqpEnv(f *ir.Func, seed int64) *ir.Env {
	rng := rand.New(rand.NewSource(seed))
	maxStorage, maxAttr, maxVary := 0, 0, 0
	f.Walk(func(in *ir.Instr) {
		switch in.Op {
		case ir.OpLoadUniform:
			if k := in.Uniform.Kind; (k == ir.UniformStorage || k == ir.UniformTexture) && int(in.Uniform.Index) >= maxStorage {
				maxStorage = int(in.Uniform.Index) + 1
			}
		case ir.OpTexture:
			if in.Index >= maxStorage {
				maxStorage = in.Index + 1
			}
		case ir.OpLoadAttribute:
			if w := 4*in.Index + in.Comp + 1; w > maxAttr {
				maxAttr = w
			}
		case ir.OpLoadVarying:
			if in.Index >= maxVary {
				maxVary = in.Index + 1
			}
		}
	})
	env := &ir.Env{Storage: make([]uint32, maxStorage+64), StorageAddress: storageVA}
	for i := range env.Storage {
		// small integers as bits double as small floats' patterns poorly;
		// alternate small ints and small floats
		if i%2 == 0 {
			env.Storage[i] = uint32(rng.Intn(4))
		} else {
			env.Storage[i] = fbits(float32(rng.Intn(9)-4) / 4)
		}
	}
	for l := 0; l < 16; l++ {
		a := make([]float32, maxAttr)
		for i := range a {
			a[i] = float32(rng.Intn(17)-8) / 4
		}
		env.Attributes = append(env.Attributes, a)
		v := make([]float32, maxVary)
		for i := range v {
			v[i] = float32(rng.Intn(17)-8) / 4
		}
		env.Varyings = append(env.Varyings, v)
		env.FragCoord = append(env.FragCoord, [4]float32{float32(l&3) + 0.5, float32(l>>2) + 0.5, 0.5, 1})
		env.FrontFacing = append(env.FrontFacing, l%2 == 0)
	}
	env.MaxIterations = 1 << 12
	return texEnv(env)
}

// TestDEQPShaders compiles every dEQP GLES2 shader-library program that
// should build, runs it on the shader core and compares with the
// interpreter on random inputs.
func TestDEQPShaders(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(deqpDir, "*.test"))
	if len(files) == 0 {
		t.Fatalf("no dEQP files in %s", deqpDir)
	}
	sort.Strings(files)
	if testing.Short() {
		files = files[:len(files)/4]
	}
	compiled, lowerFail := 0, 0
	failures := map[string]int{}
	for _, file := range files {
		cases, err := deqptest.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for ci := range cases {
			c := &cases[ci]
			if c.Expect != deqptest.Pass && c.Expect != deqptest.BuildSuccessful {
				continue
			}
			for _, prog := range c.Programs() {
				for si, src := range []string{prog.Vertex, prog.Fragment} {
					stage := []glsl.Stage{glsl.Vertex, glsl.Fragment}[si]
					tu, errs := glsl.Parse(stage, src)
					if len(errs) > 0 {
						lowerFail++
						continue
					}
					f, err := ir.FromAST(tu)
					if err == nil {
						err = ir.Run(f, ir.Options{Layout: ir.SequentialLayout(f)})
					}
					if err != nil {
						lowerFail++
						continue
					}
					name := fmt.Sprintf("%s/%s.%s/%v", filepath.Base(file), c.Group, prog.Name, f.Stage)
					env := deqpEnv(f, int64(ci))
					env.Lanes = 16
					want, err := ir.Interpret(f, env)
					if err != nil {
						lowerFail++
						continue
					}
					ok := t.Run(name, func(t *testing.T) {
						for _, opts := range []Options{{Stage: f.Stage}, {Stage: f.Stage, RegisterLimit: 4}, {Stage: f.Stage, Threaded: true}} {
							check(t, f, opts, env)
						}
					})
					_ = want
					compiled++
					if !ok {
						failures[strings.SplitN(name, "/", 2)[0]]++
					}
				}
			}
		}
	}
	t.Logf("compiled and checked %d shaders (%d not lowered by the front end/IR); failures by file: %v", compiled, lowerFail, failures)
}

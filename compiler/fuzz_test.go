package compiler

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// Bounds FuzzCompile holds every input to: glCompileShader plus
// glLinkProgram plus the first draw's code generation, for any source.
const (
	fuzzTimeLimit  = 10 * time.Second
	fuzzAllocLimit = 1 << 30 // bytes allocated in total by one input
)

// FuzzCompile runs the whole compiler on arbitrary source, as a GL
// application would: CompileShader, Link with a trivial shader of the
// other stage and, when that links, the default Variant. No input may
// panic, exceed fuzzTimeLimit or allocate more than fuzzAllocLimit (issue
// 6 item 2, issue 10 "Limits"), and every failure must be reported in the
// info log's ERROR format.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		"void main(){ gl_Position = vec4(1.0); }",
		"precision mediump float; uniform sampler2D s; varying vec2 v; void main(){ gl_FragColor = texture2D(s, v); }",
		"uniform vec4 u[2147483647]; uniform int i; void main(){ gl_Position = u[i]; }",
		"void main(){ float a[100000000]; a[5] = 1.0; gl_Position = vec4(a[5]); }",
		"uniform vec4 u[100000000]; void main(){ gl_Position = u[5]; }",
		"uniform int k; void main(){ float a[64]; a[k] = 1.0; gl_Position = vec4(a[k + 1]); }",
		"struct S { float a[4]; } s; float f(inout S x){ return x.a[1]; } void main(){ for (int i = 0; i < 4; i++) s.a[i] = 1.0; gl_Position = vec4(f(s)); }",
		"#define A(x) x x\n#define B(x) A(A(A(A(x))))\nvoid main(){ float y = 1.0 B(+1.0); gl_Position = vec4(y); }",
		"void main(){ float x = 0.0; for (int i = 0; i < 1000; i++) for (int j = 0; j < 1000; j++) x += 1.0; gl_Position = vec4(x); }",
		"float f(float x){ return x * 2.0; } void main(){ gl_Position = vec4(f(f(f(f(f(f(1.0))))))); }",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, src string, frag bool) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		done := make(chan string, 1)
		go func() { done <- compileAndLink(src, frag) }()
		select {
		case bad := <-done:
			if bad != "" {
				t.Fatal(bad)
			}
		case <-time.After(fuzzTimeLimit):
			t.Fatalf("no result after %v", fuzzTimeLimit)
		}
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > fuzzAllocLimit {
			t.Fatalf("allocated %d MB in %v", alloc>>20, time.Since(start))
		}
	})
}

// compileAndLink runs the compiler on src and returns what is wrong with
// the outcome, or "".
func compileAndLink(src string, frag bool) string {
	const vsTrivial = "void main(){ gl_Position = vec4(0.0); }"
	const fsTrivial = "precision mediump float; void main(){ gl_FragColor = vec4(1.0); }"
	var vs, fs *Shader
	if frag {
		vs, fs = CompileShader(Vertex, vsTrivial), CompileShader(Fragment, src)
	} else {
		vs, fs = CompileShader(Vertex, src), CompileShader(Fragment, fsTrivial)
	}
	for _, sh := range []*Shader{vs, fs} {
		if !sh.OK && !strings.HasPrefix(sh.Log, "ERROR: ") {
			return "failed compile without an ERROR log: " + sh.Log
		}
		if strings.Contains(sh.Log, "internal compiler error") {
			return sh.Log
		}
	}
	p := Link(vs, fs, nil)
	if strings.Contains(p.Log, "internal compiler error") {
		return p.Log
	}
	if !p.OK {
		return ""
	}
	// The plain program and the driver's triangle variant (pre-shader,
	// no points).
	for _, k := range []Key{{}, {PreShader: true, NoPoints: true}} {
		if _, err := p.Variant(k); err != nil && strings.Contains(err.Error(), "internal compiler error") {
			return err.Error()
		}
	}
	return ""
}

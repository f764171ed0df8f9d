package backend

import (
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
)

// streamLines lists, in QIR order, the lines of p that read an input
// stream word into a register ("mov tN, vary" / "mov tN, vpm" /
// "mov tN, unif") or fold one into an ALU op ("…, vary…").
func streamLines(p *Program, stream string) []int {
	var out []int
	for i, l := range strings.Split(p.String(), "\n") {
		if strings.Contains(l, ", "+stream) {
			out = append(out, i)
		}
	}
	return out
}

// lineOf returns the first line of p's listing that starts with prefix
// (after the indentation), or -1.
func lineOf(p *Program, prefix string) int {
	for i, l := range strings.Split(p.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return i
		}
	}
	return -1
}

// TestLateInputReads: uniforms, varyings and attributes are read where
// they are first needed (inputs.go), in the order the hardware's streams
// require, and every program still computes what the IR interpreter does
// (plain, two-thread and at register limit 4).
func TestLateInputReads(t *testing.T) {
	tests := []struct {
		name  string
		stage glsl.Stage
		src   string
		check func(t *testing.T, p *Program, f *ir.Func)
	}{
		{"varying after a texture fetch", glsl.Fragment, `precision mediump float;
uniform sampler2D s;
varying vec2 uv;
varying vec4 tint;
void main() { gl_FragColor = texture2D(s, uv) * tint + tint.wzyx; }`,
			func(t *testing.T, p *Program, f *ir.Func) {
				// uv (2 words) before the fetch, tint (4) after it: live
				// across the thread switch only what must be.
				tmu := lineOf(p, "mov tmu_s")
				before := 0
				for _, l := range streamLines(p, "vary") {
					if l < tmu {
						before++
					}
				}
				if before != 2 {
					t.Errorf("%d varying reads before the fetch, want 2 (uv)", before)
				}
			}},
		{"higher varying used first reads the lower ones with it", glsl.Fragment, `precision mediump float;
varying vec4 a;
varying vec4 b;
uniform vec4 k;
void main() { vec4 x = b * k; gl_FragColor = x * x + a; }`,
			func(t *testing.T, p *Program, f *ir.Func) {
				// b is used first: a's four words must be read before it.
				if n := len(streamLines(p, "vary")); n != 8 {
					t.Errorf("%d varying reads, want 8", n)
				}
			}},
		{"single-use varying folds into its user", glsl.Fragment, `precision mediump float;
varying vec4 a;
void main() { gl_FragColor = a * 2.0; }`,
			func(t *testing.T, p *Program, f *ir.Func) {
				for _, l := range strings.Split(p.String(), "\n") {
					if strings.HasPrefix(strings.TrimSpace(l), "mov t") && strings.HasSuffix(l, ", vary") {
						t.Errorf("varying read into a temp: %q", l)
					}
				}
				if n := strings.Count(p.String(), "fmul t"); n != 4 {
					t.Errorf("%d fmuls, want 4", n)
				}
			}},
		{"inputs of an If are read before it", glsl.Fragment, `precision mediump float;
varying vec4 a;
varying vec4 b;
uniform float lim;
uniform vec4 k;
void main() {
	vec4 c = a;
	if (a.x > lim) { c = normalize(b * k + a) * exp2(a.y) + log2(abs(b.z)); }
	gl_FragColor = c;
}`,
			func(t *testing.T, p *Program, f *ir.Func) {
				br := lineOf(p, "b.")
				if br < 0 {
					t.Fatalf("no branch around the If:\n%s", p)
				}
				for _, l := range append(streamLines(p, "vary"), streamLines(p, "unif")...) {
					if l > br {
						t.Errorf("stream read at line %d after the branch at %d:\n%s", l, br, p)
					}
				}
			}},
		{"inputs of a loop are read before it", glsl.Fragment, `precision highp float;
varying vec4 a;
varying vec4 b;
uniform float n;
void main() {
	vec4 acc = vec4(0.0);
	float i = 0.0;
	while (i < n * a.x) { acc += b; i += 1.0; }
	gl_FragColor = acc;
}`,
			func(t *testing.T, p *Program, f *ir.Func) {
				br := lineOf(p, "b.anyzs")
				for _, l := range append(streamLines(p, "vary"), streamLines(p, "unif")...) {
					if l > br {
						t.Errorf("stream read at line %d inside the loop ending at %d:\n%s", l, br, p)
					}
				}
			}},
		{"attributes in ascending words, one setup per gap", glsl.Vertex, `attribute vec4 p;
attribute vec4 q;
attribute vec4 r;
uniform mat4 m;
void main() { gl_Position = m * r + q.wzyx; gl_PointSize = p.x + p.w; }`,
			func(t *testing.T, p *Program, f *ir.Func) {
				// As many setups as runs of consecutive words read (the
				// all-at-entry order needed the same), though the words
				// are first used in another order.
				var words []int
				seen := map[int]bool{}
				f.Walk(func(in *ir.Instr) {
					if w := attrWord(in); in.Op == ir.OpLoadAttribute && !seen[w] {
						seen[w] = true
						words = append(words, w)
					}
				})
				runs := 0
				for _, w := range words {
					if !seen[w-1] {
						runs++
					}
				}
				if n := strings.Count(p.String(), "li vpm_rd_setup"); n != runs || runs < 2 {
					t.Errorf("%d VPM read setups for %d runs of words %v (want equal, ≥ 2):\n%s", n, runs, words, p)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := lowerGLSL(t, tc.stage, tc.src)
			for seed := int64(0); seed < 3; seed++ {
				for _, opts := range []Options{{Stage: f.Stage}, {Stage: f.Stage, Threaded: true}, {Stage: f.Stage, RegisterLimit: 4}} {
					check(t, f, opts, deqpEnv(f, seed))
				}
			}
			p, err := Select(f, Options{Stage: f.Stage})
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, p, f)
		})
	}
}

// TestLateReadsShortenLiveRanges: a fragment shader that uses each varying
// once, after a long computation, needs fewer registers than when every
// varying was read at entry (17 then, 5 now).
func TestLateReadsShortenLiveRanges(t *testing.T) {
	f := lowerGLSL(t, glsl.Fragment, `precision highp float;
varying vec4 a;
varying vec4 b;
varying vec4 c;
uniform vec4 k;
void main() {
	vec4 x = a * k;
	x = x * x + k;
	vec4 y = b * x;
	y = y * y + x;
	gl_FragColor = c * y + y;
}`)
	bin := check(t, f, Options{Stage: ir.Fragment}, deqpEnv(f, 1))
	// With late reads each varying is folded into its only user, so no
	// register holds one at all.
	if bin.Stats.Registers > 8 {
		t.Errorf("%d registers, want at most 8:\n%s", bin.Stats.Registers, bin.Listing)
	}
}

// TestSinkInputReads: a matrix used by two products. Selection reads each
// element at its first use, but the products are single-use and sink to
// their sums (sinkSingleUse), far from the reads; sinkInputReads moves the
// reads after them. Each uniform or VPM read into a temp is then directly
// followed by an instruction reading it or by another read, and at 8
// registers per file the shader needs no spilling.
func TestSinkInputReads(t *testing.T) {
	f := lowerGLSL(t, glsl.Vertex, `attribute vec3 pos;
attribute vec3 dir;
uniform mat4 m;
uniform mat4 proj;
varying vec3 a;
varying vec3 b;
void main() {
	vec4 w = m * vec4(pos, 1.0);
	a = w.xyz;
	b = (m * vec4(dir, 0.0)).xyz;
	gl_Position = proj * vec4(pos, 1.0);
}`)
	p, err := Select(f, Options{Stage: f.Stage})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range p.Blocks {
		for i, in := range b.Insts {
			if in.Op != OpMov || !in.Dst.IsTemp() || in.Src[0] != Spec(SpecUniform) {
				continue
			}
			j := i + 1
			for j < len(b.Insts) && b.Insts[j].Op == OpMov && b.Insts[j].Src[0].File == FileSpecial {
				j++ // a run of reads
			}
			if j == len(b.Insts) || !readsReg(b.Insts[j], in.Dst) && !slicesReadsAny(b.Insts[i+1:j+1], in.Dst) {
				t.Errorf("%v is not followed by its reader:\n%s", in, p)
			}
		}
	}
	bin := check(t, f, Options{Stage: f.Stage, RegisterLimit: 8}, deqpEnv(f, 2))
	if bin.Stats.Spills != 0 {
		t.Errorf("%d spills at 8 registers per file, want 0:\n%s", bin.Stats.Spills, bin.Listing)
	}
}

func slicesReadsAny(ins []*Inst, r Reg) bool {
	for _, in := range ins {
		if readsReg(in, r) {
			return true
		}
	}
	return false
}

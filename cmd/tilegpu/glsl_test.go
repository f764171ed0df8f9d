package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runCLI calls cmd with args and returns what it printed to stdout and
// stderr and its error.
func runCLI(t *testing.T, cmd func([]string) error, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	oldOut, oldErr := stdout, stderr
	stdout, stderr = &out, &errOut
	defer func() { stdout, stderr = oldOut, oldErr }()
	err := cmd(args)
	return out.String(), errOut.String(), err
}

// writeFiles writes name → content into a temporary directory and returns
// the paths in the order given.
func writeFiles(t *testing.T, files ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i := 0; i+1 < len(files); i += 2 {
		p := filepath.Join(dir, files[i])
		if err := os.WriteFile(p, []byte(files[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

const (
	goodVert = `attribute vec4 a_pos;
attribute vec2 a_uv;
varying vec2 v_uv;
uniform mat4 u_mvp;
void main() {
  v_uv = a_uv;
  gl_Position = u_mvp * a_pos;
}
`
	goodComp = "#version 310 es\nlayout(local_size_x = 8, local_size_y = 2) in;\nvoid main() { float f = 1.0; }\n"
	ssboComp = `#version 310 es
layout(local_size_x = 16) in;
layout(std430, binding = 2) buffer Data { uint count; uint v[]; } data;
shared uint s[16];
void main() {
	s[gl_LocalInvocationID.x] = data.v[gl_GlobalInvocationID.x];
	barrier();
	data.v[gl_GlobalInvocationID.x] = s[15u - gl_LocalInvocationID.x];
	atomicAdd(data.count, 1u);
}
`
	goodFrag = `precision mediump float;
varying vec2 v_uv;
uniform vec4 u_tint;
void main() {
  float s = 0.0;
  for (int i = 0; i < 4; i++) {
    if (float(i) > v_uv.x * 4.0) break;
    s += 0.25;
  }
  gl_FragColor = u_tint * s + vec4(v_uv, 0.0, 1.0);
}
`
	badFrag = `precision mediump float;
void main() {
  gl_FragColor = vec4(undeclared_thing);
}
`
	// A translation unit of helper functions only.
	helpersOnly = "float twice(float x) { return 2.0 * x; }\n"
	// The fragment shader reads a varying the vertex shader lacks.
	orphanFrag = `precision mediump float;
varying vec3 v_normal;
void main() { gl_FragColor = vec4(v_normal, 1.0); }
`
)

func TestGLSL(t *testing.T) {
	tests := []struct {
		name     string
		files    []string // name, content pairs
		flags    []string
		exit     int      // 0 success, 2 exitError(2), -1 other error
		want     []string // substrings of stdout, in order
		wantErr  string   // substring of the returned error
		notWant  []string
		errLines int // exact number of "ERROR: 0:LINE:" lines
	}{
		{name: "valid fragment", files: []string{"a.frag", goodFrag}, want: []string{"a.frag\n"}, notWant: []string{"ERROR"}},
		{name: "valid vertex by .vs", files: []string{"a.vs", goodVert}, want: []string{"a.vs\n"}, notWant: []string{"ERROR"}},
		{name: "compile error", files: []string{"bad.frag", badFrag}, exit: 2,
			want:     []string{"bad.frag\n", "ERROR: 0:3: 'undeclared_thing' : ", "ERROR: 1 compilation errors.  No code generated."},
			errLines: 1},
		{name: "stage flag overrides extension", files: []string{"shader.txt", goodVert}, flags: []string{"-stage", "vert"}, want: []string{"shader.txt\n"}},
		{name: "fragment source as vertex", files: []string{"x.glsl", goodFrag}, flags: []string{"-stage", "vert"}, exit: 2,
			want: []string{"ERROR: 0:"}},
		{name: "unknown extension", files: []string{"x.glsl", goodFrag}, exit: -1, wantErr: "cannot tell the stage"},
		{name: "bad stage flag", files: []string{"x.frag", goodFrag}, flags: []string{"-stage", "geom"}, exit: -1, wantErr: "want vert, frag or comp"},
		// Compute shaders (GLSL ES 3.10 subset): by .comp or -stage comp,
		// checked and linked alone; no IR yet, so -dump/-S are refused.
		{name: "compute by .comp", files: []string{"a.comp", goodComp}, want: []string{"a.comp\n"}, notWant: []string{"ERROR"}},
		{name: "compute by -stage comp", files: []string{"a.glsl", goodComp}, flags: []string{"-stage", "comp"}, want: []string{"a.glsl\n"}, notWant: []string{"ERROR"}},
		{name: "compute beside a graphics pair", files: []string{"a.vert", goodVert, "a.frag", goodFrag, "c.comp", goodComp}, notWant: []string{"ERROR"}},
		{name: "compute over the limit", files: []string{"big.comp", "#version 310 es\nlayout(local_size_x = 129) in;\nvoid main() {}\n"}, exit: 2,
			want: []string{"ERROR: 0:2: '129' : local size exceeds GL_MAX_COMPUTE_WORK_GROUP_SIZE X = 128"}, errLines: 1},
		{name: "compute without local size", files: []string{"n.comp", "#version 310 es\nvoid main() {}\n"}, exit: 2,
			want: []string{"Linked compute stage (n.comp)\n", "ERROR: Linking: 'local_size' : compute shader must declare"}},
		{name: "compute without local size, -c", files: []string{"n.comp", "#version 310 es\nvoid main() {}\n"}, flags: []string{"-c"}, notWant: []string{"ERROR"}},
		{name: "ES 1.00 source as compute", files: []string{"a.comp", goodFrag}, exit: 2,
			want: []string{"ERROR: 0:1: 'compute' : compute shaders require #version 310 es"}},
		{name: "compute -S", files: []string{"s.comp", ssboComp}, flags: []string{"-S"},
			want: []string{"=== s.comp: compute (local size 16×1×1, 64 shared bytes) shader (single-threaded) ===\n", "shared_st", "barrier", "tmu_staddr", "uniforms: [0]buffer_address[2]"}},
		{name: "compute -dump", files: []string{"s.comp", ssboComp}, flags: []string{"-dump", "licm"},
			want: []string{"=== s.comp: compute shader after licm ===\n", "func compute main {", "  local_size 16x1x1, shared 64 bytes\n", "  buffer binding 2 Data: 4 bytes + 4 per runtime element\n", "local_invocation_id x", "load_buffer binding 2, ", "store_shared ", "barrier\n",
				"atomic_buffer add, binding 2, "}},
		{name: "compute lowering error", files: []string{"m.comp", "#version 310 es\nlayout(local_size_x = 1) in;\nlayout(binding = 0) buffer B { uint u; mat2 m; };\nvoid main() { m = mat2(uvec4(u)); }\n"}, exit: 2,
			want: []string{"ERROR: 0:0: '' : ir: lowering: line 4: matrix constructors from uint values are not supported"}},
		{name: "link ok", files: []string{"a.vert", goodVert, "a.frag", goodFrag}, want: []string{"a.vert\n", "a.frag\n"}, notWant: []string{"ERROR"}},
		{name: "link order independent", files: []string{"a.frag", goodFrag, "a.vert", goodVert}, notWant: []string{"ERROR"}},
		{name: "link error", files: []string{"a.vert", goodVert, "b.frag", orphanFrag}, exit: 2,
			want: []string{"Linked program\n", "ERROR: Linking: 'v_normal' : fragment shader varying not declared in the vertex shader"}},
		{name: "one bad file of two", files: []string{"a.vert", goodVert, "bad.frag", badFrag}, exit: 2,
			want: []string{"a.vert\n", "bad.frag\n", "ERROR: 0:3:"}, notWant: []string{"Linked program"}, errLines: 1},
		// glCompileShader semantics: -c compiles only; a unit without
		// main compiles, and linking (of one file alone, or of a pair)
		// reports it (GLSL ES 1.00 section 7).
		{name: "-c without main", files: []string{"h.vert", helpersOnly}, flags: []string{"-c"}, want: []string{"h.vert\n"}, notWant: []string{"ERROR"}},
		{name: "-c does not link a pair", files: []string{"a.vert", goodVert, "b.frag", orphanFrag}, flags: []string{"-c"},
			notWant: []string{"ERROR", "Linked"}},
		{name: "-c still reports compile errors", files: []string{"bad.frag", badFrag}, flags: []string{"-c"}, exit: 2,
			want: []string{"ERROR: 0:3: 'undeclared_thing' : "}, errLines: 1},
		{name: "single file linked alone", files: []string{"h.vert", helpersOnly}, exit: 2,
			want: []string{"h.vert\n", "Linked vertex stage (h.vert)\n", "ERROR: Linking: 'main' : missing main in vertex shader\n", "ERROR: 1 link errors.\n"}},
		{name: "each file of one stage linked alone", files: []string{"a.frag", goodFrag, "h.frag", "precision mediump float;\n" + helpersOnly}, exit: 2,
			want: []string{"Linked fragment stage (h.frag)\n", "missing main in fragment shader"}, notWant: []string{"(a.frag)"}},
		{name: "pair without main", files: []string{"a.vert", goodVert, "h.frag", "precision mediump float;\n" + helpersOnly}, exit: 2,
			want: []string{"Linked program\n", "ERROR: Linking: 'main' : missing main in fragment shader"}},
		{name: "-c with -S", files: []string{"a.frag", goodFrag}, flags: []string{"-c", "-S"}, exit: -1, wantErr: "-dump and -S need a linked shader"},
		{name: "dump one pass", files: []string{"a.frag", goodFrag}, flags: []string{"-dump=scalarize"},
			want: []string{"after scalarize ===\nfunc fragment main {", "store_output"}, notWant: []string{"after dce ==="}},
		{name: "dump all", files: []string{"a.frag", goodFrag}, flags: []string{"-dump=all"},
			want: []string{"after copyprop ===", "after constfold ===", "after unroll ===", "after lower_io ===", "after dce3 ==="}},
		{name: "dump unknown pass", files: []string{"a.frag", goodFrag}, flags: []string{"-dump=nosuch"}, exit: -1,
			wantErr: `unknown pass "nosuch" (valid: all, inline, copyprop, constfold`},
		{name: "S fragment", files: []string{"a.frag", goodFrag}, flags: []string{"-S"},
			want: []string{"fragment shader (two threads) ===", "tlb_", "stats: ", "instructions, ", "paired", "spills", "accumulator values"}},
		{name: "S vertex has coordinate shader", files: []string{"a.vert", goodVert}, flags: []string{"-S"},
			want: []string{"vertex shader", "vpm", "stats:", "coordinate shader", "stats:"}},
		{name: "S linked program", files: []string{"a.vert", goodVert, "a.frag", goodFrag}, flags: []string{"-S"},
			want: []string{"program: vertex shader", "program: coordinate shader", "program: fragment shader", "end"}},
	}
	errLine := regexp.MustCompile(`(?m)^ERROR: 0:\d+: '[^']*' : .+$`)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			paths := writeFiles(t, tc.files...)
			out, _, err := runCLI(t, cmdGLSL, append(tc.flags, paths...)...)
			out = strings.ReplaceAll(out, filepath.Dir(paths[0])+string(filepath.Separator), "")
			switch tc.exit {
			case 0:
				if err != nil {
					t.Fatalf("error %v\n%s", err, out)
				}
			case 2:
				if ee, ok := err.(exitError); !ok || ee != 2 {
					t.Fatalf("error %v, want exit status 2\n%s", err, out)
				}
			default:
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
			}
			rest := out
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (in order)\n%s", w, out)
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tc.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output contains %q\n%s", w, out)
				}
			}
			if tc.errLines > 0 {
				if n := len(errLine.FindAllString(out, -1)); n != tc.errLines {
					t.Errorf("%d ERROR: 0:LINE lines, want %d\n%s", n, tc.errLines, out)
				}
			}
		})
	}
}

// TestGLSLErrorFormat checks every diagnostic line of a file with several
// errors against glslangValidator's format.
func TestGLSLErrorFormat(t *testing.T) {
	src := "precision mediump float;\nvoid main() {\n  int x = 1.0;\n  gl_FragColor = vec4(y);\n}\n"
	paths := writeFiles(t, "e.frag", src)
	out, _, err := runCLI(t, cmdGLSL, paths...)
	if ee, ok := err.(exitError); !ok || ee != 2 {
		t.Fatalf("error %v, want exit status 2", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 3 || lines[0] != paths[0] {
		t.Fatalf("output:\n%s", out)
	}
	line := regexp.MustCompile(`^ERROR: 0:(\d+): '[^']*' : \S.*$`)
	for _, l := range lines[1 : len(lines)-1] {
		if !line.MatchString(l) {
			t.Errorf("line %q is not in glslangValidator format", l)
		}
	}
	if !strings.Contains(out, "ERROR: 0:3:") || !strings.Contains(out, "ERROR: 0:4: 'y'") {
		t.Errorf("want errors on lines 3 and 4:\n%s", out)
	}
	if last := lines[len(lines)-1]; !regexp.MustCompile(`^ERROR: \d+ compilation errors\.  No code generated\.$`).MatchString(last) {
		t.Errorf("summary line %q", last)
	}
}

func TestGLSLUsage(t *testing.T) {
	_, errOut, err := runCLI(t, cmdGLSL)
	if ee, ok := err.(exitError); !ok || ee != 2 {
		t.Fatalf("no files: error %v, want exit status 2", err)
	}
	if !strings.Contains(errOut, "usage: tilegpu glsl") {
		t.Errorf("usage not printed: %q", errOut)
	}
	_, _, err = runCLI(t, cmdGLSL, filepath.Join(t.TempDir(), "missing.frag"))
	if err == nil || !strings.Contains(err.Error(), "missing.frag") {
		t.Errorf("missing file: error %v", err)
	}
}

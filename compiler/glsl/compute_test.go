package glsl

import (
	"strings"
	"testing"
)

func TestComputeLocalSize(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want [3]int
	}{
		{"x only", "#version 310 es\nlayout(local_size_x = 64) in;\nvoid main() {}\n", [3]int{64, 1, 1}},
		{"all three", "#version 310 es\nlayout(local_size_x = 4, local_size_y = 8, local_size_z = 2) in;\nvoid main() {}\n", [3]int{4, 8, 2}},
		{"z only, hex", "#version 310 es\nlayout(local_size_z = 0x10) in;\nvoid main() {}\n", [3]int{1, 1, 16}},
		{"size 1", "#version 310 es\nlayout(local_size_x = 1) in;\nvoid main() {}\n", [3]int{1, 1, 1}},
		{"the invocation limit", "#version 310 es\nlayout(local_size_x = 128) in;\nvoid main() {}\n", [3]int{128, 1, 1}},
		{"z at its limit", "#version 310 es\nlayout(local_size_x = 2, local_size_z = 64) in;\nvoid main() {}\n", [3]int{2, 1, 64}},
		{"same size twice", "#version 310 es\nlayout(local_size_x = 8) in;\nlayout(local_size_x = 8) in;\nvoid main() {}\n", [3]int{8, 1, 1}},
		{"float defaults to highp", "#version 310 es\nlayout(local_size_x = 8) in;\nvoid main() { float f = 1.0; int i = 2; f += float(i); }\n", [3]int{8, 1, 1}},
		{"__VERSION__ is 310", "#version 310 es\n#if __VERSION__ != 310\n#error wrong version\n#endif\nlayout(local_size_x = 2) in;\nvoid main() {}\n", [3]int{2, 1, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			unit, errs := Parse(Compute, tc.src)
			if errs != nil {
				t.Fatalf("Parse: %v", errs)
			}
			if unit.Version != 310 || unit.LocalSize != tc.want {
				t.Errorf("version %d local size %v, want 310 %v", unit.Version, unit.LocalSize, tc.want)
			}
			if errs := LinkStage(unit); errs != nil {
				t.Errorf("LinkStage: %v", errs)
			}
		})
	}
}

func TestComputeErrors(t *testing.T) {
	tests := []struct {
		name  string
		stage Stage
		src   string
		want  string // one line of the info log
	}{
		{"compute without version", Compute, "layout(local_size_x = 1) in;\nvoid main() {}\n",
			"ERROR: 0:1: 'compute' : compute shaders require #version 310 es"},
		{"compute with version 100", Compute, "#version 100\nvoid main() {}\n",
			"ERROR: 0:1: 'compute' : compute shaders require #version 310 es"},
		{"310 without es", Compute, "#version 310\nlayout(local_size_x = 1) in;\nvoid main() {}\n",
			"ERROR: 0:1: '310' : version 310 requires the 'es' profile"},
		{"310 in a vertex shader", Vertex, "#version 310 es\nvoid main() {}\n",
			"ERROR: 0:1: '310' : version 310 es is supported for compute shaders only; vertex and fragment shaders are GLSL ES 1.00"},
		{"310 in a fragment shader", Fragment, "#version 310 es\nvoid main() {}\n",
			"ERROR: 0:1: '310' : version 310 es is supported for compute shaders only; vertex and fragment shaders are GLSL ES 1.00"},
		{"unknown version", Vertex, "#version 300 es\nvoid main() {}\n",
			"ERROR: 0:1: '300' : version not supported; only 100 and 310 es (compute shaders) are"},
		{"layout in ES 1.00", Vertex, "\nlayout(local_size_x = 1) in;\nvoid main() {}\n",
			"ERROR: 0:2: 'layout' : layout qualifiers require #version 310 es (compute shaders)"},
		{"buffer block in ES 1.00", Fragment, "precision mediump float;\nbuffer B { float d[]; };\nvoid main() {}\n",
			"ERROR: 0:2: 'buffer' : shader storage blocks require #version 310 es (compute shaders)"},
		{"x over its limit", Compute, "#version 310 es\nlayout(local_size_x = 129) in;\nvoid main() {}\n",
			"ERROR: 0:2: '129' : local size exceeds GL_MAX_COMPUTE_WORK_GROUP_SIZE X = 128"},
		{"z over its limit", Compute, "#version 310 es\nlayout(local_size_z = 65) in;\nvoid main() {}\n",
			"ERROR: 0:2: '65' : local size exceeds GL_MAX_COMPUTE_WORK_GROUP_SIZE Z = 64"},
		{"size beyond uint32", Compute, "#version 310 es\nlayout(local_size_y = 99999999999) in;\nvoid main() {}\n",
			"ERROR: 0:2: '99999999999' : local size exceeds GL_MAX_COMPUTE_WORK_GROUP_SIZE Y = 128"},
		{"product over the invocation limit", Compute, "#version 310 es\nlayout(local_size_x = 16, local_size_y = 16) in;\nvoid main() {}\n",
			"ERROR: 0:2: 'local_size' : workgroup of 256 invocations exceeds GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS = 128"},
		{"zero size", Compute, "#version 310 es\nlayout(local_size_x = 0) in;\nvoid main() {}\n",
			"ERROR: 0:2: '0' : local size must be at least 1"},
		{"float size", Compute, "#version 310 es\nlayout(local_size_x = 1.5) in;\nvoid main() {}\n",
			"ERROR: 0:2: '1.5' : layout qualifier value must be an integer literal"},
		{"unknown qualifier", Compute, "#version 310 es\nlayout(local_size_w = 2) in;\nvoid main() {}\n",
			"ERROR: 0:2: 'local_size_w' : unknown layout qualifier"},
		{"redeclared differently", Compute, "#version 310 es\nlayout(local_size_x = 2) in;\nlayout(local_size_x = 4) in;\nvoid main() {}\n",
			"ERROR: 0:3: 'local_size' : local size redeclared with different values (GLSL ES 3.10 §4.4.1.1)"},
		{"same qualifier twice", Compute, "#version 310 es\nlayout(local_size_x = 2, local_size_x = 2) in;\nvoid main() {}\n",
			"ERROR: 0:2: 'local_size_x' : layout qualifier given twice"},
		{"output layout", Compute, "#version 310 es\nlayout(local_size_x = 2) out;\nvoid main() {}\n",
			"ERROR: 0:2: 'out' : layout qualifiers are supported only on 'in' (local size) and on buffer blocks"},
		{"runtime array not last", Compute, "#version 310 es\nlayout(local_size_x = 2) in;\nbuffer B { float d[]; float e; };\nvoid main() {}\n",
			"ERROR: 0:3: 'd' : only the last member of a buffer block may be a runtime-sized array"},
		{"shared initializer", Compute, "#version 310 es\nlayout(local_size_x = 2) in;\nshared float s = 1.0;\nvoid main() {}\n",
			"ERROR: 0:3: 's' : shared variables cannot have initializers"},
		{"varying in compute", Compute, "#version 310 es\nlayout(local_size_x = 2) in;\nvarying vec4 v;\nvoid main() {}\n",
			"ERROR: 0:3: 'varying' : varyings are not allowed in compute shaders"},
		{"attribute in compute", Compute, "#version 310 es\nlayout(local_size_x = 2) in;\nattribute vec4 a;\nvoid main() {}\n",
			"ERROR: 0:3: 'attribute' : attributes are allowed only in vertex shaders"},
		{"no fragment built-ins", Compute, "#version 310 es\nlayout(local_size_x = 2) in;\nvoid main() { vec4 c = gl_FragCoord; }\n",
			"ERROR: 0:3: 'gl_FragCoord' : undeclared identifier"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := Parse(tc.stage, tc.src)
			if errs == nil {
				t.Fatalf("Parse succeeded, want %q", tc.want)
			}
			if log := errs.InfoLog(); !strings.Contains(log, tc.want+"\n") {
				t.Errorf("info log:\n%s\nwant the line %q", log, tc.want)
			}
		})
	}
}

func TestComputeLinkNeedsLocalSize(t *testing.T) {
	unit, errs := Parse(Compute, "#version 310 es\nvoid main() {}\n")
	if errs != nil {
		t.Fatalf("Parse: %v", errs)
	}
	errs = LinkStage(unit)
	want := "ERROR: Linking: 'local_size' : compute shader must declare layout(local_size_x = X, local_size_y = Y, local_size_z = Z) in"
	if len(errs) != 1 || errs[0].Error() != want {
		t.Errorf("LinkStage: %v, want %q", errs, want)
	}
}

// TestES100IdentifiersStayValid: layout, buffer and shared are ordinary
// identifiers in GLSL ES 1.00; the compute subset must not take them away.
func TestES100IdentifiersStayValid(t *testing.T) {
	src := "precision mediump float;\nstruct layout { float x; };\nfloat buffer;\nfloat shared;\n" +
		"float f(float layout) { return layout; }\nvoid main() { layout l = layout(1.0); gl_FragColor = vec4(f(buffer + shared + l.x)); }\n"
	if _, errs := Parse(Fragment, src); errs != nil {
		t.Fatalf("Parse: %v", errs)
	}
}

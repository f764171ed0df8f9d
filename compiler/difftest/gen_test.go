package difftest

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
	"github.com/tilegpu/tilegpu/hw/isa"
)

// TestGenerateValid: every input, including empty and truncated ones,
// gives a program the front end accepts, and the same input gives the same
// program.
func TestGenerateValid(t *testing.T) {
	inputs := [][]byte{nil, {0}, {255}, {1, 2, 3}}
	for seed := int64(1); seed <= 150; seed++ {
		b := seedBytes(seed)
		inputs = append(inputs, b, b[:len(b)/3])
	}
	for i, data := range inputs {
		for _, opts := range []Options{{}, {NaN: true}} {
			src := GenerateWith(data, opts)
			if _, errs := glsl.Parse(glsl.Fragment, src); errs != nil {
				t.Fatalf("input %d: generated program does not compile:\n%s%s", i, errs.InfoLog(), src)
			}
			if again := GenerateWith(data, opts); again != src {
				t.Fatalf("input %d: not deterministic", i)
			}
		}
	}
}

// TestGenerateCoverage: across the deterministic cases the generator
// produces every construct the differential test is meant to cover.
func TestGenerateCoverage(t *testing.T) {
	var all strings.Builder
	for seed := int64(1); seed <= 200; seed++ {
		all.WriteString(GenerateWith(seedBytes(seed), caseOptions(seed)))
	}
	text := all.String()
	for _, want := range []string{
		"for (int", "while (", "do {", "break;", "continue;", "discard;", "} else {", " ? ",
		"vec2 ", "vec3 ", "vec4 ", "ivec2 ", "ivec3 ", "bvec2 ", "bvec3 ", "int ", "bool ", "float ",
		" + ", " - ", " * ", " / ", " < ", " >= ", " == ", " != ", " && ", " || ", " ^^ ", "(!",
		"min(", "max(", "clamp(", "abs(", "floor(", "fract(", "mix(", "step(", "dot(", "length(",
		"normalize(", "sqrt(", "exp2(", "log2(", "pow(", "sin(", "cos(", "cross(", "distance(",
		"smoothstep(", "mod(", "lessThan(", "equal(", "any(", "all(", "not(",
		"ua[int(", "gl_FragCoord.", "gl_FrontFacing", ").x", "ui",
		"float fn1(", "vec3 fn", ") return ", "= fn", "(fn",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no generated program contains %q", want)
		}
	}
}

func TestSameFloat(t *testing.T) {
	nan := math.Float32bits(float32(math.NaN()))
	f := math.Float32bits
	tests := []struct {
		a, b uint32
		tol  float64
		want bool
	}{
		{f(1), f(1), 0, true},
		{f(1), f(math.Nextafter32(1, 2)), 0, false},
		{f(1), f(math.Nextafter32(1, 2)), sfuTolerance, true},
		{f(1000), f(1000.1), sfuTolerance, false},
		{f(0), 0x80000000, 0, true}, // +0 == -0
		{nan, 0x7fc0dead, 0, true},  // any NaN equals any NaN
		{nan, f(0), sfuTolerance, false},
		{f(float32(math.Inf(1))), f(float32(math.Inf(1))), 0, true},
		{f(float32(math.Inf(1))), f(math.MaxFloat32), 1, false},
		{f(1e-9), f(2e-9), sfuTolerance, true}, // absolute near 0
	}
	for _, tc := range tests {
		if got := sameFloat(tc.a, tc.b, tc.tol); got != tc.want {
			t.Errorf("sameFloat(%#x, %#x, %g) = %v", tc.a, tc.b, tc.tol, got)
		}
	}
}

// TestApproximateOutputs: only words that depend on an SFU op, through
// data or through control flow, get the tolerance.
func TestApproximateOutputs(t *testing.T) {
	src := knownHeader + `void main() {
  float r = va.x + 1.0;
  float g = sqrt(abs(va.y));
  float b = 0.0;
  if (exp2(va.z) > 2.0) { b = 1.0; }
  gl_FragColor = vec4(r, g, b, va.w * 2.0);
}
`
	unit, errs := glsl.Parse(glsl.Fragment, src)
	if errs != nil {
		t.Fatal(errs)
	}
	f, err := ir.FromAST(unit)
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Run(f, ir.Options{Layout: ir.SequentialLayout(f)}); err != nil {
		t.Fatal(err)
	}
	if got, want := approximateOutputs(f), [4]bool{false, true, true, false}; got != want {
		t.Errorf("approximateOutputs = %v, want %v\n%s", got, want, ir.Dump(f))
	}
}

// TestCheckRejects: programs the front end rejects are errors, not
// mismatches or panics.
func TestCheckRejects(t *testing.T) {
	err := Check("void main() { gl_FragColor = nope; }", NewInputs(1))
	if err == nil || !strings.Contains(err.Error(), "front end rejected") || failureKind(err) == "backend mismatch" {
		t.Fatalf("error %v", err)
	}
}

// TestCheckCatchesWrongCode turns the first FADD of each program into an
// FSUB: the comparison must notice.
func TestCheckCatchesWrongCode(t *testing.T) {
	mutated := false
	mutateCode = func(code []uint64) {
		for i, w := range code {
			in, err := isa.Decode(w)
			if err == nil && in.IsALU() && in.OpAdd == isa.OpFADD {
				in.OpAdd = isa.OpFSUB
				code[i] = isa.Encode(in)
				mutated = true
				return
			}
		}
	}
	defer func() { mutateCode = nil }()
	src := knownHeader + `void main() {
  gl_FragColor = vec4(va.x + vb.y, va.z, 1.0, 0.0);
}
`
	err := Check(src, NewInputs(3))
	if !mutated {
		t.Fatal("no FADD to mutate")
	}
	var m *Mismatch
	if !errors.As(err, &m) || m.Stage != "backend" || len(m.Lanes) == 0 {
		t.Fatalf("wrong code not caught: %v", err)
	}
	if !strings.Contains(m.Error(), "--- code ---") || !strings.Contains(m.Error(), "--- IR after passes ---") {
		t.Errorf("report lacks the dumps:\n%s", m.Error())
	}
}

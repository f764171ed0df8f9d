package deqp

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl/deqptest"
)

// corpusDir holds the dEQP GLES2 shader-library files, carried by the
// repository (testdata/deqp-gles2, Apache-2.0: see its LICENSE, NOTICE and
// SOURCE) so that the tests need nothing outside the module.
const corpusDir = "../../testdata/deqp-gles2"

func TestParseType(t *testing.T) {
	tests := []struct {
		name string
		want Type
	}{
		{"float", Type{Name: "float", Kind: Float, Rows: 1, Cols: 1}},
		{"vec3", Type{Name: "vec3", Kind: Float, Rows: 3, Cols: 1}},
		{"ivec2", Type{Name: "ivec2", Kind: Int, Rows: 2, Cols: 1}},
		{"bvec4", Type{Name: "bvec4", Kind: Bool, Rows: 4, Cols: 1}},
		{"mat3", Type{Name: "mat3", Kind: Float, Rows: 3, Cols: 3}},
		{"sampler2D", Type{Name: "sampler2D", Kind: Sampler, Rows: 1, Cols: 1}},
		{"mediump vec2", Type{Name: "vec2", Kind: Float, Rows: 2, Cols: 1}},
	}
	for _, tt := range tests {
		got, err := ParseType(tt.name)
		if err != nil || got != tt.want {
			t.Errorf("ParseType(%q) = %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "vec5", "mat2x3", "uint", "struct S", "highp lowp float"} {
		if _, err := ParseType(bad); err == nil {
			t.Errorf("ParseType(%q) succeeded", bad)
		}
	}
}

func TestParseElement(t *testing.T) {
	tests := []struct {
		typ, src string
		want     []float64
	}{
		{"float", "1.5", []float64{1.5}},
		{"float", "-0.25", []float64{-0.25}},
		{"float", "- 2.0", []float64{-2}},
		{"float", "1e2", []float64{100}},
		{"float", "1.0e-1", []float64{float64(float32(0.1))}},
		{"float", "3", []float64{3}}, // integer literal for a float
		{"float", "float(2)", []float64{2}},
		{"int", "-7", []float64{-7}},
		{"int", "0x10", []float64{16}},
		{"int", "int(2.9)", []float64{2}},
		{"int", "int(-2.9)", []float64{-2}},
		{"bool", "true", []float64{1}},
		{"bool", "false", []float64{0}},
		{"bool", "bool(2)", []float64{1}},
		{"vec3", "vec3(1.0, 2.0, 3.0)", []float64{1, 2, 3}},
		{"vec4", "vec4(0.5)", []float64{0.5, 0.5, 0.5, 0.5}},
		{"vec4", "vec4(vec2(1.0, 2.0), 3.0, 4.0)", []float64{1, 2, 3, 4}},
		{"vec2", "vec2(vec3(1.0, 2.0, 3.0))", []float64{1, 2}},
		{"vec2", "vec2(1, true)", []float64{1, 1}},
		{"ivec2", "ivec2(1, -2)", []float64{1, -2}},
		{"ivec3", "ivec3(1.7)", []float64{1, 1, 1}},
		{"bvec4", "bvec4(true, false, false, true)", []float64{1, 0, 0, 1}},
		{"bvec2", "bvec2(0.0, 3.0)", []float64{0, 1}},
		{"mat2", "mat2(1.0, 2.0, 3.0, 4.0)", []float64{1, 2, 3, 4}},
		{"mat2", "mat2(2.0)", []float64{2, 0, 0, 2}},
		{"mat3", "mat3(-1.0)", []float64{-1, 0, 0, 0, -1, 0, 0, 0, -1}},
		{"mat3", "mat3(mat2(1.0, 2.0, 3.0, 4.0))", []float64{1, 2, 0, 3, 4, 0, 0, 0, 1}},
		{"mat2", "mat2(mat3(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0))", []float64{1, 2, 4, 5}},
		{"mat2", "mat2(vec2(1.0, 2.0), vec2(3.0, 4.0))", []float64{1, 2, 3, 4}},
		{"sampler2D", "0", []float64{0}},
		{"samplerCube", "3", []float64{3}},
	}
	for _, tt := range tests {
		typ, err := ParseType(tt.typ)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseElement(typ, tt.src)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseElement(%s, %q) = %v, %v; want %v", tt.typ, tt.src, got, err, tt.want)
		}
	}
}

func TestParseElementErrors(t *testing.T) {
	tests := []struct {
		typ, src, want string
	}{
		{"float", "", "missing value"},
		{"float", "abc", "unknown constructor"},
		{"float", "1.0 2.0", "after the value"},
		{"int", "1.5", "value has type float"},
		{"vec3", "vec2(1.0, 2.0)", "value has type vec2"},
		{"vec3", "vec3(1.0, 2.0)", "2 components given, 3 needed"},
		{"vec2", "vec2(1.0, 2.0, 3.0)", "too many arguments"},
		{"vec2", "vec2(1.0, 2.0", "expected ',' or ')'"},
		{"vec2", "vec2 1.0", "expected '('"},
		{"mat2", "mat2(mat2(1.0), 1.0)", "matrix argument must be the only"},
		{"int", "99999999999", "bad integer literal"},
		{"float", "1e99", "bad float literal"},
		{"bool", "1", "value has type int"},
		{"float", "-", "is not a number"},
		{"vec4", strings.Repeat("vec4(", 40) + "1.0" + strings.Repeat(")", 40), "nested deeper"},
	}
	for _, tt := range tests {
		typ, err := ParseType(tt.typ)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ParseElement(typ, tt.src)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseElement(%s, %q) error = %v; want it to mention %q", tt.typ, tt.src, err, tt.want)
		}
	}
}

// TestCorpusValues evaluates every value element of the corpus, so that a
// value the parser cannot read shows up here rather than as a failed run.
func TestCorpusValues(t *testing.T) {
	files, err := Load(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		for _, c := range f.Cases {
			vals, _, err := parseValues(c.Values)
			if err != nil {
				t.Errorf("%s: %s: %v", f.Path, c.FullName(), err)
			}
			n += len(vals)
		}
	}
	if n < 1000 {
		t.Errorf("only %d values in the corpus; is %s complete?", n, corpusDir)
	}
}

func FuzzParseElement(f *testing.F) {
	for _, s := range []string{"1.0", "-3", "true", "vec3(1.0, 2.0, 3.0)", "mat2(vec2(1.0), 2.0, 3.0)", "ivec2(0x7fffffff, -1)"} {
		f.Add("vec3", s)
	}
	f.Fuzz(func(t *testing.T, typ, src string) {
		ty, err := ParseType(typ)
		if err != nil {
			return
		}
		v, err := ParseElement(ty, src)
		if err == nil && len(v) != ty.Size() {
			t.Errorf("ParseElement(%s, %q) gave %d components", typ, src, len(v))
		}
	})
}

func FuzzParseRequirements(f *testing.F) {
	for _, s := range []string{"full_glsl_es_100_support", `extension { "GL_OES_standard_derivatives" | "GL_X" } in { vertex, fragment }`, "extension {", "limit"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, err := parseRequirements([]string{line})
		if err == nil && len(r.extensions) != len(r.extensionStages) {
			t.Errorf("parseRequirements(%q): %d extension lists, %d stage lists", line, len(r.extensions), len(r.extensionStages))
		}
	})
}

func TestParseValues(t *testing.T) {
	tests := []struct {
		vals     []deqptest.Value
		subCases int
		err      string
	}{
		{nil, 1, ""},
		{[]deqptest.Value{
			{Storage: deqptest.Input, Type: "float", Name: "in0", Elements: []string{"1.0"}},
			{Storage: deqptest.Output, Type: "int", Name: "out0", Elements: []string{"1", "2", "3"}},
			{Storage: deqptest.Output, Type: "int", Name: "out1", Elements: []string{"1", "2", "3"}},
		}, 3, ""},
		{[]deqptest.Value{
			{Storage: deqptest.Input, Type: "float", Name: "in0", Elements: []string{"1.0", "2.0"}},
			{Storage: deqptest.Output, Type: "int", Name: "out0", Elements: []string{"1", "2", "3"}},
		}, 0, "value in0 has 2 elements, the case has 3 sub-cases"},
		{[]deqptest.Value{{Storage: deqptest.Input, Type: "sampler2D", Name: "s", Elements: []string{"0"}}}, 0,
			"value s: a sampler2D can only be a uniform"},
		{[]deqptest.Value{{Storage: deqptest.Uniform, Type: "vec7", Name: "u", Elements: []string{"0"}}}, 0,
			`value u: unknown value type "vec7"`},
		{[]deqptest.Value{{Storage: deqptest.Uniform, Type: "float", Name: "u"}}, 0, "value u has no elements"},
	}
	for i, tt := range tests {
		_, n, err := parseValues(tt.vals)
		if tt.err == "" && (err != nil || n != tt.subCases) {
			t.Errorf("%d: %d sub-cases, %v; want %d", i, n, err, tt.subCases)
		}
		if tt.err != "" && (err == nil || err.Error() != tt.err) {
			t.Errorf("%d: error %v; want %q", i, err, tt.err)
		}
	}
}

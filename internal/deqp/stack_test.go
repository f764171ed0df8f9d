package deqp

import (
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl/deqptest"
)

// stackCases exercise every input, output and uniform kind through the
// real stack. Their expected values were worked out by hand.
const stackCases = `
case all_types
	values
	{
		input vec3 v = [ vec3(1.0, 2.0, 3.0) | vec3(0.5) | vec3(-1.0, 0.0, 1.0) ];
		input int i = [ 1 | -2 | 7 ];
		input ivec2 iv = [ ivec2(1, 2) | ivec2(3) | ivec2(-4, 5) ];
		input bool b = [ true | false | true ];
		input bvec3 bv = [ bvec3(true, false, true) | bvec3(false) | bvec3(true) ];
		input mat2 m2 = [ mat2(1.0, 2.0, 3.0, 4.0) | mat2(2.0) | mat2(-1.0, 0.5, 0.25, 8.0) ];
		uniform float u = 0.5;
		uniform ivec2 ui = ivec2(3, -1);
		uniform bool ub = true;
		uniform mat3 um = mat3(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0);
		output float of = [ 14.0 | 10.25 | 7.0 ];
		output vec2 ov = [ vec2(7.0, 10.0) | vec2(2.0, 4.0) | vec2(-0.5, 16.5) ];
		output int oi = [ -786 | -669 | -530 ];
		output bvec2 ob = [ bvec2(true, false) | bvec2(false, true) | bvec2(true, true) ];
		output mat2 om = [ mat2(4.0, 3.0, 1.0, 2.0) | mat2(2.0, 0.0, 1.0, 2.0) | mat2(8.0, 0.25, 1.0, 2.0) ];
	}
	both ""
		precision highp float;
		${DECLARATIONS}
		uniform float u;
		uniform ivec2 ui;
		uniform bool ub;
		uniform mat3 um;
		void main()
		{
			${SETUP}
			of = v.x * 2.0 + v.y + v.z * 0.5 + u + um[2].y;
			ov = m2 * vec2(1.0, 2.0);
			oi = i + iv.x * 10 + iv.y * 100 + ui.x + ui.y * 1000;
			ob = bvec2(b && bv.x, bv.y || (ub && !bv.z));
			om = mat2(m2[1].yx, um[0].xy);
			${OUTPUT}
		}
	""
end

case struct_uniform
	values
	{
		uniform float val.a = 1.0;
		uniform vec2 val.b = vec2(2.0, 3.0);
		output float out0 = 6.0;
	}
	both ""
		precision mediump float;
		${DECLARATIONS}
		struct S { float a; vec2 b; };
		uniform S val;
		void main()
		{
			${SETUP}
			out0 = val.a + val.b.x + val.b.y;
			${OUTPUT}
		}
	""
end

case separate_shaders
	values
	{
		input vec2 in0 = [ vec2(1.0, -1.0) | vec2(0.25, 4.0) ];
		output float out0 = [ 0.0 | 4.25 ];
	}
	vertex ""
		${VERTEX_DECLARATIONS}
		varying float v_sum;
		void main()
		{
			v_sum = in0.x + in0.y;
			${VERTEX_OUTPUT}
		}
	""
	fragment ""
		precision mediump float;
		${FRAGMENT_DECLARATIONS}
		varying float v_sum;
		void main()
		{
			out0 = v_sum;
			${FRAGMENT_OUTPUT}
		}
	""
end

case implicit_conversion
	expect compile_fail
	both ""
		precision mediump float;
		${DECLARATIONS}
		void main()
		{
			${SETUP}
			float x = 1;
			${OUTPUT}
		}
	""
end
`

// TestStack runs hand-checked cases on the real stack: as written they
// pass, and each mutation of an expected value (or of the expectation)
// makes exactly the affected run fail with dEQP's reason. This proves a
// passing corpus means the rendered comparisons really happened. The
// generated shaders compare floats with a tolerance of 0.05·|ref| + 0.05,
// so mutations of float values are larger than that.
func TestStack(t *testing.T) {
	tests := []struct {
		name       string
		from, to   string // mutation of stackCases; empty: none
		wantFail   map[string]string
		wantPasses int
	}{
		{name: "as written", wantPasses: 7},
		{name: "float output", from: "[ 14.0 | 10.25 | 7.0 ]", to: "[ 14.0 | 12.0 | 7.0 ]",
			wantFail: map[string]string{
				"all_types_vertex":   "image comparison failed for sub-case 2 of 3",
				"all_types_fragment": "image comparison failed for sub-case 2 of 3",
			}, wantPasses: 5},
		{name: "bool output", from: "bvec2(true, true) ]", to: "bvec2(true, false) ]",
			wantFail: map[string]string{
				"all_types_vertex":   "image comparison failed for sub-case 3 of 3",
				"all_types_fragment": "image comparison failed for sub-case 3 of 3",
			}, wantPasses: 5},
		{name: "matrix output", from: "mat2(4.0, 3.0, 1.0, 2.0)", to: "mat2(4.0, 1.0, 3.0, 2.0)",
			wantFail: map[string]string{
				"all_types_vertex":   "image comparison failed for sub-case 1 of 3",
				"all_types_fragment": "image comparison failed for sub-case 1 of 3",
			}, wantPasses: 5},
		{name: "struct uniform", from: "uniform vec2 val.b = vec2(2.0, 3.0)", to: "uniform vec2 val.b = vec2(2.0, 4.0)",
			wantFail: map[string]string{
				"struct_uniform_vertex":   "image comparison failed for sub-case 1 of 1",
				"struct_uniform_fragment": "image comparison failed for sub-case 1 of 1",
			}, wantPasses: 5},
		{name: "separate shaders", from: "[ 0.0 | 4.25 ]", to: "[ 0.0 | 5.0 ]",
			wantFail: map[string]string{
				"separate_shaders": "image comparison failed for sub-case 2 of 2",
			}, wantPasses: 6},
		{name: "valid program expected to fail", from: "float x = 1;", to: "float x = 1.0;",
			wantFail: map[string]string{
				"implicit_conversion_vertex":   "expected compilation to fail, but shaders compiled correctly",
				"implicit_conversion_fragment": "expected compilation to fail, but shaders compiled correctly",
			}, wantPasses: 5},
	}
	ctx, release, err := newStackContext()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	r := NewRunner(ctx, true)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := stackCases
			if tt.from != "" {
				if strings.Count(src, tt.from) != 1 {
					t.Fatalf("mutation %q does not match exactly once", tt.from)
				}
				src = strings.Replace(src, tt.from, tt.to, 1)
			}
			cases, err := deqptest.Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			passes := 0
			for i := range cases {
				for _, res := range r.RunCase("stack.test", &cases[i]) {
					want, shouldFail := tt.wantFail[res.Name]
					switch {
					case res.Status == Pass && !shouldFail:
						passes++
					case res.Status == Fail && shouldFail && res.Reason == want:
					default:
						t.Errorf("%s: %v %q; want failure %v %q\n%s", res.Name, res.Status, res.Reason, shouldFail, want, res.Detail)
					}
				}
			}
			if passes != tt.wantPasses {
				t.Errorf("%d runs passed, want %d", passes, tt.wantPasses)
			}
		})
	}
}

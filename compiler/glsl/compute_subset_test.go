package glsl

import (
	"strings"
	"testing"
)

const compHead = "#version 310 es\nlayout(local_size_x = 4) in;\n"

// TestComputeSubsetErrors: the GLSL ES 3.10 constructs of the compute
// subset report their misuse at its line, in glslangValidator's form.
func TestComputeSubsetErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string // after compHead: line 3 on
		want string
	}{
		{"uint to int", "void main() { int x = 1u; }\n", "ERROR: 0:3: '=' : cannot convert from 'uint' to 'int'"},
		{"mixed signedness", "void main() { uint a = 1u; int b = 1; uint c = a + b; }\n",
			"ERROR: 0:3: '+' : wrong operand types: no operation '+' exists that takes a left-hand operand of type 'uint' and a right operand of type 'int'"},
		{"float modulus", "void main() { float f = 5.0 % 2.0; }\n",
			"ERROR: 0:3: '%' : wrong operand types: no operation '%' exists that takes a left-hand operand of type 'float' and a right operand of type 'float'"},
		{"shift by float", "void main() { int a = 1 << 1.0; }\n",
			"ERROR: 0:3: '<<' : wrong operand types: no operation '<<' exists that takes a left-hand operand of type 'int' and a right operand of type 'float'"},
		{"scalar shifted by vector", "void main() { ivec2 a = 1 << ivec2(1); }\n",
			"ERROR: 0:3: '<<' : wrong operand types: no operation '<<' exists that takes a left-hand operand of type 'int' and a right operand of type 'ivec2'"},
		{"vector sizes differ", "void main() { uvec2 a = uvec2(1u) & uvec3(1u); }\n",
			"ERROR: 0:3: '&' : wrong operand types: no operation '&' exists that takes a left-hand operand of type 'uvec2' and a right operand of type 'uvec3'"},
		{"complement of float", "void main() { float f = ~1.0; }\n",
			"ERROR: 0:3: '~' : wrong operand type: no operation '~' exists that takes an operand of type 'float'"},
		{"compound bit op on float", "void main() { float f = 1.0; f |= 2.0; }\n",
			"ERROR: 0:3: '|=' : wrong operand types: no operation '|=' exists that takes a left-hand operand of type 'float' and a right operand of type 'float'"},
		{"uint literal overflow", "void main() { uint a = 4294967296u; }\n", "ERROR: 0:3: '4294967296u' : integer constant overflow"},
		{"readonly block", "layout(std430, binding = 0) readonly buffer B { uint v[]; } b;\nvoid main() { b.v[0] = 1u; }\n",
			"ERROR: 0:4: 'b' : l-value required (cannot modify a readonly buffer block)"},
		{"readonly member", "layout(std430, binding = 0) buffer B { readonly uint n; uint v[]; } b;\nvoid main() { b.n = 1u; }\n",
			"ERROR: 0:4: 'n' : l-value required (cannot modify a readonly buffer member)"},
		{"readonly member without instance", "layout(std430, binding = 0) buffer B { readonly uint n; uint v[]; };\nvoid main() { n++; }\n",
			"ERROR: 0:4: 'n' : l-value required (cannot modify a readonly buffer block)"},
		{"atomic on a local", "void main() { uint x = 0u; atomicAdd(x, 1u); }\n",
			"ERROR: 0:3: 'atomicAdd' : the first argument of an atomic function must be a buffer or shared variable"},
		{"atomic on float", "shared float f;\nvoid main() { atomicAdd(f, 1.0); }\n",
			"ERROR: 0:4: 'atomicAdd' : no matching overloaded function found"},
		{"write a compute input", "void main() { gl_GlobalInvocationID = uvec3(0u); }\n",
			"ERROR: 0:3: 'gl_GlobalInvocationID' : l-value required (cannot modify a read-only built-in variable)"},
		{"write gl_WorkGroupSize", "void main() { gl_WorkGroupSize.x = 1u; }\n",
			"ERROR: 0:3: 'gl_WorkGroupSize' : l-value required (cannot modify a const variable)"},
		{"binding used twice", "layout(binding = 1) buffer A { uint a; };\nlayout(binding = 1) buffer B { uint b; };\nvoid main() {}\n",
			"ERROR: 0:4: 'B' : binding 1 is already used by buffer block A"},
		{"binding over the limit", "layout(binding = 8) buffer A { uint a; };\nvoid main() {}\n",
			"ERROR: 0:3: '8' : binding exceeds GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS = 8"},
		{"unknown block layout", "layout(std431, binding = 0) buffer A { uint a; };\nvoid main() {}\n",
			"ERROR: 0:3: 'std431' : unknown layout qualifier"},
		{"sampler in a block", "layout(binding = 0) buffer A { sampler2D s; };\nvoid main() {}\n",
			"ERROR: 0:3: 's' : buffer block members cannot be sampler2D"},
		{"too much shared memory", "shared vec4 big[1000];\nshared float more[100];\nvoid main() {}\n",
			"ERROR: 0:4: 'more' : shared variables need 16400 bytes, more than GL_MAX_COMPUTE_SHARED_MEMORY_SIZE = 16384"},
		{"shared array without size", "shared float s[];\nvoid main() {}\n", "ERROR: 0:3: 's' : shared arrays must have a size"},
		{"length of a scalar", "void main() { float f; int n = f.length(); }\n", "ERROR: 0:3: 'length' : length() applies only to arrays"},
		{"310 keyword as a name", "void main() { int buffer = 1; }\n", "ERROR: 0:3: 'buffer' : reserved keyword in GLSL ES 3.10"},
		{"local size on a block", "layout(local_size_x = 2, binding = 0) buffer A { uint a; };\nvoid main() {}\n",
			"ERROR: 0:3: 'local_size_x' : layout qualifier local_size_x does not apply to a buffer block"},
		{"binding on in", "layout(binding = 0) in;\nvoid main() {}\n", "ERROR: 0:3: 'binding' : layout qualifier binding does not apply to 'in'"},
		{"integer min of mixed kinds", "void main() { uint m = min(1u, 2); }\n", "ERROR: 0:3: 'min' : no matching overloaded function found"},
		{"carry into a constant", "void main() { uint s = uaddCarry(1u, 2u, 3u); }\n", "ERROR: 0:3: 'uaddCarry' : l-value required"},
		{"carry into a readonly member", "layout(binding = 0) readonly buffer B { uint c; };\nvoid main() { uint s = uaddCarry(1u, 2u, c); }\n",
			"ERROR: 0:4: 'c' : l-value required (cannot modify a readonly buffer block)"},
		{"array constructor count", "void main() { uint a[3] = uint[3](1u, 2u); }\n", "ERROR: 0:3: 'uint[3]' : array constructor needs 3 arguments, has 2"},
		{"array constructor type", "void main() { uint a[2] = uint[](1u, 2); }\n",
			"ERROR: 0:3: 'uint[2]' : array constructor argument type mismatch: 'int', want 'uint'"},
		{"array size mismatch", "void main() { uint a[2] = uint[3](1u, 2u, 3u); }\n", "ERROR: 0:3: '=' : cannot convert from 'uint[3]' to 'uint[2]'"},
		{"assign a runtime array", "layout(binding = 0) buffer B { uint v[]; } b;\nlayout(binding = 1) buffer C { uint v[]; } c;\nvoid main() { b.v = c.v; }\n",
			"ERROR: 0:5: '=' : cannot assign arrays or samplers"},
		{"switch on float", "void main() { switch (1.0) { default: break; } }\n", "ERROR: 0:3: 'switch' : switch expression must be a scalar int or uint, not float"},
		{"case label of another type", "void main() { int x = 1; switch (x) { case 1u: break; } }\n",
			"ERROR: 0:3: 'case' : case label must be a constant expression of the switch expression's type (int)"},
		{"case label not constant", "void main() { int x = 1; switch (x) { case x: break; } }\n",
			"ERROR: 0:3: 'case' : case label must be a constant expression of the switch expression's type (int)"},
		{"duplicate case", "void main() { int x = 1; switch (x) { case 1: case 1: break; } }\n", "ERROR: 0:3: 'case' : duplicate case label 1"},
		{"duplicate default", "void main() { int x = 1; switch (x) { default: break; default: break; } }\n", "ERROR: 0:3: 'default' : duplicate default label in switch"},
		{"statement before a label", "void main() { int x = 1; switch (x) { x = 2; case 1: break; } }\n",
			"ERROR: 0:3: 'x' : statement before the first case label of a switch"},
		{"label at the end", "void main() { int x = 1; switch (x) { case 1: break; case 2: } }\n",
			"ERROR: 0:3: '}' : a case or default label must be followed by a statement (GLSL ES 3.00 §6.2)"},
		{"continue in a switch outside loops", "void main() { int x = 1; switch (x) { default: continue; } }\n",
			"ERROR: 0:3: 'continue' : continue statement only allowed in loops"},
		{"uint index of a constant out of range", "void main() { float a[2]; a[2u] = 1.0; }\n", "ERROR: 0:3: '[' : index out of range"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := Parse(Compute, compHead+tc.src)
			if errs == nil {
				t.Fatalf("Parse succeeded, want %q", tc.want)
			}
			if log := errs.InfoLog(); !strings.Contains(log, tc.want+"\n") {
				t.Errorf("info log:\n%s\nwant the line %q", log, tc.want)
			}
		})
	}
}

// TestComputeSubsetAccepts: valid ES 3.10 compute code, with the types and
// constant values the checker gives it.
func TestComputeSubsetAccepts(t *testing.T) {
	src := compHead + `layout(std430, binding = 3) coherent buffer Data { uint n; vec3 v; float f[]; } data;
layout(binding = 1) restrict writeonly buffer Out { uvec4 o[4]; };
shared ivec2 pairs[gl_WorkGroupSize.x];
const uint k = (0xF0u | 0x0Fu) & ~0x3u;          // 0xFC
const int s = (-17 >> 2) + (7 % 3) * (1 << 4);  // -5 + 16 = 11
const uint d = 0xFFFFFFFFu / 10u;
const int len = int(pairs.length());
void main() {
	uint i = gl_GlobalInvocationID.x + gl_LocalInvocationIndex;
	i ^= k; i <<= 1u; i >>= 1; i %= 5u; i |= 1u; i &= 7u;
	int j = int(i) >> 1 << 2;
	pairs[i % 4u] = ivec2(j, s);
	o[i % 4u] = uvec4(uvec2(pairs[0]), uint(data.f.length()), 3u) >> uvec4(1u);
	memoryBarrier(); memoryBarrierShared(); memoryBarrierBuffer(); groupMemoryBarrier(); barrier();
	atomicMax(data.n, max(i, 2u));
	int m = clamp(abs(j), 0, 3) + sign(-j);
	bool b = lessThan(uvec2(i), uvec2(3u)).x && i >= 1u;
}
`
	unit, errs := Parse(Compute, src)
	if errs != nil {
		t.Fatalf("Parse:\n%s", errs.InfoLog())
	}
	consts := map[string]Scalar{}
	for _, d := range unit.Decls {
		if ds, ok := d.(*DeclStmt); ok {
			for _, vd := range ds.Vars {
				if vd.Var.Value != nil {
					consts[vd.Var.Name] = vd.Var.Value[0]
				}
			}
		}
	}
	want := map[string]Scalar{"k": {Kind: Uint, I: 0xFC}, "s": {Kind: Int, I: 11}, "d": {Kind: Uint, I: int32(uint32(0xFFFFFFFF) / 10)},
		"len": {Kind: Int, I: 4}}
	for name, w := range want {
		if consts[name] != w {
			t.Errorf("const %s = %v, want %v", name, consts[name], w)
		}
	}
	if len(unit.Buffers) != 2 || unit.SharedSize != 32 || len(unit.Shared) != 1 {
		t.Fatalf("%d buffers, %d shared bytes in %d variables; want 2, 32, 1", len(unit.Buffers), unit.SharedSize, len(unit.Shared))
	}
	b := unit.Buffers[0]
	if b.Name != "Data" || b.Binding != 3 || b.Offsets[1] != 16 || b.Offsets[2] != 28 || b.FixedSize != 28 || b.Stride != 4 {
		t.Errorf("block Data: %+v", b)
	}
	if o := unit.Buffers[1]; o.Binding != 1 || o.FixedSize != 64 || o.Stride != 0 || !o.Writeonly {
		t.Errorf("block Out: %+v", o)
	}
}

// TestES100KeepsES310Syntax: in ES 1.00 shaders the 3.10 additions do not
// exist: the operators stay reserved, u literals are invalid numbers, and
// uint and friends are ordinary identifiers.
func TestES100KeepsES310Syntax(t *testing.T) {
	errCases := []struct{ src, want string }{
		{"void main() { int a = 5 % 2; }\n", "ERROR: 0:1: '%' : reserved operator"},
		{"void main() { int a = 1 << 2; }\n", "ERROR: 0:1: '<<' : reserved operator"},
		{"void main() { int a = ~2; }\n", "ERROR: 0:1: '~' : reserved operator"},
		{"void main() { int a = 1; a |= 2; }\n", "ERROR: 0:1: '|=' : reserved operator"},
		{"void main() { int a = 1u; }\n", "ERROR: 0:1: '1u' : invalid number"},
		{"void main() { uint a; }\n", "ERROR: 0:1: 'uint' : undeclared identifier"},
		{"void main() { float a[2]; int n = a.length(); }\n", "ERROR: 0:1: 'length' : field selection requires a structure or vector on the left"},
		{"void main() { barrier(); }\n", "ERROR: 0:1: 'barrier' : no matching overloaded function found"},
		{"void main() { int x = 1; switch (x) { default: x = 2; } }\n", "ERROR: 0:1: 'switch' : reserved keyword"},
		{"void main() { float a[2]; a = float[2](1.0, 2.0); }\n", "ERROR: 0:1: 'float' : array constructors are not allowed"},
		{"void main() { const float a[2]; }\n", "ERROR: 0:1: 'a' : const arrays are not allowed"},
	}
	for _, tc := range errCases {
		_, errs := Parse(Vertex, tc.src)
		if errs == nil || !strings.Contains(errs.InfoLog(), tc.want+"\n") {
			t.Errorf("%q: log %v, want the line %q", tc.src, errs, tc.want)
		}
	}
	ok := "precision mediump float;\nfloat uint;\nint uvec2(int x) { return x; }\n" +
		"int min(int a, int b) { return a < b ? a : b; }\n" + // no built-in int min in ES 1.00
		"void main() { int buffer = uvec2(min(1, 2)); gl_FragColor = vec4(uint + float(buffer)); }\n"
	if _, errs := Parse(Fragment, ok); errs != nil {
		t.Errorf("ES 1.00 names: %v", errs.InfoLog())
	}
}

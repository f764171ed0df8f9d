package glsl

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestPackedVectors checks the packing algorithm of Appendix A §7 on sets
// of variables: the row count it needs, and that it fails one row below.
func TestPackedVectors(t *testing.T) {
	arr := ArrayOf
	s := &Type{Kind: Struct, Struct: &StructType{Name: "S", Fields: []Field{
		{Name: "p", Type: TypeVec3}, {Name: "f", Type: TypeFloat}}}}
	withSampler := &Type{Kind: Struct, Struct: &StructType{Name: "T", Fields: []Field{
		{Name: "t", Type: BasicType(Sampler2D)}, {Name: "o", Type: TypeVec2}}}}
	tests := []struct {
		name  string
		types []*Type
		rows  int
	}{
		{"nothing", nil, 0},
		{"one float", []*Type{TypeFloat}, 1},
		{"four floats share a row", []*Type{TypeFloat, TypeFloat, TypeFloat, TypeFloat}, 1},
		{"five floats", []*Type{TypeFloat, TypeFloat, TypeFloat, TypeFloat, TypeFloat}, 2},
		// The example of Appendix A §7: a in row 0; b in rows 1-3, x..z;
		// c[3] and e in x,y of rows 4-7; d[2] in z,w of rows 6-7 (it no
		// longer fits in x,y); f[3] in w of rows 1-3; g[2] in z of rows
		// 4-5 (z and w tie, the lower column wins); h in w of row 4.
		// 31 of 32 cells are used.
		{"spec example", []*Type{TypeVec4, BasicType(Mat3), arr(TypeVec2, 3), arr(TypeVec2, 2), TypeVec2,
			arr(TypeFloat, 3), arr(TypeFloat, 2), TypeFloat}, 8},
		// The same, in another declaration order: the algorithm sorts.
		{"spec example reordered", []*Type{TypeFloat, arr(TypeFloat, 2), TypeVec2, arr(TypeFloat, 3),
			arr(TypeVec2, 2), arr(TypeVec2, 3), BasicType(Mat3), TypeVec4}, 8},
		// A mat2 takes two full rows: two vec2s cannot use its z,w.
		{"mat2 rows are full", []*Type{BasicType(Mat2), arr(TypeVec2, 2)}, 4},
		{"mat2 array", []*Type{arr(BasicType(Mat2), 3)}, 6},
		{"mat2 and floats", []*Type{BasicType(Mat2), TypeFloat}, 3},
		{"mat4", []*Type{BasicType(Mat4)}, 4},
		{"mat3 leaves w to floats", []*Type{BasicType(Mat3), arr(TypeFloat, 3)}, 3},
		{"mat3 w is one column", []*Type{BasicType(Mat3), arr(TypeFloat, 4)}, 4},
		// vec3 and vec2 never share a row (vec2 goes to x,y or z,w).
		{"vec3 and vec2", []*Type{TypeVec3, TypeVec2}, 2},
		{"vec3s and floats", []*Type{arr(TypeVec3, 4), arr(TypeFloat, 4)}, 4},
		{"two vec3s and a vec2", []*Type{TypeVec3, TypeVec3, TypeVec2}, 3},
		{"two vec2 share a row", []*Type{TypeVec2, TypeVec2}, 1},
		{"vec2 arrays side by side", []*Type{arr(TypeVec2, 3), arr(TypeVec2, 3)}, 3},
		{"vec2 arrays unequal", []*Type{arr(TypeVec2, 3), arr(TypeVec2, 2), TypeVec2}, 3},
		{"vec2 and floats", []*Type{TypeVec2, TypeFloat, TypeFloat}, 1},
		// A float array stays in one column.
		{"float array is contiguous", []*Type{arr(TypeFloat, 5)}, 5},
		{"float arrays in columns", []*Type{arr(TypeFloat, 5), arr(TypeFloat, 5), arr(TypeFloat, 5), arr(TypeFloat, 5)}, 5},
		{"int and bool vectors", []*Type{BasicType(IVec4), BasicType(BVec3), BasicType(Int), BasicType(BVec2)}, 3},
		{"structure members", []*Type{arr(s, 2)}, 2},
		{"structure member arrays", []*Type{arr(s, 3), TypeVec4}, 4},
		{"samplers take no rows", []*Type{BasicType(Sampler2D), arr(BasicType(SamplerCube), 4), TypeVec4}, 1},
		{"sampler in a structure", []*Type{arr(withSampler, 2)}, 1},
		{"vec4 array", []*Type{arr(TypeVec4, 16)}, 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, ok := PackedVectors(tc.types, 64)
			if !ok || rows != tc.rows {
				t.Fatalf("PackedVectors(limit 64) = %d, %v; want %d, true", rows, ok, tc.rows)
			}
			if rows, ok := PackedVectors(tc.types, tc.rows); !ok || rows != tc.rows {
				t.Errorf("PackedVectors(limit %d) = %d, %v; want %d, true", tc.rows, rows, ok, tc.rows)
			}
			if tc.rows == 0 {
				return
			}
			// One row fewer must fail, reporting more rows than the limit.
			if rows, ok := PackedVectors(tc.types, tc.rows-1); ok || rows < tc.rows {
				t.Errorf("PackedVectors(limit %d) = %d, %v; want at least %d, false", tc.rows-1, rows, ok, tc.rows)
			}
		})
	}
}

// TestPackedVectorsLayout checks the placement the algorithm makes for the
// example of Appendix A §7, cell by cell.
func TestPackedVectorsLayout(t *testing.T) {
	types := []*Type{TypeVec4, BasicType(Mat3), ArrayOf(TypeVec2, 3), ArrayOf(TypeVec2, 2), TypeVec2,
		ArrayOf(TypeFloat, 3), ArrayOf(TypeFloat, 2), TypeFloat}
	// Declared in packing order already, so packs can take them as they are.
	var items []packItem
	for _, ty := range types {
		items = packItems(ty, 1, items)
	}
	grid := make([]uint8, 8)
	if !packs(items, grid) {
		t.Fatal("packs failed")
	}
	// Rows as x..w bits: a | b+f | b+f | b+f | c+g+h | c+g | c+d | e+d.
	want := []uint8{0b1111, 0b1111, 0b1111, 0b1111, 0b1111, 0b0111, 0b1111, 0b1111}
	for r := range want {
		if grid[r] != want[r] {
			t.Errorf("row %d = %04b, want %04b", r, grid[r], want[r])
		}
	}
}

// TestPackedVectorsHuge checks that absurd array sizes neither overflow
// nor allocate: they fail against the limit.
func TestPackedVectorsHuge(t *testing.T) {
	for _, ty := range []*Type{
		ArrayOf(BasicType(Mat4), 1<<62),
		ArrayOf(TypeFloat, 1<<62),
		ArrayOf(&Type{Kind: Struct, Struct: &StructType{Name: "S", Fields: []Field{{Name: "a", Type: ArrayOf(TypeVec2, 1<<40)}}}}, 1<<40),
	} {
		if rows, ok := PackedVectors([]*Type{ty}, 256); ok || rows <= 256 {
			t.Errorf("%v: PackedVectors = %d, %v; want > 256, false", ty, rows, ok)
		}
	}
}

func TestAttributeSlots(t *testing.T) {
	for _, tc := range []struct {
		t    *Type
		want int
	}{{TypeFloat, 1}, {TypeVec4, 1}, {BasicType(Mat2), 2}, {BasicType(Mat3), 3}, {BasicType(Mat4), 4}} {
		if got := AttributeSlots(tc.t); got != tc.want {
			t.Errorf("AttributeSlots(%v) = %d, want %d", tc.t, got, tc.want)
		}
	}
}

// decls returns n declarations "qual type nameI;" and an expression that
// uses them all, for shaders at and beyond the limits.
func decls(qual, typ, name string, n int) (string, string) {
	var d, use strings.Builder
	use.WriteString("0.0")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&d, "%s %s %s%d;\n", qual, typ, name, i)
		fmt.Fprintf(&use, " + %s%d%s", name, i, firstComponent(typ))
	}
	return d.String(), use.String()
}

func firstComponent(typ string) string {
	switch {
	case strings.HasPrefix(typ, "mat"):
		return "[0][0]"
	case strings.HasPrefix(typ, "vec"):
		return ".x"
	}
	return ""
}

// TestCountResources links programs just under and just over each limit
// and checks the counts and the error naming the limit.
func TestCountResources(t *testing.T) {
	const fsPre = "precision mediump float;\n"
	type program struct{ vs, fs string }
	// attribs: a vertex shader with the given attribute declarations used in gl_Position.
	attribs := func(typ string, n int, extra string) program {
		d, use := decls("attribute", typ, "a", n)
		return program{d + extra + "void main() { gl_Position = vec4(" + use + "); }",
			fsPre + "void main() { gl_FragColor = vec4(1.0); }"}
	}
	varyings := func(decl, use string) program {
		return program{decl + "void main() { gl_Position = vec4(0.0); }",
			fsPre + decl + "void main() { gl_FragColor = vec4(" + use + "); }"}
	}
	vsUniforms := func(decl, use string) program {
		return program{decl + "void main() { gl_Position = vec4(" + use + "); }",
			fsPre + "void main() { gl_FragColor = vec4(1.0); }"}
	}
	fsUniforms := func(decl, use string) program {
		return program{"void main() { gl_Position = vec4(0.0); }",
			fsPre + decl + "void main() { gl_FragColor = vec4(" + use + "); }"}
	}
	tests := []struct {
		name  string
		prog  program
		check func(Resources) int // the count under test
		want  int
		err   string // substring of the link error, "" for success
	}{
		{"16 vec4 attributes", attribs("vec4", MaxVertexAttribs, ""), func(r Resources) int { return r.AttributeSlots }, 16, ""},
		{"17 vec4 attributes", attribs("vec4", MaxVertexAttribs+1, ""), func(r Resources) int { return r.AttributeSlots }, 17,
			"take 17 locations (a matN takes N), more than GL_MAX_VERTEX_ATTRIBS = 16"},
		{"4 mat4 attributes", attribs("mat4", 4, ""), func(r Resources) int { return r.AttributeSlots }, 16, ""},
		{"unused attribute not counted", attribs("mat4", 4, "attribute float f;\n"),
			func(r Resources) int { return r.AttributeSlots }, 16, ""},
		{"5 mat3", attribs("mat3", 5, ""), func(r Resources) int { return r.AttributeSlots }, 15, ""},
		{"6 mat3", attribs("mat3", 6, ""), func(r Resources) int { return r.AttributeSlots }, 18, "GL_MAX_VERTEX_ATTRIBS"},
		{"8 mat2", attribs("mat2", 8, ""), func(r Resources) int { return r.AttributeSlots }, 16, ""},

		{"16 varying vec4", varyings("varying vec4 v[16];\n", "v[0].x"), func(r Resources) int { return r.VaryingVectors }, 16, ""},
		{"16 varying vec4 and a float", varyings("varying vec4 v[16]; varying float f;\n", "v[0].x + f"),
			func(r Resources) int { return r.VaryingVectors }, 17,
			"too many varyings: they do not pack into GL_MAX_VARYING_VECTORS = 16 vectors (GLSL ES 1.00 Appendix A §7), at least 17 are needed"},
		{"8 varying mat2", varyings("varying mat2 m[8];\n", "m[0][0].x"), func(r Resources) int { return r.VaryingVectors }, 16, ""},
		{"8 varying mat2 and a vec2", varyings("varying mat2 m[8]; varying vec2 w;\n", "m[0][0].x + w.x"),
			func(r Resources) int { return r.VaryingVectors }, 17, "GL_MAX_VARYING_VECTORS = 16"},
		{"vec3 and float share rows", varyings("varying vec3 p[16]; varying float f[16];\n", "p[0].x + f[0]"),
			func(r Resources) int { return r.VaryingVectors }, 16, ""},
		{"vec3 and vec2 do not", varyings("varying vec3 p[15]; varying vec2 q[2];\n", "p[0].x + q[0].x"),
			func(r Resources) int { return r.VaryingVectors }, 17, "GL_MAX_VARYING_VECTORS"},
		{"64 varying floats", varyings("varying float f[16], g[16], h[16], k[16];\n", "f[0] + g[0] + h[0] + k[0]"),
			func(r Resources) int { return r.VaryingVectors }, 16, ""},
		// (A single variable larger than a whole limit is a compile error:
		// see TestDeclarationSizeLimits.)
		{"float array longer than the rows left", varyings("varying vec4 a[15]; varying float f[2];\n", "a[0].x + f[0]"),
			func(r Resources) int { return r.VaryingVectors }, 17, "at least 17 are needed"},
		{"varying not read by the fragment shader", program{"varying vec4 v[16]; varying vec4 w;\nvoid main() { gl_Position = vec4(0.0); w = vec4(1.0); }",
			fsPre + "varying vec4 v[16]; varying vec4 w;\nvoid main() { gl_FragColor = v[1]; }"},
			func(r Resources) int { return r.VaryingVectors }, 16, ""},

		{"256 vertex uniform vectors", vsUniforms("uniform vec4 u[256];\n", "u[0].x"), func(r Resources) int { return r.VertexUniformVectors }, 256, ""},
		{"257 vertex uniform vectors", vsUniforms("uniform vec4 u[256]; uniform float f;\n", "u[0].x + f"),
			func(r Resources) int { return r.VertexUniformVectors }, 257, "uniforms in the vertex shader: they do not pack into GL_MAX_VERTEX_UNIFORM_VECTORS = 256"},
		{"vertex mat4 uniforms", vsUniforms("uniform mat4 m[64];\n", "m[0][0].x"), func(r Resources) int { return r.VertexUniformVectors }, 256, ""},
		{"vertex mat4 uniforms and a vec2", vsUniforms("uniform mat4 m[63]; uniform vec2 a[3]; uniform vec3 b;\n", "m[0][0].x + a[0].x + b.x"),
			func(r Resources) int { return r.VertexUniformVectors }, 256, ""},
		{"256 fragment uniform vectors", fsUniforms("uniform vec4 u[256];\n", "u[0].x"), func(r Resources) int { return r.FragmentUniformVectors }, 256, ""},
		{"257 fragment uniform vectors", fsUniforms("uniform vec4 u[255]; uniform vec3 a, b;\n", "u[0].x + a.x + b.x"),
			func(r Resources) int { return r.FragmentUniformVectors }, 257, "GL_MAX_FRAGMENT_UNIFORM_VECTORS = 256"},
		{"fragment uniform structure", fsUniforms("struct S { vec3 p; float f; mat2 m; }; uniform S s[64];\n", "s[0].f"),
			func(r Resources) int { return r.FragmentUniformVectors }, 192, ""},
		{"fragment uniform structure too big", fsUniforms("struct S { vec3 p; float f; mat2 m; }; uniform S s[85]; uniform S t;\n", "s[0].f + t.f"),
			func(r Resources) int { return r.FragmentUniformVectors }, 258, "GL_MAX_FRAGMENT_UNIFORM_VECTORS"},
		{"unused uniform not counted", fsUniforms("uniform vec4 u[256]; uniform vec4 w[8];\n", "u[0].x"),
			func(r Resources) int { return r.FragmentUniformVectors }, 256, ""},

		{"16 fragment samplers", fsUniforms("uniform sampler2D s[16];\n", "texture2D(s[0], vec2(0.0)).x"),
			func(r Resources) int { return r.FragmentSamplers }, 16, ""},
		{"17 fragment samplers", fsUniforms("uniform sampler2D s[16]; uniform samplerCube c;\n", "texture2D(s[0], vec2(0.0)).x + textureCube(c, vec3(1.0)).x"),
			func(r Resources) int { return r.FragmentSamplers }, 17, "GL_MAX_TEXTURE_IMAGE_UNITS = 16"},
		{"17 vertex samplers", vsUniforms("uniform sampler2D s[16]; uniform sampler2D t;\n", "texture2DLod(s[0], vec2(0.0), 0.0).x + texture2DLod(t, vec2(0.0), 0.0).x"),
			func(r Resources) int { return r.VertexSamplers }, 17, "GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS = 16"},
		{"sampler in both shaders counts once", program{
			"uniform sampler2D s[16];\nvoid main() { gl_Position = texture2DLod(s[1], vec2(0.0), 0.0); }",
			fsPre + "uniform sampler2D s[16];\nvoid main() { gl_FragColor = texture2D(s[2], vec2(0.0)); }"},
			func(r Resources) int { return r.CombinedSamplers }, 16, ""},
		// Each stage may use 16 and the unit table holds 32, so both stages'
		// maximum together fits (the combined limit cannot be exceeded).
		{"32 combined samplers", program{
			"uniform sampler2D s[16];\nvoid main() { gl_Position = texture2DLod(s[1], vec2(0.0), 0.0); }",
			fsPre + "uniform sampler2D t[16];\nvoid main() { gl_FragColor = texture2D(t[2], vec2(0.0)); }"},
			func(r Resources) int { return r.CombinedSamplers }, 32, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vs, errs := Parse(Vertex, tc.prog.vs)
			if errs != nil {
				t.Fatalf("vertex shader: %v", errs)
			}
			fs, errs := Parse(Fragment, tc.prog.fs)
			if errs != nil {
				t.Fatalf("fragment shader: %v", errs)
			}
			if errs := Link(vs, fs); errs != nil {
				t.Fatalf("Link: %v", errs)
			}
			res, errs := CountResources(vs, fs, func(_ Stage, v *Variable) bool { return v.Used })
			if got := tc.check(res); got != tc.want {
				t.Errorf("count = %d, want %d (%+v)", got, tc.want, res)
			}
			switch {
			case tc.err == "" && errs != nil:
				t.Errorf("unexpected error: %v", errs)
			case tc.err != "" && len(errs) != 1:
				t.Errorf("got errors %v, want one containing %q", errs, tc.err)
			case tc.err != "" && !strings.Contains(errs.InfoLog(), tc.err):
				t.Errorf("error %q does not contain %q", errs.InfoLog(), tc.err)
			}
		})
	}
}

// TestPackedVectorsRandom packs random sets of variables and checks, on
// the grid the algorithm fills, that no two variables overlap (every cell
// is set once: the grid holds exactly as many set bits as the variables
// have components), that the count lies between the trivial bounds, and
// that a larger limit never gives a different count.
func TestPackedVectorsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []Kind{Float, Vec2, Vec3, Vec4, Int, IVec2, BVec3, IVec4, Mat2, Mat3, Mat4}
	for iter := 0; iter < 2000; iter++ {
		var types []*Type
		cells, sumRows := 0, 0
		for n := rng.IntN(10); n > 0; n-- {
			ty := BasicType(kinds[rng.IntN(len(kinds))])
			_, cols, rows, _ := packClass(ty)
			if rng.IntN(3) == 0 {
				l := 1 + rng.IntN(6)
				rows *= l
				ty = ArrayOf(ty, l)
			}
			types = append(types, ty)
			cells += rows * cols
			sumRows += rows
		}
		rows, ok := PackedVectors(types, 64)
		if !ok || rows < (cells+3)/4 || rows > sumRows {
			t.Fatalf("%v: PackedVectors = %d, %v; cells %d, rows %d", types, rows, ok, cells, sumRows)
		}
		if r2, ok := PackedVectors(types, 200); !ok || r2 != rows {
			t.Fatalf("%v: %d rows with limit 64, %d with limit 200", types, rows, r2)
		}
		var items []packItem
		for _, ty := range types {
			items = packItems(ty, 1, items)
		}
		slices.SortStableFunc(items, func(a, b packItem) int {
			if a.class != b.class {
				return a.class - b.class
			}
			return b.rows - a.rows
		})
		grid := make([]uint8, rows)
		if !packs(items, grid) {
			t.Fatalf("%v: packs fails on %d rows", types, rows)
		}
		set := 0
		for _, g := range grid {
			set += bits.OnesCount8(g)
		}
		if set != cells {
			t.Fatalf("%v: %d cells set, variables have %d components (overlap)", types, set, cells)
		}
	}
}

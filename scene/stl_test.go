package scene

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
)

// tetra is a tetrahedron in STL's Z-up space, faces counter-clockwise seen
// from outside.
var tetra = [][3][3]float32{
	{{0, 0, 0}, {0, 1, 0}, {1, 0, 0}},
	{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}},
	{{0, 0, 0}, {0, 0, 1}, {0, 1, 0}},
	{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
}

func binarySTL(facets [][3][3]float32, header string) []byte {
	var b bytes.Buffer
	h := make([]byte, 80)
	copy(h, header)
	b.Write(h)
	binary.Write(&b, binary.LittleEndian, uint32(len(facets)))
	for _, f := range facets {
		binary.Write(&b, binary.LittleEndian, [3]float32{}) // stored normal: ignored
		binary.Write(&b, binary.LittleEndian, f)
		binary.Write(&b, binary.LittleEndian, uint16(0))
	}
	return b.Bytes()
}

func asciiSTL(facets [][3][3]float32) string {
	var b strings.Builder
	b.WriteString("solid tetra\n")
	for _, f := range facets {
		b.WriteString("  facet normal 0 0 0\n    outer loop\n")
		for _, v := range f {
			fmt.Fprintf(&b, "      vertex %g %g %g\n", v[0], v[1], v[2])
		}
		b.WriteString("    endloop\n  endfacet\n")
	}
	b.WriteString("endsolid tetra\n")
	return b.String()
}

func TestLoadSTL(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"binary", binarySTL(tetra, "tetra")},
		{"binary with a solid header", binarySTL(tetra, "solid but binary")},
		{"ascii", []byte(asciiSTL(tetra))},
	} {
		m, err := LoadSTL(bytes.NewReader(tc.data))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		tris, verts := m.MeshCounts()
		if tris != 4 || verts != 4 {
			t.Errorf("%s: %d triangles, %d vertices; want 4, 4 (welded)", tc.name, tris, verts)
		}
		p := m.Meshes[0].Primitives[0]
		// Z-up (0,0,1) becomes Y-up (0,1,0); y becomes -z.
		if m.Min != [3]float32{0, 0, -1} || m.Max != [3]float32{1, 1, 0} {
			t.Errorf("%s: bounds %v..%v, want (0,0,-1)..(1,1,0)", tc.name, m.Min, m.Max)
		}
		// Smooth normals of a closed convex solid point away from its
		// centre, and the faces stay counter-clockwise from outside.
		centre := [3]float32{0.25, 0.25, -0.25}
		for v := 0; v < len(p.Vertices); v += ModelVertexFloats {
			pos := [3]float32{p.Vertices[v], p.Vertices[v+1], p.Vertices[v+2]}
			n := p.Vertices[v+3 : v+6]
			out := sub(pos, centre)
			if out[0]*n[0]+out[1]*n[1]+out[2]*n[2] <= 0 {
				t.Errorf("%s: normal %v at %v points inwards", tc.name, n, pos)
			}
		}
		for i := 0; i < len(p.Indices); i += 3 {
			var q [3][3]float32
			for c := 0; c < 3; c++ {
				copy(q[c][:], p.Vertices[int(p.Indices[i+c])*ModelVertexFloats:])
			}
			fn := cross(sub(q[1], q[0]), sub(q[2], q[0]))
			out := sub(q[0], centre)
			if fn[0]*out[0]+fn[1]*out[1]+fn[2]*out[2] <= 0 {
				t.Errorf("%s: triangle %d winding flipped by the axis change", tc.name, i/3)
			}
		}
	}
}

func TestLoadSTLErrors(t *testing.T) {
	nan := float32(math.NaN())
	tests := []struct {
		name    string
		data    []byte
		wantErr string
	}{
		{"empty", nil, "neither a binary STL"},
		{"truncated", binarySTL(tetra, "x")[:150], "4 facets need 284 bytes, the file has 150"},
		{"no facets", binarySTL(nil, "x"), "no facets"},
		{"not finite", binarySTL([][3][3]float32{{{nan, 0, 0}, {1, 0, 0}, {0, 1, 0}}}, "x"), "facet 0 vertex 0 is not finite"},
		{"ascii bad number", []byte("solid x\nfacet normal 0 0 0\nouter loop\nvertex 0 zero 0\n"), "line 4: bad number \"zero\""},
		{"ascii two vertices", []byte("solid x\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\n"), "line 5: facet has 2 vertices"},
	}
	for _, tc := range tests {
		_, err := LoadSTL(bytes.NewReader(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: err = %v, want containing %q", tc.name, err, tc.wantErr)
		}
	}
}

func FuzzLoadSTL(f *testing.F) {
	f.Add(binarySTL(tetra, "tetra"))
	f.Add([]byte(asciiSTL(tetra)))
	f.Add(binarySTL(tetra[:1], "solid x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := LoadSTL(bytes.NewReader(data))
		if err != nil {
			return
		}
		if err := m.validate(); err != nil {
			t.Fatalf("loaded model fails validation: %v", err)
		}
	})
}

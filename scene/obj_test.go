package scene

import (
	"strings"
	"testing"
)

func TestLoadOBJ(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		wantErr   string
		verts     int
		triangles int
	}{
		{"triangle", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "", 3, 1},
		{"quad fans into two", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n", "", 4, 2},
		{"uv seam splits vertices", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nf 1/1 2/1 3/2\nf 1/2 3/2 2/2\n", "", 5, 2},
		{"negative indices", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\n", "", 3, 1},
		{"v//vn", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 2\nf 1//1 2//1 3//1\n", "", 3, 1},
		{"index out of range", "v 0 0 0\nf 1 2 3\n", "line 2: index 2 out of range", 0, 0},
		{"bad number", "v 0 x 0\n", "line 1: v: bad number \"x\"", 0, 0},
		{"short face", "v 0 0 0\nf 1 1\n", "line 2: face needs at least 3", 0, 0},
		{"zero index", "v 0 0 0\nf 0 1 1\n", "line 2: bad index \"0\"", 0, 0},
		{"no faces", "v 0 0 0\n", "no faces", 0, 0},
	}
	for _, tc := range tests {
		m, err := LoadOBJ(strings.NewReader(tc.src))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err = %v, want containing %q", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := len(m.Vertices) / 8; got != tc.verts {
			t.Errorf("%s: %d vertices, want %d", tc.name, got, tc.verts)
		}
		if got := len(m.Indices) / 3; got != tc.triangles {
			t.Errorf("%s: %d triangles, want %d", tc.name, got, tc.triangles)
		}
	}
}

func TestComputedNormalsFaceOutOfCCWTriangle(t *testing.T) {
	m, err := LoadOBJ(strings.NewReader("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	for v := 0; v < 3; v++ {
		if n := m.Vertices[v*8+3 : v*8+6]; n[0] != 0 || n[1] != 0 || n[2] != 1 {
			t.Errorf("vertex %d normal %v, want (0,0,1)", v, n)
		}
	}
}

func TestSpot(t *testing.T) {
	m, err := Spot()
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.Indices) / 3; got != 5856 {
		t.Errorf("spot has %d triangles, want 5856", got)
	}
	for i := 0; i < len(m.Vertices); i += 8 {
		n := m.Vertices[i+3 : i+6]
		if l := n[0]*n[0] + n[1]*n[1] + n[2]*n[2]; l < 0.99 || l > 1.01 {
			t.Fatalf("vertex %d normal %v not unit length", i/8, n)
		}
	}
	tex, err := SpotTexture()
	if err != nil {
		t.Fatal(err)
	}
	if tex.Bounds().Dx() != 1024 || tex.Bounds().Dy() != 1024 {
		t.Errorf("texture %v, want 1024×1024", tex.Bounds())
	}
}

func FuzzLoadOBJ(f *testing.F) {
	f.Add("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
	f.Add("v 0 0 0\nvt 0 0\nvn 0 0 1\nf 1/1/1 1/1/1 1/1/1 1/1/1\n")
	f.Add("f -1/-1/-1\n")
	f.Fuzz(func(t *testing.T, src string) {
		m, err := LoadOBJ(strings.NewReader(src))
		if err != nil {
			return
		}
		for _, i := range m.Indices {
			if int(i)*8 >= len(m.Vertices) {
				t.Fatalf("index %d past %d vertices", i, len(m.Vertices)/8)
			}
		}
	})
}

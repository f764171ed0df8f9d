package scene

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Mesh is an indexed triangle mesh with interleaved vertices: position xyz,
// normal xyz, texture coordinate st (8 float32s, 32 bytes per vertex).
type Mesh struct {
	Vertices []float32
	Indices  []uint32
	Min, Max [3]float32 // bounding box of the positions
	// Positions is the number of v records; Vertices has one vertex per
	// distinct position/texture/normal combination, so it may have more.
	Positions int
}

// VertexStride is the byte stride of Mesh.Vertices.
const VertexStride = 32

// LoadOBJ parses a Wavefront OBJ mesh: v, vt, vn and f records (faces with
// v, v/vt, v//vn or v/vt/vn references, negative indices counted from the
// end, polygons fanned into triangles). Other records (o, g, s, usemtl,
// mtllib, comments) are ignored. Where the file has no normals, smooth
// normals are computed per position (area-weighted face normals), so UV seams
// do not show in the lighting. Errors name the line.
func LoadOBJ(r io.Reader) (*Mesh, error) {
	var pos, uv, nrm [][3]float32
	type key struct{ v, t, n int }
	index := map[key]uint32{}
	var keys []key
	m := &Mesh{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		bad := func(format string, a ...any) error {
			return fmt.Errorf("obj: line %d: %s", line, fmt.Sprintf(format, a...))
		}
		switch f[0] {
		case "v", "vn", "vt":
			n := 3
			if f[0] == "vt" {
				n = 2
			}
			if len(f)-1 < n {
				return nil, bad("%s needs %d numbers, has %d", f[0], n, len(f)-1)
			}
			var p [3]float32
			for i := 0; i < n; i++ {
				x, err := strconv.ParseFloat(f[1+i], 32)
				if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, bad("%s: bad number %q", f[0], f[1+i])
				}
				p[i] = float32(x)
			}
			switch f[0] {
			case "v":
				pos = append(pos, p)
			case "vt":
				uv = append(uv, p)
			default:
				nrm = append(nrm, p)
			}
		case "f":
			if len(f) < 4 {
				return nil, bad("face needs at least 3 vertices, has %d", len(f)-1)
			}
			var face []uint32
			for _, ref := range f[1:] {
				parts := strings.Split(ref, "/")
				if len(parts) > 3 {
					return nil, bad("bad face vertex %q", ref)
				}
				k := key{-1, -1, -1}
				lists := []int{len(pos), len(uv), len(nrm)}
				for i, s := range parts {
					if s == "" {
						if i == 0 {
							return nil, bad("face vertex %q has no position", ref)
						}
						continue
					}
					v, err := strconv.Atoi(s)
					if err != nil || v == 0 {
						return nil, bad("bad index %q in face vertex %q", s, ref)
					}
					if v < 0 {
						v += lists[i] + 1
					}
					if v < 1 || v > lists[i] {
						return nil, bad("index %s out of range (have %d)", s, lists[i])
					}
					switch i {
					case 0:
						k.v = v - 1
					case 1:
						k.t = v - 1
					case 2:
						k.n = v - 1
					}
				}
				id, ok := index[k]
				if !ok {
					id = uint32(len(keys))
					index[k] = id
					keys = append(keys, k)
				}
				face = append(face, id)
			}
			for i := 1; i+1 < len(face); i++ {
				m.Indices = append(m.Indices, face[0], face[i], face[i+1])
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("obj: line %d: %w", line+1, err)
	}
	if len(m.Indices) == 0 {
		return nil, fmt.Errorf("obj: no faces")
	}
	// Smooth normals per position index when the file has none.
	var smooth [][3]float32
	if len(nrm) == 0 {
		smooth = make([][3]float32, len(pos))
		for i := 0; i+2 < len(m.Indices); i += 3 {
			a, b, c := keys[m.Indices[i]].v, keys[m.Indices[i+1]].v, keys[m.Indices[i+2]].v
			e1 := sub(pos[b], pos[a])
			e2 := sub(pos[c], pos[a])
			n := cross(e1, e2)
			for _, p := range []int{a, b, c} {
				for j := 0; j < 3; j++ {
					smooth[p][j] += n[j]
				}
			}
		}
		for i := range smooth {
			smooth[i] = normalize(smooth[i])
		}
	}
	m.Min = [3]float32{float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(1))}
	m.Max = [3]float32{float32(math.Inf(-1)), float32(math.Inf(-1)), float32(math.Inf(-1))}
	m.Positions = len(pos)
	m.Vertices = make([]float32, 0, 8*len(keys))
	for _, k := range keys {
		p := pos[k.v]
		var n, t [3]float32
		switch {
		case k.n >= 0:
			n = normalize(nrm[k.n])
		case smooth != nil:
			n = smooth[k.v]
		}
		if k.t >= 0 {
			t = uv[k.t]
		}
		for j := 0; j < 3; j++ {
			m.Min[j] = min(m.Min[j], p[j])
			m.Max[j] = max(m.Max[j], p[j])
		}
		m.Vertices = append(m.Vertices, p[0], p[1], p[2], n[0], n[1], n[2], t[0], t[1])
	}
	return m, nil
}

func sub(a, b [3]float32) [3]float32 { return [3]float32{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

func cross(a, b [3]float32) [3]float32 {
	return [3]float32{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func normalize(a [3]float32) [3]float32 {
	l := float32(math.Sqrt(float64(a[0]*a[0] + a[1]*a[1] + a[2]*a[2])))
	if l == 0 {
		return a
	}
	return [3]float32{a[0] / l, a[1] / l, a[2] / l}
}

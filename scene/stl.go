package scene

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/internal/vmath"
)

// stlFacetBytes is the size of one binary STL facet: normal, three vertices
// (12 float32s) and a 16-bit attribute word.
const stlFacetBytes = 50

// LoadSTL parses an STL file, binary (an 80-byte header, a facet count and
// that many 50-byte facets) or ASCII ("solid … facet … vertex x y z …").
// The facets' stored normals are ignored (exporters often leave them zero);
// vertices are welded by exact position and given smooth, area-weighted
// normals, so the model is lit like a surface rather than a set of flat
// facets. STL is Z-up by convention and glTF and DrawModel are Y-up, so
// (x, y, z) becomes (x, z, -y). The model has the default material.
func LoadSTL(r io.Reader) (*Model, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("stl: %w", err)
	}
	var corners [][3]float32 // three per facet, Z-up as stored
	binaryLen := int64(-1)
	if len(data) >= 84 {
		binaryLen = 84 + stlFacetBytes*int64(binary.LittleEndian.Uint32(data[80:]))
	}
	switch {
	case binaryLen == int64(len(data)) || (binaryLen >= 0 && !bytes.HasPrefix(data, []byte("solid"))):
		count := int(binary.LittleEndian.Uint32(data[80:]))
		if binaryLen > int64(len(data)) {
			return nil, fmt.Errorf("stl: %d facets need %d bytes, the file has %d", count, binaryLen, len(data))
		}
		corners = make([][3]float32, 0, 3*count)
		for f := 0; f < count; f++ {
			fb := data[84+f*stlFacetBytes:]
			for c := 0; c < 3; c++ {
				var p [3]float32
				for j := 0; j < 3; j++ {
					p[j] = math.Float32frombits(binary.LittleEndian.Uint32(fb[12+c*12+j*4:]))
				}
				corners = append(corners, p)
			}
		}
	case bytes.HasPrefix(data, []byte("solid")):
		if corners, err = parseASCIISTL(data); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("stl: %d bytes is neither a binary STL (84-byte header) nor ASCII (\"solid\")", len(data))
	}
	if len(corners) == 0 {
		return nil, fmt.Errorf("stl: no facets")
	}
	var (
		pos   [][3]float32
		index = map[[3]float32]uint32{}
		idx   = make([]uint32, 0, len(corners))
	)
	for k, p := range corners {
		for j := 0; j < 3; j++ {
			if math.IsNaN(float64(p[j])) || math.IsInf(float64(p[j]), 0) {
				return nil, fmt.Errorf("stl: facet %d vertex %d is not finite", k/3, k%3)
			}
		}
		p = [3]float32{p[0], p[2], -p[1]} // Z-up → Y-up
		id, ok := index[p]
		if !ok {
			id = uint32(len(pos))
			index[p] = id
			pos = append(pos, p)
		}
		idx = append(idx, id)
	}
	nrm := make([][3]float32, len(pos))
	for i := 0; i+2 < len(idx); i += 3 {
		a, b, c := pos[idx[i]], pos[idx[i+1]], pos[idx[i+2]]
		n := cross(sub(b, a), sub(c, a)) // length is twice the area: area weighting
		for _, v := range idx[i : i+3] {
			for j := 0; j < 3; j++ {
				nrm[v][j] += n[j]
			}
		}
	}
	p := Primitive{Mode: gl.TRIANGLES, Indices: idx, IndexType: gl.UNSIGNED_INT, Lit: true, Positions: len(pos)}
	if len(pos) <= 1<<16 {
		p.IndexType = gl.UNSIGNED_SHORT
	}
	p.Vertices = make([]float32, 0, len(pos)*ModelVertexFloats)
	for i, q := range pos {
		n := normalize(nrm[i])
		p.Vertices = append(p.Vertices, q[0], q[1], q[2], n[0], n[1], n[2], 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0)
	}
	m := &Model{
		Meshes:    []ModelMesh{{Name: "stl", Primitives: []Primitive{p}}},
		Instances: []Instance{{Mesh: 0, World: vmath.Identity(), Node: -1, Skin: -1}},
		Materials: []Material{plasticMaterial()},
	}
	m.computeBounds()
	return m, nil
}

// parseASCIISTL returns the vertices of an ASCII STL's facets, three per
// facet. Errors name the line.
func parseASCIISTL(data []byte) ([][3]float32, error) {
	var corners [][3]float32
	inLoop := 0
	for n, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "outer":
			inLoop = 0
		case "vertex":
			if len(f) != 4 {
				return nil, fmt.Errorf("stl: line %d: vertex needs 3 numbers", n+1)
			}
			var p [3]float32
			for j := 0; j < 3; j++ {
				v, err := strconv.ParseFloat(f[1+j], 32)
				if err != nil {
					return nil, fmt.Errorf("stl: line %d: bad number %q", n+1, f[1+j])
				}
				p[j] = float32(v)
			}
			corners = append(corners, p)
			inLoop++
		case "endloop":
			if inLoop != 3 {
				return nil, fmt.Errorf("stl: line %d: facet has %d vertices, want 3", n+1, inLoop)
			}
		}
	}
	if len(corners)%3 != 0 {
		return nil, fmt.Errorf("stl: %d vertices is not whole facets", len(corners))
	}
	return corners, nil
}

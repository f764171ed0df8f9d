package scene

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/internal/vmath"
)

// modelDir holds copies of ../shared/models (see its README.md).
const modelDir = "testdata/models"

// TestModelCounts loads every test model and checks the triangle and vertex
// counts that testdata/models/README.md states.
func TestModelCounts(t *testing.T) {
	tests := []struct {
		file      string
		triangles int // per mesh, as the README counts them
		vertices  int
		drawn     int // triangles drawn, counting instances
		textures  int
	}{
		{"Box/Box.gltf", 12, 24, 12, 0},
		{"BoxTextured/BoxTextured.gltf", 12, 24, 12, 1},
		{"BoxVertexColors/BoxVertexColors.gltf", 12, 24, 12, 0},
		{"TextureCoordinateTest/TextureCoordinateTest.gltf", 10, 20, 10, 1},
		{"OrientationTest/OrientationTest.gltf", 524, 1048, 524, 0},
		{"TextureSettingsTest/TextureSettingsTest.gltf", 72, 144, 72, 9},
		{"CesiumMilkTruck/CesiumMilkTruck.gltf", 2856, 2978, 3624, 2},
		{"teapot/utah_teapot.stl", 9438, 4719, 9438, 0},
		{"../../spot/spot.obj", 5856, 2930, 5856, 0},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			m, err := LoadModelFile(filepath.Join(modelDir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			tris, verts := m.MeshCounts()
			if tris != tc.triangles || verts != tc.vertices {
				t.Errorf("%d triangles, %d vertices; want %d, %d", tris, verts, tc.triangles, tc.vertices)
			}
			if d := m.DrawnTriangles(); d != tc.drawn {
				t.Errorf("%d triangles drawn, want %d", d, tc.drawn)
			}
			if len(m.Textures) != tc.textures {
				t.Errorf("%d textures, want %d", len(m.Textures), tc.textures)
			}
			if err := m.validate(); err != nil {
				t.Error(err)
			}
			for mi, me := range m.Meshes {
				for pi, p := range me.Primitives {
					for v := 0; v < len(p.Vertices); v += ModelVertexFloats {
						n := p.Vertices[v+3 : v+6]
						if l := n[0]*n[0] + n[1]*n[1] + n[2]*n[2]; l < 0.98 || l > 1.02 {
							t.Fatalf("mesh %d primitive %d vertex %d: normal %v not unit length", mi, pi, v/ModelVertexFloats, n)
						}
					}
				}
			}
		})
	}
}

func TestGLTFModelDetails(t *testing.T) {
	load := func(name string) *Model {
		t.Helper()
		m, err := LoadModelFile(filepath.Join(modelDir, name, name+".gltf"))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	// Box: the Z-up → Y-up parent matrix and the red material.
	box := load("Box")
	if got := box.Materials[0].BaseColor; got != [4]float32{0.8, 0, 0, 1} {
		t.Errorf("Box base colour %v", got)
	}
	if w := transformPoint(box.Instances[0].World, [3]float32{0, 0, 1}); !nearVec(w, [3]float32{0, 1, 0}) {
		t.Errorf("Box parent matrix maps +Z to %v, want +Y", w)
	}
	// BoxVertexColors: no material, so the default one; COLOR_0 = position.
	bvc := load("BoxVertexColors")
	p := bvc.Meshes[0].Primitives[0]
	if mat := bvc.Materials[p.Material]; mat != DefaultMaterial() {
		t.Errorf("BoxVertexColors material %+v, want the default", mat)
	}
	for v := 0; v < len(p.Vertices); v += ModelVertexFloats {
		pos, col := p.Vertices[v:v+3], p.Vertices[v+8:v+12]
		if pos[0] != col[0] || pos[1] != col[1] || pos[2] != col[2] || col[3] != 1 {
			t.Fatalf("vertex %d: colour %v, want the position %v and alpha 1", v/ModelVertexFloats, col, pos)
		}
	}
	// TextureCoordinateTest: the sampler has no properties, so defaults;
	// uint8 indices; double-sided materials.
	tct := load("TextureCoordinateTest")
	if tx := tct.Textures[0]; tx.WrapS != gl.REPEAT || tx.WrapT != gl.REPEAT || tx.MagFilter != gl.LINEAR || tx.MinFilter != gl.LINEAR_MIPMAP_LINEAR {
		t.Errorf("default sampler %+v", tx)
	}
	if p := tct.Meshes[0].Primitives[0]; p.IndexType != gl.UNSIGNED_BYTE {
		t.Errorf("TextureCoordinateTest index type 0x%x, want UNSIGNED_BYTE", uint32(p.IndexType))
	}
	for _, mat := range tct.Materials {
		if !mat.DoubleSided {
			t.Errorf("material %q not double-sided", mat.Name)
		}
	}
	// TextureSettingsTest: per-axis wrap modes, including MIRRORED_REPEAT.
	tst := load("TextureSettingsTest")
	wraps := map[string][2]gl.Enum{}
	for _, tx := range tst.Textures {
		wraps[tx.Name] = [2]gl.Enum{tx.WrapS, tx.WrapT}
	}
	for name, want := range map[string][2]gl.Enum{
		"TextureMirrorTextureT": {gl.REPEAT, gl.MIRRORED_REPEAT},
		"TextureMirrorTextureS": {gl.MIRRORED_REPEAT, gl.REPEAT},
		"TextureClampTextureT":  {gl.REPEAT, gl.CLAMP_TO_EDGE},
		"TextureClampTextureS":  {gl.CLAMP_TO_EDGE, gl.REPEAT},
	} {
		if wraps[name] != want {
			t.Errorf("%s wraps %v, want %v", name, wraps[name], want)
		}
	}
	if len(tst.Images) != 3 {
		t.Errorf("TextureSettingsTest decoded %d images, want 3", len(tst.Images))
	}
	// CesiumMilkTruck: two textures share one image; the wheels mesh is
	// instanced twice; the wheel nodes combine a parent matrix and a child
	// rotation.
	truck := load("CesiumMilkTruck")
	if len(truck.Images) != 1 || truck.Textures[0].Image != truck.Textures[1].Image {
		t.Errorf("truck: %d images, textures use %d and %d", len(truck.Images), truck.Textures[0].Image, truck.Textures[1].Image)
	}
	wheels := 0
	for _, in := range truck.Instances {
		if truck.Meshes[in.Mesh].Name == "Wheels" {
			wheels++
			if y := in.World[13]; math.Abs(float64(y-0.427722)) > 1e-5 {
				t.Errorf("wheel instance at height %v, want 0.427722", y)
			}
		}
	}
	if wheels != 2 {
		t.Errorf("%d wheel instances, want 2", wheels)
	}
}

func nearVec(a, b [3]float32) bool {
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-5 {
			return false
		}
	}
	return true
}

// gltfJSON builds a glTF document around a base64 buffer.
func gltfJSON(t testing.TB, buf []byte, doc map[string]any) []byte {
	t.Helper()
	if _, ok := doc["asset"]; !ok {
		doc["asset"] = map[string]any{"version": "2.0"}
	}
	if buf != nil {
		if _, ok := doc["buffers"]; !ok {
			doc["buffers"] = []any{map[string]any{
				"byteLength": len(buf),
				"uri":        "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(buf),
			}}
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAccessorDecoding(t *testing.T) {
	var buf bytes.Buffer
	put := func(v any) int {
		off := buf.Len()
		binary.Write(&buf, binary.LittleEndian, v)
		for buf.Len()%4 != 0 {
			buf.WriteByte(0)
		}
		return off
	}
	views := []any{}
	view := func(off, length, stride int) int {
		v := map[string]any{"buffer": 0, "byteOffset": off, "byteLength": length}
		if stride != 0 {
			v["byteStride"] = stride
		}
		views = append(views, v)
		return len(views) - 1
	}
	i8 := view(put([]int8{-128, -127, 0, 127}), 4, 0)
	u8 := view(put([]uint8{0, 255, 51, 102}), 4, 0)
	i16 := view(put([]int16{-32768, 32767, -16384}), 6, 0)
	u16 := view(put([]uint16{1, 65535}), 4, 0)
	u32 := view(put([]uint32{7, 4000000000}), 8, 0)
	// Two float VEC3s in 16-byte strides: the fourth float is padding.
	f32 := view(put([]float32{1, 2, 3, -9, 4, 5, 6, -9}), 32, 16)
	// MAT2 of unsigned bytes: each 2-byte column is padded to 4 bytes.
	mat2 := view(put([]uint8{1, 2, 0, 0, 3, 4, 0, 0}), 8, 0)
	sparseIdx := view(put([]uint8{1, 3}), 2, 0)
	sparseVal := view(put([]float32{5, 6}), 8, 0)
	acc := func(v, ct, count int, ty string, norm bool) map[string]any {
		return map[string]any{"bufferView": v, "componentType": ct, "count": count, "type": ty, "normalized": norm}
	}
	accessors := []any{
		acc(i8, compByte, 2, "VEC2", true),
		acc(u8, compUByte, 4, "SCALAR", true),
		acc(i16, compShort, 3, "SCALAR", true),
		acc(u16, compUShort, 2, "SCALAR", false),
		acc(u32, compUInt, 2, "SCALAR", false),
		acc(f32, compFloat, 2, "VEC3", false),
		acc(mat2, compUByte, 1, "MAT2", false),
		map[string]any{"componentType": compFloat, "count": 4, "type": "SCALAR", "sparse": map[string]any{
			"count":   2,
			"indices": map[string]any{"bufferView": sparseIdx, "componentType": compUByte},
			"values":  map[string]any{"bufferView": sparseVal},
		}},
		acc(i8, compByte, 2, "VEC2", false),
	}
	want := [][]float32{
		{-1, -1, 0, 1},
		{0, 1, 0.2, 0.4},
		{-1, 1, -16384.0 / 32767},
		{1, 65535},
		{7, 4000000000},
		{1, 2, 3, 4, 5, 6},
		{1, 2, 3, 4},
		{0, 5, 0, 6},
		{-128, -127, 0, 127},
	}
	doc := gltfJSON(t, buf.Bytes(), map[string]any{"bufferViews": views, "accessors": accessors})
	l := &gltfLoader{floats: map[int][]float32{}}
	if err := l.decode(doc); err != nil {
		t.Fatal(err)
	}
	if err := l.loadBuffers(); err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		got, _, err := l.accessorFloats(i, "test")
		if err != nil {
			t.Errorf("accessor %d: %v", i, err)
			continue
		}
		if len(got) != len(w) {
			t.Errorf("accessor %d: %v, want %v", i, got, w)
			continue
		}
		for k := range w {
			if math.Abs(float64(got[k]-w[k])) > 1e-6*max(1, math.Abs(float64(w[k]))) {
				t.Errorf("accessor %d: %v, want %v", i, got, w)
				break
			}
		}
	}
}

// TestIndicesAbove2To24: index values are integers and are read as such;
// through float32 (as they once were) 16777217 became 16777216 and
// 16777219 became 16777220.
func TestIndicesAbove2To24(t *testing.T) {
	var buf bytes.Buffer
	vals := []uint32{16777217, 16777219, 5, 1<<25 - 1}
	binary.Write(&buf, binary.LittleEndian, vals)
	doc := gltfJSON(t, buf.Bytes(), map[string]any{
		"bufferViews": []any{map[string]any{"buffer": 0, "byteLength": 16}},
		"accessors":   []any{map[string]any{"bufferView": 0, "componentType": compUInt, "count": 4, "type": "SCALAR"}},
	})
	l := &gltfLoader{floats: map[int][]float32{}}
	if err := l.decode(doc); err != nil {
		t.Fatal(err)
	}
	if err := l.loadBuffers(); err != nil {
		t.Fatal(err)
	}
	got, ty, err := l.accessorIndices(0, "test", 1<<25)
	if err != nil {
		t.Fatal(err)
	}
	if ty != gl.UNSIGNED_INT || len(got) != len(vals) {
		t.Fatalf("indices %v of type %#x", got, ty)
	}
	for i := range vals {
		if got[i] != vals[i] {
			t.Errorf("index %d = %d, want %d", i, got[i], vals[i])
		}
	}
	if _, _, err := l.accessorIndices(0, "test", 1<<25-1); err == nil || !strings.Contains(err.Error(), "element 3 = 33554431 is not below the vertex count 33554431") {
		t.Errorf("an index at the vertex count: err %v", err)
	}
}

// triangleDoc returns a valid one-triangle glTF document as a map, for tests
// to break: 3 float positions (36 bytes) then 3 u16 indices.
func triangleDoc() ([]byte, map[string]any) {
	var buf bytes.Buffer
	binary.Write(&buf, binary.LittleEndian, []float32{0, 0, 0, 1, 0, 0, 0, 1, 0})
	binary.Write(&buf, binary.LittleEndian, []uint16{0, 1, 2, 0})
	return buf.Bytes(), map[string]any{
		"scene":  0,
		"scenes": []any{map[string]any{"nodes": []any{0}}},
		"nodes":  []any{map[string]any{"mesh": 0}},
		"meshes": []any{map[string]any{"primitives": []any{map[string]any{
			"attributes": map[string]any{"POSITION": 0}, "indices": 1,
		}}}},
		"bufferViews": []any{
			map[string]any{"buffer": 0, "byteLength": 36},
			map[string]any{"buffer": 0, "byteOffset": 36, "byteLength": 6},
		},
		"accessors": []any{
			map[string]any{"bufferView": 0, "componentType": compFloat, "count": 3, "type": "VEC3"},
			map[string]any{"bufferView": 1, "componentType": compUShort, "count": 3, "type": "SCALAR"},
		},
	}
}

func TestLoadGLTFErrors(t *testing.T) {
	type doc = map[string]any
	at := func(d doc, key string, i int) doc { return d[key].([]any)[i].(doc) }
	prim := func(d doc) doc { return at(at(d, "meshes", 0), "primitives", 0) }
	tests := []struct {
		name    string
		edit    func(d doc)
		raw     string // used instead of the document when set
		wantErr string
	}{
		{"valid", func(d doc) {}, "", ""},
		{"not JSON", nil, "{", "JSON"},
		{"no version", func(d doc) { d["asset"] = doc{} }, "", "asset.version missing"},
		{"glTF 1", func(d doc) { d["asset"] = doc{"version": "1.0"} }, "", `asset.version "1.0"`},
		{"required extension", func(d doc) { d["extensionsRequired"] = []any{"KHR_draco_mesh_compression"} }, "", "KHR_draco_mesh_compression"},
		{"external buffer", func(d doc) { at(d, "buffers", 0)["uri"] = "box.bin" }, "", `buffers[0].uri: external URI "box.bin"`},
		{"bad base64", func(d doc) { at(d, "buffers", 0)["uri"] = "data:application/octet-stream;base64,@@@" }, "", "buffers[0].uri: data: URI"},
		{"short buffer", func(d doc) { at(d, "buffers", 0)["byteLength"] = 400 }, "", "buffers[0]: byteLength 400 but the data has 44 bytes"},
		{"view past buffer", func(d doc) { at(d, "bufferViews", 1)["byteLength"] = 60 }, "", "bufferViews[1]: byteOffset 36 + byteLength 60 outside buffer 0's 44 bytes"},
		{"bad stride", func(d doc) { at(d, "bufferViews", 0)["byteStride"] = 6 }, "", "bufferViews[0].byteStride 6"},
		{"accessor past view", func(d doc) { at(d, "accessors", 0)["count"] = 4 }, "", "accessors[0]: byteOffset 0 + 4 elements of stride 12 reach past bufferView 0's 36 bytes"},
		{"component type", func(d doc) { at(d, "accessors", 0)["componentType"] = 5124 }, "", "accessors[0].componentType 5124 unknown"},
		{"accessor type", func(d doc) { at(d, "accessors", 0)["type"] = "VEC5" }, "", `accessors[0].type "VEC5" unknown`},
		{"position not VEC3", func(d doc) { at(d, "accessors", 0)["type"] = "VEC2"; at(d, "accessors", 0)["count"] = 4 }, "", "meshes[0].primitives[0].attributes.POSITION: accessors[0] is VEC2, want VEC3"},
		{"accessor index", func(d doc) { prim(d)["attributes"] = doc{"POSITION": 7} }, "", "meshes[0].primitives[0].attributes.POSITION: accessor 7 out of range (have 2)"},
		{"no position", func(d doc) { prim(d)["attributes"] = doc{} }, "", "meshes[0].primitives[0].attributes has no POSITION"},
		{"index out of range", func(d doc) { at(d, "accessors", 0)["count"] = 2 }, "", "meshes[0].primitives[0].indices: accessors[1] element 2 = 2 is not below the vertex count 2"},
		{"float indices", func(d doc) { prim(d)["indices"] = 0 }, "", "indices must be 5121, 5123 or 5125"},
		{"mode", func(d doc) { prim(d)["mode"] = 9 }, "", "meshes[0].primitives[0].mode 9 not in 0..6"},
		{"material index", func(d doc) { prim(d)["material"] = 2 }, "", "meshes[0].primitives[0].material 2 out of range (have 0)"},
		{"node mesh", func(d doc) { at(d, "nodes", 0)["mesh"] = 3 }, "", "nodes[0].mesh 3 out of range (have 1)"},
		{"own child", func(d doc) { at(d, "nodes", 0)["children"] = []any{0} }, "", "nodes[0].children[0]: a node cannot be its own child"},
		{"node cycle", func(d doc) {
			d["nodes"] = []any{doc{"children": []any{1}}, doc{"children": []any{0}, "mesh": 0}}
		}, "", "nodes[0] is reached twice"},
		{"two parents", func(d doc) {
			d["nodes"] = []any{doc{"children": []any{2}}, doc{"children": []any{2}}, doc{"mesh": 0}}
		}, "", "nodes[1].children[0]: node 2 already has a parent"},
		{"child out of range", func(d doc) { at(d, "nodes", 0)["children"] = []any{5} }, "", "nodes[0].children[0] = 5 out of range"},
		{"scene index", func(d doc) { d["scene"] = 3 }, "", "scene 3 out of range (have 1)"},
		{"short matrix", func(d doc) { at(d, "nodes", 0)["matrix"] = []any{1, 0, 0} }, "", "nodes[0].matrix has 3 numbers, want 16"},
		{"zero quaternion", func(d doc) { at(d, "nodes", 0)["rotation"] = []any{0, 0, 0, 0} }, "", "nodes[0].rotation is the zero quaternion"},
		{"base colour", func(d doc) {
			d["materials"] = []any{doc{"pbrMetallicRoughness": doc{"baseColorFactor": []any{1, 2, 0, 1}}}}
		}, "", "materials[0].pbrMetallicRoughness.baseColorFactor[1] = 2 outside 0..1"},
		{"texture index", func(d doc) {
			d["materials"] = []any{doc{"pbrMetallicRoughness": doc{"baseColorTexture": doc{"index": 4}}}}
		}, "", "materials[0].pbrMetallicRoughness.baseColorTexture.index: texture 4 out of range (have 0)"},
		{"sampler wrap", func(d doc) {
			d["materials"] = []any{doc{"pbrMetallicRoughness": doc{"baseColorTexture": doc{"index": 0}}}}
			d["textures"] = []any{doc{"sampler": 0, "source": 0}}
			d["samplers"] = []any{doc{"wrapS": 1234}}
			d["images"] = []any{doc{"uri": "data:image/png;base64,AAAA"}}
		}, "", "samplers[0].wrapS 1234 is not a valid value"},
		{"bad image", func(d doc) {
			d["materials"] = []any{doc{"pbrMetallicRoughness": doc{"baseColorTexture": doc{"index": 0}}}}
			d["textures"] = []any{doc{"source": 0}}
			d["images"] = []any{doc{"uri": "data:image/png;base64,AAAA"}}
		}, "", "images[0]:"},
		{"glb short length", nil, "glTF\x02\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00", "glb: header length 4"},
		{"glb version", nil, "glTF\x01\x00\x00\x00\x14\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00", "glb: container version 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.raw)
			if tc.edit != nil {
				buf, d := triangleDoc()
				data = gltfJSON(t, buf, d)
				// Round-trip so that edits see the same shapes
				// json.Unmarshal makes ([]any, map[string]any).
				var dd map[string]any
				if err := json.Unmarshal(data, &dd); err != nil {
					t.Fatal(err)
				}
				tc.edit(dd)
				data = gltfJSON(t, nil, dd)
			}
			m, err := LoadGLTF(bytes.NewReader(data))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if n := m.DrawnTriangles(); n != 1 {
					t.Errorf("%d triangles, want 1", n)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestNodeTransforms(t *testing.T) {
	buf, d := triangleDoc()
	s45 := math.Sqrt(0.5)
	// Parent: a column-major matrix translating by (10, 0, 0). Child: scale
	// x by 2, then rotate 90° about +Y, then translate by (1, 2, 3).
	d["nodes"] = []any{
		map[string]any{"children": []any{1}, "matrix": []any{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10, 0, 0, 1}},
		map[string]any{"mesh": 0, "name": "child", "translation": []any{1, 2, 3}, "rotation": []any{0, s45, 0, s45}, "scale": []any{2, 1, 1}},
	}
	m, err := LoadGLTF(bytes.NewReader(gltfJSON(t, buf, d)))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Instances) != 1 || m.Instances[0].Name != "child" {
		t.Fatalf("instances %+v", m.Instances)
	}
	// (1,0,0) → scaled (2,0,0) → rotated +90° about Y (x → -z) (0,0,-2) →
	// translated (1,2,1) → parent (11,2,1).
	if got := transformPoint(m.Instances[0].World, [3]float32{1, 0, 0}); !nearVec(got, [3]float32{11, 2, 1}) {
		t.Errorf("child maps (1,0,0) to %v, want (11,2,1)", got)
	}
	// The world bounds are the transformed triangle's.
	if !nearVec(m.Min, [3]float32{11, 2, 1}) || !nearVec(m.Max, [3]float32{11, 3, 3}) {
		t.Errorf("bounds %v..%v, want (11,2,1)..(11,3,3)", m.Min, m.Max)
	}
	// Without a default scene, every root node is drawn.
	delete(d, "scene")
	delete(d, "scenes")
	if m, err = LoadGLTF(bytes.NewReader(gltfJSON(t, buf, d))); err != nil || len(m.Instances) != 1 {
		t.Errorf("no scenes: %v, %d instances", err, len(m.Instances))
	}
}

func TestNormalMatrixAndMirroring(t *testing.T) {
	world := vmath.Mul(vmath.Scale(-2, 1, 1), vmath.RotateY(0.3))
	nm, det := normalMatrix(world)
	if det >= 0 {
		t.Errorf("determinant %v of a mirroring transform, want negative", det)
	}
	// A normal stays perpendicular to a transformed tangent.
	tangent, normal := [3]float32{0, 1, 1}, [3]float32{0, 1, -1}
	wt, wn := transformDir(world, tangent), transformDir(nm, normal)
	if d := wt[0]*wn[0] + wt[1]*wn[1] + wt[2]*wn[2]; math.Abs(float64(d)) > 1e-5 {
		t.Errorf("transformed normal %v not perpendicular to tangent %v", wn, wt)
	}
}

func TestFlatNormalsWithoutNORMAL(t *testing.T) {
	buf, d := triangleDoc()
	m, err := LoadGLTF(bytes.NewReader(gltfJSON(t, buf, d)))
	if err != nil {
		t.Fatal(err)
	}
	p := m.Meshes[0].Primitives[0]
	if p.Indices != nil || len(p.Vertices) != 3*ModelVertexFloats || p.Positions != 3 {
		t.Fatalf("flat-normal primitive: %d indices, %d vertices, %d positions", len(p.Indices), len(p.Vertices)/ModelVertexFloats, p.Positions)
	}
	for v := 0; v < 3; v++ {
		if n := p.Vertices[v*ModelVertexFloats+3 : v*ModelVertexFloats+6]; n[0] != 0 || n[1] != 0 || n[2] != 1 {
			t.Errorf("vertex %d normal %v, want the face normal (0,0,1)", v, n)
		}
	}
	// Strips and fans become triangle lists with the same winding.
	for _, mode := range []int{5, 6} {
		prim := d["meshes"].([]any)[0].(map[string]any)["primitives"].([]any)[0].(map[string]any)
		prim["mode"] = mode
		m, err := LoadGLTF(bytes.NewReader(gltfJSON(t, buf, d)))
		if err != nil {
			t.Fatal(err)
		}
		p := m.Meshes[0].Primitives[0]
		if p.Mode != gl.TRIANGLES || p.Vertices[3+2] != 1 {
			t.Errorf("mode %d: mode 0x%x normal z %v, want TRIANGLES and +1", mode, uint32(p.Mode), p.Vertices[5])
		}
	}
}

// TestGLBAndImageBufferView builds a .glb whose BIN chunk holds the geometry
// and a PNG referenced through a bufferView.
func TestGLBAndImageBufferView(t *testing.T) {
	buf, d := triangleDoc()
	img := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	img.Set(1, 0, color.NRGBA{255, 0, 0, 255})
	var pngBuf bytes.Buffer
	if err := png.Encode(&pngBuf, img); err != nil {
		t.Fatal(err)
	}
	for len(buf)%4 != 0 {
		buf = append(buf, 0)
	}
	pngOff := len(buf)
	buf = append(buf, pngBuf.Bytes()...)
	for len(buf)%4 != 0 {
		buf = append(buf, 0)
	}
	d["buffers"] = []any{map[string]any{"byteLength": len(buf)}}
	d["bufferViews"] = append(d["bufferViews"].([]any), map[string]any{"buffer": 0, "byteOffset": pngOff, "byteLength": pngBuf.Len()})
	d["images"] = []any{map[string]any{"bufferView": 2, "mimeType": "image/png"}}
	d["textures"] = []any{map[string]any{"source": 0}}
	d["materials"] = []any{map[string]any{"pbrMetallicRoughness": map[string]any{"baseColorTexture": map[string]any{"index": 0}}}}
	d["meshes"].([]any)[0].(map[string]any)["primitives"].([]any)[0].(map[string]any)["material"] = 0
	js := gltfJSON(t, nil, d)
	for len(js)%4 != 0 {
		js = append(js, ' ')
	}
	var glb bytes.Buffer
	w32 := func(v uint32) { binary.Write(&glb, binary.LittleEndian, v) }
	glb.WriteString("glTF")
	w32(2)
	w32(uint32(12 + 8 + len(js) + 8 + len(buf)))
	w32(uint32(len(js)))
	w32(0x4E4F534A)
	glb.Write(js)
	w32(uint32(len(buf)))
	w32(0x004E4942)
	glb.Write(buf)
	m, err := LoadGLTF(&glb)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Images) != 1 || m.Images[0].NRGBAAt(1, 0) != (color.NRGBA{255, 0, 0, 255}) {
		t.Errorf("image from bufferView not decoded: %d images", len(m.Images))
	}
	if m.DrawnTriangles() != 1 {
		t.Errorf("%d triangles, want 1", m.DrawnTriangles())
	}
}

func TestLoadModelFileExternalURIs(t *testing.T) {
	dir := t.TempDir()
	buf, d := triangleDoc()
	if err := os.WriteFile(filepath.Join(dir, "tri angle.bin"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
	d["buffers"] = []any{map[string]any{"byteLength": len(buf), "uri": "tri%20angle.bin"}}
	path := filepath.Join(dir, "tri.gltf")
	if err := os.WriteFile(path, gltfJSON(t, nil, d), 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err := LoadModelFile(path); err != nil || m.DrawnTriangles() != 1 {
		t.Errorf("external buffer: %v", err)
	}
	d["buffers"] = []any{map[string]any{"byteLength": len(buf), "uri": "../secret.bin"}}
	if err := os.WriteFile(path, gltfJSON(t, nil, d), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadModelFile(path); err == nil || !strings.Contains(err.Error(), "not a relative path inside") {
		t.Errorf("URI leaving the model's directory: err = %v", err)
	}
	if _, err := LoadModelFile(filepath.Join(dir, "x.fbx")); err == nil {
		t.Error("unknown extension loaded")
	}
}

func FuzzLoadGLTF(f *testing.F) {
	for _, name := range []string{"Box/Box.gltf", "BoxVertexColors/BoxVertexColors.gltf"} {
		data, err := os.ReadFile(filepath.Join(modelDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	buf, d := triangleDoc()
	f.Add(gltfJSON(f, buf, d))
	f.Add([]byte(`{"asset":{"version":"2.0"},"nodes":[{"children":[0]}]}`))
	f.Add([]byte("glTF\x02\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("glTF\x02\x00\x00\x00\x20\x00\x00\x00\x04\x00\x00\x00JSON{}  \x00\x00\x00\x00BIN\x00"))
	f.Add([]byte(`{"asset":{"version":"2.0"},"materials":[{"alphaMode":"BLEND","extensions":{"KHR_materials_unlit":{}},` +
		`"normalTexture":{"index":0},"pbrMetallicRoughness":{"baseColorTexture":{"index":0,"extensions":{"KHR_texture_transform":{"offset":[0.5,0],"rotation":1}}}}}],` +
		`"cameras":[{"perspective":{"yfov":1,"znear":0.1}}],"skins":[{"joints":[0]}],` +
		`"animations":[{"channels":[{"sampler":0,"target":{"node":0,"path":"rotation"}}],"samplers":[{"input":0,"output":0,"interpolation":"CUBICSPLINE"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := LoadGLTF(bytes.NewReader(data))
		if err != nil {
			return
		}
		if err := m.validate(); err != nil {
			t.Fatalf("loaded model fails validation: %v", err)
		}
		m.Pose(0.5) // animations and skins evaluate without panicking
	})
}

func TestJPEGImage(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 16, 8))
	for y := 0; y < 8; y++ {
		for x := 0; x < 16; x++ {
			img.Set(x, y, color.RGBA{0, 0, 255, 255})
		}
	}
	var jb bytes.Buffer
	if err := jpeg.Encode(&jb, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	buf, d := triangleDoc()
	d["images"] = []any{map[string]any{"uri": "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(jb.Bytes())}}
	d["textures"] = []any{map[string]any{"source": 0, "sampler": 0}}
	d["samplers"] = []any{map[string]any{"wrapS": 33648, "wrapT": 33071, "minFilter": 9728, "magFilter": 9728}}
	d["materials"] = []any{map[string]any{"pbrMetallicRoughness": map[string]any{"baseColorTexture": map[string]any{"index": 0}}}}
	m, err := LoadGLTF(bytes.NewReader(gltfJSON(t, buf, d)))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Images) != 1 || m.Images[0].Rect.Dx() != 16 || m.Images[0].Rect.Dy() != 8 {
		t.Fatalf("JPEG not decoded: %d images", len(m.Images))
	}
	if c := m.Images[0].NRGBAAt(3, 3); c.B < 240 || c.R > 15 {
		t.Errorf("JPEG pixel %v, want blue", c)
	}
	want := Texture{Image: 0, WrapS: gl.MIRRORED_REPEAT, WrapT: gl.CLAMP_TO_EDGE, MinFilter: gl.NEAREST, MagFilter: gl.NEAREST}
	if m.Textures[0] != want {
		t.Errorf("texture %+v, want %+v", m.Textures[0], want)
	}
}

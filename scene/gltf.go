package scene

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // glTF's second image format
	_ "image/png"
	"io"
	"math"
	"strings"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/ext/texturetransform"
	"github.com/qmuntal/gltf/ext/unlit"

	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/internal/vmath"
)

// The document model is github.com/qmuntal/gltf's (gltf.Document, with the
// typed KHR extensions it registers). tilegpu keeps two things on top of it:
//
//   - the bytes: the .glb container, data: URIs and external files are read
//     here, with limits checked before anything is allocated (qmuntal's
//     Decoder allocates a buffer's declared byteLength before reading it);
//   - the JSON paths of errors. qmuntal's enum types decode an unknown value
//     (componentType 5124, mode 9, wrapS 1234, alphaMode "FOO") as their
//     zero value, its fixed-size arrays hide a matrix of 3 numbers, and it
//     reads the zero quaternion as "absent"; gltfRaw decodes just those
//     fields as written so that validate can name what was wrong.

// gltfRawNode is a node's transform as written.
type gltfRawNode struct {
	Matrix      []float64 `json:"matrix"`
	Translation []float64 `json:"translation"`
	Rotation    []float64 `json:"rotation"`
	Scale       []float64 `json:"scale"`
}

// gltfRaw is the shadow of the fields whose qmuntal decoding loses what the
// file said.
type gltfRaw struct {
	Asset struct {
		Version    string `json:"version"`
		MinVersion string `json:"minVersion"`
	} `json:"asset"`
	Accessors []struct {
		ComponentType int    `json:"componentType"`
		Type          string `json:"type"`
		Sparse        *struct {
			Indices struct {
				ComponentType int `json:"componentType"`
			} `json:"indices"`
		} `json:"sparse"`
	} `json:"accessors"`
	Meshes []struct {
		Primitives []struct {
			Mode *int `json:"mode"`
		} `json:"primitives"`
	} `json:"meshes"`
	Nodes     []gltfRawNode `json:"nodes"`
	Materials []struct {
		PBR *struct {
			BaseColorFactor []float64 `json:"baseColorFactor"`
		} `json:"pbrMetallicRoughness"`
		EmissiveFactor []float64 `json:"emissiveFactor"`
		AlphaMode      *string   `json:"alphaMode"`
	} `json:"materials"`
	Samplers []struct {
		MagFilter *int `json:"magFilter"`
		MinFilter *int `json:"minFilter"`
		WrapS     *int `json:"wrapS"`
		WrapT     *int `json:"wrapT"`
	} `json:"samplers"`
}

// glTF component types (the GL enum values).
const (
	compByte   = 5120
	compUByte  = 5121
	compShort  = 5122
	compUShort = 5123
	compUInt   = 5125
	compFloat  = 5126
)

// Limits that keep hostile files from allocating without bound. Real models
// are far below them: the largest texture here is 2048² and the GPU's own
// texture limit is checked when drawing.
const (
	maxImageSide      = 8192
	maxImagePixels    = 1 << 24 // 64 MiB decoded
	maxZeroFloats     = 1 << 22 // components of an accessor with no bufferView
	maxNodeDepth      = 256
	maxSparseElements = 1 << 22
)

// LoadGLTF parses a glTF 2.0 model: a .gltf JSON document whose buffers and
// images are data: URIs (the glTF-Embedded variant), or a .glb container.
// External URIs are an error here; LoadModelFile resolves them beside the
// file. It reads buffers, bufferViews (with byteStride), accessors (every
// component type, normalized, sparse), meshes and their primitives (every
// mode; u8/u16/u32 indices; POSITION, NORMAL, TEXCOORD_n, COLOR_0), the
// node hierarchy of the default scene (matrix or translation/rotation/scale),
// materials (baseColorFactor, baseColorTexture, doubleSided), textures,
// samplers and PNG/JPEG images. Primitives without NORMAL get flat normals.
// Animations, skins, morph targets and cameras are ignored (the model is
// drawn in its rest pose). Errors name the JSON path of what was wrong.
func LoadGLTF(r io.Reader) (*Model, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("gltf: %w", err)
	}
	return loadGLTF(data, nil)
}

// gltfLoader holds one file's decoded state while it becomes a Model.
type gltfLoader struct {
	doc      *gltf.Document
	raw      gltfRaw
	bin      []byte // the .glb BIN chunk, if any
	external func(uri string) ([]byte, error)
	buffers  [][]byte
	floats   map[int][]float32 // decoded accessors, by index
	model    *Model
	imageOf  map[int]int // glTF image index → Model.Images index
	defMat   int         // Model.Materials index of the default material, -1 until needed
}

func loadGLTF(data []byte, external func(string) ([]byte, error)) (*Model, error) {
	l := &gltfLoader{external: external, floats: map[int][]float32{}, imageOf: map[int]int{}, defMat: -1}
	m, err := l.load(data)
	if err != nil {
		return nil, fmt.Errorf("gltf: %w", err)
	}
	return m, nil
}

func (l *gltfLoader) load(data []byte) (*Model, error) {
	js := data
	if len(data) >= 4 && string(data[:4]) == "glTF" {
		var err error
		if js, l.bin, err = splitGLB(data); err != nil {
			return nil, err
		}
	}
	if err := l.decode(js); err != nil {
		return nil, err
	}
	d := l.doc
	for k, e := range d.ExtensionsRequired {
		if !supportedExtensions[e] {
			return nil, fmt.Errorf("extensionsRequired[%d]: %q not supported", k, e)
		}
	}
	if err := l.loadBuffers(); err != nil {
		return nil, err
	}
	l.model = &Model{}
	if err := l.loadMaterials(); err != nil {
		return nil, err
	}
	// Meshes: every one in the file, so that MeshCounts reports the file.
	for i := range d.Meshes {
		me, err := l.loadMesh(i)
		if err != nil {
			return nil, err
		}
		l.model.Meshes = append(l.model.Meshes, me)
	}
	if err := l.loadNodes(); err != nil {
		return nil, err
	}
	if err := l.loadSkins(); err != nil {
		return nil, err
	}
	if err := l.loadAnimations(); err != nil {
		return nil, err
	}
	l.model.computeBounds()
	if len(l.model.Skins) > 0 {
		// Skinned meshes are drawn as their joints place them, even
		// without an animation (glTF ignores the mesh node's transform).
		return l.model.pose(-1), nil
	}
	return l.model, nil
}

// splitGLB returns a .glb file's JSON chunk and its BIN chunk (nil if none).
func splitGLB(data []byte) (js, bin []byte, err error) {
	if len(data) < 20 {
		return nil, nil, errors.New("glb: file shorter than its 12-byte header and a chunk header")
	}
	if v := binary.LittleEndian.Uint32(data[4:]); v != 2 {
		return nil, nil, fmt.Errorf("glb: container version %d, want 2", v)
	}
	total := binary.LittleEndian.Uint32(data[8:])
	if total < 20 {
		return nil, nil, fmt.Errorf("glb: header length %d is shorter than the headers", total)
	}
	if uint64(total) > uint64(len(data)) {
		return nil, nil, fmt.Errorf("glb: header length %d but the file has %d bytes", total, len(data))
	}
	rest := data[12:total]
	for n := 0; len(rest) > 0; n++ {
		if len(rest) < 8 {
			return nil, nil, fmt.Errorf("glb: chunk %d: truncated header", n)
		}
		size := binary.LittleEndian.Uint32(rest)
		kind := binary.LittleEndian.Uint32(rest[4:])
		if uint64(size) > uint64(len(rest)-8) {
			return nil, nil, fmt.Errorf("glb: chunk %d: length %d past the end of the file", n, size)
		}
		body := rest[8 : 8+size]
		rest = rest[8+size:]
		switch {
		case n == 0 && kind == 0x4E4F534A: // "JSON"
			js = body
		case n == 0:
			return nil, nil, fmt.Errorf("glb: first chunk has type 0x%08x, want JSON", kind)
		case n == 1 && kind == 0x004E4942: // "BIN\0"
			bin = body
		}
	}
	return js, bin, nil
}

// loadBuffers resolves every buffer: a data: URI, a GLB BIN chunk (buffer 0
// without a URI) or, through l.external, a file.
func (l *gltfLoader) loadBuffers() error {
	for i, b := range l.doc.Buffers {
		path := fmt.Sprintf("buffers[%d]", i)
		if b.ByteLength < 1 {
			return fmt.Errorf("%s.byteLength %d must be at least 1", path, b.ByteLength)
		}
		var data []byte
		switch {
		case b.URI == "" && i == 0 && l.bin != nil:
			data = l.bin
		case b.URI == "":
			return fmt.Errorf("%s has no uri (and is not a .glb BIN chunk)", path)
		default:
			var err error
			if data, err = l.resolveURI(b.URI); err != nil {
				return fmt.Errorf("%s.uri: %w", path, err)
			}
		}
		if len(data) < b.ByteLength {
			return fmt.Errorf("%s: byteLength %d but the data has %d bytes", path, b.ByteLength, len(data))
		}
		l.buffers = append(l.buffers, data[:b.ByteLength])
	}
	return nil
}

// resolveURI decodes a base64 data: URI or reads an external file.
func (l *gltfLoader) resolveURI(uri string) ([]byte, error) {
	if rest, ok := strings.CutPrefix(uri, "data:"); ok {
		_, payload, ok := strings.Cut(rest, ",")
		if !ok {
			return nil, errors.New("data: URI without a comma")
		}
		if !strings.HasSuffix(rest[:len(rest)-len(payload)-1], ";base64") {
			return nil, errors.New("data: URI is not base64")
		}
		b, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			if b, err = base64.RawStdEncoding.DecodeString(payload); err != nil {
				return nil, fmt.Errorf("data: URI: %w", err)
			}
		}
		return b, nil
	}
	if l.external == nil {
		return nil, fmt.Errorf("external URI %q (only data: URIs are read from a stream; use LoadModelFile)", truncate(uri))
	}
	return l.external(uri)
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// view returns bufferView i's bytes and stride (0 when not set).
func (l *gltfLoader) view(i int, path string) ([]byte, int, error) {
	if i < 0 || i >= len(l.doc.BufferViews) {
		return nil, 0, fmt.Errorf("%s: bufferView %d out of range (have %d)", path, i, len(l.doc.BufferViews))
	}
	v := l.doc.BufferViews[i]
	vp := fmt.Sprintf("bufferViews[%d]", i)
	if v.Buffer < 0 || v.Buffer >= len(l.buffers) {
		return nil, 0, fmt.Errorf("%s.buffer %d out of range (have %d)", vp, v.Buffer, len(l.buffers))
	}
	buf := l.buffers[v.Buffer]
	if v.ByteOffset < 0 || v.ByteLength < 1 || int64(v.ByteOffset)+int64(v.ByteLength) > int64(len(buf)) {
		return nil, 0, fmt.Errorf("%s: byteOffset %d + byteLength %d outside buffer %d's %d bytes", vp, v.ByteOffset, v.ByteLength, v.Buffer, len(buf))
	}
	if v.ByteStride != 0 && (v.ByteStride < 4 || v.ByteStride > 252 || v.ByteStride%4 != 0) {
		return nil, 0, fmt.Errorf("%s.byteStride %d: must be a multiple of 4 in 4..252", vp, v.ByteStride)
	}
	return buf[v.ByteOffset : v.ByteOffset+v.ByteLength], v.ByteStride, nil
}

func componentSize(ct int) int {
	switch ct {
	case compByte, compUByte:
		return 1
	case compShort, compUShort:
		return 2
	case compUInt, compFloat:
		return 4
	}
	return 0
}

// accessorShape returns the component count of an accessor type, and for
// matrices the row count (columns are padded to 4-byte boundaries).
func accessorShape(ty string) (comps, rows int) {
	switch ty {
	case "SCALAR":
		return 1, 1
	case "VEC2":
		return 2, 2
	case "VEC3":
		return 3, 3
	case "VEC4":
		return 4, 4
	case "MAT2":
		return 4, 2
	case "MAT3":
		return 9, 3
	case "MAT4":
		return 16, 4
	}
	return 0, 0
}

// readComponent converts one component to float32, normalizing integers
// when asked (glTF's rules: signed types clamp at -1).
func readComponent(b []byte, ct int, normalized bool) float32 {
	switch ct {
	case compFloat:
		return math.Float32frombits(binary.LittleEndian.Uint32(b))
	case compByte:
		v := float32(int8(b[0]))
		if normalized {
			return max(v/127, -1)
		}
		return v
	case compUByte:
		v := float32(b[0])
		if normalized {
			return v / 255
		}
		return v
	case compShort:
		v := float32(int16(binary.LittleEndian.Uint16(b)))
		if normalized {
			return max(v/32767, -1)
		}
		return v
	case compUShort:
		v := float32(binary.LittleEndian.Uint16(b))
		if normalized {
			return v / 65535
		}
		return v
	default: // compUInt
		v := binary.LittleEndian.Uint32(b)
		if normalized {
			return float32(float64(v) / 4294967295)
		}
		return float32(v)
	}
}

// accessorFloats decodes accessor i into count×comps float32s.
func (l *gltfLoader) accessorFloats(i int, path string) ([]float32, int, error) {
	if i < 0 || i >= len(l.doc.Accessors) {
		return nil, 0, fmt.Errorf("%s: accessor %d out of range (have %d)", path, i, len(l.doc.Accessors))
	}
	a, ra := l.doc.Accessors[i], l.raw.Accessors[i]
	comps, rows := accessorShape(ra.Type)
	if f, ok := l.floats[i]; ok {
		return f, comps, nil
	}
	ap := fmt.Sprintf("accessors[%d]", i)
	ct := ra.ComponentType
	cs := componentSize(ct)
	if a.Count < 1 {
		return nil, 0, fmt.Errorf("%s.count %d must be at least 1", ap, a.Count)
	}
	if ct == compFloat && a.Normalized {
		return nil, 0, fmt.Errorf("%s: normalized FLOAT is not allowed", ap)
	}
	// Element layout: matrix columns start on 4-byte boundaries.
	cols := comps / rows
	colBytes := rows * cs
	if cols > 1 {
		colBytes = (colBytes + 3) &^ 3
	}
	elemSize := cols * colBytes
	var out []float32
	if a.BufferView == nil {
		if a.Count > maxZeroFloats/comps {
			return nil, 0, fmt.Errorf("%s: count %d without a bufferView exceeds %d", ap, a.Count, maxZeroFloats/comps)
		}
		out = make([]float32, a.Count*comps)
	} else {
		data, stride, err := l.view(*a.BufferView, ap)
		if err != nil {
			return nil, 0, err
		}
		if stride == 0 {
			stride = elemSize
		}
		if stride < elemSize {
			return nil, 0, fmt.Errorf("%s: bufferView %d's byteStride %d is smaller than the %d-byte element", ap, *a.BufferView, stride, elemSize)
		}
		if a.Count > len(data) {
			return nil, 0, fmt.Errorf("%s: count %d exceeds bufferView %d's %d bytes", ap, a.Count, *a.BufferView, len(data))
		}
		if a.ByteOffset < 0 || int64(a.ByteOffset)+int64(a.Count-1)*int64(stride)+int64(elemSize) > int64(len(data)) {
			return nil, 0, fmt.Errorf("%s: byteOffset %d + %d elements of stride %d reach past bufferView %d's %d bytes",
				ap, a.ByteOffset, a.Count, stride, *a.BufferView, len(data))
		}
		out = make([]float32, a.Count*comps)
		for e := 0; e < a.Count; e++ {
			base := a.ByteOffset + e*stride
			for c := 0; c < cols; c++ {
				for r := 0; r < rows; r++ {
					out[e*comps+c*rows+r] = readComponent(data[base+c*colBytes+r*cs:], ct, a.Normalized)
				}
			}
		}
	}
	if s := a.Sparse; s != nil {
		sp := ap + ".sparse"
		if s.Count < 1 || s.Count > a.Count || s.Count > maxSparseElements {
			return nil, 0, fmt.Errorf("%s.count %d must be in 1..%d", sp, s.Count, a.Count)
		}
		ict := ra.Sparse.Indices.ComponentType
		ics := componentSize(ict)
		if ict != compUByte && ict != compUShort && ict != compUInt {
			return nil, 0, fmt.Errorf("%s.indices.componentType %d: want 5121, 5123 or 5125", sp, ict)
		}
		idx, _, err := l.view(s.Indices.BufferView, sp+".indices")
		if err != nil {
			return nil, 0, err
		}
		vals, _, err := l.view(s.Values.BufferView, sp+".values")
		if err != nil {
			return nil, 0, err
		}
		if s.Indices.ByteOffset < 0 || int64(s.Indices.ByteOffset)+int64(s.Count)*int64(ics) > int64(len(idx)) {
			return nil, 0, fmt.Errorf("%s.indices: %d indices reach past their bufferView", sp, s.Count)
		}
		if s.Values.ByteOffset < 0 || int64(s.Values.ByteOffset)+int64(s.Count)*int64(elemSize) > int64(len(vals)) {
			return nil, 0, fmt.Errorf("%s.values: %d values reach past their bufferView", sp, s.Count)
		}
		for k := 0; k < s.Count; k++ {
			e := int(readUint(idx[s.Indices.ByteOffset+k*ics:], ict))
			if e < 0 || e >= a.Count {
				return nil, 0, fmt.Errorf("%s.indices[%d] = %d out of range (count %d)", sp, k, e, a.Count)
			}
			base := s.Values.ByteOffset + k*elemSize
			for c := 0; c < cols; c++ {
				for r := 0; r < rows; r++ {
					out[e*comps+c*rows+r] = readComponent(vals[base+c*colBytes+r*cs:], ct, a.Normalized)
				}
			}
		}
	}
	for k, v := range out {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, 0, fmt.Errorf("%s: element %d is not finite", ap, k/comps)
		}
	}
	l.floats[i] = out
	return out, comps, nil
}

// readUint reads one unsigned integer component (indices are integers:
// reading them through float32 would corrupt those at or above 2^24).
func readUint(b []byte, ct int) uint32 {
	switch ct {
	case compUByte:
		return uint32(b[0])
	case compUShort:
		return uint32(binary.LittleEndian.Uint16(b))
	default: // compUInt
		return binary.LittleEndian.Uint32(b)
	}
}

// accessorIndices decodes an index accessor: SCALAR unsigned integers, each
// below limit (the vertex count), read as integers.
func (l *gltfLoader) accessorIndices(i int, path string, limit int) ([]uint32, gl.Enum, error) {
	if i < 0 || i >= len(l.doc.Accessors) {
		return nil, 0, fmt.Errorf("%s: accessor %d out of range (have %d)", path, i, len(l.doc.Accessors))
	}
	a, ra := l.doc.Accessors[i], l.raw.Accessors[i]
	ap := fmt.Sprintf("accessors[%d]", i)
	ct := ra.ComponentType
	var ty gl.Enum
	switch ct {
	case compUByte:
		ty = gl.UNSIGNED_BYTE
	case compUShort:
		ty = gl.UNSIGNED_SHORT
	case compUInt:
		ty = gl.UNSIGNED_INT
	default:
		return nil, 0, fmt.Errorf("%s: %s.componentType %d: indices must be 5121, 5123 or 5125", path, ap, ct)
	}
	if ra.Type != "SCALAR" || a.Normalized {
		return nil, 0, fmt.Errorf("%s: %s must be a SCALAR, not normalized", path, ap)
	}
	if a.Count < 1 {
		return nil, 0, fmt.Errorf("%s.count %d must be at least 1", ap, a.Count)
	}
	cs := componentSize(ct)
	var idx []uint32
	if a.BufferView == nil {
		if a.Count > maxZeroFloats {
			return nil, 0, fmt.Errorf("%s: count %d without a bufferView exceeds %d", ap, a.Count, maxZeroFloats)
		}
		idx = make([]uint32, a.Count)
	} else {
		data, stride, err := l.view(*a.BufferView, ap)
		if err != nil {
			return nil, 0, err
		}
		if stride == 0 {
			stride = cs
		}
		if a.ByteOffset < 0 || a.Count > len(data) || int64(a.ByteOffset)+int64(a.Count-1)*int64(stride)+int64(cs) > int64(len(data)) {
			return nil, 0, fmt.Errorf("%s: byteOffset %d + %d elements of stride %d reach past bufferView %d's %d bytes",
				ap, a.ByteOffset, a.Count, stride, *a.BufferView, len(data))
		}
		idx = make([]uint32, a.Count)
		for e := range idx {
			idx[e] = readUint(data[a.ByteOffset+e*stride:], ct)
		}
	}
	if s := a.Sparse; s != nil {
		sp := ap + ".sparse"
		ict := ra.Sparse.Indices.ComponentType
		ics := componentSize(ict)
		if ict != compUByte && ict != compUShort && ict != compUInt {
			return nil, 0, fmt.Errorf("%s.indices.componentType %d: want 5121, 5123 or 5125", sp, ict)
		}
		if s.Count < 1 || s.Count > a.Count {
			return nil, 0, fmt.Errorf("%s.count %d must be in 1..%d", sp, s.Count, a.Count)
		}
		si, _, err := l.view(s.Indices.BufferView, sp+".indices")
		if err != nil {
			return nil, 0, err
		}
		sv, _, err := l.view(s.Values.BufferView, sp+".values")
		if err != nil {
			return nil, 0, err
		}
		if s.Indices.ByteOffset < 0 || int64(s.Indices.ByteOffset)+int64(s.Count)*int64(ics) > int64(len(si)) ||
			s.Values.ByteOffset < 0 || int64(s.Values.ByteOffset)+int64(s.Count)*int64(cs) > int64(len(sv)) {
			return nil, 0, fmt.Errorf("%s: %d elements reach past their bufferViews", sp, s.Count)
		}
		for k := 0; k < s.Count; k++ {
			e := readUint(si[s.Indices.ByteOffset+k*ics:], ict)
			if int64(e) >= int64(a.Count) {
				return nil, 0, fmt.Errorf("%s.indices[%d] = %d out of range (count %d)", sp, k, e, a.Count)
			}
			idx[e] = readUint(sv[s.Values.ByteOffset+k*cs:], ct)
		}
	}
	for k, v := range idx {
		if int64(v) >= int64(limit) {
			return nil, 0, fmt.Errorf("%s: %s element %d = %d is not below the vertex count %d", path, ap, k, v, limit)
		}
	}
	return idx, ty, nil
}

// supportedExtensions are the extensions a file may require: the loader
// implements them.
var supportedExtensions = map[string]bool{
	unlit.ExtensionName:            true,
	texturetransform.ExtensionName: true,
	"KHR_mesh_quantization":        true, // integer attributes: accessorFloats reads every component type
}

// loadMaterials converts materials and the textures they use.
func (l *gltfLoader) loadMaterials() error {
	texOf := map[int]int{} // glTF texture → Model.Textures
	var m Material
	texture := func(index, texCoord int, ext gltf.Extensions, tp string, slot TextureSlot) (int, error) {
		if tt, ok := ext[texturetransform.ExtensionName].(*texturetransform.TextureTranform); ok {
			t, err := uvTransform(tt, tp+".extensions.KHR_texture_transform")
			if err != nil {
				return 0, err
			}
			m.UV[slot] = t
			if tt.TexCoord != nil { // the extension may choose another set
				texCoord = *tt.TexCoord
				tp += ".extensions.KHR_texture_transform"
			}
		}
		if texCoord < 0 || texCoord > 1 {
			return 0, fmt.Errorf("%s.texCoord %d: only TEXCOORD_0 and TEXCOORD_1 are drawn", tp, texCoord)
		}
		m.TexCoord[slot] = texCoord
		t, ok := texOf[index]
		if !ok {
			var err error
			if t, err = l.loadTexture(index, tp+".index"); err != nil {
				return 0, err
			}
			texOf[index] = t
		}
		return t, nil
	}
	for i, gm := range l.doc.Materials {
		path := fmt.Sprintf("materials[%d]", i)
		raw := l.raw.Materials[i]
		m = DefaultMaterial()
		m.Name, m.DoubleSided = gm.Name, gm.DoubleSided
		if pbr := gm.PBRMetallicRoughness; pbr != nil {
			pp := path + ".pbrMetallicRoughness"
			if f := raw.PBR.BaseColorFactor; f != nil {
				for j, v := range f {
					m.BaseColor[j] = float32(v)
				}
			}
			for _, f := range []struct {
				name string
				v    *float64
				dst  *float32
			}{{"metallicFactor", pbr.MetallicFactor, &m.Metallic}, {"roughnessFactor", pbr.RoughnessFactor, &m.Roughness}} {
				if f.v == nil {
					continue
				}
				if !(*f.v >= 0 && *f.v <= 1) {
					return fmt.Errorf("%s.%s %v outside 0..1", pp, f.name, *f.v)
				}
				*f.dst = float32(*f.v)
			}
			var err error
			if ti := pbr.BaseColorTexture; ti != nil {
				if m.BaseColorTexture, err = texture(ti.Index, ti.TexCoord, ti.Extensions, pp+".baseColorTexture", SlotBaseColor); err != nil {
					return err
				}
			}
			if ti := pbr.MetallicRoughnessTexture; ti != nil {
				if m.MetallicRoughnessTexture, err = texture(ti.Index, ti.TexCoord, ti.Extensions, pp+".metallicRoughnessTexture", SlotMetallicRoughness); err != nil {
					return err
				}
			}
		}
		if nt := gm.NormalTexture; nt != nil {
			tp := path + ".normalTexture"
			if nt.Index == nil {
				return fmt.Errorf("%s has no index", tp)
			}
			var err error
			if m.NormalTexture, err = texture(*nt.Index, nt.TexCoord, nt.Extensions, tp, SlotNormal); err != nil {
				return err
			}
			if sc := nt.ScaleOrDefault(); math.IsNaN(sc) || math.Abs(sc) > 1e6 {
				return fmt.Errorf("%s.scale %v is not a usable number", tp, sc)
			} else {
				m.NormalScale = float32(sc)
			}
		}
		if ot := gm.OcclusionTexture; ot != nil {
			tp := path + ".occlusionTexture"
			if ot.Index == nil {
				return fmt.Errorf("%s has no index", tp)
			}
			var err error
			if m.OcclusionTexture, err = texture(*ot.Index, ot.TexCoord, ot.Extensions, tp, SlotOcclusion); err != nil {
				return err
			}
			st := ot.StrengthOrDefault()
			if !(st >= 0 && st <= 1) {
				return fmt.Errorf("%s.strength %v outside 0..1", tp, st)
			}
			m.OcclusionStrength = float32(st)
		}
		if et := gm.EmissiveTexture; et != nil {
			var err error
			if m.EmissiveTexture, err = texture(et.Index, et.TexCoord, et.Extensions, path+".emissiveTexture", SlotEmissive); err != nil {
				return err
			}
		}
		for j, v := range raw.EmissiveFactor {
			m.Emissive[j] = float32(v)
		}
		m.AlphaMode = AlphaMode(gm.AlphaMode) // qmuntal's order is glTF's: OPAQUE, MASK, BLEND
		if c := gm.AlphaCutoff; c != nil {
			if !(*c >= 0) || *c > 1e6 {
				return fmt.Errorf("%s.alphaCutoff %v must be a number ≥ 0", path, *c)
			}
			m.AlphaCutoff = float32(*c)
		}
		_, m.Unlit = gm.Extensions[unlit.ExtensionName]
		l.model.Materials = append(l.model.Materials, m)
	}
	return nil
}

// uvTransform converts a KHR_texture_transform to the matrix T·R·S that
// the extension defines (scale first, then rotation, then offset).
func uvTransform(tt *texturetransform.TextureTranform, path string) (UVTransform, error) {
	sc := tt.ScaleOrDefault()
	for _, v := range []float64{tt.Offset[0], tt.Offset[1], tt.Rotation, sc[0], sc[1]} {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e6 {
			return UVTransform{}, fmt.Errorf("%s: %v is not a usable number", path, v)
		}
	}
	c, s := math.Cos(tt.Rotation), math.Sin(tt.Rotation)
	// The extension's rotation matrix is [c s; -s c] (counter-clockwise in
	// UV space, whose v axis points down).
	return UVTransform{M: [6]float32{
		float32(c * sc[0]), float32(-s * sc[0]),
		float32(s * sc[1]), float32(c * sc[1]),
		float32(tt.Offset[0]), float32(tt.Offset[1]),
	}}, nil
}

// loadTexture converts texture i (image and sampler) and returns its
// Model.Textures index.
func (l *gltfLoader) loadTexture(i int, path string) (int, error) {
	d := l.doc
	if i < 0 || i >= len(d.Textures) {
		return 0, fmt.Errorf("%s: texture %d out of range (have %d)", path, i, len(d.Textures))
	}
	gt := d.Textures[i]
	tp := fmt.Sprintf("textures[%d]", i)
	// glTF's defaults when the sampler or a field is absent: repeat, and
	// "auto" filtering, which is trilinear here.
	t := Texture{Name: gt.Name, WrapS: gl.REPEAT, WrapT: gl.REPEAT, MinFilter: gl.LINEAR_MIPMAP_LINEAR, MagFilter: gl.LINEAR}
	if gt.Sampler != nil {
		s := *gt.Sampler
		if s < 0 || s >= len(d.Samplers) {
			return 0, fmt.Errorf("%s.sampler %d out of range (have %d)", tp, s, len(d.Samplers))
		}
		sm := l.raw.Samplers[s]
		sp := fmt.Sprintf("samplers[%d]", s)
		for _, f := range []struct {
			name  string
			v     *int
			dst   *gl.Enum
			valid []gl.Enum
		}{
			{"wrapS", sm.WrapS, &t.WrapS, []gl.Enum{gl.REPEAT, gl.CLAMP_TO_EDGE, gl.MIRRORED_REPEAT}},
			{"wrapT", sm.WrapT, &t.WrapT, []gl.Enum{gl.REPEAT, gl.CLAMP_TO_EDGE, gl.MIRRORED_REPEAT}},
			{"magFilter", sm.MagFilter, &t.MagFilter, []gl.Enum{gl.NEAREST, gl.LINEAR}},
			{"minFilter", sm.MinFilter, &t.MinFilter, []gl.Enum{gl.NEAREST, gl.LINEAR, gl.NEAREST_MIPMAP_NEAREST,
				gl.LINEAR_MIPMAP_NEAREST, gl.NEAREST_MIPMAP_LINEAR, gl.LINEAR_MIPMAP_LINEAR}},
		} {
			if f.v == nil {
				continue
			}
			ok := false
			for _, e := range f.valid {
				ok = ok || int(e) == *f.v
			}
			if !ok {
				return 0, fmt.Errorf("%s.%s %d is not a valid value", sp, f.name, *f.v)
			}
			*f.dst = gl.Enum(*f.v)
		}
	}
	if gt.Source == nil {
		return 0, fmt.Errorf("%s has no source image", tp)
	}
	img, ok := l.imageOf[*gt.Source]
	if !ok {
		var err error
		if img, err = l.loadImage(*gt.Source, tp+".source"); err != nil {
			return 0, err
		}
		l.imageOf[*gt.Source] = img
	}
	t.Image = img
	l.model.Textures = append(l.model.Textures, t)
	return len(l.model.Textures) - 1, nil
}

// loadImage decodes image i (PNG or JPEG, from a URI or a bufferView) and
// returns its Model.Images index.
func (l *gltfLoader) loadImage(i int, path string) (int, error) {
	if i < 0 || i >= len(l.doc.Images) {
		return 0, fmt.Errorf("%s: image %d out of range (have %d)", path, i, len(l.doc.Images))
	}
	gi := l.doc.Images[i]
	ip := fmt.Sprintf("images[%d]", i)
	var data []byte
	var err error
	switch {
	case gi.URI != "":
		if data, err = l.resolveURI(gi.URI); err != nil {
			return 0, fmt.Errorf("%s.uri: %w", ip, err)
		}
	case gi.BufferView != nil:
		if data, _, err = l.view(*gi.BufferView, ip); err != nil {
			return 0, err
		}
	default:
		return 0, fmt.Errorf("%s has neither uri nor bufferView", ip)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", ip, err)
	}
	if format != "png" && format != "jpeg" {
		return 0, fmt.Errorf("%s: format %s, want PNG or JPEG", ip, format)
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > maxImageSide || cfg.Height > maxImageSide || cfg.Width*cfg.Height > maxImagePixels {
		return 0, fmt.Errorf("%s: %d×%d image: sides must be 1..%d and pixels at most %d", ip, cfg.Width, cfg.Height, maxImageSide, maxImagePixels)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", ip, err)
	}
	l.model.Images = append(l.model.Images, toNRGBA(img))
	return len(l.model.Images) - 1, nil
}

// defaultMaterial returns the index of the default material, adding it the
// first time a primitive needs it.
func (l *gltfLoader) defaultMaterial() int {
	if l.defMat < 0 {
		l.model.Materials = append(l.model.Materials, DefaultMaterial())
		l.defMat = len(l.model.Materials) - 1
	}
	return l.defMat
}

// loadMesh converts mesh i's primitives.
func (l *gltfLoader) loadMesh(i int) (ModelMesh, error) {
	gm := l.doc.Meshes[i]
	me := ModelMesh{Name: gm.Name}
	if len(gm.Primitives) == 0 {
		return me, fmt.Errorf("meshes[%d] has no primitives", i)
	}
	for j, gp := range gm.Primitives {
		p, err := l.loadPrimitive(gp, l.raw.Meshes[i].Primitives[j].Mode, fmt.Sprintf("meshes[%d].primitives[%d]", i, j))
		if err != nil {
			return me, err
		}
		me.Primitives = append(me.Primitives, p)
	}
	return me, nil
}

func (l *gltfLoader) loadPrimitive(gp *gltf.Primitive, mode *int, path string) (Primitive, error) {
	p := Primitive{Mode: gl.TRIANGLES}
	if mode != nil {
		p.Mode = gl.Enum(*mode) // glTF modes are GL's POINTS..TRIANGLE_FAN; validateRaw checked the range
	}
	p.Lit = p.Mode == gl.TRIANGLES || p.Mode == gl.TRIANGLE_STRIP || p.Mode == gl.TRIANGLE_FAN
	if gp.Material != nil {
		if *gp.Material < 0 || *gp.Material >= len(l.doc.Materials) {
			return p, fmt.Errorf("%s.material %d out of range (have %d)", path, *gp.Material, len(l.doc.Materials))
		}
		p.Material = *gp.Material
	} else {
		p.Material = l.defaultMaterial()
	}
	posIdx, ok := gp.Attributes["POSITION"]
	if !ok {
		return p, fmt.Errorf("%s.attributes has no POSITION", path)
	}
	type attr struct {
		name   string
		offset int // in the interleaved vertex
		comps  []int
	}
	attrs := []attr{
		{"POSITION", 0, []int{3}},
		{"NORMAL", 3, []int{3}},
		{"TEXCOORD_0", 6, []int{2}},
		{"TEXCOORD_1", 16, []int{2}},
		{"COLOR_0", 8, []int{3, 4}},
		{"TANGENT", 12, []int{4}},
	}
	pos, comps, err := l.accessorFloats(posIdx, path+".attributes.POSITION")
	if err != nil {
		return p, err
	}
	if comps != 3 {
		return p, fmt.Errorf("%s.attributes.POSITION: accessors[%d] is %s, want VEC3", path, posIdx, l.raw.Accessors[posIdx].Type)
	}
	n := len(pos) / 3
	p.Positions = n
	p.Vertices = make([]float32, n*ModelVertexFloats)
	for v := 0; v < n; v++ { // white where COLOR_0 is absent; tangent +X
		c := p.Vertices[v*ModelVertexFloats+8 : v*ModelVertexFloats+16]
		c[0], c[1], c[2], c[3] = 1, 1, 1, 1
		c[4], c[7] = 1, 1
	}
	hasNormal := false
	for _, a := range attrs {
		ai, ok := gp.Attributes[a.name]
		if !ok {
			continue
		}
		ap := path + ".attributes." + a.name
		f, comps, err := l.accessorFloats(ai, ap)
		if err != nil {
			return p, err
		}
		valid := false
		for _, c := range a.comps {
			valid = valid || c == comps
		}
		if !valid {
			return p, fmt.Errorf("%s: accessors[%d] is %s, want %d components", ap, ai, l.raw.Accessors[ai].Type, a.comps[0])
		}
		if len(f)/comps != n {
			return p, fmt.Errorf("%s: accessors[%d] has %d elements but POSITION has %d", ap, ai, len(f)/comps, n)
		}
		for v := 0; v < n; v++ {
			copy(p.Vertices[v*ModelVertexFloats+a.offset:], f[v*comps:v*comps+comps])
		}
		hasNormal = hasNormal || a.name == "NORMAL"
		p.Tangents = p.Tangents || a.name == "TANGENT"
	}
	if ji, ok := gp.Attributes["JOINTS_0"]; ok {
		wi, ok := gp.Attributes["WEIGHTS_0"]
		if !ok {
			return p, fmt.Errorf("%s.attributes has JOINTS_0 but no WEIGHTS_0", path)
		}
		j, jc, err := l.accessorFloats(ji, path+".attributes.JOINTS_0")
		if err != nil {
			return p, err
		}
		w, wc, err := l.accessorFloats(wi, path+".attributes.WEIGHTS_0")
		if err != nil {
			return p, err
		}
		if jc != 4 || wc != 4 || len(j) != 4*n || len(w) != 4*n {
			return p, fmt.Errorf("%s: JOINTS_0 and WEIGHTS_0 must be VEC4 with one element per vertex", path)
		}
		p.Joints = make([]uint16, len(j))
		for k, v := range j {
			if v < 0 || v > 65535 || v != float32(int(v)) {
				return p, fmt.Errorf("%s.attributes.JOINTS_0: element %d has joint %v", path, k/4, v)
			}
			p.Joints[k] = uint16(v)
		}
		p.Weights = w
	}
	if hasNormal {
		for v := 0; v < n; v++ {
			nv := p.Vertices[v*ModelVertexFloats+3 : v*ModelVertexFloats+6]
			u := normalize([3]float32{nv[0], nv[1], nv[2]})
			copy(nv, u[:])
		}
	}
	if gp.Indices != nil {
		if p.Indices, p.IndexType, err = l.accessorIndices(*gp.Indices, path+".indices", n); err != nil {
			return p, err
		}
	}
	if !hasNormal && p.Lit {
		flatNormals(&p)
		p.Tangents = false // unwelded: per-face tangents are generated below
	}
	if p.Lit && !p.Tangents && gp.Material != nil && l.doc.Materials[*gp.Material].NormalTexture != nil {
		uvOff := 6
		if l.model.Materials[p.Material].TexCoord[SlotNormal] == 1 {
			uvOff = 16
		}
		generateTangents(&p, uvOff)
	}
	if p.Count() == 0 {
		return p, fmt.Errorf("%s draws no vertices", path)
	}
	return p, nil
}

// flatNormals gives a triangle primitive without normals one normal per
// face, as glTF requires: it unwelds the primitive into a plain triangle
// list whose three vertices per triangle carry the face normal.
func flatNormals(p *Primitive) {
	n := p.Count()
	at := func(k int) uint32 {
		if p.Indices != nil {
			return p.Indices[k]
		}
		return uint32(k)
	}
	var tris [][3]uint32
	switch p.Mode {
	case gl.TRIANGLES:
		for k := 0; k+2 < n; k += 3 {
			tris = append(tris, [3]uint32{at(k), at(k + 1), at(k + 2)})
		}
	case gl.TRIANGLE_STRIP:
		for k := 0; k+2 < n; k++ {
			if k%2 == 0 {
				tris = append(tris, [3]uint32{at(k), at(k + 1), at(k + 2)})
			} else {
				tris = append(tris, [3]uint32{at(k + 1), at(k), at(k + 2)})
			}
		}
	case gl.TRIANGLE_FAN:
		for k := 1; k+1 < n; k++ {
			tris = append(tris, [3]uint32{at(0), at(k), at(k + 1)})
		}
	}
	src := p.Vertices
	out := make([]float32, 0, len(tris)*3*ModelVertexFloats)
	for _, t := range tris {
		var q [3][3]float32
		for c := 0; c < 3; c++ {
			copy(q[c][:], src[int(t[c])*ModelVertexFloats:])
		}
		nrm := normalize(cross(sub(q[1], q[0]), sub(q[2], q[0])))
		for c := 0; c < 3; c++ {
			base := len(out)
			out = append(out, src[int(t[c])*ModelVertexFloats:int(t[c]+1)*ModelVertexFloats]...)
			copy(out[base+3:], nrm[:])
		}
	}
	p.Mode, p.Vertices, p.Indices, p.IndexType = gl.TRIANGLES, out, nil, 0
}

// loadNodes walks the default scene's node trees (scene, else scenes[0],
// else every root node) and makes an Instance for every node with a mesh.
func (l *gltfLoader) loadNodes() error {
	d := l.doc
	parent := make([]int, len(d.Nodes))
	for i := range parent {
		parent[i] = -1
	}
	for i, n := range d.Nodes {
		for j, c := range n.Children {
			if c < 0 || c >= len(d.Nodes) {
				return fmt.Errorf("nodes[%d].children[%d] = %d out of range (have %d nodes)", i, j, c, len(d.Nodes))
			}
			if c == i {
				return fmt.Errorf("nodes[%d].children[%d]: a node cannot be its own child", i, j)
			}
			if parent[c] >= 0 {
				return fmt.Errorf("nodes[%d].children[%d]: node %d already has a parent (nodes must form trees)", i, j, c)
			}
			parent[c] = i
		}
	}
	var roots []int
	switch {
	case d.Scene != nil:
		if *d.Scene < 0 || *d.Scene >= len(d.Scenes) {
			return fmt.Errorf("scene %d out of range (have %d)", *d.Scene, len(d.Scenes))
		}
		roots = d.Scenes[*d.Scene].Nodes
	case len(d.Scenes) > 0:
		roots = d.Scenes[0].Nodes
	default:
		for i := range d.Nodes {
			if parent[i] < 0 {
				roots = append(roots, i)
			}
		}
	}
	// Every node's local transform and parent, for posing (anim.go).
	l.model.Nodes = make([]ModelNode, len(d.Nodes))
	for i, n := range d.Nodes {
		rn := l.raw.Nodes[i]
		mn := ModelNode{Name: n.Name, Parent: parent[i], S: [3]float32{1, 1, 1}, R: [4]float32{0, 0, 0, 1}}
		if rn.Matrix != nil {
			m, err := nodeMatrix(rn, fmt.Sprintf("nodes[%d]", i))
			if err != nil {
				return err
			}
			mn.Matrix = &m
		}
		for j, v := range rn.Translation {
			mn.T[j] = float32(v)
		}
		for j, v := range rn.Scale {
			mn.S[j] = float32(v)
		}
		if q := rn.Rotation; q != nil {
			ln := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
			for j, v := range q {
				mn.R[j] = float32(v / ln)
			}
		}
		l.model.Nodes[i] = mn
	}
	seen := make([]bool, len(d.Nodes))
	var walk func(i int, world vmath.Mat4, depth int) error
	walk = func(i int, world vmath.Mat4, depth int) error {
		if seen[i] {
			return fmt.Errorf("nodes[%d] is reached twice (nodes must form trees)", i)
		}
		if depth > maxNodeDepth {
			return fmt.Errorf("nodes[%d]: hierarchy deeper than %d", i, maxNodeDepth)
		}
		seen[i] = true
		n := d.Nodes[i]
		local, err := nodeMatrix(l.raw.Nodes[i], fmt.Sprintf("nodes[%d]", i))
		if err != nil {
			return err
		}
		world = vmath.Mul(world, local)
		if n.Camera != nil {
			if *n.Camera < 0 || *n.Camera >= len(d.Cameras) {
				return fmt.Errorf("nodes[%d].camera %d out of range (have %d)", i, *n.Camera, len(d.Cameras))
			}
			c, err := modelCamera(d.Cameras[*n.Camera], fmt.Sprintf("cameras[%d]", *n.Camera))
			if err != nil {
				return err
			}
			c.World, c.Node = world, i
			l.model.Cameras = append(l.model.Cameras, c)
		}
		if n.Mesh != nil {
			if *n.Mesh < 0 || *n.Mesh >= len(d.Meshes) {
				return fmt.Errorf("nodes[%d].mesh %d out of range (have %d)", i, *n.Mesh, len(d.Meshes))
			}
			in := Instance{Mesh: *n.Mesh, Name: n.Name, World: world, Node: i, Skin: -1}
			if n.Skin != nil {
				if *n.Skin < 0 || *n.Skin >= len(d.Skins) {
					return fmt.Errorf("nodes[%d].skin %d out of range (have %d)", i, *n.Skin, len(d.Skins))
				}
				in.Skin = *n.Skin
			}
			l.model.Instances = append(l.model.Instances, in)
		}
		for _, c := range n.Children {
			if err := walk(c, world, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	for k, r := range roots {
		if r < 0 || r >= len(d.Nodes) {
			return fmt.Errorf("scenes[].nodes[%d] = %d out of range (have %d nodes)", k, r, len(d.Nodes))
		}
		if err := walk(r, vmath.Identity(), 0); err != nil {
			return err
		}
	}
	return nil
}

// nodeMatrix returns a node's local transform: its column-major matrix, or
// T·R·S from translation, rotation (a unit quaternion x, y, z, w) and scale.
func nodeMatrix(n gltfRawNode, path string) (vmath.Mat4, error) {
	check := func(name string, v []float64, want int) error {
		if v != nil && len(v) != want {
			return fmt.Errorf("%s.%s has %d numbers, want %d", path, name, len(v), want)
		}
		for k, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e30 {
				return fmt.Errorf("%s.%s[%d] = %v is not a usable number", path, name, k, x)
			}
		}
		return nil
	}
	for _, f := range []struct {
		name string
		v    []float64
		n    int
	}{{"matrix", n.Matrix, 16}, {"translation", n.Translation, 3}, {"rotation", n.Rotation, 4}, {"scale", n.Scale, 3}} {
		if err := check(f.name, f.v, f.n); err != nil {
			return vmath.Mat4{}, err
		}
	}
	if n.Matrix != nil {
		var m vmath.Mat4
		for k, x := range n.Matrix {
			m[k] = float32(x)
		}
		return m, nil
	}
	m := vmath.Identity()
	if q := n.Rotation; q != nil {
		l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
		if l == 0 {
			return m, fmt.Errorf("%s.rotation is the zero quaternion", path)
		}
		m = quatMatrix(q[0]/l, q[1]/l, q[2]/l, q[3]/l)
	}
	if s := n.Scale; s != nil {
		m = vmath.Mul(m, vmath.Scale(float32(s[0]), float32(s[1]), float32(s[2])))
	}
	if t := n.Translation; t != nil {
		m = vmath.Mul(vmath.Translate(float32(t[0]), float32(t[1]), float32(t[2])), m)
	}
	return m, nil
}

// quatMatrix returns the rotation matrix of the unit quaternion (x, y, z, w).
func quatMatrix(x, y, z, w float64) vmath.Mat4 {
	m := vmath.Identity()
	m[0] = float32(1 - 2*(y*y+z*z))
	m[1] = float32(2 * (x*y + z*w))
	m[2] = float32(2 * (x*z - y*w))
	m[4] = float32(2 * (x*y - z*w))
	m[5] = float32(1 - 2*(x*x+z*z))
	m[6] = float32(2 * (y*z + x*w))
	m[8] = float32(2 * (x*z + y*w))
	m[9] = float32(2 * (y*z - x*w))
	m[10] = float32(1 - 2*(x*x+y*y))
	return m
}

// decode reads the JSON document: the shadow first (its checks give JSON
// paths), then qmuntal's document model.
func (l *gltfLoader) decode(js []byte) error {
	if err := json.Unmarshal(js, &l.raw); err != nil {
		return fmt.Errorf("JSON: %w", err)
	}
	if err := l.validateRaw(); err != nil {
		return err
	}
	l.doc = new(gltf.Document)
	if err := json.Unmarshal(js, l.doc); err != nil {
		return fmt.Errorf("JSON: %w", err)
	}
	return l.checkNulls()
}

// validateRaw checks the fields that qmuntal's types would decode without
// complaint (see gltfRaw), naming each by its JSON path.
func (l *gltfLoader) validateRaw() error {
	r := &l.raw
	if r.Asset.Version == "" {
		return errors.New("asset.version missing")
	}
	if !strings.HasPrefix(r.Asset.Version, "2.") {
		return fmt.Errorf("asset.version %q: only glTF 2.x is supported", truncate(r.Asset.Version))
	}
	if r.Asset.MinVersion != "" && r.Asset.MinVersion != "2.0" {
		return fmt.Errorf("asset.minVersion %q: only glTF 2.0 is supported", truncate(r.Asset.MinVersion))
	}
	for i, a := range r.Accessors {
		ap := fmt.Sprintf("accessors[%d]", i)
		if componentSize(a.ComponentType) == 0 {
			return fmt.Errorf("%s.componentType %d unknown", ap, a.ComponentType)
		}
		if c, _ := accessorShape(a.Type); c == 0 {
			return fmt.Errorf("%s.type %q unknown", ap, a.Type)
		}
	}
	for i, me := range r.Meshes {
		for j, p := range me.Primitives {
			if p.Mode != nil && (*p.Mode < 0 || *p.Mode > 6) {
				return fmt.Errorf("meshes[%d].primitives[%d].mode %d not in 0..6", i, j, *p.Mode)
			}
		}
	}
	for i, n := range r.Nodes {
		if _, err := nodeMatrix(n, fmt.Sprintf("nodes[%d]", i)); err != nil {
			return err
		}
	}
	for i, m := range r.Materials {
		path := fmt.Sprintf("materials[%d]", i)
		if m.PBR != nil && m.PBR.BaseColorFactor != nil {
			f := m.PBR.BaseColorFactor
			if len(f) != 4 {
				return fmt.Errorf("%s.pbrMetallicRoughness.baseColorFactor has %d numbers, want 4", path, len(f))
			}
			for j, v := range f {
				if !(v >= 0 && v <= 1) {
					return fmt.Errorf("%s.pbrMetallicRoughness.baseColorFactor[%d] = %v outside 0..1", path, j, v)
				}
			}
		}
		if f := m.EmissiveFactor; f != nil {
			if len(f) != 3 {
				return fmt.Errorf("%s.emissiveFactor has %d numbers, want 3", path, len(f))
			}
			for j, v := range f {
				if !(v >= 0 && v <= 1) {
					return fmt.Errorf("%s.emissiveFactor[%d] = %v outside 0..1", path, j, v)
				}
			}
		}
		if a := m.AlphaMode; a != nil && *a != "OPAQUE" && *a != "MASK" && *a != "BLEND" {
			return fmt.Errorf("%s.alphaMode %q: want OPAQUE, MASK or BLEND", path, truncate(*a))
		}
	}
	return nil
}

// checkNulls rejects null entries in the document's arrays (JSON null
// decodes as a nil pointer).
func (l *gltfLoader) checkNulls() error {
	d := l.doc
	for _, c := range []struct {
		name string
		n    int
		nil  func(i int) bool
	}{
		{"accessors", len(d.Accessors), func(i int) bool { return d.Accessors[i] == nil }},
		{"bufferViews", len(d.BufferViews), func(i int) bool { return d.BufferViews[i] == nil }},
		{"buffers", len(d.Buffers), func(i int) bool { return d.Buffers[i] == nil }},
		{"meshes", len(d.Meshes), func(i int) bool { return d.Meshes[i] == nil }},
		{"nodes", len(d.Nodes), func(i int) bool { return d.Nodes[i] == nil }},
		{"materials", len(d.Materials), func(i int) bool { return d.Materials[i] == nil }},
		{"textures", len(d.Textures), func(i int) bool { return d.Textures[i] == nil }},
		{"images", len(d.Images), func(i int) bool { return d.Images[i] == nil }},
		{"samplers", len(d.Samplers), func(i int) bool { return d.Samplers[i] == nil }},
		{"scenes", len(d.Scenes), func(i int) bool { return d.Scenes[i] == nil }},
		{"cameras", len(d.Cameras), func(i int) bool { return d.Cameras[i] == nil }},
	} {
		for i := 0; i < c.n; i++ {
			if c.nil(i) {
				return fmt.Errorf("%s[%d] is null", c.name, i)
			}
		}
	}
	for i, me := range d.Meshes {
		for j, p := range me.Primitives {
			if p == nil {
				return fmt.Errorf("meshes[%d].primitives[%d] is null", i, j)
			}
		}
	}
	return nil
}

// modelCamera checks and converts a glTF camera.
func modelCamera(gc *gltf.Camera, path string) (ModelCamera, error) {
	c := ModelCamera{Name: gc.Name}
	usable := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && math.Abs(v) < 1e30 }
	switch {
	case gc.Perspective != nil:
		p := gc.Perspective
		if !usable(p.Yfov) || p.Yfov <= 0 || p.Yfov >= math.Pi {
			return c, fmt.Errorf("%s.perspective.yfov %v must be in (0, π)", path, p.Yfov)
		}
		if !usable(p.Znear) || p.Znear <= 0 {
			return c, fmt.Errorf("%s.perspective.znear %v must be > 0", path, p.Znear)
		}
		c.Yfov, c.Znear = float32(p.Yfov), float32(p.Znear)
		if p.Zfar != nil {
			if !usable(*p.Zfar) || *p.Zfar <= p.Znear {
				return c, fmt.Errorf("%s.perspective.zfar %v must be > znear", path, *p.Zfar)
			}
			c.Zfar = float32(*p.Zfar)
		}
		if p.AspectRatio != nil {
			if !usable(*p.AspectRatio) || *p.AspectRatio <= 0 {
				return c, fmt.Errorf("%s.perspective.aspectRatio %v must be > 0", path, *p.AspectRatio)
			}
			c.AspectRatio = float32(*p.AspectRatio)
		}
	case gc.Orthographic != nil:
		o := gc.Orthographic
		for _, f := range []struct {
			name string
			v    float64
		}{{"xmag", o.Xmag}, {"ymag", o.Ymag}, {"znear", o.Znear}, {"zfar", o.Zfar}} {
			if !usable(f.v) {
				return c, fmt.Errorf("%s.orthographic.%s %v is not a usable number", path, f.name, f.v)
			}
		}
		if o.Xmag == 0 || o.Ymag == 0 || o.Znear < 0 || o.Zfar <= o.Znear {
			return c, fmt.Errorf("%s.orthographic: xmag and ymag must not be 0, and 0 ≤ znear < zfar", path)
		}
		c.Orthographic = true
		c.Xmag, c.Ymag, c.Znear, c.Zfar = float32(o.Xmag), float32(o.Ymag), float32(o.Znear), float32(o.Zfar)
	default:
		return c, fmt.Errorf("%s has neither perspective nor orthographic", path)
	}
	return c, nil
}

// generateTangents gives a triangle primitive per-vertex tangents from its
// texture coordinates (for normal maps, when the file has no TANGENT): each
// triangle's tangent and bitangent are the directions in which u and v
// grow across it; they are summed at the vertices, made orthogonal to the
// normal, and the bitangent's handedness goes in w. uvOff is the offset
// in the vertex of the normal map's texture coordinates. Degenerate UVs leave a
// tangent orthogonal to the normal.
func generateTangents(p *Primitive, uvOff int) {
	nv := len(p.Vertices) / ModelVertexFloats
	tan := make([][3]float32, nv)
	bit := make([][3]float32, nv)
	at := func(k int) int {
		if p.Indices != nil {
			return int(p.Indices[k])
		}
		return k
	}
	var tris [][3]int
	n := p.Count()
	switch p.Mode {
	case gl.TRIANGLES:
		for k := 0; k+2 < n; k += 3 {
			tris = append(tris, [3]int{at(k), at(k + 1), at(k + 2)})
		}
	case gl.TRIANGLE_STRIP:
		for k := 0; k+2 < n; k++ {
			if k%2 == 0 {
				tris = append(tris, [3]int{at(k), at(k + 1), at(k + 2)})
			} else {
				tris = append(tris, [3]int{at(k + 1), at(k), at(k + 2)})
			}
		}
	case gl.TRIANGLE_FAN:
		for k := 1; k+1 < n; k++ {
			tris = append(tris, [3]int{at(0), at(k), at(k + 1)})
		}
	}
	vert := func(i int) []float32 { return p.Vertices[i*ModelVertexFloats : (i+1)*ModelVertexFloats] }
	for _, t := range tris {
		a, b, c := vert(t[0]), vert(t[1]), vert(t[2])
		e1 := [3]float32{b[0] - a[0], b[1] - a[1], b[2] - a[2]}
		e2 := [3]float32{c[0] - a[0], c[1] - a[1], c[2] - a[2]}
		du1, dv1 := b[uvOff]-a[uvOff], b[uvOff+1]-a[uvOff+1]
		du2, dv2 := c[uvOff]-a[uvOff], c[uvOff+1]-a[uvOff+1]
		det := du1*dv2 - du2*dv1
		if det == 0 {
			continue
		}
		r := 1 / det
		var tu, tv [3]float32
		for j := 0; j < 3; j++ {
			tu[j] = (e1[j]*dv2 - e2[j]*dv1) * r
			tv[j] = (e2[j]*du1 - e1[j]*du2) * r
		}
		for _, i := range t {
			for j := 0; j < 3; j++ {
				tan[i][j] += tu[j]
				bit[i][j] += tv[j]
			}
		}
	}
	for i := 0; i < nv; i++ {
		v := vert(i)
		nrm := [3]float32{v[3], v[4], v[5]}
		t := tan[i]
		d := t[0]*nrm[0] + t[1]*nrm[1] + t[2]*nrm[2]
		t = [3]float32{t[0] - nrm[0]*d, t[1] - nrm[1]*d, t[2] - nrm[2]*d}
		if t[0]*t[0]+t[1]*t[1]+t[2]*t[2] < 1e-12 {
			// No usable UV gradient: any direction orthogonal to the normal.
			ax := [3]float32{1, 0, 0}
			if math.Abs(float64(nrm[0])) > 0.9 {
				ax = [3]float32{0, 1, 0}
			}
			t = cross(nrm, ax)
		}
		t = normalize(t)
		// glTF's bitangent, cross(normal, tangent)·w, points where v
		// falls (the normal map's +Y is up in the image, and v grows down).
		w := float32(1)
		if c := cross(nrm, t); c[0]*bit[i][0]+c[1]*bit[i][1]+c[2]*bit[i][2] > 0 {
			w = -1
		}
		v[12], v[13], v[14], v[15] = t[0], t[1], t[2], w
	}
	p.Tangents = true
}

// loadSkins reads the skins: joint nodes and inverse bind matrices.
func (l *gltfLoader) loadSkins() error {
	for i, gs := range l.doc.Skins {
		path := fmt.Sprintf("skins[%d]", i)
		if gs == nil {
			return fmt.Errorf("%s is null", path)
		}
		if len(gs.Joints) == 0 || len(gs.Joints) > maxJoints {
			return fmt.Errorf("%s.joints: %d joints, want 1..%d", path, len(gs.Joints), maxJoints)
		}
		sk := Skin{Name: gs.Name, Joints: make([]int, len(gs.Joints)), InverseBind: make([]vmath.Mat4, len(gs.Joints))}
		for k, j := range gs.Joints {
			if j < 0 || j >= len(l.doc.Nodes) {
				return fmt.Errorf("%s.joints[%d] = %d out of range (have %d nodes)", path, k, j, len(l.doc.Nodes))
			}
			sk.Joints[k] = j
			sk.InverseBind[k] = vmath.Identity()
		}
		if gs.InverseBindMatrices != nil {
			f, comps, err := l.accessorFloats(*gs.InverseBindMatrices, path+".inverseBindMatrices")
			if err != nil {
				return err
			}
			if comps != 16 || len(f) != 16*len(gs.Joints) {
				return fmt.Errorf("%s.inverseBindMatrices: want one MAT4 per joint (%d)", path, len(gs.Joints))
			}
			for k := range sk.InverseBind {
				copy(sk.InverseBind[k][:], f[16*k:])
			}
		}
		l.model.Skins = append(l.model.Skins, sk)
	}
	skinned := 0
	for _, in := range l.model.Instances {
		if in.Skin < 0 {
			continue
		}
		for _, p := range l.model.Meshes[in.Mesh].Primitives {
			skinned += len(p.Vertices) / ModelVertexFloats
		}
		if skinned > maxSkinnedVertices {
			return fmt.Errorf("skinned instances have more than %d vertices in all (each instance is posed separately)", maxSkinnedVertices)
		}
		nj := len(l.model.Skins[in.Skin].Joints)
		for pi, p := range l.model.Meshes[in.Mesh].Primitives {
			for k, j := range p.Joints {
				if int(j) >= nj {
					return fmt.Errorf("meshes[%d].primitives[%d].attributes.JOINTS_0: element %d uses joint %d of skin %d's %d", in.Mesh, pi, k/4, j, in.Skin, nj)
				}
			}
		}
	}
	return nil
}

// maxSkinnedVertices bounds the vertices Pose copies for skinned instances
// (about 150 MB of vertex data).
const maxSkinnedVertices = 1 << 21

// maxJoints bounds a skin's joints (each costs a matrix per posed vertex
// weight lookup; real skins have tens to a few hundred).
const maxJoints = 1 << 12

// loadAnimations reads every animation's node channels (translation,
// rotation, scale; morph-target weights are not drawn and are skipped).
func (l *gltfLoader) loadAnimations() error {
	for i, ga := range l.doc.Animations {
		path := fmt.Sprintf("animations[%d]", i)
		if ga == nil {
			return fmt.Errorf("%s is null", path)
		}
		an := Animation{Name: ga.Name}
		for c, ch := range ga.Channels {
			cp := fmt.Sprintf("%s.channels[%d]", path, c)
			if ch == nil {
				return fmt.Errorf("%s is null", cp)
			}
			if ch.Target.Node == nil {
				continue // the channel targets an extension's object
			}
			node := *ch.Target.Node
			if node < 0 || node >= len(l.doc.Nodes) {
				return fmt.Errorf("%s.target.node %d out of range (have %d nodes)", cp, node, len(l.doc.Nodes))
			}
			var comps int
			var target AnimPath
			switch ch.Target.Path {
			case gltf.TRSTranslation:
				comps, target = 3, PathTranslation
			case gltf.TRSScale:
				comps, target = 3, PathScale
			case gltf.TRSRotation:
				comps, target = 4, PathRotation
			default:
				continue // weights
			}
			if ch.Sampler < 0 || ch.Sampler >= len(ga.Samplers) || ga.Samplers[ch.Sampler] == nil {
				return fmt.Errorf("%s.sampler %d out of range (have %d)", cp, ch.Sampler, len(ga.Samplers))
			}
			gs := ga.Samplers[ch.Sampler]
			sp := fmt.Sprintf("%s.samplers[%d]", path, ch.Sampler)
			times, tc, err := l.accessorFloats(gs.Input, sp+".input")
			if err != nil {
				return err
			}
			if tc != 1 {
				return fmt.Errorf("%s.input: want SCALAR times", sp)
			}
			for k := 1; k < len(times); k++ {
				if !(times[k] > times[k-1]) {
					return fmt.Errorf("%s.input: times must increase (element %d = %v after %v)", sp, k, times[k], times[k-1])
				}
			}
			vals, vc, err := l.accessorFloats(gs.Output, sp+".output")
			if err != nil {
				return err
			}
			per := 1
			if gs.Interpolation == gltf.InterpolationCubicSpline {
				per = 3
			}
			if vc != comps || len(vals) != per*comps*len(times) {
				return fmt.Errorf("%s.output: %d values of %d components for %d times, want %d of %d", sp, len(vals)/max(vc, 1), vc, len(times), per*len(times), comps)
			}
			an.Channels = append(an.Channels, AnimChannel{Node: node, Path: target, Interp: Interpolation(gs.Interpolation),
				Times: times, Values: vals})
			an.Duration = max(an.Duration, times[len(times)-1])
		}
		l.model.Animations = append(l.model.Animations, an)
	}
	return nil
}

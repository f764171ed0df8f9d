package scene

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/internal/vmath"
)

// Model is a loaded scene ready for DrawModel: meshes made of primitives,
// the instances that place meshes in the world (a glTF node with a mesh, or
// the single instance of an OBJ or STL file), and the materials, textures
// and images the primitives use. Texture coordinates follow glTF: (0,0) is
// the top-left corner of the image. A Model is plain data; it is safe to read
// from several goroutines and to change between draws.
type Model struct {
	Meshes    []ModelMesh
	Instances []Instance
	Materials []Material
	Textures  []Texture
	Images    []*image.NRGBA // decoded texture images, top row first
	Cameras   []ModelCamera  // the glTF cameras placed by the default scene's nodes
	// Nodes, Skins and Animations keep a glTF file's node hierarchy, so
	// that Pose can place it at another time; other formats have none.
	Nodes      []ModelNode
	Skins      []Skin
	Animations []Animation
	Min, Max   [3]float32 // world-space bounding box of all instances
}

// ModelCamera is a glTF camera where its node puts it: it looks down its
// local -Z with +Y up.
type ModelCamera struct {
	Name         string
	Node         int        // index into Model.Nodes
	World        vmath.Mat4 // camera space to world space
	Orthographic bool
	// Perspective: vertical field of view in radians and the aspect ratio
	// (0: the framebuffer's). Zfar 0 is an infinite far plane.
	Yfov, AspectRatio float32
	// Orthographic: half the view's width and height.
	Xmag, Ymag  float32
	Znear, Zfar float32
}

// ModelMesh is a named list of primitives (a glTF mesh).
type ModelMesh struct {
	Name       string
	Primitives []Primitive
}

// ModelVertexFloats is the number of float32s per vertex in
// Primitive.Vertices: position xyz, normal xyz, texture coordinate st,
// colour rgba, tangent xyzw (w: the bitangent's sign; meaningful when
// Primitive.Tangents is set), second texture coordinate st (glTF's
// TEXCOORD_1).
const ModelVertexFloats = 18

// Primitive is one draw call's geometry: interleaved vertices and optional
// indices, drawn with one material.
type Primitive struct {
	Mode     gl.Enum   // gl.TRIANGLES, gl.TRIANGLE_STRIP, gl.LINES, gl.POINTS, ...
	Vertices []float32 // ModelVertexFloats per vertex
	// Indices, when not nil, index Vertices; IndexType is the GL type they
	// are uploaded as (the file's: gl.UNSIGNED_BYTE, _SHORT or _INT), so
	// every value fits it.
	Indices   []uint32
	IndexType gl.Enum
	Material  int  // index into Model.Materials
	Lit       bool // false for points and lines, which have no surface to light
	Tangents  bool // the vertices carry tangents (from the file or generated)
	// Joints and Weights (4 per vertex, JOINTS_0 and WEIGHTS_0) skin the
	// primitive when its instance has a skin; nil otherwise.
	Joints  []uint16
	Weights []float32
	// Positions is the vertex count the file declared (the POSITION
	// accessor's count); it differs from len(Vertices)/ModelVertexFloats
	// only where flat normals had to be made by unwelding triangles.
	Positions int
	Min, Max  [3]float32 // bounding box of the positions, in mesh space
}

// Instance places a mesh in the world.
type Instance struct {
	Mesh  int        // index into Model.Meshes
	Name  string     // the glTF node's name
	World vmath.Mat4 // mesh space to world space
	Node  int        // index into Model.Nodes; -1 when the model has no nodes
	Skin  int        // index into Model.Skins; -1 when not skinned
}

// Material is glTF's metallic-roughness material as DrawModel shades it.
// Texture fields index Model.Textures; -1 means none. Colours are linear.
type Material struct {
	Name      string
	BaseColor [4]float32 // RGBA factor (× texture × vertex colour)
	// BaseColorTexture is sRGB RGBA.
	BaseColorTexture int
	Metallic         float32 // factor, 0..1 (× texture blue)
	Roughness        float32 // factor, 0..1 (× texture green)
	// MetallicRoughnessTexture holds roughness in green and metalness in blue.
	MetallicRoughnessTexture int
	// NormalTexture is a tangent-space normal map; NormalScale scales its
	// X and Y. Primitives without TANGENT get generated tangents.
	NormalTexture int
	NormalScale   float32
	// OcclusionTexture's red channel darkens the ambient term by
	// OcclusionStrength.
	OcclusionTexture  int
	OcclusionStrength float32
	EmissiveTexture   int
	Emissive          [3]float32 // factor (× texture)
	AlphaMode         AlphaMode
	AlphaCutoff       float32 // AlphaMask: fragments with alpha below it are discarded
	DoubleSided       bool    // false: back faces are culled
	Unlit             bool    // KHR_materials_unlit: the base colour only, no lighting
	// UV holds each texture's KHR_texture_transform, indexed by TextureSlot.
	UV [NumTextureSlots]UVTransform
	// TexCoord is each texture's coordinate set: 0 (the vertex's first st)
	// or 1 (its second).
	TexCoord [NumTextureSlots]int
}

// AlphaMode is glTF's material.alphaMode.
type AlphaMode uint8

const (
	AlphaOpaque AlphaMode = iota // alpha ignored
	AlphaMask                    // alpha tested against AlphaCutoff
	AlphaBlend                   // blended "over", drawn after opaque primitives, back to front
)

func (a AlphaMode) String() string { return [...]string{"OPAQUE", "MASK", "BLEND"}[a] }

// TextureSlot names a material texture.
type TextureSlot int

const (
	SlotBaseColor TextureSlot = iota
	SlotMetallicRoughness
	SlotNormal
	SlotOcclusion
	SlotEmissive
	NumTextureSlots
)

// UVTransform maps texture coordinates: u' = M[0]·u + M[2]·v + M[4],
// v' = M[1]·u + M[3]·v + M[5] (KHR_texture_transform's offset, rotation
// and scale, in that order of application reversed: T·R·S).
type UVTransform struct{ M [6]float32 }

// IdentityUV leaves texture coordinates unchanged.
var IdentityUV = UVTransform{M: [6]float32{1, 0, 0, 1, 0, 0}}

// plasticMaterial is the material of OBJ and STL models, which carry none:
// a white dielectric of medium roughness.
func plasticMaterial() Material {
	m := DefaultMaterial()
	m.Metallic, m.Roughness = 0, 0.6
	return m
}

// DefaultMaterial is glTF's default material: opaque white, fully metallic
// and rough (the glTF defaults of the factors), single-sided, untextured.
func DefaultMaterial() Material {
	m := Material{Name: "default", BaseColor: [4]float32{1, 1, 1, 1}, Metallic: 1, Roughness: 1,
		BaseColorTexture: -1, MetallicRoughnessTexture: -1, NormalTexture: -1, OcclusionTexture: -1, EmissiveTexture: -1,
		NormalScale: 1, OcclusionStrength: 1, AlphaCutoff: 0.5}
	for i := range m.UV {
		m.UV[i] = IdentityUV
	}
	return m
}

// Texture is an image with its sampler state, as GL enums.
type Texture struct {
	Name                 string
	Image                int     // index into Model.Images
	WrapS, WrapT         gl.Enum // gl.REPEAT, gl.CLAMP_TO_EDGE or gl.MIRRORED_REPEAT
	MinFilter, MagFilter gl.Enum
}

// MeshCounts returns the triangles and vertices the file declares, counted
// once per mesh (not per instance): triangles of TRIANGLES, TRIANGLE_STRIP
// and TRIANGLE_FAN primitives, and POSITION counts summed over primitives.
func (m *Model) MeshCounts() (triangles, vertices int) {
	for _, me := range m.Meshes {
		for _, p := range me.Primitives {
			triangles += p.Triangles()
			vertices += p.Positions
		}
	}
	return triangles, vertices
}

// DrawnTriangles returns the triangles DrawModel submits: every mesh's
// triangles once per instance.
func (m *Model) DrawnTriangles() int {
	n := 0
	for _, in := range m.Instances {
		for _, p := range m.Meshes[in.Mesh].Primitives {
			n += p.Triangles()
		}
	}
	return n
}

// Count returns the number of vertices the primitive draws (indices, or
// vertices when it has none).
func (p *Primitive) Count() int {
	if p.Indices != nil {
		return len(p.Indices)
	}
	return len(p.Vertices) / ModelVertexFloats
}

// Triangles returns the number of triangles the primitive draws (0 for
// points and lines).
func (p *Primitive) Triangles() int {
	n := p.Count()
	switch p.Mode {
	case gl.TRIANGLES:
		return n / 3
	case gl.TRIANGLE_STRIP, gl.TRIANGLE_FAN:
		return max(n-2, 0)
	}
	return 0
}

// computeBounds sets every primitive's mesh-space bounds and the model's
// world-space bounds (the instances' transformed primitive boxes).
func (m *Model) computeBounds() {
	inf := float32(math.Inf(1))
	m.Min = [3]float32{inf, inf, inf}
	m.Max = [3]float32{-inf, -inf, -inf}
	for mi := range m.Meshes {
		for pi := range m.Meshes[mi].Primitives {
			p := &m.Meshes[mi].Primitives[pi]
			p.Min = [3]float32{inf, inf, inf}
			p.Max = [3]float32{-inf, -inf, -inf}
			for i := 0; i+2 < len(p.Vertices); i += ModelVertexFloats {
				for j := 0; j < 3; j++ {
					p.Min[j] = min(p.Min[j], p.Vertices[i+j])
					p.Max[j] = max(p.Max[j], p.Vertices[i+j])
				}
			}
		}
	}
	for _, in := range m.Instances {
		for _, p := range m.Meshes[in.Mesh].Primitives {
			if p.Min[0] > p.Max[0] {
				continue
			}
			for c := 0; c < 8; c++ {
				corner := [3]float32{p.Min[0], p.Min[1], p.Min[2]}
				for j := 0; j < 3; j++ {
					if c&(1<<j) != 0 {
						corner[j] = p.Max[j]
					}
				}
				w := transformPoint(in.World, corner)
				for j := 0; j < 3; j++ {
					m.Min[j] = min(m.Min[j], w[j])
					m.Max[j] = max(m.Max[j], w[j])
				}
			}
		}
	}
	if m.Min[0] > m.Max[0] {
		m.Min, m.Max = [3]float32{}, [3]float32{}
	}
}

// ModelFromMesh wraps an OBJ mesh as a Model with one instance and one
// material: white, textured with tex when tex is not nil (repeat wrapping,
// trilinear filtering). OBJ's t = 0 is the image's bottom row, so t is
// flipped to glTF's convention.
func ModelFromMesh(mesh *Mesh, tex image.Image) *Model {
	p := Primitive{Mode: gl.TRIANGLES, IndexType: gl.UNSIGNED_INT, Lit: true}
	n := len(mesh.Vertices) / 8
	p.Positions = mesh.Positions
	if p.Positions == 0 {
		p.Positions = n
	}
	p.Vertices = make([]float32, 0, n*ModelVertexFloats)
	for i := 0; i < n; i++ {
		v := mesh.Vertices[i*8 : i*8+8]
		p.Vertices = append(p.Vertices, v[0], v[1], v[2], v[3], v[4], v[5], v[6], 1-v[7], 1, 1, 1, 1, 0, 0, 0, 1, 0, 0)
	}
	p.Indices = append([]uint32(nil), mesh.Indices...)
	m := &Model{
		Meshes:    []ModelMesh{{Name: "mesh", Primitives: []Primitive{p}}},
		Instances: []Instance{{Mesh: 0, World: vmath.Identity(), Node: -1, Skin: -1}},
		Materials: []Material{plasticMaterial()},
	}
	if tex != nil {
		m.Images = []*image.NRGBA{toNRGBA(tex)}
		m.Textures = []Texture{{Name: "texture", Image: 0, WrapS: gl.REPEAT, WrapT: gl.REPEAT,
			MinFilter: gl.LINEAR_MIPMAP_LINEAR, MagFilter: gl.LINEAR}}
		m.Materials[0].BaseColorTexture = 0
	}
	m.computeBounds()
	return m
}

// toNRGBA converts any image to non-premultiplied RGBA with its origin at
// (0,0), the layout TexImage2D uploads.
func toNRGBA(img image.Image) *image.NRGBA {
	if n, ok := img.(*image.NRGBA); ok && n.Rect.Min == (image.Point{}) && n.Stride == 4*n.Rect.Dx() {
		return n
	}
	b := img.Bounds()
	n := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(n, n.Bounds(), img, b.Min, draw.Src)
	return n
}

// LoadModelFile loads a model by its file name's extension: .gltf (JSON,
// with data: URIs or files beside it), .glb, .stl (binary) or .obj. An OBJ
// model is untextured; use ModelFromMesh to give it a texture.
func LoadModelFile(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	external := func(uri string) ([]byte, error) { return readBeside(dir, uri) }
	var m *Model
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".gltf", ".glb":
		m, err = loadGLTF(data, external)
	case ".stl":
		m, err = LoadSTL(bytes.NewReader(data))
	case ".obj":
		var mesh *Mesh
		if mesh, err = LoadOBJ(bytes.NewReader(data)); err == nil {
			m = ModelFromMesh(mesh, nil)
		}
	default:
		return nil, fmt.Errorf("scene: %s: unknown model format %q (want .gltf, .glb, .stl or .obj)", path, ext)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// readBeside reads a glTF file's relative URI from the directory holding it.
// URIs that are absolute or climb out of that directory are refused: a model
// file should not be able to read arbitrary files.
func readBeside(dir, uri string) ([]byte, error) {
	p, err := unescapeURI(uri)
	if err != nil {
		return nil, err
	}
	if strings.Contains(p, ":") || !filepath.IsLocal(filepath.FromSlash(p)) {
		return nil, fmt.Errorf("URI %q is not a relative path inside the model's directory", uri)
	}
	return os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
}

// unescapeURI decodes %XX escapes in a relative URI reference.
func unescapeURI(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) || unhex(s[i+1]) < 0 || unhex(s[i+2]) < 0 {
			return "", fmt.Errorf("URI %q: bad %% escape", s)
		}
		b.WriteByte(byte(unhex(s[i+1])<<4 | unhex(s[i+2])))
		i += 2
	}
	return b.String(), nil
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// transformPoint returns m·(p, 1) without the projective divide.
func transformPoint(m vmath.Mat4, p [3]float32) [3]float32 {
	var r [3]float32
	for i := 0; i < 3; i++ {
		r[i] = m[i]*p[0] + m[4+i]*p[1] + m[8+i]*p[2] + m[12+i]
	}
	return r
}

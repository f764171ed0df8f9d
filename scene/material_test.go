package scene

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/ext/texturetransform"
	"github.com/qmuntal/gltf/ext/unlit"
	"github.com/qmuntal/gltf/modeler"

	"github.com/tilegpu/tilegpu"
)

// The material tests build their models with qmuntal/gltf and check pixels
// whose values follow from the glTF specification and the shading model
// documented in draw.go: unlit colours are the factors themselves, an
// emissive black metal shows its emissive factor, blending follows the
// "over" operator in back-to-front order, and so on. Each quad faces +Z,
// spans -1..1 with glTF's UV (0,0) at its top-left, and is seen face on.

// background is the clear colour DrawModelView uses, as stored.
var background = [3]int{46, 51, 61}

// quadDoc is a document under construction: each addQuad adds a mesh with
// one quad primitive at depth z and a node for it.
type quadDoc struct {
	doc *gltf.Document
}

func newQuadDoc() *quadDoc {
	return &quadDoc{doc: gltf.NewDocument()}
}

func (q *quadDoc) addMaterial(m *gltf.Material) int {
	q.doc.Materials = append(q.doc.Materials, m)
	return len(q.doc.Materials) - 1
}

func (q *quadDoc) addQuad(z float32, material int) {
	d := q.doc
	pos := modeler.WritePosition(d, [][3]float32{{-1, 1, z}, {1, 1, z}, {-1, -1, z}, {1, -1, z}})
	nrm := modeler.WriteNormal(d, [][3]float32{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}})
	uv := modeler.WriteTextureCoord(d, [][2]float32{{0, 0}, {1, 0}, {0, 1}, {1, 1}})
	idx := modeler.WriteIndices(d, []uint16{2, 3, 1, 2, 1, 0})
	d.Meshes = append(d.Meshes, &gltf.Mesh{Primitives: []*gltf.Primitive{{
		Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos, gltf.NORMAL: nrm, gltf.TEXCOORD_0: uv},
		Indices:    gltf.Index(idx),
		Material:   gltf.Index(material),
	}}})
	d.Nodes = append(d.Nodes, &gltf.Node{Mesh: gltf.Index(len(d.Meshes) - 1)})
	d.Scenes[0].Nodes = append(d.Scenes[0].Nodes, len(d.Nodes)-1)
}

// addTexture adds img as a PNG texture with nearest filtering and
// clamping, returning the texture index.
func (q *quadDoc) addTexture(t *testing.T, img image.Image) int {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	im, err := modeler.WriteImage(q.doc, "tex", "image/png", &b)
	if err != nil {
		t.Fatal(err)
	}
	q.doc.Samplers = append(q.doc.Samplers, &gltf.Sampler{MagFilter: gltf.MagNearest, MinFilter: gltf.MinNearest, WrapS: gltf.WrapClampToEdge, WrapT: gltf.WrapClampToEdge})
	q.doc.Textures = append(q.doc.Textures, &gltf.Texture{Source: gltf.Index(im), Sampler: gltf.Index(len(q.doc.Samplers) - 1)})
	return len(q.doc.Textures) - 1
}

// load encodes the document as a .glb and loads it back.
func (q *quadDoc) load(t *testing.T) *Model {
	t.Helper()
	m, err := loadDoc(q)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func loadDoc(q *quadDoc) (*Model, error) {
	var b bytes.Buffer
	if err := gltf.NewEncoder(&b).Encode(q.doc); err != nil {
		return nil, err
	}
	return LoadGLTF(&b)
}

func unlitMaterial(r, g, b, a float64) *gltf.Material {
	return &gltf.Material{
		PBRMetallicRoughness: &gltf.PBRMetallicRoughness{BaseColorFactor: &[4]float64{r, g, b, a}},
		Extensions:           gltf.Extensions{unlit.ExtensionName: unlit.Unlit{}},
	}
}

func rgb(c color.NRGBA) [3]int { return [3]int{int(c.R), int(c.G), int(c.B)} }

func near(got, want [3]int, tol int) bool {
	for i := range got {
		if abs(got[i]-want[i]) > tol {
			return false
		}
	}
	return true
}

// quantize is how a colour in 0..1 is stored in the RGBA8 framebuffer.
func quantize(v ...float64) [3]int {
	var out [3]int
	for i := range out {
		out[i] = int(math.Round(v[i] * 255))
	}
	return out
}

const matSize = 64

func renderFront(t *testing.T, m *Model) *image.NRGBA {
	t.Helper()
	img, _ := renderModel(t, m, matSize, View{})
	return img
}

func TestUnlitMaterial(t *testing.T) {
	q := newQuadDoc()
	q.addQuad(0, q.addMaterial(unlitMaterial(0.2, 0.6, 1, 1)))
	m := q.load(t)
	if !m.Materials[0].Unlit {
		t.Fatal("KHR_materials_unlit not read")
	}
	img := renderFront(t, m)
	if got, want := rgb(img.NRGBAAt(matSize/2, matSize/2)), quantize(0.2, 0.6, 1); !near(got, want, 1) {
		t.Errorf("unlit quad %v, want the base colour factor %v", got, want)
	}
}

// TestEmissive: a black, fully metallic, fully rough surface reflects
// nothing (F0 = base colour = 0; the Schlick term is below 1e-4 here), so
// the pixel is the emissive factor.
func TestEmissive(t *testing.T) {
	q := newQuadDoc()
	q.addQuad(0, q.addMaterial(&gltf.Material{
		PBRMetallicRoughness: &gltf.PBRMetallicRoughness{BaseColorFactor: &[4]float64{0, 0, 0, 1}, MetallicFactor: gltf.Float(1), RoughnessFactor: gltf.Float(1)},
		EmissiveFactor:       [3]float64{0.5, 0.25, 1},
	}))
	img := renderFront(t, q.load(t))
	if got, want := rgb(img.NRGBAAt(matSize/2, matSize/2)), quantize(0.5, 0.25, 1); !near(got, want, 2) {
		t.Errorf("emissive black metal %v, want the emissive factor %v", got, want)
	}
}

// TestAlphaMask: MASK discards fragments whose alpha is below alphaCutoff
// and draws the rest opaque.
func TestAlphaMask(t *testing.T) {
	for _, tc := range []struct {
		cutoff float64
		want   [3]int
	}{
		{0.5, background},        // alpha 0.4 < 0.5: discarded
		{0.3, quantize(1, 1, 0)}, // alpha 0.4 ≥ 0.3: drawn, opaque
		{0.4, quantize(1, 1, 0)}, // equal passes
	} {
		q := newQuadDoc()
		mat := unlitMaterial(1, 1, 0, 0.4)
		mat.AlphaMode, mat.AlphaCutoff = gltf.AlphaMask, gltf.Float(tc.cutoff)
		q.addQuad(0, q.addMaterial(mat))
		img := renderFront(t, q.load(t))
		c := img.NRGBAAt(matSize/2, matSize/2)
		if got := rgb(c); !near(got, tc.want, 1) || c.A != 255 {
			t.Errorf("cutoff %v: pixel %v, want %v opaque", tc.cutoff, c, tc.want)
		}
	}
}

// TestAlphaBlendSorted: two half-transparent quads, the near green one
// first in the file. Drawn back to front, "over" gives
// green·½ + (red·½ + bg·½)·½; in file order it would be
// red·½ + (green·½ + bg·½)·½. An opaque quad behind both stays visible
// through them (opaque primitives go first, and blended ones do not write
// depth).
func TestAlphaBlendSorted(t *testing.T) {
	q := newQuadDoc()
	green := unlitMaterial(0, 1, 0, 0.5)
	green.AlphaMode = gltf.AlphaBlend
	red := unlitMaterial(1, 0, 0, 0.5)
	red.AlphaMode = gltf.AlphaBlend
	q.addQuad(0.05, q.addMaterial(green))
	q.addQuad(0, q.addMaterial(red))
	m := q.load(t)
	if m.Materials[0].AlphaMode != AlphaBlend {
		t.Fatalf("alpha mode %v", m.Materials[0].AlphaMode)
	}
	img := renderFront(t, m)
	bg := [3]float64{float64(background[0]) / 255, float64(background[1]) / 255, float64(background[2]) / 255}
	var want [3]float64
	for i := range want {
		r := []float64{1, 0, 0}[i]*0.5 + bg[i]*0.5
		want[i] = []float64{0, 1, 0}[i]*0.5 + r*0.5
	}
	if got, w := rgb(img.NRGBAAt(matSize/2, matSize/2)), quantize(want[:]...); !near(got, w, 2) {
		t.Errorf("blended quads %v, want back-to-front %v", got, w)
	}
}

// TestTextureTransform: a 2×1 texture, red on the left and green on the
// right, sampled with KHR_texture_transform scale (0.5, 1) and offset
// (0.5, 0): u' = u/2 + 1/2 reads only the green texel, so the quad's left
// side (red without the transform) is green.
func TestTextureTransform(t *testing.T) {
	img2 := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	img2.SetNRGBA(0, 0, color.NRGBA{255, 0, 0, 255})
	img2.SetNRGBA(1, 0, color.NRGBA{0, 255, 0, 255})
	for _, tc := range []struct {
		transform *texturetransform.TextureTranform
		want      [3]int
	}{
		{nil, quantize(1, 0, 0)},
		{&texturetransform.TextureTranform{Offset: [2]float64{0.5, 0}, Scale: [2]float64{0.5, 1}}, quantize(0, 1, 0)},
	} {
		q := newQuadDoc()
		mat := unlitMaterial(1, 1, 1, 1)
		mat.PBRMetallicRoughness.BaseColorTexture = &gltf.TextureInfo{Index: q.addTexture(t, img2)}
		if tc.transform != nil {
			mat.PBRMetallicRoughness.BaseColorTexture.Extensions = gltf.Extensions{texturetransform.ExtensionName: tc.transform}
		}
		q.addQuad(0, q.addMaterial(mat))
		img := renderFront(t, q.load(t))
		if got := rgb(img.NRGBAAt(matSize/4, matSize/2)); !near(got, tc.want, 1) {
			t.Errorf("transform %+v: left side %v, want %v", tc.transform, got, tc.want)
		}
	}
}

// TestMeshQuantization: KHR_mesh_quantization positions as normalized
// shorts (±32767 → ±1) draw the same quad as floats.
func TestMeshQuantization(t *testing.T) {
	q := newQuadDoc()
	d := q.doc
	d.ExtensionsUsed = []string{"KHR_mesh_quantization"}
	d.ExtensionsRequired = []string{"KHR_mesh_quantization"}
	pos := modeler.WriteAccessor(d, gltf.TargetArrayBuffer, [][3]int16{{-32767, 32767, 0}, {32767, 32767, 0}, {-32767, -32767, 0}, {32767, -32767, 0}})
	d.Accessors[pos].Normalized = true
	idx := modeler.WriteIndices(d, []uint16{2, 3, 1, 2, 1, 0})
	mat := q.addMaterial(unlitMaterial(1, 0, 0, 1))
	d.Meshes = append(d.Meshes, &gltf.Mesh{Primitives: []*gltf.Primitive{{
		Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos}, Indices: gltf.Index(idx), Material: gltf.Index(mat),
	}}})
	d.Nodes = append(d.Nodes, &gltf.Node{Mesh: gltf.Index(0)})
	d.Scenes[0].Nodes = []int{0}
	m := q.load(t)
	if m.Max != [3]float32{1, 1, 0} || m.Min != [3]float32{-1, -1, 0} {
		t.Errorf("bounds %v..%v, want -1..1", m.Min, m.Max)
	}
	img := renderFront(t, m)
	if got := rgb(img.NRGBAAt(matSize/2, matSize/2)); !near(got, quantize(1, 0, 0), 1) {
		t.Errorf("quantized quad %v, want red", got)
	}
}

// TestGeneratedTangents: the quad's texture u grows along +X and v along
// -Y, so the generated tangent is +X and, with glTF's bitangent
// cross(normal, tangent)·w pointing where v falls (+Y), w = +1.
func TestGeneratedTangents(t *testing.T) {
	q := newQuadDoc()
	nt := q.addTexture(t, image.NewNRGBA(image.Rect(0, 0, 1, 1)))
	q.addQuad(0, q.addMaterial(&gltf.Material{NormalTexture: &gltf.NormalTexture{Index: gltf.Index(nt)}}))
	p := q.load(t).Meshes[0].Primitives[0]
	if !p.Tangents {
		t.Fatal("no tangents generated for a normal-mapped primitive")
	}
	for v := 0; v < len(p.Vertices); v += ModelVertexFloats {
		if tan := p.Vertices[v+12 : v+16]; tan[0] != 1 || tan[1] != 0 || tan[2] != 0 || tan[3] != 1 {
			t.Errorf("vertex %d: tangent %v, want (1, 0, 0, 1)", v/ModelVertexFloats, tan)
		}
	}
}

// TestNormalMap lights a white quad through a one-texel normal map. The
// light comes from the upper left in front (draw.go), so a map normal
// tilted up (+Y in the map is up in the image) catches more light than the
// flat normal and one tilted down catches none (only the ambient term is
// left); the flat map (128, 128, 255) matches no map at all.
func TestNormalMap(t *testing.T) {
	render := func(normal *color.NRGBA) [3]int {
		q := newQuadDoc()
		mat := &gltf.Material{PBRMetallicRoughness: &gltf.PBRMetallicRoughness{MetallicFactor: gltf.Float(0), RoughnessFactor: gltf.Float(1)}}
		if normal != nil {
			img := image.NewNRGBA(image.Rect(0, 0, 1, 1))
			img.SetNRGBA(0, 0, *normal)
			mat.NormalTexture = &gltf.NormalTexture{Index: gltf.Index(q.addTexture(t, img))}
		}
		q.addQuad(0, q.addMaterial(mat))
		return rgb(renderFront(t, q.load(t)).NRGBAAt(matSize/2, matSize/2))
	}
	none := render(nil)
	flat := render(&color.NRGBA{128, 128, 255, 255})
	up := render(&color.NRGBA{128, 255, 128, 255})
	down := render(&color.NRGBA{128, 0, 128, 255})
	t.Logf("no map %v, flat %v, up %v, down %v", none, flat, up, down)
	if !near(flat, none, 2) {
		t.Errorf("flat normal map %v, want the unmapped %v", flat, none)
	}
	if up[0] <= flat[0]+10 || down[0] >= flat[0]-10 {
		t.Errorf("normal tilted up %v, flat %v, down %v: want up brighter and down darker", up, flat, down)
	}
}

// TestCamera: a camera node at (0, 0, 5) looking down -Z with
// tan(yfov/2) = 0.4 sees 2 units either side of the axis at the quad's
// distance, so the quad (±1) covers the middle half of the frame.
func TestCamera(t *testing.T) {
	q := newQuadDoc()
	q.addQuad(0, q.addMaterial(unlitMaterial(1, 0, 0, 1)))
	d := q.doc
	d.Cameras = []*gltf.Camera{{Perspective: &gltf.Perspective{Yfov: 2 * math.Atan(0.4), Znear: 0.1}}}
	d.Nodes = append(d.Nodes, &gltf.Node{Camera: gltf.Index(0), Translation: [3]float64{0, 0, 5}})
	d.Scenes[0].Nodes = append(d.Scenes[0].Nodes, len(d.Nodes)-1)
	m := q.load(t)
	if len(m.Cameras) != 1 {
		t.Fatalf("%d cameras", len(m.Cameras))
	}
	ctx := newModelContext(t, matSize)
	if _, err := DrawModelCamera(ctx.GL(), m, matSize, matSize, 0); err != nil {
		t.Fatal(err)
	}
	img, err := ctx.Image()
	if err != nil {
		t.Fatal(err)
	}
	red := quantize(1, 0, 0)
	for _, p := range []struct {
		x, y int
		in   bool
	}{{16 + 1, 32, true}, {16 - 2, 32, false}, {48 - 2, 32, true}, {48 + 1, 32, false}, {32, 16 + 1, true}, {32, 16 - 2, false}} {
		got := rgb(img.NRGBAAt(p.x, p.y))
		if p.in != near(got, red, 1) {
			t.Errorf("pixel (%d,%d) = %v, inside the quad: %v", p.x, p.y, got, p.in)
		}
	}
	if _, err := DrawModelCamera(ctx.GL(), m, matSize, matSize, 1); err == nil {
		t.Error("camera 1 of 1 accepted")
	}
}

// newModelContext is a size² context closed when the test ends.
func newModelContext(t *testing.T, size int) *tilegpu.Context {
	t.Helper()
	ctx, err := tilegpu.NewContext(tilegpu.Config{Width: size, Height: size})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Close() })
	return ctx
}

// shadeReference evaluates the shading model documented in draw.go, in
// float64, for a surface facing the camera (n = v = +Z) lit from the
// view-space light direction (-0.4, 0.8, 0.6), as at the centre of a quad
// seen face on.
func shadeReference(base [3]float64, metal, rough float64) [3]float64 {
	norm := func(v [3]float64) [3]float64 {
		l := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
		return [3]float64{v[0] / l, v[1] / l, v[2] / l}
	}
	l := norm([3]float64{-0.4, 0.8, 0.6})
	v := [3]float64{0, 0, 1}
	h := norm([3]float64{l[0] + v[0], l[1] + v[1], l[2] + v[2]})
	nl, nv, nh := math.Max(l[2], 0), 1.0, math.Max(h[2], 0)
	vh := h[0]*v[0] + h[1]*v[1] + h[2]*v[2]
	rough = math.Min(math.Max(rough, 0.04), 1)
	const pi = 3.14159
	a2 := rough * rough * rough * rough
	dd := nh*nh*(a2-1) + 1
	ndf := a2 / (pi * dd * dd)
	k := rough * rough * 0.5
	vis := 0.25 / ((nl*(1-k) + k) * (nv*(1-k) + k))
	r4 := [4]float64{rough*-1 + 1, rough*-0.0275 + 0.0425, rough*-0.572 + 1.04, rough*0.022 - 0.04}
	a004 := math.Min(r4[0]*r4[0], math.Exp2(-9.28*nv))*r4[0] + r4[1]
	abx, aby := -1.04*a004+r4[2], 1.04*a004+r4[3]
	const sky = 1.0      // mix(0.7, 1.3, 0.5): n and the reflection are horizontal
	envSpec := 0.5 * sky // mix(sky, 1, r²) with sky = 1
	var out [3]float64
	for c := range out {
		f0 := 0.04*(1-metal) + base[c]*metal
		diffuse := base[c] * (1 - metal)
		fres := f0 + (1-f0)*math.Pow(1-vh, 5)
		direct := ((1-fres)*diffuse + fres*ndf*vis*pi) * nl * 0.78
		ambient := diffuse*0.22*sky + (f0*abx+aby)*envSpec
		out[c] = math.Min(math.Max(direct+ambient, 0), 1)
	}
	return out
}

// TestMetallicRoughnessReference checks the metallic-roughness shading at
// the centre of a face-on quad against shadeReference, for factors and
// for the same values read from a metallic-roughness texture (blue:
// metalness, green: roughness, times factors of 1).
func TestMetallicRoughnessReference(t *testing.T) {
	base := [3]float64{0.8, 0.3, 0.2}
	for _, tc := range []struct{ metal, rough float64 }{{0, 1}, {0, 0.5}, {0, 0.2}, {1, 0.5}, {1, 1}, {0.4, 0.2}} {
		for _, viaTexture := range []bool{false, true} {
			q := newQuadDoc()
			pbr := &gltf.PBRMetallicRoughness{BaseColorFactor: &[4]float64{base[0], base[1], base[2], 1},
				MetallicFactor: gltf.Float(tc.metal), RoughnessFactor: gltf.Float(tc.rough)}
			metal, rough := tc.metal, tc.rough
			if viaTexture {
				img := image.NewNRGBA(image.Rect(0, 0, 1, 1))
				img.SetNRGBA(0, 0, color.NRGBA{0, uint8(math.Round(tc.rough * 255)), uint8(math.Round(tc.metal * 255)), 255})
				pbr.MetallicRoughnessTexture = &gltf.TextureInfo{Index: q.addTexture(t, img)}
				pbr.MetallicFactor, pbr.RoughnessFactor = gltf.Float(1), gltf.Float(1)
				metal, rough = math.Round(tc.metal*255)/255, math.Round(tc.rough*255)/255
			}
			q.addQuad(0, q.addMaterial(&gltf.Material{PBRMetallicRoughness: pbr}))
			w := shadeReference(base, metal, rough)
			got := rgb(renderFront(t, q.load(t)).NRGBAAt(matSize/2, matSize/2))
			if wq := quantize(w[:]...); !near(got, wq, 2) {
				t.Errorf("metal %v rough %v (texture %v): pixel %v, want %v", tc.metal, tc.rough, viaTexture, got, wq)
			}
		}
	}
}

// TestSecondTexCoordSet: a texture that names TEXCOORD_1 reads the second
// set. TEXCOORD_0 is (0, 0) everywhere (the red texel); TEXCOORD_1 spans
// the quad, so its right half shows the green texel. With texCoord 0 the
// whole quad is red.
func TestSecondTexCoordSet(t *testing.T) {
	img2 := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	img2.SetNRGBA(0, 0, color.NRGBA{255, 0, 0, 255})
	img2.SetNRGBA(1, 0, color.NRGBA{0, 255, 0, 255})
	for _, set := range []int{0, 1} {
		q := newQuadDoc()
		mat := unlitMaterial(1, 1, 1, 1)
		mat.PBRMetallicRoughness.BaseColorTexture = &gltf.TextureInfo{Index: q.addTexture(t, img2), TexCoord: set}
		q.addQuad(0, q.addMaterial(mat))
		d := q.doc
		prim := d.Meshes[0].Primitives[0]
		prim.Attributes[gltf.TEXCOORD_1] = prim.Attributes[gltf.TEXCOORD_0]
		prim.Attributes[gltf.TEXCOORD_0] = modeler.WriteTextureCoord(d, [][2]float32{{0, 0}, {0, 0}, {0, 0}, {0, 0}})
		m := q.load(t)
		want := quantize(1, 0, 0)
		if set == 1 {
			want = quantize(0, 1, 0)
		}
		if got := rgb(renderFront(t, m).NRGBAAt(3*matSize/4, matSize/2)); !near(got, want, 1) {
			t.Errorf("texCoord %d: right half %v, want %v", set, got, want)
		}
	}
	q := newQuadDoc()
	mat := unlitMaterial(1, 1, 1, 1)
	mat.PBRMetallicRoughness.BaseColorTexture = &gltf.TextureInfo{Index: q.addTexture(t, img2), TexCoord: 2}
	q.addQuad(0, q.addMaterial(mat))
	if _, err := loadDoc(q); err == nil || !strings.Contains(err.Error(), "materials[0].pbrMetallicRoughness.baseColorTexture.texCoord 2: only TEXCOORD_0 and TEXCOORD_1 are drawn") {
		t.Errorf("texCoord 2: err %v", err)
	}
}

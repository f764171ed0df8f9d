package scene

import (
	"image"
	"image/color"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/internal/vmath"
)

// renderModel draws m at size×size on a fresh virtual GPU and returns the
// image, top row first.
func renderModel(t *testing.T, m *Model, size int, v View) (*image.NRGBA, Stats) {
	t.Helper()
	ctx, err := tilegpu.NewContext(tilegpu.Config{Width: size, Height: size})
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	st, err := DrawModelView(ctx.GL(), m, size, size, v)
	if err != nil {
		t.Fatal(err)
	}
	img, err := ctx.Image()
	if err != nil {
		t.Fatal(err)
	}
	return img, st
}

func loadTestModel(t *testing.T, file string) *Model {
	t.Helper()
	m, err := LoadModelFile(filepath.Join(modelDir, file))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// project returns the pixel (top row first) where DrawModelView's camera
// puts world point p on a size×size image.
func project(m *Model, v View, size int, p [3]float32) image.Point {
	view, proj, _ := frame(m, v, 1)
	mvp := vmath.Mul(proj, view)
	var c [4]float32
	for i := 0; i < 4; i++ {
		c[i] = mvp[i]*p[0] + mvp[4+i]*p[1] + mvp[8+i]*p[2] + mvp[12+i]
	}
	x := (c[0]/c[3]*0.5 + 0.5) * float32(size)
	y := (0.5 - c[1]/c[3]*0.5) * float32(size)
	return image.Pt(int(x), int(y))
}

func lum(c color.NRGBA) int { return (int(c.R)*3 + int(c.G)*6 + int(c.B)) / 10 }

// minLum returns the darkest luminance in the 5×5 window around p.
func minLum(img *image.NRGBA, p image.Point) int {
	m := 255
	for dy := -2; dy <= 2; dy++ {
		for dx := -2; dx <= 2; dx++ {
			m = min(m, lum(img.NRGBAAt(p.X+dx, p.Y+dy)))
		}
	}
	return m
}

// TestTextureCoordinateTest checks UV orientation: glTF's (0,0) is the
// image's top-left, so each quad shows its own corner of the texture (the
// checkered corner mark at the quad's outer corner, plain texture at its
// other two outer-edge corners), tinted by its baseColorFactor, in the
// screen quadrant its name says.
func TestTextureCoordinateTest(t *testing.T) {
	m := loadTestModel(t, "TextureCoordinateTest/TextureCoordinateTest.gltf")
	const size = 160
	v := DefaultView(m)
	if v != (View{}) {
		t.Fatalf("flat chart viewed from %+v, want face on", v)
	}
	img, st := renderModel(t, m, size, v)
	if st.Triangles != 10 {
		t.Errorf("%d triangles drawn, want 10", st.Triangles)
	}
	quads := []struct {
		name   string
		sx, sy float32 // quadrant signs
		tint   string  // channels in the quad's colour, strong to weak
	}{
		{"TopLeft", -1, 1, "yellow"},
		{"TopRight", 1, 1, "red"},
		{"BottomLeft", -1, -1, "blue"},
		{"BottomRight", 1, -1, "green"},
	}
	for _, q := range quads {
		// The quads span 0.2..1.2 from the centre on each axis.
		at := func(fx, fy float32) image.Point {
			return project(m, v, size, [3]float32{q.sx * (1.2 - fx), q.sy * (1.2 - fy), 0})
		}
		mid := at(0.5, 0.5)
		if (mid.X < size/2) != (q.sx < 0) || (mid.Y < size/2) != (q.sy > 0) {
			t.Errorf("%s: quad centre projects to %v, outside its quadrant", q.name, mid)
		}
		c := img.NRGBAAt(mid.X, mid.Y)
		r, g, b := int(c.R), int(c.G), int(c.B)
		var ok bool
		switch q.tint {
		case "yellow":
			ok = r > 3*b+20 && g > 3*b+20
		case "red":
			ok = r > 3*g+20 && r > 3*b+20
		case "green":
			ok = g > 3*r+20 && g > 3*b+20
		case "blue":
			ok = b > 3*r+20 && b > 2*g+20
		}
		if !ok {
			t.Errorf("%s: centre pixel %v is not %s", q.name, c, q.tint)
		}
		corner := minLum(img, at(0.07, 0.07))
		sideX := minLum(img, at(0.93, 0.07)) // same outer edge, inner end
		sideY := minLum(img, at(0.07, 0.93))
		t.Logf("%s: corner %d, sides %d %d, centre %v", q.name, corner, sideX, sideY, c)
		if corner*4 > sideX*3 || corner*4 > sideY*3 {
			t.Errorf("%s: the checkered corner mark is not at the quad's outer corner (darkest %d there, %d and %d at the other corners)",
				q.name, corner, sideX, sideY)
		}
	}
}

// colourClass names the hue of a pixel: one of the six saturated primaries
// and secondaries, or "" for anything else (greys, the light-blue cube).
func colourClass(c color.NRGBA) string {
	r, g, b := int(c.R), int(c.G), int(c.B)
	hi := max(r, g, b)
	if hi < 40 {
		return ""
	}
	// A lit dielectric reflects about 4% of the light white (Fresnel), so
	// a saturated texel's weak channels are a few levels above the texel's.
	high := func(x int) bool { return x*2 > hi }
	low := func(x int) bool { return x*4 < hi }
	switch {
	case high(r) && low(g) && low(b):
		return "red"
	case low(r) && high(g) && low(b):
		return "green"
	case low(r) && low(g) && high(b):
		return "blue"
	case high(r) && high(g) && low(b):
		return "yellow"
	case high(r) && low(g) && high(b):
		return "magenta"
	case low(r) && high(g) && high(b):
		return "cyan"
	}
	return ""
}

func countColours(img *image.NRGBA) map[string]int {
	n := map[string]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if c := colourClass(img.NRGBAAt(x, y)); c != "" {
				n[c]++
			}
		}
	}
	return n
}

// TestTextureSettingsTest renders the sampler chart: with the right wrap
// modes and face culling every test cell shows a green tick, and the red
// crosses that wrong settings reveal stay hidden. Forcing every sampler to
// REPEAT, or culling the double-sided quad, must bring red crosses out.
func TestTextureSettingsTest(t *testing.T) {
	const size = 192
	count := func(edit func(m *Model)) map[string]int {
		m := loadTestModel(t, "TextureSettingsTest/TextureSettingsTest.gltf")
		edit(m)
		img, _ := renderModel(t, m, size, DefaultView(m))
		return countColours(img)
	}
	good := count(func(*Model) {})
	t.Logf("correct: %v", good)
	if good["green"] < 1000 || good["red"] > good["green"]/50 {
		t.Errorf("correct settings: %d green and %d red pixels, want many ticks and no crosses", good["green"], good["red"])
	}
	for _, tc := range []struct {
		name string
		edit func(m *Model)
	}{
		{"every sampler REPEAT", func(m *Model) {
			for i := range m.Textures {
				m.Textures[i].WrapS, m.Textures[i].WrapT = gl.REPEAT, gl.REPEAT
			}
		}},
		{"mirrored repeat ignored", func(m *Model) {
			for i := range m.Textures {
				if m.Textures[i].WrapS == gl.MIRRORED_REPEAT {
					m.Textures[i].WrapS = gl.REPEAT
				}
				if m.Textures[i].WrapT == gl.MIRRORED_REPEAT {
					m.Textures[i].WrapT = gl.REPEAT
				}
			}
		}},
		{"clamp ignored", func(m *Model) {
			for i := range m.Textures {
				if m.Textures[i].WrapS == gl.CLAMP_TO_EDGE {
					m.Textures[i].WrapS = gl.REPEAT
				}
				if m.Textures[i].WrapT == gl.CLAMP_TO_EDGE {
					m.Textures[i].WrapT = gl.REPEAT
				}
			}
		}},
		{"doubleSided ignored", func(m *Model) {
			for i := range m.Materials {
				m.Materials[i].DoubleSided = false
			}
		}},
		{"single-sided not culled", func(m *Model) {
			for i := range m.Materials {
				m.Materials[i].DoubleSided = true
			}
		}},
	} {
		bad := count(tc.edit)
		t.Logf("%s: %v", tc.name, bad)
		if bad["red"] < good["red"]+15 {
			t.Errorf("%s: %d red pixels (correct render: %d), want the red crosses to show", tc.name, bad["red"], good["red"])
		}
	}
}

// TestBoxVertexColors checks that COLOR_0 (equal to the position in the
// 0..1 cube) reaches the pixels: each probed point on the three visible
// faces has the hue of its position.
func TestBoxVertexColors(t *testing.T) {
	m := loadTestModel(t, "BoxVertexColors/BoxVertexColors.gltf")
	const size = 128
	// From the front-right and above, so that three faces show (the
	// default view is from the front).
	v := View{Yaw: 0.6, Pitch: 0.35}
	img, _ := renderModel(t, m, size, v)
	for _, p := range [][3]float32{
		{0.15, 0.15, 1}, {0.85, 0.15, 1}, {0.15, 0.85, 1}, {0.5, 0.5, 1}, // front (+Z)
		{1, 0.15, 0.15}, {1, 0.85, 0.15}, {1, 0.15, 0.85}, // right (+X)
		{0.15, 1, 0.15}, {0.85, 1, 0.15}, {0.15, 1, 0.85}, // top (+Y)
	} {
		px := project(m, v, size, p)
		c := img.NRGBAAt(px.X, px.Y)
		got := [3]int{int(c.R), int(c.G), int(c.B)}
		// Lighting scales all channels alike, so wherever the vertex
		// colour has one channel well above another the pixel must too.
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				if p[i]-p[j] > 0.5 && got[i] < 2*got[j]+10 {
					t.Errorf("point %v at pixel %v is %v: channel %d should clearly exceed channel %d", p, px, c, i, j)
				}
			}
		}
		if p == [3]float32{0.5, 0.5, 1} && (abs(got[0]-got[1]) > 6 || got[2] < got[0]+30) {
			t.Errorf("front centre %v, want equal red and green below blue", c)
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestBoxAndTeapot checks the baseColorFactor-only and untextured paths:
// the Box is red where it covers the centre and the background is the
// clear colour; the teapot is a neutral grey, lit brighter on the side
// facing the light than its ambient minimum.
func TestBoxAndTeapot(t *testing.T) {
	bg := color.NRGBA{46, 51, 61, 255}
	for _, tc := range []struct {
		file      string
		triangles int
		check     func(c color.NRGBA) bool
	}{
		{"Box/Box.gltf", 12, func(c color.NRGBA) bool { return c.R > 60 && int(c.G)+int(c.B) < int(c.R)/4+10 }},
		{"teapot/utah_teapot.stl", 9438, func(c color.NRGBA) bool {
			return abs(int(c.R)-int(c.G)) < 4 && abs(int(c.G)-int(c.B)) < 4 && c.R > 80
		}},
	} {
		m := loadTestModel(t, tc.file)
		img, st := renderModel(t, m, 96, DefaultView(m))
		if st.Triangles != tc.triangles {
			t.Errorf("%s: %d triangles, want %d", tc.file, st.Triangles, tc.triangles)
		}
		if c := img.NRGBAAt(1, 1); c != bg {
			t.Errorf("%s: corner %v, want the clear colour %v", tc.file, c, bg)
		}
		if c := img.NRGBAAt(48, 48); !tc.check(c) {
			t.Errorf("%s: centre pixel %v", tc.file, c)
		}
	}
}

// TestOrientationTest renders the node-transform chart from each axis:
// the arrow and target of that axis's colour face the camera and the
// opposite axis's are hidden behind the cube. Independently of pixels,
// every arrow's long axis (in world space, after its node's TRS or matrix)
// must pass through the target of its name.
func TestOrientationTest(t *testing.T) {
	m := loadTestModel(t, "OrientationTest/OrientationTest.gltf")
	deg := func(d float32) float32 { return d * math.Pi / 180 }
	for _, tc := range []struct {
		view           View
		want, opposite string
	}{
		{View{0, 0}, "blue", "yellow"},            // +Z: Z1 blue, Z2 yellow
		{View{deg(180), 0}, "yellow", "blue"},     // -Z
		{View{deg(90), 0}, "red", "cyan"},         // +X: X1 red, X2 cyan
		{View{deg(-90), 0}, "cyan", "red"},        // -X
		{View{0, deg(89.9)}, "green", "magenta"},  // +Y: Y1 green, Y2 magenta
		{View{0, deg(-89.9)}, "magenta", "green"}, // -Y
	} {
		img, st := renderModel(t, m, 96, tc.view)
		if st.Triangles != 524 {
			t.Errorf("%d triangles, want 524", st.Triangles)
		}
		n := countColours(img)
		for c, k := range n {
			if c != tc.want && k >= n[tc.want] {
				t.Errorf("view %+v: %d %s pixels, not fewer than %d %s", tc.view, k, c, n[tc.want], tc.want)
			}
		}
		if n[tc.want] < 100 || n[tc.opposite] != 0 {
			t.Errorf("view %+v: %d %s and %d %s pixels, want the first facing the camera and none of the second", tc.view, n[tc.want], tc.want, n[tc.opposite], tc.opposite)
		}
	}

	world := func(name string) [][3]float32 {
		var pts [][3]float32
		for _, in := range m.Instances {
			if in.Name != name {
				continue
			}
			for _, p := range m.Meshes[in.Mesh].Primitives {
				for v := 0; v < len(p.Vertices); v += ModelVertexFloats {
					pts = append(pts, transformPoint(in.World, [3]float32{p.Vertices[v], p.Vertices[v+1], p.Vertices[v+2]}))
				}
			}
		}
		if len(pts) == 0 {
			t.Fatalf("no node %s", name)
		}
		return pts
	}
	for _, axis := range []string{"X1", "X2", "Y1", "Y2", "Z1", "Z2"} {
		arrow, target := world("Arrow"+axis), world("Target"+axis)
		c, dir := principalAxis(arrow)
		tc, _ := principalAxis(target)
		// Distance from the target's centre to the arrow's line, against
		// the arrow's distance to the target.
		d := sub(tc, c)
		along := d[0]*dir[0] + d[1]*dir[1] + d[2]*dir[2]
		off := [3]float32{d[0] - along*dir[0], d[1] - along*dir[1], d[2] - along*dir[2]}
		miss := math.Sqrt(float64(off[0]*off[0] + off[1]*off[1] + off[2]*off[2]))
		if dist := math.Abs(float64(along)); miss > 0.1*dist {
			t.Errorf("Arrow%s's axis misses Target%s by %.2f at distance %.2f", axis, axis, miss, dist)
		}
	}
}

// principalAxis returns the centroid of pts and the unit direction of their
// greatest spread (the covariance matrix's dominant eigenvector, by power
// iteration).
func principalAxis(pts [][3]float32) (centre, dir [3]float32) {
	for _, p := range pts {
		for i := range centre {
			centre[i] += p[i] / float32(len(pts))
		}
	}
	var cov [3][3]float64
	for _, p := range pts {
		d := sub(p, centre)
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				cov[i][j] += float64(d[i] * d[j])
			}
		}
	}
	v := [3]float64{1, 0.7, 0.3}
	for it := 0; it < 200; it++ {
		var w [3]float64
		for i := 0; i < 3; i++ {
			w[i] = cov[i][0]*v[0] + cov[i][1]*v[1] + cov[i][2]*v[2]
		}
		l := math.Sqrt(w[0]*w[0] + w[1]*w[1] + w[2]*w[2])
		if l == 0 {
			break
		}
		v = [3]float64{w[0] / l, w[1] / l, w[2] / l}
	}
	return centre, [3]float32{float32(v[0]), float32(v[1]), float32(v[2])}
}

// TestCesiumMilkTruck draws the textured, instanced model: both wheel
// instances are submitted, and the truck's white body texture shows.
func TestCesiumMilkTruck(t *testing.T) {
	m := loadTestModel(t, "CesiumMilkTruck/CesiumMilkTruck.gltf")
	img, st := renderModel(t, m, 128, DefaultView(m))
	if st.Triangles != 3624 {
		t.Errorf("%d triangles drawn, want 3624", st.Triangles)
	}
	bright := 0
	for i := 0; i < len(img.Pix); i += 4 {
		if img.Pix[i] > 150 && img.Pix[i+1] > 150 && img.Pix[i+2] > 150 {
			bright++
		}
	}
	if bright < 500 {
		t.Errorf("%d near-white pixels, want the white body (textured) to cover at least 500", bright)
	}
}

func TestDrawModelRejectsBadModels(t *testing.T) {
	ctx, err := tilegpu.NewContext(tilegpu.Config{Width: 8, Height: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	m := loadTestModel(t, "Box/Box.gltf")
	m.Meshes[0].Primitives[0].Material = 9
	if _, err := DrawModel(ctx.GL(), m, 8, 8); err == nil || !strings.Contains(err.Error(), "material 9 out of range") {
		t.Errorf("err = %v, want a material range error", err)
	}
	m = loadTestModel(t, "Box/Box.gltf")
	m.Meshes[0].Primitives[0].Indices[0] = 999
	if _, err := DrawModel(ctx.GL(), m, 8, 8); err == nil || !strings.Contains(err.Error(), "index 0 = 999 out of range") {
		t.Errorf("err = %v, want an index range error", err)
	}
}

// TestPrimitiveModes draws one triangle's vertices in every glTF mode with
// a green material: the triangle modes fill it (lit), the line and point
// modes draw its outline or corners unlit in exactly the base colour.
func TestPrimitiveModes(t *testing.T) {
	for _, tc := range []struct {
		mode      int
		minGreen  int
		maxGreen  int
		triangles int
	}{
		{0, 1, 60, 0},     // POINTS
		{1, 5, 200, 0},    // LINES: one segment
		{2, 40, 400, 0},   // LINE_LOOP
		{3, 20, 300, 0},   // LINE_STRIP
		{4, 500, 2100, 1}, // TRIANGLES
		{5, 500, 2100, 1}, // TRIANGLE_STRIP
		{6, 500, 2100, 1}, // TRIANGLE_FAN
	} {
		buf, d := triangleDoc()
		prim := d["meshes"].([]any)[0].(map[string]any)["primitives"].([]any)[0].(map[string]any)
		prim["mode"] = tc.mode
		prim["material"] = 0
		d["materials"] = []any{map[string]any{"doubleSided": true, "pbrMetallicRoughness": map[string]any{"baseColorFactor": []any{0, 1, 0, 1}}}}
		m, err := LoadGLTF(strings.NewReader(string(gltfJSON(t, buf, d))))
		if err != nil {
			t.Fatal(err)
		}
		img, st := renderModel(t, m, 64, DefaultView(m))
		if st.Triangles != tc.triangles {
			t.Errorf("mode %d: %d triangles, want %d", tc.mode, st.Triangles, tc.triangles)
		}
		green := 0
		for i := 0; i < len(img.Pix); i += 4 {
			if img.Pix[i] < 30 && img.Pix[i+1] > 40 && img.Pix[i+2] < 30 {
				green++
			}
		}
		t.Logf("mode %d: %d green", tc.mode, green)
		if green < tc.minGreen || green > tc.maxGreen {
			t.Errorf("mode %d: %d green pixels, want %d..%d", tc.mode, green, tc.minGreen, tc.maxGreen)
		}
	}
}

// TestDrawModelTwice draws twice on one context: DrawModel deletes what it
// created only after submitting, so both frames are identical.
func TestDrawModelTwice(t *testing.T) {
	m := loadTestModel(t, "BoxTextured/BoxTextured.gltf")
	ctx, err := tilegpu.NewContext(tilegpu.Config{Width: 48, Height: 48})
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	var frames [2]*image.NRGBA
	for i := range frames {
		if _, err := DrawModel(ctx.GL(), m, 48, 48); err != nil {
			t.Fatal(err)
		}
		if frames[i], err = ctx.Image(); err != nil {
			t.Fatal(err)
		}
	}
	if string(frames[0].Pix) != string(frames[1].Pix) {
		t.Error("second frame differs from the first")
	}
	if c := frames[0].NRGBAAt(24, 24); c == (color.NRGBA{46, 51, 61, 255}) {
		t.Error("nothing drawn at the centre")
	}
}

// TestDrawHelpersReleaseWhatTheyCreate calls each scene helper many times on
// one context whose GPU memory holds only a few frames' worth of objects
// (Spot's 1024² mipmapped texture alone is 5.6 MB): a helper that leaves a
// buffer, texture or program behind runs out of memory within a handful of
// calls, as DrawSpot once did on its 186th call with 1 GiB.
func TestDrawHelpersReleaseWhatTheyCreate(t *testing.T) {
	const calls = 20
	truck := loadTestModel(t, "CesiumMilkTruck/CesiumMilkTruck.gltf")
	for _, tc := range []struct {
		name string
		draw func(g gl.Context) error
	}{
		{"DrawSpot", func(g gl.Context) error { _, err := DrawSpot(g, 32, 32); return err }},
		{"DrawModel", func(g gl.Context) error { _, err := DrawModel(g, truck, 32, 32); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, err := tilegpu.NewContext(tilegpu.Config{Width: 32, Height: 32, Cores: 1, MemorySize: 32 << 20})
			if err != nil {
				t.Fatal(err)
			}
			defer ctx.Close()
			g := ctx.GL()
			for i := range calls {
				if err := tc.draw(g); err != nil {
					t.Fatalf("call %d: %v", i+1, err)
				}
				g.Finish()
			}
			// Nothing the helper created is left: object names are not
			// objects any more.
			for n := uint32(1); n < 64; n++ {
				if g.IsBuffer(gl.Buffer{Value: n}) || g.IsTexture(gl.Texture{Value: n}) || g.IsProgram(gl.Program{Value: n}) || g.IsShader(gl.Shader{Value: n}) {
					t.Fatalf("object %d still exists after %d calls", n, calls)
				}
			}
		})
	}
}

// TestAutoFramingFillsTheFrame: the default view shows a model from its
// front and fits it to the frame: the drawn pixels span nearly the whole
// frame in the limiting direction (the margin is 4% of the distance) and
// are centred. The Box is a 1×1×1 cube seen from slightly above; the
// teapot is wider than tall, so it fills the width of a square frame and
// the height of a wide one.
func TestAutoFramingFillsTheFrame(t *testing.T) {
	bg := color.NRGBA{46, 51, 61, 255}
	for _, tc := range []struct {
		file string
		w, h int
	}{{"Box/Box.gltf", 96, 96}, {"teapot/utah_teapot.stl", 96, 96}, {"teapot/utah_teapot.stl", 160, 64}} {
		m := loadTestModel(t, tc.file)
		ctx, err := tilegpu.NewContext(tilegpu.Config{Width: tc.w, Height: tc.h})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DrawModel(ctx.GL(), m, tc.w, tc.h); err != nil {
			t.Fatal(err)
		}
		img, err := ctx.Image()
		ctx.Close()
		if err != nil {
			t.Fatal(err)
		}
		x0, y0, x1, y1 := tc.w, tc.h, -1, -1
		for y := 0; y < tc.h; y++ {
			for x := 0; x < tc.w; x++ {
				if img.NRGBAAt(x, y) != bg {
					x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
				}
			}
		}
		fw, fh := float64(x1-x0+1)/float64(tc.w), float64(y1-y0+1)/float64(tc.h)
		t.Logf("%s at %d×%d: drawn %d..%d × %d..%d (%.0f%% × %.0f%%)", tc.file, tc.w, tc.h, x0, x1, y0, y1, 100*fw, 100*fh)
		if max(fw, fh) < 0.85 {
			t.Errorf("%s at %d×%d: the model spans %.0f%% × %.0f%% of the frame, want ≥ 85%% in one direction", tc.file, tc.w, tc.h, 100*fw, 100*fh)
		}
		if cx := float64(x0+x1+1) / 2; math.Abs(cx-float64(tc.w)/2) > float64(tc.w)/20 {
			t.Errorf("%s: drawn region centred at x = %.1f of %d", tc.file, cx, tc.w)
		}
	}
}

package scene

import (
	"fmt"
	"image"
	"math"

	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/internal/le"
	"github.com/tilegpu/tilegpu/internal/vmath"
)

// The model shaders light like the Spot scene (ambient + Lambert + Phong
// highlight, per pixel) on an albedo of texture × baseColorFactor × vertex
// colour. Back faces reach the fragment shader only for double-sided
// materials, and gl_FrontFacing turns their normal towards the viewer.
const vsModel = `attribute vec3 a_pos;
attribute vec3 a_nrm;
attribute vec2 a_uv;
attribute vec4 a_color;
uniform mat4 u_mvp;
uniform mat4 u_model;
uniform mat4 u_normal;
varying vec3 v_nrm;
varying vec3 v_wpos;
varying vec2 v_uv;
varying vec4 v_color;
void main() {
  v_wpos = (u_model * vec4(a_pos, 1.0)).xyz;
  v_nrm = (u_normal * vec4(a_nrm, 0.0)).xyz;
  v_uv = a_uv;
  v_color = a_color;
  gl_PointSize = 3.0;
  gl_Position = u_mvp * vec4(a_pos, 1.0);
}
`

const fsModel = `precision mediump float;
uniform sampler2D u_tex;
uniform vec4 u_base;
uniform float u_lit;
uniform vec3 u_light;
uniform vec3 u_eye;
varying vec3 v_nrm;
varying vec3 v_wpos;
varying vec2 v_uv;
varying vec4 v_color;
void main() {
  vec4 albedo = texture2D(u_tex, v_uv) * u_base * v_color;
  vec3 c = albedo.rgb;
  if (u_lit > 0.5) {
    vec3 n = normalize(v_nrm);
    if (!gl_FrontFacing) n = -n;
    vec3 l = normalize(u_light);
    vec3 v = normalize(u_eye - v_wpos);
    float diff = max(dot(n, l), 0.0);
    vec3 r = reflect(-l, n);
    float spec = diff > 0.0 ? pow(max(dot(r, v), 0.0), 24.0) : 0.0;
    c = albedo.rgb * (0.22 + 0.78 * diff) + 0.3 * spec * vec3(1.0);
  }
  gl_FragColor = vec4(c, albedo.a);
}
`

// ModelShaders returns DrawModel's GLSL sources (for compiler reports).
func ModelShaders() (vs, fs string) { return vsModel, fsModel }

// View is the direction DrawModel looks from: the camera orbits the model's
// bounding-box centre, Yaw radians about the vertical axis from the +Z
// (front) side towards +X, and Pitch radians above the horizontal.
type View struct {
	Yaw, Pitch float32
}

// DefaultView returns the view DrawModel uses: flat models (test charts,
// whose depth is under a tenth of their width or height) face on from the
// front, as their authors intend them to be seen; solid models from the
// front-right and a little above, so that three sides show.
func DefaultView(m *Model) View {
	dx, dy, dz := m.Max[0]-m.Min[0], m.Max[1]-m.Min[1], m.Max[2]-m.Min[2]
	if dz < 0.1*max(dx, dy) {
		return View{}
	}
	return View{Yaw: 0.6, Pitch: 0.35}
}

// DrawModel draws m into ctx's current framebuffer, which is width×height,
// from DefaultView(m). See DrawModelView.
func DrawModel(ctx gl.Context, m *Model, width, height int) (Stats, error) {
	return DrawModelView(ctx, m, width, height, DefaultView(m))
}

// DrawModelView draws m into ctx's current framebuffer, which is
// width×height: cleared to the Spot scene's background, a perspective
// camera placed along v at the distance where the bounding box just fits
// the frame, one directional light from the camera's upper left, depth
// testing, and one draw call per primitive instance with its material's
// texture, sampler, base colour and face culling. Stats counts the
// triangles submitted.
func DrawModelView(ctx gl.Context, m *Model, width, height int, v View) (Stats, error) {
	if width < 1 || height < 1 {
		return Stats{}, fmt.Errorf("scene: framebuffer %d×%d", width, height)
	}
	if err := m.validate(); err != nil {
		return Stats{}, err
	}
	prog, err := program(ctx, vsModel, fsModel, "a_pos", "a_nrm", "a_uv", "a_color")
	if err != nil {
		return Stats{}, err
	}
	// Everything created here is deleted on return, on success or error:
	// GL keeps deleted objects alive until the submitted draws are done
	// with them, so the frame is unaffected and repeated draws do not leak.
	defer releaseProgram(ctx, prog)
	ctx.UseProgram(prog)
	uni := func(name string) gl.Uniform { return ctx.GetUniformLocation(prog, name) }
	uMVP, uModel, uNormal := uni("u_mvp"), uni("u_model"), uni("u_normal")
	uBase, uLit := uni("u_base"), uni("u_lit")
	ctx.Uniform1i(uni("u_tex"), 0)
	ctx.ActiveTexture(gl.TEXTURE0)

	textures, err := uploadTextures(ctx, m)
	defer func() {
		for _, g := range textures.unique {
			ctx.DeleteTexture(g)
		}
	}()
	if err != nil {
		return Stats{}, err
	}
	// Geometry: one vertex buffer and one index buffer per mesh primitive,
	// shared by every instance of the mesh.
	type gpuPrim struct{ vbo, ibo gl.Buffer }
	bufs := make([][]gpuPrim, len(m.Meshes))
	defer func() {
		for _, gs := range bufs {
			for _, g := range gs {
				ctx.DeleteBuffer(g.vbo)
				if g.ibo.Value != 0 {
					ctx.DeleteBuffer(g.ibo)
				}
			}
		}
	}()
	for mi, me := range m.Meshes {
		for _, p := range me.Primitives {
			g := gpuPrim{vbo: ctx.CreateBuffer()}
			ctx.BindBuffer(gl.ARRAY_BUFFER, g.vbo)
			ctx.BufferData(gl.ARRAY_BUFFER, le.Float32s(p.Vertices), gl.STATIC_DRAW)
			if p.Indices != nil {
				g.ibo = ctx.CreateBuffer()
				ctx.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, g.ibo)
				ctx.BufferData(gl.ELEMENT_ARRAY_BUFFER, packIndices(p.Indices, p.IndexType), gl.STATIC_DRAW)
			}
			bufs[mi] = append(bufs[mi], g)
		}
	}
	for a := 0; a < 4; a++ {
		ctx.EnableVertexAttribArray(gl.Attrib{Value: uint(a)})
		defer ctx.DisableVertexAttribArray(gl.Attrib{Value: uint(a)})
	}

	view, proj, eye := frame(m, v, float32(width)/float32(height))
	// The light comes from the camera's upper left and a little behind it,
	// whatever the view, so the side facing the viewer is lit.
	inv := transpose3(view)
	light := transformDir(inv, [3]float32{-0.4, 0.8, 0.6})
	ctx.Uniform3f(uni("u_light"), light[0], light[1], light[2])
	ctx.Uniform3f(uni("u_eye"), eye[0], eye[1], eye[2])

	ctx.Viewport(0, 0, width, height)
	ctx.Enable(gl.DEPTH_TEST)
	ctx.DepthFunc(gl.LESS)
	ctx.CullFace(gl.BACK)
	ctx.ClearColor(0.18, 0.2, 0.24, 1)
	ctx.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)

	var st Stats
	for _, in := range m.Instances {
		mvp := vmath.Mul(proj, vmath.Mul(view, in.World))
		nm, det := normalMatrix(in.World)
		ctx.UniformMatrix4fv(uMVP, mvp[:])
		ctx.UniformMatrix4fv(uModel, in.World[:])
		ctx.UniformMatrix4fv(uNormal, nm[:])
		// A mirroring transform turns counter-clockwise faces clockwise
		// (glTF: the determinant's sign selects the winding).
		if det < 0 {
			ctx.FrontFace(gl.CW)
		} else {
			ctx.FrontFace(gl.CCW)
		}
		for pi, p := range m.Meshes[in.Mesh].Primitives {
			mat := m.Materials[p.Material]
			g := bufs[in.Mesh][pi]
			ctx.BindBuffer(gl.ARRAY_BUFFER, g.vbo)
			for a, f := range []struct{ size, off int }{{3, 0}, {3, 12}, {2, 24}, {4, 32}} {
				ctx.VertexAttribPointer(gl.Attrib{Value: uint(a)}, f.size, gl.FLOAT, false, ModelVertexFloats*4, f.off)
			}
			tex := textures.white
			if mat.BaseColorTexture >= 0 {
				tex = textures.gl[mat.BaseColorTexture]
			}
			ctx.BindTexture(gl.TEXTURE_2D, tex)
			ctx.Uniform4f(uBase, mat.BaseColor[0], mat.BaseColor[1], mat.BaseColor[2], mat.BaseColor[3])
			lit := float32(0)
			if p.Lit {
				lit = 1
			}
			ctx.Uniform1f(uLit, lit)
			if mat.DoubleSided || !p.Lit {
				ctx.Disable(gl.CULL_FACE)
			} else {
				ctx.Enable(gl.CULL_FACE)
			}
			if p.Indices != nil {
				ctx.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, g.ibo)
				ctx.DrawElements(p.Mode, len(p.Indices), p.IndexType, 0)
			} else {
				ctx.DrawArrays(p.Mode, 0, p.Count())
			}
			st.Triangles += p.Triangles()
		}
	}
	ctx.Flush()
	if e := ctx.GetError(); e != gl.NO_ERROR {
		return Stats{}, fmt.Errorf("scene: GL error 0x%x", uint32(e))
	}
	return st, nil
}

// validate checks the cross references DrawModelView follows, so a Model
// built or edited by hand fails with an error rather than a panic.
func (m *Model) validate() error {
	for i, in := range m.Instances {
		if in.Mesh < 0 || in.Mesh >= len(m.Meshes) {
			return fmt.Errorf("scene: instance %d: mesh %d out of range", i, in.Mesh)
		}
	}
	for i, mat := range m.Materials {
		if mat.BaseColorTexture < -1 || mat.BaseColorTexture >= len(m.Textures) {
			return fmt.Errorf("scene: material %d: texture %d out of range", i, mat.BaseColorTexture)
		}
	}
	for i, t := range m.Textures {
		if t.Image < 0 || t.Image >= len(m.Images) || m.Images[t.Image] == nil {
			return fmt.Errorf("scene: texture %d: image %d out of range", i, t.Image)
		}
	}
	for mi, me := range m.Meshes {
		for pi, p := range me.Primitives {
			where := fmt.Sprintf("scene: mesh %d primitive %d", mi, pi)
			if p.Material < 0 || p.Material >= len(m.Materials) {
				return fmt.Errorf("%s: material %d out of range", where, p.Material)
			}
			if len(p.Vertices)%ModelVertexFloats != 0 {
				return fmt.Errorf("%s: %d floats is not whole vertices", where, len(p.Vertices))
			}
			limit := uint32(len(p.Vertices) / ModelVertexFloats)
			switch p.IndexType {
			case gl.UNSIGNED_BYTE:
				limit = min(limit, 1<<8)
			case gl.UNSIGNED_SHORT:
				limit = min(limit, 1<<16)
			case gl.UNSIGNED_INT:
			default:
				if p.Indices != nil {
					return fmt.Errorf("%s: index type 0x%x", where, uint32(p.IndexType))
				}
			}
			for k, ix := range p.Indices {
				if ix >= limit {
					return fmt.Errorf("%s: index %d = %d out of range", where, k, ix)
				}
			}
		}
	}
	return nil
}

// packIndices packs indices as little-endian u8, u16 or u32.
func packIndices(idx []uint32, ty gl.Enum) []byte {
	switch ty {
	case gl.UNSIGNED_BYTE:
		b := make([]byte, len(idx))
		for i, v := range idx {
			b[i] = byte(v)
		}
		return b
	case gl.UNSIGNED_SHORT:
		b := make([]byte, 2*len(idx))
		for i, v := range idx {
			b[2*i], b[2*i+1] = byte(v), byte(v>>8)
		}
		return b
	}
	return le.Uint32s(idx)
}

type modelTextures struct {
	white  gl.Texture   // 1×1 white: the texture of untextured materials
	gl     []gl.Texture // per Model.Textures
	unique []gl.Texture // every texture created, once
}

// uploadTextures makes one GL texture per Model texture (ES 2.0 keeps the
// sampler state in the texture object), shrinking images larger than the
// GPU's MAX_TEXTURE_SIZE and building mipmaps when the minification filter
// uses them.
func uploadTextures(ctx gl.Context, m *Model) (modelTextures, error) {
	var t modelTextures
	t.white = ctx.CreateTexture()
	ctx.BindTexture(gl.TEXTURE_2D, t.white)
	ctx.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, []byte{255, 255, 255, 255})
	ctx.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	ctx.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	maxSize := ctx.GetInteger(gl.MAX_TEXTURE_SIZE)
	if maxSize < 1 {
		maxSize = 2048
	}
	// Textures that share an image and sampler state (the milk truck's
	// body and wheels) share one GL texture.
	type key struct {
		image                    int
		wrapS, wrapT, minF, magF gl.Enum
	}
	made := map[key]gl.Texture{}
	for _, tx := range m.Textures {
		k := key{tx.Image, tx.WrapS, tx.WrapT, tx.MinFilter, tx.MagFilter}
		if g, ok := made[k]; ok {
			t.gl = append(t.gl, g)
			continue
		}
		img := m.Images[tx.Image]
		for img.Rect.Dx() > maxSize || img.Rect.Dy() > maxSize {
			img = halve(img)
		}
		w, h := img.Rect.Dx(), img.Rect.Dy()
		g := ctx.CreateTexture()
		ctx.BindTexture(gl.TEXTURE_2D, g)
		// glTF's (0,0) is the image's top-left, and GL's t = 0 is the first
		// row uploaded: upload the top row first.
		ctx.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, w, h, gl.RGBA, gl.UNSIGNED_BYTE, img.Pix[:w*h*4])
		switch tx.MinFilter {
		case gl.NEAREST_MIPMAP_NEAREST, gl.LINEAR_MIPMAP_NEAREST, gl.NEAREST_MIPMAP_LINEAR, gl.LINEAR_MIPMAP_LINEAR:
			ctx.GenerateMipmap(gl.TEXTURE_2D)
		}
		ctx.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, int(tx.MinFilter))
		ctx.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, int(tx.MagFilter))
		ctx.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, int(tx.WrapS))
		ctx.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, int(tx.WrapT))
		made[k] = g
		t.gl = append(t.gl, g)
	}
	t.unique = make([]gl.Texture, 0, len(made)+1)
	t.unique = append(t.unique, t.white)
	for _, g := range made {
		t.unique = append(t.unique, g)
	}
	if e := ctx.GetError(); e != gl.NO_ERROR {
		return t, fmt.Errorf("scene: GL error 0x%x uploading textures", uint32(e))
	}
	return t, nil
}

// halve returns img box-filtered to half its size (at least 1×1).
func halve(img *image.NRGBA) *image.NRGBA {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	nw, nh := max(w/2, 1), max(h/2, 1)
	out := image.NewNRGBA(image.Rect(0, 0, nw, nh))
	for y := 0; y < nh; y++ {
		for x := 0; x < nw; x++ {
			var sum [4]int
			for dy := 0; dy < 2; dy++ {
				for dx := 0; dx < 2; dx++ {
					sx, sy := min(2*x+dx, w-1), min(2*y+dy, h-1)
					o := sy*img.Stride + 4*sx
					for c := 0; c < 4; c++ {
						sum[c] += int(img.Pix[o+c])
					}
				}
			}
			for c := 0; c < 4; c++ {
				out.Pix[y*out.Stride+4*x+c] = uint8((sum[c] + 2) / 4)
			}
		}
	}
	return out
}

// frame places the camera: it looks at the bounding box's centre from
// direction v, at the smallest distance at which all eight corners of the
// box fall inside a 40° (vertical) perspective frustum, plus a 4% margin.
func frame(m *Model, v View, aspect float32) (view, proj vmath.Mat4, eye vmath.Vec3) {
	var c [3]float32
	for j := 0; j < 3; j++ {
		c[j] = (m.Min[j] + m.Max[j]) / 2
	}
	cy, sy := float32(math.Cos(float64(v.Yaw))), float32(math.Sin(float64(v.Yaw)))
	cp, sp := float32(math.Cos(float64(v.Pitch))), float32(math.Sin(float64(v.Pitch)))
	back := vmath.Vec3{sy * cp, sp, cy * cp} // from the centre towards the eye
	up := vmath.Vec3{0, 1, 0}
	if math.Abs(float64(sp)) > 0.999 {
		up = vmath.Vec3{0, 0, -1}
	}
	right := up.Cross(back).Normalize()
	upv := back.Cross(right)
	const fovy = 40 * math.Pi / 180
	ty := float32(math.Tan(fovy / 2))
	tx := ty * aspect
	dist := float32(0)
	radius := float32(0)
	for k := 0; k < 8; k++ {
		var p vmath.Vec3
		for j := 0; j < 3; j++ {
			p[j] = m.Min[j]
			if k&(1<<j) != 0 {
				p[j] = m.Max[j]
			}
			p[j] -= c[j]
		}
		x, y, z := p.Dot(right), p.Dot(upv), p.Dot(back)
		// A corner at depth z towards the eye is inside the frustum when
		// |x| ≤ tx·(dist − z) and |y| ≤ ty·(dist − z).
		dist = max(dist, z+float32(math.Abs(float64(x)))/tx, z+float32(math.Abs(float64(y)))/ty)
		radius = max(radius, float32(math.Sqrt(float64(p.Dot(p)))))
	}
	if radius == 0 {
		radius = 1
	}
	dist = max(dist*1.04, radius*1.01)
	eye = vmath.Vec3{c[0] + back[0]*dist, c[1] + back[1]*dist, c[2] + back[2]*dist}
	view = vmath.LookAt(eye, vmath.Vec3(c), up)
	near := max(dist-radius, dist*0.01)
	far := dist + radius
	proj = vmath.Perspective(fovy, aspect, near, far*1.01)
	return view, proj, eye
}

// normalMatrix returns the inverse transpose of m's upper 3×3 (in a Mat4,
// for the normals of non-uniformly scaled instances) and its determinant.
func normalMatrix(m vmath.Mat4) (vmath.Mat4, float32) {
	a := func(r, c int) float64 { return float64(m[c*4+r]) }
	// Cofactors: the inverse transpose is the cofactor matrix / det.
	cof := func(r, c int) float64 {
		r1, r2 := (r+1)%3, (r+2)%3
		c1, c2 := (c+1)%3, (c+2)%3
		return a(r1, c1)*a(r2, c2) - a(r1, c2)*a(r2, c1)
	}
	det := a(0, 0)*cof(0, 0) + a(0, 1)*cof(0, 1) + a(0, 2)*cof(0, 2)
	n := vmath.Identity()
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			// Normals are normalised in the shader, so the 1/det scale
			// matters only for its sign.
			v := cof(r, c)
			if det < 0 {
				v = -v
			}
			n[c*4+r] = float32(v)
		}
	}
	return n, float32(det)
}

// transpose3 returns the transpose of m's upper 3×3 (the inverse of a
// rotation).
func transpose3(m vmath.Mat4) vmath.Mat4 {
	t := vmath.Identity()
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			t[c*4+r] = m[r*4+c]
		}
	}
	return t
}

// transformDir returns m·(d, 0).
func transformDir(m vmath.Mat4, d [3]float32) [3]float32 {
	var r [3]float32
	for i := 0; i < 3; i++ {
		r[i] = m[i]*d[0] + m[4+i]*d[1] + m[8+i]*d[2]
	}
	return r
}

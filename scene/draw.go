package scene

import (
	"fmt"
	"image"
	"math"
	"sort"

	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/internal/le"
	"github.com/tilegpu/tilegpu/internal/vmath"
)

// The model shaders implement glTF's metallic-roughness material: base
// colour (factor × sRGB texture × vertex colour), metalness and roughness
// (factors × the texture's blue and green), a tangent-space normal map,
// ambient occlusion and emission. Lighting is image-based-free: one
// directional light (GGX specular with Smith visibility and Schlick
// Fresnel, Lambert diffuse) plus a fixed sky-over-ground environment term
// whose specular part uses Karis's analytic approximation of the split-sum
// BRDF. The environment is neutral grey, brighter above than below, so it
// never tints a material. Like the Spot scene, shading works on the stored
// colour values directly (no sRGB decode and encode): a lit white
// dielectric facing the light stays just below 1, an unlit one shows its
// ambient 0.22, and saturated colours stay saturated. KHR_materials_unlit
// outputs the base colour alone. Back faces reach the
// fragment shader only for double-sided materials, and gl_FrontFacing
// turns their normal towards the viewer.
const vsModel = `attribute vec3 a_pos;
attribute vec3 a_nrm;
attribute vec2 a_uv;
attribute vec4 a_color;
attribute vec4 a_tangent;
attribute vec2 a_uv1;
uniform mat4 u_mvp;
uniform mat4 u_model;
uniform mat4 u_normal;
varying vec3 v_nrm;
varying vec4 v_tangent;
varying vec3 v_wpos;
varying vec2 v_uv;
varying vec2 v_uv1;
varying vec4 v_color;
void main() {
  v_wpos = (u_model * vec4(a_pos, 1.0)).xyz;
  v_uv1 = a_uv1;
  v_nrm = (u_normal * vec4(a_nrm, 0.0)).xyz;
  v_tangent = vec4((u_model * vec4(a_tangent.xyz, 0.0)).xyz, a_tangent.w);
  v_uv = a_uv;
  v_color = a_color;
  gl_PointSize = 3.0;
  gl_Position = u_mvp * vec4(a_pos, 1.0);
}
`

const fsModel = `precision mediump float;
uniform sampler2D u_baseTex;
uniform sampler2D u_mrTex;
uniform sampler2D u_normalTex;
uniform sampler2D u_occTex;
uniform sampler2D u_emTex;
uniform vec3 u_uvX[5];
uniform vec3 u_uvY[5];
uniform float u_uvSet[5];
uniform vec4 u_base;
uniform vec2 u_metalRough;
uniform vec3 u_emissive;
uniform float u_normalScale;
uniform float u_hasNormalTex;
uniform float u_occStrength;
uniform float u_lit;
uniform float u_alphaMode;
uniform float u_cutoff;
uniform vec3 u_light;
uniform vec3 u_eye;
varying vec3 v_nrm;
varying vec4 v_tangent;
varying vec3 v_wpos;
varying vec2 v_uv;
varying vec2 v_uv1;
varying vec4 v_color;

vec2 uvOf(int slot) {
  vec3 p = vec3(u_uvSet[slot] > 0.5 ? v_uv1 : v_uv, 1.0);
  return vec2(dot(u_uvX[slot], p), dot(u_uvY[slot], p));
}
float sky(vec3 d) { return mix(0.7, 1.3, clamp(d.y * 0.5 + 0.5, 0.0, 1.0)); }

void main() {
  vec4 texel = texture2D(u_baseTex, uvOf(0));
  vec4 base = texel * u_base * v_color;
  float alpha = base.a;
  if (u_alphaMode > 0.5 && u_alphaMode < 1.5) {
    if (alpha < u_cutoff) discard;
    alpha = 1.0;
  } else if (u_alphaMode < 0.5) {
    alpha = 1.0;
  }
  vec3 c = base.rgb;
  if (u_lit > 0.5) {
    vec3 n = normalize(v_nrm);
    if (u_hasNormalTex > 0.5) {
      vec3 t = normalize(v_tangent.xyz - n * dot(n, v_tangent.xyz));
      vec3 b = cross(n, t) * v_tangent.w;
      vec3 tn = texture2D(u_normalTex, uvOf(2)).xyz * 2.0 - 1.0;
      tn.xy *= u_normalScale;
      n = normalize(t * tn.x + b * tn.y + n * tn.z);
    }
    if (!gl_FrontFacing) n = -n;
    vec4 mr = texture2D(u_mrTex, uvOf(1));
    float metal = clamp(u_metalRough.x * mr.b, 0.0, 1.0);
    float rough = clamp(u_metalRough.y * mr.g, 0.04, 1.0);
    float ao = 1.0 + u_occStrength * (texture2D(u_occTex, uvOf(3)).r - 1.0);
    vec3 v = normalize(u_eye - v_wpos);
    vec3 l = normalize(u_light);
    vec3 h = normalize(l + v);
    float nl = max(dot(n, l), 0.0);
    float nv = max(dot(n, v), 0.001);
    float nh = max(dot(n, h), 0.0);
    float vh = max(dot(v, h), 0.0);
    vec3 f0 = mix(vec3(0.04), base.rgb, metal);
    vec3 diffuse = base.rgb * (1.0 - metal);
    float a2 = rough * rough * rough * rough;
    float dd = nh * nh * (a2 - 1.0) + 1.0;
    float ndf = a2 / (3.14159 * dd * dd);
    float k = rough * rough * 0.5;
    float vis = 0.25 / ((nl * (1.0 - k) + k) * (nv * (1.0 - k) + k));
    vec3 fres = f0 + (1.0 - f0) * pow(1.0 - vh, 5.0);
    vec3 direct = ((1.0 - fres) * diffuse + fres * ndf * vis * 3.14159) * nl * 0.78;
    vec4 r4 = rough * vec4(-1.0, -0.0275, -0.572, 0.022) + vec4(1.0, 0.0425, 1.04, -0.04);
    float a004 = min(r4.x * r4.x, exp2(-9.28 * nv)) * r4.x + r4.y;
    vec2 ab = vec2(-1.04, 1.04) * a004 + r4.zw;
    vec3 refl = reflect(-v, n);
    float envSpec = mix(sky(refl), 1.0, rough * rough) * 0.5;
    vec3 ambient = (diffuse * 0.22 * sky(n) + (f0 * ab.x + ab.y) * envSpec) * ao;
    c = direct + ambient;
  }
  c += texture2D(u_emTex, uvOf(4)).rgb * u_emissive;
  gl_FragColor = vec4(clamp(c, 0.0, 1.0), alpha);
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

// DefaultView returns the view DrawModel uses: from the model's front
// (glTF's +Z), flat models (test charts, whose depth is under a tenth of
// their width or height) face on, as their authors intend them to be seen,
// and solid models from a little above, so that the top shows too.
func DefaultView(m *Model) View {
	dx, dy, dz := m.Max[0]-m.Min[0], m.Max[1]-m.Min[1], m.Max[2]-m.Min[2]
	if dz < 0.1*max(dx, dy) {
		return View{}
	}
	return View{Pitch: 0.3}
}

// DrawModel draws m into ctx's current framebuffer, which is width×height,
// from DefaultView(m). See DrawModelView.
func DrawModel(ctx gl.Context, m *Model, width, height int) (Stats, error) {
	return DrawModelView(ctx, m, width, height, DefaultView(m))
}

// camera is where a frame is seen from.
type camera struct {
	view, proj vmath.Mat4
	eye        vmath.Vec3
}

// DrawModelView draws m into ctx's current framebuffer, which is
// width×height: cleared to the Spot scene's background, a perspective
// camera placed along v at the distance where the bounding box just fits
// the frame, one directional light from the camera's upper left, depth
// testing, and one draw call per primitive instance with its material (see
// the shader comment above): opaque and alpha-tested (MASK) primitives
// first, then blended ones (BLEND) from back to front with depth writes
// off. Stats counts the triangles submitted. Every GL object it creates is
// deleted before it returns.
func DrawModelView(ctx gl.Context, m *Model, width, height int, v View) (Stats, error) {
	if width < 1 || height < 1 {
		return Stats{}, fmt.Errorf("scene: framebuffer %d×%d", width, height)
	}
	var cam camera
	cam.view, cam.proj, cam.eye = frame(m, v, float32(width)/float32(height))
	return drawModel(ctx, m, width, height, cam)
}

// DrawModelCamera draws m as DrawModelView does, seen through the model's
// camera i (a glTF camera placed by a node; see Model.Cameras). A camera
// without an aspect ratio takes the framebuffer's; one with an aspect
// ratio keeps it (the image is stretched to the framebuffer, as glTF
// viewers do when the two differ).
func DrawModelCamera(ctx gl.Context, m *Model, width, height, i int) (Stats, error) {
	if width < 1 || height < 1 {
		return Stats{}, fmt.Errorf("scene: framebuffer %d×%d", width, height)
	}
	if i < 0 || i >= len(m.Cameras) {
		return Stats{}, fmt.Errorf("scene: camera %d out of range (the model has %d)", i, len(m.Cameras))
	}
	c := m.Cameras[i]
	inv, ok := invertRigid(c.World)
	if !ok {
		return Stats{}, fmt.Errorf("scene: camera %d: its node's transform is not invertible", i)
	}
	cam := camera{view: inv, eye: vmath.Vec3{c.World[12], c.World[13], c.World[14]}}
	aspect := c.AspectRatio
	if aspect <= 0 {
		aspect = float32(width) / float32(height)
	}
	if c.Orthographic {
		cam.proj = orthographic(c.Xmag, c.Ymag, c.Znear, c.Zfar)
	} else {
		zfar := c.Zfar
		if zfar <= 0 { // infinite far plane: far enough for the model
			zfar = c.Znear * 1e5
		}
		cam.proj = vmath.Perspective(c.Yfov, aspect, c.Znear, zfar)
	}
	return drawModel(ctx, m, width, height, cam)
}

// invertRigid inverts a node transform made of rotation, uniform or
// non-uniform scale and translation (a camera's node; glTF forbids scale
// on cameras but files have it).
func invertRigid(m vmath.Mat4) (vmath.Mat4, bool) {
	// 3×3 inverse by cofactors, then the translation.
	a, b, c := m[0], m[4], m[8]
	d, e, f := m[1], m[5], m[9]
	g, h, k := m[2], m[6], m[10]
	det := a*(e*k-f*h) - b*(d*k-f*g) + c*(d*h-e*g)
	if det == 0 || math.IsNaN(float64(det)) {
		return vmath.Mat4{}, false
	}
	r := vmath.Identity()
	r[0], r[4], r[8] = (e*k-f*h)/det, (c*h-b*k)/det, (b*f-c*e)/det
	r[1], r[5], r[9] = (f*g-d*k)/det, (a*k-c*g)/det, (c*d-a*f)/det
	r[2], r[6], r[10] = (d*h-e*g)/det, (b*g-a*h)/det, (a*e-b*d)/det
	tx, ty, tz := m[12], m[13], m[14]
	r[12] = -(r[0]*tx + r[4]*ty + r[8]*tz)
	r[13] = -(r[1]*tx + r[5]*ty + r[9]*tz)
	r[14] = -(r[2]*tx + r[6]*ty + r[10]*tz)
	return r, true
}

// orthographic is glTF's orthographic projection (xmag, ymag are half
// the view's width and height).
func orthographic(xmag, ymag, znear, zfar float32) vmath.Mat4 {
	p := vmath.Identity()
	p[0] = 1 / xmag
	p[5] = 1 / ymag
	p[10] = 2 / (znear - zfar)
	p[14] = (zfar + znear) / (znear - zfar)
	return p
}

// uniforms are the model program's uniform locations.
type uniforms struct {
	mvp, model, normal, base, metalRough, emissive, normalScale, hasNormalTex gl.Uniform
	occStrength, lit, alphaMode, cutoff, light, eye, uvX, uvY, uvSet          gl.Uniform
}

// drawItem is one primitive of one instance, in drawing order.
type drawItem struct {
	inst, prim int
	depth      float32 // view-space distance of the primitive's centre, for sorting BLEND
}

func drawModel(ctx gl.Context, m *Model, width, height int, cam camera) (Stats, error) {
	if err := m.validate(); err != nil {
		return Stats{}, err
	}
	prog, err := program(ctx, vsModel, fsModel, "a_pos", "a_nrm", "a_uv", "a_color", "a_tangent", "a_uv1")
	if err != nil {
		return Stats{}, err
	}
	// Everything created here is deleted on return, on success or error:
	// GL keeps deleted objects alive until the submitted draws are done
	// with them, so the frame is unaffected and repeated draws do not leak.
	defer releaseProgram(ctx, prog)
	ctx.UseProgram(prog)
	uni := func(name string) gl.Uniform { return ctx.GetUniformLocation(prog, name) }
	u := uniforms{
		mvp: uni("u_mvp"), model: uni("u_model"), normal: uni("u_normal"), base: uni("u_base"),
		metalRough: uni("u_metalRough"), emissive: uni("u_emissive"), normalScale: uni("u_normalScale"),
		hasNormalTex: uni("u_hasNormalTex"), occStrength: uni("u_occStrength"), lit: uni("u_lit"),
		alphaMode: uni("u_alphaMode"), cutoff: uni("u_cutoff"), light: uni("u_light"), eye: uni("u_eye"),
		uvX: uni("u_uvX"), uvY: uni("u_uvY"), uvSet: uni("u_uvSet"),
	}
	for slot, name := range []string{"u_baseTex", "u_mrTex", "u_normalTex", "u_occTex", "u_emTex"} {
		ctx.Uniform1i(uni(name), slot)
	}

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
	for a := 0; a < 6; a++ {
		ctx.EnableVertexAttribArray(gl.Attrib{Value: uint(a)})
		defer ctx.DisableVertexAttribArray(gl.Attrib{Value: uint(a)})
	}

	// The light comes from the camera's upper left and a little behind it,
	// whatever the view, so the side facing the viewer is lit.
	inv := transpose3(cam.view)
	light := transformDir(inv, [3]float32{-0.4, 0.8, 0.6})
	ctx.Uniform3f(u.light, light[0], light[1], light[2])
	ctx.Uniform3f(u.eye, cam.eye[0], cam.eye[1], cam.eye[2])

	ctx.Viewport(0, 0, width, height)
	ctx.Enable(gl.DEPTH_TEST)
	ctx.DepthFunc(gl.LESS)
	ctx.DepthMask(true)
	ctx.CullFace(gl.BACK)
	ctx.ClearColor(0.18, 0.2, 0.24, 1)
	ctx.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)

	// Opaque and masked primitives in file order, then blended ones from
	// the farthest to the nearest (by the centre of their bounding box).
	var opaque, blended []drawItem
	for ii, in := range m.Instances {
		mv := vmath.Mul(cam.view, in.World)
		for pi, p := range m.Meshes[in.Mesh].Primitives {
			it := drawItem{inst: ii, prim: pi}
			if m.Materials[p.Material].AlphaMode != AlphaBlend {
				opaque = append(opaque, it)
				continue
			}
			var c [3]float32
			for j := range c {
				c[j] = (p.Min[j] + p.Max[j]) / 2
			}
			it.depth = -(mv[2]*c[0] + mv[6]*c[1] + mv[10]*c[2] + mv[14])
			blended = append(blended, it)
		}
	}
	sort.SliceStable(blended, func(a, b int) bool { return blended[a].depth > blended[b].depth })

	var st Stats
	draw := func(it drawItem) {
		in := m.Instances[it.inst]
		p := m.Meshes[in.Mesh].Primitives[it.prim]
		mat := m.Materials[p.Material]
		mvp := vmath.Mul(cam.proj, vmath.Mul(cam.view, in.World))
		nm, det := normalMatrix(in.World)
		ctx.UniformMatrix4fv(u.mvp, mvp[:])
		ctx.UniformMatrix4fv(u.model, in.World[:])
		ctx.UniformMatrix4fv(u.normal, nm[:])
		// A mirroring transform turns counter-clockwise faces clockwise
		// (glTF: the determinant's sign selects the winding).
		if det < 0 {
			ctx.FrontFace(gl.CW)
		} else {
			ctx.FrontFace(gl.CCW)
		}
		g := bufs[in.Mesh][it.prim]
		ctx.BindBuffer(gl.ARRAY_BUFFER, g.vbo)
		for a, f := range []struct{ size, off int }{{3, 0}, {3, 12}, {2, 24}, {4, 32}, {4, 48}, {2, 64}} {
			ctx.VertexAttribPointer(gl.Attrib{Value: uint(a)}, f.size, gl.FLOAT, false, ModelVertexFloats*4, f.off)
		}
		slots := [NumTextureSlots]int{mat.BaseColorTexture, mat.MetallicRoughnessTexture, mat.NormalTexture, mat.OcclusionTexture, mat.EmissiveTexture}
		var uvX, uvY [3 * NumTextureSlots]float32
		var uvSet [NumTextureSlots]float32
		for slot, ti := range slots {
			tex := textures.white
			if ti >= 0 {
				tex = textures.gl[ti]
			}
			ctx.ActiveTexture(gl.TEXTURE0 + gl.Enum(slot))
			ctx.BindTexture(gl.TEXTURE_2D, tex)
			t := mat.UV[slot].M
			uvX[3*slot], uvX[3*slot+1], uvX[3*slot+2] = t[0], t[2], t[4]
			uvY[3*slot], uvY[3*slot+1], uvY[3*slot+2] = t[1], t[3], t[5]
			uvSet[slot] = float32(mat.TexCoord[slot])
		}
		ctx.Uniform1fv(u.uvSet, uvSet[:])
		ctx.Uniform3fv(u.uvX, uvX[:])
		ctx.Uniform3fv(u.uvY, uvY[:])
		ctx.Uniform4f(u.base, mat.BaseColor[0], mat.BaseColor[1], mat.BaseColor[2], mat.BaseColor[3])
		ctx.Uniform2f(u.metalRough, mat.Metallic, mat.Roughness)
		ctx.Uniform3f(u.emissive, mat.Emissive[0], mat.Emissive[1], mat.Emissive[2])
		ctx.Uniform1f(u.normalScale, mat.NormalScale)
		ctx.Uniform1f(u.hasNormalTex, b2f(mat.NormalTexture >= 0 && p.Tangents))
		ctx.Uniform1f(u.occStrength, mat.OcclusionStrength)
		ctx.Uniform1f(u.lit, b2f(p.Lit && !mat.Unlit))
		ctx.Uniform1f(u.alphaMode, float32(mat.AlphaMode))
		ctx.Uniform1f(u.cutoff, mat.AlphaCutoff)
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
	ctx.Disable(gl.BLEND)
	for _, it := range opaque {
		draw(it)
	}
	if len(blended) > 0 {
		ctx.Enable(gl.BLEND)
		ctx.BlendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ONE, gl.ONE_MINUS_SRC_ALPHA)
		ctx.DepthMask(false)
		for _, it := range blended {
			draw(it)
		}
		ctx.DepthMask(true)
		ctx.Disable(gl.BLEND)
	}
	ctx.ActiveTexture(gl.TEXTURE0)
	ctx.Flush()
	if e := ctx.GetError(); e != gl.NO_ERROR {
		return Stats{}, fmt.Errorf("scene: GL error 0x%x", uint32(e))
	}
	return st, nil
}

func b2f(b bool) float32 {
	if b {
		return 1
	}
	return 0
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
		for _, t := range []int{mat.BaseColorTexture, mat.MetallicRoughnessTexture, mat.NormalTexture, mat.OcclusionTexture, mat.EmissiveTexture} {
			if t < -1 || t >= len(m.Textures) {
				return fmt.Errorf("scene: material %d: texture %d out of range", i, t)
			}
		}
		if mat.AlphaMode > AlphaBlend {
			return fmt.Errorf("scene: material %d: alpha mode %d", i, mat.AlphaMode)
		}
		for _, tc := range mat.TexCoord {
			if tc != 0 && tc != 1 {
				return fmt.Errorf("scene: material %d: texture coordinate set %d", i, tc)
			}
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

// frame places the camera: it looks from direction v at the model's
// vertices (every instance's, in world space; the bounding box's corners
// for a model without vertices), at the smallest distance at which they
// all fall inside a 40° (vertical) perspective frustum of the given aspect,
// plus a 4% margin, with the view centred on their silhouette, so the model
// fills the frame in its limiting dimension. The near and far planes hug
// the vertices.
func frame(m *Model, v View, aspect float32) (view, proj vmath.Mat4, eye vmath.Vec3) {
	cy, sy := float32(math.Cos(float64(v.Yaw))), float32(math.Sin(float64(v.Yaw)))
	cp, sp := float32(math.Cos(float64(v.Pitch))), float32(math.Sin(float64(v.Pitch)))
	back := vmath.Vec3{sy * cp, sp, cy * cp} // from the target towards the eye
	up := vmath.Vec3{0, 1, 0}
	if math.Abs(float64(sp)) > 0.999 {
		up = vmath.Vec3{0, 0, -1}
	}
	right := up.Cross(back).Normalize()
	upv := back.Cross(right)
	const fovy = 40 * math.Pi / 180
	ty := float32(math.Tan(fovy / 2))
	tx := ty * aspect

	// The points in the camera's axes (x right, y up, z towards the eye),
	// relative to the bounding box's centre.
	var c vmath.Vec3
	for j := 0; j < 3; j++ {
		c[j] = (m.Min[j] + m.Max[j]) / 2
	}
	pts := framePoints(m)
	for i, p := range pts {
		d := vmath.Vec3{p[0] - c[0], p[1] - c[1], p[2] - c[2]}
		pts[i] = [3]float32{d.Dot(right), d.Dot(upv), d.Dot(back)}
	}
	// fit returns the distance at which every point is inside the
	// frustum centred on (ox, oy) in the plane through the centre.
	fit := func(ox, oy float32) float32 {
		dist := float32(0)
		for _, p := range pts {
			// A point at depth z towards the eye is inside when
			// |x−ox| ≤ tx·(dist − z) and |y−oy| ≤ ty·(dist − z).
			dist = max(dist, p[2]+abs32(p[0]-ox)/tx, p[2]+abs32(p[1]-oy)/ty)
		}
		return dist
	}
	var ox, oy float32
	dist := fit(0, 0)
	if dist > 0 {
		// Centre the silhouette: shift the target by the middle of the
		// points' projected extent, then fit again.
		lx, hx, ly, hy := float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Inf(1)), float32(math.Inf(-1))
		for _, p := range pts {
			d := dist - p[2]
			lx, hx = min(lx, p[0]/d), max(hx, p[0]/d)
			ly, hy = min(ly, p[1]/d), max(hy, p[1]/d)
		}
		ox, oy = (lx+hx)/2*dist, (ly+hy)/2*dist
		dist = fit(ox, oy)
	}
	if dist <= 0 { // no extent: a unit view
		dist = 1
	}
	dist *= 1.04
	nearest, farthest := float32(math.Inf(1)), float32(0)
	for _, p := range pts {
		nearest = min(nearest, dist-p[2])
		farthest = max(farthest, dist-p[2])
	}
	if len(pts) == 0 {
		nearest, farthest = dist/2, dist*2
	}
	target := vmath.Vec3{c[0] + right[0]*ox + upv[0]*oy, c[1] + right[1]*ox + upv[1]*oy, c[2] + right[2]*ox + upv[2]*oy}
	eye = vmath.Vec3{target[0] + back[0]*dist, target[1] + back[1]*dist, target[2] + back[2]*dist}
	view = vmath.LookAt(eye, target, up)
	near := max(nearest*0.98, dist*0.001)
	far := max(farthest*1.02, near*2)
	proj = vmath.Perspective(fovy, aspect, near, far)
	return view, proj, eye
}

// maxFramePoints bounds the vertices frame looks at (evenly strided).
const maxFramePoints = 1 << 17

// framePoints returns the model's vertex positions in world space, at most
// about maxFramePoints of them, or its bounding box's corners.
func framePoints(m *Model) [][3]float32 {
	total := 0
	for _, in := range m.Instances {
		for _, p := range m.Meshes[in.Mesh].Primitives {
			total += len(p.Vertices) / ModelVertexFloats
		}
	}
	stride := max(1, total/maxFramePoints)
	pts := make([][3]float32, 0, min(total, maxFramePoints+len(m.Instances)))
	for _, in := range m.Instances {
		for _, p := range m.Meshes[in.Mesh].Primitives {
			for v := 0; v+ModelVertexFloats <= len(p.Vertices); v += stride * ModelVertexFloats {
				pts = append(pts, transformPoint(in.World, [3]float32{p.Vertices[v], p.Vertices[v+1], p.Vertices[v+2]}))
			}
		}
	}
	if len(pts) == 0 {
		for k := 0; k < 8; k++ {
			var p [3]float32
			for j := 0; j < 3; j++ {
				p[j] = m.Min[j]
				if k&(1<<j) != 0 {
					p[j] = m.Max[j]
				}
			}
			pts = append(pts, p)
		}
	}
	return pts
}

func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }

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

// Package scene is the application layer of tilegpu: model loading and
// drawing through gl.Context like any GL program. It sits above the whole
// stack and knows nothing below gl.Context.
//
// It loads Wavefront OBJ (LoadOBJ), binary and ASCII STL (LoadSTL) and glTF
// 2.0 (.gltf with data: URIs, or .glb; LoadGLTF) into a Model: meshes of
// primitives with interleaved float vertices, instances placed by the node
// hierarchy, base-colour materials, textures with their samplers, and decoded
// images. DrawSpot draws the default scene — Keenan Crane's Spot cow,
// textured, lit per pixel and depth-tested — and DrawModel draws any Model
// the same way: an auto-framed camera, one draw call per primitive instance
// with its material's texture, sampler state, colour and face culling.
//
// The loaders are where untrusted files enter: every index, offset and
// count is checked before use, and errors name the JSON path, accessor,
// facet or line that was wrong.
package scene

import (
	"bytes"
	_ "embed"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"math"

	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/internal/le"
	"github.com/tilegpu/tilegpu/internal/vmath"
)

//go:embed spot/spot.obj
var spotOBJ []byte

//go:embed spot/spot_texture.png
var spotPNG []byte

// Spot returns the Spot mesh (public domain, Keenan Crane; see spot/LICENSE.md).
func Spot() (*Mesh, error) { return LoadOBJ(bytes.NewReader(spotOBJ)) }

// SpotTexture returns Spot's 1024×1024 texture.
func SpotTexture() (*image.NRGBA, error) {
	img, err := png.Decode(bytes.NewReader(spotPNG))
	if err != nil {
		return nil, fmt.Errorf("scene: spot texture: %w", err)
	}
	n := image.NewNRGBA(img.Bounds())
	draw.Draw(n, n.Bounds(), img, img.Bounds().Min, draw.Src)
	return n, nil
}

const vsLit = `attribute vec3 a_pos;
attribute vec3 a_nrm;
attribute vec2 a_uv;
uniform mat4 u_mvp;
uniform mat4 u_model;
varying vec3 v_nrm;
varying vec3 v_wpos;
varying vec2 v_uv;
void main() {
  v_wpos = (u_model * vec4(a_pos, 1.0)).xyz;
  v_nrm = (u_model * vec4(a_nrm, 0.0)).xyz;
  v_uv = a_uv;
  gl_Position = u_mvp * vec4(a_pos, 1.0);
}
`

const fsLit = `precision mediump float;
uniform sampler2D u_tex;
uniform vec3 u_light;
uniform vec3 u_eye;
varying vec3 v_nrm;
varying vec3 v_wpos;
varying vec2 v_uv;
void main() {
  vec3 n = normalize(v_nrm);
  vec3 l = normalize(u_light);
  vec3 v = normalize(u_eye - v_wpos);
  vec3 albedo = texture2D(u_tex, v_uv).rgb;
  float diff = max(dot(n, l), 0.0);
  vec3 r = reflect(-l, n);
  float spec = diff > 0.0 ? pow(max(dot(r, v), 0.0), 24.0) : 0.0;
  vec3 c = albedo * (0.22 + 0.78 * diff) + 0.3 * spec * vec3(1.0);
  gl_FragColor = vec4(c, 1.0);
}
`

// Shaders returns the default scene's GLSL sources (for compiler reports).
func Shaders() (vs, fs string) { return vsLit, fsLit }

// Stats describes what a Draw call submitted.
type Stats struct {
	Triangles int
}

// DrawSpot draws the default scene into ctx's current framebuffer, which is
// width×height: the cow centred, seen from the front-left and slightly above,
// lit by one directional light, on the clear colour. Every GL object it
// creates (program, buffers, texture) is deleted before it returns, on
// success or error, so it can be called any number of times on one context;
// GL keeps the deleted objects alive until the submitted draw is done.
func DrawSpot(ctx gl.Context, width, height int) (Stats, error) {
	mesh, err := Spot()
	if err != nil {
		return Stats{}, err
	}
	tex, err := SpotTexture()
	if err != nil {
		return Stats{}, err
	}
	prog, err := program(ctx, vsLit, fsLit, "a_pos", "a_nrm", "a_uv")
	if err != nil {
		return Stats{}, err
	}
	defer releaseProgram(ctx, prog)
	ctx.UseProgram(prog)

	vbo, ibo := ctx.CreateBuffer(), ctx.CreateBuffer()
	defer func() {
		ctx.DeleteBuffer(vbo)
		ctx.DeleteBuffer(ibo)
	}()
	ctx.BindBuffer(gl.ARRAY_BUFFER, vbo)
	ctx.BufferData(gl.ARRAY_BUFFER, le.Float32s(mesh.Vertices), gl.STATIC_DRAW)
	ctx.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, ibo)
	ctx.BufferData(gl.ELEMENT_ARRAY_BUFFER, le.Uint32s(mesh.Indices), gl.STATIC_DRAW)
	for i, a := range []struct {
		size, off int
	}{{3, 0}, {3, 12}, {2, 24}} {
		ctx.EnableVertexAttribArray(gl.Attrib{Value: uint(i)})
		ctx.VertexAttribPointer(gl.Attrib{Value: uint(i)}, a.size, gl.FLOAT, false, VertexStride, a.off)
		defer ctx.DisableVertexAttribArray(gl.Attrib{Value: uint(i)})
	}

	// OBJ texture coordinates have t = 0 at the image's bottom row, and GL's
	// t = 0 is the first row uploaded: upload the PNG bottom row first.
	w, h := tex.Bounds().Dx(), tex.Bounds().Dy()
	flipped := make([]byte, w*h*4)
	for y := 0; y < h; y++ {
		copy(flipped[y*w*4:(y+1)*w*4], tex.Pix[(h-1-y)*tex.Stride:])
	}
	t := ctx.CreateTexture()
	defer ctx.DeleteTexture(t)
	ctx.ActiveTexture(gl.TEXTURE0)
	ctx.BindTexture(gl.TEXTURE_2D, t)
	ctx.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, w, h, gl.RGBA, gl.UNSIGNED_BYTE, flipped)
	ctx.GenerateMipmap(gl.TEXTURE_2D)
	ctx.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR)
	ctx.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
	ctx.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.REPEAT)
	ctx.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.REPEAT)
	ctx.Uniform1i(ctx.GetUniformLocation(prog, "u_tex"), 0)

	cam := NewSpotCamera(mesh, width, height)
	ctx.UniformMatrix4fv(ctx.GetUniformLocation(prog, "u_mvp"), cam.MVP[:])
	ctx.UniformMatrix4fv(ctx.GetUniformLocation(prog, "u_model"), cam.Model[:])
	ctx.Uniform3f(ctx.GetUniformLocation(prog, "u_light"), cam.Light[0], cam.Light[1], cam.Light[2])
	ctx.Uniform3f(ctx.GetUniformLocation(prog, "u_eye"), cam.Eye[0], cam.Eye[1], cam.Eye[2])

	ctx.Viewport(0, 0, width, height)
	ctx.Enable(gl.DEPTH_TEST)
	ctx.DepthFunc(gl.LESS)
	ctx.Enable(gl.CULL_FACE)
	ctx.CullFace(gl.BACK)
	ctx.ClearColor(0.18, 0.2, 0.24, 1)
	ctx.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	ctx.DrawElements(gl.TRIANGLES, len(mesh.Indices), gl.UNSIGNED_INT, 0)
	ctx.Flush()
	if e := ctx.GetError(); e != gl.NO_ERROR {
		return Stats{}, fmt.Errorf("scene: GL error 0x%x", uint32(e))
	}
	return Stats{Triangles: len(mesh.Indices) / 3}, nil
}

// SpotCamera holds the default scene's uniforms for one frame size: what
// DrawSpot sets as u_model, u_mvp, u_eye and u_light (so that another
// driver, such as pal, can render the same scene).
type SpotCamera struct {
	Model, MVP [16]float32 // column-major
	Eye, Light [3]float32
}

// NewSpotCamera centres mesh at the origin, scaled to a unit-sized box
// and turned, seen from the front-left and slightly above, for a
// width×height frame.
func NewSpotCamera(mesh *Mesh, width, height int) SpotCamera {
	var c [3]float32
	ext := float32(0)
	for j := 0; j < 3; j++ {
		c[j] = (mesh.Min[j] + mesh.Max[j]) / 2
		ext = max(ext, mesh.Max[j]-mesh.Min[j])
	}
	s := 1.6 / ext
	model := vmath.Mul(vmath.RotateY(math.Pi+0.6), vmath.Mul(vmath.Scale(s, s, s), vmath.Translate(-c[0], -c[1], -c[2])))
	eye := vmath.Vec3{0, 0.55, 2.9}
	view := vmath.LookAt(eye, vmath.Vec3{0, 0, 0}, vmath.Vec3{0, 1, 0})
	proj := vmath.Perspective(40*math.Pi/180, float32(width)/float32(height), 0.1, 20)
	return SpotCamera{Model: model, MVP: vmath.Mul(proj, vmath.Mul(view, model)), Eye: eye, Light: [3]float32{-0.4, 0.8, 0.6}}
}

// program compiles and links vs and fs, binding the named attributes to
// locations 0, 1, 2, ... in order. On error nothing it created is left.
func program(ctx gl.Context, vs, fs string, attribs ...string) (gl.Program, error) {
	p := ctx.CreateProgram()
	for _, st := range []struct {
		ty  gl.Enum
		src string
	}{{gl.VERTEX_SHADER, vs}, {gl.FRAGMENT_SHADER, fs}} {
		s := ctx.CreateShader(st.ty)
		ctx.ShaderSource(s, st.src)
		ctx.CompileShader(s)
		if ctx.GetShaderi(s, gl.COMPILE_STATUS) == 0 {
			err := fmt.Errorf("scene: compile: %s", ctx.GetShaderInfoLog(s))
			ctx.DeleteShader(s)
			for _, a := range ctx.GetAttachedShaders(p) {
				ctx.DeleteShader(a)
			}
			ctx.DeleteProgram(p)
			return gl.Program{}, err
		}
		ctx.AttachShader(p, s)
	}
	for i, n := range attribs {
		ctx.BindAttribLocation(p, gl.Attrib{Value: uint(i)}, n)
	}
	ctx.LinkProgram(p)
	// Flag the shaders for deletion: they go with the program.
	for _, s := range ctx.GetAttachedShaders(p) {
		ctx.DeleteShader(s)
	}
	if ctx.GetProgrami(p, gl.LINK_STATUS) == 0 {
		err := fmt.Errorf("scene: link: %s", ctx.GetProgramInfoLog(p))
		ctx.DeleteProgram(p)
		return gl.Program{}, err
	}
	return p, nil
}

// releaseProgram unbinds and deletes p (a program in use is only flagged
// for deletion, and would live on until the next UseProgram).
func releaseProgram(ctx gl.Context, p gl.Program) {
	ctx.UseProgram(gl.Program{})
	ctx.DeleteProgram(p)
}

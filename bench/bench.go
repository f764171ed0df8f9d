// Package bench holds the four benchmark scenes of shared/bench/SCENES.md
// (fill, blend, tex, tris), drawn through gl.Context exactly as the
// authoritative C definition (shared/bench/llvmpipe/glbench.c) draws them, so
// tilegpu's images and timings can be set beside Mesa's llvmpipe and fauxgl.
// It is an application of the stack: it knows nothing below gl.Context.
package bench

import (
	"fmt"
	"image"
	"math"
	"time"

	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/internal/le"
	"github.com/tilegpu/tilegpu/internal/vmath"
)

// Options sizes a scene. The defaults are SCENES.md's; tests use smaller ones
// (and reference images rendered by llvmpipe at the same sizes).
type Options struct {
	Width, Height  int // framebuffer size
	Quads          int // draws per frame in fill, blend and tex
	Stacks, Slices int // sphere resolution in tris
}

// DefaultOptions returns the sizes SCENES.md defines: 1920×1080, 100 quads,
// a 500×1000 sphere.
func DefaultOptions() Options {
	return Options{Width: 1920, Height: 1080, Quads: 100, Stacks: 500, Slices: 1000}
}

// Names lists the scenes.
func Names() []string { return []string{"fill", "blend", "tex", "tris"} }

const (
	vsFlat = `attribute vec2 a_pos;
varying vec2 v_uv;
void main(){ v_uv = a_pos*0.5+0.5; gl_Position = vec4(a_pos,0.0,1.0); }
`
	fsFlat = `precision mediump float;
uniform vec4 u_color;
void main(){ gl_FragColor = u_color; }
`
	fsTex = `precision mediump float;
uniform sampler2D u_tex;
varying vec2 v_uv;
void main(){ gl_FragColor = texture2D(u_tex, v_uv); }
`
	vsPhong = `attribute vec3 a_pos;
attribute vec3 a_nrm;
uniform mat4 u_mvp;
uniform mat4 u_model;
varying vec3 v_nrm;
varying vec3 v_wpos;
void main(){
  vec4 w = u_model*vec4(a_pos,1.0);
  v_wpos = w.xyz;
  v_nrm = (u_model*vec4(a_nrm,0.0)).xyz;
  gl_Position = u_mvp*vec4(a_pos,1.0);
}
`
	fsPhong = `precision highp float;
uniform vec3 u_light;
uniform vec3 u_eye;
varying vec3 v_nrm;
varying vec3 v_wpos;
void main(){
  vec3 n = normalize(v_nrm);
  vec3 l = normalize(u_light);
  vec3 v = normalize(u_eye - v_wpos);
  float d = max(dot(n,l),0.0);
  vec3 r = reflect(-l,n);
  float s = d > 0.0 ? pow(max(dot(r,v),0.0),32.0) : 0.0;
  vec3 c = vec3(0.1,0.1,0.12) + d*vec3(0.85,0.45,0.2) + s*vec3(1.0);
  gl_FragColor = vec4(c,1.0);
}
`
)

// Shaders returns the GLSL sources the scenes use, by name (VS_FLAT, FS_FLAT,
// FS_TEX, VS_PHONG, FS_PHONG as in glbench.c), for compiler tests and reports.
func Shaders() map[string]string {
	return map[string]string{"VS_FLAT": vsFlat, "FS_FLAT": fsFlat, "FS_TEX": fsTex, "VS_PHONG": vsPhong, "FS_PHONG": fsPhong}
}

// Scene is a set-up scene ready to draw frames.
type Scene struct {
	Name          string
	opt           Options
	ctx           gl.Context
	prog          gl.Program
	uColor        gl.Uniform
	quadAlpha     float32
	quads         bool
	indexCount    int
	TrisPerFrame  int
	fbo           gl.Framebuffer
	colorTex      gl.Texture
	depthRB       gl.Renderbuffer
	buffers       []gl.Buffer
	textures      []gl.Texture
	glErrorOnInit gl.Enum
}

// Setup creates the scene's FBO (RGBA8 texture + 24-bit depth renderbuffer),
// buffers, textures and program on ctx, as glbench.c does. Release deletes
// them; on error Setup deletes what it made.
func Setup(ctx gl.Context, name string, opt Options) (s *Scene, err error) {
	switch name {
	case "fill", "blend", "tex", "tris":
	default:
		return nil, fmt.Errorf("bench: unknown scene %q (want fill, blend, tex or tris)", name)
	}
	s = &Scene{Name: name, opt: opt, ctx: ctx, quadAlpha: 1, uColor: gl.Uniform{Value: -1}}
	made := s // the error returns below set s to nil
	defer func() {
		if err != nil {
			made.Release()
		}
	}()
	W, H := opt.Width, opt.Height

	s.colorTex = ctx.CreateTexture()
	ctx.BindTexture(gl.TEXTURE_2D, s.colorTex)
	ctx.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, W, H, gl.RGBA, gl.UNSIGNED_BYTE, nil)
	ctx.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	s.depthRB = ctx.CreateRenderbuffer()
	ctx.BindRenderbuffer(gl.RENDERBUFFER, s.depthRB)
	ctx.RenderbufferStorage(gl.RENDERBUFFER, gl.DEPTH_COMPONENT24_OES, W, H)
	s.fbo = ctx.CreateFramebuffer()
	ctx.BindFramebuffer(gl.FRAMEBUFFER, s.fbo)
	ctx.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, s.colorTex, 0)
	ctx.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, s.depthRB)
	if st := ctx.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
		return nil, fmt.Errorf("bench: framebuffer incomplete: status 0x%x", st)
	}
	ctx.Viewport(0, 0, W, H)

	if name != "tris" {
		s.quads = true
		quad := []float32{-1, -1, 1, -1, -1, 1, 1, 1}
		vbo := ctx.CreateBuffer()
		s.buffers = append(s.buffers, vbo)
		ctx.BindBuffer(gl.ARRAY_BUFFER, vbo)
		ctx.BufferData(gl.ARRAY_BUFFER, le.Float32s(quad), gl.STATIC_DRAW)
		ctx.EnableVertexAttribArray(gl.Attrib{Value: 0})
		ctx.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, 0)
		if name == "tex" {
			if s.prog, err = Program(ctx, vsFlat, fsTex); err != nil {
				return nil, err
			}
			ctx.UseProgram(s.prog)
			tex := ctx.CreateTexture()
			s.textures = append(s.textures, tex)
			ctx.ActiveTexture(gl.TEXTURE0)
			ctx.BindTexture(gl.TEXTURE_2D, tex)
			ctx.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 1024, 1024, gl.RGBA, gl.UNSIGNED_BYTE, TexImage())
			ctx.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR)
			ctx.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
			ctx.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
			ctx.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE)
			ctx.Uniform1i(ctx.GetUniformLocation(s.prog, "u_tex"), 0)
		} else {
			if s.prog, err = Program(ctx, vsFlat, fsFlat); err != nil {
				return nil, err
			}
			ctx.UseProgram(s.prog)
			s.uColor = ctx.GetUniformLocation(s.prog, "u_color")
		}
		ctx.Disable(gl.DEPTH_TEST)
		if name == "blend" {
			ctx.Enable(gl.BLEND)
			ctx.BlendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA)
			s.quadAlpha = 0.5
		} else {
			ctx.Disable(gl.BLEND)
		}
		s.TrisPerFrame = 2 * opt.Quads
	} else {
		verts, idx := Sphere(opt.Stacks, opt.Slices)
		s.indexCount = len(idx)
		vbo, ibo := ctx.CreateBuffer(), ctx.CreateBuffer()
		s.buffers = append(s.buffers, vbo, ibo)
		ctx.BindBuffer(gl.ARRAY_BUFFER, vbo)
		ctx.BufferData(gl.ARRAY_BUFFER, le.Float32s(verts), gl.STATIC_DRAW)
		ctx.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, ibo)
		ctx.BufferData(gl.ELEMENT_ARRAY_BUFFER, le.Uint32s(idx), gl.STATIC_DRAW)
		ctx.EnableVertexAttribArray(gl.Attrib{Value: 0})
		ctx.VertexAttribPointer(gl.Attrib{Value: 0}, 3, gl.FLOAT, false, 24, 0)
		ctx.EnableVertexAttribArray(gl.Attrib{Value: 1})
		ctx.VertexAttribPointer(gl.Attrib{Value: 1}, 3, gl.FLOAT, false, 24, 12)
		if s.prog, err = Program(ctx, vsPhong, fsPhong); err != nil {
			return nil, err
		}
		ctx.UseProgram(s.prog)
		model := vmath.Mul(vmath.RotateX(0.4), vmath.RotateY(0.6))
		view := vmath.Translate(0, 0, -3)
		// The aspect is SCENES.md's 1920/1080 whatever the test size, as in the
		// reference images (bench/testdata/gen-refs.sh).
		proj := vmath.Perspective(45*math.Pi/180, 1920.0/1080.0, 0.1, 100)
		mvp := vmath.Mul(proj, vmath.Mul(view, model))
		ctx.UniformMatrix4fv(ctx.GetUniformLocation(s.prog, "u_mvp"), mvp[:])
		ctx.UniformMatrix4fv(ctx.GetUniformLocation(s.prog, "u_model"), model[:])
		ctx.Uniform3f(ctx.GetUniformLocation(s.prog, "u_light"), 0.5, 0.7, 1.0)
		ctx.Uniform3f(ctx.GetUniformLocation(s.prog, "u_eye"), 0, 0, 3)
		ctx.Enable(gl.DEPTH_TEST)
		ctx.DepthFunc(gl.LESS)
		ctx.Disable(gl.CULL_FACE)
		s.TrisPerFrame = len(idx) / 3
	}
	ctx.ClearColor(0.2, 0.2, 0.25, 1)
	if e := ctx.GetError(); e != gl.NO_ERROR {
		return nil, fmt.Errorf("bench: %s: GL error 0x%x during setup", name, e)
	}
	return s, nil
}

// Release deletes every GL object Setup created (framebuffer, its
// attachments, buffers, textures, program) and binds the default
// framebuffer; the Scene must not be used afterwards.
func (s *Scene) Release() {
	ctx := s.ctx
	ctx.BindFramebuffer(gl.FRAMEBUFFER, gl.Framebuffer{})
	ctx.DeleteFramebuffer(s.fbo)
	ctx.DeleteRenderbuffer(s.depthRB)
	ctx.DeleteTexture(s.colorTex)
	for _, b := range s.buffers {
		ctx.DeleteBuffer(b)
	}
	for _, t := range s.textures {
		ctx.DeleteTexture(t)
	}
	if s.prog.Init {
		ctx.UseProgram(gl.Program{})
		ctx.DeleteProgram(s.prog)
	}
	s.buffers, s.textures = nil, nil
}

// Frame draws one frame: clear, the scene's draws, glFlush.
func (s *Scene) Frame() {
	ctx := s.ctx
	ctx.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	if s.quads {
		for k := 0; k < s.opt.Quads; k++ {
			if s.uColor.Value >= 0 {
				ctx.Uniform4f(s.uColor, float32(k%10)/10, float32(k%7)/7, float32(k%3)/3, s.quadAlpha)
			}
			ctx.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		}
	} else {
		ctx.DrawElements(gl.TRIANGLES, s.indexCount, gl.UNSIGNED_INT, 0)
	}
	ctx.Flush()
}

// Result is what Run measured.
type Result struct {
	Frames     int
	Warmup     time.Duration
	Elapsed    time.Duration
	MsPerFrame float64
	GLError    gl.Enum
}

// String formats r as glbench.c does, with the scene name.
func (r Result) String(s *Scene) string {
	mpix := ""
	if s.quads {
		mpix = fmt.Sprintf(" Mpix/s=%.1f", float64(s.opt.Width*s.opt.Height*s.opt.Quads)/(r.MsPerFrame*1000))
	}
	return fmt.Sprintf("scene=%s frames=%d warmup_ms=%.1f ms/frame=%.2f fps=%.2f tris/frame=%d Mtris/s=%.2f%s glError=0x%x",
		s.Name, r.Frames, float64(r.Warmup.Microseconds())/1000, r.MsPerFrame, 1000/r.MsPerFrame,
		s.TrisPerFrame, float64(s.TrisPerFrame)/(r.MsPerFrame*1000), mpix, uint32(r.GLError))
}

// Run times the scene as SCENES.md says: one warm-up frame and glFinish, then
// frames frames and one glFinish after the last.
func (s *Scene) Run(frames int) Result {
	if frames < 1 {
		frames = 1
	}
	t0 := time.Now()
	s.Frame()
	s.ctx.Finish()
	warm := time.Since(t0)
	t0 = time.Now()
	for f := 0; f < frames; f++ {
		s.Frame()
	}
	s.ctx.Finish()
	el := time.Since(t0)
	return Result{Frames: frames, Warmup: warm, Elapsed: el,
		MsPerFrame: float64(el.Nanoseconds()) / 1e6 / float64(frames), GLError: s.ctx.GetError()}
}

// ReadPixels reads the scene's framebuffer with glReadPixels and returns it
// top row first (flipped from GL's bottom-up order), as glbench.c writes PNGs.
func (s *Scene) ReadPixels() *image.NRGBA {
	W, H := s.opt.Width, s.opt.Height
	px := make([]byte, W*H*4)
	s.ctx.ReadPixels(px, 0, 0, W, H, gl.RGBA, gl.UNSIGNED_BYTE)
	img := image.NewNRGBA(image.Rect(0, 0, W, H))
	for y := 0; y < H; y++ {
		copy(img.Pix[y*img.Stride:y*img.Stride+W*4], px[(H-1-y)*W*4:(H-y)*W*4])
	}
	return img
}

// CoveredPixels counts pixels that differ from the clear colour, as glbench.c
// does for tris.
func CoveredPixels(img *image.NRGBA) int {
	n := 0
	for i := 0; i < len(img.Pix); i += 4 {
		if img.Pix[i] != 51 || img.Pix[i+2] != 64 {
			n++
		}
	}
	return n
}

// TexImage returns the 1024×1024 RGBA8 texture of the tex scene: texel (x,y)
// = (x/4, y/4, ((x>>5)^(y>>5))&1 ? 255 : 40, 255).
func TexImage() []byte {
	img := make([]byte, 1024*1024*4)
	for y := 0; y < 1024; y++ {
		for x := 0; x < 1024; x++ {
			p := img[(y*1024+x)*4:]
			p[0], p[1] = byte(x/4), byte(y/4)
			p[2] = 40
			if ((x>>5)^(y>>5))&1 != 0 {
				p[2] = 255
			}
			p[3] = 255
		}
	}
	return img
}

// Sphere returns the tris scene's latitude/longitude sphere: interleaved
// position+normal float32s and uint32 triangle indices.
func Sphere(stacks, slices int) ([]float32, []uint32) {
	v := make([]float32, 0, 6*(stacks+1)*(slices+1))
	for i := 0; i <= stacks; i++ {
		th := math.Pi * float64(i) / float64(stacks)
		for j := 0; j <= slices; j++ {
			ph := 2 * math.Pi * float64(j) / float64(slices)
			x := float32(math.Sin(th) * math.Cos(ph))
			y := float32(math.Cos(th))
			z := float32(math.Sin(th) * math.Sin(ph))
			v = append(v, x, y, z, x, y, z)
		}
	}
	idx := make([]uint32, 0, stacks*slices*6)
	for i := 0; i < stacks; i++ {
		for j := 0; j < slices; j++ {
			a := uint32(i*(slices+1) + j)
			b, c := a+1, a+uint32(slices)+1
			d := c + 1
			idx = append(idx, a, c, b, b, c, d)
		}
	}
	return v, idx
}

// Program compiles and links a program with a_pos at attribute 0 and a_nrm at
// 1, returning the info log as the error on failure. The shaders are
// flagged for deletion (they go with the program); on failure nothing it
// created is left.
func Program(ctx gl.Context, vs, fs string) (gl.Program, error) {
	compile := func(ty gl.Enum, src string) (gl.Shader, error) {
		s := ctx.CreateShader(ty)
		ctx.ShaderSource(s, src)
		ctx.CompileShader(s)
		if ctx.GetShaderi(s, gl.COMPILE_STATUS) == 0 {
			err := fmt.Errorf("compile: %s", ctx.GetShaderInfoLog(s))
			ctx.DeleteShader(s)
			return gl.Shader{}, err
		}
		return s, nil
	}
	v, err := compile(gl.VERTEX_SHADER, vs)
	if err != nil {
		return gl.Program{}, err
	}
	f, err := compile(gl.FRAGMENT_SHADER, fs)
	if err != nil {
		ctx.DeleteShader(v)
		return gl.Program{}, err
	}
	p := ctx.CreateProgram()
	ctx.AttachShader(p, v)
	ctx.AttachShader(p, f)
	ctx.DeleteShader(v)
	ctx.DeleteShader(f)
	ctx.BindAttribLocation(p, gl.Attrib{Value: 0}, "a_pos")
	ctx.BindAttribLocation(p, gl.Attrib{Value: 1}, "a_nrm")
	ctx.LinkProgram(p)
	if ctx.GetProgrami(p, gl.LINK_STATUS) == 0 {
		err := fmt.Errorf("link: %s", ctx.GetProgramInfoLog(p))
		ctx.DeleteProgram(p)
		return gl.Program{}, err
	}
	return p, nil
}

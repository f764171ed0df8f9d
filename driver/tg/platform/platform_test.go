package platform

import (
	"errors"
	"testing"

	"github.com/tilegpu/tilegpu/driver/tg"
	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/kernel"
	"github.com/tilegpu/tilegpu/pipe"
)

func openFile(t *testing.T, mem int) *kernel.File {
	t.Helper()
	gpu := hw.New(hw.Config{MemorySize: mem, Cores: 1})
	dev := kernel.NewDevice(gpu, kernel.Options{})
	f, err := dev.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(); dev.Close(); gpu.Close() })
	return f
}

func TestWinsysMapsKernelErrors(t *testing.T) {
	w := Winsys{F: openFile(t, 8<<20)}
	h, m, err := w.CreateBO(5000)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 8192 {
		t.Errorf("mapping of %d bytes, want the rounded 8192", len(m))
	}
	m[0] = 42 // the mapping is writable memory
	if err := w.WaitBO(h, 0); err != nil {
		t.Errorf("idle BO: %v", err)
	}
	if _, _, err := w.CreateBO(64 << 20); !errors.Is(err, tg.ErrNoMemory) || !errors.Is(err, kernel.ENOMEM) {
		t.Errorf("oversized BO: %v, want both tg.ErrNoMemory and kernel.ENOMEM", err)
	}
	if err := w.CloseBO(h); err != nil {
		t.Fatal(err)
	}
	if err := w.CloseBO(h); !errors.Is(err, kernel.ENOENT) {
		t.Errorf("double close: %v, want ENOENT", err)
	}
	if _, err := w.Submit(&tg.Submit{Width: 16, Height: 16}); !errors.Is(err, kernel.EINVAL) {
		t.Errorf("empty bin CL: %v, want EINVAL", err)
	}
	if n, err := w.GetParam(tg.KernelParamNumQPUs); err != nil || n == 0 {
		t.Errorf("NumQPUs = %d, %v", n, err)
	}
}

func TestCompilerAdapter(t *testing.T) {
	var c Compiler
	vs := c.Compile(pipe.StageVertex, `attribute vec4 a_pos;
uniform mat4 u_m;
uniform vec3 u_v[2];
void main() { gl_Position = u_m * a_pos + vec4(u_v[1], 0.0); }`)
	fs := c.Compile(pipe.StageFragment, "precision mediump float; uniform sampler2D u_t; void main() { gl_FragColor = texture2D(u_t, vec2(0.5)); }")
	if !vs.OK() || !fs.OK() || vs.Stage() != pipe.StageVertex || fs.Stage() != pipe.StageFragment {
		t.Fatalf("compile: %s %s", vs.Log(), fs.Log())
	}
	bad := c.Compile(pipe.StageFragment, "void main() { gl_FragColor = nope; }")
	if bad.OK() || bad.Log() == "" {
		t.Error("an undeclared identifier compiled")
	}
	lp := c.Link(vs, fs, map[string]int{"a_pos": 3})
	if !lp.OK() {
		t.Fatalf("link: %s", lp.Log())
	}
	if a := lp.Attributes(); len(a) != 1 || a[0].Location != 3 || a[0].Type != 0x8B52 {
		t.Errorf("attributes %+v", a)
	}
	var sawArray, sawSampler bool
	for _, u := range lp.Uniforms() {
		if u.Name == "u_v[0]" && u.Size == 2 && u.Stride >= 3 {
			sawArray = true
		}
		if u.Name == "u_t" && u.Type == 0x8B5E {
			sawSampler = true
		}
	}
	if !sawArray || !sawSampler {
		t.Errorf("uniforms %+v", lp.Uniforms())
	}
	v, err := lp.Variant(tg.VariantKey{})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.VS.Code) == 0 || len(v.FS.Code) == 0 || len(v.Attributes) != 1 || v.Attributes[0] != 3 {
		t.Errorf("variant %+v", v)
	}
	tex := false
	for _, u := range v.FS.Uniforms {
		tex = tex || u.Kind == tg.UniformTexture
	}
	if !tex {
		t.Error("fragment stream has no texture entry")
	}
	if lp := c.Link(bad, fs, nil); lp.OK() {
		t.Error("linking a failed shader succeeded")
	}
}

package platform

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/compiler"
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

// TestUniformKindsConverted checks that every uniform kind the compiler
// emits reaches the driver as the matching kind, and that a kind the
// driver does not know is an error naming it and the stage.
func TestUniformKindsConverted(t *testing.T) {
	entries := []compiler.UniformEntry{
		{Kind: compiler.UniformStorage, Index: 3}, {Kind: compiler.UniformConstant, Value: 0x3f800000},
		{Kind: compiler.UniformTexture, Index: 1}, {Kind: compiler.UniformStorageAddress},
		{Kind: compiler.UniformScratchAddress}, {Kind: compiler.UniformStreamAddress},
		{Kind: compiler.UniformDerived, Index: 2},
	}
	want := []tg.UniformEntry{
		{Kind: tg.UniformStorage, Index: 3}, {Kind: tg.UniformConstant, Value: 0x3f800000},
		{Kind: tg.UniformTexture, Index: 1}, {Kind: tg.UniformStorageAddress},
		{Kind: tg.UniformScratchAddress}, {Kind: tg.UniformStreamAddress},
		{Kind: tg.UniformDerived, Index: 2},
	}
	b, err := binary("fragment", &compiler.Binary{Code: []uint64{1}, Uniforms: entries, ScratchBytesPerThread: 64})
	if err != nil {
		t.Fatal(err)
	}
	if b.ScratchBytesPerThread != 64 || len(b.Uniforms) != len(want) {
		t.Fatalf("converted %+v", b)
	}
	for i := range want {
		if b.Uniforms[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, b.Uniforms[i], want[i])
		}
	}
	unknown := compiler.UniformDerived + 1
	_, err = binary("vertex", &compiler.Binary{Uniforms: []compiler.UniformEntry{entries[0], {Kind: unknown}}})
	if err == nil || !strings.Contains(err.Error(), "vertex shader uniform stream entry 1 has kind") {
		t.Errorf("unknown kind: %v", err)
	}
}

// TestSpillingShaderVariant links a shader that spills through the
// adapter: its stream carries a scratch address and its binary a
// per-thread scratch size, which the driver must honour.
func TestSpillingShaderVariant(t *testing.T) {
	var src strings.Builder
	src.WriteString("precision highp float;\nuniform vec4 u[24];\nvoid main() {\n")
	for i := range 96 {
		fmt.Fprintf(&src, "\tfloat a%d = mod(gl_FragCoord.x * %d.0 + u[%d].%c, 128.0);\n", i, i%13+1, i/4, "xyzw"[i%4])
	}
	src.WriteString("\tfloat s = 0.0;\n")
	for i := range 48 {
		fmt.Fprintf(&src, "\ts += a%d * a%d;\n", i, 95-i)
	}
	src.WriteString("\tgl_FragColor = vec4(s);\n}\n")
	var c Compiler
	lp := c.Link(c.Compile(pipe.StageVertex, "attribute vec4 p; void main() { gl_Position = p; }"),
		c.Compile(pipe.StageFragment, src.String()), nil)
	if !lp.OK() {
		t.Fatalf("link: %s", lp.Log())
	}
	v, err := lp.Variant(tg.VariantKey{})
	if err != nil {
		t.Fatal(err)
	}
	scratch := false
	for _, u := range v.FS.Uniforms {
		scratch = scratch || u.Kind == tg.UniformScratchAddress
	}
	if v.FS.ScratchBytesPerThread == 0 || !scratch {
		t.Errorf("fragment shader: %d scratch bytes per thread, scratch-address entry %v; want both", v.FS.ScratchBytesPerThread, scratch)
	}
}

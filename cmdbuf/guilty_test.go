package cmdbuf_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/cmdbuf"
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/internal/le"
)

// TestHungGPUWorkLosesTheContext: a client whose draw runs far past the
// kernel watchdog's hard cap is reset by the kernel (guilty); the service
// turns that into a lost context for that client only. (Whether other
// clients' GPU work right after the reset completes is the kernel's and
// hardware's business: on this tree the guilty shader keeps the GPU busy
// for a while after the reset, see /work/notes/cmdbuf.md.)
func TestHungGPUWorkLosesTheContext(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a GPU job until the watchdog kills it")
	}
	s := newService(t, cmdbuf.ServiceConfig{JobTimeout: 100 * time.Millisecond}) // hard cap 12× = 1.2 s
	tr, _ := cmdbuf.NewInProcess(s)
	c, err := cmdbuf.NewClient(tr, cmdbuf.Options{Width: 128, Height: 128})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	otr, _ := cmdbuf.NewInProcess(s)
	other, err := cmdbuf.NewClient(otr, cmdbuf.Options{Width: 8, Height: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	vs := "attribute vec2 p; void main(){ gl_Position = vec4(p, 0.0, 1.0); }"
	fs := `precision highp float;
uniform float u;
void main() {
	float x = 0.0;
	for (int i = 0; i < 2000000; i++) { x = x * 0.5 + u; }
	gl_FragColor = vec4(x);
}`
	prog, err := bench.Program(c, vs, fs)
	if err != nil {
		t.Fatal(err)
	}
	c.UseProgram(prog)
	c.Uniform1f(c.GetUniformLocation(prog, "u"), 0.25)
	vbo := c.CreateBuffer()
	c.BindBuffer(gl.ARRAY_BUFFER, vbo)
	c.BufferData(gl.ARRAY_BUFFER, le.Float32s([]float32{-1, -1, 1, -1, -1, 1, 1, 1}), gl.STATIC_DRAW)
	c.EnableVertexAttribArray(gl.Attrib{Value: 0})
	c.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, 0)
	c.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	c.Finish()
	// The reset shows at the context's next submission.
	c.Clear(gl.COLOR_BUFFER_BIT)
	c.Finish()
	if err := c.Err(); !errors.Is(err, cmdbuf.ErrContextLost) || !strings.Contains(err.Error(), "faulted or hung") {
		t.Fatalf("after a hung draw: Err = %v, GetError = 0x%x", err, c.GetError())
	}
	if e := c.GetError(); e != cmdbuf.ContextLost {
		t.Errorf("GetError = 0x%x, want CONTEXT_LOST", e)
	}
	// The other client's context is untouched by the reset.
	other.ClearColor(0, 1, 0, 1)
	if e := other.GetError(); e != gl.NO_ERROR || other.Err() != nil {
		t.Errorf("the other client: GetError 0x%x, Err %v", e, other.Err())
	}
}

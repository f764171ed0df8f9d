package cmdbuf_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/cmdbuf"
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/internal/crashdec"
	"github.com/tilegpu/tilegpu/internal/le"
)

// TestServiceCrashDump: a service with CrashDumpDir leaves a dump for a
// client's hung draw, logs its path with the lost context, and the dump
// names the draw (the client's second: the service's drivers put draw
// markers in every client's control lists).
func TestServiceCrashDump(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a GPU job until the watchdog kills it")
	}
	dir := t.TempDir()
	var mu sync.Mutex
	var logged []string
	s := newService(t, cmdbuf.ServiceConfig{JobTimeout: 100 * time.Millisecond, CrashDumpDir: dir, Logf: func(format string, args ...any) {
		mu.Lock()
		logged = append(logged, fmt.Sprintf(format, args...))
		mu.Unlock()
	}})
	tr, _ := cmdbuf.NewInProcess(s)
	c, err := cmdbuf.NewClient(tr, cmdbuf.Options{Width: 64, Height: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	vs := "attribute vec2 p; void main(){ gl_Position = vec4(p, 0.0, 1.0); }"
	fs := `precision highp float;
uniform float u;
void main() {
	float x = 0.0;
	for (int i = 0; i < 2000000; i++) { x = x * 0.5 + u; if (u > 1.0) break; }
	gl_FragColor = vec4(x);
}`
	prog, err := bench.Program(c, vs, fs)
	if err != nil {
		t.Fatal(err)
	}
	c.UseProgram(prog)
	loc := c.GetUniformLocation(prog, "u")
	vbo := c.CreateBuffer()
	c.BindBuffer(gl.ARRAY_BUFFER, vbo)
	c.BufferData(gl.ARRAY_BUFFER, le.Float32s([]float32{-1, -1, 1, -1, -1, 1, 1, 1}), gl.STATIC_DRAW)
	c.EnableVertexAttribArray(gl.Attrib{Value: 0})
	c.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, 0)
	c.Uniform1f(loc, 2) // draw 1: the loop breaks at once
	c.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	c.Uniform1f(loc, 0.25) // draw 2: two million iterations per pixel
	c.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	c.Finish()
	c.Clear(gl.COLOR_BUFFER_BIT) // the reset shows at the next submission
	c.Finish()
	if err := c.Err(); !errors.Is(err, cmdbuf.ErrContextLost) {
		t.Fatalf("after a hung draw: Err = %v", err)
	}
	dumps, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(dumps) != 1 {
		t.Fatalf("dumps in %s: %v, want one", dir, dumps)
	}
	mu.Lock()
	log := strings.Join(logged, "\n")
	mu.Unlock()
	if !strings.Contains(log, "crash dump "+dumps[0]) {
		t.Errorf("the service log does not name the dump %s:\n%s", dumps[0], log)
	}
	data, err := os.ReadFile(dumps[0])
	if err != nil {
		t.Fatal(err)
	}
	d, err := crashdec.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := crashdec.Decode(&out, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "draw: 2 ") {
		t.Errorf("crashdec does not name draw 2:\n%s", out.String())
	}
}

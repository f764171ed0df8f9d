package gles_test

import (
	"testing"
	"unsafe"

	"github.com/tilegpu/tilegpu/gl"
)

// Client-side vertex and index arrays (gles.Native, the C ABI's
// glVertexAttribPointer / glDrawElements) drawn through the whole stack.
func TestClientArraysDraw(t *testing.T) {
	ctx, g := newStack(t, 16, 8, 1)
	n := ctx.GLES()
	program(t, g, `attribute vec2 a_pos; attribute vec4 a_col; varying vec4 v;
void main() { v = a_col; gl_Position = vec4(a_pos, 0.0, 1.0); }`,
		`precision mediump float; varying vec4 v; void main() { gl_FragColor = v; }`)
	p := n.GetInteger(gl.CURRENT_PROGRAM)
	col := g.GetAttribLocation(gl.Program{Init: true, Value: uint32(p)}, "a_col")
	// Left half red from DrawArraysNative; vertices 0..3 of a longer array
	// starting at vertex 2 exercise first > 0.
	pos := []float32{9, 9, 9, 9, -1, -1, 0, -1, -1, 1, 0, 1}
	red := []byte{0, 0, 0, 0, 0, 0, 0, 0, 255, 0, 0, 255, 255, 0, 0, 255, 255, 0, 0, 255, 255, 0, 0, 255}
	n.VertexAttribPointerNative(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, unsafe.Pointer(&pos[0]))
	n.VertexAttribPointerNative(col, 4, gl.UNSIGNED_BYTE, true, 0, unsafe.Pointer(&red[0]))
	g.EnableVertexAttribArray(gl.Attrib{Value: 0})
	g.EnableVertexAttribArray(col)
	g.ClearColor(0, 0, 1, 1)
	g.Clear(gl.COLOR_BUFFER_BIT)
	n.DrawArraysNative(gl.TRIANGLE_STRIP, 2, 4)
	checkGL(t, ctx, "DrawArraysNative")
	// Right half green from client indices into client arrays.
	pos2 := []float32{0, -1, 1, -1, 0, 1, 1, 1}
	green := []byte{0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255}
	idx := []uint16{0, 1, 2, 2, 1, 3}
	n.VertexAttribPointerNative(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, unsafe.Pointer(&pos2[0]))
	n.VertexAttribPointerNative(col, 4, gl.UNSIGNED_BYTE, true, 0, unsafe.Pointer(&green[0]))
	n.DrawElementsNative(gl.TRIANGLES, 6, gl.UNSIGNED_SHORT, unsafe.Pointer(&idx[0]))
	checkGL(t, ctx, "DrawElementsNative")
	px := pixels(t, ctx, 16, 8)
	at := func(x, y int) [4]byte { i := (y*16 + x) * 4; return [4]byte(px[i : i+4]) }
	if got := at(2, 4); got != [4]byte{255, 0, 0, 255} {
		t.Errorf("left half %v, want red", got)
	}
	if got := at(13, 4); got != [4]byte{0, 255, 0, 255} {
		t.Errorf("right half %v, want green", got)
	}
	// Client arrays with indices from an element buffer.
	eb := g.CreateBuffer()
	g.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, eb)
	g.BufferData(gl.ELEMENT_ARRAY_BUFFER, []byte{0, 1, 2, 2, 1, 3}, gl.STATIC_DRAW)
	n.VertexAttribPointerNative(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, unsafe.Pointer(&pos[4]))
	n.DrawElementsNative(gl.TRIANGLES, 6, gl.UNSIGNED_BYTE, nil)
	checkGL(t, ctx, "DrawElementsNative with an element buffer")
	px = pixels(t, ctx, 16, 8)
	if got := at(2, 4); got != [4]byte{0, 255, 0, 255} {
		t.Errorf("left half after the indexed draw %v, want green", got)
	}
}

package tg

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/pipe"
)

// sumPreShader is a PreShader computing derived[0] = storage[0]+storage[1]
// and derived[1] = storage[2]·2 (integer words), counting its runs.
type sumPreShader struct{ runs int }

func (p *sumPreShader) Len() int        { return 2 }
func (p *sumPreShader) ValueWords() int { return 1 }
func (p *sumPreShader) Eval(storage, vals, derived []uint32) {
	p.runs++
	vals[0] = storage[0] + storage[1]
	derived[0], derived[1] = vals[0], storage[2]*2
}

// TestPreShaderOncePerStorageChange draws three times with a variant whose
// fragment stream reads two derived words: the pre-shader runs for the
// first draw and again only after the storage changed, and the streams
// carry its outputs.
func TestPreShaderOncePerStorageChange(t *testing.T) {
	pre := &sumPreShader{}
	r := newRigWith(t, "fs", func(v *Variant) {
		v.PreShader = pre
		v.FS.Uniforms = append(v.FS.Uniforms, UniformEntry{Kind: UniformDerived, Index: 1}, UniformEntry{Kind: UniformDerived, Index: 0})
	})
	draw := func() {
		t.Helper()
		if err := r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3}); err != nil {
			t.Fatal(err)
		}
	}
	draw()
	draw()
	if pre.runs != 1 {
		t.Errorf("pre-shader ran %d times for two draws with the same storage, want 1", pre.runs)
	}
	r.c.SetUniformStorage([]uint32{10, 20, 30, 4, 0})
	draw()
	if pre.runs != 2 {
		t.Errorf("pre-shader ran %d times after a storage change, want 2", pre.runs)
	}
	if _, err := r.c.Flush(); err != nil {
		t.Fatal(err)
	}
	s := r.ws.submits[0]
	// Streams are written for the first draw and after the storage change
	// (the second draw re-uses the first's shader state): VS 4 words, CS 1,
	// FS 4 storage + 2 derived each.
	const drawWords = 4 + 1 + 6
	if len(s.Uniforms) != 2*4*drawWords {
		t.Fatalf("uniforms %d bytes, want %d", len(s.Uniforms), 2*4*drawWords)
	}
	word := func(draw, i int) uint32 { return binary.LittleEndian.Uint32(s.Uniforms[4*(draw*drawWords+i):]) }
	for d, want := range [][2]uint32{{3 * 2, 1 + 2}, {30 * 2, 10 + 20}} {
		if got := [2]uint32{word(d, 9), word(d, 10)}; got != want {
			t.Errorf("draw %d: derived words %v, want %v", d, got, want)
		}
	}
}

// TestDerivedIndexChecked: a stream reading a derived word the variant's
// pre-shader does not compute fails when the variant is built, naming it.
func TestDerivedIndexChecked(t *testing.T) {
	r := newRigWith(t, "fs", func(v *Variant) {
		v.FS.Uniforms = append(v.FS.Uniforms, UniformEntry{Kind: UniformDerived, Index: 0})
	})
	err := r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3})
	if err == nil || !strings.Contains(err.Error(), "reads derived word 0, but the pre-shader computes 0") {
		t.Fatalf("draw: %v", err)
	}
}

// TestVariantPerPrimitiveClass: a point draw and a triangle draw ask for
// two variants; repeating either reuses the uploaded one.
func TestVariantPerPrimitiveClass(t *testing.T) {
	r := newRig(t, "fs")
	compiler := r.s.compiler.(*fakeCompiler)
	for i, mode := range []pipe.PrimitiveMode{pipe.PrimTriangles, pipe.PrimPoints, pipe.PrimTriangles, pipe.PrimPoints, pipe.PrimLines} {
		if err := r.c.Draw(&pipe.DrawInfo{Mode: mode, Count: 3}); err != nil {
			t.Fatal(err)
		}
		want := min(i+1, 2)
		if compiler.variants != want {
			t.Errorf("after draw %d (%v): %d variants compiled, want %d", i, mode, compiler.variants, want)
		}
	}
}

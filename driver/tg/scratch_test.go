package tg

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/pipe"
)

// relocAt returns the relocation patching the u32 at off of space.
func relocAt(t *testing.T, s *Submit, space RelocSpace, off uint32) Reloc {
	t.Helper()
	for _, r := range s.Relocs {
		if r.Space == space && r.Offset == off {
			return r
		}
	}
	t.Fatalf("no relocation at %v offset %#x", space, off)
	return Reloc{}
}

// TestScratchAndStreamAddresses draws with a variant whose vertex and
// fragment shaders spill (with different per-thread sizes) and whose
// fragment shader rewinds its uniform stream, and checks the scratch BO,
// the shader record and every relocation the kernel will patch.
func TestScratchAndStreamAddresses(t *testing.T) {
	r := newRigWith(t, "fs", func(v *Variant) {
		v.VS.ScratchBytesPerThread = 128
		v.VS.Uniforms = append([]UniformEntry{{Kind: UniformScratchAddress}}, v.VS.Uniforms...)
		v.FS.ScratchBytesPerThread = 64
		v.FS.Uniforms = append(v.FS.Uniforms, UniformEntry{Kind: UniformStreamAddress}, UniformEntry{Kind: UniformScratchAddress})
	})
	for range 2 { // the second draw reuses the job's scratch BO
		if err := r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3}); err != nil {
			t.Fatal(err)
		}
		r.c.SetUniformStorage([]uint32{5, 6, 7, 8, 0}) // re-emit the shader state
	}
	if _, err := r.c.Flush(); err != nil {
		t.Fatal(err)
	}
	s := r.ws.submits[0]
	const qpus = 8 // fakeWinsys's NUM_QPUS
	ao := cl.ShaderRecordLayout.AddressOffsets
	// Streams: VS 5 words, CS 1, FS 6 per draw.
	const vsWords, csWords, fsWords = 5, 1, 6
	drawBytes := uint32(4 * (vsWords + csWords + fsWords))
	if len(s.Uniforms) != int(2*drawBytes) {
		t.Fatalf("uniforms %d bytes, want %d", len(s.Uniforms), 2*drawBytes)
	}
	var scratchIdx uint32
	for d := range uint32(2) {
		rec := d * uint32(len(s.ShaderRecords)/2)
		var sr cl.ShaderRecord
		if err := sr.Unpack(s.ShaderRecords[rec:]); err != nil {
			t.Fatal(err)
		}
		if sr.ScratchBytesPerThread != 128+64 {
			t.Errorf("draw %d: record ScratchBytesPerThread %d, want the stages' sum 192", d, sr.ScratchBytesPerThread)
		}
		sc := relocAt(t, s, SpaceShaderRecords, rec+uint32(ao[6]))
		if sc.Target != TargetBO || sc.Delta != 0 || s.BOs[sc.BOIndex].Flags&BOWrite == 0 {
			t.Fatalf("draw %d: scratch relocation %+v (BO flags %#x): want a writable BO at 0", d, sc, s.BOs[sc.BOIndex].Flags)
		}
		if d == 0 {
			scratchIdx = sc.BOIndex
		} else if sc.BOIndex != scratchIdx {
			t.Errorf("second draw uses scratch BO %d, the first %d: want one per job", sc.BOIndex, scratchIdx)
		}
		if size := len(r.ws.bos[s.BOs[sc.BOIndex].Handle]); size < (128+64)*qpus {
			t.Errorf("scratch BO of %d bytes, want ≥ %d", size, (128+64)*qpus)
		}
		vsU := relocAt(t, s, SpaceShaderRecords, rec+uint32(ao[3])).Delta
		fsU := relocAt(t, s, SpaceShaderRecords, rec+uint32(ao[1])).Delta
		if vsU != d*drawBytes || fsU != vsU+4*(vsWords+csWords) {
			t.Errorf("draw %d: streams at VS %#x FS %#x", d, vsU, fsU)
		}
		// The fragment region comes first (its base is the record's
		// ScratchAddress), the vertex region after all threads' fragment areas.
		if rl := relocAt(t, s, SpaceUniforms, vsU); rl.Target != TargetBO || rl.BOIndex != scratchIdx || rl.Delta != 64*qpus {
			t.Errorf("draw %d: VS scratch address %+v, want scratch BO + %d", d, rl, 64*qpus)
		}
		if rl := relocAt(t, s, SpaceUniforms, fsU+4*5); rl.Target != TargetBO || rl.BOIndex != scratchIdx || rl.Delta != 0 {
			t.Errorf("draw %d: FS scratch address %+v, want scratch BO + 0", d, rl)
		}
		if rl := relocAt(t, s, SpaceUniforms, fsU+4*4); rl.Target != TargetUniforms || rl.Delta != fsU {
			t.Errorf("draw %d: FS stream address %+v, want the uniforms buffer + %#x", d, rl, fsU)
		}
		if w := binary.LittleEndian.Uint32(s.Uniforms[fsU:]); w != []uint32{1, 5}[d] {
			t.Errorf("draw %d: FS word 0 = %d", d, w)
		}
	}
}

func TestNoScratchWithoutSpills(t *testing.T) {
	r := newRig(t, "fs")
	if err := r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3}); err != nil {
		t.Fatal(err)
	}
	r.c.Flush()
	s := r.ws.submits[0]
	var sr cl.ShaderRecord
	sr.Unpack(s.ShaderRecords)
	for _, rl := range s.Relocs {
		if rl.Space == SpaceShaderRecords && rl.Offset == uint32(cl.ShaderRecordLayout.AddressOffsets[6]) {
			t.Errorf("scratch relocation %+v for shaders that do not spill", rl)
		}
	}
	if sr.ScratchBytesPerThread != 0 {
		t.Errorf("ScratchBytesPerThread %d", sr.ScratchBytesPerThread)
	}
}

// TestBadUniformStreamsFailTheDraw checks that a variant the driver cannot
// write fails the draw with an error saying what is wrong, and queues nothing.
func TestBadUniformStreamsFailTheDraw(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Variant)
		want string
	}{
		{"unknown kind", func(v *Variant) {
			v.FS.Uniforms = append(v.FS.Uniforms, UniformEntry{Kind: 0xff})
		}, "fragment shader uniform stream entry 4 has kind UniformKind(255)"},
		{"scratch address without scratch", func(v *Variant) {
			v.CS.Uniforms = append(v.CS.Uniforms[:len(v.CS.Uniforms):len(v.CS.Uniforms)], UniformEntry{Kind: UniformScratchAddress})
		}, "coordinate shader uniform stream entry 1 asks for the scratch address, but the shader declares no scratch"},
		{"misaligned scratch", func(v *Variant) {
			v.VS.ScratchBytesPerThread = 6
		}, "not word aligned"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRigWith(t, "fs", tc.edit)
			err := r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Draw: %v, want an error containing %q", err, tc.want)
			}
			r.c.Flush()
			if len(r.ws.submits) != 0 {
				t.Errorf("%d jobs submitted for a failed draw", len(r.ws.submits))
			}
		})
	}
}

func TestUniformKindNames(t *testing.T) {
	for k, want := range map[UniformKind]string{
		UniformStorage: "storage", UniformConstant: "constant", UniformTexture: "texture",
		UniformStorageAddress: "storage address", UniformScratchAddress: "scratch address",
		UniformStreamAddress: "stream address", 9: "UniformKind(9)",
	} {
		if got := k.String(); got != want {
			t.Errorf("UniformKind(%d).String() = %q, want %q", k, got, want)
		}
	}
}

package hw

import (
	"math"

	"github.com/tilegpu/tilegpu/hw/isa"
	"github.com/tilegpu/tilegpu/hw/qpu"
)

// Batch-invariant fragment programs (docs/hardware.md §5.2).
//
// A fragment program that reads no per-lane or per-core input — no
// varying, FRAG_*, FRONT_FACING, POINT_S/T, element or QPU number, VPM —
// and does nothing through the TMU or VPM or the uniform-address register
// computes, in every lane of every batch, a function of its uniform
// stream alone (registers start poisoned in every batch, so nothing
// carries over from one batch to the next). Such programs are common: a
// flat colour from a uniform (UI rectangles, solid fills, the "fill" and
// "blend" bench scenes), a colour computed from uniforms, a discard
// decided by a uniform. A render worker runs one batch of such a program
// for real and gives every later batch of the same program and uniform
// stream in the tile its results (colour, depth, kill mask) without
// running it: the bits are those the program would have produced.
// render.fs_batches_reused counts the batches served so.
//
// The uniform stream is memory: it is read again (by a real run) at every
// tile, and the memo is dropped when a vertex shader that can store to
// memory runs, so a store earlier in the same tile's list is seen as in
// order. (Another engine writing that memory during the job races with
// the render engine's reads in any case.)

// programBatchInvariant reports whether every instruction of p (reached
// or not) keeps the results of a fragment batch independent of the
// batch's per-lane and per-core inputs (see above). A word that does not
// decode makes it false.
func programBatchInvariant(p *qpu.Program) bool {
	for _, word := range p.Code() {
		in, err := isa.Decode(word)
		if err != nil {
			return false
		}
		if in.Sig == isa.SigLDTMU {
			return false
		}
		if in.ReadsA() && !invariantRead(in.RaddrA) {
			return false
		}
		if in.ReadsB() && !invariantRead(in.RaddrB) {
			return false
		}
		if !invariantWrite(in.WaddrAdd) || !invariantWrite(in.WaddrMul) {
			return false
		}
	}
	return true
}

// invariantRead: a register, a uniform or the zero read.
func invariantRead(r isa.Raddr) bool {
	return r < 32 || r == isa.RaddrUniform || r == isa.RaddrNOP
}

// invariantWrite: anything but the TMU, the VPM and its setup registers,
// and the uniform-address register.
func invariantWrite(w isa.Waddr) bool {
	switch {
	case w.IsTMU():
		return false
	case w == isa.WaddrVPM, w == isa.WaddrVPMRSetup, w == isa.WaddrVPMWSetup, w == isa.WaddrUniformsAdr:
		return false
	}
	return true
}

// fsMemo holds the results of the last real batch of a batch-invariant
// fragment program, for the program and uniform stream it ran with.
type fsMemo struct {
	valid    bool
	prog     *qpu.Program
	uniforms uint32
	color    [4][qpu.Lanes]float32
	z        [qpu.Lanes]float32
	zWritten bool
	kill     uint16
	// uniform: every lane has lane 0's colour bits; packed is that colour
	// as RGBA8 (unorm8 per channel) and src its channels clamped to [0,1].
	uniform bool
	packed  uint32
	src     [4]float32
	srcBits [4]uint32 // lane 0's colour bits, the key of blendMemo
}

// fsInvariant reports whether the current fragment program is batch
// invariant, remembered for the last program asked about.
func (w *worker) fsInvariant() bool {
	if w.invProg != w.fsProg {
		w.invProg, w.invOK = w.fsProg, programBatchInvariant(w.fsProg)
	}
	return w.invOK && !w.g.noInvariant
}

// memoHit reports whether the memo holds the current program's results
// for the current uniform stream.
func (w *worker) memoHit() bool {
	m := &w.fsMemo
	return m.valid && m.prog == w.fsProg && m.uniforms == w.sr.fsUniforms
}

// storeMemo keeps the batch's results after a real run.
func (w *worker) storeMemo(bt *qpu.Batch) {
	m := &w.fsMemo
	m.valid, m.prog, m.uniforms = true, w.fsProg, w.sr.fsUniforms
	m.color, m.z, m.zWritten, m.kill = bt.Color, bt.Z, bt.ZWritten, bt.Kill
	m.uniform = uniformColor(bt)
	m.packed = unorm8(bt.Color[0][0]) | unorm8(bt.Color[1][0])<<8 |
		unorm8(bt.Color[2][0])<<16 | unorm8(bt.Color[3][0])<<24
	for c := range m.src {
		m.src[c] = clamp01(bt.Color[c][0])
		m.srcBits[c] = math.Float32bits(bt.Color[c][0])
	}
}

// loadMemo gives the batch the memo's results as if the program had run.
func (w *worker) loadMemo(bt *qpu.Batch) {
	m := &w.fsMemo
	bt.Color, bt.Z, bt.ZWritten, bt.Kill = m.color, m.z, m.zWritten, m.kill
	bt.Instructions = 0
}

// spanReady reports whether full blocks of the current primitive may be
// written straight from the memo (spanBlocks): the memo holds this
// program's results, one colour in every lane, nothing discarded, no
// depth written by the program, and no per-fragment test or sample work
// that would need the batch (depth, stencil, samples, the overdraw view,
// a low-bit colour format, an occlusion counter).
func (w *worker) spanReady() bool {
	m := &w.fsMemo
	return w.spanCandidate() && w.memoHit() && m.uniform && m.kill == 0 && !m.zWritten
}

// spanCandidate is spanReady's part that does not depend on the program's
// result.
func (w *worker) spanCandidate() bool {
	s := &w.st
	return w.fsInvariant() && !s.depthTest && !s.stencil && !w.cfg.msaa && !w.overdraw &&
		w.cfg.format.quant == nil && // spans write packed RGBA8 (low-bit formats go through resolve)
		s.occlusionVA == 0 // an occlusion counter counts each sample in resolve
}

// spanBlocks resolves n fully covered 4×4 blocks side by side, the first
// at window (x, y), with the memo's colour: what emitBlock, the shader and
// resolve would do for each of them, without the batch. Each pixel gets
// one fragment of one primitive, so the order of the pixels does not
// matter; the caller has flushed the pending batch first.
func (w *worker) spanBlocks(x, y, n int) {
	s := &w.st
	m := &w.fsMemo
	width := 4 * n
	i0 := (y-w.y0)*maxTileSize + x - w.x0
	switch {
	case !s.blend && s.colorMask == [4]bool{true, true, true, true}:
		for r := 0; r < 4; r++ {
			row := w.color[i0+r*maxTileSize : i0+r*maxTileSize+width]
			for i := range row {
				row[i] = m.packed
			}
		}
	default:
		// The colour is one for the span, so the result is a function
		// of the destination pixel alone: one blend per run of equal
		// destination pixels (a layer over a flat background is one
		// blend per span).
		dst := w.color[i0]
		out := w.memoColor(dst)
		for r := 0; r < 4; r++ {
			row := w.color[i0+r*maxTileSize : i0+r*maxTileSize+width]
			for i := 0; i < len(row); i += 4 { // width is a multiple of 4
				if i += replaceRun(row[i:], dst, out); i == len(row) {
					break
				}
				p := (*[4]uint32)(row[i : i+4])
				for j, d := range p {
					if d != dst {
						dst, out = d, w.memoColor(d)
					}
					p[j] = out
				}
			}
		}
	}
	frags := uint64(16 * n)
	c := &w.perf.ctr
	c[CtrRasterBlocks] += uint64(n)
	c[CtrQuads] += uint64(4 * n)
	c[CtrFSBatches] += uint64(n)
	c[CtrFSBatchesReused] += uint64(n)
	c[CtrFragmentsShaded] += frags
	c[CtrFragmentsWritten] += frags
	if s.blend {
		c[CtrFragmentsBlended] += frags
	}
	w.perf.fragments += frags
	w.cost.fragments += frags
}

// maskedBlock is spanBlocks for one partly covered 4×4 block at window
// (x, y): masks[q] is the coverage of its quad q (emitQuad's lane order).
// It counts what the quads would have counted, as one batch.
func (w *worker) maskedBlock(x, y int, masks *[4]uint16) {
	s := &w.st
	m := &w.fsMemo
	var frags, quads uint64
	plain := !s.blend && s.colorMask == [4]bool{true, true, true, true}
	for q, mask := range masks {
		if mask == 0 {
			continue
		}
		quads++
		i0 := (y+2*(q>>1)-w.y0)*maxTileSize + x + 2*(q&1) - w.x0
		for l := 0; l < 4; l++ {
			if mask&(1<<l) == 0 {
				continue
			}
			frags++
			i := i0 + laneOffset[l]
			if plain {
				w.color[i] = m.packed
				continue
			}
			w.color[i] = w.memoColor(w.color[i])
		}
	}
	if quads == 0 {
		return
	}
	c := &w.perf.ctr
	c[CtrQuads] += quads
	c[CtrFSBatches]++
	c[CtrFSBatchesReused]++
	c[CtrFragmentsShaded] += frags
	c[CtrFragmentsWritten] += frags
	if s.blend {
		c[CtrFragmentsBlended] += frags
	}
	w.perf.fragments += frags
	w.cost.fragments += frags
}

// memoColor is blendColor of the memo's colour over dst through the
// worker's one-entry blend memo (blendMemo), which resolve's batches of
// the same colour share.
func (w *worker) memoColor(dst uint32) uint32 {
	bm := &w.memo
	m := &w.fsMemo
	if !bm.valid || bm.dst != dst || bm.src != m.srcBits {
		*bm = blendMemo{valid: true, src: m.srcBits, dst: dst, out: w.blendColor(&m.src, dst)}
	}
	return bm.out
}

// blendColor is blendPixel for a colour already clamped to [0, 1].
func (w *worker) blendColor(src *[4]float32, dst uint32) uint32 {
	s := &w.st
	var out [4]uint32
	low := w.cfg.format.quant != nil // a low-bit colour format (format.go)
	if !s.blend {
		for c := 0; c < 4; c++ {
			if low {
				out[c] = w.cfg.format.unormLow(c, src[c])
			} else {
				out[c] = unorm8(src[c])
			}
		}
	} else {
		var d [4]float32
		for c := 0; c < 4; c++ {
			if low {
				d[c] = w.cfg.format.value(c, dst>>(8*c)&0xFF)
			} else {
				d[c] = unorm8Float[dst>>(8*c)&0xFF]
			}
		}
		for c := 0; c < 4; c++ {
			eq, sf, df := s.eqRGB, s.srcRGB, s.dstRGB
			if c == 3 {
				eq, sf, df = s.eqA, s.srcA, s.dstA
			}
			fs := blendFactor(sf, c, src, &d, &s.blendConst)
			fd := blendFactor(df, c, src, &d, &s.blendConst)
			var v float32
			switch eq {
			case 1:
				v = src[c]*fs - d[c]*fd
			case 2:
				v = d[c]*fd - src[c]*fs
			case 3: // MIN and MAX ignore the factors (EXT_blend_minmax)
				v = min(src[c], d[c])
			case 4:
				v = max(src[c], d[c])
			default:
				v = src[c]*fs + d[c]*fd
			}
			if low {
				out[c] = w.cfg.format.unormLow(c, v)
			} else {
				out[c] = unorm8(v)
			}
		}
	}
	res := dst
	for c := 0; c < 4; c++ {
		if s.colorMask[c] {
			res = res&^(0xFF<<(8*c)) | out[c]<<(8*c)
		}
	}
	return res
}

// unorm8Float[k] is float32(k)/255, the destination channel as blending
// reads it.
var unorm8Float = func() (t [256]float32) {
	for k := range t {
		t[k] = float32(k) / 255
	}
	return
}()

// replaceRunGo stores out over groups of four pixels of p (its length a
// multiple of 4) while all four equal dst, and returns the index of the
// first group that does not (len(p) when every group did).
func replaceRunGo(p []uint32, dst, out uint32) int {
	for i := 0; i+4 <= len(p); i += 4 {
		q := (*[4]uint32)(p[i : i+4])
		if q[0] != dst || q[1] != dst || q[2] != dst || q[3] != dst {
			return i
		}
		*q = [4]uint32{out, out, out, out}
	}
	return len(p) &^ 3
}

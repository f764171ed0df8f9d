package hw

import (
	mbits "math/bits"

	"github.com/tilegpu/tilegpu/hw/qpu"
)

// depthBatch runs the depth test (stencil off) for the lanes of mask,
// which lie on different pixels, and returns the lanes that pass; depth
// is written for them when ZUpdatesEnable is set. The 16 window depths
// are converted to 24 bits at once (depthLanes) and compared with the
// function's integer comparison: what resolve's lane loop computes, lane
// by lane, for each of them.
func (w *worker) depthBatch(mask uint16) uint16 {
	s := &w.st
	bt := &w.batch
	fb := &w.frag
	z := &fb.z
	if bt.ZWritten {
		zw := &w.depthZ
		for l := range qpu.Lanes {
			zw[l] = float64(bt.Z[l])
		}
		z = zw
	}
	var z24 [qpu.Lanes]uint32
	depthLanes(z, &z24)
	var pass uint16
	fn := s.depthFunc
	for m := mask; m != 0; m &= m - 1 {
		lane := mbits.TrailingZeros16(m)
		i := fb.quad[lane>>2] + laneOffset[lane&3]
		zs := w.zs[i]
		if !compare(fn, z24[lane], zs&depthMax) {
			continue
		}
		pass |= 1 << lane
		if s.zUpdates {
			w.zs[i] = zs&^depthMax | z24[lane]
		}
	}
	return pass
}

// depthLanesGo is depthTo24 of 16 lanes.
func depthLanesGo(z *[qpu.Lanes]float64, out *[qpu.Lanes]uint32) {
	for l := range qpu.Lanes {
		out[l] = depthTo24(z[l])
	}
}

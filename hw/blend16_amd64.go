//go:build amd64 && !purego

package hw

import "github.com/tilegpu/tilegpu/hw/qpu"

// combineLanes is combineLanesGo in SSE2 (blend16_amd64.s), which every
// amd64 processor has: MULPS, ADDPS/SUBPS, MINPS/MAXPS in the Go code's
// order, then the clamp (MAXPS with 0 as the source turns NaN into 0, as
// clamp01 does), ·255 + 0.5 and CVTTPS2DQ, unorm8's truncation.
func combineLanes(s, fs, d, fd *[qpu.Lanes]float32, eq uint32, out *[qpu.Lanes]uint32, shift uint) {
	if shift == 0 {
		*out = [qpu.Lanes]uint32{}
	}
	combineLanesSSE(s, fs, d, fd, eq, out, shift)
}

//go:noescape
func combineLanesSSE(s, fs, d, fd *[qpu.Lanes]float32, eq uint32, out *[qpu.Lanes]uint32, shift uint)

// prepareLanes is prepareLanesGo in SSE2.
func prepareLanes(color *[4][qpu.Lanes]float32, px *[qpu.Lanes]uint32, src, dst *[4][qpu.Lanes]float32) {
	prepareLanesSSE(color, px, src, dst)
}

//go:noescape
func prepareLanesSSE(color *[4][qpu.Lanes]float32, px *[qpu.Lanes]uint32, src, dst *[4][qpu.Lanes]float32)

// replaceRun is replaceRunGo in SSE2.
func replaceRun(p []uint32, dst, out uint32) int {
	if len(p) == 0 {
		return 0
	}
	return replaceRunSSE(&p[0], len(p)&^3, dst, out)
}

//go:noescape
func replaceRunSSE(p *uint32, n int, dst, out uint32) int

// packLanes is packLanesGo in SSE2.
func packLanes(color *[4][qpu.Lanes]float32, out *[qpu.Lanes]uint32) { packLanesSSE(color, out) }

//go:noescape
func packLanesSSE(color *[4][qpu.Lanes]float32, out *[qpu.Lanes]uint32)

// depthLanes is depthLanesGo in SSE2: MAXPD with 0 as the source gives 0
// for NaN, −0 and negatives (depthTo24's !(z > 0)), MINPD with 1 gives 1
// above 1 (1·depthMax + 0.5 truncates to depthMax), then ·depthMax + 0.5
// and CVTTPD2DQ, the truncating conversion.
func depthLanes(z *[qpu.Lanes]float64, out *[qpu.Lanes]uint32) { depthLanesSSE(z, out) }

//go:noescape
func depthLanesSSE(z *[qpu.Lanes]float64, out *[qpu.Lanes]uint32)

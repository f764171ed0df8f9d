//go:build !amd64 || purego

package hw

import "github.com/tilegpu/tilegpu/hw/qpu"

func combineLanes(s, fs, d, fd *[qpu.Lanes]float32, eq uint32, out *[qpu.Lanes]uint32, shift uint) {
	combineLanesGo(s, fs, d, fd, eq, out, shift)
}

func prepareLanes(color *[4][qpu.Lanes]float32, px *[qpu.Lanes]uint32, src, dst *[4][qpu.Lanes]float32) {
	prepareLanesGo(color, px, src, dst)
}

func replaceRun(p []uint32, dst, out uint32) int { return replaceRunGo(p, dst, out) }

func packLanes(color *[4][qpu.Lanes]float32, out *[qpu.Lanes]uint32) { packLanesGo(color, out) }

func depthLanes(z *[qpu.Lanes]float64, out *[qpu.Lanes]uint32) { depthLanesGo(z, out) }

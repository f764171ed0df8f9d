//go:build !amd64

package qpu

func filterBilinear(tx *[4][Lanes]uint32, wq *[4][Lanes]float32, out *[4][Lanes]float32) {
	filterBilinearGo(tx, wq, out)
}

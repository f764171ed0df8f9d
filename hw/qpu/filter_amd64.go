package qpu

// filterBilinear is filterBilinearGo in SSE2 (filter_amd64.s), which every
// amd64 processor has.
//
//go:noescape
func filterBilinear(tx *[4][Lanes]uint32, wq *[4][Lanes]float32, out *[4][Lanes]float32)

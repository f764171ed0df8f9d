//go:build !amd64 || purego

package qpu

import "unsafe"

// runVops executes uops u[0:n] while their vop is not vopNone and returns
// how many it executed. Translation sets vop only where simdKernels is
// true, so this portable version exists for completeness.
func runVops(u *uop, n int, t *xtab) int {
	us := unsafe.Slice(u, n)
	for k := range us {
		v := us[k].vop
		if v == vopNone || int(v) >= len(vopKernels) {
			return k
		}
		vopKernels[v](t[us[k].a], t[us[k].b], t[us[k].r])
	}
	return n
}

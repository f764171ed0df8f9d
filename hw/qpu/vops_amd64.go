//go:build amd64 && !purego

package qpu

// runVops executes uops u[0:n] while their vop is not vopNone and returns
// how many it executed (vops_amd64.s).
//
//go:noescape
func runVops(u *uop, n int, t *xtab) int

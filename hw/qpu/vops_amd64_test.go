//go:build amd64 && !purego

package qpu

import (
	"testing"
	"unsafe"
)

// TestVopLayout: the uop field offsets vops_amd64.s uses.
func TestVopLayout(t *testing.T) {
	var u uop
	got := [5]uintptr{unsafe.Sizeof(u), unsafe.Offsetof(u.a), unsafe.Offsetof(u.b), unsafe.Offsetof(u.r), unsafe.Offsetof(u.vop)}
	if want := [5]uintptr{24, 9, 10, 11, 14}; got != want {
		t.Fatalf("uop size and offsets of a, b, r, vop = %v; vops_amd64.s assumes %v", got, want)
	}
}

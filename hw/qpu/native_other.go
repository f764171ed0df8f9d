//go:build !amd64 || purego

package qpu

// Without amd64 assembly there is no native code: translations run their
// uops through runVops and the Go kernels.

const nativeSupported = false

var nativeAVX2 = false

type nativeCode struct {
	base uintptr
	runs []nativeRun
}

type nativeRun struct {
	off    uint32
	n      int32
	instrs uint64
}

func compileNative(*translation) *nativeCode { return nil }

func callNative(uintptr, *xtab) { panic("qpu: no native code in this build") }

// NativeSupported reports whether translations get native code in this
// build on this machine.
func NativeSupported() bool { return false }

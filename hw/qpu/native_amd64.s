//go:build amd64 && !purego

#include "textflag.h"

// func callNative(code uintptr, t *xtab)
//
// The trampoline into a translation's native code (native_amd64.go): ABI0,
// NOSPLIT and frameless, so no Go frame is set up around the CALL and no
// stack check or preemption point lies between here and the code. The
// code receives the operand table in DI, uses no stack but the CALL's
// return address (inside the nosplit guard), clobbers only registers ABI0
// lets a callee clobber (never BP, R12, R14, R15, X15) and returns with
// RET. The Go→ABI0 wrapper restores R14 and X15 for the caller anyway.
TEXT ·callNative(SB), NOSPLIT, $0-16
	MOVQ code+0(FP), AX
	MOVQ t+8(FP), DI
	CALL AX
	RET

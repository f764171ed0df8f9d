//go:build amd64 && !purego

// Lane kernels in SSE2 (part of every amd64 CPU, so no feature test):
// four 4-lane operations where kernels_gen.go has sixteen scalar ones.
// Each computes exactly what its scalar twin in kernels_gen.go computes,
// except the payload of a float result whose operands are both NaN: x86
// returns the first source operand's NaN, which here is always a (the Go
// compiler picks a or b lane by lane for the scalar kernels; hardware.md
// leaves the payload open). kernels_test.go compares the two. Operands may
// alias r: every chunk is loaded before any is stored.

#include "textflag.h"

// func vfadd(a, b, r *[16]uint32)
TEXT ·vfadd(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ r+16(FP), CX
	MOVUPS 0(AX), X0
	MOVUPS 0(BX), X1
	ADDPS X1, X0
	MOVUPS 16(AX), X2
	MOVUPS 16(BX), X3
	ADDPS X3, X2
	MOVUPS 32(AX), X4
	MOVUPS 32(BX), X5
	ADDPS X5, X4
	MOVUPS 48(AX), X6
	MOVUPS 48(BX), X7
	ADDPS X7, X6
	MOVUPS X0, 0(CX)
	MOVUPS X2, 16(CX)
	MOVUPS X4, 32(CX)
	MOVUPS X6, 48(CX)
	RET

// func vfsub(a, b, r *[16]uint32)
TEXT ·vfsub(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ r+16(FP), CX
	MOVUPS 0(AX), X0
	MOVUPS 0(BX), X1
	SUBPS X1, X0
	MOVUPS 16(AX), X2
	MOVUPS 16(BX), X3
	SUBPS X3, X2
	MOVUPS 32(AX), X4
	MOVUPS 32(BX), X5
	SUBPS X5, X4
	MOVUPS 48(AX), X6
	MOVUPS 48(BX), X7
	SUBPS X7, X6
	MOVUPS X0, 0(CX)
	MOVUPS X2, 16(CX)
	MOVUPS X4, 32(CX)
	MOVUPS X6, 48(CX)
	RET

// func vfmul(a, b, r *[16]uint32)
TEXT ·vfmul(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ r+16(FP), CX
	MOVUPS 0(AX), X0
	MOVUPS 0(BX), X1
	MULPS X1, X0
	MOVUPS 16(AX), X2
	MOVUPS 16(BX), X3
	MULPS X3, X2
	MOVUPS 32(AX), X4
	MOVUPS 32(BX), X5
	MULPS X5, X4
	MOVUPS 48(AX), X6
	MOVUPS 48(BX), X7
	MULPS X7, X6
	MOVUPS X0, 0(CX)
	MOVUPS X2, 16(CX)
	MOVUPS X4, 32(CX)
	MOVUPS X6, 48(CX)
	RET

// func viadd(a, b, r *[16]uint32)
TEXT ·viadd(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ r+16(FP), CX
	MOVOU 0(BX), X0
	MOVOU 0(AX), X1
	PADDL X1, X0
	MOVOU 16(BX), X2
	MOVOU 16(AX), X3
	PADDL X3, X2
	MOVOU 32(BX), X4
	MOVOU 32(AX), X5
	PADDL X5, X4
	MOVOU 48(BX), X6
	MOVOU 48(AX), X7
	PADDL X7, X6
	MOVOU X0, 0(CX)
	MOVOU X2, 16(CX)
	MOVOU X4, 32(CX)
	MOVOU X6, 48(CX)
	RET

// func visub(a, b, r *[16]uint32)
TEXT ·visub(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ r+16(FP), CX
	MOVOU 0(AX), X0
	MOVOU 0(BX), X1
	PSUBL X1, X0
	MOVOU 16(AX), X2
	MOVOU 16(BX), X3
	PSUBL X3, X2
	MOVOU 32(AX), X4
	MOVOU 32(BX), X5
	PSUBL X5, X4
	MOVOU 48(AX), X6
	MOVOU 48(BX), X7
	PSUBL X7, X6
	MOVOU X0, 0(CX)
	MOVOU X2, 16(CX)
	MOVOU X4, 32(CX)
	MOVOU X6, 48(CX)
	RET

// func viand(a, b, r *[16]uint32)
TEXT ·viand(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ r+16(FP), CX
	MOVOU 0(BX), X0
	MOVOU 0(AX), X1
	PAND X1, X0
	MOVOU 16(BX), X2
	MOVOU 16(AX), X3
	PAND X3, X2
	MOVOU 32(BX), X4
	MOVOU 32(AX), X5
	PAND X5, X4
	MOVOU 48(BX), X6
	MOVOU 48(AX), X7
	PAND X7, X6
	MOVOU X0, 0(CX)
	MOVOU X2, 16(CX)
	MOVOU X4, 32(CX)
	MOVOU X6, 48(CX)
	RET

// func vior(a, b, r *[16]uint32)
TEXT ·vior(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ r+16(FP), CX
	MOVOU 0(BX), X0
	MOVOU 0(AX), X1
	POR X1, X0
	MOVOU 16(BX), X2
	MOVOU 16(AX), X3
	POR X3, X2
	MOVOU 32(BX), X4
	MOVOU 32(AX), X5
	POR X5, X4
	MOVOU 48(BX), X6
	MOVOU 48(AX), X7
	POR X7, X6
	MOVOU X0, 0(CX)
	MOVOU X2, 16(CX)
	MOVOU X4, 32(CX)
	MOVOU X6, 48(CX)
	RET

// func vixor(a, b, r *[16]uint32)
TEXT ·vixor(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ r+16(FP), CX
	MOVOU 0(BX), X0
	MOVOU 0(AX), X1
	PXOR X1, X0
	MOVOU 16(BX), X2
	MOVOU 16(AX), X3
	PXOR X3, X2
	MOVOU 32(BX), X4
	MOVOU 32(AX), X5
	PXOR X5, X4
	MOVOU 48(BX), X6
	MOVOU 48(AX), X7
	PXOR X7, X6
	MOVOU X0, 0(CX)
	MOVOU X2, 16(CX)
	MOVOU X4, 32(CX)
	MOVOU X6, 48(CX)
	RET

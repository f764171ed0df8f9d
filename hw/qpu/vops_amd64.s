//go:build amd64 && !purego

// runVops executes a run of kernel uops in one loop: per uop one byte
// load for the op, three table loads for the operand arrays and four
// 4-lane SSE2 operations, instead of a Go indirect call through an ABI
// wrapper per uop. Each op is exactly its kernel in kernels_amd64.s (a is
// the first source operand). The uop layout is checked by
// TestVopLayout. No pointer is written and nothing is called, so the
// function needs no frame and the garbage collector sees nothing but
// uint32 stores into arrays the caller keeps alive.

#include "textflag.h"

#define UOP_SIZE 24
#define UOP_A 9
#define UOP_B 10
#define UOP_R 11
#define UOP_VOP 14

// func runVops(u *uop, n int, t *xtab) int
TEXT ·runVops(SB), NOSPLIT, $0-32
	MOVQ u+0(FP), SI
	MOVQ n+8(FP), DX
	MOVQ t+16(FP), DI
	XORQ R8, R8
loop:
	CMPQ R8, DX
	JGE done
	MOVBQZX UOP_VOP(SI), R9
	TESTQ R9, R9
	JZ done
	MOVBQZX UOP_A(SI), AX
	MOVQ (DI)(AX*8), AX
	MOVBQZX UOP_B(SI), BX
	MOVQ (DI)(BX*8), BX
	MOVBQZX UOP_R(SI), CX
	MOVQ (DI)(CX*8), CX
	CMPQ R9, $3
	JEQ op_FMUL
	CMPQ R9, $1
	JEQ op_FADD
	CMPQ R9, $9
	JEQ op_MOV
	CMPQ R9, $2
	JEQ op_FSUB
	CMPQ R9, $4
	JEQ op_IADD
	CMPQ R9, $5
	JEQ op_ISUB
	CMPQ R9, $6
	JEQ op_IAND
	CMPQ R9, $7
	JEQ op_IOR
	CMPQ R9, $8
	JEQ op_IXOR
	JMP done // unknown code: leave it to Go
next:
	ADDQ $UOP_SIZE, SI
	INCQ R8
	JMP loop
done:
	MOVQ R8, ret+24(FP)
	RET
op_MOV:
	MOVOU 0(AX), X0
	MOVOU 16(AX), X1
	MOVOU 32(AX), X2
	MOVOU 48(AX), X3
	MOVOU X0, 0(CX)
	MOVOU X1, 16(CX)
	MOVOU X2, 32(CX)
	MOVOU X3, 48(CX)
	JMP next

op_FADD:
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
	JMP next
op_FSUB:
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
	JMP next
op_FMUL:
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
	JMP next
op_IADD:
	MOVOU 0(AX), X0
	MOVOU 0(BX), X1
	PADDL X1, X0
	MOVOU 16(AX), X2
	MOVOU 16(BX), X3
	PADDL X3, X2
	MOVOU 32(AX), X4
	MOVOU 32(BX), X5
	PADDL X5, X4
	MOVOU 48(AX), X6
	MOVOU 48(BX), X7
	PADDL X7, X6
	MOVOU X0, 0(CX)
	MOVOU X2, 16(CX)
	MOVOU X4, 32(CX)
	MOVOU X6, 48(CX)
	JMP next
op_ISUB:
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
	JMP next
op_IAND:
	MOVOU 0(AX), X0
	MOVOU 0(BX), X1
	PAND X1, X0
	MOVOU 16(AX), X2
	MOVOU 16(BX), X3
	PAND X3, X2
	MOVOU 32(AX), X4
	MOVOU 32(BX), X5
	PAND X5, X4
	MOVOU 48(AX), X6
	MOVOU 48(BX), X7
	PAND X7, X6
	MOVOU X0, 0(CX)
	MOVOU X2, 16(CX)
	MOVOU X4, 32(CX)
	MOVOU X6, 48(CX)
	JMP next
op_IOR:
	MOVOU 0(AX), X0
	MOVOU 0(BX), X1
	POR X1, X0
	MOVOU 16(AX), X2
	MOVOU 16(BX), X3
	POR X3, X2
	MOVOU 32(AX), X4
	MOVOU 32(BX), X5
	POR X5, X4
	MOVOU 48(AX), X6
	MOVOU 48(BX), X7
	POR X7, X6
	MOVOU X0, 0(CX)
	MOVOU X2, 16(CX)
	MOVOU X4, 32(CX)
	MOVOU X6, 48(CX)
	JMP next
op_IXOR:
	MOVOU 0(AX), X0
	MOVOU 0(BX), X1
	PXOR X1, X0
	MOVOU 16(AX), X2
	MOVOU 16(BX), X3
	PXOR X3, X2
	MOVOU 32(AX), X4
	MOVOU 32(BX), X5
	PXOR X5, X4
	MOVOU 48(AX), X6
	MOVOU 48(BX), X7
	PXOR X7, X6
	MOVOU X0, 0(CX)
	MOVOU X2, 16(CX)
	MOVOU X4, 32(CX)
	MOVOU X6, 48(CX)
	JMP next

#include "textflag.h"

// func filterBilinear(tx *[4][16]uint32, wq *[4][16]float32, out *[4][16]float32)
//
// out[k][l] = ((w0·c0 + w1·c1) + w2·c2) + w3·c3 for channel k of the four
// texel words tx[0..3][l], with c = float32(byte)/255 and w = wq[0..3][l]:
// filterBilinearGo's arithmetic, four lanes per SSE2 instruction. DIVPS,
// MULPS and ADDPS round exactly as the scalar float32 operations do (IEEE
// single, round to nearest even, no fused multiply-add), so the result
// has the same bits.
TEXT ·filterBilinear(SB), NOSPLIT, $0-24
	MOVQ tx+0(FP), SI
	MOVQ wq+8(FP), DI
	MOVQ out+16(FP), DX
	MOVL $0x437f0000, AX // 255.0
	MOVQ AX, X15
	PSHUFD $0, X15, X15
	MOVL $0xff, AX
	MOVQ AX, X14
	PSHUFD $0, X14, X14
	XORQ CX, CX

group:
	MOVOU 0(SI)(CX*1), X0
	MOVOU 64(SI)(CX*1), X1
	MOVOU 128(SI)(CX*1), X2
	MOVOU 192(SI)(CX*1), X3
	MOVOU 0(DI)(CX*1), X4
	MOVOU 64(DI)(CX*1), X5
	MOVOU 128(DI)(CX*1), X6
	MOVOU 192(DI)(CX*1), X7

#define TAP(src, w, shift, dst) \
	MOVO src, dst; \
	PSRLL $shift, dst; \
	PAND X14, dst; \
	CVTPL2PS dst, dst; \
	DIVPS X15, dst; \
	MULPS w, dst

#define CHANNEL(shift, off) \
	TAP(X0, X4, shift, X8); \
	TAP(X1, X5, shift, X9); \
	ADDPS X9, X8; \
	TAP(X2, X6, shift, X9); \
	ADDPS X9, X8; \
	TAP(X3, X7, shift, X9); \
	ADDPS X9, X8; \
	MOVOU X8, off(DX)(CX*1)

	CHANNEL(0, 0)
	CHANNEL(8, 64)
	CHANNEL(16, 128)
	CHANNEL(24, 192)

	ADDQ $16, CX
	CMPQ CX, $64
	JLT group
	RET

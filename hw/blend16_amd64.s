//go:build amd64 && !purego

#include "textflag.h"

// func combineLanesSSE(s, fs, d, fd *[16]float32, eq uint32, out *[16]uint32, shift uint)
//
// out[l] |= unorm8(v) << shift, v by eq: 1 s·fs − d·fd, 2 d·fd − s·fs,
// 3 min(s, d), 4 max(s, d), otherwise s·fs + d·fd; four lanes at a time.
TEXT ·combineLanesSSE(SB), NOSPLIT, $0-56
	MOVQ s+0(FP), SI
	MOVQ fs+8(FP), DI
	MOVQ d+16(FP), R8
	MOVQ fd+24(FP), R9
	MOVL eq+32(FP), AX
	MOVQ out+40(FP), R10
	MOVQ shift+48(FP), CX
	MOVQ CX, X8
	XORPS X4, X4             // 0
	MOVL $0x3f800000, R11    // 1.0
	MOVL R11, X5
	SHUFPS $0, X5, X5
	MOVL $0x437f0000, R11    // 255.0
	MOVL R11, X6
	SHUFPS $0, X6, X6
	MOVL $0x3f000000, R11    // 0.5
	MOVL R11, X7
	SHUFPS $0, X7, X7
	XORQ BX, BX
loop:
	MOVUPS (SI)(BX*1), X0    // s
	MOVUPS (R8)(BX*1), X1    // d
	CMPL AX, $3
	JEQ  opmin
	CMPL AX, $4
	JEQ  opmax
	MOVUPS (DI)(BX*1), X2
	MULPS X2, X0             // s·fs
	MOVUPS (R9)(BX*1), X3
	MULPS X3, X1             // d·fd
	CMPL AX, $1
	JEQ  opsub
	CMPL AX, $2
	JEQ  oprsub
	ADDPS X1, X0
	JMP  conv
opsub:
	SUBPS X1, X0
	JMP  conv
oprsub:
	SUBPS X0, X1
	MOVAPS X1, X0
	JMP  conv
opmin:
	MINPS X1, X0
	JMP  conv
opmax:
	MAXPS X1, X0
conv:
	MAXPS X4, X0             // NaN or below 0 → 0
	MINPS X5, X0             // above 1 → 1
	MULPS X6, X0
	ADDPS X7, X0
	CVTTPS2PL X0, X0
	PSLLL X8, X0
	MOVOU (R10)(BX*1), X1
	POR   X0, X1
	MOVOU X1, (R10)(BX*1)
	ADDQ $16, BX
	CMPQ BX, $64
	JLT  loop
	RET

// func prepareLanesSSE(color *[4][16]float32, px *[16]uint32, src, dst *[4][16]float32)
//
// src[c][l] = clamp01(color[c][l]): MAXPS with 0 as the source gives 0 for
// NaN, −0 and negatives, MINPS with 1 as the source gives 1 above 1.
// dst[c][l] = float32(px[l]>>(8c)&0xFF) / 255: CVTPL2PS is exact for
// 0..255 and DIVPS rounds as Go's float32 division does.
TEXT ·prepareLanesSSE(SB), NOSPLIT, $0-32
	MOVQ color+0(FP), SI
	MOVQ px+8(FP), DI
	MOVQ src+16(FP), R8
	MOVQ dst+24(FP), R9
	XORPS X4, X4             // 0
	MOVL $0x3f800000, R11    // 1.0
	MOVL R11, X5
	SHUFPS $0, X5, X5
	MOVL $0x437f0000, R11    // 255.0
	MOVL R11, X6
	SHUFPS $0, X6, X6
	MOVL $0xff, R11          // byte mask
	MOVL R11, X7
	PSHUFD $0, X7, X7
	XORQ BX, BX
clamp:
	MOVUPS (SI)(BX*1), X0
	MAXPS X4, X0
	MINPS X5, X0
	MOVUPS X0, (R8)(BX*1)
	ADDQ $16, BX
	CMPQ BX, $256
	JLT  clamp
	XORQ BX, BX
unpack:
	MOVOU (DI)(BX*1), X0     // four pixels
	MOVO  X0, X1
	PAND  X7, X1
	CVTPL2PS X1, X1
	DIVPS X6, X1
	MOVUPS X1, (R9)(BX*1)    // channel 0
	MOVO  X0, X1
	PSRLL $8, X1
	PAND  X7, X1
	CVTPL2PS X1, X1
	DIVPS X6, X1
	MOVUPS X1, 64(R9)(BX*1)  // channel 1
	MOVO  X0, X1
	PSRLL $16, X1
	PAND  X7, X1
	CVTPL2PS X1, X1
	DIVPS X6, X1
	MOVUPS X1, 128(R9)(BX*1) // channel 2
	PSRLL $24, X0
	CVTPL2PS X0, X0
	DIVPS X6, X0
	MOVUPS X0, 192(R9)(BX*1) // channel 3
	ADDQ $16, BX
	CMPQ BX, $64
	JLT  unpack
	RET

// func replaceRunSSE(p *uint32, n int, dst, out uint32) int
//
// Stores out over groups of four pixels of p[:n] (n a multiple of 4)
// while all four equal dst; returns the index of the first group that
// does not (n when every group did).
TEXT ·replaceRunSSE(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVL dst+16(FP), AX
	MOVL out+20(FP), DX
	MOVL AX, X1
	PSHUFD $0, X1, X1
	MOVL DX, X2
	PSHUFD $0, X2, X2
	XORQ BX, BX
rloop:
	CMPQ BX, CX
	JGE  rdone
	MOVOU (SI)(BX*4), X0
	PCMPEQL X1, X0
	PMOVMSKB X0, R8
	CMPL R8, $0xffff
	JNE  rdone
	MOVOU X2, (SI)(BX*4)
	ADDQ $4, BX
	JMP  rloop
rdone:
	MOVQ BX, ret+24(FP)
	RET

// func packLanesSSE(color *[4][16]float32, out *[16]uint32)
//
// out[l] = unorm8(color[0][l]) | unorm8(color[1][l])<<8 | … <<24: clamp
// (MAXPS with 0 as the source: NaN, −0 and negatives → 0; MINPS with 1),
// ·255 + 0.5, CVTTPS2DQ, as unorm8 does.
TEXT ·packLanesSSE(SB), NOSPLIT, $0-16
	MOVQ color+0(FP), SI
	MOVQ out+8(FP), DI
	XORPS X4, X4             // 0
	MOVL $0x3f800000, R11    // 1.0
	MOVL R11, X5
	SHUFPS $0, X5, X5
	MOVL $0x437f0000, R11    // 255.0
	MOVL R11, X6
	SHUFPS $0, X6, X6
	MOVL $0x3f000000, R11    // 0.5
	MOVL R11, X7
	SHUFPS $0, X7, X7
	XORQ BX, BX
ploop:
	MOVUPS (SI)(BX*1), X0    // red
	MAXPS X4, X0
	MINPS X5, X0
	MULPS X6, X0
	ADDPS X7, X0
	CVTTPS2PL X0, X0
	MOVUPS 64(SI)(BX*1), X1  // green
	MAXPS X4, X1
	MINPS X5, X1
	MULPS X6, X1
	ADDPS X7, X1
	CVTTPS2PL X1, X1
	PSLLL $8, X1
	POR X1, X0
	MOVUPS 128(SI)(BX*1), X1 // blue
	MAXPS X4, X1
	MINPS X5, X1
	MULPS X6, X1
	ADDPS X7, X1
	CVTTPS2PL X1, X1
	PSLLL $16, X1
	POR X1, X0
	MOVUPS 192(SI)(BX*1), X1 // alpha
	MAXPS X4, X1
	MINPS X5, X1
	MULPS X6, X1
	ADDPS X7, X1
	CVTTPS2PL X1, X1
	PSLLL $24, X1
	POR X1, X0
	MOVOU X0, (DI)(BX*1)
	ADDQ $16, BX
	CMPQ BX, $64
	JLT  ploop
	RET

// func depthLanesSSE(z *[16]float64, out *[16]uint32)
TEXT ·depthLanesSSE(SB), NOSPLIT, $0-16
	MOVQ z+0(FP), SI
	MOVQ out+8(FP), DI
	XORPD X4, X4                  // 0
	MOVQ $0x3ff0000000000000, R11 // 1.0
	MOVQ R11, X5
	UNPCKLPD X5, X5
	MOVQ $0x416fffffe0000000, R11 // 16777215.0 (depthMax)
	MOVQ R11, X6
	UNPCKLPD X6, X6
	MOVQ $0x3fe0000000000000, R11 // 0.5
	MOVQ R11, X7
	UNPCKLPD X7, X7
	XORQ BX, BX
	XORQ CX, CX
dloop:
	MOVUPD (SI)(BX*1), X0
	MAXPD X4, X0
	MINPD X5, X0
	MULPD X6, X0
	ADDPD X7, X0
	CVTTPD2PL X0, X0              // two int32 in the low half
	MOVQ X0, (DI)(CX*1)
	ADDQ $16, BX
	ADDQ $8, CX
	CMPQ BX, $128
	JLT  dloop
	RET

package backend

import (
	"testing"

	"github.com/tilegpu/tilegpu/hw/isa"
)

func bundlesText(bs []*Bundle) []string {
	var out []string
	for _, b := range bs {
		ins, ok := pack(b)
		if !ok {
			out = append(out, "UNENCODABLE "+b.String())
			continue
		}
		out = append(out, isa.Disasm(isa.Encode(ins)))
	}
	return out
}

func TestScheduleBlock(t *testing.T) {
	tests := []struct {
		name  string
		insts []*Inst
		want  []string
	}{
		{
			name: "sfu result waits one instruction",
			insts: []*Inst{
				newInst(OpMov, Magic(isa.WaddrSFURecip), RegA(0), Reg{}),
				newInst(OpMov, Acc(0), R4, Reg{}),
			},
			want: []string{"or sfu_recip, ra0, ra0 ; nop", "nop ; nop", "or r0, r4, r4 ; nop"},
		},
		{
			name: "independent add and mul pair",
			insts: []*Inst{
				newInst(AddOp(isa.OpFADD), Acc(0), RegA(0), RegB(0)),
				newInst(OpFMul, Acc(1), RegA(0), RegB(0)),
			},
			want: []string{"fadd r0, ra0, rb0 ; fmul r1, ra0, rb0"},
		},
		{
			name: "raddr conflict prevents pairing",
			insts: []*Inst{
				newInst(AddOp(isa.OpFADD), Acc(0), RegA(0), RegB(0)),
				newInst(OpFMul, Acc(1), RegA(1), RegB(1)),
			},
			want: []string{"fadd r0, ra0, rb0 ; nop", "nop ; fmul r1, ra1, rb1"},
		},
		{
			name: "dependent ops stay in order",
			insts: []*Inst{
				newInst(AddOp(isa.OpFADD), Acc(0), RegA(0), RegB(0)),
				newInst(OpFMul, Acc(1), Acc(0), Acc(0)),
			},
			want: []string{"fadd r0, ra0, rb0 ; nop", "nop ; fmul r1, r0, r0"},
		},
		{
			name: "texture request order and ldtmu merge",
			insts: []*Inst{
				newInst(OpMov, Magic(isa.WaddrTMUT), RegA(1), Reg{}),
				newInst(OpMov, Magic(isa.WaddrTMUS), RegA(0), Reg{}),
				newInst(OpLdTMU, Reg{}, Reg{}, Reg{}),
				newInst(OpMov, Acc(0), R4, Reg{}),
				newInst(AddOp(isa.OpFADD), Acc(1), RegA(2), RegB(2)),
			},
			want: []string{
				"or tmu_t, ra1, ra1 ; nop",
				"or tmu_s, ra0, ra0 ; nop",
				"fadd r1, ra2, rb2 ; nop ; ldtmu",
				"or r0, r4, r4 ; nop",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := bundlesText(scheduleBlock(tc.insts))
			if len(got) != len(tc.want) {
				t.Fatalf("got %d instructions %q, want %q", len(got), got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("instruction %d: %q, want %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

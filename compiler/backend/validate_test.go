package backend

import (
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/ir"
	"github.com/tilegpu/tilegpu/hw/isa"
)

// TestValidate assembles small programs that keep or break each rule
// Validate checks (docs/hardware.md §7) and checks its verdict.
func TestValidate(t *testing.T) {
	tests := []struct {
		name     string
		threaded bool
		src      string
		want     string // substring of the error, "" for a valid program
	}{
		{"straight line", false, `
			li r0, 0x3f800000
			fadd r1, r0, r0 ; nop
			mov tlb_r, r1 ; nop ; end`, ""},
		{"SFU result read two instructions later", false, `
			li r0, 0x40000000
			mov sfu_recip, r0 ; nop
			nop ; nop
			mov tlb_r, r4 ; nop ; end`, ""},
		{"r4 read right after an SFU write", false, `
			li r0, 0x40000000
			mov sfu_recip, r0 ; nop
			mov tlb_r, r4 ; nop ; end`, "reads r4 in the instruction after an SFU write"},
		{"LDTMU right after an SFU write", false, `
			li r0, 0x40000000
			mov sfu_recip, r0 ; nop
			mov tmu_addr, r0 ; nop
			nop ; nop ; ldtmu
			mov tlb_r, r4 ; nop ; end`, ""},
		{"LDTMU in the instruction after an SFU write", false, `
			li r0, 0x40000000
			mov tmu_addr, r0 ; nop
			mov sfu_recip, r0 ; nop
			nop ; nop ; ldtmu
			mov tlb_r, r4 ; nop ; end`, "LDTMU in the instruction after an SFU write"},
		{"SFU write with LDTMU", false, `
			li r0, 0x40000000
			mov tmu_addr, r0 ; nop
			mov sfu_recip, r0 ; nop ; ldtmu
			nop ; nop
			mov tlb_r, r4 ; nop ; end`, "in the instruction that writes the SFU"},
		{"two SFU writes back to back", false, `
			li r0, 0x40000000
			mov sfu_recip, r0 ; nop
			mov sfu_log2, r0 ; nop
			nop ; nop
			mov tlb_r, r4 ; nop ; end`, "SFU write in the instruction after an SFU write"},
		{"accumulator read before any write", false, `
			mov tlb_r, r2 ; nop ; end`, "reads r2"},
		{"r4 read before any LDTMU or SFU", false, `
			mov tlb_r, r4 ; nop ; end`, "reads r4"},
		{"accumulator lost at a thread switch", true, `
			li r0, 0x3f800000
			nop ; nop ; thrsw
			mov tlb_r, r0 ; nop ; end`, "reads r0"},
		{"register file survives a thread switch", true, `
			li ra3, 0x3f800000
			nop ; nop ; lthrsw
			mov tlb_r, ra3 ; nop ; end`, ""},
		{"thread switch after LAST_THRSW", true, `
			nop ; nop ; lthrsw
			nop ; nop ; thrsw
			nop ; nop ; end`, "thread switch after a LAST_THRSW"},
		{"LAST_THRSW in a loop", true, `
			li ra0, 0x3
			li rb1, 0x1
		loop:	nop ; nop ; lthrsw
			sub.setf ra0, ra0, rb1 ; nop
			brr.anynz loop
			nop ; nop ; end`, "thread switch after a LAST_THRSW"},
		{"upper register file in a threaded program", true, `
			li ra20, 0x1
			nop ; nop ; end`, "register 20"},
		{"upper register file when single-threaded", false, `
			li ra20, 0x1
			mov tlb_r, ra20 ; nop ; end`, ""},
		{"upper B register read in a threaded program", true, `
			mov tlb_r, rb17 ; nop ; end`, "reads B17"},
		{"texture fetch popped four times", false, `
			li r0, 0x0
			mov tmu_t, r0 ; nop
			mov tmu_s, r0 ; nop
			nop ; nop ; ldtmu
			nop ; nop ; ldtmu
			nop ; nop ; ldtmu
			nop ; nop ; ldtmu
			mov tlb_r, r4 ; nop ; end`, ""},
		{"texture fetch not popped", false, `
			li r0, 0x0
			mov tmu_s, r0 ; nop
			nop ; nop ; ldtmu
			nop ; nop ; end`, "END with 1 TMU requests not popped"},
		{"LDTMU with nothing outstanding", false, `
			nop ; nop ; ldtmu
			nop ; nop ; end`, "LDTMU with no TMU request outstanding"},
		{"five TMU requests", false, `
			li r0, 0x0
			mov tmu_addr, r0 ; nop
			mov tmu_addr, r0 ; nop
			mov tmu_addr, r0 ; nop
			mov tmu_addr, r0 ; nop
			mov tmu_addr, r0 ; nop
			nop ; nop ; end`, "a fifth TMU request"},
		{"paths meet with different TMU requests", false, `
			li.setf r0, 0x0
			brr.anyz skip
			mov tmu_addr, r0 ; nop
		skip:	nop ; nop ; ldtmu
			nop ; nop ; end`, "paths meet with different TMU requests"},
		{"accumulator written on one path only", false, `
			li.setf r1, 0x0
			brr.anyz skip
			li r0, 0x1
		skip:	mov tlb_r, r0 ; nop ; end`, "reads r0"},
		{"accumulator written on both paths", false, `
			li.setf r1, 0x0
			li r0, 0x2
			brr.anyz skip
			li r0, 0x1
		skip:	mov tlb_r, r0 ; nop ; end`, ""},
		{"falls off the end", false, `
			nop ; nop`, "runs past the last instruction"},
		{"branch outside the program", false, `
			brr 0x100
			nop ; nop ; end`, "outside the program"},
		{"absolute branch", false, `
			b 0x8
			nop ; nop ; end`, "absolute branch"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, err := isa.AssembleProgram(tc.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			err = Validate(code, tc.threaded)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("valid program rejected: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestCompiledProgramsValidate: Compile validates what it produces, so a
// broken program never leaves it. The bench shaders compile (threaded and
// not) and their code passes Validate on its own too.
func TestCompiledProgramsValidate(t *testing.T) {
	for _, sh := range benchShaders {
		f := lowerGLSL(t, sh.stage, sh.src)
		for _, threaded := range []bool{false, true} {
			bin, err := Compile(f, Options{Stage: f.Stage, Threaded: threaded})
			if err != nil {
				t.Fatalf("%s: %v", sh.name, err)
			}
			if err := Validate(bin.Code, threaded && f.Stage == ir.Fragment); err != nil {
				t.Errorf("%s threaded=%v: %v", sh.name, threaded, err)
			}
		}
	}
}

package ir

import (
	"strings"
	"testing"
)

// TestVerifyNamesInstructionInUseErrors checks that an operand error names
// the user instruction (and which phi argument) in full, now that Verify
// formats those names only when it reports an error.
func TestVerifyNamesInstructionInUseErrors(t *testing.T) {
	tests := []struct {
		name string
		note string // phi argument, "" for a plain instruction
	}{
		{"instruction operand", ""},
		{"then arg", " (then arg)"},
		{"else arg", " (else arg)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFunc("main", Fragment)
			b := NewBuilder(f)
			c := b.ConstF(1)
			n := b.If(b.ConstB(true))
			b.SetList(&n.Then)
			inThen := b.Emit(OpFAdd, Float, c, c)
			b.SetList(&n.Else)
			inElse := b.Emit(OpFMul, Float, c, c)
			b.SetList(&f.Body)
			// The phi swaps its args: each side's value is not visible
			// where the other side's arg is checked.
			phi := b.Phi(Float, c, c)
			n.Phis = []*Instr{phi}
			user := b.Emit(OpFAdd, Float, phi, c)
			var bad *Instr
			switch tc.note {
			case "":
				bad = user
				user.Args[1] = inThen
			case " (then arg)":
				bad = phi
				phi.Args[0] = inElse
			case " (else arg)":
				bad = phi
				phi.Args[1] = inThen
			}
			err := Verify(f, FormAny)
			if err == nil {
				t.Fatal("Verify accepted an operand defined in another scope")
			}
			want := bad.String() + tc.note + ": uses %"
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("error %q does not contain %q", err, want)
			}
		})
	}
}

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

// TestVerifyPlacementErrors checks the placement rules Verify tracks in
// its ID-indexed sets: an instruction placed twice, two instructions
// with one ID, an ID out of range, and a value read after its scope.
func TestVerifyPlacementErrors(t *testing.T) {
	tests := []struct {
		name  string
		build func(f *Func, b *Builder)
		want  string // "" for valid IR
	}{
		{"valid", func(f *Func, b *Builder) {
			c := b.ConstF(1)
			b.EmitIndex(OpStoreOutput, Void, 0, b.Emit(OpFAdd, Float, c, c))
		}, ""},
		{"placed twice", func(f *Func, b *Builder) {
			c := b.ConstF(1)
			blk := f.Body[0].(*Block)
			blk.Instrs = append(blk.Instrs, c)
		}, "placed twice"},
		{"shared ID", func(f *Func, b *Builder) {
			c := b.ConstF(1)
			d := b.ConstF(2)
			d.ID = c.ID
			b.EmitIndex(OpStoreOutput, Void, 0, b.Emit(OpFAdd, Float, c, d))
		}, "used by two instructions"},
		{"shared ID, both still visible", func(f *Func, b *Builder) {
			c := b.ConstF(1)
			d := b.ConstF(2)
			d.ID = c.ID
			b.EmitIndex(OpStoreOutput, Void, 0, b.Emit(OpFAdd, Float, d, c))
		}, "used by two instructions"},
		{"ID out of range", func(f *Func, b *Builder) {
			c := b.ConstF(1)
			c.ID = f.NumIDs() + 5
			b.EmitIndex(OpStoreOutput, Void, 0, c)
		}, "ID out of range"},
		{"read after its scope", func(f *Func, b *Builder) {
			n := b.If(b.ConstB(true))
			b.SetList(&n.Then)
			x := b.ConstF(1)
			b.SetList(&f.Body)
			b.EmitIndex(OpStoreOutput, Void, 0, x)
		}, "not defined before it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFunc("main", Fragment)
			b := NewBuilder(f)
			tc.build(f, b)
			err := Verify(f, FormAny)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("valid IR rejected: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("accepted, want an error containing %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
			if tc.want != "" && strings.Contains(tc.name, "shared ID") && strings.Contains(err.Error(), "not defined before") {
				t.Errorf("a shared ID made a visible operand look undefined: %v", err)
			}
		})
	}
}

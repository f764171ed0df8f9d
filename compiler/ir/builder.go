package ir

// Builder appends instructions and control flow to a node list. The zero
// value is not usable; make one with NewBuilder. Not safe for concurrent use.
type Builder struct {
	F    *Func
	list *[]Node
}

// NewBuilder returns a builder appending to f.Body.
func NewBuilder(f *Func) *Builder { return &Builder{F: f, list: &f.Body} }

// SetList makes b append to *list (a Then, Else or Body of a node) and
// returns the previous list so the caller can restore it.
func (b *Builder) SetList(list *[]Node) *[]Node {
	old := b.list
	b.list = list
	return old
}

func (b *Builder) block() *Block {
	l := *b.list
	if len(l) > 0 {
		if blk, ok := l[len(l)-1].(*Block); ok {
			return blk
		}
	}
	blk := &Block{}
	*b.list = append(l, blk)
	return blk
}

// Add appends an existing instruction.
func (b *Builder) Add(in *Instr) *Instr {
	blk := b.block()
	blk.Instrs = append(blk.Instrs, in)
	return in
}

// Emit appends a new instruction.
func (b *Builder) Emit(op Op, t Type, args ...*Instr) *Instr {
	return b.Add(b.F.NewInstr(op, t, args...))
}

// EmitIndex appends a new instruction with an Index operand.
func (b *Builder) EmitIndex(op Op, t Type, index int, args ...*Instr) *Instr {
	in := b.F.NewInstr(op, t, args...)
	in.Index = index
	return b.Add(in)
}

// Const appends a constant of type t with the given component bits (a
// single value is splatted over all components).
func (b *Builder) Const(t Type, bits ...uint32) *Instr {
	in := b.F.NewInstr(OpConst, t)
	for i := 0; i < int(t.Width); i++ {
		if len(bits) == 1 {
			in.Const[i] = bits[0]
		} else {
			in.Const[i] = bits[i]
		}
	}
	return b.Add(in)
}

// ConstF appends a float scalar constant.
func (b *Builder) ConstF(x float32) *Instr { return b.Const(Float, FloatBits(x)) }

// ConstI appends an int scalar constant.
func (b *Builder) ConstI(x int32) *Instr { return b.Const(Int, uint32(x)) }

// ConstB appends a bool scalar constant.
func (b *Builder) ConstB(x bool) *Instr { return b.Const(Bool, BoolBits(x)) }

// If appends an If on cond with empty branches.
func (b *Builder) If(cond *Instr) *If {
	n := &If{Cond: cond}
	*b.list = append(*b.list, n)
	return n
}

// Loop appends an empty Loop.
func (b *Builder) Loop() *Loop {
	n := &Loop{}
	*b.list = append(*b.list, n)
	return n
}

// Phi makes a phi (not placed in any list: append it to an If's or Loop's
// Phis).
func (b *Builder) Phi(t Type, args ...*Instr) *Instr {
	return b.F.NewInstr(OpPhi, t, args...)
}

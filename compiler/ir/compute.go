package ir

import "fmt"

// Compute shaders (GLSL ES 3.10 compute subset, issue 13).
//
// A compute Func (Stage Compute) reads no attributes or varyings and writes
// no outputs: its effects are explicit memory operations on storage
// buffers (OpLoadBuffer, OpStoreBuffer, OpAtomicBuffer: a buffer binding
// in Index and a byte offset in Args[0]) and on the work group's shared
// memory (OpLoadShared, OpStoreShared, OpAtomicShared: a byte offset in
// Args[0]). The front end has already laid every block out (std430) and
// every shared variable (std430 rules too), so the IR sees only 32-bit
// words at byte offsets; Func.Compute records the sizes. OpBarrier is the
// work group's execution barrier; OpMemoryBarrier orders one invocation's
// accesses. The invocation's position in the dispatch is
// OpLocalInvocationID, OpWorkGroupID and OpNumWorkGroups (one component
// each); gl_GlobalInvocationID, gl_LocalInvocationIndex and
// gl_WorkGroupSize are computed from them and the constant local size.
//
// Dispatch runs a compute Func over a whole dispatch: it is the reference
// the backend and the hardware's compute unit are tested against, as
// Interpret is for vertex and fragment shaders.

// ComputeInfo describes a compute shader's fixed resources.
type ComputeInfo struct {
	// LocalSize is layout(local_size_x, _y, _z): invocations per work group.
	LocalSize [3]int
	// SharedSize is the bytes of shared memory a work group needs (the
	// shared variables laid out one after another by std430 rules).
	SharedSize int
	// Buffers are the storage blocks the shader declares, by binding.
	Buffers []BufferBinding
}

// Invocations returns the number of invocations per work group.
func (c *ComputeInfo) Invocations() int { return c.LocalSize[0] * c.LocalSize[1] * c.LocalSize[2] }

// String gives the dump's header lines of a compute shader's resources.
func (c *ComputeInfo) String() string {
	s := fmt.Sprintf("  local_size %dx%dx%d, shared %d bytes\n", c.LocalSize[0], c.LocalSize[1], c.LocalSize[2], c.SharedSize)
	for _, b := range c.Buffers {
		s += fmt.Sprintf("  buffer binding %d %s: %d bytes", b.Binding, b.Name, b.FixedSize)
		if b.Stride > 0 {
			s += fmt.Sprintf(" + %d per runtime element", b.Stride)
		}
		s += "\n"
	}
	return s
}

// BufferBinding is one std430 shader storage block as the front end laid
// it out.
type BufferBinding struct {
	Binding int    // layout(binding = N)
	Name    string // the block name
	// FixedSize is the size in bytes of the members before a runtime-sized
	// last member (all members if there is none): the least size a bound
	// buffer may have.
	FixedSize int
	// Stride is the array stride of the runtime-sized last member, 0 if the
	// block has none; its length() is (size − FixedSize) / Stride.
	Stride int
}

// AtomicOp is the operation of OpAtomicBuffer and OpAtomicShared. Each
// returns the word's old value and stores op(old, Args[1]) (AtomicCompSwap:
// Args[2] if old == Args[1], else old unchanged).
type AtomicOp uint8

// Atomic operations (GLSL ES 3.10 §8.11). Signed and unsigned min/max
// differ; add, and, or, xor and exchange are the same on both.
const (
	AtomicAdd  AtomicOp = iota
	AtomicMin           // signed
	AtomicMax           // signed
	AtomicUMin          // unsigned
	AtomicUMax          // unsigned
	AtomicAnd
	AtomicOr
	AtomicXor
	AtomicExchange
	AtomicCompSwap // Args: offset, compare, data
	numAtomicOps
)

var atomicNames = [numAtomicOps]string{"add", "min", "max", "umin", "umax", "and", "or", "xor", "exchange", "comp_swap"}

func (a AtomicOp) String() string {
	if a < numAtomicOps {
		return atomicNames[a]
	}
	return fmt.Sprintf("AtomicOp(%d)", a)
}

// NumArgs returns the arguments (the offset included) an atomic with this
// operation takes.
func (a AtomicOp) NumArgs() int {
	if a == AtomicCompSwap {
		return 3
	}
	return 2
}

// EvalAtomic returns the word an atomic leaves in memory given the old word
// and its operands (b only for AtomicCompSwap's data).
func EvalAtomic(op AtomicOp, old, a, b uint32) uint32 {
	switch op {
	case AtomicAdd:
		return old + a
	case AtomicMin:
		return uint32(min(int32(old), int32(a)))
	case AtomicMax:
		return uint32(max(int32(old), int32(a)))
	case AtomicUMin:
		return min(old, a)
	case AtomicUMax:
		return max(old, a)
	case AtomicAnd:
		return old & a
	case AtomicOr:
		return old | a
	case AtomicXor:
		return old ^ a
	case AtomicExchange:
		return a
	case AtomicCompSwap:
		if old == a {
			return b
		}
	}
	return old
}

// MemoryBarrierBits is OpMemoryBarrier's Index: which memory it orders.
type MemoryBarrierBits int

// Memory kinds of memoryBarrier*().
const (
	BarrierBuffer MemoryBarrierBits               = 1 << iota // memoryBarrierBuffer()
	BarrierShared                                             // memoryBarrierShared()
	BarrierAll    = BarrierBuffer | BarrierShared             // memoryBarrier(), groupMemoryBarrier()
)

// computeOperands gives the dump's operands of the compute ops.
func computeOperands(v *Instr) []string {
	switch v.Op {
	case OpLocalInvocationID, OpWorkGroupID, OpNumWorkGroups:
		return []string{string("xyz?"[min(uint(v.Index), 3)])}
	case OpLoadBuffer, OpStoreBuffer, OpBufferSize:
		return []string{fmt.Sprintf("binding %d", v.Index)}
	case OpAtomicBuffer:
		return []string{v.Atomic.String(), fmt.Sprintf("binding %d", v.Index)}
	case OpAtomicShared:
		return []string{v.Atomic.String()}
	case OpMemoryBarrier:
		switch MemoryBarrierBits(v.Index) {
		case BarrierBuffer:
			return []string{"buffer"}
		case BarrierShared:
			return []string{"shared"}
		case BarrierAll:
			return []string{"all"}
		}
		return []string{fmt.Sprint(v.Index)}
	}
	return nil
}

// computeInstr checks the compute ops (Verify).
func (v *verifier) computeInstr(in *Instr) {
	s := instrLabel{in: in}
	if v.f.Stage != Compute {
		v.errorf("%s: compute operation in a %s shader", s, v.f.Stage)
	}
	t := in.Type
	word := func(a *Instr) bool { return a.Type == Int || a.Type == Float }
	offset := func() {
		if len(in.Args) == 0 || in.Args[0].Type != Int {
			v.errorf("%s: the offset must be an i32", s)
		}
	}
	switch in.Op {
	case OpLocalInvocationID, OpWorkGroupID, OpNumWorkGroups:
		if t != Int || in.Index < 0 || in.Index > 2 {
			v.errorf("%s: must be an i32 of component 0..2", s)
		}
	case OpLoadBuffer, OpLoadShared:
		offset()
		if t != Int && t != Float {
			v.errorf("%s: loads an i32 or f32", s)
		}
	case OpStoreBuffer, OpStoreShared:
		offset()
		if t != Void || !word(in.Args[1]) {
			v.errorf("%s: stores an i32 or f32 and has no value", s)
		}
	case OpBufferSize:
		if t != Int {
			v.errorf("%s: must be an i32", s)
		}
	case OpAtomicBuffer, OpAtomicShared:
		if in.Atomic >= numAtomicOps || len(in.Args) != in.Atomic.NumArgs() {
			v.errorf("%s: atomic %s needs %d args", s, in.Atomic, in.Atomic.NumArgs())
			return
		}
		offset()
		if t != Int {
			v.errorf("%s: must be an i32", s)
		}
		for _, a := range in.Args[1:] {
			if a.Type != Int {
				v.errorf("%s: operand %%%d must be an i32", s, a.ID)
			}
		}
	case OpBarrier:
		if t != Void {
			v.errorf("%s: has a value", s)
		}
	case OpMemoryBarrier:
		if t != Void || in.Index <= 0 || MemoryBarrierBits(in.Index)&^BarrierAll != 0 {
			v.errorf("%s: bad memory bits %d", s, in.Index)
		}
	case OpBitcast:
		if a := in.Args[0].Type; a.Width != t.Width || t.Width == 0 || a.Base == BaseBool || t.Base == BaseBool {
			v.errorf("%s: bitcast from %s to %s", s, a, t)
		}
	}
	if (in.Op == OpLoadBuffer || in.Op == OpStoreBuffer || in.Op == OpBufferSize || in.Op == OpAtomicBuffer) &&
		in.Index < 0 {
		v.errorf("%s: negative binding", s)
	}
}

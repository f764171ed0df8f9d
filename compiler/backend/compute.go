package backend

import (
	"sort"

	"github.com/tilegpu/tilegpu/compiler/ir"
	"github.com/tilegpu/tilegpu/hw/isa"
	"github.com/tilegpu/tilegpu/hw/qpu"
)

// Compute shaders (docs/hardware.md §9, compiler/ir/compute.go). The IR's
// memory operations map one to one onto the compute batch's ports:
//
//	load_buffer b, off    TMU_ADDR ← base(b)+off; LDTMU
//	store_buffer b, off, v TMU_STORE_DATA ← v; TMU_STORE_ADDR ← base(b)+off
//	atomic_buffer op, b …  TMU_R ← op; [TMU_T ← compare]; TMU_STORE_DATA ← v;
//	                       TMU_ATOMIC ← base(b)+off; LDTMU (the old word)
//	load/store/atomic_shared  the same on SHARED_LOAD/SHARED_STORE/SHARED_ATOMIC
//	                       with the byte offset as the address
//	barrier               the BARRIER signal
//	memory_barrier        nothing: a batch's accesses complete in order
//	local_invocation_id, work_group_id, num_work_groups  the compute read addresses
//	buffer_size b         a UniformBufferSize stream entry
//
// base(b) is a UniformBufferAddress stream entry, read once per binding at
// the start of the program. Inside an If or Loop the address write is
// conditional on the execution mask, so inactive lanes never access
// memory (the hardware also leaves out lanes beyond the workgroup).

// hoistBuffers reads the address (and, if used, the size) of every
// storage buffer the shader touches, in binding order, at the start (top
// level: each read runs exactly once).
func (s *selector) hoistBuffers() {
	read := func(e ir.UniformEntry) Reg {
		t := s.p.NewTemp()
		s.mov(t, Spec(SpecUniform)).Uniform = len(s.p.UniformTable)
		s.p.UniformTable = append(s.p.UniformTable, e)
		return t
	}
	addr, size := map[int]bool{}, map[int]bool{}
	s.f.Walk(func(in *ir.Instr) {
		switch in.Op {
		case ir.OpLoadBuffer, ir.OpStoreBuffer, ir.OpAtomicBuffer:
			addr[in.Index] = true
		case ir.OpBufferSize:
			size[in.Index] = true
		}
	})
	if len(addr)+len(size) == 0 {
		return
	}
	s.bufAddr, s.bufSize = map[int]Reg{}, map[int]Reg{}
	for _, k := range sortedKeys(addr) {
		s.bufAddr[k] = read(ir.UniformEntry{Kind: ir.UniformBufferAddress, Index: uint32(k)})
	}
	for _, k := range sortedKeys(size) {
		s.bufSize[k] = read(ir.UniformEntry{Kind: ir.UniformBufferSize, Index: uint32(k)})
	}
}

func sortedKeys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// maskInvalidLanes starts a compute shader whose workgroup size is not
// a multiple of 16 with the lanes beyond the workgroup inactive in the
// execution mask: they execute every instruction (hardware.md §9), and
// without the mask a loop would run as long as they, whose loads read 0,
// keep its condition true (a loop that waits for a value in memory never
// ended: TestQueueFenceCoversEarlierWorkOnOtherEngines).
func (s *selector) maskInvalidLanes() {
	c := s.f.Compute
	if s.f.Stage != ir.Compute || c == nil || c.Invocations()%qpu.Lanes == 0 {
		return
	}
	s.ensureExec()
	n := s.constant(uint32(c.Invocations()))
	s.mov(s.exec, imm(0))
	s.emit(AddOp(isa.OpSUB), nop, Spec(SpecLocalIndex), n).SF = true
	s.mov(s.exec, imm(1)).Cond = isa.CondNC // local index ≥ invocations
	s.masked = true
}

var (
	localIDSpecs   = [3]Special{SpecLocalIDX, SpecLocalIDY, SpecLocalIDZ}
	workgroupSpecs = [3]Special{SpecWorkgroupX, SpecWorkgroupY, SpecWorkgroupZ}
	numGroupSpecs  = [3]Special{SpecNumGroupsX, SpecNumGroupsY, SpecNumGroupsZ}
)

// computeInstr selects a compute op; false when in is not one.
func (s *selector) computeInstr(in *ir.Instr) bool {
	comp := func(specs [3]Special) {
		if in.Index < 0 || in.Index > 2 {
			s.fail("%%%d: %v component %d", in.ID, in.Op, in.Index)
			return
		}
		s.mov(s.def(in), Spec(specs[in.Index]))
	}
	switch in.Op {
	case ir.OpLocalInvocationID:
		comp(localIDSpecs)
	case ir.OpWorkGroupID:
		comp(workgroupSpecs)
	case ir.OpNumWorkGroups:
		comp(numGroupSpecs)
	case ir.OpBufferSize:
		s.vals[in] = s.bufSize[in.Index]
	case ir.OpBitcast:
		// Registers hold 32-bit words whatever their type: a bit cast
		// is the same value under another type.
		s.vals[in] = s.val(in.Args[0])
	case ir.OpLoadBuffer:
		s.memLoad(in, isa.WaddrTMUAddr, s.bufferAddr(in))
	case ir.OpLoadShared:
		s.memLoad(in, isa.WaddrSharedLoad, s.val(in.Args[0]))
	case ir.OpStoreBuffer:
		s.memStore(isa.WaddrTMUStoreAddr, s.bufferAddr(in), s.val(in.Args[1]))
	case ir.OpStoreShared:
		s.memStore(isa.WaddrSharedStore, s.val(in.Args[0]), s.val(in.Args[1]))
	case ir.OpAtomicBuffer:
		s.atomic(in, isa.WaddrTMUAtomic, s.bufferAddr(in))
	case ir.OpAtomicShared:
		s.atomic(in, isa.WaddrSharedAtomic, s.val(in.Args[0]))
	case ir.OpBarrier:
		if s.f.Stage != ir.Compute {
			s.fail("barrier in a %v shader", s.f.Stage)
			return true
		}
		s.add(newInst(OpBarrier, Reg{}, Reg{}, Reg{}))
	case ir.OpMemoryBarrier:
		// A batch's loads, stores and atomics complete in program order
		// (hardware.md §9), so ordering one invocation's accesses needs
		// no instruction.
	default:
		return false
	}
	return true
}

// bufferAddr returns base(binding) + offset for a buffer op.
func (s *selector) bufferAddr(in *ir.Instr) Reg {
	base, ok := s.bufAddr[in.Index]
	if !ok {
		s.fail("%%%d: buffer binding %d has no address", in.ID, in.Index)
		return imm(0)
	}
	t := s.p.NewTemp()
	s.emit(AddOp(isa.OpADD), t, base, s.val(in.Args[0]))
	return t
}

// portWrite writes addr to a memory port, only in the active lanes when
// some may be inactive.
func (s *selector) portWrite(port isa.Waddr, addr Reg, g int) {
	if s.masked {
		s.setFlags(s.exec)
	}
	w := s.mov(Magic(port), addr)
	w.Group = g
	if s.masked {
		w.Cond = isa.CondZS
	}
}

// memLoad queues a one-word load on port and moves the result to in's
// value.
func (s *selector) memLoad(in *ir.Instr, port isa.Waddr, addr Reg) {
	g := s.p.newGroup()
	s.portWrite(port, addr, g)
	s.add(newInst(OpLdTMU, Reg{}, Reg{}, Reg{})).Group = g
	t := s.def(in)
	s.mov(t, R4).Group = g
	if in.Type.Base == ir.BaseBool {
		s.vals[in] = s.normBool(t)
	}
}

// memStore stores v at addr through port (TMU_STORE_ADDR or SHARED_STORE).
func (s *selector) memStore(port isa.Waddr, addr, v Reg) {
	g := s.p.newGroup()
	s.mov(Magic(isa.WaddrTMUStoreData), v).Group = g
	s.portWrite(port, addr, g)
}

// atomic selects an atomic: the operation in TMU_R, the compare value of
// a compare-swap in TMU_T, the operand in TMU_STORE_DATA, then the port
// write and the pop of the old word.
func (s *selector) atomic(in *ir.Instr, port isa.Waddr, addr Reg) {
	op, ok := atomicOps[in.Atomic]
	if !ok || len(in.Args) != in.Atomic.NumArgs() {
		s.fail("%%%d: atomic %v with %d arguments", in.ID, in.Atomic, len(in.Args))
		return
	}
	g := s.p.newGroup()
	s.li(Magic(isa.WaddrTMUR), op).Group = g
	data := in.Args[1]
	if in.Atomic == ir.AtomicCompSwap {
		s.mov(Magic(isa.WaddrTMUT), s.val(in.Args[1])).Group = g
		data = in.Args[2]
	}
	s.mov(Magic(isa.WaddrTMUStoreData), s.val(data)).Group = g
	s.portWrite(port, addr, g)
	s.add(newInst(OpLdTMU, Reg{}, Reg{}, Reg{})).Group = g
	s.mov(s.def(in), R4).Group = g
}

// atomicOps maps the IR's atomic operations to the hardware's codes.
var atomicOps = map[ir.AtomicOp]uint32{
	ir.AtomicAdd: qpu.AtomicAdd, ir.AtomicMin: qpu.AtomicMin, ir.AtomicMax: qpu.AtomicMax,
	ir.AtomicUMin: qpu.AtomicUMin, ir.AtomicUMax: qpu.AtomicUMax, ir.AtomicAnd: qpu.AtomicAnd,
	ir.AtomicOr: qpu.AtomicOr, ir.AtomicXor: qpu.AtomicXor, ir.AtomicExchange: qpu.AtomicExchange,
	ir.AtomicCompSwap: qpu.AtomicCompSwap,
}

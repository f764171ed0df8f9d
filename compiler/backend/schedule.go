package backend

import (
	"slices"
	"sync"

	"github.com/tilegpu/tilegpu/hw/isa"
)

// Bundle is one machine instruction: up to one add-unit op, one mul-unit
// op and a signal, or a lone load immediate or branch.
type Bundle struct {
	Add, Mul *Inst // ALU ops (an OpMov may sit in either)
	Sig      *Inst // OpLdTMU, OpThrsw or OpBarrier
	Other    *Inst // OpLoadImm or OpBranch (alone)
	End      bool  // program end after this instruction
}

func (b *Bundle) insts() []*Inst {
	// Small enough to inline, so that the array stays on the caller's
	// stack (a heap slice per call was 6 % of a compile's allocations).
	all := [4]*Inst{b.Add, b.Mul, b.Sig, b.Other}
	n := 0
	for _, in := range all {
		if in != nil {
			all[n] = in
			n++
		}
	}
	return all[:n]
}

// Scheduled is the scheduled program: each block's bundles in order.
type Scheduled struct {
	Blocks [][]*Bundle
}

// Resources tracked by the dependency graph.
const (
	resAcc    = 0  // r0..r5
	resA      = 6  // A0..A31
	resB      = 38 // B0..B31
	resFlags  = 70
	resUnif   = 71 // uniform stream (UNIFORM reads, TMU_S, UNIFORMS_ADDRESS)
	resVary   = 72
	resVPMIn  = 73
	resVPMOut = 74
	resTMU    = 75 // TMU FIFO (requests, pops, stores)
	resTLB    = 76 // TLB_KILL, TLB_Z, TLB_COLOR_R..A: one resource each
	numRes    = 82
)

func regRes(r Reg) int {
	switch r.File {
	case FileAcc:
		return resAcc + r.Index
	case FileA:
		return resA + r.Index
	case FileB:
		return resB + r.Index
	case FileSpecial:
		switch Special(r.Index) {
		case SpecUniform:
			return resUnif
		case SpecVarying:
			return resVary
		case SpecVPM:
			return resVPMIn
		}
	case FileMagic:
		w := isa.Waddr(r.Index)
		switch {
		case w == isa.WaddrTMUS, w == isa.WaddrUniformsAdr:
			return resUnif
		case w.IsTMU(), w.IsMemoryPort():
			return resTMU
		case w.IsTLB():
			// Separate registers: their writes may go in any order.
			return resTLB + int(w-isa.WaddrTLBKill)
		case w == isa.WaddrVPM || w == isa.WaddrVPMWSetup:
			return resVPMOut
		case w == isa.WaddrVPMRSetup:
			return resVPMIn
		}
	}
	return -1
}

// effects lists the resources an instruction reads and writes. Stream
// reads count as writes (they advance the stream); a conditional write
// also reads its destination (lanes that fail keep the old value).
func effects(in *Inst) (reads, writes []int) { return effectsInto(in, nil, nil) }

// effectsInto is effects appending to reads and writes (scheduleBlock
// passes buffers it reuses: a new pair of slices per instruction was a
// sixth of a small compile's allocations).
func effectsInto(in *Inst, reads, writes []int) ([]int, []int) {
	for _, r := range in.Reads() {
		if x := regRes(r); x >= 0 {
			if r.File == FileSpecial {
				writes = append(writes, x)
			} else {
				reads = append(reads, x)
			}
		}
	}
	if x := regRes(in.Dst); x >= 0 {
		writes = append(writes, x)
		if !in.writesAll() && in.Dst.File != FileMagic {
			reads = append(reads, x)
		}
		if in.Dst.File == FileMagic && in.Dst.Index == int(isa.WaddrTMUS) {
			writes = append(writes, resTMU)
		}
	}
	if in.readsFlags() {
		reads = append(reads, resFlags)
	}
	if in.SF {
		writes = append(writes, resFlags)
	}
	if in.writesR4() {
		writes = append(writes, resAcc+4)
	}
	if in.Op == OpLdTMU || in.Op == OpBarrier {
		// A barrier orders the memory accesses around it.
		writes = append(writes, resTMU)
	}
	if in.Op == OpThrsw {
		for i := 0; i < 6; i++ {
			writes = append(writes, resAcc+i)
		}
	}
	return reads, writes
}

type schedNode struct {
	in        *Inst
	index     int // position in the block
	succs     []schedEdge
	npred     int
	earliest  int
	priority  int
	scheduled bool
}

type schedEdge struct {
	to      *schedNode
	latency int
}

func isSFUWrite(in *Inst) bool {
	return in.Dst.File == FileMagic && isa.Waddr(in.Dst.Index).IsSFU()
}

// Schedule list-schedules every block of an allocated program into
// bundles, pairing independent add- and mul-unit ops.
func Schedule(p *Program) *Scheduled {
	s := &Scheduled{Blocks: make([][]*Bundle, len(p.Blocks))}
	sc := schedScratchPool.Get().(*schedScratch)
	for bi, b := range p.Blocks {
		s.Blocks[bi] = sc.block(b.Insts)
	}
	if cap(sc.edgeBuf) <= maxPooledScratch {
		// Nothing in it is referenced any more: drop the pointers the
		// node and edge arrays still hold before pooling them.
		clear(sc.nodes[:cap(sc.nodes)])
		clear(sc.nodeBuf[:cap(sc.nodeBuf)])
		clear(sc.edgeBuf[:cap(sc.edgeBuf)])
		clear(sc.avail[:cap(sc.avail)])
		schedScratchPool.Put(sc)
	}
	// END rides on the last instruction when it can, or on the one before
	// it when the two are independent and can trade places.
	last := len(s.Blocks) - 1
	bs := s.Blocks[last]
	canEnd := func(b *Bundle) bool {
		if b.Other != nil {
			return false
		}
		c := *b
		c.End = true
		_, ok := pack(&c)
		return ok
	}
	n := len(bs)
	switch {
	case n > 0 && canEnd(bs[n-1]):
		bs[n-1].End = true
	case n > 1 && canEnd(bs[n-2]) && independent(bs[n-2], bs[n-1]):
		bs[n-2], bs[n-1] = bs[n-1], bs[n-2]
		bs[n-1].End = true
	default:
		bs = append(bs, &Bundle{End: true})
	}
	s.Blocks[last] = bs
	return s
}

// independent reports whether two bundles touch no common resource (so
// they may execute in either order) and neither involves r4 timing.
func independent(a, b *Bundle) bool {
	var ra, wa [numRes]bool
	for _, in := range a.insts() {
		if in.writesR4() || in.Op == OpLdTMU || in.Op == OpThrsw || in.Op == OpBarrier {
			return false
		}
		r, w := effects(in)
		for _, x := range r {
			ra[x] = true
		}
		for _, x := range w {
			wa[x] = true
		}
	}
	for _, in := range b.insts() {
		if in.writesR4() || in.Op == OpLdTMU || in.Op == OpThrsw || in.Op == OpBarrier {
			return false
		}
		r, w := effects(in)
		for _, x := range r {
			if wa[x] {
				return false
			}
		}
		for _, x := range w {
			if wa[x] || ra[x] {
				return false
			}
		}
		for _, x := range append(r, w...) {
			if x == resAcc+4 {
				return false
			}
		}
	}
	return true
}

// schedScratch holds the scheduler's per-instruction arrays between the
// blocks of one Schedule call (allocating them per block was a tenth of a
// backend compile's garbage). Nothing it holds outlives the block.
type schedScratch struct {
	nodes             []*schedNode
	avail             []*schedNode
	nodeBuf           []schedNode
	edgeBuf           []schedEdge
	readBuf, writeBuf []int
}

// schedScratchPool keeps the scheduler's arrays from one compile to the
// next, like colourScratchPool.
var schedScratchPool = sync.Pool{New: func() any { return new(schedScratch) }}

func scheduleBlock(insts []*Inst) []*Bundle {
	var sc schedScratch
	return sc.block(insts)
}

// block list-schedules one block's instructions into bundles.
func (sc *schedScratch) block(insts []*Inst) []*Bundle {
	var branch *Inst
	if n := len(insts); n > 0 && insts[n-1].Op == OpBranch {
		branch = insts[n-1]
		insts = insts[:n-1]
	}
	nodes := scratch(&sc.nodes, len(insts))
	nodeBuf := scratch(&sc.nodeBuf, len(insts)) // one array for the block's nodes
	// Each node's first four successor edges come from one array too
	// (appending past them moves that node's list to its own).
	edgeBuf := scratch(&sc.edgeBuf, 4*len(insts))
	readBuf, writeBuf := sc.readBuf[:0], sc.writeBuf[:0]
	defer func() { sc.readBuf, sc.writeBuf = readBuf[:0], writeBuf[:0] }()
	var lastWriter [numRes]*schedNode
	var readers [numRes][]*schedNode
	addEdge := func(from, to *schedNode, lat int) {
		if from == nil || from == to {
			return
		}
		from.succs = append(from.succs, schedEdge{to, lat})
		to.npred++
	}
	for i, in := range insts {
		n := &nodeBuf[i]
		n.in, n.index = in, i
		n.succs = edgeBuf[4*i : 4*i : 4*i+4]
		nodes[i] = n
		readBuf, writeBuf = effectsInto(in, readBuf[:0], writeBuf[:0])
		reads, writes := readBuf, writeBuf
		for _, r := range reads {
			if w := lastWriter[r]; w != nil {
				lat := 1
				if r == resAcc+4 && isSFUWrite(w.in) {
					lat = 2
				}
				addEdge(w, n, lat)
			}
		}
		for _, r := range writes {
			// Both units read their operands before either writes, and
			// signals act after the ALU ops: a register may be
			// overwritten by the instruction that last reads it.
			war := 1
			if r < resFlags {
				war = 0
			}
			for _, rd := range readers[r] {
				addEdge(rd, n, war)
			}
			if w := lastWriter[r]; w != nil {
				lat := 1
				if r == resAcc+4 && isSFUWrite(w.in) {
					lat = 2
				}
				addEdge(w, n, lat)
			}
		}
		for _, r := range reads {
			readers[r] = append(readers[r], n)
		}
		for _, r := range writes {
			lastWriter[r] = n
			readers[r] = readers[r][:0]
		}
	}
	// Priority: longest latency-weighted path to the end of the block.
	for i := len(nodes) - 1; i >= 0; i-- {
		n := nodes[i]
		n.priority = 1
		for _, e := range n.succs {
			if p := e.to.priority + e.latency; p > n.priority {
				n.priority = p
			}
		}
	}
	var out []*Bundle
	remaining := len(nodes)
	cycle := 0
	lastSFU := -1
	// avail holds the unscheduled nodes whose predecessors are all
	// scheduled, in block order, so that each choice looks at those
	// instead of the whole block (which made long blocks quadratic).
	avail := sc.avail[:0]
	defer func() { sc.avail = avail[:0] }()
	for _, n := range nodes {
		if n.npred == 0 {
			avail = append(avail, n)
		}
	}
	ready := func(n *schedNode) bool { return n.earliest <= cycle }
	for remaining > 0 {
		var best *schedNode
		for _, n := range avail {
			if ready(n) && (best == nil || n.priority > best.priority) {
				best = n
			}
		}
		if best == nil {
			out = append(out, &Bundle{}) // stall (SFU latency)
			cycle++
			continue
		}
		b := startBundle(best.in)
		take := func(n *schedNode) {
			n.scheduled = true
			remaining--
			if isSFUWrite(n.in) {
				lastSFU = cycle
			}
			at, _ := slices.BinarySearchFunc(avail, n.index, func(a *schedNode, i int) int { return a.index - i })
			avail = slices.Delete(avail, at, at+1)
			for _, e := range n.succs {
				e.to.npred--
				if c := cycle + e.latency; c > e.to.earliest {
					e.to.earliest = c
				}
				if e.to.npred == 0 {
					at, _ := slices.BinarySearchFunc(avail, e.to.index, func(a *schedNode, i int) int { return a.index - i })
					avail = slices.Insert(avail, at, e.to)
				}
			}
		}
		take(best)
		for {
			var add *schedNode
			var merged *Bundle
			for _, n := range avail {
				if !ready(n) {
					continue
				}
				if nb := tryMerge(b, n.in); nb != nil && (add == nil || n.priority > add.priority) {
					add, merged = n, nb
				}
			}
			if add == nil {
				break
			}
			b = merged
			take(add)
		}
		out = append(out, b)
		cycle++
	}
	// An SFU result may be read in a following block: keep the latency
	// across the block boundary.
	extra := 0
	if branch != nil {
		extra = 1
	}
	for lastSFU >= 0 && len(out)+extra < lastSFU+2 {
		out = append(out, &Bundle{})
	}
	if branch != nil {
		out = append(out, &Bundle{Other: branch})
	}
	return out
}

func startBundle(in *Inst) *Bundle {
	switch {
	case in.Op == OpLoadImm || in.Op == OpBranch:
		return &Bundle{Other: in}
	case in.Op == OpLdTMU || in.Op == OpThrsw || in.Op == OpBarrier:
		return &Bundle{Sig: in}
	case in.Op.isMul():
		return &Bundle{Mul: in}
	default:
		// Add-unit op or mov: try the add unit first; a lone mov on the
		// add unit encodes as or a, a.
		b := &Bundle{Add: in}
		if _, ok := pack(b); !ok && in.Op == OpMov {
			return &Bundle{Mul: in}
		}
		return b
	}
}

// tryMerge returns b with in added if the result still encodes.
func tryMerge(b *Bundle, in *Inst) *Bundle {
	if b.Other != nil || in.Op == OpLoadImm || in.Op == OpBranch {
		return nil
	}
	var candBuf [3]Bundle
	cands := candBuf[:0]
	switch {
	case in.Op == OpLdTMU || in.Op == OpThrsw || in.Op == OpBarrier:
		if b.Sig == nil {
			c := *b
			c.Sig = in
			cands = append(cands, c)
		}
	case in.Op.isMul():
		if b.Mul == nil {
			c := *b
			c.Mul = in
			cands = append(cands, c)
		} else if b.Mul.Op == OpMov && b.Add == nil {
			c := *b
			c.Add, c.Mul = b.Mul, in
			cands = append(cands, c)
		}
	case in.Op == OpMov:
		if b.Add == nil {
			c := *b
			c.Add = in
			cands = append(cands, c)
		}
		if b.Mul == nil {
			c := *b
			c.Mul = in
			cands = append(cands, c)
		}
		if b.Add != nil && b.Add.Op == OpMov && b.Mul == nil {
			c := *b
			c.Add, c.Mul = in, b.Add
			cands = append(cands, c)
		}
	default: // add-unit op
		if b.Add == nil {
			c := *b
			c.Add = in
			cands = append(cands, c)
		} else if b.Add.Op == OpMov && b.Mul == nil {
			c := *b
			c.Add, c.Mul = in, b.Add
			cands = append(cands, c)
		}
	}
	for i := range cands {
		if _, ok := pack(&cands[i]); ok {
			nb := cands[i] // only the bundle that fits goes to the heap
			return &nb
		}
	}
	return nil
}

package backend

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/tilegpu/tilegpu/compiler/ir"
	"github.com/tilegpu/tilegpu/hw/isa"
)

// Physical register numbering used by the allocator.
const (
	physAcc   = 0  // r0..r2 (r3 is the fixup/spill scratch)
	numAcc    = 3  //
	physR4    = 3  // r4
	physA     = 4  // A0..A31
	physB     = 36 // B0..B31
	numPhys   = 68 //
	fixupAcc  = 3  // r3
	maxRounds = 100
)

// regSet is a set of physical registers.
type regSet [2]uint64

func (s *regSet) add(r int)          { s[r>>6] |= 1 << (uint(r) & 63) }
func (s regSet) has(r int) bool      { return s[r>>6]&(1<<(uint(r)&63)) != 0 }
func (s regSet) count() int          { return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) }
func (s regSet) and(o regSet) regSet { return regSet{s[0] & o[0], s[1] & o[1]} }
func (s regSet) empty() bool         { return s[0] == 0 && s[1] == 0 }

// Class bits (vc4_register_allocate.c's CLASS_BIT_*).
const (
	classAcc = 1 << iota
	classR4
	classA
	classB
	numClasses = 16
)

// regClasses is the target model <Regs, Classes> with the pq values of
// Runeson & Nyström precomputed: p[c] registers in class c, q[b][c] the
// most registers of class b one node of class c can block.
type regClasses struct {
	set [numClasses]regSet
	p   [numClasses]int
	q   [numClasses][numClasses]int
}

func newRegClasses(fileRegs int) *regClasses {
	rc := &regClasses{}
	for c := 0; c < numClasses; c++ {
		var s regSet
		if c&classAcc != 0 {
			for i := 0; i < numAcc; i++ {
				s.add(physAcc + i)
			}
		}
		if c&classR4 != 0 {
			s.add(physR4)
		}
		for i := 0; i < fileRegs; i++ {
			if c&classA != 0 {
				s.add(physA + i)
			}
			if c&classB != 0 {
				s.add(physB + i)
			}
		}
		rc.set[c] = s
		rc.p[c] = s.count()
	}
	// Registers do not alias, so a neighbour of class c blocks at most one
	// register of b, and only if the classes share one.
	for b := 0; b < numClasses; b++ {
		for c := 0; c < numClasses; c++ {
			if !rc.set[b].and(rc.set[c]).empty() {
				rc.q[b][c] = 1
			}
		}
	}
	return rc
}

// errNoColour is returned by colour when it must spill but cannot.
var errNoColour = errors.New("backend: register allocation failed: nothing left to spill")

// allocation is the result of colouring.
type allocation struct {
	reg    []int // physical register per temp, -1 if unused
	ok     bool  // every live temp has a register
	spills []int // temps to spill if colouring failed
	stuck  int   // an unspillable temp select could not colour, or -1
	// tooComplex: the interference graph exceeds maxInterferences.
	tooComplex bool
}

// maxInterferences bounds the interference graph (pairs of temps live at
// once) so that the allocator's memory and time stay bounded for any
// shader the front end accepts: about 0.5 GB at the limit. The largest
// dEQP program has under 4,000 pairs; one dynamically indexed float[1024]
// (glsl.MaxPrivateComponents) about 10 million.
const maxInterferences = 1 << 24

// errTooComplex reports a program over maxInterferences.
var errTooComplex = fmt.Errorf("backend: shader too complex: more than %d pairs of values live at once (register allocation limit)", maxInterferences)

// colourScratch holds colour's per-temp arrays between the allocation
// rounds of one RegAlloc: each round needs the same arrays (a few more
// temps after spilling), and allocating them afresh every round was the
// largest share of the allocator's garbage.
type colourScratch struct {
	liveness                               livenessScratch
	live, noSpill, removed, queued, chosen []bool
	degree, backing, qsum, stack, reg      []int
	selectOrder, work, spills, count       []int
	order                                  []int
	cost                                   []float64
	adj                                    [][]int
}

// colourScratchPool keeps colour's arrays from one compile to the next
// (a fuzzing or corpus run compiles thousands of small programs; each
// allocated and dropped the same arrays). Arrays above maxPooledScratch
// elements are not kept, so one huge shader does not pin its memory.
var colourScratchPool = sync.Pool{New: func() any { return new(colourScratch) }}

const maxPooledScratch = 1 << 16

func (sc *colourScratch) release() {
	sc.liveness.release()
	if cap(sc.backing) > maxPooledScratch || cap(sc.adj) > maxPooledScratch || cap(sc.count) > maxPooledScratch ||
		cap(sc.liveness.words) > maxPooledScratch {
		return
	}
	colourScratchPool.Put(sc)
}

// scratch returns *buf resized to n zeroed elements, reusing its array
// when it is large enough.
func scratch[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n, n+n/4)
	} else {
		*buf = (*buf)[:n]
		clear(*buf)
	}
	return *buf
}

// colour runs class-based graph colouring over the intervals. The
// allocation it returns aliases sc, valid until sc's next use.
func colour(p *Program, iv *intervals, rc *regClasses, class []int, sc *colourScratch) allocation {
	n := p.NumTemps
	live := scratch(&sc.live, n)
	for t := 0; t < n; t++ {
		live[t] = iv.End[t] >= 0
	}
	// Interference graph from interval overlap (sweep in start order).
	order := startOrder(iv, live, sc)
	// Two sweeps: the first counts each temp's neighbours, the second
	// fills adjacency lists carved out of one array (in the order appending
	// per edge gives): growing a slice per temp, or a list of all edges,
	// was most of the allocator's allocations.
	degree := scratch(&sc.degree, n)
	edges := 0
	for i, a := range order {
		for _, b := range order[i+1:] {
			if iv.Start[b] >= iv.End[a] {
				break
			}
			if iv.overlap(a, b) {
				degree[a]++
				degree[b]++
				edges++
			}
		}
		if edges > maxInterferences {
			return allocation{tooComplex: true}
		}
	}
	adj := scratch(&sc.adj, n)
	backing := scratch(&sc.backing, 2*edges)
	for t, d := range degree {
		adj[t], backing = backing[:0:d], backing[d:]
	}
	for i, a := range order {
		for _, b := range order[i+1:] {
			if iv.Start[b] >= iv.End[a] {
				break
			}
			if iv.overlap(a, b) {
				adj[a] = append(adj[a], b)
				adj[b] = append(adj[b], a)
			}
		}
	}
	// Spill costs.
	cost := scratch(&sc.cost, n)
	for ip, in := range iv.insts {
		w := 1.0
		for d := 0; d < iv.depth[ip] && d < 6; d++ {
			w *= 10
		}
		for _, r := range in.Reads() {
			if r.IsTemp() {
				cost[r.Index] += w
			}
		}
		if in.Dst.IsTemp() {
			cost[in.Dst.Index] += w
		}
	}
	noSpill := scratch(&sc.noSpill, n)
	for _, in := range iv.insts {
		if in.noSpill {
			for _, r := range in.Reads() {
				if r.IsTemp() {
					noSpill[r.Index] = true
				}
			}
			if in.Dst.IsTemp() {
				noSpill[in.Dst.Index] = true
			}
		}
	}
	for t := range p.unspillable {
		noSpill[t] = true
	}

	// Simplify.
	qsum := scratch(&sc.qsum, n)
	for _, a := range order {
		for _, b := range adj[a] {
			qsum[a] += rc.q[class[a]][class[b]]
		}
	}
	removed := scratch(&sc.removed, n)
	queued := scratch(&sc.queued, n)
	stack := scratch(&sc.stack, len(order))[:0]
	work := sc.work[:0] // trivially colourable nodes not yet removed
	defer func() { sc.work = work[:0] }()
	for _, t := range order {
		if qsum[t] < rc.p[class[t]] {
			work = append(work, t)
			queued[t] = true
		}
	}
	remaining := len(order)
	for remaining > 0 {
		pick := -1
		for len(work) > 0 && pick < 0 {
			t := work[len(work)-1]
			work = work[:len(work)-1]
			if !removed[t] {
				pick = t
			}
		}
		if pick < 0 {
			// Optimistic: remove the cheapest node per degree; select may
			// still find it a colour.
			best := 0.0
			for _, t := range order {
				if removed[t] {
					continue
				}
				score := cost[t] / float64(len(adj[t])+1)
				if noSpill[t] {
					score += 1e30
				}
				if pick < 0 || score < best {
					pick, best = t, score
				}
			}
		}
		removed[pick] = true
		remaining--
		stack = append(stack, pick)
		for _, b := range adj[pick] {
			if !removed[b] {
				qsum[b] -= rc.q[class[b]][class[pick]]
				if !queued[b] && qsum[b] < rc.p[class[b]] {
					queued[b] = true
					work = append(work, b)
				}
			}
		}
	}

	// Select.
	reg := scratch(&sc.reg, n)
	for i := range reg {
		reg[i] = -1
	}
	partners := operandPartners(iv.insts, n)
	pref := preferFiles(partners, order)
	fileCount := [2]int{}
	// Long-lived values that cannot be spilled (the scratch base) are
	// coloured first: they conflict with every spill temp, so they must
	// not find all registers taken by them.
	// Temps that got stuck in an earlier round go before everything.
	rank := func(t int) int {
		switch {
		case p.colourFirst[t]:
			return 0
		case noSpill[t] && iv.End[t]-iv.Start[t] > shortLived:
			return 1
		}
		return 2
	}
	selectOrder := scratch(&sc.selectOrder, len(stack))[:0]
	for r := 0; r < 3; r++ {
		for i := len(stack) - 1; i >= 0; i-- {
			if t := stack[i]; rank(t) == r {
				selectOrder = append(selectOrder, t)
			}
		}
	}
	chosen := scratch(&sc.chosen, n)
	spills := sc.spills[:0]
	defer func() { sc.spills = spills[:0] }()
	stuck := -1
	for _, t := range selectOrder {
		if chosen[t] {
			continue // spilled by an earlier failure of this round
		}
		var used regSet
		for _, b := range adj[t] {
			if reg[b] >= 0 {
				used.add(reg[b])
			}
		}
		avail := rc.set[class[t]]
		r := pickReg(avail, used, t, iv, reg, partners, pref, &fileCount)
		if r < 0 {
			// Keep going: every node that fails proposes its own spill,
			// so one round spills all that this colouring needs. A
			// neighbour chosen for spilling gives up its register, which
			// t may then take: the rest of the round sees the pressure
			// the next round will see.
			c := chooseSpill(cost, adj, noSpill, t, chosen, func(n int) bool { return reg[n] >= 0 && avail.has(reg[n]) })
			if c < 0 {
				if stuck < 0 {
					stuck = t
				}
				continue
			}
			chosen[c] = true
			spills = append(spills, c)
			if c != t && reg[c] >= 0 {
				reg[c] = -1
				used = regSet{}
				for _, b := range adj[t] {
					if reg[b] >= 0 {
						used.add(reg[b])
					}
				}
				if r := pickReg(avail, used, t, iv, reg, partners, pref, &fileCount); r >= 0 {
					reg[t] = r
				}
			}
			continue
		}
		reg[t] = r
	}
	if len(spills) > 0 || stuck >= 0 {
		return allocation{reg: reg, spills: spills, stuck: stuck}
	}
	return allocation{reg: reg, ok: true, stuck: -1}
}

// shortLived is the interval length (in QIR instructions) up to which a
// value prefers an accumulator: such values are typically an operand of
// the next few instructions, where accumulators avoid raddr conflicts.
// Measured on the bench shaders (TestBenchShaders): 3 → phong.vs 75
// instructions, 4 → 70, 6 → 69, 8 → 67, 12 → 68; the others do not move.
const shortLived = 8

func pickReg(avail, used regSet, t int, iv *intervals, reg []int, partners [][]int, pref []int8, fileCount *[2]int) int {
	free := func(r int) bool { return avail.has(r) && !used.has(r) }
	if avail.has(physR4) && free(physR4) {
		return physR4
	}
	tryAcc := func() int {
		for i := 0; i < numAcc; i++ {
			if free(physAcc + i) {
				return physAcc + i
			}
		}
		return -1
	}
	short := iv.End[t]-iv.Start[t] <= shortLived
	if short {
		if r := tryAcc(); r >= 0 {
			return r
		}
	}
	// File A or B: away from the files of the values read together with t.
	var inA, inB int
	for _, o := range partners[t] {
		if o == partnerSmallImm {
			inB++
			continue
		}
		switch r := reg[o]; {
		case r >= physA && r < physB:
			inA++
		case r >= physB:
			inB++
		}
	}
	first, second := physA, physB
	switch {
	case pref[t] != 0:
		if pref[t] > 0 {
			first, second = physB, physA
		}
	case inA != inB:
		if inA > inB {
			first, second = physB, physA
		}
	case fileCount[0] > fileCount[1]:
		first, second = physB, physA
	}
	for _, base := range []int{first, second} {
		for i := 0; i < 32; i++ {
			if free(base + i) {
				if base == physA {
					fileCount[0]++
				} else {
					fileCount[1]++
				}
				return base + i
			}
		}
	}
	return tryAcc()
}

// preferFiles splits the temps read together into files A (−1) and B
// (+1) by a greedy max-cut of the partner graph, most-connected first, so
// that both operands of an instruction tend to land in different files
// and no fixup move is needed. 0: no preference.
func preferFiles(partners [][]int, order []int) []int8 {
	pref := make([]int8, len(partners))
	byDegree := append([]int(nil), order...)
	slices.SortStableFunc(byDegree, func(a, b int) int { return len(partners[b]) - len(partners[a]) })
	var balance int
	decide := func(t int) {
		vote := 0
		for _, o := range partners[t] {
			if o == partnerSmallImm {
				vote++ // small immediates are read through B
			} else {
				vote += int(pref[o])
			}
		}
		switch {
		case vote > 0:
			pref[t] = -1
		case vote < 0:
			pref[t] = 1
		case balance > 0:
			pref[t] = -1
		default:
			pref[t] = 1
		}
		balance += int(pref[t])
	}
	// Breadth-first from the most connected temp: a bipartite partner
	// graph (matrix × vector: uniforms on one side, inputs on the other)
	// is split exactly.
	var queue []int
	for _, root := range byDegree {
		if pref[root] != 0 || len(partners[root]) == 0 {
			continue
		}
		decide(root)
		queue = append(queue[:0], root)
		for len(queue) > 0 {
			t := queue[0]
			queue = queue[1:]
			for _, o := range partners[t] {
				if o != partnerSmallImm && pref[o] == 0 {
					decide(o)
					queue = append(queue, o)
				}
			}
		}
	}
	return pref
}

// partnerSmallImm stands for a small immediate (read through B) in the
// partner lists.
const partnerSmallImm = -1

// operandPartners lists, per temp, the temps (or partnerSmallImm) it is
// read together with.
func operandPartners(insts []*Inst, n int) [][]int {
	// Two sweeps, as for the interference lists: count each temp's
	// partners, then fill lists carved from one array (in the order
	// appending would give) instead of growing a slice per temp.
	out := make([][]int, n)
	count := make([]int, n)
	total := 0
	each := func(add func(t, partner int)) {
		for _, in := range insts {
			if !in.Op.IsALU() || in.Op.unary() || in.Src[0] == in.Src[1] {
				continue
			}
			a, b := in.Src[0], in.Src[1]
			switch {
			case a.IsTemp() && b.IsTemp():
				add(a.Index, b.Index)
				add(b.Index, a.Index)
			case a.IsTemp() && b.File == FileSmallImm:
				add(a.Index, partnerSmallImm)
			case b.IsTemp() && a.File == FileSmallImm:
				add(b.Index, partnerSmallImm)
			}
		}
	}
	each(func(t, _ int) { count[t]++; total++ })
	backing := make([]int, total)
	for t, c := range count {
		if c > 0 {
			out[t], backing = backing[:0:c], backing[c:]
		}
	}
	each(func(t, partner int) { out[t] = append(out[t], partner) })
	return out
}

// chooseSpill returns the temp to spill where failed found no register:
// failed itself, or a neighbour already holding a register failed may
// take (holds), whichever is spillable, not chosen yet and has the lowest
// cost per degree; -1 if none. Only those free a register there, and
// each failed node needs one register of its own.
func chooseSpill(cost []float64, adj [][]int, noSpill []bool, failed int, chosen []bool, holds func(int) bool) int {
	best, pick := 0.0, -1
	consider := func(t int) {
		if noSpill[t] || chosen[t] {
			return
		}
		score := cost[t] / float64(len(adj[t])+1)
		if pick < 0 || score < best {
			best, pick = score, t
		}
	}
	consider(failed)
	for _, t := range adj[failed] {
		if holds(t) {
			consider(t)
		}
	}
	return pick
}

// startOrder lists the live temps by interval start, ties in temp order
// (a stable sort of the temps by Start): a counting sort, since starts are
// instruction indices bounded by the program length (a comparison sort
// through sort.SliceStable was a tenth of colour's time).
func startOrder(iv *intervals, live []bool, sc *colourScratch) []int {
	count := scratch(&sc.count, len(iv.insts)+2)
	k := 0
	for t, l := range live {
		if l {
			count[iv.Start[t]+1]++
			k++
		}
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	order := scratch(&sc.order, k)
	for t, l := range live {
		if l {
			order[count[iv.Start[t]]] = t
			count[iv.Start[t]]++
		}
	}
	return order
}

// tempClasses computes each temp's class bits.
func tempClasses(p *Program, iv *intervals) []int {
	n := p.NumTemps
	class := make([]int, n)
	defs := make([]int, n)
	for t := range class {
		class[t] = classAcc | classA | classB
	}
	for _, in := range iv.insts {
		if in.Dst.IsTemp() {
			defs[in.Dst.Index]++
		}
	}
	r4ok := make([]bool, n)
	for _, in := range iv.insts {
		if in.Dst.IsTemp() && in.Op == OpMov && in.Src[0] == R4 && in.Cond == isa.CondAlways && !in.SF && defs[in.Dst.Index] == 1 {
			r4ok[in.Dst.Index] = true
		}
	}
	// A temp read where some path from the start has not written it (an
	// If phi whose Then and Else may both be skipped by branches) must not
	// be in an accumulator: the hardware contract (Validate) allows an
	// accumulator to be read only after a write on every path.
	for t, unwritten := range readUnwritten(p) {
		if unwritten {
			class[t] &^= classAcc | classR4
		}
	}
	var r4w, thrsw []int
	for ip, in := range iv.insts {
		if in.writesR4() {
			r4w = append(r4w, ip)
		}
		if in.Op == OpThrsw {
			thrsw = append(thrsw, ip)
		}
	}
	for t := 0; t < n; t++ {
		if iv.End[t] < 0 {
			continue
		}
		if r4ok[t] {
			ok := true
			for _, ip := range r4w {
				if iv.liveAcross(t, ip) {
					ok = false
					break
				}
			}
			for _, ip := range thrsw {
				if iv.Start[t] <= ip && ip < iv.End[t] {
					ok = false
				}
			}
			if ok {
				class[t] |= classR4
			}
		}
		for _, ip := range thrsw {
			if iv.Start[t] <= ip && ip < iv.End[t] {
				class[t] &^= classAcc
			}
		}
	}
	return class
}

// readUnwritten reports, per temp, whether some read of it can run on a
// path from the program start on which no instruction (conditional or not)
// has written it: block-level must-write dataflow (intersection over
// predecessors), then a scan of each block's reads. Block.defAtEntry does
// not count: it is liveness's fiction, no instruction writes there.
func readUnwritten(p *Program) []bool {
	n, nb := p.NumTemps, len(p.Blocks)
	out := make([]bool, n)
	written := make([]bitset, nb) // temps written on every path to the block's end
	pred := make([][]int, nb)
	for bi := range p.Blocks {
		written[bi] = newBitset(n)
		if bi > 0 {
			for w := range written[bi] {
				written[bi][w] = ^uint64(0)
			}
		}
		var sb [2]int
		for _, s := range p.appendSuccessors(sb[:0], bi) {
			pred[s] = append(pred[s], bi)
		}
	}
	in := make([]bitset, nb)
	for bi := range in {
		in[bi] = newBitset(n)
	}
	cur := newBitset(n)
	blockIn := func(bi int) {
		for w := range cur {
			cur[w] = 0
		}
		for i, pb := range pred[bi] {
			for w := range cur {
				if i == 0 {
					cur[w] = written[pb][w]
				} else {
					cur[w] &= written[pb][w]
				}
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for bi, b := range p.Blocks {
			blockIn(bi)
			for _, ins := range b.Insts {
				if ins.Dst.IsTemp() {
					cur.set(ins.Dst.Index)
				}
			}
			if !cur.equal(written[bi]) {
				written[bi].copyFrom(cur)
				changed = true
			}
		}
	}
	for bi, b := range p.Blocks {
		blockIn(bi)
		for _, ins := range b.Insts {
			for _, r := range ins.Reads() {
				if r.IsTemp() && !cur.has(r.Index) {
					out[r.Index] = true
				}
			}
			if ins.Dst.IsTemp() {
				cur.set(ins.Dst.Index)
			}
		}
	}
	return out
}

// RegAlloc assigns every temp of p a physical register, spilling to
// scratch memory until colouring succeeds, then rewrites the program over
// physical registers and inserts the moves that keep each instruction to
// one A and one B read.
func RegAlloc(p *Program, opts Options) error {
	fileRegs := 32
	if p.Threaded {
		fileRegs = 16
	}
	if opts.RegisterLimit > 0 && opts.RegisterLimit < fileRegs {
		fileRegs = opts.RegisterLimit
	}
	rc := newRegClasses(fileRegs)
	sc := colourScratchPool.Get().(*colourScratch)
	defer sc.release()
	for round := 0; ; round++ {
		iv := sc.liveness.intervals(p)
		class := tempClasses(p, iv)
		a := colour(p, iv, rc, class, sc)
		p.AllocRounds = round + 1
		if a.tooComplex {
			return errTooComplex
		}
		if a.ok {
			rewritePhysical(p, a.reg)
			break
		}
		if round >= maxRounds {
			return fmt.Errorf("backend: register allocation did not converge after %d rounds", round)
		}
		if len(a.spills) == 0 {
			if p.colourFirst == nil {
				p.colourFirst = map[int]bool{}
			}
			if p.colourFirst[a.stuck] {
				return errNoColour
			}
			p.colourFirst[a.stuck] = true
			continue
		}
		spillTemps(p, a.spills)
	}
	fixupRaddrConflicts(p)
	return nil
}

func rewritePhysical(p *Program, reg []int) {
	acc := 0
	for _, r := range reg {
		if r >= 0 && r <= physR4 {
			acc++
		}
	}
	p.AccumulatorValues = acc
	phys := func(r Reg) Reg {
		if !r.IsTemp() {
			return r
		}
		x := reg[r.Index]
		switch {
		case x < 0:
			// Never live: a write nobody reads. Send it nowhere.
			return nop
		case x < numAcc:
			return Acc(x)
		case x == physR4:
			return R4
		case x < physB:
			return RegA(x - physA)
		default:
			return RegB(x - physB)
		}
	}
	for _, b := range p.Blocks {
		out := b.Insts[:0]
		for _, in := range b.Insts {
			in.Dst = phys(in.Dst)
			in.Src[0], in.Src[1] = phys(in.Src[0]), phys(in.Src[1])
			if in.Op == OpMov && in.Dst == in.Src[0] && in.Cond == isa.CondAlways && !in.SF && in.Uniform < 0 {
				continue // includes mov t, r4 with t allocated to r4
			}
			out = append(out, in)
		}
		b.Insts = out
	}
	for _, b := range p.Blocks {
		for _, in := range b.Insts {
			if in.scratchBytes {
				in.Imm = uint32(p.SpillSlots) * 64
			}
		}
	}
}

// encodesAlone reports whether in fits one instruction on its own, on
// the add or the mul unit: the encoder's own test (pack), so that no
// read-address constraint the allocator does not know about reaches
// Encode.
func encodesAlone(in *Inst) bool {
	if !in.Op.IsALU() {
		return true
	}
	if in.Op.isAdd() || in.Op == OpMov {
		if _, ok := pack(&Bundle{Add: in}); ok {
			return true
		}
	}
	if in.Op.isMul() || in.Op == OpMov {
		if _, ok := pack(&Bundle{Mul: in}); ok {
			return true
		}
	}
	return false
}

func isStreamRead(r Reg) bool { return r.File == FileSpecial && specialInfo[r.Index].stream }

// fixupRaddrConflicts makes every instruction encodable on its own by
// moving one operand into r3 first: two reads of one register file, a
// small immediate with a B register or a B-only special, two A-only
// specials, or one stream (UNIFORM, VARYING, VPM) read twice. The last
// means one word read twice (QIR reads each stream word once per
// instruction), so the word is read into r3 and used for both operands.
// Otherwise the operand that is not a stream read moves, so the
// instruction keeps its stream entry (Inst.Uniform).
func fixupRaddrConflicts(p *Program) {
	for _, b := range p.Blocks {
		var out []*Inst
		for _, in := range b.Insts {
			if !encodesAlone(in) {
				m := newInst(OpMov, Acc(fixupAcc), Reg{}, Reg{})
				m.Group = in.Group
				switch {
				case in.Src[0] == in.Src[1] && isStreamRead(in.Src[0]):
					m.Src[0] = in.Src[0]
					m.Uniform, in.Uniform = in.Uniform, -1
					in.Src[0], in.Src[1] = Acc(fixupAcc), Acc(fixupAcc)
				default:
					k := 1
					if isStreamRead(in.Src[1]) {
						k = 0
					}
					m.Src[0] = in.Src[k]
					in.Src[k] = Acc(fixupAcc)
				}
				out = append(out, m)
			}
			out = append(out, in)
		}
		b.Insts = out
	}
}

// ensureScratchBase computes this lane's scratch address at the start of
// the entry block: ScratchAddress + QPU_NUMBER·ScratchBytesPerThread +
// ELEMENT_NUMBER·4.
func ensureScratchBase(p *Program) Reg {
	if p.scratchBase.IsTemp() {
		return p.scratchBase
	}
	var seq []*Inst
	mk := func(op Op, dst, a, b Reg) *Inst {
		in := newInst(op, dst, a, b)
		in.noSpill = true
		seq = append(seq, in)
		return in
	}
	base := p.NewTemp()
	mk(OpMov, base, Spec(SpecUniform), Reg{}).Uniform = len(p.UniformTable)
	p.UniformTable = append(p.UniformTable, ir.UniformEntry{Kind: ir.UniformScratchAddress})
	qn := p.NewTemp()
	mk(OpMov, qn, Spec(SpecQPUNumber), Reg{})
	bpt := p.NewTemp()
	mk(OpLoadImm, bpt, Reg{}, Reg{}).scratchBytes = true
	off := p.NewTemp()
	mk(OpMul24, off, qn, bpt)
	el := p.NewTemp()
	mk(OpMov, el, Spec(SpecElementNumber), Reg{})
	el4 := p.NewTemp()
	mk(AddOp(isa.OpSHL), el4, el, imm(2))
	b1 := p.NewTemp()
	mk(AddOp(isa.OpADD), b1, base, off)
	sb := p.NewTemp()
	mk(AddOp(isa.OpADD), sb, b1, el4)
	entry := p.Blocks[0]
	entry.Insts = append(seq, entry.Insts...)
	p.scratchBase = sb
	return sb
}

// spillTemps moves each temp of ts to a new scratch slot (in the order
// of ts): a store after every definition, a fill before every use, each
// into a fresh short-lived temp. It rewrites the program in one pass
// whatever the number of temps, so that a round spilling thousands of
// temps costs one walk over the program, not one per temp.
func spillTemps(p *Program, ts []int) {
	if len(ts) == 0 {
		return
	}
	if p.unspillable == nil {
		p.unspillable = map[int]bool{}
	}
	base := ensureScratchBase(p)
	order := make(map[int]int, len(ts)) // temp → its position in ts
	offsets := make([]uint32, len(ts))
	for i, t := range ts {
		order[t] = i
		offsets[i] = uint32(p.SpillSlots) * 64
		p.SpillSlots++
	}
	spilled := func(r Reg) (int, bool) {
		if !r.IsTemp() {
			return 0, false
		}
		i, ok := order[r.Index]
		return i, ok
	}
	addr := func(seq []*Inst, offset uint32, dst Reg, cond isa.Cond, g int) []*Inst {
		if offset == 0 {
			in := newInst(OpMov, dst, base, Reg{})
			in.Cond, in.Group, in.noSpill = cond, g, true
			return append(seq, in)
		}
		li := newInst(OpLoadImm, Acc(fixupAcc), Reg{}, Reg{})
		li.Imm, li.Group, li.noSpill = offset, g, true
		in := newInst(AddOp(isa.OpADD), dst, base, Acc(fixupAcc))
		in.Cond, in.Group, in.noSpill = cond, g, true
		return append(seq, li, in)
	}
	for _, b := range p.Blocks {
		b.defAtEntry = slices.DeleteFunc(b.defAtEntry, func(x int) bool { _, ok := order[x]; return ok })
		insts := b.Insts
		out := make([]*Inst, 0, len(insts))
		// groupFills: the fills made for the members of group fillGroup
		// so far, by spilled temp (their position in ts).
		fillGroup, groupFills := 0, map[int]Reg{}
		// fills inserts before in (and before the members of its group
		// already emitted) a fill of every spilled temp it reads, in the
		// order of ts, and makes in read the filled temps.
		fills := func(in *Inst) {
			var read [2]int
			n := 0
			if in.Op.IsALU() {
				for k, r := range in.Src {
					if k == 1 && in.Op.unary() {
						break
					}
					if i, ok := spilled(r); ok && (n == 0 || read[0] != i) {
						read[n] = i
						n++
					}
				}
			}
			if n == 2 && read[1] < read[0] {
				read[0], read[1] = read[1], read[0]
			}
			for _, i := range read[:n] {
				t := ts[i]
				if nt, ok := groupFills[i]; ok && in.Group != 0 && in.Group == fillGroup {
					// Filled already for an earlier member of this group
					// (a texture batch reads the stream base and shared
					// coordinates several times): one fill serves all.
					for k := range in.Src {
						if in.Src[k] == Temp(t) {
							in.Src[k] = nt
						}
					}
					continue
				}
				g := p.newGroup()
				fill := addr(nil, offsets[i], Magic(isa.WaddrTMUAddr), isa.CondAlways, g)
				ld := newInst(OpLdTMU, Reg{}, Reg{}, Reg{})
				ld.Group, ld.noSpill = g, true
				nt := p.NewTemp()
				mv := newInst(OpMov, nt, R4, Reg{})
				mv.Group, mv.noSpill = g, true
				fill = append(fill, ld, mv)
				at := len(out)
				if in.Group != 0 {
					for at > 0 && out[at-1].Group == in.Group {
						at--
					}
				}
				out = slices.Insert(out, at, fill...)
				for k := range in.Src {
					if in.Src[k] == Temp(t) {
						in.Src[k] = nt
					}
				}
				p.unspillable[nt.Index] = true
				p.Fills++
				if in.Group != 0 {
					if in.Group != fillGroup {
						fillGroup, groupFills = in.Group, map[int]Reg{}
					}
					groupFills[i] = nt
				}
			}
		}
		// def renames a spilled destination of in and returns the store
		// sequence to place after it. Inside a group the stores join the
		// group, right after the definition: a texture batch defines four
		// results per fetch, sixteen for four fetches, and storing each
		// as it is popped keeps them from being live all at once (a
		// store does not use the TMU FIFO, so it may sit between pops),
		// while fills of later members still go before the whole group.
		def := func(in *Inst, stores []*Inst) []*Inst {
			i, ok := spilled(in.Dst)
			if !ok {
				return stores
			}
			nt := p.NewTemp()
			in.Dst = nt
			in.partialDead = true
			p.unspillable[nt.Index] = true
			g := in.Group
			if g == 0 {
				g = p.newGroup()
			}
			st := newInst(OpMov, Magic(isa.WaddrTMUStoreData), nt, Reg{})
			st.Group, st.noSpill = g, true
			stores = append(stores, st)
			stores = addr(stores, offsets[i], Magic(isa.WaddrTMUStoreAddr), in.Cond, g)
			p.Spills++
			return stores
		}
		for i := 0; i < len(insts); i++ {
			in := insts[i]
			fills(in)
			out = append(out, in)
			if _, ok := spilled(in.Dst); !ok {
				continue
			}
			// A definition: the rest of its group stays with it, reading
			// the new temps of the group's spilled definitions, and the
			// stores follow the group.
			renamed := map[int]Reg{}
			old := in.Dst
			out = append(out, def(in, nil)...)
			renamed[old.Index] = in.Dst
			j := i
			for in.Group != 0 && j+1 < len(insts) && insts[j+1].Group == in.Group {
				j++
				m := insts[j]
				for k := range m.Src {
					if m.Src[k].IsTemp() {
						if nt, ok := renamed[m.Src[k].Index]; ok {
							m.Src[k] = nt
						}
					}
				}
				fills(m)
				out = append(out, m)
				if _, ok := spilled(m.Dst); ok {
					old := m.Dst
					out = append(out, def(m, nil)...)
					renamed[old.Index] = m.Dst
				}
			}
			i = j
		}
		b.Insts = out
	}
}

package backend

import "math/bits"

// bitset is a set of temps.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (s bitset) has(i int) bool    { return s[i>>6]&(1<<(uint(i)&63)) != 0 }
func (s bitset) set(i int)         { s[i>>6] |= 1 << (uint(i) & 63) }
func (s bitset) copyFrom(o bitset) { copy(s, o) }
func (s bitset) equal(o bitset) bool {
	for i := range s {
		if s[i] != o[i] {
			return false
		}
	}
	return true
}

// intervals holds the linear-order live interval of every temp: the temp
// needs its register from Start (its first definition, or the start of a
// block it is live into) up to End (its last read, or the end of a block
// it is live out of). Two temps interfere when Start_i < End_j and
// Start_j < End_i; a temp read and another written by the same instruction
// do not.
type intervals struct {
	Start, End []int
	insts      []*Inst // linear order; index = ip
	depth      []int   // loop depth of each ip
}

// computeIntervals runs block-level liveness (conditional writes do not
// kill) intersected with reaching definitions (a temp is not live before
// any definition of it can have run), then takes each temp's hull.
func computeIntervals(p *Program) *intervals {
	var ls livenessScratch
	return ls.intervals(p)
}

// livenessScratch holds liveness's arrays between the allocation rounds
// (and, pooled with colour's, between compiles): every round recomputes
// the same sets over a slightly larger program.
type livenessScratch struct {
	iv                             intervals
	ip0, succBuf, predBuf, predLen []int
	words                          []uint64
	sets, views                    []bitset
	succ, pred                     [][]int
}

// release drops the instructions the scratch still points to.
func (ls *livenessScratch) release() { clear(ls.iv.insts[:cap(ls.iv.insts)]) }

// intervals computes p's intervals in ls's arrays; the result is valid
// until ls's next use.
func (ls *livenessScratch) intervals(p *Program) *intervals {
	n := p.NumTemps
	nb := len(p.Blocks)
	w := (n + 63) / 64
	words := scratch(&ls.words, (7*nb+1)*w)
	sets := scratch(&ls.sets, 7*nb+1)
	for i := range sets {
		sets[i], words = words[:w:w], words[w:]
	}
	views := scratch(&ls.views, 7*nb)
	use, kill, gen := views[:nb:nb], views[nb:2*nb:2*nb], views[2*nb:3*nb:3*nb]
	ip0 := scratch(&ls.ip0, nb+1)
	iv := &ls.iv
	iv.Start = scratch(&iv.Start, n)
	iv.End = scratch(&iv.End, n)
	for i := range iv.Start {
		iv.Start[i] = 1 << 30
		iv.End[i] = -1
	}
	// The linear order in two arrays sized up front (appending grew them
	// through a doubling series: a fifth of liveness's allocation).
	total := 0
	for _, b := range p.Blocks {
		total += len(b.Insts)
	}
	iv.insts = scratch(&iv.insts, total)[:0]
	iv.depth = scratch(&iv.depth, total)[:0]
	for bi, b := range p.Blocks {
		use[bi], kill[bi], gen[bi] = sets[7*bi], sets[7*bi+1], sets[7*bi+2]
		ip0[bi] = len(iv.insts)
		for _, t := range b.defAtEntry {
			gen[bi].set(t)
			kill[bi].set(t)
		}
		for _, in := range b.Insts {
			ip := len(iv.insts)
			iv.insts = append(iv.insts, in)
			iv.depth = append(iv.depth, b.LoopDepth)
			for _, r := range in.Reads() {
				if r.IsTemp() {
					if !kill[bi].has(r.Index) {
						use[bi].set(r.Index)
					}
					iv.touch(r.Index, ip)
				}
			}
			if in.Dst.IsTemp() {
				gen[bi].set(in.Dst.Index)
				if in.writesAll() || in.mergeKill {
					kill[bi].set(in.Dst.Index)
				}
				iv.touch(in.Dst.Index, ip)
			}
		}
	}
	ip0[nb] = len(iv.insts)
	succ := scratch(&ls.succ, nb)
	pred := scratch(&ls.pred, nb)
	succBuf := scratch(&ls.succBuf, 2*nb) // at most two successors per block
	predLen := scratch(&ls.predLen, nb)
	for bi := range p.Blocks {
		succ[bi] = p.appendSuccessors(succBuf[2*bi:2*bi:2*bi+2], bi)
		for _, s := range succ[bi] {
			predLen[s]++
		}
	}
	// Predecessor lists carved from one array (counted first).
	predBuf := scratch(&ls.predBuf, 2*nb)
	for bi, k := range predLen {
		pred[bi], predBuf = predBuf[:0:k], predBuf[k:]
	}
	for bi := range p.Blocks {
		for _, s := range succ[bi] {
			pred[s] = append(pred[s], bi)
		}
	}
	// Reaching definitions (forward).
	reachIn, reachOut := views[3*nb:4*nb:4*nb], views[4*nb:5*nb:5*nb]
	for bi := range reachIn {
		reachIn[bi], reachOut[bi] = sets[7*bi+3], sets[7*bi+4]
	}
	tmp := sets[7*nb]
	for changed := true; changed; {
		changed = false
		for bi := 0; bi < nb; bi++ {
			for w := range tmp {
				tmp[w] = 0
			}
			for _, pb := range pred[bi] {
				for w := range tmp {
					tmp[w] |= reachOut[pb][w]
				}
			}
			reachIn[bi].copyFrom(tmp)
			for w := range tmp {
				tmp[w] |= gen[bi][w]
			}
			if !tmp.equal(reachOut[bi]) {
				reachOut[bi].copyFrom(tmp)
				changed = true
			}
		}
	}
	// Liveness (backward).
	liveIn, liveOut := views[5*nb:6*nb:6*nb], views[6*nb:7*nb:7*nb]
	for bi := range liveIn {
		liveIn[bi], liveOut[bi] = sets[7*bi+5], sets[7*bi+6]
	}
	for changed := true; changed; {
		changed = false
		for bi := nb - 1; bi >= 0; bi-- {
			for w := range tmp {
				tmp[w] = 0
			}
			for _, sb := range succ[bi] {
				for w := range tmp {
					tmp[w] |= liveIn[sb][w]
				}
			}
			liveOut[bi].copyFrom(tmp)
			for w := range tmp {
				tmp[w] = use[bi][w] | (tmp[w] &^ kill[bi][w])
			}
			if !tmp.equal(liveIn[bi]) {
				liveIn[bi].copyFrom(tmp)
				changed = true
			}
		}
	}
	for bi := 0; bi < nb; bi++ {
		for w := range liveIn[bi] {
			in := liveIn[bi][w] & reachIn[bi][w]
			out := liveOut[bi][w] & reachOut[bi][w]
			// Only the set bits (most words are empty).
			for ; in != 0; in &= in - 1 {
				iv.touch(w*64+bits.TrailingZeros64(in), ip0[bi])
			}
			for ; out != 0; out &= out - 1 {
				iv.touch(w*64+bits.TrailingZeros64(out), ip0[bi+1])
			}
		}
	}
	for t := range iv.Start {
		if iv.End[t] == iv.Start[t] {
			// A dead definition still clobbers its register.
			iv.End[t]++
		}
	}
	return iv
}

func (iv *intervals) touch(t, ip int) {
	if ip < iv.Start[t] {
		iv.Start[t] = ip
	}
	if ip > iv.End[t] {
		iv.End[t] = ip
	}
}

// overlap reports whether temps a and b interfere.
func (iv *intervals) overlap(a, b int) bool {
	return iv.Start[a] < iv.End[b] && iv.Start[b] < iv.End[a]
}

// liveAcross reports whether temp t must survive the instruction at ip.
func (iv *intervals) liveAcross(t, ip int) bool {
	return iv.Start[t] < ip && ip < iv.End[t]
}

package kernel

import (
	"fmt"
	"time"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// Memory waits and writes of a job (SubmitCLArgs.Waits, .Writes): the
// command processors' WAIT_MEM, SIGNAL and EVENT_WRITE(TIMESTAMP) on
// words of the job's own BOs, placed around its indirect buffers
// (hardware.md §3 "Memory waits and writes"). User-mode drivers build
// events (pal.GpuEvent) and timestamps on them, as Vulkan drivers on
// Adreno and Radeon emit CP_WAIT_REG_MEM / CP_EVENT_WRITE for
// vkCmdWaitEvents / vkCmdSetEvent / vkCmdWriteTimestamp.
//
// The rings of one priority are shared by every context, so a WAIT_MEM
// that does not pass would stall every other context's work behind it
// (hardware.md §3: a stalled ring keeps RPTR at the packet). The
// dispatcher therefore keeps a job whose waits do not hold yet in its
// context's queue, as drm_sched keeps a job whose dependencies have not
// signalled, and writes it to the rings only once every word it waits
// for passes; the WAIT_MEM packets then pass at once and remain the
// hardware's ordering guarantee. A job that waits longer than JobTimeout
// is its context's hang (expireMemWaits).

// memWaitPoll is how often the dispatcher looks at the words jobs wait
// for while one is parked: the command processor re-evaluates a stalled
// WAIT_MEM at least every 2 ms (hardware.md §3); the kernel looks twice as
// often, so a CPU-set event releases its work within about a millisecond
// rather than the dispatcher's poll period (up to 10 ms).
const memWaitPoll = time.Millisecond

// Limits of one submission's memory operations.
const (
	maxMemWaits  = 16
	maxMemWrites = 16
)

// MemWait makes a job wait, before any of its work starts (its bin
// list), until the u32 at BOs[BOIndex]+Offset satisfies
// int32(word − Reference) ≥ 0 — WAIT_MEM's condition. Offset is
// 4-aligned.
type MemWait struct {
	BOIndex   uint32
	Offset    uint32
	Reference uint32
}

// MemWriteKind says what a MemWrite writes.
type MemWriteKind uint8

const (
	// MemWriteValue writes the u32 Value (a SIGNAL packet). Offset is
	// 4-aligned.
	MemWriteValue MemWriteKind = iota
	// MemWriteTimestamp writes the GPU's 64-bit nanosecond TIMESTAMP
	// (an EVENT_WRITE with the TIMESTAMP source) when the command
	// processor reaches the packet. Offset is 8-aligned.
	MemWriteTimestamp
)

// MemWriteStage says where in the job a MemWrite happens.
type MemWriteStage uint8

const (
	// StageTopOfPipe: on the BIN ring after the job's waits, before its
	// bin list starts — when the job's work begins.
	StageTopOfPipe MemWriteStage = iota
	// StageBottomOfPipe: on the RENDER ring after the job's render list
	// ended (end of pipe: all its work, and all earlier work of its
	// context on these rings, is done), before its fence signals; a
	// client that waited for the fence sees the write.
	StageBottomOfPipe
)

// MemWrite makes the command processor write BOs[BOIndex]+Offset at a
// stage of the job. The BO must be listed with BOWrite. Writes of one
// stage happen in the order given.
type MemWrite struct {
	BOIndex uint32
	Offset  uint32
	Value   uint32 // MemWriteValue only
	Kind    MemWriteKind
	Stage   MemWriteStage
}

// memWait is a validated MemWait: the word's VA for WAIT_MEM and its PA
// for the dispatcher's check.
type memWait struct {
	va, pa, ref uint32
}

// memWrite is a validated MemWrite.
type memWrite struct {
	va    uint32
	value uint32
	kind  MemWriteKind
	stage MemWriteStage
}

// validateMemOps checks a's Waits and Writes against the resolved BOs and
// returns them with addresses; the message names the offending entry.
func validateMemOps(a *SubmitCLArgs, bos []*bo) ([]memWait, []memWrite, error) {
	if len(a.Waits) > maxMemWaits {
		return nil, nil, errorf(EINVAL, "%d memory waits > %d", len(a.Waits), maxMemWaits)
	}
	if len(a.Writes) > maxMemWrites {
		return nil, nil, errorf(EINVAL, "%d memory writes > %d", len(a.Writes), maxMemWrites)
	}
	var waits []memWait
	for i, w := range a.Waits {
		if w.BOIndex >= uint32(len(bos)) {
			return nil, nil, errorf(EINVAL, "Waits[%d]: BO index %d, the job lists %d BOs", i, w.BOIndex, len(bos))
		}
		b := bos[w.BOIndex]
		if w.Offset&3 != 0 || uint64(w.Offset)+4 > uint64(b.size()) {
			return nil, nil, errorf(EINVAL, "Waits[%d]: offset %d is not a 4-aligned word inside the %d-byte BO %d", i, w.Offset, b.size(), w.BOIndex)
		}
		waits = append(waits, memWait{va: b.va + w.Offset, pa: b.pa + w.Offset, ref: w.Reference})
	}
	var writes []memWrite
	for i, w := range a.Writes {
		if w.BOIndex >= uint32(len(bos)) {
			return nil, nil, errorf(EINVAL, "Writes[%d]: BO index %d, the job lists %d BOs", i, w.BOIndex, len(bos))
		}
		if a.BOs[w.BOIndex].Flags&BOWrite == 0 {
			return nil, nil, errorf(EINVAL, "Writes[%d]: BO %d is not listed with BOWrite", i, w.BOIndex)
		}
		var size, align uint32
		switch w.Kind {
		case MemWriteValue:
			size, align = 4, 4
		case MemWriteTimestamp:
			size, align = 8, 8
			if w.Value != 0 {
				return nil, nil, errorf(EINVAL, "Writes[%d]: a timestamp write has no Value (got %#x)", i, w.Value)
			}
		default:
			return nil, nil, errorf(EINVAL, "Writes[%d]: unknown kind %d", i, w.Kind)
		}
		if w.Stage > StageBottomOfPipe {
			return nil, nil, errorf(EINVAL, "Writes[%d]: unknown stage %d", i, w.Stage)
		}
		b := bos[w.BOIndex]
		if w.Offset%align != 0 || uint64(w.Offset)+uint64(size) > uint64(b.size()) {
			return nil, nil, errorf(EINVAL, "Writes[%d]: offset %d is not a %d-aligned %d-byte slot inside the %d-byte BO %d", i, w.Offset, align, size, b.size(), w.BOIndex)
		}
		writes = append(writes, memWrite{va: b.va + w.Offset, value: w.Value, kind: w.Kind, stage: w.Stage})
	}
	return waits, writes, nil
}

// ringBytes is the size of j's packets on engine e: the fixed ones and
// its memory operations.
func (j *job) ringBytes(e int) uint64 {
	n := jobRingBytes[e]
	switch e {
	case engineBin:
		n += uint64(4 * cl.RingWordsWaitMem * len(j.waits))
		for _, w := range j.memWrites {
			if w.stage == StageTopOfPipe {
				n += 4 * w.ringWords()
			}
		}
	case engineRender:
		for _, w := range j.memWrites {
			if w.stage == StageBottomOfPipe {
				n += 4 * w.ringWords()
			}
		}
	}
	return n
}

// memOpsRoom reports whether j's rings have room for it with its memory
// operations (ringRoom checked the fixed packets).
func (d *Device) memOpsRoom(j *job) bool {
	if len(j.waits) == 0 && len(j.memWrites) == 0 {
		return true
	}
	for _, e := range [...]int{engineBin, engineRender} {
		r := d.rings[e][j.prio]
		if r.submitted-d.consumed(e, j.prio)+j.ringBytes(e)+ringReserve > uint64(r.size) {
			return false
		}
	}
	return true
}

func (w memWrite) ringWords() uint64 {
	if w.kind == MemWriteTimestamp {
		return cl.RingWordsEventWrite
	}
	return cl.RingWordsSignal
}

func (w memWrite) packet() cl.RingPacket {
	if w.kind == MemWriteTimestamp {
		return cl.RingEventWrite{Flags: cl.EventTimestamp, Address: w.va}
	}
	return cl.RingSignal{Address: w.va, Value: w.value}
}

// memWaitsPass reports whether every word j waits for passes now. The
// job holds its BOs, so the words stay mapped. When they do not pass,
// the job's wait clock starts (expireMemWaits).
func (d *Device) memWaitsPass(j *job) bool {
	for _, w := range j.waits {
		if int32(loadSync32(d.mem, w.pa)-w.ref) < 0 {
			if j.waitSince.IsZero() {
				j.waitSince = time.Now()
			}
			return false
		}
	}
	j.waitSince = time.Time{}
	return true
}

// memParked reports whether a context's next job waits for memory.
func (d *Device) memParked() bool {
	for _, c := range d.contexts {
		if len(c.queue) > 0 && !c.queue[0].waitSince.IsZero() {
			return true
		}
	}
	return false
}

// expireMemWaits fails a job that has headed its context's queue,
// otherwise ready, waiting for memory longer than JobTimeout: nothing
// sets the word (an event never set, or set by work submitted after the
// wait in the same context, which runs in order). That is the context's
// hang, and the fault policy decides what else it costs, as for a job
// the watchdog resets; other contexts never waited for it.
func (d *Device) expireMemWaits() {
	now := time.Now()
	for _, c := range d.contexts {
		if len(c.queue) == 0 {
			continue
		}
		j := c.queue[0]
		if j.waitSince.IsZero() || now.Sub(j.waitSince) < d.opts.JobTimeout || d.memWaitsPass(j) {
			continue
		}
		w := j.waits[0]
		for _, x := range j.waits {
			if int32(loadSync32(d.mem, x.pa)-x.ref) < 0 {
				w = x
				break
			}
		}
		err := errorf(EIO, "context %d: job (fence %d) waited longer than %v for the word at VA %#08x to reach %d (it holds %d): nothing set it — an event never set, or set by work submitted after the wait; job not run",
			c.id, j.fence.seqno, d.opts.JobTimeout, w.va, w.ref, loadSync32(d.mem, w.pa))
		c.queue = c.queue[1:]
		d.finishJob(j, err)
		switch d.opts.FaultPolicy {
		case FaultReplayInnocent, FaultNoReplay:
			d.markGuilty(c, err)
		case FaultSkipFrame:
			if j.endOfFrame {
				break
			}
			skip := &Error{Errno: EIO, Msg: fmt.Sprintf("context %d: job skipped with the rest of its frame after: %s", c.id, err.Msg)}
			ended := false
			for len(c.queue) > 0 && !ended {
				k := c.queue[0]
				c.queue = c.queue[1:]
				ended = k.endOfFrame
				d.finishJob(k, skip)
			}
			if !ended {
				c.skipping = skip
			}
		}
	}
}

// emitTop writes j's WAIT_MEM packets and top-of-pipe writes (BIN ring,
// before the bin list).
func (d *Device) emitTop(j *job, put func(e int, pkt cl.RingPacket)) {
	for _, w := range j.waits {
		put(engineBin, cl.RingWaitMem{Address: w.va, Reference: w.ref})
	}
	j.waitsEnd = d.rings[engineBin][j.prio].submitted
	for _, w := range j.memWrites {
		if w.stage == StageTopOfPipe {
			put(engineBin, w.packet())
		}
	}
}

// emitBottom writes j's bottom-of-pipe writes (RENDER ring, after the
// render list, before the fence's EVENT_WRITE).
func (j *job) emitBottom(put func(e int, pkt cl.RingPacket)) {
	for _, w := range j.memWrites {
		if w.stage == StageBottomOfPipe {
			put(engineRender, w.packet())
		}
	}
}

// stalledOnMemWait returns the oldest in-flight job whose waits do not
// pass: when no engine is executing and the GPU made no progress, a ring
// stalled on its WAIT_MEM (the word changed back after the dispatcher
// checked it) is the hang, not the oldest job.
func (d *Device) stalledOnMemWait(all []*job) *job {
	var best *job
	for _, j := range all {
		if len(j.waits) == 0 || (best != nil && j.fence.seqno > best.fence.seqno) || d.consumed(engineBin, j.prio) >= j.waitsEnd {
			continue // no waits, or its WAIT_MEMs passed already
		}
		for _, w := range j.waits {
			if int32(loadSync32(d.mem, w.pa)-w.ref) < 0 {
				best = j
				break
			}
		}
	}
	return best
}

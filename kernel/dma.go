package kernel

import (
	"fmt"
	"slices"

	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/hw/cl"
)

// DMA jobs (docs/interfaces.md "kernel: DMA jobs"): SubmitDMA validates
// copies and fills between a submission's BOs, writes them as DMA_COMMAND
// descriptors (hardware.md §10) into a read-only exec buffer and queues a
// job that runs only on the DMA engine's rings, concurrently with the
// other engines (engines.go).

// maxDMACommands bounds one SubmitDMA; MaxDMABytes one command.
const (
	maxDMACommands = 4096
	MaxDMABytes    = hw.MaxDMABytes
)

// DMACommand is one copy or fill of a DMA job: Rows rows of RowBytes, row
// r at Src.Offset + r·SrcPitch (copies) and Dst.Offset + r·DstPitch.
// Offsets, pitches and RowBytes are multiples of 4.
type DMACommand struct {
	Fill               bool // fill with Value instead of copying from Src
	Src, Dst           BOAddress
	SrcPitch, DstPitch uint32
	RowBytes, Rows     uint32
	Value              uint32
}

// SubmitDMAArgs is the argument of File.SubmitDMA.
type SubmitDMAArgs struct {
	Commands []DMACommand // run in order, each complete before the next
	BOs      []BORef      // sources need BORead, destinations BOWrite
	InFences []uint64
	PerfMon  uint32
	Tag      uint64 // as SubmitCLArgs.Tag: returned in the job's JobInfo
	OutFence uint64 // out
}

// SubmitDMA validates a DMA job and queues it on the DMA engine. A
// rejection returns EINVAL, ENOENT or EFAULT naming the command; nothing
// reaches the GPU. A context that caused a GPU fault or hang gets EIO.
func (f *File) SubmitDMA(user *SubmitDMAArgs) error {
	d := f.d
	a := *user
	a.Commands = slices.Clone(user.Commands)
	a.BOs = slices.Clone(user.BOs)
	a.InFences = slices.Clone(user.InFences)
	switch {
	case len(a.Commands) == 0 || len(a.Commands) > maxDMACommands:
		return errorf(EINVAL, "SubmitDMA: %d commands (want 1..%d)", len(a.Commands), maxDMACommands)
	case len(a.BOs) > maxBORefs:
		return errorf(EINVAL, "SubmitDMA: %d BOs > %d", len(a.BOs), maxBORefs)
	case len(a.InFences) > maxInFences:
		return errorf(EINVAL, "SubmitDMA: %d in-fences > %d", len(a.InFences), maxInFences)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := f.check(); err != nil {
		return err
	}
	c := f.ctx
	bos, pm, err := f.admitEngineJob("SubmitDMA", a.BOs, a.InFences, a.PerfMon)
	if err != nil {
		return err
	}
	for i := range a.Commands {
		if err := checkDMACommand(&a, i, bos); err != nil {
			return err
		}
	}
	listBytes := uint32(len(a.Commands)) * cl.SizeDMACommand
	exec, err := d.allocBOLocked(c, listBytes, false, true)
	if err != nil {
		return err
	}
	report, err := d.allocBOLocked(c, singleReportBytes(engineDMA), true, true)
	if err != nil {
		d.freeBOLocked(exec)
		return err
	}
	mem := d.mem[exec.pa : exec.pa+exec.size()]
	for i, x := range a.Commands {
		cmd := cl.DMACommand{Op: cl.DMAOpCopy, DstAddress: bos[x.Dst.BOIndex].va + x.Dst.Offset, DstPitch: x.DstPitch,
			RowBytes: x.RowBytes, Rows: x.Rows}
		if x.Fill {
			cmd.Op, cmd.Value = cl.DMAOpFill, x.Value
		} else {
			cmd.SrcAddress, cmd.SrcPitch = bos[x.Src.BOIndex].va+x.Src.Offset, x.SrcPitch
		}
		cmd.Pack(mem[uint32(i)*cl.SizeDMACommand:])
	}
	for _, b := range bos {
		b.busy++
	}
	j := &job{
		ctx: c, prio: c.prio, exec: exec, tile: report, kind: kindDMA,
		bos: bos, writes: make([]bool, len(bos)),
		listVA: exec.va, listSize: listBytes,
		queuedAt: d.gpuTime(), perfMon: pm, perfMonID: a.PerfMon, tag: a.Tag,
	}
	d.queueSingle(f, j, a.BOs, a.InFences, pm)
	user.OutFence = j.fence.seqno
	return nil
}

// checkDMACommand validates command i against the engine's rules and the
// BOs it names.
func checkDMACommand(a *SubmitDMAArgs, i int, bos []*bo) error {
	x := &a.Commands[i]
	where := fmt.Sprintf("SubmitDMA: command %d", i)
	total := uint64(x.RowBytes) * uint64(x.Rows)
	switch {
	case x.RowBytes == 0 || x.Rows == 0 || total > MaxDMABytes:
		return errorf(EINVAL, "%s: %d rows of %d bytes (at least one of 4 bytes, at most %d bytes in all)", where, x.Rows, x.RowBytes, MaxDMABytes)
	case x.RowBytes%4 != 0 || x.DstPitch%4 != 0 || (!x.Fill && x.SrcPitch%4 != 0):
		return errorf(EINVAL, "%s: RowBytes %d and pitches (%d, %d) must be multiples of 4", where, x.RowBytes, x.SrcPitch, x.DstPitch)
	}
	rng := func(what string, addr BOAddress, pitch uint32, flag uint32) error {
		if addr.BOIndex >= uint32(len(bos)) {
			return errorf(EINVAL, "%s: %s BO index %d out of range (%d BOs)", where, what, addr.BOIndex, len(bos))
		}
		if addr.Offset%4 != 0 {
			return errorf(EINVAL, "%s: %s offset %#x not 4-aligned", where, what, addr.Offset)
		}
		end := uint64(addr.Offset) + uint64(x.Rows-1)*uint64(pitch) + uint64(x.RowBytes)
		if end > uint64(bos[addr.BOIndex].size()) {
			return errorf(EFAULT, "%s: %s rows end at %#x, past BO %d size %#x", where, what, end, addr.BOIndex, bos[addr.BOIndex].size())
		}
		if a.BOs[addr.BOIndex].Flags&flag == 0 {
			return errorf(EINVAL, "%s: %s BO %d is not listed with %s", where, what, addr.BOIndex, map[uint32]string{BORead: "BORead", BOWrite: "BOWrite"}[flag])
		}
		return nil
	}
	if err := rng("destination", x.Dst, x.DstPitch, BOWrite); err != nil {
		return err
	}
	if !x.Fill {
		return rng("source", x.Src, x.SrcPitch, BORead)
	}
	return nil
}

// admitEngineJob is what SubmitCompute and SubmitDMA check before a job of
// f's context is accepted (d.mu held): the context is usable and not
// skipping work after a fault, has room for another unfinished job, its BO
// handles and in-fences resolve, and its perf monitor (0: none) exists.
func (f *File) admitEngineJob(ioctl string, refs []BORef, inFences []uint64, monID uint32) ([]*bo, *perfMon, error) {
	c := f.ctx
	if c.guilty != nil {
		return nil, nil, errorf(EIO, "context %d is unusable: %s", c.id, c.guilty.Msg)
	}
	if c.skipping != nil {
		return nil, nil, c.skipping
	}
	if c.active >= maxActiveJobs {
		return nil, nil, errorf(EBUSY, "context %d has %d unfinished jobs; wait for some to finish", c.id, c.active)
	}
	bos, err := f.resolveBORefs(refs, inFences)
	if err != nil {
		return nil, nil, err
	}
	var pm *perfMon
	if monID != 0 {
		if pm = c.perfMons[monID]; pm == nil {
			return nil, nil, errorf(ENOENT, "%s: no perf monitor %d", ioctl, monID)
		}
	}
	return bos, pm, nil
}

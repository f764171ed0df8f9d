package kernel

import (
	"slices"
	"time"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// job is one SubmitCL: what the rings execute and what it holds alive.
type job struct {
	ctx        *gpuContext
	prio       int // the rings it runs on: its context's priority at SubmitCL
	fence      *fence
	bos        []*bo
	writes     []bool
	deps       []*fence
	exec       *bo // bin CL, shader records, uniforms, render CL; read-only for the GPU
	tile       *bo // tile allocation memory; written by the binner
	overflow   []*bo
	overBytes  uint64
	binVA      uint32
	binSize    uint32
	rclVA      uint32
	rclSize    uint32
	srVA       uint32 // shader records and uniforms in the exec buffer (for Capture)
	srSize     uint32
	uniVA      uint32
	uniSize    uint32
	ringEnd    [numEngines]uint64 // ring positions just after the job's packets
	endOfFrame bool               // submitted with SubmitEndOfFrame

	// kind says which engines run the job (engines.go). A single-engine
	// job (compute, DMA) has its list at listVA in exec, its report area
	// in tile, and listStart is its engine's ring position of its
	// INDIRECT_BUFFER.
	kind             jobKind
	listVA, listSize uint32
	listStart        uint64
	err              *Error // set when its context became guilty while it ran

	// Observability (perf.go): the report area's offset in tile, the GPU
	// times of SubmitCL and of the ring write, and the perf monitor.
	reportOff   uint32
	queuedAt    uint64
	submittedAt uint64
	perfMon     *perfMon
	perfMonID   uint32
	tag         uint64 // SubmitCLArgs.Tag, for JobInfo

	// Memory waits and writes (memops.go); waitSince is when the
	// dispatcher first found the job ready but its waits not passing,
	// waitsEnd the BIN ring position after its WAIT_MEMs.
	waits     []memWait
	memWrites []memWrite
	waitSince time.Time
	waitsEnd  uint64
}

func align16(n uint32) uint32 { return (n + 15) &^ 15 }

// renderCLSize is the size of the generated render list for tiles tiles.
func renderCLSize(tiles uint32) uint32 {
	per := uint32(cl.SizeTileCoordinates + 2*cl.SizeLoadTileBufferGeneral + cl.SizeBranchToSubList + 2*cl.SizeStoreTileBufferGeneral)
	return cl.SizeTileRenderingModeConfiguration + cl.SizeClearColors + tiles*per + cl.SizeHalt
}

// tilePoolBytes is the tile-allocation pool given to the binner beyond the
// initial 256-byte blocks: a 4 KiB block for one tile in sixteen, between
// 64 KiB and 4 MiB. BIN_OOM grows it on demand, so this only sets how often
// a busy frame takes the interrupt. The binner's vertex store leaves this
// much of the pool to the tile lists (hw listReserveBytes, the same
// formula): what SubmitCL adds beyond it is the store's.
func tilePoolBytes(tiles uint32) uint32 { return max(64<<10, min(tiles/16, 1024)*4096) }

// SubmitCL validates a binning control list and its shader records,
// uniforms, relocations and render targets, and queues the job. On success
// a.OutFence is the job's fence. A rejection returns EINVAL, ENOENT or
// EFAULT with a message naming the offending record; nothing reaches the
// GPU. A context that caused a GPU fault or hang gets EIO.
func (f *File) SubmitCL(a *SubmitCLArgs) error {
	d := f.d
	user := a
	// Like copy_from_user: work on a private copy of the arguments, so a
	// caller changing them concurrently cannot alter what was validated.
	// The three byte buffers are copied into the exec BO below.
	args := *user
	args.BOs = slices.Clone(user.BOs)
	args.Relocs = slices.Clone(user.Relocs)
	args.InFences = slices.Clone(user.InFences)
	args.Waits = slices.Clone(user.Waits)
	args.Writes = slices.Clone(user.Writes)
	a = &args
	switch {
	case len(a.BinCL) > maxCLBytes || len(a.ShaderRecords) > maxCLBytes || len(a.Uniforms) > maxCLBytes:
		return errorf(EINVAL, "submission buffers exceed %d bytes (bin CL %d, shader records %d, uniforms %d)", maxCLBytes, len(a.BinCL), len(a.ShaderRecords), len(a.Uniforms))
	case len(a.Relocs) > maxRelocs:
		return errorf(EINVAL, "%d relocs > %d", len(a.Relocs), maxRelocs)
	case len(a.BOs) > maxBORefs:
		return errorf(EINVAL, "%d BOs > %d", len(a.BOs), maxBORefs)
	case len(a.Waits) > maxMemWaits || len(a.Writes) > maxMemWrites:
		return errorf(EINVAL, "%d memory waits and %d writes (at most %d and %d)", len(a.Waits), len(a.Writes), maxMemWaits, maxMemWrites)
	case len(a.InFences) > maxInFences:
		return errorf(EINVAL, "%d in-fences > %d", len(a.InFences), maxInFences)
	case a.Width == 0 || a.Height == 0 || a.Width > maxRenderSize || a.Height > maxRenderSize:
		return errorf(EINVAL, "render size %d×%d not in 1..%d", a.Width, a.Height, maxRenderSize)
	case a.ClearDepth > 0xFF_FFFF:
		return errorf(EINVAL, "ClearDepth %#x has more than 24 bits", a.ClearDepth)
	case a.Flags&^submitFlagsKnown != 0:
		return errorf(EINVAL, "unknown submit flags %#x", a.Flags&^submitFlagsKnown)
	}

	// Phase 1, locked: resolve handles, pin the BOs, allocate the exec BO.
	d.mu.Lock()
	v, exec, err := f.prepareSubmit(a)
	d.mu.Unlock()
	if err != nil {
		return err
	}
	// Phase 2, unlocked: copy into the exec BO and validate the copies, so
	// a large list does not hold up retirement for every other client. The
	// exec BO is ours alone and pinned BOs cannot be freed.
	mem := d.mem[exec.pa : exec.pa+exec.size()]
	srOff := align16(uint32(len(a.BinCL)))
	uniOff := align16(srOff + uint32(len(a.ShaderRecords)))
	rclOff := align16(uniOff + uint32(len(a.Uniforms)))
	v.bin = mem[:len(a.BinCL)]
	v.sr = mem[srOff : srOff+uint32(len(a.ShaderRecords))]
	v.uni = mem[uniOff : uniOff+uint32(len(a.Uniforms))]
	copy(v.bin, a.BinCL)
	copy(v.sr, a.ShaderRecords)
	copy(v.uni, a.Uniforms)
	v.srVA, v.uniVA = exec.va+srOff, exec.va+uniOff
	err = v.validate()

	// Phase 3, locked: allocate tile memory, patch, generate, queue.
	d.mu.Lock()
	defer d.mu.Unlock()
	c := f.ctx
	fail := func(err error) error {
		d.freeBOLocked(exec)
		for _, b := range v.bos {
			b.busy--
			d.releaseBOLocked(b)
		}
		return err
	}
	if err != nil {
		return fail(err)
	}
	waits, memWrites, err := validateMemOps(a, v.bos)
	if err != nil {
		return fail(err)
	}
	if err := f.check(); err != nil {
		return fail(err)
	}
	if c.guilty != nil {
		return fail(errorf(EIO, "context %d is unusable: %s", c.id, c.guilty.Msg))
	}

	// Tile allocation memory, owned by the kernel, written by the binner.
	ts := uint32(tileSize)
	if v.msaa {
		ts = tileSizeMSAA
	}
	tw, th := (a.Width+ts-1)/ts, (a.Height+ts-1)/ts
	tileBytes := tw*th*tileBlockFirst + tilePoolBytes(tw*th)
	var pm *perfMon
	if a.PerfMon != 0 {
		if pm = c.perfMons[a.PerfMon]; pm == nil {
			return fail(errorf(ENOENT, "SubmitCL: no perf monitor %d", a.PerfMon))
		}
	}
	// The job's report area (perf.go) follows the pool. The pool includes
	// room for the binner's vertex store while the context holds at most
	// half its quota with it: the other half stays for the overflow pools
	// of its unfinished jobs' tile lists (a job whose list cannot grow
	// hangs until the watchdog resets it, and memory freed by retired
	// jobs is held until the newest unfinished job retires, device.go).
	// Without the room the binner shades vertices in the tiles again.
	storeBytes := uint32(min(v.storeBytes, maxVertexStore))
	if pages := (uint64(tileBytes) + uint64(storeBytes) + uint64(reportBytes) + pageSize - 1) >> pageShift; uint64(c.charged)+pages > uint64(d.limits.quota/2) {
		storeBytes = 0
	}
	tileBytes += storeBytes
	tile, err := d.allocBOLocked(c, tileBytes+reportBytes, true, true)
	if err != nil {
		return fail(err)
	}
	// An empty tile list is a bare RETURN, so a tile the binner never
	// reached (a job cut short by a fault) renders nothing.
	for i := uint32(0); i < tw*th; i++ {
		d.mem[tile.pa+i*tileBlockFirst] = cl.OpReturnFromSubList
	}

	v.patchRelocs()
	cl.TileBinningModeConfiguration{
		TileAllocationAddress: tile.va,
		TileAllocationSize:    tileBytes,
		WidthInTiles:          uint16(tw),
		HeightInTiles:         uint16(th),
		Multisample4x:         v.msaa,
	}.Pack(v.bin[v.tbmcOff:])
	rcl := mem[rclOff:]
	n := generateRenderCL(rcl, a, v, tile.va, tw, th)

	j := &job{
		ctx: c, prio: c.prio, exec: exec, tile: tile,
		bos: v.bos, writes: make([]bool, len(v.bos)),
		binVA: exec.va, binSize: uint32(len(a.BinCL)),
		rclVA: exec.va + rclOff, rclSize: n,
		srVA: v.srVA, srSize: uint32(len(a.ShaderRecords)),
		uniVA: v.uniVA, uniSize: uint32(len(a.Uniforms)),
		endOfFrame: a.Flags&SubmitEndOfFrame != 0,
		reportOff:  tileBytes, queuedAt: d.gpuTime(),
		perfMon: pm, perfMonID: a.PerfMon, tag: a.Tag,
		waits: waits, memWrites: memWrites,
	}
	if pm != nil {
		pm.pending++
	}
	d.seqno++
	j.fence = &fence{seqno: d.seqno, done: make(chan struct{}), owner: c, job: j}
	c.issued(d.seqno)
	d.pending[d.seqno] = j.fence
	for _, fn := range a.InFences {
		if fc := d.pending[fn]; fc != nil {
			j.deps = append(j.deps, fc)
		}
	}
	// Implicit synchronisation: read-after-write, write-after-read/write.
	// BOs belong to this File, so every earlier user is an earlier job of
	// the same context, and each ring runs its jobs in order. The one
	// hazard the rings do not order is this job's BIN stage overlapping an
	// earlier job's RENDER stage. A BO that this job names only as a render
	// target is touched only by its RENDER stage, so it needs no wait: that
	// is what lets frame N+1 bin while frame N renders into the same
	// surface. A BO reached through a relocation may be touched by the
	// binner (vertices, indices, coordinate shader), so it waits. A compute
	// job's or a DMA job's use is ordered by no ring of this job: it always
	// waits.
	binUse := make([]bool, len(v.bos))
	for i := range a.Relocs {
		if r := &a.Relocs[i]; r.Target == TargetBO {
			binUse[r.BOIndex] = true
		}
	}
	for i, b := range v.bos {
		j.writes[i] = a.BOs[i].Flags&BOWrite != 0 // b.busy was raised in prepareSubmit
		bin := binUse[i]
		j.syncBO(b, j.writes[i], func(fc *fence) bool { return bin || fc.onOtherEngine() })
	}
	c.queue = append(c.queue, j)
	c.active++
	c.unfinished = append(c.unfinished, j.fence.seqno)
	user.OutFence = j.fence.seqno
	d.kick()
	return nil
}

// generateRenderCL writes the render control list of hardware.md §4.3 into
// dst and returns its length.
func generateRenderCL(dst []byte, a *SubmitCLArgs, v *validator, tileVA, tw, th uint32) uint32 {
	n := 0
	emit := func(r cl.Record) {
		r.Pack(dst[n:])
		n += r.Size()
	}
	emit(cl.TileRenderingModeConfiguration{
		Width: uint16(a.Width), Height: uint16(a.Height),
		Multisample4x: v.msaa, DisableHSR: a.Flags&SubmitExactCounts != 0, ColorFormat: a.Color.Format,
	})
	emit(cl.ClearColors{Color: a.ClearColor, Depth: a.ClearDepth, Stencil: a.ClearStencil})
	surf := func(t *RenderTarget) uint32 { return v.bos[t.BOIndex].va + t.Offset }
	for row := uint32(0); row < th; row++ {
		for col := uint32(0); col < tw; col++ {
			i := row*tw + col
			emit(cl.TileCoordinates{Column: uint8(col), Row: uint8(row)})
			if a.Color.Enabled && a.Color.Load {
				emit(cl.LoadTileBufferGeneral{Buffer: cl.BufferColor, Address: surf(&a.Color), Stride: a.Color.Stride, AllSamples: a.Color.AllSamples})
			}
			if a.ZS.Enabled && a.ZS.Load {
				emit(cl.LoadTileBufferGeneral{Buffer: cl.BufferZS, Address: surf(&a.ZS), Stride: a.ZS.Stride, AllSamples: a.ZS.AllSamples})
			}
			emit(cl.BranchToSubList{Address: tileVA + i*tileBlockFirst})
			if a.ZS.Enabled && a.ZS.Store {
				emit(cl.StoreTileBufferGeneral{Buffer: cl.BufferZS, Address: surf(&a.ZS), Stride: a.ZS.Stride, AllSamples: a.ZS.AllSamples})
			}
			last := i == tw*th-1
			if a.Color.Enabled && a.Color.Store {
				emit(cl.StoreTileBufferGeneral{Buffer: cl.BufferColor, Address: surf(&a.Color), Stride: a.Color.Stride, LastTile: last, AllSamples: a.Color.AllSamples})
			} else {
				emit(cl.StoreTileBufferGeneral{Buffer: cl.BufferNone, LastTile: last})
			}
		}
	}
	emit(cl.Halt{})
	return uint32(n)
}

// resolveBORefs resolves a submission's BO references (without pinning
// them) and checks its in-fences. d.mu is held.
func (f *File) resolveBORefs(refs []BORef, inFences []uint64) ([]*bo, error) {
	bos := make([]*bo, len(refs))
	seen := make(map[uint32]int, len(refs))
	for i, r := range refs {
		b := f.handles[r.Handle]
		if b == nil {
			return nil, errorf(ENOENT, "BOs[%d]: no BO with handle %d", i, r.Handle)
		}
		if r.Flags&^(BORead|BOWrite) != 0 || r.Flags == 0 {
			return nil, errorf(EINVAL, "BOs[%d]: flags %#x must be a non-empty set of BORead|BOWrite", i, r.Flags)
		}
		if p, dup := seen[r.Handle]; dup {
			return nil, errorf(EINVAL, "BOs[%d]: handle %d already listed as BOs[%d]", i, r.Handle, p)
		}
		seen[r.Handle] = i
		bos[i] = b
	}
	// An in-fence may name another File's fence: it only orders this
	// job after that one and reveals nothing of its outcome (the job runs
	// whether it failed or not). Only Wait returns a fence's error, and
	// only to its owner.
	for i, fn := range inFences {
		if fn == 0 || fn > f.d.seqno {
			return nil, errorf(ENOENT, "InFences[%d]: fence %d was never issued", i, fn)
		}
	}
	return bos, nil
}

// prepareSubmit checks the context, resolves and pins a.BOs and allocates
// the exec BO. d.mu is held.
func (f *File) prepareSubmit(a *SubmitCLArgs) (*validator, *bo, error) {
	d := f.d
	if err := f.check(); err != nil {
		return nil, nil, err
	}
	c := f.ctx
	if c.guilty != nil {
		return nil, nil, errorf(EIO, "context %d is unusable: %s", c.id, c.guilty.Msg)
	}
	if c.skipping != nil {
		err := c.skipping
		if a.Flags&SubmitEndOfFrame != 0 {
			c.skipping = nil // the faulting frame ends with this job
		}
		return nil, nil, err
	}
	if c.active >= maxActiveJobs {
		return nil, nil, errorf(EBUSY, "context %d has %d unfinished jobs; wait for some to finish", c.id, c.active)
	}
	bos, err := f.resolveBORefs(a.BOs, a.InFences)
	if err != nil {
		return nil, nil, err
	}
	v := &validator{d: d, a: a, bos: bos, shaders: map[uint64]*shaderState{}}
	// Exec BO layout: bin CL, shader records, uniforms, render CL, each
	// 16-aligned. The render CL size depends on MSAA, known only after
	// validation; reserve room for the larger (32×32-tile) list.
	srOff := align16(uint32(len(a.BinCL)))
	uniOff := align16(srOff + uint32(len(a.ShaderRecords)))
	rclOff := align16(uniOff + uint32(len(a.Uniforms)))
	maxTiles := ((a.Width + tileSizeMSAA - 1) / tileSizeMSAA) * ((a.Height + tileSizeMSAA - 1) / tileSizeMSAA)
	exec, err := d.allocBOLocked(c, rclOff+renderCLSize(maxTiles), false, true)
	if err != nil {
		return nil, nil, err
	}
	for _, b := range v.bos {
		b.busy++
	}
	return v, exec, nil
}

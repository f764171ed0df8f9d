package pal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/tilegpu/tilegpu/compiler"
	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/kernel"
)

// CmdBufferCreateInfo configures a command buffer.
type CmdBufferCreateInfo struct {
	Allocator *CmdAllocator
	Engine    EngineType // EngineUniversal, or EngineCompute (dispatches and copies only)
}

type cmdState uint8

const (
	stateInitial    cmdState = iota // created or Reset
	stateRecording                  // between Begin and End
	stateExecutable                 // ended; may be submitted
	stateInvalid                    // a command failed; Reset it
)

// Dirty bits: which state must be re-emitted before the next draw.
const (
	dirtyPipeline uint32 = 1 << iota
	dirtyBlend
	dirtyDepthStencil
	dirtyViewport
	dirtyScissor
	dirtyStencilRef
	dirtyBlendConst
	dirtyVertexBuffers
	dirtyUserData
	dirtyAll = 1<<iota - 1
)

// Job size limits, below what SUBMIT_CL accepts (16 MiB per buffer, 2^20
// relocations, 4096 BOs): a job is continued in a new one (which loads
// the targets back) when one draw could take it over. Variables so tests
// can lower them.
var (
	jobBufferLimit = 12 << 20
	jobRelocLimit  = 900_000
	jobBOLimit     = 4000
)

// MaxInstances bounds CmdDraw's instanceCount: GLSL ES 1.00 has no
// gl_InstanceID, so instances are identical draws recorded one by one.
const MaxInstances = 1024

// VertexBufferView is one vertex buffer binding (PAL's BufferViewInfo in
// the vertex-buffer table).
type VertexBufferView struct {
	Memory *GpuMemory
	Offset uint64 // bytes from the start of Memory
	Size   uint64 // bytes of the view; 0 means the rest of Memory
	Stride uint32 // bytes between vertices, ≤ 65535
}

// MemoryCopyRegion is one range of CmdCopyMemory.
type MemoryCopyRegion struct {
	SrcOffset, DstOffset, Size uint64
}

// copyOp is a copy, fill or update, run by the queue between jobs (on
// the CPU: the TG GPU has no DMA engine). run was built from validated
// arguments; src (may be nil) and dst are listed for residency.
type copyOp struct {
	src, dst *GpuMemory
	run      func()
	// dma is the same operation as DMA engine commands, when it has a
	// form the engine runs (4-byte aligned); a DMA queue submits those
	// (dma.go) and runs the others on the CPU.
	dma []dmaCmd
}

type seg struct{ chunk, start, end int }

// job is one SUBMIT_CL (or one copy): the part of a command buffer
// between target binds, clears after draws, barriers and copies.
type job struct {
	copy   *copyOp
	nested *CmdBuffer // CmdExecuteNestedCmdBuffers: run that buffer's jobs here
	span   *spanOp    // a query's or perf experiment's begin or end (query.go)
	mem    *memOp     // an event or timestamp command with no job to carry it (event.go)
	// writes are event and timestamp writes at the job's end of pipe.
	writes []kernel.MemWrite

	color, depth *Image
	width        int
	height       int
	colorClear   bool
	dsClear      bool
	usesDS       bool
	clearColor   uint32
	clearDepth   uint32
	clearStencil uint8
	draws        int

	compute *computeJob // a SubmitCompute job (compute.go)

	segs        []seg
	bclLen      int
	shaderRecs  []byte
	unifs       []byte
	relocs      []kernel.Reloc
	bos         []kernel.BORef
	mems        []*GpuMemory
	storageCopy int // offset of the user-data copy in unifs, -1: none
}

func (j *job) reset() {
	*j = job{segs: j.segs[:0], shaderRecs: j.shaderRecs[:0], unifs: j.unifs[:0], relocs: j.relocs[:0],
		bos: j.bos[:0], mems: j.mems[:0], writes: j.writes[:0], storageCopy: -1}
}

func (j *job) hasWork() bool {
	return j.copy != nil || j.nested != nil || j.span != nil || j.mem != nil || j.draws > 0 || j.colorClear || j.dsClear ||
		(j.compute != nil && len(j.compute.dispatches) > 0)
}

func (j *job) full() bool {
	return j.bclLen > jobBufferLimit || len(j.shaderRecs) > jobBufferLimit || len(j.unifs) > jobBufferLimit ||
		len(j.relocs) > jobRelocLimit || len(j.bos) > jobBOLimit
}

// boIndex returns m's index in the job's BO list, adding it.
func (j *job) boIndex(m *GpuMemory, flags uint32) uint32 {
	for i := len(j.mems) - 1; i >= 0; i-- {
		if j.mems[i] == m {
			j.bos[i].Flags |= flags
			return uint32(i)
		}
	}
	j.mems = append(j.mems, m)
	j.bos = append(j.bos, kernel.BORef{Handle: m.handle, Flags: flags})
	return uint32(len(j.bos) - 1)
}

func (j *job) relocBO(space kernel.RelocSpace, off int, m *GpuMemory, flags uint32, delta uint64) {
	j.relocs = append(j.relocs, kernel.Reloc{Space: space, Offset: uint32(off), Target: kernel.TargetBO,
		BOIndex: j.boIndex(m, flags), Delta: uint32(delta)})
}

// CmdBuffer is PAL's ICmdBuffer (a universal command buffer). Record it
// between Begin and End on one goroutine; different command buffers may
// be recorded concurrently. Every command returns an error for misuse;
// the first one also makes End fail.
type CmdBuffer struct {
	dev    *Device
	alloc  *CmdAllocator
	engine EngineType

	state   cmdState
	err     error
	pending atomic.Uint64 // the last kernel fence of the last submission

	chunks [][]byte
	cur    []byte
	used   int

	jobs []*job
	pool []*job
	job  *job // the job being recorded, nil: the next draw opens one

	// Bound state.
	pipeline   *Pipeline
	blend      *ColorBlendState
	ds         *DepthStencilState
	color      *ColorTargetView
	depth      *DepthStencilView
	viewport   Viewport
	scissor    ScissorRect
	hasVP      bool
	hasScissor bool
	stencilRef [2]uint8
	blendConst [4]float32
	vbs        [MaxVertexBuffers]VertexBufferView
	indexMem   *GpuMemory
	indexOff   uint64
	indexType  IndexType
	baseVertex int32
	userData   []uint32
	views      [MaxTextureUnits]*ImageView
	dirty      uint32

	openSpans []spanTarget // queries and experiments begun and not yet ended

	// Compute state (compute.go): the bound pipeline, storage buffers,
	// and the compute job dispatches go to (nil: the next opens one).
	cpipeline *ComputePipeline
	storage   []BufferView
	cjob      *job
}

// CreateCmdBuffer creates a command buffer drawing its chunks from ci.Allocator.
func (d *Device) CreateCmdBuffer(ci CmdBufferCreateInfo) (*CmdBuffer, error) {
	if ci.Allocator == nil {
		return nil, fmt.Errorf("%w: CmdBuffer needs a CmdAllocator", ErrInvalidArgument)
	}
	if ci.Engine != EngineUniversal && ci.Engine != EngineCompute && ci.Engine != EngineDma {
		return nil, fmt.Errorf("%w: engine %v", ErrUnsupported, ci.Engine)
	}
	return &CmdBuffer{dev: d, alloc: ci.Allocator, engine: ci.Engine}, nil
}

// executing reports whether the last submission still runs on the GPU.
func (cb *CmdBuffer) executing() bool {
	f := cb.pending.Load()
	if f == 0 {
		return false
	}
	err := cb.dev.file.Wait(&kernel.WaitArgs{Fence: f})
	if errors.Is(err, kernel.ETIMEDOUT) {
		return true
	}
	cb.pending.CompareAndSwap(f, 0)
	return false
}

// Begin starts recording (PAL's Begin), discarding earlier contents.
func (cb *CmdBuffer) Begin() error {
	if err := cb.Reset(); err != nil {
		return err
	}
	cb.state = stateRecording
	return nil
}

// Reset returns the buffer's chunks to its allocator and forgets all
// commands and bound state (PAL's Reset).
func (cb *CmdBuffer) Reset() error {
	if cb.executing() {
		return fmt.Errorf("%w: Reset/Begin while its last submission runs (wait for its fence)", ErrCmdBufferExecuting)
	}
	if len(cb.chunks) > 0 {
		cb.alloc.put(cb.chunks)
		cb.chunks = cb.chunks[:0]
	}
	cb.cur, cb.used = nil, 0
	for _, j := range cb.jobs {
		j.reset()
		cb.pool = append(cb.pool, j)
	}
	cb.jobs = cb.jobs[:0]
	ud := cb.userData[:0]
	*cb = CmdBuffer{dev: cb.dev, alloc: cb.alloc, engine: cb.engine, chunks: cb.chunks, jobs: cb.jobs, pool: cb.pool, userData: ud, storage: cb.storage[:0]}
	cb.state = stateInitial
	return nil
}

// End finishes recording (PAL's End). It returns the first error of a
// command recorded since Begin; the buffer then cannot be submitted.
func (cb *CmdBuffer) End() error {
	if err := cb.check("End"); err != nil {
		return err
	}
	cb.job, cb.cjob = nil, nil
	if cb.err == nil && len(cb.openSpans) > 0 {
		cb.err = fmt.Errorf("%w: %s begun and not ended", ErrInvalidArgument, cb.openSpans[0].describe())
	}
	if cb.err != nil {
		cb.state = stateInvalid
		return fmt.Errorf("%w: %w", ErrRecordingFailed, cb.err)
	}
	cb.state = stateExecutable
	return nil
}

// check returns the error for recording cmd in the current state.
func (cb *CmdBuffer) check(cmd string) error {
	if cb.state == stateRecording {
		return nil
	}
	if cb.executing() {
		return fmt.Errorf("%w: %s", ErrCmdBufferExecuting, cmd)
	}
	return fmt.Errorf("%w: %s outside Begin/End", ErrNotRecording, cmd)
}

// fail records err as the buffer's first error and returns it.
func (cb *CmdBuffer) fail(err error) error {
	if cb.err == nil {
		cb.err = err
	}
	return err
}

func (cb *CmdBuffer) failf(kind error, format string, args ...any) error {
	return cb.fail(fmt.Errorf("%w: %s", kind, fmt.Sprintf(format, args...)))
}

// reserve returns n bytes at the end of the current job's control list
// (PAL's CmdStream::ReserveCommands); the caller packs records into them.
func (cb *CmdBuffer) reserve(n int) []byte {
	j := cb.job
	if cb.used+n > len(cb.cur) {
		cb.cur = cb.alloc.get()
		cb.chunks = append(cb.chunks, cb.cur)
		cb.used = 0
		j.segs = append(j.segs, seg{chunk: len(cb.chunks) - 1})
	}
	start := cb.used
	cb.used += n
	j.segs[len(j.segs)-1].end = cb.used
	j.bclLen += n
	return cb.cur[start:cb.used:cb.used]
}

// newJob appends a job to the buffer.
func (cb *CmdBuffer) newJob() *job {
	var j *job
	if n := len(cb.pool); n > 0 {
		j = cb.pool[n-1]
		cb.pool = cb.pool[:n-1]
	} else {
		j = &job{storageCopy: -1}
	}
	cb.jobs = append(cb.jobs, j)
	cb.cjob = nil // dispatches after this job go to a new compute job
	return j
}

// openJob starts a render job for the bound targets (loading them).
func (cb *CmdBuffer) openJob() (*job, error) {
	if cb.job != nil {
		return cb.job, nil
	}
	if cb.engine != EngineUniversal {
		return nil, fmt.Errorf("%w: graphics work on a %v command buffer", ErrInvalidArgument, cb.engine)
	}
	if cb.color == nil && cb.depth == nil {
		return nil, errors.New("no targets bound (CmdBindTargets)")
	}
	j := cb.newJob()
	if cb.color != nil {
		j.color = cb.color.image
	}
	if cb.depth != nil {
		j.depth = cb.depth.image
	}
	for _, im := range []*Image{j.color, j.depth} {
		if im != nil {
			mem, _ := im.get()
			j.boIndex(mem, kernel.BORead|kernel.BOWrite)
			j.width, j.height = im.ci.Width, im.ci.Height
		}
	}
	// The first record may not share a chunk segment with another job.
	j.segs = append(j.segs, seg{chunk: len(cb.chunks) - 1, start: cb.used, end: cb.used})
	cb.job = j
	ts := cb.dev.props.Limits.TileSize
	cl.TileBinningModeConfiguration{WidthInTiles: uint16((j.width + ts - 1) / ts),
		HeightInTiles: uint16((j.height + ts - 1) / ts)}.Pack(cb.reserve(cl.SizeTileBinningModeConfiguration))
	cl.StartTileBinning{}.Pack(cb.reserve(cl.SizeStartTileBinning))
	cl.FlatShadeFlags{}.Pack(cb.reserve(cl.SizeFlatShadeFlags))
	cl.PointSize{PointSize: 1}.Pack(cb.reserve(cl.SizePointSize))
	cb.dirty = dirtyAll
	return j, nil
}

// CmdBindTargets binds the colour and depth/stencil targets (either may
// be nil, not both). Rendering continues into them with their contents
// loaded, unless a clear follows.
func (cb *CmdBuffer) CmdBindTargets(color *ColorTargetView, depth *DepthStencilView) error {
	if err := cb.check("CmdBindTargets"); err != nil {
		return err
	}
	if color == nil && depth == nil {
		return cb.failf(ErrInvalidArgument, "CmdBindTargets: no target")
	}
	if cb.engine != EngineUniversal {
		return cb.failf(ErrInvalidArgument, "CmdBindTargets on a %v command buffer", cb.engine)
	}
	if color != nil && depth != nil {
		c, d := color.image.ci, depth.image.ci
		if c.Width != d.Width || c.Height != d.Height {
			return cb.failf(ErrInvalidArgument, "CmdBindTargets: colour %d×%d and depth %d×%d differ in size", c.Width, c.Height, d.Width, d.Height)
		}
	}
	for _, im := range []*Image{viewImage(color), dsImage(depth)} {
		if im != nil && im.dev != cb.dev {
			return cb.failf(ErrWrongDevice, "CmdBindTargets")
		}
	}
	cb.job = nil
	cb.color, cb.depth = color, depth
	return nil
}

func viewImage(v *ColorTargetView) *Image {
	if v == nil {
		return nil
	}
	return v.image
}

func dsImage(v *DepthStencilView) *Image {
	if v == nil {
		return nil
	}
	return v.image
}

// clearJob returns the job a clear goes to: a fresh one when the current
// job has drawn (the kernel clears only at the start of a job).
func (cb *CmdBuffer) clearJob() (*job, error) {
	if cb.job != nil && cb.job.draws > 0 {
		cb.job = nil
	}
	return cb.openJob()
}

// CmdClearColorTarget clears the bound colour target to rgba (0..1).
func (cb *CmdBuffer) CmdClearColorTarget(rgba [4]float32) error {
	if err := cb.check("CmdClearColorTarget"); err != nil {
		return err
	}
	if cb.color == nil {
		return cb.failf(ErrInvalidArgument, "CmdClearColorTarget: no colour target bound")
	}
	j, err := cb.clearJob()
	if err != nil {
		return cb.fail(err)
	}
	var v uint32
	for i, x := range rgba {
		x = min(max(x, 0), 1)
		if x != x { // NaN
			x = 0
		}
		v |= uint32(math.Round(float64(x)*255)) << (8 * i)
	}
	j.colorClear, j.clearColor = true, v
	return nil
}

// CmdClearDepthStencilTarget clears the bound depth/stencil target.
func (cb *CmdBuffer) CmdClearDepthStencilTarget(depth float32, stencil uint8) error {
	if err := cb.check("CmdClearDepthStencilTarget"); err != nil {
		return err
	}
	if cb.depth == nil {
		return cb.failf(ErrInvalidArgument, "CmdClearDepthStencilTarget: no depth/stencil target bound")
	}
	if !(depth >= 0 && depth <= 1) {
		return cb.failf(ErrInvalidArgument, "CmdClearDepthStencilTarget: depth %v not in 0..1", depth)
	}
	j, err := cb.clearJob()
	if err != nil {
		return cb.fail(err)
	}
	j.dsClear, j.usesDS = true, true
	j.clearDepth, j.clearStencil = uint32(math.Round(float64(depth)*0xFFFFFF)), stencil
	return nil
}

// CmdBindPipeline binds a graphics pipeline.
func (cb *CmdBuffer) CmdBindPipeline(p *Pipeline) error {
	if err := cb.check("CmdBindPipeline"); err != nil {
		return err
	}
	if p != nil && p.dev != cb.dev {
		return cb.failf(ErrWrongDevice, "CmdBindPipeline")
	}
	if p != cb.pipeline {
		cb.pipeline = p
		cb.dirty |= dirtyPipeline
	}
	return nil
}

// CmdBindColorBlendState binds blend state (nil: blending off, all
// channels written).
func (cb *CmdBuffer) CmdBindColorBlendState(s *ColorBlendState) error {
	if err := cb.check("CmdBindColorBlendState"); err != nil {
		return err
	}
	if s != nil && s.dev != cb.dev {
		return cb.failf(ErrWrongDevice, "CmdBindColorBlendState")
	}
	if s != cb.blend {
		cb.blend = s
		cb.dirty |= dirtyBlend
	}
	return nil
}

// CmdBindDepthStencilState binds depth/stencil state (nil: tests off).
func (cb *CmdBuffer) CmdBindDepthStencilState(s *DepthStencilState) error {
	if err := cb.check("CmdBindDepthStencilState"); err != nil {
		return err
	}
	if s != nil && s.dev != cb.dev {
		return cb.failf(ErrWrongDevice, "CmdBindDepthStencilState")
	}
	if s != cb.ds {
		cb.ds = s
		cb.dirty |= dirtyDepthStencil
	}
	return nil
}

// CmdBindMsaaState binds multisample state (single-sampled only).
func (cb *CmdBuffer) CmdBindMsaaState(s *MsaaState) error {
	if err := cb.check("CmdBindMsaaState"); err != nil {
		return err
	}
	if s != nil && s.dev != cb.dev {
		return cb.failf(ErrWrongDevice, "CmdBindMsaaState")
	}
	return nil
}

// CmdSetViewport sets the viewport (default: the whole target, depth 0..1).
func (cb *CmdBuffer) CmdSetViewport(v Viewport) error {
	if err := cb.check("CmdSetViewport"); err != nil {
		return err
	}
	for _, x := range []float32{v.OriginX, v.OriginY, v.Width, v.Height, v.MinDepth, v.MaxDepth} {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return cb.failf(ErrInvalidArgument, "CmdSetViewport: %+v has a non-finite value", v)
		}
	}
	if v.Width <= 0 || v.Height <= 0 || v.Width > 1<<16 || v.Height > 1<<16 || !(v.MinDepth >= 0 && v.MaxDepth <= 1) ||
		v.OriginX < -(1<<16) || v.OriginX > 1<<16 || v.OriginY < -(1<<16) || v.OriginY > 1<<16 {
		return cb.failf(ErrInvalidArgument, "CmdSetViewport: %+v (origin ±65536, size 0..65536, depths 0..1)", v)
	}
	cb.viewport, cb.hasVP = v, true
	cb.dirty |= dirtyViewport | dirtyScissor
	return nil
}

// CmdSetScissorRect sets the scissor (default: the whole target).
func (cb *CmdBuffer) CmdSetScissorRect(s ScissorRect) error {
	if err := cb.check("CmdSetScissorRect"); err != nil {
		return err
	}
	if s.Width < 0 || s.Height < 0 || s.X < -(1<<16) || s.Y < -(1<<16) || s.X > 1<<16 || s.Y > 1<<16 || s.Width > 1<<16 || s.Height > 1<<16 {
		return cb.failf(ErrInvalidArgument, "CmdSetScissorRect: %+v", s)
	}
	cb.scissor, cb.hasScissor = s, true
	cb.dirty |= dirtyScissor
	return nil
}

// CmdSetStencilRef sets the front and back stencil reference values.
func (cb *CmdBuffer) CmdSetStencilRef(front, back uint8) error {
	if err := cb.check("CmdSetStencilRef"); err != nil {
		return err
	}
	cb.stencilRef = [2]uint8{front, back}
	cb.dirty |= dirtyStencilRef
	return nil
}

// CmdSetBlendConst sets the blend constant colour.
func (cb *CmdBuffer) CmdSetBlendConst(rgba [4]float32) error {
	if err := cb.check("CmdSetBlendConst"); err != nil {
		return err
	}
	cb.blendConst = rgba
	cb.dirty |= dirtyBlendConst
	return nil
}

// CmdSetUserData sets user-data entries first.. (PAL's CmdSetUserData):
// the words of the pipeline's uniform storage (Pipeline.UserDataSlot).
// Floats are given as math.Float32bits.
func (cb *CmdBuffer) CmdSetUserData(first int, values []uint32) error {
	if err := cb.check("CmdSetUserData"); err != nil {
		return err
	}
	if first < 0 || first > MaxUserDataEntries || len(values) > MaxUserDataEntries-first {
		return cb.failf(ErrInvalidArgument, "CmdSetUserData: entries %d..%d+%d beyond %d", first, first, len(values), MaxUserDataEntries)
	}
	if end := first + len(values); end > len(cb.userData) {
		cb.userData = append(cb.userData, make([]uint32, end-len(cb.userData))...)
	}
	copy(cb.userData[first:], values)
	cb.dirty |= dirtyUserData
	return nil
}

// CmdBindImageViews binds image views to texture units first... (nil
// unbinds); a shader's sampler uniform selects a unit.
func (cb *CmdBuffer) CmdBindImageViews(first int, views []*ImageView) error {
	if err := cb.check("CmdBindImageViews"); err != nil {
		return err
	}
	if first < 0 || first > MaxTextureUnits || len(views) > MaxTextureUnits-first {
		return cb.failf(ErrInvalidArgument, "CmdBindImageViews: units %d+%d beyond %d", first, len(views), MaxTextureUnits)
	}
	for i, v := range views {
		if v != nil && v.image.dev != cb.dev {
			return cb.failf(ErrWrongDevice, "CmdBindImageViews unit %d", first+i)
		}
	}
	copy(cb.views[first:], views)
	cb.dirty |= dirtyUserData
	return nil
}

// CmdSetVertexBuffers binds vertex buffers to slots first...
func (cb *CmdBuffer) CmdSetVertexBuffers(first int, views []VertexBufferView) error {
	if err := cb.check("CmdSetVertexBuffers"); err != nil {
		return err
	}
	if first < 0 || first > MaxVertexBuffers || len(views) > MaxVertexBuffers-first {
		return cb.failf(ErrInvalidArgument, "CmdSetVertexBuffers: slots %d+%d beyond %d", first, len(views), MaxVertexBuffers)
	}
	for i, v := range views {
		if v.Memory == nil {
			continue
		}
		if v.Memory.dev != cb.dev {
			return cb.failf(ErrWrongDevice, "CmdSetVertexBuffers slot %d", first+i)
		}
		if v.Offset > v.Memory.size || v.Size > v.Memory.size-v.Offset || v.Stride > math.MaxUint16 {
			return cb.failf(ErrInvalidArgument, "CmdSetVertexBuffers slot %d: offset %d size %d stride %d outside the %d-byte memory (stride ≤ 65535)",
				first+i, v.Offset, v.Size, v.Stride, v.Memory.size)
		}
		if v.Size == 0 {
			views[i].Size = v.Memory.size - v.Offset
		}
	}
	copy(cb.vbs[first:], views)
	cb.dirty |= dirtyVertexBuffers
	return nil
}

// CmdBindIndexData binds the index buffer for CmdDrawIndexed.
func (cb *CmdBuffer) CmdBindIndexData(mem *GpuMemory, offset uint64, t IndexType) error {
	if err := cb.check("CmdBindIndexData"); err != nil {
		return err
	}
	if mem == nil || mem.dev != cb.dev {
		return cb.failf(ErrInvalidArgument, "CmdBindIndexData: nil memory or memory of another device")
	}
	if t > cl.IndexU32 || offset >= mem.size || offset%indexSize(t) != 0 {
		return cb.failf(ErrInvalidArgument, "CmdBindIndexData: type %d at offset %d of %d bytes", t, offset, mem.size)
	}
	cb.indexMem, cb.indexOff, cb.indexType = mem, offset, t
	return nil
}

func indexSize(t IndexType) uint64 { return 1 << uint64(t&3) }

// CmdBarrier makes the writes of earlier commands visible to later ones
// (PAL's CmdBarrier: cache flushes and pipeline stalls). On a tiler this
// ends the job: its tiles are stored when it ends, and the kernel's
// per-BO implicit synchronisation orders the jobs that follow.
func (cb *CmdBuffer) CmdBarrier() error {
	if err := cb.check("CmdBarrier"); err != nil {
		return err
	}
	cb.job = nil
	return nil
}

// CmdCopyMemory copies regions of src to dst, in order with the
// buffer's other work. The TG GPU has no DMA engine yet: the queue copies
// on the CPU once the work before it has finished (see docs/interfaces.md).
func (cb *CmdBuffer) CmdCopyMemory(src, dst *GpuMemory, regions []MemoryCopyRegion) error {
	if err := cb.check("CmdCopyMemory"); err != nil {
		return err
	}
	if src == nil || dst == nil || src.dev != cb.dev || dst.dev != cb.dev {
		return cb.failf(ErrInvalidArgument, "CmdCopyMemory: nil memory or memory of another device")
	}
	for i, r := range regions {
		if r.SrcOffset > src.size || r.Size > src.size-r.SrcOffset || r.DstOffset > dst.size || r.Size > dst.size-r.DstOffset {
			return cb.failf(ErrInvalidArgument, "CmdCopyMemory region %d: %d bytes from %d to %d outside the memories (%d, %d bytes)",
				i, r.Size, r.SrcOffset, r.DstOffset, src.size, dst.size)
		}
	}
	regions = append([]MemoryCopyRegion(nil), regions...)
	op := &copyOp{src: src, dst: dst, run: func() {
		for _, r := range regions {
			copy(dst.bytes[r.DstOffset:r.DstOffset+r.Size], src.bytes[r.SrcOffset:r.SrcOffset+r.Size])
		}
	}}
	for _, r := range regions {
		if r.Size > 0 {
			op.dma = append(op.dma, dmaCmd{src: src, dst: dst, srcOff: r.SrcOffset, dstOff: r.DstOffset, rowBytes: r.Size, rows: 1})
		}
	}
	cb.addCopy(op)
	return nil
}

// CmdFillMemory writes the 32-bit value over size bytes of dst at offset
// (both multiples of 4), in order with the buffer's other work.
func (cb *CmdBuffer) CmdFillMemory(dst *GpuMemory, offset, size uint64, value uint32) error {
	if err := cb.check("CmdFillMemory"); err != nil {
		return err
	}
	if dst == nil || dst.dev != cb.dev {
		return cb.failf(ErrInvalidArgument, "CmdFillMemory: nil memory or memory of another device")
	}
	if offset%4 != 0 || size%4 != 0 || offset > dst.size || size > dst.size-offset {
		return cb.failf(ErrInvalidArgument, "CmdFillMemory: %d bytes at %d of %d (multiples of 4 inside the memory)", size, offset, dst.size)
	}
	op := &copyOp{dst: dst, run: func() {
		b := dst.bytes[offset : offset+size]
		for i := 0; i+4 <= len(b); i += 4 {
			binary.LittleEndian.PutUint32(b[i:], value)
		}
	}}
	if size > 0 {
		op.dma = []dmaCmd{{fill: true, value: value, dst: dst, dstOff: offset, rowBytes: size, rows: 1}}
	}
	cb.addCopy(op)
	return nil
}

// CmdUpdateMemory writes data (copied into the command buffer, at most
// 64 KiB) to dst at offset, in order with the buffer's other work.
func (cb *CmdBuffer) CmdUpdateMemory(dst *GpuMemory, offset uint64, data []byte) error {
	if err := cb.check("CmdUpdateMemory"); err != nil {
		return err
	}
	if dst == nil || dst.dev != cb.dev {
		return cb.failf(ErrInvalidArgument, "CmdUpdateMemory: nil memory or memory of another device")
	}
	if len(data) > 64<<10 || offset > dst.size || uint64(len(data)) > dst.size-offset {
		return cb.failf(ErrInvalidArgument, "CmdUpdateMemory: %d bytes at %d of %d (at most 64 KiB inside the memory)", len(data), offset, dst.size)
	}
	data = append([]byte(nil), data...)
	cb.addCopy(&copyOp{dst: dst, run: func() { copy(dst.bytes[offset:], data) }})
	return nil
}

// ImageRegion is a rectangle of one mip level (y up, like the image).
type ImageRegion struct {
	Level, X, Y, Width, Height int
}

// check validates r against im and returns the level's layout.
func (r ImageRegion) check(im *Image) (SubresourceLayout, error) {
	l, err := im.SubresourceLayout(r.Level)
	if err != nil {
		return l, err
	}
	if r.X < 0 || r.Y < 0 || r.Width < 0 || r.Height < 0 || r.X+r.Width > l.Width || r.Y+r.Height > l.Height {
		return l, fmt.Errorf("%w: region %+v outside the %d×%d level", ErrInvalidArgument, r, l.Width, l.Height)
	}
	return l, nil
}

// imageBytes returns the memory and byte offset of im's level layout l.
func imageBytes(im *Image, l SubresourceLayout) ([]byte, error) {
	mem, off := im.get()
	if mem == nil {
		return nil, fmt.Errorf("%w: image", ErrNotBound)
	}
	return mem.bytes[off+l.Offset:], nil
}

// copyRows copies rows of rowBytes bytes between pitched layouts.
func copyRows(dst []byte, dstOff, dstPitch int, src []byte, srcOff, srcPitch, rowBytes, rows int) {
	for y := 0; y < rows; y++ {
		d, s := dstOff+y*dstPitch, srcOff+y*srcPitch
		copy(dst[d:d+rowBytes], src[s:s+rowBytes])
	}
}

// CmdCopyImage copies a rectangle between images of the same format
// (PAL's CmdCopyImage), in order with the buffer's other work.
func (cb *CmdBuffer) CmdCopyImage(src *Image, srcRegion ImageRegion, dst *Image, dstX, dstY, dstLevel int) error {
	if err := cb.check("CmdCopyImage"); err != nil {
		return err
	}
	if src == nil || dst == nil || src.dev != cb.dev || dst.dev != cb.dev || src.ci.Format != dst.ci.Format {
		return cb.failf(ErrInvalidArgument, "CmdCopyImage: nil images, another device's, or different formats")
	}
	sl, err := srcRegion.check(src)
	if err != nil {
		return cb.fail(fmt.Errorf("CmdCopyImage source: %w", err))
	}
	dr := ImageRegion{Level: dstLevel, X: dstX, Y: dstY, Width: srcRegion.Width, Height: srcRegion.Height}
	dl, err := dr.check(dst)
	if err != nil {
		return cb.fail(fmt.Errorf("CmdCopyImage destination: %w", err))
	}
	sb, err1 := imageBytes(src, sl)
	db, err2 := imageBytes(dst, dl)
	if err := errors.Join(err1, err2); err != nil {
		return cb.fail(fmt.Errorf("CmdCopyImage: %w", err))
	}
	smem, soff := src.get()
	dmem, doff := dst.get()
	op := &copyOp{src: smem, dst: dmem, run: func() {
		copyRows(db, dstY*dl.RowPitch+4*dstX, dl.RowPitch, sb, srcRegion.Y*sl.RowPitch+4*srcRegion.X, sl.RowPitch,
			4*srcRegion.Width, srcRegion.Height)
	}}
	if srcRegion.Width > 0 && srcRegion.Height > 0 {
		op.dma = []dmaCmd{{src: smem, dst: dmem,
			srcOff: soff + sl.Offset + uint64(srcRegion.Y*sl.RowPitch+4*srcRegion.X), srcPitch: uint64(sl.RowPitch),
			dstOff: doff + dl.Offset + uint64(dstY*dl.RowPitch+4*dstX), dstPitch: uint64(dl.RowPitch),
			rowBytes: uint64(4 * srcRegion.Width), rows: uint64(srcRegion.Height)}}
	}
	cb.addCopy(op)
	return nil
}

// CmdCopyMemoryToImage copies rows of pixels from mem (rowPitch bytes
// apart, row 0 first, the bottom row of the region) into a region of im:
// a texture upload (PAL's CmdCopyMemoryToImage).
func (cb *CmdBuffer) CmdCopyMemoryToImage(mem *GpuMemory, memOffset uint64, rowPitch int, im *Image, region ImageRegion) error {
	return cb.copyMemoryImage("CmdCopyMemoryToImage", mem, memOffset, rowPitch, im, region, true)
}

// CmdCopyImageToMemory copies a region of im into mem, rows rowPitch
// bytes apart, the region's bottom row first: a readback (PAL's
// CmdCopyImageToMemory).
func (cb *CmdBuffer) CmdCopyImageToMemory(im *Image, region ImageRegion, mem *GpuMemory, memOffset uint64, rowPitch int) error {
	return cb.copyMemoryImage("CmdCopyImageToMemory", mem, memOffset, rowPitch, im, region, false)
}

func (cb *CmdBuffer) copyMemoryImage(cmd string, mem *GpuMemory, memOffset uint64, rowPitch int, im *Image, region ImageRegion, toImage bool) error {
	if err := cb.check(cmd); err != nil {
		return err
	}
	if mem == nil || im == nil || mem.dev != cb.dev || im.dev != cb.dev {
		return cb.failf(ErrInvalidArgument, "%s: nil memory or image, or another device's", cmd)
	}
	l, err := region.check(im)
	if err != nil {
		return cb.fail(fmt.Errorf("%s: %w", cmd, err))
	}
	if rowPitch < 4*region.Width {
		return cb.failf(ErrInvalidArgument, "%s: row pitch %d < %d pixels × 4", cmd, rowPitch, region.Width)
	}
	if region.Height > 0 {
		need := uint64(rowPitch)*uint64(region.Height-1) + uint64(4*region.Width)
		if memOffset > mem.size || need > mem.size-memOffset {
			return cb.failf(ErrInvalidArgument, "%s: %d bytes at %d exceed the %d-byte memory", cmd, need, memOffset, mem.size)
		}
	}
	ib, err := imageBytes(im, l)
	if err != nil {
		return cb.fail(fmt.Errorf("%s: %w", cmd, err))
	}
	imem, ioff := im.get()
	imOff := region.Y*l.RowPitch + 4*region.X
	var op *copyOp
	imCmd := dmaCmd{rowBytes: uint64(4 * region.Width), rows: uint64(region.Height)}
	imAt, imPitch := ioff+l.Offset+uint64(imOff), uint64(l.RowPitch)
	if toImage {
		op = &copyOp{src: mem, dst: imem, run: func() {
			copyRows(ib, imOff, l.RowPitch, mem.bytes, int(memOffset), rowPitch, 4*region.Width, region.Height)
		}}
		imCmd.src, imCmd.srcOff, imCmd.srcPitch = mem, memOffset, uint64(rowPitch)
		imCmd.dst, imCmd.dstOff, imCmd.dstPitch = imem, imAt, imPitch
	} else {
		op = &copyOp{src: imem, dst: mem, run: func() {
			copyRows(mem.bytes, int(memOffset), rowPitch, ib, imOff, l.RowPitch, 4*region.Width, region.Height)
		}}
		imCmd.src, imCmd.srcOff, imCmd.srcPitch = imem, imAt, imPitch
		imCmd.dst, imCmd.dstOff, imCmd.dstPitch = mem, memOffset, uint64(rowPitch)
	}
	if region.Width > 0 && region.Height > 0 {
		op.dma = []dmaCmd{imCmd}
	}
	cb.addCopy(op)
	return nil
}

func (cb *CmdBuffer) addCopy(op *copyOp) {
	cb.job = nil
	j := cb.newJob()
	j.copy = op
	if op.src != nil {
		j.boIndex(op.src, kernel.BORead)
	}
	j.boIndex(op.dst, kernel.BOWrite)
}

// CmdExecuteNestedCmdBuffers runs executable command buffers at this
// point (PAL's nested command buffers). They must stay executable and
// unchanged until this buffer's submission is done, and may not nest
// further. Bound state is unaffected; the next draw starts a new job.
func (cb *CmdBuffer) CmdExecuteNestedCmdBuffers(nested ...*CmdBuffer) error {
	if err := cb.check("CmdExecuteNestedCmdBuffers"); err != nil {
		return err
	}
	for i, n := range nested {
		switch {
		case n == nil || n == cb:
			return cb.failf(ErrInvalidArgument, "CmdExecuteNestedCmdBuffers: buffer %d is nil or the caller", i)
		case n.dev != cb.dev:
			return cb.failf(ErrWrongDevice, "CmdExecuteNestedCmdBuffers: buffer %d", i)
		case n.state != stateExecutable:
			return cb.failf(ErrCmdBufferNotEnded, "CmdExecuteNestedCmdBuffers: buffer %d", i)
		case n.engine != cb.engine:
			return cb.failf(ErrInvalidArgument, "CmdExecuteNestedCmdBuffers: buffer %d was created for the %v engine, this one for the %v engine", i, n.engine, cb.engine)
		}
		for _, j := range n.jobs {
			if j.nested != nil {
				return cb.failf(ErrUnsupported, "CmdExecuteNestedCmdBuffers: buffer %d nests buffers itself", i)
			}
		}
	}
	cb.job = nil
	for _, n := range nested {
		cb.newJob().nested = n
	}
	return nil
}

// CmdDraw records a non-indexed draw of vertexCount vertices from
// firstVertex, instanceCount times (PAL's CmdDraw; firstInstance has no
// effect: GLSL ES 1.00 has no instance ID).
func (cb *CmdBuffer) CmdDraw(firstVertex, vertexCount, firstInstance, instanceCount uint32) error {
	if cb.state != stateRecording {
		return cb.check("CmdDraw")
	}
	if vertexCount == 0 || instanceCount == 0 {
		return nil
	}
	if instanceCount > MaxInstances {
		return cb.failf(ErrUnsupported, "CmdDraw: %d instances, at most %d", instanceCount, MaxInstances)
	}
	last := uint64(firstVertex) + uint64(vertexCount) - 1
	if last > math.MaxUint32 {
		return cb.failf(ErrInvalidArgument, "CmdDraw: vertices %d+%d overflow", firstVertex, vertexCount)
	}
	cb.noVertexOffset()
	// 1. Validate: emit the state records that changed.
	if err := cb.validateDraw(last, false); err != nil {
		return cb.fail(err)
	}
	// 2–3. Reserve space, build the draw packet; 6. commit (the bytes are
	// in the stream once packed).
	rec := cl.VertexArrayPrimitives{Mode: cb.pipeline.ci.Topology, Length: vertexCount, FirstIndex: firstVertex}
	for range instanceCount {
		rec.Pack(cb.reserve(cl.SizeVertexArrayPrimitives))
	}
	cb.job.draws++
	return nil
}

// CmdDrawIndexed records an indexed draw of indexCount indices from
// firstIndex of the bound index data, vertexOffset added to each index
// (PAL's CmdDrawIndexed). Indices past the end of a vertex buffer drop
// their primitives (robust buffer access) rather than read beyond it.
func (cb *CmdBuffer) CmdDrawIndexed(firstIndex, indexCount uint32, vertexOffset int32, firstInstance, instanceCount uint32) error {
	if cb.state != stateRecording {
		return cb.check("CmdDrawIndexed")
	}
	if indexCount == 0 || instanceCount == 0 {
		return nil
	}
	if instanceCount > MaxInstances {
		return cb.failf(ErrUnsupported, "CmdDrawIndexed: %d instances, at most %d", instanceCount, MaxInstances)
	}
	if cb.indexMem == nil {
		return cb.failf(ErrInvalidArgument, "CmdDrawIndexed: no index data bound (CmdBindIndexData)")
	}
	size := indexSize(cb.indexType)
	first := cb.indexOff + uint64(firstIndex)*size
	if end := first + uint64(indexCount)*size; end > cb.indexMem.size {
		return cb.failf(ErrInvalidArgument, "CmdDrawIndexed: indices [%d,%d) beyond the %d-byte index memory", first, end, cb.indexMem.size)
	}
	if vertexOffset != cb.baseVertex {
		cb.baseVertex = vertexOffset
		cb.dirty |= dirtyVertexBuffers
	}
	if err := cb.validateDraw(0, true); err != nil {
		return cb.fail(err)
	}
	maxIndex := cb.maxIndex()
	j := cb.job
	for range instanceCount {
		off := j.bclLen
		cl.IndexedPrimitiveList{Mode: cb.pipeline.ci.Topology, IndexType: cb.indexType, Length: indexCount,
			MaxIndex: maxIndex}.Pack(cb.reserve(cl.SizeIndexedPrimitiveList))
		j.relocBO(kernel.SpaceBinCL, off+cl.AddressFields(cl.OpIndexedPrimitiveList)[0], cb.indexMem, kernel.BORead, first)
	}
	j.draws++
	return nil
}

// vertexRange returns the first byte of attribute slot k's vertex 0
// and how many vertices its buffer holds.
func (cb *CmdBuffer) vertexRange(a *attribSlot) (base uint64, count uint64, err error) {
	vb := &cb.vbs[a.input.Binding]
	if vb.Memory == nil {
		return 0, 0, fmt.Errorf("%w: vertex input %q reads vertex buffer slot %d, which is empty", ErrInvalidArgument, a.input.Name, a.input.Binding)
	}
	b := int64(vb.Offset) + int64(a.input.Offset) + int64(cb.baseVertex)*int64(vb.Stride)
	end := vb.Offset + vb.Size
	if b < 0 || uint64(b)+uint64(a.elemSz) > end {
		return 0, 0, fmt.Errorf("%w: vertex input %q starts at byte %d, outside its buffer view [%d,%d)", ErrInvalidArgument, a.input.Name, b, vb.Offset, end)
	}
	if vb.Stride == 0 {
		return uint64(b), math.MaxUint32, nil
	}
	return uint64(b), (end-uint64(b)-uint64(a.elemSz))/uint64(vb.Stride) + 1, nil
}

// maxIndex is the largest vertex index every bound vertex buffer holds.
func (cb *CmdBuffer) maxIndex() uint32 {
	m := uint64(math.MaxUint32)
	for i := range cb.pipeline.attribs {
		if _, n, err := cb.vertexRange(&cb.pipeline.attribs[i]); err == nil {
			m = min(m, n-1)
		}
	}
	return uint32(m)
}

// validateDraw is PAL's ValidateDraw: it opens the job if needed and
// writes the state records whose state is dirty. last is the highest
// vertex a non-indexed draw reads.
func (cb *CmdBuffer) validateDraw(last uint64, indexed bool) error {
	p := cb.pipeline
	if p == nil {
		return fmt.Errorf("%w: draw without a pipeline (CmdBindPipeline)", ErrInvalidArgument)
	}
	pmem, poff := p.get()
	if pmem == nil {
		return fmt.Errorf("%w: the bound pipeline", ErrNotBound)
	}
	if cb.job != nil && cb.job.full() {
		cb.job = nil // continue in a job that loads the targets
	}
	j, err := cb.openJob()
	if err != nil {
		return fmt.Errorf("%w: draw: %v", ErrInvalidArgument, err)
	}
	if cb.dirty&(dirtyVertexBuffers|dirtyPipeline) != 0 || !indexed {
		for i := range p.attribs {
			_, n, err := cb.vertexRange(&p.attribs[i])
			if err != nil {
				return err
			}
			if !indexed && last >= n {
				return fmt.Errorf("%w: vertex %d lies beyond the end of vertex input %q's buffer (%d vertices)", ErrInvalidArgument, last, p.attribs[i].input.Name, n)
			}
		}
	}
	d := cb.dirty
	if d == 0 {
		return nil
	}
	hasDS := j.depth != nil
	var dss DepthStencilStateCreateInfo
	if cb.ds != nil {
		dss = cb.ds.ci
	}
	if d&(dirtyPipeline|dirtyDepthStencil) != 0 {
		c := p.config
		c.DepthTestEnable = dss.DepthEnable && hasDS
		c.DepthFunc = dss.DepthFunc
		c.ZUpdatesEnable = c.DepthTestEnable && dss.DepthWriteEnable
		c.EarlyZEnable = c.DepthTestEnable && !p.v.FSDiscardsOrWritesZ
		c.StencilEnable = dss.StencilEnable && hasDS
		c.Pack(cb.reserve(cl.SizeConfigurationBits))
		if hasDS && (dss.DepthEnable || dss.StencilEnable) {
			j.usesDS = true
		}
	}
	if d&dirtyPipeline != 0 {
		copy(cb.reserve(len(p.rasterRecs)), p.rasterRecs[:])
	}
	if d&(dirtyViewport|dirtyScissor) != 0 {
		cb.emitViewportScissor(j, d)
	}
	if d&dirtyBlend != 0 {
		if cb.blend != nil {
			copy(cb.reserve(len(cb.blend.packed)), cb.blend.packed[:])
		} else {
			copy(cb.reserve(len(defaultBlend)), defaultBlend[:])
		}
	}
	if d&dirtyBlendConst != 0 {
		c := cb.blendConst
		cl.BlendConstantColor{R: c[0], G: c[1], B: c[2], A: c[3]}.Pack(cb.reserve(cl.SizeBlendConstantColor))
	}
	if d&(dirtyDepthStencil|dirtyStencilRef) != 0 && dss.StencilEnable && hasDS {
		for face, s := range []StencilOpState{dss.Front, dss.Back} {
			cl.StencilConfig{Face: cl.StencilFace(face), Func: s.Func, Ref: cb.stencilRef[face], ValueMask: s.CompareMask,
				WriteMask: s.WriteMask, StencilFail: s.FailOp, DepthFail: s.DepthFailOp, DepthPass: s.PassOp}.Pack(cb.reserve(cl.SizeStencilConfig))
		}
	}
	if d&(dirtyPipeline|dirtyVertexBuffers|dirtyUserData) != 0 {
		if err := cb.emitShaderState(j, p, pmem, poff); err != nil {
			return err
		}
	}
	cb.dirty = 0
	return nil
}

var defaultBlend = func() (b [cl.SizeBlendConfig + cl.SizeColorMask]byte) {
	cl.BlendConfig{SrcRGB: cl.BlendFactorOne, SrcAlpha: cl.BlendFactorOne}.Pack(b[:])
	cl.ColorMask{R: true, G: true, B: true, A: true}.Pack(b[cl.SizeBlendConfig:])
	return b
}()

// emitViewportScissor writes the clip window (target ∩ viewport ∩
// scissor: the hardware clips x and y only at its guard band) and, when
// the viewport changed, its transform.
func (cb *CmdBuffer) emitViewportScissor(j *job, d uint32) {
	v := cb.viewport
	if !cb.hasVP {
		v = Viewport{Width: float32(j.width), Height: float32(j.height), MaxDepth: 1}
	}
	x0, y0, x1, y1 := 0, 0, j.width, j.height
	x0 = max(x0, int(math.Floor(float64(v.OriginX))))
	y0 = max(y0, int(math.Floor(float64(v.OriginY))))
	x1 = min(x1, int(math.Ceil(float64(v.OriginX+v.Width))))
	y1 = min(y1, int(math.Ceil(float64(v.OriginY+v.Height))))
	if cb.hasScissor {
		s := cb.scissor
		x0, y0 = max(x0, s.X), max(y0, s.Y)
		x1, y1 = min(x1, s.X+s.Width), min(y1, s.Y+s.Height)
	}
	cl.ClipWindow{Left: uint16(max(x0, 0)), Bottom: uint16(max(y0, 0)), Width: uint16(max(x1-x0, 0)),
		Height: uint16(max(y1-y0, 0))}.Pack(cb.reserve(cl.SizeClipWindow))
	if d&dirtyViewport != 0 {
		sx, sy := v.Width/2, v.Height/2
		cl.ViewportOffset{X: v.OriginX + sx, Y: v.OriginY + sy}.Pack(cb.reserve(cl.SizeViewportOffset))
		cl.ClipperXYScaling{X: sx, Y: sy}.Pack(cb.reserve(cl.SizeClipperXYScaling))
		cl.ClipperZScaleAndOffset{Scale: (v.MaxDepth - v.MinDepth) / 2, Offset: (v.MaxDepth + v.MinDepth) / 2}.Pack(cb.reserve(cl.SizeClipperZScaleAndOffset))
	}
}

// emitShaderState writes the uniform streams, the shader record with its
// attribute records and a GL_SHADER_STATE record pointing at them.
func (cb *CmdBuffer) emitShaderState(j *job, p *Pipeline, pmem *GpuMemory, poff uint64) error {
	if p.usesStorageCopy && (j.storageCopy < 0 || cb.dirty&dirtyUserData != 0) {
		j.storageCopy = len(j.unifs)
		for i := range max(p.prog.StorageSize, 1) {
			j.unifs = binary.LittleEndian.AppendUint32(j.unifs, cb.userWord(i))
		}
	}
	// Texture descriptors go to the uniforms buffer (16-byte aligned)
	// ahead of the streams that point at them.
	var descs [MaxTextureUnits]int32
	if p.usesTextures {
		descs = [MaxTextureUnits]int32{}
		for _, b := range []*compiler.Binary{p.v.VS, p.v.CS, p.v.FS} {
			for _, u := range b.Uniforms {
				if u.Kind != compiler.UniformTexture {
					continue
				}
				unit := cb.userWord(int(u.Index))
				if unit >= MaxTextureUnits || cb.views[unit] == nil {
					return fmt.Errorf("%w: a sampler reads texture unit %d, which has no image view (CmdBindImageViews)", ErrInvalidArgument, unit)
				}
				if descs[unit] != 0 {
					continue
				}
				v := cb.views[unit]
				mem, off := v.image.get()
				for len(j.unifs)%16 != 0 {
					j.unifs = append(j.unifs, 0)
				}
				d := len(j.unifs)
				j.unifs = append(j.unifs, make([]byte, cl.SizeTextureDescriptor)...)
				v.desc.Pack(j.unifs[d:])
				j.relocBO(kernel.SpaceUniforms, d+cl.TextureDescriptorLayout.AddressOffsets[0], mem, kernel.BORead, off)
				descs[unit] = int32(d) + 1 // 0: not written yet
			}
		}
	}
	scratchBase := poff + uint64(p.scratchOff)
	vsU := cb.writeUniforms(j, p.v.VS, pmem, scratchBase+uint64(p.vsScratch), &descs)
	csU := cb.writeUniforms(j, p.v.CS, pmem, scratchBase+uint64(p.csScratch), &descs)
	fsU := cb.writeUniforms(j, p.v.FS, pmem, scratchBase+uint64(p.fsScratch), &descs)

	for len(j.shaderRecs)%16 != 0 {
		j.shaderRecs = append(j.shaderRecs, 0)
	}
	rec := len(j.shaderRecs)
	j.shaderRecs = append(j.shaderRecs, p.record[:]...)
	ao := cl.ShaderRecordLayout.AddressOffsets // FS code, FS unif, VS code, VS unif, CS code, CS unif, scratch
	code := [3]uint32{p.fsOff, p.vsOff, p.csOff}
	unif := [3]int{fsU, vsU, csU}
	for s := 0; s < 3; s++ {
		j.relocBO(kernel.SpaceShaderRecords, rec+ao[2*s], pmem, kernel.BORead, poff+uint64(code[s]))
		j.relocs = append(j.relocs, kernel.Reloc{Space: kernel.SpaceShaderRecords, Offset: uint32(rec + ao[2*s+1]),
			Target: kernel.TargetUniforms, Delta: uint32(unif[s])})
	}
	if binary.LittleEndian.Uint32(p.record[cl.SizeShaderRecord-4:]) != 0 { // ScratchBytesPerThread
		j.relocBO(kernel.SpaceShaderRecords, rec+ao[6], pmem, kernel.BORead|kernel.BOWrite, scratchBase)
	}
	for k := range p.attribs {
		a := &p.attribs[k]
		base, _, err := cb.vertexRange(a)
		if err != nil {
			return err
		}
		vb := &cb.vbs[a.input.Binding]
		off := len(j.shaderRecs)
		j.shaderRecs = append(j.shaderRecs, make([]byte, cl.SizeAttributeRecord)...)
		cl.AttributeRecord{MaxOffset: uint32(vb.Offset + vb.Size - base), Stride: uint16(vb.Stride), Type: a.input.Type,
			Normalized: a.input.Normalized, Components: uint8(a.input.Components), VPMOffset: uint8(4 * k)}.Pack(j.shaderRecs[off:])
		j.relocBO(kernel.SpaceShaderRecords, off+cl.AttributeRecordLayout.AddressOffsets[0], vb.Memory, kernel.BORead, base)
	}
	at := j.bclLen
	cl.GLShaderState{AttributeCount: uint8(len(p.attribs))}.Pack(cb.reserve(cl.SizeGLShaderState))
	j.relocs = append(j.relocs, kernel.Reloc{Space: kernel.SpaceBinCL, Offset: uint32(at + cl.AddressFields(cl.OpGLShaderState)[0]),
		Target: kernel.TargetShaderRecords, Delta: uint32(rec)})
	return nil
}

func (cb *CmdBuffer) userWord(i int) uint32 {
	if i < len(cb.userData) {
		return cb.userData[i]
	}
	return 0
}

// writeUniforms appends one stage's uniform stream and returns its offset.
// descs[unit]-1 is the offset of the unit's texture descriptor.
func (cb *CmdBuffer) writeUniforms(j *job, b *compiler.Binary, pmem *GpuMemory, scratch uint64, descs *[MaxTextureUnits]int32) int {
	start := len(j.unifs)
	for _, u := range b.Uniforms {
		at := len(j.unifs)
		var v uint32
		switch u.Kind {
		case compiler.UniformStorage:
			v = cb.userWord(int(u.Index))
		case compiler.UniformConstant:
			v = u.Value
		case compiler.UniformTexture:
			d := descs[cb.userWord(int(u.Index))] - 1
			j.relocs = append(j.relocs, kernel.Reloc{Space: kernel.SpaceUniforms, Offset: uint32(at), Target: kernel.TargetUniforms, Delta: uint32(d)})
		case compiler.UniformStorageAddress:
			j.relocs = append(j.relocs, kernel.Reloc{Space: kernel.SpaceUniforms, Offset: uint32(at), Target: kernel.TargetUniforms, Delta: uint32(j.storageCopy)})
		case compiler.UniformScratchAddress:
			j.relocBO(kernel.SpaceUniforms, at, pmem, kernel.BORead|kernel.BOWrite, scratch)
		case compiler.UniformStreamAddress:
			j.relocs = append(j.relocs, kernel.Reloc{Space: kernel.SpaceUniforms, Offset: uint32(at), Target: kernel.TargetUniforms, Delta: uint32(start)})
		}
		j.unifs = binary.LittleEndian.AppendUint32(j.unifs, v)
	}
	return start
}

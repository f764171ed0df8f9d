package tg

import (
	"fmt"
	"math"
	"sort"

	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/pipe"
)

// tileSize is the hardware's tile edge in pixels (docs/hardware.md §4.2).
const tileSize = 64

// tileSizeMSAA is the tile edge with four samples per pixel.
const tileSizeMSAA = 32

// fbKey is the job key of the bound framebuffer.
func (c *Context) fbKey() jobKey {
	k := jobKey{color: surfKey(c.fb.Color), zs: surfKey(c.fb.ZS), width: c.fb.Width, height: c.fb.Height}
	if c.fb.Samples == 4 {
		k.samples = 4
	}
	return k
}

// uploadChunk is the size of a job's streaming-upload BO (generic attribute
// values); 64 KiB holds 4096 vec4s, far more than a frame of
// glVertexAttrib4f calls needs.
const uploadChunk = 64 << 10

type surfaceKey struct {
	res         *Resource
	face, level int
}

// jobKey identifies a job by its framebuffer.
type jobKey struct {
	color, zs     surfaceKey
	width, height int
	samples       int // 0 or 4 (pipe.FramebufferState.Samples)
}

// job is everything one SUBMIT_CL needs (vc4_job): the three buffers, the
// BOs they reference, relocations and the render-target description.
type job struct {
	key jobKey
	seq int // creation order, so flushes keep submission order

	bcl      []byte
	shaderRe []byte // shader records, attribute records, texture descriptors
	unifs    []byte
	relocs   []Reloc
	bos      []BORef
	boIndex  map[*BO]uint32
	boRefs   []*BO // references held until submission

	draws        int
	usesZS       bool // a draw tested or wrote depth/stencil, or a clear wrote them
	clearMask    pipe.ClearMask
	clearColor   uint32
	clearDepth   uint32
	clearStencil uint8

	upload    *BO
	uploadOff uint32

	// scratch is the spill memory of the job's shaders, shared by all its
	// draws: within a job a hardware thread runs one shader at a time, and
	// different threads own disjoint parts (docs/hardware.md §7.4).
	scratch *BO

	colorBO, zsBO *BO // the surfaces' BOs when the job started

	// counter is the occlusion query word the job's draws count into now
	// (nil: the counter is off), query.go.
	counter *BO

	// storageCopy is the offset in unifs of the last copy of the uniform
	// storage block, valid while the storage is unchanged.
	storageCopy    uint32
	hasStorageCopy bool

	endOfFrame bool // the last job FlushFrame submits
}

func surfKey(s pipe.Surface) surfaceKey {
	r, _ := s.Resource.(*Resource)
	if r == nil {
		return surfaceKey{}
	}
	return surfaceKey{res: r, face: s.Face, level: s.Level}
}

// currentJob returns the job of the bound framebuffer, creating it.
func (c *Context) currentJob() (*job, error) {
	if c.cur != nil {
		return c.cur, nil
	}
	key := c.fbKey()
	if key.color.res == nil && key.zs.res == nil {
		return nil, fmt.Errorf("tg: no framebuffer bound")
	}
	if key.width < 1 || key.height < 1 || key.width > maxFBSize || key.height > maxFBSize {
		return nil, fmt.Errorf("tg: framebuffer size %dx%d out of range", key.width, key.height)
	}
	if c.fb.Samples != 0 && c.fb.Samples != 1 && c.fb.Samples != 4 {
		return nil, fmt.Errorf("tg: %d samples per pixel (the hardware has 1 or 4)", c.fb.Samples)
	}
	if r := key.zs.res; r != nil && r.samples() == 4 && key.samples != 4 {
		return nil, fmt.Errorf("tg: a 4-sample depth/stencil buffer in a framebuffer of %d samples", c.fb.Samples)
	}
	if j := c.jobs[key]; j != nil {
		c.cur = j
		c.dirty = dirtyAll
		return j, nil
	}
	for _, s := range []surfaceKey{key.color, key.zs} {
		if s.res != nil && s.res.bo == nil {
			return nil, fmt.Errorf("tg: a framebuffer surface was destroyed")
		}
	}
	// A surface can be written by only one job: flush any other job that
	// writes one of ours (for example the same colour buffer with another
	// depth buffer), so the order of writes is kept. Jobs queued earlier
	// that read one of our surfaces (sample it as a texture) are flushed
	// too, before this job can be: otherwise this job, submitted first when
	// something reads its target, would overwrite what they were meant to
	// see (v3d flushes readers before a writer the same way).
	for _, s := range []surfaceKey{key.color, key.zs} {
		if s.res == nil {
			continue
		}
		if w := c.writeJobs[s.res]; w != nil {
			if err := c.flushJob(w); err != nil {
				return nil, err
			}
		}
		if err := c.flushReaders(s.res); err != nil {
			return nil, err
		}
	}
	c.jobSeq++
	j := &job{key: key, seq: c.jobSeq, boIndex: map[*BO]uint32{}}
	// The job holds its surfaces' BOs from the start, so destroying a
	// resource that is being rendered to cannot free memory the job will write.
	if key.color.res != nil {
		key.color.res.renderTarget = true
		j.colorBO = key.color.res.bo
		j.boRef(j.colorBO, BORead|BOWrite)
	}
	if key.zs.res != nil {
		key.zs.res.renderTarget = true
		j.zsBO = key.zs.res.bo
		j.boRef(j.zsBO, BORead|BOWrite)
	}
	ts := tileSize
	if key.samples == 4 {
		ts = tileSizeMSAA
	}
	wt := uint16((key.width + ts - 1) / ts)
	ht := uint16((key.height + ts - 1) / ts)
	// The kernel owns tile-allocation memory and fills the address and size.
	emit(j, cl.TileBinningModeConfiguration{WidthInTiles: wt, HeightInTiles: ht, Multisample4x: key.samples == 4})
	emit(j, cl.StartTileBinning{})
	// State the driver never changes: once per job.
	emit(j, cl.FlatShadeFlags{})
	emit(j, cl.PointSize{PointSize: 1})
	c.jobs[key] = j
	for _, s := range []surfaceKey{key.color, key.zs} {
		if s.res != nil {
			c.writeJobs[s.res] = j
		}
	}
	c.cur = j
	c.dirty = dirtyAll
	return j, nil
}

// jobList returns the queued jobs in creation order.
func (c *Context) jobList() []*job {
	out := make([]*job, 0, len(c.jobs))
	for _, j := range c.jobs {
		out = append(out, j)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].seq < out[b].seq })
	return out
}

// emit appends the control-list record r to the binning list. It is generic so that the record is
// passed by value: through the cl.Record interface every record (two or
// more per draw) was a heap allocation.
func emit[R cl.Record](j *job, r R) {
	n := len(j.bcl)
	j.bcl = append(j.bcl, make([]byte, r.Size())...)
	r.Pack(j.bcl[n:])
}

// boRef returns the submission index of bo, adding it with flags.
func (j *job) boRef(bo *BO, flags uint32) uint32 {
	if i, ok := j.boIndex[bo]; ok {
		j.bos[i].Flags |= flags
		return i
	}
	i := uint32(len(j.bos))
	j.bos = append(j.bos, BORef{Handle: bo.Handle, Flags: flags})
	j.boIndex[bo] = i
	j.boRefs = append(j.boRefs, bo.Retain())
	return i
}

// references reports whether the job uses bo.
func (j *job) references(bo *BO) bool {
	_, ok := j.boIndex[bo]
	return ok
}

// relocBO records that the u32 at off in space holds the address of bo+delta.
func (j *job) relocBO(space RelocSpace, off uint32, bo *BO, flags, delta uint32) {
	j.relocs = append(j.relocs, Reloc{Space: space, Offset: off, Target: TargetBO, BOIndex: j.boRef(bo, flags), Delta: delta})
}

// alignShaderRecs pads the shader-record buffer to a 16-byte boundary.
func (j *job) alignShaderRecs() uint32 {
	for len(j.shaderRe)%16 != 0 {
		j.shaderRe = append(j.shaderRe, 0)
	}
	return uint32(len(j.shaderRe))
}

// uploadData copies data into the job's streaming BO and returns the BO and offset.
func (j *job) uploadData(bos *boCache, data []byte) (*BO, uint32, error) {
	n := (uint32(len(data)) + 15) &^ 15
	if j.upload == nil || j.uploadOff+n > j.upload.Size {
		bo, err := bos.alloc(max(uploadChunk, n), "upload")
		if err != nil {
			return nil, 0, err
		}
		j.boRef(bo, BORead)
		bo.Release() // the job's reference keeps it
		j.upload, j.uploadOff = bo, 0
	}
	off := j.uploadOff
	copy(j.upload.Map[off:], data)
	j.uploadOff += n
	return j.upload, off, nil
}

// scratchBO returns a spill BO of at least size bytes referenced (written)
// by the job, reusing the job's current one when it is large enough.
func (j *job) scratchBO(bos *boCache, size uint32) (*BO, error) {
	if j.scratch != nil && j.scratch.Size >= size {
		return j.scratch, nil
	}
	bo, err := bos.alloc(size, "scratch")
	if err != nil {
		return nil, err
	}
	j.boRef(bo, BORead|BOWrite)
	bo.Release() // the job's reference keeps it
	j.scratch = bo
	return bo, nil
}

// Job size limits: the kernel accepts 16 MiB per submission buffer, 2^20
// relocations and 4096 BOs (kernel/validate.go). A job is flushed when it
// comes within one large draw of them; one draw adds at most a few KiB of
// records plus its uniform streams.
const (
	jobBufferLimit = 12 << 20
	jobRelocLimit  = 900_000
	jobBOLimit     = 4000
)

// full reports whether the job should be submitted before the next draw.
func (j *job) full() bool {
	return len(j.bcl) > jobBufferLimit || len(j.shaderRe) > jobBufferLimit || len(j.unifs) > jobBufferLimit ||
		len(j.relocs) > jobRelocLimit || len(j.bos) > jobBOLimit
}

// hasWork reports whether submitting the job would change memory.
func (j *job) hasWork() bool { return j.draws > 0 || j.clearMask != 0 }

// flushJob submits a job (or drops it when it has nothing to do) and
// forgets it.
func (c *Context) flushJob(j *job) error {
	if c.jobs[j.key] == j {
		delete(c.jobs, j.key)
	}
	for _, s := range []surfaceKey{j.key.color, j.key.zs} {
		if s.res != nil && c.writeJobs[s.res] == j {
			delete(c.writeJobs, s.res)
		}
	}
	if c.cur == j {
		c.cur = nil
		c.dirty = dirtyAll
	}
	defer func() {
		for _, b := range j.boRefs {
			b.Release()
		}
		j.boRefs = nil
	}()
	if !j.hasWork() {
		c.stats.JobsDropped++
		return nil
	}
	emit(j, cl.Flush{})

	sub := &Submit{
		BinCL:         j.bcl,
		ShaderRecords: j.shaderRe,
		Uniforms:      j.unifs,
		Width:         uint32(j.key.width),
		Height:        uint32(j.key.height),
		ClearColor:    j.clearColor,
		ClearDepth:    j.clearDepth,
		ClearStencil:  j.clearStencil,
		EndOfFrame:    j.endOfFrame,
	}
	if s := j.key.color; s.res != nil {
		cleared := j.clearMask&pipe.ClearColor != 0
		sub.Color = RenderTarget{
			BOIndex: j.boIndex[j.colorBO], Offset: s.res.imageOffset(s.face, s.level),
			Stride: s.res.levelStride(s.level), Enabled: true, Load: !cleared, Store: true, Clear: cleared,
		}
		var ok bool
		if sub.Color.Format, ok = colorFormat(s.res.tmpl.Format); !ok {
			return fmt.Errorf("tg: a resource of format %d is not a colour render target", s.res.tmpl.Format)
		}
	}
	// A depth/stencil surface nothing in the job touched is neither loaded
	// nor stored: its memory stays as it is, and the tiles skip two copies.
	if s := j.key.zs; s.res != nil && j.usesZS {
		cleared := j.clearMask&(pipe.ClearDepth|pipe.ClearStencil) != 0
		sub.ZS = RenderTarget{
			BOIndex: j.boIndex[j.zsBO], Offset: s.res.imageOffset(s.face, s.level),
			Stride: s.res.levelStride(s.level), Enabled: true, Load: !cleared, Store: true, Clear: cleared,
			AllSamples: s.res.samples() == 4,
		}
	}
	sub.BOs = j.bos
	sub.Relocs = j.relocs
	fence, err := c.screen.ws.Submit(sub)
	if err != nil {
		return fmt.Errorf("tg: submitting job: %w", err)
	}
	c.lastFence = fence
	c.noteFence(fence)
	c.stats.JobsSubmitted++
	return nil
}

// flushWriter submits the job writing r, if any (a read of r must see it).
func (c *Context) flushWriter(r *Resource) error {
	if w := c.writeJobs[r]; w != nil {
		return c.flushJob(w)
	}
	return nil
}

// flushReaders submits every queued job that references r's BO: before a
// new job writes r, the jobs that read it must be ahead of it in the
// kernel's queue.
func (c *Context) flushReaders(r *Resource) error {
	for _, j := range c.jobList() {
		if j.references(r.bo) {
			if err := c.flushJob(j); err != nil {
				return err
			}
		}
	}
	return nil
}

// flushUsers submits every queued job that references r's BO (a CPU write
// must not be seen by draws queued before it).
func (c *Context) flushUsers(r *Resource) error {
	for _, j := range c.jobList() {
		if j.references(r.bo) || j.key.color.res == r || j.key.zs.res == r {
			if err := c.flushJob(j); err != nil {
				return err
			}
		}
	}
	return nil
}

// packColor converts a float colour to RGBA8 with GL's round(c·255).
func packColor(col [4]float32) uint32 {
	var v uint32
	for i, x := range col {
		x = min(max(x, 0), 1)
		v |= uint32(math.Round(float64(x)*255)) << (8 * i)
	}
	return v
}

package kernel

import (
	"time"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// Options configures a Device. The zero value gives the documented defaults;
// options are read-only after NewDevice.
type Options struct {
	// JobTimeout is how long the GPU may go without progress — no
	// 16-lane shader batch, vertex or tile finished and no ring packet
	// consumed — before the watchdog resets the engines and blames the job
	// an engine is executing. A job that keeps progressing is cut after
	// hardCapFactor (12) × JobTimeout, but only while another context's
	// work waits behind it. Default DefaultJobTimeout.
	JobTimeout time.Duration

	// MemoryQuota is how many bytes of GPU memory one File may hold: its
	// BOs plus the exec buffers and tile memory of its unfinished jobs
	// (CreateBO stops 1/8 of it, at most 16 MiB, short, so that a File
	// with full buffers can still submit). 0 means half of the memory
	// that buffers may use; buffers of all Files together always leave
	// 1/16 of the memory (4 MiB to 1/4) for job memory. See quota.go.
	MemoryQuota int64
	// FaultPolicy decides which work a fault, CL error or hang costs and
	// whether the watchdog replays abandoned work (see FaultPolicy).
	// Default FaultReplayInnocent.
	FaultPolicy FaultPolicy

	// Capture, when set, is called for every job as the kernel writes it to
	// the rings — the packets, the validated and relocated lists and the
	// render list it generated — for command-stream decoders (the role of
	// msm's rd dumps and vc4's hang state). It is called with the device
	// lock held: it must not call back into the kernel, and the Capture is
	// valid only during the call.
	Capture func(*Capture)

	// OnRetire, when set, is called with every job's JobInfo (times and
	// counters) as its fence signals — for tracers (tilegpu's -trace).
	// Like Capture it runs with the device lock held and must not call
	// back into the kernel; the JobInfo is valid only during the call.
	OnRetire func(*JobInfo)

	// TileTrace turns on the render engine's tile trace (hardware.md §8):
	// JobInfo.Tiles then lists each tile the job rendered, on which core,
	// when and at what cost. It costs 1 MiB of GPU memory and a record
	// write per tile.
	TileTrace bool

	// DumpDir, when set, is the directory where the kernel writes a crash
	// dump (dump.go; `tilegpu crashdec` decodes it) when a job page-faults,
	// hits a CL error (malformed list or aborted shader) or hangs. At
	// most 64 dumps per Device.
	DumpDir string
	// OnDump, when set, is called with each dump's path (device lock
	// held, like Capture).
	OnDump func(path string)

	// DebugOverdraw sets the render engine's overdraw view (hardware.md
	// §8): colour buffers receive per-pixel counts of shaded fragments.
	DebugOverdraw bool

	// starveLimit overrides how long a normal-priority job may head its
	// ring without retiring before the dispatcher stops adding
	// high-priority work (default defaultStarveLimit).
	starveLimit time.Duration

	// ringBytes overrides the size of each ring (tests use small rings to
	// wrap them quickly); a power of two ≥ 4096.
	ringBytes uint32

	// hardCap overrides hardCapFactor·JobTimeout, the longest a job that
	// keeps progressing may run while others wait (tests use a short cap
	// with a long JobTimeout, so a starved host cannot fake a hang).
	hardCap time.Duration

	// pollPeriod overrides how often the dispatcher looks at the rings
	// without an interrupt (tests use it to prove retirement follows the
	// EVENT interrupt).
	pollPeriod time.Duration
}

// DefaultJobTimeout is Options.JobTimeout's default. The GPU is
// interpreted on the host's CPUs, which it shares with everything else: on
// a small, loaded machine one shader batch of a legitimate heavy shader
// can take seconds, and progress is only seen when a batch finishes.
const DefaultJobTimeout = 10 * time.Second

// Param names a value GetParam reports.
type Param uint32

const (
	ParamNumCores      Param = iota + 1 // render worker cores (NUM_CORES)
	ParamNumQPUs                        // shader thread slots (NUM_QPUS); scratch is sized by it
	ParamTileSize                       // tile width/height in pixels without MSAA (64)
	ParamMemorySize                     // bytes of GPU physical memory
	ParamMaxRenderSize                  // largest Width/Height SubmitCL accepts
	ParamMaxAttributes                  // largest GL_SHADER_STATE AttributeCount
	ParamTimestamp                      // the GPU's free-running nanosecond counter now

	// The GPU's performance counters (all contexts, since the GPU was
	// created), as 64-bit values.
	ParamPerfQPUInstructions // QPU instructions executed (per 16-lane instruction)
	ParamPerfTriangles       // triangles after culling
	ParamPerfTiles           // tiles rendered
	ParamPerfFragments       // fragments shaded
	ParamPerfVertices        // vertices shaded

	ParamNumPriorities // context priority levels SetPriority accepts (2)

	ParamMemoryQuota // bytes of GPU memory this File may hold (Options.MemoryQuota)
	ParamMemoryHeld  // bytes of GPU memory charged to this File now
	ParamResetStatus // the File's context: ResetNone, ResetGuilty or ResetInnocent

	// Shader translation counters (all contexts, since the GPU was
	// created), as 64-bit values: instructions executed by translated
	// code, programs translated, translation cache hits and misses.
	ParamPerfXlatInstructions
	ParamPerfXlatPrograms
	ParamPerfXlatHits
	ParamPerfXlatMisses

	// Fixed-function counters of the GPU (all contexts), as 64-bit values.
	ParamPerfHSRPrimitives  // primitives dropped by hidden-surface removal (PERF_HSR_PRIMITIVES)
	ParamPerfRasterBlocks   // 4×4 pixel blocks rasterised without per-pixel edge tests (PERF_RASTER_BLOCKS)
	ParamPerfEarlyZRejected // fragments rejected by the depth test before shading (PERF_EARLYZ_REJECTED)

	// Native shader code counters (all contexts, 64-bit): instructions
	// whose ALU ops ran as native code, and runs of kernel uops
	// compiled to native code.
	ParamPerfNativeInstructions
	ParamPerfNativeRuns

	ParamPerfBinParallelVertices // vertices coordinate-shaded on the binner's helper threads (PERF_BIN_PARALLEL_VERTICES)
)

// GetParamArgs is the argument of File.GetParam.
type GetParamArgs struct {
	Param Param
	Value uint64 // out
}

// Priority is a context's scheduling priority. Each engine has one ring per
// priority; the command processors take the highest-priority ring with
// work at every packet boundary (so between indirect buffers: a running
// bin or render list is never preempted).
type Priority uint32

const (
	PriorityNormal Priority = 0 // the default
	PriorityHigh   Priority = 1 // ahead of all normal-priority work
)

// SetPriorityArgs is the argument of File.SetPriority.
type SetPriorityArgs struct {
	Priority Priority
}

// BO creation flags. None are defined yet; CreateBO rejects unknown bits.
const boCreateFlagsKnown = 0

// CreateBOArgs is the argument of File.CreateBO.
type CreateBOArgs struct {
	Size   uint32 // bytes; rounded up to whole 4 KiB pages
	Flags  uint32 // must be 0
	Handle uint32 // out: small integer, unique within the File
}

// MmapBOArgs is the argument of File.MmapBO.
type MmapBOArgs struct {
	Handle  uint32
	Mapping []byte // out: the BO's memory, a zero-copy slice of GPU memory (len = rounded size)
}

// CloseBOArgs is the argument of File.CloseBO.
type CloseBOArgs struct{ Handle uint32 }

// BORef flags: how a job uses a BO (implicit synchronisation).
const (
	BORead  uint32 = 1 << 0
	BOWrite uint32 = 1 << 1
)

// BORef names a BO a job uses. Relocations and render targets refer to BOs
// by their index in SubmitCLArgs.BOs.
type BORef struct {
	Handle uint32
	Flags  uint32 // BORead | BOWrite
}

// RelocSpace says which buffer of a submission holds the u32 to patch.
type RelocSpace uint8

const (
	SpaceBinCL RelocSpace = iota
	SpaceShaderRecords
	SpaceUniforms
)

// RelocTarget says what a relocation points at.
type RelocTarget uint8

const (
	TargetBO            RelocTarget = iota // BOs[BOIndex] + Delta
	TargetShaderRecords                    // the job's ShaderRecords + Delta
	TargetUniforms                         // the job's Uniforms + Delta
)

// Reloc makes the kernel write the GPU VA of Target+Delta into the u32 at
// Offset of Space. Every address field of every record in BinCL and
// ShaderRecords must be covered by exactly one Reloc; relocations in
// Uniforms may sit at any 4-aligned offset (texture descriptor pointers,
// the storage block address, and the Address field of texture descriptors
// the driver places in Uniforms).
type Reloc struct {
	Space   RelocSpace
	Offset  uint32
	Target  RelocTarget
	BOIndex uint32
	Delta   uint32
}

// RenderTarget describes one surface of the render list the kernel
// generates (docs/hardware.md §4.3, §4.4). Stride is bytes per row;
// depth/stencil pixels are 4 bytes (depth24+stencil8), colour pixels are
// Format's (hardware.md §4.4.1: 4 bytes for RGBA8888 and RGBX8888, 2 for
// RGB565, RGBA4444 and RGBA5551).
type RenderTarget struct {
	BOIndex uint32
	Offset  uint32
	Stride  uint32
	Enabled bool
	Load    bool // load the tile buffer from memory before rendering
	Store   bool // store the tile buffer to memory after rendering
	Clear   bool // start from the clear values (mutually exclusive with Load)
	// Format is the colour target's ColorFormat (0 RGBA8888); it must be
	// 0 for the depth/stencil target.
	Format cl.ColorFormat
	// AllSamples (multisampled jobs only): the surface keeps the four
	// samples of each pixel, 16 bytes per pixel (docs/hardware.md §5.2),
	// instead of the resolved colour or sample 0 of depth/stencil.
	AllSamples bool
}

// SubmitCLArgs is the argument of File.SubmitCL.
type SubmitCLArgs struct {
	BinCL         []byte // copied into a kernel exec BO, then validated
	ShaderRecords []byte // shader records (16-aligned) + attribute records
	Uniforms      []byte // all uniform streams of the job
	BOs           []BORef
	Relocs        []Reloc
	Color, ZS     RenderTarget
	Width, Height uint32
	ClearColor    uint32 // RGBA8, R in the low byte
	ClearDepth    uint32 // 24-bit
	ClearStencil  uint8
	InFences      []uint64
	Flags         uint32 // SubmitEndOfFrame, SubmitExactCounts
	// PerfMon, when nonzero, is a perf monitor of this File
	// (PerfMonCreate) that adds the job's counters when it retires.
	PerfMon uint32
	// Tag is the caller's cookie for the job, returned in its JobInfo
	// (QueryJob, Options.OnRetire) as DRM events carry user_data: a
	// client that must know what a retired job was (pal's queries) can
	// name it before SubmitCL returns the fence, so no retirement can
	// overtake the naming. The kernel does not interpret it.
	Tag uint64
	// Waits hold the job back until words of its BOs reach values
	// (WAIT_MEM before its bin list); Writes are values and timestamps the
	// command processors write into its BOs at the top or bottom of its
	// pipe (SIGNAL / EVENT_WRITE). At most 16 each; memops.go,
	// hardware.md §3.
	Waits    []MemWait
	Writes   []MemWrite
	OutFence uint64 // out
}

// WaitArgs is the argument of File.Wait. Timeout 0 polls; a negative
// Timeout waits forever.
type WaitArgs struct {
	Fence   uint64
	Timeout time.Duration
}

// WaitBOArgs is the argument of File.WaitBO: wait until no queued or
// running job uses the BO.
type WaitBOArgs struct {
	Handle  uint32
	Timeout time.Duration
}

// Capture is one job as the GPU will see it (Options.Capture).
type Capture struct {
	Context  uint32           // the context id given to SET_CONTEXT
	Fence    uint64           // the job's fence
	Priority Priority         // the rings the job went to
	Rings    map[int][]uint32 // engine → the packets written for this job
	// The lists in the job's exec buffer, after validation and relocation,
	// with their GPU virtual addresses.
	BinCL                []byte
	BinCLAddress         uint32
	RenderCL             []byte
	RenderCLAddress      uint32
	ShaderRecords        []byte
	ShaderRecordsAddress uint32
	Uniforms             []byte
	UniformsAddress      uint32
	// A compute or DMA job's list of COMPUTE_DISPATCH or DMA_COMMAND
	// descriptors and its engine ("COMPUTE", "DMA"); BinCL, RenderCL and
	// ShaderRecords are then empty.
	List        []byte
	ListAddress uint32
	ListEngine  string
	// Read reads n bytes at va in the job's GPU address space (shader code,
	// texture descriptors); an unmapped page is an error.
	Read func(va uint32, n int) ([]byte, error)
}

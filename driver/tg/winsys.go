// Package tg is the user-mode driver for the TG GPU: it implements the pipe
// interface (Screen, Context) the way Mesa's vc4 Gallium driver implements
// pipe_screen and pipe_context.
//
// It carries the "User-mode driver" part of the architecture:
//   - a BO cache (size buckets plus a time list; reuse by size, free after
//     about a second unused, purge and retry when the kernel is out of memory);
//   - resources backed by BOs, CSOs, and dirty bits so that a draw emits only
//     the records whose state changed since the last draw of the same job;
//   - jobs keyed by framebuffer (colour + depth/stencil surface) with a
//     resource → writer-job map, so reading a resource first flushes the job
//     that writes it (vc4's write_jobs); a job with nothing to do is dropped;
//   - draw_vbo: binning control-list records, shader and attribute records,
//     uniform streams written from the compiler's uniform descriptions
//     (storage words, constants, texture-descriptor, storage-copy, scratch
//     and stream addresses), per-job scratch (spill) memory, texture
//     descriptors, relocations for every address;
//   - flush: one SUBMIT_CL per job with an out-fence.
//
// The driver talks to the kernel through Winsys and to the shader compiler
// through ShaderCompiler (the "winsys" split of Mesa drivers), so it can be
// tested against fakes; package driver/tg/platform adapts both to the real
// kernel and compiler packages. The only compiler package it imports is
// compiler/glsl, for the gl_Max* shader limits it reports as screen params.
//
// Concurrency: a Screen is safe for concurrent use; a Context is used by one
// goroutine at a time.
package tg

import (
	"errors"
	"time"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// ErrNoMemory is returned by Winsys.CreateBO when the kernel is out of memory;
// the BO cache then purges itself and retries once.
var ErrNoMemory = errors.New("tg: out of GPU memory")

// ErrTimeout is wrapped by Winsys.Wait's error when the fence has not
// signalled within the timeout (as opposed to a fence that failed).
var ErrTimeout = errors.New("tg: timed out")

// Winsys is the kernel interface the driver needs (ioctl-shaped, handles not
// pointers). Implementations must be safe for concurrent use.
type Winsys interface {
	// CreateBO allocates a buffer object of at least size bytes and maps it.
	CreateBO(size uint32) (handle uint32, mapping []byte, err error)
	CloseBO(handle uint32) error
	// Submit hands one job to the kernel and returns its fence.
	Submit(s *Submit) (fence uint64, err error)
	Wait(fence uint64, timeout time.Duration) error
	WaitBO(handle uint32, timeout time.Duration) error
	// GetParam reads a kernel parameter (see the Param* constants).
	GetParam(p KernelParam) (uint64, error)
}

// KernelParam names a value read with Winsys.GetParam.
type KernelParam int

const (
	KernelParamNumCores KernelParam = iota
	KernelParamNumQPUs
	KernelParamQPUInstructions
	KernelParamTriangles
	KernelParamFragments
	KernelParamVertices
	KernelParamTiles
	// KernelParamResetStatus: 0 the context is usable, 1 lost through its
	// own fault or hang, 2 lost through another context's reset.
	KernelParamResetStatus
)

// RelocSpace names one of the three buffers of a submission.
type RelocSpace uint8

const (
	SpaceBinCL RelocSpace = iota
	SpaceShaderRecords
	SpaceUniforms
)

// RelocTarget says what a relocation's address points into.
type RelocTarget uint8

const (
	TargetBO RelocTarget = iota
	TargetShaderRecords
	TargetUniforms
)

// Reloc asks the kernel to write an address into one of the submission's buffers.
type Reloc struct {
	Space   RelocSpace // buffer holding the u32 to patch
	Offset  uint32     // byte offset of that u32
	Target  RelocTarget
	BOIndex uint32 // index into Submit.BOs for TargetBO
	Delta   uint32 // byte offset within the target
}

// BO usage flags of a submission.
const (
	BORead  uint32 = 1 << 0
	BOWrite uint32 = 1 << 1
)

// BORef lists a BO used by a submission.
type BORef struct {
	Handle uint32
	Flags  uint32 // BORead | BOWrite
}

// RenderTarget describes one surface of a job for the kernel's render list.
type RenderTarget struct {
	BOIndex, Offset, Stride     uint32
	Enabled, Load, Store, Clear bool
	Format                      cl.ColorFormat // colour target: hardware.md §4.4.1
	AllSamples                  bool           // four samples per pixel (kernel.RenderTarget.AllSamples)
}

// Submit is everything one SUBMIT_CL needs.
type Submit struct {
	BinCL         []byte
	ShaderRecords []byte
	Uniforms      []byte
	BOs           []BORef
	Relocs        []Reloc
	Color, ZS     RenderTarget
	Width, Height uint32
	ClearColor    uint32 // RGBA8, R in the low byte
	ClearDepth    uint32 // 24-bit
	ClearStencil  uint8
	InFences      []uint64
	// EndOfFrame marks the last job of a frame (FlushFrame), for the
	// kernel's skip-frame fault policy.
	EndOfFrame bool
}

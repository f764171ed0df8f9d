// Package pal is tilegpu's second user-mode driver: an explicit,
// PAL-style platform abstraction (AMD's Platform Abstraction Library, the
// layer under the AMDVLK Vulkan driver; background/001) beside the GL path
// gles → pipe → driver/tg, over the same kernel (kernel.Device /
// kernel.File ioctls) and sharing the same GLSL ES compiler.
//
// It carries the `pal` row of the architecture: an application programs
// the TG GPU explicitly, as a Vulkan application programs AMD GPUs
// through PAL. The objects are named after PAL's interfaces:
//
//	Platform          IPlatform: enumerates the devices (virtual GPUs) of the machine
//	Device            IDevice: properties (engines, limits, heaps) and factory of every object
//	Queue             IQueue: submits command buffers to one engine
//	Fence             IFence: CPU waits for GPU completion, with a timeout
//	QueueSemaphore    IQueueSemaphore: orders work between queues
//	GpuEvent          IGpuEvent: set/reset/status from the CPU; CmdSetEvent,
//	                  CmdResetEvent (end of the job before them) and
//	                  CmdWaitEvent (holds later work) on the GPU timeline;
//	                  CmdWriteTimestamp writes the GPU time at the top or
//	                  bottom of the pipe (kernel memory waits and writes)
//	GpuMemory         IGpuMemory: an explicit allocation (a kernel BO), CPU Map/Unmap
//	IGpuMemoryBindable IGpuMemoryBindable: objects that need memory report size and
//	                  alignment and the client binds memory to them (Image, Pipeline)
//	CmdAllocator      ICmdAllocator: the chunks command buffers grow into
//	CmdBuffer         ICmdBuffer: Begin/End/Reset, free-threaded recording
//	Image             IImage, with ColorTargetView (IColorTargetView) and
//	                  DepthStencilView (IDepthStencilView)
//	ColorBlendState   IColorBlendState; DepthStencilState IDepthStencilState;
//	MsaaState         IMsaaState (dynamic state objects, DX11-style)
//	Pipeline          IPipeline: a graphics pipeline (GLSL ES 1.00 vertex +
//	                  fragment shader + fixed-function state)
//	QueryPool         IQueryPool: occlusion and pipeline-statistics queries
//	PerfExperiment    IPerfExperiment: the GPU's counters over a span of commands
//
// Not built: IBorderColorPalette (the TMU has no border-colour wrap mode)
// and CmdResolveImage (pal images are single-sampled); docs/interfaces.md
// § pal says why.
//
// Everything reaches the GPU through kernel.File: memory is BOs named by
// handle, command buffers become SUBMIT_CL jobs (bin control list,
// shader records, uniform streams, BO list, relocations, render-target
// description), synchronisation is kernel fences. Nothing here reads or
// writes a GPU register or a physical address; the only use of package hw
// is Platform creating the virtual GPUs the devices run on (what the
// machine's firmware would enumerate).
//
// Control-list records are built with hw/cl's generated packers, the same
// records driver/tg emits. CmdDraw follows PAL's UniversalCmdBuffer::CmdDraw
// (background/001): validate (dirty state → only the state records that
// changed) → reserve space in the command stream → build the draw packet
// → commit.
//
// Concurrency: Platform, Device, Queue, Fence, QueueSemaphore, GpuMemory
// and CmdAllocator are safe for concurrent use. A CmdBuffer is recorded
// by one goroutine at a time, but different command buffers may be
// recorded on different goroutines at once (free-threaded recording),
// also from one shared CmdAllocator (PAL recommends one allocator per
// thread to avoid the lock).
//
// Errors: misuse is an error, never a panic or a hang. A recording
// command that fails returns its error and marks the command buffer
// invalid: End reports the first error, and the buffer must be Reset.
package pal

// Package kernel is the kernel-mode driver of the TG GPU: the layer that
// carries the "Kernel" part of the architecture (vc4 DRM + KGSL shape).
//
// A Device owns the GPU: the physical page allocator for buffer objects, one
// ring per engine and priority level, the memstore and inter-engine semaphores, the interrupt
// handler, the dispatcher goroutine and the watchdog. Clients Open a File;
// every call on a File is ioctl-shaped: a plain-data argument struct in, the
// results written back into it, handles instead of pointers, and failures
// reported as *Error values carrying an errno and a message that names what
// was wrong.
//
// SubmitCL follows vc4_validate.c: the user's binning control list, shader
// records and uniforms are copied into a kernel exec buffer, every record is
// walked against the record table from hw/cl, every address field must be
// covered by exactly one relocation (raw addresses never pass), relocations
// are patched to GPU virtual addresses of the client's own context, the
// kernel fills TILE_BINNING_MODE_CONFIGURATION with tile-allocation memory it
// owns and generates the render control list itself from the render-target
// description. Nothing unvalidated reaches the GPU.
//
// Scheduling follows the KGSL dispatcher: each context has a queue (its
// drawqueue) feeding the rings of its priority (File.SetPriority: normal or
// high; each engine has one ring per level, like KGSL's per-priority
// ringbuffers). A job leaves the queue when its explicit in-fences and its
// implicit per-BO dependencies (previous writer of a BO it reads; previous
// readers and writer of a BO it writes) have signalled, and when none of
// its context's jobs is in flight at another priority, so a context's jobs
// always run in order. The dispatcher serves the high rings first and then
// writes, on the two rings of priority p,
//
//	BIN:    SET_CONTEXT; EVENT_WRITE(TS|CTR, sop); INDIRECT_BUFFER(bin CL);
//	        EVENT_WRITE(TS|CTR, eop); SIGNAL(sem[p], seqno)
//	RENDER: SET_CONTEXT; WAIT_MEM(sem[p], seqno); EVENT_WRITE(TS|CTR, sop);
//	        INDIRECT_BUFFER(render CL); EVENT_WRITE(TS|CTR, eop);
//	        EVENT_WRITE(IRQ, memstore seqno[p], seqno)
//
// (the TS|CTR records are the job's start- and end-of-pipe timestamps and
// counter dumps in its report area, read into a JobInfo at retirement for
// QueryJob, perf monitors and Options.OnRetire: perf.go; Options.TileTrace
// adds each job's tiles from the render engine's tile trace, and
// Options.DumpDir makes page faults, CL errors and hangs leave crash dumps:
// dump.go)
// and rings the doorbells. The command processors prefer the high rings at
// every packet boundary, and a render stalled on its semaphore does not hold
// the engine, so a high-priority render never waits for a normal bin. A
// normal job that has headed its ring for 100 ms without retiring holds
// back new high-priority jobs until it retires, which bounds starvation.
// A job retires when its render ring's read pointer
// has reached its EVENT_WRITE (so its render list has finished) and its
// context's memstore shows its seqno; the EVENT interrupt triggers the check
// and a 10 ms poll backs it up. The read pointer is the hardware's word, the
// memstore is writable by the context's own shaders, so a shader that forges
// it cannot retire running work. A page fault or a CL_ERROR (a shader the
// GPU abandoned) marks the faulting context guilty: its fences signal with
// EIO and later submissions from it fail (ParamResetStatus says ResetGuilty);
// other contexts continue. The watchdog resets the engines when the GPU makes
// no progress for Options.JobTimeout (or one list runs for 12 of them while
// other contexts wait),
// marks the context of the job an engine is executing (CP_STATUS) guilty and
// replays the innocent jobs of every priority that were in the rings; memory
// of abandoned jobs is freed only after every ring has passed a marker
// written after the reset. Options.FaultPolicy changes what a fault or hang
// costs (reset.go): skip only the faulting job, skip the rest of its frame,
// or replay nothing.
//
// Relocations. User space never sees a GPU address. Every address field
// of every record in the bin CL and the shader records is covered by
// exactly one Reloc naming a BO (by index in SubmitCLArgs.BOs) plus a
// Delta, or the job's own shader records / uniforms. Relocations in
// Uniforms may sit at any 4-aligned offset: texture descriptor pointers,
// the storage block address, and the Address field of texture descriptors,
// which the driver places (16-aligned) inside Uniforms so the kernel can
// patch them.
//
// Memory map of every context's GPU virtual address space:
//
//	0x0000_0000 .. 0x0000_0FFF  never mapped (null guard)
//	0x0000_1000 .. 0xEFFF_FFFF  the client's BOs (read/write)
//	0xF000_0000 .. 0xF000_0FFF  the memstore page (reserved range, hardware.md §1),
//	                            per priority p: seqno at +16·p, timestamp at
//	                            +16·p+8 (EVENT_WRITE), BIN→RENDER semaphore at
//	                            +64+4·p (SIGNAL / WAIT_MEM)
//	0xF000_1000 .. 0xFFFF_EFFF  kernel per-job memory: exec buffers (read only),
//	                            tile allocation and overflow pools (read/write)
//
// The memstore page sits at the same VA in every context but each context
// sees its own page, so a shader can at worst confuse its own context's
// synchronisation, never another client's.
//
// Isolation (docs/interfaces.md "Memory isolation"). Memory a context
// unmaps while it has unfinished jobs — a closed BO, a retired job's exec
// buffer or tile memory, an emptied page table — is shot down in every
// TLB at once (MMU_TLB_INVALIDATE) and returned to the allocators only
// when the jobs that were unfinished at that moment have retired: a
// shader can reach any VA of its context through its uniforms, so no
// other client may receive those pages before then. Every page a File
// holds is charged against its quota (Options.MemoryQuota), with headroom
// for submissions and a device-wide reserve for job memory, so one client
// cannot starve the others. A fence's outcome is visible only to its own
// File. The MMU fault queue is drained on every interrupt, so every
// context that faulted is blamed.
//
// All methods of Device and File are safe for concurrent use.
package kernel

// Package hw is the TG virtual GPU: the bottom layer of the tilegpu stack,
// driven only by the kernel package. docs/hardware.md is its contract; the
// bit layouts of records come from hw/spec/tg.xml (TestStateDecodeMatchesCL
// and TestRecordSizesMatchSpec check hw's decoders against hw/cl).
//
// It carries the "hw" box of the architecture:
//
//   - mmu.go: one physical arena and a two-level MMU walked in memory. Every
//     goroutine that touches GPU memory (each command processor, each render
//     worker) owns an mmu with a 64-entry direct-mapped micro-TLB, flushed at
//     SET_CONTEXT, at the start of every indirect buffer, and by a TLB
//     shootdown (MMU_TLB_INVALIDATE: a counter every translation compares,
//     because the kernel may unmap memory while a job runs). The mmu is
//     also the qpu.Mem (and qpu.PageMem, qpu.PageEpoch) of the shader
//     cores. Page-table entries are read atomically.
//   - gpu.go, regs.go: registers, the interrupt line (a goroutine calls the
//     handler whenever an enabled bit is raised), the MMU fault queue (one
//     entry per context), performance counters, the nanosecond timestamp
//     and RESET.
//   - cp.go: one command processor goroutine per engine serving one ring
//     per priority, woken by the RING_WPTR doorbells, executing PM4 type-7
//     packets. Before each packet it takes the highest-priority ring whose
//     head packet can run (no preemption inside an IB); each ring keeps its
//     own SET_CONTEXT. A WAIT_MEM that does not pass stalls only its ring;
//     with nothing else to run the CP sleeps on a broadcast channel closed
//     by every SIGNAL, EVENT_WRITE, finished job and register write (plus a
//     2 ms re-check for CPU writes). Semaphore words are accessed atomically.
//   - binner.go: the binner (PTB). It runs the coordinate shader once per
//     vertex of a primitive record's index range (or per index position when
//     the range is sparse), assembles the seven GL modes, rejects primitives
//     outside the view volume, bounds primitives that cross near/far by
//     clipping them, culls by facing and appends TILE_PRIMITIVE records (after
//     a copy of the current state) to every touched tile's list, chaining 4 KiB
//     blocks and raising BIN_OOM when the pool is exhausted.
//   - render.go, tile.go: the render engine splits the render list into tile
//     jobs handed to Config.Cores workers. A worker walks its tile list,
//     collects runs of primitives with the same state, shades their unique
//     vertices (dedupe table, 16-vertex batches) and rasterises them.
//   - hsr.go: hidden-surface removal inside the tile. A scan of the tile
//     list finds the newest run of opaque, non-discarding primitives whose
//     triangles cover the whole tile (coverage-only rasterisation of its
//     shaded vertices) where skipping earlier work leaves depth and stencil
//     exact; the render walk then drops the primitives before it
//     (PERF_HSR_PRIMITIVES).
//   - clip.go, raster.go: exact clipping in clip space (near, far, w > 0 and a
//     2^20-pixel guard band) with varying interpolation, then 8-bit sub-pixel
//     fixed-point edge functions evaluated at pixel centres (x+0.5, y+0.5)
//     with llvmpipe's fill rule for y-up render targets (centres on left and
//     bottom edges are inside), perspective-correct float64 plane equations, and
//     fragment batches of four 2×2 quads that may come from consecutive
//     primitives. Triangles with bounds of 8×8 pixels or more walk 4×4
//     blocks: a block inside all edges at its four corner centres becomes
//     one fragment batch without per-pixel tests (PERF_RASTER_BLOCKS), one
//     outside an edge at all four is skipped. Lines are the segment widened
//     by LINE_WIDTH/2 along the minor axis (a parallelogram, no end caps)
//     drawn as two triangles; points are axis-aligned squares with
//     POINT_COORD (t = 0 at the top).
//   - perf.go: observability the kernel reads — the counter block (each
//     counter counted by one engine where the work happens, into private
//     per-goroutine counts added once per tile and bin job; pix's and
//     pix2's PERF_HSR_PRIMITIVES, PERF_RASTER_BLOCKS, PERF_EARLYZ_REJECTED
//     and PERF_BIN_PARALLEL_VERTICES read counters of the block), the tile
//     trace (a record per finished tile in a kernel-given ring), the draw
//     marker registers (MARKER records passed by the binner and each
//     core, the tile each core is on) and the last failed shader batch's
//     PC. EVENT_WRITE's TIMESTAMP/COUNTERS source (cp.go) writes a job's
//     start- and end-of-pipe timestamps and counter dumps.
//   - tlb.go: the tile buffer (64×64 RGBA8 + D24S8) and the per-fragment
//     pipeline in lane order: stencil, depth (24-bit, with polygon offset),
//     stencil ops, float blending, colour mask. Early-Z rejects quads before
//     shading only for monotonic depth functions without stencil and for
//     programs that do not write TLB_Z (discard is fine), so the late test
//     gives the same result (PERF_EARLYZ_REJECTED).
//
// Choices the hardware document leaves open:
//   - Register offsets are the constants in regs.go.
//   - QPU_NUMBER is 0 for the binner and 1+worker for render workers;
//     NUM_QPUS = Cores+1. Fragment shaders always run as thread 0.
//   - Until a tile list sets them, CONFIGURATION_BITS enables both facings
//     with depth test off, COLOR_MASK writes all channels, blending is off,
//     POINT_SIZE and LINE_WIDTH are 1 and the clip window is unbounded.
//   - Multisample4x selects 32×32 tiles but renders one sample per pixel.
//
// Concurrency: a GPU's methods (WriteReg, ReadReg, Memory,
// SetInterruptHandler, Close) are safe for concurrent use. The interrupt
// handler runs on a GPU goroutine and may call ReadReg and WriteReg.
package hw

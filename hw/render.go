package hw

import (
	"sync"
	"sync/atomic"
)

// The render engine (docs/hardware.md §4.3): it parses the kernel's render
// list into independent tile jobs and hands them to worker goroutines, each
// owning a shader core and a tile buffer. Tiles never share pixels and each
// tile's primitives are processed in list order, so the image does not
// depend on the number of workers.

type renderer struct {
	g       *GPU
	workers []*worker
	cl      []byte
	jobs    []tileJob

	programs programCache

	// engine and reset generation of the running job, for abort checks
	e   *engine
	gen uint64
}

// tileJob is one tile's slice of the render list.
type tileJob struct {
	start, end int // byte range in renderer.cl after TILE_COORDINATES
	col, row   int
	clear      clearValues
}

type clearValues struct {
	color, zs uint32
}

// renderConfig is TILE_RENDERING_MODE_CONFIGURATION.
type renderConfig struct {
	width, height int
	tsize         int
	msaa          bool
	format        colorFormat // ColorFormat (format.go)
	// noHSR: DisableHSR, every primitive is rendered (counters such as
	// an occlusion query's must see all the work the API asked for).
	noHSR bool
}

func newRenderer(g *GPU, cores int) *renderer {
	r := &renderer{g: g}
	r.programs.xlat = &g.xlat
	for i := 0; i < cores; i++ {
		r.workers = append(r.workers, newWorker(g, r, i))
	}
	return r
}

func (r *renderer) close() {}

// run executes the render CL of size bytes at va on engine e.
func (r *renderer) run(e *engine, va, size uint32, gen uint64) error {
	if size > maxCLBytes {
		return clErrorf("render CL of %d bytes exceeds %d", size, maxCLBytes)
	}
	r.cl = growBytes(r.cl, int(size))
	if f := e.mmu.read(va, r.cl); f != nil {
		return f
	}
	r.programs.reset()
	r.e, r.gen = e, gen
	cfg, err := r.parse()
	if err != nil {
		return err
	}
	if len(r.jobs) == 0 {
		return nil
	}

	var next atomic.Int64
	var stop atomic.Bool
	var errMu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	n := min(len(r.workers), len(r.jobs))
	for i := 0; i < n; i++ {
		w := r.workers[i]
		w.m.copyContext(e.mmu)
		w.core.FlushPages()
		w.cfg = cfg
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				j := int(next.Add(1) - 1)
				if j >= len(r.jobs) {
					return
				}
				if j&7 == 0 && e.aborted(gen) {
					stop.Store(true)
					errMu.Lock()
					if firstErr == nil {
						firstErr = errAborted
					}
					errMu.Unlock()
					return
				}
				if err := w.renderTile(&r.jobs[j], &stop); err != nil {
					stop.Store(true)
					errMu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					errMu.Unlock()
					return
				}
				r.g.perf.tiles.Add(1)
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// parse checks the render list and splits it into tile jobs.
func (r *renderer) parse() (renderConfig, error) {
	r.jobs = r.jobs[:0]
	var cfg renderConfig
	haveCfg := false
	var clear clearValues
	cur := -1
	cl := r.cl
	off := 0
	for off < len(cl) {
		op := cl[off]
		n := int(recordSize[op])
		if n == 0 {
			return cfg, clErrorf("render CL offset %d: unknown opcode %d", off, op)
		}
		if off+n > len(cl) {
			return cfg, clErrorf("render CL offset %d: record %d truncated", off, op)
		}
		rec := cl[off : off+n]
		switch op {
		case opHalt:
			if cur >= 0 {
				r.jobs[cur].end = off
			}
			return cfg, nil
		case opNOP:
		case opTileRenderingMode:
			cfg.width, cfg.height = int(u16(rec, 1)), int(u16(rec, 3))
			cfg.msaa = bit(rec, 40)
			cfg.noHSR = bit(rec, 41)
			cfg.tsize = tileSize
			if cfg.msaa {
				cfg.tsize = tileSizeMSAA
			}
			if f := bits(rec, 44, 4); int(f) < len(colorFormats) {
				cfg.format = colorFormats[f]
			} else {
				return cfg, clErrorf("render CL offset %d: colour format %d", off, f)
			}
			haveCfg = true
		case opClearColors:
			clear.color = u32(rec, 1)
			if haveCfg {
				clear.color = cfg.format.quantize(clear.color)
			}
			clear.zs = u32(rec, 5)&0xFFFFFF | uint32(rec[9])<<24
		case opTileCoordinates:
			if !haveCfg {
				return cfg, clErrorf("render CL offset %d: TILE_COORDINATES before TILE_RENDERING_MODE_CONFIGURATION", off)
			}
			if cur >= 0 {
				r.jobs[cur].end = off
			}
			r.jobs = append(r.jobs, tileJob{start: off + n, col: int(rec[1]), row: int(rec[2]), clear: clear})
			cur = len(r.jobs) - 1
		case opLoadTileBuffer, opStoreTileBuffer, opBranchToSubList:
			if cur < 0 {
				return cfg, clErrorf("render CL offset %d: record %d outside a tile", off, op)
			}
			if op != opBranchToSubList && rec[1]&3 == 3 {
				return cfg, clErrorf("render CL offset %d: buffer %d", off, rec[1]&3)
			}
		default:
			return cfg, clErrorf("render CL offset %d: record %d not allowed in a render list", off, op)
		}
		off += n
	}
	if cur >= 0 {
		r.jobs[cur].end = off
	}
	return cfg, nil
}

package cmdbuf

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tilegpu/tilegpu/driver/tg"
	"github.com/tilegpu/tilegpu/driver/tg/platform"
	"github.com/tilegpu/tilegpu/gles"
	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/kernel"
	"github.com/tilegpu/tilegpu/pipe"
)

// ServiceConfig configures a Service. Zero fields take the defaults.
type ServiceConfig struct {
	MemorySize int           // GPU memory in bytes; 0: DefaultServiceMemory
	Cores      int           // render worker cores; 0: GOMAXPROCS
	JobTimeout time.Duration // kernel watchdog; 0: kernel.DefaultJobTimeout
	MaxClients int           // connected clients at once; 0: 64
	// MaxSharedMemory bounds the shared memory one client may register
	// (ring, results, transfer buffers); 0: 512 MiB.
	MaxSharedMemory int
	// MaxBucketBytes bounds one client's buckets; 0: 64 MiB.
	MaxBucketBytes int
	// RecordDir, when set, is where the service records every client's
	// command stream with the shared memory it read (client-N.tgcb), for
	// Replay and `tilegpu replay`.
	RecordDir string
	// CrashDumpDir, when set, is where the kernel writes a crash dump
	// (JSON, decoded by `tilegpu crashdec`) for every GPU page fault,
	// aborted shader and hang of any client, as tilegpu.Config.CrashDumpDir
	// does for one context; every client's driver then puts draw markers
	// in its control lists so that a dump names the draw. The service
	// logs each dump's path with the lost context it explains.
	CrashDumpDir string
	// Logf receives the service's log lines (connects, disconnects, lost
	// contexts and why); nil discards them.
	Logf func(format string, args ...any)
}

// Service is the GPU process: one GPU (hw + kernel.Device) shared by every
// client, each with its own kernel File (own GPU address space), gles
// context and command decoder.
type Service struct {
	cfg ServiceConfig
	gpu *hw.GPU
	dev *kernel.Device

	// dumpMu guards dumpsLogged: how many of the kernel's crash dumps
	// the service has logged (newDumps).
	dumpMu      sync.Mutex
	dumpsLogged int

	mu       sync.Mutex
	sessions map[uint64]*session
	nextID   uint64
	closed   bool
}

// NewService creates the GPU and its kernel driver.
func NewService(cfg ServiceConfig) (*Service, error) {
	if cfg.MemorySize < 0 || cfg.Cores < 0 || cfg.JobTimeout < 0 || cfg.MaxClients < 0 || cfg.MaxSharedMemory < 0 || cfg.MaxBucketBytes < 0 {
		return nil, errors.New("cmdbuf: negative service configuration value")
	}
	if cfg.MaxClients == 0 {
		cfg.MaxClients = 64
	}
	if cfg.MaxSharedMemory == 0 {
		cfg.MaxSharedMemory = 512 << 20
	}
	if cfg.MaxBucketBytes == 0 {
		cfg.MaxBucketBytes = 64 << 20
	}
	if cfg.MemorySize == 0 {
		cfg.MemorySize = DefaultServiceMemory
	}
	s := &Service{cfg: cfg, sessions: map[uint64]*session{}}
	s.gpu = hw.New(hw.Config{MemorySize: cfg.MemorySize, Cores: cfg.Cores})
	s.dev = kernel.NewDevice(s.gpu, kernel.Options{JobTimeout: cfg.JobTimeout, DumpDir: cfg.CrashDumpDir})
	return s, nil
}

// newDumps returns the paths of the crash dumps the kernel wrote since
// the last call.
func (s *Service) newDumps() []string {
	if s.cfg.CrashDumpDir == "" {
		return nil
	}
	s.dumpMu.Lock()
	defer s.dumpMu.Unlock()
	all := s.dev.DumpPaths()
	if len(all) <= s.dumpsLogged {
		return nil
	}
	fresh := all[s.dumpsLogged:]
	s.dumpsLogged = len(all)
	return fresh
}

func (s *Service) logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	}
}

// Clients is the number of connected clients.
func (s *Service) Clients() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// Close disconnects every client and frees the GPU.
func (s *Service) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	var all []*session
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.mu.Unlock()
	for _, ss := range all {
		ss.close()
	}
	s.dev.Close()
	s.gpu.Close()
}

// maxSharedBuffers bounds how many shared-memory buffers (each a mapping in
// the service) one client may register.
const maxSharedBuffers = 64

// session is one client's state in the service.
type session struct {
	svc *Service
	id  uint64

	mu      sync.Mutex
	cond    *sync.Cond
	buffers map[uint32][]byte
	shared  int
	ring    []uint32
	put     uint32
	get     uint32
	token   uint32
	lost    bool
	reason  string
	started bool
	busy    bool
	closed  bool
	done    chan struct{}

	// written, when set (transports without shared memory), is told of every
	// range of client memory the service writes (results, read-backs).
	written func(id uint32, off, n int)
	// release runs once the session is gone (unmapping shared memory).
	release func()

	dec   *decoder
	rec   *recorder
	file  *kernel.File
	scr   *tg.Screen
	pctx  *tg.Context
	color pipe.Resource
	zs    pipe.Resource
	gl    *gles.Context
}

// connect admits a new client.
func (s *Service) connect(via string) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("cmdbuf: service is closed")
	}
	if len(s.sessions) >= s.cfg.MaxClients {
		return nil, fmt.Errorf("cmdbuf: service has its maximum of %d clients", s.cfg.MaxClients)
	}
	s.nextID++
	ss := &session{svc: s, id: s.nextID, buffers: map[uint32][]byte{}, done: make(chan struct{})}
	ss.cond = sync.NewCond(&ss.mu)
	s.sessions[ss.id] = ss
	s.logf("client %d: connected (%s)", ss.id, via)
	return ss, nil
}

// waitIdle waits until the decoder is not running (mu held).
func (ss *session) waitIdle() {
	for ss.busy {
		ss.cond.Wait()
	}
}

// registerBuffer adds shared memory under id.
func (ss *session) registerBuffer(id uint32, mem []byte) error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.waitIdle()
	switch {
	case ss.closed:
		return errors.New("session is closed")
	case id == 0:
		return errors.New("shared memory id 0 is reserved")
	case ss.buffers[id] != nil:
		return fmt.Errorf("shared memory id %d is already registered", id)
	case len(mem) == 0:
		return fmt.Errorf("shared memory id %d is empty", id)
	case len(ss.buffers) >= maxSharedBuffers:
		return fmt.Errorf("the client already has its maximum of %d shared memory buffers", maxSharedBuffers)
	case ss.shared+len(mem) > ss.svc.cfg.MaxSharedMemory:
		return fmt.Errorf("registering %d bytes would exceed the client's %d bytes of shared memory", len(mem), ss.svc.cfg.MaxSharedMemory)
	}
	ss.buffers[id] = mem
	ss.shared += len(mem)
	return nil
}

// destroyBuffer unregisters id; the ring cannot be destroyed.
func (ss *session) destroyBuffer(id uint32) ([]byte, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.waitIdle()
	mem, ok := ss.buffers[id]
	if !ok {
		return nil, fmt.Errorf("shared memory id %d is not registered", id)
	}
	if ss.ring != nil && len(mem) > 0 && &ss.ring[0] == &entries(mem)[0] {
		return nil, fmt.Errorf("shared memory id %d is the ring", id)
	}
	delete(ss.buffers, id)
	ss.shared -= len(mem)
	return mem, nil
}

// buffer returns registered memory (for transports that copy into it).
// It does not wait for the decoder: like a client writing shared memory,
// the copy touches only ranges no pending command reads (the client waits
// for their tokens first), and a buffer's Go memory stays valid even if
// it is unregistered meanwhile.
func (ss *session) buffer(id uint32) []byte {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.buffers[id]
}

// start builds the client's GL stack on the shared GPU and starts its decoder.
func (ss *session) start(ring uint32, width, height int) error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.started || ss.closed {
		return errors.New("context already started")
	}
	mem := ss.buffers[ring]
	if len(mem) < 64 || len(mem)%4 != 0 || len(mem)/4 > maxCommandLen {
		return fmt.Errorf("ring buffer %d has %d bytes, want a multiple of 4 in 64..%d", ring, len(mem), 4*maxCommandLen)
	}
	if width < 1 || height < 1 || width > MaxFramebufferSide || height > MaxFramebufferSide {
		return fmt.Errorf("framebuffer size %dx%d not in 1..%d", width, height, MaxFramebufferSide)
	}
	if err := ss.buildStack(width, height); err != nil {
		ss.teardownStack()
		return err
	}
	ss.ring = entries(mem)
	ss.dec = newDecoder(ss)
	if dir := ss.svc.cfg.RecordDir; dir != "" {
		rec, err := newRecorder(dir, ss.id)
		if err != nil {
			ss.teardownStack()
			return fmt.Errorf("recording: %w", err)
		}
		ss.rec, ss.dec.rec = rec, rec
		rec.start(width, height)
	}
	ss.started = true
	go ss.run()
	ss.svc.logf("client %d: context created (%dx%d, ring %d KiB)", ss.id, width, height, len(mem)>>10)
	return nil
}

func (ss *session) buildStack(w, h int) error {
	f, err := ss.svc.dev.Open()
	if err != nil {
		return fmt.Errorf("opening the kernel device: %w", err)
	}
	ss.file = f
	if ss.scr, err = tg.NewScreen(platform.Winsys{F: f}, platform.Compiler{}, tg.ScreenOptions{DrawMarkers: ss.svc.cfg.CrashDumpDir != ""}); err != nil {
		return err
	}
	ss.pctx = ss.scr.NewContext()
	if ss.color, err = ss.scr.ResourceCreate(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: pipe.FormatRGBA8,
		Width: w, Height: h, Levels: 1, Bind: pipe.BindRenderTarget}); err != nil {
		return fmt.Errorf("allocating the colour buffer: %w", err)
	}
	if ss.zs, err = ss.scr.ResourceCreate(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: pipe.FormatZ24S8,
		Width: w, Height: h, Levels: 1, Bind: pipe.BindDepthStencil}); err != nil {
		return fmt.Errorf("allocating the depth/stencil buffer: %w", err)
	}
	ss.gl, err = gles.New(ss.pctx, gles.DefaultFramebuffer{Width: w, Height: h, Color: ss.color, DepthStencil: ss.zs})
	return err
}

func (ss *session) teardownStack() {
	if ss.gl != nil {
		ss.gl.Destroy()
	} else if ss.pctx != nil {
		ss.pctx.Destroy()
	}
	if ss.scr != nil {
		if ss.color != nil {
			ss.scr.ResourceDestroy(ss.color)
		}
		if ss.zs != nil {
			ss.scr.ResourceDestroy(ss.zs)
		}
		ss.scr.Destroy()
	}
	if ss.file != nil {
		ss.file.Close()
	}
	ss.gl, ss.pctx, ss.scr, ss.file = nil, nil, nil, nil
}

// loseLocked marks the context lost (mu held).
func (ss *session) loseLocked(reason string) {
	if ss.lost {
		return
	}
	ss.lost, ss.reason = true, reason
	ss.svc.logf("client %d: context lost: %s", ss.id, reason)
	for _, path := range ss.svc.newDumps() {
		ss.svc.logf("client %d: crash dump %s (tilegpu crashdec %s)", ss.id, path, path)
	}
	ss.cond.Broadcast()
}

// flush publishes a new put offset.
func (ss *session) flush(put uint32) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.lost || ss.closed {
		return
	}
	if !ss.started {
		ss.loseLocked("flush before the context was started")
		return
	}
	if put >= uint32(len(ss.ring)) {
		ss.loseLocked(fmt.Sprintf("put offset %d outside the %d-entry ring", put, len(ss.ring)))
		return
	}
	ss.put = put
	ss.cond.Broadcast()
}

// wait publishes put and waits until the decoder has reached it.
func (ss *session) wait(put uint32) State {
	ss.flush(put)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for !ss.lost && !ss.closed && (ss.get != ss.put || ss.busy) {
		ss.cond.Wait()
	}
	st := State{Get: ss.get, Token: ss.token, Lost: ss.lost || ss.closed, Reason: ss.reason}
	if ss.closed && !ss.lost {
		st.Reason = "service shut down"
	}
	return st
}

// run is the session's decoder goroutine.
func (ss *session) run() {
	ss.mu.Lock()
	for {
		for !ss.closed && (ss.lost || ss.get == ss.put) {
			ss.cond.Wait()
		}
		if ss.closed {
			break
		}
		get, put := ss.get, ss.put
		ss.busy = true
		ss.mu.Unlock()
		newGet, err := ss.dec.process(get, put)
		ss.mu.Lock()
		ss.busy = false
		ss.get, ss.token = newGet, ss.dec.token
		if err != nil {
			ss.loseLocked(err.Error())
		}
		ss.cond.Broadcast()
	}
	ss.mu.Unlock()
	close(ss.done)
}

// close disconnects the client: its decoder stops and everything it had —
// GL objects, BOs, GPU memory, its kernel File, shared memory — is released.
func (ss *session) close() {
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return
	}
	ss.closed = true
	ss.cond.Broadcast()
	started := ss.started
	ss.mu.Unlock()
	if started {
		<-ss.done
	}
	ss.teardownStack()
	if ss.rec != nil {
		if err := ss.rec.close(); err != nil {
			ss.svc.logf("client %d: writing the recording: %v", ss.id, err)
		} else {
			ss.svc.logf("client %d: recorded to %s", ss.id, ss.rec.f.Name())
		}
	}
	ss.mu.Lock()
	ss.buffers, ss.ring, ss.dec = nil, nil, nil
	release := ss.release
	ss.mu.Unlock()
	if release != nil {
		release()
	}
	s := ss.svc
	s.mu.Lock()
	delete(s.sessions, ss.id)
	s.mu.Unlock()
	s.logf("client %d: disconnected, resources released", ss.id)
}

// GPUMemoryInUse is the GPU memory all clients hold, in bytes.
func (s *Service) GPUMemoryInUse() int { return s.dev.MemoryInUse() }

// MaxFramebufferSide is the largest default framebuffer side a client may
// ask for: the driver's render-target limit (GL_MAX_RENDERBUFFER_SIZE;
// tilegpu.MaxSize is the same number).
const MaxFramebufferSide = 4096

// DefaultServiceMemory is a service's GPU memory when ServiceConfig leaves
// it 0: 1 GiB, four times a private context's default, because every
// client of a shared GPU is held to a quota of half of it (kernel
// Options.MemoryQuota). With 256 MiB the tris bench scene (1 M triangles,
// 24 MB of vertex and index data, 1080p colour and depth) ran 4.6× slower
// through the service than on a private context, short of memory for its
// tile lists; the arena is committed only as the GPU writes it, so the
// larger size costs address space, not RAM.
const DefaultServiceMemory = 1 << 30

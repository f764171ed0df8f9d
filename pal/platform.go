package pal

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/kernel"
)

// MaxDevices is the most virtual GPUs a Platform creates.
const MaxDevices = 8

// PlatformCreateInfo configures a Platform (PAL's PlatformCreateInfo).
type PlatformCreateInfo struct {
	// NumDevices is how many virtual GPUs the machine has, 1..MaxDevices;
	// 0 means 1. Each has its own memory, kernel.Device and engines.
	NumDevices int
	// MemorySize is each GPU's memory in bytes (hw.Config.MemorySize; 0:
	// hw.DefaultMemorySize).
	MemorySize int
	// Cores is each GPU's render worker count (hw.Config.Cores; 0: GOMAXPROCS).
	Cores int
	// JobTimeout is the kernel watchdog's limit (kernel.Options.JobTimeout).
	JobTimeout time.Duration
}

// Platform is PAL's IPlatform: the root object, which enumerates the
// devices of the machine. Creating it creates the virtual GPUs and a
// kernel.Device for each (the role firmware and the OS play for PAL).
type Platform struct {
	gpus    []*hw.GPU
	kdevs   []*kernel.Device
	devices []*Device
	once    sync.Once
}

// NewPlatform creates the platform and its devices.
func NewPlatform(ci PlatformCreateInfo) (*Platform, error) {
	n := ci.NumDevices
	if n == 0 {
		n = 1
	}
	if n < 1 || n > MaxDevices {
		return nil, fmt.Errorf("%w: NumDevices %d not in 1..%d", ErrInvalidArgument, ci.NumDevices, MaxDevices)
	}
	if ci.JobTimeout < 0 {
		return nil, fmt.Errorf("%w: JobTimeout %v is negative", ErrInvalidArgument, ci.JobTimeout)
	}
	p := &Platform{}
	for i := 0; i < n; i++ {
		gpu, err := hw.Open(hw.Config{MemorySize: ci.MemorySize, Cores: ci.Cores})
		if err != nil {
			p.Destroy()
			return nil, fmt.Errorf("pal: creating GPU %d: %w", i, err)
		}
		p.gpus = append(p.gpus, gpu)
		// The platform's devices are their GPUs' only clients, so a
		// device may use the whole memory (the kernel caps the quota).
		spans := newSpanTable()
		kd := kernel.NewDevice(gpu, kernel.Options{JobTimeout: ci.JobTimeout, MemoryQuota: math.MaxInt64, OnRetire: spans.retired})
		p.kdevs = append(p.kdevs, kd)
		d, err := newDevice(kd, i, spans)
		if err != nil {
			p.Destroy()
			return nil, fmt.Errorf("pal: opening device %d: %w", i, err)
		}
		p.devices = append(p.devices, d)
	}
	return p, nil
}

// Devices returns the platform's devices (PAL's EnumerateDevices).
func (p *Platform) Devices() []*Device { return p.devices }

// Destroy releases every device and GPU. Objects of its devices must not
// be used afterwards. Destroy is idempotent.
func (p *Platform) Destroy() {
	p.once.Do(func() {
		for _, d := range p.devices {
			d.destroy()
		}
		for _, kd := range p.kdevs {
			kd.Close()
		}
		for _, g := range p.gpus {
			g.Close()
		}
	})
}

// EngineType names a kind of GPU engine (PAL's EngineType).
type EngineType int

const (
	// EngineUniversal runs graphics (binning + rendering), compute
	// dispatches and copies.
	EngineUniversal EngineType = iota
	// EngineCompute runs compute dispatches (and copies) on the GPU's
	// COMPUTE engine, concurrently with graphics (compute.go).
	EngineCompute
	// EngineDma runs copies and fills on the GPU's DMA engine,
	// concurrently with the other engines (dma.go).
	EngineDma
)

func (e EngineType) String() string {
	switch e {
	case EngineUniversal:
		return "universal"
	case EngineCompute:
		return "compute"
	case EngineDma:
		return "dma"
	}
	return fmt.Sprintf("EngineType(%d)", int(e))
}

// EngineProperties describes one engine type of a device.
type EngineProperties struct {
	Type       EngineType
	QueueCount int // queues CreateQueue may create on it
}

// GpuHeap names a memory heap (PAL's GpuHeap). The TG GPU has unified
// memory: one heap, CPU-visible and GPU-local at once.
type GpuHeap int

const HeapLocal GpuHeap = 0

// HeapProperties describes a heap.
type HeapProperties struct {
	Heap  GpuHeap
	Size  uint64 // bytes of physical memory
	Quota uint64 // bytes this device's client may hold
}

// Limits are a device's numeric limits.
type Limits struct {
	MaxImageWidth, MaxImageHeight int // largest render target
	MaxVertexInputs               int // attributes a pipeline may read
	TileSize                      int // tile edge in pixels
	NumCores                      int // render worker cores
	NumQPUs                       int // shader thread slots (scratch is sized by it)
	MaxUserDataEntries            int // words CmdSetUserData may set
	// Compute (CreateComputePipeline, CmdDispatch).
	MaxComputeWorkgroupInvocations int // invocations per workgroup
	MaxComputeSharedBytes          int // shared memory per workgroup
	MaxComputeWorkgroups           int // workgroups per dimension of a dispatch
	NumComputeThreads              int // compute thread slots (compute scratch is sized by it)
}

// DeviceProperties are PAL's DeviceProperties.
type DeviceProperties struct {
	Index    int    // position in Platform.Devices
	GfxLevel string // hardware generation
	Engines  []EngineProperties
	Heaps    []HeapProperties
	Limits   Limits
	// TimestampFrequency is the rate of the GPU's timestamp counter
	// (CmdWriteTimestamp's values), in Hz: the counter counts nanoseconds.
	TimestampFrequency uint64
}

// MaxUserDataEntries bounds the user data (uniform storage) of a
// command buffer.
const MaxUserDataEntries = 4096

// maxQueues is the number of queues a device's universal engine takes.
const maxQueues = 4

// Device is PAL's IDevice: one GPU, the factory of every other object.
// It holds one kernel.File (one GPU context and address space); all its
// queues submit through it.
type Device struct {
	file  *kernel.File
	props DeviceProperties

	mu     sync.Mutex
	refs   map[*GpuMemory]int // device-wide residency (AddGpuMemoryReferences)
	queues [3]int             // queues created per engine type

	spans *spanTable // jobs counted by queries and perf experiments (query.go)
}

func newDevice(kd *kernel.Device, index int, spans *spanTable) (*Device, error) {
	f, err := kd.Open()
	if err != nil {
		return nil, err
	}
	d := &Device{file: f, refs: map[*GpuMemory]int{}, spans: spans}
	param := func(p kernel.Param) int {
		a := kernel.GetParamArgs{Param: p}
		if err == nil {
			err = f.GetParam(&a)
		}
		return int(a.Value)
	}
	maxSize := param(kernel.ParamMaxRenderSize)
	d.props = DeviceProperties{
		Index:    index,
		GfxLevel: "TG1",
		Engines:  []EngineProperties{{Type: EngineUniversal, QueueCount: maxQueues}, {Type: EngineCompute, QueueCount: maxQueues}, {Type: EngineDma, QueueCount: maxQueues}},
		Heaps: []HeapProperties{{Heap: HeapLocal, Size: uint64(param(kernel.ParamMemorySize)),
			Quota: uint64(param(kernel.ParamMemoryQuota))}},
		Limits: Limits{
			MaxImageWidth: maxSize, MaxImageHeight: maxSize,
			MaxVertexInputs:    param(kernel.ParamMaxAttributes),
			TileSize:           param(kernel.ParamTileSize),
			NumCores:           param(kernel.ParamNumCores),
			NumQPUs:            param(kernel.ParamNumQPUs),
			MaxUserDataEntries: MaxUserDataEntries,

			// The hardware runs up to 256 invocations per workgroup; the
			// GLSL ES 3.10 front end accepts ES 3.1's minimum maximum.
			MaxComputeWorkgroupInvocations: min(param(kernel.ParamMaxComputeInvocations), glsl.MaxComputeWorkGroupInvocations),
			MaxComputeSharedBytes:          param(kernel.ParamMaxComputeSharedBytes),
			MaxComputeWorkgroups:           param(kernel.ParamMaxComputeGroups),
			NumComputeThreads:              param(kernel.ParamNumComputeThreads),
		},
		TimestampFrequency: 1_000_000_000,
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	if d.props.Limits.TileSize <= 0 || d.props.Limits.NumQPUs <= 0 {
		f.Close()
		return nil, errors.New("pal: kernel reports no tiles or no QPUs")
	}
	return d, nil
}

func (d *Device) destroy() { d.file.Close() }

// Properties returns the device's properties (PAL's GetProperties).
func (d *Device) Properties() DeviceProperties { return d.props }

// AddGpuMemoryReferences makes memory resident for every submission of
// the device until RemoveGpuMemoryReferences (PAL's device-wide
// residency); references count.
func (d *Device) AddGpuMemoryReferences(mems ...*GpuMemory) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, m := range mems {
		if m == nil || m.dev != d {
			return fmt.Errorf("%w: AddGpuMemoryReferences: memory of another device (or nil)", ErrWrongDevice)
		}
	}
	for _, m := range mems {
		d.refs[m]++
	}
	return nil
}

// RemoveGpuMemoryReferences undoes one AddGpuMemoryReferences per memory.
func (d *Device) RemoveGpuMemoryReferences(mems ...*GpuMemory) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, m := range mems {
		if d.refs[m] > 1 {
			d.refs[m]--
		} else {
			delete(d.refs, m)
		}
	}
}

func (d *Device) resident(m *GpuMemory) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.refs[m] > 0
}

// kernelErr keeps a kernel error and makes ETIMEDOUT match ErrTimeout.
func kernelErr(what string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, kernel.ETIMEDOUT) {
		return fmt.Errorf("pal: %s: %w: %w", what, ErrTimeout, err)
	}
	return fmt.Errorf("pal: %s: %w", what, err)
}

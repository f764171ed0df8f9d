package pal

import (
	"fmt"
	"math/bits"

	"github.com/tilegpu/tilegpu/hw/cl"
	"sync"
	"sync/atomic"

	"github.com/tilegpu/tilegpu/kernel"
)

// GpuMemoryCreateInfo describes an allocation (PAL's GpuMemoryCreateInfo).
type GpuMemoryCreateInfo struct {
	Size uint64  // bytes, 1..4 GiB-4 KiB; rounded up to whole 4 KiB pages
	Heap GpuHeap // HeapLocal (the only heap)
}

// GpuMemory is PAL's IGpuMemory: one explicit allocation, a kernel BO.
// Memory is unified, so Map returns the allocation's bytes themselves
// (zero copy). The client makes memory resident per submission
// (SubmitInfo.GpuMemoryRefs) or device-wide (AddGpuMemoryReferences).
type GpuMemory struct {
	dev    *Device
	handle uint32
	size   uint64
	bytes  []byte

	mu        sync.Mutex
	mapped    bool
	destroyed bool
}

// CreateGpuMemory allocates memory.
func (d *Device) CreateGpuMemory(ci GpuMemoryCreateInfo) (*GpuMemory, error) {
	if ci.Size == 0 || ci.Size > 1<<32-4096 {
		return nil, fmt.Errorf("%w: GpuMemory size %d not in 1..%d", ErrInvalidArgument, ci.Size, uint64(1<<32-4096))
	}
	if ci.Heap != HeapLocal {
		return nil, fmt.Errorf("%w: heap %d does not exist (only HeapLocal)", ErrInvalidArgument, ci.Heap)
	}
	c := kernel.CreateBOArgs{Size: uint32(ci.Size)}
	if err := d.file.CreateBO(&c); err != nil {
		return nil, kernelErr("CreateGpuMemory", err)
	}
	m := kernel.MmapBOArgs{Handle: c.Handle}
	if err := d.file.MmapBO(&m); err != nil {
		_ = d.file.CloseBO(&kernel.CloseBOArgs{Handle: c.Handle})
		return nil, kernelErr("CreateGpuMemory", err)
	}
	return &GpuMemory{dev: d, handle: c.Handle, size: uint64(len(m.Mapping)), bytes: m.Mapping}, nil
}

// Size returns the allocation's size in bytes (whole pages).
func (m *GpuMemory) Size() uint64 { return m.size }

// Map returns the memory's bytes for CPU access (PAL's Map). Memory is
// mapped at most once at a time.
func (m *GpuMemory) Map() ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.destroyed:
		return nil, fmt.Errorf("%w: Map of destroyed GpuMemory", ErrDestroyed)
	case m.mapped:
		return nil, fmt.Errorf("%w: GpuMemory is already mapped", ErrInvalidArgument)
	}
	m.mapped = true
	return m.bytes, nil
}

// Unmap ends CPU access; the slice Map returned must not be used after.
func (m *GpuMemory) Unmap() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.mapped {
		return fmt.Errorf("%w: Unmap of GpuMemory that is not mapped", ErrInvalidArgument)
	}
	m.mapped = false
	return nil
}

// Destroy frees the memory. Work already submitted keeps it alive (the
// kernel pins BOs of queued jobs); later use is an error.
func (m *GpuMemory) Destroy() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.destroyed {
		return fmt.Errorf("%w: GpuMemory destroyed twice", ErrDestroyed)
	}
	m.destroyed = true
	m.mapped = false
	m.dev.RemoveGpuMemoryReferences(m)
	return kernelErr("GpuMemory.Destroy", m.dev.file.CloseBO(&kernel.CloseBOArgs{Handle: m.handle}))
}

func (m *GpuMemory) isDestroyed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.destroyed
}

// GpuMemoryRequirements is what an IGpuMemoryBindable object needs.
type GpuMemoryRequirements struct {
	Size      uint64
	Alignment uint64
	Heaps     []GpuHeap
}

// IGpuMemoryBindable is PAL's IGpuMemoryBindable: an object that needs GPU
// memory reports its requirements, and the client binds a range of a
// GpuMemory to it, once.
type IGpuMemoryBindable interface {
	GpuMemoryRequirements() GpuMemoryRequirements
	BindGpuMemory(mem *GpuMemory, offset uint64) error
}

// binding is the memory bound to an IGpuMemoryBindable: set once, then
// read by every draw, so it is an atomic pointer rather than a lock.
type binding struct {
	bound atomic.Pointer[boundMemory]
}

type boundMemory struct {
	mem    *GpuMemory
	offset uint64
}

func (b *binding) bind(what string, req GpuMemoryRequirements, dev *Device, mem *GpuMemory, offset uint64) error {
	if mem == nil {
		return fmt.Errorf("%w: %s.BindGpuMemory: nil memory", ErrInvalidArgument, what)
	}
	if mem.dev != dev {
		return fmt.Errorf("%w: %s.BindGpuMemory", ErrWrongDevice, what)
	}
	if mem.isDestroyed() {
		return fmt.Errorf("%w: %s.BindGpuMemory: memory was destroyed", ErrDestroyed, what)
	}
	if offset%req.Alignment != 0 {
		return fmt.Errorf("%w: %s.BindGpuMemory: offset %d not a multiple of the alignment %d", ErrInvalidArgument, what, offset, req.Alignment)
	}
	if offset > mem.size || req.Size > mem.size-offset {
		return fmt.Errorf("%w: %s.BindGpuMemory: %d bytes at offset %d exceed the %d-byte memory", ErrInvalidArgument, what, req.Size, offset, mem.size)
	}
	if !b.bound.CompareAndSwap(nil, &boundMemory{mem: mem, offset: offset}) {
		return fmt.Errorf("%w: %s", ErrAlreadyBound, what)
	}
	return nil
}

func (b *binding) get() (*GpuMemory, uint64) {
	if m := b.bound.Load(); m != nil {
		return m.mem, m.offset
	}
	return nil, 0
}

// ImageFormat is an image's pixel format.
type ImageFormat int

const (
	// FormatRGBA8Unorm: 4 bytes per pixel, R in the lowest byte.
	FormatRGBA8Unorm ImageFormat = iota
	// FormatD24UnormS8Uint: depth in the low 24 bits, stencil in the top byte.
	FormatD24UnormS8Uint
)

func (f ImageFormat) String() string {
	switch f {
	case FormatRGBA8Unorm:
		return "RGBA8_UNORM"
	case FormatD24UnormS8Uint:
		return "D24_UNORM_S8_UINT"
	}
	return fmt.Sprintf("ImageFormat(%d)", int(f))
}

// ImageCreateInfo describes an image (PAL's ImageCreateInfo). Images are
// 2D, one sample, linear: the mip levels are packed one after another
// (level n is max(1, size>>n) on each side), rows packed, row y (0 = the
// bottom row, as GL's window coordinates and texture t = 0) first. Only
// level 0 can be a render target.
type ImageCreateInfo struct {
	Width, Height int
	Format        ImageFormat
	MipLevels     int // 0 means 1; at most 1 + log2(max(Width, Height))
}

// Image is PAL's IImage. It is an IGpuMemoryBindable.
type Image struct {
	dev *Device
	ci  ImageCreateInfo
	binding
}

// CreateImage creates an image; bind memory to it before use.
func (d *Device) CreateImage(ci ImageCreateInfo) (*Image, error) {
	l := d.props.Limits
	if ci.Width < 1 || ci.Height < 1 || ci.Width > l.MaxImageWidth || ci.Height > l.MaxImageHeight {
		return nil, fmt.Errorf("%w: image size %d×%d not in 1..%d", ErrInvalidArgument, ci.Width, ci.Height, l.MaxImageWidth)
	}
	if ci.Format != FormatRGBA8Unorm && ci.Format != FormatD24UnormS8Uint {
		return nil, fmt.Errorf("%w: image format %v", ErrInvalidArgument, ci.Format)
	}
	if ci.MipLevels == 0 {
		ci.MipLevels = 1
	}
	maxLevels := bits.Len(uint(max(ci.Width, ci.Height)))
	if ci.MipLevels < 1 || ci.MipLevels > maxLevels {
		return nil, fmt.Errorf("%w: %d mip levels for %d×%d (1..%d)", ErrInvalidArgument, ci.MipLevels, ci.Width, ci.Height, maxLevels)
	}
	return &Image{dev: d, ci: ci}, nil
}

// SubresourceLayout is where one mip level lies in the image's memory.
type SubresourceLayout struct {
	Offset        uint64 // bytes from the image's start
	RowPitch      int
	Width, Height int
}

// SubresourceLayout returns the layout of a mip level (PAL's
// GetSubresourceLayout).
func (im *Image) SubresourceLayout(level int) (SubresourceLayout, error) {
	if level < 0 || level >= im.ci.MipLevels {
		return SubresourceLayout{}, fmt.Errorf("%w: mip level %d of %d", ErrInvalidArgument, level, im.ci.MipLevels)
	}
	var off uint64
	for l := 0; ; l++ {
		w, h := max(im.ci.Width>>l, 1), max(im.ci.Height>>l, 1)
		if l == level {
			return SubresourceLayout{Offset: off, RowPitch: 4 * w, Width: w, Height: h}, nil
		}
		off += uint64(4 * w * h)
	}
}

// levelsSize is the bytes of all levels, 64-byte aligned (the texture
// descriptor's face stride).
func (im *Image) levelsSize() uint64 {
	var off uint64
	for l := 0; l < im.ci.MipLevels; l++ {
		off += uint64(4 * max(im.ci.Width>>l, 1) * max(im.ci.Height>>l, 1))
	}
	return (off + 63) &^ 63
}

// CreateInfo returns what the image was created with.
func (im *Image) CreateInfo() ImageCreateInfo { return im.ci }

// RowPitch returns the bytes between rows of level 0.
func (im *Image) RowPitch() int { return im.ci.Width * 4 }

// GpuMemoryRequirements implements IGpuMemoryBindable.
func (im *Image) GpuMemoryRequirements() GpuMemoryRequirements {
	return GpuMemoryRequirements{Size: im.levelsSize(), Alignment: 256, Heaps: []GpuHeap{HeapLocal}}
}

// BindGpuMemory implements IGpuMemoryBindable.
func (im *Image) BindGpuMemory(mem *GpuMemory, offset uint64) error {
	return im.bind("Image", im.GpuMemoryRequirements(), im.dev, mem, offset)
}

// ColorTargetView is PAL's IColorTargetView: an image bound as a colour target.
type ColorTargetView struct{ image *Image }

// DepthStencilView is PAL's IDepthStencilView: an image bound as the
// depth/stencil target.
type DepthStencilView struct{ image *Image }

// CreateColorTargetView creates a colour view of an RGBA8 image with memory.
func (d *Device) CreateColorTargetView(im *Image) (*ColorTargetView, error) {
	if err := d.checkView(im, FormatRGBA8Unorm, "ColorTargetView"); err != nil {
		return nil, err
	}
	return &ColorTargetView{image: im}, nil
}

// CreateDepthStencilView creates a depth/stencil view of a D24S8 image with memory.
func (d *Device) CreateDepthStencilView(im *Image) (*DepthStencilView, error) {
	if err := d.checkView(im, FormatD24UnormS8Uint, "DepthStencilView"); err != nil {
		return nil, err
	}
	return &DepthStencilView{image: im}, nil
}

func (d *Device) checkView(im *Image, f ImageFormat, what string) error {
	switch {
	case im == nil:
		return fmt.Errorf("%w: %s of a nil image", ErrInvalidArgument, what)
	case im.dev != d:
		return fmt.Errorf("%w: %s", ErrWrongDevice, what)
	case im.ci.Format != f:
		return fmt.Errorf("%w: %s needs a %v image, not %v", ErrInvalidArgument, what, f, im.ci.Format)
	}
	if m, _ := im.get(); m == nil {
		return fmt.Errorf("%w: %s of an image without memory", ErrNotBound, what)
	}
	return nil
}

// SamplerCreateInfo is PAL's SamplerInfo: how an image is filtered and
// wrapped.
type SamplerCreateInfo struct {
	MinFilter    cl.MinFilter
	MagFilter    cl.MagFilter
	WrapS, WrapT cl.Wrap
}

// ImageView is an image as a shader reads it, with its sampler: PAL's
// image view and sampler SRDs in one (GLSL ES 1.00's sampler2D combines
// them). It is bound to a texture unit with CmdBindImageViews; the
// shader's sampler uniform (a user-data entry) holds the unit.
type ImageView struct {
	image *Image
	desc  cl.TextureDescriptor // Address is relocated per job
}

// MaxTextureUnits is the number of image-view slots.
const MaxTextureUnits = 16

// CreateImageView creates a view of an RGBA8 image with memory.
func (d *Device) CreateImageView(im *Image, s SamplerCreateInfo) (*ImageView, error) {
	if err := d.checkView(im, FormatRGBA8Unorm, "ImageView"); err != nil {
		return nil, err
	}
	if im.ci.MipLevels <= 1 && s.MinFilter > cl.MinFilterLinear {
		// A single level cannot be mipmapped: the level-0 filter is what
		// λ clamped to 0 gives (as driver/tg does for GL).
		s.MinFilter = (s.MinFilter - cl.MinFilterNearestMipmapNearest) % 2
	}
	desc := cl.TextureDescriptor{Width: uint16(im.ci.Width), Height: uint16(im.ci.Height), Format: cl.TextureFormatRGBA8888,
		Levels: uint8(im.ci.MipLevels), WrapS: s.WrapS, WrapT: s.WrapT, MinFilter: s.MinFilter, MagFilter: s.MagFilter,
		FaceStride: uint32(im.levelsSize()), Swizzle: cl.SwizzleIdentity}
	if err := desc.Check(); err != nil {
		return nil, fmt.Errorf("%w: ImageView sampler: %v", ErrInvalidArgument, err)
	}
	return &ImageView{image: im, desc: desc}, nil
}

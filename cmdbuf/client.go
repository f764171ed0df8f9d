package cmdbuf

import (
	"encoding/binary"
	"fmt"
	"image"
	"math"
	"unsafe"

	"github.com/tilegpu/tilegpu/gl"
)

// ContextLost is GL_CONTEXT_LOST (KHR_robustness): what GetError returns on
// every call once the service has lost the client's context.
const ContextLost gl.Enum = 0x0507

// Options configure a Client. Zero fields take the defaults.
type Options struct {
	Width, Height int // default framebuffer size (required)
	// RingSize is the command ring in bytes (default 1 MiB; 4 KiB..8 MiB).
	RingSize int
	// TransferSize is the transfer buffer's starting size and
	// MaxTransferSize the most it grows to (defaults 1 MiB and 16 MiB).
	TransferSize, MaxTransferSize int
}

// Shared-memory ids the client uses; transfer buffers get fresh ids from
// firstTransferID on each resize.
const (
	ringID          = 1
	resultID        = 2
	firstTransferID = 3
	resultSize      = 4096
	uploadBucket    = 1
	downloadBucket  = 2
	immediateLimit  = 1024 // strings up to this size travel inline
	// maxClientBucket bounds what the client accepts from a bucket (strings
	// and logs), so a broken service cannot make it allocate without bound.
	maxClientBucket = 256 << 20
)

// Client is a gl.Context whose calls are encoded into a command buffer and
// executed by a service (CommandBufferHelper + GLES2Implementation). Like
// any GL context it is used by one goroutine at a time.
type Client struct {
	t    Transport
	opt  Options
	ring []uint32 // the command ring (shared memory)

	put, flushedPut, lastGet uint32
	flushEvery               uint32 // pending entries that trigger a flush

	token, lastToken uint32

	tb                  transferBuffer
	tbPeak              int // largest transfer request since the last shrink check
	nextTB              uint32
	bytesSinceFlush     int
	sizeToFlush         int
	result              []byte
	lost                bool
	lostReason          string
	closed              bool
	clientErr           gl.Enum
	nextName            uint32
	unpackAlign         int
	packAlign           int
	boundFB             gl.Framebuffer
	limits              map[gl.Enum][16]int32
	known               map[gl.Enum]int32 // the state cache (cache.go)
	strings             map[gl.Enum]string
	uniformLocs         map[uint32]map[string]int32
	progInfo            map[uint32]*programInfo // programinfo.go
	attribLocs          map[uint32]map[string]int32
	roundTrips, flushes int
}

type transferBuffer struct {
	id  uint32
	mem []byte
	ra  *ringAllocator
}

var _ gl.Context = (*Client)(nil)

// NewClient creates the client's ring, result memory and transfer buffer
// over t and asks the service for a context.
func NewClient(t Transport, opt Options) (*Client, error) {
	if opt.Width < 1 || opt.Height < 1 || opt.Width > MaxFramebufferSide || opt.Height > MaxFramebufferSide {
		return nil, fmt.Errorf("cmdbuf: framebuffer size %dx%d not in 1..%d", opt.Width, opt.Height, MaxFramebufferSide)
	}
	if opt.RingSize == 0 {
		opt.RingSize = 1 << 20
	}
	if opt.TransferSize == 0 {
		opt.TransferSize = 1 << 20
	}
	if opt.MaxTransferSize == 0 {
		opt.MaxTransferSize = 16 << 20
	}
	if opt.RingSize < 4096 || opt.RingSize > 8<<20 || opt.RingSize%4 != 0 {
		return nil, fmt.Errorf("cmdbuf: ring size %d not a multiple of 4 in 4 KiB..8 MiB", opt.RingSize)
	}
	if opt.TransferSize < 4096 || opt.MaxTransferSize < opt.TransferSize || opt.MaxTransferSize > 256<<20 {
		return nil, fmt.Errorf("cmdbuf: transfer buffer sizes %d..%d not within 4 KiB..256 MiB", opt.TransferSize, opt.MaxTransferSize)
	}
	c := &Client{t: t, opt: opt, unpackAlign: 4, packAlign: 4, nextName: 1, nextTB: firstTransferID,
		limits: map[gl.Enum][16]int32{}, strings: map[gl.Enum]string{}, known: map[gl.Enum]int32{},
		uniformLocs: map[uint32]map[string]int32{}, attribLocs: map[uint32]map[string]int32{},
		progInfo: map[uint32]*programInfo{}}
	mem, err := t.CreateBuffer(ringID, opt.RingSize)
	if err != nil {
		return nil, fmt.Errorf("cmdbuf: creating the ring: %w", err)
	}
	c.ring = entries(mem)
	c.flushEvery = uint32(len(c.ring) / 8)
	if c.result, err = t.CreateBuffer(resultID, resultSize); err != nil {
		return nil, fmt.Errorf("cmdbuf: creating result memory: %w", err)
	}
	if err := c.newTransferBuffer(opt.TransferSize); err != nil {
		return nil, err
	}
	if err := t.Start(ringID, opt.Width, opt.Height); err != nil {
		return nil, fmt.Errorf("cmdbuf: starting the context: %w", err)
	}
	return c, nil
}

// entries views shared memory as ring entries (host byte order, which is
// little-endian on every platform tilegpu supports).
func entries(mem []byte) []uint32 {
	if len(mem) < 4 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&mem[0])), len(mem)/4)
}

func (c *Client) newTransferBuffer(size int) error {
	id := c.nextTB
	c.nextTB++
	mem, err := c.t.CreateBuffer(id, size)
	if err != nil {
		return fmt.Errorf("cmdbuf: creating a transfer buffer of %d bytes: %w", size, err)
	}
	c.tb = transferBuffer{id: id, mem: mem, ra: newRingAllocator(size, c.waitForToken, func() uint32 { return c.lastToken })}
	c.sizeToFlush = size / 4
	return nil
}

// GL returns the client as a gl.Context.
func (c *Client) GL() gl.Context { return c }

// Err returns nil while the context is usable, and an error wrapping
// ErrContextLost (with the service's reason) once it is lost.
func (c *Client) Err() error {
	if c.lost {
		return fmt.Errorf("%w: %s", ErrContextLost, c.lostReason)
	}
	if c.closed {
		return fmt.Errorf("cmdbuf: client is closed")
	}
	return nil
}

// RoundTrips is how many times the client has waited for the service.
func (c *Client) RoundTrips() int { return c.roundTrips }

// Flushes is how many times the client has handed a new put to the service.
func (c *Client) Flushes() int { return c.flushes }

// Close waits until the service has executed everything encoded (so a
// recording holds the whole stream), then disconnects; the service
// releases the context and everything in it. A client that just drops its
// transport loses what it had not flushed and executed.
func (c *Client) Close() error {
	if c.closed {
		return nil
	}
	c.sync()
	c.closed = true
	c.lost = true
	if c.lostReason == "" {
		c.lostReason = "client closed"
	}
	return c.t.Close()
}

func (c *Client) loseContext(reason string) {
	if !c.lost {
		c.lost, c.lostReason = true, reason
	}
}

// ---- the command helper: ring space, flushes, tokens ----

func (c *Client) pending() uint32 {
	return (c.put - c.flushedPut + uint32(len(c.ring))) % uint32(len(c.ring))
}

func (c *Client) freeEntries() uint32 {
	n := uint32(len(c.ring))
	return (c.lastGet - c.put - 1 + n) % n
}

// flush hands the put pointer to the service if there is anything new.
func (c *Client) flush() {
	if c.lost || c.put == c.flushedPut {
		return
	}
	c.flushes++
	c.flushedPut = c.put
	c.bytesSinceFlush = 0
	if err := c.t.Flush(c.put); err != nil {
		c.loseContext("transport: " + err.Error())
	}
}

// sync flushes and waits for the service to execute everything; false if
// the context is (now) lost.
func (c *Client) sync() bool {
	if c.lost {
		return false
	}
	c.roundTrips++
	if c.put != c.flushedPut {
		c.flushes++
	}
	c.flushedPut = c.put
	c.bytesSinceFlush = 0
	st, err := c.t.Wait(c.put)
	if err != nil {
		c.loseContext("transport: " + err.Error())
		return false
	}
	c.lastGet, c.lastToken = st.Get, st.Token
	if st.Lost {
		c.loseContext(st.Reason)
		return false
	}
	return true
}

func (c *Client) waitForSpace(n uint32) bool {
	for c.freeEntries() < n {
		if !c.sync() {
			return false
		}
	}
	return true
}

// alloc reserves n entries for one command and returns them; nil when the
// context is lost (the call then has no effect, as GL specifies for a lost
// context) or the command can never fit.
func (c *Client) alloc(n int) []uint32 {
	if c.lost {
		return nil
	}
	size := uint32(len(c.ring))
	if n >= len(c.ring)/2 {
		c.recordError(gl.OUT_OF_MEMORY)
		return nil
	}
	if c.pending() >= c.flushEvery {
		c.flush()
	}
	if c.put+uint32(n) > size {
		pad := size - c.put
		if !c.waitForSpace(pad) {
			return nil
		}
		c.ring[c.put] = header(int(pad), CmdNoop)
		c.put = 0
	}
	if !c.waitForSpace(uint32(n)) {
		return nil
	}
	b := c.ring[c.put : c.put+uint32(n) : c.put+uint32(n)]
	c.put += uint32(n)
	if c.put == size {
		c.put = 0
	}
	return b
}

// InsertToken encodes a SetToken and returns the token; the service passes
// it once every earlier command has executed.
func (c *Client) InsertToken() uint32 {
	c.token = nextToken(c.token)
	c.cmdSetToken(c.token)
	return c.token
}

// waitForToken returns once token t has passed (or the context is lost).
func (c *Client) waitForToken(t uint32) {
	for !c.lost && !tokenPassed(t, c.lastToken) {
		if !c.sync() {
			return
		}
		if !tokenPassed(t, c.lastToken) {
			// The service executed everything, so the token was never
			// inserted: a client bug, not something to wait for.
			panic(fmt.Sprintf("cmdbuf: waiting for token %d the service never saw (last %d)", t, c.lastToken))
		}
	}
}

// WaitForToken waits until the service has passed token t.
func (c *Client) WaitForToken(t uint32) { c.waitForToken(t) }

func (c *Client) recordError(e gl.Enum) {
	if c.clientErr == gl.NO_ERROR {
		c.clientErr = e
	}
}

// ---- transfer buffers ----

// tbAlloc returns a block of the transfer buffer for want bytes: all of
// them when exact (growing the buffer up to MaxTransferSize), else as many
// as are free without waiting (at least one aligned unit).
func (c *Client) tbAlloc(want int, exact bool) (off, got int, ok bool) {
	if c.lost {
		return 0, 0, false
	}
	c.tbPeak = max(c.tbPeak, want)
	if want > c.tb.ra.size && c.tb.ra.size < c.opt.MaxTransferSize {
		// Grow to twice the request when allowed, so that consecutive
		// uploads of this size alternate halves and the client fills one
		// while the service still reads the other.
		size := c.tb.ra.size
		for size < 2*want && size < c.opt.MaxTransferSize {
			size *= 2
		}
		c.resizeTransferBuffer(min(size, c.opt.MaxTransferSize))
		if c.lost {
			return 0, 0, false
		}
	}
	if exact {
		if want > c.tb.ra.size {
			return 0, 0, false
		}
		return c.tb.ra.alloc(want), want, true
	}
	off, got = c.tb.ra.allocUpTo(want)
	return off, min(got, want), true
}

// resizeTransferBuffer replaces the transfer buffer once nothing refers to it.
func (c *Client) resizeTransferBuffer(size int) {
	if c.tb.ra.busy() {
		c.waitForToken(c.InsertToken())
	}
	if !c.sync() {
		return
	}
	if err := c.t.DestroyBuffer(c.tb.id); err != nil {
		c.loseContext("transport: " + err.Error())
		return
	}
	if err := c.newTransferBuffer(size); err != nil {
		c.loseContext(err.Error())
	}
}

// tbRelease frees a block once the commands before now have executed.
func (c *Client) tbRelease(off, n int) {
	c.tb.ra.freePendingToken(off, c.InsertToken())
	c.bytesSinceFlush += n
	if c.sizeToFlush > 0 && c.bytesSinceFlush >= c.sizeToFlush {
		c.flush()
	}
}

// upload copies data through the transfer buffer in as many pieces as it
// takes; emit encodes the command for each piece.
func (c *Client) upload(data []byte, emit func(id, off, size uint32, at int)) {
	for at := 0; at < len(data); {
		off, got, ok := c.tbAlloc(len(data)-at, false)
		if !ok {
			return
		}
		copy(c.tb.mem[off:off+got], data[at:at+got])
		c.t.Written(c.tb.id, off, got)
		emit(c.tb.id, uint32(off), uint32(got), at)
		c.tbRelease(off, got)
		at += got
	}
}

// ---- results and buckets ----

func (c *Client) res32(i int) uint32 { return binary.LittleEndian.Uint32(c.result[4*i:]) }

// query runs a command that writes result memory and waits for it.
func (c *Client) query(encode func()) bool {
	if c.lost {
		return false
	}
	clear(c.result[:68])
	encode()
	return c.sync()
}

func (c *Client) setBucket(bucket uint32, data []byte) {
	c.cmdSetBucketSize(bucket, uint32(len(data)))
	if len(data) <= immediateLimit {
		if len(data) > 0 {
			c.cmdSetBucketDataImmediate(bucket, 0, data)
		}
		return
	}
	c.upload(data, func(id, off, size uint32, at int) {
		c.cmdSetBucketData(bucket, uint32(at), size, id, off)
	})
}

func (c *Client) setBucketString(s string) { c.setBucket(uploadBucket, []byte(s)) }

// readBucket fetches the download bucket that the previous command filled.
func (c *Client) readBucket() (string, bool) {
	off, got, ok := c.tbAlloc(64<<10, false)
	if !ok {
		return "", false
	}
	defer c.tbRelease(off, 0)
	if !c.query(func() { c.cmdGetBucketStart(downloadBucket, resultID, 0, uint32(got), c.tb.id, uint32(off)) }) {
		return "", false
	}
	size := int(c.res32(0))
	if size > maxClientBucket {
		c.loseContext(fmt.Sprintf("service reported a %d-byte bucket", size))
		return "", false
	}
	out := make([]byte, size)
	n := copy(out, c.tb.mem[off:off+min(got, size)])
	for n < size {
		chunk := min(got, size-n)
		if !c.query(func() { c.cmdGetBucketData(downloadBucket, uint32(n), uint32(chunk), c.tb.id, uint32(off)) }) {
			return "", false
		}
		n += copy(out[n:], c.tb.mem[off:off+chunk])
	}
	c.cmdSetBucketSize(downloadBucket, 0)
	return string(out), true
}

// ---- objects ----

func (c *Client) newName() uint32 {
	n := c.nextName
	c.nextName++
	return n
}

// CreateBuffer names a new buffer object; the service creates it.
func (c *Client) CreateBuffer() gl.Buffer {
	n := c.newName()
	c.cmdCreateBuffer(n)
	return gl.Buffer{Value: n}
}

// CreateFramebuffer names a new framebuffer object.
func (c *Client) CreateFramebuffer() gl.Framebuffer {
	n := c.newName()
	c.cmdCreateFramebuffer(n)
	return gl.Framebuffer{Value: n}
}

// CreateProgram names a new program object.
func (c *Client) CreateProgram() gl.Program {
	n := c.newName()
	c.cmdCreateProgram(n)
	return gl.Program{Init: true, Value: n}
}

// CreateRenderbuffer names a new renderbuffer object.
func (c *Client) CreateRenderbuffer() gl.Renderbuffer {
	n := c.newName()
	c.cmdCreateRenderbuffer(n)
	return gl.Renderbuffer{Value: n}
}

// CreateShader names a new shader object; a bad type is the service's GL error.
func (c *Client) CreateShader(ty gl.Enum) gl.Shader {
	if ty != gl.VERTEX_SHADER && ty != gl.FRAGMENT_SHADER {
		c.recordError(gl.INVALID_ENUM)
		return gl.Shader{}
	}
	n := c.newName()
	c.cmdCreateShader(n, ty)
	return gl.Shader{Value: n}
}

// CreateTexture names a new texture object.
func (c *Client) CreateTexture() gl.Texture {
	n := c.newName()
	c.cmdCreateTexture(n)
	return gl.Texture{Value: n}
}

// CreateVertexArray is passed to the service, which (ES 2.0) rejects it.
func (c *Client) CreateVertexArray() gl.VertexArray {
	c.cmdCreateVertexArray()
	return gl.VertexArray{}
}

// DeleteBuffer deletes a buffer object (GL unbinds it).
func (c *Client) DeleteBuffer(v gl.Buffer) {
	c.unbindDeleted(gl.ARRAY_BUFFER_BINDING, v.Value)
	c.unbindDeleted(gl.ELEMENT_ARRAY_BUFFER_BINDING, v.Value)
	c.cmdDeleteBuffer(v)
}

// DeleteFramebuffer deletes a framebuffer object.
func (c *Client) DeleteFramebuffer(v gl.Framebuffer) {
	if v == c.boundFB {
		c.boundFB = gl.Framebuffer{}
	}
	c.unbindDeleted(gl.FRAMEBUFFER_BINDING, v.Value)
	c.cmdDeleteFramebuffer(v)
}

// DeleteProgram deletes a program object and forgets its cached info.
func (c *Client) DeleteProgram(p gl.Program) {
	delete(c.progInfo, p.Value)
	delete(c.uniformLocs, p.Value)
	delete(c.attribLocs, p.Value)
	c.cmdDeleteProgram(p)
}

// DeleteRenderbuffer deletes a renderbuffer object (GL unbinds it).
func (c *Client) DeleteRenderbuffer(v gl.Renderbuffer) {
	c.unbindDeleted(gl.RENDERBUFFER_BINDING, v.Value)
	c.cmdDeleteRenderbuffer(v)
}

// DeleteShader deletes a shader object.
func (c *Client) DeleteShader(s gl.Shader) { c.cmdDeleteShader(s) }

// DeleteTexture deletes a texture object.
func (c *Client) DeleteTexture(v gl.Texture) { c.cmdDeleteTexture(v) }

// BindFramebuffer binds a framebuffer (remembered for Image).
func (c *Client) BindFramebuffer(target gl.Enum, fb gl.Framebuffer) {
	if target == gl.FRAMEBUFFER {
		c.boundFB = fb
		c.setKnown(gl.FRAMEBUFFER_BINDING, int32(fb.Value))
	}
	c.cmdBindFramebuffer(target, fb)
}

// LinkProgram links a program; cached locations of it are dropped.
func (c *Client) LinkProgram(p gl.Program) {
	delete(c.progInfo, p.Value)
	delete(c.uniformLocs, p.Value)
	delete(c.attribLocs, p.Value)
	c.cmdLinkProgram(p)
}

// PixelStorei sets a pixel-store parameter (remembered for chunking).
func (c *Client) PixelStorei(pname gl.Enum, param int32) {
	if param == 1 || param == 2 || param == 4 || param == 8 {
		switch pname {
		case gl.UNPACK_ALIGNMENT:
			c.unpackAlign = int(param)
		case gl.PACK_ALIGNMENT:
			c.packAlign = int(param)
		}
	}
	c.cmdPixelStorei(pname, param)
}

// Flush hands everything encoded so far to the service.
func (c *Client) Flush() {
	c.cmdFlush()
	c.flush()
}

// Finish waits for the service to execute everything, GPU work included.
// A transfer buffer grown for large uploads shrinks back (not below
// TransferSize) when the uploads since the last Finish needed less than a
// quarter of it.
func (c *Client) Finish() {
	c.cmdFinish()
	if !c.sync() {
		return
	}
	if size := c.tb.ra.size; size > c.opt.TransferSize && 4*c.tbPeak < size {
		c.resizeTransferBuffer(max(c.opt.TransferSize, size/2))
	}
	c.tbPeak = 0
}

// TransferBufferSize is the transfer buffer's current size in bytes.
func (c *Client) TransferBufferSize() int { return c.tb.ra.size }

// ---- bulk data ----

// BufferData uploads src through the transfer buffer (in pieces, after a
// BufferInit, when it is larger than the transfer buffer can grow).
func (c *Client) BufferData(target gl.Enum, src []byte, usage gl.Enum) {
	if len(src) == 0 {
		c.cmdBufferData(target, 0, 0, 0, usage)
		return
	}
	if len(src) <= c.opt.MaxTransferSize {
		if off, _, ok := c.tbAlloc(len(src), true); ok {
			copy(c.tb.mem[off:], src)
			c.t.Written(c.tb.id, off, len(src))
			c.cmdBufferData(target, uint32(len(src)), c.tb.id, uint32(off), usage)
			c.tbRelease(off, len(src))
		}
		return
	}
	c.cmdBufferInit(target, len(src), usage)
	c.BufferSubData(target, 0, src)
}

// BufferSubData uploads data in transfer-buffer-sized pieces.
func (c *Client) BufferSubData(target gl.Enum, offset int, data []byte) {
	if len(data) == 0 {
		c.cmdBufferSubData(target, offset, 0, c.tb.id, 0)
		return
	}
	c.upload(data, func(id, off, size uint32, at int) {
		c.cmdBufferSubData(target, offset+at, size, id, off)
	})
}

// pixelSize is the bytes per pixel of a format/type pair, 0 if unknown.
func pixelSize(format, ty gl.Enum) int {
	comps := map[gl.Enum]int{gl.ALPHA: 1, gl.LUMINANCE: 1, gl.DEPTH_COMPONENT: 1, gl.LUMINANCE_ALPHA: 2, gl.RGB: 3, gl.RGBA: 4}[format]
	switch ty {
	case gl.UNSIGNED_BYTE:
		return comps
	case gl.UNSIGNED_SHORT_5_6_5, gl.UNSIGNED_SHORT_4_4_4_4, gl.UNSIGNED_SHORT_5_5_5_1:
		return 2
	case gl.UNSIGNED_SHORT, halfFloatOES:
		return 2 * comps
	case gl.FLOAT, gl.UNSIGNED_INT:
		return 4 * comps
	}
	return 0
}

func rowStride(width, bpp, align int) int { return (width*bpp + align - 1) / align * align }

// uploadImage sends pixel data, in row bands when it exceeds the transfer
// buffer; emit encodes one band (rows y0..y0+rows).
func (c *Client) uploadImage(data []byte, width, height int, format, ty gl.Enum, emit func(id, off, size uint32, y0, rows int)) bool {
	if len(data) <= c.opt.MaxTransferSize {
		off, _, ok := c.tbAlloc(len(data), true)
		if !ok {
			return false
		}
		copy(c.tb.mem[off:], data)
		c.t.Written(c.tb.id, off, len(data))
		emit(c.tb.id, uint32(off), uint32(len(data)), 0, height)
		c.tbRelease(off, len(data))
		return true
	}
	bpp := pixelSize(format, ty)
	if bpp == 0 || width <= 0 {
		c.recordError(gl.OUT_OF_MEMORY)
		return false
	}
	stride := rowStride(width, bpp, c.unpackAlign)
	for y := 0; y < height && !c.lost; {
		at := y * stride
		if at >= len(data) {
			break
		}
		off, got, ok := c.tbAlloc(min(len(data)-at, (height-y)*stride), false)
		if !ok {
			return false
		}
		rows := got / stride
		if rows == 0 { // the block is smaller than a row: wait for a whole one
			c.tbRelease(off, 0)
			off, got, ok = c.tbAlloc(min(stride, len(data)-at), true)
			if !ok {
				return false
			}
			rows = 1
		}
		rows = min(rows, height-y)
		n := min(rows*stride, len(data)-at)
		copy(c.tb.mem[off:off+n], data[at:at+n])
		c.t.Written(c.tb.id, off, n)
		emit(c.tb.id, uint32(off), uint32(n), y, rows)
		c.tbRelease(off, n)
		y += rows
	}
	return true
}

// TexImage2D defines a texture image; large images are sent as a
// TexImage2D without data followed by TexSubImage2D bands.
func (c *Client) TexImage2D(target gl.Enum, level int, internalFormat int, width, height int, format gl.Enum, ty gl.Enum, data []byte) {
	if data == nil {
		c.cmdTexImage2D(target, level, internalFormat, width, height, format, ty, 0, 0, 0)
		return
	}
	if len(data) <= c.opt.MaxTransferSize {
		c.uploadImage(data, width, height, format, ty, func(id, off, size uint32, _, _ int) {
			c.cmdTexImage2D(target, level, internalFormat, width, height, format, ty, size, id, off)
		})
		return
	}
	c.cmdTexImage2D(target, level, internalFormat, width, height, format, ty, 0, 0, 0)
	c.TexSubImage2D(target, level, 0, 0, width, height, format, ty, data)
}

// TexSubImage2D updates part of a texture image, in row bands if large.
func (c *Client) TexSubImage2D(target gl.Enum, level int, x, y, width, height int, format, ty gl.Enum, data []byte) {
	if len(data) == 0 {
		c.cmdTexSubImage2D(target, level, x, y, width, height, format, ty, 0, 0, 0)
		return
	}
	c.uploadImage(data, width, height, format, ty, func(id, off, size uint32, y0, rows int) {
		c.cmdTexSubImage2D(target, level, x, y+y0, width, rows, format, ty, size, id, off)
	})
}

// CompressedTexImage2D sends compressed data in one piece.
func (c *Client) CompressedTexImage2D(target gl.Enum, level int, internalformat gl.Enum, width, height, border int, data []byte) {
	if len(data) == 0 {
		c.cmdCompressedTexImage2D(target, level, internalformat, width, height, border, 0, 0, 0)
		return
	}
	off, _, ok := c.tbAlloc(len(data), true)
	if !ok {
		c.recordError(gl.OUT_OF_MEMORY)
		return
	}
	copy(c.tb.mem[off:], data)
	c.t.Written(c.tb.id, off, len(data))
	c.cmdCompressedTexImage2D(target, level, internalformat, width, height, border, uint32(len(data)), c.tb.id, uint32(off))
	c.tbRelease(off, len(data))
}

// CompressedTexSubImage2D sends compressed data in one piece.
func (c *Client) CompressedTexSubImage2D(target gl.Enum, level, xoffset, yoffset, width, height int, format gl.Enum, data []byte) {
	if len(data) == 0 {
		c.cmdCompressedTexSubImage2D(target, level, xoffset, yoffset, width, height, format, 0, 0, 0)
		return
	}
	off, _, ok := c.tbAlloc(len(data), true)
	if !ok {
		c.recordError(gl.OUT_OF_MEMORY)
		return
	}
	copy(c.tb.mem[off:], data)
	c.t.Written(c.tb.id, off, len(data))
	c.cmdCompressedTexSubImage2D(target, level, xoffset, yoffset, width, height, format, uint32(len(data)), c.tb.id, uint32(off))
	c.tbRelease(off, len(data))
}

// ReadPixels reads back through the transfer buffer, one round trip per
// band of rows that fits in it.
func (c *Client) ReadPixels(dst []byte, x, y, width, height int, format, ty gl.Enum) {
	if c.lost {
		return
	}
	bpp := pixelSize(format, ty)
	if bpp == 0 || width <= 0 || height <= 0 || len(dst) <= c.opt.MaxTransferSize {
		off, got, ok := c.tbAlloc(max(len(dst), 1), true)
		if !ok {
			c.recordError(gl.OUT_OF_MEMORY)
			return
		}
		got = len(dst)
		if c.query(func() { c.cmdReadPixels(x, y, width, height, format, ty, uint32(got), c.tb.id, uint32(off)) }) {
			copy(dst, c.tb.mem[off:off+got])
		}
		c.tbRelease(off, 0)
		return
	}
	stride := rowStride(width, bpp, c.packAlign)
	for y0 := 0; y0 < height && !c.lost; {
		at := y0 * stride
		if at >= len(dst) {
			break
		}
		rows := max(1, min(height-y0, c.opt.MaxTransferSize/stride))
		n := min(rows*stride, len(dst)-at)
		off, _, ok := c.tbAlloc(n, true)
		if !ok {
			c.recordError(gl.OUT_OF_MEMORY)
			return
		}
		if c.query(func() { c.cmdReadPixels(x, y+y0, width, rows, format, ty, uint32(n), c.tb.id, uint32(off)) }) {
			copy(dst[at:at+n], c.tb.mem[off:off+n])
		}
		c.tbRelease(off, 0)
		y0 += rows
	}
}

// Image reads the default framebuffer, top row first.
func (c *Client) Image() (*image.NRGBA, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	w, h := c.opt.Width, c.opt.Height
	fb := c.boundFB
	if fb.Value != 0 {
		c.cmdBindFramebuffer(gl.FRAMEBUFFER, gl.Framebuffer{})
	}
	pack := c.packAlign
	if pack != 4 {
		c.cmdPixelStorei(gl.PACK_ALIGNMENT, 4)
		c.packAlign = 4
	}
	buf := make([]byte, w*h*4)
	c.ReadPixels(buf, 0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE)
	if fb.Value != 0 {
		c.cmdBindFramebuffer(gl.FRAMEBUFFER, fb)
	}
	if pack != 4 {
		c.PixelStorei(gl.PACK_ALIGNMENT, int32(pack))
	}
	if err := c.Err(); err != nil {
		return nil, err
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		copy(img.Pix[y*img.Stride:y*img.Stride+w*4], buf[(h-1-y)*w*4:])
	}
	return img, nil
}

// ---- strings through buckets ----

// ShaderSource sends the source through a bucket.
func (c *Client) ShaderSource(s gl.Shader, src string) {
	c.setBucketString(src)
	c.cmdShaderSource(s, uploadBucket)
}

// BindAttribLocation sends the name through a bucket.
func (c *Client) BindAttribLocation(p gl.Program, a gl.Attrib, name string) {
	c.setBucketString(name)
	c.cmdBindAttribLocation(p, a, uploadBucket)
}

// GetUniformLocation asks the service once per program link and name.
func (c *Client) GetUniformLocation(p gl.Program, name string) gl.Uniform {
	if info := c.programInfo(p); info != nil && info.linked {
		if v, ok := findVar(info.uniforms, name); ok {
			return gl.Uniform{Value: v.loc}
		}
	}
	if m := c.uniformLocs[p.Value]; m != nil {
		if v, ok := m[name]; ok {
			return gl.Uniform{Value: v}
		}
	}
	c.setBucketString(name)
	if !c.query(func() { c.cmdGetUniformLocation(p, uploadBucket, resultID, 0) }) {
		return gl.Uniform{Value: -1}
	}
	v := int32(c.res32(0))
	if c.res32(1) == 1 { // the program was linked: cacheable until relinked
		if c.uniformLocs[p.Value] == nil {
			c.uniformLocs[p.Value] = map[string]int32{}
		}
		c.uniformLocs[p.Value][name] = v
	}
	return gl.Uniform{Value: v}
}

// GetAttribLocation asks the service once per program link and name.
func (c *Client) GetAttribLocation(p gl.Program, name string) gl.Attrib {
	if info := c.programInfo(p); info != nil && info.linked {
		if v, ok := findVar(info.attribs, name); ok {
			return gl.Attrib{Value: uint(uint32(v.loc))}
		}
	}
	if m := c.attribLocs[p.Value]; m != nil {
		if v, ok := m[name]; ok {
			return gl.Attrib{Value: uint(v)}
		}
	}
	c.setBucketString(name)
	if !c.query(func() { c.cmdGetAttribLocation(p, uploadBucket, resultID, 0) }) {
		return gl.Attrib{Value: math.MaxUint32}
	}
	v := int32(c.res32(0))
	if c.res32(1) == 1 {
		if c.attribLocs[p.Value] == nil {
			c.attribLocs[p.Value] = map[string]int32{}
		}
		c.attribLocs[p.Value][name] = v
	}
	return gl.Attrib{Value: uint(uint32(v))}
}

func (c *Client) bucketQuery(encode func()) string {
	if c.lost {
		return ""
	}
	encode()
	s, _ := c.readBucket()
	return s
}

// GetProgramInfoLog returns the link log.
func (c *Client) GetProgramInfoLog(p gl.Program) string {
	return c.bucketQuery(func() { c.cmdGetProgramInfoLog(p, downloadBucket) })
}

// GetShaderInfoLog returns the compile log.
func (c *Client) GetShaderInfoLog(s gl.Shader) string {
	return c.bucketQuery(func() { c.cmdGetShaderInfoLog(s, downloadBucket) })
}

// GetShaderSource returns the shader's source.
func (c *Client) GetShaderSource(s gl.Shader) string {
	return c.bucketQuery(func() { c.cmdGetShaderSource(s, downloadBucket) })
}

// GetString returns a context string; they never change, so each is fetched once.
func (c *Client) GetString(pname gl.Enum) string {
	if s, ok := c.strings[pname]; ok {
		return s
	}
	s := c.bucketQuery(func() { c.cmdGetString(pname, downloadBucket) })
	if s != "" {
		c.strings[pname] = s
	}
	return s
}

func (c *Client) getActive(p gl.Program, index uint32, uniform bool) (string, int, gl.Enum) {
	if c.lost {
		return "", 0, 0
	}
	if info := c.programInfo(p); info != nil && info.linked {
		vars := info.attribs
		if uniform {
			vars = info.uniforms
		}
		if int64(index) < int64(len(vars)) {
			v := vars[index]
			return v.name, v.size, v.ty
		}
	}
	if uniform {
		c.cmdGetActiveUniform(p, index, downloadBucket, resultID, 4)
	} else {
		c.cmdGetActiveAttrib(p, index, downloadBucket, resultID, 4)
	}
	name, ok := c.readBucket()
	if !ok {
		return "", 0, 0
	}
	// readBucket's GetBucketStart overwrote result word 0; the service
	// keeps size and type in words 1 and 2 of the result.
	return name, int(int32(c.res32(1))), gl.Enum(c.res32(2))
}

// GetActiveAttrib describes an active attribute.
func (c *Client) GetActiveAttrib(p gl.Program, index uint32) (string, int, gl.Enum) {
	return c.getActive(p, index, false)
}

// GetActiveUniform describes an active uniform.
func (c *Client) GetActiveUniform(p gl.Program, index uint32) (string, int, gl.Enum) {
	return c.getActive(p, index, true)
}

// GetAttachedShaders lists a program's shaders.
func (c *Client) GetAttachedShaders(p gl.Program) []gl.Shader {
	if !c.query(func() { c.cmdGetAttachedShaders(p, resultID, 0) }) {
		return nil
	}
	n := min(int(c.res32(0)), 32)
	out := make([]gl.Shader, n)
	for i := range out {
		out[i] = gl.Shader{Value: c.res32(1 + i)}
	}
	return out
}

// ---- queries through result memory ----

func (c *Client) query1(encode func()) uint32 {
	if !c.query(encode) {
		return 0
	}
	return c.res32(0)
}

// GetError returns the client's own error first, then the service's.
func (c *Client) GetError() gl.Enum {
	if c.lost {
		return ContextLost
	}
	if e := c.clientErr; e != gl.NO_ERROR {
		c.clientErr = gl.NO_ERROR
		return e
	}
	e := gl.Enum(c.query1(func() { c.cmdGetError(resultID, 0) }))
	if c.lost {
		return ContextLost
	}
	return e
}

// CheckFramebufferStatus asks the service.
func (c *Client) CheckFramebufferStatus(target gl.Enum) gl.Enum {
	return gl.Enum(c.query1(func() { c.cmdCheckFramebufferStatus(target, resultID, 0) }))
}

// GetBufferParameteri asks the service.
func (c *Client) GetBufferParameteri(target, value gl.Enum) int {
	return int(int32(c.query1(func() { c.cmdGetBufferParameteri(target, value, resultID, 0) })))
}

// GetFramebufferAttachmentParameteri asks the service.
func (c *Client) GetFramebufferAttachmentParameteri(target, attachment, pname gl.Enum) int {
	return int(int32(c.query1(func() { c.cmdGetFramebufferAttachmentParameteri(target, attachment, pname, resultID, 0) })))
}

// GetProgrami answers link status and active-variable counts from the
// program's info, anything else by asking the service.
func (c *Client) GetProgrami(p gl.Program, pname gl.Enum) int {
	if pname == gl.LINK_STATUS || pname == gl.ACTIVE_ATTRIBUTES || pname == gl.ACTIVE_UNIFORMS {
		if info := c.programInfo(p); info != nil {
			switch {
			case pname == gl.LINK_STATUS:
				return int(b2u(info.linked))
			case info.linked && pname == gl.ACTIVE_ATTRIBUTES:
				return len(info.attribs)
			case info.linked:
				return len(info.uniforms)
			}
		}
	}
	return int(int32(c.query1(func() { c.cmdGetProgrami(p, pname, resultID, 0) })))
}

// GetRenderbufferParameteri asks the service.
func (c *Client) GetRenderbufferParameteri(target, pname gl.Enum) int {
	return int(int32(c.query1(func() { c.cmdGetRenderbufferParameteri(target, pname, resultID, 0) })))
}

// GetShaderi asks the service.
func (c *Client) GetShaderi(s gl.Shader, pname gl.Enum) int {
	return int(int32(c.query1(func() { c.cmdGetShaderi(s, pname, resultID, 0) })))
}

// GetShaderPrecisionFormat asks the service.
func (c *Client) GetShaderPrecisionFormat(shadertype, precisiontype gl.Enum) (rangeLow, rangeHigh, precision int) {
	if !c.query(func() { c.cmdGetShaderPrecisionFormat(shadertype, precisiontype, resultID, 0) }) {
		return 0, 0, 0
	}
	return int(int32(c.res32(0))), int(int32(c.res32(1))), int(int32(c.res32(2)))
}

func isBool(v uint32) bool { return v != 0 }

// IsBuffer asks the service.
func (c *Client) IsBuffer(b gl.Buffer) bool {
	return isBool(c.query1(func() { c.cmdIsBuffer(b, resultID, 0) }))
}

// IsFramebuffer asks the service.
func (c *Client) IsFramebuffer(fb gl.Framebuffer) bool {
	return isBool(c.query1(func() { c.cmdIsFramebuffer(fb, resultID, 0) }))
}

// IsProgram asks the service.
func (c *Client) IsProgram(p gl.Program) bool {
	return isBool(c.query1(func() { c.cmdIsProgram(p, resultID, 0) }))
}

// IsRenderbuffer asks the service.
func (c *Client) IsRenderbuffer(rb gl.Renderbuffer) bool {
	return isBool(c.query1(func() { c.cmdIsRenderbuffer(rb, resultID, 0) }))
}

// IsShader asks the service.
func (c *Client) IsShader(s gl.Shader) bool {
	return isBool(c.query1(func() { c.cmdIsShader(s, resultID, 0) }))
}

// IsTexture asks the service.
func (c *Client) IsTexture(t gl.Texture) bool {
	return isBool(c.query1(func() { c.cmdIsTexture(t, resultID, 0) }))
}

// vector queries: result word 0 is the value count, 1..16 the values.

// constantPname reports whether a Get of pname can never change during the
// context's life (implementation limits), so the client may cache it.
func constantPname(pname gl.Enum) bool {
	switch pname {
	case gl.MAX_TEXTURE_SIZE, gl.MAX_CUBE_MAP_TEXTURE_SIZE, gl.MAX_RENDERBUFFER_SIZE, gl.MAX_VIEWPORT_DIMS,
		gl.MAX_VERTEX_ATTRIBS, gl.MAX_VERTEX_UNIFORM_VECTORS, gl.MAX_VARYING_VECTORS,
		gl.MAX_COMBINED_TEXTURE_IMAGE_UNITS, gl.MAX_VERTEX_TEXTURE_IMAGE_UNITS, gl.MAX_TEXTURE_IMAGE_UNITS,
		gl.MAX_FRAGMENT_UNIFORM_VECTORS, gl.SUBPIXEL_BITS, gl.ALIASED_POINT_SIZE_RANGE, gl.ALIASED_LINE_WIDTH_RANGE,
		gl.NUM_COMPRESSED_TEXTURE_FORMATS, gl.NUM_SHADER_BINARY_FORMATS:
		return true
	}
	return false
}

func (c *Client) getv(encode func()) ([16]uint32, int) {
	var v [16]uint32
	if !c.query(encode) {
		return v, 0
	}
	n := min(int(c.res32(0)), 16)
	for i := range n {
		v[i] = c.res32(1 + i)
	}
	return v, n
}

// GetIntegerv answers implementation limits and cached state (bindings,
// capabilities, the active texture unit) without asking; anything else,
// or state not yet known, takes one round trip.
func (c *Client) GetIntegerv(dst []int32, pname gl.Enum) {
	if v, ok := c.limits[pname]; ok {
		copy(dst, v[:])
		return
	}
	if v, ok := c.known[pname]; ok && cachedPname(pname) {
		if len(dst) > 0 {
			dst[0] = v
		}
		return
	}
	v, n := c.getv(func() { c.cmdGetIntegerv(pname, resultID, 0) })
	var iv [16]int32
	for i := range n {
		iv[i] = int32(v[i])
	}
	copy(dst, iv[:n])
	if n > 0 && !c.lost {
		if constantPname(pname) {
			c.limits[pname] = iv
		} else if cachedPname(pname) {
			c.setKnown(pname, iv[0])
		}
	}
}

// GetInteger returns the first value of GetIntegerv.
func (c *Client) GetInteger(pname gl.Enum) int {
	var v [1]int32
	c.GetIntegerv(v[:], pname)
	return int(v[0])
}

// GetFloatv asks the service.
func (c *Client) GetFloatv(dst []float32, pname gl.Enum) {
	v, n := c.getv(func() { c.cmdGetFloatv(pname, resultID, 0) })
	resultFloats(dst, v[:n])
}

// GetBooleanv asks the service.
func (c *Client) GetBooleanv(dst []bool, pname gl.Enum) {
	v, n := c.getv(func() { c.cmdGetBooleanv(pname, resultID, 0) })
	for i := 0; i < n && i < len(dst); i++ {
		dst[i] = v[i] != 0
	}
}

// GetTexParameterfv asks the service.
func (c *Client) GetTexParameterfv(dst []float32, target, pname gl.Enum) {
	v, n := c.getv(func() { c.cmdGetTexParameterfv(target, pname, resultID, 0) })
	resultFloats(dst, v[:n])
}

// GetTexParameteriv asks the service.
func (c *Client) GetTexParameteriv(dst []int32, target, pname gl.Enum) {
	v, n := c.getv(func() { c.cmdGetTexParameteriv(target, pname, resultID, 0) })
	resultInts(dst, v[:n])
}

// GetUniformfv asks the service.
func (c *Client) GetUniformfv(dst []float32, src gl.Uniform, p gl.Program) {
	v, n := c.getv(func() { c.cmdGetUniformfv(p, src, resultID, 0) })
	resultFloats(dst, v[:n])
}

// GetUniformiv asks the service.
func (c *Client) GetUniformiv(dst []int32, src gl.Uniform, p gl.Program) {
	v, n := c.getv(func() { c.cmdGetUniformiv(p, src, resultID, 0) })
	resultInts(dst, v[:n])
}

// GetVertexAttribfv asks the service.
func (c *Client) GetVertexAttribfv(dst []float32, src gl.Attrib, pname gl.Enum) {
	v, n := c.getv(func() { c.cmdGetVertexAttribfv(src, pname, resultID, 0) })
	resultFloats(dst, v[:n])
}

// GetVertexAttribiv asks the service.
func (c *Client) GetVertexAttribiv(dst []int32, src gl.Attrib, pname gl.Enum) {
	v, n := c.getv(func() { c.cmdGetVertexAttribiv(src, pname, resultID, 0) })
	resultInts(dst, v[:n])
}

// GetVertexAttribf returns the first value of GetVertexAttribfv.
func (c *Client) GetVertexAttribf(src gl.Attrib, pname gl.Enum) float32 {
	var v [4]float32
	c.GetVertexAttribfv(v[:], src, pname)
	return v[0]
}

// GetVertexAttribi returns the first value of GetVertexAttribiv.
func (c *Client) GetVertexAttribi(src gl.Attrib, pname gl.Enum) int32 {
	var v [4]int32
	c.GetVertexAttribiv(v[:], src, pname)
	return v[0]
}

const halfFloatOES gl.Enum = 0x8D61 // OES_texture_half_float

// ---- asynchronous texture upload ----

// AsyncTexSubImage2D is TexSubImage2D whose pixels the service converts and
// stores on a worker while it goes on executing this client's later
// commands (Chromium's async pixel transfer). It returns the upload's async
// token: WaitForToken(token) returns once the texture holds the pixels, and
// TokenPassed(token) tells without waiting. Commands that could observe the
// texture (draws, reads, queries, texture and framebuffer commands) run
// after the upload completes, so using the texture needs no wait; the
// token lets a client know when the upload is done without a round trip
// per check. data may be reused as soon as the call returns (it is copied
// into the transfer buffer; large images go in row bands). GL errors are
// TexSubImage2D's.
func (c *Client) AsyncTexSubImage2D(target gl.Enum, level int, x, y, width, height int, format, ty gl.Enum, data []byte) uint32 {
	if len(data) == 0 {
		c.cmdTexSubImage2D(target, level, x, y, width, height, format, ty, 0, 0, 0)
		return c.InsertToken()
	}
	c.uploadImage(data, width, height, format, ty, func(id, off, size uint32, y0, rows int) {
		c.cmdAsyncTexSubImage2D(target, level, x, y+y0, width, rows, format, ty, size, id, off)
	})
	return c.InsertToken()
}

// AsyncTexImage2D defines a texture image (as TexImage2D without data) and
// uploads its pixels asynchronously (AsyncTexSubImage2D); it returns the
// async token.
func (c *Client) AsyncTexImage2D(target gl.Enum, level int, internalFormat int, width, height int, format, ty gl.Enum, data []byte) uint32 {
	c.cmdTexImage2D(target, level, internalFormat, width, height, format, ty, 0, 0, 0)
	return c.AsyncTexSubImage2D(target, level, 0, 0, width, height, format, ty, data)
}

// TokenPassed reports, without waiting or a round trip, whether the
// service has passed token t as far as the client knows (an async token
// included); WaitForToken learns more.
func (c *Client) TokenPassed(t uint32) bool { return tokenPassed(t, c.lastToken) }

// resultFloats copies result words (float bits) into dst, as many as both hold.
func resultFloats(dst []float32, v []uint32) {
	for i := range min(len(dst), len(v)) {
		dst[i] = math.Float32frombits(v[i])
	}
}

// resultInts copies result words into dst, as many as both hold.
func resultInts(dst []int32, v []uint32) {
	for i := range min(len(dst), len(v)) {
		dst[i] = int32(v[i])
	}
}

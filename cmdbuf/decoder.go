package cmdbuf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/gles"
	"github.com/tilegpu/tilegpu/kernel"
)

// objKind is a GL object namespace the decoder maps client ids in.
type objKind int

const (
	objBuffer objKind = iota
	objTexture
	objFramebuffer
	objRenderbuffer
	objProgram
	objShader
	numObjKinds
)

// noObject is the service name passed to gles for a client id that names
// no object: gles never generates it, so gles reports the GL error that an
// unknown name deserves.
const noObject = math.MaxUint32

// maxObjects bounds the objects one client may create (each costs service memory).
const maxObjects = 1 << 20

// maxBuckets bounds how many buckets a client may have at once.
const maxBuckets = 64

// decoder executes one client's commands against its gles context
// (Chromium's GLES2DecoderImpl). Everything it reads from the ring is
// copied first, so a client that rewrites shared memory while the service
// reads it can only confuse itself.
type decoder struct {
	ss *session
	gl *gles.Context

	objs    [numObjKinds]map[uint32]uint32 // client id → service name
	rev     [numObjKinds]map[uint32]uint32 // service name → client id
	nobjs   int
	buckets map[uint32][]byte
	bucketN int
	token   uint32
	rec     *recorder  // nil unless the service records
	async   asyncState // asynchronous texture uploads (async.go)

	cmd  []uint32
	f32  []float32
	i32  []int32
	refs []shmRef
}

// shmRef records a transfer-buffer range a command resolved, so a write to
// it can be reported to transports without shared memory.
type shmRef struct {
	id, off uint32
	b       []byte
}

func newDecoder(ss *session) *decoder {
	d := &decoder{ss: ss, gl: ss.gl, buckets: map[uint32][]byte{}}
	for k := range d.objs {
		d.objs[k], d.rev[k] = map[uint32]uint32{}, map[uint32]uint32{}
	}
	return d
}

// ParseError is a malformed command: the client loses its context.
type ParseError struct {
	Offset  uint32 // ring entry of the command
	Command string // its name, or "id N" when unknown
	Reason  string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("parse error at ring entry %d (%s): %s", e.Offset, e.Command, e.Reason)
}

type cmdError string

func (e cmdError) Error() string { return string(e) }

// process executes the commands in ring[get:put] and returns the new get.
func (d *decoder) process(get, put uint32) (uint32, error) {
	// The session publishes get and the token when this returns: every
	// upload of the batch is in its texture by then.
	defer d.finishUploads()
	ring := d.ss.ring
	n := uint32(len(ring))
	for get != put {
		h := ring[get]
		size, id := SplitHeader(h)
		avail := put - get
		if put < get {
			avail = n - get // a command never straddles the end of the ring
		}
		if size == 0 {
			return get, &ParseError{get, commandName(id), "command size 0"}
		}
		if uint32(size) > avail {
			return get, &ParseError{get, commandName(id), fmt.Sprintf("command of %d entries runs past the put offset (%d entries available)", size, avail)}
		}
		if cap(d.cmd) < size {
			d.cmd = make([]uint32, size)
		}
		cmd := d.cmd[:size]
		copy(cmd, ring[get:get+uint32(size)])
		cmd[0] = h // the header as validated
		d.refs = d.refs[:0]
		if len(d.async.pending) > 0 && (int(id) >= len(asyncIndependent) || !asyncIndependent[id]) {
			d.finishUploads()
		}
		if err := d.execute(id, cmd); err != nil {
			return get, &ParseError{get, commandName(id), err.Error()}
		}
		if d.rec != nil {
			d.rec.command(cmd)
		}
		if err := d.gl.LastDriverError(); err != nil && errors.Is(err, kernel.EIO) {
			// The kernel reset this client's context after its GPU work
			// faulted or hung (it is guilty): the context is lost, as in
			// Chromium, rather than left reporting OUT_OF_MEMORY forever.
			return get + uint32(size), &ParseError{get, commandName(id), "GPU context reset (this client's work faulted or hung): " + err.Error()}
		}
		get += uint32(size)
		if get == n {
			get = 0
		}
	}
	return get, nil
}

// commandName names a command id for error messages.
func commandName(id CommandID) string {
	if info, ok := Info(id); ok {
		return info.Name
	}
	return fmt.Sprintf("id %d", id)
}

func (d *decoder) badSize(id CommandID, got, want int) error {
	return cmdError(fmt.Sprintf("size %d entries is wrong (fixed part %d)", got, want))
}

func (d *decoder) badID(id CommandID) error {
	return cmdError(fmt.Sprintf("unknown command id %d", id))
}

func (d *decoder) badBool(id CommandID, arg string, v uint32) error {
	return cmdError(fmt.Sprintf("argument %s is %d, not a boolean (0 or 1)", arg, v))
}

func (d *decoder) argError(id CommandID, arg string, err error) error {
	return cmdError(fmt.Sprintf("argument %s: %v", arg, err))
}

// shm resolves size bytes at off in transfer buffer id.
func (d *decoder) shm(id, off, size uint32, optional bool) ([]byte, error) {
	if id == 0 && optional {
		return nil, nil
	}
	mem, ok := d.ss.buffers[id]
	if !ok {
		return nil, fmt.Errorf("shared memory id %d is not registered", id)
	}
	if uint64(off)+uint64(size) > uint64(len(mem)) {
		return nil, fmt.Errorf("range %d+%d is outside shared memory %d (%d bytes)", off, size, id, len(mem))
	}
	b := mem[off : off+size : off+size]
	if d.rec != nil {
		d.rec.memory(id, off, b)
	}
	if d.ss.written != nil {
		d.refs = append(d.refs, shmRef{id, off, b})
	}
	return b, nil
}

// wrote reports a write into b (a slice shm returned) to the transport.
func (d *decoder) wrote(b []byte) {
	if d.ss.written == nil || len(b) == 0 {
		return
	}
	for _, r := range d.refs {
		if len(r.b) > 0 && unsafe.SliceData(r.b) == unsafe.SliceData(b) {
			d.ss.written(r.id, int(r.off), len(b))
			return
		}
	}
}

func (d *decoder) f32s(c []uint32) []float32 {
	if cap(d.f32) < len(c) {
		d.f32 = make([]float32, len(c))
	}
	v := d.f32[:len(c)]
	for i, x := range c {
		v[i] = math.Float32frombits(x)
	}
	return v
}

func (d *decoder) i32s(c []uint32) []int32 {
	if cap(d.i32) < len(c) {
		d.i32 = make([]int32, len(c))
	}
	v := d.i32[:len(c)]
	for i, x := range c {
		v[i] = int32(x)
	}
	return v
}

func (d *decoder) bytes(c []uint32, n uint32) []byte {
	b := make([]byte, 4*len(c))
	for i, x := range c {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b[:n]
}

// object maps a client id; create makes the object for a new id (glBind*).
func (d *decoder) object(k objKind, id uint32, create bool) uint32 {
	if id == 0 {
		return 0
	}
	if v, ok := d.objs[k][id]; ok {
		return v
	}
	if !create || d.nobjs >= maxObjects {
		return noObject
	}
	var v uint32
	switch k {
	case objBuffer:
		v = d.gl.CreateBuffer().Value
	case objTexture:
		v = d.gl.CreateTexture().Value
	case objFramebuffer:
		v = d.gl.CreateFramebuffer().Value
	case objRenderbuffer:
		v = d.gl.CreateRenderbuffer().Value
	default:
		return noObject
	}
	d.mapObject(k, id, v)
	return v
}

func (d *decoder) program(id uint32) gl.Program {
	if id == 0 {
		return gl.Program{}
	}
	return gl.Program{Init: true, Value: d.object(objProgram, id, false)}
}

func (d *decoder) mapObject(k objKind, id, v uint32) {
	d.objs[k][id], d.rev[k][v] = v, id
	d.nobjs++
}

// unmap forgets the object whose service name is v; it returns false when
// v names nothing the client has.
func (d *decoder) unmap(k objKind, v uint32) bool {
	id, ok := d.rev[k][v]
	if !ok {
		return false
	}
	delete(d.rev[k], v)
	delete(d.objs[k], id)
	d.nobjs--
	return true
}

// clientName maps a service name back for queries that return names.
func (d *decoder) clientName(k objKind, v uint32) uint32 {
	if v == 0 {
		return 0
	}
	return d.rev[k][v]
}

func (d *decoder) newID(k objKind, id uint32) error {
	if id == 0 || id == noObject {
		return fmt.Errorf("object id %d is reserved", id)
	}
	if _, ok := d.objs[k][id]; ok {
		return fmt.Errorf("object id %d is already in use", id)
	}
	if d.nobjs >= maxObjects {
		return fmt.Errorf("the client has its maximum of %d objects", maxObjects)
	}
	return nil
}

// ---- common commands ----

func (d *decoder) doSetToken(token uint32) error { d.token = token; return nil }

func (d *decoder) doSetBucketSize(bucket, size uint32) error {
	old, ok := d.buckets[bucket]
	if size == 0 {
		if ok {
			d.bucketN -= len(old)
			delete(d.buckets, bucket)
		}
		return nil
	}
	if !ok && len(d.buckets) >= maxBuckets {
		return fmt.Errorf("more than %d buckets", maxBuckets)
	}
	if uint64(d.bucketN-len(old))+uint64(size) > uint64(d.ss.svc.cfg.MaxBucketBytes) {
		return fmt.Errorf("bucket size %d exceeds the client's %d bucket bytes", size, d.ss.svc.cfg.MaxBucketBytes)
	}
	d.bucketN += int(size) - len(old)
	b := make([]byte, size)
	copy(b, old)
	d.buckets[bucket] = b
	return nil
}

func (d *decoder) bucketRange(bucket, offset, size uint32) ([]byte, error) {
	b, ok := d.buckets[bucket]
	if !ok {
		return nil, fmt.Errorf("bucket %d does not exist", bucket)
	}
	if uint64(offset)+uint64(size) > uint64(len(b)) {
		return nil, fmt.Errorf("range %d+%d is outside bucket %d (%d bytes)", offset, size, bucket, len(b))
	}
	return b[offset : offset+size], nil
}

func (d *decoder) doSetBucketData(bucket, offset, size uint32, data []byte) error {
	b, err := d.bucketRange(bucket, offset, size)
	if err != nil {
		return err
	}
	copy(b, data)
	return nil
}

func (d *decoder) doSetBucketDataImmediate(bucket, offset, size uint32, data []byte) error {
	return d.doSetBucketData(bucket, offset, size, data)
}

func (d *decoder) doGetBucketStart(bucket uint32, result []byte, size uint32, data []byte) error {
	b, ok := d.buckets[bucket]
	if !ok {
		return fmt.Errorf("bucket %d does not exist", bucket)
	}
	binary.LittleEndian.PutUint32(result, uint32(len(b)))
	d.wrote(result)
	n := copy(data, b)
	d.wrote(data[:n])
	return nil
}

func (d *decoder) doGetBucketData(bucket, offset, size uint32, data []byte) error {
	b, err := d.bucketRange(bucket, offset, size)
	if err != nil {
		return err
	}
	copy(data, b)
	d.wrote(data)
	return nil
}

// bucketString reads a bucket the client filled.
func (d *decoder) bucketString(bucket uint32) (string, error) {
	b, ok := d.buckets[bucket]
	if !ok {
		return "", fmt.Errorf("bucket %d does not exist", bucket)
	}
	return string(b), nil
}

// setBucketString fills a bucket for the client to fetch.
func (d *decoder) setBucketString(bucket uint32, s string) error {
	if err := d.doSetBucketSize(bucket, 0); err != nil {
		return err
	}
	if len(s) == 0 {
		if len(d.buckets) >= maxBuckets {
			return fmt.Errorf("more than %d buckets", maxBuckets)
		}
		d.buckets[bucket] = []byte{}
		return nil
	}
	if err := d.doSetBucketSize(bucket, uint32(len(s))); err != nil {
		return err
	}
	copy(d.buckets[bucket], s)
	return nil
}

// ---- results ----

func (d *decoder) put32(result []byte, vals ...uint32) {
	for i, v := range vals {
		binary.LittleEndian.PutUint32(result[4*i:], v)
	}
	d.wrote(result)
}

func (d *decoder) putBool(result []byte, v bool) { d.put32(result, b2u(v)) }

// putVec writes a 16-value vector result: count then values.
func (d *decoder) putVec(result []byte, v *[16]uint32) {
	binary.LittleEndian.PutUint32(result, 16)
	for i, x := range v {
		binary.LittleEndian.PutUint32(result[4+4*i:], x)
	}
	d.wrote(result)
}

// ---- object commands ----

func (d *decoder) doCreateBuffer(id uint32) error {
	if err := d.newID(objBuffer, id); err != nil {
		return err
	}
	d.mapObject(objBuffer, id, d.gl.CreateBuffer().Value)
	return nil
}

func (d *decoder) doCreateTexture(id uint32) error {
	if err := d.newID(objTexture, id); err != nil {
		return err
	}
	d.mapObject(objTexture, id, d.gl.CreateTexture().Value)
	return nil
}

func (d *decoder) doCreateFramebuffer(id uint32) error {
	if err := d.newID(objFramebuffer, id); err != nil {
		return err
	}
	d.mapObject(objFramebuffer, id, d.gl.CreateFramebuffer().Value)
	return nil
}

func (d *decoder) doCreateRenderbuffer(id uint32) error {
	if err := d.newID(objRenderbuffer, id); err != nil {
		return err
	}
	d.mapObject(objRenderbuffer, id, d.gl.CreateRenderbuffer().Value)
	return nil
}

func (d *decoder) doCreateProgram(id uint32) error {
	if err := d.newID(objProgram, id); err != nil {
		return err
	}
	if p := d.gl.CreateProgram(); p.Value != 0 {
		d.mapObject(objProgram, id, p.Value)
	}
	return nil
}

func (d *decoder) doCreateShader(id uint32, ty gl.Enum) error {
	if err := d.newID(objShader, id); err != nil {
		return err
	}
	if s := d.gl.CreateShader(ty); s.Value != 0 {
		d.mapObject(objShader, id, s.Value)
	}
	return nil
}

func (d *decoder) doCreateVertexArray() error { d.gl.CreateVertexArray(); return nil }

func (d *decoder) doDeleteBuffer(v gl.Buffer) error {
	if d.unmap(objBuffer, v.Value) {
		d.gl.DeleteBuffer(v)
	}
	return nil
}

func (d *decoder) doDeleteTexture(v gl.Texture) error {
	if d.unmap(objTexture, v.Value) {
		d.gl.DeleteTexture(v)
	}
	return nil
}

func (d *decoder) doDeleteFramebuffer(v gl.Framebuffer) error {
	if d.unmap(objFramebuffer, v.Value) {
		d.gl.DeleteFramebuffer(v)
	}
	return nil
}

func (d *decoder) doDeleteRenderbuffer(v gl.Renderbuffer) error {
	if d.unmap(objRenderbuffer, v.Value) {
		d.gl.DeleteRenderbuffer(v)
	}
	return nil
}

func (d *decoder) doDeleteProgram(p gl.Program) error {
	if d.unmap(objProgram, p.Value) {
		d.gl.DeleteProgram(p)
	}
	return nil
}

func (d *decoder) doDeleteShader(s gl.Shader) error {
	if d.unmap(objShader, s.Value) {
		d.gl.DeleteShader(s)
	}
	return nil
}

// ---- strings ----

func (d *decoder) doShaderSource(s gl.Shader, bucket uint32) error {
	src, err := d.bucketString(bucket)
	if err != nil {
		return err
	}
	d.gl.ShaderSource(s, src)
	return nil
}

func (d *decoder) doBindAttribLocation(p gl.Program, a gl.Attrib, bucket uint32) error {
	name, err := d.bucketString(bucket)
	if err != nil {
		return err
	}
	d.gl.BindAttribLocation(p, a, name)
	return nil
}

func (d *decoder) doGetUniformLocation(p gl.Program, bucket uint32, result []byte) error {
	name, err := d.bucketString(bucket)
	if err != nil {
		return err
	}
	u := d.gl.GetUniformLocation(p, name)
	d.put32(result, uint32(u.Value), b2u(u.Value >= 0))
	return nil
}

func (d *decoder) doGetAttribLocation(p gl.Program, bucket uint32, result []byte) error {
	name, err := d.bucketString(bucket)
	if err != nil {
		return err
	}
	a := d.gl.GetAttribLocation(p, name)
	d.put32(result, uint32(a.Value), b2u(int32(a.Value) >= 0))
	return nil
}

func (d *decoder) doGetProgramInfoLog(p gl.Program, bucket uint32) error {
	return d.setBucketString(bucket, d.gl.GetProgramInfoLog(p))
}

func (d *decoder) doGetShaderInfoLog(s gl.Shader, bucket uint32) error {
	return d.setBucketString(bucket, d.gl.GetShaderInfoLog(s))
}

func (d *decoder) doGetShaderSource(s gl.Shader, bucket uint32) error {
	return d.setBucketString(bucket, d.gl.GetShaderSource(s))
}

func (d *decoder) doGetString(pname gl.Enum, bucket uint32) error {
	return d.setBucketString(bucket, d.gl.GetString(pname))
}

func (d *decoder) doGetActiveAttrib(p gl.Program, index, bucket uint32, result []byte) error {
	name, size, ty := d.gl.GetActiveAttrib(p, index)
	d.put32(result, uint32(int32(size)), uint32(ty))
	return d.setBucketString(bucket, name)
}

func (d *decoder) doGetActiveUniform(p gl.Program, index, bucket uint32, result []byte) error {
	name, size, ty := d.gl.GetActiveUniform(p, index)
	d.put32(result, uint32(int32(size)), uint32(ty))
	return d.setBucketString(bucket, name)
}

func (d *decoder) doGetAttachedShaders(p gl.Program, result []byte) error {
	sh := d.gl.GetAttachedShaders(p)
	n := min(len(sh), 32)
	binary.LittleEndian.PutUint32(result, uint32(n))
	for i := range n {
		binary.LittleEndian.PutUint32(result[4+4*i:], d.clientName(objShader, sh[i].Value))
	}
	d.wrote(result)
	return nil
}

// ---- scalar and vector queries ----

func (d *decoder) doGetError(result []byte) error {
	d.put32(result, uint32(d.gl.GetError()))
	return nil
}

func (d *decoder) doCheckFramebufferStatus(target gl.Enum, result []byte) error {
	d.put32(result, uint32(d.gl.CheckFramebufferStatus(target)))
	return nil
}

func (d *decoder) doGetBufferParameteri(target, value gl.Enum, result []byte) error {
	d.put32(result, uint32(int32(d.gl.GetBufferParameteri(target, value))))
	return nil
}

func (d *decoder) doGetFramebufferAttachmentParameteri(target, attachment, pname gl.Enum, result []byte) error {
	v := d.gl.GetFramebufferAttachmentParameteri(target, attachment, pname)
	if pname == gl.FRAMEBUFFER_ATTACHMENT_OBJECT_NAME {
		ty := gl.Enum(d.gl.GetFramebufferAttachmentParameteri(target, attachment, gl.FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE))
		if ty == gl.TEXTURE {
			v = int(d.clientName(objTexture, uint32(v)))
		} else if ty == gl.RENDERBUFFER {
			v = int(d.clientName(objRenderbuffer, uint32(v)))
		}
	}
	d.put32(result, uint32(int32(v)))
	return nil
}

func (d *decoder) doGetProgrami(p gl.Program, pname gl.Enum, result []byte) error {
	d.put32(result, uint32(int32(d.gl.GetProgrami(p, pname))))
	return nil
}

func (d *decoder) doGetRenderbufferParameteri(target, pname gl.Enum, result []byte) error {
	d.put32(result, uint32(int32(d.gl.GetRenderbufferParameteri(target, pname))))
	return nil
}

func (d *decoder) doGetShaderi(s gl.Shader, pname gl.Enum, result []byte) error {
	d.put32(result, uint32(int32(d.gl.GetShaderi(s, pname))))
	return nil
}

func (d *decoder) doGetShaderPrecisionFormat(shadertype, precisiontype gl.Enum, result []byte) error {
	lo, hi, prec := d.gl.GetShaderPrecisionFormat(shadertype, precisiontype)
	d.put32(result, uint32(int32(lo)), uint32(int32(hi)), uint32(int32(prec)))
	return nil
}

// bindingKind is the namespace of a Get pname that returns an object name.
func bindingKind(pname gl.Enum) (objKind, bool) {
	switch pname {
	case gl.ARRAY_BUFFER_BINDING, gl.ELEMENT_ARRAY_BUFFER_BINDING:
		return objBuffer, true
	case gl.TEXTURE_BINDING_2D, gl.TEXTURE_BINDING_CUBE_MAP:
		return objTexture, true
	case gl.FRAMEBUFFER_BINDING:
		return objFramebuffer, true
	case gl.RENDERBUFFER_BINDING:
		return objRenderbuffer, true
	case gl.CURRENT_PROGRAM:
		return objProgram, true
	}
	return 0, false
}

func (d *decoder) doGetIntegerv(pname gl.Enum, result []byte) error {
	var v [16]int32
	d.gl.GetIntegerv(v[:], pname)
	var u [16]uint32
	for i, x := range v {
		u[i] = uint32(x)
	}
	if k, ok := bindingKind(pname); ok {
		u[0] = d.clientName(k, u[0])
	}
	d.putVec(result, &u)
	return nil
}

func (d *decoder) doGetFloatv(pname gl.Enum, result []byte) error {
	var v [16]float32
	d.gl.GetFloatv(v[:], pname)
	var u [16]uint32
	for i, x := range v {
		u[i] = math.Float32bits(x)
	}
	if k, ok := bindingKind(pname); ok {
		u[0] = math.Float32bits(float32(d.clientName(k, uint32(v[0]))))
	}
	d.putVec(result, &u)
	return nil
}

func (d *decoder) doGetBooleanv(pname gl.Enum, result []byte) error {
	var v [16]bool
	d.gl.GetBooleanv(v[:], pname)
	var u [16]uint32
	for i, x := range v {
		u[i] = b2u(x)
	}
	d.putVec(result, &u)
	return nil
}

func (d *decoder) putFloats(result []byte, v []float32) {
	var u [16]uint32
	for i, x := range v {
		u[i] = math.Float32bits(x)
	}
	d.putVec(result, &u)
}

func (d *decoder) putInts(result []byte, v []int32) {
	var u [16]uint32
	for i, x := range v {
		u[i] = uint32(x)
	}
	d.putVec(result, &u)
}

func (d *decoder) doGetTexParameterfv(target, pname gl.Enum, result []byte) error {
	var v [16]float32
	d.gl.GetTexParameterfv(v[:], target, pname)
	d.putFloats(result, v[:])
	return nil
}

func (d *decoder) doGetTexParameteriv(target, pname gl.Enum, result []byte) error {
	var v [16]int32
	d.gl.GetTexParameteriv(v[:], target, pname)
	d.putInts(result, v[:])
	return nil
}

func (d *decoder) doGetUniformfv(p gl.Program, loc gl.Uniform, result []byte) error {
	var v [16]float32
	d.gl.GetUniformfv(v[:], loc, p)
	d.putFloats(result, v[:])
	return nil
}

func (d *decoder) doGetUniformiv(p gl.Program, loc gl.Uniform, result []byte) error {
	var v [16]int32
	d.gl.GetUniformiv(v[:], loc, p)
	d.putInts(result, v[:])
	return nil
}

func (d *decoder) doGetVertexAttribfv(a gl.Attrib, pname gl.Enum, result []byte) error {
	var v [16]float32
	d.gl.GetVertexAttribfv(v[:], a, pname)
	d.putFloats(result, v[:])
	return nil
}

func (d *decoder) doGetVertexAttribiv(a gl.Attrib, pname gl.Enum, result []byte) error {
	var v [16]int32
	d.gl.GetVertexAttribiv(v[:], a, pname)
	if pname == gl.VERTEX_ATTRIB_ARRAY_BUFFER_BINDING {
		v[0] = int32(d.clientName(objBuffer, uint32(v[0])))
	}
	d.putInts(result, v[:])
	return nil
}

func (d *decoder) doIsBuffer(b gl.Buffer, result []byte) error {
	d.putBool(result, d.gl.IsBuffer(b))
	return nil
}

func (d *decoder) doIsEnabled(c gl.Enum, result []byte) error {
	d.putBool(result, d.gl.IsEnabled(c))
	return nil
}

func (d *decoder) doIsFramebuffer(fb gl.Framebuffer, result []byte) error {
	d.putBool(result, d.gl.IsFramebuffer(fb))
	return nil
}

func (d *decoder) doIsProgram(p gl.Program, result []byte) error {
	d.putBool(result, d.gl.IsProgram(p))
	return nil
}

func (d *decoder) doIsRenderbuffer(rb gl.Renderbuffer, result []byte) error {
	d.putBool(result, d.gl.IsRenderbuffer(rb))
	return nil
}

func (d *decoder) doIsShader(s gl.Shader, result []byte) error {
	d.putBool(result, d.gl.IsShader(s))
	return nil
}

func (d *decoder) doIsTexture(t gl.Texture, result []byte) error {
	d.putBool(result, d.gl.IsTexture(t))
	return nil
}

func (d *decoder) doReadPixels(x, y, width, height int, format, ty gl.Enum, size uint32, data []byte) error {
	d.gl.ReadPixels(data, x, y, width, height, format, ty)
	d.wrote(data)
	return nil
}

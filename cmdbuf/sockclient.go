package cmdbuf

import (
	"errors"
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// sockTransport is the client side of the Unix and TCP transports.
type sockTransport struct {
	mc     msgConn
	remote bool // TCP: memory is copied, not shared
	bufs   map[uint32][]byte
	closed bool
	err    error
	addr   string

	// TCP only: what to send before the next flush.
	ring    uint32
	sentPut uint32
	dirty   []span
}

type span struct {
	id       uint32
	off, len int
}

// DialUnix connects to a service's Unix-domain socket; shared memory is
// memfd, mapped on both sides.
func DialUnix(path string) (Transport, error) {
	c, err := net.DialUnix("unixpacket", nil, &net.UnixAddr{Name: path, Net: "unixpacket"})
	if err != nil {
		return nil, fmt.Errorf("cmdbuf: %w", err)
	}
	return handshake(&packetConn{c: c}, false, "unix:"+path)
}

// DialTCP connects to a service over TCP; ring segments and transfer-buffer
// contents are copied in framed messages.
func DialTCP(addr string) (Transport, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cmdbuf: %w", err)
	}
	c.(*net.TCPConn).SetNoDelay(true)
	return handshake(newStreamConn(c), true, "tcp:"+addr)
}

func handshake(mc msgConn, remote bool, addr string) (Transport, error) {
	m, fd, err := mc.recv()
	if fd >= 0 {
		unix.Close(fd)
	}
	if err == nil && m.typ != mHello {
		err = fmt.Errorf("protocol error: first message has type %d", m.typ)
	} else if err == nil && m.a[0] != 1 {
		err = fmt.Errorf("service refused the connection: %s", m.data)
	}
	if err != nil {
		mc.Close()
		return nil, fmt.Errorf("cmdbuf: %w", err)
	}
	return &sockTransport{mc: mc, remote: remote, bufs: map[uint32][]byte{}, addr: addr}, nil
}

// call sends a request and reads its reply.
func (t *sockTransport) call(m *msg, fd int, want uint8) (*msg, error) {
	if t.closed {
		return nil, errClosed
	}
	if t.err != nil {
		return nil, t.err
	}
	if err := t.mc.send(m, fd); err != nil {
		t.err = fmt.Errorf("cmdbuf: connection to the service: %w", err)
		return nil, t.err
	}
	for {
		r, rfd, err := t.mc.recv()
		if rfd >= 0 {
			unix.Close(rfd)
		}
		if err != nil {
			t.err = fmt.Errorf("cmdbuf: connection to the service: %w", err)
			return nil, t.err
		}
		if r.typ == mData && t.remote {
			mem := t.bufs[r.a[0]]
			if mem == nil || uint64(r.a[1])+uint64(len(r.data)) > uint64(len(mem)) {
				t.err = errors.New("cmdbuf: protocol error: service wrote outside shared memory")
				return nil, t.err
			}
			copy(mem[r.a[1]:], r.data)
			continue
		}
		if r.typ != want {
			t.err = fmt.Errorf("cmdbuf: protocol error: got message %d, want %d", r.typ, want)
			return nil, t.err
		}
		return r, nil
	}
}

func (t *sockTransport) CreateBuffer(id uint32, size int) ([]byte, error) {
	if size <= 0 {
		return nil, errors.New("cmdbuf: shared memory size must be positive")
	}
	if t.remote {
		mem := make([]byte, size)
		r, err := t.call(&msg{typ: mCreate, a: [4]uint32{id, uint32(size)}}, -1, mReply)
		if err != nil {
			return nil, err
		}
		if err := replyErr(r, mReply); err != nil {
			return nil, err
		}
		t.bufs[id] = mem
		return mem, nil
	}
	fd, err := unix.MemfdCreate("tilegpu-cmdbuf", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("cmdbuf: memfd_create: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		return nil, fmt.Errorf("cmdbuf: sizing shared memory: %w", err)
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_SEAL); err != nil {
		return nil, fmt.Errorf("cmdbuf: sealing shared memory: %w", err)
	}
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("cmdbuf: mapping shared memory: %w", err)
	}
	r, err := t.call(&msg{typ: mCreate, a: [4]uint32{id, uint32(size)}}, fd, mReply)
	if err == nil {
		err = replyErr(r, mReply)
	}
	if err != nil {
		unix.Munmap(mem)
		return nil, err
	}
	t.bufs[id] = mem
	return mem, nil
}

func (t *sockTransport) DestroyBuffer(id uint32) error {
	r, err := t.call(&msg{typ: mDestroy, a: [4]uint32{id}}, -1, mReply)
	if err != nil {
		return err
	}
	if err := replyErr(r, mReply); err != nil {
		return err
	}
	if mem := t.bufs[id]; mem != nil && !t.remote {
		unix.Munmap(mem)
	}
	delete(t.bufs, id)
	return nil
}

func (t *sockTransport) Written(id uint32, off, n int) {
	if !t.remote || n <= 0 {
		return
	}
	if k := len(t.dirty) - 1; k >= 0 && t.dirty[k].id == id && t.dirty[k].off+t.dirty[k].len == off {
		t.dirty[k].len += n
		return
	}
	t.dirty = append(t.dirty, span{id, off, n})
}

func (t *sockTransport) Start(ring uint32, width, height int) error {
	t.ring = ring
	r, err := t.call(&msg{typ: mStart, a: [4]uint32{ring, uint32(width), uint32(height)}}, -1, mReply)
	if err != nil {
		return err
	}
	return replyErr(r, mReply)
}

// push sends (TCP) the dirty transfer-buffer ranges and the new ring entries.
func (t *sockTransport) push(put uint32) error {
	if !t.remote {
		return nil
	}
	send := func(id uint32, off, n int) error {
		mem := t.bufs[id]
		for n > 0 {
			k := min(n, maxMsgData)
			if err := t.mc.send(&msg{typ: mData, a: [4]uint32{id, uint32(off)}, data: mem[off : off+k]}, -1); err != nil {
				return err
			}
			off, n = off+k, n-k
		}
		return nil
	}
	for _, d := range t.dirty {
		if err := send(d.id, d.off, d.len); err != nil {
			return err
		}
	}
	t.dirty = t.dirty[:0]
	ringLen := uint32(len(t.bufs[t.ring]) / 4)
	if put != t.sentPut && put < ringLen {
		if put > t.sentPut {
			if err := send(t.ring, int(4*t.sentPut), int(4*(put-t.sentPut))); err != nil {
				return err
			}
		} else {
			if err := send(t.ring, int(4*t.sentPut), int(4*(ringLen-t.sentPut))); err != nil {
				return err
			}
			if err := send(t.ring, 0, int(4*put)); err != nil {
				return err
			}
		}
		t.sentPut = put
	}
	return nil
}

func (t *sockTransport) Flush(put uint32) error {
	if t.closed {
		return errClosed
	}
	if t.err != nil {
		return t.err
	}
	if err := t.push(put); err != nil {
		t.err = err
		return err
	}
	if err := t.mc.send(&msg{typ: mFlush, a: [4]uint32{put}}, -1); err != nil {
		t.err = err
		return err
	}
	return nil
}

func (t *sockTransport) Wait(put uint32) (State, error) {
	if t.err == nil && !t.closed {
		if err := t.push(put); err != nil {
			t.err = err
		}
	}
	r, err := t.call(&msg{typ: mWait, a: [4]uint32{put}}, -1, mState)
	if err != nil {
		return State{}, err
	}
	return State{Get: r.a[0], Token: r.a[1], Lost: r.a[2] != 0, Reason: string(r.data)}, nil
}

func (t *sockTransport) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	err := t.mc.Close()
	if !t.remote {
		for _, mem := range t.bufs {
			unix.Munmap(mem)
		}
	}
	t.bufs = nil
	return err
}

// Addr is the address this transport dialled, in Dial's form.
func (t *sockTransport) Addr() string { return t.addr }

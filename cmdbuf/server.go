package cmdbuf

import (
	"errors"
	"fmt"
	"net"
	"sync"

	"golang.org/x/sys/unix"
)

// ServeUnix accepts clients on l (a "unixpacket" listener, see ListenUnix)
// until l is closed. Each client's shared memory arrives as sealed memfds
// mapped into the service.
func (s *Service) ServeUnix(l *net.UnixListener) error {
	for {
		c, err := l.AcceptUnix()
		if err != nil {
			return err
		}
		go s.serveConn(&packetConn{c: c}, false, "unix")
	}
}

// ServeTCP accepts clients on l until l is closed. Shared memory is copied
// across the connection: ring segments and transfer-buffer contents travel
// as framed messages.
func (s *Service) ServeTCP(l net.Listener) error {
	for {
		c, err := l.Accept()
		if err != nil {
			return err
		}
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetNoDelay(true)
		}
		go s.serveConn(newStreamConn(c), true, "tcp "+c.RemoteAddr().String())
	}
}

// ListenUnix listens for clients on a Unix-domain SOCK_SEQPACKET socket.
func ListenUnix(path string) (*net.UnixListener, error) {
	return net.ListenUnix("unixpacket", &net.UnixAddr{Name: path, Net: "unixpacket"})
}

// serveConn runs one client connection: the control messages drive its
// session; a disconnect (or any protocol error) releases everything.
func (s *Service) serveConn(mc msgConn, remote bool, via string) {
	defer mc.Close()
	ss, err := s.connect(via)
	if err != nil {
		s.logf("refused a client (%s): %v", via, err)
		mc.send(&msg{typ: mHello, data: []byte(err.Error())}, -1)
		return
	}
	var mapped []([]byte) // memfd mappings to undo when the session ends
	var mapMu sync.Mutex
	// The hooks are set under the session's lock: Service.Close may close
	// the session (and run release) from another goroutine at any time.
	ss.mu.Lock()
	ss.release = func() {
		mapMu.Lock()
		defer mapMu.Unlock()
		for _, m := range mapped {
			unix.Munmap(m)
		}
		mapped = nil
	}
	var wmu sync.Mutex
	type span struct {
		id       uint32
		off, len int
	}
	var writes []span
	if remote {
		ss.written = func(id uint32, off, n int) {
			wmu.Lock()
			writes = append(writes, span{id, off, n})
			wmu.Unlock()
		}
	}
	ss.mu.Unlock()
	defer ss.close()
	if err := mc.send(&msg{typ: mHello, a: [4]uint32{1}}, -1); err != nil {
		return
	}
	for {
		m, fd, err := mc.recv()
		if err != nil {
			if fd >= 0 {
				unix.Close(fd)
			}
			return
		}
		if fd >= 0 && m.typ != mCreate {
			unix.Close(fd)
			fd = -1
		}
		var reply *msg
		switch m.typ {
		case mStart:
			reply = okMsg(ss.start(m.a[0], int(m.a[1]), int(m.a[2])))
		case mCreate:
			id, size := m.a[0], int(m.a[1])
			var mem []byte
			switch {
			case size <= 0 || size > s.cfg.MaxSharedMemory:
				err = fmt.Errorf("shared memory size %d not in 1..%d", size, s.cfg.MaxSharedMemory)
			case remote:
				mem = make([]byte, size)
			case fd < 0:
				err = errors.New("shared memory without a file descriptor")
			default:
				mem, err = mapMemfd(fd, size)
				unix.Close(fd)
				fd = -1
			}
			if err == nil {
				if err = ss.registerBuffer(id, mem); err != nil && !remote {
					unix.Munmap(mem)
				} else if err == nil && !remote {
					mapMu.Lock()
					mapped = append(mapped, mem)
					mapMu.Unlock()
				}
			}
			if fd >= 0 {
				unix.Close(fd)
			}
			reply = okMsg(err)
		case mDestroy:
			mem, err := ss.destroyBuffer(m.a[0])
			if err == nil && !remote {
				mapMu.Lock()
				for i, mm := range mapped {
					if len(mm) > 0 && &mm[0] == &mem[0] {
						mapped = append(mapped[:i], mapped[i+1:]...)
						unix.Munmap(mm)
						break
					}
				}
				mapMu.Unlock()
			}
			reply = okMsg(err)
		case mFlush:
			ss.flush(m.a[0])
		case mData:
			if !remote {
				s.logf("client %d: data message on a shared-memory transport", ss.id)
				return
			}
			mem := ss.buffer(m.a[0])
			off := uint64(m.a[1])
			if mem == nil || off+uint64(len(m.data)) > uint64(len(mem)) {
				s.logf("client %d: data for shared memory %d at %d+%d is out of range; disconnecting", ss.id, m.a[0], off, len(m.data))
				return
			}
			copy(mem[off:], m.data)
		case mWait:
			st := ss.wait(m.a[0])
			if remote {
				wmu.Lock()
				ws := writes
				writes = nil
				wmu.Unlock()
				for _, w := range ws {
					mem := ss.buffer(w.id)
					if mem == nil || w.off+w.len > len(mem) {
						continue
					}
					if err := mc.send(&msg{typ: mData, a: [4]uint32{w.id, uint32(w.off)}, data: mem[w.off : w.off+w.len]}, -1); err != nil {
						return
					}
				}
			}
			reply = &msg{typ: mState, a: [4]uint32{st.Get, st.Token, b2u(st.Lost)}, data: []byte(st.Reason)}
		default:
			s.logf("client %d: unexpected message type %d; disconnecting", ss.id, m.typ)
			return
		}
		if reply != nil {
			if err := mc.send(reply, -1); err != nil {
				return
			}
		}
	}
}

// mapMemfd maps a client's memfd after checking that it is sealed against
// shrinking (so the client cannot make the service's mapping fault) and is
// as large as claimed.
func mapMemfd(fd, size int) ([]byte, error) {
	seals, err := unix.FcntlInt(uintptr(fd), unix.F_GET_SEALS, 0)
	if err != nil {
		return nil, fmt.Errorf("shared memory is not a sealable memfd: %v", err)
	}
	if seals&unix.F_SEAL_SHRINK == 0 {
		return nil, errors.New("shared memory memfd is not sealed against shrinking")
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Size < int64(size) {
		return nil, fmt.Errorf("shared memory memfd has %d bytes, %d claimed", st.Size, size)
	}
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mapping shared memory: %v", err)
	}
	return mem, nil
}

// packetConn is a Unix SOCK_SEQPACKET connection: one message per packet.
type packetConn struct {
	c   *net.UnixConn
	wmu sync.Mutex
	buf []byte
	oob []byte
	in  msg
}

func (p *packetConn) send(m *msg, fd int) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	b := make([]byte, msgHeader+len(m.data))
	m.encodeHeader(b)
	copy(b[msgHeader:], m.data)
	var oob []byte
	if fd >= 0 {
		oob = unix.UnixRights(fd)
	}
	_, _, err := p.c.WriteMsgUnix(b, oob, nil)
	return err
}

func (p *packetConn) recv() (*msg, int, error) {
	if p.buf == nil {
		p.buf = make([]byte, 64<<10)
		p.oob = make([]byte, unix.CmsgSpace(4*4))
	}
	n, oobn, flags, _, err := p.c.ReadMsgUnix(p.buf, p.oob)
	fd := -1
	if oobn > 0 {
		if cms, perr := unix.ParseSocketControlMessage(p.oob[:oobn]); perr == nil {
			for _, cm := range cms {
				fds, _ := unix.ParseUnixRights(&cm)
				for _, f := range fds {
					if fd < 0 {
						fd = f
					} else {
						unix.Close(f) // only one descriptor per message
					}
				}
			}
		}
	}
	if err != nil {
		return nil, fd, err
	}
	if n == 0 {
		return nil, fd, errors.New("connection closed")
	}
	if flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 || n < msgHeader {
		return nil, fd, fmt.Errorf("malformed packet (%d bytes, flags %#x)", n, flags)
	}
	m, dn, err := decodeHeader(p.buf[:msgHeader])
	if err != nil {
		return nil, fd, err
	}
	if int(dn) != n-msgHeader {
		return nil, fd, fmt.Errorf("packet of %d bytes declares %d data bytes", n, dn)
	}
	m.data = p.buf[msgHeader:n]
	p.in = m
	return &p.in, fd, nil
}

func (p *packetConn) Close() error { return p.c.Close() }

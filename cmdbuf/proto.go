package cmdbuf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
)

// The control protocol of the socket transports. Every message is a
// 24-byte header — type (1 byte, 3 bytes zero), four 32-bit arguments,
// data length — followed by the data. Over a Unix socket (SOCK_SEQPACKET)
// one message is one packet and CreateBuffer carries the memfd as
// SCM_RIGHTS; over TCP messages are framed on the stream and mData carries
// shared-memory contents both ways, since nothing is shared.
const (
	mHello   = 1 // service → client: a[0] = 1 admitted, else data = why not
	mStart   = 2 // a = ring id, width, height
	mCreate  = 3 // a = id, size (+ fd over Unix)
	mDestroy = 4 // a = id
	mFlush   = 5 // a = put; no reply
	mWait    = 6 // a = put; reply mState (after any mData)
	mData    = 7 // a = id, offset; data = bytes
	mReply   = 8 // a[0] = 1 ok, else data = error
	mState   = 9 // a = get, token, lost; data = reason

	msgHeader  = 24
	maxMsgData = 64 << 20 // the most one message may carry
)

type msg struct {
	typ  uint8
	a    [4]uint32
	data []byte
}

func (m *msg) encodeHeader(b []byte) {
	b[0], b[1], b[2], b[3] = m.typ, 0, 0, 0
	for i, v := range m.a {
		binary.LittleEndian.PutUint32(b[4+4*i:], v)
	}
	binary.LittleEndian.PutUint32(b[20:], uint32(len(m.data)))
}

func decodeHeader(b []byte) (m msg, n uint32, err error) {
	m.typ = b[0]
	if m.typ < mHello || m.typ > mState || b[1]|b[2]|b[3] != 0 {
		return m, 0, fmt.Errorf("bad message type %d", b[0])
	}
	for i := range m.a {
		m.a[i] = binary.LittleEndian.Uint32(b[4+4*i:])
	}
	n = binary.LittleEndian.Uint32(b[20:])
	if n > maxMsgData {
		return m, 0, fmt.Errorf("message of %d bytes exceeds %d", n, maxMsgData)
	}
	return m, n, nil
}

// msgConn is a message channel: a Unix seqpacket socket or a TCP stream.
type msgConn interface {
	// send writes m (with fd attached when fd >= 0).
	send(m *msg, fd int) error
	// recv reads the next message; its data stays valid until the next
	// recv. fd is -1 unless a descriptor came with it.
	recv() (*msg, int, error)
	Close() error
}

// streamConn frames messages on a byte stream (TCP).
type streamConn struct {
	c   net.Conn
	r   *bufio.Reader
	wmu sync.Mutex
	w   *bufio.Writer
	hdr [msgHeader]byte
	buf []byte
	in  msg
}

func newStreamConn(c net.Conn) *streamConn {
	return &streamConn{c: c, r: bufio.NewReaderSize(c, 256<<10), w: bufio.NewWriterSize(c, 256<<10)}
}

func (s *streamConn) send(m *msg, fd int) error {
	if fd >= 0 {
		return errors.New("cmdbuf: a TCP connection cannot carry file descriptors")
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var h [msgHeader]byte
	m.encodeHeader(h[:])
	if _, err := s.w.Write(h[:]); err != nil {
		return err
	}
	if _, err := s.w.Write(m.data); err != nil {
		return err
	}
	// Only messages that end a batch are pushed out at once.
	if m.typ != mData {
		return s.w.Flush()
	}
	return nil
}

func (s *streamConn) recv() (*msg, int, error) {
	if _, err := io.ReadFull(s.r, s.hdr[:]); err != nil {
		return nil, -1, err
	}
	m, n, err := decodeHeader(s.hdr[:])
	if err != nil {
		return nil, -1, err
	}
	if cap(s.buf) < int(n) {
		s.buf = make([]byte, n)
	}
	m.data = s.buf[:n]
	if _, err := io.ReadFull(s.r, m.data); err != nil {
		return nil, -1, err
	}
	s.in = m
	return &s.in, -1, nil
}

func (s *streamConn) Close() error { return s.c.Close() }

// replyErr turns a reply message into an error.
func replyErr(m *msg, want uint8) error {
	if m.typ != want {
		return fmt.Errorf("cmdbuf: protocol error: got message %d, want %d", m.typ, want)
	}
	if m.a[0] != 1 {
		return fmt.Errorf("cmdbuf: service: %s", m.data)
	}
	return nil
}

func okMsg(err error) *msg {
	if err != nil {
		return &msg{typ: mReply, data: []byte(err.Error())}
	}
	return &msg{typ: mReply, a: [4]uint32{1}}
}

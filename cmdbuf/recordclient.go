package cmdbuf

import (
	"bufio"
	"io"
)

// recordingTransport records, on the client's side, the stream a client
// sends: at each flush it walks the new ring entries and writes every
// command with the shared memory it names, in the format the service's
// recorder writes (see record.go), so Replay and DecodeRecording read both.
// Reading transfer-buffer contents at flush time is exact: a block is not
// reused before the service passes its token, which lies after the flush.
type recordingTransport struct {
	Transport
	rec  *recorder
	bufs map[uint32][]byte
	ring []uint32
	last uint32 // ring entries recorded up to here
}

// Record wraps t so that everything a Client sends through it is also
// recorded to w (closed, if it is an io.Closer, when the transport is).
func Record(t Transport, w io.Writer) Transport {
	r := &recorder{w: bufio.NewWriterSize(w, 1<<20)}
	if c, ok := w.(io.Closer); ok {
		r.c = c
	}
	r.w.WriteString(recordMagic)
	return &recordingTransport{Transport: t, rec: r, bufs: map[uint32][]byte{}}
}

func (t *recordingTransport) CreateBuffer(id uint32, size int) ([]byte, error) {
	mem, err := t.Transport.CreateBuffer(id, size)
	if err == nil {
		t.bufs[id] = mem
	}
	return mem, err
}

func (t *recordingTransport) DestroyBuffer(id uint32) error {
	delete(t.bufs, id)
	return t.Transport.DestroyBuffer(id)
}

func (t *recordingTransport) Start(ring uint32, width, height int) error {
	if err := t.Transport.Start(ring, width, height); err != nil {
		return err
	}
	t.ring = entries(t.bufs[ring])
	t.rec.start(width, height)
	return nil
}

// capture records the commands in ring[last:put].
func (t *recordingTransport) capture(put uint32) {
	n := uint32(len(t.ring))
	for t.last != put && put < n && t.rec.err == nil {
		size, id := SplitHeader(t.ring[t.last])
		avail := put - t.last
		if put < t.last {
			avail = n - t.last
		}
		if size == 0 || uint32(size) > avail {
			return // not a stream the client helper writes; the service will say why
		}
		cmd := t.ring[t.last : t.last+uint32(size)]
		if info, ok := Info(id); ok && len(cmd) >= info.Fixed {
			i := 1
			for _, a := range info.Args {
				switch a.Kind {
				case ArgShm, ArgShmOpt:
					sz := a.LenConst
					if a.Len >= 0 {
						sz = cmd[a.Len]
					}
					mem, off := t.bufs[cmd[i]], cmd[i+1]
					if uint64(off)+uint64(sz) <= uint64(len(mem)) {
						t.rec.memory(cmd[i], off, mem[off:off+sz])
					}
					i += 2
				case ArgF32s, ArgI32s, ArgBytes, ArgPad:
				default:
					i++
				}
			}
		}
		t.rec.command(cmd)
		t.last += uint32(size)
		if t.last == n {
			t.last = 0
		}
	}
}

func (t *recordingTransport) Flush(put uint32) error {
	t.capture(put)
	return t.Transport.Flush(put)
}

func (t *recordingTransport) Wait(put uint32) (State, error) {
	t.capture(put)
	return t.Transport.Wait(put)
}

func (t *recordingTransport) Close() error {
	err := t.Transport.Close()
	if rerr := t.rec.close(); err == nil {
		err = rerr
	}
	return err
}

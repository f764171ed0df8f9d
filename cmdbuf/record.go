package cmdbuf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"

	"github.com/tilegpu/tilegpu/gl"
)

// A recording is one client's command stream with the shared memory each
// command read, as the service executed it, so that the stream can be
// re-executed on a fresh GPU (apitrace / gfxreconstruct style). Format:
// the magic "TGCB1\n", then records, each a one-byte tag and
// little-endian 32-bit fields:
//
//	'S' width height             the context was created
//	'M' id offset length bytes    shared memory a command is about to read
//	'C' n entries[n]              a command (header included) that executed
const recordMagic = "TGCB1\n"

// Limits a recording reader enforces, so a damaged file is an error rather
// than an unbounded allocation.
const (
	maxRecordedBuffer = 256 << 20
)

type recorder struct {
	f   *os.File  // the service's recording file, or nil
	c   io.Closer // closed with the recorder when not nil
	w   *bufio.Writer
	err error
}

func newRecorder(dir string, client uint64) (*recorder, error) {
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("client-%d.tgcb", client)))
	if err != nil {
		return nil, err
	}
	r := &recorder{f: f, c: f, w: bufio.NewWriterSize(f, 1<<20)}
	r.w.WriteString(recordMagic)
	return r, nil
}

// u32s writes a tag (none when 0) and little-endian words.
func (r *recorder) u32s(tag byte, vals ...uint32) {
	if r.err != nil {
		return
	}
	if tag != 0 {
		r.w.WriteByte(tag)
	}
	var b [4]byte
	for _, v := range vals {
		binary.LittleEndian.PutUint32(b[:], v)
		r.w.Write(b[:])
	}
}

func (r *recorder) start(w, h int) { r.u32s('S', uint32(w), uint32(h)) }

func (r *recorder) memory(id, off uint32, b []byte) {
	r.u32s('M', id, off, uint32(len(b)))
	if r.err == nil {
		_, r.err = r.w.Write(b)
	}
}

func (r *recorder) command(cmd []uint32) {
	r.u32s('C', uint32(len(cmd)))
	r.u32s(0, cmd...)
}

// close writes out the recording.
func (r *recorder) close() error {
	err := r.w.Flush()
	if r.c != nil {
		if cerr := r.c.Close(); err == nil {
			err = cerr
		}
	}
	if r.err != nil {
		return r.err
	}
	return err
}

// recordReader reads a recording.
type recordReader struct {
	r   *bufio.Reader
	buf []byte
	cmd []uint32
}

func newRecordReader(r io.Reader) (*recordReader, error) {
	rr := &recordReader{r: bufio.NewReaderSize(r, 1<<20)}
	magic := make([]byte, len(recordMagic))
	if _, err := io.ReadFull(rr.r, magic); err != nil || string(magic) != recordMagic {
		return nil, errors.New("cmdbuf: not a command-buffer recording (bad magic)")
	}
	return rr, nil
}

func (rr *recordReader) u32() (uint32, error) {
	var b [4]byte
	if _, err := io.ReadFull(rr.r, b[:]); err != nil {
		return 0, fmt.Errorf("cmdbuf: truncated recording: %w", err)
	}
	return binary.LittleEndian.Uint32(b[:]), nil
}

// record is one entry of a recording.
type record struct {
	tag       byte
	a, b      uint32 // S: width, height; M: id, offset
	data      []byte // M
	cmd       []uint32
	recordPos int64
}

// next returns the next record, or io.EOF at the end.
func (rr *recordReader) next() (*record, error) {
	tag, err := rr.r.ReadByte()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		return nil, err
	}
	rec := &record{tag: tag}
	switch tag {
	case 'S':
		if rec.a, err = rr.u32(); err == nil {
			rec.b, err = rr.u32()
		}
		return rec, err
	case 'M':
		var n uint32
		if rec.a, err = rr.u32(); err != nil {
			return nil, err
		}
		if rec.b, err = rr.u32(); err != nil {
			return nil, err
		}
		if n, err = rr.u32(); err != nil {
			return nil, err
		}
		if uint64(rec.b)+uint64(n) > maxRecordedBuffer {
			return nil, fmt.Errorf("cmdbuf: recording: shared memory %d+%d beyond %d bytes", rec.b, n, maxRecordedBuffer)
		}
		if cap(rr.buf) < int(n) {
			rr.buf = make([]byte, n)
		}
		rec.data = rr.buf[:n]
		if _, err := io.ReadFull(rr.r, rec.data); err != nil {
			return nil, fmt.Errorf("cmdbuf: truncated recording: %w", err)
		}
		return rec, nil
	case 'C':
		n, err := rr.u32()
		if err != nil {
			return nil, err
		}
		if n == 0 || n > maxCommandLen {
			return nil, fmt.Errorf("cmdbuf: recording: command of %d entries", n)
		}
		if cap(rr.cmd) < int(n) {
			rr.cmd = make([]uint32, n)
		}
		rec.cmd = rr.cmd[:n]
		for i := range rec.cmd {
			if rec.cmd[i], err = rr.u32(); err != nil {
				return nil, err
			}
		}
		return rec, nil
	}
	return nil, fmt.Errorf("cmdbuf: recording: unknown record tag %#x", tag)
}

// DecodeRecording prints a recording command by command with arguments
// (the shared memory each command read is summarised).
func DecodeRecording(r io.Reader, w io.Writer) error {
	rr, err := newRecordReader(r)
	if err != nil {
		return err
	}
	for n := 0; ; n++ {
		rec, err := rr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch rec.tag {
		case 'S':
			fmt.Fprintf(w, "context %dx%d\n", rec.a, rec.b)
		case 'M':
			fmt.Fprintf(w, "        shm(%d)+%d: %d bytes\n", rec.a, rec.b, len(rec.data))
		case 'C':
			fmt.Fprintf(w, "%6d  %s\n", n, DescribeCommand(rec.cmd))
		}
	}
}

// Replay re-executes a recording on a fresh GPU (configured by cfg) and
// returns the default framebuffer, top row first. A command that the
// service rejects is an error naming it.
func Replay(r io.Reader, cfg ServiceConfig) (*image.NRGBA, error) {
	rr, err := newRecordReader(r)
	if err != nil {
		return nil, err
	}
	cfg.RecordDir = ""
	s, err := NewService(cfg)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	ss, err := s.connect("replay")
	if err != nil {
		return nil, err
	}
	defer ss.close()
	var d *decoder
	var w, h int
	for n := 0; ; n++ {
		rec, err := rr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch rec.tag {
		case 'S':
			if d != nil {
				return nil, errors.New("cmdbuf: recording starts two contexts")
			}
			w, h = int(rec.a), int(rec.b)
			if err := ss.registerBuffer(^uint32(0), make([]byte, 64)); err != nil {
				return nil, err
			}
			if err := ss.start(^uint32(0), w, h); err != nil {
				return nil, fmt.Errorf("cmdbuf: replay: %w", err)
			}
			d = ss.dec
			// Memory records rewrite shared memory between commands, so
			// an upload must not be read after its command.
			d.async.inline = true
		case 'M':
			if d == nil {
				return nil, errors.New("cmdbuf: recording has memory before its context")
			}
			end := int(rec.b) + len(rec.data)
			mem := ss.buffers[rec.a]
			if len(mem) < end {
				grown := make([]byte, end)
				copy(grown, mem)
				ss.mu.Lock()
				ss.buffers[rec.a] = grown
				ss.mu.Unlock()
				mem = grown
			}
			copy(mem[rec.b:], rec.data)
		case 'C':
			if d == nil {
				return nil, errors.New("cmdbuf: recording has commands before its context")
			}
			size, id := SplitHeader(rec.cmd[0])
			if size != len(rec.cmd) {
				return nil, fmt.Errorf("cmdbuf: recording: record %d: header says %d entries, record has %d", n, size, len(rec.cmd))
			}
			d.refs = d.refs[:0]
			if err := d.execute(id, rec.cmd); err != nil {
				return nil, fmt.Errorf("cmdbuf: replay: record %d (%s): %v", n, DescribeCommand(rec.cmd), err)
			}
		}
	}
	if d == nil {
		return nil, errors.New("cmdbuf: recording has no context")
	}
	d.gl.BindFramebuffer(gl.FRAMEBUFFER, gl.Framebuffer{})
	d.gl.PixelStorei(gl.PACK_ALIGNMENT, 4)
	buf := make([]byte, w*h*4)
	d.gl.ReadPixels(buf, 0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE)
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		copy(img.Pix[y*img.Stride:y*img.Stride+w*4], buf[(h-1-y)*w*4:])
	}
	return img, nil
}

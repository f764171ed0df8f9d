package cmdbuf

import (
	"bytes"
	"encoding/binary"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/gl"
)

var (
	fuzzOnce sync.Once
	fuzzSvc  *Service
)

func fuzzService(t testing.TB) *Service {
	fuzzOnce.Do(func() {
		var err error
		fuzzSvc, err = NewService(ServiceConfig{MemorySize: 128 << 20, Cores: 1, MaxBucketBytes: 1 << 20, JobTimeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
	})
	return fuzzSvc
}

func words(ws ...uint32) []byte {
	b := make([]byte, 4*len(ws))
	for i, w := range ws {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

// FuzzDecoder runs arbitrary ring contents (with an arbitrary transfer
// buffer, id 3) through a fresh client session: the service must never
// panic or hang, and anything it rejects must be a parse error that loses
// the context.
func FuzzDecoder(f *testing.F) {
	f.Add(words(header(5, CmdClearColor), 0, 0x3f800000, 0, 0x3f800000, header(2, CmdClear), gl.COLOR_BUFFER_BIT), []byte{})
	f.Add(words(header(2, CmdCreateBuffer), 7, header(3, CmdBindBuffer), gl.ARRAY_BUFFER, 7,
		header(6, CmdBufferData), gl.ARRAY_BUFFER, 16, 3, 0, gl.STATIC_DRAW), make([]byte, 64))
	f.Add(words(header(3, CmdSetBucketSize), 1, 4, header(5, CmdSetBucketDataImmediate), 1, 0, 4, 0x41414141,
		header(2, CmdCreateShader), 9, gl.VERTEX_SHADER, header(3, CmdShaderSource), 9, 1), []byte{})
	f.Add(words(header(3, CmdGetError), 3, 0, header(2, CmdSetToken), 5), make([]byte, 16))
	f.Add(words(header(9, CmdReadPixels), 0, 0, 2, 2, gl.RGBA, gl.UNSIGNED_BYTE, 16, 3, 0), make([]byte, 16))
	// A texture defined, then an asynchronous RGB upload into it and a draw
	// that completes it.
	f.Add(words(header(3, CmdBindTexture), gl.TEXTURE_2D, 5,
		header(11, CmdTexImage2D), gl.TEXTURE_2D, 0, gl.RGB, 2, 2, gl.RGB, gl.UNSIGNED_BYTE, 0, 0, 0,
		header(12, CmdAsyncTexSubImage2D), gl.TEXTURE_2D, 0, 0, 0, 2, 2, gl.RGB, gl.UNSIGNED_BYTE, 16, 3, 0,
		header(4, CmdDrawArrays), gl.TRIANGLES, 0, 3), make([]byte, 16))
	f.Fuzz(func(t *testing.T, ring, tb []byte) {
		if len(ring) > 16<<10 || len(tb) > 64<<10 {
			return
		}
		s := fuzzService(t)
		ss, err := s.connect("fuzz")
		if err != nil {
			t.Fatal(err)
		}
		defer ss.close()
		n := len(ring) / 4
		mem := make([]byte, max(64, 4*(n+1)))
		copy(mem, ring[:4*n])
		if err := ss.registerBuffer(1, mem); err != nil {
			t.Fatal(err)
		}
		if len(tb) > 0 {
			if err := ss.registerBuffer(3, append([]byte(nil), tb...)); err != nil {
				t.Fatal(err)
			}
		}
		if err := ss.start(1, 16, 16); err != nil {
			t.Fatal(err)
		}
		st := ss.wait(uint32(n))
		if st.Lost && !strings.HasPrefix(st.Reason, "parse error") {
			t.Fatalf("context lost for a reason other than a parse error: %s", st.Reason)
		}
		if !st.Lost && st.Get != uint32(n) {
			t.Fatalf("service stopped at %d of %d without losing the context", st.Get, n)
		}
	})
}

// FuzzDecodeStream: the tools' stream decoder describes anything.
func FuzzDecodeStream(f *testing.F) {
	f.Add(words(header(6, CmdUniform4f), 1, 2, 3, 4, 5, header(4, CmdUniform4fv), 1, 1, 7))
	f.Add(words(0xffffffff, 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		ws := make([]uint32, len(b)/4)
		for i := range ws {
			ws[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
		DecodeStream(ws)
		if len(ws) > 0 {
			DescribeCommand(ws)
		}
	})
}

// FuzzStreamMessages feeds arbitrary bytes to the TCP framing reader.
func FuzzStreamMessages(f *testing.F) {
	var good bytes.Buffer
	for _, m := range []msg{{typ: mFlush, a: [4]uint32{5}}, {typ: mData, a: [4]uint32{3, 8}, data: []byte("abcd")}} {
		var h [msgHeader]byte
		m.encodeHeader(h[:])
		good.Write(h[:])
		good.Write(m.data)
	}
	f.Add(good.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		a, c := net.Pipe()
		defer a.Close()
		go func() { c.Write(b); c.Close() }()
		sc := newStreamConn(a)
		for range 100 {
			m, _, err := sc.recv()
			if err != nil {
				return
			}
			if len(m.data) > maxMsgData {
				t.Fatalf("message with %d bytes accepted", len(m.data))
			}
		}
	})
}

var (
	connFuzzOnce sync.Once
	connFuzzSvc  *Service
)

// FuzzServeConn drives a TCP-style connection with arbitrary control
// messages (create, destroy, start, data, flush, wait in any order and
// with any arguments): the service must neither panic nor keep the
// session once the client hangs up.
func FuzzServeConn(f *testing.F) {
	var seed bytes.Buffer
	for _, m := range []msg{
		{typ: mCreate, a: [4]uint32{1, 4096}},
		{typ: mCreate, a: [4]uint32{3, 4096}},
		{typ: mStart, a: [4]uint32{1, 8, 8}},
		{typ: mData, a: [4]uint32{1, 0}, data: words(header(2, CmdSetToken), 5)},
		{typ: mWait, a: [4]uint32{2}},
		{typ: mDestroy, a: [4]uint32{3}},
	} {
		var h [msgHeader]byte
		m.encodeHeader(h[:])
		seed.Write(h[:])
		seed.Write(m.data)
	}
	f.Add(seed.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		connFuzzOnce.Do(func() {
			var err error
			connFuzzSvc, err = NewService(ServiceConfig{MemorySize: 64 << 20, Cores: 1, MaxSharedMemory: 1 << 20, MaxBucketBytes: 1 << 16})
			if err != nil {
				t.Fatal(err)
			}
		})
		s := connFuzzSvc
		client, server := net.Pipe()
		done := make(chan struct{})
		go func() {
			s.serveConn(newStreamConn(server), true, "fuzz")
			close(done)
		}()
		go func() {
			buf := make([]byte, 4096)
			for {
				if _, err := client.Read(buf); err != nil {
					return
				}
			}
		}()
		client.Write(b)
		client.Close()
		<-done
		if n := s.Clients(); n != 0 {
			t.Fatalf("%d sessions left after the client hung up", n)
		}
	})
}

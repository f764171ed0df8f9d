package cmdbuf

import (
	"errors"
	"fmt"
	"strings"
)

// State is what the service reports back to a client: how far it has read
// the ring (Get, in entries), the last token it passed, and whether the
// context is lost and why.
type State struct {
	Get    uint32
	Token  uint32
	Lost   bool
	Reason string
}

// Transport is the client's channel to a service (Chromium's
// gpu::CommandBuffer): shared memory registration, the put pointer, and
// waiting for the service. The same Client runs over every transport.
type Transport interface {
	// CreateBuffer makes size bytes of memory shared with the service and
	// registers them under id. The client writes commands and data into it.
	CreateBuffer(id uint32, size int) ([]byte, error)
	// DestroyBuffer unregisters a buffer; no pending command may refer to it.
	DestroyBuffer(id uint32) error
	// Written tells the transport the client wrote mem[off:off+n] of buffer
	// id (only transports without shared memory, such as TCP, need it).
	Written(id uint32, off, n int)
	// Start creates the client's context: the ring is buffer ring, the
	// default framebuffer width×height.
	Start(ring uint32, width, height int) error
	// Flush hands the put offset (entries) to the service without waiting.
	Flush(put uint32) error
	// Wait flushes put and returns once the service has executed every
	// command before it, or has lost the context.
	Wait(put uint32) (State, error)
	// Close disconnects; the service releases everything the client had.
	Close() error
}

// ErrContextLost is the error a Client reports once its context is lost.
var ErrContextLost = errors.New("cmdbuf: GPU context lost")

// Dial connects to a service at addr, "unix:PATH" or "tcp:HOST:PORT".
func Dial(addr string) (Transport, error) {
	switch {
	case strings.HasPrefix(addr, "unix:"):
		return DialUnix(strings.TrimPrefix(addr, "unix:"))
	case strings.HasPrefix(addr, "tcp:"):
		return DialTCP(strings.TrimPrefix(addr, "tcp:"))
	}
	return nil, fmt.Errorf("cmdbuf: address %q is neither unix:PATH nor tcp:HOST:PORT", addr)
}

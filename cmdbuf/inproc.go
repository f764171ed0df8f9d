package cmdbuf

import (
	"errors"
	"fmt"
)

// inProcess is the in-process transport: the service's goroutines share
// the client's address space, so shared memory is plain Go memory.
type inProcess struct {
	ss     *session
	closed bool
}

// NewInProcess connects a client transport to s within this process (for
// tests and for embedding the service).
func NewInProcess(s *Service) (Transport, error) {
	ss, err := s.connect("in-process")
	if err != nil {
		return nil, err
	}
	return &inProcess{ss: ss}, nil
}

var errClosed = errors.New("cmdbuf: transport is closed")

func (t *inProcess) CreateBuffer(id uint32, size int) ([]byte, error) {
	if t.closed {
		return nil, errClosed
	}
	if size <= 0 || size > t.ss.svc.cfg.MaxSharedMemory {
		return nil, fmt.Errorf("cmdbuf: shared memory size %d not in 1..%d", size, t.ss.svc.cfg.MaxSharedMemory)
	}
	mem := make([]byte, size)
	if err := t.ss.registerBuffer(id, mem); err != nil {
		return nil, err
	}
	return mem, nil
}

func (t *inProcess) DestroyBuffer(id uint32) error {
	if t.closed {
		return errClosed
	}
	_, err := t.ss.destroyBuffer(id)
	return err
}

func (t *inProcess) Written(uint32, int, int) {}

func (t *inProcess) Start(ring uint32, width, height int) error {
	if t.closed {
		return errClosed
	}
	return t.ss.start(ring, width, height)
}

func (t *inProcess) Flush(put uint32) error {
	if t.closed {
		return errClosed
	}
	t.ss.flush(put)
	return nil
}

func (t *inProcess) Wait(put uint32) (State, error) {
	if t.closed {
		return State{}, errClosed
	}
	return t.ss.wait(put), nil
}

func (t *inProcess) Close() error {
	if !t.closed {
		t.closed = true
		t.ss.close()
	}
	return nil
}

package pal

import "errors"

// Errors callers can test for with errors.Is. Each returned error wraps
// one of these and names the object and what was wrong.
var (
	// ErrInvalidArgument: a create-info or command argument is out of range.
	ErrInvalidArgument = errors.New("pal: invalid argument")
	// ErrUnsupported: the TG GPU or this driver cannot do what was asked.
	ErrUnsupported = errors.New("pal: unsupported")
	// ErrNotRecording: a command was recorded into a command buffer that
	// is not between Begin and End.
	ErrNotRecording = errors.New("pal: command buffer is not recording")
	// ErrCmdBufferExecuting: Begin, Reset or a command on a command buffer
	// whose last submission is still executing on the GPU.
	ErrCmdBufferExecuting = errors.New("pal: command buffer is executing")
	// ErrCmdBufferNotEnded: a command buffer that was not ended (or whose
	// recording failed) was submitted.
	ErrCmdBufferNotEnded = errors.New("pal: command buffer was not ended")
	// ErrRecordingFailed: End of a command buffer in which a command failed.
	ErrRecordingFailed = errors.New("pal: command buffer recording failed")
	// ErrAlreadyBound: BindGpuMemory on an object that already has memory.
	ErrAlreadyBound = errors.New("pal: object already has GPU memory bound")
	// ErrNotBound: an object is used before memory was bound to it.
	ErrNotBound = errors.New("pal: object has no GPU memory bound")
	// ErrTimeout: a wait did not finish within its timeout.
	ErrTimeout = errors.New("pal: timed out")
	// ErrFenceNeverSubmitted: Wait on a fence no submission signals.
	ErrFenceNeverSubmitted = errors.New("pal: fence was never submitted")
	// ErrNotResident: a submission uses GPU memory that is neither in its
	// GpuMemoryRefs nor in the device's references.
	ErrNotResident = errors.New("pal: GPU memory not resident")
	// ErrDestroyed: an object was used after Destroy.
	ErrDestroyed = errors.New("pal: object destroyed")
	// ErrWrongDevice: objects of different devices were combined.
	ErrWrongDevice = errors.New("pal: object belongs to another device")
	// ErrNotReady: a query's or experiment's results are not available
	// (still running, or never submitted).
	ErrNotReady = errors.New("pal: results not ready")
)

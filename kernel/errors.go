package kernel

import "fmt"

// Errno is an errno-like error class. Errno values are themselves errors, so
// errors.Is(err, kernel.EINVAL) reports whether err is an *Error of that
// class.
type Errno int

// The error classes returned by the driver.
const (
	EINVAL    Errno = iota + 1 // malformed argument or control list
	ENOENT                     // no such handle or fence
	EFAULT                     // an address or range outside its object
	EBUSY                      // object in use
	ETIMEDOUT                  // a wait ran out of time
	ENOMEM                     // out of GPU memory or address space
	EIO                        // the context was reset after a GPU fault or hang
)

var errnoNames = [...]string{"", "EINVAL", "ENOENT", "EFAULT", "EBUSY", "ETIMEDOUT", "ENOMEM", "EIO"}

func (e Errno) String() string {
	if e > 0 && int(e) < len(errnoNames) {
		return errnoNames[e]
	}
	return fmt.Sprintf("Errno(%d)", int(e))
}

func (e Errno) Error() string { return e.String() }

// Error is the error type of every call: an errno and a message naming what
// was wrong. Error() is "EINVAL: bin CL offset 12: unknown opcode 0x2f".
type Error struct {
	Errno Errno
	Msg   string
}

func (e *Error) Error() string { return e.Errno.String() + ": " + e.Msg }

// Is makes errors.Is(err, kernel.EINVAL) and errors.Is(err, &Error{Errno: EINVAL}) work.
func (e *Error) Is(target error) bool {
	switch t := target.(type) {
	case Errno:
		return e.Errno == t
	case *Error:
		return e.Errno == t.Errno && (t.Msg == "" || t.Msg == e.Msg)
	}
	return false
}

func errorf(no Errno, format string, args ...any) *Error {
	return &Error{Errno: no, Msg: fmt.Sprintf(format, args...)}
}

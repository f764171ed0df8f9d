package glsl

import (
	"fmt"
	"strings"
)

// Error is one compile or link diagnostic. Line is the source line as
// adjusted by #line (0 for link errors); Token is the offending token or name.
type Error struct {
	Line  int
	Token string
	Msg   string
	Link  bool // found by Link rather than by Parse
}

// Error formats the diagnostic the way glslangValidator does:
// "ERROR: 0:LINE: 'token' : message", or "ERROR: Linking: 'token' : message".
func (e Error) Error() string {
	if e.Link {
		return fmt.Sprintf("ERROR: Linking: '%s' : %s", e.Token, e.Msg)
	}
	return fmt.Sprintf("ERROR: 0:%d: '%s' : %s", e.Line, e.Token, e.Msg)
}

// ErrorList is the list of diagnostics of one compilation or link, in the
// order they were found. A nil ErrorList means success.
type ErrorList []Error

func (l ErrorList) Error() string { return l.InfoLog() }

// InfoLog returns the text glGetShaderInfoLog reports: one line per error
// and a summary line, or "" when there are none.
func (l ErrorList) InfoLog() string {
	if len(l) == 0 {
		return ""
	}
	var b strings.Builder
	for _, e := range l {
		b.WriteString(e.Error())
		b.WriteByte('\n')
	}
	if l[0].Link {
		fmt.Fprintf(&b, "ERROR: %d link errors.\n", len(l))
	} else {
		fmt.Fprintf(&b, "ERROR: %d compilation errors.  No code generated.\n", len(l))
	}
	return b.String()
}

// Err returns l as an error, or nil when l is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

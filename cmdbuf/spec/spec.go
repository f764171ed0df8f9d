// Package spec is the command-buffer wire format described once: it parses
// commands.txt (every command id, name and argument of the ring protocol
// between cmdbuf's client and service) and generates cmdbuf/commands_gen.go
// from it — the client encoders, the gl.Context methods that only encode,
// the service decoders with their argument validation, and the command table
// the stream decoder walks. It plays the part of Chromium's
// cmd_buffer_functions.txt and build_gles2_cmd_buffer.py for tilegpu, as
// hw/spec does for the hardware's control lists.
package spec

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

//go:embed commands.txt
var commandsTxt string

// Source returns the text of commands.txt.
func Source() string { return commandsTxt }

// Kind is an argument's type in commands.txt.
type Kind string

// The argument kinds; see commands.txt's header.
const (
	U32, I32, F32, Enum, Int, Bool      Kind = "u32", "i32", "f32", "enum", "int", "bool"
	Attrib, Uniform, VertexArray        Kind = "attrib", "uniform", "vertexarray"
	Buffer, Texture, Framebuffer        Kind = "buffer", "texture", "framebuffer"
	Renderbuffer, Program, Shader       Kind = "renderbuffer", "program", "shader"
	Shm, ShmOpt, F32s, I32s, Bytes, Pad Kind = "shm", "shm?", "f32s", "i32s", "bytes", "pad"
)

// Arg is one argument of a command.
type Arg struct {
	Name     string
	Kind     Kind
	Create   bool   // object kinds: a new id creates the object (glBind*)
	Len      string // shm/imm: the argument holding the length ("" when LenConst is used)
	LenConst uint32
	IsLen    bool // this argument is another's length
}

// Entries is how many ring entries the argument takes (immediate data: 0).
func (a *Arg) Entries() int {
	switch a.Kind {
	case Shm, ShmOpt:
		return 2
	case F32s, I32s, Bytes, Pad:
		return 0
	}
	return 1
}

// Immediate reports whether the argument is immediate data after the fixed part.
func (a *Arg) Immediate() bool {
	return a.Kind == F32s || a.Kind == I32s || a.Kind == Bytes || a.Kind == Pad
}

// Command is one command.
type Command struct {
	ID      int
	Name    string
	Client  bool // gl.Context method hand-written
	Service bool // service handler hand-written
	NoGL    bool // not a gl.Context entry point
	Args    []*Arg
	Line    int
}

// Fixed is the command's size in entries without immediate data, header included.
func (c *Command) Fixed() int {
	n := 1
	for _, a := range c.Args {
		n += a.Entries()
	}
	return n
}

// Imm returns the command's immediate-data argument, or nil.
func (c *Command) Imm() *Arg {
	for _, a := range c.Args {
		if a.Immediate() {
			return a
		}
	}
	return nil
}

// Arg returns the argument called name, or nil.
func (c *Command) Arg(name string) *Arg {
	for _, a := range c.Args {
		if a.Name == name {
			return a
		}
	}
	return nil
}

var validKinds = map[Kind]bool{U32: true, I32: true, F32: true, Enum: true, Int: true, Bool: true,
	Attrib: true, Uniform: true, VertexArray: true, Buffer: true, Texture: true, Framebuffer: true,
	Renderbuffer: true, Program: true, Shader: true, Shm: true, ShmOpt: true, F32s: true, I32s: true, Bytes: true}

// IsObject reports whether k names a GL object the service maps.
func IsObject(k Kind) bool {
	switch k {
	case Buffer, Texture, Framebuffer, Renderbuffer, Program, Shader:
		return true
	}
	return false
}

// MaxID is the largest command id the 11-bit header field holds.
const MaxID = 1<<11 - 1

// Load parses commands.txt.
func Load() ([]*Command, error) { return Parse(commandsTxt) }

// Parse parses a command table in commands.txt's format.
func Parse(src string) ([]*Command, error) {
	var cmds []*Command
	ids := map[int]bool{}
	names := map[string]bool{}
	for i, line := range strings.Split(src, "\n") {
		ln := i + 1
		if j := strings.IndexByte(line, '#'); j >= 0 {
			line = line[:j]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) < 2 {
			return nil, fmt.Errorf("commands.txt:%d: want ID NAME [flags] [args]", ln)
		}
		id, err := strconv.Atoi(f[0])
		if err != nil || id < 0 || id > MaxID {
			return nil, fmt.Errorf("commands.txt:%d: command id %q is not in 0..%d", ln, f[0], MaxID)
		}
		c := &Command{ID: id, Name: f[1], Line: ln}
		if ids[id] || names[c.Name] {
			return nil, fmt.Errorf("commands.txt:%d: duplicate command id %d or name %s", ln, id, c.Name)
		}
		ids[id], names[c.Name] = true, true
		for _, w := range f[2:] {
			switch w {
			case "client":
				c.Client = true
				continue
			case "service":
				c.Service = true
				continue
			case "nogl":
				c.NoGL = true
				continue
			case "pad":
				c.Args = append(c.Args, &Arg{Name: "pad", Kind: Pad})
				continue
			}
			parts := strings.Split(w, ":")
			if len(parts) < 2 || len(parts) > 3 {
				return nil, fmt.Errorf("commands.txt:%d: argument %q is not name:type[:length]", ln, w)
			}
			a := &Arg{Name: parts[0], Kind: Kind(strings.TrimSuffix(parts[1], "!"))}
			a.Create = strings.HasSuffix(parts[1], "!")
			if !validKinds[a.Kind] || (a.Create && !IsObject(a.Kind)) {
				return nil, fmt.Errorf("commands.txt:%d: argument %s has unknown type %q", ln, a.Name, parts[1])
			}
			sized := a.Kind == Shm || a.Kind == ShmOpt || a.Immediate()
			if sized != (len(parts) == 3) {
				return nil, fmt.Errorf("commands.txt:%d: argument %s: only shm and immediate types take a length", ln, a.Name)
			}
			if sized {
				if n, err := strconv.ParseUint(parts[2], 10, 32); err == nil {
					if a.Immediate() {
						return nil, fmt.Errorf("commands.txt:%d: immediate argument %s needs a length argument", ln, a.Name)
					}
					a.LenConst = uint32(n)
				} else {
					l := c.Arg(parts[2])
					if l == nil || l.Kind != U32 {
						return nil, fmt.Errorf("commands.txt:%d: length %q of %s is not an earlier u32 argument", ln, parts[2], a.Name)
					}
					l.IsLen = true
					a.Len = parts[2]
				}
			}
			if c.Arg(a.Name) != nil {
				return nil, fmt.Errorf("commands.txt:%d: duplicate argument %s", ln, a.Name)
			}
			if c.Imm() != nil {
				return nil, fmt.Errorf("commands.txt:%d: immediate data must be the last argument", ln)
			}
			c.Args = append(c.Args, a)
		}
		if (id < 256) != c.NoGL && id < 256 {
			return nil, fmt.Errorf("commands.txt:%d: ids below 256 are common (nogl) commands", ln)
		}
		cmds = append(cmds, c)
	}
	if len(cmds) == 0 {
		return nil, fmt.Errorf("commands.txt: no commands")
	}
	return cmds, nil
}

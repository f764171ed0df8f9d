package cmdbuf

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// CommandID is the 11-bit command id of a header.
type CommandID uint16

// Header layout: size in entries (header included) in the low 21 bits,
// command id in the high 11 bits.
const (
	sizeBits      = 21
	maxCommandLen = 1<<sizeBits - 1
	// FirstGLCommand is the first id of the GL ES 2.0 commands; lower ids are
	// the common commands.
	FirstGLCommand = 256
)

func header(size int, id CommandID) uint32 { return uint32(size) | uint32(id)<<sizeBits }

// SplitHeader returns a header's size in entries and command id.
func SplitHeader(h uint32) (size int, id CommandID) {
	return int(h & maxCommandLen), CommandID(h >> sizeBits)
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// packBytes stores src little-endian into entries, zero-padding the last one.
func packBytes(dst []uint32, src []byte) {
	n := len(src) / 4
	for i := 0; i < n; i++ {
		dst[i] = binary.LittleEndian.Uint32(src[4*i:])
	}
	if r := len(src) - 4*n; r > 0 {
		var last [4]byte
		copy(last[:], src[4*n:])
		dst[n] = binary.LittleEndian.Uint32(last[:])
	}
}

// ArgKind is the wire type of a command argument (see spec/commands.txt).
type ArgKind uint8

// Argument kinds.
const (
	ArgU32 ArgKind = iota
	ArgI32
	ArgF32
	ArgEnum
	ArgInt
	ArgBool
	ArgAttrib
	ArgUniform
	ArgVertexArray
	ArgBuffer
	ArgTexture
	ArgFramebuffer
	ArgRenderbuffer
	ArgProgram
	ArgShader
	ArgShm    // transfer-buffer id + offset
	ArgShmOpt // same, id 0 allowed
	ArgF32s   // immediate floats
	ArgI32s   // immediate ints
	ArgBytes  // immediate bytes
	ArgPad    // Noop: contents ignored
)

// ArgInfo describes one argument of a command.
type ArgInfo struct {
	Name     string
	Kind     ArgKind
	Len      int    // shm/immediate: entry index of the length argument, -1 if LenConst
	LenConst uint32 // shm of a constant size
	IsLen    bool   // this argument is another's length
}

// CommandInfo describes one command.
type CommandInfo struct {
	Name  string
	Fixed int // entries without immediate data, header included
	Args  []ArgInfo
}

// Info returns the description of command id, and whether id is defined.
func Info(id CommandID) (CommandInfo, bool) {
	if int(id) >= len(commandTable) || commandTable[id].Name == "" {
		return CommandInfo{}, false
	}
	return commandTable[id], true
}

// DescribeCommand formats one command (its entries, header included) as
// "Name arg=value ...", for stream decoders and logs. Malformed commands
// are described as such rather than rejected.
func DescribeCommand(cmd []uint32) string {
	if len(cmd) == 0 {
		return "<empty>"
	}
	size, id := SplitHeader(cmd[0])
	info, ok := Info(id)
	if !ok {
		return fmt.Sprintf("<unknown command id %d, size %d>", id, size)
	}
	var b strings.Builder
	b.WriteString(info.Name)
	if len(cmd) < info.Fixed {
		fmt.Fprintf(&b, " <truncated: %d entries, want %d>", len(cmd), info.Fixed)
		return b.String()
	}
	i := 1
	for _, a := range info.Args {
		switch a.Kind {
		case ArgPad:
			fmt.Fprintf(&b, " (%d entries)", len(cmd))
			continue
		case ArgShm, ArgShmOpt:
			fmt.Fprintf(&b, " %s=shm(%d)+%d", a.Name, cmd[i], cmd[i+1])
			i += 2
			continue
		case ArgBytes:
			raw := make([]byte, 4*(len(cmd)-i))
			for k, w := range cmd[i:] {
				binary.LittleEndian.PutUint32(raw[4*k:], w)
			}
			if a.Len >= 0 && a.Len < len(cmd) && int(cmd[a.Len]) <= len(raw) {
				raw = raw[:cmd[a.Len]]
			}
			if len(raw) > 64 {
				fmt.Fprintf(&b, " %s=%q...(%d bytes)", a.Name, raw[:64], len(raw))
			} else {
				fmt.Fprintf(&b, " %s=%q", a.Name, raw)
			}
			continue
		case ArgF32s, ArgI32s:
			n := len(cmd) - i
			fmt.Fprintf(&b, " %s=[", a.Name)
			for k := 0; k < n && k < 16; k++ {
				if k > 0 {
					b.WriteByte(' ')
				}
				switch a.Kind {
				case ArgF32s:
					fmt.Fprintf(&b, "%g", math.Float32frombits(cmd[i+k]))
				case ArgI32s:
					fmt.Fprintf(&b, "%d", int32(cmd[i+k]))
				default:
					fmt.Fprintf(&b, "%d", cmd[i+k])
				}
			}
			if n > 16 {
				fmt.Fprintf(&b, " ...%d more", n-16)
			}
			b.WriteByte(']')
			continue
		}
		v := cmd[i]
		i++
		switch a.Kind {
		case ArgF32:
			fmt.Fprintf(&b, " %s=%g", a.Name, math.Float32frombits(v))
		case ArgI32, ArgInt, ArgUniform:
			fmt.Fprintf(&b, " %s=%d", a.Name, int32(v))
		case ArgEnum:
			fmt.Fprintf(&b, " %s=0x%x", a.Name, v)
		case ArgBool:
			fmt.Fprintf(&b, " %s=%v", a.Name, v != 0)
		default:
			fmt.Fprintf(&b, " %s=%d", a.Name, v)
		}
	}
	return b.String()
}

// DecodeStream splits entries into commands and describes each, one per
// line, stopping with an error line at the first malformed header.
func DecodeStream(entries []uint32) []string {
	var out []string
	for i := 0; i < len(entries); {
		size, _ := SplitHeader(entries[i])
		if size == 0 || i+size > len(entries) {
			out = append(out, fmt.Sprintf("%6d: <bad header 0x%08x: size %d with %d entries left>", i, entries[i], size, len(entries)-i))
			break
		}
		out = append(out, fmt.Sprintf("%6d: %s", i, DescribeCommand(entries[i:i+size])))
		i += size
	}
	return out
}

package cmdbuf

import (
	"encoding/binary"

	"github.com/tilegpu/tilegpu/gl"
)

// Program info after link, fetched in one round trip (Chromium's
// GetProgramInfoCHROMIUM): link status, and each active attribute and
// uniform with its size, type and location. Once a program's info is
// known, GetProgrami(LINK_STATUS / ACTIVE_ATTRIBUTES / ACTIVE_UNIFORMS),
// GetActiveAttrib/Uniform and the locations of the names the service
// listed are answered by the client, until the program is relinked or
// deleted. Anything else (array elements, invalid programs, unlinked
// programs' locations) asks the service, so GL errors come from GL.
//
// Bucket layout (little-endian u32s): valid, linked, #attribs, #uniforms,
// then per variable: size, type, location, name length, name bytes.

type activeVar struct {
	name string
	size int
	ty   gl.Enum
	loc  int32
}

type programInfo struct {
	linked            bool
	attribs, uniforms []activeVar
}

// maxActiveVars bounds the variables the client accepts in program info.
const maxActiveVars = 1 << 16

// doGetProgramInfo fills bucket with p's info without raising GL errors;
// an empty bucket means p is not a program.
func (d *decoder) doGetProgramInfo(p gl.Program, bucket uint32) error {
	if p.Value == 0 || p.Value == noObject || !d.gl.IsProgram(p) {
		return d.setBucketString(bucket, "")
	}
	var b []byte
	u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	linked := d.gl.GetProgrami(p, gl.LINK_STATUS) != 0
	na, nu := 0, 0
	if linked {
		na, nu = d.gl.GetProgrami(p, gl.ACTIVE_ATTRIBUTES), d.gl.GetProgrami(p, gl.ACTIVE_UNIFORMS)
	}
	u32(1)
	u32(b2u(linked))
	u32(uint32(na))
	u32(uint32(nu))
	for i := range na {
		name, size, ty := d.gl.GetActiveAttrib(p, uint32(i))
		u32(uint32(int32(size)))
		u32(uint32(ty))
		u32(uint32(int32(d.gl.GetAttribLocation(p, name).Value)))
		u32(uint32(len(name)))
		b = append(b, name...)
	}
	for i := range nu {
		name, size, ty := d.gl.GetActiveUniform(p, uint32(i))
		u32(uint32(int32(size)))
		u32(uint32(ty))
		u32(uint32(d.gl.GetUniformLocation(p, name).Value))
		u32(uint32(len(name)))
		b = append(b, name...)
	}
	return d.setBucketString(bucket, string(b))
}

// parseProgramInfo decodes the bucket; nil when p is not a program or the
// data is malformed.
func parseProgramInfo(b []byte) *programInfo {
	pos := 0
	u32 := func() (uint32, bool) {
		if pos+4 > len(b) {
			return 0, false
		}
		v := binary.LittleEndian.Uint32(b[pos:])
		pos += 4
		return v, true
	}
	valid, ok1 := u32()
	linked, ok2 := u32()
	na, ok3 := u32()
	nu, ok4 := u32()
	if !ok1 || !ok2 || !ok3 || !ok4 || valid != 1 || na > maxActiveVars || nu > maxActiveVars {
		return nil
	}
	info := &programInfo{linked: linked == 1}
	read := func(n uint32) ([]activeVar, bool) {
		vars := make([]activeVar, 0, n)
		for range n {
			size, ok1 := u32()
			ty, ok2 := u32()
			loc, ok3 := u32()
			ln, ok4 := u32()
			if !ok1 || !ok2 || !ok3 || !ok4 || uint64(pos)+uint64(ln) > uint64(len(b)) {
				return nil, false
			}
			vars = append(vars, activeVar{name: string(b[pos : pos+int(ln)]), size: int(int32(size)), ty: gl.Enum(ty), loc: int32(loc)})
			pos += int(ln)
		}
		return vars, true
	}
	var ok bool
	if info.attribs, ok = read(na); !ok {
		return nil
	}
	if info.uniforms, ok = read(nu); !ok {
		return nil
	}
	return info
}

// programInfo returns p's info, fetching it once per link; nil if p is not
// a program (the caller then asks the service the ordinary way).
func (c *Client) programInfo(p gl.Program) *programInfo {
	if info, ok := c.progInfo[p.Value]; ok {
		return info
	}
	if c.lost || p.Value == 0 {
		return nil
	}
	c.cmdGetProgramInfo(p, downloadBucket)
	s, ok := c.readBucket()
	if !ok {
		return nil
	}
	info := parseProgramInfo([]byte(s))
	if info != nil {
		c.progInfo[p.Value] = info
	}
	return info
}

func findVar(vars []activeVar, name string) (activeVar, bool) {
	for _, v := range vars {
		if v.name == name {
			return v, true
		}
	}
	return activeVar{}, false
}

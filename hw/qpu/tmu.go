package qpu

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// TexRequest is one texture fetch as the core hands it to the TMU: the
// coordinates staged by TMU_T/R/B/LOD and written to TMU_S, for all lanes.
type TexRequest struct {
	S, T, R     [Lanes]float32 // texture coordinates; s, t, r is the direction for cube maps
	Bias        [Lanes]float32 // added to λ when HasBias
	LOD         [Lanes]float32 // replaces the computed λ when HasLOD
	HasBias     bool
	HasLOD      bool
	Mask        uint16 // lanes that receive results (the TMU_S write condition)
	Derivatives bool   // fragment batch: λ comes from each 2×2 quad's derivatives; else λ = 0
}

func (t *TexRequest) reset() { *t = TexRequest{} }

// Sampler is the TMU's filtering: it reads the texture descriptor at desc
// and the texels through m and writes RGBA (after swizzle) of every lane in
// req.Mask to out[channel][lane]. It returns a *Fault on a page fault and an
// error naming the bad field for an invalid descriptor.
type Sampler interface {
	Sample(m Mem, desc uint32, req *TexRequest, out *[4][Lanes]float32) error
}

// TMU is the texture unit of docs/hardware.md §6.2: RGBA8888 textures,
// REPEAT / CLAMP_TO_EDGE / MIRRORED_REPEAT, nearest and bilinear filtering
// with GL's u = s·W − 0.5 texel-centre convention, mipmaps with all six GL ES
// minification filters (λ = log2 ρ of the quad, plus bias, or an explicit
// LOD; the GL ES 2.0 §3.7.7 mag/min switch-over point c), cube maps by
// major axis (GL ES 2.0 table 3.21) and the swizzle. Arithmetic is float32
// with explicit rounding, so results are the same on every platform.
// A TMU is not safe for concurrent use; each Core owns one.
type TMU struct {
	pages pageCache
	d     cl.TextureDescriptor
	raw   [cl.SizeTextureDescriptor]byte
	lw    [maxLevels]int
	lh    [maxLevels]int
	loff  [maxLevels]uint32
	s, t  [Lanes]float32
	face  [Lanes]uint8
}

const maxLevels = 17 // a 65535-texel dimension has 16 levels

// NewTMU returns a texture unit.
func NewTMU() *TMU { return &TMU{} }

var _ Sampler = (*TMU)(nil)

var unorm8 = func() (t [256]float32) {
	for k := range t {
		t[k] = float32(k) / 255
	}
	return t
}()

// Sample implements Sampler.
func (u *TMU) Sample(m Mem, desc uint32, req *TexRequest, out *[4][Lanes]float32) error {
	if err := u.load(m, desc); err != nil {
		return err
	}
	d := &u.d
	w0, h0 := int(d.Width), int(d.Height)
	// coordinates and faces
	if d.Cube {
		for l := 0; l < Lanes; l++ {
			u.face[l], u.s[l], u.t[l] = cubeFace(req.S[l], req.T[l], req.R[l])
		}
	} else {
		u.s, u.t = req.S, req.T
		u.face = [Lanes]uint8{}
	}
	c := 0.0
	if d.MagFilter == cl.MagFilterLinear && (d.MinFilter == cl.MinFilterNearestMipmapNearest || d.MinFilter == cl.MinFilterNearestMipmapLinear) {
		c = 0.5
	}
	q := int(d.Levels) - 1
	// λ matters only when it can change the filter or the level; it is the
	// same for the four lanes of a quad, so take one log2 per quad.
	mipmapped := d.MinFilter >= cl.MinFilterNearestMipmapNearest
	needLambda := mipmapped || int(d.MinFilter) != int(d.MagFilter)
	var quadLambda [Lanes / 4]float64
	if req.Derivatives && !req.HasLOD && needLambda {
		for qd := range quadLambda {
			if req.Mask>>(4*qd)&0xf == 0 {
				continue
			}
			b := 4 * qd
			dsdx := float64(u.s[b+1]-u.s[b]) * float64(w0)
			dtdx := float64(u.t[b+1]-u.t[b]) * float64(h0)
			dsdy := float64(u.s[b+2]-u.s[b]) * float64(w0)
			dtdy := float64(u.t[b+2]-u.t[b]) * float64(h0)
			rho2 := math.Max(dsdx*dsdx+dtdx*dtdx, dsdy*dsdy+dtdy*dtdy)
			quadLambda[qd] = 0.5 * math.Log2(rho2) // log2 ρ = ½·log2 ρ²
		}
	}
	for l := 0; l < Lanes; l++ {
		if req.Mask&(1<<l) == 0 {
			continue
		}
		var lambda float64
		switch {
		case req.HasLOD:
			lambda = float64(req.LOD[l])
		case req.Derivatives:
			lambda = quadLambda[l>>2]
		}
		if req.HasBias {
			lambda += float64(req.Bias[l])
		}
		var rgba [4]float32
		var err error
		s, t, f := u.s[l], u.t[l], int(u.face[l])
		if !(lambda > c) { // magnification, or NaN
			rgba, err = u.sampleLevel(0, f, s, t, d.MagFilter == cl.MagFilterLinear)
		} else {
			switch d.MinFilter {
			case cl.MinFilterNearest, cl.MinFilterLinear:
				rgba, err = u.sampleLevel(0, f, s, t, d.MinFilter == cl.MinFilterLinear)
			case cl.MinFilterNearestMipmapNearest, cl.MinFilterLinearMipmapNearest:
				level := q
				if lambda <= 0.5 {
					level = 0
				} else if lambda <= float64(q)+0.5 {
					level = int(math.Ceil(lambda+0.5)) - 1
				}
				rgba, err = u.sampleLevel(level, f, s, t, d.MinFilter == cl.MinFilterLinearMipmapNearest)
			default: // *_MIPMAP_LINEAR
				linear := d.MinFilter == cl.MinFilterLinearMipmapLinear
				if lambda >= float64(q) {
					rgba, err = u.sampleLevel(q, f, s, t, linear)
					break
				}
				d1 := int(math.Floor(lambda))
				frac := float32(lambda - float64(d1))
				var t1, t2 [4]float32
				if t1, err = u.sampleLevel(d1, f, s, t, linear); err != nil {
					break
				}
				if t2, err = u.sampleLevel(d1+1, f, s, t, linear); err != nil {
					break
				}
				for k := range rgba {
					rgba[k] = float32(float32((1-frac)*t1[k]) + float32(frac*t2[k]))
				}
			}
		}
		if err != nil {
			return err
		}
		for ch := 0; ch < 4; ch++ {
			switch sel := d.Swizzle >> (3 * ch) & 7; sel {
			case 4:
				out[ch][l] = 0
			case 5:
				out[ch][l] = 1
			default:
				out[ch][l] = rgba[sel]
			}
		}
	}
	return nil
}

// load reads and checks the descriptor at desc.
func (u *TMU) load(m Mem, desc uint32) error {
	if desc%16 != 0 {
		return fmt.Errorf("texture descriptor address %#x is not 16-byte aligned", desc)
	}
	for k := uint32(0); k < cl.SizeTextureDescriptor; k += 4 {
		v, ok := m.Read32(desc + k)
		if !ok {
			return &Fault{VA: desc + k}
		}
		binary.LittleEndian.PutUint32(u.raw[k:], v)
	}
	d := &u.d
	if err := d.Unpack(u.raw[:]); err != nil {
		return fmt.Errorf("texture descriptor at %#x: %v", desc, err)
	}
	if err := d.Check(); err != nil {
		return fmt.Errorf("texture descriptor at %#x: %v", desc, err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("texture descriptor at %#x: "+format, append([]any{desc}, args...)...)
	}
	switch {
	case d.Format != cl.TextureFormatRGBA8888:
		return bad("unsupported format %d", d.Format)
	case d.Width == 0 || d.Height == 0:
		return bad("size %dx%d", d.Width, d.Height)
	case d.Levels == 0:
		return bad("0 mip levels")
	case d.Address%4 != 0:
		return bad("texel address %#x is not 4-byte aligned", d.Address)
	case d.Cube && d.Width != d.Height:
		return bad("cube map faces are %dx%d, not square", d.Width, d.Height)
	case d.Cube && d.FaceStride%4 != 0:
		return bad("cube face stride %d is not a multiple of 4", d.FaceStride)
	}
	if top := max(d.Width, d.Height); int(d.Levels) > 1+log2floor(int(top)) {
		return bad("%d mip levels for a %dx%d texture", d.Levels, d.Width, d.Height)
	}
	for ch := 0; ch < 4; ch++ {
		if d.Swizzle>>(3*ch)&7 > 5 {
			return bad("swizzle channel %d selects %d", ch, d.Swizzle>>(3*ch)&7)
		}
	}
	off := uint32(0)
	for n := 0; n < int(d.Levels); n++ {
		u.lw[n] = max(1, int(d.Width)>>n)
		u.lh[n] = max(1, int(d.Height)>>n)
		u.loff[n] = off
		off += uint32(u.lw[n] * u.lh[n] * 4)
	}
	u.pages.init(m)
	return nil
}

func log2floor(x int) int {
	n := 0
	for x > 1 {
		x >>= 1
		n++
	}
	return n
}

// cubeFace picks the face by major axis and returns the face coordinates
// (GL ES 2.0 table 3.21).
func cubeFace(rx, ry, rz float32) (face uint8, s, t float32) {
	ax, ay, az := abs32(rx), abs32(ry), abs32(rz)
	var sc, tc, ma float32
	switch {
	case ax >= ay && ax >= az:
		ma = ax
		if rx >= 0 {
			face, sc, tc = 0, -rz, -ry
		} else {
			face, sc, tc = 1, rz, -ry
		}
	case ay >= az:
		ma = ay
		if ry >= 0 {
			face, sc, tc = 2, rx, rz
		} else {
			face, sc, tc = 3, rx, -rz
		}
	default:
		ma = az
		if rz >= 0 {
			face, sc, tc = 4, rx, -ry
		} else {
			face, sc, tc = 5, -rx, -ry
		}
	}
	s = float32(float32(float32(sc/ma)+1) / 2)
	t = float32(float32(float32(tc/ma)+1) / 2)
	return face, s, t
}

func abs32(x float32) float32 { return ff(fb(x) &^ (1 << 31)) }

// texelIndex is floor(u) as an integer, with NaN as 0 and huge values
// clamped (beyond 2^40 texels every wrap mode has lost all precision).
func texelIndex(u float32) int64 {
	if u != u {
		return 0
	}
	f := math.Floor(float64(u))
	f = math.Max(-(1 << 40), math.Min(1<<40, f))
	return int64(f)
}

func wrap(i int64, size int, mode cl.Wrap) int {
	n := int64(size)
	if uint64(i) < uint64(n) { // in range: every mode is the identity
		return int(i)
	}
	switch mode {
	case cl.WrapRepeat:
		i %= n
		if i < 0 {
			i += n
		}
	case cl.WrapMirroredRepeat:
		i %= 2 * n
		if i < 0 {
			i += 2 * n
		}
		a := i - n
		if a < 0 {
			a = -(1 + a)
		}
		i = n - 1 - a
	default:
		i = max(0, min(n-1, i))
	}
	return int(i)
}

// sampleLevel filters level n of face f at (s, t).
func (u *TMU) sampleLevel(n, f int, s, t float32, linear bool) ([4]float32, error) {
	w, h := u.lw[n], u.lh[n]
	base := u.d.Address + uint32(f)*u.d.FaceStride + u.loff[n]
	x := float32(s * float32(w))
	y := float32(t * float32(h))
	if !linear {
		i := wrap(texelIndex(x), w, u.d.WrapS)
		j := wrap(texelIndex(y), h, u.d.WrapT)
		return u.texel(base, w, i, j)
	}
	x = float32(x - 0.5)
	y = float32(y - 0.5)
	i0, j0 := texelIndex(x), texelIndex(y)
	alpha := float32(x - float32(i0))
	beta := float32(y - float32(j0))
	if x != x || math.IsInf(float64(x), 0) {
		alpha = 0
	}
	if y != y || math.IsInf(float64(y), 0) {
		beta = 0
	}
	ia, ib := wrap(i0, w, u.d.WrapS), wrap(i0+1, w, u.d.WrapS)
	ja, jb := wrap(j0, h, u.d.WrapT), wrap(j0+1, h, u.d.WrapT)
	c00, err := u.texel(base, w, ia, ja)
	if err != nil {
		return c00, err
	}
	c10, err := u.texel(base, w, ib, ja)
	if err != nil {
		return c10, err
	}
	c01, err := u.texel(base, w, ia, jb)
	if err != nil {
		return c01, err
	}
	c11, err := u.texel(base, w, ib, jb)
	if err != nil {
		return c11, err
	}
	w00 := float32((1 - alpha) * (1 - beta))
	w10 := float32(alpha * (1 - beta))
	w01 := float32((1 - alpha) * beta)
	w11 := float32(alpha * beta)
	var r [4]float32
	for k := range r {
		v := float32(w00 * c00[k])
		v = float32(v + float32(w10*c10[k]))
		v = float32(v + float32(w01*c01[k]))
		r[k] = float32(v + float32(w11*c11[k]))
	}
	return r, nil
}

func (u *TMU) texel(base uint32, w, i, j int) ([4]float32, error) {
	va := base + uint32((j*w+i)*4)
	v, ok := u.pages.read32(va)
	if !ok {
		return [4]float32{}, &Fault{VA: va}
	}
	return [4]float32{unorm8[v&0xff], unorm8[v>>8&0xff], unorm8[v>>16&0xff], unorm8[v>>24]}, nil
}

// pageCache remembers the last page PageMem returned, so a run of texel,
// direct-load or store accesses in one page costs one interface call.
type pageCache struct {
	m        Mem
	pm       PageMem
	va       uint32
	page     []byte
	writable bool
}

func (p *pageCache) init(m Mem) {
	p.m = m
	p.pm, _ = m.(PageMem)
	p.page = nil
}

func (p *pageCache) reset() { p.page = nil }

// lookup returns the cached page for va, fetching it if needed.
func (p *pageCache) lookup(va uint32, write bool) ([]byte, bool) {
	if p.page == nil || va&^0xfff != p.va || (write && !p.writable) {
		pg, ok := p.pm.Page(va, write)
		if !ok || len(pg) < 4096 {
			p.page = nil
			return nil, false
		}
		p.page, p.va, p.writable = pg[:4096], va&^0xfff, write
	}
	return p.page, true
}

func (p *pageCache) read32(va uint32) (uint32, bool) {
	if p.pm == nil || va&3 != 0 {
		return p.m.Read32(va)
	}
	pg, ok := p.lookup(va, false)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint32(pg[va&0xfff:]), true
}

func (p *pageCache) write32(va, v uint32) bool {
	if p.pm == nil || va&3 != 0 {
		return p.m.Write32(va, v)
	}
	pg, ok := p.lookup(va, true)
	if !ok {
		return false
	}
	binary.LittleEndian.PutUint32(pg[va&0xfff:], v)
	return true
}

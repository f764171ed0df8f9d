package qpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

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

// TMU is the texture unit of docs/hardware.md §6.2: RGBA8888 textures (other formats: texformat.go),
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

	// descOK says raw holds a descriptor that decoded and passed the
	// checks, so a fetch with the same 32 bytes skips Unpack and Check
	// (a batch of a textured draw reads the same descriptor every time).
	descOK bool
	// identitySwizzle: Swizzle is R, G, B, A.
	identitySwizzle bool
	// bilinearLevel0's per-lane texel words and weights (kept here so they
	// need no clearing per call).
	tx [4][Lanes]uint32
	wq [4][Lanes]float32
	// sample2D's per-level results: level a, level b, one group.
	ra, rb, rg [4][Lanes]float32

	// texels counts the texel words read for filtering since the owning
	// Core last took it (StageCounts.TMUTexels).
	texels uint64

	// inRun: a Core has called beginRun, so pages stays valid until the
	// core flushes it instead of being emptied at every fetch.
	inRun bool
}

// beginRun is called by the owning Core whenever it flushes its pages
// (Core.FlushPages): the TMU's page cache follows the core's lifetime.
func (u *TMU) beginRun(m Mem) {
	u.pages.init(m)
	u.inRun = true
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
	if d.Format != cl.TextureFormatRGBA8888 {
		return u.sampleLanes(req, out) // other formats: texformat.go
	}
	if !d.Cube && d.Levels == 1 && int(d.MinFilter) == int(d.MagFilter) {
		return u.sampleSingleLevel(req, out)
	}
	if !d.Cube {
		if u.sample2D(req, out) == nil {
			return nil
		}
		// A fault: sample again lane by lane, so the fault reported is the
		// first in lane order, as sampleLanes defines it.
	}
	return u.sampleLanes(req, out)
}

// sampleLanes is the general path, one lane at a time: every lane picks its
// filter, levels and face and samples them, lanes in order (so a fault is
// the first access in lane order that fails). sample2D computes the same
// values for 2D textures a level at a time over all lanes.
func (u *TMU) sampleLanes(req *TexRequest, out *[4][Lanes]float32) error {
	d := &u.d
	// coordinates and faces
	if d.Cube {
		for l := 0; l < Lanes; l++ {
			u.face[l], u.s[l], u.t[l] = cubeFace(req.S[l], req.T[l], req.R[l])
		}
	} else {
		u.s, u.t = req.S, req.T
		u.face = [Lanes]uint8{}
	}
	c := u.switchOver()
	q := int(d.Levels) - 1
	var lambdas [Lanes]float64
	u.lambdas(req, &lambdas)
	for l := 0; l < Lanes; l++ {
		if req.Mask&(1<<l) == 0 {
			continue
		}
		lambda := lambdas[l]
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

// switchOver is GL ES 2.0 §3.7.7's c: λ above it minifies.
func (u *TMU) switchOver() float64 {
	d := &u.d
	if d.MagFilter == cl.MagFilterLinear && (d.MinFilter == cl.MinFilterNearestMipmapNearest || d.MinFilter == cl.MinFilterNearestMipmapLinear) {
		return 0.5
	}
	return 0
}

// lambdas computes every masked lane's λ (plus bias, or the explicit LOD)
// from u.s and u.t, the face coordinates.
func (u *TMU) lambdas(req *TexRequest, out *[Lanes]float64) {
	d := &u.d
	w0, h0 := int(d.Width), int(d.Height)
	// λ matters only when it can change the filter or the level; it is the
	// same for the four lanes of a quad, so take one log2 per quad.
	mipmapped := d.MinFilter >= cl.MinFilterNearestMipmapNearest
	needLambda := mipmapped || int(d.MinFilter) != int(d.MagFilter)
	var quadLambda [Lanes / 4]float64
	var cubeLambda [Lanes]float64 // cube maps: per lane, in the lane's own face
	if req.Derivatives && !req.HasLOD && needLambda {
		rho := func(s0, s1, s2, t0, t1, t2 float32) float64 {
			dsdx := float64(s1-s0) * float64(w0)
			dtdx := float64(t1-t0) * float64(h0)
			dsdy := float64(s2-s0) * float64(w0)
			dtdy := float64(t2-t0) * float64(h0)
			rho2 := math.Max(dsdx*dsdx+dtdx*dtdx, dsdy*dsdy+dtdy*dtdy)
			return 0.5 * math.Log2(rho2) // log2 ρ = ½·log2 ρ²
		}
		for qd := range quadLambda {
			if req.Mask>>(4*qd)&0xf == 0 {
				continue
			}
			b := 4 * qd
			if !d.Cube {
				quadLambda[qd] = rho(u.s[b], u.s[b+1], u.s[b+2], u.t[b], u.t[b+1], u.t[b+2])
				continue
			}
			// A cube quad's lanes may pick different faces (helper lanes
			// beyond a face's edge in particular): differences of s, t
			// across faces mean nothing. Each lane takes the derivatives
			// of the quad's directions projected on its own face, as GL's
			// per-fragment λ uses the fragment's own major axis.
			for l := b; l < b+4; l++ {
				if req.Mask&(1<<l) == 0 {
					continue
				}
				f := u.face[l]
				if f == u.face[b] && f == u.face[b+1] && f == u.face[b+2] {
					cubeLambda[l] = rho(u.s[b], u.s[b+1], u.s[b+2], u.t[b], u.t[b+1], u.t[b+2])
					continue
				}
				s0, t0 := cubeFaceCoords(f, req.S[b], req.T[b], req.R[b])
				s1, t1 := cubeFaceCoords(f, req.S[b+1], req.T[b+1], req.R[b+1])
				s2, t2 := cubeFaceCoords(f, req.S[b+2], req.T[b+2], req.R[b+2])
				cubeLambda[l] = rho(s0, s1, s2, t0, t1, t2)
			}
		}
	}
	for l := 0; l < Lanes; l++ {
		var lambda float64
		switch {
		case req.HasLOD:
			lambda = float64(req.LOD[l])
		case req.Derivatives && d.Cube:
			lambda = cubeLambda[l]
		case req.Derivatives:
			lambda = quadLambda[l>>2]
		}
		if req.HasBias {
			lambda += float64(req.Bias[l])
		}
		out[l] = lambda
	}
}

// levelPick is one lane's choice in sample2D: level a (and b when b >= 0,
// blended by frac), each with linear or nearest filtering.
type levelPick struct {
	a, b   int8
	linear bool
	frac   float32
}

// sample2D is sampleLanes for 2D textures, a level at a time: every lane's
// λ picks its levels and filter as sampleLanes does, then each (level,
// filter) group is filtered over all its lanes (bilinearLevel) and the two
// levels of *_MIPMAP_LINEAR are blended with sampleLanes's arithmetic, so
// the results are the same bits. Accesses are not in lane order; on a
// fault the caller samples again with sampleLanes.
func (u *TMU) sample2D(req *TexRequest, out *[4][Lanes]float32) error {
	d := &u.d
	u.s, u.t = req.S, req.T
	c := u.switchOver()
	q := int(d.Levels) - 1
	var lambdas [Lanes]float64
	u.lambdas(req, &lambdas)
	magLinear := d.MagFilter == cl.MagFilterLinear
	var pick [Lanes]levelPick
	var blended uint16 // lanes with a second level
	for l := 0; l < Lanes; l++ {
		if req.Mask&(1<<l) == 0 {
			continue
		}
		lambda := lambdas[l]
		p := levelPick{b: -1}
		if !(lambda > c) { // magnification, or NaN
			p.linear = magLinear
		} else {
			switch d.MinFilter {
			case cl.MinFilterNearest, cl.MinFilterLinear:
				p.linear = d.MinFilter == cl.MinFilterLinear
			case cl.MinFilterNearestMipmapNearest, cl.MinFilterLinearMipmapNearest:
				level := q
				if lambda <= 0.5 {
					level = 0
				} else if lambda <= float64(q)+0.5 {
					level = int(math.Ceil(lambda+0.5)) - 1
				}
				p.a = int8(level)
				p.linear = d.MinFilter == cl.MinFilterLinearMipmapNearest
			default: // *_MIPMAP_LINEAR
				p.linear = d.MinFilter == cl.MinFilterLinearMipmapLinear
				if lambda >= float64(q) {
					p.a = int8(q)
					break
				}
				d1 := int(math.Floor(lambda))
				p.a, p.b = int8(d1), int8(d1+1)
				p.frac = float32(lambda - float64(d1))
				blended |= 1 << l
			}
		}
		pick[l] = p
	}
	ra, rb := &u.ra, &u.rb
	if err := u.filterGroups(req.Mask, &pick, false, ra); err != nil {
		return err
	}
	if blended != 0 {
		if err := u.filterGroups(blended, &pick, true, rb); err != nil {
			return err
		}
	}
	for l := 0; l < Lanes; l++ {
		if req.Mask&(1<<l) == 0 {
			continue
		}
		rgba := [4]float32{ra[0][l], ra[1][l], ra[2][l], ra[3][l]}
		if blended&(1<<l) != 0 {
			frac := pick[l].frac
			for k := range rgba {
				rgba[k] = float32(float32((1-frac)*rgba[k]) + float32(frac*rb[k][l]))
			}
		}
		if u.identitySwizzle {
			out[0][l], out[1][l], out[2][l], out[3][l] = rgba[0], rgba[1], rgba[2], rgba[3]
			continue
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

// filterGroups filters the lanes of mask at their level a (or b when
// second), one (level, filter) group at a time, into dst.
func (u *TMU) filterGroups(mask uint16, pick *[Lanes]levelPick, second bool, dst *[4][Lanes]float32) error {
	level := func(l int) int {
		if second {
			return int(pick[l].b)
		}
		return int(pick[l].a)
	}
	wrote := false // some group's lanes are in dst already
	for mask != 0 {
		first := bits.TrailingZeros16(mask)
		n, linear := level(first), pick[first].linear
		var group uint16
		for m := mask; m != 0; m &= m - 1 {
			l := bits.TrailingZeros16(m)
			if level(l) == n && pick[l].linear == linear {
				group |= 1 << l
			}
		}
		mask &^= group
		direct := !wrote && mask == 0
		wrote = true
		if !linear {
			for m := group; m != 0; m &= m - 1 {
				l := bits.TrailingZeros16(m)
				rgba, err := u.sampleLevel(n, 0, u.s[l], u.t[l], false)
				if err != nil {
					return err
				}
				dst[0][l], dst[1][l], dst[2][l], dst[3][l] = rgba[0], rgba[1], rgba[2], rgba[3]
			}
			continue
		}
		if direct {
			// The only group: filter straight into dst (lanes outside it
			// are written too, and ignored).
			if err := u.bilinearLevel(n, group, &u.s, &u.t, dst); err != nil {
				return err
			}
			continue
		}
		if err := u.bilinearLevel(n, group, &u.s, &u.t, &u.rg); err != nil {
			return err
		}
		for m := group; m != 0; m &= m - 1 {
			l := bits.TrailingZeros16(m)
			dst[0][l], dst[1][l], dst[2][l], dst[3][l] = u.rg[0][l], u.rg[1][l], u.rg[2][l], u.rg[3][l]
		}
	}
	return nil
}

// sampleSingleLevel serves the common case of a 2D texture with one
// level and the same minification and magnification filter: λ cannot
// change the result, so every lane samples level 0 with that filter, as
// Sample's general path would.
func (u *TMU) sampleSingleLevel(req *TexRequest, out *[4][Lanes]float32) error {
	d := &u.d
	linear := d.MagFilter == cl.MagFilterLinear
	if linear && u.identitySwizzle {
		return u.bilinearLevel0(req, out)
	}
	for l := 0; l < Lanes; l++ {
		if req.Mask&(1<<l) == 0 {
			continue
		}
		rgba, err := u.sampleLevel(0, 0, req.S[l], req.T[l], linear)
		if err != nil {
			return err
		}
		if u.identitySwizzle {
			out[0][l], out[1][l], out[2][l], out[3][l] = rgba[0], rgba[1], rgba[2], rgba[3]
			continue
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

// bilinearLevel0 is sampleLevel(0, 0, s, t, true) for every lane of the
// request, with the level's constants hoisted out of the lane loop and the
// result stored straight into out (identity swizzle). The arithmetic is
// sampleLevel's, operation for operation.
func (u *TMU) bilinearLevel0(req *TexRequest, out *[4][Lanes]float32) error {
	return u.bilinearLevel(0, req.Mask, &req.S, &req.T, out)
}

// bilinearLevel is sampleLevel(n, 0, s, t, true) for the lanes of mask,
// written to out[channel][lane]; lanes outside mask get stale values.
func (u *TMU) bilinearLevel(n int, mask uint16, S, T *[Lanes]float32, out *[4][Lanes]float32) error {
	w, h := u.lw[n], u.lh[n]
	fw, fh := float32(w), float32(h)
	base := u.d.Address + u.loff[n]
	ws, wt := u.d.WrapS, u.d.WrapT
	// Two passes: addresses, texel words and weights lane by lane (every
	// fetch, and so every fault, in lane order), then the filter channel by
	// channel over all 16 lanes, straight-line work with contiguous stores
	// (BenchmarkSampleMagnified: 26.8 → 25.4 ns/lane, best of six runs each
	// interleaved on the loaded 2-core machine). Lanes outside the mask
	// are filtered too, from stale inputs, and ignored by the caller; lanes
	// with coordinates beyond floorSmall's range take sampleLevel and are
	// put back after the second pass.
	var slow uint16
	var slowRGBA [Lanes][4]float32
	wq, tx := &u.wq, &u.tx
	for l := 0; l < Lanes; l++ {
		if mask&(1<<l) == 0 {
			continue
		}
		x := float32(S[l] * fw)
		y := float32(T[l] * fh)
		x = float32(x - 0.5)
		y = float32(y - 0.5)
		if !small(x) || !small(y) {
			rgba, err := u.sampleLevel(n, 0, S[l], T[l], true)
			if err != nil {
				return err
			}
			slow |= 1 << l
			slowRGBA[l] = rgba
			continue
		}
		i0, j0 := floorSmall(x), floorSmall(y)
		alpha := float32(x - float32(i0))
		beta := float32(y - float32(j0))
		ia, ib := wrap(i0, w, ws), wrap(i0+1, w, ws)
		ja, jb := wrap(j0, h, wt), wrap(j0+1, h, wt)
		rowA, rowB := base+uint32(ja*w)*4, base+uint32(jb*w)*4
		va00, va10 := rowA+uint32(ia)*4, rowA+uint32(ib)*4
		va01, va11 := rowB+uint32(ia)*4, rowB+uint32(ib)*4
		var t00, t10, t01, t11 uint32
		ok := false
		if va10 == va00+4 && va00&0xfff != 0xffc {
			// Neighbouring texels in one page (the usual case): one page
			// probe per row instead of one per texel.
			if pa, okA := u.pages.pageOf(va00); okA {
				if pb, okB := u.pages.pageOf(va01); okB && va11 == va01+4 && va01&0xfff != 0xffc {
					oa, ob := va00&0xffc, va01&0xffc
					t00, t10 = binary.LittleEndian.Uint32(pa[oa:]), binary.LittleEndian.Uint32(pa[oa+4:])
					t01, t11 = binary.LittleEndian.Uint32(pb[ob:]), binary.LittleEndian.Uint32(pb[ob+4:])
					ok = true
				}
			}
		}
		if !ok {
			var ok00, ok10, ok01, ok11 bool
			t00, ok00 = u.pages.hit(va00)
			t10, ok10 = u.pages.hit(va10)
			t01, ok01 = u.pages.hit(va01)
			t11, ok11 = u.pages.hit(va11)
			ok = ok00 && ok10 && ok01 && ok11
		}
		if !ok {
			var err error
			if t00, t10, t01, t11, err = u.fetch4(va00, va10, va01, va11); err != nil {
				return err
			}
		}
		tx[0][l], tx[1][l], tx[2][l], tx[3][l] = t00, t10, t01, t11
		wq[0][l] = float32((1 - alpha) * (1 - beta))
		wq[1][l] = float32(alpha * (1 - beta))
		wq[2][l] = float32((1 - alpha) * beta)
		wq[3][l] = float32(alpha * beta)
	}
	filterBilinear(tx, wq, out)
	u.texels += 4 * uint64(bits.OnesCount16(mask&^slow)) // the slow lanes counted in sampleLevel
	for ; slow != 0; slow &= slow - 1 {
		l := bits.TrailingZeros16(slow)
		out[0][l], out[1][l], out[2][l], out[3][l] = slowRGBA[l][0], slowRGBA[l][1], slowRGBA[l][2], slowRGBA[l][3]
	}
	return nil
}

// filterBilinearGo filters four texel words per lane with their weights,
// channel by channel: sampleLevel's arithmetic for 16 lanes. On amd64
// filterBilinear does the same in SSE2.
func filterBilinearGo(tx *[4][Lanes]uint32, wq *[4][Lanes]float32, out *[4][Lanes]float32) {
	for k := 0; k < 4; k++ {
		sh := 8 * k
		o := &out[k]
		for l := 0; l < Lanes; l++ {
			v := float32(wq[0][l] * unorm8[tx[0][l]>>sh&0xff])
			v = float32(v + float32(wq[1][l]*unorm8[tx[1][l]>>sh&0xff]))
			v = float32(v + float32(wq[2][l]*unorm8[tx[2][l]>>sh&0xff]))
			o[l] = float32(v + float32(wq[3][l]*unorm8[tx[3][l]>>sh&0xff]))
		}
	}
}

// identitySwizzleBits is Swizzle selecting R, G, B, A in order.
const identitySwizzleBits = cl.SwizzleIdentity

// load reads and checks the descriptor at desc.
func (u *TMU) load(m Mem, desc uint32) error {
	if desc%16 != 0 {
		return fmt.Errorf("texture descriptor address %#x is not 16-byte aligned", desc)
	}
	if !u.inRun { // used on its own, not by a Core
		u.pages.init(m)
	}
	var raw [cl.SizeTextureDescriptor]byte
	for k := uint32(0); k < cl.SizeTextureDescriptor; k += 4 {
		v, ok := u.pages.hit(desc + k)
		if !ok {
			if v, ok = u.pages.read32(desc + k); !ok {
				return &Fault{VA: desc + k}
			}
		}
		binary.LittleEndian.PutUint32(raw[k:], v)
	}
	if u.descOK && raw == u.raw {
		return nil
	}
	u.raw, u.descOK = raw, false
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
	case !knownTextureFormat(d.Format):
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
		off += uint32(u.lw[n] * u.lh[n] * texelBytes(d.Format))
	}
	u.identitySwizzle = d.Swizzle == identitySwizzleBits
	u.descOK = true
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

// cubeFaceCoords returns the coordinates of direction r on a given face
// (its major axis fixed, whether or not it is r's largest component).
func cubeFaceCoords(face uint8, rx, ry, rz float32) (s, t float32) {
	var sc, tc, ma float32
	switch face {
	case 0:
		ma, sc, tc = abs32(rx), -rz, -ry
	case 1:
		ma, sc, tc = abs32(rx), rz, -ry
	case 2:
		ma, sc, tc = abs32(ry), rx, rz
	case 3:
		ma, sc, tc = abs32(ry), rx, -rz
	case 4:
		ma, sc, tc = abs32(rz), rx, -ry
	default:
		ma, sc, tc = abs32(rz), -rx, -ry
	}
	return float32(float32(float32(sc/ma)+1) / 2), float32(float32(float32(tc/ma)+1) / 2)
}

func abs32(x float32) float32 { return ff(fb(x) &^ (1 << 31)) }

// texelIndex is floor(u) as an integer, with NaN as 0 and huge values
// clamped (beyond 2^40 texels every wrap mode has lost all precision).
func texelIndex(u float32) int64 {
	if small(u) {
		return floorSmall(u)
	}
	if u != u {
		return 0
	}
	f := math.Floor(float64(u))
	f = math.Max(-(1 << 40), math.Min(1<<40, f))
	return int64(f)
}

// small reports |u| < 2^30 (false for NaN and ±Inf): floorSmall applies.
func small(u float32) bool { return u > -(1<<30) && u < 1<<30 }

// floorSmall is floor for small u: truncate, then step down for negative
// non-integers. Exact: below 2^24 every integer is a float32, and above
// 2^23 u is an integer.
func floorSmall(u float32) int64 {
	i := int32(u)
	if float32(i) > u {
		i--
	}
	return int64(i)
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
	if u.d.Format != cl.TextureFormatRGBA8888 {
		return u.sampleLevelFormat(n, f, s, t, linear)
	}
	w, h := u.lw[n], u.lh[n]
	base := u.d.Address + uint32(f)*u.d.FaceStride + u.loff[n]
	x := float32(s * float32(w))
	y := float32(t * float32(h))
	if !linear {
		u.texels++
		i := wrap(texelIndex(x), w, u.d.WrapS)
		j := wrap(texelIndex(y), h, u.d.WrapT)
		return u.texel(base, w, i, j)
	}
	u.texels += 4
	ia, ib, ja, jb, wq := u.bilinearFootprint(x, y, w, h)
	// The four texels in the order c00, c10, c01, c11 (a fault reports the
	// first that fails), read as words and converted channel by channel:
	// one inlined page-cache probe per texel instead of a call chain
	// (BenchmarkSampleMagnified: 150–220 → 35–45 ns/lane).
	rowA, rowB := base+uint32(ja*w)*4, base+uint32(jb*w)*4
	va00, va10 := rowA+uint32(ia)*4, rowA+uint32(ib)*4
	va01, va11 := rowB+uint32(ia)*4, rowB+uint32(ib)*4
	t00, ok00 := u.pages.hit(va00)
	t10, ok10 := u.pages.hit(va10)
	t01, ok01 := u.pages.hit(va01)
	t11, ok11 := u.pages.hit(va11)
	if !(ok00 && ok10 && ok01 && ok11) {
		var err error
		if t00, t10, t01, t11, err = u.fetch4(va00, va10, va01, va11); err != nil {
			return [4]float32{}, err
		}
	}
	var tx [4][4]float32
	for k := range 4 {
		sh := 8 * k
		tx[0][k], tx[1][k], tx[2][k], tx[3][k] = unorm8[t00>>sh&0xff], unorm8[t10>>sh&0xff], unorm8[t01>>sh&0xff], unorm8[t11>>sh&0xff]
	}
	return filter4(&wq, &tx), nil
}

// bilinearFootprint is the bilinear footprint of the texel-space point
// (x, y) (not yet shifted by half a texel) in a w×h level: the wrapped
// columns ia, ib and rows ja, jb of the four texels c00, c10, c01, c11 and
// their weights in that order. A coordinate that is NaN or infinite takes
// weight 0 for the second texel.
func (u *TMU) bilinearFootprint(x, y float32, w, h int) (ia, ib, ja, jb int, wq [4]float32) {
	x = float32(x - 0.5)
	y = float32(y - 0.5)
	var i0, j0 int64
	var alpha, beta float32
	if small(x) && small(y) {
		i0, j0 = floorSmall(x), floorSmall(y)
		alpha = float32(x - float32(i0))
		beta = float32(y - float32(j0))
	} else {
		i0, j0 = texelIndex(x), texelIndex(y)
		alpha = float32(x - float32(i0))
		beta = float32(y - float32(j0))
		if x != x || math.IsInf(float64(x), 0) {
			alpha = 0
		}
		if y != y || math.IsInf(float64(y), 0) {
			beta = 0
		}
	}
	ia, ib = wrap(i0, w, u.d.WrapS), wrap(i0+1, w, u.d.WrapS)
	ja, jb = wrap(j0, h, u.d.WrapT), wrap(j0+1, h, u.d.WrapT)
	wq = [4]float32{float32((1 - alpha) * (1 - beta)), float32(alpha * (1 - beta)), float32((1 - alpha) * beta), float32(alpha * beta)}
	return
}

// filter4 blends four texels (c00, c10, c01, c11) channel by channel with
// their weights, in that order, rounding after each step as the hardware
// does.
func filter4(wq *[4]float32, tx *[4][4]float32) (r [4]float32) {
	for k := range r {
		v := float32(wq[0] * tx[0][k])
		v = float32(v + float32(wq[1]*tx[1][k]))
		v = float32(v + float32(wq[2]*tx[2][k]))
		r[k] = float32(v + float32(wq[3]*tx[3][k]))
	}
	return r
}

// fetch4 reads four texel words in order through the page cache, for the
// accesses hit did not serve.
func (u *TMU) fetch4(va00, va10, va01, va11 uint32) (t00, t10, t01, t11 uint32, err error) {
	var t [4]uint32
	for n, va := range [4]uint32{va00, va10, va01, va11} {
		v, ok := u.pages.read32(va)
		if !ok {
			return 0, 0, 0, 0, &Fault{VA: va}
		}
		t[n] = v
	}
	return t[0], t[1], t[2], t[3], nil
}

func (u *TMU) texel(base uint32, w, i, j int) ([4]float32, error) {
	va := base + uint32((j*w+i)*4)
	v, ok := u.pages.word(va)
	if !ok {
		return [4]float32{}, &Fault{VA: va}
	}
	return [4]float32{unorm8[v&0xff], unorm8[v>>8&0xff], unorm8[v>>16&0xff], unorm8[v>>24]}, nil
}

// pageCache is a small direct-mapped cache of the pages PageMem returned,
// so texel, uniform, direct-load and store accesses cost one interface call
// per page instead of one per access. A bilinear fetch touches two texture
// rows, which for textures of 1024 texels or more are different pages;
// with one entry the two rows evicted each other and the 1080p "tex" scene
// spent 10% of its time in the MMU (profile of 2026-11-21). 64 entries
// rather than 8: a 64×64 tile of a 1024-texel-wide texture at about 1:1
// touches ~61 row pages, and a tile list holding many draws (the "tex"
// scene's 100) walks the same rows once per draw; with 8 entries every
// draw missed on every row again (and evicted the descriptor's page). At
// 64 the 1080p "tex" scene's time in read32 (the miss path, with the
// Page calls under it) fell from 0.87 s to 0.35 s of 26 s CPU (pprof, one
// frame), and at 480×270 fetch4 calls fell from 120,854 to 53,496
// (callgrind).
type pageCache struct {
	m        Mem
	pm       PageMem
	tag      [pageCacheEntries]uint32 // VA page number + 1; 0 = empty
	writable [pageCacheEntries]bool
	page     [pageCacheEntries]*[4096]byte
	fills    uint64 // misses that asked PageMem for a page (StageCounts.TMUPageMisses)
}

const pageCacheEntries = 64

func (p *pageCache) init(m Mem) {
	p.m = m
	p.pm, _ = m.(PageMem)
	p.reset()
}

func (p *pageCache) reset() { p.tag = [pageCacheEntries]uint32{} }

// lookup returns the page holding va, fetching it if needed.
func (p *pageCache) lookup(va uint32, write bool) ([]byte, bool) {
	vpn := va >> 12
	k := vpn & (pageCacheEntries - 1)
	if p.tag[k] == vpn+1 && (!write || p.writable[k]) {
		return p.page[k][:], true
	}
	p.fills++
	pg, ok := p.pm.Page(va, write)
	if !ok || len(pg) < 4096 {
		p.tag[k] = 0
		return nil, false
	}
	p.tag[k], p.page[k], p.writable[k] = vpn+1, (*[4096]byte)(pg), write
	return p.page[k][:], true
}

// hit returns the word at the 4-aligned va when its page is cached; small
// enough to be inlined, with read32 as the caller's fallback.
func (p *pageCache) hit(va uint32) (uint32, bool) {
	vpn := va >> 12
	k := vpn & (pageCacheEntries - 1)
	if p.tag[k] != vpn+1 {
		return 0, false
	}
	return binary.LittleEndian.Uint32(p.page[k][va&0xffc:]), true
}

// pageOf returns the cached page holding va, if any (inlined: no fetch).
func (p *pageCache) pageOf(va uint32) (*[4096]byte, bool) {
	vpn := va >> 12
	k := vpn & (pageCacheEntries - 1)
	return p.page[k], p.tag[k] == vpn+1
}

// word is read32 for 4-aligned addresses (texels always are: the
// descriptor checks keep Address, FaceStride and level offsets 4-aligned).
func (p *pageCache) word(va uint32) (uint32, bool) {
	if v, ok := p.hit(va); ok {
		return v, true
	}
	return p.read32(va)
}

func (p *pageCache) read32(va uint32) (uint32, bool) {
	if p.pm == nil || va&3 != 0 {
		return p.m.Read32(va)
	}
	pg, ok := p.lookup(va, false)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint32(pg[va&0xffc:]), true
}

func (p *pageCache) write32(va, v uint32) bool {
	if p.pm == nil || va&3 != 0 {
		return p.m.Write32(va, v)
	}
	pg, ok := p.lookup(va, true)
	if !ok {
		return false
	}
	binary.LittleEndian.PutUint32(pg[va&0xffc:], v)
	return true
}

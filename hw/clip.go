package hw

// Clipping in homogeneous clip space (Sutherland–Hodgman). The binner uses
// it only to bound primitives that cross the near or far plane; the
// renderer uses it to produce the exact visible polygon with interpolated
// varyings. Intersections are always computed from the inside vertex
// towards the outside one, so an edge shared by two triangles is cut at
// bit-identical points and no cracks open along clipped edges.

// maxVaryings bounds FragmentNumVaryings (GL ES 2.0 implementations offer
// 8 vec4 varyings; 64 scalars leaves room for point size and more).
const maxVaryings = 64

// maxClipVerts: a triangle clipped by 7 planes has at most 10 vertices.
const maxClipVerts = 12

// guardBand is the NDC extent beyond which x and y are clipped, keeping
// fixed-point window coordinates far from int64 overflow (see raster.go).
const guardBandPixels = 1 << 20

// wEpsilon keeps clipped vertices strictly in front of the eye.
const wEpsilon = 1e-7

type clipVert struct {
	pos [4]float32
	v   [maxVaryings]float32
}

type clipper struct {
	nvary int
	// halfZ puts the near plane at z = 0 (CONFIGURATION_BITS ClipHalfZ).
	halfZ bool
	// guard is the NDC guard-band limit for x and y.
	guardX, guardY float32
	buf            [2][maxClipVerts]clipVert
}

// outcode bits.
const (
	outNear = 1 << iota
	outFar
	outW
	outLeft
	outRight
	outBottom
	outTop
)

func (c *clipper) outcode(p *[4]float32) uint32 {
	x, y, z, w := p[0], p[1], p[2], p[3]
	var o uint32
	if z < -w || (c.halfZ && z < 0) {
		o |= outNear
	}
	if z > w {
		o |= outFar
	}
	if w < wEpsilon {
		o |= outW
	}
	if x < -c.guardX*w {
		o |= outLeft
	}
	if x > c.guardX*w {
		o |= outRight
	}
	if y < -c.guardY*w {
		o |= outBottom
	}
	if y > c.guardY*w {
		o |= outTop
	}
	return o
}

func (c *clipper) dist(plane uint32, p *[4]float32) float32 {
	x, y, z, w := p[0], p[1], p[2], p[3]
	switch plane {
	case outNear:
		if c.halfZ {
			return z
		}
		return z + w
	case outFar:
		return w - z
	case outW:
		return w - wEpsilon
	case outLeft:
		return x + c.guardX*w
	case outRight:
		return c.guardX*w - x
	case outBottom:
		return y + c.guardY*w
	default:
		return c.guardY*w - y
	}
}

// clip clips the polygon in[0:n] against the planes in mask and returns
// the result (which may alias c.buf) and its vertex count.
func (c *clipper) clip(in []clipVert, mask uint32) []clipVert {
	cur := in
	which := 0
	for plane := uint32(1); plane <= outTop; plane <<= 1 {
		if mask&plane == 0 {
			continue
		}
		out := c.buf[which][:0]
		n := len(cur)
		for i := 0; i < n; i++ {
			a := &cur[i]
			b := &cur[(i+1)%n]
			da, db := c.dist(plane, &a.pos), c.dist(plane, &b.pos)
			if da >= 0 {
				out = append(out, *a)
			}
			if (da >= 0) != (db >= 0) {
				// Interpolate from the inside vertex.
				in, outv, din, dout := a, b, da, db
				if da < 0 {
					in, outv, din, dout = b, a, db, da
				}
				t := din / (din - dout)
				var nv clipVert
				for k := 0; k < 4; k++ {
					nv.pos[k] = in.pos[k] + t*(outv.pos[k]-in.pos[k])
				}
				for k := 0; k < c.nvary; k++ {
					nv.v[k] = in.v[k] + t*(outv.v[k]-in.v[k])
				}
				if len(out) < maxClipVerts {
					out = append(out, nv)
				}
			}
		}
		cur = out
		which ^= 1
		if len(cur) < 3 {
			return cur[:0]
		}
	}
	return cur
}

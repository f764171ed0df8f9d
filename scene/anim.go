package scene

import (
	"math"

	"github.com/tilegpu/tilegpu/internal/vmath"
)

// ModelNode is a glTF node's local transform: Matrix when the file gives
// one, else translation T, unit rotation quaternion R (x, y, z, w) and
// scale S, which animations replace.
type ModelNode struct {
	Name   string
	Parent int // index into Model.Nodes; -1 for a root
	Matrix *vmath.Mat4
	T      [3]float32
	R      [4]float32
	S      [3]float32
}

// Skin binds a skinned mesh to joint nodes: vertex joint k moves with
// node Joints[k], relative to its bind pose InverseBind[k].
type Skin struct {
	Name        string
	Joints      []int // indices into Model.Nodes
	InverseBind []vmath.Mat4
}

// Animation is a set of channels, each driving one property of one node.
type Animation struct {
	Name     string
	Channels []AnimChannel
	Duration float32 // seconds: the last key time of any channel
}

// AnimPath is the node property a channel drives.
type AnimPath uint8

const (
	PathTranslation AnimPath = iota
	PathRotation
	PathScale
)

// Interpolation is glTF's animation sampler interpolation.
type Interpolation uint8

const (
	InterpLinear Interpolation = iota // rotations: spherical linear
	InterpStep
	InterpCubicSpline // Values hold in-tangent, value, out-tangent per key
)

// AnimChannel is one animated property: key Times (seconds, increasing)
// and their Values (3 or 4 components per key, three times that for
// cubic splines).
type AnimChannel struct {
	Node   int
	Path   AnimPath
	Interp Interpolation
	Times  []float32
	Values []float32
}

// Pose returns m with its animations applied at time t seconds (each
// channel clamped to its keys' range) and its skinned meshes deformed
// accordingly. m is not changed; the result shares its unskinned vertex
// data. A model without animations is returned posed at rest.
func (m *Model) Pose(t float32) *Model {
	if len(m.Nodes) == 0 {
		return m
	}
	return m.pose(max(t, 0))
}

// pose poses m at time t, or at rest (no animation) when t < 0.
func (m *Model) pose(t float32) *Model {
	nodes := append([]ModelNode(nil), m.Nodes...)
	if t >= 0 {
		for _, a := range m.Animations {
			for _, ch := range a.Channels {
				n := &nodes[ch.Node]
				n.Matrix = nil // animated nodes use TRS (glTF requires it)
				switch ch.Path {
				case PathTranslation:
					copy(n.T[:], ch.sample(t, 3))
				case PathScale:
					copy(n.S[:], ch.sample(t, 3))
				case PathRotation:
					copy(n.R[:], ch.sample(t, 4))
				}
			}
		}
	}
	world := make([]vmath.Mat4, len(nodes))
	done := make([]bool, len(nodes))
	var worldOf func(i, depth int) vmath.Mat4
	worldOf = func(i, depth int) vmath.Mat4 {
		if done[i] {
			return world[i]
		}
		n := nodes[i]
		local := vmath.Identity()
		if n.Matrix != nil {
			local = *n.Matrix
		} else {
			local = quatMatrix(float64(n.R[0]), float64(n.R[1]), float64(n.R[2]), float64(n.R[3]))
			local = vmath.Mul(local, vmath.Scale(n.S[0], n.S[1], n.S[2]))
			local = vmath.Mul(vmath.Translate(n.T[0], n.T[1], n.T[2]), local)
		}
		if n.Parent >= 0 && depth < maxNodeDepth {
			local = vmath.Mul(worldOf(n.Parent, depth+1), local)
		}
		world[i], done[i] = local, true
		return local
	}
	out := *m
	out.Nodes = nodes
	out.Meshes = make([]ModelMesh, len(m.Meshes), len(m.Meshes)+len(m.Instances))
	for i, me := range m.Meshes {
		out.Meshes[i] = ModelMesh{Name: me.Name, Primitives: append([]Primitive(nil), me.Primitives...)}
	}
	out.Instances = append([]Instance(nil), m.Instances...)
	for k := range out.Instances {
		in := &out.Instances[k]
		if in.Node < 0 {
			continue
		}
		in.World = worldOf(in.Node, 0)
		if in.Skin < 0 {
			continue
		}
		sk := m.Skins[in.Skin]
		joints := make([]vmath.Mat4, len(sk.Joints))
		for j, node := range sk.Joints {
			joints[j] = vmath.Mul(worldOf(node, 0), sk.InverseBind[j])
		}
		src := m.Meshes[in.Mesh]
		skinned := ModelMesh{Name: src.Name, Primitives: make([]Primitive, len(src.Primitives))}
		for pi, p := range src.Primitives {
			skinned.Primitives[pi] = skinPrimitive(p, joints)
		}
		out.Meshes = append(out.Meshes, skinned)
		in.Mesh = len(out.Meshes) - 1
		in.World = vmath.Identity() // the joints place a skinned mesh in the world
	}
	out.Cameras = append([]ModelCamera(nil), m.Cameras...)
	for k := range out.Cameras {
		out.Cameras[k].World = worldOf(out.Cameras[k].Node, 0)
	}
	out.computeBounds()
	return &out
}

// skinPrimitive returns p with positions, normals and tangents moved by
// the weighted sum of its vertices' joint matrices (linear blend
// skinning). A primitive without joints is returned as is.
func skinPrimitive(p Primitive, joints []vmath.Mat4) Primitive {
	if p.Joints == nil {
		return p
	}
	out := p
	out.Vertices = append([]float32(nil), p.Vertices...)
	nv := len(p.Vertices) / ModelVertexFloats
	for v := 0; v < nv && 4*v+3 < len(p.Joints) && 4*v+3 < len(p.Weights); v++ {
		var mat vmath.Mat4
		for k := 0; k < 4; k++ {
			w := p.Weights[4*v+k]
			if w == 0 || int(p.Joints[4*v+k]) >= len(joints) {
				continue
			}
			j := joints[p.Joints[4*v+k]]
			for e := range mat {
				mat[e] += w * j[e]
			}
		}
		vert := out.Vertices[v*ModelVertexFloats : (v+1)*ModelVertexFloats]
		pos := transformPoint(mat, [3]float32{vert[0], vert[1], vert[2]})
		nrm := normalize(transformDir(mat, [3]float32{vert[3], vert[4], vert[5]}))
		tan := normalize(transformDir(mat, [3]float32{vert[12], vert[13], vert[14]}))
		copy(vert[0:3], pos[:])
		copy(vert[3:6], nrm[:])
		copy(vert[12:15], tan[:])
	}
	return out
}

// sample evaluates the channel at time t (clamped to its keys) as comps
// values.
func (ch *AnimChannel) sample(t float32, comps int) []float32 {
	n := len(ch.Times)
	per := 1
	if ch.Interp == InterpCubicSpline {
		per = 3
	}
	key := func(k int) []float32 { // the value (not the tangents) of key k
		off := (k*per + per/2) * comps
		return ch.Values[off : off+comps]
	}
	if t <= ch.Times[0] || n == 1 {
		return append([]float32(nil), key(0)...)
	}
	if t >= ch.Times[n-1] {
		return append([]float32(nil), key(n-1)...)
	}
	k := 0
	for k+1 < n && ch.Times[k+1] <= t {
		k++
	}
	t0, t1 := ch.Times[k], ch.Times[k+1]
	dt := t1 - t0
	u := (t - t0) / dt
	out := make([]float32, comps)
	switch ch.Interp {
	case InterpStep:
		copy(out, key(k))
	case InterpCubicSpline:
		v0, v1 := key(k), key(k+1)
		b0 := ch.Values[(k*3+2)*comps : (k*3+3)*comps] // out-tangent of k
		a1 := ch.Values[(k+1)*3*comps : ((k+1)*3+1)*comps]
		u2, u3 := u*u, u*u*u
		for c := range out {
			out[c] = (2*u3-3*u2+1)*v0[c] + (u3-2*u2+u)*dt*b0[c] + (-2*u3+3*u2)*v1[c] + (u3-u2)*dt*a1[c]
		}
		if ch.Path == PathRotation {
			normalizeQuat(out)
		}
	default:
		v0, v1 := key(k), key(k+1)
		if ch.Path == PathRotation {
			return slerp(v0, v1, u)
		}
		for c := range out {
			out[c] = v0[c] + (v1[c]-v0[c])*u
		}
	}
	return out
}

// slerp interpolates unit quaternions along the shorter arc.
func slerp(a, b []float32, u float32) []float32 {
	d := float64(a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3])
	sign := float32(1)
	if d < 0 {
		d, sign = -d, -1
	}
	out := make([]float32, 4)
	if d > 0.9995 { // nearly equal: linear, then normalise
		for c := range out {
			out[c] = a[c] + (sign*b[c]-a[c])*u
		}
		normalizeQuat(out)
		return out
	}
	th := math.Acos(d)
	s0 := float32(math.Sin((1-float64(u))*th) / math.Sin(th))
	s1 := float32(math.Sin(float64(u)*th)/math.Sin(th)) * sign
	for c := range out {
		out[c] = s0*a[c] + s1*b[c]
	}
	return out
}

func normalizeQuat(q []float32) {
	l := float32(math.Sqrt(float64(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])))
	if l == 0 {
		q[0], q[1], q[2], q[3] = 0, 0, 0, 1
		return
	}
	for c := range q {
		q[c] /= l
	}
}

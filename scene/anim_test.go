package scene

import (
	"math"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// animDoc is a quad (node 0) with one animation channel on node 0.
func animDoc(t *testing.T, path gltf.TRSProperty, interp gltf.Interpolation, times []float32, values any) *Model {
	t.Helper()
	q := newQuadDoc()
	q.addQuad(0, q.addMaterial(unlitMaterial(1, 0, 0, 1)))
	d := q.doc
	in := modeler.WriteAccessor(d, gltf.TargetNone, times)
	out := modeler.WriteAccessor(d, gltf.TargetNone, values)
	d.Animations = []*gltf.Animation{{
		Samplers: []*gltf.AnimationSampler{{Input: in, Output: out, Interpolation: interp}},
		Channels: []*gltf.AnimationChannel{{Sampler: 0, Target: gltf.AnimationChannelTarget{Node: gltf.Index(0), Path: path}}},
	}}
	return q.load(t)
}

// TestAnimationTranslation: the node moves from x = 0 at t = 0 to x = 2 at
// t = 1. Linear interpolation puts it at 1 at t = 0.5; step holds 0 until
// the next key; a cubic spline with zero tangents is the Hermite
// polynomial, which is 1 at the midpoint too; times outside the keys
// clamp.
func TestAnimationTranslation(t *testing.T) {
	keys := [][3]float32{{0, 0, 0}, {2, 0, 0}}
	cubic := [][3]float32{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {2, 0, 0}, {0, 0, 0}} // in, value, out per key
	for _, tc := range []struct {
		name   string
		interp gltf.Interpolation
		values any
		at     float32
		want   float32
	}{
		{"linear", gltf.InterpolationLinear, keys, 0.5, 1},
		{"linear quarter", gltf.InterpolationLinear, keys, 0.25, 0.5},
		{"step", gltf.InterpolationStep, keys, 0.5, 0},
		{"step at key", gltf.InterpolationStep, keys, 1, 2},
		{"cubic", gltf.InterpolationCubicSpline, cubic, 0.5, 1},
		{"cubic quarter", gltf.InterpolationCubicSpline, cubic, 0.25, 2 * (3*0.0625 - 2*0.015625)},
		{"before", gltf.InterpolationLinear, keys, -1, 0},
		{"after", gltf.InterpolationLinear, keys, 7, 2},
	} {
		m := animDoc(t, gltf.TRSTranslation, tc.interp, []float32{0, 1}, tc.values)
		if len(m.Animations) != 1 || m.Animations[0].Duration != 1 {
			t.Fatalf("%s: animations %+v", tc.name, m.Animations)
		}
		posed := m.Pose(tc.at)
		if got := posed.Instances[0].World[12]; math.Abs(float64(got-tc.want)) > 1e-6 {
			t.Errorf("%s: x at t=%v is %v, want %v", tc.name, tc.at, got, tc.want)
		}
		if m.Instances[0].World[12] != 0 {
			t.Errorf("%s: Pose changed the model it was given", tc.name)
		}
	}
}

// TestAnimationRotation: a quarter turn about +Y, halfway, is an eighth
// turn (spherical interpolation): the rotated +X axis is (cos 45°, 0,
// -sin 45°).
func TestAnimationRotation(t *testing.T) {
	s := float32(math.Sin(math.Pi / 4))
	m := animDoc(t, gltf.TRSRotation, gltf.InterpolationLinear, []float32{0, 2}, [][4]float32{{0, 0, 0, 1}, {0, s, 0, s}})
	w := m.Pose(1).Instances[0].World
	c := math.Cos(math.Pi / 4)
	if math.Abs(float64(w[0])-c) > 1e-5 || math.Abs(float64(w[2])+c) > 1e-5 || math.Abs(float64(w[1])) > 1e-6 {
		t.Errorf("rotated +X axis (%v, %v, %v), want (%.4f, 0, %.4f)", w[0], w[1], w[2], c, -c)
	}
}

// TestSkinning: a quad whose top vertices follow joint 1 and bottom
// vertices joint 0 (identity bind matrices, joints at the origin). Joint
// 1 is animated up by one unit, so at t = 1 the top edge is at y = 2 and
// the bottom edge stays at y = -1; the mesh node's own transform (a large
// translation) is ignored, as glTF requires.
func TestSkinning(t *testing.T) {
	q := newQuadDoc()
	q.addQuad(0, q.addMaterial(unlitMaterial(1, 0, 0, 1)))
	d := q.doc
	prim := d.Meshes[0].Primitives[0]
	prim.Attributes[gltf.JOINTS_0] = modeler.WriteJoints(d, [][4]uint8{{1, 0, 0, 0}, {1, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}})
	prim.Attributes[gltf.WEIGHTS_0] = modeler.WriteWeights(d, [][4]float32{{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}})
	d.Nodes[0].Skin = gltf.Index(0)
	d.Nodes[0].Translation = [3]float64{100, 0, 0}
	d.Nodes = append(d.Nodes, &gltf.Node{Name: "root"}, &gltf.Node{Name: "tip"})
	d.Nodes[1].Children = []int{2}
	d.Scenes[0].Nodes = append(d.Scenes[0].Nodes, 1)
	d.Skins = []*gltf.Skin{{Joints: []int{1, 2}}}
	in := modeler.WriteAccessor(d, gltf.TargetNone, []float32{0, 1})
	out := modeler.WriteAccessor(d, gltf.TargetNone, [][3]float32{{0, 0, 0}, {0, 1, 0}})
	d.Animations = []*gltf.Animation{{
		Samplers: []*gltf.AnimationSampler{{Input: in, Output: out}},
		Channels: []*gltf.AnimationChannel{{Sampler: 0, Target: gltf.AnimationChannelTarget{Node: gltf.Index(2), Path: gltf.TRSTranslation}}},
	}}
	m := q.load(t)
	ys := func(m *Model) []float32 {
		in := m.Instances[0]
		var out []float32
		p := m.Meshes[in.Mesh].Primitives[0]
		for v := 0; v < len(p.Vertices); v += ModelVertexFloats {
			w := transformPoint(in.World, [3]float32{p.Vertices[v], p.Vertices[v+1], p.Vertices[v+2]})
			if w[0] != 1 && w[0] != -1 {
				t.Errorf("vertex x %v, want ±1 (the mesh node's translation must be ignored)", w[0])
			}
			out = append(out, w[1])
		}
		return out
	}
	if got := ys(m); got[0] != 1 || got[1] != 1 || got[2] != -1 || got[3] != -1 {
		t.Errorf("rest pose y %v, want [1 1 -1 -1]", got)
	}
	posed := m.Pose(1)
	if got := ys(posed); got[0] != 2 || got[1] != 2 || got[2] != -1 || got[3] != -1 {
		t.Errorf("posed y %v, want [2 2 -1 -1]", got)
	}
	if posed.Max[1] != 2 || posed.Min[1] != -1 {
		t.Errorf("posed bounds %v..%v", posed.Min, posed.Max)
	}
	// The posed model draws: red at the quad's new top part.
	img := renderFront(t, posed)
	if got := rgb(img.NRGBAAt(matSize/2, matSize/4)); !near(got, quantize(1, 0, 0), 1) {
		t.Errorf("posed quad at its upper part %v, want red", got)
	}
}

func TestAnimationErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		times  []float32
		values any
		want   string
	}{
		{"count mismatch", []float32{0, 1}, [][3]float32{{0, 0, 0}}, "animations[0].samplers[0].output: 1 values of 3 components for 2 times"},
		{"times not increasing", []float32{1, 1}, [][3]float32{{0, 0, 0}, {1, 1, 1}}, "animations[0].samplers[0].input: times must increase"},
	} {
		q := newQuadDoc()
		q.addQuad(0, q.addMaterial(unlitMaterial(1, 0, 0, 1)))
		d := q.doc
		in := modeler.WriteAccessor(d, gltf.TargetNone, tc.times)
		out := modeler.WriteAccessor(d, gltf.TargetNone, tc.values)
		d.Animations = []*gltf.Animation{{
			Samplers: []*gltf.AnimationSampler{{Input: in, Output: out}},
			Channels: []*gltf.AnimationChannel{{Sampler: 0, Target: gltf.AnimationChannelTarget{Node: gltf.Index(0), Path: gltf.TRSTranslation}}},
		}}
		if _, err := loadDoc(q); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
}

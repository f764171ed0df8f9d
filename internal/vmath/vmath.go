// Package vmath is the small amount of linear algebra the applications in
// tilegpu (the bench scenes, the default scene) need: column-major 4×4 float32
// matrices laid out as GL's glUniformMatrix4fv expects, and 3-vectors.
package vmath

import "math"

// Mat4 is a column-major 4×4 matrix: element (row r, column c) is m[c*4+r].
type Mat4 [16]float32

// Identity returns the identity matrix.
func Identity() Mat4 { return Mat4{0: 1, 5: 1, 10: 1, 15: 1} }

// Mul returns a·b.
func Mul(a, b Mat4) Mat4 {
	var t Mat4
	for c := 0; c < 4; c++ {
		for r := 0; r < 4; r++ {
			var s float32
			for k := 0; k < 4; k++ {
				s += a[k*4+r] * b[c*4+k]
			}
			t[c*4+r] = s
		}
	}
	return t
}

// RotateX returns a rotation by a radians about the x axis.
func RotateX(a float32) Mat4 {
	m := Identity()
	c, s := float32(math.Cos(float64(a))), float32(math.Sin(float64(a)))
	m[5], m[6], m[9], m[10] = c, s, -s, c
	return m
}

// RotateY returns a rotation by a radians about the y axis.
func RotateY(a float32) Mat4 {
	m := Identity()
	c, s := float32(math.Cos(float64(a))), float32(math.Sin(float64(a)))
	m[0], m[2], m[8], m[10] = c, -s, s, c
	return m
}

// Translate returns a translation by (x, y, z).
func Translate(x, y, z float32) Mat4 {
	m := Identity()
	m[12], m[13], m[14] = x, y, z
	return m
}

// Scale returns a scaling by (x, y, z).
func Scale(x, y, z float32) Mat4 {
	return Mat4{0: x, 5: y, 10: z, 15: 1}
}

// Perspective returns GL's perspective projection (gluPerspective) for a
// vertical field of view fovy in radians.
func Perspective(fovy, aspect, near, far float32) Mat4 {
	t := 1 / float32(math.Tan(float64(fovy)/2))
	var m Mat4
	m[0] = t / aspect
	m[5] = t
	m[10] = (far + near) / (near - far)
	m[11] = -1
	m[14] = 2 * far * near / (near - far)
	return m
}

// Vec3 is a 3-vector.
type Vec3 [3]float32

// Sub returns a−b.
func (a Vec3) Sub(b Vec3) Vec3 { return Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

// Cross returns a×b.
func (a Vec3) Cross(b Vec3) Vec3 {
	return Vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// Dot returns a·b.
func (a Vec3) Dot(b Vec3) float32 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// Normalize returns a/|a|, or a if it is zero.
func (a Vec3) Normalize() Vec3 {
	l := float32(math.Sqrt(float64(a.Dot(a))))
	if l == 0 {
		return a
	}
	return Vec3{a[0] / l, a[1] / l, a[2] / l}
}

// LookAt returns the view matrix of a camera at eye looking at center.
func LookAt(eye, center, up Vec3) Mat4 {
	f := center.Sub(eye).Normalize()
	s := f.Cross(up).Normalize()
	u := s.Cross(f)
	m := Identity()
	m[0], m[4], m[8] = s[0], s[1], s[2]
	m[1], m[5], m[9] = u[0], u[1], u[2]
	m[2], m[6], m[10] = -f[0], -f[1], -f[2]
	m[12] = -s.Dot(eye)
	m[13] = -u.Dot(eye)
	m[14] = f.Dot(eye)
	return m
}

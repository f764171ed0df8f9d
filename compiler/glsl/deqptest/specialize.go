package deqptest

import (
	"fmt"
	"strings"
)

// floatType returns the float type with the same shape as a GLSL type
// name ("ivec3" → "vec3", "bool" → "float"), and whether t is float-based.
func floatType(t string) (string, bool) {
	switch {
	case strings.HasPrefix(t, "ivec"), strings.HasPrefix(t, "bvec"):
		return t[1:], false
	case t == "int", t == "bool":
		return "float", false
	}
	return t, true
}

// compareFunc returns the isOk overload dEQP generates for a type.
func compareFunc(t string) string {
	switch {
	case t == "float":
		return "bool isOk (float a, float b, float eps) { return (abs(a-b) <= (eps*abs(b) + eps)); }\n"
	case strings.HasPrefix(t, "vec"):
		return fmt.Sprintf("bool isOk (%s a, %s b, float eps) { return all(lessThanEqual(abs(a-b), (eps*abs(b) + eps))); }\n", t, t)
	case strings.HasPrefix(t, "mat"):
		n := t[3:]
		var b strings.Builder
		fmt.Fprintf(&b, "bool isOk (%s a, %s b, float eps) {\n", t, t)
		fmt.Fprintf(&b, "\tvec%s diff, delta;\n", n)
		cols := int(n[0] - '0')
		for c := 0; c < cols; c++ {
			fmt.Fprintf(&b, "\tdiff = abs(a[%d]-b[%d]); delta = eps*abs(b[%d]) + eps; if (any(greaterThan(diff, delta))) return false;\n", c, c, c)
		}
		b.WriteString("\treturn true;\n}\n")
		return b.String()
	}
	return fmt.Sprintf("bool isOk (%s a, %s b) { return (a == b); }\n", t, t)
}

func usesFloatEps(t string) bool {
	return t == "float" || strings.HasPrefix(t, "vec") || strings.HasPrefix(t, "mat")
}

// compareOp returns the code that writes the comparison result to dst.
func compareOp(vals []Value, dst string) string {
	var b strings.Builder
	b.WriteString("bool RES = ")
	first := true
	for _, v := range vals {
		if v.Storage != Output {
			continue
		}
		if !first {
			b.WriteString(" && ")
		}
		first = false
		if usesFloatEps(v.Type) {
			fmt.Fprintf(&b, "isOk(%s, ref_%s, 0.05)", v.Name, v.Name)
		} else {
			fmt.Fprintf(&b, "isOk(%s, ref_%s)", v.Name, v.Name)
		}
	}
	if first {
		b.WriteString("true")
	}
	fmt.Fprintf(&b, ";\n%s = vec4(RES, RES, RES, 1.0);\n", dst)
	return b.String()
}

func compareFuncs(vals []Value) string {
	var b strings.Builder
	done := map[string]bool{}
	for _, v := range vals {
		if v.Storage == Output && !done[v.Type] {
			done[v.Type] = true
			b.WriteString(compareFunc(v.Type))
		}
	}
	return b.String()
}

// substitute replaces ${NAME} and ${NAME:single-line} (the value joined
// into one line so that line numbers stay put).
func substitute(src string, params map[string]string) string {
	for k, v := range params {
		src = strings.ReplaceAll(src, "${"+k+"}", v)
		src = strings.ReplaceAll(src, "${"+k+":single-line}", strings.ReplaceAll(v, "\n", " "))
	}
	return src
}

// uniformDecls declares the uniforms of the values block whose names are
// plain identifiers (members like "s.a" belong to a declared structure).
func uniformDecls(vals []Value) string {
	var b strings.Builder
	for _, v := range vals {
		if v.Storage == Uniform && !strings.ContainsAny(v.Name, ".[") {
			fmt.Fprintf(&b, "uniform %s %s;\n", v.Type, v.Name)
		}
	}
	return b.String()
}

// vertexOnly specializes a Both source as the vertex shader under test:
// inputs are attributes, outputs are varyings.
func vertexOnly(c *Case) (vs, fs string) {
	var decl, setup, output strings.Builder
	decl.WriteString("attribute highp vec4 dEQP_Position;\n")
	output.WriteString("gl_Position = dEQP_Position;\n")
	for _, v := range c.Values {
		ft, isFloat := floatType(v.Type)
		switch v.Storage {
		case Input:
			if isFloat {
				fmt.Fprintf(&decl, "attribute %s %s;\n", ft, v.Name)
			} else {
				fmt.Fprintf(&decl, "attribute %s a_%s;\n", ft, v.Name)
				fmt.Fprintf(&setup, "%s %s = %s(a_%s);\n", v.Type, v.Name, v.Type, v.Name)
			}
		case Output:
			if isFloat {
				fmt.Fprintf(&decl, "varying %s %s;\n", ft, v.Name)
			} else {
				fmt.Fprintf(&decl, "varying %s v_%s;\n", ft, v.Name)
				fmt.Fprintf(&decl, "%s %s;\n", v.Type, v.Name)
				fmt.Fprintf(&output, "v_%s = %s(%s);\n", v.Name, ft, v.Name)
			}
		}
	}
	vs = substitute(c.Both, map[string]string{
		"DECLARATIONS": decl.String(), "SETUP": setup.String(), "OUTPUT": output.String(),
		"POSITION_FRAG_COLOR": "gl_Position",
	})
	// The fragment shader compares the varyings against references.
	var f strings.Builder
	f.WriteString("precision mediump float;\n")
	f.WriteString(compareFuncs(c.Values))
	for _, v := range c.Values {
		if v.Storage != Output {
			continue
		}
		ft, isFloat := floatType(v.Type)
		fmt.Fprintf(&f, "uniform %s ref_%s;\n", v.Type, v.Name)
		if isFloat {
			fmt.Fprintf(&f, "varying %s %s;\n", ft, v.Name)
		} else {
			fmt.Fprintf(&f, "varying %s v_%s;\n", ft, v.Name)
		}
	}
	f.WriteString("void main()\n{\n")
	for _, v := range c.Values {
		if _, isFloat := floatType(v.Type); v.Storage == Output && !isFloat {
			fmt.Fprintf(&f, "%s %s = %s(v_%s);\n", v.Type, v.Name, v.Type, v.Name)
		}
	}
	f.WriteString(compareOp(c.Values, "gl_FragColor"))
	f.WriteString("}\n")
	return vs, f.String()
}

// fragmentOnly specializes a Both source as the fragment shader under
// test: inputs are varyings, outputs are locals compared to ref_ uniforms.
func fragmentOnly(c *Case) (vs, fs string) {
	var v strings.Builder
	v.WriteString("attribute highp vec4 dEQP_Position;\n")
	for _, val := range c.Values {
		if val.Storage != Input {
			continue
		}
		ft, isFloat := floatType(val.Type)
		prefix := ""
		if !isFloat {
			prefix = "v_"
		}
		fmt.Fprintf(&v, "attribute %s a_%s;\nvarying %s %s%s;\n", ft, val.Name, ft, prefix, val.Name)
	}
	v.WriteString("void main()\n{\n\tgl_Position = dEQP_Position;\n")
	for _, val := range c.Values {
		if val.Storage != Input {
			continue
		}
		_, isFloat := floatType(val.Type)
		prefix := ""
		if !isFloat {
			prefix = "v_"
		}
		fmt.Fprintf(&v, "\t%s%s = a_%s;\n", prefix, val.Name, val.Name)
	}
	v.WriteString("}\n")
	decl, setup := fragmentDecls(c.Values)
	fs = substitute(c.Both, map[string]string{
		"DECLARATIONS": decl, "SETUP": setup, "OUTPUT": compareOp(c.Values, "gl_FragColor"),
		"POSITION_FRAG_COLOR": "gl_FragColor",
	})
	return v.String(), fs
}

func fragmentDecls(vals []Value) (decl, setup string) {
	var d, s strings.Builder
	d.WriteString(compareFuncs(vals))
	for _, v := range vals {
		ft, isFloat := floatType(v.Type)
		switch v.Storage {
		case Input:
			if isFloat {
				fmt.Fprintf(&d, "varying %s %s;\n", ft, v.Name)
			} else {
				fmt.Fprintf(&d, "varying %s v_%s;\n", ft, v.Name)
				fmt.Fprintf(&s, "%s %s = %s(v_%s);\n", v.Type, v.Name, v.Type, v.Name)
			}
		case Output:
			fmt.Fprintf(&d, "uniform %s ref_%s;\n", v.Type, v.Name)
			fmt.Fprintf(&d, "%s %s;\n", v.Type, v.Name)
		}
	}
	return d.String(), s.String()
}

// Programs returns the shader pairs dEQP builds for the case: two for a
// Both case (<name>_vertex and <name>_fragment), one otherwise.
func (c *Case) Programs() []Program {
	if c.Both != "" {
		vs1, fs1 := vertexOnly(c)
		vs2, fs2 := fragmentOnly(c)
		return []Program{{Name: c.Name + "_vertex", Vertex: vs1, Fragment: fs1},
			{Name: c.Name + "_fragment", Vertex: vs2, Fragment: fs2}}
	}
	var vdecl, vsetup, vout strings.Builder
	vdecl.WriteString("attribute highp vec4 dEQP_Position;\n")
	vout.WriteString("gl_Position = dEQP_Position;\n")
	for _, v := range c.Values {
		ft, isFloat := floatType(v.Type)
		if v.Storage == Input {
			if isFloat {
				fmt.Fprintf(&vdecl, "attribute %s %s;\n", ft, v.Name)
			} else {
				fmt.Fprintf(&vdecl, "attribute %s a_%s;\n", ft, v.Name)
				fmt.Fprintf(&vsetup, "%s %s = %s(a_%s);\n", v.Type, v.Name, v.Type, v.Name)
			}
		}
	}
	vdecl.WriteString(uniformDecls(c.Values))
	fdecl, fsetup := fragmentDecls(outputsOnly(c.Values))
	fdecl += uniformDecls(c.Values)
	vs := substitute(c.Vertex, map[string]string{
		"VERTEX_DECLARATIONS": vdecl.String(), "VERTEX_SETUP": vsetup.String(), "VERTEX_OUTPUT": vout.String(),
		"DECLARATIONS": vdecl.String(), "SETUP": vsetup.String(), "OUTPUT": vout.String(),
		"POSITION_FRAG_COLOR": "gl_Position",
	})
	fs := substitute(c.Fragment, map[string]string{
		"FRAGMENT_DECLARATIONS": fdecl, "FRAGMENT_SETUP": fsetup, "FRAGMENT_OUTPUT": compareOp(c.Values, "gl_FragColor"),
		"DECLARATIONS": fdecl, "SETUP": fsetup, "OUTPUT": compareOp(c.Values, "gl_FragColor"),
		"POSITION_FRAG_COLOR": "gl_FragColor", "FRAG_COLOR": "gl_FragColor",
	})
	return []Program{{Name: c.Name, Vertex: vs, Fragment: fs}}
}

func outputsOnly(vals []Value) []Value {
	var out []Value
	for _, v := range vals {
		if v.Storage == Output {
			out = append(out, v)
		}
	}
	return out
}

package glsl

// Link checks a vertex and a fragment shader against each other (GLSL ES
// 1.00 sections 4.3.4, 4.3.5, 4.6.4 and 7): both need main; every varying
// the fragment shader reads must be declared by the vertex shader with the
// same type and invariance; uniforms declared in both must agree in type,
// and in precision when both use them; gl_FragCoord and gl_PointCoord are
// invariant only with gl_Position and gl_PointSize. It returns nil when the
// program links. It does not check the implementation limits: that needs
// the set of active variables, which only the caller knows after
// optimisation; see CountResources.
func Link(vs, fs *TranslationUnit) ErrorList {
	var errs ErrorList
	fail := func(tok, msg string) { errs = append(errs, Error{Token: tok, Msg: msg, Link: true}) }
	if vs == nil || fs == nil {
		fail("", "missing shader")
		return errs
	}
	errs = append(errs, LinkStage(vs)...)
	errs = append(errs, LinkStage(fs)...)
	vsVars := map[string]*Variable{}
	for _, v := range vs.Globals {
		vsVars[v.Name] = v
	}
	for _, f := range fs.Globals {
		v := vsVars[f.Name]
		switch f.Storage {
		case StorageVarying:
			if v == nil || v.Storage != StorageVarying {
				if f.Used {
					fail(f.Name, "fragment shader varying not declared in the vertex shader")
				}
				continue
			}
			if !sameTypeAcross(v.Type, f.Type, false) {
				fail(f.Name, "varying type differs between vertex and fragment shader")
			}
			if f.Invariant && !v.Invariant {
				fail(f.Name, "varying invariance differs between vertex and fragment shader")
			}
		case StorageUniform:
			if v == nil || v.Storage != StorageUniform {
				continue
			}
			// Types (with structure member names) must match. Precisions
			// must match only where both shaders statically use the
			// uniform: the rule Mesa adopted because applications paste
			// one set of uniform declarations into stages with different
			// default precisions (section 4.5.3 asks for a match; a stage
			// that never reads the uniform cannot observe the difference).
			both := v.Used && f.Used
			if !sameTypeAcross(v.Type, f.Type, false) {
				fail(f.Name, "uniform type differs between vertex and fragment shader")
			} else if both && (!sameTypeAcross(v.Type, f.Type, true) || precisionKind(v.Type) != Void && v.Precision != f.Precision) {
				fail(f.Name, "uniform precision differs between vertex and fragment shader")
			}
		}
	}
	// Section 4.6.4: gl_FragCoord may be invariant only if gl_Position
	// is, gl_PointCoord only if gl_PointSize is.
	for _, r := range [][2]string{{"gl_FragCoord", "gl_Position"}, {"gl_PointCoord", "gl_PointSize"}} {
		if fs.InvariantBuiltins[r[0]] && !vs.InvariantBuiltins[r[1]] {
			fail(r[0], r[0]+" is invariant in the fragment shader but "+r[1]+" is not invariant in the vertex shader")
		}
	}
	// Varyings invariant in the vertex shader but read as non-invariant.
	for _, f := range fs.Globals {
		if v := vsVars[f.Name]; v != nil && f.Storage == StorageVarying && v.Storage == StorageVarying &&
			v.Invariant && !f.Invariant && !vs.InvariantAll {
			fail(f.Name, "varying invariance differs between vertex and fragment shader")
		}
	}
	return errs
}

// LinkStage checks what linking requires of one shader on its own: GLSL
// ES 1.00 section 7 gives each shader of a program a main. A unit without
// one compiles (Parse checks a translation unit, which may define helpers
// only) and fails here, as glLinkProgram reports it.
func LinkStage(tu *TranslationUnit) ErrorList {
	var errs ErrorList
	if tu.Main == nil {
		errs = append(errs, Error{Token: "main", Msg: "missing main in " + tu.Stage.String() + " shader", Link: true})
	}
	if tu.Stage == Compute && tu.LocalSize == [3]int{} {
		// GLSL ES 3.10 §4.4.1.1: a program with a compute shader must
		// declare a fixed local size, or linking fails.
		errs = append(errs, Error{Token: "local_size", Msg: "compute shader must declare layout(local_size_x = X, local_size_y = Y, local_size_z = Z) in", Link: true})
	}
	return errs
}

// sameTypeAcross compares types from two shaders: structures match by
// name and members (and member precisions when withPrecision).
func sameTypeAcross(a, b *Type, withPrecision bool) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Array:
		return a.Len == b.Len && sameTypeAcross(a.Elem, b.Elem, withPrecision)
	case Struct:
		x, y := a.Struct, b.Struct
		if x.Name != y.Name || len(x.Fields) != len(y.Fields) {
			return false
		}
		for i := range x.Fields {
			fx, fy := x.Fields[i], y.Fields[i]
			if fx.Name != fy.Name || !sameTypeAcross(fx.Type, fy.Type, withPrecision) {
				return false
			}
			if withPrecision && fx.Precision != fy.Precision {
				return false
			}
		}
	}
	return true
}

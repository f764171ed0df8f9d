package glsl

import "fmt"

// checkDeclSize reports a declaration of a variable of type t that no
// program of this implementation can hold, at the declaration's line and
// before the lowering allocates anything proportional to the size: an
// interface variable larger than its stage's whole limit (uniform rows,
// samplers, varying rows, counted as Appendix A §7 counts them, which
// Link would reject anyway once the variable is used), or a private
// variable beyond MaxPrivateComponents or, with the ones declared before
// it, MaxPrivateComponentsTotal. what is "variable" or "parameter":
// parameters hold copies of values declared (and counted) elsewhere, so
// they count only against the limit for one variable. (Function results
// need no check: they cannot contain arrays.)
func (p *parser) checkDeclSize(line int, name string, t *Type, storage Storage, what string) {
	tooBig := func(format string, args ...any) {
		p.errorf(line, name, fmt.Sprintf(format, args...))
	}
	switch storage {
	case StorageUniform:
		limit, limitName := MaxVertexUniformVectors, "GL_MAX_VERTEX_UNIFORM_VECTORS"
		units, unitsName := MaxVertexTextureImageUnits, "GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS"
		if p.stage == Fragment {
			limit, limitName = MaxFragmentUniformVectors, "GL_MAX_FRAGMENT_UNIFORM_VECTORS"
			units, unitsName = MaxTextureImageUnits, "GL_MAX_TEXTURE_IMAGE_UNITS"
		}
		if rows, ok := PackedVectors([]*Type{t}, limit); !ok {
			tooBig("uniform too large: it needs at least %d vectors, more than %s = %d (GLSL ES 1.00 Appendix A §7)",
				rows, limitName, limit)
		}
		if n := samplerCount(t); n > units {
			tooBig("uniform too large: %d samplers, more than %s = %d", n, unitsName, units)
		}
	case StorageVarying:
		if rows, ok := PackedVectors([]*Type{t}, MaxVaryingVectors); !ok {
			tooBig("varying too large: it needs at least %d vectors, more than GL_MAX_VARYING_VECTORS = %d (GLSL ES 1.00 Appendix A §7)",
				rows, MaxVaryingVectors)
		}
	case StorageAttribute:
		// Attributes are never arrays or structures; Link counts them.
	default:
		n := t.Components()
		if n > MaxPrivateComponents {
			tooBig("%s too large: %d components, more than this implementation's limit of %d for one variable",
				what, n, MaxPrivateComponents)
			return
		}
		if what != "variable" {
			return
		}
		before := p.privateComponents
		p.privateComponents += n
		if p.privateComponents > MaxPrivateComponentsTotal {
			if before <= MaxPrivateComponentsTotal {
				tooBig("too many variables: together they have %d components, more than this implementation's limit of %d",
					p.privateComponents, MaxPrivateComponentsTotal)
			}
		}
	}
}

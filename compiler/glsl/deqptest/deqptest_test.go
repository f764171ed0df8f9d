package deqptest

import (
	"strings"
	"testing"
)

const sample = `
# a comment
group basic "Basic"
    case both_case
        desc "a description"
        values
        {
            input int in0 = [ 1 | 2 ];
            output float out0 = 1.5; # trailing comment
            uniform bool u = true;
        }
        both ""
            precision mediump float;
            ${DECLARATIONS}
            void main()
            {
                ${SETUP}
                out0 = float(in0);
                ${OUTPUT}
            }
        ""
    end
    group nested "Nested"
        case split_case
            version 100 es
            expect link_fail
            require full_glsl_es_100_support
            vertex ""
                ${VERTEX_DECLARATIONS}
                void main() { ${VERTEX_OUTPUT} }
            ""
            fragment ""
                void main() { ${FRAG_COLOR} = vec4(1.0); }
            ""
        end
    end
end
`

func TestParse(t *testing.T) {
	cases, err := Parse(sample)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 {
		t.Fatalf("got %d cases, want 2", len(cases))
	}
	c := cases[0]
	if c.FullName() != "basic.both_case" || c.Expect != Pass || c.Desc != "a description" || c.Version != "100" {
		t.Errorf("case 0 header: %+v", c)
	}
	if len(c.Values) != 3 || c.Values[0].Storage != Input || len(c.Values[0].Elements) != 2 ||
		c.Values[1].Storage != Output || c.Values[1].Elements[0] != "1.5" || c.Values[2].Storage != Uniform {
		t.Errorf("values: %+v", c.Values)
	}
	if !strings.HasPrefix(c.Both, "precision mediump float;\n${DECLARATIONS}") {
		t.Errorf("both source not unindented: %q", c.Both)
	}
	progs := c.Programs()
	if len(progs) != 2 || progs[0].Name != "both_case_vertex" || progs[1].Name != "both_case_fragment" {
		t.Fatalf("programs: %+v", progs)
	}
	for _, want := range []string{"attribute float a_in0;", "int in0 = int(a_in0);", "varying float out0;"} {
		if !strings.Contains(progs[0].Vertex, want) {
			t.Errorf("vertex-under-test lacks %q:\n%s", want, progs[0].Vertex)
		}
	}
	for _, want := range []string{"varying float v_in0;", "uniform float ref_out0;", "float out0;", "gl_FragColor = vec4(RES, RES, RES, 1.0);"} {
		if !strings.Contains(progs[1].Fragment, want) {
			t.Errorf("fragment-under-test lacks %q:\n%s", want, progs[1].Fragment)
		}
	}
	s := cases[1]
	if s.FullName() != "basic.nested.split_case" || s.Expect != LinkFail || s.Version != "100 es" ||
		len(s.Requirements) != 1 || s.Requirements[0] != "full_glsl_es_100_support" {
		t.Errorf("case 1 header: %+v", s)
	}
	p := s.Programs()
	if len(p) != 1 || !strings.Contains(p[0].Vertex, "gl_Position = dEQP_Position;") || !strings.Contains(p[0].Fragment, "gl_FragColor = vec4(1.0)") {
		t.Errorf("split programs: %+v", p)
	}
}

func TestParseErrors(t *testing.T) {
	for _, src := range []string{
		"case x\n both \"\"\nvoid main(){}\n",
		"group g \"d\"\n",
		"end\n",
		"case x\n expect maybe\n both \"a\"\nend\n",
		"case x\n values { input float ; }\n both \"a\"\nend\n",
		"case x\n vertex \"a\"\nend\n",
		"bogus\n",
	} {
		if _, err := Parse(src); err == nil {
			t.Errorf("%q: no error", src)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Add("case a\nboth \"x\"\nend\n")
	f.Fuzz(func(t *testing.T, src string) {
		cases, err := Parse(src)
		if err != nil {
			return
		}
		for i := range cases {
			cases[i].Programs()
		}
	})
}

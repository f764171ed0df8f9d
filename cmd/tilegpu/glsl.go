package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tilegpu/tilegpu/compiler"
	"github.com/tilegpu/tilegpu/compiler/backend"
	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
)

// stdout and stderr are where the glsl and disasm commands write; tests
// replace them.
var (
	stdout io.Writer = os.Stdout
	stderr io.Writer = os.Stderr
)

// glslFile is one shader named on the command line.
type glslFile struct {
	path   string
	stage  glsl.Stage
	source string
	unit   *glsl.TranslationUnit // nil if it did not compile
}

// cmdGLSL is `tilegpu glsl`, a glslangValidator for the tilegpu compiler:
// it checks each file as a GLSL ES 1.00 shader and prints diagnostics in
// glslangValidator's format (a line with the file name, then
// `ERROR: 0:LINE: 'token' : message` lines and the summary); with one
// vertex and one fragment shader (in either order) it also links them,
// and otherwise links each file alone (as glslangValidator -l does), so
// that a file without main is an error; -c only compiles (as glCompileShader
// does, and glslangValidator without -l). -dump prints the IR
// after a named pass of compiler/ir (or after every pass), -S the final
// machine code of every stage with its register allocation and statistics.
// It exits with status 2 when a file does not compile or the program does
// not link.
func cmdGLSL(args []string) error {
	fs := flag.NewFlagSet("glsl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stageFlag := fs.String("stage", "", "shader stage of every FILE: vert, frag or comp (default: from the extension, .vert/.vs, .frag/.fs or .comp)")
	dump := fs.String("dump", "", "print the IR after pass `PASS` (\"all\": after every pass); passes: "+passNames())
	asm := fs.Bool("S", false, "print the machine code of each stage (vertex, coordinate, fragment, or compute) with registers and statistics")
	compileOnly := fs.Bool("c", false, "compile only, do not link (a translation unit without main is then valid)")
	preShader := fs.Bool("preshader", false, "with -S: move uniform-only work into a per-draw pre-shader (as the driver does) and print it")
	noPoints := fs.Bool("nopoints", false, "with -S: the variant for line and triangle draws (no gl_PointSize write, gl_PointCoord reads 0)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: tilegpu glsl [-c] [-stage vert|frag|comp] [-dump=PASS|all] [-S [-preshader] [-nopoints]] FILE...\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return exitError(2)
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitError(2)
	}
	if *dump != "" && *dump != "all" && !knownPass(*dump) {
		return fmt.Errorf("-dump: unknown pass %q (valid: all, %s)", *dump, passNames())
	}
	var files []*glslFile
	for _, path := range fs.Args() {
		st, err := shaderStage(path, *stageFlag)
		if err != nil {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files = append(files, &glslFile{path: path, stage: st, source: string(src)})
	}

	failed := false
	for _, f := range files {
		fmt.Fprintln(stdout, f.path)
		unit, errs := glsl.Parse(f.stage, f.source)
		if errs != nil {
			fmt.Fprint(stdout, errs.InfoLog())
			failed = true
			continue
		}
		// Constructs the IR cannot express are compile errors too (as in
		// compiler.CompileShader); a unit without main has nothing to lower.
		if unit.Main == nil {
			f.unit = unit
			continue
		}
		if _, err := ir.FromAST(unit); err != nil {
			fmt.Fprintf(stdout, "ERROR: 0:0: '' : %v\nERROR: 1 compilation errors.  No code generated.\n", err)
			failed = true
			continue
		}
		f.unit = unit
	}
	if failed {
		return exitError(2)
	}

	if *compileOnly {
		if *dump != "" || *asm {
			return fmt.Errorf("-c: -dump and -S need a linked shader; leave out -c")
		}
		return nil
	}
	// A compute shader links alone (main and its local size).
	graphics := files[:0:0]
	for _, f := range files {
		if f.stage != glsl.Compute {
			graphics = append(graphics, f)
			continue
		}
		if errs := glsl.LinkStage(f.unit); errs != nil {
			fmt.Fprintf(stdout, "Linked compute stage (%s)\n", f.path)
			fmt.Fprint(stdout, errs.InfoLog())
			failed = true
		}
	}
	if failed {
		return exitError(2)
	}
	if *dump != "" {
		for _, f := range files {
			if f.stage != glsl.Compute {
				continue
			}
			if err := dumpPasses(f, *dump); err != nil {
				return err
			}
		}
	}
	if *asm {
		for _, f := range files {
			if f.stage != glsl.Compute {
				continue
			}
			p, err := compiler.CompileCompute(f.source)
			if err != nil {
				return fmt.Errorf("%s: %v", f.path, err)
			}
			b := p.Binary
			printBinary(f.path, fmt.Sprintf("compute (local size %d×%d×%d, %d shared bytes)", p.LocalSize[0], p.LocalSize[1], p.LocalSize[2], p.SharedBytes),
				false, b.Listing(), b.Stats, b.Uniforms)
		}
	}
	files = graphics
	var prog *compiler.Program
	if len(files) == 2 && files[0].stage != files[1].stage {
		vs, fsh := files[0], files[1]
		if vs.stage == glsl.Fragment {
			vs, fsh = fsh, vs
		}
		prog = compiler.Link(compiler.CompileShader(compiler.Vertex, vs.source),
			compiler.CompileShader(compiler.Fragment, fsh.source), nil)
		if !prog.OK {
			fmt.Fprintln(stdout, "Linked program")
			fmt.Fprint(stdout, prog.Log)
			return exitError(2)
		}
	} else {
		for _, f := range files {
			st := compiler.Vertex
			if f.stage == glsl.Fragment {
				st = compiler.Fragment
			}
			if p := compiler.LinkAlone(compiler.CompileShader(st, f.source)); !p.OK {
				fmt.Fprintf(stdout, "Linked %s stage (%s)\n", f.stage, f.path)
				fmt.Fprint(stdout, p.Log)
				failed = true
			}
		}
		if failed {
			return exitError(2)
		}
	}

	if *dump != "" {
		for _, f := range files {
			if err := dumpPasses(f, *dump); err != nil {
				return err
			}
		}
	}
	if *asm {
		if prog != nil {
			return printVariant(prog, compiler.Key{PreShader: *preShader, NoPoints: *noPoints})
		}
		for _, f := range files {
			if err := printStages(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// shaderStage is the stage named by flag, or else by the file extension.
func shaderStage(path, flag string) (glsl.Stage, error) {
	name := flag
	if name == "" {
		name = strings.TrimPrefix(filepath.Ext(path), ".")
	}
	switch name {
	case "vert", "vs":
		return glsl.Vertex, nil
	case "frag", "fs":
		return glsl.Fragment, nil
	case "comp":
		return glsl.Compute, nil
	}
	if flag != "" {
		return 0, fmt.Errorf("-stage %q: want vert, frag or comp", flag)
	}
	return 0, fmt.Errorf("%s: cannot tell the stage from the extension (use .vert, .vs, .frag, .fs, .comp or -stage)", path)
}

func passNames() string {
	names := make([]string, len(ir.Passes))
	for i, p := range ir.Passes {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

func knownPass(name string) bool {
	for _, p := range ir.Passes {
		if p.Name == name {
			return true
		}
	}
	return false
}

// dumpPasses runs the passes over f's IR and prints it after pass (or
// after every pass). A shader on its own has no linked I/O layout, so
// interface variables are placed in declaration order
// (ir.SequentialLayout), as the file would be compiled alone.
func dumpPasses(f *glslFile, pass string) error {
	fn, err := ir.FromAST(f.unit)
	if err != nil {
		return err
	}
	opts := ir.Options{Layout: ir.SequentialLayout(fn), After: func(name string, fn *ir.Func) {
		if pass == "all" || pass == name {
			fmt.Fprintf(stdout, "=== %s: %s shader after %s ===\n%s", f.path, fn.Stage, name, ir.Dump(fn))
		}
	}}
	if err := ir.Run(fn, opts); err != nil {
		return fmt.Errorf("%s: %v", f.path, err)
	}
	return nil
}

// printStages compiles one shader on its own (sequential I/O layout) and
// prints its machine code: a vertex shader also as the coordinate shader.
func printStages(f *glslFile) error {
	stages := []ir.Stage{ir.Fragment}
	if f.stage == glsl.Vertex {
		stages = []ir.Stage{ir.Vertex, ir.Coordinate}
	}
	for _, st := range stages {
		fn, err := ir.FromAST(f.unit)
		if err != nil {
			return err
		}
		fn.Stage = st
		if err := ir.Run(fn, ir.Options{Layout: ir.SequentialLayout(fn)}); err != nil {
			return fmt.Errorf("%s: %v", f.path, err)
		}
		// As compiler.Program.Variant: a fragment shader runs two threads
		// per core when that costs no spills.
		opts := backend.Options{Stage: st, Threaded: st == ir.Fragment}
		bin, err := backend.Compile(fn, opts)
		if err == nil && opts.Threaded && bin.Stats.Spills > 0 {
			opts.Threaded = false
			bin, err = backend.Compile(fn, opts)
		}
		if err != nil {
			return fmt.Errorf("%s: %s shader: %v", f.path, st, err)
		}
		printBinary(f.path, st.String(), opts.Threaded, bin.Listing(), bin.Stats, bin.Uniforms)
	}
	return nil
}

// printVariant prints the three stages of a linked program.
func printVariant(p *compiler.Program, key compiler.Key) error {
	v, err := p.Variant(key)
	if err != nil {
		return err
	}
	for _, s := range []struct {
		name     string
		b        *compiler.Binary
		threaded bool
	}{{"vertex", v.VS, false}, {"coordinate", v.CS, false}, {"fragment", v.FS, v.FSThreaded}} {
		printBinary("program", s.name, s.threaded, s.b.Listing(), s.b.Stats, s.b.Uniforms)
	}
	if v.PreShader != nil {
		fmt.Fprintf(stdout, "=== program: pre-shader (once per draw on the CPU; %d derived words) ===\n%s", v.PreShader.Len(), v.PreShader)
	}
	return nil
}

// printBinary writes one stage: a header, the allocated QIR and the
// disassembly (the backend's listing), the uniform stream and the stats.
func printBinary(what, stage string, threaded bool, listing string, st backend.Stats, uniforms []ir.UniformEntry) {
	mode := "single-threaded"
	if threaded {
		mode = "two threads"
	}
	fmt.Fprintf(stdout, "=== %s: %s shader (%s) ===\n", what, stage, mode)
	fmt.Fprint(stdout, listing)
	if len(uniforms) > 0 {
		fmt.Fprintf(stdout, "uniforms:")
		for i, u := range uniforms {
			fmt.Fprintf(stdout, " [%d]%v", i, u)
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stdout, "stats: %d instructions, %d paired, %d nops, %d branches, %d load-immediates, "+
		"%d spills, %d fills, %d accumulator values of %d temps, %d uniforms\n",
		st.Instructions, st.PairedInstructions, st.Nops, st.Branches, st.LoadImmediates,
		st.Spills, st.Fills, st.AccumulatorValues, st.Temps, st.Uniforms)
}

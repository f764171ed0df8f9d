// Command tilegpu is the front door to the tilegpu stack: it renders the
// default scene, runs the benchmark scenes, decodes command streams
// (cffdump-style), validates and disassembles shaders (glslangValidator- and
// disassembler-style), and runs the dEQP and piglit shader test formats on the
// virtual GPU. It is an application: everything it renders goes through
// gl.Context and every layer below it.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

const usage = `usage: tilegpu <command> [flags]

commands:
  render       render the default scene (Spot), or models (.gltf/.glb/.stl/.obj, or directories of
               them), to PNG, JPEG or GIF (-turntable: animated); -json stats; -decode command streams
  bench        run a benchmark scene of shared/bench/SCENES.md (fill, blend, tex, tris)
  glsl         validate GLSL ES 1.00 shaders; -dump=PASS|all prints IR, -S the final code
  disasm       disassemble TG machine code
  deqp         run dEQP GLES2 shader-library .test files on the virtual GPU
  shader-test  run piglit .shader_test files on the virtual GPU
  serve        run the GPU process: one GPU shared by clients on a Unix socket and/or TCP
  replay       re-execute a recorded command stream (serve -record) on a fresh GPU; -decode prints it
  crashdec     decode a GPU crash dump (Config.CrashDumpDir): ring, draw, tile, shader with the PC marked
  compute      run a GLSL ES 3.10 compute shader on the virtual GPU (pal, COMPUTE engine) and print its buffers

Run 'tilegpu <command> -h' for a command's flags.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	cmds := map[string]func([]string) error{
		"render":      cmdRender,
		"bench":       cmdBench,
		"glsl":        cmdGLSL,
		"disasm":      cmdDisasm,
		"deqp":        cmdDEQP,
		"shader-test": cmdShaderTest,
		"serve":       cmdServe,
		"replay":      cmdReplay,
		"crashdec":    cmdCrashdec,
		"compute":     cmdCompute,
	}
	run, ok := cmds[os.Args[1]]
	if !ok {
		if os.Args[1] == "-h" || os.Args[1] == "help" || os.Args[1] == "--help" {
			fmt.Print(usage)
			return
		}
		fmt.Fprintf(os.Stderr, "tilegpu: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err := run(os.Args[2:]); err != nil {
		if errors.Is(err, flag.ErrHelp) { // -h: the command printed its usage
			return
		}
		if ee, ok := err.(exitError); ok {
			os.Exit(int(ee))
		}
		fmt.Fprintf(os.Stderr, "tilegpu %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

// exitError ends the program with a status and no further message (the
// command has already printed what went wrong).
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

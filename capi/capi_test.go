package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The C tests build the library with build.sh's command, compile each
// testdata/*.c program against the Khronos headers with the system C
// compiler, link it with -lEGL -lGLESv2 (or load it with dlopen) and run it
// with LD_LIBRARY_PATH pointing at the library: C programs exactly as an
// application would be built. Each program checks its own results (pixels
// read back against expected values) and prints "ok".

var (
	libOnce sync.Once
	libDir  string
	libErr  string
)

// cc returns the C compiler, or skips the test when there is none.
func cc(t *testing.T) string {
	name := os.Getenv("CC")
	if name == "" {
		name = "cc"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("no C compiler (%s): the C ABI tests need one", name)
	}
	return path
}

// library builds the libraries once per test binary.
func library(t *testing.T) string {
	cc(t)
	libOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tilegpu-capi-test")
		if err != nil {
			libErr = err.Error()
			return
		}
		out, err := exec.Command("bash", "build.sh", dir).CombinedOutput()
		if err != nil {
			libErr = "build.sh: " + err.Error() + "\n" + string(out)
			return
		}
		libDir = dir
	})
	if libErr != "" {
		t.Fatal(libErr)
	}
	return libDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if libDir != "" {
		os.RemoveAll(libDir)
	}
	os.Exit(code)
}

// runC compiles testdata/name.c and runs it against the libraries on the
// surfaceless platform.
func runC(t *testing.T, name string, libs ...string) string {
	// These programs use the surfaceless platform whatever $DISPLAY says.
	return runCEnv(t, name, []string{"EGL_PLATFORM=surfaceless"}, libs...)
}

// runCEnv compiles testdata/name.c and runs it against the libraries with
// env added to the environment.
func runCEnv(t *testing.T, name string, env []string, libs ...string) string {
	compiler := cc(t)
	lib := library(t)
	for _, h := range []string{"/usr/include/EGL/egl.h", "/usr/include/GLES2/gl2.h"} {
		if _, err := os.Stat(h); err != nil {
			t.Fatalf("%s missing: install the Khronos headers (Debian: apt-get install libegl-dev libgles-dev)", h)
		}
	}
	exe := filepath.Join(t.TempDir(), name)
	args := []string{"-std=c11", "-D_GNU_SOURCE", "-Wall", "-Werror", "-O1", "-o", exe, filepath.Join("testdata", name+".c"), "-L" + lib}
	args = append(args, libs...)
	if out, err := exec.Command(compiler, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", compiler, strings.Join(args, " "), err, out)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(append(os.Environ(), "LD_LIBRARY_PATH="+lib), env...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), "ok") {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
	return string(out)
}

func TestCPrograms(t *testing.T) {
	for _, tc := range []struct {
		name string
		libs []string
	}{
		{"basic", []string{"-lEGL", "-lGLESv2"}},
		{"threads", []string{"-lEGL", "-lGLESv2", "-lpthread"}},
		{"concurrent", []string{"-lEGL", "-lGLESv2", "-lpthread"}},
		{"dlopen", []string{"-ldl"}},
		{"extensions", []string{"-lEGL", "-lGLESv2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := runC(t, tc.name, tc.libs...)
			t.Log(strings.TrimSpace(out))
		})
	}
}

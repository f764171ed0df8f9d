// Command capi is tilegpu's C ABI: built with -buildmode=c-shared
// (capi/build.sh) it is libEGL and libGLESv2 for C and C++ programs — EGL
// 1.5 (surfaceless platform, pbuffers) and every OpenGL ES 2.0 entry point,
// over the whole tilegpu stack (gles → driver/tg → kernel → hw).
//
// It carries the "EGL" role of the architecture for programs outside Go:
// the display owns the virtual GPU, its kernel driver and one driver screen;
// each EGL context is a gles.Context on its own driver context. It lives in
// its own Go module so that the core module stays free of cgo.
//
// One library holds both APIs, so a process has one Go runtime and one
// display however it loads them (libEGL.so.1 as a DT_NEEDED, libEGL.so or
// libGLESv2.so.2 through dlopen, or eglGetProcAddress): build.sh writes it
// once as libtilegpu.so and makes the four Khronos names symbolic links to
// it; the dynamic loader maps one file only once, whatever name opens it.
package main

func main() {}

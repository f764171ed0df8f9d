/* tg.h: the C types of the exported EGL and GL ES 2.0 entry points, as the
 * Khronos headers define them for Linux x86-64 and arm64, and the helpers
 * in tg.c. The Khronos headers themselves cannot be included into the cgo
 * files: their prototypes use const qualifiers that cgo's generated
 * declarations lack. EGL handles are uintptr_t here and void* there; both
 * are passed in the same integer register by every Linux ABI. The C tests
 * (testdata/*.c) compile against the real <EGL/egl.h> and <GLES2/gl2.h>. */
#ifndef TILEGPU_CAPI_TG_H
#define TILEGPU_CAPI_TG_H
#include <stdint.h>
#include <stddef.h>

typedef unsigned int GLenum;
typedef unsigned char GLboolean;
typedef unsigned int GLbitfield;
typedef int GLint;
typedef int GLsizei;
typedef unsigned int GLuint;
typedef float GLfloat;
typedef char GLchar;
typedef unsigned char GLubyte;
typedef intptr_t GLintptr;
typedef intptr_t GLsizeiptr;

typedef unsigned int EGLBoolean;
typedef int32_t EGLint;
typedef unsigned int EGLenum;
typedef intptr_t EGLAttrib;
typedef uintptr_t EGLHandle; /* EGLDisplay, EGLConfig, EGLSurface, EGLContext, EGLSync, EGLImage */
typedef uint64_t EGLTime;

/* The calling thread's current context and EGL error (thread-local). */
uintptr_t tg_current(void);
void tg_set_current(uintptr_t ctx);
EGLint tg_egl_error(void);
void tg_set_egl_error(EGLint e);
uintptr_t tg_thread(void);
/* The address of an exported gl* or egl* function of this library. */
void *tg_proc_address(const char *name);
#endif

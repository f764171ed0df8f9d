/* common.h: helpers of the C tests (capi_test.go builds and runs them). */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		if (!(cond)) {                                                  \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                           \
			fprintf(stderr, "\n");                                  \
			exit(1);                                                \
		}                                                               \
	} while (0)

static inline EGLDisplay open_display(void) {
	EGLDisplay d = eglGetDisplay(EGL_DEFAULT_DISPLAY);
	CHECK(d != EGL_NO_DISPLAY, "eglGetDisplay");
	EGLint major = 0, minor = 0;
	CHECK(eglInitialize(d, &major, &minor), "eglInitialize: 0x%x", eglGetError());
	CHECK(major == 1 && minor == 5, "EGL %d.%d", major, minor);
	return d;
}

static inline EGLConfig choose(EGLDisplay d, EGLint depth) {
	const EGLint attrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT,
		EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8, EGL_DEPTH_SIZE, depth, EGL_NONE};
	EGLConfig c;
	EGLint n = 0;
	CHECK(eglChooseConfig(d, attrs, &c, 1, &n) && n == 1, "eglChooseConfig: n=%d err=0x%x", n, eglGetError());
	return c;
}

static inline EGLContext make_context(EGLDisplay d, EGLConfig c, EGLContext share) {
	const EGLint attrs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
	EGLContext ctx = eglCreateContext(d, c, share, attrs);
	CHECK(ctx != EGL_NO_CONTEXT, "eglCreateContext: 0x%x", eglGetError());
	return ctx;
}

static inline EGLSurface make_pbuffer(EGLDisplay d, EGLConfig c, int w, int h) {
	const EGLint attrs[] = {EGL_WIDTH, w, EGL_HEIGHT, h, EGL_NONE};
	EGLSurface s = eglCreatePbufferSurface(d, c, attrs);
	CHECK(s != EGL_NO_SURFACE, "eglCreatePbufferSurface: 0x%x", eglGetError());
	return s;
}

static inline GLuint compile(GLenum type, const char *src) {
	GLuint s = glCreateShader(type);
	glShaderSource(s, 1, &src, NULL);
	glCompileShader(s);
	GLint ok = 0;
	glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		char log[1024];
		glGetShaderInfoLog(s, sizeof log, NULL, log);
		CHECK(0, "compile: %s", log);
	}
	return s;
}

/* program: attribute 0 = vec2 position, attribute 1 = vec4 colour. */
static inline GLuint colour_program(void) {
	GLuint p = glCreateProgram();
	glAttachShader(p, compile(GL_VERTEX_SHADER,
		"attribute vec2 pos; attribute vec4 col; varying vec4 v;\n"
		"void main() { v = col; gl_Position = vec4(pos, 0.0, 1.0); }\n"));
	glAttachShader(p, compile(GL_FRAGMENT_SHADER,
		"precision mediump float; varying vec4 v;\n"
		"void main() { gl_FragColor = v; }\n"));
	glBindAttribLocation(p, 0, "pos");
	glBindAttribLocation(p, 1, "col");
	glLinkProgram(p);
	GLint ok = 0;
	glGetProgramiv(p, GL_LINK_STATUS, &ok);
	CHECK(ok, "link");
	return p;
}

/* expect_pixel checks the RGBA8 pixel at (x, y) of the current framebuffer. */
static inline void expect_pixel(int x, int y, unsigned r, unsigned g, unsigned b, unsigned a, const char *what) {
	unsigned char px[4] = {1, 2, 3, 4};
	glReadPixels(x, y, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, px);
	CHECK(glGetError() == GL_NO_ERROR, "%s: glReadPixels error", what);
	CHECK(px[0] == r && px[1] == g && px[2] == b && px[3] == a, "%s: pixel (%d,%d) = %u,%u,%u,%u, want %u,%u,%u,%u",
		what, x, y, px[0], px[1], px[2], px[3], r, g, b, a);
}

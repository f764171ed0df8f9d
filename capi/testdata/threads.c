/* threads.c: several threads, each with its own context and pbuffer, draw
 * at the same time; a second share group member on another thread samples
 * a texture and reads a buffer that the first context created. */
#include <pthread.h>
#include "common.h"

#define THREADS 4
#define ROUNDS 8

static EGLDisplay dpy;
static EGLConfig cfg;

static void *worker(void *arg) {
	int id = (int)(intptr_t)arg;
	EGLContext ctx = make_context(dpy, cfg, EGL_NO_CONTEXT);
	EGLSurface s = make_pbuffer(dpy, cfg, 32, 32);
	CHECK(eglMakeCurrent(dpy, s, s, ctx), "thread %d: eglMakeCurrent 0x%x", id, eglGetError());
	CHECK(eglGetCurrentContext() == ctx, "thread %d: current context", id);
	GLuint p = colour_program();
	glUseProgram(p);
	static const float pos[] = {-1, -1, 1, -1, -1, 1, 1, 1};
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, pos);
	glEnableVertexAttribArray(0);
	for (int r = 0; r < ROUNDS; r++) {
		unsigned char want = (unsigned char)(id * 50 + r);
		glClearColor(0, 0, 0, 1);
		glClear(GL_COLOR_BUFFER_BIT);
		glVertexAttrib4f(1, want / 255.0f, (255 - want) / 255.0f, 0, 1);
		glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
		expect_pixel(id * 7 % 32, r * 3 % 32, want, 255 - want, 0, 255, "thread colour");
	}
	CHECK(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT), "release");
	CHECK(eglDestroyContext(dpy, ctx) && eglDestroySurface(dpy, s), "destroy");
	return NULL;
}

static EGLContext owner;
static GLuint sharedTex, sharedBuf;

static void *sharer(void *arg) {
	(void)arg;
	EGLContext ctx = make_context(dpy, cfg, owner);
	EGLSurface s = make_pbuffer(dpy, cfg, 16, 16);
	CHECK(eglMakeCurrent(dpy, s, s, ctx), "sharer: eglMakeCurrent 0x%x", eglGetError());
	CHECK(glIsTexture(sharedTex) && glIsBuffer(sharedBuf), "shared names visible");
	GLuint p = glCreateProgram();
	glAttachShader(p, compile(GL_VERTEX_SHADER,
		"attribute vec2 pos; varying vec2 uv;\n"
		"void main() { uv = pos * 0.5 + 0.5; gl_Position = vec4(pos, 0.0, 1.0); }\n"));
	glAttachShader(p, compile(GL_FRAGMENT_SHADER,
		"precision mediump float; varying vec2 uv; uniform sampler2D t;\n"
		"void main() { gl_FragColor = texture2D(t, uv); }\n"));
	glBindAttribLocation(p, 0, "pos");
	glLinkProgram(p);
	glUseProgram(p);
	glBindBuffer(GL_ARRAY_BUFFER, sharedBuf); /* the quad, uploaded by the owner */
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (void *)0);
	glEnableVertexAttribArray(0);
	glBindTexture(GL_TEXTURE_2D, sharedTex);
	glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
	expect_pixel(3, 3, 10, 200, 30, 255, "texture of the share group, bottom left");
	expect_pixel(12, 12, 90, 20, 250, 255, "texture of the share group, top right");
	CHECK(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT), "release");
	CHECK(eglDestroyContext(dpy, ctx) && eglDestroySurface(dpy, s), "destroy");
	return NULL;
}

int main(void) {
	dpy = open_display();
	cfg = choose(dpy, 0);
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		CHECK(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) == 0, "pthread_create");
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);

	/* Share group: the owner creates a 2x2 texture and a vertex buffer. */
	owner = make_context(dpy, cfg, EGL_NO_CONTEXT);
	CHECK(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, owner), "owner current");
	static const unsigned char texels[] = {10, 200, 30, 255, 0, 0, 0, 255, 0, 0, 0, 255, 90, 20, 250, 255};
	glGenTextures(1, &sharedTex);
	glBindTexture(GL_TEXTURE_2D, sharedTex);
	glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, 2, 2, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
	static const float quad[] = {-1, -1, 1, -1, -1, 1, 1, 1};
	glGenBuffers(1, &sharedBuf);
	glBindBuffer(GL_ARRAY_BUFFER, sharedBuf);
	glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
	glFinish();
	/* A context current on this thread cannot be made current on another. */
	pthread_t s;
	CHECK(pthread_create(&s, NULL, sharer, NULL) == 0, "pthread_create");
	pthread_join(s, NULL);
	CHECK(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT), "release owner");
	CHECK(eglDestroyContext(dpy, owner), "destroy owner");
	CHECK(eglTerminate(dpy), "terminate");
	puts("ok");
	return 0;
}

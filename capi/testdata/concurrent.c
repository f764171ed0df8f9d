/* concurrent.c: contexts that share nothing run their GL calls at the same
 * time. Thread A draws a long fragment-shader job and waits for it in
 * glFinish; thread B, with an unrelated context, makes GL calls while A is
 * inside glFinish. They must return before A's glFinish does: a GL call
 * takes only its own share group's lock. (With one lock for every GL call
 * of the process, B would wait for A's glFinish.) A's job is calibrated to
 * last about a second, so B (which starts 100 ms into it) is well inside. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include "common.h"

static EGLDisplay dpy;
static EGLConfig cfg;
static atomic_int aFinishing, bDone, bDoneBeforeA;
static double aFinishSeconds;

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *threadA(void *arg) {
	(void)arg;
	EGLContext ctx = make_context(dpy, cfg, EGL_NO_CONTEXT);
	EGLSurface s = make_pbuffer(dpy, cfg, 128, 128);
	CHECK(eglMakeCurrent(dpy, s, s, ctx), "A: eglMakeCurrent 0x%x", eglGetError());
	GLuint p = glCreateProgram();
	glAttachShader(p, compile(GL_VERTEX_SHADER, "attribute vec2 pos; void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n"));
	glAttachShader(p, compile(GL_FRAGMENT_SHADER,
		"precision highp float; uniform int n;\n"
		"void main() { float x = gl_FragCoord.x; for (int i = 0; i < 100000; i++) { if (i >= n) break; x = fract(x * 1.618 + 0.3); }\n"
		"  gl_FragColor = vec4(x, 0.0, 0.0, 1.0); }\n"));
	glBindAttribLocation(p, 0, "pos");
	glLinkProgram(p);
	glUseProgram(p);
	static const float quad[] = {-1, -1, 1, -1, -1, 1, 1, 1};
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, quad);
	glEnableVertexAttribArray(0);
	GLint n = glGetUniformLocation(p, "n");
	/* Calibrate: the job's length grows with n. */
	int iters = 50;
	for (;;) {
		glUniform1i(n, iters);
		double t0 = now();
		glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
		glFinish();
		double t = now() - t0;
		if (t > 0.25 || iters >= 100000)
			break;
		iters = iters * 4 > 100000 ? 100000 : iters * 4;
	}
	iters = iters * 4 > 100000 ? 100000 : iters * 4; /* about a second or more */
	glUniform1i(n, iters);
	glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
	glFlush();
	atomic_store(&aFinishing, 1);
	double t0 = now();
	glFinish();
	aFinishSeconds = now() - t0;
	atomic_store(&bDoneBeforeA, atomic_load(&bDone));
	CHECK(glGetError() == GL_NO_ERROR, "A: GL error");
	CHECK(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT), "A: release");
	CHECK(eglDestroyContext(dpy, ctx) && eglDestroySurface(dpy, s), "A: destroy");
	return NULL;
}

static void *threadB(void *arg) {
	(void)arg;
	EGLContext ctx = make_context(dpy, cfg, EGL_NO_CONTEXT);
	EGLSurface s = make_pbuffer(dpy, cfg, 16, 16);
	CHECK(eglMakeCurrent(dpy, s, s, ctx), "B: eglMakeCurrent 0x%x", eglGetError());
	while (!atomic_load(&aFinishing))
		;
	struct timespec pause = {0, 100 * 1000 * 1000};
	nanosleep(&pause, NULL);
	GLint vp[4];
	glGetIntegerv(GL_VIEWPORT, vp);
	glClearColor(0, 1, 0, 1);
	glClear(GL_COLOR_BUFFER_BIT);
	atomic_store(&bDone, 1);
	CHECK(vp[2] == 16 && glGetError() == GL_NO_ERROR, "B: viewport %d", vp[2]);
	CHECK(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT), "B: release");
	CHECK(eglDestroyContext(dpy, ctx) && eglDestroySurface(dpy, s), "B: destroy");
	return NULL;
}

int main(void) {
	dpy = open_display();
	cfg = choose(dpy, 0);
	pthread_t a, b;
	pthread_create(&a, NULL, threadA, NULL);
	pthread_create(&b, NULL, threadB, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("A's glFinish took %.2f s\n", aFinishSeconds);
	CHECK(aFinishSeconds > 0.3, "A's job took only %.2f s: too short to tell", aFinishSeconds);
	CHECK(atomic_load(&bDoneBeforeA), "B's GL calls waited for A's glFinish (%.2f s)", aFinishSeconds);
	eglTerminate(dpy);
	puts("ok");
	return 0;
}

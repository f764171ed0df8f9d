/* basic.c: one thread, the way an application starts: config selection,
 * a pbuffer, a context, client-side vertex and index arrays, state queries
 * that must not overrun, EGL's error rules, a surfaceless context. */
#include "common.h"

int main(void) {
	CHECK(eglGetError() == EGL_SUCCESS, "initial error");
	const char *cext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
	CHECK(cext && strstr(cext, "EGL_MESA_platform_surfaceless"), "client extensions: %s", cext ? cext : "(null)");
	PFNEGLGETPLATFORMDISPLAYEXTPROC getPlatformDisplay = (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
	CHECK(getPlatformDisplay != NULL, "eglGetPlatformDisplayEXT");
	EGLDisplay d = getPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
	CHECK(d == eglGetDisplay(EGL_DEFAULT_DISPLAY), "platform display differs from the default display");
	/* Before eglInitialize: EGL_NOT_INITIALIZED, and eglGetError resets to EGL_SUCCESS. */
	EGLint n = -1;
	CHECK(!eglGetConfigs(d, NULL, 0, &n) && eglGetError() == EGL_NOT_INITIALIZED, "uninitialized display");
	CHECK(eglGetError() == EGL_SUCCESS, "eglGetError did not reset");
	d = open_display();
	CHECK(strstr(eglQueryString(d, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context") != NULL, "display extensions");

	/* Config selection: among the RGBA8888 configs asking for no depth
	 * sorts the smallest depth buffer first, asking for depth gives 24. */
	CHECK(eglGetConfigs(d, NULL, 0, &n) && n >= 2, "eglGetConfigs: %d", n);
	EGLConfig noDepth = choose(d, 0), depthOnly = choose(d, 1), withDepth;
	EGLint v;
	/* Depth without stencil sorts first (smaller EGL_STENCIL_SIZE). */
	CHECK(eglGetConfigAttrib(d, depthOnly, EGL_DEPTH_SIZE, &v) && v == 24, "depth-only config has depth %d", v);
	CHECK(eglGetConfigAttrib(d, depthOnly, EGL_STENCIL_SIZE, &v) && v == 0, "depth-only config has stencil %d", v);
	{
		const EGLint attrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT, EGL_DEPTH_SIZE, 1, EGL_STENCIL_SIZE, 1,
			EGL_RED_SIZE, 8, EGL_ALPHA_SIZE, 8, EGL_NONE};
		CHECK(eglChooseConfig(d, attrs, &withDepth, 1, &n) && n == 1, "depth+stencil config: n=%d", n);
	}
	CHECK(eglGetConfigAttrib(d, noDepth, EGL_DEPTH_SIZE, &v) && v == 0, "depth 0 config has depth %d", v);
	CHECK(eglGetConfigAttrib(d, withDepth, EGL_DEPTH_SIZE, &v) && v == 24, "depth config has depth %d", v);
	CHECK(eglGetConfigAttrib(d, withDepth, EGL_STENCIL_SIZE, &v) && v == 8, "stencil %d", v);
	CHECK(eglGetConfigAttrib(d, withDepth, EGL_SAMPLES, &v) && v == 0, "samples %d", v);
	CHECK(!eglGetConfigAttrib(d, withDepth, 0x1234, &v) && eglGetError() == EGL_BAD_ATTRIBUTE, "bad attribute");
	const EGLint msaa[] = {EGL_SAMPLES, 4, EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT, EGL_DEPTH_SIZE, 24,
		EGL_RED_SIZE, 8, EGL_ALPHA_SIZE, 8, EGL_NONE};
	EGLConfig msCfg;
	CHECK(eglChooseConfig(d, msaa, &msCfg, 1, &n) && n == 1, "no 4-sample D24S8 config (%d)", n);
	CHECK(eglGetConfigAttrib(d, msCfg, EGL_SAMPLES, &v) && v == 4, "4x config: samples %d", v);
	CHECK(eglGetConfigAttrib(d, msCfg, EGL_SAMPLE_BUFFERS, &v) && v == 1, "4x config: sample buffers %d", v);
	const EGLint windowed[] = {EGL_NONE}; /* default EGL_SURFACE_TYPE is EGL_WINDOW_BIT: none here */
	CHECK(eglChooseConfig(d, windowed, NULL, 0, &n) && n == 0, "window configs: %d", n);

	CHECK(eglBindAPI(EGL_OPENGL_ES_API), "eglBindAPI");
	const EGLint es3[] = {EGL_CONTEXT_MAJOR_VERSION_KHR, 3, EGL_NONE};
	CHECK(eglCreateContext(d, withDepth, EGL_NO_CONTEXT, es3) == EGL_NO_CONTEXT && eglGetError() == EGL_BAD_MATCH, "ES 3 context");
	EGLContext ctx = make_context(d, withDepth, EGL_NO_CONTEXT);
	EGLSurface surf = make_pbuffer(d, withDepth, 64, 32);
	CHECK(eglQuerySurface(d, surf, EGL_WIDTH, &v) && v == 64, "width %d", v);
	CHECK(!eglMakeCurrent(d, surf, surf, (EGLContext)(uintptr_t)0xdead) && eglGetError() == EGL_BAD_CONTEXT, "bad context");
	EGLSurface other = make_pbuffer(d, noDepth, 8, 8);
	CHECK(!eglMakeCurrent(d, other, other, ctx) && eglGetError() == EGL_BAD_MATCH, "incompatible surface config");
	CHECK(eglMakeCurrent(d, surf, surf, ctx), "eglMakeCurrent: 0x%x", eglGetError());
	CHECK(eglGetCurrentContext() == ctx && eglGetCurrentSurface(EGL_DRAW) == surf, "current context/surface");

	/* Viewport starts at the surface size; GetIntegerv writes exactly 4 values. */
	GLint vp[6] = {-7, -7, -7, -7, -7, -7};
	glGetIntegerv(GL_VIEWPORT, vp);
	CHECK(vp[0] == 0 && vp[1] == 0 && vp[2] == 64 && vp[3] == 32 && vp[4] == -7, "viewport %d %d %d %d guard %d", vp[0], vp[1], vp[2], vp[3], vp[4]);
	GLint bits = 0;
	glGetIntegerv(GL_DEPTH_BITS, &bits);
	CHECK(bits == 24, "depth bits %d", bits);
	CHECK(glGetString(GL_VERSION) && strncmp((const char *)glGetString(GL_VERSION), "OpenGL ES 2.0", 13) == 0, "version");
	CHECK((void *)eglGetProcAddress("glDrawArrays") == (void *)glDrawArrays, "eglGetProcAddress(glDrawArrays)");

	glClearColor(0, 0, 1, 1);
	glClear(GL_COLOR_BUFFER_BIT);
	expect_pixel(5, 5, 0, 0, 255, 255, "clear");

	/* A triangle from client-side arrays covering the left half. */
	GLuint p = colour_program();
	glUseProgram(p);
	static const float pos[] = {-1, -1, 0, -1, -1, 1, 0, 1};
	static const unsigned char col[] = {255, 0, 0, 255, 255, 0, 0, 255, 255, 0, 0, 255, 255, 0, 0, 255};
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, pos);
	glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, 0, col);
	glEnableVertexAttribArray(0);
	glEnableVertexAttribArray(1);
	void *got = NULL;
	glGetVertexAttribPointerv(0, GL_VERTEX_ATTRIB_ARRAY_POINTER, &got);
	CHECK(got == (void *)pos, "glGetVertexAttribPointerv %p, want %p", got, (void *)pos);
	glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
	CHECK(glGetError() == GL_NO_ERROR, "draw arrays");
	expect_pixel(10, 10, 255, 0, 0, 255, "client arrays, left half");
	expect_pixel(50, 10, 0, 0, 255, 255, "client arrays, right half untouched");

	/* Client-side indices: a green quad on the right half. */
	static const float pos2[] = {0, -1, 1, -1, 0, 1, 1, 1};
	static const unsigned char green[] = {0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255};
	static const unsigned short idx[] = {0, 1, 2, 2, 1, 3};
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, pos2);
	glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, 0, green);
	glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, idx);
	CHECK(glGetError() == GL_NO_ERROR, "draw elements");
	expect_pixel(50, 10, 0, 255, 0, 255, "client indices");
	expect_pixel(10, 10, 255, 0, 0, 255, "left half kept");

	/* Gen/Delete with counts; names are reserved but not objects until bound. */
	GLuint bufs[3] = {0, 0, 0};
	glGenBuffers(3, bufs);
	CHECK(bufs[0] && bufs[1] && bufs[2] && bufs[0] != bufs[1], "glGenBuffers");
	CHECK(!glIsBuffer(bufs[0]), "a generated name is not yet a buffer");
	glBindBuffer(GL_ARRAY_BUFFER, bufs[0]);
	CHECK(glIsBuffer(bufs[0]), "bound name is a buffer");
	glBufferData(GL_ARRAY_BUFFER, 10, NULL, GL_STATIC_DRAW);
	glBufferSubData(GL_ARRAY_BUFFER, 8, 8, NULL); /* the range, not the pointer, decides */
	CHECK(glGetError() == GL_INVALID_VALUE, "glBufferSubData past the end with NULL data");
	glDeleteBuffers(3, bufs);
	CHECK(!glIsBuffer(bufs[0]), "deleted");
	glGenTextures(-1, bufs);
	CHECK(glGetError() == GL_INVALID_VALUE, "negative count");
	glShaderBinary(0, NULL, 0x1234, NULL, 0);
	CHECK(glGetError() == GL_INVALID_ENUM, "glShaderBinary: no formats");
	/* EXT_debug_marker: accepted, no effect, no error. */
	CHECK(strstr((const char *)glGetString(GL_EXTENSIONS), "GL_EXT_debug_marker") != NULL, "debug marker extension");
	PFNGLPUSHGROUPMARKEREXTPROC push = (PFNGLPUSHGROUPMARKEREXTPROC)eglGetProcAddress("glPushGroupMarkerEXT");
	PFNGLPOPGROUPMARKEREXTPROC pop = (PFNGLPOPGROUPMARKEREXTPROC)eglGetProcAddress("glPopGroupMarkerEXT");
	PFNGLINSERTEVENTMARKEREXTPROC insert = (PFNGLINSERTEVENTMARKEREXTPROC)eglGetProcAddress("glInsertEventMarkerEXT");
	CHECK(push && pop && insert, "debug marker entry points");
	push(0, "group");
	insert(5, "event and more");
	pop();
	CHECK(glGetError() == GL_NO_ERROR, "debug markers raised an error");
	GLint formats = -1;
	glGetIntegerv(GL_NUM_SHADER_BINARY_FORMATS, &formats);
	CHECK(formats == 0, "binary formats %d", formats);

	/* The depth-only config: GL sees no stencil buffer, so a stencil test
	 * that would reject everything passes (ES 2.0 §4.1.5). */
	{
		EGLContext dctx = make_context(d, depthOnly, EGL_NO_CONTEXT);
		EGLSurface dsurf = make_pbuffer(d, depthOnly, 16, 16);
		CHECK(eglMakeCurrent(d, dsurf, dsurf, dctx), "depth-only current: 0x%x", eglGetError());
		GLint sb = -1, db = -1;
		glGetIntegerv(GL_STENCIL_BITS, &sb);
		glGetIntegerv(GL_DEPTH_BITS, &db);
		CHECK(sb == 0 && db == 24, "depth-only surface: stencil bits %d depth bits %d", sb, db);
		glClearColor(0, 0, 0, 1);
		glClear(GL_COLOR_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
		glEnable(GL_STENCIL_TEST);
		glStencilFunc(GL_NEVER, 0, 0xff);
		glUseProgram(colour_program());
		glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, pos); /* the red left half */
		glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, 0, col);
		glEnableVertexAttribArray(0);
		glEnableVertexAttribArray(1);
		glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
		expect_pixel(2, 2, 255, 0, 0, 255, "stencil test without a stencil buffer");
		expect_pixel(12, 2, 0, 0, 0, 255, "right half untouched");
		CHECK(glGetError() == GL_NO_ERROR, "depth-only surface raised an error");
		CHECK(eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT), "release");
		CHECK(eglDestroyContext(d, dctx) && eglDestroySurface(d, dsurf), "destroy depth-only");
		CHECK(eglMakeCurrent(d, surf, surf, ctx), "make current again");
	}
	/* EGL's sorting rules (EGL 1.5 §3.4.1.2): with no colour size asked
	 * for, the smallest colour buffer (RGB565, 16 bits) sorts first; with
	 * 8 bits of red asked for, more red bits first, then the smaller
	 * buffer: RGB888 (24) before RGBA8888 (32). */
	{
		const EGLint any[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT, EGL_NONE};
		const EGLint red8[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT, EGL_RED_SIZE, 8, EGL_NONE};
		EGLConfig first;
		CHECK(eglChooseConfig(d, any, &first, 1, &n) && n == 1, "any config: n=%d", n);
		CHECK(eglGetConfigAttrib(d, first, EGL_BUFFER_SIZE, &v) && v == 16, "first config of no colour request: buffer size %d", v);
		CHECK(eglChooseConfig(d, red8, &first, 1, &n) && n == 1, "red 8 config: n=%d", n);
		CHECK(eglGetConfigAttrib(d, first, EGL_BUFFER_SIZE, &v) && v == 24, "first config with red 8: buffer size %d", v);
		CHECK(eglGetConfigAttrib(d, first, EGL_ALPHA_SIZE, &v) && v == 0, "first config with red 8: alpha %d", v);
	}
	/* RGB565 and RGB888 pbuffers (with depth/stencil, with 4x MSAA, and
	 * with neither) store and report their real bits: a clear colour
	 * reads back rounded to 5/6/5 bits, alpha reads 1. */
	{
		static const EGLint kinds[][6] = {{5, 6, 5, 24, 8, 0}, {5, 6, 5, 0, 0, 0}, {5, 6, 5, 24, 8, 4}, {8, 8, 8, 24, 8, 0}, {8, 8, 8, 0, 0, 4}};
		for (unsigned k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
			const EGLint *w = kinds[k];
			EGLConfig all[64], cfg = NULL;
			EGLint total = 0;
			CHECK(eglGetConfigs(d, all, 64, &total), "eglGetConfigs");
			for (EGLint i = 0; i < total && !cfg; i++) {
				EGLint r, g, b, a, dep, st, sa;
				eglGetConfigAttrib(d, all[i], EGL_RED_SIZE, &r);
				eglGetConfigAttrib(d, all[i], EGL_GREEN_SIZE, &g);
				eglGetConfigAttrib(d, all[i], EGL_BLUE_SIZE, &b);
				eglGetConfigAttrib(d, all[i], EGL_ALPHA_SIZE, &a);
				eglGetConfigAttrib(d, all[i], EGL_DEPTH_SIZE, &dep);
				eglGetConfigAttrib(d, all[i], EGL_STENCIL_SIZE, &st);
				eglGetConfigAttrib(d, all[i], EGL_SAMPLES, &sa);
				if (r == w[0] && g == w[1] && b == w[2] && a == 0 && dep == w[3] && st == w[4] && sa == w[5])
					cfg = all[i];
			}
			CHECK(cfg != NULL, "no config R%dG%dB%d depth %d stencil %d samples %d", w[0], w[1], w[2], w[3], w[4], w[5]);
			CHECK(eglGetConfigAttrib(d, cfg, EGL_BUFFER_SIZE, &v) && v == w[0] + w[1] + w[2], "buffer size %d", v);
			EGLContext c2 = make_context(d, cfg, EGL_NO_CONTEXT);
			EGLSurface s2 = make_pbuffer(d, cfg, 16, 16);
			CHECK(eglMakeCurrent(d, s2, s2, c2), "make the R%dG%dB%d surface current: 0x%x", w[0], w[1], w[2], eglGetError());
			GLint rb, gb, bb, ab;
			glGetIntegerv(GL_RED_BITS, &rb);
			glGetIntegerv(GL_GREEN_BITS, &gb);
			glGetIntegerv(GL_BLUE_BITS, &bb);
			glGetIntegerv(GL_ALPHA_BITS, &ab);
			CHECK(rb == w[0] && gb == w[1] && bb == w[2] && ab == 0, "GL bits %d %d %d %d", rb, gb, bb, ab);
			glClearColor(0.3f, 0.6f, 0.2f, 0.25f);
			glClear(GL_COLOR_BUFFER_BIT);
			/* round(v·(2^n−1)) widened back to 8 bits: 565 → (74, 154, 49), 888 → (77, 153, 51). */
			if (w[0] == 5)
				expect_pixel(3, 3, 74, 154, 49, 255, "RGB565 clear");
			else
				expect_pixel(3, 3, 77, 153, 51, 255, "RGB888 clear");
			CHECK(glGetError() == GL_NO_ERROR, "R%dG%dB%d surface raised an error", w[0], w[1], w[2]);
			CHECK(!eglMakeCurrent(d, s2, s2, ctx) && eglGetError() == EGL_BAD_MATCH, "RGBA8888 context on a R%dG%dB%d surface", w[0], w[1], w[2]);
			CHECK(eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT), "release");
			CHECK(eglDestroyContext(d, c2) && eglDestroySurface(d, s2), "destroy");
		}
	}
	/* A 4x MSAA pbuffer: GL_SAMPLES 4, and a pixel on a triangle's edge
	 * resolves to the fraction of its samples covered (2 of 4 here:
	 * docs/hardware.md §5.2's positions against the edge x + y = 16). */
	EGLContext msCtx = make_context(d, msCfg, EGL_NO_CONTEXT);
	EGLSurface msSurf = make_pbuffer(d, msCfg, 16, 16);
	CHECK(eglMakeCurrent(d, msSurf, msSurf, msCtx), "make the 4x context current: 0x%x", eglGetError());
	GLint samples = 0;
	glGetIntegerv(GL_SAMPLES, &samples);
	CHECK(samples == 4, "GL_SAMPLES %d", samples);
	GLuint msProg = colour_program();
	glUseProgram(msProg);
	static const float msPos[] = {-1, -1, 1, -1, -1, 1};
	static const unsigned char white[] = {255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255};
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, msPos);
	glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, 0, white);
	glEnableVertexAttribArray(0);
	glEnableVertexAttribArray(1);
	glClearColor(0, 0, 0, 1);
	glClear(GL_COLOR_BUFFER_BIT);
	glDrawArrays(GL_TRIANGLES, 0, 3);
	expect_pixel(5, 10, 128, 128, 128, 255, "4x edge pixel");
	expect_pixel(2, 2, 255, 255, 255, 255, "4x inside");
	expect_pixel(12, 12, 0, 0, 0, 255, "4x outside");
	CHECK(eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT), "release 4x");
	CHECK(eglDestroyContext(d, msCtx) && eglDestroySurface(d, msSurf), "destroy 4x");

	/* A surfaceless context (EGL_KHR_surfaceless_context). */
	EGLContext bare = make_context(d, withDepth, EGL_NO_CONTEXT);
	CHECK(eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, bare), "surfaceless: 0x%x", eglGetError());
	CHECK(glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_UNDEFINED_OES, "framebuffer 0 of a surfaceless context");
	glClear(GL_COLOR_BUFFER_BIT);
	CHECK(glGetError() == GL_INVALID_FRAMEBUFFER_OPERATION, "clear without a framebuffer");

	CHECK(eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT), "release");
	CHECK(glGetError() == GL_NO_ERROR, "GL without a current context is ignored");
	CHECK(eglDestroyContext(d, bare) && eglDestroyContext(d, ctx), "destroy contexts");
	CHECK(eglDestroySurface(d, surf) && eglDestroySurface(d, other), "destroy surfaces");
	CHECK(!eglDestroySurface(d, surf) && eglGetError() == EGL_BAD_SURFACE, "double destroy");
	CHECK(eglTerminate(d), "terminate");
	puts("ok");
	return 0;
}

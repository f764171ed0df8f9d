/* extensions.c: the GL ES 2.0 extensions beyond the core, reached through
 * eglGetProcAddress as applications reach them: OES_vertex_array_object and
 * ANGLE_instanced_arrays, OES_mapbuffer (pixels checked), EXT_discard_framebuffer
 * (argument checks), EXT_read_format_bgra, EXT_blend_minmax and
 * EXT_occlusion_query_boolean (results from the hardware's counter). */
#include "common.h"

static PFNGLGENVERTEXARRAYSOESPROC genVAOs;
static PFNGLBINDVERTEXARRAYOESPROC bindVAO;
static PFNGLDELETEVERTEXARRAYSOESPROC deleteVAOs;
static PFNGLISVERTEXARRAYOESPROC isVAO;
static PFNGLVERTEXATTRIBDIVISORANGLEPROC divisor;
static PFNGLDRAWARRAYSINSTANCEDANGLEPROC drawArraysInstanced;
static PFNGLDRAWELEMENTSINSTANCEDANGLEPROC drawElementsInstanced;

static void has_extension(const char *name) {
	const char *ext = (const char *)glGetString(GL_EXTENSIONS);
	CHECK(ext != NULL, "GL_EXTENSIONS");
	size_t n = strlen(name);
	for (const char *p = ext; (p = strstr(p, name)) != NULL; p += n)
		if ((p == ext || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return;
	CHECK(0, "%s not in GL_EXTENSIONS: %s", name, ext);
}

static GLuint buffer(GLenum target, const void *data, GLsizeiptr size) {
	GLuint b;
	glGenBuffers(1, &b);
	glBindBuffer(target, b);
	glBufferData(target, size, data, GL_STATIC_DRAW);
	return b;
}

static void vertex_arrays(void) {
	has_extension("GL_OES_vertex_array_object");
	genVAOs = (PFNGLGENVERTEXARRAYSOESPROC)eglGetProcAddress("glGenVertexArraysOES");
	bindVAO = (PFNGLBINDVERTEXARRAYOESPROC)eglGetProcAddress("glBindVertexArrayOES");
	deleteVAOs = (PFNGLDELETEVERTEXARRAYSOESPROC)eglGetProcAddress("glDeleteVertexArraysOES");
	isVAO = (PFNGLISVERTEXARRAYOESPROC)eglGetProcAddress("glIsVertexArrayOES");
	CHECK(genVAOs && bindVAO && deleteVAOs && isVAO, "OES_vertex_array_object entry points");

	GLuint prog = colour_program();
	glUseProgram(prog);
	glClearColor(0, 0, 0, 1);
	glClear(GL_COLOR_BUFFER_BIT);
	GLuint vao[2];
	genVAOs(2, vao);
	CHECK(!isVAO(vao[0]), "a generated name is no vertex array until bound");

	/* vao[0]: a red left half from a buffer, drawn with glDrawArrays. */
	static const float left[] = {-1, -1, 0, -1, -1, 1, 0, 1};
	bindVAO(vao[0]);
	CHECK(isVAO(vao[0]), "bound vertex array");
	buffer(GL_ARRAY_BUFFER, left, sizeof left);
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
	glEnableVertexAttribArray(0);
	glVertexAttrib4f(1, 1, 0, 0, 1); /* current values are not vertex array state */

	/* vao[1]: a right half from client arrays with a buffer of indices. */
	static const float right[] = {0, -1, 1, -1, 0, 1, 1, 1};
	static const unsigned short idx[] = {0, 1, 2, 2, 1, 3};
	bindVAO(vao[1]);
	glBindBuffer(GL_ARRAY_BUFFER, 0);
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, right);
	glEnableVertexAttribArray(0);
	buffer(GL_ELEMENT_ARRAY_BUFFER, idx, sizeof idx);

	/* The default array: nothing enabled any more. */
	bindVAO(0);
	GLint enabled = -1;
	glGetVertexAttribiv(0, GL_VERTEX_ATTRIB_ARRAY_ENABLED, &enabled);
	CHECK(enabled == 0, "the default vertex array sees vao's enable: %d", enabled);

	bindVAO(vao[0]);
	glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
	glVertexAttrib4f(1, 0, 1, 0, 1);
	bindVAO(vao[1]);
	GLint bound = -1;
	glGetIntegerv(GL_VERTEX_ARRAY_BINDING_OES, &bound);
	CHECK(bound == (GLint)vao[1], "VERTEX_ARRAY_BINDING_OES %d, want %u", bound, vao[1]);
	glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, 0); /* indices from vao[1]'s element buffer */
	CHECK(glGetError() == GL_NO_ERROR, "vertex array draws");
	expect_pixel(10, 10, 255, 0, 0, 255, "vao[0], left half");
	expect_pixel(50, 10, 0, 255, 0, 255, "vao[1], right half");

	deleteVAOs(1, &vao[1]);
	glGetIntegerv(GL_VERTEX_ARRAY_BINDING_OES, &bound);
	CHECK(bound == 0 && !isVAO(vao[1]), "deleting the bound vertex array binds 0 (%d)", bound);
	bindVAO(vao[1]);
	CHECK(glGetError() == GL_INVALID_OPERATION, "binding a deleted vertex array");
	deleteVAOs(1, &vao[0]);
	glDeleteProgram(prog);
}

static void instancing(void) {
	has_extension("GL_ANGLE_instanced_arrays");
	divisor = (PFNGLVERTEXATTRIBDIVISORANGLEPROC)eglGetProcAddress("glVertexAttribDivisorANGLE");
	drawArraysInstanced = (PFNGLDRAWARRAYSINSTANCEDANGLEPROC)eglGetProcAddress("glDrawArraysInstancedANGLE");
	drawElementsInstanced = (PFNGLDRAWELEMENTSINSTANCEDANGLEPROC)eglGetProcAddress("glDrawElementsInstancedANGLE");
	CHECK(divisor && drawArraysInstanced && drawElementsInstanced, "ANGLE_instanced_arrays entry points");

	GLuint prog = glCreateProgram();
	glAttachShader(prog, compile(GL_VERTEX_SHADER,
		"attribute vec2 pos; attribute vec2 off; attribute vec4 col; varying vec4 v;\n"
		"void main() { v = col; gl_Position = vec4(pos + off, 0.0, 1.0); }\n"));
	glAttachShader(prog, compile(GL_FRAGMENT_SHADER,
		"precision mediump float; varying vec4 v; void main() { gl_FragColor = v; }\n"));
	glBindAttribLocation(prog, 0, "pos");
	glBindAttribLocation(prog, 1, "off");
	glBindAttribLocation(prog, 2, "col");
	glLinkProgram(prog);
	glUseProgram(prog);
	glClearColor(0, 0, 0, 1);
	glClear(GL_COLOR_BUFFER_BIT);

	/* A quad of 16×16 pixels at the bottom left; instance i moves it by
	 * 16 i pixels (offsets in a buffer, divisor 1) and takes colour i/2
	 * (a client-side array, divisor 2). */
	static const float quad[] = {-1, -1, -0.5f, -1, -1, -0.5f, -0.5f, -0.5f};
	static const float offs[] = {0, 0, 0.5f, 0, 1, 0, 1.5f, 0};
	static const unsigned char cols[] = {255, 0, 0, 255, 0, 0, 255, 255};
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, quad);
	glEnableVertexAttribArray(0);
	GLuint offBuf = buffer(GL_ARRAY_BUFFER, offs, sizeof offs);
	glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 0, 0);
	glBindBuffer(GL_ARRAY_BUFFER, 0);
	glEnableVertexAttribArray(1);
	glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, 0, cols);
	glEnableVertexAttribArray(2);
	divisor(1, 1);
	divisor(2, 2);
	GLint d = -1;
	glGetVertexAttribiv(2, GL_VERTEX_ATTRIB_ARRAY_DIVISOR_ANGLE, &d);
	CHECK(d == 2, "VERTEX_ATTRIB_ARRAY_DIVISOR_ANGLE %d", d);

	drawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, 0);
	CHECK(glGetError() == GL_NO_ERROR, "zero instances");
	expect_pixel(8, 8, 0, 0, 0, 255, "zero instances draw nothing");
	drawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, 4);
	CHECK(glGetError() == GL_NO_ERROR, "instanced draw arrays");
	expect_pixel(8, 8, 255, 0, 0, 255, "instance 0");
	expect_pixel(24, 8, 255, 0, 0, 255, "instance 1");
	expect_pixel(40, 8, 0, 0, 255, 255, "instance 2");
	expect_pixel(56, 8, 0, 0, 255, 255, "instance 3");
	expect_pixel(8, 24, 0, 0, 0, 255, "above the instances");

	/* Indexed, client-side indices, two instances, one row up. */
	static const float offs2[] = {0, 0.5f, 1, 0.5f};
	static const unsigned char idx[] = {0, 1, 2, 2, 1, 3};
	glBindBuffer(GL_ARRAY_BUFFER, offBuf);
	glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof offs2, offs2);
	glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 0, 0);
	glBindBuffer(GL_ARRAY_BUFFER, 0);
	divisor(2, 1);
	drawElementsInstanced(GL_TRIANGLES, 6, GL_UNSIGNED_BYTE, idx, 2);
	CHECK(glGetError() == GL_NO_ERROR, "instanced draw elements");
	expect_pixel(8, 24, 255, 0, 0, 255, "indexed instance 0");
	expect_pixel(40, 24, 0, 0, 255, 255, "indexed instance 1");
	expect_pixel(24, 24, 0, 0, 0, 255, "between the indexed instances");

	/* A non-instanced draw reads element 0 of an instanced array. */
	glClear(GL_COLOR_BUFFER_BIT);
	glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
	expect_pixel(8, 24, 255, 0, 0, 255, "plain draw, element 0");
	expect_pixel(40, 24, 0, 0, 0, 255, "plain draw, one quad");

	/* Every enabled array instanced: INVALID_OPERATION. */
	divisor(0, 1);
	drawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, 2);
	CHECK(glGetError() == GL_INVALID_OPERATION, "no per-vertex array");
	drawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, -1);
	GLenum e = glGetError();
	CHECK(e == GL_INVALID_VALUE, "negative instance count: error 0x%x", e);
	divisor(0, 0);
	divisor(1, 0);
	divisor(2, 0);
	glDeleteProgram(prog);
}

static void mapbuffer(void) {
	has_extension("GL_OES_mapbuffer");
	PFNGLMAPBUFFEROESPROC map = (PFNGLMAPBUFFEROESPROC)eglGetProcAddress("glMapBufferOES");
	PFNGLUNMAPBUFFEROESPROC unmap = (PFNGLUNMAPBUFFEROESPROC)eglGetProcAddress("glUnmapBufferOES");
	PFNGLGETBUFFERPOINTERVOESPROC pointer = (PFNGLGETBUFFERPOINTERVOESPROC)eglGetProcAddress("glGetBufferPointervOES");
	CHECK(map && unmap && pointer, "OES_mapbuffer entry points");

	/* A red left half whose positions are written through a mapping. */
	static const float left[] = {-1, -1, 0, -1, -1, 1, 0, 1};
	static const float zero[8];
	GLuint b = buffer(GL_ARRAY_BUFFER, zero, sizeof zero);
	CHECK(map(GL_ARRAY_BUFFER, 0x88B8 /* GL_READ_ONLY */) == NULL && glGetError() == GL_INVALID_ENUM, "read-only mapping");
	CHECK(!unmap(GL_ARRAY_BUFFER) && glGetError() == GL_INVALID_OPERATION, "unmapping an unmapped buffer");
	float *p = map(GL_ARRAY_BUFFER, GL_WRITE_ONLY_OES);
	CHECK(p != NULL, "glMapBufferOES: 0x%x", glGetError());
	CHECK(p[0] == 0 && p[7] == 0, "the mapping holds the contents");
	GLint v = 0;
	glGetBufferParameteriv(GL_ARRAY_BUFFER, GL_BUFFER_MAPPED_OES, &v);
	CHECK(v == GL_TRUE, "BUFFER_MAPPED_OES %d", v);
	glGetBufferParameteriv(GL_ARRAY_BUFFER, GL_BUFFER_ACCESS_OES, &v);
	CHECK(v == GL_WRITE_ONLY_OES, "BUFFER_ACCESS_OES 0x%x", v);
	void *q = NULL;
	pointer(GL_ARRAY_BUFFER, GL_BUFFER_MAP_POINTER_OES, &q);
	CHECK(q == p, "glGetBufferPointervOES %p, want %p", q, (void *)p);
	CHECK(map(GL_ARRAY_BUFFER, GL_WRITE_ONLY_OES) == NULL && glGetError() == GL_INVALID_OPERATION, "mapping twice");
	memcpy(p, left, sizeof left);
	CHECK(unmap(GL_ARRAY_BUFFER), "glUnmapBufferOES: 0x%x", glGetError());
	glGetBufferParameteriv(GL_ARRAY_BUFFER, GL_BUFFER_MAPPED_OES, &v);
	CHECK(v == GL_FALSE, "mapped after unmap");

	GLuint prog = colour_program();
	glUseProgram(prog);
	glClearColor(0, 0, 0, 1);
	glClear(GL_COLOR_BUFFER_BIT);
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, 0);
	glEnableVertexAttribArray(0);
	glDisableVertexAttribArray(1);
	glVertexAttrib4f(1, 1, 0, 0, 1);
	glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
	expect_pixel(10, 10, 255, 0, 0, 255, "positions written through the mapping");
	expect_pixel(50, 10, 0, 0, 0, 255, "right half untouched");

	/* Deleting a mapped buffer frees the mapping. */
	CHECK(map(GL_ARRAY_BUFFER, GL_WRITE_ONLY_OES) != NULL, "map again");
	glDeleteBuffers(1, &b);
	glDisableVertexAttribArray(0);
	glDeleteProgram(prog);
	CHECK(glGetError() == GL_NO_ERROR, "mapbuffer error");
}

/* EXT_discard_framebuffer and EXT_read_format_bgra. */
static void discard_and_bgra(void) {
	has_extension("GL_EXT_discard_framebuffer");
	has_extension("GL_EXT_read_format_bgra");
	PFNGLDISCARDFRAMEBUFFEREXTPROC discard = (PFNGLDISCARDFRAMEBUFFEREXTPROC)eglGetProcAddress("glDiscardFramebufferEXT");
	CHECK(discard != NULL, "glDiscardFramebufferEXT");
	const GLenum ok[] = {GL_COLOR_EXT, GL_DEPTH_EXT, GL_STENCIL_EXT};
	discard(GL_FRAMEBUFFER, 3, ok);
	CHECK(glGetError() == GL_NO_ERROR, "discard of framebuffer 0");
	const GLenum fboNames[] = {GL_COLOR_ATTACHMENT0};
	discard(GL_FRAMEBUFFER, 1, fboNames);
	CHECK(glGetError() == GL_INVALID_ENUM, "an attachment name on framebuffer 0");
	discard(GL_RENDERBUFFER, 1, ok);
	CHECK(glGetError() == GL_INVALID_ENUM, "a bad target");
	discard(GL_FRAMEBUFFER, -1, ok);
	CHECK(glGetError() == GL_INVALID_VALUE, "a negative count");

	glClearColor(1, 0.5f, 0, 1); /* r=255 g=128 b=0 */
	glClear(GL_COLOR_BUFFER_BIT);
	unsigned char px[4] = {9, 9, 9, 9};
	glReadPixels(3, 3, 1, 1, GL_BGRA_EXT, GL_UNSIGNED_BYTE, px);
	CHECK(glGetError() == GL_NO_ERROR, "BGRA read");
	CHECK(px[0] == 0 && px[1] == 128 && px[2] == 255 && px[3] == 255, "BGRA pixel %u,%u,%u,%u", px[0], px[1], px[2], px[3]);
	unsigned short s = 0;
	glReadPixels(3, 3, 1, 1, GL_BGRA_EXT, GL_UNSIGNED_SHORT_4_4_4_4_REV_EXT, &s);
	CHECK(glGetError() == GL_NO_ERROR && s == 0xFF80, "BGRA 4444_REV pixel 0x%04x", s);
	glReadPixels(3, 3, 1, 1, GL_BGRA_EXT, GL_UNSIGNED_SHORT_1_5_5_5_REV_EXT, &s);
	CHECK(glGetError() == GL_NO_ERROR && s == 0xFE00, "BGRA 1555_REV pixel 0x%04x", s);
	glReadPixels(3, 3, 1, 1, GL_BGRA_EXT, GL_UNSIGNED_SHORT_5_6_5, &s);
	CHECK(glGetError() == GL_INVALID_OPERATION, "BGRA with 565");
}

/* EXT_blend_minmax: MIN and MAX per component, the factors ignored. */
static void blend_minmax(void) {
	has_extension("GL_EXT_blend_minmax");
	GLuint prog = colour_program();
	glUseProgram(prog);
	static const float full[] = {-1, -1, 1, -1, -1, 1, 1, 1};
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, full);
	glEnableVertexAttribArray(0);
	glDisableVertexAttribArray(1);
	glVertexAttrib4f(1, 0.25f, 0.6f, 0.8f, 1); /* src 64,153,204 */
	glEnable(GL_BLEND);
	glBlendFunc(GL_ZERO, GL_ZERO); /* would give black if the factors were applied */
	const struct { GLenum eq; unsigned r, g, b; } cases[] = {
		{GL_MIN_EXT, 64, 51, 204},
		{GL_MAX_EXT, 128, 153, 204},
	};
	for (int i = 0; i < 2; i++) {
		glClearColor(128 / 255.0f, 0.2f, 0.8f, 1); /* dst 128,51,204 */
		glClear(GL_COLOR_BUFFER_BIT);
		glBlendEquation(cases[i].eq);
		GLint eq = 0;
		glGetIntegerv(GL_BLEND_EQUATION_RGB, &eq);
		CHECK(eq == (GLint)cases[i].eq, "BLEND_EQUATION_RGB 0x%x", eq);
		glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
		unsigned char px[4];
		glReadPixels(7, 7, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, px);
		CHECK(abs(px[0] - (int)cases[i].r) <= 1 && abs(px[1] - (int)cases[i].g) <= 1 && abs(px[2] - (int)cases[i].b) <= 1,
			"blend equation 0x%x: %u,%u,%u, want %u,%u,%u", cases[i].eq, px[0], px[1], px[2], cases[i].r, cases[i].g, cases[i].b);
	}
	glBlendEquation(GL_FUNC_ADD);
	glDisable(GL_BLEND);
	glDisableVertexAttribArray(0);
	glDeleteProgram(prog);
	CHECK(glGetError() == GL_NO_ERROR, "blend minmax error");
}

/* occlusion: queries around draws hidden by the depth test, half visible,
 * and outside the viewport, in a framebuffer object with a
 * DEPTH_COMPONENT16 renderbuffer. */
static void occlusion(void) {
	has_extension("GL_EXT_occlusion_query_boolean");
	PFNGLGENQUERIESEXTPROC genQueries = (PFNGLGENQUERIESEXTPROC)eglGetProcAddress("glGenQueriesEXT");
	PFNGLDELETEQUERIESEXTPROC deleteQueries = (PFNGLDELETEQUERIESEXTPROC)eglGetProcAddress("glDeleteQueriesEXT");
	PFNGLISQUERYEXTPROC isQuery = (PFNGLISQUERYEXTPROC)eglGetProcAddress("glIsQueryEXT");
	PFNGLBEGINQUERYEXTPROC beginQuery = (PFNGLBEGINQUERYEXTPROC)eglGetProcAddress("glBeginQueryEXT");
	PFNGLENDQUERYEXTPROC endQuery = (PFNGLENDQUERYEXTPROC)eglGetProcAddress("glEndQueryEXT");
	PFNGLGETQUERYIVEXTPROC getQueryiv = (PFNGLGETQUERYIVEXTPROC)eglGetProcAddress("glGetQueryivEXT");
	PFNGLGETQUERYOBJECTUIVEXTPROC getQueryObjectuiv = (PFNGLGETQUERYOBJECTUIVEXTPROC)eglGetProcAddress("glGetQueryObjectuivEXT");
	CHECK(genQueries && deleteQueries && isQuery && beginQuery && endQuery && getQueryiv && getQueryObjectuiv,
		"EXT_occlusion_query_boolean entry points");

	GLuint fb, rb[2];
	glGenFramebuffers(1, &fb);
	glBindFramebuffer(GL_FRAMEBUFFER, fb);
	glGenRenderbuffers(2, rb);
	glBindRenderbuffer(GL_RENDERBUFFER, rb[0]);
	glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA4, 64, 64);
	glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[0]);
	glBindRenderbuffer(GL_RENDERBUFFER, rb[1]);
	glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT16, 64, 64);
	glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, rb[1]);
	CHECK(glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE, "occlusion framebuffer");

	GLuint prog = glCreateProgram();
	glAttachShader(prog, compile(GL_VERTEX_SHADER,
		"attribute vec2 pos; uniform float z; void main() { gl_Position = vec4(pos, z, 1.0); }\n"));
	glAttachShader(prog, compile(GL_FRAGMENT_SHADER, "precision mediump float; void main() { gl_FragColor = vec4(1.0); }\n"));
	glBindAttribLocation(prog, 0, "pos");
	glLinkProgram(prog);
	glUseProgram(prog);
	GLint z = glGetUniformLocation(prog, "z");
	glBindBuffer(GL_ARRAY_BUFFER, 0);
	glEnableVertexAttribArray(0);
	static const float left[] = {-1, -1, 0, -1, -1, 1, 0, 1}, middle[] = {-0.5f, -1, 0.5f, -1, -0.5f, 1, 0.5f, 1},
		outside[] = {1.5f, -1, 3, -1, 1.5f, 1, 3, 1};
	glEnable(GL_DEPTH_TEST);
	glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, left);
	glUniform1f(z, -0.5f);
	glDrawArrays(GL_TRIANGLE_STRIP, 0, 4); /* the left half, near */

	GLuint q[3];
	genQueries(3, q);
	CHECK(!isQuery(q[0]), "a generated name is no query until begun");
	const float *quads[3] = {left, middle, outside};
	glUniform1f(z, 0.5f);
	for (int i = 0; i < 3; i++) {
		beginQuery(GL_ANY_SAMPLES_PASSED_EXT, q[i]);
		GLint cur = 0;
		getQueryiv(GL_ANY_SAMPLES_PASSED_EXT, GL_CURRENT_QUERY_EXT, &cur);
		CHECK(cur == (GLint)q[i], "CURRENT_QUERY_EXT %d, want %u", cur, q[i]);
		glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, quads[i]);
		glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
		endQuery(GL_ANY_SAMPLES_PASSED_EXT);
	}
	const GLuint want[3] = {GL_FALSE, GL_TRUE, GL_FALSE};
	for (int i = 0; i < 3; i++) {
		GLuint avail = 0, res = 7;
		getQueryObjectuiv(q[i], GL_QUERY_RESULT_EXT, &res);
		getQueryObjectuiv(q[i], GL_QUERY_RESULT_AVAILABLE_EXT, &avail);
		CHECK(res == want[i] && avail == GL_TRUE, "query %d: result %u available %u, want %u", i, res, avail, want[i]);
		CHECK(isQuery(q[i]), "query %d is a query after use", i);
	}
	endQuery(GL_ANY_SAMPLES_PASSED_EXT);
	CHECK(glGetError() == GL_INVALID_OPERATION, "EndQuery with no active query");
	deleteQueries(3, q);
	CHECK(!isQuery(q[0]), "deleted query");
	glDisable(GL_DEPTH_TEST);
	glDisableVertexAttribArray(0);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	glDeleteFramebuffers(1, &fb);
	glDeleteRenderbuffers(2, rb);
	glDeleteProgram(prog);
}

int main(void) {
	EGLDisplay d = open_display();
	EGLConfig cfg = choose(d, 0);
	EGLContext ctx = make_context(d, cfg, EGL_NO_CONTEXT);
	EGLSurface s = make_pbuffer(d, cfg, 64, 64);
	CHECK(eglMakeCurrent(d, s, s, ctx), "eglMakeCurrent: 0x%x", eglGetError());
	vertex_arrays();
	instancing();
	mapbuffer();
	discard_and_bgra();
	blend_minmax();
	occlusion();
	CHECK(glGetError() == GL_NO_ERROR, "final error");
	eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	eglTerminate(d);
	puts("ok");
	return 0;
}

/* x11window.c: an X11 program as es2gears and glmark2 are: an X window made
 * with the visual of the EGL config, EGL_KHR_platform_x11, a window surface,
 * GLES2 drawing and eglSwapBuffers; the window's pixels are then read back
 * from the X server (XGetImage) and checked, also after a resize. Run by
 * capi_test.go under Xvfb. */
#include "common.h"
#include <X11/Xlib.h>
#include <X11/Xutil.h>

static Window make_window(Display *x, VisualID vid, int w, int h) {
	XVisualInfo tmpl = {.visualid = vid}, *vi;
	int n = 0;
	vi = XGetVisualInfo(x, VisualIDMask, &tmpl, &n);
	CHECK(vi != NULL && n == 1, "no X visual 0x%lx", (unsigned long)vid);
	Window root = DefaultRootWindow(x);
	XSetWindowAttributes wa = {.colormap = XCreateColormap(x, root, vi->visual, AllocNone),
		.event_mask = StructureNotifyMask | ExposureMask, .background_pixmap = None};
	Window win = XCreateWindow(x, root, 0, 0, w, h, 0, vi->depth, InputOutput, vi->visual,
		CWColormap | CWEventMask | CWBackPixmap, &wa);
	XFree(vi);
	XMapWindow(x, win);
	for (XEvent ev;;) { /* wait until it is on screen */
		XNextEvent(x, &ev);
		if (ev.type == MapNotify && ev.xmap.window == win)
			break;
	}
	return win;
}

/* window_pixel reads the window's pixel at (x, y) (y down, X's way) as RGB. */
static void window_pixel(Display *x, Window win, int px, int py, unsigned rgb[3]) {
	XImage *img = XGetImage(x, win, px, py, 1, 1, AllPlanes, ZPixmap);
	CHECK(img != NULL, "XGetImage");
	unsigned long p = XGetPixel(img, 0, 0);
	unsigned long m[3] = {img->red_mask, img->green_mask, img->blue_mask};
	for (int i = 0; i < 3; i++) {
		unsigned long v = p & m[i], mm = m[i];
		while (mm && !(mm & 1)) { v >>= 1; mm >>= 1; }
		rgb[i] = (unsigned)(v * 255 / mm);
	}
	XDestroyImage(img);
}

static void expect_window(Display *x, Window win, int px, int py, unsigned r, unsigned g, unsigned b, const char *what) {
	unsigned rgb[3];
	window_pixel(x, win, px, py, rgb);
	CHECK(rgb[0] == r && rgb[1] == g && rgb[2] == b, "%s: window pixel (%d,%d) = %u,%u,%u, want %u,%u,%u",
		what, px, py, rgb[0], rgb[1], rgb[2], r, g, b);
}

int main(void) {
	Display *x = XOpenDisplay(NULL);
	CHECK(x != NULL, "XOpenDisplay(%s)", getenv("DISPLAY"));
	const char *cext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
	CHECK(cext && strstr(cext, "EGL_KHR_platform_x11"), "client extensions: %s", cext ? cext : "(null)");
	EGLDisplay d = eglGetPlatformDisplay(EGL_PLATFORM_X11_KHR, x, NULL);
	CHECK(d != EGL_NO_DISPLAY, "eglGetPlatformDisplay(X11): 0x%x", eglGetError());
	CHECK(eglGetDisplay((EGLNativeDisplayType)x) == d, "eglGetDisplay(Display*) is another display");
	CHECK(eglInitialize(d, NULL, NULL), "eglInitialize: 0x%x", eglGetError());

	/* EGL's default EGL_SURFACE_TYPE is EGL_WINDOW_BIT: X displays have such configs. */
	const EGLint attrs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT, EGL_RED_SIZE, 8, EGL_DEPTH_SIZE, 16, EGL_NONE};
	EGLConfig cfg;
	EGLint n = 0, vid = 0;
	CHECK(eglChooseConfig(d, attrs, &cfg, 1, &n) && n == 1, "window config: n=%d", n);
	CHECK(eglGetConfigAttrib(d, cfg, EGL_NATIVE_VISUAL_ID, &vid) && vid != 0, "native visual id %d", vid);
	Window win = make_window(x, (VisualID)vid, 64, 48);

	CHECK(eglCreateWindowSurface(d, cfg, (EGLNativeWindowType)0x7ffffff0, NULL) == EGL_NO_SURFACE &&
		eglGetError() == EGL_BAD_NATIVE_WINDOW, "a bad window id");
	EGLSurface s = eglCreatePlatformWindowSurface(d, cfg, &win, NULL);
	CHECK(s != EGL_NO_SURFACE, "eglCreatePlatformWindowSurface: 0x%x", eglGetError());
	CHECK(eglCreateWindowSurface(d, cfg, (EGLNativeWindowType)win, NULL) == EGL_NO_SURFACE &&
		eglGetError() == EGL_BAD_ALLOC, "a second surface on one window");
	EGLint v = 0;
	CHECK(eglQuerySurface(d, s, EGL_WIDTH, &v) && v == 64, "surface width %d", v);
	CHECK(eglQuerySurface(d, s, EGL_HEIGHT, &v) && v == 48, "surface height %d", v);

	const EGLint ctxAttrs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
	EGLContext ctx = eglCreateContext(d, cfg, EGL_NO_CONTEXT, ctxAttrs);
	CHECK(ctx != EGL_NO_CONTEXT, "eglCreateContext: 0x%x", eglGetError());
	CHECK(eglMakeCurrent(d, s, s, ctx), "eglMakeCurrent: 0x%x", eglGetError());
	CHECK(eglGetCurrentDisplay() == d, "eglGetCurrentDisplay");
	CHECK(eglSwapInterval(d, 0), "eglSwapInterval: 0x%x", eglGetError());

	/* Blue, with a red quad over GL's lower half: the window's lower rows. */
	glClearColor(0, 0, 1, 1);
	glClear(GL_COLOR_BUFFER_BIT);
	glUseProgram(colour_program());
	static const float pos[] = {-1, -1, 1, -1, -1, 0, 1, 0};
	static const unsigned char red[] = {255, 0, 0, 255, 255, 0, 0, 255, 255, 0, 0, 255, 255, 0, 0, 255};
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, pos);
	glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, 0, red);
	glEnableVertexAttribArray(0);
	glEnableVertexAttribArray(1);
	glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
	CHECK(glGetError() == GL_NO_ERROR, "draw");
	CHECK(eglSwapBuffers(d, s), "eglSwapBuffers: 0x%x", eglGetError());
	expect_window(x, win, 5, 5, 0, 0, 255, "top row");
	expect_window(x, win, 60, 20, 0, 0, 255, "just above the middle");
	expect_window(x, win, 5, 30, 255, 0, 0, "below the middle");
	expect_window(x, win, 63, 47, 255, 0, 0, "bottom right corner");

	/* The surface follows the window's size at the next swap. */
	XResizeWindow(x, win, 80, 40);
	XSync(x, False);
	CHECK(eglSwapBuffers(d, s), "eglSwapBuffers: 0x%x", eglGetError());
	CHECK(eglQuerySurface(d, s, EGL_WIDTH, &v) && v == 80, "width after resize %d", v);
	CHECK(eglQuerySurface(d, s, EGL_HEIGHT, &v) && v == 40, "height after resize %d", v);
	glViewport(0, 0, 80, 40);
	glClearColor(0, 1, 0, 1);
	glClear(GL_COLOR_BUFFER_BIT);
	CHECK(eglSwapBuffers(d, s), "eglSwapBuffers: 0x%x", eglGetError());
	expect_window(x, win, 79, 39, 0, 255, 0, "resized window, bottom right");
	expect_window(x, win, 0, 0, 0, 255, 0, "resized window, top left");

	CHECK(eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT), "release");
	CHECK(eglDestroySurface(d, s) && eglDestroyContext(d, ctx), "destroy");

	/* An RGB565 window surface: the frame keeps 5/6/5 bits on its way to
	 * the window (0.3, 0.6, 0.2 → levels 9, 38, 6 → 74, 154, 49). */
	{
		EGLConfig all[64], c565 = NULL;
		EGLint total = 0, r = 0;
		CHECK(eglGetConfigs(d, all, 64, &total), "eglGetConfigs");
		for (EGLint i = 0; i < total && !c565; i++)
			if (eglGetConfigAttrib(d, all[i], EGL_RED_SIZE, &r) && r == 5)
				c565 = all[i];
		CHECK(c565 != NULL, "no RGB565 window config");
		CHECK(eglGetConfigAttrib(d, c565, EGL_NATIVE_VISUAL_ID, &vid) && vid != 0, "RGB565 native visual id %d", vid);
		Window w565 = make_window(x, (VisualID)vid, 16, 16);
		EGLSurface s565 = eglCreateWindowSurface(d, c565, (EGLNativeWindowType)w565, NULL);
		CHECK(s565 != EGL_NO_SURFACE, "RGB565 window surface: 0x%x", eglGetError());
		EGLContext ctx565 = eglCreateContext(d, c565, EGL_NO_CONTEXT, ctxAttrs);
		CHECK(ctx565 != EGL_NO_CONTEXT && eglMakeCurrent(d, s565, s565, ctx565), "RGB565 current: 0x%x", eglGetError());
		glClearColor(0.3f, 0.6f, 0.2f, 1);
		glClear(GL_COLOR_BUFFER_BIT);
		CHECK(eglSwapBuffers(d, s565), "eglSwapBuffers RGB565: 0x%x", eglGetError());
		expect_window(x, w565, 8, 8, 74, 154, 49, "RGB565 window");
		CHECK(eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT), "release RGB565");
		CHECK(eglDestroySurface(d, s565) && eglDestroyContext(d, ctx565), "destroy RGB565");
		XDestroyWindow(x, w565);
	}
	CHECK(eglTerminate(d), "terminate");
	XDestroyWindow(x, win);
	XCloseDisplay(x);
	puts("ok");
	return 0;
}

/* dlopen.c: the libraries load with dlopen under every name as one
 * library, and many contexts created and destroyed leave no growth. */
#include <dlfcn.h>
#include "common.h"

static long rss_kb(void) {
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, resident = 0;
	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return resident * 4;
}

typedef EGLDisplay (*getDisplay_t)(EGLNativeDisplayType);
typedef EGLBoolean (*initialize_t)(EGLDisplay, EGLint *, EGLint *);
typedef EGLBoolean (*terminate_t)(EGLDisplay);
typedef EGLBoolean (*chooseConfig_t)(EGLDisplay, const EGLint *, EGLConfig *, EGLint, EGLint *);
typedef EGLContext (*createContext_t)(EGLDisplay, EGLConfig, EGLContext, const EGLint *);
typedef EGLSurface (*createPbuffer_t)(EGLDisplay, EGLConfig, const EGLint *);
typedef EGLBoolean (*makeCurrent_t)(EGLDisplay, EGLSurface, EGLSurface, EGLContext);
typedef EGLBoolean (*destroyContext_t)(EGLDisplay, EGLContext);
typedef EGLBoolean (*destroySurface_t)(EGLDisplay, EGLSurface);
typedef void (*(*getProc_t)(const char *))(void);

int main(void) {
	void *egl = dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL);
	CHECK(egl != NULL, "dlopen libEGL.so.1: %s", dlerror());
	void *gles = dlopen("libGLESv2.so.2", RTLD_NOW | RTLD_LOCAL);
	CHECK(gles != NULL, "dlopen libGLESv2.so.2: %s", dlerror());
	void *egl2 = dlopen("libEGL.so", RTLD_NOW | RTLD_LOCAL);
	CHECK(egl2 != NULL, "dlopen libEGL.so: %s", dlerror());
	CHECK(dlsym(egl, "glClear") == dlsym(gles, "glClear") && dlsym(egl2, "eglInitialize") == dlsym(egl, "eglInitialize"),
		"the names are not one library");
	getProc_t getProc = (getProc_t)dlsym(egl, "eglGetProcAddress");
	CHECK(getProc != NULL, "eglGetProcAddress");
	CHECK((void *)getProc("glClear") == dlsym(gles, "glClear"), "eglGetProcAddress(glClear)");
	CHECK(getProc("glNotAFunction") == NULL && getProc("malloc") == NULL, "unknown names");

	getDisplay_t getDisplay = (getDisplay_t)dlsym(egl, "eglGetDisplay");
	initialize_t initialize = (initialize_t)dlsym(egl, "eglInitialize");
	terminate_t terminate = (terminate_t)dlsym(egl, "eglTerminate");
	chooseConfig_t chooseConfig = (chooseConfig_t)dlsym(egl, "eglChooseConfig");
	createContext_t createContext = (createContext_t)dlsym(egl, "eglCreateContext");
	createPbuffer_t createPbuffer = (createPbuffer_t)dlsym(egl, "eglCreatePbufferSurface");
	makeCurrent_t makeCurrent = (makeCurrent_t)dlsym(egl, "eglMakeCurrent");
	destroyContext_t destroyContext = (destroyContext_t)dlsym(egl, "eglDestroyContext");
	destroySurface_t destroySurface = (destroySurface_t)dlsym(egl, "eglDestroySurface");
	void (*clear)(GLbitfield) = (void (*)(GLbitfield))getProc("glClear");
	void (*finish)(void) = (void (*)(void))getProc("glFinish");

	EGLDisplay d = getDisplay(EGL_DEFAULT_DISPLAY);
	CHECK(initialize(d, NULL, NULL), "initialize");
	const EGLint attrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT, EGL_NONE};
	EGLConfig cfg;
	EGLint n = 0;
	CHECK(chooseConfig(d, attrs, &cfg, 1, &n) && n == 1, "config");
	const EGLint cattrs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
	const EGLint sattrs[] = {EGL_WIDTH, 64, EGL_HEIGHT, 64, EGL_NONE};
	long before = 0;
	for (int i = 0; i < 300; i++) {
		if (i == 100)
			before = rss_kb(); /* after warm-up: caches and the heap have grown */
		EGLContext c = createContext(d, cfg, EGL_NO_CONTEXT, cattrs);
		EGLSurface s = createPbuffer(d, cfg, sattrs);
		CHECK(c != EGL_NO_CONTEXT && s != EGL_NO_SURFACE, "create %d", i);
		CHECK(makeCurrent(d, s, s, c), "make current %d", i);
		clear(GL_COLOR_BUFFER_BIT);
		finish();
		CHECK(makeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT), "release %d", i);
		CHECK(destroyContext(d, c) && destroySurface(d, s), "destroy %d", i);
	}
	long after = rss_kb();
	printf("rss after warm-up %ld kB, after 200 more contexts %ld kB\n", before, after);
	CHECK(after - before < 16 * 1024, "resident memory grew by %ld kB over 200 contexts", after - before);
	CHECK(terminate(d), "terminate");
	CHECK(dlclose(gles) == 0 && dlclose(egl2) == 0 && dlclose(egl) == 0, "dlclose");
	puts("ok");
	return 0;
}

// tg.c: thread-local state of the C ABI and eglGetProcAddress's lookup.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include "tg.h"

static __thread uintptr_t current_ctx;
static __thread EGLint egl_error = 0x3000; /* EGL_SUCCESS */

uintptr_t tg_current(void) { return current_ctx; }
void tg_set_current(uintptr_t ctx) { current_ctx = ctx; }
EGLint tg_egl_error(void) { return egl_error; }
void tg_set_egl_error(EGLint e) { egl_error = e; }
uintptr_t tg_thread(void) { return (uintptr_t)pthread_self(); }

/* Every exported function is looked up in this library's own symbol table:
 * one handle for the file that holds tg_proc_address, whichever of its names
 * (libEGL.so.1, libGLESv2.so.2, ...) the program loaded it by. */
static void *self;
static pthread_once_t self_once = PTHREAD_ONCE_INIT;

static void open_self(void) {
	Dl_info info;
	if (dladdr((void *)tg_proc_address, &info) != 0 && info.dli_fname != NULL)
		self = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
}

void *tg_proc_address(const char *name) {
	if (name == NULL || (strncmp(name, "gl", 2) != 0 && strncmp(name, "egl", 3) != 0))
		return NULL;
	pthread_once(&self_once, open_self);
	return self == NULL ? NULL : dlsym(self, name);
}

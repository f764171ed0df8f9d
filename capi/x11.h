/* x11.h: presenting window surfaces on an X server (x11.c). libX11 and
 * libXext are opened with dlopen when first needed, so the library loads and
 * works surfaceless on machines without X. */
#ifndef TILEGPU_CAPI_X11_H
#define TILEGPU_CAPI_X11_H
#include <stdint.h>

/* Display* values are uintptr_t here: Go holds them as integers. */
/* 1 when libX11 could be loaded (and this library was built with the X11
 * headers), else 0. Loads it on the first call. */
int tg_x11_available(void);
/* XOpenDisplay(NULL): the connection EGL_DEFAULT_DISPLAY presents on. */
uintptr_t tg_x11_open_default(void);
/* The id and class of the default visual of dpy's default screen (0: none). */
unsigned long tg_x11_visual_id(uintptr_t dpy, int *visual_class);
/* The size of window win; 0 when win is not a window of dpy. */
int tg_x11_window_size(uintptr_t dpy, unsigned long win, int *w, int *h);

/* A presenter: an XImage (MIT-SHM when the server offers it) of a
 * window's size and a GC to put it with. */
typedef struct tg_present tg_present;
/* NULL with *why set when the window cannot be presented to. */
tg_present *tg_x11_present_new(uintptr_t dpy, unsigned long win, int w, int h, const char **why);
/* Puts a w×h RGBA8 image whose first row is the bottom one (GL's order)
 * into the window; returns 0 when the X server refused it. */
int tg_x11_present(tg_present *p, const uint8_t *rgba, int w, int h);
/* 1 when p presents with XShmPutImage. */
int tg_x11_present_shm(tg_present *p);
void tg_x11_present_free(tg_present *p);
#endif

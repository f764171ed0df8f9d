/* x11.c: window surfaces on X11 (EGL_KHR_platform_x11). The frame is put
 * into the window with XShmPutImage when the server offers MIT-SHM, else
 * with XPutImage. libX11 and libXext are opened with dlopen on first use:
 * the library must load, and work surfaceless, where there is no X. The X11
 * headers are needed only to build this part; without them the library is
 * built without X11 support (tg_x11_available returns 0). */
#define _GNU_SOURCE
#include "x11.h"

#if defined(__has_include)
#if __has_include(<X11/Xlib.h>) && __has_include(<X11/Xutil.h>) && __has_include(<X11/extensions/XShm.h>)
#define TG_HAVE_X11 1
#endif
#endif

#ifndef TG_HAVE_X11
int tg_x11_available(void) { return 0; }
uintptr_t tg_x11_open_default(void) { return 0; }
unsigned long tg_x11_visual_id(uintptr_t dpy, int *visual_class) { (void)dpy; *visual_class = 0; return 0; }
int tg_x11_window_size(uintptr_t dpy, unsigned long win, int *w, int *h) { (void)dpy; (void)win; (void)w; (void)h; return 0; }
tg_present *tg_x11_present_new(uintptr_t dpy, unsigned long win, int w, int h, const char **why) {
	(void)dpy; (void)win; (void)w; (void)h;
	*why = "built without the X11 headers";
	return NULL;
}
int tg_x11_present(tg_present *p, const uint8_t *rgba, int w, int h) { (void)p; (void)rgba; (void)w; (void)h; return 0; }
int tg_x11_present_shm(tg_present *p) { (void)p; return 0; }
void tg_x11_present_free(tg_present *p) { (void)p; }
#else
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XShm.h>

/* The libX11 and libXext functions used, typed from their declarations. */
#define X11_FUNCS(F) F(XOpenDisplay) F(XDefaultScreen) F(XDefaultVisual) F(XVisualIDFromVisual) \
	F(XGetWindowAttributes) F(XCreateGC) F(XFreeGC) F(XCreateImage) F(XPutImage) F(XSync) F(XSetErrorHandler)
#define XEXT_FUNCS(F) F(XShmQueryExtension) F(XShmCreateImage) F(XShmAttach) F(XShmDetach) F(XShmPutImage)
#define DECLARE(f) static __typeof__(f) *p_##f;
X11_FUNCS(DECLARE)
XEXT_FUNCS(DECLARE)

static int have_x11, have_xext;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
	void *x11 = dlopen("libX11.so.6", RTLD_NOW | RTLD_LOCAL);
	if (x11 == NULL)
		return;
	int ok = 1;
#define LOAD(f) if ((p_##f = (__typeof__(f) *)dlsym(x11, #f)) == NULL) ok = 0;
	X11_FUNCS(LOAD)
#undef LOAD
	if (!ok)
		return;
	have_x11 = 1;
	void *xext = dlopen("libXext.so.6", RTLD_NOW | RTLD_LOCAL);
	if (xext == NULL)
		return;
	ok = 1;
#define LOAD(f) if ((p_##f = (__typeof__(f) *)dlsym(xext, #f)) == NULL) ok = 0;
	XEXT_FUNCS(LOAD)
#undef LOAD
	have_xext = ok;
}

int tg_x11_available(void) {
	pthread_once(&load_once, load);
	return have_x11;
}

uintptr_t tg_x11_open_default(void) {
	return tg_x11_available() ? (uintptr_t)p_XOpenDisplay(NULL) : 0;
}

unsigned long tg_x11_visual_id(uintptr_t dpy, int *visual_class) {
	*visual_class = 0;
	Display *d = (Display *)dpy;
	if (!tg_x11_available() || d == NULL)
		return 0;
	Visual *v = p_XDefaultVisual(d, p_XDefaultScreen(d));
	*visual_class = v->class;
	return p_XVisualIDFromVisual(v);
}

/* X errors caused by our requests (a window id that is no window, a shared
 * memory segment the server cannot attach) are caught rather than passed
 * to Xlib's default handler, which exits the program. The callers hold the
 * display lock of the Go side, so one trap is active at a time. */
static int trapped_error;
static int trap(Display *d, XErrorEvent *e) {
	(void)d;
	trapped_error = e->error_code;
	return 0;
}
typedef int (*handler)(Display *, XErrorEvent *);
static handler trap_begin(void) {
	trapped_error = 0;
	return p_XSetErrorHandler(trap);
}
static int trap_end(Display *d, handler old) {
	p_XSync(d, False);
	p_XSetErrorHandler(old);
	return trapped_error;
}

static int attributes(Display *d, Window win, XWindowAttributes *wa) {
	handler old = trap_begin();
	Status st = p_XGetWindowAttributes(d, win, wa);
	return trap_end(d, old) == 0 && st != 0;
}

int tg_x11_window_size(uintptr_t dpy, unsigned long win, int *w, int *h) {
	XWindowAttributes wa;
	if (!tg_x11_available() || dpy == 0 || win == 0 || !attributes((Display *)dpy, win, &wa))
		return 0;
	*w = wa.width;
	*h = wa.height;
	return 1;
}

struct tg_present {
	Display *dpy;
	Window win;
	GC gc;
	XImage *img;
	XShmSegmentInfo shm;
	int use_shm;
	int w, h;
	/* Where each 8-bit channel goes in a pixel: shift and width of its mask. */
	int shift[3], bits[3];
};

static void mask_shape(unsigned long mask, int *shift, int *bits) {
	*shift = mask ? __builtin_ctzl(mask) : 0;
	*bits = __builtin_popcountl(mask);
	if (*bits > 8)
		*bits = 8;
}

static XImage *shm_image(tg_present *p, Visual *v, int depth) {
	/* TILEGPU_NO_MITSHM=1 forces XPutImage (the tests run both paths). */
	const char *off = getenv("TILEGPU_NO_MITSHM");
	if (!have_xext || (off != NULL && *off != '\0' && *off != '0') || !p_XShmQueryExtension(p->dpy))
		return NULL;
	XImage *img = p_XShmCreateImage(p->dpy, v, depth, ZPixmap, NULL, &p->shm, p->w, p->h);
	if (img == NULL)
		return NULL;
	p->shm.shmid = shmget(IPC_PRIVATE, (size_t)img->bytes_per_line * img->height, IPC_CREAT | 0600);
	if (p->shm.shmid < 0) {
		XDestroyImage(img);
		return NULL;
	}
	p->shm.shmaddr = img->data = shmat(p->shm.shmid, NULL, 0);
	p->shm.readOnly = False;
	int attached = 0;
	if (p->shm.shmaddr != (char *)-1) {
		/* A remote server cannot attach our segment: it answers BadAccess. */
		handler old = trap_begin();
		Bool st = p_XShmAttach(p->dpy, &p->shm);
		attached = trap_end(p->dpy, old) == 0 && st;
	}
	shmctl(p->shm.shmid, IPC_RMID, NULL); /* freed when both sides detach */
	if (!attached) {
		if (p->shm.shmaddr != (char *)-1)
			shmdt(p->shm.shmaddr);
		img->data = NULL;
		XDestroyImage(img);
		return NULL;
	}
	return img;
}

tg_present *tg_x11_present_new(uintptr_t dpy, unsigned long win, int w, int h, const char **why) {
	XWindowAttributes wa;
	if (!tg_x11_available()) {
		*why = "libX11.so.6 could not be loaded";
		return NULL;
	}
	if (!attributes((Display *)dpy, win, &wa)) {
		*why = "not a window of this X display";
		return NULL;
	}
	if (wa.visual->class != TrueColor && wa.visual->class != DirectColor) {
		*why = "the window's visual is not TrueColor";
		return NULL;
	}
	tg_present *p = calloc(1, sizeof *p);
	if (p == NULL) {
		*why = "out of memory";
		return NULL;
	}
	p->dpy = (Display *)dpy;
	p->win = win;
	p->w = w;
	p->h = h;
	p->img = shm_image(p, wa.visual, wa.depth);
	p->use_shm = p->img != NULL;
	if (p->img == NULL) {
		p->img = p_XCreateImage(p->dpy, wa.visual, wa.depth, ZPixmap, 0, NULL, w, h, 32, 0);
		if (p->img != NULL && (p->img->data = malloc((size_t)p->img->bytes_per_line * h)) == NULL) {
			XDestroyImage(p->img);
			p->img = NULL;
		}
	}
	if (p->img == NULL || (p->img->bits_per_pixel != 32 && p->img->bits_per_pixel != 16)) {
		*why = p->img == NULL ? "XCreateImage failed" : "the window's pixels are neither 16 nor 32 bits";
		tg_x11_present_free(p);
		return NULL;
	}
	if (!p->use_shm) {
		/* Pixels are written as native integers; Xlib swaps them for a
		 * server of the other byte order. */
		union { uint16_t u; uint8_t b[2]; } probe = { .u = 1 };
		p->img->byte_order = probe.b[0] ? LSBFirst : MSBFirst;
	}
	mask_shape(p->img->red_mask, &p->shift[0], &p->bits[0]);
	mask_shape(p->img->green_mask, &p->shift[1], &p->bits[1]);
	mask_shape(p->img->blue_mask, &p->shift[2], &p->bits[2]);
	p->gc = p_XCreateGC(p->dpy, win, 0, NULL);
	return p;
}

int tg_x11_present(tg_present *p, const uint8_t *rgba, int w, int h) {
	if (w > p->w)
		w = p->w;
	if (h > p->h)
		h = p->h;
	XImage *img = p->img;
	const int rs = p->shift[0], gs = p->shift[1], bs = p->shift[2];
	const int rd = 8 - p->bits[0], gd = 8 - p->bits[1], bd = 8 - p->bits[2];
	for (int y = 0; y < h; y++) {
		const uint8_t *src = rgba + (size_t)(h - 1 - y) * w * 4; /* GL rows are bottom-up */
		char *row = img->data + (size_t)y * img->bytes_per_line;
		if (img->bits_per_pixel == 32) {
			uint32_t *dst = (uint32_t *)row;
			for (int x = 0; x < w; x++, src += 4)
				dst[x] = (uint32_t)(src[0] >> rd) << rs | (uint32_t)(src[1] >> gd) << gs | (uint32_t)(src[2] >> bd) << bs;
		} else {
			uint16_t *dst = (uint16_t *)row;
			for (int x = 0; x < w; x++, src += 4)
				dst[x] = (uint16_t)((src[0] >> rd) << rs | (src[1] >> gd) << gs | (src[2] >> bd) << bs);
		}
	}
	handler old = trap_begin();
	if (p->use_shm)
		p_XShmPutImage(p->dpy, p->win, p->gc, img, 0, 0, 0, 0, w, h, False);
	else
		p_XPutImage(p->dpy, p->win, p->gc, img, 0, 0, 0, 0, w, h);
	/* The sync also keeps the shared segment ours until the server has read it. */
	return trap_end(p->dpy, old) == 0;
}

int tg_x11_present_shm(tg_present *p) { return p->use_shm; }

void tg_x11_present_free(tg_present *p) {
	if (p == NULL)
		return;
	if (p->gc != NULL)
		p_XFreeGC(p->dpy, p->gc);
	if (p->img != NULL) {
		if (p->use_shm) {
			handler old = trap_begin();
			p_XShmDetach(p->dpy, &p->shm);
			trap_end(p->dpy, old);
			shmdt(p->shm.shmaddr);
			p->img->data = NULL;
		}
		XDestroyImage(p->img); /* frees the malloc'd pixels of a plain XImage */
	}
	free(p);
}
#endif

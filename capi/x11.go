package main

/*
#include <stdlib.h>
#include "tg.h"
#include "x11.h"
*/
import "C"

import (
	"os"
	"unsafe"

	"github.com/tilegpu/tilegpu/gles"
	"github.com/tilegpu/tilegpu/pipe"
)

// EGL_KHR_platform_x11 and window-surface enums.
const (
	eglPlatformX11       = 0x31D5 // EGL_PLATFORM_X11_KHR = EGL_PLATFORM_X11_EXT
	eglPlatformX11Screen = 0x31D6
	eglWindowBit         = 0x0004
	eglTrueColor         = 4 // X11 visual class TrueColor (EGL_NATIVE_VISUAL_TYPE)

	// surfacelessHandle is the EGLDisplay of the surfaceless platform (and
	// of EGL_DEFAULT_DISPLAY without X); x11DefaultHandle the X display
	// EGL_DEFAULT_DISPLAY names when there is one; other X displays get
	// handles from nextXHandle on.
	surfacelessHandle = displayHandle
	x11DefaultHandle  = 2
	firstXHandle      = 3
)

// xdisplay is an EGLDisplay on the X11 platform. Every display shares the
// one GPU stack (dpy); an X display adds where window surfaces are presented.
type xdisplay struct {
	handle      C.EGLHandle
	native      C.uintptr_t // Display*; 0 until opened for x11DefaultHandle
	visualID    int
	visualClass int
}

// xdisplays maps EGLDisplay handles of the X11 platform to their X display.
var (
	xdisplays   = map[C.EGLHandle]*xdisplay{}
	xByNative   = map[C.EGLHandle]*xdisplay{}
	nextXHandle = C.EGLHandle(firstXHandle)
)

// x11Available reports whether libX11 could be loaded.
func x11Available() bool { return C.tg_x11_available() != 0 }

// defaultIsX11 reports whether EGL_DEFAULT_DISPLAY is an X display: like
// Mesa, EGL_PLATFORM chooses; unset, X11 when libX11 loads and $DISPLAY
// names a server.
func defaultIsX11() bool {
	switch os.Getenv("EGL_PLATFORM") {
	case "x11":
		return x11Available()
	case "":
		return os.Getenv("DISPLAY") != "" && x11Available()
	}
	return false
}

// xDisplayFor returns the EGLDisplay of an X Display* (nil: the default
// one), making it on first use. The lock is held.
func xDisplayFor(native C.EGLHandle) C.EGLHandle {
	if native == 0 {
		if xdisplays[x11DefaultHandle] == nil {
			xdisplays[x11DefaultHandle] = &xdisplay{handle: x11DefaultHandle}
		}
		return x11DefaultHandle
	}
	if x := xByNative[native]; x != nil {
		return x.handle
	}
	x := &xdisplay{handle: nextXHandle, native: C.uintptr_t(native)}
	nextXHandle++
	xdisplays[x.handle] = x
	xByNative[native] = x
	return x.handle
}

// connect opens the default display's connection when needed and reads the
// visual configs report. It fails when there is no X server to talk to.
func (x *xdisplay) connect() bool {
	if x.native == 0 {
		x.native = C.tg_x11_open_default()
		if x.native == 0 {
			return false
		}
	}
	var class C.int
	x.visualID = int(C.tg_x11_visual_id(x.native, &class))
	x.visualClass = int(class)
	return true
}

// attribOn is a config attribute as the display d reports it: an X display
// adds window surfaces and its default visual.
func (c *config) attribOn(x *xdisplay, a int) (int, bool) {
	if x != nil {
		switch a {
		case eglSurfaceType:
			return eglPbufferBit | eglWindowBit, true
		case eglNativeVisualID:
			return x.visualID, true
		case eglNativeVisualType:
			return x.visualClass, true
		}
	}
	return c.attrib(a)
}

// window is what a window surface adds to a surface: the X window and its
// presenter, and the RGBA8 frame read back at each swap (reused).
type window struct {
	x       *xdisplay
	xid     C.ulong
	present *C.tg_present
	frame   []byte
	raw     []byte // RGB565/RGB888 surfaces: the surface's own pixels, widened into frame
}

// createWindowSurface is eglCreateWindowSurface and
// eglCreatePlatformWindowSurface(EXT) (the lock is held).
func createWindowSurface(d, cfg C.EGLHandle, xid C.ulong, attrs map[int]int) C.EGLHandle {
	if !checkDisplay(d, true) {
		return 0
	}
	c := lookupConfig(cfg)
	if c == nil {
		setError(eglBadConfig)
		return 0
	}
	x := xdisplays[d]
	if x == nil {
		setError(eglBadMatch) // the surfaceless platform has no windows
		return 0
	}
	for _, s := range dpy.surfaces {
		if s.win != nil && s.win.x == x && s.win.xid == xid && !s.destroyed {
			setError(eglBadAlloc) // EGL 1.5 §3.5.1: one window surface per window
			return 0
		}
	}
	var w, h C.int
	if xid == 0 || C.tg_x11_window_size(x.native, xid, &w, &h) == 0 {
		setError(eglBadNativeWindow)
		return 0
	}
	s := &surface{cfg: c, attrs: map[int]int{eglSwapBehavior: eglBufferDestroyed, eglMultisampleResolve: eglResolveDefault,
		eglGLColorspace: eglGLColorspaceLinear, eglRenderBuffer: eglBackBuffer}, win: &window{x: x, xid: xid}}
	for a, v := range attrs {
		switch a {
		case eglRenderBuffer:
			if v != eglBackBuffer && v != 0x3085 /* EGL_SINGLE_BUFFER: a hint, back buffer kept */ {
				setError(eglBadAttribute)
				return 0
			}
		case eglGLColorspace:
			if v != eglGLColorspaceLinear {
				setError(eglBadMatch)
				return 0
			}
		case eglVGColorspace, eglVGAlphaFormat:
		default:
			setError(eglBadAttribute)
			return 0
		}
	}
	if !s.resize(int(w), int(h)) {
		setError(eglBadAlloc)
		return 0
	}
	s.id = dpy.nextID
	dpy.nextID++
	dpy.surfaces[s.id] = s
	C.tg_set_egl_error(eglSuccess)
	return C.EGLHandle(s.id)
}

// allocate (re)creates the surface's colour and depth/stencil buffers at
// w×h; false when the GPU is out of memory (the old buffers are kept).
func (s *surface) allocate(w, h int) bool {
	var color, zs pipe.Resource
	var err error
	if w > 0 && h > 0 {
		color, err = dpy.screen.ResourceCreate(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: s.cfg.format(),
			Width: w, Height: h, Levels: 1, Bind: pipe.BindRenderTarget})
		if err == nil && (s.cfg.depth > 0 || s.cfg.stencil > 0) {
			zs, err = dpy.screen.ResourceCreate(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: pipe.FormatZ24S8,
				Width: w, Height: h, Levels: 1, Bind: pipe.BindDepthStencil, Samples: s.cfg.samples})
		}
		if err != nil {
			if color != nil {
				dpy.screen.ResourceDestroy(color)
			}
			return false
		}
	}
	oldColor, oldZS := s.color, s.zs
	s.color, s.zs, s.w, s.h = color, zs, w, h
	// Contexts drawing to or reading from the surface see the new buffers.
	for _, c := range dpy.contexts {
		if c.draw == s || c.read == s {
			c.locked(func() { c.g.SetDefaultFramebuffer(s.framebuffer()) })
		}
	}
	if oldColor != nil {
		dpy.screen.ResourceDestroy(oldColor)
	}
	if oldZS != nil {
		dpy.screen.ResourceDestroy(oldZS)
	}
	return true
}

// framebuffer is the surface as framebuffer 0.
func (s *surface) framebuffer() gles.DefaultFramebuffer {
	if s.color == nil {
		return gles.DefaultFramebuffer{}
	}
	return gles.DefaultFramebuffer{Width: s.w, Height: s.h, Color: s.color, DepthStencil: s.zs,
		NoStencil: s.zs != nil && s.cfg.stencil == 0, Samples: s.cfg.samples}
}

// resize makes a window surface w×h: new buffers and a new presenter.
func (s *surface) resize(w, h int) bool {
	if !s.allocate(w, h) {
		return false
	}
	if s.win.present != nil {
		C.tg_x11_present_free(s.win.present)
		s.win.present = nil
	}
	s.win.frame, s.win.raw = nil, nil
	if w > 0 && h > 0 {
		var why *C.char
		s.win.present = C.tg_x11_present_new(s.win.x.native, s.win.xid, C.int(w), C.int(h), &why)
		if s.win.present == nil {
			warnf("window 0x%x cannot be presented to: %s", uint64(s.win.xid), C.GoString(why))
		}
		s.win.frame = make([]byte, w*h*4)
	}
	return true
}

// followWindow gives a window surface the window's current size, as EGL
// does at eglSwapBuffers and eglMakeCurrent.
func (s *surface) followWindow() {
	if s.win == nil {
		return
	}
	var w, h C.int
	if C.tg_x11_window_size(s.win.x.native, s.win.xid, &w, &h) == 0 {
		return // the window is gone; presenting will fail quietly
	}
	if int(w) != s.w || int(h) != s.h {
		s.resize(int(w), int(h))
	}
}

// swapWindow presents the frame of a window surface that c draws to: its
// colour buffer is read back and put into the window.
func swapWindow(c *context, s *surface) C.EGLBoolean {
	if s.color != nil && s.win.present != nil {
		var err error
		if f := s.color.Template().Format; f != pipe.FormatRGBA8 {
			// RGB565 / RGB888 surfaces: read the surface's own format
			// and widen it to the RGBA8 frame the presenter converts.
			if len(s.win.raw) != s.w*s.h*f.BytesPerPixel() {
				s.win.raw = make([]byte, s.w*s.h*f.BytesPerPixel())
			}
			raw := s.win.raw
			c.locked(func() { err = c.pctx.ResourceRead(s.color, 0, 0, 0, 0, s.w, s.h, raw) })
			if err == nil {
				f.ToRGBA8(s.win.frame, raw, s.w*s.h)
			}
		} else {
			c.locked(func() { err = c.pctx.ResourceRead(s.color, 0, 0, 0, 0, s.w, s.h, s.win.frame) })
		}
		if err != nil {
			warnf("eglSwapBuffers: reading the frame: %v", err)
			return setError(eglBadAlloc)
		}
		if C.tg_x11_present(s.win.present, (*C.uint8_t)(unsafe.Pointer(&s.win.frame[0])), C.int(s.w), C.int(s.h)) == 0 {
			return setError(eglBadNativeWindow)
		}
	}
	s.followWindow()
	return ok()
}

// freeWindow releases a window surface's presenter.
func (s *surface) freeWindow() {
	if s.win != nil && s.win.present != nil {
		C.tg_x11_present_free(s.win.present)
		s.win.present = nil
	}
}

// attribList reads an EGLAttrib or EGLint list into a map; size is the
// element size in bytes.
func attribList(p unsafe.Pointer, size uintptr) map[int]int {
	m := map[int]int{}
	if p == nil {
		return m
	}
	read := func(q unsafe.Pointer) int {
		if size == 8 {
			return int(*(*C.EGLAttrib)(q))
		}
		return int(*(*C.EGLint)(q))
	}
	for q := p; read(q) != eglNone; q = unsafe.Add(q, 2*size) {
		m[read(q)] = read(unsafe.Add(q, size))
	}
	return m
}

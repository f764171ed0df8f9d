package main

/*
#include <stdlib.h>
#include "tg.h"
*/
import "C"

import (
	"fmt"
	"os"
	"runtime/debug"
	"sort"
	"sync"
	"unsafe"

	"github.com/tilegpu/tilegpu/driver/tg"
	"github.com/tilegpu/tilegpu/driver/tg/platform"
	"github.com/tilegpu/tilegpu/gles"
	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/kernel"
	"github.com/tilegpu/tilegpu/pipe"
)

// EGL enums (EGL/egl.h, eglext.h).
const (
	eglFalse = 0
	eglTrue  = 1

	eglSuccess           = 0x3000
	eglNotInitialized    = 0x3001
	eglBadAccess         = 0x3002
	eglBadAlloc          = 0x3003
	eglBadAttribute      = 0x3004
	eglBadConfig         = 0x3005
	eglBadContext        = 0x3006
	eglBadCurrentSurface = 0x3007
	eglBadDisplay        = 0x3008
	eglBadMatch          = 0x3009
	eglBadNativePixmap   = 0x300A
	eglBadNativeWindow   = 0x300B
	eglBadParameter      = 0x300C
	eglBadSurface        = 0x300D

	eglBufferSize           = 0x3020
	eglAlphaSize            = 0x3021
	eglBlueSize             = 0x3022
	eglGreenSize            = 0x3023
	eglRedSize              = 0x3024
	eglDepthSize            = 0x3025
	eglStencilSize          = 0x3026
	eglConfigCaveat         = 0x3027
	eglConfigID             = 0x3028
	eglLevel                = 0x3029
	eglMaxPbufferHeight     = 0x302A
	eglMaxPbufferPixels     = 0x302B
	eglMaxPbufferWidth      = 0x302C
	eglNativeRenderable     = 0x302D
	eglNativeVisualID       = 0x302E
	eglNativeVisualType     = 0x302F
	eglSamples              = 0x3031
	eglSampleBuffers        = 0x3032
	eglSurfaceType          = 0x3033
	eglTransparentType      = 0x3034
	eglTransparentBlueValue = 0x3035
	eglTransparentGreenVal  = 0x3036
	eglTransparentRedValue  = 0x3037
	eglNone                 = 0x3038
	eglBindToTextureRGB     = 0x3039
	eglBindToTextureRGBA    = 0x303A
	eglMinSwapInterval      = 0x303B
	eglMaxSwapInterval      = 0x303C
	eglLuminanceSize        = 0x303D
	eglAlphaMaskSize        = 0x303E
	eglColorBufferType      = 0x303F
	eglRenderableType       = 0x3040
	eglMatchNativePixmap    = 0x3041
	eglConformant           = 0x3042
	eglRGBBuffer            = 0x308E
	eglDontCare             = -1

	eglVendor     = 0x3053
	eglVersion    = 0x3054
	eglExtensions = 0x3055
	eglClientAPIs = 0x308D

	eglHeight              = 0x3056
	eglWidth               = 0x3057
	eglLargestPbuffer      = 0x3058
	eglDraw                = 0x3059
	eglRead                = 0x305A
	eglNoTexture           = 0x305C
	eglTextureFormat       = 0x3080
	eglTextureTarget       = 0x3081
	eglMipmapTexture       = 0x3082
	eglMipmapLevel         = 0x3083
	eglBackBuffer          = 0x3084
	eglRenderBuffer        = 0x3086
	eglVGColorspace        = 0x3087
	eglVGAlphaFormat       = 0x3088
	eglHorizontalRes       = 0x3090
	eglVerticalRes         = 0x3091
	eglPixelAspectRatio    = 0x3092
	eglSwapBehavior        = 0x3093
	eglBufferPreserved     = 0x3094
	eglBufferDestroyed     = 0x3095
	eglMultisampleResolve  = 0x3099
	eglResolveDefault      = 0x309A
	eglGLColorspace        = 0x309D
	eglGLColorspaceLinear  = 0x308A
	eglContextClientType   = 0x3097
	eglContextMajorVersion = 0x3098 // = EGL_CONTEXT_CLIENT_VERSION
	eglContextMinorVersion = 0x30FB
	eglContextFlagsKHR     = 0x30FC
	eglContextProfileMask  = 0x30FD
	eglContextDebug        = 0x31B0
	eglContextFwdCompat    = 0x31B1
	eglContextRobust       = 0x31B2
	eglResetStrategy       = 0x31BD
	eglNoResetNotification = 0x31BE
	eglOpenGLESAPI         = 0x30A0
	eglUnknown             = -1

	eglPbufferBit   = 0x0001
	eglOpenGLES2Bit = 0x0004

	eglPlatformSurfacelessMESA = 0x31DD

	eglSyncFence          = 0x30F9
	eglSyncType           = 0x30F7
	eglSyncStatus         = 0x30F1
	eglSignaled           = 0x30F2
	eglSyncCondition      = 0x30F8
	eglSyncPriorCommands  = 0x30F0
	eglConditionSatisfied = 0x30F6
)

// The display's extension strings. Each names something implemented here.
const (
	clientExtensions    = "EGL_EXT_client_extensions EGL_EXT_platform_base EGL_KHR_client_get_all_proc_addresses EGL_MESA_platform_surfaceless"
	x11ClientExtensions = "EGL_KHR_platform_x11 EGL_EXT_platform_x11"
	displayExtensions   = "EGL_KHR_create_context EGL_KHR_get_all_proc_addresses EGL_KHR_surfaceless_context"
)

// config is an EGLConfig. Only what the GPU renders is advertised: colour
// buffers RGBA8888, RGB888 (RGBX8888 in memory) and RGB565, which the tile
// buffer renders with their real bits (docs/hardware.md §4.4.1), each with
// depth24+stencil8, depth only, or neither; 4× MSAA configs render with
// four samples per pixel in the tile buffer, resolved into the surface as
// tiles are stored (docs/hardware.md §5.2).
type config struct {
	id                  int
	depth, stencil      int
	red, green, blue, a int
	samples             int // EGL_SAMPLES: 0 or 4
}

var configs = []config{
	{id: 1, red: 8, green: 8, blue: 8, a: 8, depth: 24, stencil: 8},
	{id: 2, red: 8, green: 8, blue: 8, a: 8},
	// Depth only: the surface is a Z24S8 buffer whose stencil bits GL does
	// not see (gles.DefaultFramebuffer.NoStencil). Programs such as
	// glmark2 ask for depth without stencil and refuse configs with it.
	{id: 3, red: 8, green: 8, blue: 8, a: 8, depth: 24},
	{id: 4, red: 8, green: 8, blue: 8, a: 8, depth: 24, stencil: 8, samples: 4},
	{id: 5, red: 8, green: 8, blue: 8, a: 8, samples: 4},
	{id: 6, red: 8, green: 8, blue: 8, depth: 24, stencil: 8},
	{id: 7, red: 8, green: 8, blue: 8},
	{id: 8, red: 8, green: 8, blue: 8, depth: 24},
	{id: 9, red: 8, green: 8, blue: 8, depth: 24, stencil: 8, samples: 4},
	{id: 10, red: 8, green: 8, blue: 8, samples: 4},
	{id: 11, red: 5, green: 6, blue: 5, depth: 24, stencil: 8},
	{id: 12, red: 5, green: 6, blue: 5},
	{id: 13, red: 5, green: 6, blue: 5, depth: 24},
	{id: 14, red: 5, green: 6, blue: 5, depth: 24, stencil: 8, samples: 4},
	{id: 15, red: 5, green: 6, blue: 5, samples: 4},
}

// format is the colour buffer's resource format.
func (c *config) format() pipe.Format {
	switch {
	case c.red == 5:
		return pipe.FormatRGB565
	case c.a == 0:
		return pipe.FormatRGBX8
	}
	return pipe.FormatRGBA8
}

// maxPbuffer is the largest pbuffer side: the driver's render-target limit
// (GL_MAX_RENDERBUFFER_SIZE, tilegpu.MaxSize), so a pbuffer never exceeds
// what GL reports it can render to.
const maxPbuffer = 4096

// attrib returns the value of a config attribute (ok false: not one).
func (c *config) attrib(a int) (int, bool) {
	switch a {
	case eglBufferSize:
		return c.red + c.green + c.blue + c.a, true
	case eglRedSize:
		return c.red, true
	case eglGreenSize:
		return c.green, true
	case eglBlueSize:
		return c.blue, true
	case eglAlphaSize:
		return c.a, true
	case eglDepthSize:
		return c.depth, true
	case eglStencilSize:
		return c.stencil, true
	case eglConfigCaveat:
		return eglNone, true
	case eglConfigID:
		return c.id, true
	case eglSamples:
		return c.samples, true
	case eglSampleBuffers:
		return min(c.samples, 1), true
	case eglLevel, eglNativeVisualID, eglTransparentBlueValue, eglTransparentGreenVal,
		eglTransparentRedValue, eglMinSwapInterval, eglLuminanceSize, eglAlphaMaskSize:
		return 0, true
	case eglMaxSwapInterval:
		return 1, true
	case eglMaxPbufferWidth, eglMaxPbufferHeight:
		return maxPbuffer, true
	case eglMaxPbufferPixels:
		return maxPbuffer * maxPbuffer, true
	case eglNativeRenderable, eglBindToTextureRGB, eglBindToTextureRGBA:
		return eglFalse, true
	case eglNativeVisualType, eglTransparentType:
		return eglNone, true
	case eglSurfaceType:
		return eglPbufferBit, true
	case eglColorBufferType:
		return eglRGBBuffer, true
	case eglRenderableType, eglConformant:
		return eglOpenGLES2Bit, true
	}
	return 0, false
}

type surface struct {
	id        uintptr
	cfg       *config
	w, h      int
	color, zs pipe.Resource
	destroyed bool // eglDestroySurface called; freed when no longer current
	current   int  // contexts it is current to
	attrs     map[int]int
	win       *window // window surfaces only (x11.go)
}

type context struct {
	id         uintptr
	cfg        *config // nil: EGL_NO_CONFIG (not offered)
	g          *gles.Context
	pctx       *tg.Context
	thread     uintptr     // C thread it is current on (0: none)
	display    C.EGLHandle // the EGLDisplay it is current on
	draw, read *surface
	destroyed  bool
	// grp is the context's share group: its mutex serialises the GL calls
	// of the group's contexts (they share objects); contexts of different
	// groups run their GL calls concurrently.
	grp *shareGroup
}

// shareGroup is the lock of a set of contexts created sharing objects
// (eglCreateContext's share_context).
type shareGroup struct{ mu sync.Mutex }

// locked runs f with the context's share group locked: EGL calls that
// touch a GL context (they hold dpy.mu; the order is always dpy.mu, then
// a group's mutex).
func (c *context) locked(f func()) {
	c.grp.mu.Lock()
	defer c.grp.mu.Unlock()
	f()
}

// display is the one EGLDisplay: a virtual GPU, its kernel driver, one
// client file and one driver screen for every context, so that pbuffers and
// shared objects can be used by all of them. dpy.mu serialises the EGL
// calls; a GL call takes only its context's share-group mutex, so threads
// whose contexts share nothing render concurrently (see docs/interfaces.md
// "capi").
type display struct {
	mu          sync.Mutex
	initialized bool
	gpu         *hw.GPU
	dev         *kernel.Device
	file        *kernel.File
	screen      *tg.Screen
	contexts    map[uintptr]*context
	surfaces    map[uintptr]*surface
	nextID      uintptr
	strs        map[string]*C.char
}

// displayHandle is the EGLDisplay value of the one display.
const displayHandle = 1

var dpy = display{contexts: map[uintptr]*context{}, surfaces: map[uintptr]*surface{}, nextID: 0x1000, strs: map[string]*C.char{}}

// live maps context handles to contexts for the GL entry points, which do
// not take dpy.mu: a context is stored before its handle is returned and
// deleted when it is freed, which happens only once no thread has it
// current — so the calling thread's current context stays in live for the
// whole of its GL call.
var live sync.Map // uintptr → *context

// lock takes the share-group lock of the calling thread's current GL
// context and returns it (nil: no context is current; the GL call is then
// ignored). Every GL entry point pairs it with a deferred unlock.
func lock() *gles.Context {
	if v, ok := live.Load(uintptr(C.tg_current())); ok {
		c := v.(*context)
		c.grp.mu.Lock()
		return c.g
	}
	return nil
}

// unlock releases what lock took (the current context cannot change in
// between: only EGL calls change it). A Go panic inside an entry point
// (a tilegpu bug) is reported on stderr instead of killing the program.
func unlock() {
	if r := recover(); r != nil {
		fmt.Fprintf(os.Stderr, "tilegpu capi: internal error: %v\n%s", r, debug.Stack())
	}
	if v, ok := live.Load(uintptr(C.tg_current())); ok {
		v.(*context).grp.mu.Unlock()
	}
}

// strsMu guards dpy.strs: glGetString interns under a group lock, not dpy.mu.
var strsMu sync.Mutex

// internString returns a C copy of s that lives as long as the process
// (glGetString, eglQueryString); each distinct string is copied once.
func internString(s string) *C.char {
	strsMu.Lock()
	defer strsMu.Unlock()
	p, ok := dpy.strs[s]
	if !ok {
		p = C.CString(s)
		dpy.strs[s] = p
	}
	return p
}

// setError records the thread's EGL error and returns EGL_FALSE.
func setError(e C.EGLint) C.EGLBoolean {
	C.tg_set_egl_error(e)
	return eglFalse
}

func ok() C.EGLBoolean {
	C.tg_set_egl_error(eglSuccess)
	return eglTrue
}

// checkDisplay validates a display handle (the lock is held).
func checkDisplay(d C.EGLHandle, needInit bool) bool {
	if !isDisplay(d) {
		setError(eglBadDisplay)
		return false
	}
	if needInit && !dpy.initialized {
		setError(eglNotInitialized)
		return false
	}
	return true
}

// isDisplay reports whether d is an EGLDisplay handed out (the lock is held).
func isDisplay(d C.EGLHandle) bool { return d == surfacelessHandle || xdisplays[d] != nil }

// warnf reports a problem the EGL error code cannot explain on stderr.
func warnf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "tilegpu capi: "+format+"\n", args...)
}

func lookupConfig(h C.EGLHandle) *config {
	for i := range configs {
		if C.EGLHandle(configs[i].id) == h {
			return &configs[i]
		}
	}
	return nil
}

//export eglGetError
func eglGetError() C.EGLint {
	e := C.tg_egl_error()
	C.tg_set_egl_error(eglSuccess)
	return e
}

//export eglGetDisplay
func eglGetDisplay(native C.EGLHandle) C.EGLHandle {
	// The native platform is X11 when libX11 loads: a native display is an
	// Xlib Display*. EGL_DEFAULT_DISPLAY is the X server $DISPLAY names, or
	// the surfaceless display (EGL_PLATFORM=surfaceless, or no X).
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	C.tg_set_egl_error(eglSuccess)
	if native != 0 && x11Available() {
		return xDisplayFor(native)
	}
	if native == 0 && defaultIsX11() {
		return xDisplayFor(0)
	}
	return surfacelessHandle
}

func platformDisplay(platform C.EGLenum, native C.EGLHandle, attribs map[int]int) C.EGLHandle {
	hasAttribs := len(attribs) > 0
	if platform == eglPlatformX11 && x11Available() {
		for a := range attribs {
			if a != eglPlatformX11Screen {
				setError(eglBadAttribute)
				return 0
			}
		}
		dpy.mu.Lock()
		defer dpy.mu.Unlock()
		C.tg_set_egl_error(eglSuccess)
		return xDisplayFor(native)
	}
	if platform != eglPlatformSurfacelessMESA {
		setError(eglBadParameter)
		return 0
	}
	if native != 0 || hasAttribs {
		setError(eglBadParameter) // surfaceless takes EGL_DEFAULT_DISPLAY and no attributes
		return 0
	}
	C.tg_set_egl_error(eglSuccess)
	return displayHandle
}

//export eglGetPlatformDisplay
func eglGetPlatformDisplay(platform C.EGLenum, native C.EGLHandle, attribs *C.EGLAttrib) C.EGLHandle {
	return platformDisplay(platform, native, attribList(unsafe.Pointer(attribs), 8))
}

//export eglGetPlatformDisplayEXT
func eglGetPlatformDisplayEXT(platform C.EGLenum, native C.EGLHandle, attribs *C.EGLint) C.EGLHandle {
	return platformDisplay(platform, native, attribList(unsafe.Pointer(attribs), 4))
}

//export eglInitialize
func eglInitialize(d C.EGLHandle, major, minor *C.EGLint) C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkDisplay(d, false) {
		return eglFalse
	}
	if x := xdisplays[d]; x != nil && !x.connect() {
		warnf("eglInitialize: cannot open the X display (DISPLAY=%q)", os.Getenv("DISPLAY"))
		return setError(eglNotInitialized)
	}
	if dpy.gpu == nil {
		if err := dpy.open(); err != nil {
			fmt.Fprintf(os.Stderr, "tilegpu capi: eglInitialize: %v\n", err)
			return setError(eglNotInitialized)
		}
	}
	dpy.initialized = true
	if major != nil {
		*major = 1
	}
	if minor != nil {
		*minor = 5
	}
	return ok()
}

// open builds the GPU stack under the display.
func (d *display) open() error {
	d.gpu = hw.New(hw.Config{})
	d.dev = kernel.NewDevice(d.gpu, kernel.Options{})
	f, err := d.dev.Open()
	if err != nil {
		d.close()
		return fmt.Errorf("opening the kernel device: %w", err)
	}
	d.file = f
	if d.screen, err = tg.NewScreen(platform.Winsys{F: f}, platform.Compiler{}, tg.ScreenOptions{}); err != nil {
		d.close()
		return err
	}
	return nil
}

// close frees the GPU stack (nothing may use it any more).
func (d *display) close() {
	if d.screen != nil {
		d.screen.Destroy()
	}
	if d.file != nil {
		d.file.Close()
	}
	if d.dev != nil {
		d.dev.Close()
	}
	if d.gpu != nil {
		d.gpu.Close()
	}
	d.screen, d.file, d.dev, d.gpu = nil, nil, nil, nil
}

//export eglTerminate
func eglTerminate(d C.EGLHandle) C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkDisplay(d, false) {
		return eglFalse
	}
	if !dpy.initialized {
		return ok()
	}
	dpy.initialized = false
	// Objects current to a thread live on until released (EGL 1.5 §3.2).
	for _, c := range dpy.contexts {
		c.destroyed = true
		dpy.reap(c)
	}
	for _, s := range dpy.surfaces {
		s.destroyed = true
		dpy.reapSurface(s)
	}
	if len(dpy.contexts) == 0 && len(dpy.surfaces) == 0 {
		dpy.close()
	}
	return ok()
}

// reap frees a destroyed context once no thread has it current.
func (d *display) reap(c *context) {
	if !c.destroyed || c.thread != 0 {
		return
	}
	live.Delete(c.id)
	c.locked(c.g.Destroy)
	delete(d.contexts, c.id)
	for _, s := range []*surface{c.draw, c.read} {
		if s != nil {
			s.current--
			d.reapSurface(s)
		}
	}
	c.draw, c.read = nil, nil
	if !d.initialized && len(d.contexts) == 0 && len(d.surfaces) == 0 {
		d.close()
	}
}

func (d *display) reapSurface(s *surface) {
	if !s.destroyed || s.current > 0 {
		return
	}
	if s.color != nil {
		d.screen.ResourceDestroy(s.color)
	}
	if s.zs != nil {
		d.screen.ResourceDestroy(s.zs)
	}
	s.freeWindow()
	s.color, s.zs = nil, nil
	delete(d.surfaces, s.id)
	if !d.initialized && len(d.contexts) == 0 && len(d.surfaces) == 0 {
		d.close()
	}
}

//export eglQueryString
func eglQueryString(d C.EGLHandle, name C.EGLint) *C.char {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if d == 0 {
		switch name {
		case eglExtensions:
			C.tg_set_egl_error(eglSuccess)
			if x11Available() {
				return internString(clientExtensions + " " + x11ClientExtensions)
			}
			return internString(clientExtensions)
		case eglVersion:
			C.tg_set_egl_error(eglSuccess)
			return internString("1.5")
		}
		setError(eglBadDisplay)
		return nil
	}
	if !checkDisplay(d, true) {
		return nil
	}
	var s string
	switch name {
	case eglVendor:
		s = "tilegpu"
	case eglVersion:
		s = "1.5 tilegpu"
	case eglExtensions:
		s = displayExtensions
	case eglClientAPIs:
		s = "OpenGL_ES"
	default:
		setError(eglBadParameter)
		return nil
	}
	C.tg_set_egl_error(eglSuccess)
	return internString(s)
}

//export eglGetConfigs
func eglGetConfigs(d C.EGLHandle, out *C.EGLHandle, size C.EGLint, num *C.EGLint) C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkDisplay(d, true) {
		return eglFalse
	}
	if num == nil {
		return setError(eglBadParameter)
	}
	ids := make([]int, len(configs))
	for i := range configs {
		ids[i] = configs[i].id
	}
	*num = C.EGLint(putConfigs(ids, out, size))
	return ok()
}

// putConfigs writes config handles (all of them when out is NULL) and
// returns how many.
func putConfigs(ids []int, out *C.EGLHandle, size C.EGLint) int {
	if out == nil {
		return len(ids)
	}
	n := min(len(ids), max(int(size), 0))
	dst := unsafe.Slice(out, max(n, 1))
	for i := 0; i < n; i++ {
		dst[i] = C.EGLHandle(ids[i])
	}
	return n
}

// matchRule is how eglChooseConfig compares an attribute (EGL 1.5 table 3.4).
type matchRule int

const (
	atLeast matchRule = iota
	exact
	mask
	special
)

var chooseAttribs = map[int]struct {
	rule matchRule
	def  int
}{
	eglBufferSize: {atLeast, 0}, eglRedSize: {atLeast, 0}, eglGreenSize: {atLeast, 0}, eglBlueSize: {atLeast, 0},
	eglLuminanceSize: {atLeast, 0}, eglAlphaSize: {atLeast, 0}, eglAlphaMaskSize: {atLeast, 0},
	eglBindToTextureRGB: {exact, eglDontCare}, eglBindToTextureRGBA: {exact, eglDontCare},
	eglColorBufferType: {exact, eglRGBBuffer}, eglConfigCaveat: {exact, eglDontCare}, eglConfigID: {exact, eglDontCare},
	eglConformant: {mask, 0}, eglDepthSize: {atLeast, 0}, eglLevel: {exact, 0},
	eglMaxSwapInterval: {exact, eglDontCare}, eglMinSwapInterval: {exact, eglDontCare},
	eglNativeRenderable: {exact, eglDontCare}, eglNativeVisualType: {exact, eglDontCare},
	eglRenderableType: {mask, 1}, eglSampleBuffers: {atLeast, 0}, eglSamples: {atLeast, 0},
	eglStencilSize: {atLeast, 0}, eglSurfaceType: {mask, 0x0004}, eglTransparentType: {exact, eglNone},
	eglTransparentRedValue: {exact, eglDontCare}, eglTransparentGreenVal: {exact, eglDontCare}, eglTransparentBlueValue: {exact, eglDontCare},
	eglMatchNativePixmap: {special, eglNone},
	eglMaxPbufferWidth:   {special, 0}, eglMaxPbufferHeight: {special, 0}, eglMaxPbufferPixels: {special, 0}, eglNativeVisualID: {special, 0},
}

//export eglChooseConfig
func eglChooseConfig(d C.EGLHandle, attribs *C.EGLint, out *C.EGLHandle, size C.EGLint, num *C.EGLint) C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkDisplay(d, true) {
		return eglFalse
	}
	if num == nil {
		return setError(eglBadParameter)
	}
	want := map[int]int{}
	for a, r := range chooseAttribs {
		want[a] = r.def
	}
	if attribs != nil {
		for p := attribs; *p != eglNone; p = (*C.EGLint)(unsafe.Add(unsafe.Pointer(p), 8)) {
			a := int(*p)
			v := int(*(*C.EGLint)(unsafe.Add(unsafe.Pointer(p), 4)))
			if _, known := chooseAttribs[a]; !known {
				return setError(eglBadAttribute)
			}
			want[a] = v
		}
	}
	var ids []int
	var chosen []*config
	for i := range configs {
		c := &configs[i]
		if id := want[eglConfigID]; id != eglDontCare {
			// EGL_CONFIG_ID overrides every other attribute.
			if c.id == id {
				chosen = append(chosen, c)
			}
			continue
		}
		if matches(c, want, xdisplays[d]) {
			chosen = append(chosen, c)
		}
	}
	sortConfigs(chosen, want)
	for _, c := range chosen {
		ids = append(ids, c.id)
	}
	*num = C.EGLint(putConfigs(ids, out, size))
	return ok()
}

func matches(c *config, want map[int]int, x *xdisplay) bool {
	for a, r := range chooseAttribs {
		w := want[a]
		if w == eglDontCare || r.rule == special {
			continue
		}
		have, _ := c.attribOn(x, a)
		switch r.rule {
		case atLeast:
			if have < w {
				return false
			}
		case exact:
			if have != w {
				return false
			}
		case mask:
			if have&w != w {
				return false
			}
		}
	}
	return true
}

// sortConfigs orders configs as EGL 1.5 §3.4.1.2 specifies: caveat, colour
// buffer type, more colour bits among the components asked for, smaller
// buffer size, sample buffers, samples, depth, stencil, alpha mask, native
// visual type, then config ID.
func sortConfigs(cs []*config, want map[int]int) {
	colorBits := func(c *config) int {
		n := 0
		for _, a := range []int{eglRedSize, eglGreenSize, eglBlueSize, eglAlphaSize} {
			if w := want[a]; w != 0 && w != eglDontCare {
				v, _ := c.attrib(a)
				n += v
			}
		}
		return n
	}
	key := func(c *config) []int {
		v := func(a int) int { x, _ := c.attrib(a); return x }
		return []int{0, 0, -colorBits(c), v(eglBufferSize), v(eglSampleBuffers), v(eglSamples), v(eglDepthSize),
			v(eglStencilSize), v(eglAlphaMaskSize), 0, c.id}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := key(cs[i]), key(cs[j])
		for k := range a {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return false
	})
}

//export eglGetConfigAttrib
func eglGetConfigAttrib(d C.EGLHandle, cfg C.EGLHandle, attribute C.EGLint, value *C.EGLint) C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkDisplay(d, true) {
		return eglFalse
	}
	c := lookupConfig(cfg)
	if c == nil {
		return setError(eglBadConfig)
	}
	v, known := c.attribOn(xdisplays[d], int(attribute))
	if !known {
		return setError(eglBadAttribute)
	}
	if value != nil {
		*value = C.EGLint(v)
	}
	return ok()
}

//export eglCreatePbufferSurface
func eglCreatePbufferSurface(d C.EGLHandle, cfg C.EGLHandle, attribs *C.EGLint) C.EGLHandle {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkDisplay(d, true) {
		return 0
	}
	c := lookupConfig(cfg)
	if c == nil {
		setError(eglBadConfig)
		return 0
	}
	s := &surface{cfg: c, attrs: map[int]int{eglLargestPbuffer: eglFalse, eglTextureFormat: eglNoTexture,
		eglTextureTarget: eglNoTexture, eglMipmapTexture: eglFalse, eglMipmapLevel: 0, eglSwapBehavior: eglBufferPreserved,
		eglMultisampleResolve: eglResolveDefault, eglGLColorspace: eglGLColorspaceLinear, eglRenderBuffer: eglBackBuffer}}
	if attribs != nil {
		for p := attribs; *p != eglNone; p = (*C.EGLint)(unsafe.Add(unsafe.Pointer(p), 8)) {
			a, v := int(*p), int(*(*C.EGLint)(unsafe.Add(unsafe.Pointer(p), 4)))
			switch a {
			case eglWidth:
				s.w = v
			case eglHeight:
				s.h = v
			case eglLargestPbuffer, eglMipmapTexture, eglVGColorspace, eglVGAlphaFormat:
				s.attrs[a] = v
			case eglTextureFormat, eglTextureTarget:
				if v != eglNoTexture {
					setError(eglBadMatch) // no config binds to textures
					return 0
				}
			case eglGLColorspace:
				if v != eglGLColorspaceLinear {
					setError(eglBadMatch)
					return 0
				}
			default:
				setError(eglBadAttribute)
				return 0
			}
			if (a == eglWidth || a == eglHeight) && v < 0 {
				setError(eglBadParameter)
				return 0
			}
		}
	}
	if s.w > maxPbuffer || s.h > maxPbuffer {
		if s.attrs[eglLargestPbuffer] == eglFalse {
			setError(eglBadAlloc)
			return 0
		}
		s.w, s.h = min(s.w, maxPbuffer), min(s.h, maxPbuffer)
	}
	if s.w > 0 && s.h > 0 {
		var err error
		s.color, err = dpy.screen.ResourceCreate(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: c.format(),
			Width: s.w, Height: s.h, Levels: 1, Bind: pipe.BindRenderTarget})
		if err == nil && (c.depth > 0 || c.stencil > 0) {
			s.zs, err = dpy.screen.ResourceCreate(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: pipe.FormatZ24S8,
				Width: s.w, Height: s.h, Levels: 1, Bind: pipe.BindDepthStencil, Samples: c.samples})
		}
		if err != nil {
			if s.color != nil {
				dpy.screen.ResourceDestroy(s.color)
			}
			setError(eglBadAlloc)
			return 0
		}
	}
	s.id = dpy.nextID
	dpy.nextID++
	dpy.surfaces[s.id] = s
	C.tg_set_egl_error(eglSuccess)
	return C.EGLHandle(s.id)
}

// noPixmaps is every entry point that creates a pixmap surface: no config
// has EGL_PIXMAP_BIT.
func noPixmaps(d C.EGLHandle, cfg C.EGLHandle) C.EGLHandle {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkDisplay(d, true) {
		return 0
	}
	if lookupConfig(cfg) == nil {
		setError(eglBadConfig)
		return 0
	}
	setError(eglBadMatch)
	return 0
}

//export eglCreateWindowSurface
func eglCreateWindowSurface(d, cfg, win C.EGLHandle, attribs *C.EGLint) C.EGLHandle {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	// EGLNativeWindowType is the X Window id itself.
	return createWindowSurface(d, cfg, C.ulong(win), attribList(unsafe.Pointer(attribs), 4))
}

//export eglCreatePixmapSurface
func eglCreatePixmapSurface(d, cfg, pix C.EGLHandle, attribs *C.EGLint) C.EGLHandle {
	return noPixmaps(d, cfg)
}

// platformWindow reads EGL_KHR_platform_x11's native window: a pointer to
// the Window id.
func platformWindow(win unsafe.Pointer) C.ulong {
	if win == nil {
		return 0
	}
	return *(*C.ulong)(win)
}

//export eglCreatePlatformWindowSurface
func eglCreatePlatformWindowSurface(d, cfg C.EGLHandle, win unsafe.Pointer, attribs *C.EGLAttrib) C.EGLHandle {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	return createWindowSurface(d, cfg, platformWindow(win), attribList(unsafe.Pointer(attribs), 8))
}

//export eglCreatePlatformWindowSurfaceEXT
func eglCreatePlatformWindowSurfaceEXT(d, cfg C.EGLHandle, win unsafe.Pointer, attribs *C.EGLint) C.EGLHandle {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	return createWindowSurface(d, cfg, platformWindow(win), attribList(unsafe.Pointer(attribs), 4))
}

//export eglCreatePlatformPixmapSurfaceEXT
func eglCreatePlatformPixmapSurfaceEXT(d, cfg C.EGLHandle, pix unsafe.Pointer, attribs *C.EGLint) C.EGLHandle {
	return noPixmaps(d, cfg)
}

//export eglCreatePlatformPixmapSurface
func eglCreatePlatformPixmapSurface(d, cfg C.EGLHandle, pix unsafe.Pointer, attribs *C.EGLAttrib) C.EGLHandle {
	return noPixmaps(d, cfg)
}

//export eglCreatePbufferFromClientBuffer
func eglCreatePbufferFromClientBuffer(d C.EGLHandle, buftype C.EGLenum, buf C.EGLHandle, cfg C.EGLHandle, attribs *C.EGLint) C.EGLHandle {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if checkDisplay(d, true) {
		setError(eglBadParameter) // no client buffer types (OpenVG) exist
	}
	return 0
}

func lookupSurface(h C.EGLHandle) *surface {
	s := dpy.surfaces[uintptr(h)]
	if s == nil || s.destroyed {
		setError(eglBadSurface)
		return nil
	}
	return s
}

//export eglDestroySurface
func eglDestroySurface(d, sh C.EGLHandle) C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkDisplay(d, true) {
		return eglFalse
	}
	s := lookupSurface(sh)
	if s == nil {
		return eglFalse
	}
	s.destroyed = true
	dpy.reapSurface(s)
	return ok()
}

//export eglQuerySurface
func eglQuerySurface(d, sh C.EGLHandle, attribute C.EGLint, value *C.EGLint) C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkDisplay(d, true) {
		return eglFalse
	}
	s := lookupSurface(sh)
	if s == nil {
		return eglFalse
	}
	var v int
	switch a := int(attribute); a {
	case eglWidth:
		v = s.w
	case eglHeight:
		v = s.h
	case eglConfigID:
		v = s.cfg.id
	case eglHorizontalRes, eglVerticalRes, eglPixelAspectRatio:
		v = eglUnknown
	default:
		x, known := s.attrs[a]
		if !known {
			return setError(eglBadAttribute)
		}
		v = x
	}
	if value != nil {
		*value = C.EGLint(v)
	}
	return ok()
}

//export eglSurfaceAttrib
func eglSurfaceAttrib(d, sh C.EGLHandle, attribute, value C.EGLint) C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkDisplay(d, true) {
		return eglFalse
	}
	s := lookupSurface(sh)
	if s == nil {
		return eglFalse
	}
	switch attribute {
	case eglMipmapLevel:
		s.attrs[eglMipmapLevel] = int(value)
	case eglSwapBehavior:
		if value != eglBufferPreserved && value != eglBufferDestroyed {
			return setError(eglBadParameter)
		}
		s.attrs[eglSwapBehavior] = int(value)
	case eglMultisampleResolve:
		if value != eglResolveDefault {
			return setError(eglBadMatch)
		}
	default:
		return setError(eglBadAttribute)
	}
	return ok()
}

//export eglBindTexImage
func eglBindTexImage(d, sh C.EGLHandle, buffer C.EGLint) C.EGLBoolean {
	return texImage(d, sh)
}

//export eglReleaseTexImage
func eglReleaseTexImage(d, sh C.EGLHandle, buffer C.EGLint) C.EGLBoolean {
	return texImage(d, sh)
}

// texImage: no surface has a texture format, so binding is EGL_BAD_MATCH.
func texImage(d, sh C.EGLHandle) C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkDisplay(d, true) || lookupSurface(sh) == nil {
		return eglFalse
	}
	return setError(eglBadMatch)
}

//export eglBindAPI
func eglBindAPI(api C.EGLenum) C.EGLBoolean {
	if api != eglOpenGLESAPI {
		return setError(eglBadParameter)
	}
	return ok()
}

//export eglQueryAPI
func eglQueryAPI() C.EGLenum { return eglOpenGLESAPI }

//export eglCreateContext
func eglCreateContext(d, cfg, share C.EGLHandle, attribs *C.EGLint) C.EGLHandle {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkDisplay(d, true) {
		return 0
	}
	c := lookupConfig(cfg)
	if c == nil {
		setError(eglBadConfig)
		return 0
	}
	var sh *context
	if share != 0 {
		if sh = dpy.contexts[uintptr(share)]; sh == nil || sh.destroyed {
			setError(eglBadContext)
			return 0
		}
	}
	major, minor := 1, 0
	if attribs != nil {
		for p := attribs; *p != eglNone; p = (*C.EGLint)(unsafe.Add(unsafe.Pointer(p), 8)) {
			a, v := int(*p), int(*(*C.EGLint)(unsafe.Add(unsafe.Pointer(p), 4)))
			switch a {
			case eglContextMajorVersion:
				major = v
			case eglContextMinorVersion:
				minor = v
			case eglContextFlagsKHR:
				if v&^1 != 0 { // only the debug bit: no robust access, forward-compatible is desktop GL
					setError(eglBadAttribute)
					return 0
				}
			case eglContextDebug:
			case eglContextRobust:
				if v != eglFalse {
					setError(eglBadAttribute)
					return 0
				}
			case eglResetStrategy:
				if v != eglNoResetNotification {
					setError(eglBadAttribute)
					return 0
				}
			default:
				setError(eglBadAttribute)
				return 0
			}
		}
	}
	if major != 2 || minor != 0 {
		setError(eglBadMatch) // OpenGL ES 2.0 only
		return 0
	}
	pctx := dpy.screen.NewContext()
	var shg *gles.Context
	grp := &shareGroup{}
	if sh != nil {
		shg, grp = sh.g, sh.grp
		grp.mu.Lock() // NewShared takes a reference on the group's objects
	}
	g, err := gles.NewShared(pctx, gles.DefaultFramebuffer{}, shg)
	if sh != nil {
		grp.mu.Unlock()
	}
	if err != nil {
		pctx.Destroy()
		fmt.Fprintf(os.Stderr, "tilegpu capi: eglCreateContext: %v\n", err)
		setError(eglBadAlloc)
		return 0
	}
	ctx := &context{id: dpy.nextID, cfg: c, g: g, pctx: pctx, grp: grp}
	dpy.nextID++
	dpy.contexts[ctx.id] = ctx
	live.Store(ctx.id, ctx)
	C.tg_set_egl_error(eglSuccess)
	return C.EGLHandle(ctx.id)
}

func lookupContext(h C.EGLHandle) *context {
	c := dpy.contexts[uintptr(h)]
	if c == nil || c.destroyed {
		setError(eglBadContext)
		return nil
	}
	return c
}

//export eglDestroyContext
func eglDestroyContext(d, ch C.EGLHandle) C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkDisplay(d, true) {
		return eglFalse
	}
	c := lookupContext(ch)
	if c == nil {
		return eglFalse
	}
	c.destroyed = true
	dpy.reap(c)
	return ok()
}

//export eglQueryContext
func eglQueryContext(d, ch C.EGLHandle, attribute C.EGLint, value *C.EGLint) C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkDisplay(d, true) {
		return eglFalse
	}
	c := lookupContext(ch)
	if c == nil {
		return eglFalse
	}
	var v int
	switch attribute {
	case eglConfigID:
		v = c.cfg.id
	case eglContextClientType:
		v = eglOpenGLESAPI
	case eglContextMajorVersion:
		v = 2
	case eglRenderBuffer:
		if c.draw == nil {
			v = eglNone
		} else {
			v = eglBackBuffer
		}
	default:
		return setError(eglBadAttribute)
	}
	if value != nil {
		*value = C.EGLint(v)
	}
	return ok()
}

// release makes no context current on the calling thread (lock held).
func release() {
	cur := dpy.contexts[uintptr(C.tg_current())]
	C.tg_set_current(0)
	if cur == nil {
		return
	}
	cur.locked(func() { cur.g.Flush() }) // EGL: making another context current flushes the old one
	cur.thread = 0
	for _, s := range []*surface{cur.draw, cur.read} {
		if s != nil {
			s.current--
			dpy.reapSurface(s)
		}
	}
	cur.draw, cur.read = nil, nil
	dpy.reap(cur)
}

//export eglMakeCurrent
func eglMakeCurrent(d, draw, read, ch C.EGLHandle) C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !isDisplay(d) {
		return setError(eglBadDisplay)
	}
	if ch == 0 {
		if draw != 0 || read != 0 {
			return setError(eglBadMatch)
		}
		release()
		return ok()
	}
	if !dpy.initialized {
		return setError(eglNotInitialized)
	}
	c := lookupContext(ch)
	if c == nil {
		return eglFalse
	}
	if (draw == 0) != (read == 0) {
		return setError(eglBadMatch)
	}
	var ds, rs *surface
	if draw != 0 {
		if ds, rs = lookupSurface(draw), lookupSurface(read); ds == nil || rs == nil {
			return eglFalse
		}
		for _, s := range []*surface{ds, rs} {
			if s.cfg.depth != c.cfg.depth || s.cfg.stencil != c.cfg.stencil || s.cfg.format() != c.cfg.format() {
				return setError(eglBadMatch) // configs not compatible
			}
		}
	}
	self := uintptr(C.tg_thread())
	if c.thread != 0 && c.thread != self {
		return setError(eglBadAccess)
	}
	if cur := uintptr(C.tg_current()); cur != c.id {
		release()
	} else {
		c.locked(func() { c.g.Flush() })
		for _, s := range []*surface{c.draw, c.read} {
			if s != nil {
				s.current--
				defer dpy.reapSurface(s)
			}
		}
	}
	c.thread, c.draw, c.read, c.display = self, ds, rs, d
	dfb := gles.DefaultFramebuffer{}
	if ds != nil {
		ds.current++
		rs.current++
		ds.followWindow() // a window's size is read when it is made current
		dfb = ds.framebuffer()
	}
	c.locked(func() { c.g.SetDefaultFramebuffer(dfb) })
	C.tg_set_current(C.uintptr_t(c.id))
	return ok()
}

//export eglReleaseThread
func eglReleaseThread() C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	release()
	return ok()
}

// currentContext is the calling thread's current context (lock held).
func currentContext() *context {
	c := dpy.contexts[uintptr(C.tg_current())]
	if c == nil || c.thread == 0 {
		return nil
	}
	return c
}

//export eglGetCurrentContext
func eglGetCurrentContext() C.EGLHandle {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	C.tg_set_egl_error(eglSuccess)
	if c := currentContext(); c != nil {
		return C.EGLHandle(c.id)
	}
	return 0
}

//export eglGetCurrentDisplay
func eglGetCurrentDisplay() C.EGLHandle {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	C.tg_set_egl_error(eglSuccess)
	if c := currentContext(); c != nil {
		return c.display
	}
	return 0
}

//export eglGetCurrentSurface
func eglGetCurrentSurface(which C.EGLint) C.EGLHandle {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if which != eglDraw && which != eglRead {
		setError(eglBadParameter)
		return 0
	}
	C.tg_set_egl_error(eglSuccess)
	c := currentContext()
	if c == nil {
		return 0
	}
	s := c.draw
	if which == eglRead {
		s = c.read
	}
	if s == nil {
		return 0
	}
	return C.EGLHandle(s.id)
}

//export eglWaitClient
func eglWaitClient() C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if c := currentContext(); c != nil {
		c.locked(c.g.Finish)
	}
	return ok()
}

//export eglWaitGL
func eglWaitGL() C.EGLBoolean { return eglWaitClient() }

//export eglWaitNative
func eglWaitNative(engine C.EGLint) C.EGLBoolean { return ok() }

//export eglSwapBuffers
func eglSwapBuffers(d, sh C.EGLHandle) C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkDisplay(d, true) {
		return eglFalse
	}
	s := lookupSurface(sh)
	if s == nil {
		return eglFalse
	}
	c := currentContext()
	if c == nil {
		return setError(eglBadContext)
	}
	if c.draw != s {
		return setError(eglBadSurface)
	}
	// A pbuffer has no front buffer: the swap presents nothing (EGL 1.5
	// §3.10.1) but, as every swap does, flushes the context's rendering.
	c.locked(func() { c.g.Flush() })
	if s.win != nil {
		return swapWindow(c, s)
	}
	return ok()
}

//export eglCopyBuffers
func eglCopyBuffers(d, sh, pix C.EGLHandle) C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkDisplay(d, true) || lookupSurface(sh) == nil {
		return eglFalse
	}
	return setError(eglBadNativePixmap)
}

//export eglSwapInterval
func eglSwapInterval(d C.EGLHandle, interval C.EGLint) C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkDisplay(d, true) {
		return eglFalse
	}
	if currentContext() == nil {
		return setError(eglBadContext)
	}
	// Accepted and clamped to [0, 1] (EGL 1.5 §3.10.3). Frames are put into
	// the window when swapped: XPutImage has no vertical blank to wait for.
	return ok()
}

//export eglGetProcAddress
func eglGetProcAddress(name *C.char) unsafe.Pointer {
	return C.tg_proc_address(name)
}

// Fence syncs (EGL 1.5 core): eglCreateSync finishes the current context's
// rendering, so the fence is signalled when created. Correct, if slower
// than a real fence.
var syncs = map[uintptr]bool{}

//export eglCreateSync
func eglCreateSync(d C.EGLHandle, ty C.EGLenum, attribs *C.EGLAttrib) C.EGLHandle {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkDisplay(d, true) {
		return 0
	}
	if ty != eglSyncFence || (attribs != nil && *attribs != eglNone) {
		setError(eglBadAttribute)
		return 0
	}
	c := currentContext()
	if c == nil {
		setError(eglBadMatch)
		return 0
	}
	c.locked(c.g.Finish)
	id := dpy.nextID
	dpy.nextID++
	syncs[id] = true
	C.tg_set_egl_error(eglSuccess)
	return C.EGLHandle(id)
}

func checkSync(d, s C.EGLHandle) bool {
	if !checkDisplay(d, true) {
		return false
	}
	if !syncs[uintptr(s)] {
		setError(eglBadParameter)
		return false
	}
	return true
}

//export eglDestroySync
func eglDestroySync(d, s C.EGLHandle) C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkSync(d, s) {
		return eglFalse
	}
	delete(syncs, uintptr(s))
	return ok()
}

//export eglClientWaitSync
func eglClientWaitSync(d, s C.EGLHandle, flags C.EGLint, timeout C.EGLTime) C.EGLint {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkSync(d, s) {
		return eglFalse
	}
	C.tg_set_egl_error(eglSuccess)
	return eglConditionSatisfied
}

//export eglWaitSync
func eglWaitSync(d, s C.EGLHandle, flags C.EGLint) C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkSync(d, s) {
		return eglFalse
	}
	return ok()
}

//export eglGetSyncAttrib
func eglGetSyncAttrib(d, s C.EGLHandle, attribute C.EGLint, value *C.EGLAttrib) C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkSync(d, s) {
		return eglFalse
	}
	var v int
	switch attribute {
	case eglSyncType:
		v = eglSyncFence
	case eglSyncStatus:
		v = eglSignaled
	case eglSyncCondition:
		v = eglSyncPriorCommands
	default:
		return setError(eglBadAttribute)
	}
	if value != nil {
		*value = C.EGLAttrib(v)
	}
	return ok()
}

//export eglCreateImage
func eglCreateImage(d, ctx C.EGLHandle, target C.EGLenum, buffer C.EGLHandle, attribs *C.EGLAttrib) C.EGLHandle {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if checkDisplay(d, true) {
		setError(eglBadParameter) // no EGLImage targets are supported
	}
	return 0
}

//export eglDestroyImage
func eglDestroyImage(d, img C.EGLHandle) C.EGLBoolean {
	dpy.mu.Lock()
	defer dpy.mu.Unlock()
	if !checkDisplay(d, true) {
		return eglFalse
	}
	return setError(eglBadParameter)
}

#!/usr/bin/env bash
# build.sh DIR — builds tilegpu's C ABI (this Go module, -buildmode=c-shared)
# and writes into DIR:
#   libtilegpu.so                      the library: every EGL 1.5 and GL ES 2.0 entry point
#   libEGL.so.1 libEGL.so              symbolic links to it (dEQP's DT_NEEDED; the name
#   libGLESv2.so.2 libGLESv2.so        dEQP's surfaceless platform and programs dlopen)
# One file behind all four names: the dynamic loader maps a file once, so a
# process gets one Go runtime and one EGL display however it loads them.
# Run a C program on it with LD_LIBRARY_PATH=DIR.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: capi/build.sh DIR" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
command -v go >/dev/null || { echo "build.sh: go not found" >&2; exit 1; }
command -v "${CC:-cc}" >/dev/null || { echo "build.sh: no C compiler (${CC:-cc}); cgo needs one" >&2; exit 1; }
cd "$HERE"
for h in X11/Xlib.h X11/Xutil.h X11/extensions/XShm.h; do
  echo "#include <$h>" | "${CC:-cc}" -E -x c - >/dev/null 2>&1 ||
    echo "build.sh: <$h> not found: building without X11 window surfaces (Debian: libx11-dev libxext-dev)" >&2
done
CGO_ENABLED=1 go build -buildmode=c-shared -trimpath \
  -ldflags "-extldflags=-Wl,-soname,libtilegpu.so" -o "$OUT/libtilegpu.so" .
rm -f "$OUT/libtilegpu.h" # cgo's header has tg.h's types, not the Khronos headers'
for n in libEGL.so.1 libEGL.so libGLESv2.so.2 libGLESv2.so; do
  ln -sf libtilegpu.so "$OUT/$n"
done
echo "build.sh: $OUT/libtilegpu.so (+ libEGL.so.1 libEGL.so libGLESv2.so.2 libGLESv2.so)"

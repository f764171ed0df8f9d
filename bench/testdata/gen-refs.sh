#!/usr/bin/env bash
# gen-refs.sh — regenerates the llvmpipe reference images the bench tests compare against.
#
# The images are produced by ../shared/bench/llvmpipe/glbench.c (the authoritative scene definition) on Mesa's
# llvmpipe. The tests render smaller versions of the scenes to stay fast, so this script compiles a temporary copy
# of glbench.c with the framebuffer size and the sphere resolution changed (sed on the #defines; nothing is
# committed but the PNGs). Needs Debian packages libegl-dev libgles-dev libegl-mesa0 libgl1-mesa-dri zlib1g-dev.
#
# Usage (from the project root): bash bench/testdata/gen-refs.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
src=$root/../shared/bench/llvmpipe/glbench.c
out=$root/bench/testdata
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# W H STACKS SLICES: the test size (1/6 of 1920x1080) and a 100x200 sphere.
W=320 H=180 ST=100 SL=200
sed -e "s/^#define W 1920/#define W $W/" -e "s/^#define H 1080/#define H $H/" \
    -e "s/^#define STACKS 500/#define STACKS $ST/" -e "s/^#define SLICES 1000/#define SLICES $SL/" \
    -e 's|(float)W / H|(float)1920 / 1080|' "$src" >"$work/glbench.c"
grep -q "#define W $W" "$work/glbench.c" || { echo "gen-refs: could not patch glbench.c" >&2; exit 1; }
gcc -O2 -o "$work/glbench" "$work/glbench.c" -lEGL -lGLESv2 -lz -lm
for s in fill blend tex tris; do
  LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=llvmpipe "$work/glbench" "$s" 1 "$out/$s-${W}x${H}-llvmpipe.png" | tee "$out/$s-${W}x${H}-llvmpipe.txt"
done

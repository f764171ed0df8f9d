#!/usr/bin/env bash
# deqp.sh — runs the Khronos dEQP-GLES2 executable (../shared/conformance/deqp
# beside the repository, or $DEQP_DIR) against capi/build.sh's libraries.
#
#   capi/deqp.sh [-expect-pass] [CASELIST] [OUTDIR]
#     CASELIST      a file of case names (default: the whole GLES2 mustpass list)
#     OUTDIR        results.txt, summary.txt, run.log (default: $TMPDIR/tilegpu-deqp)
#     -expect-pass  exit 1 unless every listed case reports Pass (CI)
# Env: LIBDIR (use libraries already built there instead of building),
#      MS_CONFIG (rgba8888d24s8ms4: the config of the multisample cases, below),
#      and run.sh's: CONFIG, JOBS, CHUNK, SAMPLE_EVERY, CHUNK_TIMEOUT, KEEP_LOGS, DEQP_ARGS.
# Unless CONFIG is set, the cases of dEQP-GLES2.functional.multisample run in
# a second pass with the 4-sample config MS_CONFIG (they need a multisampled
# default framebuffer and report NotSupported with the 0-sample one), as
# Android's CTS runs the GLES2 multisample cases with rgba8888d24s8ms4; the
# two passes' results are merged into OUTDIR/results.txt in caselist order
# (OUTDIR/ms4 holds the second pass's own logs).
# testdata/deqp-ci.txt (the subset .ci/run asserts, 1,471 cases, ~1 min) is
# every ~12th passing case of each group of a full run, without the
# timing-based flush_finish group, plus every multisample,
# multisampled_render_to_texture and debug_marker case, the clip_control
# state cases, the wide point/line clipping, compressed sub-image and
# line interpolation cases.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DEQP_DIR=${DEQP_DIR:-$HERE/../../shared/conformance/deqp}
expect=0
if [ "${1:-}" = -expect-pass ]; then expect=1; shift; fi
[ -x "$DEQP_DIR/run.sh" ] || { echo "deqp.sh: no dEQP at $DEQP_DIR (set DEQP_DIR)" >&2; exit 1; }
CASELIST=$(realpath "${1:-$DEQP_DIR/gles2-mustpass.txt}")
OUT=${2:-${TMPDIR:-/tmp}/tilegpu-deqp}
if [ -z "${LIBDIR:-}" ]; then
  LIBDIR=$(mktemp -d "${TMPDIR:-/tmp}/tilegpu-lib.XXXXXX")
  trap 'rm -rf "$LIBDIR"' EXIT
  "$HERE/build.sh" "$LIBDIR" >&2
fi
LIBDIR=$(realpath "$LIBDIR")
[ -e "$LIBDIR/libEGL.so.1" ] || { echo "deqp.sh: $LIBDIR has no libEGL.so.1" >&2; exit 1; }
rm -f "$OUT/results.txt"
export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
ms='^dEQP-GLES2\.functional\.multisample\.'
if [ -z "${CONFIG:-}" ] && grep -qE "$ms" "$CASELIST"; then
  mkdir -p "$OUT/ms4"
  grep -vE "$ms" "$CASELIST" > "$OUT/cases-ms0.txt" || true
  grep -E "$ms" "$CASELIST" > "$OUT/ms4/cases.txt"
  if [ -s "$OUT/cases-ms0.txt" ]; then
    "$DEQP_DIR/run.sh" "$OUT/cases-ms0.txt" "$OUT"
    mv "$OUT/results.txt" "$OUT/results-ms0.txt"
  else
    : > "$OUT/results-ms0.txt"
  fi
  CONFIG=${MS_CONFIG:-rgba8888d24s8ms4} "$DEQP_DIR/run.sh" "$OUT/ms4/cases.txt" "$OUT/ms4"
  # Merge in caselist order.
  awk 'FILENAME != ARGV[ARGC-1] { st[$1] = $2; next } ($1 in st) { print $1, st[$1] }' \
    "$OUT/results-ms0.txt" "$OUT/ms4/results.txt" "$CASELIST" > "$OUT/results.txt"
  echo "deqp.sh: merged $(grep -c . "$OUT/results.txt") results (multisample cases with ${MS_CONFIG:-rgba8888d24s8ms4})" | tee -a "$OUT/run.log"
  python3 "$DEQP_DIR/summarize.py" "$OUT/results.txt" | tee "$OUT/summary.txt"
else
  "$DEQP_DIR/run.sh" "$CASELIST" "$OUT"
fi
if ((expect)); then
  want=$(grep -c . "$CASELIST")
  pass=$(awk '$2 == "Pass"' "$OUT/results.txt" | wc -l)
  if [ "$pass" -ne "$want" ]; then
    echo "deqp.sh: $pass of $want cases passed; not passing:" >&2
    awk '$2 != "Pass"' "$OUT/results.txt" >&2
    comm -23 <(grep . "$CASELIST" | sort) <(awk '{print $1}' "$OUT/results.txt" | sort) | sed 's/$/ (no result)/' >&2
    exit 1
  fi
  echo "deqp.sh: all $want cases passed"
fi

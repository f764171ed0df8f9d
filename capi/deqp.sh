#!/usr/bin/env bash
# deqp.sh — runs the Khronos dEQP-GLES2 executable (../shared/conformance/deqp
# beside the repository, or $DEQP_DIR) against capi/build.sh's libraries.
#
#   capi/deqp.sh [-expect-pass] [CASELIST] [OUTDIR]
#     CASELIST      a file of case names (default: the whole GLES2 mustpass list)
#     OUTDIR        results.txt, summary.txt, run.log (default: $TMPDIR/tilegpu-deqp)
#     -expect-pass  exit 1 unless every listed case reports Pass (CI)
# Env: LIBDIR (use libraries already built there instead of building),
#      and run.sh's: JOBS, CHUNK, SAMPLE_EVERY, CHUNK_TIMEOUT, KEEP_LOGS, DEQP_ARGS.
# testdata/deqp-ci.txt (the subset .ci/run asserts, 1,431 cases, ~30 s) is
# every ~12th passing case of each group of a full run, without the
# timing-based flush_finish group.
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
LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$DEQP_DIR/run.sh" "$CASELIST" "$OUT"
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

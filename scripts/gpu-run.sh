#!/usr/bin/env bash
# Runs on the GPU runner, from the repository root, with .gpu/ carried (see
# gpu-prepare.sh). Writes everything to $OUT.
#
#   scripts/gpu-run.sh test     # nvcc-build the kernels, run every GPU test on them
#   scripts/gpu-run.sh bench    # peer cuBLAS timing, then our bench beside it (+ sweep)
#
# The test step leaves kernels.tgz (fatbins + manifest) in $OUT to commit.
set -uo pipefail
OUT=${OUT:-/tmp/gemmroute-out}
mkdir -p "$OUT"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels
case "${1:-}" in
test)
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
  LOGDIR=$OUT GEN=.gpu/gen bash kernels/build.sh 2>&1 | tee "$OUT/build.log" || exit 1
  tar czf "$OUT/kernels.tgz" kernels/manifest.json kernels/images/*.fatbin
  .gpu/dispatch.test -test.v -test.timeout 540s ${TESTRUN:+-test.run "$TESTRUN"} >"$OUT/gputest.log" 2>&1
  rc=$?
  grep -E '^(--- |ok|FAIL|PASS)|checked|gpu_test.go' "$OUT/gputest.log" | head -150
  exit $rc
  ;;
bench)
  shapes=${SHAPES:-.gpu/shapes-llama3-8b.csv}
  PYTHONUNBUFFERED=1 python3 .gpu/peer_cublas.py "$shapes" "$OUT/peer.csv" >"$OUT/peer.log" 2>&1 || { tail "$OUT/peer.log"; exit 1; }
  head -1 "$OUT/peer.log"
  .gpu/autotune bench -shapes "$shapes" -peer "$OUT/peer.csv" -csv "$OUT/bench.csv" ${SWEEP:+-sweep "$OUT/sweep.csv"} 2>&1 | tee "$OUT/bench.log"
  ;;
*)
  echo "usage: scripts/gpu-run.sh test|bench" >&2; exit 2 ;;
esac

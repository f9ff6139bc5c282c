#!/usr/bin/env bash
# Runs on the GPU runner, from the repository root, with .gpu/ carried (see
# gpu-prepare.sh). Writes everything to $OUT (at most 8 files come back).
#
#   scripts/gpu-run.sh test    # run every GPU test on the committed kernels
#                              # (BUILD=1: nvcc-build them here first, into kernels/;
#                              # TESTRUN='^(TestEveryKernelOnAwkwardShapes|TestSplitKDeterministic|TestMoreThan2p31Elements)$/e4m3'
#                              # runs the e4m3 GPU tests alone)
#   scripts/gpu-run.sh peer    # cuBLAS peer timing of $SHAPES only (peer.csv, peer.log)
#   scripts/gpu-run.sh bench   # cuBLAS peer timing, then our bench beside it
#                              # (TABLE=scripts/heuristic.yaml: route by the model alone)
#                              # SHAPES=.gpu/shapes-llama3-8b-e4m3.csv: e4m3 in the three
#                              # scalings against torch._scaled_mm (scripts/peer_cublas.py)
#   scripts/gpu-run.sh tune    # autotune tune over $MODEL (default llama3-8b) bf16
#                              # or the weights of $TUNESHAPES (a shapes CSV), with $TUNEARGS,
#                              # M = 1…$MAXM (default 8192), cuBLAS timed at the same
#                              # points; then bench routing with the new table
#   scripts/gpu-run.sh all     # test, then tune; logs packed into logs.tgz
#
# test with BUILD=1 leaves kernels.tgz (fatbins + manifest) in $OUT; tune leaves
# buckets.yaml (the measured table), report.tgz (tune.md, tune.csv, plots),
# peer.csv and bench.csv (routing with the measured table).
set -uo pipefail
OUT=${OUT:-/tmp/gemmroute-out}
mkdir -p "$OUT"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels
shapes=${SHAPES:-.gpu/shapes-llama3-8b.csv}
roof=() # -peak-fp8 from the peer's measured e4m3 ceiling, once peer has run
peer() { # peer SHAPES.csv: cuBLAS graph-replay times into $OUT/peer.csv; sets roof
  PYTHONUNBUFFERED=1 python3 .gpu/peer_cublas.py "$1" "$OUT/peer.csv" >"$OUT/peer.log" 2>&1 || { tail "$OUT/peer.log"; return 1; }
  head -1 "$OUT/peer.log"
  # The e4m3 dense rate the peer measured (no device preset has one) for e4m3 rooflines.
  local pk8; pk8=$(sed -n '1s/.* e4m3 dense \([0-9][0-9]*\) TFLOP\/s.*/\1e12/p' "$OUT/peer.log")
  roof=(${pk8:+-peak-fp8 "$pk8"})
}
case "${1:-}" in
test)
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
  if [ -n "${BUILD:-}" ]; then
    LOGDIR=$OUT GEN=.gpu/gen bash kernels/build.sh 2>&1 | tee "$OUT/build.log" || exit 1
    tar czf "$OUT/kernels.tgz" kernels/manifest.json kernels/images/*.fatbin
  fi
  # go test runs a package's tests in its directory (testdata paths are relative).
  (cd dispatch && ../.gpu/dispatch.test -test.v -test.timeout 540s ${TESTRUN:+-test.run "$TESTRUN"}) >"$OUT/gputest.log" 2>&1
  rc=$?
  grep -E '^(--- |ok|FAIL|PASS)|checked|gpu_test.go' "$OUT/gputest.log" | head -150
  exit $rc
  ;;
peer)
  peer "$shapes" || exit 1
  tail -n +2 "$OUT/peer.log"
  ;;
bench)
  peer "$shapes" || exit 1
  .gpu/autotune bench -shapes "$shapes" -peer "$OUT/peer.csv" -csv "$OUT/bench.csv" ${roof[@]+"${roof[@]}"} ${TABLE:+-table "$TABLE"} 2>&1 | tee "$OUT/bench.log"
  ;;
tune)
  model=(-model "${MODEL:-llama3-8b}" -max-m "${MAXM:-8192}")
  [ -n "${TUNESHAPES:-}" ] && model=(-shapes "$TUNESHAPES" -max-m "${MAXM:-8192}")
  .gpu/autotune points "${model[@]}" -out .gpu/points.csv || exit 1
  peer .gpu/points.csv || exit 1
  drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
  start=$(date +%s)
  .gpu/autotune "${model[@]}" ${TUNEARGS:-} -out "$OUT/buckets.yaml" -report .gpu/report -peer "$OUT/peer.csv" ${roof[@]+"${roof[@]}"} -driver "$drv" \
    >"$OUT/tune.log" 2>"$OUT/tune-progress.log" || { tail "$OUT/tune.log" "$OUT/tune-progress.log"; exit 1; }
  echo "tune took $(( $(date +%s) - start )) s"; cat "$OUT/tune.log"
  tar czf "$OUT/report.tgz" -C .gpu report
  .gpu/autotune bench -shapes "$shapes" -peer "$OUT/peer.csv" -csv "$OUT/bench.csv" ${roof[@]+"${roof[@]}"} -table "$OUT/buckets.yaml" 2>&1 | tee "$OUT/bench.log"
  ;;
all)
  "$0" test; rc=$?
  [ $rc -eq 0 ] || echo "GPU tests failed (rc $rc); tuning anyway" >&2
  "$0" tune; rc2=$?
  (cd "$OUT" && tar czf logs.tgz --remove-files ./*.log ./*.txt 2>/dev/null)
  exit $(( rc || rc2 ))
  ;;
*)
  echo "usage: scripts/gpu-run.sh test|peer|bench|tune|all" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# Call 1: GPU tests on the committed (nvcc 12.4) kernels; the same kernels built by the runner's nvcc 13.0, benched beside them on the decode shapes.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
start=$(date +%s)
TESTRUN=${TESTRUN:-} timeout 330 bash scripts/gpu-run.sh test; rc=$?
echo "tests rc=$rc in $(( $(date +%s) - start )) s"
grep -E '^--- FAIL|panic|FAIL' "$OUT/gputest.log" | head -30
# nvcc 13.0 build of the same sources, in a copy
r=/tmp/r13; rm -rf $r; mkdir -p $r; cp -r kernels $r/
(cd $r && GEN=$OLDPWD/.gpu/gen LOGDIR=/tmp/p13 bash -c 'mkdir -p /tmp/p13; bash kernels/build.sh') > "$OUT/build13.log" 2>&1 || tail -5 "$OUT/build13.log"
tail -3 "$OUT/build13.log"
s=.gpu/shapes-decode.csv
PYTHONUNBUFFERED=1 timeout 120 python3 .gpu/peer_cublas.py $s "$OUT/peer-decode.csv" > "$OUT/peer-decode.log" 2>&1 || tail -3 "$OUT/peer-decode.log"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels
timeout 100 .gpu/autotune bench -shapes $s -peer "$OUT/peer-decode.csv" -csv "$OUT/bench124.csv" > "$OUT/bench124.log" 2>&1; echo "bench 12.4 rc=$?"
export GEMMROUTE_KERNEL_DIR=$r/kernels
timeout 100 .gpu/autotune bench -shapes $s -peer "$OUT/peer-decode.csv" -csv "$OUT/bench130.csv" > "$OUT/bench130.log" 2>&1; echo "bench 13.0 rc=$?"
tail -4 "$OUT/bench124.log" "$OUT/bench130.log"
echo "total $(( $(date +%s) - start )) s"

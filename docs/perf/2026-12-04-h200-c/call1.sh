# Eighth session, call 1 (written by the seventh session as docs/perf/next/call1.sh): bench what the seventh
# session tuned and could not bench (docs/perf/2026-12-04-h200-b): (a) its call 6's e4m3→bf16 per-tensor entries at
# M = 513…8192 on the e4m3 TMA-store kernels (E; c6/buckets-EC.yaml is the committed table with them spliced in) beside torch._scaled_mm, against the committed table (C), on the
# README's e4m3 shapes and the held-out e4m3 weights; (b) its call 5's 16-bit retune of 1025…2048 (X) against C on the
# shapes between powers of two (M = 1449 rows). Commit each table only if its same-call bench improves.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s); P=docs/perf/2026-12-04-h200-b
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
S=/tmp/e4m3.csv; cp $P/shapes-e4m3-all.csv $S; tail -n +2 scripts/shapes-heldout-e4m3.csv | sed 's/$/,bf16/' >> $S
PYTHONUNBUFFERED=1 timeout 200 python3 scripts/peer_cublas.py $S $OUT/peer-e4m3.csv > /tmp/peer8.log 2>&1; t peer-e4m3 $?; head -1 /tmp/peer8.log
timeout 120 .gpu/autotune bench -shapes $S -peer $OUT/peer-e4m3.csv -csv $OUT/bench-e4m3-E.csv -table $P/c6/buckets-EC.yaml > /tmp/b8.log 2>&1; t bench-E $?
timeout 120 .gpu/autotune bench -shapes $S -peer $OUT/peer-e4m3.csv -csv $OUT/bench-e4m3-C.csv -table buckets.yaml >> /tmp/b8.log 2>&1; t bench-C $?
grep -E "geomean" /tmp/b8.log
S=scripts/shapes-between.csv
PYTHONUNBUFFERED=1 timeout 100 python3 scripts/peer_cublas.py $S $OUT/peer-between.csv > /dev/null 2>&1; t peer-between $?
timeout 120 .gpu/autotune bench -shapes $S -peer $OUT/peer-between.csv -csv $OUT/between-X.csv -table $P/c5/buckets-X.yaml > /tmp/bb.log 2>&1; t between-X $?
timeout 120 .gpu/autotune bench -shapes $S -peer $OUT/peer-between.csv -csv $OUT/between-C.csv -table buckets.yaml >> /tmp/bb.log 2>&1; t between-C $?
grep -E "geomean" /tmp/bb.log; echo "total $(( $(date +%s) - s )) s"

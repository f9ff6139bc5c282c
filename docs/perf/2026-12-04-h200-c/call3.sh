# Eighth session, call 3 (written by the seventh session as docs/perf/next/call3.sh, and point F at call 2's
# table): (a) call 2's f16 entries beside torch.mm in fp16 (docs/perf/next/shapes-llama3-8b-f16.csv), against the
# committed table's model entries in the same call — issue 18's closing bench; (b) issue 22: cuBLASLt's top 8
# algorithms timed beside the committed table's own routes at M = 17…1024 over the corpus (-base-routes, not yet
# timed: give it what is left), for the router-against-kernels-alone bench of the call after.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
F=CALL2_DIR/buckets-F16.yaml; S=docs/perf/next/shapes-llama3-8b-f16.csv
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
PYTHONUNBUFFERED=1 timeout 100 python3 scripts/peer_cublas.py $S $OUT/peer-f16.csv > /tmp/peer16.log 2>&1; t peer-f16 $?; head -1 /tmp/peer16.log
timeout 80 .gpu/autotune bench -shapes $S -peer $OUT/peer-f16.csv -csv $OUT/bench-f16.csv -table $F > /tmp/b16.log 2>&1; t bench-f16 $?
timeout 80 .gpu/autotune bench -shapes $S -peer $OUT/peer-f16.csv -csv $OUT/bench-f16-C.csv -table buckets.yaml >> /tmp/b16.log 2>&1; t bench-f16-C $?
grep -E "geomean" /tmp/b16.log
timeout $(( 570 - ($(date +%s) - s) )) .gpu/autotune tune -shapes docs/perf/2026-12-02-h200-c/corpus7.csv -base-routes -min-m 17 -max-m 1024 \
  -reps 10 -event-calls 10 -out $OUT/buckets-R.yaml -report $OUT/rep -driver "$drv" > /tmp/tune-R.log 2>&1; t tune-R $?
tail -2 /tmp/tune-R.log | tr '\r' '\n' | tail -2; (cd $OUT && cp rep/tune.md tune-R.md; rm -rf rep) 2>/dev/null; echo "total $(( $(date +%s) - s )) s"

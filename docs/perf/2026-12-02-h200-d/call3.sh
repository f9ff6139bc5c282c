# call 3: issue 17 — the corpus's mid-M buckets 65…256 tuned again with the interleaved split-K kernels (ws_wgmma_il
# 128x96 s7 and 128x64 s8: at split 1 a plain 128x64 with 8 stages, which call 1 timed at 16.5 µs for o M = 128
# against 19.0 of the best before) admitted, on call 2's table; our kernels only.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s); D=docs/perf/2026-12-02-h200-c
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
T=docs/perf/2026-12-02-h200-d/c2/buckets-LO.yaml.xz; [ -s $T ] || T=buckets.yaml; echo "base $T"
timeout 400 .gpu/autotune tune -shapes $D/corpus7.csv -min-m 65 -max-m 256 -vendor=false -base $T -out $OUT/buckets-E.yaml \
  -report $OUT/rep -driver "$drv" > $OUT/tune-M.log 2>&1; echo "tune mid M rc=$? $(( $(date +%s) - s )) s"; tail -3 $OUT/tune-M.log
(cd $OUT && cp rep/tune.md tune-M.md; rm -rf rep) 2>/dev/null; echo "total $(( $(date +%s) - s )) s"

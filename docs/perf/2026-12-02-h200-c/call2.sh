# call 2: issue 17 item 5 — the corpus's mid-M buckets (M = 17…512) tuned with the mid-M tiles admitted, our kernels
# alone (-vendor=false, as every kernel floor is measured): seven weights of five families (Llama-3-8B's four,
# qwen2.5-7b.qkv, gemma2-9b.o, falcon-7b.down); the default entries are chosen over them. The other buckets are the
# committed table's (-min-m keeps them). Then, in what time is left, the odd shape (N = 769, K = 5125) tuned again into
# that table now that its repack plans fit the workspace at every M (chunked repack).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s); D=docs/perf/2026-12-02-h200-c
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
timeout 420 .gpu/autotune tune -shapes $D/corpus7.csv -min-m 17 -max-m 512 -vendor=false -reps 10 -event-calls 10 \
  -out $OUT/buckets-mid.yaml -report $OUT/rep -driver "$drv" > $OUT/tune.log 2>&1; echo "tune rc=$? $(( $(date +%s) - s )) s"; tail -4 $OUT/tune.log
(cd $OUT && cp rep/tune.md tune.md 2>/dev/null; cp rep/tune.csv tune.csv 2>/dev/null; rm -rf rep)
left=$(( 585 - ($(date +%s) - s) ))
if [ -s $OUT/buckets-mid.yaml ] && [ $left -gt 60 ]; then
  timeout $left .gpu/autotune tune -shapes scripts/shapes-odd.csv -vendor=false -reps 10 -event-calls 10 -base $OUT/buckets-mid.yaml \
    -out $OUT/buckets-E.yaml -driver "$drv" > $OUT/tune-odd.log 2>&1; echo "odd tune rc=$? $(( $(date +%s) - s )) s"; tail -3 $OUT/tune-odd.log
fi; echo "total $(( $(date +%s) - s )) s"

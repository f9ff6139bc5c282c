# call 4: issue 17 — call 2's large-M tune again (it ran out of its 330 s at 14 of 21 units): buckets 513…4096 of the
# corpus, the TMA-store kernels admitted, fewer replays (-reps 10 -event-calls 10), on call 3's table.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s); D=docs/perf/2026-12-02-h200-c
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
T=docs/perf/2026-12-02-h200-d/c3/buckets-E.yaml.xz
timeout 530 .gpu/autotune tune -shapes $D/corpus7.csv -min-m 513 -max-m 4096 -vendor=false -reps 10 -event-calls 10 -base $T \
  -out $OUT/buckets-F.yaml -report $OUT/rep -driver "$drv" > $OUT/tune-L.log 2>&1; echo "tune large M rc=$? $(( $(date +%s) - s )) s"; tail -2 $OUT/tune-L.log
(cd $OUT && cp rep/tune.md tune-L.md; rm -rf rep) 2>/dev/null; echo "total $(( $(date +%s) - s )) s"

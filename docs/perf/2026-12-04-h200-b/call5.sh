# call 5: issue 17 — retune the corpus at M = 1025…2048 (last tuned in the fourth session, before the TMA-store
# tiles ts 128x128 / 128x64, sk_ts and mc2_ts existed) on call 4's table K, our kernels only, SM clock and power
# logged each second; then the new table (X) and K beside torch.mm on the README's 91 shapes in the same call.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s); P=docs/perf/2026-12-04-h200-b; D=docs/perf/2026-12-02-h200-c
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -l 1 > $OUT/clocks.csv 2>&1 &
timeout 210 .gpu/autotune tune -shapes $D/corpus7.csv -min-m 1025 -max-m 2048 -vendor=false -reps 10 -event-calls 10 -base $P/c1/buckets-K.yaml \
  -out $OUT/buckets-X.yaml -report $OUT/rep -driver "$drv" > /tmp/tune-X.log 2>&1; echo "tune rc=$? $(( $(date +%s) - s )) s"
tail -2 /tmp/tune-X.log | tr '\r' '\n' | tail -2; (cd $OUT && cp rep/tune.md tune-X.md; cp rep/tune.csv tune-X.csv; rm -rf rep) 2>/dev/null; kill %1
S=docs/perf/2026-12-01-h200-mc/bench-shapes.csv
if [ -s $OUT/buckets-X.yaml ]; then
PYTHONUNBUFFERED=1 timeout 60 python3 scripts/peer_cublas.py $S $OUT/peer.csv > /tmp/peer.log 2>&1; echo "peer rc=$? $(( $(date +%s) - s )) s"
timeout 60 .gpu/autotune bench -shapes $S -peer $OUT/peer.csv -csv $OUT/bench-X.csv -table $OUT/buckets-X.yaml > /tmp/bench.log 2>&1; echo "bench X rc=$? $(( $(date +%s) - s )) s"
timeout 60 .gpu/autotune bench -shapes $S -peer $OUT/peer.csv -csv $OUT/bench-K.csv -table $P/c1/buckets-K.yaml >> /tmp/bench.log 2>&1; echo "bench K rc=$? $(( $(date +%s) - s )) s"
grep -E "geomean|lowest|summary" /tmp/bench.log | head; fi; echo "total $(( $(date +%s) - s )) s"

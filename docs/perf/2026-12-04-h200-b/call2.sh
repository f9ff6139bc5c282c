# call 2: call 1's table (T: M = 17…256 retuned with the swap TMA-store tiles and call 0's new kernels admitted) and
# the committed one (C) beside cuBLAS (torch.mm) in the same call: the README's 91 shapes, then the 64 shapes
# between powers of two (scripts/shapes-between.csv), where a bucket's one kernel serves neither edge.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
S=docs/perf/2026-12-01-h200-mc/bench-shapes.csv; T=docs/perf/2026-12-04-h200-b/c1/buckets-M.yaml.xz
PYTHONUNBUFFERED=1 timeout 110 python3 scripts/peer_cublas.py $S $OUT/peer.csv > /tmp/peer.log 2>&1; echo "peer rc=$? $(( $(date +%s) - s )) s"; head -1 /tmp/peer.log
timeout 100 .gpu/autotune bench -shapes $S -peer $OUT/peer.csv -csv $OUT/bench-T.csv -table $T > $OUT/bench.log 2>&1; echo "bench T rc=$? $(( $(date +%s) - s )) s"
timeout 100 .gpu/autotune bench -shapes $S -peer $OUT/peer.csv -csv $OUT/bench-C.csv -table buckets.yaml >> $OUT/bench.log 2>&1; echo "bench C rc=$? $(( $(date +%s) - s )) s"
grep -E "geomean|lowest|summary" $OUT/bench.log | head
S=scripts/shapes-between.csv
PYTHONUNBUFFERED=1 timeout 100 python3 scripts/peer_cublas.py $S $OUT/peer-between.csv > /dev/null 2>&1; echo "peer-between rc=$? $(( $(date +%s) - s )) s"
timeout 150 .gpu/autotune bench -shapes $S -peer $OUT/peer-between.csv -csv $OUT/between-T.csv -table $T > $OUT/between.log 2>&1; echo "between T rc=$? $(( $(date +%s) - s )) s"
timeout 150 .gpu/autotune bench -shapes $S -peer $OUT/peer-between.csv -csv $OUT/between-C.csv -table buckets.yaml >> $OUT/between.log 2>&1; echo "between C rc=$? $(( $(date +%s) - s )) s"
grep -E "geomean|lowest|summary" $OUT/between.log | head; echo "total $(( $(date +%s) - s )) s"

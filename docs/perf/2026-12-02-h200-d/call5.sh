# call 5: call 4's table (F: odd shape, mid-M 65…256 and large-M 513…4096 retuned with the TMA-store and interleaved
# kernels admitted) and the committed one (C) benched beside cuBLAS (torch.mm) in the same call on the README's 91 shapes.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
S=docs/perf/2026-12-01-h200-mc/bench-shapes.csv; cp docs/perf/2026-12-02-h200-d/c4/buckets-F.yaml.xz $OUT/buckets-F.yaml
PYTHONUNBUFFERED=1 timeout 110 python3 scripts/peer_cublas.py $S $OUT/peer.csv > $OUT/peer.log 2>&1; echo "peer rc=$? $(( $(date +%s) - s )) s"; head -1 $OUT/peer.log
timeout 100 .gpu/autotune bench -shapes $S -peer $OUT/peer.csv -csv $OUT/bench-F.csv -table $OUT/buckets-F.yaml > $OUT/bench.log 2>&1; echo "bench F rc=$? $(( $(date +%s) - s )) s"
timeout 100 .gpu/autotune bench -shapes $S -peer $OUT/peer.csv -csv $OUT/bench-C.csv -table buckets.yaml >> $OUT/bench.log 2>&1; echo "bench C rc=$? $(( $(date +%s) - s )) s"
grep -E "geomean|lowest|summary" $OUT/bench.log | head; echo "total $(( $(date +%s) - s )) s"

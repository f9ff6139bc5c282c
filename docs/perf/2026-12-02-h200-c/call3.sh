# call 3: call 2's table (E: the corpus's mid-M buckets and, if its tune finished, the odd shape's) and the committed
# one (C) benched beside cuBLAS (torch.mm) in the
# same call on the 91 shapes of the README's figures (Llama-3-8B, eight weights not in the tune, the odd shape, the
# floor probes), our kernels alone.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s); D=docs/perf/2026-12-02-h200-c
S=docs/perf/2026-12-01-h200-mc/bench-shapes.csv; drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
T=$D/c2/buckets-E.yaml; [ -s $T ] || T=$D/c2/buckets-mid.yaml; cp $T $OUT/buckets-E.yaml
PYTHONUNBUFFERED=1 timeout 110 python3 scripts/peer_cublas.py $S $OUT/peer.csv > $OUT/peer.log 2>&1; echo "peer rc=$? $(( $(date +%s) - s )) s"; head -1 $OUT/peer.log
timeout 100 .gpu/autotune bench -shapes $S -peer $OUT/peer.csv -csv $OUT/bench-E.csv -table $OUT/buckets-E.yaml > $OUT/bench.log 2>&1; echo "bench E rc=$? $(( $(date +%s) - s )) s"
timeout 100 .gpu/autotune bench -shapes $S -peer $OUT/peer.csv -csv $OUT/bench-C.csv -table buckets.yaml >> $OUT/bench.log 2>&1; echo "bench C rc=$? $(( $(date +%s) - s )) s"
grep -E "geomean|lowest|summary" $OUT/bench.log | head; echo "total $(( $(date +%s) - s )) s"

# call 6: issue 18 §2 — call 1's measured e4m3→bf16 128-block entries (buckets-B128.yaml) benched beside
# torch._scaled_mm with the same block scales on Llama-3-8B (the block128 rows of scripts/shapes-llama3-8b-e4m3.csv).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s); S=docs/perf/2026-12-04-h200/shapes-e4m3-block128.csv
PYTHONUNBUFFERED=1 timeout 100 python3 scripts/peer_cublas.py $S $OUT/peer-b128.csv > $OUT/peer-b128.log 2>&1; echo "peer rc=$? $(( $(date +%s) - s )) s"; head -1 $OUT/peer-b128.log
timeout 100 .gpu/autotune bench -shapes $S -peer $OUT/peer-b128.csv -csv $OUT/bench-b128.csv -table docs/perf/2026-12-04-h200/c1/buckets-B128.yaml.xz > $OUT/bench-b128.log 2>&1; echo "bench rc=$? $(( $(date +%s) - s )) s"
timeout 100 .gpu/autotune bench -shapes $S -peer $OUT/peer-b128.csv -csv $OUT/bench-b128-C.csv -table buckets.yaml >> $OUT/bench-b128.log 2>&1; echo "bench C rc=$? $(( $(date +%s) - s )) s"
grep -E "geomean|lowest|summary" $OUT/bench-b128.log | head; echo "total $(( $(date +%s) - s )) s"

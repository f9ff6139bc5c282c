# call 6: issue 18 §2 — the committed e4m3 table (per-tensor and per-row measured, 128-block heuristic) benched beside
# torch._scaled_mm of the same scaling on Llama-3-8B (scripts/shapes-llama3-8b-e4m3.csv: tensor, row, block128 rows).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s); S=scripts/shapes-llama3-8b-e4m3.csv
PYTHONUNBUFFERED=1 timeout 150 python3 scripts/peer_cublas.py $S $OUT/peer8.csv > $OUT/peer8.log 2>&1; echo "peer rc=$? $(( $(date +%s) - s )) s"; head -1 $OUT/peer8.log
timeout 150 .gpu/autotune bench -shapes $S -peer $OUT/peer8.csv -csv $OUT/bench8.csv > $OUT/bench8.log 2>&1; echo "bench rc=$? $(( $(date +%s) - s )) s"
grep -E "geomean|lowest|summary|against" $OUT/bench8.log | head; echo "total $(( $(date +%s) - s )) s"

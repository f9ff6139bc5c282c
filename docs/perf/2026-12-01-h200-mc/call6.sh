# call 6: the committed table (buckets ≤ 1024 from the previous tune, ≥ 1025 and three new weights from call 5's) beside cuBLAS
# (torch.mm, same graph-replay method, same call): Llama-3-8B, held-out weights, odd shapes, the floor probes
set -uo pipefail
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
PYTHONUNBUFFERED=1 timeout 100 python3 .gpu-bin/peer_cublas.py .gpu-bin/bench.csv $OUT/peer.csv > $OUT/peer.log 2>&1; echo "peer rc=$? $(( $(date +%s) - s )) s"; head -1 $OUT/peer.log
timeout 120 .gpu-bin/autotune bench -shapes .gpu-bin/bench.csv -peer $OUT/peer.csv -csv $OUT/bench.csv -table .gpu-bin/buckets.yaml > $OUT/bench.log 2>&1; echo "bench rc=$? $(( $(date +%s) - s )) s"

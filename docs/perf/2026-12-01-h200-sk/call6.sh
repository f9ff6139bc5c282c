# call 6: table C of merge.py (every bf16 sm_90 entry's buckets ≤ 256 from the committed table, ≥ 257 from call 4's
# tune) beside cuBLAS (torch.mm, same method, same call), the same shapes as call 5.
set -uo pipefail
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
PYTHONUNBUFFERED=1 timeout 110 python3 .gpu/peer_cublas.py .gpu-bin/bench.csv $OUT/peer.csv > $OUT/peer.log 2>&1; echo "peer rc=$? $(( $(date +%s) - s )) s"; head -1 $OUT/peer.log
timeout 130 .gpu-bin/autotune bench -shapes .gpu-bin/bench.csv -peer $OUT/peer.csv -csv $OUT/bench-C.csv -table .gpu-bin/buckets-C.yaml > $OUT/bench-C.log 2>&1; echo "bench C rc=$? $(( $(date +%s) - s )) s"

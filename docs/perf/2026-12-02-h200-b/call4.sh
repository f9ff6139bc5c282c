# call 4: the new mid-M tiles into the table for the two Llama-3-8B weights they help most (kbench, call 2):
# a bf16 tune of qkv and o up to M = 512 with the new kernels admitted; splice.py puts its buckets 17…512 into the
# committed table (D); cuBLAS (torch.mm) and both tables benched on Llama-3-8B's shapes in the same call.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s); D=docs/perf/2026-12-02-h200-b
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
timeout 240 .gpu/autotune tune -shapes $D/qkv-o.csv -max-m 512 -reps 10 -event-calls 10 -out $OUT/buckets-tuned.yaml \
  -driver "$drv" > $OUT/tune.log 2>&1; echo "tune rc=$? $(( $(date +%s) - s )) s"; tail -2 $OUT/tune.log
python3 $D/splice.py buckets.yaml $OUT/buckets-tuned.yaml 17 512 $OUT/buckets-D.yaml > $OUT/splice.log 2>&1; echo "splice rc=$?"; cat $OUT/splice.log
PYTHONUNBUFFERED=1 timeout 70 python3 .gpu/peer_cublas.py .gpu/shapes-llama3-8b.csv $OUT/peer.csv > $OUT/peer.log 2>&1; echo "peer rc=$? $(( $(date +%s) - s )) s"; head -1 $OUT/peer.log
timeout 60 .gpu/autotune bench -shapes .gpu/shapes-llama3-8b.csv -peer $OUT/peer.csv -csv $OUT/bench-C.csv > $OUT/bench.log 2>&1; echo "bench C rc=$? $(( $(date +%s) - s )) s"
timeout 60 .gpu/autotune bench -shapes .gpu/shapes-llama3-8b.csv -peer $OUT/peer.csv -csv $OUT/bench-D.csv -table $OUT/buckets-D.yaml >> $OUT/bench.log 2>&1; echo "bench D rc=$? $(( $(date +%s) - s )) s"

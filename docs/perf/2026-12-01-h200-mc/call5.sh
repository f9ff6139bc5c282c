# call 5 (call 4's tune of 20 weights ran past its 560 s limit at 72 %): tune bf16 over 7 weights of 4 families
# (Llama-3-8B's four, qwen2.5-7b.qkv, gemma2-9b.o, falcon-7b.down), then the new table beside cuBLAS
# (torch.mm, same graph-replay method, same call) on Llama-3-8B, the held-out weights, odd shapes and the floor probes
set -uo pipefail
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
timeout 345 .gpu-bin/autotune tune -shapes .gpu-bin/corpus7.csv -prune 1.5 -keep 1.05 -splits 1,2,4 -max-m 4096 -reps 10 -event-calls 10 \
  -out $OUT/buckets.yaml -report $OUT/report -driver "$drv" > $OUT/tune.log 2> $OUT/tune-progress.log; echo "tune rc=$? $(( $(date +%s) - s )) s"; tail -3 $OUT/tune.log
[ -f $OUT/buckets.yaml ] || exit 1
PYTHONUNBUFFERED=1 timeout 100 python3 .gpu-bin/peer_cublas.py .gpu-bin/bench.csv $OUT/peer.csv > $OUT/peer.log 2>&1; echo "peer rc=$? $(( $(date +%s) - s )) s"; head -1 $OUT/peer.log
timeout 120 .gpu-bin/autotune bench -shapes .gpu-bin/bench.csv -peer $OUT/peer.csv -csv $OUT/bench.csv -table $OUT/buckets.yaml > $OUT/bench.log 2>&1; echo "bench rc=$? $(( $(date +%s) - s )) s"; tail -30 $OUT/bench.log
(cd $OUT && tar czf report.tgz report && rm -rf report)
echo "total $(( $(date +%s) - s )) s"

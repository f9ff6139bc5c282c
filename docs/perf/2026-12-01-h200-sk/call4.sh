# call 4: tune bf16 over the 7 weights of call 5 of 2026-12-01 (corpus7.csv: Llama-3-8B's four, qwen2.5-7b.qkv,
# gemma2-9b.o, falcon-7b.down) with every kernel, the stream-K ones (experimental) among the candidates
set -uo pipefail
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
timeout 570 .gpu-bin/autotune tune -shapes .gpu-bin/corpus7.csv -prune 1.5 -keep 1.05 -splits 1,2,4 -max-m 4096 -reps 10 -event-calls 10 \
  -out $OUT/buckets.yaml -report $OUT/report -driver "$drv" > $OUT/tune.log 2> $OUT/tune-progress.log; echo "tune rc=$? $(( $(date +%s) - s )) s"
tail -3 $OUT/tune.log; tail -2 $OUT/tune-progress.log
(cd $OUT && tar czf report.tgz report && rm -rf report)

# call 4: tune bf16 over the corpus (scripts/shapes-corpus.csv: 20 weights of 9 model families), every kernel including the multicast ones
set -uo pipefail
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
timeout 560 .gpu-bin/autotune tune -shapes .gpu-bin/shapes-corpus.csv -prune 1.5 -keep 1.05 -splits 1,2,4 -max-m 4096 -reps 10 -event-calls 10 \
  -out $OUT/buckets.yaml -report .gpu/report -driver "$drv" > $OUT/tune.log 2> $OUT/tune-progress.log; echo "tune rc=$? $(( $(date +%s) - s )) s"
tail -5 $OUT/tune.log; tail -3 $OUT/tune-progress.log
tar czf $OUT/report.tgz -C .gpu report

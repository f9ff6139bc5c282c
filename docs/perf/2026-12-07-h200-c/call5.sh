# Twenty-first session, call 5 (any card; what 370 s of device time left after eleven requests without a machine
# allow): call4.sh's tune alone — the corpus's seven weights at M = 2049…4096 with the middle-aware autotune, our
# kernels only, a narrow screen — and no bench: `autotune compare` against the committed table (whose entries the
# H100 measured this morning) says per bucket what moved. Prediction: call4.sh's (the routes leave pp_mc2 128x128).
# usage: [LIMIT=SECONDS] bash call5.sh   (carry .gpu-bin: r.txz)
set -uo pipefail
s=$(date +%s); L=${LIMIT:-250}
python3 -c "import tarfile; tarfile.open('.gpu-bin/r.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; mkdir -p /tmp/c; drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
timeout $(( L - 15 )) .gpu/autotune tune -shapes docs/perf/2026-12-02-h200-c/corpus7.csv -vendor=false -prune 1.5 -keep 1.15 \
  -reps 10 -event-calls 10 -driver "$drv" -min-m 2049 -max-m 4096 -base buckets.yaml -out $OUT/buckets-hi.yaml -report /tmp/c/rhi \
  > /tmp/c/tune-hi.log 2>&1; echo "tune rc=$? $(( $(date +%s) - s )) s"; tail -3 /tmp/c/tune-hi.log
tar czf $OUT/c.tgz -C /tmp/c --exclude='*.png' .
echo "total $(( $(date +%s) - s )) s"

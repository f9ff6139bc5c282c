# call 3: issue 17 — retune the corpus (seven weights of five model families) at M = 129…1024 with the TMA-store
# mid-M and stream-K tiles admitted (call 2: ts / sk_ts best at 11 of 16 points, o M = 512 ×0.99, down M = 512
# ×1.16, against the committed routes' 0.88 / 0.93 in the 2026-12-02 bench), on the committed table, our kernels
# only; two processes (129…512, then 513…1024 on the first's table) so that one overrun loses half.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; s=$(date +%s); D=docs/perf/2026-12-02-h200-c
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
timeout 300 .gpu/autotune tune -shapes $D/corpus7.csv -min-m 129 -max-m 512 -vendor=false -reps 10 -event-calls 10 \
  -out $OUT/buckets-M.yaml -report $OUT/rep -driver "$drv" > $OUT/tune-M.log 2>&1; t tune-M $?; tail -2 $OUT/tune-M.log | tr '\r' '\n' | tail -2
(cd $OUT && cp rep/tune.md tune-M.md; rm -rf rep) 2>/dev/null
B=$OUT/buckets-M.yaml; [ -s $B ] || B=buckets.yaml
timeout $(( 575 - ($(date +%s) - s) )) .gpu/autotune tune -shapes $D/corpus7.csv -min-m 513 -max-m 1024 -vendor=false -reps 10 -event-calls 10 \
  -base $B -out $OUT/buckets-L.yaml -report $OUT/rep -driver "$drv" > $OUT/tune-L.log 2>&1; t tune-L $?; tail -2 $OUT/tune-L.log | tr '\r' '\n' | tail -2
(cd $OUT && cp rep/tune.md tune-L.md; rm -rf rep) 2>/dev/null; echo "total $(( $(date +%s) - s )) s"

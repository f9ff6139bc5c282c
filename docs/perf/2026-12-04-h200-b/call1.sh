# call 1: issue 17 — retune the corpus (seven weights of five model families, 2026-12-02-h200-c/corpus7.csv) at
# M = 17…256 with the swap TMA-store tiles admitted (sixth session: correct, 0.4–2.8 µs faster than their register
# twins at split 1) and whichever of call 0's new kernels passed; on the committed table, our kernels only; two
# processes (17…64, then 65…256 on the first's table). The SM clock and power are logged each second beside it
# (the sixth session saw graph-replay medians above per-call event times at M = 1024).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; s=$(date +%s); D=docs/perf/2026-12-02-h200-c
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -l 1 > $OUT/clocks.csv 2>&1 &
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
timeout 280 .gpu/autotune tune -shapes $D/corpus7.csv -min-m 17 -max-m 64 -vendor=false -reps 10 -event-calls 10 \
  -out $OUT/buckets-S.yaml -report $OUT/rep -driver "$drv" > $OUT/tune-S.log 2>&1; t tune-S $?; tail -2 $OUT/tune-S.log | tr '\r' '\n' | tail -2
(cd $OUT && cp rep/tune.md tune-S.md; cp rep/tune.csv tune-S.csv; rm -rf rep) 2>/dev/null
B=$OUT/buckets-S.yaml; [ -s $B ] || B=buckets.yaml
timeout $(( 570 - ($(date +%s) - s) )) .gpu/autotune tune -shapes $D/corpus7.csv -min-m 65 -max-m 256 -vendor=false -reps 10 -event-calls 10 \
  -base $B -out $OUT/buckets-M.yaml -report $OUT/rep -driver "$drv" > $OUT/tune-M.log 2>&1; t tune-M $?; tail -2 $OUT/tune-M.log | tr '\r' '\n' | tail -2
(cd $OUT && cp rep/tune.md tune-M.md; cp rep/tune.csv tune-M.csv; rm -rf rep) 2>/dev/null; kill %1; echo "total $(( $(date +%s) - s )) s"

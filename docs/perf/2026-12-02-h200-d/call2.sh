# call 2: issue 17 — the engine's awkward table again on every kernel after the planner's fix (a TMA-store kernel
# needs N·2 a multiple of 16: call 1's m7-lda, N = 130, wrote columns 130…135 of the LDC padding); then the corpus's
# large-M buckets (513…4096, the 10 TMA-store kernels admitted where they pass the gate) and the odd shape, tuned
# with our kernels only (the vendor's cuBLASLt is issue 22's column), each tune on the previous one's table.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s); D=docs/perf/2026-12-02-h200-c
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
(cd dispatch && timeout 110 ../.gpu/dispatch.test -test.v -test.timeout 100s -test.run '^TestEveryKernelOnAwkwardShapes$') > $OUT/awkward.log 2>&1; t awkward $?
grep -E '^(--- |    --- |ok|FAIL|PASS)|wrong\)|kernels \(' $OUT/awkward.log | head -24
timeout 330 .gpu/autotune tune -shapes $D/corpus7.csv -min-m 513 -max-m 4096 -vendor=false -out $OUT/buckets-L.yaml \
  -report $OUT/repL -driver "$drv" > $OUT/tune-L.log 2>&1; t "tune large M" $?; tail -3 $OUT/tune-L.log
T=$OUT/buckets-L.yaml; [ -s $T ] || T=buckets.yaml
timeout 120 .gpu/autotune tune -shapes scripts/shapes-odd.csv -vendor=false -base $T -out $OUT/buckets-LO.yaml \
  -report $OUT/repO -driver "$drv" > $OUT/tune-O.log 2>&1; t "tune odd" $?; tail -3 $OUT/tune-O.log
(cd $OUT && cp repL/tune.md tune-L.md; cp repO/tune.md tune-O.md; rm -rf repL repO) 2>/dev/null; echo "total $(( $(date +%s) - s )) s"

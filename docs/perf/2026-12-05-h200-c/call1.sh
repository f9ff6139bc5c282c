# Eleventh session, call 1: issue 17 — the wave-fitted swap tiles' first full run (docs/perf/2026-12-05-h200-b/callB.sh:
# kbench check against float64, memcheck, the engine's kernel-wide GPU tests, the edges beside cuBLAS), then, in the same
# call, the corpus retune of bf16 at M = 257…2048 with them admitted (the tuner's own correctness gate and timing decide;
# three processes, each on the previous one's table, so that an overrun loses one range).
# Predictions (written before the run): o 4096x4096 M = 513 swap_wf_ts 136x128 ≤ 28 µs (H200); o M = 1025 176x192 ≤ 54 µs;
# qkv 6144x4096 M = 513 136x192 ≥ 5 % faster than our best large tile; the tune admits wf tiles in the 257…512 and
# 513…1024 buckets for at least three of the seven weights.
# Needs in the carried tarball: .gpu/kbench (scripts/kbench/build.sh), .gpu/dispatch.test and .gpu/autotune
# (scripts/gpu-prepare.sh).
set -uo pipefail
s=$(date +%s); bash docs/perf/2026-12-05-h200-b/callB.sh
D=docs/perf/2026-12-02-h200-c; drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
B=buckets.yaml
for r in M:257:512 L:513:1024 X:1025:2048; do
  IFS=: read n lo hi <<< "$r"; left=$(( 585 - ($(date +%s) - s) )); [ $left -lt 40 ] && { echo "no time for $n"; break; }
  timeout $left .gpu/autotune tune -shapes $D/corpus7.csv -min-m $lo -max-m $hi -vendor=false -reps 10 -event-calls 10 \
    -base $B -out $OUT/buckets-$n.yaml -report /tmp/rep -driver "$drv" > /tmp/tune-$n.log 2>&1; t tune-$n $?
  tail -2 /tmp/tune-$n.log | tr '\r' '\n' | tail -1; cp /tmp/rep/tune.md $OUT/tune-$n.md 2>/dev/null; rm -rf /tmp/rep
  [ -s $OUT/buckets-$n.yaml ] && B=$OUT/buckets-$n.yaml
done
grep -c swap_wf_ts $B; echo "total $(( $(date +%s) - s )) s"

# Eleventh session, call 3: call 1's corpus retune (bf16, M = 257…2048, three processes on each other's tables) without
# its kernel checks (they passed in call 1), on the card the committed table was measured on, then call 2's bench of
# the result beside the committed table and torch.mm (call 1 and 2 ran on an H100; the committed table is the H200's).
# LIMIT (seconds, 585 by default): the whole call's budget; the bench leaves out what does not fit.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
D=docs/perf/2026-12-02-h200-c; drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
B=buckets.yaml
for r in ${RANGES:-M:257:512 L:513:1024 X:1025:2048}; do  # RANGES: name:lo:hi … (default: all three)
  IFS=: read n lo hi <<< "$r"
  timeout 150 .gpu/autotune tune -shapes $D/corpus7.csv -min-m $lo -max-m $hi -vendor=false -reps 10 -event-calls 10 \
    -base $B -out /tmp/buckets-$n.yaml -report /tmp/rep -driver "$drv" > /tmp/tune-$n.log 2>&1; t tune-$n $?
  tail -2 /tmp/tune-$n.log | tr '\r' '\n' | tail -1; mv /tmp/rep/tune.csv /tmp/tune-$n.csv 2>/dev/null; rm -rf /tmp/rep  # every timing, kept
  [ -s /tmp/buckets-$n.yaml ] && B=/tmp/buckets-$n.yaml
done
cp $B $OUT/buckets-T.yaml; mkdir -p /tmp/o2; OUT2=$OUT; export OUT=/tmp/o2
bash docs/perf/2026-12-05-h200-c/call2.sh $B $(( ${LIMIT:-585} - ($(date +%s) - s) )); cp /tmp/o2/bench-?.csv /tmp/o2/between-?.csv /tmp/o2/peer*.csv $OUT2/
echo "total $(( $(date +%s) - s )) s"

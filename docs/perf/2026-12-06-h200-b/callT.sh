# Fourteenth session, last call, any card (name it; a table measured on another card than the H200 is evidence, not
# a splice): the corpus retune of bf16 M = 1025…4096 (two buckets) with this session's candidates among the rest —
# the BM = 256 tiles and the release-now kernels (experimental: a measured entry routes them) — then the README's
# bench of the result beside the committed table and torch.mm in the same call (bench-N, bench-C).
# Prediction (before the run): the tune routes a BM = 256 or rn kernel in at least half of the 16 buckets it fills (7 weights and the default entry, two each), and
# bench-N's geomean ×cuBLAS at M ≥ 1024 is ≥ 3 % above bench-C's in the same call.
# LIMIT: the call's seconds (300 by default); the bench leaves out what does not fit.
set -uo pipefail
L=${LIMIT:-300}; tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
D=docs/perf/2026-12-02-h200-c; g=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); echo "$g"
drv=${g##*, }; t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
B=buckets.yaml
for r in X:1025:2048:80 Y:2049:4096:100; do
  IFS=: read n lo hi lim <<< "$r"
  timeout $lim .gpu/autotune tune -shapes $D/corpus7.csv -min-m $lo -max-m $hi -vendor=false -reps 10 -event-calls 10 \
    -base $B -out /tmp/buckets-$n.yaml -report /tmp/rep-$n -driver "$drv" > /tmp/tune-$n.log 2>&1; t tune-$n $?
  tail -2 /tmp/tune-$n.log | tr '\r' '\n' | tail -1
  [ -s /tmp/buckets-$n.yaml ] && B=/tmp/buckets-$n.yaml
done
cp $B $OUT/buckets-T.yaml; cat /tmp/rep-*/*.md 2>/dev/null | gzip > $OUT/tune-report.md.gz
tar czf $OUT/tune-csv.tgz -C /tmp $(cd /tmp && ls -d rep-*/tune.csv) 2>/dev/null  # every timing (the run on the H200 did not keep them)
echo "routed 1025…4096 (kernel: entries):"; grep -A3 "min_m: 1025\|min_m: 2049" $OUT/buckets-T.yaml | grep "kernel:" | sed 's/.*gemmroute_sm90_//' | sort | uniq -c
bash docs/perf/2026-12-05-h200-c/call2.sh $B $(( L - ($(date +%s) - s) ))  # README shapes into $OUT (peer, bench-N, bench-C)
for f in bench-N bench-C; do echo "== $f"; [ -s $OUT/$f.csv ] && python3 docs/perf/2026-12-01-h200-mc/regimes.py $OUT/$f.csv; done
echo "total $(( $(date +%s) - s )) s"

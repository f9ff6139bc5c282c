# Fourteenth session, H200 only: the corpus retune of bf16 M = 2049…8192 (its two buckets) on top of callA.sh's table,
# now that the BM = 256 tiles with the TMA-store epilogue are candidates (on an H100 by graph replay they matched
# cuBLAS at M ≥ 4096: README.md, call 1), then the README's bench of the result beside the committed table and torch.mm.
# usage: bash callA2.sh TABLE   (TABLE: callA.sh's buckets-T.yaml, committed first); LIMIT: the call's seconds (585)
set -uo pipefail
T=$1 L=${LIMIT:-585}; tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
D=docs/perf/2026-12-02-h200-c; drv=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); echo "$drv"
drv=${drv##*, }; t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
B=$T
for r in Y:2049:4096:150 Z:4097:8192:260; do
  IFS=: read n lo hi lim <<< "$r"
  timeout $lim .gpu/autotune tune -shapes $D/corpus7.csv -min-m $lo -max-m $hi -vendor=false -reps 10 -event-calls 10 \
    -base $B -out /tmp/buckets-$n.yaml -report /tmp/rep -driver "$drv" > /tmp/tune-$n.log 2>&1; t tune-$n $?
  tail -2 /tmp/tune-$n.log | tr '\r' '\n' | tail -1; rm -rf /tmp/rep
  [ -s /tmp/buckets-$n.yaml ] && B=/tmp/buckets-$n.yaml
done
cp $B $OUT/buckets-T2.yaml; mkdir -p /tmp/o2; OUT2=$OUT; export OUT=/tmp/o2
bash docs/perf/2026-12-05-h200-c/call2.sh $B $(( L - ($(date +%s) - s) )); cp /tmp/o2/bench-?.csv /tmp/o2/peer.csv $OUT2/ 2>/dev/null
for f in bench-N bench-C; do echo "== $f"; [ -s $OUT2/$f.csv ] && python3 docs/perf/2026-12-01-h200-mc/regimes.py $OUT2/$f.csv; done
echo "total $(( $(date +%s) - s )) s"

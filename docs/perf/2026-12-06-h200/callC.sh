# Thirteenth session, call C: issue 20 — retune e4m3→bf16 with row and block128 scales at M = 513…8192 (Llama-3-8B,
# our kernels only, the e4m3 TMA-store kernels admitted) on the committed table, then the e4m3 bench of that table (E)
# beside the committed one (C) and torch._scaled_mm, the README's e4m3 shapes and the held-out e4m3 weights.
# Budget: the per-tensor retune of the same range took 114 s (docs/perf/2026-12-04-h200-b, call 6); the e4m3 bench
# (peer of 104 rows + two tables) ≈ 230 s. On the H200 only (the table is the H200's).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
timeout 280 .gpu/autotune tune -model llama3-8b -types 'e4m3->bf16/row,e4m3->bf16/block128' -min-m 513 -vendor=false \
  -reps 10 -event-calls 10 -base buckets.yaml -out $OUT/buckets-E.yaml -report /tmp/rep -driver "$drv" > /tmp/tune-E.log 2>&1
t tune-E $?; tail -2 /tmp/tune-E.log | tr '\r' '\n' | tail -1; cp /tmp/rep/tune.md $OUT/tune-E.md 2>/dev/null
[ -s $OUT/buckets-E.yaml ] || { echo "no table"; exit 1; }
S=/tmp/e4m3.csv; cp docs/perf/2026-12-04-h200-b/shapes-e4m3-all.csv $S; tail -n +2 scripts/shapes-heldout-e4m3.csv | sed 's/$/,bf16/' >> $S
grep -E "row|block128|^name" $S > /tmp/e4m3-rb.csv; S=/tmp/e4m3-rb.csv; wc -l < $S
PYTHONUNBUFFERED=1 timeout 150 python3 scripts/peer_cublas.py $S $OUT/peer-e4m3.csv > /tmp/peer8.log 2>&1; t peer-e4m3 $?; head -1 /tmp/peer8.log
timeout 100 .gpu/autotune bench -shapes $S -peer $OUT/peer-e4m3.csv -csv $OUT/bench-e4m3-E.csv -table $OUT/buckets-E.yaml > /tmp/b8.log 2>&1; t bench-E $?
timeout 100 .gpu/autotune bench -shapes $S -peer $OUT/peer-e4m3.csv -csv $OUT/bench-e4m3-C.csv -table buckets.yaml >> /tmp/b8.log 2>&1; t bench-C $?
for f in E C; do echo "== $f"; python3 docs/perf/2026-12-01-h200-mc/regimes.py $OUT/bench-e4m3-$f.csv; done
echo "total $(( $(date +%s) - s )) s"

# Twenty-first session, call 4 (any card; replaces call2.sh + call3.sh, which need two machines where the pool gave
# none for twenty minutes): in one call, the corpus's seven weights tuned again at M = 1025…4096 (call2.sh's first
# tune, its prediction), then the README's shapes benched with three tables beside torch.mm, same kernels:
# committed, near.yaml (the committed table with each held-out weight given its nearest measured weight's buckets,
# nearest.py: call3.sh's prediction) and the tuned one; the 64 between powers of two with what is left.
# usage: bash call4.sh   (carry .gpu-bin: r.txz)
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
python3 -c "import tarfile; tarfile.open('.gpu-bin/r.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; C=docs/perf/2026-12-02-h200-c/corpus7.csv; D=docs/perf/2026-12-07-h200-c
mkdir -p /tmp/c; drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
timeout 300 .gpu/autotune tune -shapes $C -vendor=false -prune 2 -reps 10 -event-calls 10 -driver "$drv" -min-m 1025 \
  -max-m 4096 -base buckets.yaml -out $OUT/buckets-hi.yaml -report /tmp/c/rhi > /tmp/c/tune-hi.log 2>&1; t "tune 1025…4096" $?
tail -3 /tmp/c/tune-hi.log
tables="committed:buckets.yaml nearest:$D/near.yaml"; [ -s $OUT/buckets-hi.yaml ] && tables="$tables tuned:$OUT/buckets-hi.yaml"
for S in docs/perf/2026-12-01-h200-mc/bench-shapes.csv scripts/shapes-between.csv; do
  n=$(basename $S .csv); [ $(( $(date +%s) - s )) -gt 450 ] && { echo "no time for $n"; break; }
  PYTHONUNBUFFERED=1 timeout 60 python3 scripts/peer_cublas.py $S /tmp/c/peer-$n.csv > /tmp/c/peer-$n.log 2>&1; t "peer $n" $?
  for v in $tables; do
    left=$(( 585 - ($(date +%s) - s) )); [ $left -lt 20 ] && break
    timeout $(( left < 80 ? left : 80 )) .gpu/autotune bench -shapes $S -peer /tmp/c/peer-$n.csv -csv /tmp/c/$n-${v%%:*}.csv \
      -table ${v#*:} > /tmp/c/b-$n-${v%%:*}.log 2>&1; t "bench $n ${v%%:*}" $?
  done
done
tar czf $OUT/c.tgz -C /tmp/c --exclude='*.png' .
echo "total $(( $(date +%s) - s )) s"

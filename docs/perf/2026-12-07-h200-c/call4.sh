# Twenty-first session, call 4 (any card; replaces call2.sh + call3.sh, which need two machines where the pool gave
# none for half an hour): first the README's shapes and the 64 between powers of two benched beside torch.mm with the
# committed table and near.yaml (the committed table with each held-out weight given its nearest measured weight's
# buckets, nearest.py: call3.sh's prediction), same kernels; then, in what is left of LIMIT seconds, the corpus's
# seven weights tuned again at M = 1025…4096 (call2.sh's first tune, its prediction) and the README's shapes benched
# with that table.
# usage: [LIMIT=SECONDS] bash call4.sh   (carry .gpu-bin: r.txz)
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }; L=${LIMIT:-585}; left() { echo $(( L - ($(date +%s) - s) )); }
python3 -c "import tarfile; tarfile.open('.gpu-bin/r.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; C=docs/perf/2026-12-02-h200-c/corpus7.csv; D=docs/perf/2026-12-07-h200-c
mkdir -p /tmp/c; drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
bench() {  # shapes-csv label table
  local n=$(basename $1 .csv)
  [ -s /tmp/c/peer-$n.csv ] || { PYTHONUNBUFFERED=1 timeout 60 python3 scripts/peer_cublas.py $1 /tmp/c/peer-$n.csv > /tmp/c/peer-$n.log 2>&1; t "peer $n" $?; }
  timeout 80 .gpu/autotune bench -shapes $1 -peer /tmp/c/peer-$n.csv -csv /tmp/c/$n-$2.csv -table $3 > /tmp/c/b-$n-$2.log 2>&1; t "bench $n $2" $?
}
for S in docs/perf/2026-12-01-h200-mc/bench-shapes.csv scripts/shapes-between.csv; do
  bench $S committed buckets.yaml; bench $S nearest $D/near.yaml
done
if [ $(left) -gt 250 ]; then
  timeout $(( $(left) - 60 )) .gpu/autotune tune -shapes $C -vendor=false -prune 2 -reps 10 -event-calls 10 -driver "$drv" \
    -min-m 1025 -max-m 4096 -base buckets.yaml -out $OUT/buckets-hi.yaml -report /tmp/c/rhi > /tmp/c/tune-hi.log 2>&1
  t "tune 1025…4096" $?; tail -3 /tmp/c/tune-hi.log
  [ -s $OUT/buckets-hi.yaml ] && [ $(left) -gt 50 ] && bench docs/perf/2026-12-01-h200-mc/bench-shapes.csv tuned $OUT/buckets-hi.yaml
fi
tar czf $OUT/c.tgz -C /tmp/c --exclude='*.png' .
echo "total $(( $(date +%s) - s )) s"

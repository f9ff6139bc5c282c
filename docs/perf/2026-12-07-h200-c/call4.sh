# Twenty-first session, call 4 (any card; replaces call2.sh + call3.sh, which need two machines where the pool gave
# none for an hour): the corpus's seven weights tuned again at M = 1025…4096 (2049…4096 where LIMIT < 480; call2.sh's first tune and its
# prediction), then the README's shapes benched beside torch.mm with the committed table and the tuned one, same
# kernels; then, with what is left of LIMIT seconds, with near.yaml (the committed table with each held-out weight
# given its nearest measured weight's buckets, nearest.py; call3.sh's prediction) and the 64 shapes between powers of two.
# usage: [LIMIT=SECONDS] bash call4.sh   (carry .gpu-bin: r.txz)
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }; L=${LIMIT:-585}; left() { echo $(( L - ($(date +%s) - s) )); }
python3 -c "import tarfile; tarfile.open('.gpu-bin/r.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; C=docs/perf/2026-12-02-h200-c/corpus7.csv; D=docs/perf/2026-12-07-h200-c
mkdir -p /tmp/c; drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
bench() {  # shapes-csv label table
  local n=$(basename $1 .csv); [ $(left) -lt 50 ] && { echo "no time for $n $2"; return; }
  [ -s /tmp/c/peer-$n.csv ] || { PYTHONUNBUFFERED=1 timeout 60 python3 scripts/peer_cublas.py $1 /tmp/c/peer-$n.csv > /tmp/c/peer-$n.log 2>&1; t "peer $n" $?; }
  timeout 80 .gpu/autotune bench -shapes $1 -peer /tmp/c/peer-$n.csv -csv /tmp/c/$n-$2.csv -table $3 > /tmp/c/b-$n-$2.log 2>&1; t "bench $n $2" $?
}
lo=1025; [ $L -lt 480 ] && lo=2049  # the model gives 1025…4096 ≈ 230 s on an H200, 2049…4096 ≈ 130
timeout $(( L - 140 )) .gpu/autotune tune -shapes $C -vendor=false -prune 2 -reps 10 -event-calls 10 -driver "$drv" \
  -min-m $lo -max-m 4096 -base buckets.yaml -out $OUT/buckets-hi.yaml -report /tmp/c/rhi > /tmp/c/tune-hi.log 2>&1
t "tune $lo…4096" $?; tail -3 /tmp/c/tune-hi.log
B=docs/perf/2026-12-01-h200-mc/bench-shapes.csv
bench $B committed buckets.yaml
[ -s $OUT/buckets-hi.yaml ] && bench $B tuned $OUT/buckets-hi.yaml
bench $B nearest $D/near.yaml
for v in committed:buckets.yaml nearest:$D/near.yaml; do bench scripts/shapes-between.csv ${v%%:*} ${v#*:}; done
tar czf $OUT/c.tgz -C /tmp/c --exclude='*.png' .
echo "total $(( $(date +%s) - s )) s"

# Call R (issue 22, any Hopper card, after call S): the router with cuBLASLt among the candidates. The corpus's
# buckets at M = LO…HI re-decided by autotune tune -base-routes with the vendor on (each bucket's route, its
# runner-up and cuBLASLt's top heuristic algorithms, gated and timed alike), then the README's shapes, those between
# powers of two and the off-grid ones benched with the new table and the committed one, beside torch.mm, same call.
# The bench's two columns: the router (speedup_vs_cublas) and our kernels alone (kernels_only_speedup_vs_cublas).
# Prediction: the router ≥ 0.99× cuBLAS at ≥ 90 % of the points at LO…HI (issue 22's floor is every point), our
# kernels alone unchanged within noise (the vendor off keeps the committed routes).
# usage: [LIMIT=SECONDS] [LO=17 HI=256] bash callR.sh   (carry .gpu-bin: r.txz = stripped .gpu/autotune:
#   go build -ldflags='-s -w' -o .gpu/autotune ./autotune && XZ_OPT=-9 tar cJf .gpu-bin/r.txz .gpu/autotune)
# then: python3 docs/perf/2026-12-07-h200-c/regimes.py speedup_vs_cublas callR/bench-shapes-routed.csv
#       python3 docs/perf/2026-12-07-h200-c/regimes.py kernels_only_speedup_vs_cublas callR/bench-shapes-routed.csv
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }; L=${LIMIT:-585}; left() { echo $(( L - ($(date +%s) - s) )); }
lo=${LO:-17}; hi=${HI:-256}
python3 -c "import glob, tarfile; [tarfile.open(f).extractall() for f in sorted(glob.glob('.gpu-bin/*.txz'))]"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; C=docs/perf/2026-12-02-h200-c/corpus7.csv
mkdir -p /tmp/r; drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
timeout $(( L - 260 )) .gpu/autotune tune -shapes $C -base-routes -min-m $lo -max-m $hi -reps 10 -event-calls 10 \
  -time-limit $(( L - 320 ))s -driver "$drv" -base buckets.yaml -out $OUT/buckets-r.yaml -report /tmp/r/rr > /tmp/r/tune-r.log 2>&1
t "tune -base-routes (vendor on) $lo…$hi" $?; tail -3 /tmp/r/tune-r.log; cp /tmp/r/rr/tune.md $OUT/tune-r.md 2>/dev/null
grep -c 'vendor:' $OUT/buckets-r.yaml 2>/dev/null | sed 's/^/buckets routed to cuBLASLt: /'
bench() {  # shapes-csv label table
  local n=$(basename $1 .csv); [ $(left) -lt 35 ] && { echo "no time for $n $2"; return; }
  [ -s /tmp/r/peer-$n.csv ] || { PYTHONUNBUFFERED=1 timeout 60 python3 scripts/peer_cublas.py $1 /tmp/r/peer-$n.csv > /tmp/r/peer-$n.log 2>&1; t "peer $n" $?; }
  timeout 80 .gpu/autotune bench -shapes $1 -peer /tmp/r/peer-$n.csv -csv /tmp/r/$n-$2.csv -table $3 > /tmp/r/b-$n-$2.log 2>&1; t "bench $n $2" $?
}
if [ -s $OUT/buckets-r.yaml ]; then
  for S in docs/perf/2026-12-01-h200-mc/bench-shapes.csv scripts/shapes-between.csv scripts/shapes-offgrid.csv; do
    bench $S routed $OUT/buckets-r.yaml; bench $S committed buckets.yaml
  done
fi
tar czf $OUT/r.tgz -C /tmp/r --exclude='*.png' .
echo "total $(( $(date +%s) - s )) s"

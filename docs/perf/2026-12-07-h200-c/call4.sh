# Twenty-first session, call 4 (any card; one call for what was first written for two, when the pool gave none for
# an hour). The autotune carried is built from the commit that chooses a bucket on its geometric middle
# too from M = 257 on. The corpus's seven weights are tuned again at M = 1025…4096 (2049…4096 where LIMIT < 560),
# our kernels only, into the committed table; then the README's shapes and the 64 between powers of two are benched
# beside torch.mm with the committed table and the tuned one, same kernels.
# Prediction (before the run): the M ≥ 2049 routes leave ws_wgmma_pp_mc2 128x128 (call 1: 0.74–0.86× cuBLAS on the
# held-out weights there) for 128x256 / 256x160 persistent tiles; the ≥ 1024 regime from 0.91 to ≥ 0.94 (Llama-3-8B)
# and from 0.86 to ≥ 0.91 (held-out), between shapes (M = 1449, 2897) gaining most; no regime below 1024 moves.
# usage: [LIMIT=SECONDS] [LO=257 HI=1024] bash call4.sh   (carry .gpu-bin: r.txz; LO, HI: the buckets to tune instead)
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }; L=${LIMIT:-585}; left() { echo $(( L - ($(date +%s) - s) )); }
python3 -c "import tarfile; tarfile.open('.gpu-bin/r.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; C=docs/perf/2026-12-02-h200-c/corpus7.csv
mkdir -p /tmp/c; drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
bench() {  # shapes-csv label table
  local n=$(basename $1 .csv); [ $(left) -lt 40 ] && { echo "no time for $n $2"; return; }
  [ -s /tmp/c/peer-$n.csv ] || { PYTHONUNBUFFERED=1 timeout 60 python3 scripts/peer_cublas.py $1 /tmp/c/peer-$n.csv > /tmp/c/peer-$n.log 2>&1; t "peer $n" $?; }
  timeout 80 .gpu/autotune bench -shapes $1 -peer /tmp/c/peer-$n.csv -csv /tmp/c/$n-$2.csv -table $3 > /tmp/c/b-$n-$2.log 2>&1; t "bench $n $2" $?
}
lo=1025; [ $L -lt 560 ] && lo=2049  # the model gives 1025…4096 ≈ 275 s on an H200, 2049…4096 ≈ 180 (call 5: 85 s)
lo=${LO:-$lo}; hi=${HI:-4096}
timeout $(( L - 190 )) .gpu/autotune tune -shapes $C -vendor=false -prune 1.5 -keep 1.2 -reps 10 -event-calls 10 -driver "$drv" \
  -min-m $lo -max-m $hi -base buckets.yaml -out $OUT/buckets-hi.yaml -report /tmp/c/rhi > /tmp/c/tune-hi.log 2>&1
t "tune $lo…$hi" $?; tail -3 /tmp/c/tune-hi.log
if [ -s $OUT/buckets-hi.yaml ]; then
  for S in docs/perf/2026-12-01-h200-mc/bench-shapes.csv scripts/shapes-between.csv; do
    bench $S tuned $OUT/buckets-hi.yaml; bench $S committed buckets.yaml
  done
fi
tar czf $OUT/c.tgz -C /tmp/c --exclude='*.png' .
echo "total $(( $(date +%s) - s )) s"

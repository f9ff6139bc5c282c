# Twenty-second session, call T (any card): the corpus's seven weights tuned again at M = 257…2048 with the
# middle-aware autotune (a bucket chosen over its geometric middle too from M = 257 on), our kernels only, into
# the committed table; then the README's shapes and the 64 between powers of two benched beside torch.mm with the
# committed table and the tuned one, same kernels. call4.sh of 2026-12-07-h200-c with the range widened: the model
# gives 257…2048 ≈ 294 s on an H200 (call 5's 2049…4096 ran in 0.47× its modelled time on an H100).
# Prediction (before the run): the 257–1023 regime from 0.86 to ≥ 0.90 (Llama-3-8B) and from 0.79 to ≥ 0.85
# (held out), the mid-octave shapes gaining most (qkv M = 725 from ×0.63 to ≥ ×0.75), the powers of two within
# 2 % of the committed table's; the ≥ 1024 regime from 0.92 to ≥ 0.93 (Llama-3-8B) and 0.96 to ≥ 0.97 (held out),
# through M = 1449 and 2048; no regime at M ≤ 256 moves.
# usage: [LIMIT=SECONDS] [LO=257 HI=2048] bash callT.sh   (carry .gpu-bin: r.txz)
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }; L=${LIMIT:-590}; left() { echo $(( L - ($(date +%s) - s) )); }
python3 -c "import tarfile; tarfile.open('.gpu-bin/r.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; C=docs/perf/2026-12-02-h200-c/corpus7.csv
mkdir -p /tmp/c; drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
bench() {  # shapes-csv label table
  local n=$(basename $1 .csv); [ $(left) -lt 40 ] && { echo "no time for $n $2"; return; }
  [ -s /tmp/c/peer-$n.csv ] || { PYTHONUNBUFFERED=1 timeout 60 python3 scripts/peer_cublas.py $1 /tmp/c/peer-$n.csv > /tmp/c/peer-$n.log 2>&1; t "peer $n" $?; }
  timeout 80 .gpu/autotune bench -shapes $1 -peer /tmp/c/peer-$n.csv -csv /tmp/c/$n-$2.csv -table $3 > /tmp/c/b-$n-$2.log 2>&1; t "bench $n $2" $?
}
lo=${LO:-257}; hi=${HI:-2048}
timeout $(( L - 185 )) .gpu/autotune tune -shapes $C -vendor=false -prune 1.5 -keep 1.15 -reps 10 -event-calls 10 -driver "$drv" \
  -min-m $lo -max-m $hi -base buckets.yaml -out $OUT/buckets-t.yaml -report /tmp/c/rt > /tmp/c/tune.log 2>&1
t "tune $lo…$hi" $?; tail -3 /tmp/c/tune.log
if [ -s $OUT/buckets-t.yaml ]; then
  for S in docs/perf/2026-12-01-h200-mc/bench-shapes.csv scripts/shapes-between.csv; do
    bench $S tuned $OUT/buckets-t.yaml; bench $S committed buckets.yaml
  done
fi
tar czf $OUT/c.tgz -C /tmp/c --exclude='*.png' .
echo "total $(( $(date +%s) - s )) s"

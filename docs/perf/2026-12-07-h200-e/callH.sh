# Twenty-third session (any card): the corpus's seven weights tuned at M = LO…HI on the table's bucket scheme
# (calls A and B ran d050d61's half octaves: edges at the powers of two and ⌊2^j·√2⌋ above 128; octaves again
# since 98953b4), our kernels only, into BASE; then the README's shapes, the 64 between powers of two and 72 off-grid shapes (M = 150,
# 300, 450, 600, 850, 1200, 1700, 2400, 3500: no bucket edge, so out of sample for both tables) benched beside
# torch.mm with the tuned table and the committed one, same kernels.
# Prediction (before the run), call A (LO=129 HI=1024): from call T's timings (half.py), the 257–1023 regime from
# 0.94 to ≥ 0.97 (Llama-3-8B) and held out from 0.84 to ≥ 0.87; qkv M = 725 ×0.76 → ≥ ×0.85, o M = 1024
# ×0.81 → ≥ ×0.93; 17–256 from 0.98 to ≥ 0.98 (only 129…256 move; M = 192 shapes gain); the off-grid shapes at
# M = 150…850 ≥ 3 % faster (geomean) than with the committed table; M ≤ 128 and ≥ 1025 unchanged (±2 %).
# usage: [LIMIT=SECONDS] [LO=129 HI=1024 BASE=buckets.yaml] bash callH.sh   (carry .gpu-bin: r.txz from 766f654 or later:
# the tune stops starting buckets 90 s before its timeout, -time-limit, and writes what it measured)
# writes $OUT/buckets-h.yaml, tune-h.md, h.tgz (every CSV and log)
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }; L=${LIMIT:-590}; left() { echo $(( L - ($(date +%s) - s) )); }
lo=${LO:-129}; hi=${HI:-1024}; base=${BASE:-buckets.yaml}
python3 -c "import tarfile; tarfile.open('.gpu-bin/r.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; C=docs/perf/2026-12-02-h200-c/corpus7.csv
mkdir -p /tmp/h; drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
bench() {  # shapes-csv label table
  local n=$(basename $1 .csv); [ $(left) -lt 35 ] && { echo "no time for $n $2"; return; }
  [ -s /tmp/h/peer-$n.csv ] || { PYTHONUNBUFFERED=1 timeout 60 python3 scripts/peer_cublas.py $1 /tmp/h/peer-$n.csv > /tmp/h/peer-$n.log 2>&1; t "peer $n" $?; }
  timeout 80 .gpu/autotune bench -shapes $1 -peer /tmp/h/peer-$n.csv -csv /tmp/h/$n-$2.csv -table $3 > /tmp/h/b-$n-$2.log 2>&1; t "bench $n $2" $?
}
timeout $(( L - ${BENCH_S:-250} )) .gpu/autotune tune -shapes $C -vendor=false -prune 1.5 -keep 1.2 -reps 10 -event-calls 10 -driver "$drv" \
  -time-limit $(( L - ${BENCH_S:-250} - 90 ))s \
  -min-m $lo -max-m $hi -base $base -out $OUT/buckets-h.yaml -report /tmp/h/rh > /tmp/h/tune-h.log 2>&1
t "tune $lo…$hi" $?; tail -3 /tmp/h/tune-h.log; cp /tmp/h/rh/tune.md $OUT/tune-h.md 2>/dev/null
if [ -s $OUT/buckets-h.yaml ]; then
  for S in docs/perf/2026-12-01-h200-mc/bench-shapes.csv scripts/shapes-between.csv scripts/shapes-offgrid.csv; do
    bench $S tuned $OUT/buckets-h.yaml; bench $S committed buckets.yaml
  done
fi
tar czf $OUT/h.tgz -C /tmp/h --exclude='*.png' .
echo "total $(( $(date +%s) - s )) s"

# Call T (any card, after call E): callH.sh (docs/perf/2026-12-07-h200-e) — the corpus's seven weights tuned at
# M = LO…HI, our kernels only, into BASE; the README's shapes, the 64 between powers of two and the 72 off-grid
# shapes benched beside torch.mm with the tuned table and the committed one — with EXCLUDE: comma-separated name
# substrings of kernels left out of the candidates (a manifest without them, -manifest; e.g. EXCLUDE=_ks_ts_ where
# call E found ks_ts wrong or did not run).
# Uses, by call E's outcome: LO=513 HI=2048 where the 256-row sk_tp won at M ≥ 512 (prediction: 257–1023 and
# ≥ 1024 each ≥ 1 % better on Llama-3-8B and held out, from the H100's 0.967 / 0.944 and 0.874 / 0.984); LO=17
# HI=256 where ks_ts was correct and within 10 % of its twin's split-K + reduce (prediction: ks_ts in ≥ 3 of the
# 7 weights' [17…256] buckets; 17–256 ≥ 0.99 Llama-3-8B, ≥ 0.93 held out, from 0.985 / 0.921).
# usage: [LIMIT=SECONDS] [LO= HI= BASE= EXCLUDE=] bash callT.sh   (carry .gpu-bin: r.txz, .gpu/autotune from
#   this commit or later)
# writes $OUT/buckets-h.yaml, tune-h.md, h.tgz (every CSV and log)
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }; L=${LIMIT:-590}; left() { echo $(( L - ($(date +%s) - s) )); }
lo=${LO:-513}; hi=${HI:-2048}; base=${BASE:-buckets.yaml}
python3 -c "import tarfile; tarfile.open('.gpu-bin/r.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; C=docs/perf/2026-12-02-h200-c/corpus7.csv
M=""
if [ -n "${EXCLUDE:-}" ]; then
  python3 - "$EXCLUDE" <<'PY'
import json, sys
pats = sys.argv[1].split(',')
m = json.load(open('kernels/manifest.json'))
n = len(m['kernels'])
m['kernels'] = [k for k in m['kernels'] if not any(p in k['name'] for p in pats)]
json.dump(m, open('/tmp/manifest-t.json', 'w'))
print('manifest: %d of %d kernels (left out: %s)' % (len(m['kernels']), n, ','.join(pats)))
PY
  M="-manifest /tmp/manifest-t.json"
fi
mkdir -p /tmp/h; drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
bench() {  # shapes-csv label table
  local n=$(basename $1 .csv); [ $(left) -lt 35 ] && { echo "no time for $n $2"; return; }
  [ -s /tmp/h/peer-$n.csv ] || { PYTHONUNBUFFERED=1 timeout 60 python3 scripts/peer_cublas.py $1 /tmp/h/peer-$n.csv > /tmp/h/peer-$n.log 2>&1; t "peer $n" $?; }
  timeout 80 .gpu/autotune bench -shapes $1 -peer /tmp/h/peer-$n.csv -csv /tmp/h/$n-$2.csv -table $3 > /tmp/h/b-$n-$2.log 2>&1; t "bench $n $2" $?
}
timeout $(( L - ${BENCH_S:-250} )) .gpu/autotune tune -shapes $C $M -vendor=false -prune 1.5 -keep 1.2 -reps 10 -event-calls 10 -driver "$drv" \
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

# Thirteenth session, call D: issue 18's closing bench — the f16 table tuned by f16-bcd.sh (TABLE, on the H200) beside
# the committed one (its f16 entries the model's) and torch.mm in fp16, Llama-3-8B at the 56 Ms of the bf16 README bench.
# usage: bash callD.sh TABLE
set -uo pipefail
T=$1; tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
S=docs/perf/2026-12-05-h200/shapes-llama3-8b-f16.csv
PYTHONUNBUFFERED=1 timeout 120 python3 scripts/peer_cublas.py $S $OUT/peer-f16.csv > /tmp/peer.log 2>&1; t peer-f16 $?; head -1 /tmp/peer.log
timeout 100 .gpu/autotune bench -shapes $S -peer $OUT/peer-f16.csv -csv $OUT/bench-f16-T.csv -table $T > /tmp/b.log 2>&1; t bench-T $?
timeout 100 .gpu/autotune bench -shapes $S -peer $OUT/peer-f16.csv -csv $OUT/bench-f16-C.csv -table buckets.yaml >> /tmp/b.log 2>&1; t bench-C $?
for f in T C; do echo "== $f"; python3 docs/perf/2026-12-01-h200-mc/regimes.py $OUT/bench-f16-$f.csv; done
grep -ciE "error|fail" /tmp/b.log; echo "total $(( $(date +%s) - s )) s"

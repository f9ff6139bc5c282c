# Eleventh session, call 2: issue 17 — call 1's retuned table (bf16, M = 257…2048 over the corpus, the wave-fitted
# tiles admitted) beside the committed one and torch.mm in the same call: the README's shapes (powers of two, eight
# weights not in the tune among them) and the 64 shapes between powers of two.
# usage: bash call2.sh TABLE [SECONDS]   (TABLE: call 1's last table; SECONDS: this script's budget, 585 by default —
# the shapes between powers of two are left out when less than 120 s of it is left after the README's shapes)
set -uo pipefail
T=$1 L=${2:-585}; tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
S=docs/perf/2026-12-01-h200-mc/bench-shapes.csv
PYTHONUNBUFFERED=1 timeout 110 python3 scripts/peer_cublas.py $S $OUT/peer.csv > /tmp/peer.log 2>&1; t peer $?; head -1 /tmp/peer.log
timeout 100 .gpu/autotune bench -shapes $S -peer $OUT/peer.csv -csv $OUT/bench-N.csv -table $T > /tmp/bench.log 2>&1; t bench-N $?
timeout 100 .gpu/autotune bench -shapes $S -peer $OUT/peer.csv -csv $OUT/bench-C.csv -table buckets.yaml >> /tmp/bench.log 2>&1; t bench-C $?
S=scripts/shapes-between.csv; R=$(( L - 15 - ($(date +%s) - s) ))
[ $R -gt 120 ] || { echo "no time left for the shapes between"; exit 0; }
PYTHONUNBUFFERED=1 timeout 100 python3 scripts/peer_cublas.py $S $OUT/peer-between.csv > /dev/null 2>&1; t peer-between $?
timeout 120 .gpu/autotune bench -shapes $S -peer $OUT/peer-between.csv -csv $OUT/between-N.csv -table $T >> /tmp/bench.log 2>&1; t between-N $?
timeout $(( L - ($(date +%s) - s) )) .gpu/autotune bench -shapes $S -peer $OUT/peer-between.csv -csv $OUT/between-C.csv -table buckets.yaml >> /tmp/bench.log 2>&1; t between-C $?
grep -iE "geomean|regime" /tmp/bench.log | head -20; echo "total $(( $(date +%s) - s )) s"

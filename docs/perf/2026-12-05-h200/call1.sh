# Ninth session, call 1: issue 17 — retune the corpus (seven weights of five model families) at M = 257…4096 with
# the large shifted tiles admitted (ws_wgmma_sh_ts 128x256 / 128x192, ws_wgmma_sk_sh_ts; call 0), on the committed table,
# our kernels only; then the new table (S) and the committed one (C) beside torch.mm in the same call on the 64 shapes
# between powers of two (the last token tile partly past M) and on the README's shapes (powers of two).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s); D=docs/perf/2026-12-02-h200-c
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
timeout 330 .gpu/autotune tune -shapes $D/corpus7.csv -min-m 257 -max-m 4096 -vendor=false -reps 10 -event-calls 10 \
  -out $OUT/buckets-S.yaml -report $OUT/rep -driver "$drv" > /tmp/tune-S.log 2>&1; t tune-S $?; tail -2 /tmp/tune-S.log | tr '\r' '\n' | tail -2
(cd $OUT && cp rep/tune.md tune-S.md; gzip -c rep/tune.csv > tune-S.csv.gz; rm -rf rep) 2>/dev/null
[ -s $OUT/buckets-S.yaml ] || exit 1
S=scripts/shapes-between.csv
PYTHONUNBUFFERED=1 timeout 100 python3 scripts/peer_cublas.py $S /tmp/peer-between.csv > /dev/null 2>&1; t peer-between $?
timeout 120 .gpu/autotune bench -shapes $S -peer /tmp/peer-between.csv -csv $OUT/between-S.csv -table $OUT/buckets-S.yaml > /tmp/bb.log 2>&1; t between-S $?
timeout 120 .gpu/autotune bench -shapes $S -peer /tmp/peer-between.csv -csv $OUT/between-C.csv -table buckets.yaml >> /tmp/bb.log 2>&1; t between-C $?
S=docs/perf/2026-12-01-h200-mc/bench-shapes.csv; R=$(( 575 - ($(date +%s) - s) ))
[ $R -gt 130 ] || { echo "no time left for the README shapes"; exit 0; }
PYTHONUNBUFFERED=1 timeout 110 python3 scripts/peer_cublas.py $S $OUT/peer.csv > /tmp/peer.log 2>&1; t peer $?; head -1 /tmp/peer.log
timeout 100 .gpu/autotune bench -shapes $S -peer $OUT/peer.csv -csv $OUT/bench-S.csv -table $OUT/buckets-S.yaml > /tmp/bench.log 2>&1; t bench-S $?
timeout $(( 585 - ($(date +%s) - s) )) .gpu/autotune bench -shapes $S -peer $OUT/peer.csv -csv $OUT/bench-C.csv -table buckets.yaml >> /tmp/bench.log 2>&1; t bench-C $?
echo "total $(( $(date +%s) - s )) s"

# Twenty-fourth session, call F (any card): issue 18's f16 entries at M = 17…256, then 257…2048 on the table the first
# wrote — Llama-3-8B's four weights and the default entry tuned in f16 (our kernels only, correctness-gated, graph
# replay; -prune 1.5 -keep 1.2 as the bf16 tunes) by docs/perf/2026-12-07-h200-d/callF16.sh, on the committed table (call T's splice; the sk_tp kernels are
# candidates in f16 too).
# Prediction (before the run): the f16 routes follow the bf16 ones — in at least 15 of the 20 (weight, bucket) pairs of
# each range the route is the f16 twin of the bf16 entry's route there (same family and tile) or of its runner-up.
# usage: bash callF.sh   (carry .gpu-bin: r.txz from cc75fdb or later; writes buckets-F16-17.yaml, buckets-F16-257.yaml
# and their tune reports)
set -uo pipefail
FLAGS="-prune 1.5 -keep 1.2" LIMIT=270 LO=17 HI=256 bash docs/perf/2026-12-07-h200-d/callF16.sh
[ -s $OUT/buckets-F16-17.yaml ] && FLAGS="-prune 1.5 -keep 1.2" LIMIT=$(( 560 - SECONDS )) LO=257 HI=2048 BASE=$OUT/buckets-F16-17.yaml bash docs/perf/2026-12-07-h200-d/callF16.sh
echo "call F $SECONDS s"

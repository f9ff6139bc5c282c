# Twenty-first session, call 2 (any card; the table is measured on what comes): the corpus's seven weights tuned
# again at M = 1025…4096, then 257…1024 with what is left, our kernels only, into the committed table with call 1's
# N = 769 buckets (513…2048) spliced in. Default entries are chosen over the seven together.
# Why: call 1 benched the default entries at 0.79 / 0.86 × cuBLAS (257–1023 / ≥ 1024) on the held-out weights, and
# every held-out shape at M ≥ 2049 runs ws_wgmma_pp_mc2 128x128, the slowest of three tiles at 4096 × 14336 × 4096 on
# an H100 (2026-12-06-h200); the H200's tunes chose the routes before the 128x224 / 256x160 tiles were admitted.
# Prediction (before the run): at M ≥ 1025 the default moves to 128x256 / 256x160 persistent tiles, its bucket time
# over the corpus 5–15 % lower; held-out ≥ 1024 from 0.86 to ≥ 0.92 in call 3's bench, Llama-3-8B's 0.91 to ≥ 0.93.
# usage: bash call2.sh   (carry .gpu-bin: r.txz)
set -uo pipefail
s=$(date +%s); python3 -c "import tarfile; tarfile.open('.gpu-bin/r.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; C=docs/perf/2026-12-02-h200-c/corpus7.csv; mkdir -p /tmp/t
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
tune() { timeout $1 .gpu/autotune tune -shapes $C -vendor=false -prune 2 -reps 10 -event-calls 10 -driver "$drv" "${@:2}"; }
tune 570 -min-m 1025 -max-m 4096 -base buckets.yaml -out $OUT/buckets-hi.yaml -report /tmp/t/rhi > /tmp/t/tune-hi.log 2>&1
echo "tune 1025…4096 rc=$? $(( $(date +%s) - s )) s"; tail -3 /tmp/t/tune-hi.log
left=$(( 585 - ($(date +%s) - s) ))
if [ -s $OUT/buckets-hi.yaml ] && [ $left -gt 120 ]; then
  tune $left -min-m 257 -max-m 1024 -base $OUT/buckets-hi.yaml -out $OUT/buckets-mid.yaml -report /tmp/t/rmid > /tmp/t/tune-mid.log 2>&1
  echo "tune 257…1024 rc=$? $(( $(date +%s) - s )) s"; tail -3 /tmp/t/tune-mid.log
fi
tar czf $OUT/t.tgz -C /tmp/t --exclude='*.png' .
echo "total $(( $(date +%s) - s )) s"

# For the next session, any card (≈ 250 s): the engine with the committed table and kernels (0968bad on) beside the
# table and kernels before it (83b41e2, the H200's table of 2026-12-04 with the slow N tail) and torch.mm, all in one
# call on one machine: the README's shapes (powers of two) and the 64 between them. The H200 benches the README shows
# are the old table's; this says what the H100 re-measure and the N-tail fix did to the whole route, card for card.
# Prediction (before any run): geomean new/old time 0.97–1.00 on the README's Llama-3-8B shapes (the tail fix touches
# few of its routes; route flips cost or gain a few % either way), ≤ 0.90 on odd 769×5125 at M ≥ 256.
# usage: bash callB.sh   (carry .gpu-bin: r.txz (autotune), oldk.txz (.old/: the previous kernels and buckets.yaml))
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
python3 -c "import tarfile; [tarfile.open(f).extractall() for f in ('.gpu-bin/r.txz', '.gpu-bin/oldk.txz')]"
cp kernels/images/sm80.fatbin .old/kernels/images/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
for S in docs/perf/2026-12-01-h200-mc/bench-shapes.csv scripts/shapes-between.csv; do
  n=$(basename $S .csv)
  PYTHONUNBUFFERED=1 timeout 110 python3 scripts/peer_cublas.py $S $OUT/peer-$n.csv > /tmp/peer-$n.log 2>&1; t "peer $n" $?
  GEMMROUTE_KERNEL_DIR=$PWD/kernels timeout 100 .gpu/autotune bench -shapes $S -peer $OUT/peer-$n.csv \
    -csv $OUT/$n-new.csv -table buckets.yaml > /tmp/b-$n-new.log 2>&1; t "bench $n new" $?
  GEMMROUTE_KERNEL_DIR=$PWD/.old/kernels timeout 100 .gpu/autotune bench -shapes $S -peer $OUT/peer-$n.csv \
    -csv $OUT/$n-old.csv -table .old/buckets.yaml > /tmp/b-$n-old.log 2>&1; t "bench $n old" $?
done
tar czf $OUT/logs.tgz -C /tmp $(cd /tmp && ls peer-*.log b-*.log)
echo "total $(( $(date +%s) - s )) s"

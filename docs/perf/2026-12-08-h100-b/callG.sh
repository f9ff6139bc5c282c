# Call G (issue 17, any Hopper card): streamKGrid (d5d9f68) — ws_stream_k on fewer blocks than SMs where a
# block per SM would split its tail in more than 8 parts.
# 1. Correctness: TestStreamKDeterministicAndReplayable (its new "long tail" case, M = 1200 at 5120x4096, runs every
#    stream-K kernel on the shortened grids against the reference, bit for bit across runs and graph replays).
# 2. grid-shapes.csv (the two Ms per weight the model gains most and a median one, and call B's mistral-nemo o
#    M = 1200 and Llama-3-8B qkv M = 1700) benched with autotune before (6a6fce9) and after, the committed table,
#    twice each in turn, beside torch.mm.
# Prediction: the test passes; every point faster after, by at least half the model's gain (the model, fitted on
# planned parts at S ≤ 8, overstated call K's S = 32 cost: 0.45 predicted, 0.62 measured); mistral-nemo o M = 1200
# ≤ 80 µs (109.7 in call B), ≥ 0.95× cuBLAS.
# usage: bash callG.sh   (carry .gpu-bin: n.txz from prepare.sh)
# then: python3 docs/perf/2026-12-08-h100/cmp.py callG/old-1.csv callG/new-1.csv (and -2)
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s" | tee -a $OUT/summary.txt; }
python3 -c "import glob, tarfile; [tarfile.open(f).extractall() for f in sorted(glob.glob('.gpu-bin/*.txz'))]"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; mkdir -p /tmp/g; S=docs/perf/2026-12-08-h100-b/grid-shapes.csv
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
(cd dispatch && timeout 240 ../.gpu/dispatch.test -test.count=1 -test.v -test.timeout 230s \
  -test.run 'TestStreamKDeterministicAndReplayable' > /tmp/g/gpu.log 2>&1); t gpu $?
grep -E '^(--- FAIL|--- SKIP|ok|FAIL|PASS)' /tmp/g/gpu.log | head -10 | tee -a $OUT/summary.txt
PYTHONUNBUFFERED=1 timeout 60 python3 scripts/peer_cublas.py $S /tmp/g/peer.csv > /tmp/g/peer.log 2>&1; t peer $?
for i in 1 2; do for v in old new; do
  b=.gpu/autotune; [ $v = old ] && b=.gpu/autotune-old
  timeout 60 $b bench -shapes $S -peer /tmp/g/peer.csv -csv $OUT/$v-$i.csv -table buckets.yaml > /tmp/g/b-$v-$i.log 2>&1; t "bench $v $i" $?
done; done
python3 docs/perf/2026-12-08-h100/cmp.py $OUT/old-1.csv $OUT/new-1.csv '' 0.0001 | tail -20 | tee -a $OUT/summary.txt
tar czf $OUT/g.tgz -C /tmp/g .
echo "total $(( $(date +%s) - s )) s" | tee -a $OUT/summary.txt

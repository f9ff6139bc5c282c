# Twenty-first session, call 3 (any card): the engine with call 2's tuned table beside the committed one and torch.mm,
# same kernels, on the README's shapes and the 64 between powers of two (held-out weights among them: llama2-13b,
# mistral-nemo, phi3-mini, qwen2.5-7b gate_up, the floors' 14336 × 4096 and 4096 × 1024). Prediction: in call 2.
# NEAR: TABLE with every held-out weight given the buckets of the measured weight nearest it (nearest.py): what a
# 'nearest measured weight' fallback would give them. Prediction: held-out 257–1023 from the default's 0.79 to ≥ 0.85,
# ≥ 1024 within 2 % of TABLE's, none more than 10 % slower than TABLE's at a shape.
# usage: bash call3.sh TABLE NEAR   (carry .gpu-bin: r.txz)
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
python3 -c "import tarfile; tarfile.open('.gpu-bin/r.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; T=$1; N=$2; mkdir -p /tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
for S in docs/perf/2026-12-01-h200-mc/bench-shapes.csv scripts/shapes-between.csv; do
  n=$(basename $S .csv)
  PYTHONUNBUFFERED=1 timeout 110 python3 scripts/peer_cublas.py $S /tmp/c/peer-$n.csv > /tmp/c/peer-$n.log 2>&1; t "peer $n" $?
  for v in tuned:$T committed:buckets.yaml nearest:$N; do
    timeout 100 .gpu/autotune bench -shapes $S -peer /tmp/c/peer-$n.csv -csv /tmp/c/$n-${v%%:*}.csv -table ${v#*:} \
      > /tmp/c/b-$n-${v%%:*}.log 2>&1; t "bench $n ${v%%:*}" $?
  done
done
tar czf $OUT/c.tgz -C /tmp/c .
echo "total $(( $(date +%s) - s )) s"

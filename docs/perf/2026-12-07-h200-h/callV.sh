# Call V (any card, after call E shows ks_ts correct): issue 21 with ks_ts. Llama-3-8B's four weights tuned with
# -invariant (the bucket 2049…4096 retuned as the vehicle; each weight's reduction class and split measured at
# split-K 1, 2, 4 at M = 1, 2, 4, …, 4096 against the tuned table, every kernel gated — ks_ts now serves a measured
# class's split where the workspace partials do not fit), then the README's shapes benched in the normal mode and
# in the batch-invariant mode with the tuned table, beside torch.mm, same call.
# Prediction (before the run): a split > 1 chosen for at least two of the four weights (o and qkv: few tiles); the
# batch-invariant mode's cost against the normal mode, geomean per regime (≤ 16 / 17–256 / 257–1023 / ≥ 1024),
# ≥ 0.85 in each (call I, the model's class at split 1: 0.44–0.74), ≥ 0.90 (the floor) in at least two.
# SEL: the weights (default -model llama3-8b; e.g. SEL="-shapes docs/perf/2026-12-02-h200-c/corpus7.csv" for the
# default entry's class over the corpus), TL: the tune's -time-limit, IL: its -invariant-limit (autotune from
# this session on), TO: its timeout (seconds).
# usage: bash callV.sh   (carry .gpu-bin: r.txz, .gpu/autotune from 562be21 or later)
# writes $OUT/buckets-v.yaml, tune-v.md, v.tgz
set -uo pipefail
s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
[ -x .gpu/autotune ] || python3 -c "import glob, tarfile; [tarfile.open(f).extractall() for f in sorted(glob.glob('.gpu-bin/*.txz'))]"  # (call S's pack may be extracted already)
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; S=docs/perf/2026-12-01-h200-mc/bench-shapes.csv
mkdir -p /tmp/v; drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
timeout ${TO:-380} .gpu/autotune tune -time-limit ${TL:-330s} ${IL:+-invariant-limit $IL} ${SEL:--model llama3-8b} -vendor=false -invariant -min-m 2049 -max-m 4096 -prune 1.5 -keep 1.2 \
  -reps 10 -event-calls 10 -driver "$drv" -base buckets.yaml -out $OUT/buckets-v.yaml -report /tmp/v/rv > /tmp/v/tune-v.log 2>&1
t "tune -invariant" $?; tail -3 /tmp/v/tune-v.log; cp /tmp/v/rv/tune.md $OUT/tune-v.md 2>/dev/null
grep -A7 'invariant:' $OUT/buckets-v.yaml | head -40
if [ -s $OUT/buckets-v.yaml ]; then
  PYTHONUNBUFFERED=1 timeout 70 python3 scripts/peer_cublas.py $S /tmp/v/peer.csv > /tmp/v/peer.log 2>&1; t peer $?
  timeout 60 .gpu/autotune bench -shapes $S -peer /tmp/v/peer.csv -csv /tmp/v/normal.csv -table $OUT/buckets-v.yaml > /tmp/v/b-normal.log 2>&1; t normal $?
  timeout 60 .gpu/autotune bench -invariant -shapes $S -peer /tmp/v/peer.csv -csv /tmp/v/invariant.csv -table $OUT/buckets-v.yaml > /tmp/v/b-inv.log 2>&1; t invariant $?
fi
tar czf $OUT/v.tgz -C /tmp/v --exclude='*.png' .
echo "total $(( $(date +%s) - s )) s"

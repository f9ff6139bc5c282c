# Call P (issue 17, any Hopper card; ≈ 200 s): how much of the N = 4096, K = 1024 floor's gap is the one default entry
# per bucket. The weight is tuned alone at M = 257…4096, our kernels only, as an exact (N, K) entry of a scratch
# table, then probe-shapes.csv is benched beside torch.mm with that table and with the committed one (where the
# default entry routes it: H100 call B, M = 1024 ×0.71, sk_tp_sh_ts 128x192 in two waves of 132 blocks).
# Not to be spliced: the probe is judged as a weight nobody tuned for. It measures what the default-by-shape
# proposal (docs/proposal-default-by-n.md) could reach at small K, for the team's decision.
# Prediction: the model routes M = 1024 to ws_wgmma 128x256 (128 tiles: one wave); the tuned entry runs
# M = 1024 ≥ 0.95× cuBLAS (one wave of 128x256 at K = 1024), M = 256 and 4096 ≥ 0.9×; the committed table as in
# call B (0.94 / 0.71 / 0.87 at 256 / 1024 / 4096).
# usage: [LIMIT=SECONDS] bash callP.sh   (carry .gpu-bin: n.txz from docs/perf/2026-12-08-h100-b/prepare.sh)
# writes $OUT/summary.txt, buckets-p.yaml (the scratch table), tuned.csv, committed.csv, tune-p.md, p.tgz
set -uo pipefail
s=$(date +%s); L=${LIMIT:-300}; t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s" | tee -a $OUT/summary.txt; }
python3 -c "import glob, tarfile; [tarfile.open(f).extractall() for f in sorted(glob.glob('.gpu-bin/*.txz'))]"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; mkdir -p /tmp/p; S=docs/perf/2026-12-08-c/probe-shapes.csv
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/card.txt
timeout $(( L - 90 )) .gpu/autotune tune -shapes $S -vendor=false -prune 1.5 -keep 1.2 -reps 10 -event-calls 10 \
  -driver "$drv" -time-limit $(( L - 150 ))s -min-m 257 -max-m 4096 -base buckets.yaml -out $OUT/buckets-p.yaml \
  -report /tmp/p/rp > /tmp/p/tune.log 2>&1; t tune $?
tail -3 /tmp/p/tune.log | tee -a $OUT/summary.txt; cp /tmp/p/rp/tune.md $OUT/tune-p.md 2>/dev/null
PYTHONUNBUFFERED=1 timeout 60 python3 scripts/peer_cublas.py $S /tmp/p/peer.csv > /tmp/p/peer.log 2>&1; t peer $?
for v in committed tuned; do
  tb=buckets.yaml; [ $v = tuned ] && tb=$OUT/buckets-p.yaml
  [ -s $tb ] && { timeout 60 .gpu/autotune bench -shapes $S -peer /tmp/p/peer.csv -csv $OUT/$v.csv -table $tb \
    > /tmp/p/b-$v.log 2>&1; t "bench $v" $?; }
done
for v in committed tuned; do [ -s $OUT/$v.csv ] && python3 -c "
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(sys.argv[2], r['M'], r['kernel'].replace('gemmroute_sm90_', ''), r['split_k'], r['graph_us'], r['cublas_graph_us'], r['speedup_vs_cublas'])
" $OUT/$v.csv $v | tee -a $OUT/summary.txt; done
python3 docs/perf/2026-12-08-h100/cmp.py $OUT/committed.csv $OUT/tuned.csv '' 0.0001 | tail -12 | tee -a $OUT/summary.txt
tar czf $OUT/p.tgz -C /tmp/p --exclude='*.png' .
echo "total $(( $(date +%s) - s )) s" | tee -a $OUT/summary.txt

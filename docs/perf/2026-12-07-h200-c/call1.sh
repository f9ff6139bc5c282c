# Twenty-first session, call 1 (any card): where the route stands, then N = 769 tuned again now that the tail is cheap.
# 1. docs/perf/2026-12-07-h200-b/callB.sh verbatim (its prediction is in it), its files packed into b.tgz.
# 2. autotune tune -shapes scripts/shapes-odd.csv -vendor=false into the committed table (the N = 769 routes were
#    chosen on the H200 with the slow tail). Prediction: at M >= 17 most buckets move to TMA/register tiles that leave
#    a column tail (they no longer pay an out-of-line store per element), 10-30 % faster than the committed routes.
# usage: bash call1.sh   (carry .gpu-bin: r.txz, oldk.txz)
set -uo pipefail
s=$(date +%s); O=$OUT; mkdir -p /tmp/b
OUT=/tmp/b bash docs/perf/2026-12-07-h200-b/callB.sh > /tmp/b/callB.log 2>&1; echo "callB rc=$? $(( $(date +%s) - s )) s"
cp /tmp/b/card.txt $O/; tail -12 /tmp/b/callB.log
export GEMMROUTE_KERNEL_DIR=$PWD/kernels
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
left=$(( 585 - ($(date +%s) - s) ))
if [ $left -gt 40 ]; then
  timeout $left .gpu/autotune tune -shapes scripts/shapes-odd.csv -vendor=false -reps 10 -event-calls 10 -base buckets.yaml \
    -out /tmp/b/buckets-odd.yaml -report /tmp/b/rodd -driver "$drv" > /tmp/b/tune-odd.log 2>&1; echo "odd tune rc=$? $(( $(date +%s) - s )) s"
  tail -3 /tmp/b/tune-odd.log
fi
tar czf $O/b.tgz -C /tmp/b --exclude='*.png' .
echo "total $(( $(date +%s) - s )) s"

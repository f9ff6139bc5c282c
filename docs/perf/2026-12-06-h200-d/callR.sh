# For the session that lands a kernel change which moves digests (NEXT.md item 2b), H200 only: measure the committed
# table's routes again with the changed kernels (autotune tune -base-routes -vendor=false: each bucket's route and its
# recorded runner-up, gated and timed; new digests, times, and the faster of the two), then compare the result with the
# committed table (autotune compare: exit 1 where a point is slower by more than 3 %). .gpu/autotune and the fatbins
# must be the changed ones. The f16 entries are the model's (no times): issue 18's f16 tune replaces them, not this.
# usage: bash callR.sh [SECONDS]   (writes buckets-R.yaml, compare.txt and the three tune reports' tune.md to $OUT)
set -uo pipefail
L=${1:-${LIMIT:-585}}; s=$(date +%s); t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
B=buckets.yaml
r() {  # r NAME ARGS…: one re-measuring run on the last table written
  local n=$1; shift; local left=$(( L - 20 - ($(date +%s) - s) )); [ $left -lt 30 ] && { echo "no time for $n"; return; }
  timeout $left .gpu/autotune tune "$@" -base-routes -vendor=false -reps 10 -event-calls 10 -base $B -out /tmp/r-$n.yaml \
    -report /tmp/rep-$n -driver "$drv" > /tmp/r-$n.log 2>&1; t "retime $n" $?
  tail -3 /tmp/r-$n.log | tr '\r' '\n' | grep -E "wrote|kernels" | tail -2; cp /tmp/rep-$n/tune.md $OUT/tune-$n.md 2>/dev/null
  [ -s /tmp/r-$n.yaml ] && B=/tmp/r-$n.yaml
}
r bf16 -shapes docs/perf/2026-12-02-h200-c/corpus7.csv
r odd -shapes scripts/shapes-odd.csv
r e4m3 -model llama3-8b -types 'e4m3→bf16,e4m3→bf16/row,e4m3→bf16/block128,e4m3→f16'
cp $B $OUT/buckets-R.yaml
.gpu/autotune check $B; .gpu/autotune compare -threshold 3 buckets.yaml $B > $OUT/compare.txt 2>&1; t compare $?
tail -5 $OUT/compare.txt; echo "total $(( $(date +%s) - s )) s"

# Call I (any Hopper card): call H ran the shift fix's kbench same against the sk_ts twins and found 8 of 36 runs
# differing from row 0 on, not only in the shared rows: walking M tiles from the last puts other tiles in the split
# tail, so the grid walk's bits are not its unshifted twin's (as stream-K's never are across walks; check against
# float64, memcheck and every engine GPU test passed). The comparison that holds: kbench same now runs each grid
# sk_sh_ts kernel against the planned-parts sk_tp_sh_ts of its tile at the grid walk's own tail split S (both walk
# from the last M tile and move the boundary alike: the same roles, the same part order).
# 1. kbench same, new kernels, 4096 × 4096 at M = 600…1449, 16384 × 4096 at 600, 384 × 4096 at 700.
#    Prediction: 0 elements differ in every run.
# 2. The control: the same with the kernels before the fix (kbench-old, the committed kernels/src): differs where the
#    unflipped walk splits other tiles (prediction: most runs with a tail), so the comparison can fail.
# 3. autotune tune -base-routes -vendor=false over the bf16 corpus at M = 257…4096 and f16 Llama-3-8B at 129…256
#    (the buckets that route to or record sk_sh_ts), then autotune compare against the committed table.
#    Prediction: sk_sh_ts buckets within ±3 % of their recorded times.
# usage: bash callI.sh   (carry .gpu-bin: i.txz = stripped .gpu/autotune, .gpu/kbench and .gpu/kbench-old of
#   'sk_sh_ts,sk_tp_sh_ts' built by docs/perf/2026-12-07-h200-h/build-kb.sh, the old with SRC= the committed headers)
set -uo pipefail
s=$(date +%s); S=$OUT/summary.txt; L=${LIMIT:-585}
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s" | tee -a $S; }
say() { tee -a $S; }
left() { echo $(( L - ($(date +%s) - s) )); }
python3 -c "import tarfile; tarfile.open('.gpu-bin/i.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; mkdir -p /tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | say
for v in kbench kbench-old; do
  timeout 40 .gpu/$v same 600,700,800,900,1000,1449 "sk_sh_ts" 4096x4096 > $OUT/same-$v.log 2>&1; t "$v same" $?
  timeout 20 .gpu/$v same 600 "sk_sh_ts" 16384x4096 >> $OUT/same-$v.log 2>&1; t "$v same wide" $?
  timeout 20 .gpu/$v same 700 "sk_sh_ts" 384x4096 >> $OUT/same-$v.log 2>&1; t "$v same narrow" $?
  echo "$v: $(grep -c 'same ok' $OUT/same-$v.log) same ok, $(grep -c 'SAME FAIL' $OUT/same-$v.log) SAME FAIL" | say
done
grep 'SAME FAIL' $OUT/same-kbench.log | head -6 | say
if grep -q 'SAME FAIL' $OUT/same-kbench.log || ! grep -q 'same ok' $OUT/same-kbench.log; then echo "no retime: same not clean" | say; exit 0; fi
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
timeout $(( $(left) - 40 )) .gpu/autotune tune -shapes docs/perf/2026-12-02-h200-c/corpus7.csv -base-routes -vendor=false \
  -time-limit $(( $(left) - 110 ))s -min-m 257 -max-m 4096 -reps 10 -event-calls 10 -base buckets.yaml -out $OUT/buckets-R.yaml -report /tmp/c/rep \
  -driver "$drv" > $OUT/retime.log 2>&1; t retime $?
cp /tmp/c/rep/tune.md $OUT/tune-R.md 2>/dev/null
[ -s $OUT/buckets-R.yaml ] && [ $(left) -gt 40 ] && { timeout $(( $(left) - 15 )) .gpu/autotune tune -model llama3-8b -types f16 \
  -base-routes -vendor=false -min-m 129 -max-m 256 -reps 10 -event-calls 10 -base $OUT/buckets-R.yaml -out /tmp/c/r2.yaml \
  -report /tmp/c/rep2 -driver "$drv" > /tmp/c/retime-f16.log 2>&1; t retime-f16 $?; tail -2 /tmp/c/retime-f16.log >> $OUT/retime.log
  [ -s /tmp/c/r2.yaml ] && cp /tmp/c/r2.yaml $OUT/buckets-R.yaml; }
[ -s $OUT/buckets-R.yaml ] && { .gpu/autotune compare -threshold 3 buckets.yaml $OUT/buckets-R.yaml > $OUT/compare.txt 2>&1; t compare $?; tail -8 $OUT/compare.txt | say; }
echo "total $(( $(date +%s) - s )) s" | say

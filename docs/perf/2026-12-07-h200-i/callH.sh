# Call H (any Hopper card): the ws_stream_k_shift fix (sk_sh_ts: M tiles walked from the last, the whole/tail
# boundary moved so that the shifted last M tile and the one before are both whole or both split alike), then the
# whole engine GPU suite (call G's, which never started), then the table's sk_sh_ts buckets re-measured.
# 1. kbench check + memcheck of sk_sh_ts; kbench same against the sk_ts twins at 4096 × 4096, M = 600…1449, and at
#    16384 × 4096 M = 600 (a case where the boundary moves: 396 whole of 430 tiles of 128x192 on 132 SMs).
#    Prediction: check and memcheck clean; 0 elements differ everywhere (call E: 37 at M = 800, 128x192).
# 2. dispatch.test, every test (TestEveryKernelOnAwkwardShapes …). Prediction: all pass.
# 3. Only if 1 is clean: autotune tune -base-routes -vendor=false over the bf16 corpus, M = 257…4096 (the buckets
#    that route to or record sk_sh_ts; the digests of the six sk_sh_ts kernels moved), then autotune compare with
#    the committed table. Prediction: sk_sh_ts buckets within ±3 % of their recorded times (the flip changes no
#    tile's work; the moved boundary happens at few M). Then the same for f16's measured sk_sh_ts buckets (Llama-3-8B
#    and the default, M = 129…256) on that table.
# usage: [SUITE=0] [LIMIT=SECONDS] bash callH.sh   (SUITE=0: without step 2; carry .gpu-bin: h.txz = stripped .gpu/dispatch.test and .gpu/autotune, filtered kbench;
#   see prepare.sh)
set -uo pipefail
s=$(date +%s); S=$OUT/summary.txt; L=${LIMIT:-585}
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s" | tee -a $S; }
say() { tee -a $S; }
left() { echo $(( L - ($(date +%s) - s) )); }
python3 -c "import tarfile; tarfile.open('.gpu-bin/h.txz').extractall()"
export GEMMROUTE_KERNEL_DIR=$PWD/kernels; mkdir -p /tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | say
timeout 60 .gpu/kbench check "" "sk_sh_ts" > /tmp/c/check-sh.log 2>&1; t check-sh $?; tail -1 /tmp/c/check-sh.log | say
grep -E '^FAIL|mismatch|differs' /tmp/c/check-sh.log | head -6 | say
timeout 40 .gpu/kbench same 600,700,800,900,1000,1449 "sk_sh_ts" 4096x4096 > $OUT/same-sh.log 2>&1; t same-sh $?
timeout 20 .gpu/kbench same 600 "sk_sh_ts" 16384x4096 >> $OUT/same-sh.log 2>&1; t same-sh-wide $?
grep -c 'same ok' $OUT/same-sh.log | sed 's/^/same ok: /' | say; grep 'SAME FAIL' $OUT/same-sh.log | head -8 | say
timeout 40 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" "sk_sh_ts_bf16" > /tmp/c/mem-sh.log 2>&1; t memcheck-sh $?; tail -1 /tmp/c/mem-sh.log | say
[ "${SUITE:-1}" = 1 ] && (cd dispatch && timeout 260 ../.gpu/dispatch.test -test.count=1 -test.v -test.timeout 250s > $OUT/gpu-all.log 2>&1); t gpu-all $?
grep -E '^(--- FAIL|--- SKIP|ok|FAIL|PASS)' $OUT/gpu-all.log | head -30 | say
grep -cE '^--- PASS' $OUT/gpu-all.log | sed 's/^/passed: /' | say
grep -E '^\s+(Error|Messages)' $OUT/gpu-all.log | head -12 | say
if grep -q 'SAME FAIL' $OUT/same-sh.log || ! grep -q 'same ok' $OUT/same-sh.log; then echo "no retime: same not clean" | say; exit 0; fi
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
timeout $(( $(left) - 15 )) .gpu/autotune tune -shapes docs/perf/2026-12-02-h200-c/corpus7.csv -base-routes -vendor=false \
  -min-m 257 -max-m 4096 -reps 10 -event-calls 10 -base buckets.yaml -out $OUT/buckets-R.yaml -report /tmp/c/rep \
  -driver "$drv" > $OUT/retime.log 2>&1; t retime $?
cp /tmp/c/rep/tune.md $OUT/tune-R.md 2>/dev/null
[ -s $OUT/buckets-R.yaml ] && [ $(left) -gt 40 ] && { timeout $(( $(left) - 15 )) .gpu/autotune tune -model llama3-8b -types f16 \
  -base-routes -vendor=false -min-m 129 -max-m 256 -reps 10 -event-calls 10 -base $OUT/buckets-R.yaml -out /tmp/c/r2.yaml \
  -report /tmp/c/rep2 -driver "$drv" > /tmp/c/retime-f16.log 2>&1; t retime-f16 $?; tail -2 /tmp/c/retime-f16.log >> $OUT/retime.log
  [ -s /tmp/c/r2.yaml ] && cp /tmp/c/r2.yaml $OUT/buckets-R.yaml; }
[ -s $OUT/buckets-R.yaml ] && { .gpu/autotune compare -threshold 3 buckets.yaml $OUT/buckets-R.yaml > $OUT/compare.txt 2>&1; t compare $?; tail -8 $OUT/compare.txt | say; }

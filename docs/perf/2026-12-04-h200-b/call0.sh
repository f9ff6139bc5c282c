# call 0: first run of the kernels built after the sixth session's last GPU call (all experimental, never routed):
# ws_wgmma_swap_sk_ts 16x128 / 32x128 / 64x128 (stream-K swap tiles, TMA store of the finished tile), ws_wgmma_ts
# 64x96 s10 / 128x96 s7 (three 32-column boxes, 64-byte swizzle), and the e4m3 TMA-store twins (ts, b128_ts,
# swap_ts, swap_b128_ts; bf16 and f16 out): kbench check against float64, memcheck, the engine's kernel-wide tests,
# then each timed beside its register twin and cuBLAS.
# Predictions: swap_sk_ts o (4096x4096) M = 64 14.0 → ≤ 12.5 µs (cuBLAS 11.2); ts 64x96 at qkv M = 64 ≤ 16.5 µs
# (register twin 17.3); e4m3 ts at M = 1024 3–6 µs below the register twins on every weight.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
NEW=swap_sk_ts,ts_bf16_bf16_f32_tn_64x96,ts_bf16_bf16_f32_tn_128x96,ts_f16_f16_f32_tn_64x96,ts_f16_f16_f32_tn_128x96
timeout 50 .gpu/kbench check "" $NEW > $OUT/check.log 2>&1; t check $?; tail -1 $OUT/check.log; grep -E "WRONG|FAIL" $OUT/check.log | head -5
timeout 50 .gpu/kbench8 check "" ts_e4m3 > $OUT/check8.log 2>&1; t check8 $?; tail -1 $OUT/check8.log; grep -E "WRONG|FAIL" $OUT/check8.log | head -5
timeout 50 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" $NEW > $OUT/sanitize.log 2>&1; t memcheck $?; grep "ERROR SUMMARY" $OUT/sanitize.log
timeout 50 compute-sanitizer --tool memcheck .gpu/kbench8 memcheck "" ts_e4m3 > $OUT/sanitize8.log 2>&1; t memcheck8 $?; grep "ERROR SUMMARY" $OUT/sanitize8.log
timeout 40 compute-sanitizer --tool racecheck .gpu/kbench memcheck "" swap_sk_ts_bf16_bf16_f32_tn_32x128 >> $OUT/sanitize.log 2>&1; t racecheck $?; grep "RACECHECK SUMMARY" $OUT/sanitize.log
R='TestEveryKernelOnAwkwardShapes|TestMoreThan2p31Elements|TestReductionClassesAgree|TestSplitKDeterministic|TestGraphCaptureMatchesDirect|TestBadInputLaunchesNothing'
(cd dispatch && timeout 120 ../.gpu/dispatch.test -test.run "$R" -test.timeout 110s -test.v) > $OUT/gputest.log 2>&1; t gputest $?
grep -E '^(--- FAIL|--- SKIP|ok|FAIL|PASS)' $OUT/gputest.log | head -10
F=swap_sk_ts_bf16,swap_sk_bf16_bf16_f32_tn_16x128,swap_sk_bf16_bf16_f32_tn_32x128x64,swap_sk_bf16_bf16_f32_tn_64x128x64,swap_ts_bf16_bf16_f32_tn_32x128x128,swap_ts_bf16_bf16_f32_tn_64x128x64
timeout 50 .gpu/kbench timeall 32,64,128 "$F" 4096x4096,6144x4096 > $OUT/time-swap-sk.log 2>&1; t time-swap-sk $?
timeout 40 .gpu/kbench timeall 64,128 "bf16_bf16_f32_tn_64x96,bf16_bf16_f32_tn_128x96" 6144x4096,4096x4096 > $OUT/time-96.log 2>&1; t time-96 $?
timeout 50 .gpu/kbench8 timeall 1024,4096 "e4m3_bf16_f32_tn_128x1" 6144x4096,4096x4096,28672x4096,4096x14336 > $OUT/time8.log 2>&1; t time8 $?
timeout 40 .gpu/kbench8 timeall 32,64,128 "swap_e4m3_bf16,swap_ts_e4m3_bf16" 6144x4096,4096x4096 > $OUT/time8-swap.log 2>&1; t time8-swap $?
for f in time-swap-sk time-96 time8 time8-swap; do echo "== $f"; grep -v "^   " $OUT/$f.log | grep -E "^ +[0-9]"; done; echo "total $(( $(date +%s) - s )) s"

# call 7: issue 17 — first run of the swap tiles with the TMA store (ws_wgmma_swap_ts 16x128, 32x128, 32x128x128
# KB = 2, 64x128: each consumer stages its 64 weight columns of D for the BM tokens, transposed): kbench check
# against the float64 reference, memcheck, racecheck; timed beside their register twins and cuBLAS at M = 32…256.
# Prediction: 1–2 µs less where split-K is 1 (o M = 128…256: 16.3 / 20.8 µs in the 2026-12-02 bench).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
NEW=swap_ts
timeout 40 .gpu/kbench check "" $NEW > $OUT/check.log 2>&1; t check $?; tail -1 $OUT/check.log; grep -E "WRONG|FAIL" $OUT/check.log | head -5; grep -c PASS $OUT/check.log
timeout 50 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" $NEW > $OUT/sanitize.log 2>&1; t memcheck $?; grep "ERROR SUMMARY" $OUT/sanitize.log
timeout 40 compute-sanitizer --tool racecheck .gpu/kbench memcheck "" swap_ts_bf16_bf16_f32_tn_32x128x64 >> $OUT/sanitize.log 2>&1; t racecheck $?; grep "RACECHECK SUMMARY" $OUT/sanitize.log
F=swap_bf16_bf16_f32_tn_16x128x64_w12_s12,swap_ts_bf16_bf16_f32_tn_16x128,swap_bf16_bf16_f32_tn_32x128x64_w12_s8,swap_ts_bf16_bf16_f32_tn_32x128x64,swap_bf16_bf16_f32_tn_32x128x128_w12_s5,swap_ts_bf16_bf16_f32_tn_32x128x128,swap_bf16_bf16_f32_tn_64x128x64_w12_s8,swap_ts_bf16_bf16_f32_tn_64x128x64
timeout 120 .gpu/kbench timeall 32,64,128,256 "$F" 6144x4096,4096x4096,28672x4096,4096x14336 > $OUT/time.log 2>&1; t time $?
grep -v "^   " $OUT/time.log | grep -E "^ +[0-9]"; echo "total $(( $(date +%s) - s )) s"

# call 2: issue 17 — first run of the TMA-store epilogue on the mid-M tiles (ts 128x128, mc2_ts 128x128, ts 128x64,
# mc2n_ts 64x64) and the stream-K tiles (sk_ts 128x256, 128x192, 128x128): kbench check against the float64
# reference, memcheck, racecheck; timed beside their register twins and cuBLAS at M = 64 … 1024 on Llama-3-8B's
# weights; the swap tile's fixed cost (K = 64 against 4096). Prediction: the register epilogue's ~6 µs at
# M = 1024, N = 4096 (call 1) shrinks with the output; at M = 256…1024 the ts twins gain 1.5–4 µs.
# Then issue 18 §2: tune Llama-3-8B in e4m3→f16 (our kernels only; the committed kernels embedded in autotune).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; s=$(date +%s)
drv=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
NEW=sk_ts,ts_bf16_bf16_f32_tn_128x128,ts_f16_f16_f32_tn_128x128,ts_bf16_bf16_f32_tn_128x64,ts_f16_f16_f32_tn_128x64,ts_bf16_bf16_f32_tn_64x64,ts_f16_f16_f32_tn_64x64
timeout 60 .gpu/kbench check "" $NEW > $OUT/check.log 2>&1; t check $?; tail -1 $OUT/check.log; grep -E "WRONG|FAIL" $OUT/check.log | head -5
timeout 70 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" $NEW > $OUT/sanitize.log 2>&1; t memcheck $?; grep "ERROR SUMMARY" $OUT/sanitize.log
timeout 50 compute-sanitizer --tool racecheck .gpu/kbench memcheck "" sk_ts_bf16_bf16_f32_tn_128x256,mc2n_ts_bf16_bf16_f32_tn_64x64 >> $OUT/sanitize.log 2>&1; t racecheck $?; grep "RACECHECK SUMMARY" $OUT/sanitize.log
timeout 30 .gpu/kbench timeall 128 swap_bf16_bf16_f32_tn_32x128x128 4096x64,4096x4096 > $OUT/swapk.log 2>&1; t swapk $?
grep -E "sk1 |cublas " $OUT/swapk.log | grep -v pers | sed 's/  (R=.*//'
F=tn_128x128x64_w12_s6,tn_128x64x64_w12_s8,tn_64x64x64_w8_s12,sk_bf16_bf16_f32_tn_128x256,sk_ts_bf16_bf16_f32_tn_128x256,sk_bf16_bf16_f32_tn_128x192,sk_ts_bf16_bf16_f32_tn_128x192
timeout 170 .gpu/kbench timeall 64,256,512,1024 "$F" 6144x4096,4096x4096,28672x4096,4096x14336 > $OUT/time.log 2>&1; t time $?
grep -v "^   " $OUT/time.log | grep -E "^ +[0-9]"
timeout 215 .gpu/autotune tune -model llama3-8b -types 'e4m3->f16' -vendor=false -reps 10 -event-calls 10 \
  -out $OUT/buckets-F16.yaml -report $OUT/rep -driver "$drv" > $OUT/tune-F16.log 2>&1; t tune $?; tail -2 $OUT/tune-F16.log | tr '\r' '\n' | tail -2
(cd $OUT && cp rep/tune.md tune-F16.md; rm -rf rep) 2>/dev/null; echo "total $(( $(date +%s) - s )) s"

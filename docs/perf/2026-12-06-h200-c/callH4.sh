# Fifteenth session, call 4 on a card that is not the H200 (name it in the report): the ping-pong 128x128 with the
# TMA-store epilogue (ws_wgmma_pp_ts, _pp_mc2_ts; bf16 and f16; built after call 3, not yet run) against float64
# (kbench check), memcheck, through the engine and in its reduction class; then graph replay at M = 1024, 2048 and
# 4096 beside its register-epilogue twins, the best cooperative tiles of calls 1–2 and cuBLAS; ncu at
# M = 1024 × 14336 × 4096 (call 3's table: cuBLAS 241 k cycles, tensor pipe 93.7 %; rn_ts 128x224 268 k, 83.5 %).
# Predictions (before any run): all pass; at M = 1024 × 14336 the pp_ts (persistent) ≤ 0.96× its register twin's
# time by graph replay and ≤ 170 µs; in ncu its tensor pipe ≥ 86 % and its cycles ≤ 260 k.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 100 .gpu/kbench check all pp_ > $OUT/check.log 2>&1; t check $?; tail -1 $OUT/check.log; grep -c PASS $OUT/check.log; grep -m3 FAIL $OUT/check.log
timeout 100 compute-sanitizer --tool memcheck .gpu/kbench memcheck all _ts_bf16_bf16_f32_tn_128x128x64_w12_s5 > /tmp/mc.log 2>&1; t memcheck $?; grep -E "ERROR SUMMARY|CHECK" /tmp/mc.log | tail -2
(cd dispatch && timeout 200 ../.gpu/dispatch.test -test.run 'TestEveryKernelOnAwkwardShapes|TestReductionClassesAgree' -test.timeout 190s -test.v) > $OUT/gputest.log 2>&1; t gputest $?
grep -E '^(--- |ok|FAIL|PASS)' $OUT/gputest.log | head; grep "wgmma16.seq" $OUT/gputest.log | head -1
K="pp_bf16_bf16_f32_tn_128x128,pp_mc2_bf16_bf16_f32_tn_128x128,pp_ts_bf16_bf16_f32_tn_128x128,pp_mc2_ts_bf16_bf16_f32_tn_128x128,ws_wgmma_rn_ts_bf16_bf16_f32_tn_128x224x64,ws_wgmma_sk_ts_bf16_bf16_f32_tn_128x256x64,ws_wgmma_rn_ts_bf16_bf16_f32_tn_128x256x64"
timeout 240 .gpu/kbench timeall 1024,2048,4096 $K 14336x4096,6144x4096,4096x4096 > $OUT/time.log 2>&1; t timeall $?
grep -E "^   (cublas|.*/sk1) " $OUT/time.log | awk '{print $1, $2, $3, $5}' | sort -k2,3 -k4n | awk '{c[$2" "$3]++} $1=="cublas" || c[$2" "$3]<=5'
for k in ws_wgmma_pp_ts_bf16_bf16_f32_tn_128x128x64 ws_wgmma_pp_mc2_ts_bf16_bf16_f32_tn_128x128x64 ws_wgmma_pp_bf16_bf16_f32_tn_128x128x64; do
  echo "=== $k" >> $OUT/ncu.log
  timeout 60 ncu --clock-control none --section SpeedOfLight \
    --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__cycles_active.avg,sm__cycles_active.max \
    --kernel-name regex:"$k" --launch-skip 2 --launch-count 1 .gpu/kbench prof 1024 $k 14336x4096 1 pers >> $OUT/ncu.log 2>&1; t "ncu $k" $?
done
grep -E "^===|Elapsed Cycles|Duration|hmma|sm__cycles_active" $OUT/ncu.log | grep -v "^==PROF"
echo "total $(( $(date +%s) - s )) s"

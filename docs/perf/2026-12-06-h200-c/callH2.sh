# Fifteenth session, call 2 (any Hopper card; name it in the report): the 128x224 TMA-store tiles (ws_wgmma_ts,
# _rn_ts, _rn_mc2_ts; bf16 and f16; built after call 1) against float64 (kbench check), memcheck, through the
# engine's launch path and in their reduction class; then graph replay beside cuBLAS and the 128x256 / 256x160 tiles
# that won in call 1, at M = 1024, 2048 and 4096 on the weights where 224 columns fit the waves (14336 and 28672 rows)
# and on Llama-3-8B's down projection.
# Predictions (before any run): all pass; at M = 1024 × 14336 × 4096 the best 128x224 (persistent) runs 162–166 µs
# (call 1: best ours 176.0, cuBLAS 159.3), ≤ 0.95× the best 128x256 / 256x160 of the same call; on 28672 rows
# (1024 tiles, 7.76 waves, against 896 of 128x256 in 6.79) ≤ 0.97× the best other; at M = 4096 it does not beat
# the 256x160 (both fit there).
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 100 .gpu/kbench check all 128x224 > $OUT/check.log 2>&1; t check $?; tail -1 $OUT/check.log; grep -c PASS $OUT/check.log
timeout 100 compute-sanitizer --tool memcheck .gpu/kbench memcheck all 128x224 > /tmp/mc.log 2>&1; t memcheck $?; grep -E "ERROR SUMMARY|CHECK" /tmp/mc.log | tail -2
(cd dispatch && timeout 200 ../.gpu/dispatch.test -test.run 'TestEveryKernelOnAwkwardShapes|TestReductionClassesAgree' -test.timeout 190s -test.v) > $OUT/gputest.log 2>&1; t gputest $?
grep -E '^(--- |ok|FAIL|PASS)' $OUT/gputest.log | head; grep "wgmma16.seq" $OUT/gputest.log | head -1
K="ts_bf16_bf16_f32_tn_128x224x64,ws_wgmma_rn_ts_bf16_bf16_f32_tn_128x256x64,ws_wgmma_sk_ts_bf16_bf16_f32_tn_128x256x64,rn_mc2n_ts_bf16_bf16_f32_tn_256x160x64,ws_wgmma_rn_ts_bf16_bf16_f32_tn_256x160x64"
timeout 240 .gpu/kbench timeall 1024,2048,4096 $K 14336x4096,28672x4096,4096x14336 > $OUT/time.log 2>&1; t timeall $?
grep -E "^   (cublas|.*/sk1) " $OUT/time.log | awk '{print $1, $2, $3, $5}' | sort -k2,3 -k4n | awk '{c[$2" "$3]++} $1=="cublas" || c[$2" "$3]<=6'
echo "total $(( $(date +%s) - s )) s"

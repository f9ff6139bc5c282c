# call 2: issue 17 mid M — the experimental tiles that give about one block per SM (ws_wgmma and ws_wgmma_sk
# 128x96, 128x64, 64x96; ws_wgmma_swap 32x64 and swap_sk 32x64, 16x64): kbench check against the float64 reference
# (bits over runs), compute-sanitizer memcheck, then timed beside cublasGemmEx and the table's mid-M tiles at
# M = 16…512 on Llama-3-8B's four weights and five others.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
NEW="128x96x64,128x64x64,64x96x64,swap_bf16_bf16_f32_tn_32x64,swap_f16_f16_f32_tn_32x64,swap_sk_bf16_bf16_f32_tn_32x64,swap_sk_f16_f16_f32_tn_32x64,_16x64x64_w8_s16"
timeout 90 .gpu/kbench check "" "$NEW" > $OUT/check.log 2>&1; echo "check rc=$? $(( $(date +%s) - s )) s"; tail -1 $OUT/check.log; grep -E "FAIL|differs" $OUT/check.log | head -5
timeout 90 compute-sanitizer --tool memcheck .gpu/kbench memcheck "" "$NEW" > $OUT/memcheck.log 2>&1; echo "memcheck rc=$? $(( $(date +%s) - s )) s"; tail -2 $OUT/memcheck.log
OLD="swap_bf16_bf16_f32_tn_64x128x64_w12_s8,swap_bf16_bf16_f32_tn_64x64x128,swap_bf16_bf16_f32_tn_32x128x64_w12_s8,swap_bf16_bf16_f32_tn_16x64x64,swap_bf16_bf16_f32_tn_16x128x64_w12_s12,ws_wgmma_bf16_bf16_f32_tn_128x128x64_w12_s6,ws_wgmma_bf16_bf16_f32_tn_128x256"
timeout 330 .gpu/kbench timeall 16,32,64,128,256,512 "$NEW,$OLD" 6144x4096,4096x4096,28672x4096,4096x14336,5120x4096,15360x5120,4096x1024,5120x13824,3072x8192 > $OUT/time.log 2>&1
echo "time rc=$? $(( $(date +%s) - s )) s"; grep -v "^   " $OUT/time.log | tail -56

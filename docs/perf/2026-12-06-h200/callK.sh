# Next session, kernel-level (any Hopper card; name it in the report): issue 17's compute-bound regime. The BM = 256
# tiles — 256x128 (cuBLAS's nvjet 256x128 coopA, added 2026-12-02, never run) and 256x160 (each consumer what
# cuBLAS's 320x128 coopB consumer computes, added 2026-12-06) — against float64 (kbench check, memcheck), then timed by
# graph replay beside cuBLAS and our 128x256 at M = 1024, 4096, 8192, then ncu of the two persistent at 4096 × 14336 × 4096 beside
# our 128x256 and cuBLAS in the same call.
# Predictions (written before any run): 256x160 persistent at 4096 × 14336 × 4096 ≤ 0.92× the cycles of our 128x256
# in the same call (H100, 2026-12-06: 128x256 1,144 k, cuBLAS 971 k), tensor pipe ≥ 85 %; by graph replay ≥ 5 % faster than our best at M ≥ 4096 on
# the 14336- and 28672-row weights.
# Added 2026-12-06 (fourteenth session, before any run): the H100's ncu had L2 throughput 74 % for our 128x256 at 79 %
# tensor pipe, cuBLAS 60 % at 93 % — at cuBLAS's tensor rate ours would need ≈ 87 % of L2, so L2 traffic per MAC may
# be what bounds it (128x256 loads 23 bytes of A and B per k-MAC, cuBLAS's 320x128 1×2 ≈ 14). The 256x160 in clusters
# along N (mc2n: the two blocks share A's 256 token rows) loads ≈ 14 too: predicted L2 throughput ≤ 65 %, tensor pipe
# ≥ 85 %, cycles ≤ 0.90× the 128x256's; the 256x160 alone (≈ 21 bytes) no better than 0.95×. The 128x256 in clusters along M (mc2, sharing B: ≈ 16 bytes),
# already built, tests the same idea on a tile we know: L2 ≤ 65 %, tensor pipe ≥ 85 % if L2 is what bounds the 128x256.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
t() { echo "$1 rc=$2 $(( $(date +%s) - s )) s"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
F=_256x160x64,_256x128x64
timeout 150 .gpu/kbench check all $F > $OUT/check.log 2>&1; t check $?; tail -1 $OUT/check.log
timeout 120 compute-sanitizer --tool memcheck .gpu/kbench memcheck all $F > /tmp/mc.log 2>&1; t memcheck $?; grep -E "ERROR SUMMARY|CHECK" /tmp/mc.log | tail -2
timeout 200 .gpu/kbench timeall 1024,4096,8192 $F,ws_wgmma_bf16_bf16_f32_tn_128x256x64,ws_wgmma_mc2_bf16_bf16_f32_tn_128x256x64,pp_mc2_bf16_bf16_f32_tn_128x128x64 \
  14336x4096,28672x4096,6144x4096,4096x4096 > $OUT/time-large.log 2>&1; t timeall $?; grep -vE "^\s*$|^   " $OUT/time-large.log
for p in "ws_wgmma_mc2n_bf16_bf16_f32_tn_256x160x64 1 pers" "ws_wgmma_bf16_bf16_f32_tn_256x160x64 1 pers" "ws_wgmma_bf16_bf16_f32_tn_256x128x64 1 pers" \
         "ws_wgmma_bf16_bf16_f32_tn_128x256x64 1 pers" "ws_wgmma_mc2_bf16_bf16_f32_tn_128x256x64 1 pers" "cublas 1"; do  # the baselines on the same card
  set -- $p; echo "=== $p" >> $OUT/ncu-256.log
  timeout 60 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section LaunchStats \
    --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed --kernel-name regex:"${1/cublas/nvjet|xmma|cutlass}" \
    --launch-skip 2 --launch-count 1 .gpu/kbench prof 4096 $1 14336x4096 $2 ${3:-} >> $OUT/ncu-256.log 2>&1; t ncu $?
done
grep -E "^===|Elapsed Cycles|Duration|hmma|Grid Size|L2 Cache Throughput" $OUT/ncu-256.log; echo "total $(( $(date +%s) - s )) s"

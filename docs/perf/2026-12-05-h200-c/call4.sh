# Eleventh session, call 4 (what the device time left allowed; the H200 refused, so an H100): issue 17's o M = 64 gap
# (×0.82 of cuBLAS on the H200) — ncu's speed of light, memory and warp stalls of cuBLAS's kernel beside our two best
# tiles there (ts 64x96, swap_mc2_ts 32x64: the same tile and cluster as cuBLAS's nvjet 64x32 1×2), at o 4096x4096.
set -uo pipefail
tar xzf .gpu-bin/bins.tgz; export GEMMROUTE_KERNEL_DIR=$PWD/kernels; s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
X="dram__bytes_read.sum,lts__t_sector_hit_rate.pct,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,l1tex__m_xbar2l1tex_read_bytes.sum,sm__cycles_active.avg"
for c in "nvjet|xmma|cutlass cublas" "ws_wgmma_ts_bf16_bf16_f32_tn_64x96x64 ws_wgmma_ts_bf16_bf16_f32_tn_64x96x64" \
         "ws_wgmma_swap_mc2_ts_bf16_bf16_f32_tn_32x64x64 ws_wgmma_swap_mc2_ts_bf16_bf16_f32_tn_32x64x64"; do
  set -- $c; echo "=== M=64 4096x4096 $1" >> $OUT/ncu.log
  timeout 50 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section LaunchStats --section Occupancy --metrics $X --kernel-name regex:"$1" --launch-skip 2 --launch-count 1 \
    .gpu/kbench prof 64 $2 4096x4096 >> $OUT/ncu.log 2>&1; echo "ncu rc=$? $(( $(date +%s) - s )) s"
done
grep -E "^===|Duration|DRAM Throughput|Memory Throughput|hmma|dram__bytes|xbar2l1tex|Grid Size|Block Size|Registers|Stall|Warp Cycles" $OUT/ncu.log | head -70
echo "total $(( $(date +%s) - s )) s"

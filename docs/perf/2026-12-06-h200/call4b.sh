# Thirteenth session, kernel-level work for a card that is not the H200 (auto.sh): the eleventh session's call4.sh
# (ncu at o M = 64), then the compute-bound gap of issue 17 — 4096 × 14336 × 4096, our best kernel there 602–748
# TFLOP/s against cuBLAS's ~780 (README bench, H200) — ncu's speed of light, pipe utilisation and warp stalls of
# cuBLAS's kernel beside the ping-pong cluster tile the table routes there and the 128x256 cooperative tile.
set -uo pipefail
bash docs/perf/2026-12-05-h200-c/call4.sh; s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
X="dram__bytes_read.sum,lts__t_sector_hit_rate.pct,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__cycles_active.avg,sm__throughput.avg.pct_of_peak_sustained_elapsed"
for c in "nvjet|xmma|cutlass cublas" "ws_wgmma_pp_mc2_bf16_bf16_f32_tn_128x128x64 ws_wgmma_pp_mc2_bf16_bf16_f32_tn_128x128x64" \
         "ws_wgmma_bf16_bf16_f32_tn_128x256x64 ws_wgmma_bf16_bf16_f32_tn_128x256x64"; do
  set -- $c; echo "=== M=4096 14336x4096 $1" >> $OUT/ncu-big.log
  timeout 60 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section LaunchStats --section Occupancy \
    --metrics $X --kernel-name regex:"$1" --launch-skip 2 --launch-count 1 .gpu/kbench prof 4096 $2 14336x4096 >> $OUT/ncu-big.log 2>&1
  echo "ncu-big rc=$? $(( $(date +%s) - s )) s"
done
grep -E "^===|Duration|Compute \(SM\) Throughput|hmma|Grid Size|Cluster|Registers|Stall|Warp Cycles|Issued Warp" $OUT/ncu-big.log | head -60

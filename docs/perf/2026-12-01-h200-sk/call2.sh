# call 2: why stream-K ran slower (call 1): ncu of the stream-K and data-parallel kernels of one tile at a memory-bound
# shape (M = 128, N = 6144, K = 4096) and a compute-bound one (M = 1024, N = 5120, K = 13824): duration, DRAM bytes,
# L2 hit rate, tensor-pipe activity; kbench check of the segment-walk rewrite (same kernels' SASS for the others).
set -uo pipefail
s=$(date +%s)
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
KB=./.gpu-bin/kbench
timeout 60 $KB check "" _sk_ > $OUT/check.log 2>&1; echo "check rc=$? $(( $(date +%s) - s )) s"; grep -c PASS $OUT/check.log; grep -E "FAIL|differs|CHECK" $OUT/check.log | head -5
M="gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,l1tex__m_xbar2l1tex_read_bytes.sum"
for c in "128 6144x4096 ws_wgmma_sk_bf16_bf16_f32_tn_128x128x64" "128 6144x4096 ws_wgmma_bf16_bf16_f32_tn_128x128x64" \
         "128 6144x4096 ws_wgmma_swap_sk_bf16_bf16_f32_tn_64x128x64" "128 6144x4096 ws_wgmma_swap_bf16_bf16_f32_tn_64x128x64" \
         "1024 5120x13824 ws_wgmma_sk_bf16_bf16_f32_tn_128x256x64" "1024 5120x13824 ws_wgmma_bf16_bf16_f32_tn_128x256x64"; do
  set -- $c
  timeout 60 ncu --clock-control none --metrics $M --kernel-name regex:$3 --launch-skip 3 --launch-count 1 $KB time $1 $3 $2 > $OUT/ncu-$3-$1.log 2>&1
  echo "== $3 M=$1 $2"; grep -E "duration|dram__bytes|hit_rate|hmma|xbar2l1tex" $OUT/ncu-$3-$1.log | head -6
done
echo "total $(( $(date +%s) - s )) s"

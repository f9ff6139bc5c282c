# call 1: TMA-multicast clusters (ws_wgmma MC = 2) — check, memcheck, time beside cuBLAS, ncu
set -x
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv | tee $OUT/gpu.txt
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1); echo "cublas: $CUBLAS_LIB" | tee -a $OUT/gpu.txt
KB=./.gpu/kbench
timeout 120 $KB check "" mc2 > $OUT/check.log 2>&1; echo "check rc=$?" >> $OUT/check.log; tail -2 $OUT/check.log; grep -c PASS $OUT/check.log; grep FAIL $OUT/check.log | head
timeout 90 compute-sanitizer --tool memcheck $KB memcheck "" mc2 > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?" >> $OUT/memcheck.log; tail -3 $OUT/memcheck.log
timeout 200 $KB timeall 256,1024,4096,8192 ws_bf16_128x 6144x4096,4096x4096,28672x4096,4096x14336,14336x4096,4096x1024 > $OUT/time.log 2>&1; echo "time rc=$?" >> $OUT/time.log
grep -v "^   " $OUT/time.log
NCU="ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --metrics sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed --launch-count 1"
for k in ws_bf16_128x256_s4 ws_bf16_128x256_s4_mc2; do
  timeout 60 $NCU --kernel-name $k $KB time 4096 ws_bf16_128x256_s4 14336x4096 > $OUT/ncu-$k.log 2>&1
done
timeout 60 $NCU --kernel-name regex:'^(nvjet|sm90|cutlass)' $KB time 4096 nomatch 14336x4096 > $OUT/ncu-cublas.log 2>&1
grep -h "Duration\|Tensor\|SM Frequency\|Compute (SM) Throughput\|L2 Cache Throughput\|DRAM Throughput\|hmma\|per_second\|==PROF==\|Kernel\b" $OUT/ncu-*.log | head -60

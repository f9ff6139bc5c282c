# call 2: multicast with CUTLASS-style arrivals (no MEMBAR.ALL.GPU per k-tile), ping-pong + multicast;
# the context-less-thread GPU tests (issue 19.1)
set -x
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv | tee $OUT/gpu.txt
export CUBLAS_LIB=$(find / -xdev -name 'libcublas.so.1[0-9]*' 2>/dev/null | grep -v Lt | head -1)
KB=./.gpu/kbench
timeout 120 $KB check "" mc2 > $OUT/check.log 2>&1; echo "check rc=$?" >> $OUT/check.log; tail -1 $OUT/check.log; grep -c PASS $OUT/check.log; grep FAIL $OUT/check.log | head
timeout 90 compute-sanitizer --tool memcheck $KB memcheck "" mc2 > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?" >> $OUT/memcheck.log; tail -2 $OUT/memcheck.log
timeout 240 $KB timeall 256,1024,4096,8192 ws_bf16_128x 6144x4096,4096x4096,28672x4096,4096x14336,14336x4096,4096x1024 > $OUT/time.log 2>&1; echo "time rc=$?" >> $OUT/time.log
grep -v "^   " $OUT/time.log
(cd dispatch && GEMMROUTE_KERNEL_DIR=$PWD/../kernels timeout 200 ../.gpu/dispatch.test -test.run '^(TestGEMMFromAnyThread|TestEngineLifeFromAnyThread)$' -test.v -test.timeout 190s) > $OUT/threads.log 2>&1; echo "threads rc=$?" >> $OUT/threads.log
grep -E "^(=== RUN|--- |PASS|FAIL|ok)|rc=" $OUT/threads.log | head -30
timeout 60 ncu --clock-control none --section SpeedOfLight --metrics sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed --launch-count 1 --kernel-name ws_bf16_128x256_s4_mc2 $KB time 4096 ws_bf16_128x256_s4_mc2 14336x4096 > $OUT/ncu-mc2.log 2>&1
grep -h "Duration\|SM Frequency\|hmma\|L2 Cache Throughput" $OUT/ncu-mc2.log
